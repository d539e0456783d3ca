"""Detection and error messages: the format is found, or the user is told exactly what to do.

A wrong guess would pair tool calls wrongly without any visible error, so
ambiguity must be an error that names the candidates and the --format way out; and
every unreadable entry must be one line naming the file, the position and the problem.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import analyze
from integrity.formats import FORMATS, READABLE, detect, possible_formats, read_all, read_bytes
from integrity.loading import TranscriptError

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
FIXTURES = sorted(p for p in SAMPLES.iterdir() if p.name != "README.md")
REAL = Path(__file__).resolve().parent / "real"  # the real-shape corpus: every format, healthy and broken


def parse_any(data: bytes) -> object:
    try:
        return json.loads(data)
    except json.JSONDecodeError:
        return [json.loads(line) for line in data.decode().split("\n") if line.strip()]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_is_detected_as_the_format_in_its_name(path: Path) -> None:
    expected = path.name.split(".")[1]
    assert read_bytes(path.read_bytes(), str(path)).format == expected
    assert detect(parse_any(path.read_bytes())) == expected


def test_every_format_has_a_healthy_fixture() -> None:
    healthy = {p.name.split(".")[1] for p in FIXTURES if p.name.startswith("healthy")}
    for path in REAL.iterdir():  # the corpus names a file <what>.<format>.<ext>
        parts = path.name.split(".")
        if len(parts) > 2 and parts[1] in READABLE and parts[1] not in healthy:
            try:
                transcripts = read_all(path.read_bytes(), path.name)
            except TranscriptError:
                continue
            if all(t.format == parts[1] and (not t.checked or analyze(t).report.healthy) for t in transcripts):
                healthy.add(parts[1])
    assert healthy == set(READABLE)


def test_plain_text_chat_is_read_and_the_choice_is_said() -> None:
    """No tool calls: every format that fits reads the same messages, so one is picked, never refused."""
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello! How can I help?"}]
    transcript = read_bytes(json.dumps(chat).encode(), "chat.json")
    candidates = possible_formats(chat)
    assert "openai-chat" in candidates and "anthropic" in candidates
    assert transcript.format == "openai-chat"
    assert transcript.detection.startswith("text-only chat, read as openai-chat")
    assert all(name in transcript.detection for name in candidates)
    # Every reading gives the same roles and texts.
    for name in candidates:
        other = read_bytes(json.dumps(chat).encode(), "chat.json", name)
        assert [(m["role"], str(m["content"])) for m in other.messages if m["role"] == "user"] == \
            [(m["role"], str(m["content"])) for m in transcript.messages if m["role"] == "user"]
    # Naming the format still chooses it.
    assert read_bytes(json.dumps(chat).encode(), "chat.json", "anthropic").format == "anthropic"


def test_conflicting_evidence_is_ambiguous_not_a_guess() -> None:
    mixed = [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{}"}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "grep", "content": [], "isError": False},
    ]
    with pytest.raises(TranscriptError, match="shows signs of") as caught:
        detect(mixed)
    assert "pi-ai" in str(caught.value) and "openai-chat" in str(caught.value)


def test_unknown_shape_is_reported_as_unknown() -> None:
    with pytest.raises(TranscriptError, match="unknown transcript format"):
        read_bytes(b'[{"speaker": "bob", "said": "hi"}]', "odd.json")


def test_empty_transcript_cannot_be_detected_but_can_be_named() -> None:
    with pytest.raises(TranscriptError, match="no messages"):
        read_bytes(b"[]", "empty.json")
    transcript = read_bytes(b"[]", "empty.json", "openai-chat")
    assert transcript.messages == [] and transcript.format == "openai-chat"


def test_unknown_format_name_lists_the_known_ones() -> None:
    with pytest.raises(TranscriptError) as caught:
        read_bytes(b"[]", "x.json", "openai")
    assert "unknown format 'openai'" in str(caught.value)
    assert all(name in str(caught.value) for name in FORMATS)


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, "gemini"),
        ({"input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}]},
         "openai-responses"),
        ({"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}, "anthropic"),
        ({"system": [{"text": "Be brief."}], "messages": [{"role": "user", "content": [{"text": "hi"}]}]}, "bedrock"),
        ([{"type": "human", "data": {"content": "hi", "type": "human"}}], "langchain"),
        ([{"type": "summary", "summary": "Fix tests", "leafUuid": "u1"}], "claude-code"),
        ([{"role": "user", "content": "hi", "timestamp": 1},
          {"role": "assistant", "content": [{"type": "text", "text": "yo"}], "stopReason": "stop"}], "pi-ai"),
    ],
)
def test_envelopes_and_signatures_decide_the_format(document: object, expected: str) -> None:
    assert detect(document) == expected


# ---- errors: one line, file, position, problem --------------------------------------------


def one_line_error(data: bytes, source: str, format: str = "auto") -> str:
    with pytest.raises(TranscriptError) as caught:
        read_bytes(data, source, format)
    text = str(caught.value)
    assert "\n" not in text and text.startswith(source + ": ")
    return text


def test_invalid_json_names_line_and_column() -> None:
    text = one_line_error(b'[\n  {"role": "user", "content": "hi"},\n  {"role": \n]', "broken.json")
    assert "line 4, column 1" in text and "invalid JSON in message 1" in text


def test_bad_tool_call_id_names_the_message_and_its_line() -> None:
    data = json.dumps([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": [7], "type": "function", "function": {"name": "grep", "arguments": "{}"}}]},
    ], indent=1).encode()
    text = one_line_error(data, "chat.json", "openai-chat")
    assert text == ("chat.json: message 1 (line 6): not a valid openai-chat entry: "
                    "a tool call's 'id' must be a string, got an array")


@pytest.mark.parametrize("value", [7, None])
@pytest.mark.parametrize("name, build", [
    ("chat.json", lambda v: [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": v, "type": "function", "function": {"name": "grep", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": v, "content": "x"}]),
    ("messages.json", lambda v: {"model": "claude-sonnet-4-5", "max_tokens": 9, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": v, "name": "grep", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": v, "content": "x"}]}]}),
    ("input.json", lambda v: {"model": "gpt-4.1", "input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": v, "name": "grep", "arguments": "{}"},
        {"type": "function_call_output", "call_id": v, "output": "x"}]}),
])
def test_a_call_id_that_is_a_number_or_null_is_a_malformed_finding_not_an_unreadable_file(
        name: str, build: Any, value: Any) -> None:
    """docs/report.md: a call or result id that is not a string (null, a number) is a malformed finding and the
    readers read on, as in pi-ai's own messages; a provider-format file with one was unreadable (exit 2)."""
    transcript = read_bytes(json.dumps(build(value)).encode(), name)
    found = [f for f in analyze(transcript).report.findings if f.kind == "non_string_id"]
    assert [f.durable_indices for f in found] == [[1], [2]]
    assert all("must be a string, got" in f.message for f in found)


def test_bad_claude_code_entry_is_read_past_and_reported_at_its_jsonl_line() -> None:
    """A session line that is no message (a writer's slip) is kept as it is, never a message: the rest
    of the session is still checked, and the line is a malformed finding at its own line."""
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "hi"}},
        {"type": "summary", "summary": "s", "leafUuid": "u1"},
        {"type": "assistant", "uuid": "u2", "parentUuid": "u1", "message": "oops"},
        "not an entry",
        {"type": "user", "uuid": "u3", "parentUuid": "u2", "message": {"role": "user"}},
    ]
    data = "\n".join(json.dumps(entry) for entry in lines).encode()
    transcript = read_bytes(data, "session.jsonl")
    assert transcript.format == "claude-code"
    assert [m["role"] for m in transcript.messages] == ["user", "opaque"]
    report = analyze(transcript).report
    assert not report.healthy
    assert {(f.line, f.severity.value) for f in report.findings} >= {(3, "malformed"), (5, "malformed")}


def test_tool_use_without_name_is_a_clear_error() -> None:
    data = json.dumps({"system": "s", "messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "input": {}}]}]}).encode()
    text = one_line_error(data, "req.json")
    assert "message 0" in text and "a tool_use block's 'name' must be a string, got null" in text


def test_gemini_turn_without_parts_list_is_a_clear_error() -> None:
    data = json.dumps({"contents": [{"role": "model", "parts": "oops"}]}).encode()
    text = one_line_error(data, "g.json", "gemini")
    assert "message 0" in text and "'parts' must be an array, got a string" in text


def test_pi_ai_message_without_role_is_read_on_and_reported_as_malformed() -> None:
    """The rest of the file stays readable; the schema check names the entry and its line."""
    from integrity.schema import schema_findings

    transcript = read_bytes(b'[{"role": "user", "content": "a"},\n {"content": "b"}]', "p.json", "pi-ai")
    assert len(transcript.messages) == 2
    [finding] = schema_findings(transcript)
    assert finding.kind == "unknown_role" and finding.severity == "malformed"
    assert (finding.entry, finding.line, finding.path) == (1, 2, "[1].role")
    assert finding.message == "message 1 (line 2): the message has no 'role'"


def test_lines_point_at_entries_of_the_envelope_list_not_a_nested_namesake() -> None:
    text = ('{\n "metadata": {"messages": ["not", "these"]},\n "messages": [\n'
            '  {"role": "user", "content": "hi"},\n'
            '  {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "grep", "input": {}}]}\n'
            ' ]\n}\n')
    transcript = read_bytes(text.encode(), "env.json")
    assert transcript.format == "anthropic"
    assert transcript.lines == [4, 5] and transcript.native_lines == [4, 5]


def _searching(result_type: str) -> list[dict[str, Any]]:
    """An Anthropic history where Claude used a server tool (web search, web fetch, code execution...):
    the call and its result sit in the assistant message itself."""
    return [{"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "paris"}},
                {"type": result_type, "tool_use_id": "srvtoolu_01", "content": []},
                {"type": "text", "text": "It is sunny."}]},
            {"role": "user", "content": "Thanks"}]


@pytest.mark.parametrize("result_type", ["web_search_tool_result", "web_fetch_tool_result",
                                         "code_execution_tool_result", "mcp_tool_result"])
def test_server_tool_blocks_are_anthropic_and_healthy(result_type: str) -> None:
    """They were read as a text-only pi-ai chat whose unknown part types made it malformed."""
    from integrity import load
    from integrity.schema import schema_findings

    transcript = load(json.dumps(_searching(result_type)).encode(), "t.json")
    assert transcript.format == "anthropic"
    assert schema_findings(transcript) == [] and analyze(transcript).report.healthy
