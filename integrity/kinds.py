"""The registry of kinds: every change a repair can make and every defect it can report, with their facts.

One table per family, one row per kind.  The report, the CLI, the batch table,
the Markdown export and the inspector all read these tables (names, glossary
text, severity, which summary count a kind feeds and how the verdict words it),
so adding a kind means adding a row here, and `tests/test_kinds.py` fails for
any consumer that does not know it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    """How bad a kind is for the transcript as recorded.

    error: a strict provider rejects a request that contains it (HTTP 400).
    warning: accepted, but information is lost or ambiguous (a reviewer should look).
    info: nothing wrong (a message carried as it is).
    malformed: the entry breaks its format's schema (a wrong type, a missing id, an unknown
        role); the engine reads on, but no check calls such a transcript healthy.
    """

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    MALFORMED = "malformed"


class RepairKind(str, Enum):
    """What the repaired view does with a message (the report's action kinds, plus view-only ones)."""

    KEPT = "kept"
    MOVED = "moved"
    RENAMED = "renamed"
    SHARED = "shared"
    MERGED = "merged"
    DROPPED_DUPLICATE = "dropped_duplicate"
    DROPPED_INTERRUPTED_FRAME = "dropped_interrupted_frame"
    DROPPED_STRAY = "dropped_stray"
    SYNTHESIZED = "synthesized"
    SYNTHESIZED_TURN = "synthesized_turn"


class FindingCode(str, Enum):
    """A defect the policy reports but leaves in the view."""

    STRAY_RESULT = "stray_result"
    MALFORMED_RESULT_ID = "malformed_result_id"
    REUSED_CALL_ID = "reused_call_id"
    RESULTS_OUT_OF_ORDER = "results_out_of_order"
    EMPTY_ID = "empty_id"
    DUPLICATE_RESULT = "duplicate_result"
    REAL_RESULT_HIDDEN = "real_result_hidden"
    # schema findings (integrity.schema): an entry that breaks its format's schema
    NOT_A_MESSAGE = "not_a_message"
    UNKNOWN_ROLE = "unknown_role"
    INVALID_CONTENT = "invalid_content"
    CALL_WITHOUT_ID = "call_without_id"
    CALL_WITHOUT_NAME = "call_without_name"
    NON_STRING_ID = "non_string_id"
    RESULT_WITHOUT_CALL_ID = "result_without_call_id"
    INVALID_ARGUMENTS = "invalid_arguments"
    LONE_MESSAGE = "lone_message"
    INVALID_FIELD = "invalid_field"


class Mark(str, Enum):
    """What a message kept as it is still deserves attention for (shown on its row, counted in the summary)."""

    ORPHANED_CALL = "orphaned_call"
    STRAY = "stray"
    FINDING = "finding"


@dataclass(frozen=True)
class KindFacts:
    """Facts about one kind.

    name: the one short name every screen, table and export uses.
    description: one or two sentences for the glossary.
    severity: see Severity.
    summary_field: the report summary count this kind feeds (None: not counted).
    verdict: how the one-line verdict words a count of it (None: not in the verdict).
    action: whether the report's per-message actions use it as their kind.
    """

    name: str
    description: str
    severity: Severity
    summary_field: str | None = None
    verdict: str | None = None
    action: bool = False


REPAIR_KINDS: dict[RepairKind, KindFacts] = {
    RepairKind.KEPT: KindFacts(
        "kept", "The durable message is carried into the view as it is, at the same place.",
        Severity.INFO, action=True),
    RepairKind.MOVED: KindFacts(
        "moved", "A result the view carries right after its frame, in call order, away from where it was recorded.",
        Severity.ERROR, "moved", "moved", action=True),
    RepairKind.DROPPED_DUPLICATE: KindFacts(
        "dropped duplicate", "A second result for a call that already has one; the view keeps one result per call.",
        Severity.ERROR, "duplicates_dropped", "duplicate receipt(s) dropped", action=True),
    RepairKind.DROPPED_INTERRUPTED_FRAME: KindFacts(
        "dropped interrupted frame",
        "An assistant frame without tool calls that stopped abnormally (aborted, cut by length, errored), "
        "left out of the view.",
        Severity.WARNING, "frames_dropped", "interrupted frame(s) dropped", action=True),
    RepairKind.DROPPED_STRAY: KindFacts(
        "dropped stray", "A result whose call id matches no call in the transcript, left out of the view.",
        Severity.ERROR, "strays_dropped", "stray result(s) dropped", action=True),
    RepairKind.SYNTHESIZED: KindFacts(
        "synthesized receipt",
        "A result written by the engine for a call that has none: it tells the model the outcome is unknown. "
        "It exists only in the view.",
        Severity.ERROR, "synthesized", "receipt(s) synthesized"),
    RepairKind.RENAMED: KindFacts(
        "renamed ids", "A message the view sends with new call ids (an id used twice, an empty id, or a "
        "numeric id sent as a string); the durable message keeps its ids.",
        Severity.ERROR, "renamed", "message(s) with renamed ids"),
    RepairKind.MERGED: KindFacts(
        "merged", "A message sent inside the next message of the same role, because the provider wants one "
        "message per turn.",
        Severity.ERROR, "merged", "message(s) merged into the next of the same role", action=True),
    RepairKind.SYNTHESIZED_TURN: KindFacts(
        "synthesized turn", "A user or assistant turn that exists only in the view, because the provider's "
        "order of turns needs it.",
        Severity.ERROR, "turns_synthesized", "turn(s) synthesized for the provider's role order"),
    RepairKind.SHARED: KindFacts(
        "shared answer", "A reused call id answered again with the first result recorded for it "
        "(the reference's behaviour).",
        Severity.WARNING),
}

FINDINGS: dict[FindingCode, KindFacts] = {
    FindingCode.STRAY_RESULT: KindFacts(
        "stray result", "A result whose call id matches no call; the policy left it in place.", Severity.ERROR),
    FindingCode.MALFORMED_RESULT_ID: KindFacts(
        "malformed result id", "A result without a string call id: no call can own it.", Severity.ERROR),
    FindingCode.REUSED_CALL_ID: KindFacts(
        "reused call id", "One call id used by several calls; the reference answers every use with the first result.",
        Severity.WARNING),
    FindingCode.RESULTS_OUT_OF_ORDER: KindFacts(
        "results out of order", "The results right after a frame, but not in the order of its calls.",
        Severity.WARNING),
    FindingCode.EMPTY_ID: KindFacts(
        "empty id", "A call or result with an empty id.", Severity.WARNING),
    FindingCode.DUPLICATE_RESULT: KindFacts(
        "duplicate result", "A call with several results that the policy left in the view.", Severity.ERROR),
    FindingCode.REAL_RESULT_HIDDEN: KindFacts(
        "real result hidden", "The real result was dropped because an interrupted receipt for the same call came "
        "first (the reference keeps the first).", Severity.WARNING),
    FindingCode.NOT_A_MESSAGE: KindFacts(
        "not a message", "An entry of the message list that is not a message object (a number, a string, "
        "an array, null).", Severity.MALFORMED),
    FindingCode.UNKNOWN_ROLE: KindFacts(
        "unknown role", "A message whose role is missing, not a string, miscased or not one its format "
        "knows.", Severity.MALFORMED),
    FindingCode.INVALID_CONTENT: KindFacts(
        "invalid content", "A message whose content is missing or of the wrong type (an object where text or "
        "a list of parts belongs, a part without its type or text).", Severity.MALFORMED),
    FindingCode.CALL_WITHOUT_ID: KindFacts(
        "call without id", "A tool call with no id: no result can name it.", Severity.MALFORMED),
    FindingCode.CALL_WITHOUT_NAME: KindFacts(
        "call without name", "A tool call with no string tool name.", Severity.MALFORMED),
    FindingCode.NON_STRING_ID: KindFacts(
        "non-string id", "A call id or a result's call id that is not a string (null, a number); "
        "providers require strings.", Severity.MALFORMED),
    FindingCode.RESULT_WITHOUT_CALL_ID: KindFacts(
        "result without call id", "A tool result that names no call.", Severity.MALFORMED),
    FindingCode.INVALID_ARGUMENTS: KindFacts(
        "invalid arguments", "Tool call arguments that are not a JSON object (or JSON text of one).",
        Severity.MALFORMED),
    FindingCode.LONE_MESSAGE: KindFacts(
        "lone message", "A single message object where the format wants a list of messages.",
        Severity.MALFORMED),
    FindingCode.INVALID_FIELD: KindFacts(
        "invalid field", "A field of the wrong type or value (a timestamp that is not a number, a stopReason "
        "or isError pi-ai does not have).", Severity.MALFORMED),
}

MARKS: dict[Mark, KindFacts] = {
    Mark.ORPHANED_CALL: KindFacts(
        "orphaned call", "A call with no result anywhere in the transcript.", Severity.ERROR, "orphaned_calls"),
    Mark.STRAY: KindFacts(
        "stray result", "A result whose call id matches no call; the policy left it in place.", Severity.ERROR,
        "strays"),
    Mark.FINDING: KindFacts(
        "finding", "A defect the policy reports but does not change.", Severity.WARNING, "findings"),
}

ACTION_KINDS: tuple[RepairKind, ...] = tuple(kind for kind, facts in REPAIR_KINDS.items() if facts.action)
"""The kinds a report action can have, in registry order."""

VERDICT_ORDER: tuple[RepairKind, ...] = (
    RepairKind.MOVED, RepairKind.DROPPED_DUPLICATE, RepairKind.DROPPED_INTERRUPTED_FRAME,
    RepairKind.DROPPED_STRAY, RepairKind.SYNTHESIZED, RepairKind.RENAMED, RepairKind.MERGED,
    RepairKind.SYNTHESIZED_TURN,
)
"""The order in which the verdict lists the counts of what a repair changed."""


def facts(kind: RepairKind | FindingCode | Mark | str) -> KindFacts:
    """The facts of any kind, by enum member or by its string value."""
    for table in (REPAIR_KINDS, FINDINGS, MARKS):
        for member, found in table.items():
            if kind is member or kind == member.value:
                return found
    raise KeyError(f"unknown kind {kind!r}")


def name(kind: RepairKind | FindingCode | Mark | str) -> str:
    """The one short name of a kind (what every screen and export says)."""
    return facts(kind).name
