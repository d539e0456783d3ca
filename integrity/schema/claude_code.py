"""Claude Code session JSONL: typed entries; message entries carry an Anthropic message.

Bookkeeping entries (summaries, snapshots, system notes) are free-form; a `user`
or `assistant` entry is checked for the session fields every entry of that kind
has (uuid, parentUuid, sessionId, timestamp...) when present, and its `message`
as an Anthropic message of that role (a message without `role` takes the entry's).
"""

from __future__ import annotations

from typing import Any, Literal

from ..kinds import FindingCode
from . import anthropic
from .base import Issue, Open, by_field, role_issue, validate


class MessageEntry(Open):
    message: dict[str, Any]
    uuid: str = ""
    parentUuid: str | None = None
    sessionId: str = ""
    timestamp: str = ""
    isSidechain: bool = False
    cwd: str = ""
    gitBranch: str = ""
    version: str = ""
    userType: str = ""


class AssistantMessage(Open):
    id: str = ""
    type: Literal["message"] = "message"
    model: str = ""
    stop_reason: str | None = None
    stop_sequence: str | None = None
    usage: dict[str, Any] = {}


_FIELDS = by_field(default=FindingCode.INVALID_FIELD)


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("type") not in ("user", "assistant"):
            continue
        issues.extend(validate(MessageEntry, entry, index, _FIELDS))
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        # A stream's message may leave its role to the entry's type (subagent streams as harnesses record
        # them): the reader takes the type's role, so only a role that contradicts it is a finding.
        role = message.get("role", entry["type"])
        if role != entry["type"]:
            issues.append(role_issue(role, (entry["type"],), index, "message.role"))
        if role == "assistant":
            issues.extend(validate(AssistantMessage, message, index, _FIELDS, ("message",)))
        issues.extend(anthropic.check_message(message, index, ("message",)))
    return issues
