"""Mistral's new call ids for a transcript whose every id it refuses, made when asked instead of held.

A million-message transcript has some 360,000 call ids, and Mistral refuses every one (it takes exactly nine
letters or digits).  A dict of their new ids held about 35 MB (the names and the table) through the plan and
every verdict of `check`, which read only a few thousand of them: the frames outside the clean turns, and the
messages a diagnosis shows.  Mistral's new id is a hash of the old one (providers.ids: nine hex digits of
sha1(id, attempt)), so it can be made again whenever it is asked for.  What must be known up front is only
which ids do not get their first attempt: strict._made gives each id, in transcript order, the first attempt
no earlier id took, and two of 360,000 such 36-bit prefixes meet about once (the bench's million-message file
has three such pairs).  Those few are found from the prefixes as integers (8 bytes each, sorted), and their
walked names kept.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, KeysView, Mapping
from itertools import compress, islice
from operator import eq

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
            return _ids.mistral_make(value, 0)
        raise KeyError(value)

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
    to that is also some id's first attempt (one in about 2**36 / 360,000 walks)."""
    firsts = array("q", map(_ids.mistral_first_bits, keys))
    ordered = sorted(firsts)
    met = set(compress(ordered, map(eq, ordered, islice(ordered, 1, None))))  # first attempts of two ids or more
    walked: dict[str, str] = {}
    if not met:
        return MadeWhenAsked(keys, walked)
    listed = list(keys)
    kept: set[int] = set()
    names: set[str] = set()
    for at in compress(range(len(firsts)), map(met.__contains__, firsts)):
        if firsts[at] not in kept:  # the first id to meet it keeps it
            kept.add(firsts[at])
            continue
        value = listed[at]
        attempt = 1
        new = _ids.mistral_make(value, attempt)
        while new in names:
            attempt += 1
            new = _ids.mistral_make(value, attempt)
        if _sorted_holds(ordered, int(new, 16)):  # taken (or to be taken) as another's first attempt: _made decides
            return None
        names.add(new)
        walked[value] = new
    return MadeWhenAsked(keys, walked)


def _sorted_holds(ordered: list[int], value: int) -> bool:
    at = bisect_left(ordered, value)
    return at < len(ordered) and ordered[at] == value
