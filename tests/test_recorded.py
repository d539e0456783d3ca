"""Recorded provider answers are the oracle: every rule set's verdict agrees with them.

tests/recorded/<provider>.jsonl holds request bodies real providers answered, taken from
public VCR cassettes (tests/recorded/SOURCES.md names each repository, commit and licence).
Each request is checked as the outgoing request it was (`validate_native`, not as a stored
history), with the id rules too: an exchange answered 200 must get no violation, one
answered 400 must get one, and the recorded error text must be one of ours, exactly.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from recorded.agree import answered_by, known

from integrity.providers import PROVIDER_FORMAT, PROVIDERS, validate_native

HERE = Path(__file__).parent / "recorded"
LIST_KEY = {"openai-chat": "messages", "openai-responses": "input", "anthropic": "messages", "gemini": "contents",
            "bedrock": "messages"}


def _load() -> list[dict[str, Any]]:
    records = []
    for path in sorted(HERE.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            record = json.loads(line)
            record["_at"] = f"{path.name}:{number}"
            records.append(record)
    return records


RECORDS = _load()


def request_of(record: dict[str, Any]) -> list[Any]:
    """The message list the provider's rule set reads: `messages`, `input` or `contents`."""
    listed = record["request"][LIST_KEY[PROVIDER_FORMAT[record["provider"]]]]
    assert isinstance(listed, list), record["_at"]
    return listed


@pytest.mark.parametrize("record", RECORDS, ids=[r["_at"] for r in RECORDS])
def test_verdict_agrees_with_the_recorded_answer(record: dict[str, Any]) -> None:
    violations = validate_native(request_of(record), answered_by(record), ids=True)
    where = f"{record['_at']} ({record['source']} {record['path']} #{record['interaction']})"
    if (documented := known(record)) is not None:  # a divergence docs/providers.md states: exactly that one
        assert [v.error for v in violations] == [documented], where
    elif record["status"] == 200:
        assert violations == [], f"{where}: answered 200, but we say {[v.error for v in violations]}"
    else:
        assert record["status"] == 400
        assert [v.error for v in violations if v.error == record["error"]], (
            f"{where}: answered {record['error']!r}, we say {[v.error for v in violations]}")


def test_the_recordings_cover_enough() -> None:
    """At least 150 exchanges over at least 6 providers, refusals among them, all under 1 MB."""
    providers = Counter(record["provider"] for record in RECORDS)
    assert len(RECORDS) >= 150
    assert len(providers) >= 6 and set(providers) <= set(PROVIDERS)
    assert sum(record["status"] == 400 for record in RECORDS) >= 2
    assert sum(path.stat().st_size for path in HERE.iterdir()) < 1_000_000


def test_every_recording_names_a_listed_source() -> None:
    """SOURCES.md lists the repository, commit and licence of every cassette a recording comes from."""
    sources = (HERE / "SOURCES.md").read_text(encoding="utf-8")
    commits = json.loads((HERE / "commits.json").read_text(encoding="utf-8"))
    for record in RECORDS:
        assert record["source"] in commits, record["_at"]
        assert f"`{record['path']}`" in sources, record["_at"]
    for repo, commit in commits.items():
        assert f"[{repo}](https://github.com/{repo}/tree/{commit})" in sources


CITATION = re.compile(r'([a-z-]+\.jsonl) "([^"]+)" #(\d+) \((\d{3})\)')


def test_every_recording_the_docs_cite_is_there_with_that_answer() -> None:
    """docs/providers.md's evidence table cites recordings as `file "path tail" #n (status)`."""
    docs = (Path(__file__).parent.parent / "docs" / "providers.md").read_text(encoding="utf-8")
    cited = CITATION.findall(docs)
    assert len(cited) >= 15
    for name, tail, number, status in cited:
        assert any(r["_at"].startswith(name + ":") and r["path"].endswith(tail) and r["interaction"] == int(number)
                   and r["status"] == int(status) for r in RECORDS), (name, tail, number, status)


@pytest.mark.parametrize("record", RECORDS, ids=[r["_at"] for r in RECORDS])
def test_the_request_read_as_a_file_and_checked_gets_the_recorded_answer(record: dict[str, Any]) -> None:
    """The whole pipeline, as `check --provider P FILE` runs it: the request body read by the format reader (whatever
    format it is detected as) and judged as recorded by the provider that answered.  The rule set alone agreeing is
    not enough: a reader that carries a block as opaque leaves it out of the request written for another format
    (a Chat-shaped text part with cache_control, answered 200 by Anthropic, was judged an empty message).  A request
    answered 200 is healthy: no finding either (a Gemini part of videoMetadata alone was one)."""
    from integrity import load
    from integrity.pipeline import check

    transcript = load(json.dumps(record["request"]).encode(), f"{record['_at']}.json")
    result = check(transcript, provider=answered_by(record))
    said = result.providers[answered_by(record)]
    errors = [violation.error for violation in said.before]
    where = (f"{record['_at']} ({record['source']} {record['path']} #{record['interaction']}, "
             f"read as {transcript.format})")
    if (documented := known(record)) is not None:  # a divergence docs/providers.md states: exactly that one
        assert errors == [documented], f"{where}: documented as {documented!r}, check says {errors}"
    elif record["status"] == 200:  # accepted, and nothing else to say: check exits 0 on it
        assert errors == [], f"{where}: answered 200, but check says {errors}"
        assert result.exit_code == 0, f"{where}: answered 200, but check says {result.verdict}"
    else:
        assert record["error"] in errors, f"{where}: answered {record['error']!r}, check says {errors}"
