"""Vercel AI SDK UI messages (`UIMessage[]`: what `useChat` keeps and apps save as the chat).

vercel/ai `packages/ai/src/ui/ui-messages.ts`: `{id, role, parts, metadata?}` with parts
`text`, `reasoning`, `file`, `source-*`, `data-*`, `step-start`, and one part per tool
call: `tool-<name>` (or `dynamic-tool` with `toolName`) holding `toolCallId`, `input`,
`state` and, once the tool ran, `output` (`state: "output-available"`) or `errorText`
(`"output-error"`); AI SDK 4 wrote `{"type": "tool-invocation", "toolInvocation":
{state: call | partial-call | result, toolCallId, toolName, args, result}}`.
`convertToModelMessages` sends each step of an assistant message (steps are separated
by `step-start`) as an assistant turn with its calls, then a tool turn with the
results the parts hold; a call whose part never got an output (still
`input-available`: the chat was stopped or reloaded mid-call) is sent without a
result.  Provider-executed tools are answered in place, never client calls.
Read-only: a repaired view is written as OpenAI Chat.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Segment
from .common import EntryError, assistant, describe, opaque_part, text_part, tool_call, tool_result
from .read_only import body, build, groups  # noqa: F401 - the adapter protocol
from .spec import here

NAME = "ai-sdk-ui"
READ_ONLY = True
WRITES_AS = "openai-chat"
_ROLES = ("system", "user", "assistant")
_DONE = ("output-available", "output-error", "output-denied")


def _tool_part(part: Any) -> bool:
    if type(part) is not dict:
        return False
    kind = part.get("type")
    return (isinstance(kind, str) and (kind.startswith("tool-") or kind == "dynamic-tool") and "toolCallId" in part) \
        or kind == "tool-invocation"


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A tool part (`tool-<name>` / `dynamic-tool` with a toolCallId, or AI SDK 4's tool-invocation) or a
    step-start part."""
    return any(type(e) is dict and type(e.get("parts")) is list
               and any(_tool_part(p) or (type(p) is dict and p.get("type") == "step-start") for p in e["parts"])
               for e in entries)


def fits(entry: Any) -> bool:
    """A UI message: a role and a list of typed parts."""
    return isinstance(entry, dict) and entry.get("role") in _ROLES and isinstance(entry.get("parts"), list) \
        and all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in entry["parts"])


def _texts(parts: list[Any]) -> str:
    return "\n".join(p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str))


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _call(part: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The call a tool part stands for and its result (None: the part never got an output)."""
    if part["type"] == "tool-invocation":
        invocation = part.get("toolInvocation")
        if not isinstance(invocation, dict):
            raise EntryError(f"a tool-invocation part's 'toolInvocation' must be an object, got "
                             f"{describe(invocation)}")
        call_id, name, args = invocation.get("toolCallId"), invocation.get("toolName"), invocation.get("args")
        done = invocation.get("state") == "result"
        text, failed = _as_text(invocation.get("result")), False
    else:
        call_id, args = part.get("toolCallId"), part.get("input")
        name = part.get("toolName") if part["type"] == "dynamic-tool" else part["type"][len("tool-"):]
        state = part.get("state")
        done = state in _DONE
        if state == "output-available":
            text, failed = _as_text(part.get("output")), False
        elif state == "output-error":
            text, failed = _as_text(part.get("errorText", "")), True
        else:
            text, failed = "Tool execution denied.", True
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise EntryError("a tool part needs a string 'toolCallId' and tool name")
    call = tool_call(call_id, name, args if isinstance(args, dict) else {})
    return call, (tool_result(call_id, name, [text_part(text)] if text else [], failed) if done else None)


def _assistant(parts: list[Any]) -> list[dict[str, Any]]:
    """An assistant turn and its results per step (`step-start` separates steps)."""
    out: list[dict[str, Any]] = []
    frame: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []

    def flush() -> None:
        if frame or results:
            calls = any(p.get("type") == "toolCall" for p in frame)
            out.append(assistant(list(frame), "toolUse" if calls else "stop"))
            out.extend(results)
        frame.clear()
        results.clear()

    for part in parts:
        kind = part["type"]
        if kind == "step-start":
            flush()
        elif kind == "text" and isinstance(part.get("text"), str):
            frame.append(text_part(part["text"]))
        elif kind == "reasoning" and isinstance(part.get("text"), str):
            frame.append({"type": "thinking", "thinking": part["text"]})
        elif _tool_part(part) and not part.get("providerExecuted"):
            call, result = _call(part)
            frame.append(call)
            if result is not None:
                results.append(result)
        else:
            frame.append(opaque_part(NAME, part))  # files, sources, data parts, provider-run tools
    flush()
    return out or [assistant([], "stop")]


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages per UI message (an assistant message gives a turn and its results per step)."""
    segments = []
    for index, entry in enumerate(entries):
        if not fits(entry):
            raise EntryError(f"expected a UI message with a role and typed 'parts', got {describe(entry)}", index)
        parts = entry["parts"]
        try:
            if not parts:
                raise EntryError("a UI message holds no parts")
            if entry["role"] == "assistant":
                messages = _assistant(parts)
            else:
                messages = [{"role": entry["role"], "content": _texts(parts)}]
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, messages))
    return segments


SPECS = (here(__name__, suffixes=(".json",)),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
