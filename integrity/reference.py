"""The reference runtime's public tool-call integrity API, on plain pi-ai dicts.

Names and behaviour follow OpenMAIC's tool-call-integrity.ts exactly (its quirks
included) so tools written against the reference keep working unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._arguments import require_messages
from ._bulk.gc_pause import without_gc
from .repair.entries import materialize
from .repair.messages import INTERRUPTED_MESSAGE, INTERRUPTED_TEXT, receipt_message
from .repair.plan import plan_openmaic
from .repair.views import calls_in_content, is_receipt, light_transcript

Message = Any  # a pi-ai AgentMessage as loaded from JSON (normally a dict)

__all__ = [
    "INTERRUPTED_MESSAGE", "INTERRUPTED_TEXT", "PendingToolCall", "ToolCallRepair", "interrupted_tool_result",
    "is_interrupted_tool_result", "orphaned_tool_calls", "repair_orphaned_tool_calls", "time_ms",
    "track_tool_call_message",
]


def time_ms() -> int:
    """Wall-clock milliseconds since the epoch, like JavaScript's Date.now()."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class PendingToolCall:
    """A tool call whose result has not been recorded (yet)."""

    id: str
    name: str


@dataclass
class ToolCallRepair:
    """What repair_orphaned_tool_calls returns: the model view and the synthesized ids."""

    messages: list[Message]
    repaired_tool_calls: list[str] = field(default_factory=list)


def interrupted_tool_result(call: PendingToolCall, timestamp: int | None = None) -> dict[str, Any]:
    """The placeholder receipt that says a call was interrupted before its result existed."""
    return receipt_message(call.id, call.name, time_ms() if timestamp is None else timestamp)


def is_interrupted_tool_result(message: Message) -> bool:
    """True only for the runtime-authored placeholder, never for a real error result."""
    return (
        isinstance(message, dict)
        and message.get("role") == "toolResult"
        and is_receipt(message.get("isError"), message.get("details"))
    )


def tool_calls(message: Message) -> list[PendingToolCall]:
    """The tool calls of an assistant message (parts typed toolCall with string id and name)."""
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    return [PendingToolCall(call.id, call.name) for call in calls_in_content(message.get("content"))]


def orphaned_tool_calls(messages: Sequence[Message]) -> list[PendingToolCall]:
    """Every call, in transcript order, whose id has no toolResult anywhere.

    Raises TypeError unless `messages` is a list of message dicts.
    """
    require_messages(messages, "orphaned_tool_calls")
    light = light_transcript(messages, clean=False)
    answered = {key for key in light.result_keys.values() if type(key) is str}
    return [
        PendingToolCall(call.id, call.name)
        for calls in light.frames.values()
        for call in calls
        if call.id not in answered
    ]


@without_gc
def repair_orphaned_tool_calls(messages: list[Message], now: Callable[[], int] = time_ms) -> ToolCallRepair:
    """Build a provider-legal model view; a healthy transcript comes back by identity.

    The cyclic GC is paused for the call (see integrity._bulk.gc_pause) and restored after it.
    Raises TypeError unless `messages` is a list of message dicts (naming the first
    element that is not; a {"messages": [...]} envelope gets a hint to pass that list).

    What the view shares with the input: a message carried unchanged is the input
    dict itself (mutating it mutates the durable record, as it is the record); a
    synthesized receipt is a new dict.  The reference never rewrites a message.
    """
    require_messages(messages, "repair_orphaned_tool_calls")
    plan = plan_openmaic(light_transcript(messages, clean=False))
    if not plan.changed:
        return ToolCallRepair(messages, [])
    assert plan.order is not None
    view, _ = materialize(plan.order, messages, plan.placeholder, now)
    return ToolCallRepair(view, plan.repaired_tool_calls)


def track_tool_call_message(in_flight: MutableMapping[str, PendingToolCall], message: Message) -> None:
    """Keep the map of calls whose frame is durable but whose result is not (yet)."""
    if not isinstance(message, dict):
        return
    role = message.get("role")
    if role == "assistant":
        for call in tool_calls(message):
            in_flight[call.id] = call
    elif role == "toolResult":
        call_id = message.get("toolCallId")
        if isinstance(call_id, str):
            in_flight.pop(call_id, None)
