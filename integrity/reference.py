"""The reference runtime's public tool-call integrity API, on plain pi-ai dicts.

Names and behaviour follow OpenMAIC's tool-call-integrity.ts exactly (its quirks
included) so tools written against the reference keep working unchanged.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, MutableMapping, Sequence

from .plan import Plan, Synthesized, SynthesizedTurn, plan_openmaic
from .views import calls_in_content, details_mark_interrupted, light_transcript

Message = Any  # a pi-ai AgentMessage as loaded from JSON (normally a dict)

INTERRUPTED_MESSAGE = "This tool call was interrupted before a result was recorded."
# Compact JSON with the reference's key order: what JSON.stringify produces.
INTERRUPTED_TEXT = json.dumps(
    {"ok": False, "error": "interrupted", "message": INTERRUPTED_MESSAGE}, separators=(",", ":")
)


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
    return {
        "role": "toolResult",
        "toolCallId": call.id,
        "toolName": call.name,
        "content": [{"type": "text", "text": INTERRUPTED_TEXT}],
        "details": {"ok": False, "error": "interrupted"},
        "isError": True,
        "timestamp": time_ms() if timestamp is None else timestamp,
    }


def is_interrupted_tool_result(message: Message) -> bool:
    """True only for the runtime-authored placeholder, never for a real error result."""
    return (
        isinstance(message, dict)
        and message.get("role") == "toolResult"
        and message.get("isError") is True
        and details_mark_interrupted(message.get("details"))
    )


def tool_calls(message: Message) -> list[PendingToolCall]:
    """The tool calls of an assistant message (parts typed toolCall with string id and name)."""
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    return [PendingToolCall(call.id, call.name) for call in calls_in_content(message.get("content"))]


def orphaned_tool_calls(messages: Sequence[Message]) -> list[PendingToolCall]:
    """Every call, in transcript order, whose id has no toolResult anywhere."""
    light = light_transcript(messages)
    answered = {key for key in light.result_keys.values() if type(key) is str}
    return [
        PendingToolCall(call.id, call.name)
        for calls in light.frames.values()
        for call in calls
        if call.id not in answered
    ]


def materialize(
    plan: Plan, messages: Sequence[Message], now: Callable[[], int] = time_ms
) -> tuple[list[Message], list[int]]:
    """Turn a changed plan into view messages; also return the timestamps given to synthesized
    receipts and synthesized turns, in view order.

    Kept messages are the input objects themselves (no copies), so the durable
    record can never be altered through the view.
    """
    assert plan.order is not None
    out: list[Message] = []
    stamps: list[int] = []
    for entry in plan.order:
        if type(entry) is int:
            out.append(messages[entry])
        elif isinstance(entry, Synthesized):
            stamp = now()
            stamps.append(stamp)
            out.append(synthesized_receipt(entry, stamp, plan.placeholder))
        elif isinstance(entry, SynthesizedTurn):
            from .legalize import turn_message

            stamp = now()
            stamps.append(stamp)
            out.append(turn_message(entry, stamp))
        else:  # a Rewritten or Merged durable message: a copy
            from .strict import view_message

            out.append(view_message(entry, messages))
    return out, stamps


def synthesized_receipt(entry: Synthesized, stamp: int, text: str | None = None) -> dict[str, Any]:
    """The receipt a plan asks for; the strict policy's text says the outcome is unknown."""
    receipt = interrupted_tool_result(PendingToolCall(entry.call_id, entry.tool_name), stamp)
    if text is not None:
        receipt["content"] = [{"type": "text", "text": text}]
    return receipt


def repair_orphaned_tool_calls(messages: list[Message], now: Callable[[], int] = time_ms) -> ToolCallRepair:
    """Build a provider-legal model view; a healthy transcript comes back by identity."""
    plan = plan_openmaic(light_transcript(messages))
    if not plan.changed:
        return ToolCallRepair(messages, [])
    view, _ = materialize(plan, messages, now)
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
