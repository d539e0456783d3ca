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
from collections.abc import Callable, Mapping
from itertools import accumulate, chain, repeat
from operator import add
from typing import Any

import msgspec

from ..formats.common import OPAQUE
from . import deepseek_responses, openai_responses
from .violation import Violation, sort_violations

CALL, OUTPUT = "function_call", "function_call_output"


class Unplaced(Exception):
    """A frame's calls are not as many as its shape places (never so when the shapes and the light view were read
    from the same structs): the caller judges the request on every message's bones instead."""

_APART = "message"
"""The stand-in for the items that part two calls or outputs (a message item without an id: no rule reads it)."""

class Columns:
    """A request's call and output items, in order, with a stand-in wherever other items part two of them (the
    columns its rules judge), as four columns: each one's index in the request and the index of the message it
    is written from (arrays: a million messages' items hold no int object each; a stand-in's are the next
    item's, less one for its index), its kind (CALL, OUTPUT, or the stand-in's) and its call id.  `last`: the
    index in the request of the last item."""

    __slots__ = ("natives", "messages", "kinds", "ids", "last")

    def __init__(self) -> None:
        self.natives = array("q")
        self.messages = array("q")
        self.kinds: list[str | None] = []
        self.ids: list[str] = []
        self.last = -1

    def add(self, native: int, message: int, kind: str, call_id: str) -> None:
        """One item (Places.gather does the same inline)."""
        if native != self.last + 1:
            self.natives.append(native - 1)
            self.messages.append(message)
            self.kinds.append(_APART)
            self.ids.append("")
        self.natives.append(native)
        self.messages.append(message)
        self.kinds.append(kind)
        self.ids.append(call_id)
        self.last = native


def _openai(kinds: list[str | None], call_ids: list[str]) -> list[Violation]:
    """The OpenAI Responses rules on columns whose items have no id: their item-id column is empty (judge_columns
    reads it only to pick the items that have one; a million empty ids were a list of their own)."""
    return openai_responses.judge_columns(kinds, call_ids, [], "openai-responses")


RULES: dict[str, Callable[[list[str | None], list[str]], list[Violation]]] = {
    "openai-responses": _openai,
    "deepseek-responses": deepseek_responses.judge_columns,
}
"""Each Responses provider's rule set over a request's columns (item types and call ids; no item has an id)."""

SERVED = frozenset(RULES)


def judge_items(provider: str, items: Columns) -> list[Violation]:
    """The provider's verdict on a request whose call and output items are `items` (its other items without
    ids), positions put back where the items sit in the request."""
    return sort_violations([_placed(violation, items) for violation in RULES[provider](items.kinds, items.ids)])


def _placed(violation: Violation, items: Columns) -> Violation:
    """A violation found on the columns, where its items sit in the request (its position names the first)."""
    assert violation.native_indices and not any(items.kinds[index] is _APART for index in violation.native_indices), \
        "a rule fired on a stand-in"
    natives = [items.natives[index] for index in violation.native_indices]
    prefix = f"input[{violation.native_indices[0]}]"
    assert violation.position.startswith(prefix)
    return msgspec.structs.replace(
        violation, position=f"input[{natives[0]}]{violation.position[len(prefix):]}", native_indices=natives,
        canonical_indices=sorted({items.messages[index] for index in violation.native_indices}))


class Places:
    """Where each durable message's items fall: `starts[i]` is the index of message i's first item in the request
    as recorded (starts[len] the count of every item), and `shapes` says how many items each message is
    written as and where its calls' items are (fast_bones.ItemShapes)."""

    __slots__ = ("shapes", "starts", "durable")

    def __init__(self, shapes: Any, frames: Mapping[int, Any], results: Mapping[int, Any]) -> None:
        self.shapes = shapes
        self.starts: array[int]
        counts = [count for count, _ in shapes.table]
        self.starts = array("q", accumulate(map(counts.__getitem__, shapes.of), initial=0))
        self.durable = self._gather(frames, results)

    def _gather(self, frames: Mapping[int, Any], results: Mapping[int, Any]) -> Columns:
        """The request as recorded, as its columns: a result's item is its message's first, a frame's calls sit at
        its shape's offsets.  (One plain loop: measured faster than C-level maps here, which make several objects
        per message.)"""
        into = Columns()
        starts, of = self.starts, self.shapes.of
        # where the items the rules read sit in a message of each shape: a frame's calls (by its shape), a
        # result's output (shape 0, the only shape of a message written as an output: its one item)
        offsets_of = [(0,), *(offsets for _, offsets in self.shapes.table[1:])]
        add_native, add_message, add_kind, add_id = (into.natives.append, into.messages.append, into.kinds.append,
                                                     into.ids.append)
        result_of = results.get
        last = -1
        # the messages written as calls or outputs: the frames and the results (each in order, never the same
        # message) merged, without a set of a million keys
        for index in sorted(chain(frames, results)):
            at = starts[index]
            result = result_of(index, _FRAME)
            if result is not _FRAME:
                if at != last + 1:  # other items part it from the last: a stand-in
                    add_native(at - 1)
                    add_message(index)
                    add_kind(_APART)
                    add_id("")
                add_native(at)
                add_message(index)
                add_kind(OUTPUT)
                add_id(result if type(result) is str else "")
                last = at
                continue
            calls, offsets = frames[index], offsets_of[of[index]]
            if len(calls) != len(offsets):
                raise Unplaced
            for call, offset in zip(calls, offsets, strict=True):
                if at + offset != last + 1:
                    add_native(at + offset - 1)
                    add_message(index)
                    add_kind(_APART)
                    add_id("")
                add_native(at + offset)
                add_message(index)
                add_kind(CALL)
                add_id(call.id)
                last = at + offset
        into.last = last
        return into

    def items(self, low: int, high: int, native: int, message: int, into: Columns) -> None:
        """Add to `into` the items of the durable messages low..high-1, kept in order as the messages `message`...
        of a request whose item `native` is their first: their stretch of the recorded columns, moved (a stand-in
        before its first only when the item before it in `into` is not next to it)."""
        durable = self.durable
        first = bisect_left(durable.messages, low)
        end = bisect_left(durable.messages, high)
        if first < end and durable.kinds[first] is _APART:  # the recorded stand-in before the stretch: see below
            first += 1
        if first >= end:
            return
        shift, moved = native - self.starts[low], message - low
        natives, messages = durable.natives[first:end], durable.messages[first:end]
        if natives[0] + shift != into.last + 1:
            into.natives.append(natives[0] + shift - 1)
            into.messages.append(messages[0] + moved)
            into.kinds.append(_APART)
            into.ids.append("")
        into.natives.extend(map(add, natives, repeat(shift)) if shift else natives)
        into.messages.extend(map(add, messages, repeat(moved)) if moved else messages)
        into.kinds += durable.kinds[first:end]
        into.ids += durable.ids[first:end]
        into.last = natives[-1] + shift

    def renamed(self, index: int, ids: Mapping[int, str], frames: Mapping[int, Any], results: Mapping[int, Any],
                native: int, message: int, into: Columns) -> int:
        """Add to `into` the call and output items of durable message `index` written with new ids (call position
        -> id, -1 -> the result's) from item `native` as message `message`; its count of items."""
        shape: tuple[int, tuple[int, ...]] = self.shapes.table[self.shapes.of[index]]
        count, offsets = shape
        if index in results:
            into.add(native, message, OUTPUT, _id(ids.get(-1, results[index])))
            return count
        calls = frames.get(index, ())
        if len(calls) != len(offsets):
            raise Unplaced
        for position, (offset, call) in enumerate(zip(offsets, calls, strict=True)):
            into.add(native + offset, message, CALL, _id(ids.get(position, call.id)))
        return count

    def count(self, low: int, high: int) -> int:
        """The items of the durable messages low..high-1."""
        return self.starts[high] - self.starts[low]


def made_items(bone: Any, native: int, message: int, shape: Callable[[Any], tuple[int, tuple[int, ...]]],
               into: Columns) -> int:
    """Add to `into` the call and output items of a made message, from its bones (formats.skeleton), written from
    item `native` as message `message` (shape: formats.skeleton.responses_items); its count of items."""
    count, offsets = shape(bone)
    if bone[0] == "toolResult":
        into.add(native, message, OUTPUT, _id(bone[2]))
    elif bone[0] == "assistant" and offsets:
        calls = [part[0] for part in bone[1] if type(part) is tuple and part[0] != OPAQUE]  # as the writer reads
        if len(calls) != len(offsets):
            raise Unplaced
        for offset, call_id in zip(offsets, calls, strict=True):
            into.add(native + offset, message, CALL, _id(call_id))
    return count


_FRAME: Any = object()
"""What results.get answers for a message that is no result (a frame)."""


def _id(value: Any) -> str:
    """A call id as the rules read it ("" when missing or not a string)."""
    return value if type(value) is str else ""
