"""Claude Code session JSONL: typed entries, message entries carrying an Anthropic message.

Bookkeeping entries (summaries, snapshots) are anything but `user`/`assistant`
entries; a message entry's `message` is checked as an Anthropic message.
"""

from __future__ import annotations

from typing import Any

from . import anthropic
from .base import Issue


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("type") not in ("user", "assistant"):
            continue
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        for issue in anthropic.check_entries("anthropic", [message], {}):
            issues.append(Issue(issue.code, index, f"message.{issue.path}" if issue.path else "message",
                                issue.detail.replace(f"'{issue.path}'", f"'message.{issue.path}'")))
    return issues
