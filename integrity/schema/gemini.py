"""Gemini contents: user and model turns of parts (calls have no ids: pairing is by order and name).

Reported: a role Gemini does not have, and functionCall args or
functionResponse response that are not objects.
"""

from __future__ import annotations

from typing import Any

from .base import Issue, arguments_issue, not_a_message, role_issue

ROLES = ("user", "model", "function")


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            issues.append(not_a_message(entry, index, "turn"))
            continue
        role = entry.get("role")
        if "role" in entry and role not in ROLES:
            issues.append(role_issue(role, ROLES, index))
            continue
        parts = entry.get("parts")
        for position, part in enumerate(parts if isinstance(parts, list) else []):
            if not isinstance(part, dict):
                continue
            for key, field in (("functionCall", "args"), ("functionResponse", "response")):
                inner = part.get(key)
                if isinstance(inner, dict):
                    found = arguments_issue(inner.get(field), index, f"parts[{position}].{key}.{field}", text=False)
                    if found is not None:
                        issues.append(found)
    return issues
