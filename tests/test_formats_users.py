"""Formats real users have (issue 26): each is read as its project writes it, or refused by name.

The example files are in tests/real (see its SOURCES.md); these tests build
variations of them to hold each reading: what a call, a result and a thread are.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from integrity import analyze, load_all
from integrity.loading import TranscriptError

REAL = Path(__file__).resolve().parent / "real"


def _load(data: Any, name: str = "t.json") -> list[Any]:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return load_all(raw, name)


def _counts(transcript: Any) -> tuple[int, int, int]:
    summary = analyze(transcript).report.summary
    return summary.calls, summary.orphaned_calls, summary.duplicates_dropped


# ---- OpenAI fine-tuning JSONL ------------------------------------------------------------------


def _example(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"messages": list(messages), **extra}


CALL = {"role": "assistant", "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}


def test_fine_tuning_jsonl_is_one_transcript_per_line_named_by_its_line() -> None:
    lines = [_example({"role": "user", "content": "a"}, CALL, {"role": "tool", "tool_call_id": "c1", "content": "x"}),
             _example({"role": "user", "content": "b"}, CALL, tools=[{"type": "function"}])]
    data = ("\n" + "".join(json.dumps(line) + "\n" for line in lines)).encode()  # a blank first line
    transcripts = _load(data, "train.jsonl")
    assert [(t.name, t.kind, t.format) for t in transcripts] == [
        ("line:2", "line", "openai-chat"), ("line:3", "line", "openai-chat")]
    assert [_counts(t)[:2] for t in transcripts] == [(1, 0), (1, 1)]
    assert transcripts[1].envelope == {"tools": [{"type": "function"}]}
    assert transcripts[1].lines == [3, 3]


def test_a_text_only_fine_tuning_file_is_still_chat_per_line() -> None:
    data = (json.dumps(_example({"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"})) + "\n")
    transcripts = _load((data * 2).encode(), "train.jsonl")
    assert [(t.name, t.format) for t in transcripts] == [("line:1", "openai-chat"), ("line:2", "openai-chat")]


def test_jsonl_of_messages_is_still_one_transcript() -> None:
    data = "".join(json.dumps(m) + "\n" for m in [{"role": "user", "content": "a"}, CALL])
    [transcript] = _load(data.encode(), "chat.jsonl")
    assert transcript.name == "main" and _counts(transcript)[:2] == (1, 1)


# ---- OpenHands V1 events ------------------------------------------------------------------------


def _action(call_id: str, response: str, name: str = "execute_bash") -> dict[str, Any]:
    return {"kind": "ActionEvent", "id": f"a-{call_id}", "source": "agent", "thought": [],
            "action": {"kind": "ExecuteBashAction", "command": "ls"}, "tool_name": name, "tool_call_id": call_id,
            "tool_call": {"id": call_id, "type": "function",
                          "function": {"name": name, "arguments": "{\"command\": \"ls\"}"}},
            "llm_response_id": response}


def _observation(call_id: str, kind: str = "ObservationEvent", **extra: Any) -> dict[str, Any]:
    event = {"kind": kind, "id": f"o-{call_id}", "source": "environment", "action_id": f"a-{call_id}",
             "tool_name": "execute_bash", "tool_call_id": call_id, **extra}
    if kind == "ObservationEvent":
        event.setdefault("observation", {"kind": "ExecuteBashObservation",
                                         "content": [{"type": "text", "text": "out"}], "exit_code": 0})
    return event


USER = {"kind": "MessageEvent", "id": "m1", "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "go"}]}}


def test_openhands_v1_two_calls_three_observations_is_read_with_a_duplicate() -> None:
    events = [USER, _action("c1", "r1"), _action("c2", "r1"), _observation("c1"), _observation("c2"),
              _observation("c1")]
    [transcript] = _load(events)
    assert transcript.format == "openhands-v1"
    frames = [m for m in transcript.messages if m.get("role") == "assistant"]
    assert len(frames) == 1 and [p["id"] for p in frames[0]["content"]] == ["c1", "c2"]
    assert _counts(transcript) == (2, 0, 1)
    assert not analyze(transcript).report.healthy


def test_openhands_v1_event_lines_read_the_same_as_a_list() -> None:
    events = [USER, _action("c1", "r1"), _observation("c1")]
    [listed] = _load(events)
    [lined] = _load("".join(json.dumps(e) + "\n" for e in events).encode(), "events.jsonl")
    assert lined.format == listed.format == "openhands-v1"
    assert [m["role"] for m in lined.messages] == [m["role"] for m in listed.messages]


def test_openhands_v1_rejections_and_errors_answer_their_call_as_errors() -> None:
    events = [USER, _action("c1", "r1"), _observation("c1", "UserRejectObservation", rejection_reason="no"),
              _action("c2", "r2"), _observation("c2", "AgentErrorEvent", error="bad arguments"),
              {"kind": "AgentErrorEvent", "id": "e3", "source": "agent", "error": "LLM timed out"}]
    [transcript] = _load(events)
    results = [m for m in transcript.messages if m.get("role") == "toolResult"]
    assert [(r["toolCallId"], r["isError"], r["content"][0]["text"]) for r in results] == [
        ("c1", True, "Action rejected: no"), ("c2", True, "bad arguments")]
    assert transcript.messages[-1] == {"role": "user", "content": "LLM timed out", "_native": {
        "format": "openhands-v1", "entry": 5, "start": 5, "end": 6}}
    assert _counts(transcript) == (2, 0, 0)


def test_openhands_v1_a_call_never_observed_is_unanswered() -> None:
    events = [USER, _action("c1", "r1"), {"kind": "PauseEvent", "id": "p", "source": "user"}]
    [transcript] = _load(events)
    assert _counts(transcript)[:2] == (1, 1)


def test_openhands_v1_sdk_tool_call_arguments_are_read() -> None:
    action = _action("c1", "r1")
    action["tool_call"] = {"id": "c1", "name": "execute_bash", "arguments": "{\"command\": \"pwd\"}",
                           "origin": "completion"}
    [transcript] = _load([USER, action, _observation("c1")])
    [call] = [p for p in transcript.messages[1]["content"] if p["type"] == "toolCall"]
    assert call["arguments"] == {"command": "pwd"}


def test_openhands_v1_an_action_without_a_call_id_is_a_clear_error() -> None:
    action = _action("c1", "r1")
    action["tool_call_id"] = 7
    problem = r"message 1 \(line 1\): not a valid openhands-v1 entry: .*'tool_call_id' must be a string, got a number"
    with pytest.raises(TranscriptError, match=problem):
        _load([USER, action])


# ---- Cline and Aider ----------------------------------------------------------------------------


def test_cline_api_history_is_anthropic_with_its_extra_fields_and_no_malformed_finding() -> None:
    [transcript] = _load((REAL / "cline_api_conversation_history.anthropic.json").read_bytes(), "api.json")
    assert transcript.format == "anthropic"
    report = analyze(transcript).report
    assert report.findings == []
    results = [m for m in transcript.messages if m.get("role") == "toolResult"]
    assert [len(r["content"]) for r in results] == [1, 2, 1]  # the image stays in its result


def test_cline_ui_messages_are_refused_by_name() -> None:
    log = [{"ts": 1, "type": "say", "say": "text", "text": "hi"},
           {"ts": 2, "type": "ask", "ask": "tool", "text": json.dumps({"tool": "readFile", "path": "a"})}]
    with pytest.raises(TranscriptError, match=r"^ui\.json: top level: a Cline UI message log \(ui_messages\.json\)"
                                              r": no tool calls to check"):
        _load(log, "ui.json")


def test_a_list_with_one_cline_ui_message_among_messages_is_not_refused() -> None:
    entries = [{"role": "user", "content": "hi"}, {"ts": 2, "type": "say", "say": "text", "text": "x"}]
    with pytest.raises(TranscriptError) as caught:
        _load(entries)
    assert "Cline" not in str(caught.value)


@pytest.mark.parametrize("opening", [b"", b"\xef\xbb\xbf", b"\n\n"])
def test_an_aider_history_is_refused_by_name(opening: bytes) -> None:
    text = opening + b"# aider chat started at 2025-01-02 10:00:00\n\n#### fix it\n\nDone.\n"
    with pytest.raises(TranscriptError, match=r"^h\.md: top level: an Aider chat history \(Markdown\): "
                                              r"no tool calls to check"):
        _load(text, "h.md")


def test_other_markdown_is_still_not_json() -> None:
    with pytest.raises(TranscriptError, match="expected a JSON array"):
        _load(b"# notes\n", "n.md")


# ---- Claude Code streams whose messages leave the role to the line's type ------------------------


def test_a_stream_message_without_role_takes_its_lines_type_and_is_not_malformed() -> None:
    from integrity.schema import schema_findings

    lines = [{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                                            "input": {}}]}, "parent_tool_use_id": None},
             {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
              "parent_tool_use_id": None}]
    [transcript] = _load("".join(json.dumps(line) + "\n" for line in lines).encode(), "s.jsonl")
    assert transcript.format == "claude-code"
    assert schema_findings(transcript) == [] and _counts(transcript)[:2] == (1, 0)


def test_a_stream_message_whose_role_contradicts_its_type_is_still_malformed() -> None:
    from integrity.schema import schema_findings

    line = {"type": "user", "message": {"role": "assistant", "content": "hi"}, "parent_tool_use_id": None}
    [transcript] = _load((json.dumps(line) + "\n").encode(), "s.jsonl")
    assert [f.kind for f in schema_findings(transcript)] == ["unknown_role"]


# ---- Gemini CLI chat recordings -----------------------------------------------------------------


def _gcli(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t", "messages": list(messages)}


def _gcall(call_id: str, result: Any = None, **extra: Any) -> dict[str, Any]:
    call = {"id": call_id, "name": "run_shell_command", "args": {"command": "ls"}, "status": "success", **extra}
    if result is not None:
        call["result"] = result
    return call


def _response(call_id: str, **response: Any) -> list[dict[str, Any]]:
    return [{"functionResponse": {"id": call_id, "name": "run_shell_command", "response": response}}]


def test_gemini_cli_calls_are_answered_by_the_results_recorded_with_them() -> None:
    record = _gcli({"id": "1", "timestamp": "t", "type": "user", "content": "go"},
                   {"id": "2", "timestamp": "t", "type": "gemini", "content": "Running.",
                    "toolCalls": [_gcall("c1", _response("c1", output="a")),
                                  _gcall("c2", _response("c2", error="denied"), status="error"),
                                  _gcall("c3")]},
                   {"id": "3", "timestamp": "t", "type": "info", "content": "note"})
    [transcript] = _load(record)
    assert transcript.format == "gemini-cli"
    roles = [m["role"] for m in transcript.messages]
    assert roles == ["user", "assistant", "toolResult", "toolResult"]
    results = transcript.messages[2:]
    assert [(r["toolCallId"], r["isError"], r["content"][0]["text"]) for r in results] == [
        ("c1", False, "a"), ("c2", True, "denied")]
    assert _counts(transcript)[:2] == (3, 1)


def test_gemini_cli_a_call_record_without_a_string_id_is_a_clear_error() -> None:
    record = _gcli({"id": "2", "timestamp": "t", "type": "gemini", "content": "", "toolCalls": [{"name": "x"}]})
    with pytest.raises(TranscriptError, match=r"message 0 .*: not a valid gemini-cli entry: a tool call record's "
                                              r"'id' must be a string, got null"):
        _load(record)


def _jsonl(*lines: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


_META = {"sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t", "kind": "main"}


def _ids(transcript: Any) -> list[str]:
    return [part["id"] for m in transcript.messages if m["role"] == "assistant" for part in m["content"]
            if part["type"] == "toolCall"]


def test_a_gemini_cli_session_log_is_folded_as_gemini_cli_folds_it() -> None:
    """The last line of an id is its record, in the place the id first took; `$rewindTo` drops the id and every
    later record; `$set` with a `messages` list replaces them all (gemini-cli's loadConversationRecord)."""
    user = {"id": "u1", "timestamp": "t", "type": "user", "content": [{"text": "go"}]}
    call = {"id": "g1", "timestamp": "t", "type": "gemini", "content": "", "toolCalls": [_gcall("c1")]}
    answered = {**call, "toolCalls": [_gcall("c1", _response("c1", output="a"))]}
    later = {"id": "u2", "timestamp": "t", "type": "user", "content": "more"}
    [transcript] = _load(_jsonl(_META, user, call, later, {"$set": {"lastUpdated": "t2"}}, answered), "s.jsonl")
    assert transcript.format == "gemini-cli"
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "toolResult", "user"]
    assert transcript.entries == [1, 5, 5, 3]  # each message at the line of its last version
    assert _counts(transcript)[:2] == (1, 0)
    dangling = {"id": "g2", "timestamp": "t", "type": "gemini", "content": "", "toolCalls": [_gcall("c2")]}
    [rewound] = _load(_jsonl(_META, user, answered, later, dangling, {"$rewindTo": "u2"}), "s.jsonl")
    assert _ids(rewound) == ["c1"] and _counts(rewound)[:2] == (1, 0)
    [cleared] = _load(_jsonl(_META, user, answered, {"$rewindTo": "gone"}, later), "s.jsonl")
    assert [m["role"] for m in cleared.messages] == ["user"]  # an id not there: gemini-cli clears every record
    [replaced] = _load(_jsonl(_META, user, dangling, {"$set": {"messages": [user, answered]}}), "s.jsonl")
    assert _ids(replaced) == ["c1"] and _counts(replaced)[:2] == (1, 0)


def test_a_gemini_cli_record_is_read_as_gemini_cli_sends_it_on_resume() -> None:
    """convertSessionToClientHistory: a user record's functionResponse parts are results (not a blank message); a
    model record whose content holds its calls (written back by /compress) is read from its content; a user record
    gemini-cli leaves out (a command) is left out; a call's recorded result holding every sibling's response (as
    /compress writes it) sends each of them."""
    first, second = _response("c1", output="a"), _response("c2", output="b")
    compressed = {"id": "g1", "timestamp": "t", "type": "gemini",
                  "content": [{"text": "Looking."},
                              {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {}}},
                              {"functionCall": {"id": "c2", "name": "run_shell_command", "args": {}}}],
                  "toolCalls": [_gcall("c1", first + second), _gcall("c2", first + second)]}
    user = {"id": "u1", "timestamp": "t", "type": "user", "content": [{"text": "go"}]}
    command = {"id": "u2", "timestamp": "t", "type": "user", "content": [{"text": "/stats"}]}
    [transcript] = _load(_jsonl(_META, user, compressed, command), "s.jsonl")
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "toolResult", "toolResult", "toolResult",
                                                        "toolResult"]
    assert [m["toolCallId"] for m in transcript.messages[2:]] == ["c1", "c2", "c1", "c2"]
    assert _counts(transcript) == (2, 0, 2)  # each sibling's response sent twice: two duplicates
    answered = {"id": "g2", "timestamp": "t", "type": "gemini", "content": "", "toolCalls": [_gcall("c3", _response(
        "c3", output="x"))]}
    response = {"id": "u3", "timestamp": "t", "type": "user", "content": _response("c3", output="x")}
    [twice] = _load(_jsonl(_META, user, answered, response), "s.jsonl")
    assert [(m["role"], m.get("toolCallId")) for m in twice.messages] == [
        ("user", None), ("assistant", None), ("toolResult", "c3"), ("toolResult", "c3")]
    assert all(m["role"] != "user" or m["content"] for m in twice.messages)  # never a blank user message


def test_a_gemini_cli_session_log_line_that_is_no_record_is_a_clear_error() -> None:
    with pytest.raises(TranscriptError, match=r"entry 2 \(line 3\): not a valid gemini-cli entry: expected a message "
                                              r"record \(with an 'id'\), a metadata line, '\$set' or '\$rewindTo'"):
        _load(_jsonl(_META, {"id": "u1", "timestamp": "t", "type": "user", "content": "go"}, {"$rewind": "u1"}),
              "s.jsonl")


def test_a_gemini_cli_checkpoint_is_gemini_contents() -> None:
    checkpoint = [{"role": "user", "parts": [{"text": "hi"}]},
                  {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
                  {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a"}}}]}]
    [transcript] = _load(checkpoint)
    assert transcript.format == "gemini" and _counts(transcript)[:2] == (1, 0)


# ---- pydantic-ai message history ----------------------------------------------------------------


def _pcall(call_id: str, args: Any = "{}") -> dict[str, Any]:
    return {"parts": [{"tool_name": "f", "args": args, "tool_call_id": call_id, "part_kind": "tool-call"}],
            "kind": "response", "model_name": "m"}


def _preq(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"parts": list(parts), "instructions": None, "kind": "request"}


def test_pydantic_ai_tool_returns_and_tool_retries_answer_their_calls() -> None:
    history = [_preq({"content": "go", "part_kind": "user-prompt"}), _pcall("c1", {"x": 1}),
               _preq({"content": [{"msg": "bad"}], "tool_name": "f", "tool_call_id": "c1",
                      "part_kind": "retry-prompt"}),
               _pcall("c2", "{\"x\": 2}"),
               _preq({"tool_name": "f", "content": {"ok": True}, "tool_call_id": "c2", "part_kind": "tool-return"},
                     {"content": "Answer plainly.", "tool_name": None, "tool_call_id": "r",
                      "part_kind": "retry-prompt"})]
    [transcript] = _load(history)
    assert transcript.format == "pydantic-ai"
    results = [m for m in transcript.messages if m.get("role") == "toolResult"]
    assert [(r["toolCallId"], r["isError"], r["content"][0]["text"]) for r in results] == [
        ("c1", True, '[{"msg": "bad"}]'), ("c2", False, '{"ok": true}')]
    assert transcript.messages[-1]["content"] == "Answer plainly."
    calls = [p for m in transcript.messages if m.get("role") == "assistant" for p in m["content"]]
    assert [c["arguments"] for c in calls] == [{"x": 1}, {"x": 2}]
    assert _counts(transcript) == (2, 0, 0)


def test_pydantic_ai_builtin_tools_are_answered_in_the_response_not_calls() -> None:
    response = {"parts": [{"tool_name": "web_search", "args": {"query": "x"}, "tool_call_id": "srvtoolu_1",
                           "provider_name": "anthropic", "part_kind": "builtin-tool-call"},
                          {"tool_name": "web_search", "content": [], "tool_call_id": "srvtoolu_1",
                           "provider_name": "anthropic", "part_kind": "builtin-tool-return"},
                          {"content": "Found it.", "part_kind": "text"}], "kind": "response"}
    [transcript] = _load([_preq({"content": "search", "part_kind": "user-prompt"}), response])
    assert transcript.format == "pydantic-ai" and _counts(transcript)[:2] == (0, 0)
    assert analyze(transcript).report.findings == []


def test_pydantic_ai_a_newer_request_part_is_kept_and_a_part_without_kind_is_a_clear_error() -> None:
    [transcript] = _load([_preq({"content": "x", "part_kind": "future-part"}, {"content": "go",
                                                                               "part_kind": "user-prompt"})])
    assert [m["role"] for m in transcript.messages] == ["opaque", "user"]
    with pytest.raises(TranscriptError, match=r"message 0 \(line 1\): not a valid pydantic-ai entry: a request "
                                              r"part needs a string 'part_kind', got null"):
        _load([_preq({"content": "x"})])


def test_pydantic_ai_retry_feedback_is_a_user_turn_and_each_request_part_keeps_its_place() -> None:
    """pydantic-ai 2's `retry-feedback` (an output validator's ModelRetry, bound to no call) is sent as a prompt:
    read as the user turn between the answer it criticises and the next (before: an opaque entry, which Bedrock's
    rules skip, so the two answers were merged).  Each request part's canonical message records its place."""
    feedback = {"content": "say something good", "retry": {"cause": "model_retry", "attempt": 1, "max_retries": 1},
                "part_kind": "retry-feedback"}
    answer = {"parts": [{"content": "bad", "part_kind": "text"}], "kind": "response"}
    [transcript] = _load([_preq({"content": "go", "part_kind": "user-prompt"}), answer, _preq(feedback),
                          {"parts": [{"content": "good", "part_kind": "text"}], "kind": "response"},
                          _preq({"content": "s", "part_kind": "system-prompt"},
                                {"content": "next", "part_kind": "user-prompt"})])
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "user", "assistant", "system", "user"]
    assert transcript.messages[2]["content"] == "say something good"
    assert [m["_native"].get("part") for m in transcript.messages] == [0, None, 0, None, 0, 1]
    assert analyze(transcript, provider="bedrock").report.healthy


# ---- OpenAI Agents SDK ---------------------------------------------------------------------------


def _js_call(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "callId": call_id, "name": "f", "arguments": "{\"a\":1}", "status": "completed"}


def _js_result(call_id: str, output: Any) -> dict[str, Any]:
    return {"type": "function_call_result", "name": "f", "callId": call_id, "status": "completed", "output": output}


@pytest.mark.parametrize("output", ["ok", {"type": "text", "text": "ok"}, [{"type": "input_text", "text": "ok"}]])
def test_js_agents_items_read_as_the_responses_items_they_stand_for(output: Any) -> None:
    [transcript] = _load([{"role": "user", "content": "go"}, _js_call("c1"), _js_result("c1", output)])
    assert transcript.format == "openai-agents"
    [result] = [m for m in transcript.messages if m.get("role") == "toolResult"]
    assert (result["toolCallId"], result["content"][0]["text"]) == ("c1", "ok")
    assert _counts(transcript) == (1, 0, 0)


def test_a_run_state_is_its_input_then_its_generated_items_without_approval_repeats() -> None:
    agent = {"name": "a"}
    state = {"$schemaVersion": "1.0", "originalInput": "go", "currentTurn": 1,
             "generatedItems": [{"type": "tool_call_item", "rawItem": _js_call("c1"), "agent": agent},
                                {"type": "tool_approval_item", "rawItem": _js_call("c1"), "agent": agent}]}
    [transcript] = _load(state)
    assert transcript.format == "openai-agents"
    assert [m["role"] for m in transcript.messages] == ["user", "assistant"]
    assert _counts(transcript)[:2] == (1, 1)


def test_python_to_input_list_stays_openai_responses() -> None:
    items = [{"role": "user", "content": "go"},
             {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
             {"type": "function_call_output", "call_id": "c1", "output": "ok"}]
    [transcript] = _load(items)
    assert transcript.format == "openai-responses" and _counts(transcript) == (1, 0, 0)


# ---- Letta agent files --------------------------------------------------------------------------


def _lmsg(ident: str, role: str, text: str | None = None, **extra: Any) -> dict[str, Any]:
    content = [{"type": "text", "text": text}] if text is not None else []
    return {"type": "message", "role": role, "content": content, "id": ident, "agent_id": "agent-0", "otid": None,
            "tool_calls": None, "tool_call_id": None, "tool_returns": [], **extra}


def _letta(*agents: dict[str, Any]) -> dict[str, Any]:
    return {"agents": list(agents), "blocks": [], "tools": [], "groups": [], "files": [], "sources": [],
            "mcp_servers": [], "metadata": {}, "created_at": "2026-01-22T02:06:34Z"}


CALL_L = [{"id": "t1", "type": "function", "function": {"name": "send_message", "arguments": "{\"message\": \"hi\"}"}}]


def test_letta_reads_the_in_context_messages_in_context_order() -> None:
    messages = [_lmsg("message-0", "system", "sys"), _lmsg("message-1", "user", "old, evicted"),
                _lmsg("message-2", "assistant", tool_calls=CALL_L),
                _lmsg("message-3", "tool", None, tool_call_id="t1",
                      tool_returns=[{"tool_call_id": "t1", "status": "success", "func_response": "sent"}])]
    agent = {"name": "a", "messages": messages, "in_context_message_ids": ["message-0", "message-2", "message-3"]}
    [transcript] = _load(_letta(agent))
    assert (transcript.name, transcript.format) == ("main", "letta")
    assert [m["role"] for m in transcript.messages] == ["system", "assistant", "toolResult"]
    assert transcript.messages[-1]["content"][0]["text"] == "sent"  # the return, when the content is empty
    assert _counts(transcript) == (1, 0, 0)


def test_letta_several_agents_are_several_transcripts_and_a_missing_return_is_unanswered() -> None:
    first = {"name": "main-agent", "messages": [_lmsg("m0", "user", "go"), _lmsg("m1", "assistant", tool_calls=CALL_L)],
             "in_context_message_ids": ["m0", "m1"]}
    second = {"name": "", "messages": [_lmsg("m0", "user", "hi")]}
    transcripts = _load(_letta(first, second))
    assert [t.name for t in transcripts] == ["agent:main-agent", "agent:2"]
    assert _counts(transcripts[0])[:2] == (1, 1)


# ---- AutoGen saved state ------------------------------------------------------------------------


def _acall(*ids: str) -> dict[str, Any]:
    return {"content": [{"id": i, "arguments": "{\"q\": 1}", "name": "f"} for i in ids], "thought": "Let me look.",
            "source": "agent", "type": "AssistantMessage"}


def _aresults(*ids: str, error: bool = False) -> dict[str, Any]:
    return {"content": [{"content": "out", "name": "f", "call_id": i, "is_error": error} for i in ids],
            "type": "FunctionExecutionResultMessage"}


def test_autogen_results_answer_their_calls_in_every_state_shape() -> None:
    messages = [{"content": "go", "source": "user", "type": "UserMessage"}, _acall("c1", "c2"),
                _aresults("c1", "c2", error=True)]
    for state in ({"type": "AssistantAgentState", "version": "1.0.0", "llm_context": {"messages": messages}},
                  {"type": "AssistantAgentState", "version": "1.0.0", "llm_messages": messages},
                  {"messages": messages}):
        [transcript] = _load(state)
        assert transcript.format == "autogen"
        assert [m["role"] for m in transcript.messages] == ["user", "assistant", "toolResult", "toolResult"]
        assert transcript.messages[1]["content"][0] == {"type": "text", "text": "Let me look."}
        assert all(m["isError"] for m in transcript.messages[2:])
        assert _counts(transcript) == (2, 0, 0)


def test_an_autogen_team_state_without_model_contexts_is_not_read_as_autogen() -> None:
    team = {"type": "TeamState", "version": "1.0.0", "agent_states": {"m": {"type": "RoundRobinManagerState"}}}
    with pytest.raises(TranscriptError):
        _load(team)


# ---- Cline SDK sessions ---------------------------------------------------------------------------


def test_a_cline_sdk_session_is_read_as_sent_and_its_structured_results_are_not_malformed() -> None:
    data = (REAL / "cline_sdk_session.cline-sdk.messages.json").read_bytes()
    [transcript] = _load(data, "s.messages.json")
    assert transcript.format == "cline-sdk"
    assert analyze(transcript).report.findings == []
    image = transcript.messages[0]["content"][1]  # read as the Anthropic base64 block it is sent as: an image part
    assert image["type"] == "image" and image["mimeType"] == "image/png" and image["data"]
    from integrity.providers.canonical import judged_request

    sent = judged_request(transcript.messages, "anthropic", transcript, as_recorded=True)[0][0]["content"][1]
    assert sent == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image["data"]}}
    files = transcript.messages[2]["content"]
    assert [p["text"].split(":")[0] for p in files] == ["/work/site/src/header.css", "/work/site/public/logo.svg"]
    assert _counts(transcript) == (2, 0, 0)


def test_an_anthropic_request_without_cline_blocks_stays_anthropic() -> None:
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}]
    [transcript] = _load({"messages": messages, "ts": 1})
    assert transcript.format == "anthropic"


def test_an_openhands_v1_events_page_is_read_from_its_items() -> None:
    events = [USER, _action("c1", "r1"), _observation("c1")]
    [transcript] = _load({"items": events, "next_page_id": None})
    assert transcript.format == "openhands-v1" and _counts(transcript) == (1, 0, 0)


def test_a_python_run_state_with_snake_case_keys_is_read_too() -> None:
    state = {"$schemaVersion": "1.0", "original_input": [{"role": "user", "content": "go"}],
             "generated_items": [{"type": "tool_call_item",
                                  "raw_item": {"type": "function_call", "call_id": "c1", "name": "f",
                                               "arguments": "{}"}}]}
    [transcript] = _load(state)
    assert transcript.format == "openai-agents" and _counts(transcript)[:2] == (1, 1)


def test_a_fine_tuning_line_without_a_messages_array_is_named() -> None:
    data = (json.dumps(_example({"role": "user", "content": "a"})) + "\n" + json.dumps({"messages": "x"}) + "\n")
    with pytest.raises(TranscriptError, match=r"^t\.jsonl: line 2: a fine-tuning example's 'messages' must be an "
                                              r"array, got a string$"):
        _load(data.encode(), "t.jsonl")


@pytest.mark.parametrize(("document", "problem"), [
    ({"type": "AssistantAgentState", "llm_context": {"messages": [
        {"type": "FunctionExecutionResultMessage", "content": []}]}}, "holds no FunctionExecutionResult"),
    ([{"kind": "request", "parts": []}], "a request holds no parts"),
    ({"messages": [{"role": "user", "content": []},
                   {"role": "user", "content": [{"type": "file", "path": "/a", "content": "x"}]}]},
     "a user message holds no content blocks"),
])
def test_a_record_emptied_of_its_messages_is_refused_not_dropped(document: Any, problem: str) -> None:
    with pytest.raises(TranscriptError, match=problem):
        _load(document)


def test_an_anthropic_user_turn_with_no_blocks_is_a_finding() -> None:
    from integrity.schema import schema_findings

    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
                {"role": "user", "content": []}]
    [transcript] = _load({"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": messages})
    assert [(f.kind, f.path) for f in schema_findings(transcript)] == [("invalid_content", "messages[2].content")]


@pytest.mark.parametrize(("lines", "what"), [
    ([{"display": "fix the tests", "pastedContents": {}, "timestamp": 1759000000000, "project": "/home/u/app"}],
     "a Claude Code prompt history (history.jsonl)"),
    ([{"session_id": "0199a", "ts": 1759000000, "text": "add a README"},
      {"session_id": "0199a", "ts": 1759000100, "text": "now tests"}], "a Codex prompt history (history.jsonl)"),
    ([{"sessionId": "s", "messageId": 0, "type": "user", "message": "hi", "timestamp": "2025-01-01T00:00:00Z"}],
     "a Gemini CLI prompt log (logs.json)"),
])
def test_prompt_histories_are_refused_by_name(lines: list[dict[str, Any]], what: str) -> None:
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    with pytest.raises(TranscriptError, match=rf"^h: top level: {re.escape(what)}: no tool calls to check"):
        _load(data, "h")


# ---- Vercel AI SDK model messages -----------------------------------------------------------------


def test_ai_sdk_messages_are_not_read_as_chat_and_their_results_answer_their_calls() -> None:
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [
                    {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {"a": 1}},
                    {"type": "tool-call", "toolCallId": "c2", "toolName": "f", "args": {"a": 2}}]},
                {"role": "tool", "content": [
                    {"type": "tool-result", "toolCallId": "c1", "toolName": "f",
                     "output": {"type": "text", "value": "x"}},
                    {"type": "tool-result", "toolCallId": "c2", "toolName": "f", "result": {"ok": False},
                     "isError": True}]}]
    [transcript] = _load(messages)
    assert transcript.format == "ai-sdk"
    results = [m for m in transcript.messages if m.get("role") == "toolResult"]
    assert [(r["toolCallId"], r["isError"], r["content"][0]["text"]) for r in results] == [
        ("c1", False, "x"), ("c2", True, '{"ok": false}')]
    assert _counts(transcript) == (2, 0, 0)


def test_ai_sdk_provider_executed_calls_are_not_client_calls() -> None:
    messages = [{"role": "user", "content": "search"},
                {"role": "assistant", "content": [
                    {"type": "tool-call", "toolCallId": "s1", "toolName": "web_search", "input": {},
                     "providerExecuted": True},
                    {"type": "tool-result", "toolCallId": "s1", "toolName": "web_search",
                     "output": {"type": "json", "value": []}, "providerExecuted": True}]}]
    [transcript] = _load(messages)
    assert transcript.format == "ai-sdk" and _counts(transcript)[:2] == (0, 0)


def test_an_ai_sdk_tool_message_without_results_is_refused() -> None:
    messages = [{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f",
                                                   "input": {}}]},
                {"role": "tool", "content": []}]
    with pytest.raises(TranscriptError, match="message 1 .*: not a valid ai-sdk entry: a tool message's 'content'"):
        _load(messages)


# ---- Vercel AI SDK UI messages ------------------------------------------------------------------


def test_ai_sdk_ui_steps_are_turns_and_parts_without_output_are_unanswered() -> None:
    parts = [{"type": "step-start"},
             {"type": "tool-search", "toolCallId": "c1", "state": "output-available", "input": {"q": 1}, "output": "r"},
             {"type": "step-start"},
             {"type": "dynamic-tool", "toolName": "mcp_x", "toolCallId": "c2", "state": "output-error",
              "input": {}, "errorText": "boom"},
             {"type": "tool-search", "toolCallId": "c3", "state": "input-available", "input": {}}]
    [transcript] = _load([{"id": "u", "role": "user", "parts": [{"type": "text", "text": "go"}]},
                          {"id": "a", "role": "assistant", "parts": parts}])
    assert transcript.format == "ai-sdk-ui"
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "toolResult", "assistant", "toolResult"]
    assert [(m["toolCallId"], m["isError"]) for m in transcript.messages if m["role"] == "toolResult"] == [
        ("c1", False), ("c2", True)]
    assert _counts(transcript)[:2] == (3, 1)


def test_ai_sdk_4_tool_invocations_are_read() -> None:
    invocation = {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "c1",
                                                                "toolName": "f", "args": {}, "result": {"a": 1}}}
    [transcript] = _load([{"id": "a", "role": "assistant", "content": "", "parts": [invocation]}])
    assert transcript.format == "ai-sdk-ui" and _counts(transcript) == (1, 0, 0)


def test_a_gemini_turn_is_still_gemini_beside_ui_messages_rules() -> None:
    turns = [{"role": "user", "parts": [{"text": "hi"}]},
             {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
             {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "x"}}}]}]
    [transcript] = _load(turns)
    assert transcript.format == "gemini" and _counts(transcript) == (1, 0, 0)


def test_a_gemini_cli_command_is_left_out_only_when_the_record_is_its_text_alone() -> None:
    """gemini-cli leaves a user record out on resume when its text starts with '/' or '?' (a command); a record
    that holds an image first is sent (its text starts with the image's marker), so it is read."""
    command = {"id": "u1", "timestamp": "t", "type": "user", "content": [{"text": "/stats"}]}
    pictured = {"id": "u2", "timestamp": "t", "type": "user",
                "content": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
                            {"text": "/x is the path"}]}
    [transcript] = _load(_jsonl(_META, command, pictured), "s.jsonl")
    assert [(m["role"], m["content"]) for m in transcript.messages] == [("user", "/x is the path")]
