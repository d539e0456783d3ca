"""A provider's verdict on a skeleton request, judged only where it can be broken.

`check --provider P` judges two requests of a transcript (as recorded and as repaired), and a rule set
reads every entry of each: most of `check --provider` on a large file, though almost every turn of a
transcript is plainly legal (a call answered right after it, in order; a user turn; an answer).  Here one
pass over the request's bones (integrity.formats.skeleton: no entry is written) proves the plain turns,
and the provider's own rule set (one implementation of each rule) runs only on windows of the request
around the rest, each a stretch of whole turns that no rule reads across.  Positions and error texts are
then moved to where the window sits in the request.

The proof is a sound under-approximation: a turn it cannot prove plain is judged by the rule set, so the
verdict is the full skeleton's (tests/test_windowed.py holds the two equal on every sample, every real and
recorded file, a generated corpus, and random bones, for every provider this module serves).  A request
whose proof does not apply (an id the provider's id rule refuses) is judged whole by the caller.

Anthropic first (the module's `PROOFS`): its rules read a turn and its neighbours only (see
integrity.providers.anthropic), once consecutive user or assistant entries are combined into turns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from ..formats.common import OPAQUE, SYSTEM_ROLES
from ..formats.skeleton import SKELETONS, STRING
from .ids import all_anthropic_ids
from .violation import Violation, sort_violations

_USES, _RESULTS, _BAD = 1, 2, 4
"""A turn's flags: it holds tool_use blocks; it holds tool_result blocks; a rule may fire on it (the proof
could not show it plainly legal)."""


class Turns:
    """The combined turns of a skeleton request, as the proof read them: per turn, the index of its first
    bone (`bone`), of its first native entry (`entry`), and its flags (_USES | _RESULTS | _BAD)."""

    __slots__ = ("bone", "entry", "flags")

    def __init__(self) -> None:
        self.bone: list[int] = []
        self.entry: list[int] = []
        self.flags: list[int] = []

    def cut_before(self, turn: int) -> bool:
        """Whether no rule reads across the boundary before `turn`: the turn before it makes no call and it
        holds no result (the proof serves no request with a `system` entry, which a rule reads first)."""
        return turn <= 0 or turn >= len(self.flags) or \
            not (self.flags[turn - 1] & _USES or self.flags[turn] & _RESULTS)


_NONE: list[Any] = []

GAP = 16
"""Windows closer than this many turns are judged as one."""
DENSE = 4
"""A request with more than one turn in DENSE the proof could not show legal is judged whole (0: never)."""


def _answers(calls: list[Any], run: list[Any]) -> bool:
    """Whether a run of results answers these calls plainly: exactly their ids, in order, each a string once."""
    return run == calls and all(type(value) is str for value in calls) and len(set(calls)) == len(calls)


def anthropic_turns(bones: Sequence[Any]) -> Turns | None:
    """Anthropic's turns of the skeleton `formats.skeleton._ANTHROPIC` writes of `bones`, flagged bad unless
    plainly legal: an assistant turn whose calls a run of results opening the next turn answers (`_answers`),
    and that turn; any other user or assistant turn without calls or results.  None when an id is one
    Anthropic's id rule refuses, or an entry or block is Anthropic's own as recorded (anything may be in it):
    the request is judged whole then."""
    turns = Turns()
    starts, entries, flags = turns.bone, turns.entry, turns.flags
    ids: list[Any] = []
    role: Any = None  # the last turn's role when it is one that combines (user, assistant), else None
    pending: list[Any] = _NONE  # the calls of the last turn (an assistant's), until a run of results answers
    run: list[Any] | None = None  # the ids of the run of results being read (None: the last bone is no result)
    opened = -1  # the turn that run opened (-1: it joined a user turn, so its results are not leading)
    entry = -1
    for index, bone in enumerate(bones):
        kind = bone[0]
        if kind == "toolResult":  # a run of results is one user entry
            value = bone[2]
            ids.append(value)
            if run is not None:
                run.append(value)
                continue
            entry += 1
            run = [value]
            if role == "user":  # joins a user turn: its results do not open it
                flags[-1] |= _RESULTS | _BAD
                opened = -1
                continue
            opened = len(flags)
            starts.append(index)
            entries.append(entry)
            flags.append(_RESULTS)
            role = "user"
            continue
        if run is not None:  # the run ends: does it answer the calls of the turn before it?
            if opened >= 0:
                if not pending or not _answers(pending, run):
                    flags[opened] |= _BAD
                    if opened:
                        flags[opened - 1] |= _BAD
                pending = _NONE
            run = None
        if kind in SYSTEM_ROLES:
            continue  # hoisted by the writer: no entry
        content = bone[1]
        if kind == OPAQUE:
            if content[0] != "anthropic":
                continue  # another format's: left out
            return None
        calls: list[Any] = _NONE
        if content is not STRING:
            for part in content:
                if type(part) is not str:
                    if part[0] == OPAQUE:
                        if part[1] == "anthropic":
                            return None
                    elif kind == "assistant":
                        if calls is _NONE:
                            calls = []
                        calls.append(part[0])
        entry += 1
        if calls:
            ids.extend(calls)
        if kind == role:  # combined into the last turn (user or assistant)
            if calls:
                pending = pending + calls
                flags[-1] |= _USES
            continue
        if pending:  # the last turn's calls are not answered by results right after it
            flags[-1] |= _BAD
        starts.append(index)
        entries.append(entry)
        flags.append(_USES if calls else 0)
        pending = calls
        role = kind if kind in ("user", "assistant") else None
    if run is not None and opened >= 0:
        if not pending or not _answers(pending, run):
            flags[opened] |= _BAD
            if opened:
                flags[opened - 1] |= _BAD
    elif pending:
        flags[-1] |= _BAD
    if not all_anthropic_ids([value for value in ids if type(value) is str]):
        return None
    return turns


def _moved(violation: Violation, turn: int, entry: int, bone: int) -> Violation:
    """A violation found in a window, where the window sits: `messages.N` counts the request's turns
    (the window opens at turn `turn`), its native entries start at `entry`, its messages at `bone`."""
    position, error = violation.position, violation.error
    if turn:
        found = _TURN.match(position)
        if found is not None:
            at = f"messages.{int(found.group(1)) + turn}"
            if error.startswith(found.group(0)):
                error = at + error[found.end():]
            position = at + position[found.end():]
    return msgspec.structs.replace(
        violation, position=position, error=error,
        native_indices=[index + entry for index in violation.native_indices],
        canonical_indices=None if violation.canonical_indices is None else
        [index + bone for index in violation.canonical_indices])


_TURN = re.compile(r"messages\.(\d+)")

PROOFS: dict[str, tuple[str, Callable[[Sequence[Any]], Turns | None]]] = {
    "anthropic": ("anthropic", anthropic_turns),
}
"""Each provider the windowed judgment serves: its native format and its proof."""


def judge_windowed(bones: Sequence[Any], provider: str, judge: Callable[[Any, str], list[Violation]]
                   ) -> list[Violation] | None:
    """`judge(SKELETONS[format](bones), provider)`'s verdict (canonical indices set), judged only on the
    windows around the turns the provider's proof could not show legal; None when no proof serves the
    provider or it does not apply (the caller judges the whole request)."""
    served = PROOFS.get(provider)
    if served is None:
        return None
    format, proof = served
    turns = proof(bones)
    if turns is None:
        return None
    write = SKELETONS[format]
    count = len(turns.bone)
    bad = [flag & _BAD for flag in turns.flags]
    if sum(map(bool, bad)) * DENSE > count:
        return None  # windows would cover most of it: judged whole, without their overhead
    found: list[Violation] = []
    turn = 0
    while turn < count:
        if not bad[turn]:
            turn += 1
            continue
        start = turn
        while not turns.cut_before(start):
            start -= 1
        end = turn + 1
        while True:  # to a boundary no rule reads across, past every bad turn met on the way (or soon after:
            # judging a few plain turns costs less than another window)
            while not turns.cut_before(end):
                end += 1
            ahead = next((at for at in range(end, min(end + GAP, count)) if bad[at]), None)
            if ahead is None:
                break
            end = ahead + 1
        first = turns.bone[start]
        last = turns.bone[end] if end < count else len(bones)
        for violation in judge(write(bones[first:last]), provider):
            found.append(_moved(violation, start, turns.entry[start], first))
        turn = end
    return sort_violations(found)
