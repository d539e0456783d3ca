"""Mistral's new call ids for a transcript whose every id it refuses, made when asked instead of held.

A million-message transcript has some 360,000 call ids, and Mistral refuses every one (it takes exactly nine
letters or digits).  A dict of their new ids held about 35 MB (the names and the table) through the plan and
every verdict of `check`, which read only a few thousand of them: the frames outside the clean turns, and the
messages a diagnosis shows.  Mistral's new id is a hash of the old one (providers.ids: nine hex digits of
sha1(id, attempt)), so it can be made again whenever it is asked for.  What must be known up front is only
which ids do not get their first attempt: strict._made gives each id, in transcript order, the first attempt
no earlier id took, and two of 360,000 such 36-bit prefixes meet about once (the bench's million-message file
has three such pairs).  Those few are found from the prefixes' first 30 bits (sorted: about 60 ids of a million
share theirs), whose whole prefixes are then compared, and their walked names kept.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterator, KeysView, Mapping
from hashlib import sha1
from itertools import compress, islice, repeat
from operator import add, eq, rshift

from ..providers import ids as _ids


class MadeWhenAsked(Mapping[str, str]):
    """refused id -> its new id (what strict._made gives), for the ids of `keys`: the first attempt made each time
    it is asked, but for the few ids that walk past a first attempt an earlier id took (`walked`).  Pickled as
    the dict it reads as."""

    __slots__ = ("_keys", "_walked")

    def __init__(self, keys: KeysView[str], walked: dict[str, str]) -> None:
        self._keys = keys
        self._walked = walked

    def __getitem__(self, value: str) -> str:
        found = self._walked.get(value)
        if found is not None:
            return found
        if value in self._keys:
            return _first_attempt(value)
        raise KeyError(value)

    def get(self, value: str, default: str | None = None) -> str | None:  # type: ignore[override]
        """self[value], else `default` (without Mapping.get's step through __getitem__ and its KeyError: a view
        for Mistral asks for a few thousand new ids)."""
        found = self._walked.get(value)
        if found is not None:
            return found
        return _first_attempt(value) if value in self._keys else default

    def __contains__(self, value: object) -> bool:
        return value in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __reduce__(self) -> tuple[type[dict[str, str]], tuple[dict[str, str]]]:
        return dict, (dict(self.items()),)  # pickled as the dict it reads as (a plan may cross processes)


def mistral_made(keys: KeysView[str]) -> MadeWhenAsked | None:
    """The new ids strict._made gives Mistral's refused ids `keys` (every distinct call id, in transcript order,
    none of them one Mistral takes), made when asked; None in the case left to _made's own walk: a name walked
    to that is also some id's first attempt (one in about 2**36 / 360,000 walks).

    The first attempts are compared by their first 30 bits (_first_words: hashed at C speed, with no Python step,
    slice or integer per id as mistral_first_bits takes), sorted; only the ids whose 30 bits another's share (about
    60 at a million ids, a few at 200,000) have their whole 36 bits read, to find the first attempts that meet."""
    words = _first_words(keys)
    ordered = sorted(map(rshift, words, repeat(_CUT)))  # (30 bits: an integer of one digit, compared fastest)
    shared = set(compress(ordered, map(eq, ordered, islice(ordered, 1, None))))  # 30 bits of two ids or more
    walked: dict[str, str] = {}
    if not shared:
        return MadeWhenAsked(keys, walked)
    listed = list(keys)
    candidates = list(compress(range(len(words)), map(shared.__contains__, map(rshift, words, repeat(_CUT)))))
    firsts = dict(zip(candidates, map(_ids.mistral_first_bits, map(listed.__getitem__, candidates)), strict=True))
    values = sorted(firsts.values())
    met = set(compress(values, map(eq, values, islice(values, 1, None))))  # first attempts of two ids or more
    kept: set[int] = set()
    names: set[str] = set()
    for at in candidates:
        first = firsts[at]
        if first not in met:
            continue
        if first not in kept:  # the first id to meet it keeps it
            kept.add(first)
            continue
        value = listed[at]
        attempt = 1
        new = _ids.mistral_make(value, attempt)
        while new in names:
            attempt += 1
            new = _ids.mistral_make(value, attempt)
        if _some_first_attempt(listed, words, ordered, int(new, 16)):  # taken (or to be taken) as another's first
            return None                                                # attempt: _made decides
        names.add(new)
        walked[value] = new
    return MadeWhenAsked(keys, walked)


_CUT = 2
"""The bits cut off the first 32 of a first attempt to compare it (30 left: CPython sorts ints of one digit fastest)."""

_BLOCK = 8192
"""Ids hashed at once by _first_words (one text of their digests at a time, 20 bytes each)."""

_DIGEST = type(sha1()).digest
"""The hash objects' own digest method (called through it by a map: faster than a methodcaller)."""


def _first_words(keys: KeysView[str]) -> array[int]:
    """The first 32 bits of each key's first attempt (mistral_first_bits(key) >> 4: the first four bytes of its
    sha1), in order: the digests of a block of ids joined by C-level maps, and every fifth 4-byte word read off at
    once.  An id that is no text, or holds a lone surrogate, has them read one id at a time."""
    words = array("I")
    if words.itemsize == 4:
        try:
            hashed = map(_DIGEST, map(sha1, map(str.encode, map(add, keys, repeat("\x000")))))
            block = b"".join(islice(hashed, _BLOCK))
            while block:
                words.frombytes(memoryview(block).cast("I")[::5].tobytes())
                block = b"".join(islice(hashed, _BLOCK))
            if sys.byteorder == "little":  # (the words as numbers, as the hex digits spell them)
                words.byteswap()
            return words
        except (TypeError, UnicodeEncodeError):
            pass
    return array("q", map(rshift, map(_ids.mistral_first_bits, keys), repeat(4)))


def _first_attempt(value: str) -> str:
    """_ids.mistral_make(value, 0), its text made without formatting (as mistral_first_bits hashes it)."""
    try:
        return sha1((value + "\x000").encode()).hexdigest()[:9]
    except (TypeError, UnicodeEncodeError):
        return _ids.mistral_make(value, 0)


def _some_first_attempt(listed: list[str], words: array[int], ordered: list[int], bits: int) -> bool:
    """Whether `bits` (a name's 36 bits) is some id's first attempt: its first 30 bits are some first attempt's
    (`ordered`: the words' sorted), and then the whole 36 bits of the ids whose 32 bits are its are compared."""
    if not _sorted_holds(ordered, bits >> (4 + _CUT)):
        return False
    holders = compress(listed, map((bits >> 4).__eq__, words))
    return _sorted_holds(sorted(map(_ids.mistral_first_bits, holders)), bits)


def _sorted_holds(ordered: list[int], value: int) -> bool:
    at = bisect_left(ordered, value)
    return at < len(ordered) and ordered[at] == value
