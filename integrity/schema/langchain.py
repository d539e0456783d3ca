"""LangChain serialized messages (`messages_to_dict` and `dumpd`).

Input models for each message type's fields.  The reader reads a tool call whose
id is not a string as an id-less call and any other message type as an opaque
entry; both are reported here, with tool call args that are not objects, tool
messages that name no call, content of the wrong shape and fields of the wrong
type (a status LangChain does not have, metadata that is not an object).
"""

from __future__ import annotations

from typing import Any, Literal

from ..kinds import FindingCode
from .base import Issue, Loc, Open, by_field, not_a_message, role_issue, validate

TYPES = ("human", "ai", "system", "tool", "function", "chat", "remove")
_CLASSES = {"HumanMessage": "human", "AIMessage": "ai", "SystemMessage": "system", "ToolMessage": "tool",
            "FunctionMessage": "function", "ChatMessage": "chat", "RemoveMessage": "remove",
            "HumanMessageChunk": "human", "AIMessageChunk": "ai", "SystemMessageChunk": "system",
            "ToolMessageChunk": "tool", "FunctionMessageChunk": "function", "ChatMessageChunk": "chat"}


class Fields(Open):
    content: str | list[str | dict[str, Any]] = ""
    additional_kwargs: dict[str, Any] = {}
    response_metadata: dict[str, Any] = {}
    id: str | None = None
    name: str | None = None
    type: str = ""
    example: bool = False


class Usage(Open):
    input_tokens: int
    output_tokens: int
    total_tokens: int


class AiFields(Fields):
    tool_calls: list[Any] = []
    invalid_tool_calls: list[Any] = []
    usage_metadata: Usage | None = None


class ToolFields(Fields, kw_only=True):
    tool_call_id: str
    status: Literal["success", "error"] = "success"


class ToolCall(Open):
    name: str
    args: dict[str, Any]
    id: str
    type: Literal["tool_call"] = "tool_call"


class Dumpd(Open):
    lc: int
    type: Literal["constructor"]
    id: list[str]


_MODELS: dict[str, type[Fields]] = {"ai": AiFields, "tool": ToolFields}
_FIELDS = by_field(result_ids=("tool_call_id",), default=FindingCode.INVALID_FIELD)
_CALL = by_field(call_ids=("id",), names=("name",), arguments=("args",))


def _split(entry: dict[str, Any]) -> tuple[Any, Any, str]:
    """(message type, its fields, the key of the fields) of either dialect."""
    if "lc" in entry:
        ident = entry.get("id")
        name = ident[-1] if isinstance(ident, list) and ident else None
        return (_CLASSES.get(name, name) if isinstance(name, str) else name), entry.get("kwargs"), "kwargs"
    kind = entry.get("type")  # messages_to_dict writes a chunk's class name ("AIMessageChunk") as its type
    return (_CLASSES.get(kind, kind) if isinstance(kind, str) else kind), entry.get("data"), "data"


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            issues.append(not_a_message(entry, index))
            continue
        kind, fields, where = _split(entry)
        if kind not in TYPES:
            issues.append(role_issue(kind, TYPES, index, "type"))
            continue
        if "lc" in entry:
            issues.extend(validate(Dumpd, entry, index, by_field(default=FindingCode.INVALID_FIELD)))
        issues.extend(_fields(kind, fields, index, (where,)))
    return issues


def _fields(kind: str, fields: Any, index: int, path: Loc) -> list[Issue]:
    model = _MODELS.get(kind, Fields)
    issues = validate(model, fields, index, _classify, path)
    calls = fields.get("tool_calls") if kind == "ai" and isinstance(fields, dict) else None
    for position, call in enumerate(calls if isinstance(calls, list) else []):
        issues.extend(validate(ToolCall, call, index, _CALL, (*path, "tool_calls", position)))
    return issues


def _classify(loc: Loc, error_type: str) -> FindingCode:
    """Content errors are invalid content; a tool message's call id is the result's id; others are fields."""
    if loc and loc[0] == "content":
        return FindingCode.INVALID_CONTENT
    return _FIELDS(loc, error_type)
