"""View entries: what a plan says each message of the repaired view is, and the one materializer.

A planner never builds messages.  It returns an order of view entries; this
module is the only place that turns entries into view messages, for the dict
API, the CLI's byte-level fast path (which asks only for the entries that are
not plain durable messages) and `view_from_report`, so the three cannot drift.

The union is complete: every consumer that switches on an entry handles these
five shapes and nothing else.

- `int`: a durable message, carried unchanged (the input object itself).  Plain
  ints keep a million-message order cheap to build and to scan.
- `Rewritten`: a durable message carried with new call ids (a copy).
- `Synthesized`: an interrupted receipt for a call that has no result.
- `SynthesizedTurn`: a user or assistant turn the provider's role order needs.
- `Merged`: consecutive durable messages of one role carried as one message.

One view model, two representations.  Every view entry, here and in the report
(integrity.report.records: DurableView, ReceiptView, TurnView, MergedView),
answers the same small protocol, `ViewPart`: `members` (the durable indices it
is made of), `kind` (the RepairKind the entry itself is, None for a durable
message carried one-to-one) and `written_by_engine` (no durable source).  Code
that only asks "what is it made of / what kind is it" reads those and never
switches on the type; `entry_members`/`entry_kind` answer for a plan entry
that is a plain int.  Only the converters (this materializer, the report's
section builder and encoder, view_from_report, the planners) tell the shapes
apart, because each shape carries different fields.

Why two representations remain: a plan's order is built and scanned for every
message of a million-message transcript on the CLI's fast path, where an entry
is a bare int (no object per message; `unplain` picks out the few others at C
speed), and its entries point at durable message objects; the report's entries
are serialized records that also carry what only exists after materializing
(view position, timestamp, severity, the receipt text).  A record per message
in the plan would make the fast path build a million objects it never needs.
"""

from __future__ import annotations

import copy
import operator
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Protocol

from ..kinds import RepairKind
from .messages import (
    images_of,
    merge_messages,
    not_executed_message,
    receipt_message,
    rewrite_message,
    turn_message,
)

if TYPE_CHECKING:
    from ..notes import Note


class CarriedAsIs:
    """ViewPart for an entry that carries one durable message (its `index`) as it is, or as a copy with new
    ids: made of that message, of no repair kind of its own (its Action says what happened to it).  Shared
    by the plan's Rewritten and the report's DurableView."""

    __slots__ = ()
    if TYPE_CHECKING:
        index: int

    @property
    def members(self) -> tuple[int, ...]:
        return (self.index,)

    @property
    def kind(self) -> RepairKind | None:
        return None

    @property
    def written_by_engine(self) -> bool:
        return False


class EngineWritten:
    """ViewPart for an entry the engine wrote (a receipt, a turn): made of no durable message.  Each such
    entry says its own `kind`.  Shared by the plan's Synthesized/SynthesizedTurn and the report's
    ReceiptView/TurnView."""

    __slots__ = ()

    @property
    def members(self) -> tuple[int, ...]:
        return ()

    @property
    def written_by_engine(self) -> bool:
        return True


class MergedOf:
    """ViewPart's kind and authorship for an entry that carries several durable messages as one (a copy): a
    merge, written from the file's own messages.  Shared by the plan's Merged and the report's MergedView
    (each says its `members`)."""

    __slots__ = ()

    @property
    def kind(self) -> RepairKind | None:
        return RepairKind.MERGED

    @property
    def written_by_engine(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class Rewritten(CarriedAsIs):
    """A durable message the view carries with new ids or repaired arguments (a copy; the durable one is
    untouched).

    ids: for a frame, call position -> new id; for a result, {-1: new toolCallId}.
    arguments: call positions whose invalid arguments the view sends as {} (strict policy).
    calls_last: the frame's calls are sent after its other parts (LightTranscript.late_frames).
    blank: the message is sent without its blank texts (LightTranscript.blank_texts).
    text_only: the error result is sent with its texts alone (LightTranscript.error_contents).
    names: call position -> the tool name the view sends for a name the provider refuses (strict.tool_names_fixed).
    signed: the frame's first call is sent with the signature a provider that signs calls documents for calls it did
        not make (LightTranscript.unsigned_frames).
    cut: the limit the message's texts are cut to (LightTranscript.long_texts; 0: not cut), the most characters its
        provider takes in one string (ProviderSpec.string_limit).
    left_out: content positions of thinking parts the message is sent without, each a reasoning item sent already
        earlier in the request (LightTranscript.reasoning; views.repeated_reasoning).
    images_out: the result is sent without its images, which a user turn after its turn's results sends
        (SynthesizedTurn.images; LightTranscript.images, ProviderSpec.images_from_user_only).
    images_gone: the message is sent without its images, a text in their place (ProviderSpec.takes_images).
    """

    index: int
    ids: Mapping[int, str]
    arguments: frozenset[int] = frozenset()
    calls_last: bool = False
    blank: bool = False
    text_only: bool = False
    names: Mapping[int, str] | None = None
    signed: bool = False
    cut: int = 0
    left_out: tuple[int, ...] = ()
    images_out: bool = False
    images_gone: bool = False



def renames_every_call(ids: Iterable[Mapping[int, Any]], sizes: Iterable[int]) -> bool:
    """Whether each frame's Rewritten ids rename its every call (its size: how many), positions 0..n-1 in order:
    then a frame's new ids can be read as its ids' values, without looking at its calls.  Read at C speed (a view
    for Mistral renames most frames); a frame of 64 calls or more is never said to, and its caller reads it one
    call at a time."""
    return all(map(operator.eq, map(tuple, ids), map(_POSITIONS.get, sizes)))


_POSITIONS = {size: tuple(range(size)) for size in range(64)}
"""A frame's call positions, by its size."""


class RenamedAlike:
    """The clean turns a view sends whole and in place but with new call ids (a provider's id rule refuses
    theirs: Mistral's, for most transcripts), held as one rename instead of an entry per message.

    A plan with stretches (plan_strict's, for the cheap diagnosis) keeps such a turn inside its `range`
    entries, as it keeps a settled one, and says here what the full order (one entry per message) would
    carry: the frame as Rewritten with its calls' new ids, each result as Rewritten with its call's new id
    (a plain index where its call keeps its id).  A clean turn's ids are used there first, so one map old id
    -> new id (`new`: the one made for every id the rule refuses) names each call's new id.  Readers ask
    `ids_of` for the few messages they look at, count in bulk (`renamed_count`), or `expand` the order.

    frames: the turns' frame indices, sorted; calls: every frame's calls (the light view's frames).
    whole: every call of the transcript is renamed by `new` (the rule refused every id, none was renamed for
    another reason): then the turns' every message is renamed, and the view keeps no id as recorded.
    """

    __slots__ = ("frames", "calls", "new", "whole", "_stops")

    def __init__(self, frames: Sequence[int], calls: Mapping[int, Sequence[Any]], new: Mapping[str, str],
                 whole: bool = False) -> None:
        self.frames = array("q", frames)  # (arrays: a million messages have some 180,000 such turns)
        self.calls = calls
        self.new = new
        self.whole = whole
        self._stops = array("q", map(operator.add, frames, map(len, map(calls.__getitem__, frames))))
        """Each turn's last durable index (its last result)."""

    def turn_of(self, index: int) -> int | None:
        """The frame of the turn that holds durable message `index`, if one does."""
        at = bisect_right(self.frames, index) - 1
        return self.frames[at] if at >= 0 and index <= self._stops[at] else None

    def ids_of(self, index: int) -> dict[int, str] | None:
        """The ids the full order's Rewritten entry for durable message `index` carries (None: it holds the
        plain index, or the message is in no such turn)."""
        frame = self.turn_of(index)
        if frame is None:
            return None
        new = self.new
        calls = self.calls[frame]
        if index == frame:  # (every turn here has a call renamed: strict.plan_strict keeps only those)
            return {position: new[call.id] for position, call in enumerate(calls) if call.id in new} or None
        found = new.get(calls[index - frame - 1].id)
        return None if found is None else {-1: found}

    def entry(self, index: int) -> Any:
        """The full order's entry for durable message `index`."""
        ids = self.ids_of(index)
        return index if ids is None else Rewritten(index, ids)

    def members(self) -> list[int]:
        """Every durable message of the turns, in order (C-level maps)."""
        return list(chain.from_iterable(map(range, self.frames, map((1).__add__, self._stops))))

    def members_in(self, low: int, high: int) -> list[int]:
        """The durable messages low..high-1 that the full order carries as Rewritten (ids_of), in order."""
        frames, stops = self.frames, self._stops
        found: list[int] = []
        at = bisect_right(stops, low - 1)
        while at < len(frames) and frames[at] < high:
            found.extend(index for index in range(max(frames[at], low), min(stops[at] + 1, high))
                         if self.ids_of(index) is not None)
            at += 1
        return found

    def renamed_count(self) -> int:
        """How many of the turns' messages the full order carries as Rewritten: every frame, and each result
        whose call is renamed (C-level maps)."""
        if self.whole:
            return int(sum(map(operator.sub, self._stops, self.frames))) + len(self.frames)
        ids = map(_ID, chain.from_iterable(map(self.calls.__getitem__, self.frames)))
        return len(self.frames) + sum(map(self.new.__contains__, ids))

    def sent(self, ids: Iterable[Any]) -> list[Any]:
        """The ids a view sends for these recorded ids of its kept messages: a turn's renamed, any other as it is
        (a kept message outside the turns never holds an id the rule refuses: it would be renamed)."""
        values = list(ids)
        return list(map(self.new.get, values, values))

    def expand_entry(self, entry: Any) -> Any:
        """A durable entry (an index or a Merged of them) as the full order holds it."""
        if type(entry) is int:
            return self.entry(entry)
        if isinstance(entry, Merged):
            return Merged(tuple(self.entry(member) if type(member) is int else member for member in entry.entries))
        return entry

    def expand(self, order: Iterable[Any]) -> list[Any]:
        """The full order: every message of a turn an entry of its own (a stretch cut around the turns)."""
        out: list[Any] = []
        frames, stops = self.frames, self._stops
        for entry in order:
            if type(entry) is not range:
                out.append(self.expand_entry(entry))
                continue
            cursor, stop = entry.start, entry.stop
            at = bisect_right(stops, cursor - 1)  # the first turn that ends at or after the stretch's start
            while at < len(frames) and frames[at] < stop:
                low, high = max(frames[at], cursor), min(stops[at] + 1, stop)
                if cursor < low:
                    out.append(range(cursor, low))
                out.extend(map(self.entry, range(low, high)))
                cursor = high
                at += 1
            if cursor < stop:
                out.append(range(cursor, stop))
        return out

@dataclass(frozen=True, slots=True)
class Synthesized(EngineWritten):
    """A result the view needs for a call that has none: the call it answers and where that call is.

    not_executed: the call's arguments were invalid, so no tool ran: the result is an error saying so
    (integrity.repair.messages.not_executed_message), not an interrupted receipt.
    """

    call_id: str
    tool_name: str
    frame_index: int
    call_position: int
    not_executed: bool = False

    @property
    def kind(self) -> RepairKind | None:
        return RepairKind.REPAIRED_ARGUMENTS if self.not_executed else RepairKind.SYNTHESIZED


@dataclass(frozen=True, slots=True)
class SynthesizedTurn(EngineWritten):
    """A user or assistant turn that exists only in the view (strict policy, provider role rules).

    Inserted where the chosen provider's role order demands a turn the transcript
    never recorded; `reason` says which rule (rendered by the report).
    """

    role: str
    text: str
    reason: Note
    images: tuple[int, ...] = ()
    """the durable results whose images this user turn sends after their turn's results (Rewritten.images_out), in
    order: after its text, each result's image parts (repair.messages.images_of)"""

    @property
    def kind(self) -> RepairKind | None:
        return RepairKind.SYNTHESIZED_TURN


Member = int | Rewritten


@dataclass(frozen=True, slots=True)
class Merged(MergedOf):
    """Consecutive durable messages of one role that the view carries as one message (a copy).

    The view message is the last member with every member's content, in order.
    """

    entries: tuple[Member, ...]

    @property
    def members(self) -> tuple[int, ...]:
        return tuple(member_index(member) for member in self.entries)


ViewEntry = int | Rewritten | Synthesized | SynthesizedTurn | Merged
"""Every shape a view entry can take (see the module docstring)."""

DURABLE_ENTRY_TYPES = (int, Rewritten, Merged)


class ViewPart(Protocol):
    """What every view entry answers, a plan's (except a plain int: see entry_members) and a report's.

    members: the durable indices it is made of, in order (empty: the engine wrote it; several: merged).
    kind: the RepairKind the entry itself is (SYNTHESIZED, REPAIRED_ARGUMENTS for a 'not executed' result,
    SYNTHESIZED_TURN, MERGED); None for a durable message carried one-to-one, with new ids or not (what
    happened to that message is its Action's kind).
    written_by_engine: it has no durable source (a receipt or a turn).
    """

    @property
    def members(self) -> Sequence[int]: ...

    @property
    def kind(self) -> RepairKind | None: ...

    @property
    def written_by_engine(self) -> bool: ...


def entry_members(entry: ViewEntry) -> tuple[int, ...]:
    """The durable indices a plan entry is made of (ViewPart.members, for a plain int too; not for a stretch,
    the `range` an order planned with stretches holds, which the report never lists)."""
    if isinstance(entry, int):
        return (entry,)
    part: ViewPart = entry  # mypy checks here that every other shape answers the protocol
    return tuple(part.members)


def entry_kind(entry: ViewEntry) -> RepairKind | None:
    """The kind a plan entry is (ViewPart.kind; None for a plain int; not for a stretch)."""
    return None if isinstance(entry, int) else entry.kind


def member_index(entry: Member) -> int:
    """The durable index of a durable entry (an index, or a Rewritten message)."""
    return entry if type(entry) is int else entry.index  # type: ignore[union-attr]


def entry_index(entry: ViewEntry) -> int | None:
    """The durable index behind a view entry (None for a synthesized receipt or turn).

    A merged message stands for its last member (the one whose fields it carries).
    """
    if type(entry) is int:
        return entry
    if isinstance(entry, Rewritten):
        return entry.index
    if isinstance(entry, Merged):
        return member_index(entry.entries[-1])
    return None


def unplain(order: Sequence[Any]) -> list[Any]:
    """The entries of a view order that are not plain durable indices (receipts, turns, merges, rewritten
    ids, stretches): a few among a million, picked out at C speed."""
    return list(compress(order, map(operator.is_not, map(type, order), repeat(int))))


def is_stamped(entry: ViewEntry) -> bool:
    """Entries that exist only in the view and get a timestamp when materialized."""
    return isinstance(entry, (Synthesized, SynthesizedTurn))  # an order may hold stretches (ranges) too


def entry_message(entry: ViewEntry, durable: Callable[[int], Any], placeholder: str | None,
                  stamp: Callable[[], int]) -> Any:
    """The view message for one entry.

    durable(index) returns a durable message (a dict; the fast path decodes it
    from its bytes); stamp() gives the timestamp of a synthesized message;
    placeholder is the receipt text (None: the reference's).
    """
    if type(entry) is int:
        return durable(entry)
    if isinstance(entry, Rewritten):
        return rewrite_message(durable(entry.index), entry.ids, entry.arguments, entry.calls_last, entry.blank,
                               entry.text_only, entry.names, entry.signed, entry.cut, entry.left_out,
                               entry.images_out, entry.images_gone)
    if isinstance(entry, Synthesized):
        if entry.not_executed:
            return not_executed_message(entry.call_id, entry.tool_name, stamp())
        return receipt_message(entry.call_id, entry.tool_name, stamp(), placeholder)
    if isinstance(entry, SynthesizedTurn):
        message = turn_message(entry.role, entry.text, stamp())
        if entry.images:  # (copies: the durable results keep theirs)
            message["content"] += [copy.deepcopy(part) for index in entry.images for part in images_of(durable(index))]
        return message
    if isinstance(entry, Merged):
        return merge_messages([entry_message(member, durable, placeholder, stamp) for member in entry.entries])
    raise TypeError(f"not a view entry: {entry!r}")


def materialize(order: Iterable[ViewEntry], messages: Sequence[Any], placeholder: str | None,
                now: Callable[[], int]) -> tuple[list[Any], list[int]]:
    """Turn a plan's order into view messages; also return the timestamps given to synthesized
    receipts and turns, in view order (the report records them).

    Durable messages are the input objects themselves (no copies); every message
    the view changes is a new object, so the durable record can never be altered
    through the view.
    """
    out: list[Any] = []
    stamps: list[int] = []

    def stamp() -> int:
        value = now()
        stamps.append(value)
        return value

    durable = messages.__getitem__
    append = out.append
    for entry in order:
        append(messages[entry] if type(entry) is int else entry_message(entry, durable, placeholder, stamp))
    return out, stamps


_ID = attrgetter("id")
