"""LangChain messages, as `messages_to_dict` or `dumpd` serialize them.

messages_to_dict writes {"type": "ai", "data": {...fields}}; dumpd (LangGraph
checkpoints, LangSmith runs) writes {"lc": 1, "type": "constructor", "id": [...,
"AIMessage"], "kwargs": {...fields}}.  Either way the fields are the message's:
`content` (string or blocks), AIMessage `tool_calls` [{name, args, id, type}] and
`invalid_tool_calls` [{name, args (the text as received), id, error, type}],
ToolMessage `tool_call_id` and `status`.  Calls come from `tool_calls` and
`invalid_tool_calls`, each counted once, in the order the partner models send them:
a content block naming a call (ChatAnthropic's tool_use, a v1 tool_call, a Responses
function_call) is that call, in its place; the calls no block names follow the
content.  ChatAnthropic's `_format_messages` sends the content blocks in their order
(a tool_use naming a call replaced by the call) and then the calls missing from them;
ChatOpenAI's Responses input does the same with function_call items.  A block naming
no call stays opaque.

An invalid call is a call LangChain could not parse (arguments cut off by max_tokens,
or not JSON).  It is still a call: ChatOpenAI sends it as a tool_call (its text as
the arguments), ChatAnthropic as a tool_use block ({} as the input), and create_agent
answers it with an error ToolMessage.  It is read after the parsed calls (where both
partner models put it on the wire) with its text kept as NATIVE["arguments"], as the
readers of JSON-text arguments keep it, so the engine sees unparseable arguments.  It
is written back as the invalid call it was: only its id changes when the repair
renames it, and its args become "{}" where the strict view sends {} for text that is
no JSON object (a call it must answer; the report keeps the text: docs/glossary.md,
"invalid arguments").  One without an id is read with id "": the repair names it, as
it names a parsed call without one (LangChain cannot answer it; ChatOpenAI would send
it with a null id).  One without a name is no call anyone can answer (ChatAnthropic
does not send it; OpenAI refuses a null name): it stays as recorded, uncounted.

The original fields are kept in NATIVE["fields"] and rebuilt from, so a message
written back differs only where the canonical message changed: a renamed call id is
also renamed in every block that names the call (Anthropic `tool_use`, v1
`tool_call`, Responses `function_call` `call_id`, a chunk's `tool_call_chunks`),
since the partner models send those blocks.  A call read from a block is written back
as that block where the canonical message has it: a frame the strict view sends with
its calls last is written with its call blocks after its other blocks (every block kept,
thinking signatures and all), which is what the partner model then sends.  A chunk is
written back with its class name as its type ("AIMessageChunk"), as messages_to_dict
writes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..repair.views import part_after_call
from .base import BuildContext, Segment, per_entry
from .common import (
    NATIVE,
    OPAQUE,
    EntryError,
    arguments_text,
    assistant,
    describe,
    is_from,
    native_of,
    opaque_message,
    opaque_part,
    parse_arguments,
    require_object,
    text_part,
    tool_result,
)
from .spec import here

NAME = "langchain"
_CLASSES = {"human": "HumanMessage", "ai": "AIMessage", "tool": "ToolMessage", "system": "SystemMessage",
            "chat": "ChatMessage", "function": "FunctionMessage"}
_TYPES = {cls: kind for kind, cls in _CLASSES.items()}
_TYPES.update({cls + "Chunk": kind for kind, cls in _CLASSES.items()})
# A canonical role (any JSON value) to the LangChain message type written for it.
_KINDS: dict[Any, str] = {"assistant": "ai", "toolResult": "tool", "user": "human", "system": "system",
                          "developer": "system"}


def _split(entry: Any) -> tuple[str, dict[str, Any]] | None:
    """(message type, fields) of either serialization, or None when it is neither."""
    if not isinstance(entry, dict):
        return None
    if entry.get("lc") == 1 and entry.get("type") == "constructor" and isinstance(entry.get("kwargs"), dict):
        ident = entry.get("id")
        cls = ident[-1] if isinstance(ident, list) and ident and isinstance(ident[-1], str) else ""
        kind = _TYPES.get(cls) or entry["kwargs"].get("type")
        return (kind, entry["kwargs"]) if isinstance(kind, str) else None
    if isinstance(entry.get("type"), str) and isinstance(entry.get("data"), dict) and "role" not in entry:
        # messages_to_dict writes a chunk's class name as its type ("AIMessageChunk", as streaming leaves it)
        named: str = entry["type"]
        return _TYPES.get(named, named), entry["data"]
    kind = flat_kind(entry)
    return (kind, entry) if kind is not None else None


def flat_kind(entry: dict[str, Any]) -> str | None:
    """The message type of a flat message dict (LangGraph's API and SDK: the fields with `type`), else None.

    Claude Code's `system` lines also have a type and content; they carry a uuid or a
    subtype, which a LangChain message never has.
    """
    kind = entry.get("type")
    if not isinstance(kind, str) or "content" not in entry or "data" in entry or "role" in entry \
            or any(key in entry for key in ("uuid", "subtype", "message", "payload", "lc")):
        return None
    return kind if kind in _CLASSES else _TYPES.get(kind)


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """Any entry in either LangChain serialization."""
    return any(_split(e) is not None for e in entries)


def fits(entry: Any) -> bool:
    """The entry is a LangChain serialized message."""
    return _split(entry) is not None


def dialect_of(entries: list[Any]) -> str:
    """'dumpd' (lc constructor envelopes), 'flat' (LangGraph API message dicts) or 'messages_to_dict'."""
    if any(isinstance(e, dict) and "lc" in e for e in entries):
        return "dumpd"
    if any(isinstance(e, dict) and "data" not in e and flat_kind(e) is not None for e in entries):
        return "flat"
    return "messages_to_dict"


# Content blocks that name a call the message's tool calls also hold, by the key naming it: the partner
# models send these blocks (ChatAnthropic tool_use, the v1 standard blocks, ChatOpenAI's Responses items).
_NAMING = {"tool_use": "id", "tool_call": "id", "tool_call_chunk": "id", "invalid_tool_call": "id",
           "function_call": "call_id", "custom_tool_call": "call_id"}


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [text_part(content)] if content else []
    if not isinstance(content, list):
        raise EntryError(f"'content' must be a string or an array, got {describe(content)}")
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(text_part(block))
        elif isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str) \
                and len(block) == 2:
            parts.append(text_part(block["text"]))
        else:
            parts.append(opaque_part(NAME, block))
    return parts


def _read_one(entry: Any) -> dict[str, Any]:
    split = _split(entry)
    if split is None:
        raise EntryError("expected a LangChain message ({type, data} or {lc, type, id, kwargs})")
    kind, fields = split
    hints: dict[str, Any] = {"format": NAME, "fields": fields, "kind": kind}
    if "lc" in entry:
        hints["envelope"] = {k: v for k, v in entry.items() if k != "kwargs"}
    elif fields is entry:
        hints["flat"] = True
    elif entry.get("type") != kind:
        hints["named"] = entry.get("type")  # a chunk: messages_to_dict wrote its class name
    if kind == "ai":
        parts = _parts(fields.get("content", ""))
        listed: list[dict[str, Any]] = []
        calls = fields.get("tool_calls") or []
        if not isinstance(calls, list):
            raise EntryError(f"'tool_calls' must be an array, got {describe(calls)}")
        for call in calls:
            call = require_object(call, "tool call")
            name = call.get("name")
            if not isinstance(name, str):
                raise EntryError(f"a tool call's 'name' must be a string, got {describe(name)}")
            call_id = call.get("id")
            listed.append({"type": "toolCall", "id": call_id if isinstance(call_id, str) else "", "name": name,
                           "arguments": call.get("args", {}), NATIVE: {"call": call, "listed": len(listed)}})
        parts = _calls_in_place(fields.get("content"), parts, [*listed, *_invalid_calls(fields)])
        extra = fields.get("additional_kwargs")
        legacy = isinstance(extra, dict) and isinstance(extra.get("function_call"), dict)
        # a legacy OpenAI function call lives in additional_kwargs: the turn completed (read as empty, it
        # would be taken for an interrupted frame and dropped, its `function` result left behind)
        message = assistant(parts, "stop" if legacy else None)
        if part_after_call(parts):
            hints["in_order"] = True  # (see _calls_in_place)
    elif kind == "tool":
        message = tool_result(fields.get("tool_call_id"), fields.get("name"), _parts(fields.get("content", "")),
                              fields.get("status") == "error", "tool_call_id" in fields)
    elif kind == "human":
        content = fields.get("content", "")
        message = {"role": "user", "content": content if isinstance(content, str) else _parts(content)}
    elif kind == "system":
        content = fields.get("content", "")
        message = {"role": "system", "content": content if isinstance(content, str) else _parts(content)}
    else:
        return opaque_message(NAME, entry)
    message[NATIVE] = hints
    return message


def _calls_in_place(content: Any, parts: list[dict[str, Any]], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The message's parts with its calls where the partner models send them: a content block naming one of
    the calls (`_NAMING`: ChatAnthropic's tool_use, a v1 tool_call, a Responses function_call) is that call,
    in its place (kept in the call's NATIVE["block"], which the writer puts back there); the calls no block
    names follow the content, parsed ones first (ChatAnthropic's _format_messages and ChatOpenAI's Responses
    input send them so).  So a turn recorded [tool_use, text] reads as the call before its text, as Anthropic
    receives it (and refuses: providers.anthropic, tool_use_not_last); such a message's hints say
    "in_order" (its runtime sends its parts in their order: the Anthropic writer of another format's message
    otherwise puts its calls last, and would judge it accepted).  `parts` are _parts(content): one part per
    block of a list."""
    if not isinstance(content, list) or not calls:
        return parts + calls
    waiting: dict[str, list[dict[str, Any]]] = {}
    for call in calls:
        if call["id"]:
            waiting.setdefault(call["id"], []).append(call)
    out: list[dict[str, Any]] = []
    placed: set[int] = set()
    for block, part in zip(content, parts, strict=True):
        key = _NAMING.get(str(block.get("type"))) if isinstance(block, dict) else None
        named = block.get(key) if key is not None else None
        queue = waiting.get(named) if isinstance(named, str) else None
        if queue:
            call = queue.pop(0)
            call[NATIVE]["block"] = block
            placed.add(id(call))
            part = call
        out.append(part)
    out.extend(call for call in calls if id(call) not in placed)
    return out


def _invalid_calls(fields: dict[str, Any]) -> list[dict[str, Any]]:
    """The toolCall parts of an AIMessage's `invalid_tool_calls` (see the module docstring): arguments
    parsed where the text is JSON, else {} with the text in NATIVE["arguments"]; NATIVE["invalid"] is the
    call's place in the list, where the writer puts it back.  Entries that are no call (not an object, no
    name) are left out: the writer keeps them where they are."""
    listed = fields.get("invalid_tool_calls")
    parts = []
    for position, call in enumerate(listed if isinstance(listed, list) else []):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
            continue
        call_id, raw = call.get("id"), call.get("args")
        parts.append({"type": "toolCall", "id": call_id if isinstance(call_id, str) else "", "name": call["name"],
                      "arguments": parse_arguments(raw) if isinstance(raw, str) else {},
                      NATIVE: {"call": call, "invalid": position, "arguments": raw}})
    return parts


def read(entries: list[Any]) -> list[Segment]:
    """One canonical message per serialized message."""
    return per_entry(entries, lambda entry: [_read_one(entry)])


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """One serialized message per canonical message."""
    return [[i] for i, m in enumerate(messages) if not (m.get("role") == OPAQUE and m.get("format") != NAME)]


def _content_out(parts: Any, original: Any) -> Any:
    if isinstance(parts, str):
        return parts
    parts = [p for p in parts or [] if isinstance(p, dict) and p.get("type") in ("text", OPAQUE)]
    only_text = all(p.get("type") == "text" for p in parts)
    if only_text and not isinstance(original, list) and len(parts) <= 1:
        return parts[0]["text"] if parts else ""
    out = []
    for part in parts:
        if part.get("type") == "text":
            out.append({"type": "text", "text": part["text"]})
        elif part.get("format") == NAME:
            out.append(part["value"])
    return out


def _defaults(kind: str) -> dict[str, Any]:
    fields: dict[str, Any] = {"content": "", "additional_kwargs": {}, "response_metadata": {}, "type": kind,
                              "name": None, "id": None}
    if kind in ("human", "ai"):
        fields["example"] = False
    if kind == "ai":
        fields.update(tool_calls=[], invalid_tool_calls=[], usage_metadata=None)
    if kind == "tool":
        fields.update(tool_call_id="", artifact=None, status="success")
    return fields


def _ai_fields(fields: dict[str, Any], parts: list[dict[str, Any]], same: bool) -> None:
    """An AIMessage's content, tool_calls and invalid_tool_calls from its canonical parts (in `fields`, a
    copy of the recorded ones); a call id the repair changed is changed wherever the message names it."""
    blocks = [_block_of(p, same) if p.get("type") == "toolCall" else p for p in parts]
    fields["content"] = _content_out([block for block in blocks if block is not None], fields.get("content"))
    calls: list[tuple[int, dict[str, Any]]] = []  # (where the recorded tool_calls had it, the call)
    invalid: dict[int, dict[str, Any]] = {}
    ids: list[tuple[Any, Any]] = []  # (recorded id, id written) of every call, in order
    for part in parts:
        if part.get("type") != "toolCall":
            continue
        hint = part.get(NATIVE)
        native: dict[str, Any] = hint if same and isinstance(hint, dict) else {}
        call_hint = native.get("call")
        new_id = part.get("id")
        if isinstance(call_hint, dict) and isinstance(native.get("invalid"), int):
            call = dict(call_hint)  # as recorded: its error and arguments text stay (see the module docstring)
            if new_id and new_id != call.get("id"):
                call["id"] = new_id
            if isinstance(call.get("args"), str):  # "{}" where the strict view sent {} for unparseable text
                call["args"] = arguments_text(part, True)
            invalid[native["invalid"]] = call
            ids.append((call_hint.get("id"), call.get("id")))
            continue
        call = dict(call_hint) if isinstance(call_hint, dict) else {"type": "tool_call"}
        call.update(name=part.get("name"), args=part.get("arguments", {}))
        if new_id or "id" in call or not isinstance(call_hint, dict):
            call["id"] = new_id or (call_hint or {}).get("id")
        listed = native.get("listed")
        calls.append((listed if isinstance(listed, int) else len(parts) + len(calls), call))
        if isinstance(call_hint, dict):
            ids.append((call_hint.get("id"), call.get("id")))
    if calls or "tool_calls" in fields:  # in their recorded order (the content holds the order they are sent in)
        fields["tool_calls"] = [call for _, call in sorted(calls, key=lambda placed: placed[0])]
    recorded = fields.get("invalid_tool_calls")
    if isinstance(recorded, list) and same:
        read = {part[NATIVE]["invalid"] for part in _invalid_calls(fields)}
        # a call the repair dropped is left out; what was never read as a call stays where it was
        fields["invalid_tool_calls"] = [invalid[at] if at in invalid else entry
                                        for at, entry in enumerate(recorded) if at in invalid or at not in read]
    if any(old != new for old, new in ids):
        _rename_blocks(fields, ids)


def _block_of(part: dict[str, Any], same: bool) -> dict[str, Any] | None:
    """The content block a call was read from (`_calls_in_place`), as an opaque part written where the call
    is (a frame the view sends calls last is so written calls last), or None (a call no block named)."""
    hint = part.get(NATIVE)
    block = hint.get("block") if same and isinstance(hint, dict) else None
    return opaque_part(NAME, block) if block is not None else None


def _rename_blocks(fields: dict[str, Any], ids: list[tuple[Any, Any]]) -> None:
    """Carry renamed call ids into the blocks naming the calls: content blocks, a chunk's tool_call_chunks
    and raw OpenAI tool_calls in additional_kwargs.  A recorded id names the calls that had it in order
    (two calls of one message may share one), so each block naming it takes the next call's new id (the
    last one when the blocks outnumber the calls).  Blocks are copied, never changed in place."""

    def renamed(blocks: Any, key_of: Callable[[dict[str, Any]], str | None]) -> Any:
        if not isinstance(blocks, list):
            return blocks
        queues: dict[Any, list[Any]] = {}
        for old, new in ids:
            if isinstance(old, (str, type(None))):
                queues.setdefault(old, []).append(new)
        out = []
        for block in blocks:
            key = key_of(block) if isinstance(block, dict) else None
            queue = queues.get(block.get(key)) if key is not None and key in block else None
            if queue:
                new = queue.pop(0) if len(queue) > 1 else queue[0]
                block = {**block, key: new} if new != block[key] else block
            out.append(block)
        return out

    fields["content"] = renamed(fields.get("content"), lambda block: _NAMING.get(str(block.get("type"))))
    if isinstance(fields.get("tool_call_chunks"), list):
        fields["tool_call_chunks"] = renamed(fields["tool_call_chunks"], lambda block: "id")
    extra = fields.get("additional_kwargs")
    if isinstance(extra, dict) and isinstance(extra.get("tool_calls"), list):
        fields["additional_kwargs"] = {**extra, "tool_calls": renamed(extra["tool_calls"], lambda block: "id")}


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """The serialized message (in the transcript's dialect; messages_to_dict by default)."""
    message = messages[0]
    role = message.get("role")
    if role == OPAQUE:
        return [message["value"]]
    same = is_from(message, NAME)
    hints = native_of(message) if same else {}
    kind = _KINDS.get(role, "human")
    dumpd = context.dialect == "dumpd"
    original = hints.get("fields")
    fields: dict[str, Any] = (dict(original) if isinstance(original, dict)
                              else ({"type": kind} if dumpd else _defaults(kind)))
    content = message.get("content")
    if kind == "ai":
        _ai_fields(fields, [p for p in content or [] if isinstance(p, dict)], same)
    elif kind == "tool":
        fields["content"] = _content_out(content, fields.get("content"))
        if "toolCallId" in message:
            fields["tool_call_id"] = message["toolCallId"]
        if message.get("isError") is True:
            fields["status"] = "error"
        elif fields.get("status") == "error":
            fields["status"] = "success"
        if not same and message.get("toolName"):
            fields["name"] = message["toolName"]
    else:
        fields["content"] = content if isinstance(content, str) else _content_out(content, fields.get("content"))
    if same and isinstance(hints.get("envelope"), dict):
        return [{**hints["envelope"], "kwargs": fields}]
    if (same and hints.get("flat")) or (not same and context.dialect == "flat"):
        return [fields]
    if same:
        return [{"type": hints.get("named") or hints.get("kind", kind), "data": fields}]
    if dumpd:
        return [{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", _CLASSES[kind]],
                 "kwargs": fields}]
    return [{"type": kind, "data": fields}]


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """A bare list, as messages_to_dict returns it."""
    return native


SPECS = (here(__name__),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
