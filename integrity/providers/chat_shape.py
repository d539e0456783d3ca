"""Reading the OpenAI Chat Completions message shape, shared by OpenAI, Mistral and DeepSeek.

The three providers accept the same `messages` shape but enforce different rules
and word their errors differently.  Reading the shape once (roles, call ids, the
run of tool messages that answers an assistant turn) keeps each rule module down
to its rules and its error texts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
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
    return _call_ids(message)


def _call_ids(message: dict[str, Any]) -> list[str]:
    """call_ids_of for a message already known to be an assistant's."""
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


@dataclass(frozen=True)
class ChatShape:
    """What the Chat-shaped rule sets read of a message list: each role, the call turns, the strays."""

    roles: list[str | None]
    turns: list[CallTurn]
    strays: list[int]


_SHARED: ContextVar[dict[int, tuple[Sequence[Any], ChatShape]] | None] = ContextVar("chat_shapes", default=None)


@contextmanager
def sharing() -> Iterator[None]:
    """Within it, the Chat shape of a message list is read once for every rule set that asks.

    OpenAI, Mistral and DeepSeek judge the same Chat request when a transcript is checked
    against every provider: reading its roles and turns once per list, not once per rule
    set, takes two thirds of that work away.  Only for lists nobody changes while it lasts
    (integrity.providers.validate_recorded's own requests)."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def read_shape(messages: Sequence[Any]) -> ChatShape:
    """The roles, call turns and stray tool messages of a Chat message list (shared inside sharing())."""
    shared = _SHARED.get()
    if shared is not None:
        found = shared.get(id(messages))
        if found is not None and found[0] is messages:
            return found[1]
    roles = [role_of(message) for message in messages]
    size = len(roles)
    turns = []
    answered: set[int] = set()
    for index, role in enumerate(roles):
        if role != "assistant":
            continue
        ids = _call_ids(messages[index])
        if not ids:
            continue
        cursor = index + 1
        while cursor < size and roles[cursor] == "tool":
            cursor += 1
        run = range(index + 1, cursor)
        answered.update(run)
        turns.append(CallTurn(index, tuple(ids), tuple(run)))
    strays = [index for index, role in enumerate(roles) if role == "tool" and index not in answered]
    shape = ChatShape(roles, turns, strays)
    if shared is not None:
        shared[id(messages)] = (messages, shape)  # the list is kept, so its id is not reused meanwhile
    return shape
