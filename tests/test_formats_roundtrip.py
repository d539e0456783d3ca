"""Property tests: every format round-trips, and converting between formats keeps the pairing.

A healthy conversation is generated abstractly (turns of user text, calls with
arguments and results, assistant text) and rendered in each format's real native
shape, with the provider-only fields real files carry (ids of items, cache
control, usage, envelopes, Claude Code's one-entry-per-block layout).  Reading it
and writing it back must give equal JSON; converting it to any other format and
reading that back must give the same calls and results in the same order.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity.formats import FORMATS, read_bytes, to_native, write_bytes
from integrity.formats.container import get_path
from integrity.repair.plan import plan_openmaic
from integrity.repair.views import light_transcript

TOOLS = ["read_file", "web_search", "grep", "run_shell", "write_file", "list_dir"]
WORDS = ["Let me check the config.", "Searching the docs now.", "Done: the port is 8080.",
         "I found three TODOs.", "Could you summarize src/main.py?", "Thanks, continue.", "日本語のテキスト ✓", ""]
TEXT = st.one_of(st.sampled_from(WORDS[:-1]), st.text(min_size=1, max_size=12))
ARGS = st.dictionaries(st.sampled_from(["path", "query", "pattern", "limit"]),
                       st.one_of(st.text(max_size=8), st.integers(0, 500), st.booleans()), max_size=3)


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Turns: {user, calls: [(id, name, args, result, is_error)], reply}."""
    turns = []
    counter = 0
    for _ in range(draw(st.integers(1, 4))):
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            counter += 1
            calls.append((f"{counter:04d}", draw(st.sampled_from(TOOLS)), draw(ARGS), draw(TEXT), draw(st.booleans())))
        turns.append({"user": draw(TEXT), "lead": draw(st.one_of(st.none(), TEXT)), "calls": calls,
                      "reply": draw(TEXT)})
    return turns


def dumps(body: Any, jsonl: bool = False) -> bytes:
    if jsonl:
        return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in body).encode()
    return json.dumps(body, ensure_ascii=False, indent=1).encode()


# ---- renderers: one per format, producing what real files look like ---------------------


def render_pi(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    out: list[Any] = []
    ts = 1763000000000
    for turn in turns:
        out.append({"role": "user", "content": turn["user"], "timestamp": ts})
        parts: list[Any] = [{"type": "text", "text": turn["lead"]}] if turn["lead"] else []
        parts += [{"type": "toolCall", "id": f"call_{i}", "name": n, "arguments": a} for i, n, a, _, _ in turn["calls"]]
        if parts and turn["calls"]:
            out.append({"role": "assistant", "content": parts, "api": "anthropic-messages", "provider": "anthropic",
                        "model": "claude-sonnet-4-5", "usage": {"input": 120, "output": 40}, "stopReason": "toolUse",
                        "timestamp": ts + 1})
            for i, n, _, r, e in turn["calls"]:
                out.append({"role": "toolResult", "toolCallId": f"call_{i}", "toolName": n,
                            "content": [{"type": "text", "text": r}], "isError": e, "timestamp": ts + 2})
        out.append({"role": "assistant", "content": [{"type": "text", "text": turn["reply"]}], "stopReason": "stop",
                    "timestamp": ts + 3})
    return out, False


def render_chat(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    out: list[Any] = [{"role": "system", "content": "You are a coding agent."}] if draw(st.booleans()) else []
    for turn in turns:
        user: dict[str, Any] = {"role": "user", "content": turn["user"]}
        if draw(st.booleans()):
            user["content"] = [{"type": "text", "text": turn["user"]}]
        out.append(user)
        if turn["calls"]:
            out.append({"role": "assistant", "content": turn["lead"], "refusal": None, "tool_calls": [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, n, a, _, _ in turn["calls"]]})
            out += [{"role": "tool", "tool_call_id": f"call_{i}", "content": r} for i, _, _, r, _ in turn["calls"]]
        out.append({"role": "assistant", "content": turn["reply"]})
    if draw(st.booleans()):
        return {"model": "gpt-4.1", "temperature": 0.2, "messages": out}, False
    return out, draw(st.booleans())


def render_responses(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    out: list[Any] = []
    for n_turn, turn in enumerate(turns):
        if draw(st.booleans()):
            out.append({"role": "user", "content": turn["user"]})
        else:
            out.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": turn["user"]}]})
        if turn["calls"]:
            if draw(st.booleans()):
                out.append({"type": "reasoning", "id": f"rs_{n_turn}", "summary": [
                    {"type": "summary_text", "text": "Plan the lookups."}], "encrypted_content": "gAAAAB..."})
            if turn["lead"]:
                out.append({"type": "message", "id": f"msg_{n_turn}a", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": turn["lead"], "annotations": []}]})
            for i, n, a, _, _ in turn["calls"]:
                out.append({"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": n,
                            "arguments": json.dumps(a), "status": "completed"})
            out += [{"type": "function_call_output", "call_id": f"call_{i}", "output": r}
                    for i, _, _, r, _ in turn["calls"]]
        out.append({"type": "message", "id": f"msg_{n_turn}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": turn["reply"], "annotations": []}]})
    if draw(st.booleans()):
        return {"model": "gpt-5", "instructions": "Be terse.", "store": False, "input": out}, False
    return out, False


def render_anthropic(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    out: list[Any] = []
    pending: list[Any] = []
    for turn in turns:
        if pending:
            pending.append({"type": "text", "text": turn["user"]})
            out.append({"role": "user", "content": pending})
            pending = []
        else:
            out.append({"role": "user", "content": turn["user"] if draw(st.booleans()) else
                        [{"type": "text", "text": turn["user"], "cache_control": {"type": "ephemeral"}}]})
        if turn["calls"]:
            blocks: list[Any] = [{"type": "text", "text": turn["lead"]}] if turn["lead"] else []
            blocks += [{"type": "tool_use", "id": f"toolu_{i}", "name": n, "input": a}
                       for i, n, a, _, _ in turn["calls"]]
            out.append({"role": "assistant", "content": blocks})
            results = []
            for i, _, _, r, e in turn["calls"]:
                block: dict[str, Any] = {"type": "tool_result", "tool_use_id": f"toolu_{i}",
                                         "content": r if draw(st.booleans()) else [{"type": "text", "text": r}]}
                if e:
                    block["is_error"] = True
                results.append(block)
            out.append({"role": "user", "content": results})
        out.append({"role": "assistant", "content": [{"type": "text", "text": turn["reply"]}]})
    if draw(st.booleans()):
        return {"model": "claude-sonnet-4-5", "max_tokens": 4096, "system": "You are a coding agent.",
                "messages": out}, False
    return out, False


def render_gemini(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    with_ids = draw(st.booleans())
    out: list[Any] = []
    for turn in turns:
        out.append({"role": "user", "parts": [{"text": turn["user"]}]})
        if turn["calls"]:
            parts: list[Any] = [{"text": turn["lead"]}] if turn["lead"] else []
            for i, n, a, _, _ in turn["calls"]:
                call = {"id": f"fc-{i}", "name": n, "args": a} if with_ids else {"name": n, "args": a}
                parts.append({"functionCall": call})
            out.append({"role": "model", "parts": parts})
            responses = []
            for i, n, _, r, _e in turn["calls"]:
                payload = draw(st.sampled_from([{"output": r}, {"result": {"text": r, "lines": 3}}, {"error": r}]))
                response = ({"id": f"fc-{i}", "name": n, "response": payload} if with_ids
                            else {"name": n, "response": payload})
                responses.append({"functionResponse": response})
            out.append({"role": "user", "parts": responses})
        out.append({"role": "model", "parts": [{"text": turn["reply"]}]})
    return {"contents": out, "systemInstruction": {"parts": [{"text": "You are a coding agent."}]},
            "generationConfig": {"temperature": 0.1}}, False


def render_bedrock(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    out: list[Any] = []
    for turn in turns:
        out.append({"role": "user", "content": [{"text": turn["user"]}]})
        if turn["calls"]:
            blocks: list[Any] = [{"text": turn["lead"]}] if turn["lead"] else []
            blocks += [{"toolUse": {"toolUseId": f"tooluse_{i}", "name": n, "input": a}}
                       for i, n, a, _, _ in turn["calls"]]
            out.append({"role": "assistant", "content": blocks})
            out.append({"role": "user", "content": [
                {"toolResult": {"toolUseId": f"tooluse_{i}", "content": [{"text": r}] if draw(st.booleans())
                                else [{"json": {"result": r}}], "status": "error" if e else "success"}}
                for i, _, _, r, e in turn["calls"]]})
        out.append({"role": "assistant", "content": [{"text": turn["reply"]}]})
    return {"modelId": "anthropic.claude-3-5-sonnet-20240620-v1:0", "system": [{"text": "You are a coding agent."}],
            "messages": out, "inferenceConfig": {"maxTokens": 1024}}, False


def render_langchain(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    dumpd = draw(st.booleans())

    def wrap(kind: str, cls: str, fields: dict[str, Any]) -> dict[str, Any]:
        if dumpd:
            return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", cls],
                    "kwargs": {"type": kind, **fields}}
        base = {"content": "", "additional_kwargs": {}, "response_metadata": {}, "type": kind, "name": None, "id": None}
        return {"type": kind, "data": {**base, **fields}}

    out: list[Any] = [wrap("system", "SystemMessage", {"content": "You are a coding agent."})]
    for n_turn, turn in enumerate(turns):
        out.append(wrap("human", "HumanMessage", {"content": turn["user"]}))
        if turn["calls"]:
            out.append(wrap("ai", "AIMessage", {
                "content": turn["lead"] or "", "id": f"run-{n_turn}",
                "tool_calls": [{"name": n, "args": a, "id": f"call_{i}", "type": "tool_call"}
                               for i, n, a, _, _ in turn["calls"]],
                "invalid_tool_calls": [],
                "usage_metadata": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}))
            for i, n, _, r, e in turn["calls"]:
                out.append(wrap("tool", "ToolMessage", {"content": r, "name": n, "tool_call_id": f"call_{i}",
                                                        "status": "error" if e else "success"}))
        out.append(wrap("ai", "AIMessage", {"content": turn["reply"], "tool_calls": [], "invalid_tool_calls": []}))
    return out, False


def render_langgraph(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    """LangGraph's API: a thread state whose values.messages are flat LangChain message dicts."""
    base = {"additional_kwargs": {}, "response_metadata": {}, "name": None, "example": False}
    out: list[Any] = []
    for n_turn, turn in enumerate(turns):
        out.append({**base, "content": turn["user"], "type": "human", "id": f"h{n_turn}"})
        if turn["calls"]:
            out.append({**base, "content": turn["lead"] or "", "type": "ai", "id": f"run-{n_turn}",
                        "tool_calls": [{"name": n, "args": a, "id": f"call_{i}", "type": "tool_call"}
                                       for i, n, a, _, _ in turn["calls"]], "invalid_tool_calls": []})
            out += [{"content": r, "additional_kwargs": {}, "response_metadata": {}, "type": "tool", "name": n,
                     "id": f"t{i}", "tool_call_id": f"call_{i}", "artifact": None,
                     "status": "error" if e else "success"}
                    for i, n, _, r, e in turn["calls"]]
        out.append({**base, "content": turn["reply"], "type": "ai", "id": f"r{n_turn}", "tool_calls": [],
                    "invalid_tool_calls": []})
    if draw(st.booleans()):
        return {"values": {"messages": out}, "next": [], "metadata": {"step": 3},
                "created_at": "2025-11-02T08:14:03Z"}, False
    return out, False


def render_claude_code(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    session = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/app",
               "sessionId": "3f1c2a9e-0000-4000-8000-000000000001", "version": "2.0.14", "gitBranch": "main"}
    out: list[Any] = []
    parent = None
    count = 0

    def add(kind: str, message: dict[str, Any], **extra: Any) -> None:
        nonlocal parent, count
        count += 1
        uid = f"00000000-0000-4000-8000-{count:012d}"
        out.append({"parentUuid": parent, **session, "type": kind, "message": message, "uuid": uid,
                    "timestamp": f"2025-10-01T10:00:{count % 60:02d}.000Z", **extra})
        parent = uid

    if draw(st.booleans()):
        out.append({"type": "summary", "summary": "Fix config loading",
                    "leafUuid": "00000000-0000-4000-8000-999999999999"})
    for n_turn, turn in enumerate(turns):
        add("user", {"role": "user", "content": turn["user"]})
        if draw(st.booleans()):
            out.append({"type": "file-history-snapshot", "messageId": parent, "snapshot": {"trackedFileBackups": {}},
                        "isSnapshotUpdate": False})
        head = {"id": f"msg_{n_turn:03d}", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5-20250929"}
        blocks: list[Any] = [{"type": "text", "text": turn["lead"]}] if turn["lead"] else []
        blocks += [{"type": "tool_use", "id": f"toolu_{i}", "name": n, "input": a} for i, n, a, _, _ in turn["calls"]]
        for block in blocks:
            add("assistant", {**head, "content": [block], "stop_reason": None, "usage": {"output_tokens": 3}},
                requestId=f"req_{n_turn}")
        for i, _, _, r, e in turn["calls"]:
            block = {"tool_use_id": f"toolu_{i}", "type": "tool_result", "content": r}
            if e:
                block["is_error"] = True
            add("user", {"role": "user", "content": [block]},
                toolUseResult={"stdout": r, "stderr": "", "interrupted": False})
        add("assistant", {"id": f"msg_{n_turn:03d}r", "type": "message", "role": "assistant",
                          "model": "claude-sonnet-4-5-20250929",
                          "content": [{"type": "text", "text": turn["reply"]}], "stop_reason": "end_turn"})
    return out, True


def _pi_entries(turns: list[dict[str, Any]], draw: st.DrawFn, openclaw: bool) -> tuple[Any, bool]:
    """A pi session: a header, bookkeeping entries and message entries linked by id/parentId."""
    messages, _ = render_pi(turns, draw)
    out: list[Any] = [{"type": "session", "version": 3, "id": "5b0f6c1e-0000-4000-8000-00000000000a",
                       "timestamp": "2025-12-03T14:00:00.000Z", "cwd": "/home/dev/app"}]
    parent = None
    count = 0

    def add(entry: dict[str, Any]) -> None:
        nonlocal parent, count
        count += 1
        ident = f"{count:08x}"
        out.append({"type": entry.pop("type"), "id": ident, "parentId": parent,
                    "timestamp": f"2025-12-03T14:00:{count % 60:02d}.000Z", **entry})
        parent = ident

    add({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
    if openclaw:
        add({"type": "custom", "customType": "model-snapshot",
             "data": {"provider": "anthropic", "modelApi": "anthropic-messages", "modelId": "claude-sonnet-4-5"}})
    for message in messages:
        add({"type": "message", "message": message})
        if draw(st.integers(0, 5)) == 0:
            add({"type": "label", "targetId": parent, "label": "checkpoint"})
    return out, True


def render_pi_session(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    return _pi_entries(turns, draw, openclaw=False)


def render_openclaw(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    return _pi_entries(turns, draw, openclaw=True)


def render_codex(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    """A Codex rollout: typed lines, Responses items in response_item payloads, events in between."""
    count = 0

    def line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        nonlocal count
        count += 1
        return {"timestamp": f"2025-10-29T00:59:{count % 60:02d}.317Z", "type": kind, "payload": payload}

    out: list[Any] = [line("session_meta", {"id": "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5", "cwd": "/home/dev/app",
                                            "originator": "codex_cli_rs", "cli_version": "0.46.0"})]
    for turn in turns:
        out.append(line("response_item", {"type": "message", "role": "user",
                                           "content": [{"type": "input_text", "text": turn["user"]}]}))
        out.append(line("event_msg", {"type": "user_message", "message": turn["user"], "kind": "plain"}))
        out.append(line("turn_context", {"cwd": "/home/dev/app", "model": "gpt-5-codex"}))
        if turn["calls"]:
            if draw(st.booleans()):
                out.append(line("response_item", {"type": "reasoning", "summary": [
                    {"type": "summary_text", "text": "Plan the lookups."}], "encrypted_content": "gAAAAB..."}))
            for i, n, a, _, _ in turn["calls"]:
                if n == "write_file":
                    out.append(line("response_item", {"type": "custom_tool_call", "status": "completed",
                                                      "call_id": f"call_{i}", "name": n,
                                                      "input": "*** Begin Patch\n*** End Patch"}))
                else:
                    out.append(line("response_item", {"type": "function_call", "name": n, "arguments": json.dumps(a),
                                                      "call_id": f"call_{i}"}))
            out.append(line("event_msg", {"type": "token_count", "info": None}))
            for i, n, _, r, _ in turn["calls"]:
                kind = "custom_tool_call_output" if n == "write_file" else "function_call_output"
                out.append(line("response_item", {"type": kind, "call_id": f"call_{i}", "output": r}))
        out.append(line("response_item", {"type": "message", "role": "assistant",
                                          "content": [{"type": "output_text", "text": turn["reply"]}]}))
        out.append(line("event_msg", {"type": "agent_message", "message": turn["reply"]}))
    return out, True


def render_swe_agent(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    """A SWE-agent .traj: history items with agent/message_type, tool messages naming calls in tool_call_ids."""
    history: list[Any] = [{"role": "system", "content": "SETTING: You are an autonomous programmer.",
                           "agent": "main", "message_type": "system_prompt"}]
    for turn in turns:
        history.append({"role": "user", "content": turn["user"], "agent": "main", "message_type": "observation"})
        if turn["calls"]:
            history.append({"role": "assistant", "content": turn["lead"] or "", "thought": turn["lead"] or "",
                            "action": "bash", "agent": "main", "message_type": "action", "tool_calls": [
                                {"function": {"arguments": json.dumps(a), "name": n}, "id": f"call_{i}",
                                 "type": "function"} for i, n, a, _, _ in turn["calls"]]})
            history += [{"role": "tool", "content": r, "agent": "main", "message_type": "observation",
                         "tool_call_ids": [f"call_{i}"]} for i, _, _, r, _ in turn["calls"]]
        history.append({"role": "assistant", "content": turn["reply"], "thought": turn["reply"], "action": "",
                        "agent": "main", "message_type": "action"})
    return {"environment": "main", "trajectory": [{"action": "ls", "observation": "", "response": "", "thought": "",
                                                   "state": {}, "execution_time": 0.1}],
            "history": history, "info": {"exit_status": "submitted"}}, False


def render_mini(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    """A mini-swe-agent .traj.json (a tool-call model): Chat messages with `extra`."""
    messages: list[Any] = [{"role": "system", "content": "You are a helpful assistant."}]
    for turn in turns:
        messages.append({"role": "user", "content": turn["user"], "extra": {}})
        if turn["calls"]:
            messages.append({"role": "assistant", "content": turn["lead"], "tool_calls": [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, n, a, _, _ in turn["calls"]], "extra": {"cost": 0.003, "timestamp": 1706000000.0}})
            messages += [{"role": "tool", "tool_call_id": f"call_{i}", "content": r, "extra": {"returncode": 0}}
                         for i, _, _, r, _ in turn["calls"]]
        messages.append({"role": "assistant", "content": turn["reply"], "extra": {"cost": 0.001}})
    return {"info": {"mini_version": "2.0.0", "exit_status": "Submitted"}, "messages": messages,
            "trajectory_format": "mini-swe-agent-1.1"}, False


def render_inspect(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    """An Inspect AI message list: ids and sources, tool calls naming their `function`, tool errors."""
    out: list[Any] = [{"id": "KbRXi6VEafgTBTC3vXEACa", "content": "You are a coding agent.", "role": "system"}]
    for n_turn, turn in enumerate(turns):
        out.append({"id": f"u{n_turn}", "content": turn["user"], "source": "input", "role": "user"})
        if turn["calls"]:
            out.append({"id": f"a{n_turn}", "content": turn["lead"] or "", "source": "generate", "role": "assistant",
                        "tool_calls": [{"id": f"call_{i}", "function": n, "arguments": a, "type": "function"}
                                       for i, n, a, _, _ in turn["calls"]], "model": "gpt-4o"})
            for i, n, _, r, e in turn["calls"]:
                out.append({"id": f"t{i}", "content": r, "role": "tool", "tool_call_id": f"call_{i}", "function": n,
                            "error": {"type": "unknown", "message": r} if e else None})
        out.append({"id": f"r{n_turn}", "content": turn["reply"], "source": "generate", "role": "assistant",
                    "model": "gpt-4o"})
    return out, False


def render_goose(turns: list[dict[str, Any]], draw: st.DrawFn) -> tuple[Any, bool]:
    """A goose session file: maybe its metadata line, then one message per line (toolRequest / toolResponse items,
    an error response for a failed call), each dated a second after the one before."""
    seen = {"userVisible": True, "agentVisible": True}
    out: list[Any] = [{"working_dir": "/home/dev/app", "description": "Fix it", "schedule_id": None,
                       "message_count": 0, "total_tokens": None}] if draw(st.booleans()) else []
    stamp = 1767610800

    def message(role: str, content: list[Any]) -> dict[str, Any]:
        nonlocal stamp
        stamp += 1
        return {"id": f"msg_{stamp}", "role": role, "created": stamp, "content": content, "metadata": seen}

    for turn in turns:
        out.append(message("user", [{"type": "text", "text": turn["user"]}]))
        if turn["calls"]:
            lead = [{"type": "text", "text": turn["lead"]}] if turn["lead"] else []
            out.append(message("assistant", lead + [
                {"type": "toolRequest", "id": f"call_{i}", "toolCall": {"status": "success",
                                                                        "value": {"name": n, "arguments": a}}}
                for i, n, a, _, _ in turn["calls"]]))
            out.append(message("user", [
                {"type": "toolResponse", "id": f"call_{i}", "toolResult": {"status": "error", "error": r} if e else
                 {"status": "success", "value": {"content": [{"type": "text", "text": r}], "isError": False}}}
                for i, _, _, r, e in turn["calls"]]))
        out.append(message("assistant", [{"type": "text", "text": turn["reply"]}]))
    return out, True


RENDERERS = {
    "pi-ai": render_pi, "openai-chat": render_chat, "openai-responses": render_responses,
    "anthropic": render_anthropic, "gemini": render_gemini, "bedrock": render_bedrock,
    "langchain": render_langchain, "claude-code": render_claude_code,
    "pi-session": render_pi_session, "openclaw": render_openclaw, "codex": render_codex,
    "swe-agent": render_swe_agent, "mini-swe-agent": render_mini, "inspect": render_inspect,
    "langgraph": render_langgraph, "goose": render_goose,
}


@st.composite
def native_files(draw: st.DrawFn, format: str) -> tuple[bytes, Any, list[dict[str, Any]]]:
    turns = draw(conversations())
    body, jsonl = RENDERERS[format](turns, draw)
    return dumps(body, jsonl), body, turns


def parsed(data: bytes) -> Any:
    try:
        return json.loads(data)
    except json.JSONDecodeError:
        return [json.loads(line) for line in data.decode().split("\n") if line.strip()]


def pairing(messages: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], list[Any]]:
    calls = [(p["id"], p["name"]) for m in messages if m.get("role") == "assistant"
             for p in m["content"] if p.get("type") == "toolCall"]
    results = [m.get("toolCallId") for m in messages if m.get("role") == "toolResult"]
    return calls, results


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_format_has_a_renderer() -> None:
    assert set(RENDERERS) == set(FORMATS)


for _name in FORMATS:

    def _make(format: str) -> Any:
        @SETTINGS
        @given(native_files(format))
        def round_trip(case: tuple[bytes, Any, list[dict[str, Any]]]) -> None:
            data, body, turns = case
            transcript = read_bytes(data, f"t.{format}", format)
            if any(t["calls"] for t in turns):  # tool traffic is evidence enough to detect the format
                assert read_bytes(data, f"t.{format}").format == format
            assert parsed(write_bytes(transcript)) == body
            # Through the full writer (grouping, verbatim reuse) with the canonical list itself:
            assert parsed(write_bytes(transcript, list(transcript.messages))) == body
            calls, results = pairing(transcript.messages)
            # Healthy input is a healthy canonical transcript: the reference engine changes nothing
            # (Gemini without ids pairs by order and name, which only the strict policy does).
            if all(call_id for call_id, _ in calls):
                assert not plan_openmaic(light_transcript(transcript.messages)).changed
            else:
                assert format == "gemini" and set(results) == {""}
            assert len(calls) == sum(len(t["calls"]) for t in turns) == len(results)
            assert [c[1] for c in calls] == [c[1] for t in turns for c in t["calls"]]
            # Every canonical message points at a real native entry and its line.
            assert len(transcript.entries) == len(transcript.messages) == len(transcript.lines)
            assert all(0 <= e < len(transcript.native) for e in transcript.entries)
            assert all(transcript.lines[i] == transcript.native_lines[e] for i, e in enumerate(transcript.entries))

        round_trip.__name__ = f"test_round_trip_{format.replace('-', '_')}"
        return round_trip

    globals()[f"test_round_trip_{_name.replace('-', '_')}"] = _make(_name)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FORMATS).flatmap(lambda f: st.tuples(st.just(f), native_files(f))), st.sampled_from(FORMATS))
def test_conversion_keeps_calls_and_results_paired(source_case: Any, target: str) -> None:
    source, (data, _, _) = source_case
    transcript = read_bytes(data, "in", source)
    converted = write_bytes(transcript, format=target)
    back = read_bytes(converted, "out", target)
    assert pairing(back.messages) == pairing(transcript.messages)
    if all(call_id for call_id, _ in pairing(back.messages)[0]):
        assert not plan_openmaic(light_transcript(back.messages)).changed
    # With tool traffic it reads back through auto-detection as the target format (a new openclaw
    # file has nothing only openclaw writes: it is a pi session).
    if pairing(transcript.messages)[0]:
        fresh_openclaw = target == "openclaw" and source != "openclaw"
        assert read_bytes(converted, "out").format == ("pi-session" if fresh_openclaw else target)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([f for f in FORMATS if f not in ("pi-ai", "claude-code", "pi-session", "openclaw", "codex",
                                                        "goose")]
                       ).flatmap(
    lambda f: st.tuples(st.just(f), native_files(f))))
def test_converter_rebuilds_native_messages_without_the_verbatim_path(case: Any) -> None:
    """to_native without the transcript rebuilds from canonical messages and their hints alone."""
    format, (data, body, _) = case
    transcript = read_bytes(data, "in", format)
    rebuilt = to_native(transcript.messages, format)
    listed = body if isinstance(body, list) else get_path(body, transcript.key)
    assert rebuilt.messages == listed
