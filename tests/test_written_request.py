"""`repair` writes the request its target provider judged, not a second writing of the same view.

A file in a provider's own format (Chat, Anthropic, Gemini, Bedrock, Responses) is judged by that provider on its
view written in the format (providers.canonical.judged_request), and `repair` wrote the same view again to save it
(formats.write_bytes): a fifth of a 200,000-message Chat file's repair.  The pipeline now hands the judged request
on (CheckResult.written) and the writer writes it.  It must be the very request a fresh writing gives: the same
bytes for every sample and real file whose view changes, and the request reused for every file of a provider's
own format among them (else the test would hold nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from integrity import check, load_all
from integrity.formats import write_bytes
from integrity.providers import PROVIDER_FORMAT
from integrity.written import repaired_bytes

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(path for path in [*(ROOT / "sample_transcripts").iterdir(), *(ROOT / "tests" / "real").iterdir()]
               if path.suffix in (".json", ".jsonl"))


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_the_judged_request_is_what_a_fresh_writing_writes(path: Path) -> None:
    data = path.read_bytes()
    try:
        transcripts = load_all(data, path.name)
    except ValueError:
        return  # (a file the readers refuse: tests/test_real_corpus.py holds its error)
    for transcript in transcripts:
        said = check(transcript, depth="view", now=lambda: 0)
        assert said.view is not None and said.plan is not None
        own = said.target is not None and PROVIDER_FORMAT[said.target] == transcript.format
        if said.written is None:
            assert not (own and said.plan.changed and said.view is not transcript.messages), path.name
            continue
        assert own, path.name
        assert write_bytes(transcript, said.view, trusted=True, written=said.written) \
            == write_bytes(transcript, said.view, trusted=True), path.name
        changed = said.plan.changed
        assert repaired_bytes(transcript, changed, said.view, data, written=said.written) \
            == repaired_bytes(transcript, changed, said.view, data), path.name


def test_some_files_reuse_their_judged_request() -> None:
    """The reuse is no path nothing takes: every provider-format sample whose view changes takes it."""
    reused = []
    for path in FILES:
        if path.parent.name != "sample_transcripts":
            continue
        for transcript in load_all(path.read_bytes(), path.name):
            said = check(transcript, depth="view", now=lambda: 0)
            if said.written is not None:
                reused.append(path.name)
    assert {"two_results.openai-chat.json", "crash_duplicate.anthropic.json", "split_results.bedrock.json",
            "unsigned_call.gemini.json", "lost_assistant_write.openai-responses.json"} <= set(reused), reused
