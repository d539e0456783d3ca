"""The repair algorithm, written once over light message views.

A plan says which durable messages the model view keeps, in which order, and
where interrupted receipts must be synthesized.  Both the dict API and the CLI's
fast path build views, call the planner, then materialize the plan their own way
(dict objects, or raw JSON bytes), so there is exactly one algorithm to trust.
"""

from __future__ import annotations

from typing import Sequence, Union

from .views import ASSISTANT, RESULT, MessageView


class Synthesized:
    """An interrupted receipt the view needs: the call it answers and where that call is."""

    __slots__ = ("call_id", "tool_name", "frame_index", "call_position")

    def __init__(self, call_id: str, tool_name: str, frame_index: int, call_position: int) -> None:
        self.call_id = call_id
        self.tool_name = tool_name
        self.frame_index = frame_index
        self.call_position = call_position

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Synthesized({self.call_id!r} for frame {self.frame_index})"


ViewEntry = Union[int, Synthesized]


class Plan:
    """The outcome of planning one transcript.

    changed: False means the view is the durable transcript itself (identity).
    order: the view, as durable indices and Synthesized entries (None when unchanged).
    repaired_tool_calls: ids that had no result anywhere, in frame order.
    dropped_frames: durable indices of interrupted assistant frames left out.
    dropped_duplicates: durable index of a dropped receipt -> the receipt kept instead.
    """

    __slots__ = (
        "policy",
        "changed",
        "order",
        "repaired_tool_calls",
        "dropped_frames",
        "dropped_duplicates",
        "result_indexes",
    )

    def __init__(self, policy: str) -> None:
        self.policy = policy
        self.changed = False
        self.order: list[ViewEntry] | None = None
        self.repaired_tool_calls: list[str] = []
        self.dropped_frames: list[int] = []
        self.dropped_duplicates: dict[int, int] = {}
        self.result_indexes: dict[str, list[int]] = {}


def index_results(views: Sequence[MessageView]) -> dict[str, list[int]]:
    """Durable indices of the results for every string call id, in transcript order."""
    indexes: dict[str, list[int]] = {}
    for index, view in enumerate(views):
        if view.kind == RESULT:
            key = view.result_key
            if type(key) is str:
                found = indexes.get(key)
                if found is None:
                    indexes[key] = [index]
                else:
                    found.append(index)
    return indexes


def run_matches_frame(views: Sequence[MessageView], frame_index: int) -> bool:
    """The results right after a frame are exactly its call ids (order not checked).

    Mirrors the reference: the run is every consecutive toolResult, the expected
    ids form a set (so a frame repeating an id expects it once), and both sides
    must contain each other with the run as long as the set.
    """
    expected = {call.id for call in views[frame_index].calls}
    run = []
    cursor = frame_index + 1
    total = len(views)
    while cursor < total and views[cursor].kind == RESULT:
        run.append(views[cursor].result_key)
        cursor += 1
    if len(run) != len(expected):
        return False
    return all(key in expected for key in run) and all(call_id in run for call_id in expected)


def plan_openmaic(views: Sequence[MessageView]) -> Plan:
    """The reference repair (OpenMAIC repairOrphanedToolCalls), quirks included."""
    plan = Plan("openmaic")
    result_indexes = index_results(views)
    plan.result_indexes = result_indexes
    frames = [index for index, view in enumerate(views) if view.kind == ASSISTANT and view.calls]

    needs_repair = False
    repaired: list[str] = []
    for frame_index in frames:
        if not needs_repair and not run_matches_frame(views, frame_index):
            needs_repair = True
        for call in views[frame_index].calls:
            if call.id not in result_indexes:
                repaired.append(call.id)
    plan.repaired_tool_calls = repaired
    if not needs_repair and not repaired:
        return plan

    plan.changed = True
    known_ids = {call.id for frame_index in frames for call in views[frame_index].calls}
    owned: set[int] = set()
    for call_id, indexes in result_indexes.items():
        if call_id in known_ids:
            owned.update(indexes)
            for duplicate in indexes[1:]:
                plan.dropped_duplicates[duplicate] = indexes[0]

    order: list[ViewEntry] = []
    append = order.append
    for index, view in enumerate(views):
        if index in owned:
            continue
        if view.interrupted_frame:
            plan.dropped_frames.append(index)
            continue
        append(index)
        if view.calls:
            for position, call in enumerate(view.calls):
                found = result_indexes.get(call.id)
                append(found[0] if found else Synthesized(call.id, call.name, index, position))
    plan.order = order
    return plan
