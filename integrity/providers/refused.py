"""Mistral's refused ids held as columns until they are read: a verdict of a quarter of a million violations.

Mistral refuses every call id that is not nine letters or digits, so a transcript recorded by another provider
has one violation per call and per result (some 146,000 at 200,000 messages).  Each was a Violation with two
lists and two strings of its own: most of what `check --provider mistral` held, and a fifth of its time.  Here
they are two columns (each refused id's message index, in an array, and the id itself, the string the light
view already holds) and the few violations the rest of the request breaks, put in place among them.  A
Violation is made only when one is read (iterating, indexing), and `said_lines` writes `check`'s plain lines
from the columns.  It reads as the list it stands for: the same length, items, order and equality
(tests/test_refused.py holds it equal to the objects mistral.refused_ids makes).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import Any, overload

from ..loading import one_line
from .ids import mistral_taken
from .mistral import INVALID_ID
from .violation import Violation, said

RULE = "invalid_tool_call_id"
_BEFORE, _AFTER = INVALID_ID.split("{id}")
_CHUNK = 1024
"""Lines written at once by said_lines (one list of them at a time, not one per violation of the verdict: about
170 KB of text, written before the next are made), and violations made at once when iterating."""


class Refused(Sequence[Violation]):
    """The refused ids of a request written one native entry per message (the Chat shape), as columns: `at` (each
    one's message index, in order) and `ids` (its id), merged with `others` (other violations, sorted), each of
    which sits before the `cuts[k]`-th refused id (sort_violations' order: by first index, then rule)."""

    __slots__ = ("provider", "at", "ids", "others", "cuts", "_placed")

    def __init__(self, provider: str, at: array[int], ids: Sequence[str], others: Sequence[Violation] = (),
                 cuts: Sequence[int] = ()) -> None:
        assert len(at) == len(ids) and len(others) == len(cuts)
        self.provider = provider
        self.at = at
        self.ids = ids
        self.others = list(others)
        self.cuts = list(cuts)
        self._placed = [cut + number for number, cut in enumerate(self.cuts)]  # each other's place in the list

    def merged(self, found: Sequence[Violation]) -> Refused:
        """These refused ids with `found` (sorted, none of them here yet) put in place among them, as
        sort_violations(found + list(self)) orders them: found before a refused id of the same first index when
        its rule sorts first or ties (sorted is stable, found comes first)."""
        assert not self.others
        cuts: list[int] = []
        for violation in found:
            first = violation.native_indices[0] if violation.native_indices else -1
            cut = bisect_left(self.at, first) if violation.rule <= RULE else bisect_right(self.at, first)
            cuts.append(max(cut, cuts[-1]) if cuts else cut)
        return Refused(self.provider, self.at, self.ids, found, cuts)

    def __len__(self) -> int:
        return len(self.at) + len(self.others)

    def _made(self, row: int) -> Violation:
        """The violation of refused id `row`, as mistral.refused_ids makes it (its canonical message its own)."""
        return self._made_of(row, self.ids[row])

    def _made_of(self, row: int, value: str) -> Violation:
        index = self.at[row]
        where = [index]
        return Violation(provider=self.provider, rule=RULE, position=f"messages[{index}]", native_indices=where,
                         call_ids=[value], error=_BEFORE + value + _AFTER, canonical_indices=where)

    def _item(self, place: int) -> Violation:
        other = bisect_left(self._placed, place)
        if other < len(self._placed) and self._placed[other] == place:
            return self.others[other]
        return self._made(place - other)

    @overload
    def __getitem__(self, place: int) -> Violation: ...

    @overload
    def __getitem__(self, place: slice) -> list[Violation]: ...

    def __getitem__(self, place: int | slice) -> Violation | list[Violation]:
        if isinstance(place, slice):
            return [self._item(at) for at in range(*place.indices(len(self)))]
        size = len(self)
        if place < 0:
            place += size
        if not 0 <= place < size:
            raise IndexError("violation index out of range")
        return self._item(place)

    def _runs(self) -> Iterator[tuple[int, int, Violation | None]]:
        """The list in order, as runs: (low, high, None) for the refused ids low..high-1, (row, row, other) for an
        other violation before refused id `row`."""
        row = 0
        for cut, other in zip(self.cuts, self.others, strict=True):
            if cut > row:
                yield row, cut, None
                row = cut
            yield row, row, other
        if row < len(self.at):
            yield row, len(self.at), None

    def __iter__(self) -> Iterator[Violation]:
        for low, high, other in self._runs():
            if other is not None:
                yield other
            else:
                for start in range(low, high, _CHUNK):  # (the ids a run at a time: RowIds reads them in runs)
                    end = min(start + _CHUNK, high)
                    yield from map(self._made_of, range(start, end), self.ids[start:end])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == len(self) and all(mine == theirs for mine, theirs in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # (equal to a list: unhashable like one)

    def __repr__(self) -> str:
        return f"Refused({len(self.at)} refused ids, {len(self.others)} other violations)"

    def said_lines(self, head: str) -> Iterator[str]:
        """`check`'s line of each violation (head, then said(violation)), written from the columns, in blocks of
        lines joined by newlines (in_blocks: never a string per violation, nor held twice)."""
        return in_blocks(self._said(head))

    def _said(self, head: str) -> Iterator[str]:
        """said_lines: the refused ids' lines a chunk of rows at a time (the ids read in one run each, whatever the
        other violations among them), each other violation's line put in its place in its chunk; a refused id's
        error never opens with its position, so each says both."""
        at, size = self.at, len(self.at)
        start, mid, after = f"{head}messages[", "]: " + _BEFORE, _AFTER
        cuts, others = self.cuts, self.others  # (others[k] before refused row cuts[k]: in order)
        taken, count = 0, len(others)
        for low in range(0, size, _CHUNK):
            high = min(low + _CHUNK, size)
            values = self.ids[low:high]
            if _needs_escaping("".join(values)):  # (one search a chunk: an id naming a control is rare)
                values = list(map(one_line, values))
            lines = [f"{start}{index}{mid}{value}{after}" for index, value in zip(at[low:high], values, strict=True)]
            if taken < count and cuts[taken] < high:
                placed: list[str] = []
                row = low
                while taken < count and cuts[taken] < high:
                    placed += lines[row - low:cuts[taken] - low]
                    placed.append(one_line(head + said(others[taken])))
                    row = cuts[taken]
                    taken += 1
                placed += lines[row - low:]
                lines = placed
            yield "\n".join(lines)
        for other in others[taken:]:  # (those after every refused id)
            yield one_line(head + said(other))


class RowIds(Sequence[str]):
    """The id of each row of a Refused's columns, read from the light view when asked instead of held in a list
    beside it (5.9 MB at a million messages, which kept `check --provider mistral` over the file's size): row r
    is message at[r]'s result id, or the call of frame at[r] at r's place among that frame's rows.  Only for
    columns where every call of a frame is a row (providers.sparse._refused: no id is one Mistral takes, no
    call's is "null").  Pickled as the list it reads as (a verdict crosses processes without the light view)."""

    __slots__ = ("_at", "_frames", "_results")

    def __init__(self, at: array[int], frames: Mapping[int, Any], results: Mapping[int, Any]) -> None:
        self._at = at
        self._frames = frames
        self._results = results

    def __len__(self) -> int:
        return len(self._at)

    @overload
    def __getitem__(self, row: int) -> str: ...

    @overload
    def __getitem__(self, row: slice) -> list[str]: ...

    def __getitem__(self, row: int | slice) -> str | list[str]:
        size = len(self._at)
        if isinstance(row, slice):
            start, stop, step = row.indices(size)
            if step == 1:
                return self._run(start, stop)
            return [self._run(at, at + 1)[0] for at in range(start, stop, step)]
        if row < 0:
            row += size
        if not 0 <= row < size:
            raise IndexError("row index out of range")
        return self._run(row, row + 1)[0]

    def _run(self, start: int, stop: int) -> list[str]:
        """The ids of rows start..stop-1: a frame's calls taken a run at a time (the first one found by bisection
        when the rows open inside it)."""
        at, frames, result_of = self._at, self._frames, self._results.get
        out: list[str] = []
        add, extend = out.append, out.extend
        row = start
        while row < stop:
            message = at[row]
            found = result_of(message, _NONE)
            if found is not _NONE:
                add(found)
                row += 1
                continue
            calls = frames[message]
            skip = row - bisect_left(at, message, max(0, row - len(calls) + 1), row) if row == start else 0
            taken = calls[skip:skip + stop - row]
            extend(map(_ID, taken))
            row += len(taken)
        return out

    def __reduce__(self) -> tuple[type[list[str]], tuple[list[str]]]:
        return list, (self._run(0, len(self._at)),)


_NONE: Any = object()
_ID = attrgetter("id")


def _needs_escaping(text: str) -> bool:
    """Whether one_line changes the text: never for printable ASCII (what nearly every id is), asked first: two
    C-level passes, faster than one_line's search over a chunk's ids."""
    return not (text.isascii() and text.isprintable()) and one_line(text) is not text


def said_lines(violations: Sequence[Violation], head: str) -> Iterable[str]:
    """`check`'s line of each violation: head, then its error with its position (said); an item may hold several
    lines joined by newlines (Refused.said_lines), so the caller joins them by newlines."""
    if isinstance(violations, Refused):
        return violations.said_lines(head)
    return (one_line(head + said(violation)) for violation in violations)  # an id never drives the terminal


def in_blocks(texts: Iterable[str], size: int = 1 << 16) -> Iterator[str]:
    """The texts joined by newlines, cut into blocks of about `size` characters or more (each text whole; one of
    `size` or more is a block of its own, never copied): what joining them all says, written a block at a time
    (printed each on a line of its own), so that a verdict of many lines is never held twice (its lines and
    their one text), nor encoded at once."""
    block: list[str] = []
    held = 0
    for text in texts:
        if len(text) >= size:
            if block:
                yield "\n".join(block)
                block, held = [], 0
            yield text
            continue
        block.append(text)
        held += len(text) + 1
        if held >= size:
            yield "\n".join(block)
            block, held = [], 0
    if block:
        yield "\n".join(block)


def refused_columns(indices: array[int], values: list[str], provider: str) -> Refused:
    """The ids Mistral refuses among `values` (values[k] the id of message indices[k], in request order), as
    columns: mistral.refused_ids's violations, each with its canonical message (the Chat shape: its own).  Only for
    ids among which no call's is "null" (refused with another text: the caller judges those by refused_ids)."""
    size = len(values)
    taken = mistral_taken(values)
    if not taken:
        return Refused(provider, indices, values)
    rows = [at for at in range(size) if at not in taken]
    kept = array(indices.typecode, map(indices.__getitem__, rows))
    return Refused(provider, kept, list(map(values.__getitem__, rows)))
