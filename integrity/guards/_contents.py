"""The quick pass over google.genai Contents read column-wise, for ADK's requests read whole.

ADK hands its plugin new Content and Part objects on every model call, and a guard's first call reads
them all: the quick pass (`_fast._walk_gemini_objects`) and, to remember the request, its key
(`_fast._content_key`: each content's role and part count, each part's call and response, and the text,
thought and inline data of the parts holding neither, gathered by C loops).  `scan_contents` answers the
quick pass from that key alone, so the contents are read once: each content becomes one letter (U a user
text, M a model text, C a model call, R a user response, X anything else; made from byte columns), a
regular expression reads the turn order, and the ids, names and texts are checked over columns (map,
compress, set: C loops); a failure's position is looked up only when there is one.  It answers exactly what the pass
answers and leaves the state the pass leaves (the cut, the call ids before it; when healthy, every call
id and the last role), or None for what it does not read column-wise (a content of several parts, an
id that is not a string, calls with ids and calls without in one request): the pass decides those.
`tests/test_guard_fast.py` holds the two equal on generated contents, healthy and broken.  Importing
this module registers it with the quick pass (`_fast._COLUMNS`); the ADK guard does.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Sequence
from typing import Any

from ._fast import _COLUMNS, _PLAIN_ID, IDLESS, _State

_LETTERS = bytes.maketrans(bytes(range(32)), bytes(ord({4: "U", 5: "M", 13: "C", 29: "C", 20: "R"}.get(code, "X"))
                                                    for code in range(32)))
"""One byte per one-part content -> its letter (X: the pass refuses it).  The byte is the length of its role
(4 "user", 5 "model": any other role is read by the pass), plus 8 when its part holds a call and 16 when it
holds a response: a model part with a call is read as the call (C, 13 and 29), a user part with a response
as the response (R, 20), a user part with neither as a user text (U, 4), a model part with neither as a
model text (M, 5), whatever else the part holds."""
_ORDER = re.compile(rb"(?:U(?:M|(?:CR)++M?+))*+U?+")
"""The turn order the pass accepts for one-part contents: a user turn, then a model text or calls each
answered right after it (then maybe a model text), ...; its match ends where the pass stops (each letter
decides the branch, so the possessive quantifiers find the same end as backtracking ones, sooner)."""
_PLAIN_IDS = re.compile(r"[A-Za-z0-9_-]+(?:\n[A-Za-z0-9_-]+)*\Z")
_LAST = {ord("U"): "user", ord("M"): "assistant", ord("R"): "results"}
_PICK = {"C": bytes.maketrans(b"UMCRX", b"\0\0\1\0\0"), "R": bytes.maketrans(b"UMCRX", b"\0\0\0\1\0"),
         "UM": bytes.maketrans(b"UMCRX", b"\1\1\0\0\0")}
"""Letters -> one byte per content, 1 where it is a call (C), a response (R), a text turn (UM)."""
_NONES = itertools.repeat(None)
_ID, _NAME = operator.attrgetter("id"), operator.attrgetter("name")


def _letters(roles: tuple[Any, ...], calls: tuple[Any, ...], responses: tuple[Any, ...]) -> bytes | None:
    """The contents' letters (see `_LETTERS`), made with C loops: each column as bytes, added as integers
    (no byte carries into the next), read through one table; None when a role is neither "user" nor
    "model" (the pass reads those)."""
    size = len(roles)
    if roles.count("user") + roles.count("model") != size:
        return None
    number = int.from_bytes(bytes(map(len, roles)), "big") + (int.from_bytes(bytes(map(
        operator.is_not, calls, _NONES)), "big") << 3) + (int.from_bytes(bytes(map(
            operator.is_not, responses, _NONES)), "big") << 4)
    return number.to_bytes(size, "big").translate(_LETTERS)


def scan_contents(key: tuple[Any, ...], state: _State) -> bool | None:
    """The quick pass's answer for the contents whose `_content_key` is `key`, from a fresh `state` (filled
    as the pass fills it); None when the pass must read them (see the module)."""
    roles, counts, calls, responses, texts, thoughts, inlines = key[:7]
    size = len(roles)
    if not size or counts.count(1) != size:
        return None
    letters = _letters(roles, calls, responses)
    if letters is None:
        return None
    stop = _ORDER.match(letters).end()  # type: ignore[union-attr]  # (it matches the empty string)
    is_call, is_response = letters.translate(_PICK["C"]), letters.translate(_PICK["R"])
    try:
        fails = [stop, *_text_failures(letters, texts, thoughts, inlines)]
        call_ids = list(map(_ID, itertools.compress(calls, is_call)))
        response_ids = list(map(_ID, itertools.compress(responses, is_response)))
        kind = ""
        if None in call_ids and not state.idless:
            if call_ids.count(None) != len(call_ids):
                return None  # calls with ids and without: the pass reads them
            fails.append(is_call.index(1))  # no call without an id passes toward this target
            call_keys: list[Any] = []
            response_keys: list[Any] = []
        elif None in call_ids:
            if call_ids.count(None) != len(call_ids):
                return None
            kind = "name"
            names = list(map(_NAME, itertools.compress(calls, is_call)))
            if "" in names:
                fails.append(_nth(is_call, names.index("")))
            call_keys = list(map(IDLESS.__add__, names))
            response_names = list(map(_NAME, itertools.compress(responses, is_response)))
            if response_ids.count(None) == len(response_ids) and "" not in response_names and set(map(
                    type, response_names)) <= {str}:  # every response without an id, named (C loops)
                response_keys = list(map(IDLESS.__add__, response_names))
            else:
                response_keys = [IDLESS + name if response_id is None and isinstance(name, str) and name else None
                                 for response_id, name in zip(response_ids, response_names, strict=True)]
        else:
            if call_ids:
                kind = "id"
                if not _PLAIN_IDS.match("\n".join(call_ids)):  # (TypeError: an id that is not a string)
                    plain = list(map(operator.not_, map(_PLAIN_ID.match, call_ids)))
                    fails.append(_nth(is_call, plain.index(True)))
            if len(set(call_ids)) != len(call_ids):
                seen: set[str] = set()
                fails.append(_nth(is_call, next(at for at, call_id in enumerate(call_ids)
                                                 if call_id in seen or seen.add(call_id))))  # type: ignore[func-returns-value]
            call_keys, response_keys = call_ids, response_ids
    except TypeError:  # an id or a name that is not a string, a text that is not one
        return None
    paired = min(len(call_keys), len(response_keys))
    if call_keys[:paired] != response_keys[:paired]:
        fails.append(_nth(is_response, next(itertools.compress(itertools.count(), map(
            operator.ne, call_keys, response_keys)))))
    failed = min(fails)
    ids = call_ids if kind == "id" else []
    if failed == size:  # the whole request in order: healthy, the state at its end
        _state(state, letters, size, ids, kind)
        state.last = _LAST[letters[-1]]
        return True
    _state(state, letters, failed, ids, kind)
    return False


def _nth(picked: bytes, count: int) -> int:
    """The position of the byte 1 numbered `count` (from 0) in `picked` (one byte per content)."""
    return next(itertools.islice(itertools.compress(itertools.count(), picked), count, None))


def _text_failures(letters: bytes, texts: Sequence[Any], thoughts: Sequence[Any], inlines: Sequence[Any]
                   ) -> list[int]:
    """Where a text turn (U, M) fails the pass's text rule (a non-blank string, not a thought, no inline
    data): the first failing position of each kind (TypeError: a text that is not a string).  The text
    columns hold the parts with neither a call nor a response: with one part per content and every role
    "user" or "model", exactly the text turns."""
    fails = []
    blank = list(map(str.isspace, texts))  # (TypeError: a text that is not a string)
    if True in blank:
        fails.append(_texts_at(letters)[blank.index(True)])
    if "" in texts:
        fails.append(_texts_at(letters)[texts.index("")])
    if any(thoughts):
        fails.append(_texts_at(letters)[next(itertools.compress(itertools.count(), thoughts))])
    if inlines.count(None) != len(inlines):
        fails.append(_texts_at(letters)[next(itertools.compress(itertools.count(), map(
            operator.is_not, inlines, _NONES)))])
    return fails


def _texts_at(letters: bytes) -> list[int]:
    """The positions of the text turns (U, M)."""
    return list(itertools.compress(range(len(letters)), letters.translate(_PICK["UM"])))


def _state(state: _State, letters: bytes, failed: int, ids: list[str], kind: str) -> None:
    """The state the pass leaves having read the contents before `failed` (the cut: the last user turn after
    an exchange before it; the call ids; what the calls carry)."""
    cut = letters.rfind(b"U", 1, failed)
    state.cut, state.cut_ids = (cut, letters.count(b"C", 0, cut) if ids else 0) if cut > 0 else (0, 0)
    state.seen = list(ids) if failed == len(letters) else ids[:letters.count(b"C", 0, failed)]
    state.known = set(state.seen)
    state.kind = kind


_COLUMNS["gemini-objects"] = scan_contents
