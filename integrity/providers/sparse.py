"""A provider's verdict on a transcript the fast path read, judged without the bones of every message.

`windowed` judges a request only around the turns its proof cannot show plainly legal, but the proof itself
reads every message's bones (and the fast path makes a bones tuple for each): at a million messages, two
proofs and the bones are most of what `check --provider` adds to `check`, and the bones most of its memory.
The light view the reader built already knows what those proofs look for: each message's role, which
assistant messages make calls, and which calls are answered plainly (LightBuilder's clean turns: a frame
whose results follow it directly, in call order, with no other part after its calls, which Anthropic
refuses).  Here the request is read as one letter per message (`codes`): u user, a assistant without calls,
c assistant with calls, r tool result, s system.

The request is cut at *anchors*: a run of user messages right after an assistant message without calls that
itself follows a user message or a result, and before an assistant message.  At an anchor no rule of any
provider served here reads across (the turn before it makes no call, the turn it opens holds no result) and
each proof starts afresh (what it carries is empty there), so the stretches between anchors can be judged
apart.  A stretch is plainly legal for the provider when it holds no *seed*: a message outside the clean
turns, a system message, the request's first or last stretch, or two neighbours the provider's own role rule
reads (Bedrock: two messages of one role in a row; Mistral: a user message right after a tool message).
Every other stretch, with its neighbours in one region, is judged by `windowed` on the bones of its messages
alone, and its violations moved to where the region sits (its first message, native entry and turn).

Ids are checked on the whole request first (ids_pass: the ids the provider's id rule refuses), and the regions
are then judged without the id rules; a request that fails is judged as before, on every message's bones
(integrity.skeleton_verdicts.sparse_letters).  The rules that read the whole request's ids (DeepSeek's result
id met twice, Mistral's refused ids: APART) are judged instead on every id at once, from the light view.

tests/test_sparse.py holds the verdicts equal to the bones' (windowed) on every pi-ai sample and real file,
generated files, files read a block at a time and random transcripts, for every provider served, as recorded
and as repaired.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain, compress, islice, repeat
from operator import attrgetter, lt
from typing import Any

from ..formats.common import OPAQUE
from ..formats.skeleton import SKELETONS, STRING
from . import deepseek, mistral
from .anthropic import first_number
from .canonical import with_canonical_indices
from .ids import all_anthropic_ids, mistral_takes_some, only_letters
from .refused import Refused, RowIds, refused_columns
from .registry import PROVIDER_FORMAT, SPECS
from .sparse_rows import RowIdsInOrder, merged_rows
from .violation import Violation, sort_violations
from .windowed import PROOFS, WHOLE_OR_NOTHING, _ids_pass, _moved, judge_windowed

CODE = {"user": "u", "assistant": "a", "toolResult": "r", "system": "s"}
"""A role's letter (an assistant message with calls is `c`)."""
_ROLE_OF = {**{letter: role for role, letter in CODE.items()}, "c": "assistant"}
_FIRST_TURN = re.compile(r"[^s]")
"""The letter of the first message that is no system message (systems are hoisted: Anthropic's first turn)."""

SERVED = frozenset(PROOFS) - WHOLE_OR_NOTHING
"""The providers judged here: those whose proof reads a turn with its neighbours only (not Responses)."""

READ_LIGHT = SERVED
"""The providers for which the fast path reads no bones, only whether a message carries native hints (their ids
pass, or are judged apart: APART)."""

SMALL = 64
"""A region of at most this many messages is judged whole: proving its plain turns first costs more."""

_NEXT_ANCHOR = re.compile(r"a(?<=[ur]a)u+(?=[ac]|$)")
"""An anchor's assistant letter and its run of users: the anchor is where the match starts, plus one.  Led by a
literal letter, which the regex engine skips ahead to, instead of trying its lookbehind at every letter."""
_WHOLE_RUN = re.compile(r"u+(?=[ac]|$)")
"""A run of users that ends before an assistant message or at the request's end, matched at the run's start."""
_PAIRS = {  # neighbours a provider's role rule reads: both are seeds
    "bedrock": re.compile(r"(?=ur|ru|uu|aa|ac|ca|cc)"),
    "mistral": re.compile(r"(?=ru)"),
}
_RESULTS = str.maketrans({"u": "0", "a": "0", "c": "0", "s": "0", "r": "1"})
_TURNS = str.maketrans({"u": "U", "r": "U", "a": "A", "c": "A", "s": None})


def ids_pass(provider: str, calls: list[Any], results: list[Any]) -> bool:
    """Whether no id rule of the provider fires on the request's call and result ids (each a list of every
    one), and (DeepSeek) no result id is met twice: else its proof gives up and the request is judged whole.
    Checked a slice at a time: joining a million ids at once doubled the check's memory for nothing."""
    if provider == "deepseek":
        return deepseek.unique_ids(results)
    if provider in ("openai-responses", "bedrock"):  # its id rule (IdRule.accepts_all) on every id, calls' and results'
        values = calls + results
        if not set(map(type, values)) <= {str}:
            values = [value for value in values if type(value) is str]
        rule = SPECS[provider].id_rule
        return rule is None or rule.accepts_all is None or rule.accepts_all(values)
    for values, calls_of in ((calls, True), (results, False)):
        for start in range(0, len(values), _SLICE):
            part = values[start:start + _SLICE]
            if provider == "mistral":  # windowed._ids_pass's check, with no step per id when every one is a string
                if not set(map(type, part)) <= {str}:
                    part = [value for value in part if type(value) is str]
                if not (only_letters(part) and set(map(len, part)) <= {9}):
                    return False
                continue
            if not (all_anthropic_ids([value for value in part if type(value) is str]) if provider == "anthropic"
                    else _ids_pass(provider, part if calls_of else [], [] if calls_of else part)):
                return False
    return True


_SLICE = 1 << 16


def judge_sparse(codes: str, seeds: Iterable[int], provider: str, bones_at: Callable[[list[int]], list[Any]],
                 judge: Callable[[Any, str], list[Violation]], plain: bool = False,
                 frames: Mapping[int, Any] | None = None, results: Mapping[int, Any] | None = None,
                 regions: list[list[int]] | None = None) -> Sequence[Violation]:
    """The provider's verdict on the request whose messages `codes` spells, judged only on the stretches
    around the seeds (messages outside clean turns, or changed by the view); bones_at(indices) gives the
    bones of those messages.  The caller has checked the ids (ids_pass), but for a rule in APART, judged
    here on `frames` and `results` (the light view's: every frame's calls, every result's id, by index).
    plain: the regions are expected legal (a repaired view): each is proved first (windowed), and the rule
    set runs only where the proof fails; else (as recorded: its regions are there because something is
    broken) a region of at most SMALL messages goes straight to the rule set.  regions: judged_regions(codes,
    seeds, provider), when the caller has them."""
    found = _sparse(codes, seeds, provider, bones_at, judge, plain, regions)
    apart = APART.get(provider) if results is not None and frames is not None else None
    if apart is None:
        return found
    assert results is not None and frames is not None
    rule, judge_whole = apart
    return _merged([violation for violation in found if violation.rule != rule], judge_whole(frames, results, provider))


def _merged(found: list[Violation], whole: Sequence[Violation]) -> Sequence[Violation]:
    """sort_violations(found + whole), for `found` sorted and `whole` in message order, each violation of one rule
    (what an APART judgment returns): the few found put in place among the whole request's many (a quarter of a
    million refused ids) without sorting them again (and without making them, when they are columns)."""
    if not whole or not found:
        return whole or found
    if isinstance(whole, Refused):
        return whole.merged(found)
    whole = list(whole)
    rules = {violation.rule for violation in whole}
    if len(rules) > 1:
        return sort_violations(found + whole)
    rule = rules.pop()
    at = [violation.native_indices[0] if violation.native_indices else -1 for violation in whole]
    merged: list[Violation] = []
    taken = 0
    for violation in found:  # (sorted's order: by first index, then rule; found before whole when both tie)
        first = violation.native_indices[0] if violation.native_indices else -1
        cut = bisect_left(at, first) if violation.rule <= rule else bisect_right(at, first)
        merged.extend(whole[taken:cut])
        taken = max(taken, cut)
        merged.append(violation)
    merged.extend(whole[taken:])
    return merged


def _repeated(frames: Mapping[int, Any], results: Mapping[int, Any], provider: str) -> list[Violation]:
    """DeepSeek's repeated result ids, read from the light view a part of them at a time (deepseek.repeated_in: a
    list of every (index, id) pair was some 27 MB at a million messages, a map of every id 21 MB)."""
    found = deepseek.repeated_in(results, provider)
    return sort_violations(with_canonical_indices(found, _Each(max(chain(frames, results), default=-1) + 1)))


def _refused(frames: Mapping[int, Any], results: Mapping[int, Any], provider: str) -> Sequence[Violation]:
    """Mistral's refused ids, read as ids.chat_ids reads a request's (each message's call ids then its result id;
    the fast path's ids are all strings), in message order, held as columns (providers.refused: a violation is
    made only when read).  One walk of the messages that hold ids, in order (the frames and the results, each
    sorted: one merge), gives both columns without a step per id, nor an int object per one; when no id is one
    Mistral takes and no call's is "null" (a transcript recorded for another provider), the ids are not listed
    but read from the light view when asked (refused.RowIds; for frames and results in order, as the fast path
    reads them, sparse_rows makes the rows and reads their ids back at C speed).  A call's "null" is refused with
    another text (mistral.refused_ids: undefined in serving mode), so a request holding one is judged by
    mistral.refused_ids itself, its violations a list (a rare request: the columns are for the many refused ids
    of another provider's transcript)."""
    at = array("i")  # (4 bytes a message index: a transcript of 2**31 messages would not fit in memory)

    def calls_of() -> Iterator[str]:
        return map(_ID, chain.from_iterable(frames.values()))

    # the ids' lengths first, one C-level pass over each (a call id of no 4 characters is no "null", one of no 9 no id
    # Mistral takes): the ids are read again (for "null", then the pattern) only when some have those lengths
    if (not {4, 9} & set(map(len, calls_of())) or "null" not in calls_of() and not mistral_takes_some(calls_of)) \
            and (9 not in set(map(len, results.values())) or not mistral_takes_some(results.values)):
        # no id Mistral takes, no call's "null" (another text): every id is a row, its id read from the light view
        # when asked (refused.RowIds), not listed (a million-message transcript recorded for another provider)
        if _increasing(frames) and _increasing(results):  # (as the fast path reads them): merged without a list
            at = merged_rows(frames, results)  # of every index (6 MB at a million messages), at C speed
            if frames.keys().isdisjoint(results):  # (a message both a frame and a result: no reader makes one)
                return Refused(provider, at, RowIdsInOrder(at, frames, results))
        else:
            at.extend(sorted(chain(chain.from_iterable(map(repeat, frames, map(len, frames.values()))), results)))
        return Refused(provider, at, RowIds(at, frames, results))
    ids: list[str] = []
    add_at, add_id, add_ats, add_ids, result_of = at.append, ids.append, at.extend, ids.extend, results.get
    for index in sorted(chain(frames, results)):
        result = result_of(index, _NO_RESULT)
        if result is _NO_RESULT:
            calls = frames[index]
            add_ids(map(_ID, calls))
            add_ats(repeat(index, len(calls)))
        else:
            add_id(result)
            add_at(index)
    if "null" in ids and any(at[place] in frames for place in compress(range(len(ids)), map("null".__eq__, ids))):
        found = mistral.refused_ids(_chat_ids(at, ids, frames), provider)  # (a call's "null": another text)
        return with_canonical_indices(found, _Each(max(chain(frames, results), default=-1) + 1))
    return refused_columns(at, ids, provider)


def _chat_ids(at: Sequence[int], ids: Sequence[str], frames: Mapping[int, Any]
              ) -> Iterator[tuple[int, int | None, str]]:
    """The columns' ids as ids.chat_ids reads a request's: (message index, call position or None for a result,
    id); a frame's calls are consecutive rows of its index, in order."""
    previous, position = -1, 0
    for index, value in zip(at, ids, strict=True):
        position = position + 1 if index == previous else 0
        previous = index
        yield index, position if index in frames else None, value


def _increasing(values: Mapping[int, Any]) -> bool:
    """Whether a dict's keys are in increasing order, read by a C-level map."""
    return all(map(lt, values, islice(values, 1, None)))


_NO_RESULT: Any = object()
"""What results.get answers for a message that is no result (a frame)."""
_ID = attrgetter("id")


APART: dict[str, tuple[str | None, Callable[[Mapping[int, Any], Mapping[int, Any], str], Sequence[Violation]]]] = {
    "deepseek": (deepseek.REPEATED, _repeated),
    "mistral": (None, _refused),
}
"""The rules judged on the whole request's ids at once, from the light view (each frame's calls, each result's
id): (the rule of those a stretch's own judgment also finds, which is dropped there; its judgment of the
request, its violations' canonical messages set, in message order).  DeepSeek refuses a result id met twice
anywhere, which a stretch alone cannot see; Mistral refuses ids (the stretches are judged without the id rules,
as for every provider).  The Chat shape writes one native entry per message, so a message's index is its
entry's."""


class _Each(Sequence[Sequence[int]]):
    """The canonical messages of each native entry of a request written one entry per message (the Chat
    shape): entry i is message i."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: Any) -> Any:  # (with_canonical_indices asks only for entries 0 <= i < len)
        return (index,)


def judged_regions(codes: str, seeds: Iterable[int], provider: str) -> list[list[int]]:
    """The regions judge_sparse judges of the request `codes` spells, around these seeds: [low, high) each, in order
    (none for an empty request).

    Each marked message (a seed, a system message, the first and the last, the pairs the provider's role rule reads)
    lies in the stretch from the last anchor at or before it to the first anchor after it; stretches that touch
    are one region.  Only the anchors around marked messages are looked for: a file has an anchor every few
    messages and a seed every hundred or so, and finding every anchor was most of this function's time."""
    size = len(codes)
    if not size:
        return []
    marked = set(seeds)
    marked.update((0, size - 1))
    at = codes.find("s")
    while at >= 0:
        marked.add(at)
        at = codes.find("s", at + 1)
    pairs = _PAIRS.get(provider)
    if pairs is not None:
        for pair in pairs.finditer(codes):
            marked.update((pair.start(), pair.start() + 1))
    regions: list[list[int]] = []
    high = -1
    for index in sorted(marked):
        if index < high or not 0 <= index < size:  # (in the stretch just found; or no message)
            continue
        low = _anchor_at_or_before(codes, index)
        following = _NEXT_ANCHOR.search(codes, index)  # (an anchor after `index` has its assistant at or past it)
        high = following.start() + 1 if following is not None else size
        if regions and regions[-1][1] == low:
            regions[-1][1] = high
        else:
            regions.append([low, high])
    return regions


def _anchor_at_or_before(codes: str, index: int) -> int:
    """The last anchor at or before `index` (0: none, the request's start): a user after an assistant without calls
    that follows a user or a result, whose run of users ends before an assistant message or at the end."""
    at = codes.rfind("au", 0, index + 1)  # (the user at or before index)
    while at >= 1:
        if codes[at - 1] in "ur" and _WHOLE_RUN.match(codes, at + 1) is not None:
            return at + 1
        at = codes.rfind("au", 0, at + 1)
    return 0


def _sparse(codes: str, seeds: Iterable[int], provider: str, bones_at: Callable[[list[int]], list[Any]],
            judge: Callable[[Any, str], list[Violation]], plain: bool, found_regions: list[list[int]] | None = None
            ) -> list[Violation]:
    """judge_sparse, every rule judged on the regions alone (found_regions: judged_regions', when the caller has
    them)."""
    write = SKELETONS[PROVIDER_FORMAT[provider]]
    if not codes:
        return judge(write([]), provider)  # (Bedrock refuses an empty conversation)
    ordered: Sequence[int] = ()
    if not plain:  # (read twice: for the regions, and for which regions hold one)
        seeds = ordered = sorted(seeds)
    regions = found_regions if found_regions is not None else judged_regions(codes, seeds, provider)
    by_turn = PROOFS[provider][1]
    # a region past the first opens with a user (an anchor): numbered as the request's turns are (Anthropic
    # numbers a request opening with an assistant turn from 1)
    first = _FIRST_TURN.search(codes) if by_turn else None
    opening = first_number(_ROLE_OF.get(first.group())) if first is not None else 0
    shapes = None if PROVIDER_FORMAT[provider] == "openai-chat" else codes.translate(_RESULTS)  # (read in place)
    found: list[Violation] = []
    entry = turn = counted = taken = 0
    bones: list[Any] = []
    for number, (low, high) in enumerate(regions):
        if low > counted:  # the entries (and Anthropic's turns) of the plain stretches before this region
            entry += _entries(codes, shapes, counted, low)
            if by_turn:
                turn += _turns(codes[counted:low])
        if taken >= len(bones):  # the bones of the next regions, some BATCH messages at a time
            bones = bones_at(_batch(regions, number))
            taken = 0
        region = bones[taken:taken + high - low]
        taken += high - low
        # As recorded, a small region is there because something in it is broken, and goes straight to the rule
        # set; one there only for where it sits (the request's first or last stretch, a system message, a pair
        # the role rule reads) is usually legal, and is proved first (the rule set runs where the proof fails:
        # 39 of the 744 proofs of both judgments over 100 fleet files toward Bedrock; none toward Gemini,
        # Anthropic or OpenAI Chat)
        said = judge_windowed(region, provider, judge) \
            if plain or high - low > SMALL or not _holds(ordered, low, high) else None
        if said is None:
            said = judge(write(region), provider)
        found.extend(_moved(violation, turn + opening if by_turn else entry, entry, low) if low else violation
                     for violation in said)
        entry += _entries(codes, shapes, low, high)
        if by_turn:
            turn += _turns(codes[low:high])
        counted = high
    return sort_violations(found)


def empty_frames_judged(codes: str, frames: Iterable[int], provider: str) -> list[Violation]:
    """Anthropic's empty_message_content for the request `codes` spells, whose only messages written with no
    block are these interrupted frames without parts (the light view's empty_frames: the fast path gives up
    on any other, fast_bones.blank_or_empty): its positions count the request's entries, not its turns, and it
    spares the request's last entry, which a region cannot tell, so it is judged here, on the whole request."""
    from .anthropic import EMPTY_CONTENT

    shapes = codes.translate(_RESULTS)
    last = len(codes.rstrip("s")) - 1  # (the last message written: systems are hoisted)
    found: list[Violation] = []
    entry = previous = 0
    for index in sorted(frames):
        entry += _entries(codes, shapes, previous, index)  # (cut at assistant messages: no run of results crosses)
        previous = index
        if index != last:
            found.append(Violation(provider=provider, rule="empty_message_content", position=f"messages.{entry}",
                                   native_indices=[entry], error=EMPTY_CONTENT.format(index=entry),
                                   canonical_indices=[index]))
    return found


def _holds(seeds: Sequence[int], low: int, high: int) -> bool:
    """Whether the sorted seeds hold one in [low, high)."""
    at = bisect_left(seeds, low)
    return at < len(seeds) and seeds[at] < high


BATCH = 8192
"""Messages whose bones are made at once: a large file's regions are judged a batch at a time, so that only
a batch's bones are held (and a block of the file is read again about once)."""


def _batch(regions: list[list[int]], number: int) -> list[int]:
    """The indices of the messages of the regions from `number` on, whole regions, about BATCH of them."""
    indices: list[int] = []
    for low, high in regions[number:]:
        if indices and len(indices) + high - low > BATCH:
            break
        indices.extend(range(low, high))
    return indices


def _entries(codes: str, shapes: str | None, low: int, high: int) -> int:
    """The native entries of the stretch codes[low:high], cut at anchors (so no run of results crosses its ends):
    one per message for the Chat shape (shapes None); else one per message but systems (hoisted) and one per run
    of results.  shapes: codes.translate(_RESULTS), made once per request; each stretch is read in place (the
    counts take bounds), not sliced and translated again."""
    if shapes is None:
        return high - low
    runs = shapes.count("01", low, high) + shapes.startswith("1", low, high)
    return high - low - codes.count("s", low, high) - codes.count("r", low, high) + runs


def _turns(codes: str) -> int:
    """Anthropic's combined turns of a stretch cut at anchors: runs of user messages and results, and of
    assistant messages (systems hoisted between them)."""
    classes = codes.translate(_TURNS)
    return classes.count("UA") + classes.count("AU") + (1 if classes else 0)


def recorded_codes(roles: Sequence[Any], frames: Iterable[int]) -> str | None:
    """The letters of a transcript the fast path read (roles, and the indices of its frames); None when a
    role has no letter (the caller judges as before)."""
    try:
        letters = bytearray("".join(map(CODE.__getitem__, roles)), "ascii")
    except (KeyError, TypeError):
        return None
    for index in frames:
        letters[index] = 99  # "c"
    return letters.decode("ascii")


def bone_code(bone: Any) -> str | None:
    """A made message's letter from its bones (None: one the letters do not spell)."""
    role, content = bone[0], bone[1]
    if role == "assistant":
        if content is not STRING and any(type(part) is tuple and part[0] != OPAQUE for part in content):
            return "c"
        return "a"
    return CODE.get(role) if role != OPAQUE else None
