"""The Inspector's download is the file `repair` writes (integrity.written), for every sample and real file.

`repair` gave back a file's exact bytes when the view changed nothing and the file's provider took it as recorded,
while the Inspector's download wrote the same view through the format's writer: tests/real's and the samples'
Anthropic file whose two results sit in two user messages came back from `repair` as it was (5 messages) and from
the Inspector regrouped (4), both "accepted", two different files for one repair.  Both now ask one function, and
the pages pass it the file's bytes: where `repair` gives the file back, so does the download, byte for byte.  And
the report's `changed` is true exactly when the written file differs from the input.  (The
API's export_view, given no bytes, writes the entries as read where `repair` gives the file back: the same JSON.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity import analyze, load_all, target_provider
from integrity.analysis import export_view
from integrity.written import rejected_by_own_provider

REPO = Path(__file__).resolve().parents[1]
FILES = sorted(p for folder in ("sample_transcripts", "tests/real") for p in (REPO / folder).iterdir()
               if p.is_file() and p.suffix != ".md")


def _parsed(data: bytes) -> Any:
    """A file's JSON: its document, or a JSON-lines file's lines (blank ones aside)."""
    text = data.decode("utf-8-sig")
    try:
        return json.loads(text)
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def _readable(data: bytes) -> bool:
    """Whether every line of the file is JSON (a torn or bad line is left out by repair: a change it reports)."""
    try:
        _parsed(data)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_download_is_what_repair_writes(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    try:
        transcripts = [t for t in load_all(data, str(path)) if t.checked]
    except ValueError:  # nothing to download: repair refuses it too (tests/test_real_corpus.py pins its error)
        assert run("repair", path, "-o", tmp_path / "out").code == 2
        return
    for transcript in transcripts:
        out = tmp_path / f"{transcript.name.replace(':', '_')}.{path.name}"
        thread = ["--thread", transcript.name] if len(transcripts) > 1 else []
        report = tmp_path / f"{transcript.name.replace(':', '_')}.report.json"
        written = run("repair", "--now", "0", *thread, path, "-o", out, "--report", report)
        if written.code == 2:  # a transcript repair refuses to write alone (its reason is pinned elsewhere)
            continue
        if len(transcripts) == 1 and _readable(data):  # (a thread is written back beside the file's others)
            # the report says the written file changes exactly when it does: Bedrock's split results written as
            # one message were "changed": false
            differs = _parsed(out.read_bytes()) != _parsed(data)
            assert json.loads(report.read_bytes())["changed"] is differs, transcript.name
        # without --report, a pi-ai file is read and written by the fast path (kept messages as their bytes in
        # the file): the same bytes
        plain = tmp_path / f"plain.{out.name}"
        assert run("repair", "--now", "0", *thread, path, "-o", plain).code == written.code
        assert plain.read_bytes() == out.read_bytes(), transcript.name
        target = target_provider(transcript.format, None, transcript.model)
        analysis = analyze(transcript, provider=target, now=lambda: 0)
        # the pages pass the file's bytes: the download is the file repair writes, byte for byte (a pi-ai file's
        # view was written indented anew, the same JSON as repair's, other bytes)
        assert export_view(analysis, data=data) == out.read_bytes(), transcript.name
        # without them (the API's export_view), the same JSON; a read-only format's file unchanged is offered as
        # its view in the format it names (no bytes to give back)
        if not (transcript.writes_as and not analysis.plan.changed):
            assert _parsed(export_view(analysis)) == _parsed(out.read_bytes()), transcript.name


def test_a_split_results_turn_is_offered_as_repair_writes_it() -> None:
    """Anthropic takes a turn's results split over two user messages, and its writer sends them as one: `repair`
    and the download both write them so, and the report says it (tests/test_regrouped.py)."""
    path = REPO / "sample_transcripts" / "split_results.anthropic.json"
    [transcript] = load_all(path.read_bytes(), str(path))
    analysis = analyze(transcript, provider="anthropic")
    offered = json.loads(export_view(analysis, data=path.read_bytes()))
    assert [len(m["content"]) if isinstance(m["content"], list) else 1 for m in offered["messages"]] == [1, 2, 2, 1]
    assert analysis.report.changed and analysis.report.summary.reshaped == 1


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_verdict_as_recorded_is_the_own_providers_judgement(path: Path) -> None:
    """repair and the pages take the file's own provider's refusals from the verdict they hold (`check`'s as
    recorded) instead of judging the file again: the two judgements are the same, error for error."""
    try:
        transcripts = [t for t in load_all(path.read_bytes(), str(path)) if t.checked]
    except ValueError:  # unreadable: no verdict (tests/test_real_corpus.py pins its error)
        return
    for transcript in transcripts:
        target = target_provider(transcript.format, None, transcript.model)
        if target is None or not transcript.native:
            continue
        held = analyze(transcript, provider=target, verdicts=[target]).verdicts
        asked = [(v.rule, v.position, v.error, v.canonical_indices) for v in rejected_by_own_provider(transcript)]
        assert [(v.rule, v.position, v.error, v.canonical_indices)
                for v in rejected_by_own_provider(transcript, held)] == asked, transcript.name
