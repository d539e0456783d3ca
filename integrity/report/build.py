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

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

import msgspec

from .._arguments import require_messages
from .._diagnosis import (
    AsRecorded,
    Diagnosis,
    Summary,
    _judged,
    _malformed,
    _rated_findings,
    _verdict,
    diagnose,
    fails_only_as_recorded,
    moved_results,
    moves,
    own_provider,
    summarize,
    with_recorded,
    written_away,
)
from .._findings import Finding
from .._records import Record
from ..kinds import Severity, fails, rate, worst
from ..notes import Note, NoteCode
from ..repair.entries import Merged, Rewritten, Synthesized, SynthesizedTurn, ViewEntry, entry_message
from .records import (
    Action,
    DurableView,
    MergedView,
    Outcome,
    Pairing,
    ReceiptView,
    TurnView,
    ViewItem,
)
from .sections import Sections, _entry_severity, _rerated, with_severity
from .v1 import current_shape

if TYPE_CHECKING:
    from ..repair.plan import Plan
    from ..repair.views import LightTranscript

REPORT_VERSION = 3
"""2: `view` holds typed entries (receipts, turns and merges inline); actions carry note codes.
3: severities are info, normalized, lossy, rejected, malformed (version 2 said error/warning); every
action, synthesized receipt and turn carries one; the report has the worst (`severity`) and, when
known, what each provider says about the transcript as recorded (`as_recorded`)."""

__all__ = [
    "Action", "Diagnosis", "DurableView", "Finding", "MergedView", "Pairing", "ReceiptView", "RepairReport",
    "Summary", "TurnView", "ViewItem", "build_report", "diagnose", "view_from_report",
    # the diagnosis's rules, which the report shares (integrity._diagnosis), importable from here as before
    "fails_only_as_recorded", "moved_results", "moves", "own_provider", "summarize", "with_recorded",
    "Outcome", "read_report", "report_shell", "sections_of",
]


class RepairReport(Record, kw_only=True, dict=True, omit_defaults=True):
    """Everything one repair pass did to one transcript.

    Fields without a default always appear in its JSON; the last five (None by
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
    runtime_results: dict[str, str] | None = None
    """call id -> the text of the result the file's runtime sends of its own for a call of it that no result
    answers when the next turn comes, as it sends the session (pi's "No result provided", Codex's "aborted"):
    the request a provider is judged on holds them (set when read from a file and its runtime adds one)"""

    def __post_init__(self) -> None:
        """An older report has no severity: the worst of its parts."""
        if self.severity is None:
            self.severity = worst(_severities(self))

    def _rerated_parts(self, accepted: bool | None) -> dict[str, Any]:
        """with_recorded's update of the actions and the view entries, rated given what the providers say
        (a shell's sections are rated as they are written)."""
        if sections_of(self) is not None:
            return {}
        return {"actions": [with_severity(action, rate(action.kind, action.codes, accepted))
                            for action in self.actions],
                "view": [_rerated(entry, accepted) for entry in self.view]}

    def _change_severities(self, accepted: bool | None) -> list[Severity]:
        """Every severity of what the view changes and of the findings, rated given what the providers say."""
        sections = sections_of(self)
        if sections is not None:
            return [*sections.severities(accepted), *(f.severity for f in _rated_findings(self.findings, accepted))]
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
    return _report(Sections(light, plan, stamps), schema, source, whole=True)


def report_shell(light: LightTranscript, plan: Plan, stamps: Sequence[int] = (), source: str | None = None,
                 schema: Sequence[Finding] = ()) -> RepairReport:
    """build_report without its long sections (actions, pairings, view: empty lists), which
    integrity.report.text.report_chunks makes and writes a chunk at a time (`check --json`).

    The shell rates, re-rates (with_recorded) and words its verdict exactly as the whole report
    would: it asks its sections (kept beside its fields, never serialized) for their severities.
    Only for writing: a shell is not a report to hand to anyone.
    """
    return _report(Sections(light, plan, stamps), schema, source, whole=False)


def _report(sections: Sections, schema: Sequence[Finding], source: str | None, whole: bool) -> RepairReport:
    light, plan = sections.light, sections.plan
    findings, summary = _judged(light, plan, schema, sections.moved, sections.uses)
    severity = worst([*sections.severities(), *(f.severity for f in findings)])
    written = written_away(findings)
    # a repair writes the file again without a torn line, or with an entry in the shape its provider takes
    changed = plan.changed or bool(written) or summary.reshaped > 0
    report = RepairReport(
        report_version=REPORT_VERSION,
        source=source,
        policy=plan.policy,
        changed=changed,
        healthy=not fails(severity),
        verdict=_verdict(summary, changed, severity, _malformed(findings), written=written),
        summary=summary,
        repaired_tool_calls=list(plan.repaired_tool_calls),
        actions=[action for chunk in sections.actions() for action in chunk] if whole else [],
        pairings=[pairing for chunk in sections.pairings() for pairing in chunk] if whole else [],
        findings=findings,
        view=[item for chunk in sections.view() for item in chunk] if whole else [],
        provider=plan.provider,
        severity=severity,
    )
    if not whole:
        report.__dict__["_sections"] = sections  # not a field: never serialized, kept by _records.replace
    return report


def read_report(data: Any) -> RepairReport:
    """A stored report (the JSON data `check --json` or `repair --report` wrote, any version) as a RepairReport.

    Older shapes are read as today's (integrity.report.v1); then msgspec checks every field's type.
    A ValueError (msgspec.ValidationError) names the first field that does not fit by its path
    (integrity._records.invalid_where turns it into where and what, for a one-line error); `check --json`'s entry
    for a transcript it lists and never judges (`checked: false`, pipeline.unjudged_record) is one too.
    """
    if isinstance(data, dict) and data.get("checked") is False:  # check --json's entry for a transcript not judged
        raise msgspec.ValidationError(f"this entry is a transcript check lists and never judges ({data.get('status')}"
                                      "): nothing judged it, so it has no report - at `$.checked`")
    version = data.get("report_version") if isinstance(data, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version > REPORT_VERSION:
        raise msgspec.ValidationError(f"{version} is newer than this version of integrity reads (1 to "
                                      f"{REPORT_VERSION}): read it with the version that wrote it"
                                      " - at `$.report_version`")  # (where invalid_where finds it)
    return msgspec.convert(current_shape(data, REPORT_VERSION), RepairReport, strict=False)


def sections_of(report: RepairReport) -> Sections | None:
    """The sections a report shell (report_shell) writes, else None (a whole report)."""
    return report.__dict__.get("_sections")


def _severities(report: RepairReport, accepted: bool | None = None) -> list[Severity]:
    """Every severity in a report, rated again given what the providers say (None: as stored)."""
    if accepted is None:
        found = {action.severity for action in report.actions}
        found.update(entry.severity for entry in report.view
                     if isinstance(entry, (ReceiptView, TurnView)) and entry.severity is not None)
        return [*found, *(finding.severity for finding in report.findings)]
    found = {rate(action.kind, action.codes, accepted) for action in report.actions}
    found.update(severity for entry in report.view if (severity := _entry_severity(entry, accepted)) is not None)
    return [*found, *(finding.severity for finding in _rated_findings(report.findings, accepted))]


def _plan_entry(item: Any, repaired: Mapping[int, frozenset[int]], last: AbstractSet[int],
                blank: AbstractSet[int] = frozenset(), text: AbstractSet[int] = frozenset(),
                names: Mapping[int, Mapping[int, str]] | None = None, signed: AbstractSet[int] = frozenset(),
                cuts: Mapping[int, int] | None = None, left: Mapping[int, tuple[int, ...]] | None = None,
                moved: AbstractSet[int] = frozenset(), gone: AbstractSet[int] = frozenset()) -> ViewEntry:
    """The plan entry a report view entry stands for (the inverse of _view_entry); repaired: frame -> the
    call positions whose invalid arguments the view sends as {} (_repaired_arguments); last: the frames it
    sends with their calls after their other parts (their actions say `calls_put_last`); blank: the messages it
    sends without their blank texts (`blank_text_left_out`); text: the error results it sends with their texts
    alone (`error_sent_as_text`); names: frame -> call position -> the tool name it sends (`tool_name_fixed`:
    _fixed_names); signed: the frames whose first call it sends with a thought signature (`call_signed`); cuts:
    message -> the limit it sends its texts cut to (`text_cut`); left: message -> the content positions of the
    reasoning items it sends without (`reasoning_sent_once`: _left_out); moved: the results whose images it sends
    after their turn's results (`images_moved`); gone: the messages it sends without their images
    (`images_left_out`)."""
    names = names or {}
    cuts = cuts or {}
    left = left or {}
    if isinstance(item, DurableView):
        arguments = repaired.get(item.index, frozenset())
        at_end, cut, texts = item.index in last, item.index in blank, item.index in text
        named, sign, limit = names.get(item.index), item.index in signed, cuts.get(item.index, 0)
        repeated, out, lost = left.get(item.index, ()), item.index in moved, item.index in gone
        changes = (item.ids, arguments, at_end, cut, texts, named, sign, limit, repeated, out, lost)
        return Rewritten(item.index, item.ids or {}, arguments, at_end, cut, texts, named, sign, limit, repeated, out,
                         lost) if any(changes) else item.index
    if isinstance(item, ReceiptView):
        return Synthesized(item.call_id, item.tool_name, item.frame_index, item.call_position, item.not_executed)
    if isinstance(item, TurnView):
        return SynthesizedTurn(item.role, item.text, Note(item.code), tuple(item.images))
    members: list[Any] = [Rewritten(member, {}, frozenset(), False, True) if member in blank else member
                           for member in item.members[:-1]]  # (Bedrock merges a run and leaves its blank text out)
    carrier = item.members[-1]
    arguments = repaired.get(carrier, frozenset())
    at_end, cut, named, sign = carrier in last, carrier in blank, names.get(carrier), carrier in signed
    members.append(Rewritten(carrier, item.ids or {}, arguments, at_end, cut, False, named, sign)
                   if item.ids or arguments or at_end or cut or named or sign else carrier)
    return Merged(tuple(members))


def _constant(value: int) -> Callable[[], int]:
    return lambda: value


def view_from_report(report: RepairReport, messages: Sequence[Any]) -> list[Any]:
    """Rebuild the repaired view from a report and its durable transcript alone.

    Every entry goes through the materializer the repair itself uses.  Raises
    TypeError unless `messages` is a list of message dicts.
    """
    require_messages(messages, "view_from_report")
    durable = messages.__getitem__
    repaired = _repaired_arguments(report, messages)
    last = {action.durable_index for action in report.actions if NoteCode.CALLS_PUT_LAST in action.codes}
    blank = {action.durable_index for action in report.actions if NoteCode.BLANK_TEXT_LEFT_OUT in action.codes}
    texts = {action.durable_index for action in report.actions if NoteCode.ERROR_SENT_AS_TEXT in action.codes}
    names = _fixed_names(report, messages)
    signed = {action.durable_index for action in report.actions if NoteCode.CALL_SIGNED in action.codes}
    cuts = _cuts(report)
    left = _left_out(report, messages)
    moved = {action.durable_index for action in report.actions if NoteCode.IMAGES_MOVED in action.codes}
    gone = {action.durable_index for action in report.actions if NoteCode.IMAGES_LEFT_OUT in action.codes}
    out = []
    for item in report.view:
        if isinstance(item, DurableView) and not item.ids and item.index not in repaired and item.index not in last \
                and item.index not in blank and item.index not in texts and item.index not in names \
                and item.index not in signed and item.index not in cuts and item.index not in left \
                and item.index not in moved and item.index not in gone:
            out.append(messages[item.index])
            continue
        stamp = item.timestamp if isinstance(item, (ReceiptView, TurnView)) else 0
        text = item.text if isinstance(item, ReceiptView) else None
        out.append(entry_message(_plan_entry(item, repaired, last, blank, texts, names, signed, cuts, left, moved,
                                             gone), durable, text, _constant(stamp)))
    return out


def _left_out(report: RepairReport, messages: Sequence[Any]) -> dict[int, tuple[int, ...]]:
    """message -> the content positions of the reasoning items the view sends it without: the messages whose action
    says `reasoning_sent_once`, their repeated items found as repair.strict.reasoning_sent_once finds them
    (views.repeated_reasoning over the durable messages the view sends, in its order)."""
    marked = {action.durable_index for action in report.actions if NoteCode.REASONING_SENT_ONCE in action.codes}
    if not marked:
        return {}
    from ..repair.views import reasoning_items, repeated_reasoning

    sent = [index for item in report.view
            for index in ((item.index,) if isinstance(item, DurableView) else
                          item.members if isinstance(item, MergedView) else ())]
    # (signed too: only a runtime that sends a signature as its item has its repeats marked: FormatSpec's
    # sends_signed_reasoning; a part read from a Responses item is read from its hints first either way)
    found = repeated_reasoning(sent, lambda index: reasoning_items(messages[index].get("content"), True))
    return {index: positions for index, positions in found.items() if index in marked}


def _cuts(report: RepairReport) -> dict[int, int]:
    """message -> the limit the view cuts its texts to: the messages whose action says `text_cut`, cut to the most
    characters the report's provider takes in one string (ProviderSpec.string_limit, as repair.strict.texts_cut)."""
    found = [action.durable_index for action in report.actions if NoteCode.TEXT_CUT in action.codes]
    if not found:
        return {}
    from ..providers import SPECS

    spec = SPECS.get(report.provider or "")
    limit = spec.string_limit if spec is not None else None
    return dict.fromkeys(found, limit) if limit else {}


def _fixed_names(report: RepairReport, messages: Sequence[Any]) -> dict[int, dict[int, str]]:
    """frame -> call position -> the tool name the view sends: the frames whose action says `tool_name_fixed`,
    their names found in the message itself and made legal for the report's provider (repair.strict's
    tool_names_fixed, by the same views.legal_tool_name)."""
    from ..repair.strict import tool_name_rule
    from ..repair.views import is_call_part, legal_tool_name

    rule = tool_name_rule(report.provider)
    found: dict[int, dict[int, str]] = {}
    for action in report.actions:
        if rule is None or NoteCode.TOOL_NAME_FIXED not in action.codes or \
                not 0 <= action.durable_index < len(messages):
            continue
        content = messages[action.durable_index].get("content")
        parts = [part for part in content if is_call_part(part, True)] if isinstance(content, list) else []
        fixed = {position: name for position, part in enumerate(parts)
                 if (name := legal_tool_name(part["name"], rule.limit, rule.chars)) is not None}
        if fixed:
            found[action.durable_index] = fixed
    return found


def _repaired_arguments(report: RepairReport, messages: Sequence[Any]) -> dict[int, frozenset[int]]:
    """frame -> the call positions whose invalid arguments the view sends as {}: the frames whose action says
    `arguments_replaced`, their positions found in the message itself (as the strict light view finds them)."""
    from ..repair.views import invalid_arguments, is_call_part

    found: dict[int, frozenset[int]] = {}
    for action in report.actions:
        if NoteCode.ARGUMENTS_REPLACED in action.codes and 0 <= action.durable_index < len(messages):
            content = messages[action.durable_index].get("content")
            parts = [part for part in content if is_call_part(part, True)] if isinstance(content, list) else []
            found[action.durable_index] = frozenset(
                position for position, part in enumerate(parts) if invalid_arguments(part) is not None)
    return found
