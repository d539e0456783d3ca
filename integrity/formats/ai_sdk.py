"""Vercel AI SDK model messages (`ModelMessage[]`: `response.messages`, saved chats, agent histories).

vercel/ai `packages/provider-utils/src/types` (model-message.ts, content-part.ts): messages
`{role, content}` with role system / user / assistant / tool.  Assistant content is a
string or parts: `text`, `reasoning`, `file`, `tool-call` (`toolCallId`, `toolName`,
`input`; `args` before AI SDK 5) and, for a tool the provider ran itself
(`providerExecuted: true`, web search and the like), its `tool-result` inside the same
message.  A `tool` message holds `tool-result` parts (`toolCallId`, `toolName`,
`output` typed text / json / error-text / error-json / content, or `result` and
`isError` before AI SDK 5), each the result of one call.  They look like OpenAI Chat
messages (a `tool` role) but are not: read as Chat, their calls vanished and their
results named no call.  Provider-executed calls are answered inside their own message,
so they are kept as they are, never taken for client calls.  Read-only: a repaired
view is written as OpenAI Chat.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Segment
from .common import (
    EntryError,
    assistant,
    describe,
    opaque_part,
    parse_arguments,
    text_part,
    tool_call,
    tool_result,
)
from .read_only import body, build, groups  # noqa: F401 - the adapter protocol
from .spec import here

NAME = "ai-sdk"
READ_ONLY = True
WRITES_AS = "openai-chat"
_ROLES = ("system", "user", "assistant", "tool")
_OWN = ("tool-call", "tool-result")


def _own_part(part: Any) -> bool:
    return type(part) is dict and part.get("type") in _OWN and "toolCallId" in part


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A `tool-call` or `tool-result` part with a `toolCallId` (no other format writes one)."""
    return any(type(e) is dict and type(e.get("content")) is list and any(_own_part(p) for p in e["content"])
               for e in entries)


def fits(entry: Any) -> bool:
    """A model message: a known role, string content or typed parts."""
    if not isinstance(entry, dict) or entry.get("role") not in _ROLES or "type" in entry:
        return False
    content = entry.get("content")
    return isinstance(content, str) or (isinstance(content, list) and all(
        isinstance(p, dict) and isinstance(p.get("type"), str) for p in content))


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(p["text"] for p in content
                     if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _output(part: dict[str, Any]) -> tuple[str, bool]:
    """A tool-result part's text and whether it is an error (AI SDK 5's typed `output`, or 4's `result`)."""
    output = part.get("output")
    if isinstance(output, dict) and isinstance(output.get("type"), str):
        kind, value = output["type"], output.get("value")
        if kind == "content" and isinstance(value, list):
            return "\n".join(v["text"] for v in value if isinstance(v, dict) and isinstance(v.get("text"), str)), False
        return _as_text(value), kind.startswith("error")
    return _as_text(part.get("result", output)), part.get("isError") is True


def _assistant(content: Any) -> dict[str, Any]:
    if isinstance(content, str):
        return assistant([text_part(content)] if content else [], "stop")
    parts: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            parts.append(text_part(part["text"]))
        elif kind == "reasoning" and isinstance(part.get("text"), str):
            parts.append({"type": "thinking", "thinking": part["text"]})
        elif kind == "tool-call" and not part.get("providerExecuted"):
            call_id, name = part.get("toolCallId"), part.get("toolName")
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise EntryError("a tool-call part needs a string 'toolCallId' and 'toolName'")
            parts.append(tool_call(call_id, name, parse_arguments(part.get("input", part.get("args")))))
        else:
            parts.append(opaque_part(NAME, part))  # files, provider-run tools and their results
    calls = any(p.get("type") == "toolCall" for p in parts)
    return assistant(parts, "toolUse" if calls else "stop")


def _results(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, list) or not content:
        raise EntryError(f"a tool message's 'content' must be a non-empty array of tool-result parts, got "
                         f"{describe(content) if not isinstance(content, list) else 'an empty array'}")
    out = []
    for part in content:
        if part.get("type") != "tool-result":
            continue  # an approval response: the decision, not the tool's result
        call_id = part.get("toolCallId")
        if not isinstance(call_id, str):
            raise EntryError(f"a tool-result part's 'toolCallId' must be a string, got {describe(call_id)}")
        text, failed = _output(part)
        out.append(tool_result(call_id, part.get("toolName"), [text_part(text)] if text else [], failed))
    if not out:
        raise EntryError("a tool message holds no tool-result part")
    return out


def _messages(message: dict[str, Any]) -> list[dict[str, Any]]:
    role, content = message["role"], message.get("content")
    if role == "system":
        return [{"role": "system", "content": _texts(content)}]
    if role == "user":
        return [{"role": "user", "content": _texts(content)}]
    if role == "assistant":
        return [_assistant(content)]
    return _results(content)


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages per model message (a tool message gives one result per tool-result part)."""
    segments = []
    for index, entry in enumerate(entries):
        if not fits(entry):
            raise EntryError(f"expected a model message with a role and string or part content, got "
                             f"{describe(entry)}", index)
        try:
            messages = _messages(entry)
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, messages))
    return segments


SPECS = (here(__name__, suffixes=(".json",)),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
