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

Neither walk visits every item: most of a request is the light view's clean turns, each a sound group of its
own, and a walk leaves those out but for the ones next to a loose message, of another shape or holding a
suspect id (Places.plain).  Walking them cost two thirds of the verdict's time (a generator step per item,
four walks a provider); what is left out is whole groups, all sound, so the walks see the same suspect ids and
keep the same groups.

tests/test_item_groups.py holds the verdicts equal to the whole columns' on random requests; tests/test_sparse.py
holds the pipeline's equal to the bones' on samples, generated and random transcripts, as recorded and repaired.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, chain, compress, repeat
from operator import eq, lt, not_
from typing import TYPE_CHECKING, Any

from ..formats.common import OPAQUE
from ..formats.skeleton import responses_items
from ..providers.sparse_items import CALL, OUTPUT, Columns, Unplaced, judge_items
from ..providers.violation import Violation
from ..repair.entries import Rewritten

if TYPE_CHECKING:
    from ..repair.views import Clean

Item = tuple[int, int, bool, str]
"""(index in the request, index of the message it is written from, whether it is a call, its call id)."""

_FRAME: Any = object()

WALKED_AT_MOST = 0.5
"""The share of the marks beyond which Places walks every mark: an array of them would cost memory for little."""


class Places:
    """Where each durable message's items fall, for walking them without listing them: `starts[i]` is the index
    of message i's first item in the request as recorded, `marks` the frames and results in order (the only
    messages written with call or output items), `offsets[s]` the call offsets of shape s (shape 0: a result's
    one item).  Building it checks every frame has as many calls as its shape places (else Unplaced).

    Given the light view's clean turns (LightTranscript.clean), `turns` holds their frames, `first` each call id's
    first frame, and `walked` the marks every walk visits: the loose frames and results, and the clean turns that
    may not be groups of their own, plainly sound (Places.plain); the walks leave the other clean turns out.
    `walked` is None (every mark walked) without clean turns, or when more than WALKED_AT_MOST of the marks would
    be walked anyway (the array would cost memory and save little)."""

    __slots__ = ("shapes", "starts", "marks", "offsets", "frames", "results", "turns", "first", "walked")

    def __init__(
        self, shapes: Any, frames: Mapping[int, Any], results: Mapping[int, Any], clean: Clean | None = None
    ) -> None:
        self.shapes, self.frames, self.results = shapes, frames, results
        counts = [count for count, _ in shapes.table]
        # (4 bytes an int where they fit: a million messages' starts and marks in 6 MB)
        wide = "I" if sum(map(counts.__getitem__, shapes.of)) < 1 << 32 and len(shapes.of) < 1 << 32 else "q"
        self.starts = array(wide, accumulate(map(counts.__getitem__, shapes.of), initial=0))
        # (each dict is in message order: two runs, which sorted merges at C speed)
        self.marks = array(wide, sorted(chain(frames, results)))
        self.offsets = [(0,), *(offsets for _, offsets in shapes.table[1:])]
        placed = list(map(len, self.offsets))  # (C-level: every frame's calls against its shape's)
        if not all(map(eq, map(len, frames.values()), map(placed.__getitem__, map(shapes.of.__getitem__, frames)))):
            raise Unplaced
        self.turns: list[int] = []
        self.first: Mapping[str, int] = {}
        self.walked: array[int] | None = None
        if clean is not None and clean[1] is not None:
            self.plain(clean[0], clean[1], clean[2], wide)

    def plain(self, turns: list[int], first: Mapping[str, int], loose: list[int], wide: str) -> None:
        """Learn which clean turns the walks may leave out (LightTranscript.clean: the clean frames, each call id's
        first frame, the loose frames and results).  A clean turn is a frame of fresh ids answered by the results
        right after it, in call order.  When its frame writes its calls as its last items, its items are a run of
        calls and the run of their outputs: a sound group, unless the item before the calls is a call or the one
        after the outputs an output, which only a loose frame or result writes (a clean frame is followed by its
        own result; a result after a clean turn's last is loose).  So the clean turns next to a loose message (the
        last before it, the first after it) are walked, and those of other shapes: what is left out is whole
        groups, all sound, and the walked items fall into the groups a walk of every item has (a gap in the items
        parts groups).  A turn left out still counts when it holds a suspect id: a clean turn's ids are all first
        called in its frame (`first`), where walked_holding finds it."""
        frames, marks = self.frames, self.marks
        if not all(map(lt, loose, loose[1:])) or len(loose) + len(turns) + sum(
            map(len, map(frames.__getitem__, turns))
        ) != len(marks):
            return  # (never so for a builder's light view: every frame and result is loose or in one clean turn)
        counts = self.shapes.table
        tail = [bool(offsets) and offsets == tuple(range(count - len(offsets), count)) for count, offsets in counts]
        odd = compress(turns, map(not_, map(tail.__getitem__, map(self.shapes.of.__getitem__, turns))))
        # (each loose message's clean turns on either side: its group may hold one of them, calls or outputs)
        near = {*map(bisect_right, repeat(turns), loose)}
        near = {turns[at] for at in near | {at - 1 for at in near} if 0 <= at < len(turns)}
        near.update(odd)
        if len(loose) + len(near) + sum(map(len, map(frames.__getitem__, near))) > WALKED_AT_MOST * len(marks):
            return  # (most marks would be walked: no array beside them)
        self.turns, self.first = turns, first
        self.walked = array(
            wide, sorted(chain(loose, *(range(frame, frame + len(frames[frame]) + 1) for frame in near)))
        )

    def walked_holding(self, ids: Collection[str]) -> array[int] | None:
        """`walked` with the marks of every clean turn left out that holds one of `ids` (None: every mark)."""
        walked, turns, frames = self.walked, self.turns, self.frames
        if walked is None or not ids:
            return walked
        found = {frame for frame in map(self.first.get, ids) if frame is not None}
        extra = [frame for frame in found if _has(turns, frame) and not _has(walked, frame)]
        if not extra:
            return walked
        return array(
            walked.typecode, sorted(chain(walked, *(range(frame, frame + len(frames[frame]) + 1) for frame in extra)))
        )

    def stretch(
        self, low: int, high: int, native: int, message: int, walked: array[int] | None = None
    ) -> Iterator[Item]:
        """The items of the durable messages low..high-1 kept in order as the messages `message`... of a request
        whose item `native` is their first.  With `walked` (walked_holding), the clean turns it leaves out are left
        out where they lie inside the stretch with an item of the stretch before and after them: their neighbours
        are the ones they had as recorded.  The first and last clean turns are walked when nothing of the stretch
        is written before or after them (their groups may reach into the next piece), as are turns the stretch
        cuts (every mark before the first whole turn and after the last is walked)."""
        marks, starts = self.marks, self.starts
        shift, moved = native - starts[low], message - low
        every = range(bisect_left(marks, low), bisect_left(marks, high))
        if walked is None:
            return self._items(map(marks.__getitem__, every), shift, moved)
        turns, frames = self.turns, self.frames
        at, last = bisect_left(turns, low), bisect_left(turns, high) - 1
        if at > last:
            return self._items(map(marks.__getitem__, every), shift, moved)
        start = turns[at]
        if starts[start] == starts[low]:  # nothing written before it in the stretch: walked
            start += len(frames[start]) + 1
        stop = turns[last]
        end = stop + len(frames[stop]) + 1
        if end <= high and starts[end] != starts[high]:  # whole, with an item after it in the stretch
            stop = end
        if start >= stop:
            return self._items(map(marks.__getitem__, every), shift, moved)
        head, tail = bisect_left(marks, start), bisect_left(marks, stop)
        return self._items(
            chain(
                map(marks.__getitem__, range(every.start, head)),
                walked[bisect_left(walked, start) : bisect_left(walked, stop)],
                map(marks.__getitem__, range(tail, every.stop)),
            ),
            shift,
            moved,
        )

    def _items(self, indices: Iterable[int], shift: int, moved: int) -> Iterator[Item]:
        """The items of these durable messages (frames and results, in order), `shift` items and `moved`
        messages on from where they were recorded."""
        starts, of, offsets = self.starts, self.shapes.of, self.offsets
        result_of, frames = self.results.get, self.frames
        for index in indices:
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


def recorded(places: Places, holding: Collection[str] = ()) -> Iterator[Item]:
    """The items of the request as recorded, but for clean turns left out (Places.plain: whole groups, sound)
    that hold none of `holding`'s ids."""
    return places.stretch(0, len(places.starts) - 1, 0, 0, places.walked_holding(holding))


def of_view(places: Places, view: Any, holding: Collection[str] = ()) -> Iterator[Item]:
    """The items of a SparseView's request, walked: its durable stretches (but for clean turns left out, as
    `recorded` leaves them out), its messages renamed in place or rewritten, the messages it made."""
    native = 0
    starts = places.starts
    walked = places.walked_holding(holding)
    for position, low, high in view._pieces():
        if low >= 0:
            yield from places.stretch(low, high, native, position, walked)
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


def judge(
    provider: str, walk: Callable[[], Iterator[Item]], holding: Callable[[set[str]], Iterator[Item]] | None = None
) -> list[Violation]:
    """The provider's verdict on the request whose items `walk()` gives (each call a fresh walk), as
    sparse_items.judge_items gives it on every item's columns.  `walk()` may leave out whole groups that are
    sound; then `holding(suspect)` walks again with those holding a suspect id (recorded and of_view do both)."""
    suspect = suspect_ids(walk())
    if not suspect:
        return []
    kept = Columns()
    add = kept.add
    for group in _groups(walk() if holding is None else holding(suspect)):
        if any(item[3] in suspect for item in group):
            for native, message, call, call_id in group:
                add(native, message, CALL if call else OUTPUT, call_id)
    return judge_items(provider, kept)


def _has(ordered: Sequence[int], value: int) -> bool:
    """Whether an ordered sequence holds `value`."""
    at = bisect_left(ordered, value)
    return at < len(ordered) and ordered[at] == value


def _id(value: Any) -> str:
    """A call id as the rules read it ("" when missing or not a string)."""
    return value if type(value) is str else ""
