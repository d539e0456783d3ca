"""The pi-ai AgentMessage schema: the engine's own form, and the canonical check for every format.

What is checked is what the engine and every provider rely on: a known role,
content of the right shape (user and result content: a string or text/image parts;
assistant content: text, thinking and toolCall parts), a tool call's string id and
name and object arguments, a result's string toolCallId.  Bookkeeping fields
(timestamp, stopReason, errorMessage, api, provider, model, usage, toolName,
isError, signatures) may be left out, as many real writers do, but when present
they must have pi-ai's type (a stopReason pi-ai has; null is read as absent for
stopReason and errorMessage).  `details` and unknown fields are free.

Roles: pi-ai's own (user, assistant, toolResult), inline system prompts (system,
developer), and the roles pi's coding agent adds to its AgentMessage union
(bashExecution, custom, branchSummary, compactionSummary, hookMessage), which
pass through the view unchanged.  Any other role is reported (the view still
carries the message as it is).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import msgspec

from ..kinds import FindingCode
from .base import Issue, Loc, Open, all_converted, list_of, not_a_message, role_issue, tagged, validate

MESSAGE_ROLES = ("user", "assistant", "toolResult")
SYSTEM_ROLES = ("system", "developer")
EXTENSION_ROLES = ("bashExecution", "custom", "branchSummary", "compactionSummary", "hookMessage")
KNOWN_ROLES = (*MESSAGE_ROLES, *SYSTEM_ROLES, *EXTENSION_ROLES)
_CANONICAL_ONLY = "opaque"  # native entries of other formats kept as they are (integrity.formats.common)


STOP_REASONS = ("stop", "length", "toolUse", "error", "aborted")


class Text(Open, tag_field="type", tag="text"):
    text: str
    textSignature: str = ""


class Thinking(Open, tag_field="type", tag="thinking"):
    thinking: str
    thinkingSignature: str = ""


class Image(Open, tag_field="type", tag="image"):
    data: str = ""
    mimeType: str = ""


class ToolCall(Open, tag_field="type", tag="toolCall"):
    id: str
    name: str
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)
    thoughtSignature: str = ""


class Opaque(Open, tag_field="type", tag="opaque"):
    """A native block another format's reader kept as it is (only in canonical messages)."""


# Parts are told apart by their type (a tagged union: base.model_errors picks the part's model by it).
UserPart = Text | Image | Opaque
AssistantPart = Text | Thinking | ToolCall | Opaque


class UserMessage(Open):
    role: Literal["user"]
    content: str | list[UserPart]
    timestamp: int | float = 0


class AssistantMessage(Open):
    role: Literal["assistant"]
    content: list[AssistantPart]
    stopReason: Literal["stop", "length", "toolUse", "error", "aborted"] | None = None
    errorMessage: str | None = None
    api: str = ""
    provider: str = ""
    model: str = ""
    usage: dict[str, Any] = msgspec.field(default_factory=dict)
    timestamp: int | float = 0


class ToolResultMessage(Open):
    role: Literal["toolResult"]
    toolCallId: str
    content: list[UserPart]
    toolName: str = ""
    isError: bool = False
    timestamp: int | float = 0


class SystemMessage(Open):
    role: Literal["system", "developer"]
    content: str | list[UserPart]
    timestamp: int | float = 0


MODELS: dict[str, type[Open]] = {
    "user": UserMessage, "assistant": AssistantMessage, "toolResult": ToolResultMessage,
    "system": SystemMessage, "developer": SystemMessage,
}


def classify(loc: Loc, error_type: str) -> FindingCode:
    """The finding code for a validation error at a (clean) location of a pi-ai message."""
    if loc == ("toolCallId",):
        return FindingCode.RESULT_WITHOUT_CALL_ID if error_type == "missing" else FindingCode.NON_STRING_ID
    if len(loc) == 3 and loc[0] == "content" and isinstance(loc[1], int):
        field = loc[2]
        if field == "id":
            return FindingCode.CALL_WITHOUT_ID if error_type == "missing" else FindingCode.NON_STRING_ID
        if field == "name":
            return FindingCode.CALL_WITHOUT_NAME
        if field == "arguments":
            return FindingCode.INVALID_ARGUMENTS
    return FindingCode.INVALID_CONTENT if loc and loc[0] == "content" else FindingCode.INVALID_FIELD


_FIELDS = {
    "timestamp": "a number", "stopReason": "one of " + ", ".join(STOP_REASONS), "errorMessage": "a string",
    "api": "a string", "provider": "a string", "model": "a string", "usage": "a JSON object",
    "toolName": "a string", "isError": "true or false",
}
_CONTENT = {
    "assistant": "an array of text, thinking and toolCall parts",
    "toolResult": "an array of text and image parts",
    "user": "a string or an array of text and image parts",
}


def expected(role: str) -> Callable[[Loc], str | None]:
    """What belongs at a location of a message of this role (for the finding's sentence)."""
    def at(loc: Loc) -> str | None:
        if loc == ("content",):
            return _CONTENT.get(role, _CONTENT["user"])
        if len(loc) == 2 and loc[0] == "content":
            return "a content part object"
        if len(loc) == 1 and loc[0] in _FIELDS:
            return _FIELDS[loc[0]]
        if len(loc) == 3 and loc[0] == "content":
            return "a JSON object" if loc[2] == "arguments" else "a string"
        return None
    return at


def check_message(message: Any, index: int, canonical: bool = False) -> list[Issue]:
    """Every malformed spot of one message; canonical: a message another format's reader made."""
    if not isinstance(message, dict):
        return [not_a_message(message, index)]
    role = message.get("role")
    model = MODELS.get(role) if isinstance(role, str) else None
    if model is None:
        if isinstance(role, str) and (role in EXTENSION_ROLES or (canonical and role == _CANONICAL_ONLY)):
            return []
        return [role_issue(role, KNOWN_ROLES, index)]
    return validate(model, message, index, classify, expect=expected(str(role)))


def check_messages(messages: Sequence[Any], canonical: bool = False) -> list[Issue]:
    """Every malformed spot of a list of pi-ai messages, in order."""
    if all_plain(messages, canonical):
        return []
    issues: list[Issue] = []
    for index, message in enumerate(messages):
        issues.extend(check_message(message, index, canonical))
    return issues


_ROLES: tuple[type, ...] = (*(tagged(model, "role", role) for role, model in MODELS.items()),
                            *(tagged(Open, "role", role) for role in EXTENSION_ROLES))  # (content free)
_PLAIN = list_of(_ROLES)
_PLAIN_CANONICAL = list_of((*_ROLES, tagged(Open, "role", _CANONICAL_ONLY)))


def all_plain(messages: Sequence[Any], canonical: bool = False) -> bool:
    """Whether check_message finds nothing in any of these messages, proved by one msgspec pass over them all (a
    Python step per message was about a ninth of `check` of a Chat file, whose canonical messages are checked
    too): the union is MODELS, each tagged by its role (base.tagged), as strict, so False only sends the messages
    to check_message, which says what is wrong.  tests/test_schema_batch.py holds the two equal."""
    return all_converted(messages, _PLAIN_CANONICAL if canonical else _PLAIN) is not None
