"""Codex CLI rollouts: each `response_item` line carries a Responses input item in `payload`.

An old rollout holds the items bare, one per line.  Each item is checked as a
Responses input item (integrity.schema.openai) at its place in the line; session,
event and turn-context lines are Codex's own bookkeeping and are not checked.
"""

from __future__ import annotations

from typing import Any

from ..kinds import FindingCode
from . import openai
from .base import Issue


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    """Every Responses item of the rollout that breaks the item schema, in line order."""
    from ..formats.codex import LINE_TYPES  # the reader's own list of rollout line types

    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "response_item" and "payload" not in entry:
            issues.append(Issue(FindingCode.NOT_A_MESSAGE, index, "payload",
                                "a response_item line has no 'payload': no item is read from it"))
        elif entry.get("type") in LINE_TYPES and "payload" in entry:
            if entry["type"] == "response_item":
                issues.extend(openai.check_item(entry["payload"], index, ("payload",)))
        elif "record_type" not in entry and ("type" in entry or "role" in entry):
            issues.extend(openai.check_item(entry, index, ()))  # an old rollout's bare item
    return issues
