"""A request body is recognised by its envelope first, and a lone message object is a transcript of one.

Anthropic requests holding server-tool or MCP blocks (answered inside the assistant
message itself) once read as "ambiguous: pi-ai, anthropic" because their thinking
blocks look like pi-ai's; they are Anthropic, and those blocks are neither client
calls nor malformed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import analyze, load_all
from integrity.formats import detect, possible_formats

THINKING = {"type": "thinking", "thinking": "Let me search.", "signature": "EqQBCkYIBhgCIkB"}
SERVER_BLOCKS: dict[str, list[dict[str, Any]]] = {
    "web_search": [
        {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "pi"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
         "content": [{"type": "web_search_result", "url": "https://e.org", "title": "Pi", "encrypted_content": "x"}]},
    ],
    "web_fetch": [
        {"type": "server_tool_use", "id": "srvtoolu_02", "name": "web_fetch", "input": {"url": "https://e.org"}},
        {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_02",
         "content": {"type": "web_fetch_result", "url": "https://e.org",
                     "content": {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                                                "data": "pi"}}}},
    ],
    "code_execution": [
        {"type": "server_tool_use", "id": "srvtoolu_03", "name": "code_execution", "input": {"code": "print(1)"}},
        {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_03",
         "content": {"type": "code_execution_result", "stdout": "1", "stderr": "", "return_code": 0, "content": []}},
    ],
    "bash_code_execution": [
        {"type": "server_tool_use", "id": "srvtoolu_04", "name": "bash_code_execution", "input": {"command": "ls"}},
        {"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_04",
         "content": {"type": "bash_code_execution_result", "stdout": "a", "stderr": "", "return_code": 0,
                     "content": []}},
    ],
    "mcp": [
        {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "echo", "server_name": "tools", "input": {"a": 1}},
        {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01", "is_error": False,
         "content": [{"type": "text", "text": "1"}]},
    ],
    "redacted_thinking": [{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}],
}


def _messages(blocks: list[dict[str, Any]], thinking: bool) -> list[dict[str, Any]]:
    first = [THINKING] if thinking else []
    return [{"role": "user", "content": "Find pi."},
            {"role": "assistant", "content": [*first, *blocks, {"type": "text", "text": "3.14"}]},
            {"role": "user", "content": "Thanks."}]


def _read(body: Any) -> Any:
    [transcript] = load_all(json.dumps(body).encode(), "req.json")
    return transcript


@pytest.mark.parametrize("kind", sorted(SERVER_BLOCKS))
@pytest.mark.parametrize("thinking", [True, False])
@pytest.mark.parametrize("wrap", ["request", "other-model", "bare"])
def test_server_and_mcp_blocks_are_anthropic_and_neither_calls_nor_malformed(kind: str, thinking: bool,
                                                                              wrap: str) -> None:
    messages = _messages(SERVER_BLOCKS[kind], thinking)
    body: Any = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages} if wrap == "request" \
        else {"model": "my-proxy-model", "messages": messages} if wrap == "other-model" else messages
    assert detect(body) == "anthropic"
    transcript = _read(body)
    assert transcript.format == "anthropic"
    report = analyze(transcript, verdicts=["anthropic"]).report
    assert report.findings == [] and report.healthy
    assert (report.summary.calls, report.summary.orphaned_calls) == (0, 0)


def test_a_client_call_beside_server_blocks_still_needs_its_result() -> None:
    call = {"type": "tool_use", "id": "toolu_01", "name": "calc", "input": {"x": 1}}
    messages = _messages([*SERVER_BLOCKS["web_search"], call], thinking=True)[:2]
    report = analyze(_read({"model": "claude-opus-4-1", "max_tokens": 10, "messages": messages})).report
    assert (report.summary.calls, report.summary.orphaned_calls) == (1, 1)


ENVELOPES: list[tuple[str, dict[str, Any], str]] = [
    ("anthropic", {"model": "mistral-large", "max_tokens": 5,
                   "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]},
     "model, max_tokens, messages"),
    ("anthropic", {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 5,
                   "messages": [{"role": "user", "content": "hi"}]}, "anthropic_version"),
    ("openai-chat", {"model": "llama3", "messages": [{"role": "user", "content": "hi"}]}, "model, messages"),
    ("openai-chat", {"model": "gpt-4o", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
     "model, messages"),
    ("openai-responses", {"model": "gpt-4o", "input": [{"role": "user", "content": "hi"}]}, "input"),
]


@pytest.mark.parametrize(("format", "body", "said"), ENVELOPES)
def test_a_text_only_request_is_read_as_its_envelope_says(format: str, body: dict[str, Any], said: str) -> None:
    transcript = _read(body)
    assert transcript.format == format == detect(body)
    assert f"read as {format}" in transcript.detection and said in transcript.detection
    assert possible_formats(body)[0] == format  # first among the choices a UI offers


def test_envelope_formats_still_yield_to_message_evidence() -> None:
    """An OpenAI Chat request with max_tokens shows Chat's tool role: read as Chat, saying nothing."""
    body = {"model": "claude-via-proxy", "max_tokens": 5, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "x"}]}
    transcript = _read(body)
    assert (transcript.format, transcript.detection) == ("openai-chat", "")


def test_bedrock_converse_and_gemini_requests_are_read_by_their_envelope() -> None:
    converse = {"modelId": "anthropic.claude-3", "messages": [
        {"role": "user", "content": [{"text": "hi"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}]}}]}]}
    assert _read(converse).format == "bedrock"
    gemini = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    assert _read(gemini).format == "gemini"


def test_a_pi_ai_context_is_no_request_and_keeps_being_pi_ai() -> None:
    context = {"systemPrompt": "s", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "h"}, {"type": "text", "text": "yo"}]}]}
    assert _read(context).format == "pi-ai"


@pytest.mark.parametrize("message", [
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
])
def test_a_lone_message_object_is_a_transcript_of_one_message_with_a_note(message: dict[str, Any]) -> None:
    transcript = _read(message)
    assert len(transcript.messages) == 1
    assert transcript.detection.startswith("a single message object, read as a transcript of one message")
    report = analyze(transcript).report
    assert report.findings == []
    calls = sum(1 for p in message["content"] if isinstance(p, dict) and p.get("type") == "tool_use") \
        if isinstance(message["content"], list) else 0
    assert (report.summary.calls, report.summary.orphaned_calls) == (calls, calls)


def test_a_one_line_session_file_gets_no_lone_message_note() -> None:
    line = {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "hi"}}
    [transcript] = load_all((json.dumps(line) + "\n").encode(), "s.jsonl")
    assert transcript.format == "claude-code" and "single message" not in transcript.detection


def test_a_pasted_anthropic_response_message_is_anthropic_not_a_responses_item() -> None:
    """Both are `"type": "message"`; the content blocks tell them apart (tool_use is no Responses part)."""
    response = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "Checking."},
                            {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "SF"}}],
                "stop_reason": "tool_use", "usage": {"input_tokens": 4, "output_tokens": 9}}
    transcript = _read(response)
    assert transcript.format == "anthropic"
    assert analyze(transcript).report.findings == []
    item = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]}
    assert _read([{"role": "user", "content": "hi"}, item]).format == "openai-responses"


RECORDED = Path(__file__).resolve().parent / "recorded"


def _recordings() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(RECORDED.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found.append((f"{path.name}:{number}", json.loads(line)))
    return found


def test_every_recorded_request_is_read_as_its_providers_format() -> None:
    """Request bodies real providers answered (tests/recorded): none is refused or called ambiguous, and each
    is read as its provider's format, unless it is a text-only chat (every format reads those alike)."""
    from integrity.providers import PROVIDER_FORMAT

    recordings = _recordings()
    assert len(recordings) >= 150
    wrong = []
    for where, record in recordings:
        [transcript] = load_all(json.dumps(record["request"]).encode(), where)
        expected = PROVIDER_FORMAT[record["provider"]]
        if transcript.format != expected and not transcript.detection.startswith("text-only"):
            wrong.append((where, expected, transcript.format))
    assert wrong == []


@pytest.mark.parametrize("skip_bad_lines", [False, True], ids=["fast-container", "exact-parser"])
def test_a_responses_request_with_a_string_input_is_one_user_message(skip_bad_lines: bool, tmp_path: Path) -> None:
    """The Responses API's short form, `"input": "text"` (openllmetry's and openinference's cassettes record such
    requests answered 200), was 'unknown transcript format' (exit 2).  It is one user message, read as the list
    form writes it; it holds no call, so check calls it healthy and repair gives the file back as it is."""
    from cli_inprocess import run

    body = b'{"model":"gpt-5-mini","input":"What is 2 + 2?"}'
    path = tmp_path / "request.json"
    path.write_bytes(body)
    [transcript] = load_all(body, str(path))
    assert transcript.format == "openai-responses"
    assert [(m["role"], m["content"]) for m in transcript.messages] == [("user", "What is 2 + 2?")]
    options = ["--skip-bad-lines"] if skip_bad_lines else []
    said = run("check", *options, path)
    assert said.code == 0 and "accepted as recorded by openai-responses" in said.stdout.decode().splitlines()[0]
    out = tmp_path / "out.json"
    assert run("repair", *options, path, "-o", out).code == 0 and out.read_bytes() == body
    assert detect({"model": "gpt-5-mini", "input": "hi"}) == "openai-responses"
