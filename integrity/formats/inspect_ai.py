"""Inspect AI messages (UKGovernmentBEIS/inspect_ai, model/_chat_message.py, tool/_tool_call.py).

An Inspect message list is Chat-like with Inspect's own fields: every message may
have `id`, `source` and `metadata`; an assistant's `tool_calls` are
`{id, function, arguments, parse_error?, view?, type}` with `function` the tool's
name (a string) and `arguments` an object; a tool message carries `tool_call_id`,
`function` and `error` (`{type, message}` or null: an error sets isError).  Content
is a string or a list of typed parts (`text`, `reasoning`, `image`, ...).

The messages of an eval log (`samples[].messages` of a .json log, or
`samples/<id>_epoch_<n>.json` inside a .eval zip) are read with this adapter, one
transcript per sample (see formats.parts).  A message list is written back as it was
read; a log itself is not rewritten (a sample's view is written as its message list).
"""

from __future__ import annotations

from typing import Any

from .base import BuildContext, Segment, per_entry
from .common import (
    NATIVE,
    OPAQUE,
    EntryError,
    NameBook,
    assistant,
    describe,
    is_from,
    native_of,
    opaque_message,
    opaque_part,
    require_object,
    text_part,
    tool_result,
)
from .spec import here

NAME = "inspect"
REFINES = "openai-chat"
_ROLES = ("system", "user", "assistant", "tool")
_PART_TYPES = ("text", "reasoning", "image", "audio", "video", "document", "data", "tool_use")


def _is_inspect_call(call: Any) -> bool:
    return isinstance(call, dict) and isinstance(call.get("function"), str)


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """Tool calls whose `function` is a name, or tool messages with `function` / `error`."""
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        calls = entry.get("tool_calls")
        if entry.get("role") == "assistant" and isinstance(calls, list) and calls and all(map(_is_inspect_call, calls)):
            return True
        if entry.get("role") == "tool" and ("function" in entry or "error" in entry):
            return True
    return False


def fits(entry: Any) -> bool:
    """A message with an Inspect role and string or part-list content."""
    if not isinstance(entry, dict) or entry.get("role") not in _ROLES or "type" in entry:
        return False
    content = entry.get("content")
    return isinstance(content, str) or (isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") in _PART_TYPES for p in content))


def _parts(content: Any) -> tuple[list[dict[str, Any]], str]:
    if isinstance(content, str):
        return ([text_part(content)] if content else []), "string"
    if not isinstance(content, list):
        raise EntryError(f"'content' must be a string or an array, got {describe(content)}")
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            part = text_part(block["text"])
            if len(block) > 2:
                part[NATIVE] = {"block": block}
            parts.append(part)
        elif isinstance(block, dict) and block.get("type") == "reasoning" and isinstance(block.get("reasoning"), str):
            parts.append({"type": "thinking", "thinking": block["reasoning"], NATIVE: {"block": block}})
        else:
            parts.append(opaque_part(NAME, block))
    return parts, "list"


def _call(raw: Any) -> dict[str, Any]:
    raw = require_object(raw, "tool call")
    call_id = raw.get("id")
    if not isinstance(call_id, (str, int)) or isinstance(call_id, bool):
        raise EntryError(f"a tool call's 'id' must be a string, got {describe(call_id)}")
    name = raw.get("function")
    if not isinstance(name, str):
        raise EntryError(f"a tool call's 'function' must be the tool's name (a string), got {describe(name)}")
    arguments = raw.get("arguments", {})
    return {"type": "toolCall", "id": str(call_id), "name": name,
            "arguments": arguments if arguments is not None else {}, NATIVE: {"call": raw}}


def _read_one(entry: dict[str, Any], book: NameBook) -> dict[str, Any]:
    role = entry.get("role")
    if role not in _ROLES:
        if not isinstance(role, str):
            raise EntryError("the message has no 'role'" if role is None
                             else f"'role' must be a string, got {describe(role)}")
        return opaque_message(NAME, entry)
    parts, shape = _parts(entry.get("content", ""))
    hints: dict[str, Any] = {"format": NAME, "content": shape}
    if role == "assistant":
        raw_calls = entry.get("tool_calls")
        if raw_calls is not None and not isinstance(raw_calls, list):
            raise EntryError(f"'tool_calls' must be an array, got {describe(raw_calls)}")
        parts.extend(_call(raw) for raw in raw_calls or [])
        book.add_calls(parts)
        message = assistant(parts)
        hints["extra"] = {k: v for k, v in entry.items() if k not in ("role", "content", "tool_calls")}
        hints["calls"] = raw_calls is not None
    elif role == "tool":
        call_id = entry.get("tool_call_id")
        has_id = call_id is not None
        if isinstance(call_id, int) and not isinstance(call_id, bool):
            call_id = str(call_id)
        name = entry.get("function")
        sent = _error_sent(entry.get("error"), parts)
        if sent is not None:  # the model is sent the error's text in place of the content
            hints["sent"], hints["recorded"] = sent, entry.get("content", "")
            parts = [{"type": "text", "text": sent}]
        message = tool_result(call_id, name if isinstance(name, str) else book.name(call_id), parts,
                              entry.get("error") is not None, has_id)
        hints["extra"] = {k: v for k, v in entry.items() if k not in ("role", "content")}
    else:
        content = entry.get("content", "")
        message = {"role": role, "content": content if isinstance(content, str) else parts}
        hints["extra"] = {k: v for k, v in entry.items() if k not in ("role", "content")}
    message[NATIVE] = hints
    return message


def _error_sent(error: Any, parts: list[dict[str, Any]]) -> str | None:
    """The text Inspect sends for a tool message with an error, when it is not the content as read (None).

    Inspect's providers send a failed call's error message as its result, not the content (Anthropic's
    `message_param`: the error's message, else the message's text, else "error", since Anthropic refuses an
    error result with empty content; OpenAI's likewise sends the error).  Read so, a tool error recorded with
    an empty content (its message in `error`) is judged as the request Inspect sends, not as an empty error
    result."""
    if not isinstance(error, dict):
        return None
    message = error.get("message")
    if isinstance(message, str) and message:
        sent = message
    else:
        sent = "\n".join(part["text"] for part in parts if part.get("type") == "text") or "error"
    return None if parts == [{"type": "text", "text": sent}] else sent


def read(entries: list[Any]) -> list[Segment]:
    """One canonical message per Inspect message; tool names of results come from `function`."""
    book = NameBook()
    return per_entry(entries, lambda entry: [_read_one(require_object(entry), book)])


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """One Inspect message per canonical message."""
    return [[i] for i, m in enumerate(messages) if not (m.get("role") == OPAQUE and m.get("format") != NAME)]


def _content_out(parts: Any, shape: str, same: bool) -> Any:
    if isinstance(parts, str):
        return parts
    out: list[Any] = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        hints = part.get(NATIVE) if same and isinstance(part.get(NATIVE), dict) else {}
        block = hints.get("block") if isinstance(hints, dict) else None
        if part.get("type") == "text":
            out.append({**block, "text": part["text"]} if isinstance(block, dict) else text_part(part["text"]))
        elif part.get("type") == "thinking":
            out.append({**block, "reasoning": part.get("thinking", "")} if isinstance(block, dict)
                       else {"type": "reasoning", "reasoning": part.get("thinking", "")})
        elif part.get("type") == OPAQUE and part.get("format") == NAME:
            out.append(part["value"])
    if shape != "list" and all(p.get("type") == "text" and len(p) == 2 for p in out):
        return "\n".join(p["text"] for p in out)
    return out


def _call_out(part: dict[str, Any], same: bool) -> dict[str, Any]:
    native = part.get(NATIVE) if same else None
    original = native.get("call") if isinstance(native, dict) else None
    if isinstance(original, dict):
        call = dict(original)
        if str(original.get("id")) != part.get("id"):
            call["id"] = part.get("id")
        call["function"] = part.get("name")
        call["arguments"] = part.get("arguments", {})
        return call
    return {"id": part.get("id"), "function": part.get("name"), "arguments": part.get("arguments", {}),
            "type": "function"}


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """The Inspect message for one canonical message (its own fields kept when it was read from Inspect)."""
    message = messages[0]
    role = message.get("role")
    if role == OPAQUE:
        return [message["value"]]
    same = is_from(message, NAME)
    hints = native_of(message) if same else {}
    extra = dict(hints.get("extra", {}))
    shape = hints.get("content", "string")
    if role == "assistant":
        content = [p for p in message.get("content") or [] if isinstance(p, dict)]
        calls = [p for p in content if p.get("type") == "toolCall"]
        out: dict[str, Any] = {"role": "assistant",
                               "content": _content_out([p for p in content if p.get("type") != "toolCall"],
                                                       shape, same)}
        if calls or hints.get("calls"):
            out["tool_calls"] = [_call_out(p, same) for p in calls]
        return [{**extra, **out}]
    if role == "toolResult":
        out = _tool_out(message, extra, shape, same)
        if "sent" in hints and message.get("content") == [{"type": "text", "text": hints["sent"]}]:
            out["content"] = hints["recorded"]  # (read as the error's text: the file's own content written back)
        return [out]
    text = message.get("content")
    turn = {"role": "system" if role in ("system", "developer") else "user",
            "content": text if isinstance(text, str) else _content_out(text, "list", same)}
    return [{**extra, **turn}]


def _tool_out(message: dict[str, Any], extra: dict[str, Any], shape: str, same: bool) -> dict[str, Any]:
    """A tool message; an error object is kept while the result is still an error."""
    call_id: Any = message.get("toolCallId")
    given = extra.get("tool_call_id")
    if isinstance(given, int) and not isinstance(given, bool) and str(given) == call_id:
        call_id = given  # an id read as a number is written as one
    out: dict[str, Any] = {"role": "tool", "content": _content_out(message.get("content"), shape, same),
                           "tool_call_id": call_id}
    out["function"] = extra["function"] if "function" in extra else (message.get("toolName") or None)
    if message.get("isError") is True:
        error = extra.get("error")
        out["error"] = error if error is not None else {
            "type": "unknown", "message": out["content"] if isinstance(out["content"], str) else ""}
    elif "error" in extra or not same:
        out["error"] = None
    return {**extra, **out}


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """A bare message list (system messages stay in it, as Inspect keeps them)."""
    return native


SPECS = (here(__name__, suffixes=(".json", ".eval")),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
