"""goose sessions (the agent of aaif-goose/goose, formerly block/goose): its messages, as its session files hold them.

A goose `Message` (crates/goose/src/conversation/message.rs) is `{id, role, created, content, metadata}`: role user
or assistant, `metadata` saying whether the message is `agentVisible` (sent to the model) and `userVisible`, and
`content` a list of typed items: `text`, `image` (`data`, `mimeType`), `thinking` (`thinking`, `signature`),
`redactedThinking`, `toolRequest` (`id`, `toolCall`: `{"status": "success", "value": {name, arguments}}` or
`{"status": "error", "error"}`) in an assistant message, `toolResponse` (`id`, `toolResult`: a success holding an
MCP CallToolResult `{content, isError}`, or before goose 1.9 the content list itself, or an error) in a user message,
and items goose shows but never sends (`toolConfirmationRequest`, `actionRequired`, `frontendToolRequest`,
`systemNotification`).  A session file (`~/.local/share/goose/sessions/<id>.jsonl` before goose moved its sessions
to SQLite) is one message per line after a first line of session metadata (`working_dir`, `description`,
`message_count`, token counts), which goose skips, as it skips a line it cannot read (session/legacy.rs); a
`goose session export --format json` is the Session, its messages under `conversation`; goose's session database
is read as such an export (integrity.guards.store_goose).

Each message is read as the Anthropic message goose's Anthropic formatter sends for it: a tool request as a
`tool_use`, a tool response as a `tool_result` (an error as an error result of its text), an image as a base64
image block, thinking with its signature.  A message the agent does not see (`agentVisible` false: the messages a
compaction replaced, kept for the user) and the metadata line are no messages: kept, never judged.  The request
judged is the one goose sends after its own pass over the session (goose_requests).

A repaired view is written back as goose messages, in the file's own shape (a session file's lines, an export's
Session with its `conversation` replaced, which `goose session import` takes): a message the view sends unchanged is
the one read, byte for byte; a rebuilt one is made of the items it was read from (a moved response is its
toolResponse as recorded) and keeps its message's id, time and visibility; the interrupted receipt is an error
response, which goose sends as an error result; the metadata line and the messages the agent does not see stay in
their places; and the messages are dated in the order they are written, as goose's database reads them back by time.
"""

from __future__ import annotations

import json
from typing import Any

from . import anthropic
from .base import BuildContext
from .common import EntryError, describe
from .goose_requests import SENDS_AS, sent_messages
from .spec import FormatSpec
from .wrapped import Wrapped

NAME = "goose"
_TOOL_ITEMS = {"toolRequest": "toolCall", "toolResponse": "toolResult"}
_NOT_SENT = frozenset(("toolConfirmationRequest", "actionRequired", "frontendToolRequest", "systemNotification"))
"""Items goose shows the user and never sends the model (its fix_conversation removes the ones that could reach a
request, its formatters write none)."""
_METADATA_KEYS = frozenset(("working_dir", "description", "message_count", "total_tokens", "input_tokens",
                            "output_tokens", "accumulated_total_tokens", "schedule_id", "project_id"))


def _is_metadata(entry: Any) -> bool:
    """The first line of a session file: the session's metadata, no message."""
    return type(entry) is dict and "role" not in entry and not _METADATA_KEYS.isdisjoint(entry)


def _own_item(item: Any) -> bool:
    """An item only goose writes: a toolRequest with its toolCall, a toolResponse with its toolResult."""
    if type(item) is not dict:
        return False
    kind = item.get("type")
    return isinstance(kind, str) and kind in _TOOL_ITEMS and _TOOL_ITEMS[kind] in item


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A toolRequest or toolResponse item, or goose's visibility metadata on a message."""
    for entry in entries:
        if type(entry) is not dict:
            continue
        content = entry.get("content")
        if type(content) is list and any(map(_own_item, content)):
            return True
        metadata = entry.get("metadata")
        if type(metadata) is dict and "agentVisible" in metadata and "created" in entry:
            return True
    return False


def fits(entry: Any) -> bool:
    """A goose message (a user or assistant role, a list of typed items) or a session's metadata line."""
    if _is_metadata(entry):
        return True
    if not isinstance(entry, dict) or entry.get("role") not in ("user", "assistant") or "type" in entry:
        return False
    content = entry.get("content")
    return isinstance(content, list) and all(isinstance(i, dict) and isinstance(i.get("type"), str) for i in content)


def _outcome(item: dict[str, Any], field: str) -> dict[str, Any]:
    found = item.get(field)
    if not isinstance(found, dict) or found.get("status") not in ("success", "error"):
        raise EntryError(f"a {item['type']} item's '{field}' must be an object whose 'status' is \"success\" or "
                         f"\"error\", got {describe(found)}")
    return found


UNPARSEABLE = "unparseable_tool_call"
"""The name goose's Anthropic formatter sends a tool request it could not parse under (status error: the model's
arguments were no JSON), with no input; goose answers it with an error response.  (Its earlier formatters left such
a request out and sent the response alone, which Anthropic refuses.)"""


def _tool_use(item: dict[str, Any]) -> dict[str, Any]:
    """A toolRequest as the tool_use goose sends (UNPARSEABLE for one it could not parse)."""
    call_id = item.get("id")
    if not isinstance(call_id, str):
        raise EntryError(f"a toolRequest item's 'id' must be a string, got {describe(call_id)}")
    outcome = _outcome(item, "toolCall")
    value = outcome.get("value") if outcome["status"] == "success" else None
    if outcome["status"] == "success" and not (isinstance(value, dict) and isinstance(value.get("name"), str)):
        raise EntryError(f"a toolRequest's toolCall 'value' must name its tool, got {describe(value)}")
    name = value["name"] if isinstance(value, dict) else UNPARSEABLE
    arguments = value.get("arguments") if isinstance(value, dict) else None
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments if arguments is not None else {}}


def _mcp_block(content: Any) -> Any:
    """An MCP content item of a tool's result as the block goose sends: a text, an image, an embedded resource's
    text; another item (audio, a resource link, a blob) as its JSON text."""
    if isinstance(content, dict):
        kind = content.get("type")
        if kind == "text" and isinstance(content.get("text"), str):
            return {"type": "text", "text": content["text"]}
        if kind == "image" and isinstance(content.get("data"), str):
            return _image_block(content["data"], content.get("mimeType", "image/png"))
        resource = content.get("resource") if kind == "resource" else None
        if isinstance(resource, dict) and isinstance(resource.get("text"), str):
            return {"type": "text", "text": resource["text"]}
    return {"type": "text", "text": json.dumps(content, ensure_ascii=False)}


EMPTY_RESULT = "(empty result)"
"""The text goose sends for a tool response with no content (fix_conversation's fix_empty_tool_results)."""


def _image_block(data: Any, media_type: Any) -> dict[str, Any]:
    """The Anthropic base64 image block goose sends for an image item (a message's, or an MCP result's)."""
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def _tool_result(item: dict[str, Any]) -> dict[str, Any]:
    """A toolResponse as the tool_result goose sends: its content (EMPTY_RESULT for none), or its error's text as an
    error result.  A result's own `isError` is not sent (goose's formatters mark only a response stored as an
    error)."""
    call_id = item.get("id")
    if not isinstance(call_id, str):
        raise EntryError(f"a toolResponse item's 'id' must be a string, got {describe(call_id)}")
    outcome = _outcome(item, "toolResult")
    if outcome["status"] == "error":
        error = outcome.get("error")
        return {"type": "tool_result", "tool_use_id": call_id, "is_error": True,
                "content": [{"type": "text", "text": error if isinstance(error, str) else json.dumps(error)}]}
    value = outcome.get("value")
    listed = value.get("content") if isinstance(value, dict) else value  # (before goose 1.9: the list itself)
    if not isinstance(listed, list):
        raise EntryError(f"a toolResponse's toolResult 'value' must hold a content list, got {describe(value)}")
    blocks = [_mcp_block(content) for content in listed]
    return {"type": "tool_result", "tool_use_id": call_id,
            "content": blocks or [{"type": "text", "text": EMPTY_RESULT}]}


def _block(item: dict[str, Any]) -> Any:
    """The Anthropic block goose sends for one item; None for an item it never sends."""
    kind = item.get("type")
    if kind == "text":  # (a blank one is never sent: goose's formatters leave it out)
        text = item.get("text")
        return None if isinstance(text, str) and not text.strip() else {"type": "text", "text": text}
    if kind == "image":
        return _image_block(item.get("data"), item.get("mimeType"))
    if kind == "thinking":  # (sent with its signature alone: an unsigned one, or a migrated `reasoning`, is not)
        signature = item.get("signature")
        return {"type": "thinking", "thinking": item.get("thinking"), "signature": signature} if signature else None
    if kind == "reasoning":  # (goose before 1.14: read back as unsigned thinking, never sent)
        return None
    if kind == "redactedThinking":
        return {"type": "redacted_thinking", "data": item.get("data")}
    if kind == "toolRequest":
        return _tool_use(item)
    if kind == "toolResponse":
        return _tool_result(item)
    if kind in _NOT_SENT:
        return None
    return item  # (an item of a later goose: carried as it is, an opaque block)


def _unwrap(entry: Any) -> Any:
    """The Anthropic message a goose message is sent as; None for the metadata line, a message the agent does not
    see, and one holding nothing goose sends."""
    if _is_metadata(entry):
        return None
    if not isinstance(entry, dict) or entry.get("role") not in ("user", "assistant"):
        raise EntryError(f"expected a goose message (a user or assistant role) or the session's metadata, got "
                         f"{describe(entry)}")
    metadata = entry.get("metadata")
    if isinstance(metadata, dict) and metadata.get("agentVisible") is False:
        return None
    content = entry.get("content")
    if not isinstance(content, list):
        raise EntryError(f"a goose message's 'content' must be a list of items, got {describe(content)}")
    if not all(isinstance(item, dict) for item in content):
        raise EntryError("a goose message's 'content' must be a list of item objects")
    blocks = [block for item in content if (block := _block(item)) is not None]
    if not blocks and all(item.get("type") == "text" for item in content):
        return {"role": entry["role"], "content": []}  # (nothing, or blank texts: an interrupted frame, which
        # goose's own pass leaves out of the request: goose_requests)
    return {"role": entry["role"], "content": blocks} if blocks else None


_VISIBLE = {"userVisible": True, "agentVisible": True}


def _wrap(item: Any, template: Any, context: BuildContext) -> Any:
    """The goose message for an Anthropic message of the view: the message it was read from, as it was, when the
    view sends it unchanged; else one built from its blocks, each the very item it was read from where there is
    one (a moved response keeps its toolResult as recorded), a new one otherwise (the interrupted receipt is an
    error response: goose sends it as an error result).  A rebuilt message keeps the id, time and visibility of
    the message it was read from (the id once: a second message made from it gets none)."""
    if isinstance(template, dict) and _unwrap(template) == item:
        return template
    content = item.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    items = [_item_of(block, template, context) for block in blocks]
    base = template if isinstance(template, dict) and template.get("role") == item.get("role") else None
    used: set[int] = context.state.setdefault("goose_ids", set())
    first = base is not None and id(base) not in used
    if base is not None:
        used.add(id(base))
    written = context.state.get("written") or []
    last = written[-1] if written and isinstance(written[-1], dict) else {}
    created = base.get("created") if base is not None else last.get("created", 0)
    return {"id": base.get("id") if first and base is not None else None, "role": item.get("role"),
            "created": created, "content": items,
            "metadata": base.get("metadata", dict(_VISIBLE)) if base is not None else dict(_VISIBLE)}


def _in_time_order(native: list[Any], context: BuildContext) -> list[Any]:
    """The written messages with their `created` times in the order they are written: goose's database reads a
    session back by time (ORDER BY created_timestamp, id), so a response the view moved before the user's message
    that was saved first would be read back after it again (imported with `goose session import`).  A message
    dated later than the one written after it takes that one's time (a copy: the entry read is never changed);
    a file whose messages were not in time order already is written as it is."""
    times = [entry.get("created") if _is_message(entry) else None for entry in native]
    read = [entry.get("created") for entry in context.state.get("native") or [] if _is_message(entry)]
    if not _ordered(read) or _ordered(times):
        return native
    out = list(native)
    cap: Any = None
    for at in range(len(out) - 1, -1, -1):
        created = times[at]
        if not isinstance(created, (int, float)):
            continue
        if cap is not None and created > cap:
            out[at] = {**out[at], "created": cap}
            created = cap
        cap = created
    return out


def _is_message(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("role") in ("user", "assistant")


def _ordered(times: list[Any]) -> bool:
    known = [time for time in times if isinstance(time, (int, float)) and not isinstance(time, bool)]
    return all(a <= b for a, b in zip(known, known[1:], strict=False))


def _items_read(context: BuildContext) -> dict[tuple[str, Any], list[dict[str, Any]]]:
    """The file's tool items by (type, id), read once per write: where a block of the view was read from."""
    found = context.state.get("goose_items")
    if found is None:
        found = context.state["goose_items"] = {}
        for entry in context.state.get("native") or []:
            content = entry.get("content") if isinstance(entry, dict) else None
            for item in content if isinstance(content, list) else []:
                if isinstance(item, dict) and item.get("type") in _TOOL_ITEMS:
                    found.setdefault((item["type"], item.get("id")), []).append(item)
    return found


def _item_of(block: Any, template: Any, context: BuildContext) -> Any:
    """The goose item for one Anthropic block of the view: the item it was read from when there is one."""
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    if kind in ("tool_use", "tool_result"):
        key = ("toolRequest", block.get("id")) if kind == "tool_use" else ("toolResponse", block.get("tool_use_id"))
        for read in _items_read(context).get(key, []):
            if _block(read) == block:
                return read
    elif isinstance(template, dict) and isinstance(template.get("content"), list):
        for read in template["content"]:
            if isinstance(read, dict) and read.get("type") not in _TOOL_ITEMS and _block(read) == block:
                return read
    return _new_item(block)


def _new_item(block: dict[str, Any]) -> Any:
    """A goose item for a block no item of the file was read as (the view made it)."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block.get("text", "")}
    if kind == "image" and isinstance(block.get("source"), dict):
        return {"type": "image", "data": block["source"].get("data"), "mimeType": block["source"].get("media_type")}
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.get("thinking", ""), "signature": block.get("signature", "")}
    if kind == "redacted_thinking":
        return {"type": "redactedThinking", "data": block.get("data")}
    if kind == "tool_use":
        return {"type": "toolRequest", "id": block.get("id"), "toolCall": {"status": "success", "value": {
            "name": block.get("name"), "arguments": block.get("input", {})}}}
    if kind == "tool_result":
        content = block.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        if block.get("is_error") is True:
            text = "\n".join(p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") == "text")
            return {"type": "toolResponse", "id": block.get("tool_use_id"),
                    "toolResult": {"status": "error", "error": text}}
        return {"type": "toolResponse", "id": block.get("tool_use_id"), "toolResult": {"status": "success", "value": {
            "content": [_new_item(p) if isinstance(p, dict) else p for p in parts], "isError": False}}}
    return block


def model_name(provider: Any, config: Any) -> str | None:
    """The model a goose session talks to, in integrity.providers.models' words ("anthropic:claude-sonnet-4-5"),
    from its `provider_name` and its `model_config` (a dict, or its JSON text as the session database holds it);
    None when the session does not say."""
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except ValueError:
            return None
    model = config.get("model_name") if isinstance(config, dict) else None
    if not isinstance(model, str) or not model:
        return None
    return f"{provider}:{model}" if isinstance(provider, str) and provider else model


class _Goose(Wrapped):
    """goose's messages around Anthropic's reading and writing (see the module docstring)."""

    KEEPS_ENTRIES = True
    """The metadata line and the messages the agent does not see stay in their places (registry._with_entries_kept),
    even where the message after them is rebuilt."""
    ENVELOPE_KEY = "conversation"
    """The key of a session export's messages (a store's session is read as such an export)."""

    @staticmethod
    def model_in(envelope: Any) -> str | None:
        """The model a session export names (model_name): its provider judges it, where goose's requests to it
        are modelled (FormatSpec.model_decides)."""
        return model_name(envelope.get("provider_name"), envelope.get("model_config")) \
            if isinstance(envelope, dict) else None


ADAPTER = _Goose(NAME, anthropic, _unwrap, _wrap, evidence, fits, container="jsonl", finish=_in_time_order)


SPECS = (FormatSpec(NAME, ADAPTER, suffixes=(".jsonl", ".json"), skips_bad_lines="goose (its legacy sessions)",
                    sends_as=SENDS_AS, sends_messages=sent_messages, model_decides=frozenset({"anthropic"})),)
"""This module's format, as the registry (integrity.formats) lists it.  goose talks to whichever provider it is set
up for: a session that names its model (an export's or the database's `provider_name` and `model_config`) is judged
by Anthropic when that model is Anthropic's (goose's Anthropic formatter is the one modelled here), else, and a
legacy session file, which names none, by the universal invariants unless a provider is named; always on the request
goose sends (goose_requests)."""
