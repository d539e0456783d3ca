"""The quick pass over google.genai Contents read column-wise, for ADK's requests read whole.

ADK hands its plugin new Content and Part objects on every model call, and a guard's first call reads
them all: the quick pass (`_fast._walk_gemini_objects`) and, to remember the request, its key
(`_fast._content_key`: each content's role and part count, each part's call, response, text, thought and
inline data, gathered by C loops).  `scan_contents` answers the quick pass from that key alone, so the
contents are read once: each content becomes one letter (U a user text, M a model text, C a model
call, R a user response, X anything else), a regular expression reads the turn order, and the ids, names
and texts are checked over columns (map, compress, set: C loops).  It answers exactly what the pass
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

_LETTERS: dict[tuple[Any, bool, bool], str] = {
    ("user", False, False): "U", ("model", False, False): "M", ("model", True, False): "C",
    ("model", True, True): "C", ("user", False, True): "R"}
"""(role, has a call, has a response) of a one-part content -> its letter (X: the pass refuses it): a model
part with a call is read as the call, a user part with a response as the response, whatever else it holds."""
_ORDER = re.compile(r"(?:U(?:M|(?:CR)+M?))*U?")
"""The turn order the pass accepts for one-part contents: a user turn, then a model text or calls each
answered right after it (then maybe a model text), ...; its longest match ends where the pass stops."""
_PLAIN_IDS = re.compile(r"[A-Za-z0-9_-]+(?:\n[A-Za-z0-9_-]+)*\Z")
_LAST = {"U": "user", "M": "assistant", "R": "results"}
_PICK = {"C": bytes.maketrans(b"UMCRX", b"\0\0\1\0\0"), "R": bytes.maketrans(b"UMCRX", b"\0\0\0\1\0"),
         "UM": bytes.maketrans(b"UMCRX", b"\1\1\0\0\0")}
"""Letters -> one byte per content, 1 where it is a call (C), a response (R), a text turn (UM)."""
_NONES = itertools.repeat(None)
_ID, _NAME = operator.attrgetter("id"), operator.attrgetter("name")


def scan_contents(key: tuple[Any, ...], state: _State) -> bool | None:
    """The quick pass's answer for the contents whose `_content_key` is `key`, from a fresh `state` (filled
    as the pass fills it); None when the pass must read them (see the module)."""
    roles, counts, calls, responses, texts, thoughts, inlines = key[:7]
    size = len(roles)
    if not size or counts.count(1) != size:
        return None
    has_call = list(map(operator.is_not, calls, _NONES))
    has_response = list(map(operator.is_not, responses, _NONES))
    letters = "".join(map(_LETTERS.get, zip(roles, has_call, has_response, strict=True),
                          itertools.repeat("X")))
    order = _ORDER.match(letters)
    stop = order.end() if order is not None else 0
    raw = letters.encode()
    is_call, is_response = raw.translate(_PICK["C"]), raw.translate(_PICK["R"])
    try:
        fails = [stop, *_text_failures(raw.translate(_PICK["UM"]), texts, thoughts, inlines)]
        call_at = list(itertools.compress(range(size), is_call))
        response_at = list(itertools.compress(range(size), is_response))
        call_ids = list(map(_ID, itertools.compress(calls, is_call)))
        response_ids = list(map(_ID, itertools.compress(responses, is_response)))
        kind = ""
        if None in call_ids and not state.idless:
            if call_ids.count(None) != len(call_ids):
                return None  # calls with ids and without: the pass reads them
            fails.append(call_at[0])  # no call without an id passes toward this target
            call_keys: list[Any] = []
            response_keys: list[Any] = []
        elif None in call_ids:
            if call_ids.count(None) != len(call_ids):
                return None
            kind = "name"
            names = list(map(_NAME, itertools.compress(calls, is_call)))
            if "" in names:
                fails.append(call_at[names.index("")])
            call_keys = list(map(IDLESS.__add__, names))
            response_keys = [IDLESS + name if response_id is None and isinstance(name, str) and name else None
                             for response_id, name in zip(response_ids, map(_NAME, itertools.compress(
                                 responses, is_response)), strict=True)]
        else:
            if call_ids:
                kind = "id"
                if not _PLAIN_IDS.match("\n".join(call_ids)):  # (TypeError: an id that is not a string)
                    plain = list(map(operator.not_, map(_PLAIN_ID.match, call_ids)))
                    fails.append(call_at[plain.index(True)])
            if len(set(call_ids)) != len(call_ids):
                seen: set[str] = set()
                fails.append(next(at for at, call_id in zip(call_at, call_ids, strict=True)
                                  if call_id in seen or seen.add(call_id)))  # type: ignore[func-returns-value]
            call_keys, response_keys = call_ids, response_ids
    except TypeError:  # an id or a name that is not a string, a text that is not one
        return None
    paired = min(len(call_keys), len(response_keys))
    if call_keys[:paired] != response_keys[:paired]:
        fails.append(response_at[next(itertools.compress(itertools.count(), map(operator.ne, call_keys,
                                                                                 response_keys)))])
    failed = min(fails)
    ids = call_ids if kind == "id" else []
    if failed == size:  # the whole request in order: healthy, the state at its end
        _state(state, letters, size, ids, kind)
        state.last = _LAST[letters[-1]]
        return True
    _state(state, letters, failed, ids, kind)
    return False


def _text_failures(is_text: bytes, texts: Sequence[Any], thoughts: Sequence[Any], inlines: Sequence[Any]
                   ) -> list[int]:
    """Where a text turn (U, M) fails the pass's text rule (a non-blank string, not a thought, no inline
    data): the first failing position of each kind (TypeError: a text that is not a string)."""
    at = list(itertools.compress(range(len(is_text)), is_text))
    if not at:
        return []
    texts, thoughts, inlines = (list(itertools.compress(column, is_text)) for column in (texts, thoughts, inlines))
    fails = []
    blank = list(map(str.isspace, texts))  # (TypeError: a text that is not a string)
    if True in blank:
        fails.append(at[blank.index(True)])
    if "" in texts:
        fails.append(at[texts.index("")])
    if any(thoughts):
        fails.append(next(itertools.compress(at, thoughts)))
    if inlines.count(None) != len(inlines):
        fails.append(next(itertools.compress(at, map(operator.is_not, inlines, _NONES))))
    return fails


def _state(state: _State, letters: str, failed: int, ids: list[str], kind: str) -> None:
    """The state the pass leaves having read the contents before `failed` (the cut: the last user turn after
    an exchange before it; the call ids; what the calls carry)."""
    cut = letters.rfind("U", 1, failed)
    state.cut, state.cut_ids = (cut, letters.count("C", 0, cut) if ids else 0) if cut > 0 else (0, 0)
    state.seen = list(ids) if failed == len(letters) else ids[:letters.count("C", 0, failed)]
    state.known = set(state.seen)
    state.kind = kind


_COLUMNS["gemini-objects"] = scan_contents
