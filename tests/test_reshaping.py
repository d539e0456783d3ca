"""The report says what the written file changes in entries whose messages it keeps: the writer's finish step.

A null Chat content sent as "", a Responses item id of another server left out, object arguments sent as their JSON
text, an untyped text block typed, a Gemini turn of the role `function` sent as `user`: `repair` wrote these
entries changed while its report said `"changed": false` and every action `kept`, the Inspector's rows showed
nothing, and only a note on stderr (worded from a table of rules in the CLI) said anything.  The writer itself now
says which entries it changes and how (integrity.formats.reshaping); the report carries it as `reshaped` actions, a
summary count and the verdict, and `repair`'s note quotes the same changes.  These tests hold the two to each other:
the entries the report names are exactly the entries the written file changes, each one the provider refuses as
recorded.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from integrity.analysis import load_all
from integrity.cli import main
from integrity.formats.reshaping import changes, reshaped
from integrity.notes import NoteCode
from integrity.pipeline import check
from integrity.written import rejected_by_own_provider

CALL = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
CHAT: dict[str, list[dict[str, Any]]] = {
    "null tool content": [
        {"role": "user", "content": "read it"}, {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": None}, {"role": "assistant", "content": "done"}],
    "object content": [
        {"role": "user", "content": "read it"}, {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": {"lines": 3}}, {"role": "assistant", "content": "done"}],
    "call without type, object arguments": [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "function": {"name": "read", "arguments": {"path": "a.py"}}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "x = 1"}, {"role": "assistant", "content": "done"}],
    "empty tool_calls, untyped text part": [
        {"role": "user", "content": [{"text": "hello"}]}, {"role": "assistant", "content": "hi", "tool_calls": []},
        {"role": "user", "content": "bye"}],
}
RESPONSES = [
    {"type": "message", "role": "user", "content": "read it"},
    {"type": "reasoning", "id": "item_66935b8a", "summary": [], "encrypted_content": "gAAAA"},
    {"type": "function_call", "id": "call_9f2", "call_id": "call_1", "name": "read", "arguments": {"path": "a.py"}},
    {"type": "function_call_output", "call_id": "call_1", "output": {"text": "x = 1"}},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
]
ANTHROPIC = [
    {"role": "user", "content": [{"text": "read it"}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read"}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": {"text": "x = 1"}}]},
    {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
]
GEMINI = [
    {"role": "user", "parts": [{"text": "read it"}]},
    {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {}}}]},
    {"role": "function", "parts": [{"functionResponse": {"name": "read", "response": "x = 1"}}]},
    {"role": "model", "parts": [{"text": "done"}]},
    {"role": "user", "parts": [{"text": "thanks"}]},  # (the call is history: a current turn's call is signed too)
]
CASES: list[tuple[str, str, dict[str, Any]]] = [
    *((f"openai-chat {name}", "openai-chat", {"model": "gpt-4o", "messages": messages})
      for name, messages in CHAT.items()),
    ("openai-responses", "openai-responses", {"model": "gpt-5", "input": RESPONSES}),
    ("anthropic", "anthropic", {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": ANTHROPIC}),
    ("gemini", "gemini", {"contents": GEMINI}),
]
KEYS = {"openai-chat": "messages", "openai-responses": "input", "anthropic": "messages", "gemini": "contents"}


def _file(tmp_path: Path, name: str, format: str, body: dict[str, Any]) -> Path:
    path = tmp_path / f"{re.sub(r'[^a-z]+', '_', name)}.{format}.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def _entries_named(changed: dict[int, tuple[str, ...]], key: str) -> set[int]:
    """The request positions a reshaped map's changes name ('messages[3].content: ...' -> 3)."""
    return {int(match.group(1)) for phrases in changed.values() for phrase in phrases
            for match in [re.match(rf"{key}\[(\d+)\]", phrase)] if match}


@pytest.mark.parametrize(("name", "format", "body"), CASES, ids=[case[0] for case in CASES])
def test_the_report_names_exactly_the_entries_the_written_file_changes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, format: str, body: dict[str, Any]) -> None:
    path = _file(tmp_path, name, format, body)
    recorded = path.read_bytes()
    [transcript] = load_all(recorded, path.name)
    assert transcript.format == format
    changed = reshaped(transcript)
    assert changed, "the writer changes some entry of every case"
    out, report = tmp_path / "out.json", tmp_path / "report.json"
    assert main(["repair", str(path), "-o", str(out), "--report", str(report)]) == 0
    assert path.read_bytes() == recorded  # the input is never touched
    written = json.loads(out.read_bytes())[KEYS[format]]
    differing = {at for at, (before, after) in enumerate(zip(body[KEYS[format]], written, strict=True))
                 if before != after}
    assert differing == _entries_named(changed, KEYS[format])
    # the report: one `reshaped` action per message, its reason the writer's changes, counted and in the verdict
    said = json.loads(report.read_bytes())
    actions = {action["durable_index"]: action for action in said["actions"] if "reshaped" in action["codes"]}
    assert set(actions) == set(changed) and said["summary"]["reshaped"] == len(changed) and said["changed"] is True
    for index, phrases in changed.items():
        assert all(phrase in actions[index]["reason"] for phrase in phrases)
        assert actions[index]["severity"] == "rejected"  # the provider refuses the file as recorded
    assert f"{len(changed)} message(s) written in the shape their format's provider takes" in said["verdict"]
    # each reshaped message is one the file's provider refuses as recorded: the writer changes only what it refuses
    refused = {index for violation in rejected_by_own_provider(transcript) for index in violation.canonical_indices}
    assert set(changed) <= refused
    # repair's note quotes the same changes
    note = capsys.readouterr().err
    assert all(phrase in note for phrases in changed.values() for phrase in phrases)
    # and the written file has nothing left to reshape: check passes it
    assert main(["check", str(out)]) == 0
    assert "reshaped" not in capsys.readouterr().out


def test_a_message_the_view_leaves_out_is_not_called_reshaped(tmp_path: Path) -> None:
    messages = [*CHAT["null tool content"][:3],
                {"role": "tool", "tool_call_id": "call_1", "content": None},  # a second result: dropped
                CHAT["null tool content"][3]]
    path = _file(tmp_path, "twice", "openai-chat", {"messages": messages})
    [transcript] = load_all(path.read_bytes(), path.name)
    assert set(reshaped(transcript)) == {2, 3}  # the writer would change both entries
    result = check(transcript, depth="view")
    kinds = {action.durable_index: (action.kind.value, action.codes) for action in result.report.actions}
    assert kinds[3][0] == "dropped_duplicate" and NoteCode.RESHAPED not in kinds[3][1]
    assert NoteCode.RESHAPED in kinds[2][1] and result.report.summary.reshaped == 1


def test_a_provider_that_takes_the_file_rates_the_reshape_normalized(tmp_path: Path) -> None:
    messages = json.loads(json.dumps(CHAT["null tool content"]).replace("call_1", "call1XYZa"))  # (Mistral's ids)
    path = _file(tmp_path, "null", "openai-chat", {"messages": messages})
    [transcript] = load_all(path.read_bytes(), path.name)
    result = check(transcript, provider="mistral", depth="view")  # (Mistral's words for a null content: not on record)
    assert result.providers["mistral"].accepted_as_recorded
    assert result.healthy and result.report.summary.reshaped == 1
    [action] = [action for action in result.report.actions if NoteCode.RESHAPED in action.codes]
    assert action.severity.value == "normalized"
    assert result.report.verdict.startswith("healthy: ")
    assert "1 message(s) written in the shape their format's provider takes" in result.report.verdict


def test_an_entry_the_writer_sends_as_it_is_is_not_reshaped(tmp_path: Path) -> None:
    path = _file(tmp_path, "healthy", "openai-chat", {"messages": [
        {"role": "user", "content": "read it"}, {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": ""},
        {"role": "user", "content": [{"type": "text", "text": "and?"}, {"foo": 1}]}]})  # (an untyped part, not a text)
    [transcript] = load_all(path.read_bytes(), path.name)
    assert reshaped(transcript) == {}
    assert check(transcript).report.summary.reshaped == 0


def test_a_turn_s_second_item_counts_for_its_message() -> None:
    [transcript] = load_all(json.dumps({"input": RESPONSES}).encode(), "turn.openai-responses.json")
    changed = reshaped(transcript)
    assert changed == {1: ("input[1].id left out", "input[1].encrypted_content left out", "input[2].id left out",
                           'input[2].arguments: {"path": …} → "{\\"path\\":\\"a.py\\"}"'),
                       2: ('input[3].output: {"text": …} → "{\\"text\\":\\"x = 1\\"}"',)}


def test_changes_say_each_place_once() -> None:
    assert changes({"a": None, "b": 1}, {"a": "", "b": 1}, "m[0]") == ['m[0].a: null → ""']
    assert changes({"a": 1, "id": "x"}, {"a": 1}, "m[0]") == ["m[0].id left out"]
    assert changes({"c": [{"t": 1}]}, {"c": [{"t": 1, "type": "text"}]}) == ['c[0].type added: "text"']
    assert changes({"r": "x" * 100}, {"r": {"output": "x" * 100}}) == \
        ['r: "' + "x" * 39 + '… (102 characters) → {"output": …}']
