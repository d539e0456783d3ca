"""A Responses provider's verdict on a transcript the fast path read, judged from its light view.

The Responses rules pair calls and outputs across the whole request (providers.windowed: WHOLE_OR_NOTHING), so
no stretch of it can be judged apart, as providers.sparse judges the other providers.  But a request written
from messages without native hints (formats.skeleton) has no item with an `id`, and then every rule reads the
call and output items alone: their call ids, their order and (DeepSeek's runs) which are next to each other.
The other items only part them.  So the request is read as its calls and outputs, from the light view (each
frame's call ids, each result's id) and from where each message's items fall (fast_bones.ItemShapes, learnt
while reading), with one stand-in item wherever other items part two of them.  The provider's own rule set
judges those columns (one implementation of each rule), and each violation is put back where its items sit.

tests/test_sparse.py holds the verdicts equal to the full skeleton's on every pi-ai sample and real file,
generated files, files read a block at a time and random transcripts, as recorded and as repaired.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import accumulate
from typing import Any

import msgspec

from . import deepseek_responses, openai_responses
from .violation import Violation, sort_violations

CALL, OUTPUT = "function_call", "function_call_output"
_APART = "message"
"""The stand-in for the items that part two calls or outputs (a message item without an id: no rule reads it)."""

Item = tuple[int, int, str, str]
"""A call or output item of a request: (its index in the request, the index of the message it is written from,
CALL or OUTPUT, its call id)."""


def _openai(kinds: list[str | None], call_ids: list[str]) -> list[Violation]:
    return openai_responses.judge_columns(kinds, call_ids, [""] * len(kinds), "openai-responses")


RULES: dict[str, Callable[[list[str | None], list[str]], list[Violation]]] = {
    "openai-responses": _openai,
    "deepseek-responses": deepseek_responses.judge_columns,
}
"""Each Responses provider's rule set over a request's columns (item types and call ids; no item has an id)."""

SERVED = frozenset(RULES)


def judge_items(provider: str, items: Iterable[Item]) -> list[Violation]:
    """The provider's verdict on a request whose call and output items are `items` (in order), its other items
    without ids: judged on those items with a stand-in wherever others part two of them, positions put back."""
    kinds: list[str | None] = []
    call_ids: list[str] = []
    places: list[tuple[int, int]] = []  # each column's (index in the request, message); (-1, -1) a stand-in
    last = -1
    for native, message, kind, call_id in items:
        if native != last + 1:
            kinds.append(_APART)
            call_ids.append("")
            places.append((-1, -1))
        kinds.append(kind)
        call_ids.append(call_id)
        places.append((native, message))
        last = native
    return sort_violations([_placed(violation, places) for violation in RULES[provider](kinds, call_ids)])


def _placed(violation: Violation, places: list[tuple[int, int]]) -> Violation:
    """A violation found on the columns, where its items sit in the request (its position names the first)."""
    natives = [places[index][0] for index in violation.native_indices]
    assert natives and min(natives) >= 0, "a rule fired on a stand-in item"
    prefix = f"input[{violation.native_indices[0]}]"
    assert violation.position.startswith(prefix)
    return msgspec.structs.replace(
        violation, position=f"input[{natives[0]}]{violation.position[len(prefix):]}", native_indices=natives,
        canonical_indices=sorted({places[index][1] for index in violation.native_indices}))


class Places:
    """Where each durable message's items fall: `starts[i]` is the index of message i's first item in the request
    as recorded (starts[len] the count of every item), and `shapes` says how many items each message is
    written as and where its calls' items are (fast_bones.ItemShapes)."""

    __slots__ = ("shapes", "starts", "moving")

    def __init__(self, shapes: Any, frames: Mapping[int, Any], results: Mapping[int, Any]) -> None:
        self.shapes = shapes
        self.starts: array[int]
        counts = [count for count, _ in shapes.table]
        self.starts = array("q", accumulate(map(counts.__getitem__, shapes.of), initial=0))
        self.moving = sorted(frames.keys() | results.keys())  # the messages written as calls or outputs

    def items(self, frames: Mapping[int, Any], results: Mapping[int, Any], low: int = 0, high: int | None = None,
              native: int = 0, message: int = 0) -> Iterator[Item]:
        """The call and output items of the durable messages low..high-1, the first of them written as item
        `native` of a request and as its message `message`."""
        moving = self.moving
        high = len(self.starts) - 1 if high is None else high
        starts, of, table = self.starts, self.shapes.of, self.shapes.table
        shift = native - starts[low]
        for index in moving[bisect_left(moving, low):bisect_left(moving, high)]:
            at = starts[index] + shift
            if index in results:
                yield at, index - low + message, OUTPUT, _id(results[index])
            else:
                for call, offset in zip(frames[index], table[of[index]][1], strict=True):
                    yield at + offset, index - low + message, CALL, call.id

    def renamed(self, index: int, ids: Mapping[int, str], frames: Mapping[int, Any], results: Mapping[int, Any],
                native: int, message: int) -> tuple[int, list[Item]]:
        """(the items, the call and output items) of durable message `index` written with new ids (call position ->
        id, -1 -> the result's) from item `native` as message `message`."""
        count, offsets = self.shapes.table[self.shapes.of[index]]
        if index in results:
            return count, [(native, message, OUTPUT, _id(ids.get(-1, results[index])))]
        calls = frames.get(index, ())
        return count, [(native + offset, message, CALL, _id(ids.get(position, call.id)))
                       for position, (offset, call) in enumerate(zip(offsets, calls, strict=True))]

    def count(self, low: int, high: int) -> int:
        """The items of the durable messages low..high-1."""
        return self.starts[high] - self.starts[low]


def made_items(bone: Any, native: int, message: int, shape: Callable[[Any], tuple[int, tuple[int, ...]]]
               ) -> tuple[int, list[Item]]:
    """(the items a made message is written as, its call and output items) for its bones (formats.skeleton),
    written from item `native` as message `message`; shape: formats.skeleton.responses_items."""
    count, offsets = shape(bone)
    if bone[0] == "toolResult":
        return count, [(native, message, OUTPUT, _id(bone[2]))]
    if bone[0] != "assistant" or not offsets:
        return count, []
    calls = [part[0] for part in bone[1] if type(part) is tuple]
    return count, [(native + offset, message, CALL, _id(call_id))
                   for offset, call_id in zip(offsets, calls, strict=True)]


def _id(value: Any) -> str:
    """A call id as the rules read it ("" when missing or not a string)."""
    return value if type(value) is str else ""
