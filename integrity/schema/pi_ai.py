"""The pi-ai AgentMessage schema: the engine's own form, and the canonical check for every format.

What is checked is what the engine and every provider rely on: a known role,
content of the right shape (user and result content: a string or text/image parts;
assistant content: text, thinking and toolCall parts), a tool call's string id and
name and object arguments, a result's string toolCallId.  Optional or
bookkeeping fields (timestamp, usage, api, model, details) are not checked: many
real writers leave them out and nothing depends on them.

Roles: pi-ai's own (user, assistant, toolResult), inline system prompts (system,
developer), and the roles pi's coding agent adds to its AgentMessage union
(bashExecution, custom, branchSummary, compactionSummary, hookMessage), which
pass through the view unchanged.  Any other role is reported (the view still
carries the message as it is).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from ..kinds import FindingCode
from .base import Issue, Loc, Open, not_a_message, role_issue, validate

MESSAGE_ROLES = ("user", "assistant", "toolResult")
SYSTEM_ROLES = ("system", "developer")
EXTENSION_ROLES = ("bashExecution", "custom", "branchSummary", "compactionSummary", "hookMessage")
KNOWN_ROLES = (*MESSAGE_ROLES, *SYSTEM_ROLES, *EXTENSION_ROLES)
_CANONICAL_ONLY = "opaque"  # native entries of other formats kept as they are (integrity.formats.common)


class Text(Open):
    type: Literal["text"]
    text: str


class Thinking(Open):
    type: Literal["thinking"]
    thinking: str


class Image(Open):
    type: Literal["image"]


class ToolCall(Open):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Opaque(Open):
    """A native block another format's reader kept as it is (only in canonical messages)."""

    type: Literal["opaque"]


UserPart = Annotated[Text | Image | Opaque, Field(discriminator="type")]
AssistantPart = Annotated[Text | Thinking | ToolCall | Opaque, Field(discriminator="type")]
TAGS = frozenset({"text", "thinking", "image", "toolCall", "opaque"})


class UserMessage(Open):
    role: Literal["user"]
    content: str | list[UserPart]


class AssistantMessage(Open):
    role: Literal["assistant"]
    content: list[AssistantPart]


class ToolResultMessage(Open):
    role: Literal["toolResult"]
    toolCallId: str
    content: str | list[UserPart]


class SystemMessage(Open):
    role: Literal["system", "developer"]
    content: str | list[UserPart]


MODELS: dict[str, type[BaseModel]] = {
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
    return FindingCode.INVALID_CONTENT


_CONTENT = {
    "assistant": "an array of text, thinking and toolCall parts",
    "user": "a string or an array of text and image parts",
}


def expected(role: str) -> Callable[[Loc], str | None]:
    """What belongs at a location of a message of this role (for the finding's sentence)."""
    def at(loc: Loc) -> str | None:
        if loc == ("content",):
            return _CONTENT.get(role, _CONTENT["user"])
        if len(loc) == 2 and loc[0] == "content":
            return "a content part object"
        if len(loc) == 3 and loc[0] == "content" and loc[2] in ("text", "thinking"):
            return "a string"
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
    return validate(model, message, index, classify, TAGS, expect=expected(role))


def check_messages(messages: Sequence[Any], canonical: bool = False) -> list[Issue]:
    """Every malformed spot of a list of pi-ai messages, in order."""
    issues: list[Issue] = []
    for index, message in enumerate(messages):
        issues.extend(check_message(message, index, canonical))
    return issues
