"""The records of a repair report's long sections: what happened to each durable message (Action),
each entry of the view (DurableView, ReceiptView, TurnView, MergedView) and each call (Pairing).

Kept apart from integrity.report so the section builder (integrity.report.sections), which makes a
million of them, and the report itself can both use them.

The four view records answer the plan entries' protocol (integrity.repair.entries.ViewPart): `members`,
`kind`, `written_by_engine`.  A reader that asks only what an entry is made of or what kind it is reads those,
never `source` or the type; integrity.repair.placement.view_placement builds the durable <-> view mapping
from `members` alone.  Why the plan keeps its own representation is said in integrity.repair.entries.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

from .._records import Record
from ..kinds import REPAIR_KINDS, RepairKind, Severity, rate
from ..notes import NoteCode
from ..repair.entries import CarriedAsIs, EngineWritten, MergedOf

Outcome = Literal["answered", "moved", "synthesized", "shared"]

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

    @property
    def shown_kind(self) -> RepairKind:
        """The kind a row shows for this message: its own kind, or for a message the view keeps in place (kept),
        what the view's copy of it still changes: its calls put last, else its blank texts left out, else its ids
        renamed."""
        if self.kind is not RepairKind.KEPT:
            return self.kind
        if NoteCode.CALLS_PUT_LAST in self.codes:
            return RepairKind.CALLS_LAST
        if NoteCode.BLANK_TEXT_LEFT_OUT in self.codes:
            return RepairKind.BLANK_TEXT
        if NoteCode.ERROR_SENT_AS_TEXT in self.codes:
            return RepairKind.ERROR_AS_TEXT
        if NoteCode.TOOL_NAME_FIXED in self.codes:
            return RepairKind.TOOL_NAME
        if NoteCode.CALL_SIGNED in self.codes:
            return RepairKind.SIGNED
        if NoteCode.TEXT_CUT in self.codes:
            return RepairKind.TEXT_CUT
        if NoteCode.REASONING_SENT_ONCE in self.codes:
            return RepairKind.REASONING_ONCE
        if NoteCode.IMAGES_MOVED in self.codes:
            return RepairKind.IMAGES_MOVED
        if NoteCode.IMAGES_LEFT_OUT in self.codes:
            return RepairKind.IMAGES_LEFT_OUT
        if NoteCode.RESHAPED in self.codes:
            return RepairKind.RESHAPED
        return RepairKind.RENAMED if self.new_ids else RepairKind.KEPT


class DurableView(Record, CarriedAsIs, kw_only=True, tag_field="source", tag="durable"):
    """A durable message in the view; with `ids`, carried with new call ids (a copy).

    ids: for a frame, call position -> new id; for a result, {-1: new toolCallId}.
    A frame whose action has the code `arguments_replaced` is carried with its invalid arguments sent as {}
    (view_from_report finds which from the message itself), one whose action has `blank_text_left_out` without its
    blank texts, one whose action has `error_sent_as_text` with its texts alone, one whose action has
    `calls_put_last` with its calls after its other parts, one whose action has `call_signed` with its first call
    signed.
    """

    source: ClassVar[Literal["durable"]] = "durable"
    index: int
    ids: dict[int, str] | None = None


class ReceiptView(Record, EngineWritten, kw_only=True, tag_field="source", tag="synthesized"):
    """A result that exists only in the view: an interrupted receipt, or (its text says so: not_executed) the
    error result for a call whose invalid arguments the view repaired."""

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

    @property
    def not_executed(self) -> bool:
        """The error result for a call whose arguments were invalid (no tool ran), not an interrupted receipt."""
        from ..repair.messages import NOT_EXECUTED_TEXT

        return self.text == NOT_EXECUTED_TEXT

    @property
    def kind(self) -> RepairKind | None:
        return RepairKind.REPAIRED_ARGUMENTS if self.not_executed else RepairKind.SYNTHESIZED


class TurnView(Record, EngineWritten, kw_only=True, tag_field="source", tag="turn"):
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
    images: list[int] = msgspec.field(default_factory=list)
    """the durable results whose images it sends after their turn's results (code `images_carried`), in order"""

    def __post_init__(self) -> None:
        if self.severity is None:
            self.severity = rate(RepairKind.SYNTHESIZED_TURN, [self.code])

    @property
    def kind(self) -> RepairKind | None:
        return RepairKind.SYNTHESIZED_TURN


class MergedView(Record, MergedOf, kw_only=True, tag_field="source", tag="merged"):
    """Consecutive durable messages of one role that the view sends as one message.

    The view message is the last member (with `ids` applied, as for a durable
    entry) carrying every member's content in order.
    """

    source: ClassVar[Literal["merged"]] = "merged"
    view_index: int
    members: list[int]
    """the durable messages it is made of, in order (ViewPart.members)"""
    ids: dict[int, str] | None = None
    role: str | None = None


ViewItem = DurableView | ReceiptView | TurnView | MergedView
"""A view entry, told apart by its `source` (the tag msgspec writes first and reads back); every one answers
integrity.repair.entries.ViewPart (members, kind, written_by_engine)."""


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
