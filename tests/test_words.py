"""Words that never contradict their rows (issue 29, item 4): every term the pages use is in the Glossary, and
every fact the Lessons and the Glossary state about the engine is what the engine does.

The page text is what Streamlit renders (AppTest runs each page headlessly) plus the texts the inspector
modules hand to the pages (lesson texts, the Lab's steps, Batch's words); a term of the project's list
found there without a Glossary entry fails.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from inspector import engine_facts
from inspector.glossary import PROJECT_TERMS, TERMS, find_term
from inspector.lesson_facts import shown_view_refusals, view_sentence
from inspector.lessons import LESSONS, lesson_analyses, lesson_check, lesson_text
from integrity import is_interrupted_tool_result, load
from integrity.pipeline import Status, check

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "sample_transcripts").glob("*.json*"))

ISSUE_WORDS = ("turn", "unfinished turn", "run", "healthy", "healthy for", "safe to send", "severity",
               "canonical form", "sidechain", "opaque", "numbering", "exit code 0", "exit code 1", "exit code 2",
               "would be rejected", "repaired", "rejected as recorded")
"""The words issue 29 found undefined (the verdict words and exit codes among them)."""


def _texts(at: AppTest) -> list[str]:
    found: list[str] = []
    for kind in ("markdown", "caption", "code", "info", "success", "warning", "subheader", "title", "text"):
        found.extend(str(element.value) for element in getattr(at, kind))
    return found


def _page(name: str, **params: str) -> list[str]:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return _texts(at)


@pytest.fixture(scope="module")
def page_text() -> str:
    """What the Lessons (every lesson), Quiz, Lab and Glossary pages render, and the words the modules give them."""
    from inspector import batch
    from integrity.lab import SCENARIOS, start_scenario

    texts: list[str] = []
    for lesson in LESSONS:
        texts += _page("lessons.py", lesson=lesson.key)
    texts += _page("quiz.py", seed="5") + _page("lab.py") + _page("glossary.py")
    for key in SCENARIOS:
        run = start_scenario(key)
        try:
            texts += [SCENARIOS[key].summary, SCENARIOS[key].fault]
            while not run.done:
                snap = run.step()
                texts += [snap.label, snap.explain, snap.lesson or "", snap.report.verdict]
        finally:
            run.close()
    texts += [batch.UNIVERSAL, batch.REJECTED_STATUS]
    return "\n".join(texts)


def _uses(text: str, term: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", text, re.IGNORECASE) is not None


def test_every_project_term_a_page_uses_is_in_the_glossary(page_text: str) -> None:
    used = [term for term in PROJECT_TERMS if _uses(page_text, term)]
    assert len(used) >= 40, used  # the scan reads the pages (an empty scan would pass anything)
    missing = [term for term in used if find_term(term) is None]
    assert not missing, f"the pages use {missing}, which the Glossary does not define"


def test_the_words_the_issue_found_undefined_are_project_terms_with_entries() -> None:
    for word in ISSUE_WORDS:
        assert word in PROJECT_TERMS and find_term(word) is not None, word


def _head(verdict: str) -> str:
    """The verdict's leading words: 'healthy for anthropic: ...' -> 'healthy for', 'unchanged (lossy): ...' ->
    'unchanged'."""
    head = verdict.split(":", 1)[0]
    head = re.sub(r"\s*\(.*\)$", "", head)
    return "healthy for" if head.startswith("healthy for ") else head


@pytest.mark.parametrize("policy", ["strict", "openmaic"])
def test_every_verdict_word_and_status_the_engine_says_has_an_entry(policy: str) -> None:
    heads, statuses = set(), set()
    for path in SAMPLES:
        try:
            transcript = load(path.read_bytes(), path.name)
        except Exception:  # noqa: BLE001 - a sample of several transcripts: not this test's subject
            continue
        for provider in (None, "bedrock", "mistral"):
            result = check(transcript, provider=provider, policy=policy)
            heads.add(_head(result.verdict))
            statuses.add(result.status)
    assert {"healthy", "repaired"} <= heads
    for head in heads:
        assert find_term(head) is not None, head
    for status in (*statuses, *Status):
        assert find_term(status.value) is not None or find_term(f"status: {status.value}") is not None, status


# ----------------------------------------------------------------------------- lessons against their rows


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.key)
def test_a_lesson_says_of_its_view_what_the_provider_rule_sets_say_of_it(lesson: Any) -> None:
    """'Every provider accepts its view' stood beside a view Bedrock and Mistral refuse: now the sentence
    under each policy's view names the providers that refuse that very view."""
    from integrity.providers import PROVIDERS, validate

    for analysis in lesson_analyses(lesson).values():
        refused = {name for name in PROVIDERS if validate(analysis.view, name, analysis.transcript, history=True)}
        assert set(shown_view_refusals(analysis)) == refused
        sentence = view_sentence(analysis)
        if refused:
            assert "is refused by" in sentence and all(f"{name} (" in sentence for name in refused)
            assert "accepted by every provider rule set" not in sentence
        else:
            assert "is accepted by every provider rule set" in sentence


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.key)
def test_the_lesson_states_what_check_says(lesson: Any) -> None:
    checked = lesson_check(lesson)
    strict = lesson_analyses(lesson)["strict"]
    assert checked.verdict == strict.report.verdict  # the side-by-side's verdict line is check's
    for part in ("rule", "why", "policies"):
        assert "{" not in lesson_text(lesson, part)


def test_the_duplicate_lessons_say_which_result_is_a_receipt() -> None:
    """Lesson 2 said 'Neither result is a receipt' beside a count of receipts: now both are the engine's."""
    for key, receipts in (("once", False), ("receipts", True)):
        lesson = next(lesson for lesson in LESSONS if lesson.key == key)
        messages = lesson_analyses(lesson)["openmaic"].transcript.messages
        kept = [a.kept_instead for a in lesson_analyses(lesson)["openmaic"].report.actions
                if a.kind == "dropped_duplicate"]
        assert any(is_interrupted_tool_result(messages[index]) for index in kept) is receipts
        text = lesson_text(lesson, "policies")
        assert ("a receipt" in text) is receipts or "neither of them is a receipt" in text
    verdict = lesson_analyses(LESSONS[1])["strict"].report.verdict
    assert "duplicate result(s) dropped" in verdict and "receipt" not in verdict


# ----------------------------------------------------------------------------- engine facts


def test_every_rule_of_every_rule_set_has_a_row_with_its_evidence() -> None:
    from integrity.providers import SPECS

    rows = engine_facts.rule_rows()
    assert {(row["provider"], row["rule"]) for row in rows} == {
        (name, rule) for name, spec in SPECS.items() for rule in spec.errors}
    assert all(row["evidence"] != "not documented" for row in rows)
    matrix = engine_facts.refusal_matrix()
    assert len(matrix) == len(LESSONS)


def test_a_pi_ai_result_without_details_is_not_a_receipt() -> None:
    said = {row["message"]: row["read as"] for row in engine_facts.receipt_examples()}
    assert said["the engine's receipt"] == "a receipt"
    assert said["the same, without `details`"] == "a real result"
    assert said["the same, with `isError: false`"] == "a real result"


def test_what_repair_writes_with_no_provider_is_what_the_cli_writes(tmp_path: Path) -> None:
    """The Glossary's table says whom the view `repair` writes is planned for; the CLI's bytes agree."""
    from integrity.formats import write_bytes
    from tests.cli_inprocess import run

    rows = {row["format"]: row for row in engine_facts.repair_defaults()}
    sample = next(p for p in SAMPLES if p.name == "crash_duplicate.anthropic.json")
    transcript = load(sample.read_bytes(), sample.name)
    planned = rows["anthropic"]["the view repair writes is planned for"]
    provider = None if planned.startswith("no provider") else planned
    result = check(transcript, provider=provider, depth="view", now=lambda: 0)
    out = tmp_path / "out.json"
    assert run("repair", str(sample), "-o", str(out), "--now", "0").code in (0, 1)
    assert out.read_bytes() == write_bytes(transcript, result.view)
    assert "repair" in engine_facts.repair_sentence()


def test_the_aborted_frame_sentence_is_what_strict_does() -> None:
    """Checked case by case against the strict planner, independently of the table the sentence is made from."""
    from integrity import analyze
    from integrity.loading import Transcript

    sentence = engine_facts.aborted_frame_sentence()
    for case in engine_facts.FRAME_CASES:
        messages = engine_facts._frame_case(case)
        index = next(i for i, m in enumerate(messages) if m.get("stopReason") == "aborted")
        plain = analyze(Transcript(messages, "c.json"), "strict", now=lambda: 0).report.actions[index].kind
        bedrock = analyze(Transcript(messages, "c.json"), "strict", now=lambda: 0,
                          provider="bedrock").report.actions[index].kind
        if case == engine_facts.FRAME_CASES[0]:
            assert plain == "dropped_interrupted_frame" and "between a call and that call's result" in sentence
        if case == engine_facts.FRAME_CASES[1]:
            assert plain == "dropped_interrupted_frame" and "no content at all" in sentence
        if case == engine_facts.FRAME_CASES[2]:
            assert plain == bedrock == "kept" and "otherwise it keeps it" in sentence
        if case == engine_facts.FRAME_CASES[3]:
            assert plain == "kept" and bedrock == "dropped_interrupted_frame" and "planned for bedrock" in sentence


def test_the_glossary_has_one_entry_per_provider_reason_and_exit_code() -> None:
    from inspector.glossary_registry import reason_name
    from integrity.cli import EXIT_HEALTHY, EXIT_NEEDS_REPAIR, EXIT_UNREADABLE
    from integrity.notes import NoteCode
    from integrity.providers import PROVIDERS

    names = {term.name for term in TERMS}
    assert set(PROVIDERS) <= names
    assert {reason_name(code) for code in NoteCode} <= names
    assert {f"exit code {code}" for code in (EXIT_HEALTHY, EXIT_NEEDS_REPAIR, EXIT_UNREADABLE, 70, 130, 143)} <= names


def test_docs_glossary_is_the_generated_one() -> None:
    from inspector.glossary import glossary_markdown

    assert (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8") == glossary_markdown(), \
        "regenerate docs/glossary.md (see inspector.glossary.glossary_markdown)"
