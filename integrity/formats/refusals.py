"""Files we recognise but cannot check: refused by name, so the user knows what they hold.

Some agents keep, beside (or instead of) the messages they send, a log written for
people: Aider's Markdown chat history, Cline's UI message list, the prompt histories
of Gemini CLI, Claude Code and Codex.  Their tool calls,
when there are any, are prose or JSON text without ids, so no call can be paired
with its result.  Reading them as some other format would give a wrong verdict or a
baffling error ("expected a JSON array", "message 0 has no 'role'"); naming what the
file is, and where the checkable history lives when there is one, is the useful answer.
"""

from __future__ import annotations

from typing import Any

from ..loading import TranscriptError

_AIDER_HEADER = b"# aider chat started at"
_CLINE_KINDS = ("ask", "say")


def refuse_text(data: bytes, source: str) -> None:
    """Refuse a text file we recognise (before it is parsed as JSON)."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(_AIDER_HEADER):
        raise TranscriptError(source, "top level", "an Aider chat history (Markdown): no tool calls to check "
                                                   "(Aider keeps its conversation as prose, without tool calls)")


def _cline_ui_message(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("ts"), (int, float)) \
        and entry.get("type") in _CLINE_KINDS and "role" not in entry


def _keys(entry: Any, *keys: str) -> bool:
    return isinstance(entry, dict) and all(key in entry for key in keys) and "role" not in entry


# (what the entries are, the keys every entry has, where the checkable history is)
_PROMPT_LOGS = (
    ("a Gemini CLI prompt log (logs.json)", ("sessionId", "messageId", "type", "message", "timestamp"),
     "the session's chats/session-*.json next to it"),
    ("a Claude Code prompt history (history.jsonl)", ("display", "timestamp", "project"),
     "the session files under ~/.claude/projects/"),
    ("a Codex prompt history (history.jsonl)", ("session_id", "ts", "text"),
     "the session's rollout file under ~/.codex/sessions/"),
)


def refuse_entries(entries: list[Any], source: str) -> None:
    """Refuse an entry list we recognise as a log of no checkable tool calls."""
    if not entries:
        return
    if all(_cline_ui_message(entry) for entry in entries):
        raise TranscriptError(source, "top level",
                              "a Cline UI message log (ui_messages.json): no tool calls to check (its tool uses "
                              "are display text without ids); check api_conversation_history.json from the same "
                              "task folder instead")
    for what, keys, where in _PROMPT_LOGS:
        if all(_keys(entry, *keys) for entry in entries):
            raise TranscriptError(source, "top level", f"{what}: no tool calls to check (it keeps the prompts "
                                                       f"typed, not the conversation); check {where} instead")
