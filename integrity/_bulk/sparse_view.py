"""The durable messages and the views of a transcript the fast path read, as providers.sparse judges them.

A provider's verdict judged from the light view (integrity.skeleton_verdicts.sparse_verdicts) needs of each
request its letters (one per message: providers.sparse.CODE), its seeds (the messages that may be broken) and
the bones of the few messages around them.  For the transcript as recorded these come from the light view and
the raw bytes; for a view the plan orders, from the order itself: every message it keeps where it was is the durable one
(its letter and bones), and only the messages it makes, renames or moves are seeds.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain, compress, filterfalse, islice, repeat
from operator import add, attrgetter, is_, ne, not_, sub
from typing import Any

from ..formats.skeleton import bones_of, renamed
from ..providers.sparse import bone_code, ids_pass, judged_regions
from ..repair.entries import RenamedAlike, Rewritten, entry_message, renames_every_call
from ..repair.plan import Plan
from . import fast_bones
from .fast_read import STRUCTS

KEPT = 16384
"""The view's messages whose durable bones are kept from the recorded judgment for the view's (SparseView.regions_kept):
two batches' worth (providers.sparse.BATCH), some 4 MB of bones whatever the transcript's size (every one of a
200,000-message file's; keeping every one of a million messages' cost 1.05x the file in memory)."""


class Durable:
    """The durable messages of a file the fast path read: the bones of some (fast_bones.bones_at: decoded
    when asked, a batch at a time, never kept; of a file in memory, made from the structs the reader kept) and
    each as a dict (`message`: Loaded's own reading of one, what a view entry is made of)."""

    def __init__(self, raws: Any, message: Callable[[int], Any], structs: list[Any] | None = None) -> None:
        self.raws = raws
        self.message = message
        self.structs = structs
        self._kinds: dict[Any, Any] = {}
        self._made: dict[int, Any] = {}  # a transcript in memory of at most KEPT messages: the bones made so far
        self._keep: set[int] = set()
        self._kept: dict[int, Any] = {}

    def keep(self, indices: Iterable[int]) -> None:
        """Keep the bones of these messages when they are next decoded, until they are asked for again (each
        once): the view's judgment reads again what the recorded one read (only the first KEPT are asked, so
        that what is kept stays small).  None is kept from a file in memory (its bones are made from structs)."""
        self._keep = set(indices) if self.structs is None else set()
        self._kept = {}

    def bones(self, indices: list[int]) -> list[Any]:
        if self.structs is None:
            kept, keep = self._kept, self._keep
            if not kept and not keep:
                return fast_bones.bones_at(self.raws, indices)
            found = list(map(kept.pop, indices, repeat(None)))  # those kept, each once; the others decoded
            missing = list(compress(indices, map(is_, found, repeat(None))))
            decoded = fast_bones.bones_at(self.raws, missing) if missing else []
            if keep:  # (a message is kept once: never again when it is read again)
                stored = [pair for pair in zip(missing, decoded, strict=True) if pair[0] in keep]
                kept.update(stored)
                keep.difference_update(index for index, _ in stored)
            if len(missing) == len(indices):
                return decoded
            filled = iter(decoded)
            return [next(filled) if bone is None else bone for bone in found]
        if len(self.structs) > KEPT:  # (a large transcript in memory: bones made when asked, never held)
            return list(fast_bones.struct_bones(list(map(self.structs.__getitem__, indices)), set(), self._kinds,
                                                STRUCTS, flags=False))
        made = self._made  # (the view's judgment asks again for most of what the recorded one asked)
        missing = list(filterfalse(made.__contains__, indices))
        if missing:
            made.update(zip(missing, fast_bones.struct_bones(list(map(self.structs.__getitem__, missing)), set(),
                                                             self._kinds, STRUCTS, flags=False), strict=True))
        return list(map(made.__getitem__, indices))


def _renamed_alike(listed: list[Any], frames: Mapping[int, Any], results: Mapping[int, Any], outside: set[int]
                   ) -> set[int]:
    """The entries of a view order (repair.plan) that only rename the ids of a clean turn kept whole: a frame of a
    clean turn (none of its messages in `outside`) and its results right after it, each entry renamed
    (Rewritten) or kept (an index), where the turn's new call ids are its results' new ids, in order.  Such a
    turn is still plainly answered, so its messages need not be judged (a view for Mistral renames most of a
    transcript's ids).  Anything else renamed is judged as any message the view made."""
    alike: set[int] = set()
    size = len(listed)
    for number in compress(range(size), map(is_, map(type, listed), repeat(Rewritten))):
        entry = listed[number]
        frame = entry.index
        calls = frames.get(frame)
        if calls is None or frame in outside or number + len(calls) >= size:
            continue
        ids = entry.ids
        turn = [number]
        for position, call in enumerate(calls):
            answer = listed[number + 1 + position]
            index = frame + 1 + position
            kind = type(answer)
            if kind is Rewritten:
                if answer.index != index or index in outside or index not in results or \
                        answer.ids.get(-1, results[index]) != ids.get(position, call.id):
                    break
                turn.append(number + 1 + position)
            elif kind is not int or answer != index or index in outside or index not in results or \
                    results[index] != ids.get(position, call.id):
                break
        else:
            alike.update(turn)
    return alike


class SparseView:
    """The view a plan orders, as providers.sparse reads it: its letters, its seeds (every message the view
    made, renamed or moved, and those outside the recorded clean turns) and what it made (view position ->
    the bones of a made message, or the Rewritten entry of a renamed one); made None when the view is the
    durable transcript itself.  Each position's durable message is found in `order` (a plan listing every
    message: its index, -1 where made) or, for a plan with stretches (ranges), in `runs` (where each run of
    the view starts, and its first durable index, -1 for a made message), which never lists a million ints."""

    __slots__ = ("codes", "seeds", "made", "order", "runs", "durable", "alike")

    def __init__(self, durable: Durable) -> None:
        self.codes = ""
        self.seeds: list[int] = []
        self.made: dict[int, Any] | None = None
        self.order: list[int] | None = None
        self.runs: tuple[list[int], list[int]] | None = None
        self.durable = durable
        self.alike: RenamedAlike | None = None

    @classmethod
    def of(cls, plan: Plan, codes: str, loose: list[int], durable: Durable, stamp: Callable[[], int],
           hinted: set[str], ids: tuple[Mapping[int, Any], Mapping[int, Any]] | None = None) -> SparseView:
        """The view of `plan`: each message it makes is made (entries.entry_message, with stamp) in order,
        as Loaded.view_bones makes them, so that the stamps are the same.  ids: the light view's frames and
        result ids, when the view's clean turns renamed alike may be read as plain (_renamed_alike)."""
        view = cls(durable)
        if not plan.changed or plan.order is None:
            return view
        listed: list[Any] = plan.order
        view.made = {}
        view.alike = plan.renamed_alike  # (its turns are in the stretches: their bones and ids renamed when read)
        if range in set(map(type, listed)):
            alike = _renamed_alike(listed, ids[0], ids[1], set(loose)) if ids is not None else set()
            view._runs(listed, codes, sorted(set(loose)), plan, stamp, hinted, alike)
            return view
        order = list(map(getattr, listed, repeat("real"), repeat(-1)))  # each durable index, -1 where made (an
        indices = list(map(getattr, listed, repeat("index"), order))     # int's .real is itself), and a renamed one's
        alike = _renamed_alike(listed, ids[0], ids[1], set(loose)) if ids is not None else set()
        view._listed(listed, codes, loose, plan, stamp, hinted, alike, order, indices)
        return view

    def _make(self, position: int, entry: Any, codes: str, plan: Plan, stamp: Callable[[], int],
              hinted: set[str]) -> str:
        """Make the view's message at `position` (a renamed one is made when its bones are asked) and give its
        letter."""
        assert self.made is not None
        if type(entry) is Rewritten and not entry.blank:  # (bones hold no text: a blank one is made)
            self.made[position] = entry
            return codes[entry.index]
        if self.alike is not None:  # a merge of a renamed turn's frame carries its new ids
            entry = self.alike.expand_entry(entry)
        bone = bones_of(entry_message(entry, self.durable.message, plan.placeholder, stamp), hinted)
        self.made[position] = bone
        return bone_code(bone) or "?"

    def _listed(self, listed: list[Any], codes: str, loose: list[int], plan: Plan, stamp: Callable[[], int],
                hinted: set[str], alike: set[int], order: list[int], durable: list[int]) -> None:
        """A plan listing every message: its letters, moves and kept messages outside the clean turns are
        found by C-level maps over the order (a view of a million messages lists a million ints).  alike: the
        positions of renamed messages read as plain (_renamed_alike): no seeds, and in place where they were.
        order: each entry's durable index (-1: made); durable: the same with a renamed message's index."""
        made_at = list(compress(range(len(listed)), map((-1).__eq__, order)))
        letters = bytearray("".join(map((codes + "?").__getitem__, durable)), "ascii")  # (-1: the "?" after them)
        assert self.made is not None
        renamed = list(compress(made_at, map((0).__le__, map(durable.__getitem__, made_at))))
        self.made.update(zip(renamed, map(listed.__getitem__, renamed), strict=True))  # (made when its bones are asked)
        for position in compress(made_at, map((-1).__eq__, map(durable.__getitem__, made_at))):
            letters[position] = ord(self._make(position, listed[position], codes, plan, stamp, hinted))
        placed = order
        if alike:  # where the messages renamed alike were: in place (the view's bones still rename them)
            placed = list(order)
            for position in alike:
                placed[position] = durable[position]
        moved = list(compress(range(len(placed) - 1), map((1).__ne__, map(sub, islice(placed, 1, None), placed))))
        outside = set(loose)
        self.seeds = [*filterfalse(alike.__contains__, made_at), *moved,
                      *(position + 1 for position in moved),
                      *compress(range(len(placed)), map(outside.__contains__, placed))]
        self.codes = letters.decode("ascii")
        self.order = order

    def _runs(self, listed: list[Any], codes: str, loose: list[int], plan: Plan, stamp: Callable[[], int],
              hinted: set[str], alike: set[int]) -> None:
        """A plan with stretches: one step per entry (a stretch of kept messages is one), loose: sorted; alike:
        the entries renamed alike (_renamed_alike), each one kept where it was but for its ids."""
        letters: list[str] = []
        seeds = self.seeds
        starts: list[int] = []
        firsts: list[int] = []
        position = 0
        previous = -2  # the durable index of the last kept message (-2: the last was made)
        for number, entry in enumerate(listed):
            kind = type(entry)
            if kind is int or kind is range:
                low, high = (entry, entry + 1) if kind is int else (entry.start, entry.stop)
                if low >= high:
                    continue
                letters.append(codes[low:high])
                if low != previous + 1:
                    seeds.extend((position - 1, position))
                inside = loose[bisect_left(loose, low):bisect_left(loose, high)]
                seeds.extend(position + index - low for index in inside)
                starts.append(position)
                firsts.append(low)
                position += high - low
                previous = high - 1
                continue
            letters.append(self._make(position, entry, codes, plan, stamp, hinted))
            starts.append(position)
            firsts.append(-1)
            if number in alike:
                if entry.index != previous + 1:
                    seeds.extend((position - 1, position))
                previous = entry.index
            else:
                seeds.append(position)
                previous = -2
            position += 1
        self.codes = "".join(letters)
        self.runs = (starts, firsts)

    def _at_each(self, positions: list[int]) -> list[int]:
        """The durable index of the view's message at each of these positions (-1: one the view made), by C-level
        maps (a made message is a run of its own, whose first durable index is -1: its position less the run's
        start is 0)."""
        if self.order is not None:
            return list(map(self.order.__getitem__, positions))
        assert self.runs is not None
        starts, firsts = self.runs
        runs = list(map(sub, map(bisect_right, repeat(starts), positions), repeat(1)))
        return list(map(add, map(firsts.__getitem__, runs), map(sub, positions, map(starts.__getitem__, runs))))

    def _wanted(self, indices: list[int]) -> tuple[list[int], list[int]]:
        """The durable index of the view's message at each of these positions (-1: made), and those of the durable
        messages their bones are made of (a renamed one's too), in order."""
        assert self.made is not None
        made = self.made
        at = self._at_each(indices)
        return at, [index if index >= 0 else made[position].index
                    for position, index in zip(indices, at, strict=True)
                    if index >= 0 or type(made[position]) is Rewritten]

    def regions_kept(self, provider: str) -> list[list[int]]:
        """The regions providers.sparse judges of this view for the provider (judged_regions), the durable messages
        of their first KEPT kept when the transcript as recorded is judged (Durable.keep): the view's regions are
        mostly the recorded ones' again, so those are not read from the file twice."""
        found = judged_regions(self.codes, self.seeds, provider)
        if self.durable.structs is not None:  # a file in memory: its bones are made from its structs, none kept
            return found
        positions = list(islice(chain.from_iterable(map(range, *zip(*found, strict=True))), KEPT)) if found else []
        self.durable.keep(self._wanted(positions)[1])
        return found

    def bones(self, indices: list[int]) -> list[Any]:
        """The bones of the view's messages at these positions."""
        assert self.made is not None
        made = self.made
        at, wanted = self._wanted(indices)
        durable = dict(zip(wanted, self.durable.bones(wanted), strict=True))
        out = []
        alike = self.alike
        for position, index in zip(indices, at, strict=True):
            if index >= 0:
                ids = alike.ids_of(index) if alike is not None else None
                out.append(durable[index] if ids is None else renamed(durable[index], ids))
                continue
            bone = made[position]
            out.append(renamed(durable[bone.index], bone.ids, bone.calls_last) if type(bone) is Rewritten else bone)
        return out

    def _pieces(self) -> Iterator[tuple[int, int, int]]:
        """_segments, with each message of a turn renamed alike (RenamedAlike) apart, as (position, -2, index)."""
        alike = self.alike
        if alike is None:
            yield from self._segments()
            return
        for position, low, high in self._segments():
            if low < 0:
                yield position, low, high
                continue
            cursor = low
            for index in alike.members_in(low, high):
                if cursor < index:
                    yield position + cursor - low, cursor, index
                yield position + index - low, -2, index
                cursor = index + 1
            if cursor < high:
                yield position + cursor - low, cursor, high

    def _segments(self) -> Iterator[tuple[int, int, int]]:
        """The view's runs: (position, low, high) for the durable messages low..high-1 kept in order from
        `position`, or (position, -1, -1) for a message the view made there."""
        size = len(self.codes)
        if self.runs is not None:
            starts, firsts = self.runs
            for start, end, first in zip(starts, [*starts[1:], size], firsts, strict=True):
                yield (start, -1, -1) if first < 0 else (start, first, first + end - start)
            return
        order = self.order
        assert order is not None
        made = [position for position in self.made or () if position < size]
        cuts = sorted({0, size, *compress(range(1, size), map(ne, islice(order, 1, None), map((1).__add__, order))),
                       *(position + 1 for position in made)})
        for start, end in zip(cuts, cuts[1:], strict=False):
            first = order[start]
            yield (start, -1, -1) if first < 0 else (start, first, first + end - start)

    def ids_pass(self, provider: str, result_keys: Mapping[int, Any], frames: Mapping[int, Any] | None = None
                 ) -> bool:
        """Whether the view's ids pass the provider's id rules (result_keys: each durable result's id): those of
        the messages it made, and (DeepSeek) every result id it sends once.  The ids it sends as recorded count
        only when the durable ones did not all pass (an id rule judged apart, sparse.APART: Mistral's), and
        then frames (the light view's) are given: a view that keeps a refused id is refused."""
        assert self.made is not None
        if frames is not None and provider != "deepseek":
            found = self._ids_at_once(result_keys, frames)
            if found is not None and ids_pass(provider, [], found):
                return True  # (else read below one by one: a call's id may be one only results are refused)
        calls: list[Any] = []
        results: list[Any] = []
        for bone in self.made.values():
            if type(bone) is Rewritten:
                for key, value in bone.ids.items():
                    (results if key == -1 else calls).append(value)
                if frames is not None:  # and the ids it keeps as recorded
                    if bone.index in result_keys and -1 not in bone.ids:
                        results.append(result_keys[bone.index])
                    calls.extend(call.id for position, call in enumerate(frames.get(bone.index, ()))
                                 if position not in bone.ids)
                continue
            if bone[0] == "toolResult":
                results.append(bone[2])
            elif bone[0] == "assistant" and type(bone[1]) is tuple:
                calls.extend(part[0] for part in bone[1] if type(part) is tuple)
        kept_calls: list[Any] = []
        kept_results: list[Any] = []
        if provider == "deepseek":  # every result id it sends, once: a run's results found by bisection
            kept = sorted(result_keys)
            for _, low, high in self._segments():
                if low >= 0:
                    kept_results += map(result_keys.__getitem__,
                                        kept[bisect_left(kept, low):bisect_left(kept, high)])
        elif frames is not None:  # every id of the durable messages it keeps as they are
            moving = sorted(chain(frames, result_keys))
            for _, low, high in self._segments():
                for index in moving[bisect_left(moving, low):bisect_left(moving, high)] if low >= 0 else ():
                    if index in result_keys:
                        kept_results.append(result_keys[index])
                    else:
                        kept_calls.extend(call.id for call in frames[index])
        if self.alike is not None:  # (a turn renamed alike sends its new ids)
            kept_calls, kept_results = self.alike.sent(kept_calls), self.alike.sent(kept_results)
        return ids_pass(provider, calls + kept_calls, results + kept_results)

    def _ids_at_once(self, result_keys: Mapping[int, Any], frames: Mapping[int, Any]) -> list[Any] | None:
        """Every id the view sends (ids_pass with frames), calls' and results' alike, gathered at C speed;
        None when a renamed message keeps some of its ids as recorded (they are then gathered one by one).
        A view for Mistral renames most messages: visiting each cost more than judging it."""
        assert self.made is not None
        made = list(self.made.values())
        is_renamed = list(map(is_, map(type, made), repeat(Rewritten)))
        renamed = list(compress(made, is_renamed))
        ids = list(map(_IDS, renamed))
        if not set(map(type, ids)) <= {dict}:
            return None
        of_result = list(map(result_keys.__contains__, map(_INDEX, renamed)))
        if not all(map(dict.__contains__, compress(ids, of_result), repeat(-1))):
            return None
        framed = list(map(len, map(frames.get, map(_INDEX, compress(renamed, map(not_, of_result))), repeat(()))))
        framed_ids = compress(ids, map(not_, of_result))  # each must rename every call: positions 0..n-1, in order
        if not renames_every_call(framed_ids, framed):
            return None
        found = list(chain.from_iterable(map(dict.values, ids)))
        for bone in compress(made, map(not_, is_renamed)):
            if bone[0] == "toolResult":
                found.append(bone[2])
            elif bone[0] == "assistant" and type(bone[1]) is tuple:
                found.extend(part[0] for part in bone[1] if type(part) is tuple)
        alike = self.alike
        if alike is not None and alike.whole:  # every id it keeps is a turn's renamed (one kept as recorded would be
            return found  # refused: renamed), one of the ids made, each made until the rule took it (strict._made,
            # new_ids): none to ask (Mistral's are made when asked, never listed)
        kept = self._kept()
        sent = list(map(result_keys.__getitem__, filter(result_keys.__contains__, kept)))
        sent.extend(map(_ID, chain.from_iterable(map(frames.__getitem__, filter(frames.__contains__, kept)))))
        found.extend(alike.sent(sent) if alike is not None else sent)
        return found

    def _kept(self) -> Sequence[int]:
        """The durable index of each message the view keeps as recorded, in view order (-1 where it made one, in
        a flat view), by C-level maps: a plan with stretches has its runs expanded, never visited one by one."""
        if self.order is not None:
            return self.order
        assert self.runs is not None
        starts, firsts = self.runs
        ends = [*islice(starts, 1, None), len(self.codes)]
        durable = list(map((0).__le__, firsts))
        lows = list(compress(firsts, durable))
        highs = map(add, lows, map(sub, compress(ends, durable), compress(starts, durable)))
        return list(chain.from_iterable(map(range, lows, highs)))


_IDS = attrgetter("ids")
_INDEX = attrgetter("index")
_ID = attrgetter("id")
