"""The durable messages and the views of a transcript the fast path read, as providers.sparse judges them.

A provider's verdict judged from the light view (pipeline.sparse_verdicts) needs of each request its letters
(one per message: providers.sparse.CODE), its seeds (the messages that may be broken) and the bones of the
few messages around them.  For the transcript as recorded these come from the light view and the raw bytes;
for a view the plan orders, from the order itself: every message it keeps where it was is the durable one
(its letter and bones), and only the messages it makes, renames or moves are seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import compress, repeat
from operator import ne, sub
from typing import Any

import msgspec

from ..formats.skeleton import bones_of, renamed
from ..providers.sparse import bone_code, ids_pass
from ..repair.entries import Rewritten, entry_message
from ..repair.plan import Plan
from . import fast_bones


class Durable:
    """The durable messages of a file the fast path read: their bones, each decoded once when first asked
    (fast_bones.bones_at), and each as a dict (what a view entry is made of)."""

    def __init__(self, raws: Any) -> None:
        self.raws = raws
        self.made: dict[int, Any] = {}

    def bones(self, indices: list[int]) -> list[Any]:
        made = self.made
        missing = [index for index in indices if index not in made]
        if missing:
            made.update(zip(missing, fast_bones.bones_at(self.raws, missing), strict=True))
        return list(map(made.__getitem__, indices))

    def message(self, index: int) -> Any:
        return msgspec.json.decode(self.raws[index])


class SparseView:
    """The view a plan orders, as providers.sparse reads it: its letters, its seeds (every message the view
    made, renamed or moved, and those outside the recorded clean turns) and what it made (view position ->
    the bones of a made message, or the Rewritten entry of a renamed one); made None when the view is the
    durable transcript itself."""

    __slots__ = ("codes", "seeds", "made", "order", "durable")

    def __init__(self, durable: Durable) -> None:
        self.codes = ""
        self.seeds: list[int] = []
        self.made: dict[int, Any] | None = None
        self.order: list[int] = []  # each position's durable index (-1: made)
        self.durable = durable

    @classmethod
    def of(cls, plan: Plan, codes: str, loose: list[int], durable: Durable, stamp: Callable[[], int],
           hinted: set[str]) -> SparseView:
        """The view of `plan`: each message it makes is made (entries.entry_message, with stamp) in order,
        as Loaded.view_bones makes them, so that the stamps are the same.  The letters, the moves and the
        kept messages outside the clean turns are found by C-level maps over the order (a view of a million
        messages lists a million ints)."""
        view = cls(durable)
        if not plan.changed or plan.order is None:
            return view
        listed: list[Any] = plan.order  # (an order planned with stretches holds ranges: spelled out here)
        entries = [index for entry in listed for index in (entry if type(entry) is range else (entry,))] \
            if range in map(type, listed) else listed
        kinds = list(map(type, entries))
        made_at = list(compress(range(len(entries)), map(ne, kinds, repeat(int))))
        order = list(entries)
        for position in made_at:
            order[position] = -1
        made: dict[int, Any] = {}
        letters = bytearray("".join(map((codes + "?").__getitem__, order)), "ascii")  # (-1: the "?" after them)
        for position in made_at:
            entry = entries[position]
            if type(entry) is Rewritten:
                letter = codes[entry.index]
                made[position] = entry
            else:
                bone = bones_of(entry_message(entry, durable.message, plan.placeholder, stamp), hinted)
                letter = bone_code(bone) or "?"
                made[position] = bone
            letters[position] = ord(letter)
        moved = list(compress(range(len(order) - 1), map((1).__ne__, map(sub, order[1:], order[:-1]))))
        outside = set(loose)
        view.seeds = [*made_at, *moved, *(position + 1 for position in moved),
                      *compress(range(len(order)), map(outside.__contains__, order))]
        view.codes = letters.decode("ascii")
        view.made = made
        view.order = order
        return view

    def bones(self, indices: list[int]) -> list[Any]:
        """The bones of the view's messages at these positions."""
        assert self.made is not None
        made, order = self.made, self.order
        wanted = [order[index] if order[index] >= 0 else made[index].index
                  for index in indices if order[index] >= 0 or type(made[index]) is Rewritten]
        durable = dict(zip(wanted, self.durable.bones(wanted), strict=True))
        out = []
        for index in indices:
            entry = order[index]
            if entry >= 0:
                out.append(durable[entry])
                continue
            bone = made[index]
            out.append(renamed(durable[bone.index], bone.ids) if type(bone) is Rewritten else bone)
        return out

    def ids_pass(self, provider: str, result_keys: Mapping[int, Any]) -> bool:
        """Whether the view's ids pass the provider's id rules, the durable ones having passed (result_keys:
        each durable result's id): those of the messages it made, and (DeepSeek) every result id it sends once."""
        assert self.made is not None
        calls: list[Any] = []
        results: list[Any] = []
        for bone in self.made.values():
            if type(bone) is Rewritten:
                for key, value in bone.ids.items():
                    (results if key == -1 else calls).append(value)
                continue
            if bone[0] == "toolResult":
                results.append(bone[2])
            elif bone[0] == "assistant" and type(bone[1]) is tuple:
                calls.extend(part[0] for part in bone[1] if type(part) is tuple)
        if provider == "deepseek":  # every result id it sends, once
            results += [result_keys[index] for index in self.order if index in result_keys]
        return ids_pass(provider, calls, results)
