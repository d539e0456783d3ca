"""Cline SDK sessions (`~/.cline/data/sessions/<id>/<id>.messages.json`).

Since its SDK-backed session store, Cline keeps each session's lossless record as
`{..., "messages": [...]}` of its provider-agnostic messages (cline/cline
`sdk/packages/shared/src/llms/messages.ts`): Anthropic-like `{role, content}` with
text, thinking, redacted_thinking, tool_use and tool_result blocks, but with shapes
of its own that Anthropic's request schema does not have: an image is
`{"type": "image", "data", "mediaType"}`, a file the model read is
`{"type": "file", "path", "content"}`, generated media is `{"type": "media"}`, a
tool_result names its tool (`name`), and messages carry `modelInfo`, `metrics`,
`ts`, `sessionId`.  Reading them as an Anthropic request called every structured
tool result malformed.  Each message is read as the Anthropic message it is sent as
(an image as a base64 image block, a file as its text, media left out).  Read-only:
a repaired view is written as Anthropic messages.
"""

from __future__ import annotations

from typing import Any

from . import anthropic
from .base import BuildContext
from .common import EntryError
from .spec import FormatSpec
from .wrapped import Wrapped

NAME = "cline-sdk"


def _cline_block(block: Any) -> bool:
    """A block only Cline's SDK writes."""
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    return (kind == "image" and "mediaType" in block and "source" not in block) \
        or (kind == "file" and "path" in block) or kind == "media" \
        or (kind == "tool_result" and "name" in block)


_SHAPES = ("image", "file", "media")  # block types Cline writes in shapes of its own


def _has_cline_block(content: Any) -> bool:
    """Whether a content list (or a tool result inside it) holds a block only Cline's SDK writes.

    One plain loop: detection runs it over every message of every Anthropic file."""
    if type(content) is not list:
        return False
    for block in content:
        if type(block) is not dict:
            continue
        kind = block.get("type")
        if kind == "tool_result":
            if "name" in block or _has_cline_block(block.get("content")):
                return True
        elif kind in _SHAPES and _cline_block(block):
            return True
    return False


def _as_anthropic(block: Any) -> Any:
    """The Anthropic block a Cline block is sent as (None: not sent)."""
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    if kind == "image" and "mediaType" in block and "source" not in block:
        return {"type": "image", "source": {"type": "base64", "media_type": block.get("mediaType"),
                                            "data": block.get("data")}}
    if kind == "file" and "path" in block:
        content = block.get("content")
        return {"type": "text", "text": f"{block['path']}:\n{content}" if isinstance(content, str) else block["path"]}
    if kind == "media":
        return None
    if kind == "tool_result" and isinstance(block.get("content"), list):
        return {**block, "content": _converted(block["content"])}
    return block


def _converted(content: list[Any]) -> list[Any]:
    return [b for b in (_as_anthropic(block) for block in content) if b is not None]


def _unwrap(message: Any) -> Any:
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return message
    if message.get("role") == "user" and not message["content"]:
        raise EntryError("a user message holds no content blocks (Cline never writes one; the provider "
                         "refuses it)")
    return {**message, "content": _converted(message["content"])}


def _wrap(item: Any, template: Any, context: BuildContext) -> Any:
    raise NotImplementedError("cline-sdk is read-only")


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A block only Cline's SDK writes (an image with `mediaType`, a `file` block, a named tool_result)."""
    return any(type(e) is dict and _has_cline_block(e.get("content")) for e in entries)


def fits(entry: Any) -> bool:
    """A user or assistant message whose content is a string or a list of typed blocks."""
    if not isinstance(entry, dict) or entry.get("role") not in ("user", "assistant") or "type" in entry:
        return False
    content = entry.get("content")
    return isinstance(content, str) or (isinstance(content, list) and all(
        isinstance(b, dict) and isinstance(b.get("type"), str) for b in content))


class _ReadOnly(Wrapped):
    """Read, never written: a view is written as Anthropic messages."""

    READ_ONLY = True
    WRITES_AS = "anthropic"


ADAPTER = _ReadOnly(NAME, anthropic, _unwrap, _wrap, evidence, fits, container="object", refines="anthropic")


SPECS = (FormatSpec(NAME, ADAPTER, suffixes=(".json",)),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
