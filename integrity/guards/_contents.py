"""How the quick pass reads google.genai Contents whole, making their key in the same reading.

ADK hands its plugin new Content and Part objects on every model call, and a guard's first call reads
them all: the quick pass and, to remember the request, its key (`_fast._content_key`: each content's
role and part count, each part's call and response, and the text, thought and inline data of the parts
holding neither).  Reading a pydantic model's attribute is most of the cost, so each is read once, in one
of two ways (`read_whole`, registered with the quick pass as `_fast._WHOLE`; the ADK guard imports it):

- calls with ids (ADK toward a model that pairs calls by id): the key is made by C loops and the pass
  answered from it alone (`scan_contents`): each content becomes one letter (U a user text, M a model
  text, C a model call, R a user response, X anything else; made from byte columns), a regular
  expression reads the turn order, and the ids, names and texts are checked over columns (map, compress,
  set: C loops); a failure's position is looked up only when there is one.  It answers exactly what the
  pass answers and leaves the state the pass leaves (the cut, the call ids before it; when healthy,
  every call id and the last role), or None for what it does not read column-wise (a content of several
  parts, an id that is not a string, calls with ids and calls without in one request): the written-out
  pass decides those;
- calls without ids (ADK toward Gemini strips its own "adk-" ids, on new copies of the calls), where
  the column pass must read names and key them, and a request without calls: the written-out pass with
  each field the key holds appended as it is read (`walk_keyed`), ids checked plain and new all at once
  at its end; where it stops, the contents left are read into the key alone.

Which way is told by the request's first call.  Measured on the bench's histories (best of many, 100 /
1,000 / 10,000 contents), the keyed walk took 0.78-0.85 of the key and column pass toward Gemini at every
size, and with ids 0.88-0.98 at 100 and 10,000 but 1.12 at 1,000, where the column pass's few C loops over
lists that fit the cache are at their best: with ids the column pass stays.
`tests/test_guard_fast.py` holds both to the written-out pass (answer, state, key) on generated contents,
healthy and broken."""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

from ._fast import _IDLESS_TARGETS, _PLAIN_ID, _WHOLE, FAST_TARGETS, IDLESS, _content_key, _State, _walk_gemini_objects

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


def read_whole(entries: Sequence[Any], state: _State, key: Sequence[Any] | None) -> tuple[bool, Sequence[Any] | None]:
    """The quick pass over `entries` from the fresh `state` (left as the pass leaves it), and their key
    (None when it cannot be made), read one of the two ways (see the module); key: the entries' key,
    when the caller has it (then the pass answers from it)."""
    if key is None and _first_call_id(entries) is None:
        return walk_keyed(entries, state)
    if key is None:
        try:
            key = _content_key(entries)
        except (AttributeError, TypeError):
            key = None
    if key is not None:
        answer = scan_contents(tuple(key), state)
        if answer is not None:  # (None: the state is as it was given)
            return answer, key
    try:
        return _walk_gemini_objects(entries, 0, state), key
    except TypeError:  # parts that are not a list: not plainly healthy
        return False, key


def _first_call_id(entries: Sequence[Any]) -> Any:
    """The id of the first call in `entries` (None: none, a call without one, or not Contents)."""
    try:
        for content in entries:
            for part in content.parts or ():
                call = part.function_call
                if call is not None:
                    return call.id
    except (AttributeError, TypeError):
        return None
    return None


def walk_keyed(entries: Sequence[Any], state: _State) -> tuple[bool, Key | None]:
    """(what the quick pass answers for `entries` from the fresh `state`, left as it leaves it; their
    `_content_key`, None when that cannot be made)."""
    columns: tuple[list[Any], ...] = ([], [], [], [], [], [], [])
    stop = _pass(entries, state, *columns)
    seen = state.seen
    known = set(seen)
    if len(known) == len(seen) and (not seen or _PLAIN_IDS.match("\n".join(seen))):
        state.known = known
        if stop < 0:
            return True, (*columns, {})
    else:  # an id not plain or used twice: the pass stops at the first, read again as the pass reads it
        _fresh(state)
        _walk_gemini_objects(entries, 0, state)
        if stop < 0:
            stop = len(entries)
    roles, counts, calls, responses, texts, thoughts, inlines = columns
    del roles[stop:], counts[stop:]  # what the contents before the one the pass stopped at gave
    read = sum(counts)
    del calls[read:], responses[read:]
    plain = list(map(operator.is_, calls, responses)).count(True)
    del texts[plain:], thoughts[plain:], inlines[plain:]
    try:
        _rest(entries, stop, *columns)
    except (AttributeError, TypeError):  # not Contents with parts: `_content_key` fails too
        return False, None
    return False, (*columns, {})


def _rest(entries: Sequence[Any], stop: int, roles: list[Any], counts: list[Any], calls: list[Any],
          responses: list[Any], texts: list[Any], thoughts: list[Any], inlines: list[Any]) -> None:
    """The key's columns of the contents from `stop` on appended, as `_content_key` reads them (a loop, not
    its C loops: the pass stops near the end of a request, at what broke it, and a few contents cost less
    read this way)."""
    for content in entries[stop:]:
        roles.append(content.role)
        parts = content.parts
        counts.append(len(parts))
        for part in parts:
            call, response = part.function_call, part.function_response
            calls.append(call)
            responses.append(response)
            if call is response:
                texts.append(part.text)
                thoughts.append(part.thought)
                inlines.append(part.inline_data)


def _fresh(state: _State) -> None:
    """`state` as a new one for the same target."""
    state.kind, state.seen, state.known, state.cut, state.cut_ids = "", [], set(), 0, 0
    state.open_calls, state.last = None, "system"


def _pass(entries: Sequence[Any], state: _State, roles: list[Any], counts: list[Any], calls: list[Any],
          responses: list[Any], texts: list[Any], thoughts: list[Any], inlines: list[Any]) -> int:
    """The pass with the key's columns appended as it reads: -1 when healthy, else the index of the content
    it stopped at (the columns may hold part of that content: the caller cuts them back)."""
    open_calls, last, kind = state.open_calls, state.last, state.kind
    seen, idless = state.seen, state.idless
    add_seen = seen.append
    add_role, add_count, add_call, add_response = roles.append, counts.append, calls.append, responses.append
    add_text, add_thought, add_inline = texts.append, thoughts.append, inlines.append
    index = 0
    try:
        for index, content in enumerate(entries):
            role = content.role
            parts = content.parts
            if not parts:
                return index
            add_role(role)
            add_count(len(parts))
            if role == "model":
                if open_calls or last not in ("user", "results"):
                    return index
                made: list[str] = []
                for part in parts:
                    call = part.function_call
                    response = part.function_response
                    add_call(call)
                    add_response(response)
                    if call is response:  # neither a call nor a response
                        text, thought, inline = part.text, part.thought, part.inline_data
                        add_text(text)
                        add_thought(thought)
                        add_inline(inline)
                        if isinstance(text, str) and text.strip() and not thought and inline is None:
                            continue
                        return index
                    if call is None:
                        return index  # a response in a model turn
                    call_id = call.id
                    if call_id is None:
                        name = call.name
                        if not isinstance(name, str) or not name or not idless or kind == "id":
                            return index
                        kind = "name"
                        made.append(IDLESS + name)
                        continue
                    if kind == "name" or not isinstance(call_id, str) or not call_id or call_id[0] == IDLESS:
                        return index  # (an id that reads as no id: the full check decides)
                    kind = "id"
                    add_seen(call_id)  # plain and new: checked for every id at once, at the end
                    made.append(call_id)
                open_calls = made or None
                last = "assistant"
                continue
            if role != "user":
                return index
            answered = other = False
            for part in parts:
                call = part.function_call
                response = part.function_response
                add_call(call)
                add_response(response)
                if call is response:
                    text, thought, inline = part.text, part.thought, part.inline_data
                    add_text(text)
                    add_thought(thought)
                    add_inline(inline)
                    if answered or not (isinstance(text, str) and text.strip() and not thought and inline is None):
                        return index
                    other = True
                    continue
                if call is not None:
                    return index
                response_id = response.id
                if response_id is None:
                    name = response.name
                    response_id = IDLESS + name if isinstance(name, str) and name else None
                elif isinstance(response_id, str) and response_id[:1] == IDLESS:
                    return index
                if other or not isinstance(response_id, str):
                    return index
                if not answered and (open_calls is None or last not in ("assistant", "results")):
                    return index
                if not open_calls or response_id != open_calls[0]:
                    return index  # a stray, a duplicate, out of call order, or an earlier turn's
                del open_calls[0]
                answered = True
            if answered:
                last = "results"
                if not open_calls:
                    open_calls = None
                continue
            if open_calls:
                return index
            if last in ("assistant", "results"):  # a user turn after an exchange: a place to cut
                state.cut, state.cut_ids = index, len(seen)
            if last == "user":
                return index
            last = "user"
        return len(entries) if open_calls else -1  # (calls left open: not healthy, every content read)
    except (AttributeError, TypeError):  # not a Content, or parts that are not a list of Parts
        return index
    finally:
        state.open_calls, state.last, state.kind = open_calls, last, kind


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
    after_cut = bool(cut)
    earlier = set(before)
    kind = "id" if before else "?" if after_cut and idless else ""
    rows: list[tuple[Any, int, str, str]] = []  # (content, letter, id, name): letter C a call, R a response,
    called: set[str] = set()                    # A a model text, U a user text
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
                elif kind in ("name", "?") or type(call_id) is not str or not _PLAIN_ID.match(call_id) or \
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
    if turn is not None:
        if message is not None:
            out.append(message)
        else:
            out.append(receipt(turn[1], turn[2]))
            changed = True
    if not changed:
        return None  # not plainly healthy for another reason: the full check decides
    whole = listed[:cut] if type(listed) is list else list(listed[:cut])
    whole += out
    return whole, out, frozenset([found for found in ids if found[:1] != IDLESS])


_C, _R, _A, _U = 1, 2, 3, 4
_SYSTEM, _USER, _ASSISTANT, _RESULTS, _DROPPED = 0, 1, 2, 3, 4
