"""AWS Bedrock Converse `messages`: content blocks keyed by kind, without a `type` field.

Calls are `{"toolUse": {toolUseId, name, input}}` blocks of an assistant message;
results are `{"toolResult": {toolUseId, content: [{text}|{json}|...], status}}`
blocks in the next user message.  Grouping is Anthropic's (all results of a turn
first, in one user message).  `system` (a list of `{text}` blocks), `toolConfig`
and the rest of a pasted request stay in the envelope.

A server tool's `toolUse` (Nova's code interpreter, `"type": "server_tool_use"`) comes with
its `toolResult` inside the same assistant message, and Bedrock takes it as answered there
(recorded 200).  Both blocks are read as opaque parts, like Anthropic's `server_tool_use` and
its result block: not a client call the next message must answer.
"""

from __future__ import annotations

import json
from typing import Any

from .anthropic import result_groups, system_text
from .base import BuildContext, Segment, per_entry
from .common import (
    NATIVE,
    OPAQUE,
    EntryError,
    NameBook,
    assistant,
    describe,
    is_from,
    opaque_message,
    opaque_part,
    require_object,
    require_string,
    text_part,
    tool_call,
    tool_result,
)
from .spec import here

NAME = "bedrock"
_BLOCK_KEYS = ("text", "image", "document", "video", "toolUse", "toolResult", "guardContent",
               "cachePoint", "reasoningContent", "citationsContent")


def _is_block(block: Any) -> bool:
    return isinstance(block, dict) and "type" not in block and any(k in block for k in _BLOCK_KEYS)


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """toolUse/toolResult blocks, or Converse-only envelope keys (modelId, toolConfig, system blocks)."""
    if any(k in envelope for k in ("modelId", "toolConfig", "inferenceConfig", "additionalModelRequestFields")):
        return True
    system = envelope.get("system")
    if isinstance(system, list) and system and all(_is_block(b) for b in system):
        return True
    for entry in entries:
        content = entry.get("content") if isinstance(entry, dict) else None
        if isinstance(content, list) and any(
                isinstance(b, dict) and ("toolUse" in b or "toolResult" in b) for b in content):
            return True
    return False


def fits(entry: Any) -> bool:
    """A user/assistant message whose content is a list of kind-keyed blocks."""
    if not isinstance(entry, dict) or entry.get("role") not in ("user", "assistant"):
        return False
    content = entry.get("content")
    return isinstance(content, list) and all(_is_block(b) for b in content)


def _parts_in(blocks: list[Any]) -> list[dict[str, Any]]:
    parts = []
    for block in blocks:
        if isinstance(block, dict) and set(block) == {"text"} and isinstance(block["text"], str):
            parts.append(text_part(block["text"]))
        else:
            parts.append(_image_part(block) or opaque_part(NAME, block))
    return parts


def _image_part(block: Any) -> dict[str, Any] | None:
    """An image block holding its bytes (`{"image": {"format", "source": {"bytes"}}}`, nothing else) as an image
    part, which every format writes in its own shape (an opaque Converse block was left out of the request written
    for Anthropic or Gemini, and a message of the image alone judged empty); None for any other block (an image
    in S3, a document, a video: kept opaque)."""
    image = block.get("image") if isinstance(block, dict) and set(block) == {"image"} else None
    if not isinstance(image, dict) or set(image) != {"format", "source"} or not isinstance(image["format"], str):
        return None
    source = image["source"]
    if not isinstance(source, dict) or set(source) != {"bytes"} or not isinstance(source["bytes"], str):
        return None
    return {"type": "image", "data": source["bytes"], "mimeType": f"image/{image['format']}"}


def _result_parts(content: Any) -> list[dict[str, Any]]:
    """Result content: {text} blocks are text; a {json} block becomes its JSON text (kept exact)."""
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and set(block) == {"json"}:
            part = text_part(json.dumps(block["json"], ensure_ascii=False))
            part[NATIVE] = {"json": block["json"]}
            parts.append(part)
        else:
            parts.extend(_parts_in([block]))
    return parts


def answered_in_place(blocks: list[Any]) -> set[str]:
    """The toolUseIds an assistant message's own `toolResult` blocks answer (a server tool's use and result).

    Bedrock counts such a `toolUse` as answered in that message, so neither the reader nor the rule set
    waits for its result in the next one."""
    answered = set()
    for block in blocks:
        result = block.get("toolResult") if isinstance(block, dict) else None
        use_id = result.get("toolUseId") if isinstance(result, dict) else None
        if isinstance(use_id, str):
            answered.add(use_id)
    return answered


def _read_one(entry: dict[str, Any], book: NameBook) -> list[dict[str, Any]]:
    role = entry.get("role")
    content = entry.get("content")
    if role not in ("user", "assistant"):
        if not isinstance(role, str):
            raise EntryError("the message has no 'role'" if role is None
                             else f"'role' must be a string, got {describe(role)}")
        return [opaque_message(NAME, entry)]
    if not isinstance(content, list):
        raise EntryError(f"'content' must be an array of content blocks, got {describe(content)}")
    if role == "assistant":
        parts: list[dict[str, Any]] = []
        answered = answered_in_place(content)
        for block in content:
            use = block.get("toolUse") if isinstance(block, dict) else None
            if isinstance(use, dict) and not (isinstance(use.get("toolUseId"), str) and use["toolUseId"] in answered):
                call_id = require_string(use.get("toolUseId"), "a toolUse block's 'toolUseId'")
                name = require_string(use.get("name"), "a toolUse block's 'name'")
                extra = {k: v for k, v in use.items() if k not in ("toolUseId", "name", "input")}
                parts.append(tool_call(call_id, name, use.get("input", {}), {"extra": extra} if extra else None))
            else:
                parts.extend(_parts_in([block]))
        book.add_calls(parts)
        message = assistant(parts)
        message[NATIVE] = {"format": NAME}
        return [message]
    results: list[dict[str, Any]] = []
    rest: list[Any] = []
    for position, block in enumerate(content):
        result = block.get("toolResult") if isinstance(block, dict) else None
        if isinstance(result, dict):
            use_id = result.get("toolUseId")
            message = tool_result(use_id, book.name(use_id), _result_parts(result.get("content")),
                                  result.get("status") == "error", "toolUseId" in result)
            message[NATIVE] = {"format": NAME, "part": position}
            results.append(message)
        else:
            rest.append(block)
    if rest or not results:
        results.append({"role": "user", "content": _parts_in(rest), NATIVE: {"format": NAME}})
    return results


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages per Converse message (a user message may yield several)."""
    book = NameBook()
    return per_entry(entries, lambda entry: _read_one(require_object(entry), book))


JOINS_RESULTS = True
"""`groups` sends results the file holds in consecutive entries as one (formats.reshaping.joined)."""


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """All results of a turn first, in one user message (Bedrock counts them against the calls)."""
    return result_groups(messages, NAME)


def _blocks_out(parts: Any, same: bool) -> list[Any]:
    if isinstance(parts, str):
        return [{"text": parts}]
    blocks = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            hints = part.get(NATIVE) if same else None
            if isinstance(hints, dict) and "json" in hints \
                    and json.dumps(hints["json"], ensure_ascii=False) == part["text"]:
                blocks.append({"json": hints["json"]})
            else:
                blocks.append({"text": part["text"]})
        elif part.get("type") == "thinking":
            reasoning = {"text": part.get("thinking", "")}
            if "thinkingSignature" in part:
                reasoning["signature"] = part["thinkingSignature"]
            blocks.append({"reasoningContent": {"reasoningText": reasoning}})
        elif part.get("type") == "image" and isinstance(part.get("data"), str):
            kind = part.get("mimeType")
            blocks.append({"image": {"format": kind.rpartition("/")[2] if isinstance(kind, str) else "png",
                                     "source": {"bytes": part["data"]}}})
        elif part.get("type") == OPAQUE and part.get("format") == NAME:
            blocks.append(part["value"])
    return blocks


def _result_out(message: dict[str, Any], context: BuildContext) -> Any:
    original = context.reuse(message)
    if original is not None:
        return original
    result: dict[str, Any] = {}
    if "toolCallId" in message:
        result["toolUseId"] = message["toolCallId"]
    result["content"] = _blocks_out(message.get("content"), is_from(message, NAME))
    result["status"] = "error" if message.get("isError") is True else "success"
    return {"toolResult": result}


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """The Converse message for one group."""
    first = messages[0]
    role = first.get("role")
    if role == OPAQUE:
        return [first["value"]]
    if role == "assistant":
        same = is_from(first, NAME)
        blocks: list[Any] = []
        for part in first.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "toolCall":
                native = part.get(NATIVE)
                hints = native if same and isinstance(native, dict) else {}
                use = {"toolUseId": part.get("id"), "name": part.get("name"), "input": part.get("arguments", {})}
                blocks.append({"toolUse": {**use, **hints.get("extra", {})}})
            else:
                blocks.extend(_blocks_out([part], same))
        return [{"role": "assistant", "content": blocks}]
    blocks = [_result_out(m, context) for m in messages if m.get("role") == "toolResult"]
    for user in messages:
        if user.get("role") == "user":
            blocks.extend(_blocks_out(user.get("content"), is_from(user, NAME)))
    return [{"role": "user", "content": blocks}]


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """A Converse request: {"messages": [...]} plus `system` blocks when there was a system prompt."""
    out: dict[str, Any] = {"messages": native}
    if hoisted:
        out["system"] = [{"text": system_text(hoisted)}]
    return out


def reusable_block(native_entry: Any, part: int) -> Any:
    """The block at `part` of a Converse message's content (for BuildContext.reuse)."""
    content = native_entry.get("content") if isinstance(native_entry, dict) else None
    return content[part] if isinstance(content, list) and 0 <= part < len(content) else None


SPECS = (here(__name__, provider="bedrock"),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
