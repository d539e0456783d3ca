"""Reading the OpenAI Chat Completions message shape, shared by OpenAI, Mistral and DeepSeek.

The three providers accept the same `messages` shape but enforce different rules
and word their errors differently.  Reading the shape once (roles, call ids, the
run of tool messages that answers an assistant turn) keeps each rule module down
to its rules and its error texts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def role_of(message: Any) -> str | None:
    """The message's role when it is a string, else None (malformed entries never crash a rule)."""
    if isinstance(message, dict):
        role = message.get("role")
        if isinstance(role, str):
            return role
    return None


def call_ids_of(message: Any) -> list[str]:
    """Ids of an assistant message's `tool_calls`, in order; a missing or non-string id reads as ""."""
    if role_of(message) != "assistant":
        return []
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    ids = []
    for call in calls:
        call_id = call.get("id") if isinstance(call, dict) else None
        ids.append(call_id if isinstance(call_id, str) else "")
    return ids


def result_id_of(message: Any) -> str | None:
    """A tool message's `tool_call_id` as a string ("" when missing or not a string); None for other roles."""
    if role_of(message) != "tool":
        return None
    call_id = message.get("tool_call_id")
    return call_id if isinstance(call_id, str) else ""


@dataclass(frozen=True)
class CallTurn:
    """An assistant message with tool calls and the tool messages that directly follow it."""

    index: int
    call_ids: tuple[str, ...]
    run: tuple[int, ...]

    def answered_ids(self, messages: Sequence[Any]) -> list[str]:
        """The tool_call_ids of the run, in order (duplicates kept)."""
        return [result_id_of(messages[i]) or "" for i in self.run]


def call_turns(messages: Sequence[Any]) -> list[CallTurn]:
    """Every assistant message with a non-empty `tool_calls`, with its run of following tool messages.

    Each message's role is read once (a run is found by scanning the roles, not the messages again).
    """
    roles = [role_of(message) for message in messages]
    size = len(roles)
    turns = []
    for index, role in enumerate(roles):
        if role != "assistant":
            continue
        ids = call_ids_of(messages[index])
        if not ids:
            continue
        cursor = index + 1
        while cursor < size and roles[cursor] == "tool":
            cursor += 1
        turns.append(CallTurn(index, tuple(ids), tuple(range(index + 1, cursor))))
    return turns


def stray_tool_indices(messages: Sequence[Any], turns: Sequence[CallTurn] | None = None) -> list[int]:
    """Tool messages that do not sit in the run right after an assistant message with tool calls.

    turns: call_turns(messages), when the caller has them (each rule set reads them once)."""
    answered = {i for turn in (call_turns(messages) if turns is None else turns) for i in turn.run}
    return [i for i, message in enumerate(messages) if role_of(message) == "tool" and i not in answered]
