"""LangChain serialized messages (`messages_to_dict` and `dumpd`).

The reader reads a tool call whose id is not a string as an id-less call and any
other message type as an opaque entry; both are reported here, with tool call
args that are not objects and tool messages that name no call.
"""

from __future__ import annotations

from typing import Any

from .base import Issue, arguments_issue, id_issue, not_a_message, role_issue

TYPES = ("human", "ai", "system", "tool", "function", "chat", "remove")
_CLASSES = {"HumanMessage": "human", "AIMessage": "ai", "SystemMessage": "system", "ToolMessage": "tool",
            "FunctionMessage": "function", "ChatMessage": "chat", "RemoveMessage": "remove",
            "HumanMessageChunk": "human", "AIMessageChunk": "ai", "SystemMessageChunk": "system",
            "ToolMessageChunk": "tool", "FunctionMessageChunk": "function", "ChatMessageChunk": "chat"}


def _split(entry: dict[str, Any]) -> tuple[Any, Any, str]:
    """(message type, its fields, the path of the fields) of either dialect."""
    if "lc" in entry:
        ident = entry.get("id")
        name = ident[-1] if isinstance(ident, list) and ident else None
        return (_CLASSES.get(name, name) if isinstance(name, str) else name), entry.get("kwargs"), "kwargs"
    return entry.get("type"), entry.get("data"), "data"


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            issues.append(not_a_message(entry, index))
            continue
        kind, fields, where = _split(entry)
        if kind not in TYPES:
            found = role_issue(kind, TYPES, index, "type")
            issues.append(found)
            continue
        if not isinstance(fields, dict):
            continue
        if kind == "tool":
            found_id = id_issue(fields, "tool_call_id", index, f"{where}.tool_call_id", call=False)
            if found_id is not None:
                issues.append(found_id)
        calls = fields.get("tool_calls") if kind == "ai" else None
        for position, call in enumerate(calls if isinstance(calls, list) else []):
            path = f"{where}.tool_calls[{position}]"
            for found_call in (id_issue(call, "id", index, f"{path}.id", call=True),
                               arguments_issue(call.get("args") if isinstance(call, dict) else None, index,
                                               f"{path}.args", text=False)):
                if found_call is not None:
                    issues.append(found_call)
    return issues
