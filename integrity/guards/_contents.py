"""How the quick pass reads google.genai Contents whole, from their key; and the direct repair of ADK's
one-part Contents.

ADK hands its plugin new Content and Part objects on every model call, and a guard's first call reads
them all: the quick pass and, to remember the request, its key (`_fast._content_key`: each content's
role and part count, each part's call and response, and the text, thought and inline data of the parts
holding neither).  Reading a pydantic model's attribute is most of the cost, so each is read once
(`read_whole`, registered with the quick pass as `_fast._WHOLE`; the ADK guard imports it): the key is
made by C loops and the pass answered from it alone (`scan_contents`): each content becomes one letter
(U a user text, M a model text, C a model call, R a user response, X anything else; made from byte
columns), a regular expression reads the turn order, and the ids, names and texts are checked over
columns (map, compress, set: C loops); calls without ids (ADK toward Gemini strips its own "adk-" ids)
are paired with their responses by name, the two columns of names compared at once; a failure's
position is looked up only when there is one.  It answers exactly what the pass answers and leaves the
state the pass leaves (the cut, the call ids before it; when healthy, every call id and the last role),
or None for what it does not read column-wise (a content of several parts, an id or a name that is not
a string, calls with ids and calls without in one request): the written-out pass decides those.

Until the fourth round, requests whose calls carry no id were read by a written-out pass that made the
key as it went (`walk_keyed`): with the names compared as they are (not each made a key first) the
column pass took 0.83 of its time at 1,000 contents and about the same at 100 and 10,000 (best of 9-25
timings each, the bench's histories), so it reads every request now.
`tests/test_guard_fast.py` holds it to the written-out pass (answer, state, key) on generated contents,
healthy and broken.

`repair_window` is what `_native.native_repair` answers for Contents of one part each, written for them
(see its docstring)."""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

from ._fast import (
    _IDLESS_TARGETS,
    _WHOLE,
    FAST_TARGETS,
    IDLESS,
    _content_key,
    _State,
    _walk_gemini_objects,
    plain_id,
    plain_ids,
)

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
_LAST = {ord("U"): "user", ord("M"): "assistant", ord("R"): "results"}
_PICK = {"C": bytes.maketrans(b"UMCRX", b"\0\0\1\0\0"), "R": bytes.maketrans(b"UMCRX", b"\0\0\0\1\0"),
         "UM": bytes.maketrans(b"UMCRX", b"\1\1\0\0\0")}
"""Letters -> one byte per content, 1 where it is a call (C), a response (R), a text turn (UM)."""
_NONES = itertools.repeat(None)
Key = tuple[Any, ...]
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
            if not set(map(type, names)) <= {str}:
                return None  # a call's name that is not a string: the pass reads them
            if "" in names:
                fails.append(_nth(is_call, names.index("")))
            response_names = list(map(_NAME, itertools.compress(responses, is_response)))
            if response_ids.count(None) == len(response_ids) and "" not in response_names and set(map(
                    type, response_names)) <= {str}:  # every response without an id, named (C loops)
                # keyed by their names alone: IDLESS + a == IDLESS + b exactly when a == b
                call_keys, response_keys = names, response_names
            else:
                call_keys = list(map(IDLESS.__add__, names))
                response_keys = [IDLESS + name if response_id is None and isinstance(name, str) and name else None
                                 for response_id, name in zip(response_ids, response_names, strict=True)]
        else:
            if call_ids:
                kind = "id"
                # (TypeError: an id that is not a string)
                if not plain_ids(state.target, "gemini").match("\n".join(call_ids)):
                    plain = list(map(operator.not_, map(state.plain, call_ids)))
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


def read_whole(entries: Sequence[Any], state: _State, key: Sequence[Any] | None) -> tuple[bool, Sequence[Any] | None]:
    """The quick pass over `entries` from the fresh `state` (left as the pass leaves it), and their key
    (None when it cannot be made): the key made by C loops and the pass answered from it (`scan_contents`),
    or where that does not answer, the written-out pass; key: the entries' key, when the caller has it."""
    if key is None:
        try:
            key = _content_key(entries)
        except (AttributeError, TypeError):  # not Contents with parts
            key = None
    if key is not None:
        answer = scan_contents(tuple(key), state)
        if answer is not None:  # (None: the state is as it was given)
            return answer, key
    try:
        return _walk_gemini_objects(entries, 0, state), key
    except TypeError:  # parts that are not a list: not plainly healthy
        return False, key


_WHOLE["gemini-objects"] = read_whole


def repair_window(listed: Sequence[Any], cut: int, before: Sequence[str], target: str | None,
                  receipt: Callable[[str, str], Any]) -> tuple[list[Any], list[Any], frozenset[str]] | None:
    """What `_native.native_repair` answers for google.genai Contents of one part each (ADK's requests: a text,
    a call or a response per content), written for them: (the whole request repaired, its part from the cut
    on, every call and response id of that part); None for anything else, or anything the direct repair
    leaves to the pipeline (then the caller asks native_repair, which decides).  receipt(call id, name): the
    results turn answering one call with the interrupted receipt (a call without an id: its id is IDLESS and
    the name).  `native_repair` reads each entry through the general readers and plans turns of many calls
    and results; a first repair of ADK's request paid 12-20 µs for it over a window of six contents, a
    third of its fixed cost (`tests/test_guard_adk_first.py` holds the two equal on generated windows)."""
    idless = target in _IDLESS_TARGETS
    if target not in FAST_TARGETS:
        return None
    plain = plain_id(target, "gemini").match  # an id the target refuses (too long): the pipeline renames it
    after_cut = bool(cut)
    earlier = set(before)
    kind = "id" if before else "?" if after_cut and idless else ""
    rows: list[tuple[Any, int, str, str]] = []  # (content, letter, id, name): letter C a call, R a response,
    called: set[str] = set()                    # A a model text, U a user text (and END last)
    ids: set[str] = set()
    try:
        for content in listed[cut:]:
            parts = content.parts
            if type(parts) is not list or len(parts) != 1:
                return None
            part = parts[0]
            role = content.role
            call = part.function_call
            if call is not None:
                call_id, name = call.id, call.name
                args = call.args
                if role != "model" or not isinstance(name, str) or not (args is None or isinstance(args, dict)):
                    return None
                if call_id is None:
                    if not name or not idless or kind == "id":
                        return None
                    kind = "name"
                    call_id = IDLESS + name
                elif kind in ("name", "?") or type(call_id) is not str or not plain(call_id) or \
                        call_id in called or call_id in earlier:
                    return None  # (a plain id never starts with IDLESS)
                else:
                    kind = "id"
                    called.add(call_id)
                ids.add(call_id)
                rows.append((content, _C, call_id, name))
                continue
            response = part.function_response
            if response is not None:
                response_id = response.id
                if response_id is None:
                    name = response.name
                    if type(name) is not str or not name:
                        return None
                    response_id = IDLESS + name
                elif not isinstance(response_id, str) or response_id[:1] == IDLESS:
                    return None
                if role != "user":
                    return None
                ids.add(response_id)
                rows.append((content, _R, response_id, ""))
                continue
            text = part.text
            if not (isinstance(text, str) and text.strip() and not part.thought and part.inline_data is None):
                return None
            if role == "model":
                rows.append((content, _A, "", ""))
            elif role == "user":
                rows.append((content, _U, "", ""))
            else:
                return None
    except (AttributeError, TypeError):
        return None
    out: list[Any] = []
    changed = False
    last = _RESULTS if after_cut else _SYSTEM
    turn: tuple[Any, str, str] | None = None  # the open call turn: (its content, call id, name)
    message: Any = None  # the response kept for it
    rows.append((None, _END, "", ""))  # the end closes the open turn, as any content but a response does
    for content, letter, found, name in rows:
        if letter == _R:
            stray = found[:1] != IDLESS and found not in called and found not in earlier
            if turn is None or last not in (_ASSISTANT, _RESULTS):
                if not stray:
                    return None
                changed = True
                if last == _ASSISTANT:
                    last = _DROPPED  # the turn's text ended here: only a user turn may follow
                continue
            last = _RESULTS
            if (message is not None and found == turn[1]) or stray:  # a repeated result, or a stray: dropped
                if found[:1] == IDLESS:
                    return None  # a repeat paired by name: the pipeline may give it to an earlier call of that name
                changed = True
                continue
            if message is not None or found != turn[1]:
                return None  # an answer out of call order, or another turn's
            message = content
            continue
        if turn is not None:
            if message is not None:
                out.append(message)
            else:
                out.append(receipt(turn[1], turn[2]))
                changed = True
            turn = message = None
            if last == _ASSISTANT:
                last = _RESULTS
        if letter == _END:
            break
        if letter == _U:
            if last == _USER:
                return None
            last = _USER
        else:
            if last not in (_USER, _RESULTS):
                return None
            if letter == _C:
                turn = (content, found, name)
            last = _ASSISTANT
        out.append(content)
    if not changed:
        return None  # not plainly healthy for another reason: the full check decides
    whole = listed[:cut] if type(listed) is list else list(listed[:cut])
    whole += out
    return whole, out, frozenset([found for found in ids if found[:1] != IDLESS])


_C, _R, _A, _U, _END = 1, 2, 3, 4, 5
_SYSTEM, _USER, _ASSISTANT, _RESULTS, _DROPPED = 0, 1, 2, 3, 4
