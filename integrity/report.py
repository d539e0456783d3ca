"""The structured repair report: what happened to every durable message, and why.

The reference only returns the ids it synthesized.  A reviewer needs more: which
messages moved, which duplicates were dropped in favour of which receipt, which
frames were left out, what was synthesized where, and what the policy did not
fix.  The report is built from the same plan that produced the view, and its
`view` list reproduces that view exactly (see `view_from_report`).
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Optional, Sequence

from pydantic import BaseModel, Field

from .plan import Plan, Synthesized
from .views import ASSISTANT, RESULT, MessageView

REPORT_VERSION = 1

ActionKind = Literal["kept", "moved", "dropped_duplicate", "dropped_interrupted_frame", "dropped_stray"]
FindingKind = Literal["stray_result", "malformed_result_id", "reused_call_id", "results_out_of_order", "empty_id"]
Outcome = Literal["answered", "moved", "synthesized", "shared"]


class Action(BaseModel):
    """What happened to one durable message."""

    durable_index: int
    role: Optional[str] = None
    kind: ActionKind
    view_index: Optional[int] = Field(None, description="first view position, None when dropped")
    also_view_indices: list[int] = Field(default_factory=list, description="further positions (a result answering a reused id)")
    kept_instead: Optional[int] = Field(None, description="for a dropped duplicate: the durable receipt kept")
    call_id: Optional[str] = None
    reason: str = ""


class SynthesizedReceipt(BaseModel):
    """An interrupted receipt that exists only in the view."""

    call_id: str
    tool_name: str
    frame_index: int
    call_position: int
    view_index: int
    timestamp: int


class Finding(BaseModel):
    """A defect the policy did not fix (it stays visible in the view)."""

    kind: FindingKind
    severity: Literal["error", "warning"]
    durable_indices: list[int]
    call_id: Optional[str] = None
    message: str


class Pairing(BaseModel):
    """One call and the result(s) recorded for it."""

    call_id: str
    tool_name: str
    frame_index: int
    call_position: int
    result_indices: list[int]
    answered_by: Optional[int] = Field(None, description="durable result used in the view; None when synthesized")
    view_index: Optional[int] = None
    outcome: Outcome


class ViewEntry(BaseModel):
    """One message of the view: a durable message, or a synthesized receipt (index into `synthesized`)."""

    source: Literal["durable", "synthesized"]
    index: int


class Summary(BaseModel):
    messages: int
    view_messages: int
    calls: int
    results: int
    orphaned_calls: int
    duplicates_dropped: int
    moved: int
    frames_dropped: int
    strays_dropped: int
    synthesized: int
    strays: int
    findings: int


class RepairReport(BaseModel):
    """Everything one repair pass did to one transcript."""

    report_version: int = REPORT_VERSION
    source: Optional[str] = None
    policy: str
    changed: bool
    healthy: bool
    verdict: str
    summary: Summary
    repaired_tool_calls: list[str]
    actions: list[Action]
    synthesized: list[SynthesizedReceipt]
    pairings: list[Pairing]
    findings: list[Finding]
    view: list[ViewEntry]


def _frame_answers(views: Sequence[MessageView], order: Sequence[Any]) -> list[tuple[int, int, int]]:
    """(view position, frame index, call position) for every answer slot in a changed view."""
    slots = []
    position = 0
    total = len(order)
    while position < total:
        entry = order[position]
        if type(entry) is int and views[entry].calls:
            for call_position in range(len(views[entry].calls)):
                slots.append((position + 1 + call_position, entry, call_position))
            position += 1 + len(views[entry].calls)
        else:
            position += 1
    return slots


def _durable_run(views: Sequence[MessageView], frame_index: int) -> list[int]:
    run = []
    cursor = frame_index + 1
    while cursor < len(views) and views[cursor].kind == RESULT:
        run.append(cursor)
        cursor += 1
    return run


def _findings(views: Sequence[MessageView], plan: Plan, known: dict[str, list[tuple[int, int]]]) -> list[Finding]:
    findings: list[Finding] = []
    for index, view in enumerate(views):
        if view.kind != RESULT:
            continue
        key = view.result_key
        if type(key) is not str:
            findings.append(Finding(kind="malformed_result_id", severity="error", durable_indices=[index],
                                    message=f"#{index}: toolResult has no string toolCallId; no call can own it"))
        elif key not in known and index not in plan_dropped_strays(plan):
            findings.append(Finding(kind="stray_result", severity="error", durable_indices=[index], call_id=key,
                                    message=f"#{index}: result for call id {key!r}, which no call in this transcript has; left in place"))
        if type(key) is str and key == "":
            findings.append(Finding(kind="empty_id", severity="warning", durable_indices=[index], call_id="",
                                    message=f"#{index}: toolResult has an empty toolCallId"))
    for call_id, uses in known.items():
        if call_id == "":
            findings.append(Finding(kind="empty_id", severity="warning", durable_indices=sorted({f for f, _ in uses}),
                                    call_id="", message="tool call with an empty id"))
        if len(uses) > 1:
            frames = sorted({f for f, _ in uses})
            where = ", ".join(f"#{f}" for f in frames)
            findings.append(Finding(kind="reused_call_id", severity="warning", durable_indices=frames, call_id=call_id,
                                    message=f"call id {call_id!r} is used by {len(uses)} calls (frames {where}); "
                                            "the reference answers every use with the first result"))
    if not plan.changed:
        for index, view in enumerate(views):
            if view.kind == ASSISTANT and view.calls:
                run = _durable_run(views, index)
                got = [views[r].result_key for r in run]
                wanted = [call.id for call in view.calls]
                if got != wanted and sorted(map(str, got)) == sorted(wanted):
                    findings.append(Finding(kind="results_out_of_order", severity="warning",
                                            durable_indices=[index, *run],
                                            message=f"#{index}: results follow the frame but not in call order "
                                                    f"({', '.join(map(repr, got))} for calls {', '.join(map(repr, wanted))})"))
    return findings


def plan_dropped_strays(plan: Plan) -> frozenset[int]:
    """Durable indices of stray results the policy dropped (none under the reference policy)."""
    return frozenset(getattr(plan, "dropped_strays", ()) or ())


def _verdict(summary: Summary, changed: bool, error_findings: int) -> str:
    if not changed:
        if summary.findings == 0:
            return (f"healthy: {summary.messages} messages, {summary.calls} calls, "
                    "every call answered once, right after its frame")
        state = "not accepted as is" if error_findings else "accepted"
        return f"unchanged ({state}): {summary.findings} finding(s) the policy leaves in place"
    parts = []
    for count, label in (
        (summary.moved, "moved"),
        (summary.duplicates_dropped, "duplicate receipt(s) dropped"),
        (summary.frames_dropped, "interrupted frame(s) dropped"),
        (summary.strays_dropped, "stray result(s) dropped"),
        (summary.synthesized, "receipt(s) synthesized"),
    ):
        if count:
            parts.append(f"{count} {label}")
    text = "repaired: " + (", ".join(parts) if parts else "view rebuilt")
    if summary.findings:
        text += f"; {summary.findings} finding(s) left"
    return text


def build_report(
    views: Sequence[MessageView],
    plan: Plan,
    stamps: Sequence[int] = (),
    source: Optional[str] = None,
) -> RepairReport:
    """Explain a plan: per-message actions, synthesized receipts, pairings, findings, summary."""
    total = len(views)
    known: dict[str, list[tuple[int, int]]] = {}
    calls = 0
    for index, view in enumerate(views):
        for position, call in enumerate(view.calls):
            known.setdefault(call.id, []).append((index, position))
            calls += 1
    result_indexes = plan.result_indexes
    results = sum(1 for view in views if view.kind == RESULT)

    positions: dict[int, list[int]] = {}
    answer_at: dict[tuple[int, int], tuple[int, Any]] = {}  # (frame, call pos) -> (view pos, entry)
    synthesized: list[SynthesizedReceipt] = []
    view_entries: list[ViewEntry] = []
    moved: set[int] = set()
    dropped_strays = plan_dropped_strays(plan)

    if plan.changed:
        order = plan.order or []
        for view_position, entry in enumerate(order):
            if type(entry) is int:
                positions.setdefault(entry, []).append(view_position)
                view_entries.append(ViewEntry(source="durable", index=entry))
            else:
                assert isinstance(entry, Synthesized)
                stamp = stamps[len(synthesized)] if len(synthesized) < len(stamps) else 0
                view_entries.append(ViewEntry(source="synthesized", index=len(synthesized)))
                synthesized.append(SynthesizedReceipt(call_id=entry.call_id, tool_name=entry.tool_name,
                                                      frame_index=entry.frame_index,
                                                      call_position=entry.call_position,
                                                      view_index=view_position, timestamp=stamp))
        for view_position, frame, call_position in _frame_answers(views, order):
            entry = order[view_position]
            answer_at[(frame, call_position)] = (view_position, entry)
            if type(entry) is int and entry != frame + 1 + call_position and positions[entry][0] == view_position:
                moved.add(entry)
    else:
        for index in range(total):
            positions[index] = [index]
            view_entries.append(ViewEntry(source="durable", index=index))
        for index, view in enumerate(views):
            if view.calls:
                run = _durable_run(views, index)
                by_id = {}
                for r in run:
                    by_id.setdefault(views[r].result_key, r)
                for call_position, call in enumerate(view.calls):
                    r = by_id.get(call.id)
                    if r is not None:
                        answer_at[(index, call_position)] = (r, r)

    frames_dropped = set(plan.dropped_frames)
    actions: list[Action] = []
    for index, view in enumerate(views):
        role = view.role
        call_id = view.result_id if view.kind == RESULT else None
        if index in frames_dropped:
            actions.append(Action(durable_index=index, role=role, kind="dropped_interrupted_frame",
                                  reason="assistant frame without tool calls that did not finish its turn "
                                         "(aborted, length, error or errorMessage); dropped from the view"))
        elif index in plan.dropped_duplicates:
            kept = plan.dropped_duplicates[index]
            actions.append(Action(durable_index=index, role=role, kind="dropped_duplicate", kept_instead=kept,
                                  call_id=call_id,
                                  reason=f"another receipt for call {call_id!r} was recorded first (#{kept}); "
                                         "only the first durable receipt is kept"))
        elif index in dropped_strays:
            actions.append(Action(durable_index=index, role=role, kind="dropped_stray", call_id=call_id,
                                  reason=f"no call in this transcript has id {call_id!r}; providers reject it"))
        else:
            where = positions.get(index, [])
            first = where[0] if where else None
            if index in moved:
                kind: ActionKind = "moved"
                reason = f"moved from #{index} to view position {first}, right after its frame, in call order"
            else:
                kind = "kept"
                reason = ""
            actions.append(Action(durable_index=index, role=role, kind=kind, view_index=first,
                                  also_view_indices=where[1:], call_id=call_id, reason=reason))

    pairings: list[Pairing] = []
    first_use: dict[str, tuple[int, int]] = {}
    for index, view in enumerate(views):
        for call_position, call in enumerate(view.calls):
            first_use.setdefault(call.id, (index, call_position))
            found = answer_at.get((index, call_position))
            result_list = list(result_indexes.get(call.id, []))
            if found is None:
                outcome: Outcome = "synthesized" if plan.changed else "answered"
                answered_by = None
                view_index = None
            else:
                view_index, entry = found
                if type(entry) is int:
                    answered_by = entry
                    if first_use[call.id] != (index, call_position):
                        outcome = "shared"
                    elif entry in moved:
                        outcome = "moved"
                    else:
                        outcome = "answered"
                else:
                    answered_by = None
                    outcome = "synthesized"
            pairings.append(Pairing(call_id=call.id, tool_name=call.name, frame_index=index,
                                    call_position=call_position, result_indices=result_list,
                                    answered_by=answered_by, view_index=view_index, outcome=outcome))

    findings = _findings(views, plan, known)
    strays = sum(1 for view in views if view.kind == RESULT and view.result_key not in known)
    summary = Summary(
        messages=total,
        view_messages=len(plan.order) if plan.changed and plan.order is not None else total,
        calls=calls,
        results=results,
        orphaned_calls=len(plan.repaired_tool_calls),
        duplicates_dropped=len(plan.dropped_duplicates),
        moved=len(moved),
        frames_dropped=len(frames_dropped),
        strays_dropped=len(dropped_strays),
        synthesized=len(synthesized),
        strays=strays,
        findings=len(findings),
    )
    errors = sum(1 for finding in findings if finding.severity == "error")
    return RepairReport(
        source=source,
        policy=plan.policy,
        changed=plan.changed,
        healthy=not plan.changed and errors == 0,
        verdict=_verdict(summary, plan.changed, errors),
        summary=summary,
        repaired_tool_calls=list(plan.repaired_tool_calls),
        actions=actions,
        synthesized=synthesized,
        pairings=pairings,
        findings=findings,
        view=view_entries,
    )


def view_from_report(report: RepairReport, messages: Sequence[Any]) -> list[Any]:
    """Rebuild the repaired view from a report and its durable transcript alone."""
    from .reference import PendingToolCall, interrupted_tool_result

    out = []
    for entry in report.view:
        if entry.source == "durable":
            out.append(messages[entry.index])
        else:
            receipt = report.synthesized[entry.index]
            out.append(interrupted_tool_result(PendingToolCall(receipt.call_id, receipt.tool_name), receipt.timestamp))
    return out


def repair_with_report(
    messages: list[Any],
    now: Optional[Callable[[], int]] = None,
    source: Optional[str] = None,
) -> tuple[Any, RepairReport]:
    """One pass: the reference repair result and the report that explains it."""
    from .plan import plan_openmaic
    from .reference import ToolCallRepair, materialize, time_ms
    from .views import view_of

    views = [view_of(message) for message in messages]
    plan = plan_openmaic(views)
    if plan.changed:
        view, stamps = materialize(plan, messages, now or time_ms)
        repair = ToolCallRepair(view, plan.repaired_tool_calls)
    else:
        stamps = []
        repair = ToolCallRepair(messages, [])
    return repair, build_report(views, plan, stamps, source)
