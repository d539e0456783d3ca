"""A turn's results the file holds in consecutive user messages are written as one message: the report says so.

Bedrock refuses a turn's results split over two user messages; its writer sends them as one, so `repair` wrote a
file of four messages from one of five while its report said `"changed": false`, every action `kept`, `check`
"would be rejected ... but not in a shape the provider takes", and only a note on stderr ("a turn's results together
and first", a description kept beside the writer) and a headline line of the Inspector said anything.  The writer's
own grouping now says which entries it joins (formats.reshaping.joined), the message of each joined entry is
`reshaped`, and `repair` writes a file again exactly when that or the plan changes something (integrity.written).
Anthropic and Gemini take split results; their writers join them too, so the same holds, rated `normalized`.
The joins said are those of the view the file is written from (integrity.written.written_light): a receipt the
view drops before the real result leaves the result alone, as the file held it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity import analyze, check, load, load_all
from integrity.formats.reshaping import joined, reshaped
from integrity.kinds import NoteCode

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
JOIN = "messages[3] sent in one message with messages[2]"


def _gemini_split(tmp_path: Path) -> Path:
    """healthy.gemini.json with its two function responses in two consecutive user contents (Gemini combines
    consecutive contents of one role: accepted as recorded, docs/providers.md)."""
    document = json.loads((SAMPLES / "healthy.gemini.json").read_text(encoding="utf-8"))
    contents = document["contents"]
    first, second = contents[2]["parts"]
    contents[2:3] = [{"role": "user", "parts": [first]}, {"role": "user", "parts": [second]}]
    path = tmp_path / "split_results.gemini.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def _report(path: Path, tmp_path: Path, *options: str) -> tuple[Any, Any, str]:
    out, report = tmp_path / f"out.{path.name}", tmp_path / "report.json"
    done = run("repair", "--now", "0", *options, path, "-o", out, "--report", report)
    assert done.code == 0, done.stderr
    return json.loads(out.read_bytes()), json.loads(report.read_bytes()), done.stderr


def test_bedrocks_split_results_are_a_change_the_report_names(tmp_path: Path) -> None:
    path = SAMPLES / "split_results.bedrock.json"
    checked = run("check", path)
    assert checked.code == 1
    assert checked.stdout.decode().splitlines()[0].endswith(
        "repaired: 1 message(s) written in the shape their format's provider takes; rejected as recorded by bedrock")
    written, report, note = _report(path, tmp_path)
    assert len(written["messages"]) == 4 and len(json.loads(path.read_bytes())["messages"]) == 5
    assert report["changed"] is True and report["summary"]["reshaped"] == 1
    [action] = [action for action in report["actions"] if action["codes"]]
    assert action["durable_index"] == 3 and action["codes"] == [NoteCode.RESHAPED.value]
    assert JOIN in action["reason"] and action["severity"] == "rejected"
    assert "bedrock rejects this file's shape as recorded, not its messages" in note and JOIN in note
    assert run("check", tmp_path / f"out.{path.name}").code == 0


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_a_provider_that_combines_split_results_rates_the_join_normalized(provider: str, tmp_path: Path) -> None:
    path = SAMPLES / "split_results.anthropic.json" if provider == "anthropic" else _gemini_split(tmp_path)
    checked = run("check", path)
    assert checked.code == 0
    line = checked.stdout.decode().splitlines()[0]
    assert "the view only normalizes: 1 message(s) written in the shape their format's provider takes" in line
    assert line.endswith(f"accepted as recorded by {provider}")
    written, report, note = _report(path, tmp_path)
    key = "messages" if provider == "anthropic" else "contents"
    join = JOIN.replace("messages", key)
    assert len(written[key]) == 4 and report["changed"] is True
    [action] = [action for action in report["actions"] if action["codes"]]
    assert action["durable_index"] == 3 and join in action["reason"] and action["severity"] == "normalized"
    assert note.strip() == f"note: the same messages are written in the shape {provider} takes ({join})"


def test_only_the_joined_entries_are_named(tmp_path: Path) -> None:
    """The entry joined to the one before it, and no other: a turn whose results the file already holds in one
    message is not reshaped, nor is a file of another format holding the same messages."""
    [transcript] = load_all((SAMPLES / "split_results.bedrock.json").read_bytes(), "split_results.bedrock.json")
    assert joined(transcript) == {3: (3, 2)}  # message 3, read from messages[3], sent with messages[2]
    assert reshaped(transcript) == {3: (JOIN,)}
    for name in ("healthy.bedrock.json", "healthy.anthropic.json", "healthy.gemini.json", "healthy.pi-ai.json"):
        assert reshaped(load((SAMPLES / name).read_bytes(), name)) == {}, name
    gemini = load(_gemini_split(tmp_path).read_bytes(), "split_results.gemini.json")
    assert joined(gemini) == {3: (3, 2)}


def test_the_inspector_row_of_the_joined_entry_says_it() -> None:
    """The Inspector's rows and the report's actions are one: the joined entry's message carries the note."""
    [transcript] = load_all((SAMPLES / "split_results.bedrock.json").read_bytes(), "split_results.bedrock.json")
    analysis = analyze(transcript, "strict", provider="bedrock")
    by_index = {action.durable_index: action for action in analysis.report.actions}
    assert list(by_index[3].codes) == [NoteCode.RESHAPED.value]
    assert JOIN in by_index[3].reason
    assert all(not by_index[index].codes for index in (0, 1, 2, 4))


def _results_apart(data: bytes, format: str) -> bytes:
    """The request with every user message that holds several results (and nothing else) split into consecutive
    user messages of one result each, as some runtimes record a turn's parallel results."""
    document = json.loads(data)
    key, parts, result = {"anthropic": ("messages", "content", "tool_result"), "bedrock": ("messages", "content",
                                                                                            "toolResult"),
                          "gemini": ("contents", "parts", "functionResponse")}[format]
    out = []
    for entry in document[key]:
        blocks = entry.get(parts)
        held = [block for block in blocks if result in block or block.get("type") == result] \
            if entry.get("role") == "user" and isinstance(blocks, list) else []
        if len(held) > 1 and len(held) == len(blocks):
            out.extend({**entry, parts: [block]} for block in held)
        else:
            out.append(entry)
    document[key] = out
    return json.dumps(document).encode()


def _split_corpus() -> list[tuple[str, Any]]:
    """Generated transcripts of every defect kind, written in each format whose writer joins results, their
    parallel results then split apart; and the samples that hold such results."""
    import itertools
    import sys

    sys.path.insert(0, str(SAMPLES.parent / "bench"))
    import generate

    from integrity.formats.registry import write_bytes
    from integrity.loading import Transcript

    found = []
    for seed, rate, format in itertools.product(range(3), (0.08, 0.5, 1.0), ("anthropic", "bedrock", "gemini")):
        generated = Transcript(list(generate.messages(300, seed=seed, defect_rate=rate)), "g.json", json_typed=True)
        data = _results_apart(write_bytes(generated, None, format), format)
        [transcript] = load_all(data, f"generated-{seed}-{rate}.{format}.json")
        found.append((f"{seed}-{rate}-{format}", transcript))
    for name in ("split_results.bedrock.json", "split_results.anthropic.json"):
        found.append((name, load((SAMPLES / name).read_bytes(), name)))
    return found


SPLIT = _split_corpus()


@pytest.mark.parametrize(("name", "transcript"), SPLIT, ids=[name for name, _ in SPLIT])
def test_the_joins_the_report_names_are_those_the_written_file_makes(name: str, transcript: Any) -> None:
    """For the view planned for the file's provider, the entries the report says are sent with another are exactly
    the entries the written request holds in one message with another (read from the writer's own map of each
    written entry to its messages): a view that drops the receipt before a real result sends the result alone
    (it said "sent in one message with" the dropped one), one that drops a stray between two results joins them."""
    from integrity.formats.common import native_of
    from integrity.formats.registry import request_key, to_native

    analysis = analyze(transcript, "strict", provider=transcript.format)
    key = request_key(transcript.format)
    written = to_native(analysis.view, transcript.format, transcript, trusted=True)
    made = set()
    for sources in written.sources:
        entries = sorted({native_of(analysis.view[at]).get("entry") for at in sources} - {None},
                         key=lambda entry: min(at for at in sources
                                               if native_of(analysis.view[at]).get("entry") == entry))
        made.update(f"{key}[{entry}] sent in one message with {key}[{entries[0]}]" for entry in entries[1:])
    said = {phrase for action in analysis.report.actions if NoteCode.RESHAPED.value in action.codes
            for phrase in re.findall(r"\w+\[\d+\] sent in one message with \w+\[\d+\]", action.reason)}
    assert said == made
    assert analysis.report.summary.reshaped >= len(made) > 0 or not made
    for depth in ("report", "diagnosis"):  # `check` and `repair --report` say it too (pipeline.check_unit)
        checked = check(transcript, provider=transcript.format, depth=depth).report
        assert checked.summary.reshaped == analysis.report.summary.reshaped, depth
    reported = check(transcript, provider=transcript.format, depth="view").report
    assert {phrase for action in reported.actions if NoteCode.RESHAPED.value in action.codes
            for phrase in re.findall(r"\w+\[\d+\] sent in one message with \w+\[\d+\]", action.reason)} == made


def test_the_corpus_has_joins_the_view_changes() -> None:
    """The corpus above holds views that drop a message beside split results (the case the messages as read
    mis-said) and joins the report names."""
    changed = [t for _, t in SPLIT if analyze(t, "strict", provider=t.format).plan.changed and joined(t)]
    assert len(changed) >= 5


def test_a_result_whose_receipt_the_view_drops_is_sent_alone(tmp_path: Path) -> None:
    """crash_duplicate.anthropic.json holds an interrupted receipt and the real result in two user messages; the
    view drops the receipt, so the result is written alone, as recorded: nothing joined (the messages as read
    said "messages[3] sent in one message with messages[2]")."""
    path = SAMPLES / "crash_duplicate.anthropic.json"
    written, report, _ = _report(path, tmp_path)
    assert report["summary"].get("reshaped", 0) == 0 and not any(action["codes"] == [NoteCode.RESHAPED.value]
                                                          for action in report["actions"])
    assert written["messages"][2] == json.loads(path.read_bytes())["messages"][3]
    assert run("check", path).stdout.decode().splitlines()[0].endswith(
        "repaired: 1 duplicate result(s) dropped; rejected as recorded by anthropic")
