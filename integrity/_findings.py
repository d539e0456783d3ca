"""Findings: defects a policy reports but leaves in the view.

Each finding has a code from the kind registry (integrity.kinds), which also
gives its severity; the sentence is rendered here, from the same facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._records import FrozenRecord
from .kinds import FINDINGS, FindingCode, Severity
from .notes import NoteCode
from .repair.plan import Plan
from .repair.policies import POLICY
from .repair.views import LightTranscript, loose_results

Uses = dict[str, list[tuple[int, int]]]
"""call id -> (frame index, call position) of each call using it."""
Known = Mapping[str, Any]
"""Every call id: Uses, or (when only membership is asked: the strict policy) the light view's first frames."""


class Finding(FrozenRecord, frozen=True, kw_only=True, omit_defaults=True):
    """A defect the policy did not fix (it stays visible in the view).

    Its JSON has the positions (entry, line, path) only when set: a schema finding's.
    """

    kind: FindingCode
    severity: Severity
    durable_indices: list[int]
    call_id: str | None  # always written, null or not: no default (omit_defaults)
    message: str
    entry: int | None = None
    """schema findings: the native entry (index in the file's list)"""
    line: int | None = None
    """schema findings: the 1-based line where that entry starts"""
    path: str | None = None
    """schema findings: JSON path of the malformed spot in the file"""

    @property
    def said(self) -> str:
        """The finding in one line, as `check` and the Inspector's verdict print it."""
        return f"{self.severity.value}: {self.message}"


def paired(plan: Plan, index: int) -> bool:
    """Whether the strict policy paired a result with a call of another id (one side had none) by tool name."""
    note = plan.notes.get(index)
    return note is not None and note.code in (NoteCode.RESULT_PAIRED_BY_NAME, NoteCode.RESULT_PAIRED_BY_ORDER)


def _finding(code: FindingCode, indices: list[int], message: str, call_id: str | None = None) -> Finding:
    return Finding(kind=code, severity=FINDINGS[code].severity, durable_indices=indices, call_id=call_id,
                   message=message)


def _result_findings(light: LightTranscript, plan: Plan, known: Known) -> list[Finding]:
    """Results no call can own (left in place), and empty result ids (reference policy)."""
    out: list[Finding] = []
    dropped_strays = set(plan.dropped_strays)
    keys = light.result_keys
    for index in loose_results(light):  # a clean turn's results have none of these findings
        key = keys[index]
        if type(key) is not str:
            out.append(_finding(FindingCode.MALFORMED_RESULT_ID, [index],
                                f"#{index}: toolResult has no string toolCallId; no call can own it"))
            continue
        if key not in known and index not in dropped_strays and not paired(plan, index):
            out.append(_finding(FindingCode.STRAY_RESULT, [index],
                                f"#{index}: result for call id {key!r}, which no call in this transcript has; "
                                "left in place", key))
        if key == "" and POLICY[plan.policy].reports_reused_ids:
            out.append(_finding(FindingCode.EMPTY_ID, [index], f"#{index}: toolResult has an empty toolCallId", ""))
    return out


def _duplicate_findings(light: LightTranscript, plan: Plan, known: Known) -> list[Finding]:
    """Second results the reference leaves in place, and real results it hides behind a receipt."""
    out: list[Finding] = []
    for call_id, extra in plan.more_results.items():
        left = [index for index in extra if index not in plan.dropped_duplicates]
        if call_id in known and left:
            first = plan.first_result[call_id]
            out.append(_finding(
                FindingCode.DUPLICATE_RESULT, [first, *left],
                f"call {call_id!r} has {1 + len(extra)} results (#{first}, "
                + ", ".join(f"#{index}" for index in left) + "); the reference leaves the later ones in "
                "place when nothing else needs repair, and providers reject a second result", call_id))
    for dropped, kept in plan.dropped_duplicates.items():
        if kept in light.receipts and dropped not in light.receipts:
            out.append(_finding(
                FindingCode.REAL_RESULT_HIDDEN, [kept, dropped],
                f"#{dropped} is the real result, but the interrupted receipt #{kept} came first and the "
                "reference keeps the first: the model is told the call was interrupted "
                "(the strict policy keeps the real result)", light.result_id(dropped)))
    return out


def _call_id_findings(known: Known) -> list[Finding]:
    """Empty and reused call ids (the reference policy; strict pairs and renames them)."""
    out: list[Finding] = []
    for call_id, uses in known.items():
        frames = sorted({frame for frame, _ in uses})
        if call_id == "":
            out.append(_finding(FindingCode.EMPTY_ID, frames,
                                "tool call with an empty id in frame(s) " + ", ".join(f"#{f}" for f in frames), ""))
        if len(uses) > 1:
            where = ", ".join(f"#{f}" for f in frames)
            out.append(_finding(FindingCode.REUSED_CALL_ID, frames,
                                f"call id {call_id!r} is used by {len(uses)} calls (frames {where}); "
                                "the reference answers every use with the first result", call_id))
    return out


def _order_findings(light: LightTranscript) -> list[Finding]:
    """Complete runs of results right after their frame, but not in call order (an unchanged view)."""
    out: list[Finding] = []
    keys = light.result_keys
    for index, calls in light.frames.items():
        run = []
        cursor = index + 1
        while cursor in keys:
            run.append(cursor)
            cursor += 1
        got = [keys[r] for r in run]
        wanted = [call.id for call in calls]
        if got != wanted and len(got) == len(wanted):
            out.append(_finding(FindingCode.RESULTS_OUT_OF_ORDER, [index, *run],
                                f"#{index}: results follow the frame but not in call order "
                                f"({', '.join(map(repr, got))} for calls {', '.join(map(repr, wanted))})"))
    return out


def find_defects(light: LightTranscript, plan: Plan, known: Known) -> list[Finding]:
    """Every finding for a plan, in a stable order: results, duplicates, call ids, call order.

    known: Uses for any policy; for the strict policy, any mapping keyed by every call id.
    """
    findings = _result_findings(light, plan, known)
    if POLICY[plan.policy].reports_reused_ids:
        findings += _duplicate_findings(light, plan, known)
        findings += _call_id_findings(known)
    if not plan.changed:
        findings += _order_findings(light)
    return findings
