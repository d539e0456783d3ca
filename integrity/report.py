"""The structured repair report: what happened to every durable message, and why.

The reference only returns the ids it synthesized.  A reviewer needs more: which
messages moved, which duplicates were dropped in favour of which receipt, which
frames were left out, what was synthesized where, and what the policy did not
fix.  The report is built from the same plan that produced the view; its `view`
is a list of typed entries that reproduces that view exactly (`view_from_report`
goes through the same materializer as the repair itself).

Kinds, severities and the verdict's wording come from the registry
(integrity.kinds); every reason is rendered from a structured note
(integrity.notes), whose codes the report carries next to the sentence.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from itertools import islice
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from ._entries import (
    Merged,
    Rewritten,
    Synthesized,
    SynthesizedTurn,
    ViewEntry,
    entry_index,
    entry_message,
    member_index,
)
from ._findings import Finding, find_defects
from ._gc import without_gc
from ._plan import Plan
from ._policies import DEFAULT_POLICY
from ._views import LightTranscript
from .kinds import REPAIR_KINDS, VERDICT_ORDER, RepairKind, Severity
from .notes import Note, NoteCode, render, render_all

REPORT_VERSION = 2
"""2: `view` holds typed entries (receipts, turns and merges inline); actions carry note codes."""

Outcome = Literal["answered", "moved", "synthesized", "shared"]

__all__ = [
    "Action", "Diagnosis", "DurableView", "Finding", "MergedView", "Pairing", "ReceiptView", "RepairReport",
    "Summary", "TurnView", "ViewItem", "build_report", "diagnose", "repair_with_report", "view_from_report",
]


class Action(BaseModel):
    """What happened to one durable message."""

    durable_index: int
    role: str | None = None
    kind: RepairKind
    view_index: int | None = Field(None, description="first view position, None when dropped")
    also_view_indices: list[int] = Field(default_factory=list,
                                         description="further positions (a result answering a reused id)")
    new_ids: dict[str, str] = Field(default_factory=dict, description="old id -> id the view uses instead")
    kept_instead: int | None = Field(None, description="for a dropped duplicate: the durable result kept; "
                                                          "for a merged message: the durable message carrying it")
    call_id: str | None = None
    codes: list[NoteCode] = Field(default_factory=list, description="why, as note codes (see integrity.notes)")
    reason: str = ""


class DurableView(BaseModel):
    """A durable message in the view; with `ids`, carried with new call ids (a copy).

    ids: for a frame, call position -> new id; for a result, {-1: new toolCallId}.
    """

    source: Literal["durable"] = "durable"
    index: int
    ids: dict[int, str] | None = None


class ReceiptView(BaseModel):
    """An interrupted receipt that exists only in the view."""

    source: Literal["synthesized"] = "synthesized"
    view_index: int
    call_id: str
    tool_name: str
    frame_index: int
    call_position: int
    timestamp: int
    text: str | None = Field(None, description="receipt text when it is not the reference's")


class TurnView(BaseModel):
    """A user or assistant turn that exists only in the view (the provider's role order needs it)."""

    source: Literal["turn"] = "turn"
    view_index: int
    role: str
    text: str
    timestamp: int
    code: NoteCode
    reason: str


class MergedView(BaseModel):
    """Consecutive durable messages of one role that the view sends as one message.

    The view message is the last member (with `ids` applied, as for a durable
    entry) carrying every member's content in order.
    """

    source: Literal["merged"] = "merged"
    view_index: int
    members: list[int]
    ids: dict[int, str] | None = None
    role: str | None = None


ViewItem = Annotated[DurableView | ReceiptView | TurnView | MergedView, Field(discriminator="source")]


class Pairing(BaseModel):
    """One call and the result(s) recorded for it."""

    call_id: str
    tool_name: str
    frame_index: int
    call_position: int
    result_indices: list[int]
    answered_by: int | None = Field(None, description="durable result used in the view; None when synthesized")
    view_index: int | None = None
    outcome: Outcome


def _without_unused(data: Any, optional: tuple[str, ...]) -> Any:
    """Leave out counts that only provider role rules use, when zero (reports stay as before)."""
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
    source: str | None = None
    policy: str
    changed: bool
    healthy: bool
    verdict: str
    summary: Summary
    repaired_tool_calls: list[str]
    actions: list[Action]
    pairings: list[Pairing]
    findings: list[Finding]
    view: list[ViewItem]
    provider: str | None = Field(None, description="the provider whose role rules the view follows")

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        """Read a version 1 report (receipts, turns and merges in side tables) as version 2."""
        if isinstance(data, dict) and data.get("report_version") == 1:
            from ._report_v1 import upgrade

            return upgrade(data)
        return data

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_unused(handler(self), ("provider",))

    @property
    def synthesized(self) -> list[ReceiptView]:
        """The receipts that exist only in the view, in view order."""
        return [entry for entry in self.view if isinstance(entry, ReceiptView)]

    @property
    def turns(self) -> list[TurnView]:
        """The turns that exist only in the view, in view order."""
        return [entry for entry in self.view if isinstance(entry, TurnView)]

    @property
    def merges(self) -> list[MergedView]:
        """The merged messages of the view, in view order."""
        return [entry for entry in self.view if isinstance(entry, MergedView)]


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
    """Durable index -> view position, for messages the view moved.

    A result is in place when it sits in the k-th slot after its frame and was
    the k-th message after that frame in the durable transcript too; anything
    else (split from its frame, reordered) is a move a reviewer should see.  A
    message outside the answer slots is moved when the view puts it before a
    message recorded earlier (the reference leaves strays in place while it
    moves results around them): one definition for the report and every screen.
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
    if _has_unowned_results(light):
        moved.update(_reordered(order, moved))
    return moved


def _has_unowned_results(light: LightTranscript) -> bool:
    known = {call.id for calls in light.frames.values() for call in calls}
    return any(key not in known for key in light.result_keys.values())


def _reordered(order: Sequence[ViewEntry], moved: dict[int, int]) -> dict[int, int]:
    """Messages not yet counted as moved that the view puts before a message recorded earlier.

    Scanning in durable order, a message whose view position is not after the
    previous one's has changed places: a reviewer must see it move.
    """
    kept = [entry for entry in order if type(entry) is int and entry not in moved]
    if all(map(operator.lt, kept, islice(kept, 1, None))):
        return {}  # the common case, checked at C speed: every kept message in durable order, once
    first: dict[int, int] = {}
    for position, entry in enumerate(order):
        index = entry if type(entry) is int else (entry.index if isinstance(entry, Rewritten) else None)
        if index is not None and index not in moved and index not in first:
            first[index] = position
    reordered: dict[int, int] = {}
    last = -1
    for index in sorted(first):
        if first[index] > last:
            last = first[index]
        else:
            reordered[index] = first[index]
    return reordered


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


def _verdict(summary: Summary, changed: bool, error_findings: int, malformed: int = 0) -> str:
    """The one-line verdict; what a repair changed is worded by the kind registry.

    malformed: how many findings are schema findings (never healthy, named first).
    """
    if not changed:
        if summary.findings == 0:
            return (f"healthy: {summary.messages} messages, {summary.calls} calls, "
                    "every call answered once, right after its frame")
        state = "malformed" if malformed else "would be rejected" if error_findings else "accepted"
        return f"unchanged ({state}): {summary.findings} finding(s) the policy leaves in place"
    parts = []
    for kind in VERDICT_ORDER:
        facts = REPAIR_KINDS[kind]
        count = getattr(summary, facts.summary_field or "")
        if count:
            parts.append(f"{count} {facts.verdict}")
    text = "repaired: " + (", ".join(parts) if parts else "view rebuilt")
    if summary.findings:
        text += f"; {summary.findings} finding(s) left" + (f" ({malformed} malformed)" if malformed else "")
    return text


def summarize(light: LightTranscript, plan: Plan, findings: int = 0,
              moved: dict[int, int] | None = None) -> Summary:
    """Counts for a plan without building per-message actions (cheap enough for huge files)."""
    known = {call.id for calls in light.frames.values() for call in calls}
    order = plan.order if plan.changed and plan.order is not None else None
    # the few entries that are not plain durable messages, picked out at C speed
    others = [entry for entry in order if type(entry) is not int] if order is not None else []
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
        synthesized=sum(1 for entry in others if isinstance(entry, Synthesized)),
        strays=sum(1 for key in light.result_keys.values() if key not in known),
        renamed=sum(1 for entry in others if isinstance(entry, Rewritten)
                    or (isinstance(entry, Merged) and isinstance(entry.entries[-1], Rewritten))),
        merged=len(plan.merged),
        turns_synthesized=sum(1 for entry in others if isinstance(entry, SynthesizedTurn)),
        findings=findings,
    )


class Diagnosis(BaseModel):
    """What `check` prints: the verdict, counts and findings, without per-message detail."""

    source: str | None = None
    policy: str
    changed: bool
    healthy: bool
    verdict: str
    summary: Summary
    findings: list[Finding]


def _errors(findings: list[Finding]) -> int:
    return sum(1 for finding in findings if finding.severity == Severity.ERROR)


def _malformed(findings: list[Finding]) -> int:
    return sum(1 for finding in findings if finding.severity == Severity.MALFORMED)


def _judged(light: LightTranscript, plan: Plan, schema: Sequence[Finding], moved: dict[int, int] | None = None
            ) -> tuple[list[Finding], Summary, bool, str]:
    """Findings (schema findings first), summary, healthy and verdict: one rule for report and diagnosis.

    A transcript with a malformed finding is never healthy, whatever the plan.
    """
    findings = [*schema, *find_defects(light, plan, call_uses(light))]
    summary = summarize(light, plan, len(findings), moved)
    errors, malformed = _errors(findings), _malformed(findings)
    healthy = not plan.changed and errors == 0 and malformed == 0
    return findings, summary, healthy, _verdict(summary, plan.changed, errors, malformed)


def diagnose(light: LightTranscript, plan: Plan, source: str | None = None,
             schema: Sequence[Finding] = ()) -> Diagnosis:
    """The report's verdict, summary and findings at a fraction of its cost (for huge files).

    schema: the transcript's schema findings (integrity.schema), reported first.
    """
    findings, summary, healthy, verdict = _judged(light, plan, schema)
    return Diagnosis(source=source, policy=plan.policy, changed=plan.changed, healthy=healthy,
                     verdict=verdict, summary=summary, findings=findings)


class _ViewFacts:
    """What the view does with each durable message, gathered in one walk over the plan's order."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []  # validated once, in Rust, with the report
        self.positions: dict[int, list[int]] = {}
        self.renames: dict[int, dict[str, str]] = {}
        self.answer_at: dict[tuple[int, int], tuple[int, Any]] = {}  # (frame, call pos) -> (view pos, entry)


def _renamed_ids(light: LightTranscript, index: int, ids: Any) -> dict[str, str]:
    """old id -> new id for one rewritten view entry (a frame's calls, or a result)."""
    if -1 in ids:
        return {str(light.result_keys.get(index)): ids[-1]}
    calls = light.frames.get(index, ())
    return {calls[position].id: new for position, new in ids.items() if position < len(calls)}


def _view_entry(light: LightTranscript, plan: Plan, facts: _ViewFacts, position: int, entry: ViewEntry,
                stamp: Callable[[], int]) -> dict[str, Any]:
    if isinstance(entry, SynthesizedTurn):
        return dict(source="turn", view_index=position, role=entry.role, text=entry.text, timestamp=stamp(),
                    code=entry.reason.code, reason=render(entry.reason))
    if isinstance(entry, Synthesized):
        return dict(source="synthesized", view_index=position, call_id=entry.call_id, tool_name=entry.tool_name,
                    frame_index=entry.frame_index, call_position=entry.call_position, timestamp=stamp(),
                    text=plan.placeholder)
    members = entry.entries if isinstance(entry, Merged) else (entry,)
    for member in members:
        facts.positions.setdefault(member_index(member), []).append(position)
    last = members[-1]
    ids = dict(last.ids) if isinstance(last, Rewritten) else None
    carrier = entry_index(last)
    assert carrier is not None
    if ids:
        facts.renames[carrier] = _renamed_ids(light, carrier, ids)
    if isinstance(entry, Merged):
        members_at = [entry_index(member) for member in members]
        return dict(source="merged", view_index=position, members=members_at, ids=ids, role=light.roles[carrier])
    return dict(source="durable", index=carrier, ids=ids)


def _view_facts(light: LightTranscript, plan: Plan, stamps: Sequence[int]) -> _ViewFacts:
    """Typed view entries, each durable message's view positions, renamed ids and answer slots."""
    facts = _ViewFacts()
    if not plan.changed:
        facts.entries = [dict(source="durable", index=index) for index in range(light.size)]
        facts.positions = {index: [index] for index in range(light.size)}
        for index, calls in light.frames.items():
            by_id: dict[Any, int] = {}
            for result in _durable_run(light, index):
                by_id.setdefault(light.result_keys[result], result)
            for call_position, call in enumerate(calls):
                found = by_id.get(call.id)
                if found is not None:
                    facts.answer_at[(index, call_position)] = (found, found)
        return facts
    order = plan.order or []
    given = iter(stamps)

    def stamp() -> int:
        return next(given, 0)

    append = facts.entries.append
    positions = facts.positions
    for position, entry in enumerate(order):
        if type(entry) is int:
            append(dict(source="durable", index=entry))
            positions.setdefault(entry, []).append(position)
        else:
            append(_view_entry(light, plan, facts, position, entry, stamp))
    for position, frame, call_position in frame_answer_slots(light, order):
        answer = order[position]
        carried = entry_index(answer)
        facts.answer_at[(frame, call_position)] = (position, carried if carried is not None else answer)
    return facts


def _durable_run(light: LightTranscript, frame_index: int) -> list[int]:
    run = []
    cursor = frame_index + 1
    while cursor in light.result_keys:
        run.append(cursor)
        cursor += 1
    return run


def _action(kind: RepairKind, index: int, role: Any, notes: list[Note], **fields: Any) -> dict[str, Any]:
    return dict(durable_index=index, role=role, kind=kind, codes=[note.code for note in notes],
                reason=render_all(notes), **fields)


def _dropped_action(light: LightTranscript, plan: Plan, dropped: tuple[set[int], set[int]], index: int, role: Any,
                    note: Note | None) -> dict[str, Any] | None:
    """The action for a message the view leaves out, or None when the view carries it.

    dropped: the plan's dropped frames and dropped strays, as sets.
    """
    frames, strays = dropped
    call_id = light.result_id(index)
    if index in frames:
        stop = light.frame_stops.get(index, "it stopped abnormally")
        note = note or Note.of(NoteCode.FRAME_DROPPED_BY_REFERENCE, stop=stop)
        return _action(RepairKind.DROPPED_INTERRUPTED_FRAME, index, role, [note])
    if index in plan.dropped_duplicates:
        kept = plan.dropped_duplicates[index]
        if note is None:
            real_lost = kept in light.receipts and index not in light.receipts
            code = NoteCode.REAL_RESULT_AFTER_RECEIPT if real_lost else NoteCode.LATER_DUPLICATE
            note = Note.of(code, call_id=call_id, kept=kept)
        return _action(RepairKind.DROPPED_DUPLICATE, index, role, [note], kept_instead=kept, call_id=call_id)
    if index in strays:
        return _action(RepairKind.DROPPED_STRAY, index, role, [note or Note.of(NoteCode.STRAY, call_id=call_id)],
                       call_id=call_id)
    return None


def _actions(light: LightTranscript, plan: Plan, facts: _ViewFacts, moved: dict[int, int]) -> list[dict[str, Any]]:
    """One action per durable message (plain dicts: per-object __init__ costs seconds at 100k)."""
    actions: list[dict[str, Any]] = []
    dropped = (set(plan.dropped_frames), set(plan.dropped_strays))
    for index in range(light.size):
        role = light.roles[index]
        note = plan.notes.get(index)
        left_out = _dropped_action(light, plan, dropped, index, role, note)
        if left_out is not None:
            actions.append(left_out)
            continue
        where = facts.positions.get(index, [])
        if index in plan.merged:
            carrier = plan.merged[index]
            notes = [note or Note.of(NoteCode.MERGED, carrier=carrier)]
            actions.append(_action(RepairKind.MERGED, index, role, notes,
                                   view_index=where[0] if where else None, kept_instead=carrier))
            continue
        first = moved.get(index, where[0] if where else None)
        notes = [note] if note is not None else []
        kind = RepairKind.KEPT
        if index in moved:
            kind = RepairKind.MOVED
            notes = notes or [Note.of(NoteCode.MOVED, index=index, view_index=moved[index])]
        new_ids = facts.renames.get(index, {})
        renamed = {old: new for old, new in new_ids.items() if old != new}
        if renamed:
            notes.append(Note.of(NoteCode.RENAMED, ids=renamed))
        if len(renamed) < len(new_ids):  # a numeric id keeps its text: only its JSON type changes
            notes.append(Note.of(NoteCode.NUMERIC_IDS_AS_TEXT, ids=[old for old in new_ids if old not in renamed]))
        actions.append(_action(kind, index, role, notes, view_index=first,
                               also_view_indices=[p for p in where if p != first], new_ids=new_ids,
                               call_id=light.result_id(index)))
    return actions


def _pairings(light: LightTranscript, plan: Plan, facts: _ViewFacts, moved: dict[int, int]) -> list[dict[str, Any]]:
    """Every call with the result(s) recorded for it and the one the view uses."""
    pairings: list[dict[str, Any]] = []
    first_use: dict[str, tuple[int, int]] = {}
    for index, calls in light.frames.items():
        for call_position, call in enumerate(calls):
            first_use.setdefault(call.id, (index, call_position))
            found = facts.answer_at.get((index, call_position))
            answered_by: int | None = None
            view_index: int | None = None
            outcome: Outcome = "synthesized"
            if found is not None:
                view_index, entry = found
                if type(entry) is int:
                    answered_by = entry
                    if first_use[call.id] != (index, call_position) and plan.policy == "openmaic":
                        outcome = "shared"
                    elif moved.get(entry) == view_index:
                        outcome = "moved"
                    else:
                        outcome = "answered"
            pairings.append(dict(call_id=call.id, tool_name=call.name, frame_index=index,
                                 call_position=call_position, result_indices=plan.results_for(call.id),
                                 answered_by=answered_by, view_index=view_index, outcome=outcome))
    return pairings


def build_report(
    light: LightTranscript,
    plan: Plan,
    stamps: Sequence[int] = (),
    source: str | None = None,
    schema: Sequence[Finding] = (),
) -> RepairReport:
    """Explain a plan: per-message actions, the typed view, pairings, findings, summary and verdict.

    stamps: the timestamps the materializer gave synthesized receipts and turns, in view order.
    schema: the transcript's schema findings (integrity.schema), reported first.
    """
    moved = moved_results(light, plan)
    facts = _view_facts(light, plan, stamps)
    findings, summary, healthy, verdict = _judged(light, plan, schema, moved)
    return RepairReport.model_validate(dict(
        source=source,
        policy=plan.policy,
        changed=plan.changed,
        healthy=healthy,
        verdict=verdict,
        summary=summary,
        repaired_tool_calls=list(plan.repaired_tool_calls),
        actions=_actions(light, plan, facts, moved),
        pairings=_pairings(light, plan, facts, moved),
        findings=findings,
        view=facts.entries,
        provider=plan.provider,
    ))


def _plan_entry(item: Any) -> ViewEntry:
    """The plan entry a report view entry stands for (the inverse of _view_entry)."""
    if isinstance(item, DurableView):
        return Rewritten(item.index, item.ids) if item.ids else item.index
    if isinstance(item, ReceiptView):
        return Synthesized(item.call_id, item.tool_name, item.frame_index, item.call_position)
    if isinstance(item, TurnView):
        return SynthesizedTurn(item.role, item.text, Note(item.code))
    members: list[Any] = list(item.members)
    if item.ids:
        members[-1] = Rewritten(members[-1], item.ids)
    return Merged(tuple(members))


def _constant(value: int) -> Callable[[], int]:
    return lambda: value


def view_from_report(report: RepairReport, messages: Sequence[Any]) -> list[Any]:
    """Rebuild the repaired view from a report and its durable transcript alone.

    Every entry goes through the materializer the repair itself uses.  Raises
    TypeError unless `messages` is a list of message dicts.
    """
    from ._arguments import require_messages

    require_messages(messages, "view_from_report")
    durable = messages.__getitem__
    out = []
    for item in report.view:
        if isinstance(item, DurableView) and not item.ids:
            out.append(messages[item.index])
            continue
        stamp = item.timestamp if isinstance(item, (ReceiptView, TurnView)) else 0
        text = item.text if isinstance(item, ReceiptView) else None
        out.append(entry_message(_plan_entry(item), durable, text, _constant(stamp)))
    return out


@without_gc
def repair_with_report(
    messages: list[Any],
    now: Callable[[], int] | None = None,
    source: str | None = None,
    policy: str = DEFAULT_POLICY,
) -> tuple[Any, RepairReport]:
    """One pass: the repair result (ToolCallRepair) and the report that explains it (strict by default).

    The cyclic GC is paused for the call (see integrity._gc) and restored after it.
    Raises TypeError unless `messages` is a list of message dicts (naming the first
    element that is not; a {"messages": [...]} envelope gets a hint to pass that list).

    What the view shares with the input: a message the view carries unchanged
    (report.view entry `durable` without `ids`) is the input dict itself; every
    message the view changes (renamed ids, merged turns) is a deep copy, and
    receipts and turns are new, so mutating any of those (their `arguments`,
    `content`, `details`) never changes the input.
    """
    from ._arguments import require_messages
    from .analysis import analyze
    from .loading import Transcript
    from .reference import ToolCallRepair, time_ms

    require_messages(messages, "repair_with_report")
    analysis = analyze(Transcript(messages, source or "<input>"), policy, now or time_ms)
    return ToolCallRepair(analysis.view, list(analysis.plan.repaired_tool_calls)), analysis.report
