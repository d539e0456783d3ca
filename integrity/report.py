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
import operator
from collections.abc import Callable, Container, Sequence
from itertools import compress, islice, repeat
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, SerializerFunctionWrapHandler, model_serializer, model_validator

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
from ._findings import Finding, find_defects, paired
from ._gc import without_gc
from ._plan import Plan
from ._policies import DEFAULT_POLICY
from ._views import LightTranscript
from .kinds import FINDINGS, REPAIR_KINDS, VERDICT_ORDER, RepairKind, Severity, fails, rate, worst
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
    severity: Severity = Field(Severity.INFO, description="how bad the defect behind it is (integrity.kinds)")

    @model_validator(mode="before")
    @classmethod
    def _rated(cls, data: Any) -> Any:
        """An action of an older report has no severity: rate it from its kind and codes."""
        if isinstance(data, dict) and "severity" not in data and "kind" in data:
            data = {**data, "severity": rate(data["kind"], data.get("codes") or ())}
        return data


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
    severity: Severity = Field(REPAIR_KINDS[RepairKind.SYNTHESIZED].severity,
                               description="a call without a result: rejected, or lossy when accepted as recorded")


class TurnView(BaseModel):
    """A user or assistant turn that exists only in the view (the provider's role order needs it)."""

    source: Literal["turn"] = "turn"
    view_index: int
    role: str
    text: str
    timestamp: int
    code: NoteCode
    reason: str
    severity: Severity | None = Field(None, description="how bad the rule it answers is (None: rated from code)")

    @model_validator(mode="after")
    def _rated(self) -> TurnView:
        if self.severity is None:
            self.severity = rate(RepairKind.SYNTHESIZED_TURN, [self.code])
        return self


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
    reordered: int = 0
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
        return _without_unused(handler(self), ("merged", "turns_synthesized", "reordered"))


AsRecorded = dict[str, Literal["accepted", "rejected"]]
"""provider -> what it says about the transcript as recorded (only the providers that were checked)."""


class RepairReport(BaseModel):
    """Everything one repair pass did to one transcript."""

    report_version: int = REPORT_VERSION
    source: str | None = None
    policy: str
    changed: bool
    healthy: bool
    severity: Severity | None = Field(None, description="the worst severity of any action, receipt, turn or finding")
    verdict: str
    summary: Summary
    repaired_tool_calls: list[str]
    actions: list[Action]
    pairings: list[Pairing]
    findings: list[Finding]
    view: list[ViewItem]
    provider: str | None = Field(None, description="the provider whose role rules the view follows")
    as_recorded: AsRecorded | None = Field(None, description="what each checked provider says about the "
                                                             "transcript as recorded (None: not checked)")
    format: str | None = Field(None, description="the format the file was read as (set when read from a file)")
    thread: str | None = Field(None, description="which transcript of the file: main, sidechain:<id>, "
                                                 "sample:<id>... (set when read from a file)")

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        """Read a version 1 report (receipts, turns and merges in side tables) or a version 2 one as
        today's: the shape is upgraded, and severities are rated from each kind and its codes."""
        if isinstance(data, dict) and data.get("report_version") in (1, 2):
            if data["report_version"] == 1:
                from ._report_v1 import upgrade

                data = upgrade(data)
            return {**data, "report_version": REPORT_VERSION}
        return data

    @model_validator(mode="after")
    def _worst(self) -> RepairReport:
        """An older report has no severity: the worst of its parts."""
        if self.severity is None:
            self.severity = worst(_severities(self))
        return self

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_unused(handler(self), ("provider", "format", "thread", "as_recorded"))

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


def frame_answer_slots(light: LightTranscript, order: Sequence[Any], skip: Container[int] = ()
                       ) -> list[tuple[int, int, int]]:
    """(view position, frame index, call position) for every answer slot in a changed view.

    Only frames are looked at: their view positions come from one C-speed scan of
    the plain entries plus the few rewritten ones, not a Python step per message.
    skip: frames to leave out (plain entries only).
    """
    frames = light.frames
    where = {entry: position for position, entry in enumerate(order)
             if type(entry) is int and entry in frames and entry not in skip}
    for position, entry in [(p, e) for p, e in enumerate(order) if type(e) is not int]:
        index = entry_index(entry)  # rewritten or merged entries that carry a frame
        if index is not None and index in frames:
            where[index] = position
    slots = []
    for index, position in sorted(where.items(), key=lambda item: item[1]):
        for call_position in range(len(frames[index])):
            slots.append((position + 1 + call_position, index, call_position))
    return slots


Moves = tuple[dict[int, int], set[int]]
"""Every message the view moved (durable index -> view position), and which of them only changed
places inside the run of results right after their frame (put in call order: normalized)."""


def moved_results(light: LightTranscript, plan: Plan) -> dict[int, int]:
    """Durable index -> view position, for messages the view moved (results put in call order too)."""
    return moves(light, plan)[0]


def moves(light: LightTranscript, plan: Plan, known: Container[Any] | None = None) -> Moves:
    """The messages the view moved, and the ones among them it only put in call order.

    A result is in place when it sits in the k-th slot after its frame and was
    the k-th message after that frame in the durable transcript too; anything
    else (split from its frame, reordered) is a move a reviewer should see.  A
    result recorded inside the contiguous run of results right after its frame
    (only its place in that run differs) is merely put in call order: every
    provider accepts such a run, so the move is a normalization.  A message
    outside the answer slots is moved when the view puts it before a message
    recorded earlier (the reference leaves strays in place while it moves
    results around them): one definition for the report and every screen.
    """
    moved: dict[int, int] = {}
    in_run: set[int] = set()
    if not plan.changed or plan.order is None:
        return moved, in_run
    order = plan.order
    seen: set[int] = set()
    runs: dict[int, int] = {}
    # A settled clean turn (plan.settled) sits in the view as recorded, each result once, right after
    # its frame: nothing of it moved.  A provider's role rules may regroup turns, so then every frame counts.
    settled = plan.settled if plan.provider is None else ()
    for view_position, frame, call_position in frame_answer_slots(light, order, settled):
        entry = entry_index(order[view_position])
        if entry is not None and entry not in seen:
            seen.add(entry)
            if entry != frame + 1 + call_position:
                moved[entry] = view_position
                if frame < entry <= frame + _run_length(light, frame, runs):
                    in_run.add(entry)
    if _has_unowned_results(light, known):
        moved.update(_reordered(order, moved))
    return moved, in_run


def _run_length(light: LightTranscript, frame: int, known: dict[int, int]) -> int:
    """How many results were recorded contiguously right after a frame (cached per frame)."""
    length = known.get(frame)
    if length is None:
        keys = light.result_keys
        cursor = frame + 1
        while cursor in keys:
            cursor += 1
        length = known[frame] = cursor - frame - 1
    return length


def _has_unowned_results(light: LightTranscript, known: Container[Any] | None = None) -> bool:
    """Whether some result's id is no call's (known: every call id, when the caller has them)."""
    if known is None:
        known = {call.id for calls in light.frames.values() for call in calls}
    return not all(map(known.__contains__, light.result_keys.values()))


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


def _recorded_clause(recorded: AsRecorded | None, provider: str | None = None) -> str:
    """What the providers say about the transcript as recorded, in words ("" when none was checked)."""
    if not recorded:
        return ""
    from .providers import PROVIDERS

    accepted = [name for name in PROVIDERS if recorded.get(name) == "accepted"]
    rejected = [name for name in PROVIDERS if recorded.get(name) == "rejected"]
    every = len(recorded) == len(PROVIDERS) and provider is None
    if not rejected:
        return f"accepted as recorded by all {len(accepted)} providers" if every and len(accepted) > 1 \
            else "accepted as recorded by " + ", ".join(accepted)
    if not accepted:
        return f"rejected as recorded by all {len(rejected)} providers" if every and len(rejected) > 1 \
            else "rejected as recorded by " + ", ".join(rejected)
    return f"rejected as recorded by {', '.join(rejected)}; accepted by {', '.join(accepted)}"


_STATES = {Severity.MALFORMED: "malformed", Severity.REJECTED: "would be rejected", Severity.LOSSY: "lossy"}


def _verdict(summary: Summary, changed: bool, severity: Severity, malformed: int = 0,
             recorded: AsRecorded | None = None, provider: str | None = None, counting: str | None = None,
             as_recorded_only: bool = False) -> str:
    """The one-line verdict; what a repair changed is worded by the kind registry.

    severity: the worst of the report; a transcript whose view only normalizes is
    healthy and says so (never "repaired").  malformed: how many findings are schema
    findings.  recorded / provider: what the checked providers say as recorded.
    counting: the provider the transcript is rated for (the chosen one, or the file's
    own); a transcript it accepts that other providers reject is "healthy for" it,
    never plainly healthy.  as_recorded_only: it fails only because the provider(s)
    that count reject it as recorded, for nothing the view changes (the view only
    normalizes): "would be rejected", never "repaired".
    """
    every = "the provider takes" if counting is not None else "every provider takes"
    healthy = "healthy"
    if recorded and "rejected" in recorded.values() and not fails(severity):
        healthy = f"healthy for {counting}"  # only a counting provider's acceptance can leave it healthy
    if not changed:
        if summary.findings == 0 and fails(severity):  # only the providers' own rules are broken
            text = (f"would be rejected: {summary.messages} messages, {summary.calls} calls, every call "
                    f"answered once, right after its frame, but not in a shape {every}")
        elif summary.findings == 0:
            text = (f"{healthy}: {summary.messages} messages, {summary.calls} calls, "
                    "every call answered once, right after its frame")
        else:
            state = _STATES.get(severity, "accepted")
            text = f"unchanged ({state}): {summary.findings} finding(s) the policy leaves in place"
    else:
        parts = []
        for kind in VERDICT_ORDER:
            facts = REPAIR_KINDS[kind]
            count = getattr(summary, facts.summary_field or "")
            if count:
                parts.append(f"{count} {facts.verdict}")
        normalizes = "the view only normalizes: " + (", ".join(parts) if parts else "nothing a provider needs")
        if fails(severity) and as_recorded_only:
            text = (f"would be rejected: {summary.messages} messages, {summary.calls} calls, every call answered "
                    f"once, but not in a shape {every}; {normalizes}")
        elif fails(severity):
            text = "repaired: " + (", ".join(parts) if parts else "view rebuilt")
        else:
            text = (f"{healthy}: {summary.messages} messages, {summary.calls} calls, every call answered once; "
                    + normalizes)
        if summary.findings:
            text += f"; {summary.findings} finding(s) left" + (f" ({malformed} malformed)" if malformed else "")
    clause = _recorded_clause(recorded, provider)
    return f"{text}; {clause}" if clause else text


def summarize(light: LightTranscript, plan: Plan, findings: int = 0, moved: Moves | None = None,
              known: Container[Any] | None = None) -> Summary:
    """Counts for a plan without building per-message actions (cheap enough for huge files).

    known: every call id, when the caller has them (call_uses)."""
    if known is None:
        known = {call.id for calls in light.frames.values() for call in calls}
    keys = light.result_keys
    unknown = compress(keys.keys(), map(operator.not_, map(known.__contains__, keys.values())))  # few, at C speed
    order = plan.order if plan.changed and plan.order is not None else None
    # the few entries that are not plain durable messages, picked out at C speed
    others = list(compress(order, map(operator.is_not, map(type, order), repeat(int)))) if order is not None else []
    moved_to, in_run = moved if moved is not None else moves(light, plan)
    return Summary(
        messages=light.size,
        view_messages=len(order) if order is not None else light.size,
        calls=sum(map(len, light.frames.values())),
        results=len(light.result_keys),
        orphaned_calls=len(plan.repaired_tool_calls),
        duplicates_dropped=len(plan.dropped_duplicates),
        moved=len(moved_to) - len(in_run),
        reordered=len(in_run),
        frames_dropped=len(plan.dropped_frames),
        strays_dropped=len(plan.dropped_strays),
        synthesized=sum(1 for entry in others if isinstance(entry, Synthesized)),
        strays=sum(1 for index in unknown if not paired(plan, index)),
        renamed=sum(1 for entry in others if isinstance(entry, Rewritten)
                    or (isinstance(entry, Merged) and isinstance(entry.entries[-1], Rewritten))),
        merged=len(plan.merged),
        turns_synthesized=sum(1 for entry in others if isinstance(entry, SynthesizedTurn)),
        findings=findings,
    )


Reason = tuple[RepairKind, tuple[NoteCode, ...]]
"""What a change is and why (its kind and note codes): all a severity is rated from."""


class Diagnosis(BaseModel):
    """What `check` prints: the verdict, counts and findings, without per-message detail."""

    source: str | None = None
    policy: str
    changed: bool
    healthy: bool
    severity: Severity = Severity.INFO
    verdict: str
    summary: Summary
    findings: list[Finding]
    as_recorded: AsRecorded | None = None
    provider: str | None = None
    format: str | None = None
    thread: str | None = None
    _reasons: list[Reason] = PrivateAttr(default_factory=list)  # every distinct change, to rate it again

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_unused(handler(self), ("format", "thread", "as_recorded", "provider"))


def _malformed(findings: list[Finding]) -> int:
    return sum(1 for finding in findings if finding.severity == Severity.MALFORMED)


_SESSION_PROVIDERS = {"claude-code": "anthropic", "codex": "openai-responses"}
"""Session logs of agents that talk to one API: Claude Code sends its history as Anthropic Messages
requests, Codex CLI as OpenAI Responses requests; judging them by another provider's turn rules
(Bedrock's strict alternation) would report errors their provider never returns."""


def own_provider(format: str | None) -> str | None:
    """The provider a file in this format is sent to (an Anthropic request is judged by Anthropic, a
    Claude Code session too), or None for formats no single provider reads (pi-ai, LangChain, ...)."""
    if format is None:
        return None
    if format in _SESSION_PROVIDERS:
        return _SESSION_PROVIDERS[format]
    from .providers import SPECS

    found = SPECS.get(format)
    return format if found is not None and found.native_format == format else None


def _accepted(recorded: AsRecorded | None, provider: str | None) -> bool | None:
    """Whether the provider(s) that count accept the transcript as recorded: the chosen one, or
    every provider when none is chosen; None when that is not known."""
    if not recorded:
        return None
    if provider is not None:
        said = recorded.get(provider)
        return None if said is None else said == "accepted"
    if any(said == "rejected" for said in recorded.values()):
        return False
    from .providers import PROVIDERS

    return True if set(PROVIDERS) <= set(recorded) else None


def _rated_findings(findings: Sequence[Finding], accepted: bool | None) -> list[Finding]:
    """The findings with the severity their kind has given what the providers say."""
    out = []
    for finding in findings:
        facts = FINDINGS.get(finding.kind)
        severity = facts.rated(accepted) if facts is not None else finding.severity
        out.append(finding if severity == finding.severity else finding.model_copy(update={"severity": severity}))
    return out


def _judged(light: LightTranscript, plan: Plan, schema: Sequence[Finding], moved: Moves,
            uses: dict[str, list[tuple[int, int]]] | None = None) -> tuple[list[Finding], Summary]:
    """Findings (schema findings first) and summary: one rule for report and diagnosis.

    uses: call_uses(light), when the caller has it."""
    if uses is None:
        uses = call_uses(light)
    findings = _rated_findings([*schema, *find_defects(light, plan, uses)], None)
    return findings, summarize(light, plan, len(findings), moved, uses)


def diagnose(light: LightTranscript, plan: Plan, source: str | None = None,
             schema: Sequence[Finding] = ()) -> Diagnosis:
    """The report's verdict, summary, findings and severity at a fraction of its cost (for huge files).

    schema: the transcript's schema findings (integrity.schema), reported first.  The
    severity is rated from every distinct change the plan makes (the same rules as the
    report's actions), not per message.
    """
    uses = call_uses(light)  # every call id, once, for every count below
    moved = moves(light, plan, uses)
    findings, summary = _judged(light, plan, schema, moved, uses)
    reasons = _plan_reasons(light, plan, moved)
    severity = worst([*(rate(kind, codes) for kind, codes in reasons), *(f.severity for f in findings)])
    diagnosis = Diagnosis(source=source, policy=plan.policy, changed=plan.changed, healthy=not fails(severity),
                          verdict=_verdict(summary, plan.changed, severity, _malformed(findings)), summary=summary,
                          findings=findings, severity=severity, provider=plan.provider)
    diagnosis._reasons = reasons
    return diagnosis


def _plan_reasons(light: LightTranscript, plan: Plan, moved: Moves) -> list[Reason]:
    """Every distinct (kind, note codes) the plan's changes have, visiting only the messages it changes."""
    if not plan.changed or plan.order is None:
        return []
    others = [entry for entry in plan.order if type(entry) is not int]
    renames = {}
    for entry in others:
        last = entry.entries[-1] if isinstance(entry, Merged) else entry
        if isinstance(last, Rewritten):
            renames[last.index] = _renamed_ids(light, last.index, last.ids)
    reasons: set[Reason] = set()
    for entry in others:
        if isinstance(entry, Synthesized):
            reasons.add((RepairKind.SYNTHESIZED, ()))
        elif isinstance(entry, SynthesizedTurn):
            reasons.add((RepairKind.SYNTHESIZED_TURN, (entry.reason.code,)))
    changed = set(plan.dropped_frames).union(plan.dropped_duplicates, plan.dropped_strays, plan.merged,
                                             moved[0], plan.notes, renames)
    dropped = (set(plan.dropped_frames), set(plan.dropped_strays))
    for index in changed:
        kind, notes, _fields = _change(light, plan, dropped, moved, renames, index)
        if kind is not RepairKind.KEPT or notes:
            reasons.add((kind, tuple(note.code for note in notes)))
    return sorted(reasons)


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
                    code=entry.reason.code, reason=render(entry.reason),
                    severity=rate(RepairKind.SYNTHESIZED_TURN, [entry.reason.code]))
    if isinstance(entry, Synthesized):
        return dict(source="synthesized", view_index=position, call_id=entry.call_id, tool_name=entry.tool_name,
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
        members_at = [entry_index(member) for member in members]
        return dict(source="merged", view_index=position, members=members_at, ids=ids, role=light.roles[carrier])
    return dict(source="durable", index=carrier, ids=ids)


def _view_facts(light: LightTranscript, plan: Plan, stamps: Sequence[int]) -> _ViewFacts:
    """Typed view entries, each durable message's view positions, renamed ids and answer slots."""
    facts = _ViewFacts()
    if not plan.changed:
        facts.entries = [dict(source="durable", index=index) for index in range(light.size)]
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
            append(dict(source="durable", index=entry))
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


def _action(kind: RepairKind, index: int, role: Any, notes: list[Note], **fields: Any) -> dict[str, Any]:
    codes = [note.code for note in notes]
    return dict(durable_index=index, role=role, kind=kind, codes=codes, reason=render_all(notes),
                severity=rate(kind, codes), **fields)


def _dropped(light: LightTranscript, plan: Plan, dropped: tuple[set[int], set[int]], index: int,
             note: Note | None) -> tuple[RepairKind, list[Note], dict[str, Any]] | None:
    """What the view does with a message it leaves out (kind, reasons, extra fields); None when it carries it.

    dropped: the plan's dropped frames and dropped strays, as sets.
    """
    frames, strays = dropped
    if index in frames:
        stop = light.frame_stops.get(index, "it stopped abnormally")
        return RepairKind.DROPPED_INTERRUPTED_FRAME, [note or Note.of(NoteCode.FRAME_DROPPED_BY_REFERENCE,
                                                                      stop=stop)], {}
    call_id = light.result_id(index)
    if index in plan.dropped_duplicates:
        kept = plan.dropped_duplicates[index]
        if note is None:
            real_lost = kept in light.receipts and index not in light.receipts
            code = NoteCode.REAL_RESULT_AFTER_RECEIPT if real_lost else NoteCode.LATER_DUPLICATE
            note = Note.of(code, call_id=call_id, kept=kept)
        return RepairKind.DROPPED_DUPLICATE, [note], dict(kept_instead=kept, call_id=call_id)
    if index in strays:
        return RepairKind.DROPPED_STRAY, [note or Note.of(NoteCode.STRAY, call_id=call_id)], dict(call_id=call_id)
    return None


def _change(light: LightTranscript, plan: Plan, dropped: tuple[set[int], set[int]], moved: Moves,
            renames: dict[int, dict[str, str]], index: int) -> tuple[RepairKind, list[Note], dict[str, Any]]:
    """What the view does with one durable message and why: its kind, its reasons and the action's
    extra fields.  One rule for the report's actions and the diagnosis's severity."""
    note = plan.notes.get(index)
    left_out = _dropped(light, plan, dropped, index, note)
    if left_out is not None:
        return left_out
    if index in plan.merged:
        carrier = plan.merged[index]
        return RepairKind.MERGED, [note or Note.of(NoteCode.MERGED, carrier=carrier)], dict(kept_instead=carrier)
    moved_to, in_run = moved
    notes = [note] if note is not None else []
    kind = RepairKind.KEPT
    if index in moved_to:
        if index in in_run:
            kind = RepairKind.REORDERED
            notes = notes or [Note.of(NoteCode.REORDERED, index=index, view_index=moved_to[index])]
        else:
            kind = RepairKind.MOVED
            notes = notes or [Note.of(NoteCode.MOVED, index=index, view_index=moved_to[index])]
    new_ids = renames.get(index, {})
    renamed = {old: new for old, new in new_ids.items() if old != new}
    if renamed:
        notes.append(Note.of(NoteCode.RENAMED, ids=renamed))
    if len(renamed) < len(new_ids):  # a numeric id keeps its text: only its JSON type changes
        notes.append(Note.of(NoteCode.NUMERIC_IDS_AS_TEXT, ids=[old for old in new_ids if old not in renamed]))
    return kind, notes, dict(new_ids=new_ids, call_id=light.result_id(index))


def _actions(light: LightTranscript, plan: Plan, facts: _ViewFacts, moved: Moves) -> list[dict[str, Any]]:
    """One action per durable message (plain dicts: per-object __init__ costs seconds at 100k)."""
    actions: list[dict[str, Any]] = []
    dropped = (set(plan.dropped_frames), set(plan.dropped_strays))
    moved_to = moved[0]
    # Most messages are kept in place with nothing to say: what _change would conclude for them,
    # without asking it each time, and their action is _action's own for that case with the
    # message's own fields put in (rating and wording it again for each costs a third of the report).
    special = {*plan.notes, *dropped[0], *dropped[1], *plan.dropped_duplicates, *plan.merged, *moved_to,
               *facts.renames}
    quiet = _action(RepairKind.KEPT, 0, None, [], view_index=None, also_view_indices=[], new_ids={}, call_id=None)
    positions = facts.positions
    result_id = light.result_id
    roles = light.roles
    for index in range(light.size):
        if index not in special:
            where = positions.get(index)
            first = where[0] if where else None
            actions.append({**quiet, "durable_index": index, "role": roles[index], "codes": [], "new_ids": {},
                            "call_id": result_id(index), "view_index": first,
                            "also_view_indices": [p for p in where if p != first] if where else []})
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
              uses: dict[str, list[tuple[int, int]]]) -> list[dict[str, Any]]:
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
    pairings: list[dict[str, Any]] = []
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
            pairings.append(dict(call_id=call.id, tool_name=call.name, frame_index=index,
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
    severity = worst([*(entry["severity"] for entry in facts.entries if "severity" in entry),
                      *{action["severity"] for action in actions}, *(f.severity for f in findings)])
    return RepairReport.model_validate(dict(
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
    ))


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


def with_recorded(report: Any, recorded: dict[str, bool]) -> Any:
    """The report (or diagnosis) once some providers were asked about the transcript as recorded.

    recorded: provider -> whether it accepts the transcript as recorded.  Every
    severity is rated again: `rejected` needs a provider that rejects (the view's
    provider when one was chosen, else the file's own provider when its format is one
    provider's request, else any); when the one(s) that count accept,
    what the view changes is `normalized`, or `lossy` where something is still
    duplicated or lost.  The verdict then says which providers accept it.
    """
    said: AsRecorded = {name: "accepted" if ok else "rejected" for name, ok in recorded.items()}
    counting = report.provider or own_provider(report.format)
    accepted = _accepted(said, counting)
    update: dict[str, Any] = {"as_recorded": said}
    if isinstance(report, RepairReport):
        update["actions"] = [_rerated(action, rate(action.kind, action.codes, accepted))
                             for action in report.actions]
        update["view"] = [_rerated(entry, _entry_severity(entry, accepted)) for entry in report.view]
    findings = _rated_findings(report.findings, accepted)
    own = _own_severity(report, accepted)
    # the provider(s) that count return 400 for it as recorded: the chosen one, the file's own, or (none
    # counting) any one asked, even when the view changes nothing or only normalizes
    severity = worst([own, Severity.REJECTED]) if accepted is False else own
    update.update(findings=findings, severity=severity, healthy=not fails(severity),
                  verdict=_verdict(report.summary, report.changed, severity, _malformed(findings), said,
                                   report.provider, counting, fails(severity) and not fails(own)))
    updated = report.model_copy(update=update)
    if not isinstance(report, RepairReport):
        updated._reasons = report._reasons
    return updated


def _own_severity(report: Any, accepted: bool | None) -> Severity:
    """The worst severity of what the view changes and the findings, rated given what the providers say,
    without the providers' verdict on the transcript as recorded itself."""
    if isinstance(report, RepairReport):
        severities = _severities(report, accepted)
    else:
        severities = [rate(kind, codes, accepted) for kind, codes in report._reasons]
        severities.extend(finding.severity for finding in _rated_findings(report.findings, accepted))
    return worst(severities)


def fails_only_as_recorded(report: Any) -> bool:
    """Whether a report (or diagnosis) rated by `with_recorded` fails only because the provider(s) that count
    reject the transcript as recorded, for its shape, while nothing the view changes or leaves is needed for
    it (a user message right after a tool result, which Bedrock and Mistral refuse, and no provider was chosen
    to plan the order of turns for)."""
    if not report.as_recorded or not fails(report.severity):
        return False
    accepted = _accepted(report.as_recorded, report.provider or own_provider(report.format))
    return accepted is False and not fails(_own_severity(report, accepted))


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
