"""Every sample transcript: read in its own format, written back unchanged, repaired and exported.

The fixtures are the real shapes users bring; each must survive the whole trip
the CLI and the inspector make: detect, read, repair (reference policy), write the
view in the source format, read that again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import repair_orphaned_tool_calls
from integrity.formats import FORMATS, read_bytes, write_bytes
from integrity.formats.pi_requests import as_pi_sends
from integrity.repair.plan import plan_openmaic
from integrity.repair.views import light_transcript

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
FIXTURES = sorted(p for p in SAMPLES.iterdir() if p.name != "README.md")
PI_SESSIONS = ("pi-session", "openclaw")


def parsed(data: bytes) -> Any:
    try:
        return json.loads(data)
    except json.JSONDecodeError:
        return [json.loads(line) for line in data.decode().split("\n") if line.strip()]


def pairing(messages: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], list[Any]]:
    calls = [(p["id"], p["name"]) for m in messages if m.get("role") == "assistant"
             for p in m["content"] if p.get("type") == "toolCall"]
    return calls, [m.get("toolCallId") for m in messages if m.get("role") == "toolResult"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_written_back_unchanged_is_equal_json(path: Path) -> None:
    transcript = read_bytes(path.read_bytes(), path.name)
    assert parsed(write_bytes(transcript)) == parsed(path.read_bytes())
    assert transcript.lines and all(line >= 1 for line in transcript.lines)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_converts_to_every_format_with_the_same_pairing(path: Path) -> None:
    transcript = read_bytes(path.read_bytes(), path.name)
    for format in FORMATS:
        back = read_bytes(write_bytes(transcript, format=format), f"{path.name}->{format}", format)
        # (a pi session is read as pi sends it: an answer that ended in an error or was aborted holds nothing)
        sent = [as_pi_sends(m) for m in transcript.messages] if format in PI_SESSIONS else transcript.messages
        assert pairing(back.messages) == pairing(sent), format


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_repaired_view_exported_in_the_source_format_reads_back_as_that_view(path: Path) -> None:
    transcript = read_bytes(path.read_bytes(), path.name)
    view = repair_orphaned_tool_calls(transcript.messages).messages
    exported = write_bytes(transcript, view)
    back = read_bytes(exported, "exported", transcript.format)
    assert pairing(back.messages) == pairing(view)
    # The export is stable: repairing it again changes nothing the reference would change.
    assert plan_openmaic(light_transcript(back.messages)).changed == plan_openmaic(light_transcript(view)).changed


@pytest.mark.parametrize(
    ("name", "changed"),
    [
        ("abort_race.openai-responses.json", True),
        ("crash_duplicate.anthropic.json", True),
        ("pause_between.openai-chat.json", True),
        ("two_results.openai-chat.json", True),
        ("no_ids.gemini.json", True),
        ("healthy.claude-code.jsonl", False),
        ("split_batch.claude-code.jsonl", False),
    ],
)
def test_native_defects_reach_the_engine(name: str, changed: bool) -> None:
    transcript = read_bytes((SAMPLES / name).read_bytes(), name)
    assert plan_openmaic(light_transcript(transcript.messages)).changed is changed


def test_abort_race_in_responses_drops_the_incomplete_turn_and_keeps_both_results() -> None:
    transcript = read_bytes((SAMPLES / "abort_race.openai-responses.json").read_bytes(), "a")
    aborted = [m for m in transcript.messages if m["role"] == "assistant" and m["stopReason"] == "aborted"]
    assert len(aborted) == 1
    view = repair_orphaned_tool_calls(transcript.messages).messages
    items = parsed(write_bytes(transcript, view))
    kinds = [item.get("type", item.get("role")) for item in items]
    assert kinds == ["user", "function_call", "function_call", "function_call_output", "function_call_output", "user"]
    outputs = [item["call_id"] for item in items if item.get("type") == "function_call_output"]
    assert outputs == ["call_log", "call_issues"]


def test_crash_duplicate_in_anthropic_keeps_one_result_in_one_turn() -> None:
    transcript = read_bytes((SAMPLES / "crash_duplicate.anthropic.json").read_bytes(), "c")
    receipts = [m for m in transcript.messages if m.get("details") == {"ok": False, "error": "interrupted"}]
    assert len(receipts) == 1
    view = repair_orphaned_tool_calls(transcript.messages).messages
    document = parsed(write_bytes(transcript, view))
    turns = [m for m in document["messages"] if m["role"] == "user" and isinstance(m["content"], list)]
    assert len(turns) == 1 and len(turns[0]["content"]) == 1
