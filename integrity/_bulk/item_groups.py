"""A Responses provider's verdict on a request's call and output items, judged on the few that may be broken.

providers.sparse_items judged a million-message request on its columns: every call and output item of the
recording, and again of the view, each with its index, message, kind and id (and the rules' maps over them):
at a million messages, 1.45x the file in memory where `check` alone takes 0.9x.  Here the items are walked
twice, from the light view and the view's pieces, and never held.  The items fall into *groups*: a run of
consecutive call items with the run of consecutive output items right after it (either may be empty).  A group
whose outputs answer exactly the ids its calls make (as sets; neither empty) breaks no rule of either
Responses provider: each call has an output after it (OpenAI: anywhere later; DeepSeek: in the run right
after), each output a call before it.  Every other group is *suspect*, and so are its ids.

The first walk learns the suspect ids; the second keeps every group holding one (whole: DeepSeek reads a
group's runs) and the provider's own rules judge those columns (sparse_items.judge_items).  Each rule reads an
item with the items of its id and its own group, all kept, so the verdict is the whole request's: an item
left out is in a group of sound ids, which no rule fires on.  Memory: the suspect groups and one int per
message (where its items start).

tests/test_item_groups.py holds the verdicts equal to the whole columns' on random requests; tests/test_sparse.py
holds the pipeline's equal to the bones' on samples, generated and random transcripts, as recorded and repaired.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from heapq import merge
from itertools import accumulate
from operator import le
from typing import Any

from ..formats.common import OPAQUE
from ..formats.skeleton import responses_items
from ..providers.sparse_items import CALL, OUTPUT, Columns, Unplaced, judge_items
from ..providers.violation import Violation
from ..repair.entries import Rewritten

Item = tuple[int, int, bool, str]
"""(index in the request, index of the message it is written from, whether it is a call, its call id)."""

_FRAME: Any = object()


class Places:
    """Where each durable message's items fall, for walking them without listing them: `starts[i]` is the index
    of message i's first item in the request as recorded, `marks` the frames and results in order (the only
    messages written with call or output items), `offsets[s]` the call offsets of shape s (shape 0: a result's
    one item).  Building it checks every frame has as many calls as its shape places (else Unplaced)."""

    __slots__ = ("shapes", "starts", "marks", "offsets", "frames", "results")

    def __init__(self, shapes: Any, frames: Mapping[int, Any], results: Mapping[int, Any]) -> None:
        self.shapes, self.frames, self.results = shapes, frames, results
        counts = [count for count, _ in shapes.table]
        # (4 bytes an int where they fit: a million messages' starts and marks in 6 MB)
        wide = "I" if sum(map(counts.__getitem__, shapes.of)) < 1 << 32 and len(shapes.of) < 1 << 32 else "q"
        self.starts = array(wide, accumulate(map(counts.__getitem__, shapes.of), initial=0))
        marks = array(wide, merge(frames, results))  # (each dict is in message order: checked)
        if not all(map(le, marks, marks[1:])):
            marks = array(wide, sorted(marks))
        self.marks = marks
        self.offsets = [(0,), *(offsets for _, offsets in shapes.table[1:])]
        of, offsets = shapes.of, self.offsets
        for index, calls in frames.items():
            if len(calls) != len(offsets[of[index]]):
                raise Unplaced

    def stretch(self, low: int, high: int, native: int, message: int) -> Iterator[Item]:
        """The items of the durable messages low..high-1 kept in order as the messages `message`... of a request
        whose item `native` is their first."""
        marks, starts, of, offsets = self.marks, self.starts, self.shapes.of, self.offsets
        result_of, frames = self.results.get, self.frames
        shift, moved = native - starts[low], message - low
        for at in range(bisect_left(marks, low), bisect_left(marks, high)):
            index = marks[at]
            first = starts[index] + shift
            result = result_of(index, _FRAME)
            if result is not _FRAME:
                yield first, index + moved, False, result if type(result) is str else ""
                continue
            for call, offset in zip(frames[index], offsets[of[index]], strict=True):
                yield first + offset, index + moved, True, call.id

    def renamed(self, index: int, ids: Mapping[int, str], native: int, message: int) -> Iterator[Item]:
        """The items of durable message `index` written with new ids (call position -> id, -1 -> the result's)
        from item `native` as message `message`."""
        _, offsets = self.shapes.table[self.shapes.of[index]]
        if index in self.results:
            yield native, message, False, _id(ids.get(-1, self.results[index]))
            return
        calls = self.frames.get(index, ())
        if len(calls) != len(offsets):
            raise Unplaced
        for position, (offset, call) in enumerate(zip(offsets, calls, strict=True)):
            yield native + offset, message, True, _id(ids.get(position, call.id))

    def count(self, index: int) -> int:
        """The items durable message `index` is written as."""
        return int(self.shapes.table[self.shapes.of[index]][0])


def recorded(places: Places) -> Iterator[Item]:
    """The items of the request as recorded."""
    return places.stretch(0, len(places.starts) - 1, 0, 0)


def of_view(places: Places, view: Any) -> Iterator[Item]:
    """The items of a SparseView's request, walked: its durable stretches, its
    messages renamed in place or rewritten, the messages it made."""
    native = 0
    starts = places.starts
    for position, low, high in view._pieces():
        if low >= 0:
            yield from places.stretch(low, high, native, position)
            native += starts[high] - starts[low]
            continue
        if low == -2:
            yield from places.renamed(high, view.alike.ids_of(high) or {}, native, position)
            native += places.count(high)
            continue
        entry = view.made[position]
        if type(entry) is Rewritten:
            if entry.calls_last:  # its items are not where its durable shape places them
                raise Unplaced
            yield from places.renamed(entry.index, entry.ids, native, position)
            native += places.count(entry.index)
            continue
        count, offsets = responses_items(entry)
        if entry[0] == "toolResult":
            yield native, position, False, _id(entry[2])
        elif entry[0] == "assistant" and offsets:
            calls = [part[0] for part in entry[1] if type(part) is tuple and part[0] != OPAQUE]
            if len(calls) != len(offsets):
                raise Unplaced
            for offset, call_id in zip(offsets, calls, strict=True):
                yield native + offset, position, True, _id(call_id)
        native += count


def _groups(items: Iterator[Item]) -> Iterator[list[Item]]:
    """The items in groups: a run of consecutive calls and the run of consecutive outputs right after it."""
    group: list[Item] = []
    last, outputs = -2, False  # the last item's index; whether the group has reached its outputs
    for item in items:
        native, _, call, _ = item
        if native == last + 1 and (not outputs if call else group):
            if not call:
                outputs = True
        else:
            if group:
                yield group
            group, outputs = [], not call
        group.append(item)
        last = native
    if group:
        yield group


def _sound(group: list[Item]) -> bool:
    """Whether the group's outputs answer exactly the ids its calls make (neither empty): no rule fires on it."""
    if len(group) == 2:  # a call and its output: the common group
        return group[0][2] and not group[1][2] and group[0][3] == group[1][3]
    calls = {item[3] for item in group if item[2]}
    outputs = {item[3] for item in group if not item[2]}
    return bool(calls) and calls == outputs


def suspect_ids(items: Iterator[Item]) -> set[str]:
    """The ids of the groups that are not sound."""
    found: set[str] = set()
    for group in _groups(items):
        if not _sound(group):
            found.update(item[3] for item in group)
    return found


def judge(provider: str, walk: Any) -> list[Violation]:
    """The provider's verdict on the request whose items `walk()` gives (each call a fresh walk), as
    sparse_items.judge_items gives it on every item's columns."""
    suspect = suspect_ids(walk())
    if not suspect:
        return []
    kept = Columns()
    add = kept.add
    for group in _groups(walk()):
        if any(item[3] in suspect for item in group):
            for native, message, call, call_id in group:
                add(native, message, CALL if call else OUTPUT, call_id)
    return judge_items(provider, kept)


def _id(value: Any) -> str:
    """A call id as the rules read it ("" when missing or not a string)."""
    return value if type(value) is str else ""
