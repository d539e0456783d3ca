"""Inspect AI messages (inspect_ai model/_chat_message.py, _content.py, tool/_tool_call.py).

The reader takes what it cannot read at all (a call without a string `function`)
as an error; here is what it reads on past: a role Inspect does not have (read as
an opaque entry), content that is neither a string nor a list of content objects
(a list of strings, say: Inspect itself refuses to load it), a content object of a
known type without its text, arguments that are not an object, a tool message
naming no call, and fields of the wrong type.  Content types this module does not
know are accepted as they are: Inspect adds new ones.
"""

from __future__ import annotations

from typing import Any

from ..kinds import FindingCode
from .base import Classify, Issue, Loc, Open, by_field, check_part, each_entry, role_issue, validate

ROLES = ("system", "user", "assistant", "tool")
CONTENT = by_field()
FIELDS = by_field(default=FindingCode.INVALID_FIELD)


class Text(Open):
    text: str


class Reasoning(Open):
    reasoning: str


class Image(Open):
    image: str


class Audio(Open):
    audio: str


class Video(Open):
    video: str


class Document(Open):
    document: str


class Data(Open):
    data: dict[str, Any]


PARTS: dict[Any, tuple[type[Open], Classify]] = {
    "text": (Text, CONTENT), "reasoning": (Reasoning, CONTENT), "image": (Image, CONTENT),
    "audio": (Audio, CONTENT), "video": (Video, CONTENT), "document": (Document, CONTENT), "data": (Data, CONTENT),
}


class Message(Open):
    content: str | list[Any]
    id: str | None = None
    source: str | None = None
    metadata: dict[str, Any] | None = None


class User(Message):
    tool_call_id: list[str] | None = None


class Assistant(Message):
    tool_calls: list[Any] | None = None
    model: str | None = None


class ToolError(Open):
    type: str
    message: str


class Tool(Message):
    tool_call_id: str | None = None  # Inspect's own model allows none; the canonical check reports the result
    function: str | None = None
    error: ToolError | None = None


class ToolCall(Open):
    id: str
    function: str
    arguments: dict[str, Any]


_MESSAGES: dict[str, tuple[type[Open], Classify]] = {
    "system": (Message, CONTENT), "user": (User, CONTENT), "assistant": (Assistant, CONTENT),
    "tool": (Tool, by_field(result_ids=("tool_call_id",))),
}
_CALL = by_field(call_ids=("id",), names=("function",), arguments=("arguments",))


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    """Every Inspect message that breaks Inspect's own message model, in entry order."""
    return each_entry(entries, _message)


def _message(entry: dict[str, Any], index: int) -> list[Issue]:
    role = entry.get("role")
    if role not in ROLES:
        return [role_issue(role, ROLES, index)]
    model, classify = _MESSAGES[role]
    out = list(validate(model, entry, index, classify))
    content = entry.get("content")
    for position, part in enumerate(content if isinstance(content, list) else []):
        out.extend(check_part(PARTS, part, index, ("content", position)))
    calls = entry.get("tool_calls") if role == "assistant" else None
    for position, call in enumerate(calls if isinstance(calls, list) else []):
        path: Loc = ("tool_calls", position)
        out.extend(validate(ToolCall, call, index, _CALL, path))
    return out
