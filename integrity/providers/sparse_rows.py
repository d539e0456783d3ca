"""The rows of Mistral's refused ids (providers.refused's columns) made and read at C speed, from the light view.

A transcript recorded for another provider has every call and result id refused: some 146,000 rows at 200,000
messages.  Merging the frames' rows with the results' (heapq.merge, a Python generator step per row) and reading
each run of ids back (RowIds._run, a Python step per result row) took about a tenth of `check --provider
mistral`.  Both are done here by C-level passes instead (sorted over a part of each at a time, and maps over the
dicts): the same rows, ids and order, without a list of every row (the merge holds a part at a time; the frames'
keys as an array, 4 bytes each).  tests/test_refused.py holds the columns to the violation objects.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice, repeat
from operator import attrgetter
from typing import Any

from .refused import RowIds

_PART = 4096
"""Results merged at once with the frames among them (one sorted list of about twice as many rows at a time)."""


def merged_rows(frames: Mapping[int, Any], results: Iterable[int]) -> array[int]:
    """Each call's frame index (one per call) and each result's index, merged in order, as heapq.merge(rows, results)
    gives them (a frame's rows before a result of the same index), for frames and results each in increasing order:
    a part of the results at a time, sorted (C-level: two sorted runs merged) with the frames' rows among them."""
    at = array("i")  # (4 bytes a message index, as the columns hold them)
    keys, sizes = array("i", frames), array("i", map(len, frames.values()))
    low = 0
    results_left = iter(results)
    part = list(islice(results_left, _PART))
    while part:
        high = bisect_right(keys, part[-1], low)  # the frames up to the part's last result
        at.extend(sorted(chain(chain.from_iterable(map(repeat, keys[low:high], sizes[low:high])), part)))
        low = high
        part = list(islice(results_left, _PART))
    at.extend(chain.from_iterable(map(repeat, keys[low:], sizes[low:])))
    return at


class RowIdsInOrder(RowIds):
    """RowIds for frames and results each in increasing order that share no message (each message is one or the
    other), whose runs, read one after another from the first row (Refused's lines and iteration: a chunk after
    another), are taken from two streams at C speed: the results' ids and the calls' ids, each in order, the next
    of one or the other for each row as its message is a frame or not.  A run read out of turn is read by RowIds'
    own steps (the streams stay where they stood)."""

    __slots__ = ("_next", "_streams")

    def __init__(self, at: array[int], frames: Mapping[int, Any], results: Mapping[int, Any]) -> None:
        super().__init__(at, frames, results)
        self._next = -1  # the row the streams stand at (-1: none made)
        self._streams: list[Iterator[str]] = []

    def _run(self, start: int, stop: int) -> list[str]:
        if start >= stop:
            return []
        if start != self._next:
            if start:
                return super()._run(start, stop)
            self._streams = [iter(self._results.values()), map(_ID, chain.from_iterable(self._frames.values()))]
        pick = self._streams.__getitem__  # (a bool indexes it: True, a frame's row, the calls' stream)
        ids = list(map(next, map(pick, map(self._frames.__contains__, self._at[start:stop]))))
        self._next = stop
        return ids


_ID = attrgetter("id")
