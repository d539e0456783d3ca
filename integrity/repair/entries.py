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
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any

from .messages import merge_messages, not_executed_message, receipt_message, rewrite_message, turn_message

if TYPE_CHECKING:
    from ..notes import Note


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A durable message the view carries with new ids or repaired arguments (a copy; the durable one is
    untouched).

    ids: for a frame, call position -> new id; for a result, {-1: new toolCallId}.
    arguments: call positions whose invalid arguments the view sends as {} (strict policy).
    """

    index: int
    ids: Mapping[int, str]
    arguments: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Synthesized:
    """A result the view needs for a call that has none: the call it answers and where that call is.

    not_executed: the call's arguments were invalid, so no tool ran: the result is an error saying so
    (integrity.repair.messages.not_executed_message), not an interrupted receipt.
    """

    call_id: str
    tool_name: str
    frame_index: int
    call_position: int
    not_executed: bool = False


@dataclass(frozen=True, slots=True)
class SynthesizedTurn:
    """A user or assistant turn that exists only in the view (strict policy, provider role rules).

    Inserted where the chosen provider's role order demands a turn the transcript
    never recorded; `reason` says which rule (rendered by the report).
    """

    role: str
    text: str
    reason: Note


Member = int | Rewritten


@dataclass(frozen=True, slots=True)
class Merged:
    """Consecutive durable messages of one role that the view carries as one message (a copy).

    The view message is the last member with every member's content, in order.
    """

    entries: tuple[Member, ...]


ViewEntry = int | Rewritten | Synthesized | SynthesizedTurn | Merged
"""Every shape a view entry can take (see the module docstring)."""

DURABLE_ENTRY_TYPES = (int, Rewritten, Merged)


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
    return isinstance(entry, (Synthesized, SynthesizedTurn))


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
        return rewrite_message(durable(entry.index), entry.ids, entry.arguments)
    if isinstance(entry, Synthesized):
        if entry.not_executed:
            return not_executed_message(entry.call_id, entry.tool_name, stamp())
        return receipt_message(entry.call_id, entry.tool_name, stamp(), placeholder)
    if isinstance(entry, SynthesizedTurn):
        return turn_message(entry.role, entry.text, stamp())
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
