"""The glossary: every word the issue names and every kind of the registry, one entry each, linked by URL."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from inspector.glossary import GROUPS, TERMS, find_term, link_terms, slugify, term_url
from integrity.kinds import FINDINGS, MARKS, REPAIR_KINDS, FindingCode, Mark, RepairKind, Severity

ROOT = Path(__file__).resolve().parent.parent

WORDS = ("frame", "interrupted frame", "receipt", "durable log", "transcript", "view", "the reference", "strict",
         "openmaic", "engine", "finding", "orphan", "stray", "wind-down", "compaction", "hook message", "pi-ai",
         "renamed ids", "lease", "heartbeat", "durable transcript", "tool call", "tool result", "call id")


@pytest.mark.parametrize("word", WORDS)
def test_every_word_the_lessons_use_has_an_entry_with_an_example(word: str) -> None:
    term = find_term(word)
    assert term is not None, word
    assert term.text.strip() and term.example.strip()
    assert term_url(word) == f"/glossary?term={term.slug}"


def test_every_kind_of_the_registry_is_an_entry_under_its_registry_name() -> None:
    for table in (REPAIR_KINDS, FINDINGS, MARKS):
        for kind, facts in table.items():
            term = find_term(kind)
            assert term is not None and term.name == facts.name, kind
            assert term.text == facts.description, kind
    for severity in Severity:
        assert find_term(severity) is not None


def test_one_name_per_concept() -> None:
    slugs = [term.slug for term in TERMS]
    assert len(slugs) == len(set(slugs))
    # an alias leads to its entry; it is never the name of another entry
    names = {term.name.lower() for term in TERMS}
    for term in TERMS:
        assert not {alias.lower() for alias in term.aliases} & names, term.name
        assert term.group in GROUPS
    assert find_term("orphan") is find_term(Mark.ORPHANED_CALL)
    assert find_term("stray") is find_term(FindingCode.STRAY_RESULT) is find_term(Mark.STRAY)


def test_term_url_examples_and_unknown_words() -> None:
    assert term_url("receipt") == "/glossary?term=receipt"
    assert term_url(RepairKind.RENAMED) == "/glossary?term=renamed-ids"
    assert term_url("Interrupted Frame") == "/glossary?term=interrupted-frame"
    assert slugify("wind-down") == "wind-down"
    with pytest.raises(KeyError):
        term_url("no such word")


def test_link_terms_links_each_term_once_and_leaves_code_and_links_alone() -> None:
    text = "An interrupted frame is not a frame; a receipt, another receipt, `receipt` and [receipt](/x)."
    linked = link_terms(text)
    assert linked.count("(/glossary?term=receipt)") == 1
    assert "[interrupted frame](/glossary?term=interrupted-frame)" in linked
    assert "[frame](/glossary?term=frame)" in linked
    assert "`receipt`" in linked and "[receipt](/x)" in linked
    seen = {"receipt"}
    assert "term=receipt" not in link_terms("a receipt", linked=seen)


def page(**params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "glossary.py"), default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_page_lists_every_entry_and_puts_the_asked_one_first() -> None:
    at = page(term="receipt")
    headings = [m.value for m in at.markdown if m.value.startswith("#####")]
    assert headings[0] == "##### ➤ receipt"
    assert len(headings) == len(TERMS) + 1
    assert not at.warning


def test_the_page_says_so_for_an_unknown_term() -> None:
    at = page(term="banana")
    assert at.warning and "banana" in at.warning[0].value
    at.text_input(key="glossary_search").input("lease").run()
    headings = [m.value for m in at.markdown if m.value.startswith("#####")]
    assert "##### lease" in headings and len(headings) < 6


def test_every_lesson_a_term_points_to_exists() -> None:
    from inspector.lessons import find_lesson

    assert all(find_lesson(term.lesson) for term in TERMS if term.lesson)
    assert {term.lesson for term in TERMS if term.lesson} >= {"answered", "receipts", "unique_ids", "order"}
