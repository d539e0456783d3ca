"""The structured repair report: what happened to every durable message, and why.

The reference only returns the ids it synthesized.  A reviewer needs more: which
messages moved, which duplicates were dropped in favour of which receipt, which
frames were left out, what was synthesized where, and what the policy did not
fix.  The report is built from the same plan that produced the view, and its
`view` list reproduces that view exactly (see `view_from_report`).
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Optional, Sequence

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from .legalize import member_index
from .plan import Merged, Plan, Synthesized
from .plan import SynthesizedTurn as PlannedTurn
from .strict import Rewritten, entry_index
from .views import LightTranscript

REPORT_VERSION = 1

ActionKind = Literal["kept", "moved", "dropped_duplicate", "dropped_interrupted_frame", "dropped_stray", "merged"]
FindingKind = Literal["stray_result", "malformed_result_id", "reused_call_id", "results_out_of_order", "empty_id",
                      "duplicate_result", "real_result_hidden"]
Outcome = Literal["answered", "moved", "synthesized", "shared"]


class Action(BaseModel):
    """What happened to one durable message."""

    durable_index: int
    role: Optional[str] = None
    kind: ActionKind
    view_index: Optional[int] = Field(None, description="first view position, None when dropped")
    also_view_indices: list[int] = Field(default_factory=list, description="further positions (a result answering a reused id)")
    new_ids: dict[str, str] = Field(default_factory=dict, description="old id -> id the view uses instead")
    kept_instead: Optional[int] = Field(None, description="for a dropped duplicate: the durable receipt kept; "
                                                          "for a merged message: the durable message carrying it")
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
    text: Optional[str] = Field(None, description="receipt text when it is not the reference's")


class SynthesizedTurn(BaseModel):
    """A user or assistant turn that exists only in the view (the provider's role order needs it)."""

    role: str
    text: str
    view_index: int
    timestamp: int
    reason: str


class Merge(BaseModel):
    """Consecutive durable messages of one role that the view sends as one message.

    The view message is the last member (with `ids` applied, as for a rewritten
    entry) carrying every member's content in order.
    """

    members: list[int]
    ids: Optional[dict[int, str]] = None
    view_index: int
    role: Optional[str] = None


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
    """One message of the view: a durable message, a synthesized receipt (index into
    `synthesized`), a synthesized turn (index into `turns`) or merged durable
    messages (index into `merges`).

    ids: set when the view carries a durable message with new call ids (strict
    policy, reused or missing ids): for a frame, call position -> new id; for a
    result, {-1: new toolCallId}.  The durable message itself is never changed.
    """

    source: Literal["durable", "synthesized", "turn", "merged"]
    index: int
    ids: Optional[dict[int, str]] = None


def _without_unused(data: Any, optional: tuple[str, ...]) -> Any:
    """Leave out fields that only provider role rules use, when unused (reports stay as before)."""
    if isinstance(data, dict):
        for key in optional:
            if key in data and not data[key]:
                del data[key]
    return data


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
    renamed: int = 0
    merged: int = 0
    turns_synthesized: int = 0
    findings: int

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_unused(handler(self), ("merged", "turns_synthesized"))


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
    turns: list[SynthesizedTurn] = Field(default_factory=list)
    merges: list[Merge] = Field(default_factory=list)
    provider: Optional[str] = Field(None, description="the provider whose role rules the view follows")

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_unused(handler(self), ("turns", "merges", "provider"))


def frame_answer_slots(light: LightTranscript, order: Sequence[Any]) -> list[tuple[int, int, int]]:
    """(view position, frame index, call position) for every answer slot in a changed view.

    Only frames are looked at: their view positions come from one C-speed scan of
    the plain entries plus the few rewritten ones, not a Python step per message.
    """
    frames = light.frames
    where = {entry: position for position, entry in enumerate(order) if type(entry) is int and entry in frames}
    for position, entry in [(p, e) for p, e in enumerate(order) if type(e) is not int]:
        index = entry_index(entry)  # rewritten or merged entries that carry a frame
        if index is not None and index in frames:
            where[index] = position
    slots = []
    for index, position in sorted(where.items(), key=lambda item: item[1]):
        for call_position in range(len(frames[index])):
            slots.append((position + 1 + call_position, index, call_position))
    return slots


def moved_results(light: LightTranscript, plan: Plan) -> dict[int, int]:
    """Durable result index -> view position, for results the view moved.

    A result is in place when it sits in the k-th slot after its frame and was
    the k-th message after that frame in the durable transcript too; anything
    else (split from its frame, reordered) is a move a reviewer should see.
    """
    moved: dict[int, int] = {}
    if not plan.changed or plan.order is None:
        return moved
    order = plan.order
    seen: set[int] = set()
    for view_position, frame, call_position in frame_answer_slots(light, order):
        entry = entry_index(order[view_position])
        if entry is not None and entry not in seen:
            seen.add(entry)
            if entry != frame + 1 + call_position:
                moved[entry] = view_position
    return moved


def _durable_run(light: LightTranscript, frame_index: int) -> list[int]:
    run = []
    cursor = frame_index + 1
    while cursor in light.result_keys:
        run.append(cursor)
        cursor += 1
    return run


def _renamed_ids(light: LightTranscript, index: int, ids: dict[int, str]) -> dict[str, str]:
    """old id -> new id for one rewritten view entry (a frame's calls, or a result)."""
    if -1 in ids:
        return {str(light.result_keys.get(index)): ids[-1]}
    calls = light.frames.get(index, ())
    return {calls[position].id: new for position, new in ids.items() if position < len(calls)}


def call_uses(light: LightTranscript) -> dict[str, list[tuple[int, int]]]:
    """Every call id -> the (frame index, call position) of each call that uses it."""
    uses: dict[str, list[tuple[int, int]]] = {}
    for index, calls in light.frames.items():
        for position, call in enumerate(calls):
            found = uses.get(call.id)
            if found is None:
                uses[call.id] = [(index, position)]
            else:
                found.append((index, position))
    return uses


def _findings(light: LightTranscript, plan: Plan, known: dict[str, list[tuple[int, int]]]) -> list[Finding]:
    findings: list[Finding] = []
    dropped_strays = set(plan.dropped_strays)
    for index, key in light.result_keys.items():
        if type(key) is not str:
            findings.append(Finding(kind="malformed_result_id", severity="error", durable_indices=[index],
                                    message=f"#{index}: toolResult has no string toolCallId; no call can own it"))
            continue
        if key not in known and index not in dropped_strays:
            findings.append(Finding(kind="stray_result", severity="error", durable_indices=[index], call_id=key,
                                    message=f"#{index}: result for call id {key!r}, which no call in this "
                                            "transcript has; left in place"))
        if key == "" and plan.policy != "strict":
            findings.append(Finding(kind="empty_id", severity="warning", durable_indices=[index], call_id="",
                                    message=f"#{index}: toolResult has an empty toolCallId"))
    if plan.policy != "strict":
        for call_id, extra in plan.more_results.items():
            left = [index for index in extra if index not in plan.dropped_duplicates]
            if call_id in known and left:
                findings.append(Finding(
                    kind="duplicate_result", severity="error", durable_indices=[plan.first_result[call_id], *left],
                    call_id=call_id,
                    message=f"call {call_id!r} has {1 + len(extra)} results (#{plan.first_result[call_id]}, "
                            + ", ".join(f"#{index}" for index in left) + "); the reference leaves the later ones in "
                            "place when nothing else needs repair, and providers reject a second result"))
        for dropped, kept in plan.dropped_duplicates.items():
            if kept in light.receipts and dropped not in light.receipts:
                findings.append(Finding(
                    kind="real_result_hidden", severity="warning", durable_indices=[kept, dropped],
                    call_id=light.result_id(dropped),
                    message=f"#{dropped} is the real result, but the interrupted receipt #{kept} came first and the "
                            "reference keeps the first: the model is told the call was interrupted "
                            "(the strict policy keeps the real result)"))
    for call_id, uses in known.items():
        frames = sorted({frame for frame, _ in uses})
        if plan.policy == "strict":
            continue  # strict pairs id-less calls by order and name, and renames reused ids
        if call_id == "":
            findings.append(Finding(kind="empty_id", severity="warning", durable_indices=frames, call_id="",
                                    message="tool call with an empty id in frame(s) "
                                            + ", ".join(f"#{f}" for f in frames)))
        if len(uses) > 1:
            where = ", ".join(f"#{f}" for f in frames)
            findings.append(Finding(kind="reused_call_id", severity="warning", durable_indices=frames, call_id=call_id,
                                    message=f"call id {call_id!r} is used by {len(uses)} calls (frames {where}); "
                                            "the reference answers every use with the first result"))
    if not plan.changed:
        for index, calls in light.frames.items():
            run = _durable_run(light, index)
            got = [light.result_keys[r] for r in run]
            wanted = [call.id for call in calls]
            if got != wanted and len(got) == len(wanted):
                findings.append(Finding(kind="results_out_of_order", severity="warning",
                                        durable_indices=[index, *run],
                                        message=f"#{index}: results follow the frame but not in call order "
                                                f"({', '.join(map(repr, got))} for calls "
                                                f"{', '.join(map(repr, wanted))})"))
    return findings


def _verdict(summary: Summary, changed: bool, error_findings: int) -> str:
    if not changed:
        if summary.findings == 0:
            return (f"healthy: {summary.messages} messages, {summary.calls} calls, "
                    "every call answered once, right after its frame")
        state = "would be rejected" if error_findings else "accepted"
        return f"unchanged ({state}): {summary.findings} finding(s) the policy leaves in place"
    parts = []
    for count, label in (
        (summary.moved, "moved"),
        (summary.duplicates_dropped, "duplicate receipt(s) dropped"),
        (summary.frames_dropped, "interrupted frame(s) dropped"),
        (summary.strays_dropped, "stray result(s) dropped"),
        (summary.synthesized, "receipt(s) synthesized"),
        (summary.renamed, "message(s) with renamed ids"),
        (summary.merged, "message(s) merged into the next of the same role"),
        (summary.turns_synthesized, "turn(s) synthesized for the provider's role order"),
    ):
        if count:
            parts.append(f"{count} {label}")
    text = "repaired: " + (", ".join(parts) if parts else "view rebuilt")
    if summary.findings:
        text += f"; {summary.findings} finding(s) left"
    return text


def summarize(light: LightTranscript, plan: Plan, findings: int = 0,
              moved: Optional[dict[int, int]] = None) -> Summary:
    """Counts for a plan without building per-message actions (cheap enough for huge files)."""
    known = {call.id for calls in light.frames.values() for call in calls}
    order = plan.order if plan.changed and plan.order is not None else None
    return Summary(
        messages=light.size,
        view_messages=len(order) if order is not None else light.size,
        calls=sum(len(calls) for calls in light.frames.values()),
        results=len(light.result_keys),
        orphaned_calls=len(plan.repaired_tool_calls),
        duplicates_dropped=len(plan.dropped_duplicates),
        moved=len(moved if moved is not None else moved_results(light, plan)),
        frames_dropped=len(plan.dropped_frames),
        strays_dropped=len(plan.dropped_strays),
        synthesized=sum(1 for entry in order if isinstance(entry, Synthesized)) if order is not None else 0,
        strays=sum(1 for key in light.result_keys.values() if key not in known),
        merged=len(plan.merged),
        turns_synthesized=sum(1 for entry in order if isinstance(entry, PlannedTurn)) if order is not None else 0,
        findings=findings,
    )


class Diagnosis(BaseModel):
    """What `check` prints: the verdict, counts and findings, without per-message detail."""

    source: Optional[str] = None
    policy: str
    changed: bool
    healthy: bool
    verdict: str
    summary: Summary
    findings: list[Finding]


def diagnose(light: LightTranscript, plan: Plan, source: Optional[str] = None) -> Diagnosis:
    """The report's verdict, summary and findings at a fraction of its cost (for huge files)."""
    findings = _findings(light, plan, call_uses(light))
    summary = summarize(light, plan, len(findings))
    errors = sum(1 for finding in findings if finding.severity == "error")
    return Diagnosis(source=source, policy=plan.policy, changed=plan.changed,
                     healthy=not plan.changed and errors == 0,
                     verdict=_verdict(summary, plan.changed, errors), summary=summary, findings=findings)


def build_report(
    light: LightTranscript,
    plan: Plan,
    stamps: Sequence[int] = (),
    source: Optional[str] = None,
) -> RepairReport:
    """Explain a plan: per-message actions, synthesized receipts, pairings, findings, summary."""
    total = light.size
    known = call_uses(light)
    positions: dict[int, list[int]] = {}
    answer_at: dict[tuple[int, int], tuple[int, Any]] = {}  # (frame, call pos) -> (view pos, entry)
    synthesized: list[SynthesizedReceipt] = []
    turns: list[SynthesizedTurn] = []
    merges: list[Merge] = []
    view_entries: list[dict[str, Any]] = []  # validated once, in Rust, at the end
    renames: dict[int, dict[str, str]] = {}
    moved = moved_results(light, plan)

    if plan.changed:
        order = plan.order or []
        stamped = 0  # stamps are given to synthesized receipts and turns, in view order
        for view_position, entry in enumerate(order):
            if isinstance(entry, PlannedTurn):
                stamp = stamps[stamped] if stamped < len(stamps) else 0
                stamped += 1
                view_entries.append(dict(source="turn", index=len(turns)))
                turns.append(SynthesizedTurn(role=entry.role, text=entry.text, view_index=view_position,
                                             timestamp=stamp, reason=entry.reason))
                continue
            if isinstance(entry, Merged):
                members = [member_index(member) for member in entry.entries]
                last = entry.entries[-1]
                ids = last.ids if isinstance(last, Rewritten) else None
                view_entries.append(dict(source="merged", index=len(merges)))
                merges.append(Merge(members=members, ids=ids, view_index=view_position,
                                    role=light.roles[members[-1]]))
                for member in members:
                    positions.setdefault(member, []).append(view_position)
                if ids:
                    renames[members[-1]] = _renamed_ids(light, members[-1], ids)
                continue
            if isinstance(entry, Synthesized):
                stamp = stamps[stamped] if stamped < len(stamps) else 0
                stamped += 1
                view_entries.append(dict(source="synthesized", index=len(synthesized)))
                synthesized.append(SynthesizedReceipt(call_id=entry.call_id, tool_name=entry.tool_name,
                                                      frame_index=entry.frame_index,
                                                      call_position=entry.call_position,
                                                      view_index=view_position, timestamp=stamp,
                                                      text=plan.placeholder))
                continue
            index = entry_index(entry)
            assert index is not None
            positions.setdefault(index, []).append(view_position)
            ids = entry.ids if isinstance(entry, Rewritten) else None
            view_entries.append(dict(source="durable", index=index, ids=ids))
            if ids:
                renames[index] = _renamed_ids(light, index, ids)
        for view_position, frame, call_position in frame_answer_slots(light, order):
            entry = order[view_position]
            answer_at[(frame, call_position)] = (view_position, entry_index(entry) if entry_index(entry) is not None else entry)
    else:
        for index in range(total):
            positions[index] = [index]
            view_entries.append(dict(source="durable", index=index))
        for index, calls in light.frames.items():
            by_id: dict[Any, int] = {}
            for r in _durable_run(light, index):
                by_id.setdefault(light.result_keys[r], r)
            for call_position, call in enumerate(calls):
                r = by_id.get(call.id)
                if r is not None:
                    answer_at[(index, call_position)] = (r, r)

    frames_dropped = set(plan.dropped_frames)
    dropped_strays = set(plan.dropped_strays)
    actions: list[dict[str, Any]] = []  # as for view_entries: per-object __init__ costs seconds at 100k
    for index in range(total):
        role = light.roles[index]
        call_id = light.result_id(index)
        note = plan.notes.get(index, "")
        if index in frames_dropped:
            stop = light.frame_stops.get(index, "it stopped abnormally")
            actions.append(dict(durable_index=index, role=role, kind="dropped_interrupted_frame",
                                  reason=note or f"assistant frame without tool calls that did not finish its turn "
                                                 f"({stop}); the reference drops such frames once it repairs "
                                                 "anything"))
        elif index in plan.dropped_duplicates:
            kept = plan.dropped_duplicates[index]
            if not note and kept in light.receipts and index not in light.receipts:
                note = (f"the real result for call {call_id!r}, dropped because the interrupted receipt #{kept} "
                        "was recorded first and the reference keeps the first receipt")
            actions.append(dict(durable_index=index, role=role, kind="dropped_duplicate", kept_instead=kept,
                                  call_id=call_id,
                                  reason=note or f"another result for call {call_id!r} was recorded first (#{kept}); "
                                                 "only that one is kept"))
        elif index in dropped_strays:
            actions.append(dict(durable_index=index, role=role, kind="dropped_stray", call_id=call_id,
                                  reason=note or f"no call in this transcript has id {call_id!r}; "
                                                 "providers reject a result without its call"))
        elif index in plan.merged:
            where = positions.get(index, [])
            actions.append(dict(durable_index=index, role=role, kind="merged",
                                  view_index=where[0] if where else None, kept_instead=plan.merged[index],
                                  reason=note or f"sent as part of #{plan.merged[index]}'s message"))
        else:
            where = positions.get(index, [])
            first = where[0] if where else None
            if index in moved:
                kind: ActionKind = "moved"
                reason = note or f"moved from #{index} to view position {moved[index]}, right after its frame, in call order"
            else:
                kind = "kept"
                reason = note
            new_ids = renames.get(index, {})
            if new_ids:
                renamed_text = ", ".join(f"{old!r} -> {new!r}" for old, new in new_ids.items())
                reason = (reason + "; " if reason else "") + (
                    f"ids renamed in the view ({renamed_text}): providers reject an id used twice or an empty id")
            actions.append(dict(durable_index=index, role=role, kind=kind,
                                  view_index=moved.get(index, first),
                                  also_view_indices=[p for p in where if p != moved.get(index, first)],
                                  new_ids=new_ids, call_id=call_id, reason=reason))

    pairings: list[dict[str, Any]] = []
    first_use: dict[str, tuple[int, int]] = {}
    for index, calls in light.frames.items():
        for call_position, call in enumerate(calls):
            first_use.setdefault(call.id, (index, call_position))
            found = answer_at.get((index, call_position))
            answered_by: Optional[int] = None
            view_index: Optional[int] = None
            if found is None:
                outcome: Outcome = "synthesized"
            else:
                view_index, entry = found
                if type(entry) is int:
                    answered_by = entry
                    if first_use[call.id] != (index, call_position) and plan.policy == "openmaic":
                        outcome = "shared"
                    elif moved.get(entry) == view_index:
                        outcome = "moved"
                    else:
                        outcome = "answered"
                else:
                    outcome = "synthesized"
            pairings.append(dict(call_id=call.id, tool_name=call.name, frame_index=index,
                                    call_position=call_position, result_indices=plan.results_for(call.id),
                                    answered_by=answered_by, view_index=view_index, outcome=outcome))

    findings = _findings(light, plan, known)
    summary = summarize(light, plan, len(findings), moved)
    summary.synthesized = len(synthesized)
    summary.renamed = len(renames)
    errors = sum(1 for finding in findings if finding.severity == "error")
    return RepairReport.model_validate(dict(
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
        turns=turns,
        merges=merges,
        provider=getattr(plan, "provider", None),
    ))


def view_from_report(report: RepairReport, messages: Sequence[Any]) -> list[Any]:
    """Rebuild the repaired view from a report and its durable transcript alone."""
    from .reference import PendingToolCall, interrupted_tool_result

    from .legalize import merge_messages, turn_message
    from .strict import rewrite_message

    out = []
    for entry in report.view:
        if entry.source == "durable":
            message = messages[entry.index]
            out.append(rewrite_message(message, entry.ids) if entry.ids else message)
        elif entry.source == "turn":
            turn = report.turns[entry.index]
            out.append(turn_message(PlannedTurn(turn.role, turn.text, turn.reason), turn.timestamp))
        elif entry.source == "merged":
            merge = report.merges[entry.index]
            members = [messages[member] for member in merge.members]
            if merge.ids:
                members[-1] = rewrite_message(members[-1], merge.ids)
            out.append(merge_messages(members))
        else:
            receipt = report.synthesized[entry.index]
            made = interrupted_tool_result(PendingToolCall(receipt.call_id, receipt.tool_name), receipt.timestamp)
            if receipt.text is not None:
                made["content"] = [{"type": "text", "text": receipt.text}]
            out.append(made)
    return out


def repair_with_report(
    messages: list[Any],
    now: Optional[Callable[[], int]] = None,
    source: Optional[str] = None,
    policy: str = "openmaic",
) -> tuple[Any, RepairReport]:
    """One pass: the repair result (ToolCallRepair) and the report that explains it."""
    from .analysis import analyze
    from .loading import Transcript
    from .reference import ToolCallRepair, time_ms

    analysis = analyze(Transcript(messages, source or "<input>"), policy, now or time_ms)
    return ToolCallRepair(analysis.view, list(analysis.plan.repaired_tool_calls)), analysis.report
