"""The strict policy's pairing in bulk, for a transcript whose every call id is used once.

strict._pair walks every frame and result outside the clean turns, a Python step each.  A defect-dense
transcript has a third of its messages there (a quarter of them change in a repair), and the walk was the
largest part of planning it.  When every call has its own non-empty id and every such result has a string,
non-empty id, pairing falls apart by id (no result can answer a call of another id, and nothing is
paired by name or order), so most of it is done by C-level maps over the whole of them at once:

- a result whose id no call has is a stray;
- the only result with its id answers its call (recorded before it: moved after it);
- what is left (a result with the id of a clean turn's call, ids with several results: a receipt and the
  real result, a duplicate) is paired one by one, as the walk would.

The outcome (the answers, the drops and the notes) is the walk's (tests/test_pairing.py holds them equal
on generated transcripts with every defect kind).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from itertools import chain, compress, repeat
from operator import add, and_, attrgetter, is_not, lt, ne, not_, or_
from typing import Any

from ..notes import NoteCode
from .plan import Plan
from .views import NON_STRING_ID, LightTranscript

Slot = tuple[int, int]  # (frame index, call position)

_ID = attrgetter("id")


class CleanTurns:
    """The clean turns, answered without an entry in the answers: call p of frame f by the result at
    f + 1 + p.  A result that refers back to one (a second result, a late real result for a receipt)
    finds it by its id's first frame, since a clean turn's ids are used there first."""

    __slots__ = ("frames", "first_frame", "light")

    def __init__(self, light: LightTranscript, frames: list[int], first_frame: dict[str, int] | None) -> None:
        self.light = light
        self.frames = frames
        self.first_frame = first_frame or {}

    def has(self, frame: int) -> bool:
        at = bisect_left(self.frames, frame)
        return at < len(self.frames) and self.frames[at] == frame

    def slot_of(self, call_id: Any) -> Slot | None:
        """The clean call with this id, if there is one."""
        frame = self.first_frame.get(call_id)
        if frame is None or not self.has(frame):
            return None
        calls = self.light.frames[frame]
        position = 0 if len(calls) == 1 else next(p for p, call in enumerate(calls) if call.id == call_id)
        return frame, position

    def answer(self, answers: dict[Slot, int], slot: Slot) -> int | None:
        """The result answering a call so far (a clean call's own, unless a real result replaced it)."""
        found = answers.get(slot)
        if found is None and self.has(slot[0]):
            return slot[0] + 1 + slot[1]
        return found


def later_result(plan: Plan, answers: dict[Slot, int], receipts: set[int], slot: Slot, index: int,
                 call: dict[str, Any], turns: CleanTurns) -> None:
    """A result for a call that already has one: the real result beats a receipt, else the first stays.

    call: the params that name the call in its note (its id; for an id-less call "" and its tool).
    """
    kept = turns.answer(answers, slot)
    assert kept is not None
    if kept in receipts and index not in receipts:
        answers[slot] = index
        plan.dropped_duplicates[kept] = index
        plan.note_all(NoteCode.RECEIPT_REPLACED_BY_REAL, (kept,), (*call, "real"), ((*call.values(), index),))
    else:
        plan.dropped_duplicates[index] = kept
        plan.note_all(NoteCode.SECOND_RESULT, (index,), (*call, "kept"), ((*call.values(), kept),))


def pair_unique(light: LightTranscript, plan: Plan, turns: CleanTurns, loose: list[int]) -> dict[Slot, int] | None:
    """strict._pair's answers, drops and notes for a transcript whose every call id is used once and not
    empty, and whose every result outside the clean turns (`loose`, with the frames there) has a string,
    non-empty id; None (nothing recorded) for any other: the walk pairs it."""
    first_frame = turns.first_frame
    frames = light.frames
    if not first_frame or "" in first_frame or len(first_frame) != sum(map(len, frames.values())):
        return None
    keys = light.result_keys
    is_result = list(map(keys.__contains__, loose))
    results = list(compress(loose, is_result))
    ids = list(map(keys.__getitem__, results))
    distinct = set(ids)
    if "" in distinct or NON_STRING_ID in distinct:
        return None
    frame_of: list[Any] = list(map(first_frame.get, ids))  # the frame of the call with the id (None: none)
    owned = list(map(is_not, frame_of, repeat(None)))

    # Strays: no call has their id (the walk finds them left over, in order).
    if not all(owned):
        unowned = list(map(not_, owned))
        strays = list(compress(results, unowned))
        plan.dropped_strays.extend(strays)
        plan.note_all(NoteCode.RESULT_WITHOUT_CALL, strays, ("call_id",), list(zip(compress(ids, unowned))))
        results = list(compress(results, owned))
        ids = list(compress(ids, owned))
        frame_of = list(compress(frame_of, owned))
    slots = _slots(frames, ids, frame_of)

    # The only result with its id answers its loose call, wherever it is (one recorded before it is moved after).
    in_loose = set(compress(loose, map(not_, is_result)))
    alone = list(map(in_loose.__contains__, frame_of))
    repeated: set[str] = set()
    if len(distinct) != len(ids) + len(plan.dropped_strays):
        first_of: dict[str, int] = {}
        deque(map(first_of.setdefault, ids, results), maxlen=0)
        repeated = set(compress(ids, map(ne, map(first_of.__getitem__, ids), results)))
        if repeated:
            alone = list(map(and_, alone, map(not_, map(repeated.__contains__, ids))))
    answered = list(compress(results, alone))
    answered_slots = list(compress(slots, alone))
    answers = dict(zip(answered_slots, answered, strict=True))
    plan.note_all(NoteCode.RESULT_BEFORE_CALL, list(compress(answered, map(lt, answered, compress(frame_of, alone)))))

    # A result with a clean call's id is a later result for it: the real result replaces a receipt.
    clean = list(map(not_, map(in_loose.__contains__, frame_of)))
    if repeated:
        clean = list(map(and_, clean, map(not_, map(repeated.__contains__, ids))))
    if any(clean):
        _later_clean(light, plan, answers, list(compress(results, clean)), list(compress(ids, clean)),
                     list(compress(slots, clean)))

    # The rest, one by one as the walk pairs them: ids with several results (the first after its call answers
    # it, else the first before it; each other one is a later result).
    rest = list(map(not_, map(or_, alone, clean))) if repeated else []
    if any(rest):
        receipts = light.receipts
        early: list[tuple[int, str, Slot]] = []
        for index, key, slot in zip(compress(results, rest), compress(ids, rest), compress(slots, rest),
                                    strict=True):
            if turns.has(slot[0]):  # a clean call's id: a later result for it
                later_result(plan, answers, receipts, slot, index, {"call_id": key}, turns)
            elif index < slot[0]:  # recorded before its call
                early.append((index, key, slot))
            elif slot in answers:
                later_result(plan, answers, receipts, slot, index, {"call_id": key}, turns)
            else:
                answers[slot] = index
        for index, key, slot in early:  # (the walk pairs these after every other)
            if slot in answers:
                later_result(plan, answers, receipts, slot, index, {"call_id": key}, turns)
            else:
                answers[slot] = index
                plan.note_all(NoteCode.RESULT_BEFORE_CALL, (index,))
    return answers


def _later_clean(light: LightTranscript, plan: Plan, answers: dict[Slot, int], results: list[int], ids: list[str],
                 slots: list[Slot]) -> None:
    """later_result for results each the only one outside the clean turns with the id of a clean turn's call,
    in bulk: that call is answered by its own result (clean), which stays unless it is a receipt and this
    result is not."""
    receipts = light.receipts
    kept = list(map(add, map(sum, slots), repeat(1)))  # call p of clean frame f: answered by f + 1 + p
    replaced = list(map(and_, map(receipts.__contains__, kept), map(not_, map(receipts.__contains__, results))))
    duplicates = plan.dropped_duplicates
    if any(replaced):
        real = list(compress(results, replaced))
        receipt = list(compress(kept, replaced))
        answers.update(zip(compress(slots, replaced), real, strict=True))
        duplicates.update(zip(receipt, real, strict=True))
        plan.note_all(NoteCode.RECEIPT_REPLACED_BY_REAL, receipt, ("call_id", "real"),
                      list(zip(compress(ids, replaced), real, strict=True)))
    if not all(replaced):
        stays = list(map(not_, replaced))
        second = list(compress(results, stays))
        first = list(compress(kept, stays))
        duplicates.update(zip(second, first, strict=True))
        plan.note_all(NoteCode.SECOND_RESULT, second, ("call_id", "kept"),
                      list(zip(compress(ids, stays), first, strict=True)))


def _slots(frames: dict[int, tuple[Any, ...]], ids: list[str], frame_of: list[int]) -> list[Slot]:
    """The (frame, position) of the one call with each id, given its frame: position 0 in a frame of one
    call (most), else its position among the frame's calls (every wide frame's calls indexed at once)."""
    wide = list(set(compress(frame_of, map(ne, map(len, map(frames.__getitem__, frame_of)), repeat(1)))))
    if not wide:
        return list(zip(frame_of, repeat(0)))
    calls = list(map(frames.__getitem__, wide))
    position = dict(zip(map(_ID, chain.from_iterable(calls)), chain.from_iterable(map(range, map(len, calls))),
                        strict=True))
    return list(zip(frame_of, map(position.get, ids, repeat(0)), strict=True))
