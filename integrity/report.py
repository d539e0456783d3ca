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

import bisect
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

import msgspec

from ._diagnosis import (
    AsRecorded,
    Diagnosis,
    Moves,
    Summary,
    _change,
    _judged,
    _malformed,
    _rated_findings,
    _renamed_ids,
    _verdict,
    call_uses,
    diagnose,
    fails_only_as_recorded,
    frame_answer_slots,
    moved_results,
    moves,
    own_provider,
    summarize,
    with_recorded,
)
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
from ._findings import Finding
from ._gc import without_gc
from ._plan import Plan
from ._policies import DEFAULT_POLICY
from ._records import Record
from ._views import LightTranscript
from .kinds import REPAIR_KINDS, RepairKind, Severity, fails, rate, worst
from .notes import Note, NoteCode, render, render_all

REPORT_VERSION = 3
"""2: `view` holds typed entries (receipts, turns and merges inline); actions carry note codes.
3: severities are info, normalized, lossy, rejected, malformed (version 2 said error/warning); every
action, synthesized receipt and turn carries one; the report has the worst (`severity`) and, when
known, what each provider says about the transcript as recorded (`as_recorded`)."""

Outcome = Literal["answered", "moved", "synthesized", "shared"]

__all__ = [
    "Action", "Diagnosis", "DurableView", "Finding", "MergedView", "Pairing", "ReceiptView", "RepairReport",
    "Summary", "TurnView", "ViewItem", "build_report", "diagnose", "repair_with_report", "view_from_report",
    # the diagnosis's rules, which the report shares (integrity._diagnosis), importable from here as before
    "fails_only_as_recorded", "moved_results", "moves", "own_provider", "summarize", "with_recorded",
]


class Action(Record, kw_only=True):
    """What happened to one durable message."""

    durable_index: int
    role: str | None = None
    kind: RepairKind
    view_index: int | None = None
    """first view position, None when dropped"""
    also_view_indices: list[int] = msgspec.field(default_factory=list)
    """further positions (a result answering a reused id)"""
    new_ids: dict[str, str] = msgspec.field(default_factory=dict)
    """old id -> id the view uses instead"""
    kept_instead: int | None = None
    """for a dropped duplicate: the durable result kept; for a merged message: the durable message carrying it"""
    call_id: str | None = None
    codes: list[NoteCode] = msgspec.field(default_factory=list)
    """why, as note codes (see integrity.notes)"""
    reason: str = ""
    severity: Severity = Severity.INFO
    """how bad the defect behind it is (integrity.kinds)"""

    @classmethod
    def _before(cls, data: Any) -> Any:
        """An action of an older report has no severity: rate it from its kind and codes."""
        if isinstance(data, dict) and "severity" not in data and "kind" in data:
            data = {**data, "severity": rate(data["kind"], data.get("codes") or ())}
        return data


class DurableView(Record, kw_only=True, tag_field="source", tag="durable"):
    """A durable message in the view; with `ids`, carried with new call ids (a copy).

    ids: for a frame, call position -> new id; for a result, {-1: new toolCallId}.
    """

    source: ClassVar[Literal["durable"]] = "durable"
    index: int
    ids: dict[int, str] | None = None


class ReceiptView(Record, kw_only=True, tag_field="source", tag="synthesized"):
    """An interrupted receipt that exists only in the view."""

    source: ClassVar[Literal["synthesized"]] = "synthesized"
    view_index: int
    call_id: str
    tool_name: str
    frame_index: int
    call_position: int
    timestamp: int
    text: str | None = None
    """receipt text when it is not the reference's"""
    severity: Severity = REPAIR_KINDS[RepairKind.SYNTHESIZED].severity
    """a call without a result: rejected, or lossy when accepted as recorded"""


class TurnView(Record, kw_only=True, tag_field="source", tag="turn"):
    """A user or assistant turn that exists only in the view (the provider's role order needs it)."""

    source: ClassVar[Literal["turn"]] = "turn"
    view_index: int
    role: str
    text: str
    timestamp: int
    code: NoteCode
    reason: str
    severity: Severity | None = None
    """how bad the rule it answers is (None: rated from code)"""

    def __post_init__(self) -> None:
        if self.severity is None:
            self.severity = rate(RepairKind.SYNTHESIZED_TURN, [self.code])


class MergedView(Record, kw_only=True, tag_field="source", tag="merged"):
    """Consecutive durable messages of one role that the view sends as one message.

    The view message is the last member (with `ids` applied, as for a durable
    entry) carrying every member's content in order.
    """

    source: ClassVar[Literal["merged"]] = "merged"
    view_index: int
    members: list[int]
    ids: dict[int, str] | None = None
    role: str | None = None


ViewItem = DurableView | ReceiptView | TurnView | MergedView
"""A view entry, told apart by its `source` (the tag msgspec writes first and reads back)."""


class Pairing(Record, kw_only=True):
    """One call and the result(s) recorded for it."""

    call_id: str
    tool_name: str
    frame_index: int
    call_position: int
    result_indices: list[int]
    answered_by: int | None = None
    """durable result used in the view; None when synthesized"""
    view_index: int | None = None
    outcome: Outcome


class RepairReport(Record, kw_only=True, omit_defaults=True):
    """Everything one repair pass did to one transcript.

    Fields without a default always appear in its JSON; the last four (None by
    default) only when set, as before they existed.
    """

    report_version: int
    source: str | None
    policy: str
    changed: bool
    healthy: bool
    severity: Severity | None
    """the worst severity of any action, receipt, turn or finding"""
    verdict: str
    summary: Summary
    repaired_tool_calls: list[str]
    actions: list[Action]
    pairings: list[Pairing]
    findings: list[Finding]
    view: list[ViewItem]
    provider: str | None = None
    """the provider whose role rules the view follows"""
    as_recorded: AsRecorded | None = None
    """what each checked provider says about the transcript as recorded (None: not checked)"""
    format: str | None = None
    """the format the file was read as (set when read from a file)"""
    thread: str | None = None
    """which transcript of the file: main, sidechain:<id>, sample:<id>... (set when read from a file)"""

    @classmethod
    def _before(cls, data: Any) -> Any:
        """Read a version 1 report (receipts, turns and merges in side tables) or a version 2 one as
        today's: the shape is upgraded, and severities are rated from each kind and its codes.  What
        the nested records would fill in for older input (their own `_before`) is filled in here too."""
        if not isinstance(data, dict):
            return data
        if data.get("report_version") in (1, 2):
            if data["report_version"] == 1:
                from ._report_v1 import upgrade

                data = upgrade(data)
            data = {**data, "report_version": REPORT_VERSION}
        data = {"report_version": REPORT_VERSION, "source": None, "severity": None, **data}
        if isinstance(data.get("summary"), dict):
            data["summary"] = Summary._before(data["summary"])
        if isinstance(data.get("findings"), list):
            data["findings"] = [Finding._before(finding) for finding in data["findings"]]
        actions = data.get("actions")
        if isinstance(actions, list) and not all(type(a) is dict and "severity" in a for a in actions):
            data["actions"] = [Action._before(action) for action in actions]
        return data

    def __post_init__(self) -> None:
        """An older report has no severity: the worst of its parts."""
        if self.severity is None:
            self.severity = worst(_severities(self))

    def _rerated_parts(self, accepted: bool | None) -> dict[str, Any]:
        """with_recorded's update of the actions and the view entries, rated given what the providers say."""
        return {"actions": [_rerated(action, rate(action.kind, action.codes, accepted)) for action in self.actions],
                "view": [_rerated(entry, _entry_severity(entry, accepted)) for entry in self.view]}

    def _change_severities(self, accepted: bool | None) -> list[Severity]:
        """Every severity of what the view changes and of the findings, rated given what the providers say."""
        return _severities(self, accepted)

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


class _ViewFacts:
    """What the view does with each durable message, gathered in one walk over the plan's order."""

    def __init__(self) -> None:
        self.entries: list[ViewItem] = []
        self.positions: dict[int, list[int]] = {}
        self.renames: dict[int, dict[str, str]] = {}
        self.answer_at: dict[tuple[int, int], tuple[int, Any]] = {}  # (frame, call pos) -> (view pos, entry)


def _view_entry(light: LightTranscript, plan: Plan, facts: _ViewFacts, position: int, entry: ViewEntry,
                stamp: Callable[[], int]) -> ViewItem:
    if isinstance(entry, SynthesizedTurn):
        return TurnView(view_index=position, role=entry.role, text=entry.text, timestamp=stamp(),
                        code=entry.reason.code, reason=render(entry.reason),
                        severity=rate(RepairKind.SYNTHESIZED_TURN, [entry.reason.code]))
    if isinstance(entry, Synthesized):
        return ReceiptView(view_index=position, call_id=entry.call_id, tool_name=entry.tool_name,
                           frame_index=entry.frame_index, call_position=entry.call_position, timestamp=stamp(),
                           text=plan.placeholder, severity=rate(RepairKind.SYNTHESIZED))
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
        members_at = [member_index(member) for member in members]
        return MergedView(view_index=position, members=members_at, ids=ids, role=light.roles[carrier])
    return DurableView(index=carrier, ids=ids)


def _view_facts(light: LightTranscript, plan: Plan, stamps: Sequence[int]) -> _ViewFacts:
    """Typed view entries, each durable message's view positions, renamed ids and answer slots."""
    facts = _ViewFacts()
    if not plan.changed:
        facts.entries = [DurableView(index=index) for index in range(light.size)]
        facts.positions = {index: [index] for index in range(light.size)}
        facts.answer_at = _unchanged_answers(light, plan)
        return facts
    order = plan.order or []
    given = iter(stamps)

    def stamp() -> int:
        return next(given, 0)

    append = facts.entries.append
    positions = facts.positions
    for position, entry in enumerate(order):
        if type(entry) is int:
            append(DurableView(index=entry))
            positions.setdefault(entry, []).append(position)
        else:
            append(_view_entry(light, plan, facts, position, entry, stamp))
    for position, frame, call_position in frame_answer_slots(light, order):
        answer = order[position]
        carried = entry_index(answer)
        facts.answer_at[(frame, call_position)] = (position, carried if carried is not None else answer)
    return facts


def _unchanged_answers(light: LightTranscript, plan: Plan) -> dict[tuple[int, int], tuple[int, Any]]:
    """(frame, call position) -> (view position, result) when the view is the transcript itself.

    The strict planner leaves a transcript unchanged only when it paired every call with the
    result recorded in its slot (the k-th message after its frame), so that is the pairing to
    report: by position, which gives each id-less call (Gemini) and each use of a repeated id its
    own result.  Matching by id would hand every id-less call of a frame the first id-less result.
    The reference pairs by id within the run of results after the frame (as run_matches_frame
    checks it): calls repeating an id there are all answered by its first result (shared).
    """
    answers: dict[tuple[int, int], tuple[int, Any]] = {}
    keys = light.result_keys
    if plan.policy == "strict":
        for index, calls in light.frames.items():
            for call_position in range(len(calls)):
                slot = index + 1 + call_position
                if slot in keys:
                    answers[(index, call_position)] = (slot, slot)
        return answers
    for index, calls in light.frames.items():
        by_id: dict[Any, int] = {}
        for result in _durable_run(light, index):
            by_id.setdefault(keys[result], result)
        for call_position, call in enumerate(calls):
            found = by_id.get(call.id)
            if found is not None:
                answers[(index, call_position)] = (found, found)
    return answers


def _durable_run(light: LightTranscript, frame_index: int) -> list[int]:
    run = []
    cursor = frame_index + 1
    while cursor in light.result_keys:
        run.append(cursor)
        cursor += 1
    return run


def _action(kind: RepairKind, index: int, role: Any, notes: list[Note], **fields: Any) -> Action:
    codes = [note.code for note in notes]
    return Action(durable_index=index, role=role, kind=kind, codes=codes, reason=render_all(notes),
                  severity=rate(kind, codes), **fields)


def _actions(light: LightTranscript, plan: Plan, facts: _ViewFacts, moved: Moves) -> list[Action]:
    """One action per durable message (records built directly: no dict per message to validate)."""
    actions: list[Action] = []
    dropped = (set(plan.dropped_frames), set(plan.dropped_strays))
    moved_to = moved[0]
    # Most messages are kept in place with nothing to say: what _change would conclude for them,
    # without asking it each time, and their action is _action's own for that case with the
    # message's own fields put in (rating and wording it again for each costs a third of the report).
    special = {*plan.notes, *dropped[0], *dropped[1], *plan.dropped_duplicates, *plan.merged, *moved_to,
               *facts.renames}
    quiet = _action(RepairKind.KEPT, 0, None, [])
    kept, reason, severity = quiet.kind, quiet.reason, quiet.severity
    positions = facts.positions
    result_id = light.result_id
    roles = light.roles
    append = actions.append
    for index in range(light.size):
        if index not in special:
            where = positions.get(index)
            first = where[0] if where else None
            append(Action(durable_index=index, role=roles[index], kind=kept, view_index=first,
                          also_view_indices=[p for p in where if p != first] if where else [], new_ids={},
                          kept_instead=None, call_id=result_id(index), codes=[], reason=reason, severity=severity))
            continue
        role = roles[index]
        kind, notes, fields = _change(light, plan, dropped, moved, facts.renames, index)
        if kind in (RepairKind.DROPPED_INTERRUPTED_FRAME, RepairKind.DROPPED_DUPLICATE, RepairKind.DROPPED_STRAY):
            actions.append(_action(kind, index, role, notes, **fields))
            continue
        where = facts.positions.get(index, [])
        if kind is RepairKind.MERGED:
            actions.append(_action(kind, index, role, notes, view_index=where[0] if where else None, **fields))
            continue
        first = moved_to.get(index, where[0] if where else None)
        actions.append(_action(kind, index, role, notes, view_index=first,
                               also_view_indices=[p for p in where if p != first], **fields))
    return actions


def _pairings(light: LightTranscript, plan: Plan, facts: _ViewFacts, moved: Moves,
              uses: dict[str, list[tuple[int, int]]]) -> list[Pairing]:
    """Every call with the result(s) recorded for it and the one the view uses.

    The answer comes from the call's slot in the view (facts.answer_at), never from its id: ids
    repeat across turns and id-less calls share ''.  A call is 'shared' when the reference answers
    it with a result an earlier call already uses (its id's first result), not merely because its
    id was used before: a transcript the reference leaves unchanged answers each use with its own.
    result_indices are the results recorded under the call's id in the call's own turn, plus the one
    answering it (a result the reference shares, or one the strict policy paired by tool name).  An id
    used by several frames owns the results recorded from its frame to the next frame using it (its
    first use, those before it too): listing every use's results under each use made the report grow
    with the square of the turns (4,000 turns reusing one id: 16 million entries).  uses: call_uses(light).
    """
    pairings: list[Pairing] = []
    used: set[int] = set()
    frames_using = {call_id: list(dict.fromkeys(frame for frame, _ in found)) for call_id, found in uses.items()}
    recorded: dict[Any, list[int]] = {}
    for index, calls in light.frames.items():
        for call_position, call in enumerate(calls):
            found = facts.answer_at.get((index, call_position))
            answered_by: int | None = None
            view_index: int | None = None
            outcome: Outcome = "synthesized"
            results = recorded.get(call.id)
            if results is None:
                results = recorded[call.id] = plan.results_for(call.id)
            results = _own_turn(results, frames_using[call.id], index)
            if found is not None:
                view_index, entry = found
                if type(entry) is int:
                    answered_by = entry
                    if entry in used and plan.policy == "openmaic":
                        outcome = "shared"
                    elif moved[0].get(entry) == view_index and entry not in moved[1]:
                        outcome = "moved"
                    else:
                        outcome = "answered"
                    used.add(entry)
                    if entry not in results:
                        results = sorted([*results, entry])
            pairings.append(Pairing(call_id=call.id, tool_name=call.name, frame_index=index,
                                 call_position=call_position, result_indices=results,
                                 answered_by=answered_by, view_index=view_index, outcome=outcome))
    return pairings


def _own_turn(results: list[int], frames: list[int], frame: int) -> list[int]:
    """The results (ascending durable indices) recorded from `frame` up to the next of `frames` (the frames
    using the same id, ascending); the first use also owns those recorded before it.  A copy, always."""
    if len(frames) < 2:
        return list(results)
    at = bisect.bisect_left(frames, frame)
    low = bisect.bisect_right(results, frame) if at > 0 else 0
    high = bisect.bisect_left(results, frames[at + 1]) if at + 1 < len(frames) else len(results)
    return results[low:high]


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
    uses = call_uses(light)  # every call id, once, for the moves, the counts and the pairings (as diagnose)
    moved = moves(light, plan, uses)
    facts = _view_facts(light, plan, stamps)
    findings, summary = _judged(light, plan, schema, moved, uses)
    actions = _actions(light, plan, facts, moved)
    severity = worst([*(entry.severity for entry in facts.entries
                        if isinstance(entry, (ReceiptView, TurnView)) and entry.severity is not None),
                      *{action.severity for action in actions}, *(f.severity for f in findings)])
    return RepairReport(
        report_version=REPORT_VERSION,
        source=source,
        policy=plan.policy,
        changed=plan.changed,
        healthy=not fails(severity),
        verdict=_verdict(summary, plan.changed, severity, _malformed(findings)),
        summary=summary,
        repaired_tool_calls=list(plan.repaired_tool_calls),
        actions=actions,
        pairings=_pairings(light, plan, facts, moved, uses),
        findings=findings,
        view=facts.entries,
        provider=plan.provider,
        severity=severity,
    )


def _severities(report: RepairReport, accepted: bool | None = None) -> list[Severity]:
    """Every severity in a report, rated again given what the providers say (None: as stored)."""
    if accepted is None:
        found = {action.severity for action in report.actions}
        found.update(entry.severity for entry in report.view
                     if isinstance(entry, (ReceiptView, TurnView)) and entry.severity is not None)
        return [*found, *(finding.severity for finding in report.findings)]
    found = {rate(action.kind, action.codes, accepted) for action in report.actions}
    found.update(rate(RepairKind.SYNTHESIZED, (), accepted) for entry in report.view
                 if isinstance(entry, ReceiptView))
    found.update(rate(RepairKind.SYNTHESIZED_TURN, [entry.code], accepted) for entry in report.view
                 if isinstance(entry, TurnView))
    return [*found, *(finding.severity for finding in _rated_findings(report.findings, accepted))]


def _entry_severity(entry: Any, accepted: bool | None) -> Severity | None:
    if isinstance(entry, ReceiptView):
        return rate(RepairKind.SYNTHESIZED, (), accepted)
    if isinstance(entry, TurnView):
        return rate(RepairKind.SYNTHESIZED_TURN, [entry.code], accepted)
    return None


def _rerated(item: Any, severity: Severity | None) -> Any:
    if severity is None or getattr(item, "severity", None) == severity:
        return item
    return item.model_copy(update={"severity": severity})


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
