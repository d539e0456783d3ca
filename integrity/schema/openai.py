"""OpenAI Chat Completions messages and Responses input items.

The readers raise for what they cannot read at all (a call without a string id
or name); here is what they read on past: a role the API does not have (read as
an opaque entry), arguments that are not the JSON text of an object (read as {}),
and a tool output that names no call.
"""

from __future__ import annotations

from typing import Any

from .base import Issue, arguments_issue, id_issue, not_a_message, role_issue

CHAT_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
RESPONSES_ROLES = ("system", "developer", "user", "assistant")


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    check = _chat if format == "openai-chat" else _responses
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            issues.append(not_a_message(entry, index))
            continue
        issues.extend(found for found in check(entry, index) if found is not None)
    return issues


def _chat(entry: dict[str, Any], index: int) -> list[Issue | None]:
    role = entry.get("role")
    if role not in CHAT_ROLES:
        return [role_issue(role, CHAT_ROLES, index)]
    if role == "tool":
        return [id_issue(entry, "tool_call_id", index, "tool_call_id", call=False)]
    calls = entry.get("tool_calls") if role == "assistant" else None
    out: list[Issue | None] = []
    for position, call in enumerate(calls if isinstance(calls, list) else []):
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            out.append(arguments_issue(function.get("arguments"), index,
                                       f"tool_calls[{position}].function.arguments", text=True))
    return out


def _responses(entry: dict[str, Any], index: int) -> list[Issue | None]:
    kind = entry.get("type")
    if kind in ("message", None):
        role = entry.get("role")
        if role not in RESPONSES_ROLES:
            return [role_issue(role, RESPONSES_ROLES, index)]
        return []
    if kind == "function_call":
        return [arguments_issue(entry.get("arguments"), index, "arguments", text=True)]
    if kind == "function_call_output":
        return [id_issue(entry, "call_id", index, "call_id", call=False)]
    return []
