"""pi-ai AgentMessage: the canonical form itself.

Reading keeps the entries as they are (the canonical messages are the native
dicts, so nothing can be lost); writing only removes the NATIVE hints other
adapters attach.  Custom roles (hook or bash-execution messages an app adds to its
AgentMessage union) pass through: the engine sees them as 'other' messages.
"""

from __future__ import annotations

from typing import Any

from .anthropic import own_block
from .base import BuildContext, Segment
from .common import (
    NATIVE,
    OPAQUE,
    SYSTEM_ROLES,
    EntryError,
    describe,
    joined_text,
    strip_native,
)
from .spec import here

NAME = "pi-ai"


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A toolResult role, toolCall/thinking parts, an assistant stopReason or a Context's systemPrompt.

    A thinking part with a `signature` is Anthropic's block (pi-ai spells it `thinkingSignature`), and one
    whose `thinking` is a list of chunks is Mistral's (pi-ai's is text).
    """
    if "systemPrompt" in envelope:
        return True
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        role = entry.get("role")
        if role == "toolResult":
            return True
        if role == "assistant":
            if "stopReason" in entry or "api" in entry:
                return True
            content = entry.get("content")
            if isinstance(content, list) and any(
                isinstance(p, dict) and (p.get("type") == "toolCall"
                                         or (p.get("type") == "thinking" and isinstance(p.get("thinking"), str)
                                             and "signature" not in p))
                for p in content
            ):
                return True
    return False


def fits(entry: Any) -> bool:
    """An object with a string role whose assistant content is a list of typed parts, none of a type only
    Anthropic writes (tool_use, server tool blocks and their results, redacted_thinking...)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("role"), str):
        return False
    if entry["role"] == "assistant":
        content = entry.get("content")
        return isinstance(content, list) and all(
            isinstance(p, dict) and "type" in p and not own_block(p["type"]) for p in content)
    if entry["role"] == "user":
        content = entry.get("content")
        return isinstance(content, str) or (
            isinstance(content, list)
            and all(isinstance(p, dict) and (p.get("type") == "text" or (p.get("type") == "image" and _own_image(p)))
                    for p in content)
        )
    return entry["role"] in ("toolResult",) or entry["role"] not in ("tool", "model", "system", "developer", "function")


def _own_image(part: dict[str, Any]) -> bool:
    """An image part as pi-ai writes it (`data` and `mimeType`), not Anthropic's image block (its bytes under
    `source`): a user message of such blocks alone is no pi-ai message (read as pi-ai, its image had no data, and
    the request written for Anthropic left it out: an empty message)."""
    return not ("source" in part and "data" not in part)


def read(entries: list[Any]) -> list[Segment]:
    """Each entry is its own canonical message; it must be an object.

    An object without a string role is read on (the engine sees an 'other'
    message) and reported by the schema check (integrity.schema) as malformed.
    """
    segments = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise EntryError(f"expected a message object, got {describe(entry)}", index)
        segments.append(Segment(index, index + 1, [entry]))
    return segments


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """One native message per canonical message.

    Left out: opaque messages of other formats, and system/developer messages read
    from other formats, which go to the Context's systemPrompt (see body).  A pi-ai
    file's own messages, whatever their role, always stay.
    """
    return [[i] for i, m in enumerate(messages) if not (isinstance(m, dict) and (
        m.get("role") == OPAQUE or (m.get("role") in SYSTEM_ROLES and NATIVE in m)))]


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """The canonical message without NATIVE hints or other formats' opaque parts."""
    out = []
    for message in messages:
        message = strip_native(message)
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") == OPAQUE for p in content):
            message = {**message,
                       "content": [p for p in content if not (isinstance(p, dict) and p.get("type") == OPAQUE)]}
        out.append(message)
    return out


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """A bare array of AgentMessages, or a pi-ai Context {systemPrompt, messages} when there is a system prompt."""
    if hoisted:
        return {"systemPrompt": "\n\n".join(joined_text(m.get("content")) for m in hoisted), "messages": native}
    return native


SPECS = (here(__name__),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
