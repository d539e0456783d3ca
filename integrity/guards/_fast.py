"""A conservative health test on native messages, so a healthy request costs one pass and no copy.

A guard runs before every model call, and almost every request is healthy.  Reading it into the
engine's form and running the pipeline costs far more than the runtime's own work, so each guard first
asks `plainly_healthy` (through its `HealthyMemo`, which reads only what was added since the last
healthy request): one pass over the runtime's messages that answers True only for the simplest
legal shape, the one every provider accepts:

- system messages only at the start, then turns alternating user / assistant, starting with a user
  turn; a results turn follows its assistant turn and may be followed by the next assistant turn or a
  user turn (every provider here accepts both);
- every assistant turn has content or calls; every call has a plain id ([A-Za-z0-9_-]+, unique in the
  request, no longer than the target takes: `plain_id`) and is answered exactly once by the results
  turn right after it, in call order, before
  anything else; or, in Gemini contents going to Gemini (or judged by the universal invariants), no
  call and no response of the request has an id, and each call is answered by a response of its
  name, in call order, in the turn right after it (ADK removes its own "adk-" ids before a request
  to a Gemini model: the full check pairs such calls by order and name, and finds them healthy);
- no result anywhere else, no call left open at the end, nothing the test does not know (an unknown
  item type, an empty text block, a Gemini call without an id...);
- no Responses item id twice, and nothing the target's bounds refuse (integrity.guards._bounds: its limit
  on one string, its rule on tool names, the object its calls' arguments must be, the text its error
  results must hold).

Anything else answers False and the guard runs the full check, which decides.  So this test can only
make the guard faster, never change what it sends: `tests/test_guard_fast.py` checks on generated
histories, for every provider it is used for, that True implies the full check finds the request
healthy.  Providers with id rules of their own (Mistral's nine-character ids, Bedrock) never take it.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..formats.openai_responses import AGENTS_PLACEHOLDER_ID, ITEM_ID_PREFIXES, foreign_item_id
from ._bounds import bound_for

FAST_TARGETS = frozenset({None, "openai-chat", "openai-responses", "anthropic", "gemini", "gemini-2"})
_PLAIN_ID = re.compile(r"[A-Za-z0-9_-]+\Z")


@functools.cache
def plain_id(target: str | None, format: str = "") -> re.Pattern[str]:
    """The plain ids the quick pass takes toward `target`: letters, digits, _ and -, and no longer than the
    target's id rule allows (OpenAI Chat 40 characters, Responses 64: their modules' limits).  With no target
    the full check judges by the provider the request's format implies (integrity.target_provider: an OpenAI
    Chat request, OpenAI Chat), so its limit holds too.  A longer id fails the pass, and the full check
    renames it: the quick pass must never take what the full check refuses."""
    from ..providers.openai_chat import MAX_ID
    from ..providers.openai_responses import MAX_CALL_ID

    limits = {"openai-chat": MAX_ID, "openai-responses": MAX_CALL_ID}
    limit = limits.get(target if target is not None else format)
    return _PLAIN_ID if limit is None else re.compile(rf"[A-Za-z0-9_-]{{1,{limit}}}\Z")


def plain_ids(target: str | None, format: str = "") -> re.Pattern[str]:
    """plain_id's test for many ids at once, joined by newlines (one regex run over a column of ids)."""
    return _plain_ids(plain_id(target, format).pattern[:-2])


@functools.cache
def _plain_ids(one: str) -> re.Pattern[str]:
    return re.compile(rf"{one}(?:\n{one})*\Z")
IDLESS = "\0"
"""What a reader puts before a call's (or a response's) name when it has no id: it then pairs by name, in order."""
_IDLESS_TARGETS = frozenset({None, "gemini", "gemini-2"})

# One entry as the test sees it: (role, call ids, result ids, empty); role is "system", "user",
# "assistant" or "results".  None: a shape the test does not know (the full check decides).
Entry = tuple[str, tuple[str, ...], tuple[str, ...], bool]


def plainly_healthy(entries: Iterable[Any], format: str, target: str | None) -> bool:
    """True only when the request is healthy for `target` by the simple rules above (see the module)."""
    return scan(entries, format, target)[0]


class _State:
    """Where a pass over a request stands: the call ids seen (in order, and as a set), the last cut, the
    calls still open and the role of the previous turn; a pass stopped at a healthy end can go on (the
    lists a pass makes are its own: a healthy end leaves no call open)."""

    __slots__ = ("bound", "cut", "cut_ids", "idless", "item_ids", "items", "kind", "known", "last", "open_calls",
                 "plain", "seen", "target")

    def __init__(self, target: str | None, format: str = "") -> None:
        # whether calls without ids may pass (see the module)
        self.idless = target in _IDLESS_TARGETS and format in ("gemini", "gemini-objects")
        self.target = target
        self.plain = plain_id(target, format).match  # an id the target takes (its pattern and length)
        self.bound = bound_for(target, format)  # what its rules bound besides shape (integrity.guards._bounds)
        self.kind = ""  # what the request's calls carry so far: "" nothing yet, "id" ids, "name" no ids
        self.seen: list[str] = []
        self.known: set[str] = set()
        self.items: list[str] = []  # Responses: the item ids read, in order (no two items may share one)
        self.item_ids: set[str] = set()
        self.cut = 0
        self.cut_ids = 0
        self.open_calls: list[str] | None = None  # the calls of the last assistant turn still unanswered
        self.last = "system"  # the role of the previous turn


def scan(entries: Iterable[Any], format: str, target: str | None) -> tuple[bool, int, list[str]]:
    """(plainly healthy, cut, the call ids before the cut) in one pass.

    cut: the index of the last user turn the pass reached with the rules holding up to it, no call
    open and at least one exchange before it (0 when none): the entries before it are a plainly
    healthy request on their own, and a repair that starts at a user turn may leave them alone.
    A plainly healthy request needs no repair: (True, 0, []).
    """
    if target not in FAST_TARGETS or not _has_pass(format):
        return False, 0, []
    state = _State(target, format)
    return _answer(_whole(entries, format, state, keyed=False)[0], state)


def _whole(entries: Iterable[Any], format: str, state: _State, key: Sequence[Any] | None = None,
           keyed: bool = True) -> tuple[bool, Sequence[Any] | None]:
    """A whole pass from a fresh `state`, and the key of the entries (`_KEYS`) when it took one: google.genai
    Contents are read by the reading registered for the format (`_WHOLE`: integrity.guards._contents, which
    the ADK guard imports), which makes their key in the same reading or answers from it.  key: the entries'
    key, when the caller has it; keyed: whether the caller wants the key (a HealthyMemo does, to remember
    the request)."""
    whole = _WHOLE.get(format) if keyed or key is not None else None
    if whole is not None and isinstance(entries, Sequence):
        if state.bound is not None and state.bound(entries):
            return False, None
        return whole(entries, state, key)
    return _walk(entries, 0, format, state), key


def _has_pass(format: str) -> bool:
    """Whether the quick pass reads `format`: through its one-entry reader, or a pass a guard module
    registered for objects no one-entry reader fits (`_PASSES`)."""
    return format in _READERS or format in _PASSES


def _answer(healthy: bool, state: _State) -> tuple[bool, int, list[str]]:
    return (True, 0, []) if healthy else (False, state.cut, state.seen[:state.cut_ids])


def _walk(entries: Iterable[Any], start: int, format: str, state: _State) -> bool:
    """Go on with the pass from entry number `start` (the entries given are those from there on);
    False as soon as a rule fails.  `state` is left where the pass stopped."""
    special = _WALKERS.get(format) or _PASSES.get(format)
    if special is not None:
        return special(entries, start, state)
    return _walk_general(entries, start, format, state)


def _walk_general(entries: Iterable[Any], start: int, format: str, state: _State) -> bool:
    """`_walk` through the format's reader (`_READERS`): one entry tuple per native entry."""
    if state.bound is not None:
        entries = entries if type(entries) is list else list(entries)
        if state.bound(entries):
            return False
    read = _READERS[format]
    open_calls, last = state.open_calls, state.last
    merge_assistant = format == "openai-responses"  # a Responses turn is several items (reasoning, message, calls)
    stored = -2  # Responses: the index of the last reasoning item with an id (as _walk_responses)
    healthy = False
    try:
        for index, native in enumerate(entries, start):
            entry = read(native)
            if entry is None:
                return False
            if merge_assistant:
                if stored == index - 1 and native.get("type") in (None, "message") and _without_id(native):
                    return False
                if not _new_item(native, state):
                    return False
                if native.get("type") == "reasoning" and not _without_id(native):
                    stored = index
            role, calls, results, empty = entry
            if role == "system":
                if last != "system":
                    return False
                continue
            if role == "results":
                if not results or open_calls is None or last not in ("assistant", "results"):
                    return False
                for call_id in results:
                    if not open_calls or call_id != open_calls[0]:
                        return False  # a stray, a duplicate, out of call order, or an earlier turn's
                    del open_calls[0]
                last = "results"
                if not open_calls:
                    open_calls = None
                continue
            if role == "assistant" and merge_assistant and last == "assistant":
                if empty or not _new_ids(calls, state):
                    return False
                if calls:
                    open_calls = [*(open_calls or []), *calls]
                continue
            if open_calls:
                return False  # something other than a result while calls are open
            if role == "assistant":
                if last not in ("user", "results") or empty or not _new_ids(calls, state):
                    return False
                open_calls = list(calls) if calls else None
                last = "assistant"
                continue
            if last in ("assistant", "results"):  # a user turn after an exchange: a place to cut
                state.cut, state.cut_ids = index, len(state.seen)
            if last == "user" or empty:
                return False
            last = "user"
        healthy = not open_calls
        return healthy
    finally:
        state.open_calls, state.last = open_calls, last


_BY_VALUE = frozenset({"openai-chat", "openai-responses", "anthropic", "gemini", "langchain"})
"""Formats of plain dicts: a remembered entry is matched by value (C's dict comparison, far cheaper than
reading it).  Message objects are matched by what `_KEYS` gives (LangChain's by identity: comparing
pydantic models costs more than reading them)."""

_ROLE, _PARTS = operator.attrgetter("role"), operator.attrgetter("parts")
_CALL, _RESPONSE = operator.attrgetter("function_call"), operator.attrgetter("function_response")
_TEXT_FIELDS = tuple(map(operator.attrgetter, ("text", "thought", "inline_data")))


def _content_key(contents: Sequence[Any]) -> tuple[Any, ...]:
    """What the quick test reads of google.genai Contents, gathered by C loops (attrgetter, map, chain):
    their roles, their part counts, each part's function_call and function_response, and the text,
    thought and inline_data of each part holding neither (the only parts whose text the test reads; a
    part's call and response are never the same object, so `is` finds the parts whose both are None).
    ADK hands the guard new Content and Part objects on every call (shallow copies made by
    `_copy_content_for_request`), but the calls, responses and texts in them are the session's own
    objects: two requests with equal keys read the same to the quick test, and comparing keys (identity
    first, in C) costs a third of reading the contents.  AttributeError / TypeError: not Contents with
    parts."""
    parts = list(map(_PARTS, contents))
    flat = list(itertools.chain.from_iterable(parts))
    calls, responses = list(map(_CALL, flat)), list(map(_RESPONSE, flat))
    plain = list(itertools.compress(flat, map(operator.is_, calls, responses)))
    views: dict[int, tuple[list[Any], ...]] = {}  # filled by `_view` when identity does not match the calls
    return (list(map(_ROLE, contents)), list(map(len, parts)), calls, responses,
            *(list(map(field, plain)) for field in _TEXT_FIELDS), views)


_ID, _NAME = operator.attrgetter("id"), operator.attrgetter("name")


def _same_contents(known: tuple[Any, ...], key: tuple[Any, ...]) -> bool:
    """Whether the contents whose `_content_key` is `key` start with those whose key is `known`: each part of
    `key` begins with the matching part of `known` (the texts' columns too: the parts holding neither a call
    nor a response are the same ones in both prefixes when their calls and responses match).  Calls and
    responses are compared by identity first;
    when that fails (toward Gemini, ADK replaces each call and response whose "adk-" id it strips by a
    new copy, on every request; and a session service may hand each invocation a deep copy of the session) by
    what the quick test reads of them (where they are, their ids and names) and by the payload each carries
    (the call's `args`, the response's `response`, equal by value): a request whose calls have the same
    texts, names and stripped ids but other arguments or results (another session's, or this one's after a
    rewind) never takes the remembered repair, which would send those of the request remembered."""
    for at in (0, 1, 4, 5, 6):  # roles, part counts, texts (a loop: any() over a generator costs as much)
        old = known[at]
        if old != key[at][:len(old)]:
            return False
    for at in (2, 3):
        old = known[at]
        if all(map(operator.is_, old, key[at][:len(old)])):
            continue
        # the view of the known key was made when it was the new one (a running agent's previous call)
        flags, ids, names, payloads = _view(known, at)
        new_flags, new_ids, new_names, new_payloads = _view(key, at)
        if flags != new_flags[:len(flags)] or ids != new_ids[:len(ids)] or names != new_names[:len(names)] or \
                payloads != new_payloads[:len(payloads)]:
            return False
    return True


_PAYLOADS = (operator.attrgetter("args"), operator.attrgetter("response"))
"""What a call (at=2) and a response (at=3) carry, read by `_view` (index at - 2)."""


def _view(key: tuple[Any, ...], at: int) -> tuple[list[Any], ...]:
    """What the quick test reads of the calls (at=2) or responses (at=3) of a `_content_key`: which parts
    hold one, their ids, names and payloads, in order; made once per key
    (kept in its last slot)."""
    views: dict[int, tuple[list[Any], ...]] = key[-1]
    view = views.get(at)
    if view is None:
        items = list(filter(None, key[at]))
        view = views[at] = (list(map(operator.not_, key[at])), list(map(_ID, items)), list(map(_NAME, items)),
                            list(map(_PAYLOADS[at - 2], items)))
    return view


_KEYS: dict[str, tuple[Callable[[Sequence[Any]], tuple[Any, ...]], Callable[[Any, Any], bool]]] = {
    "gemini-objects": (_content_key, _same_contents)}
"""Format -> the key a request's entries are remembered by, and how two keys are compared (default: the
entries themselves, by identity)."""


def _starts_with(format: str, known: Sequence[Any], count: int, entries: Sequence[Any],
                 whole: Sequence[Any] | None = None) -> tuple[bool, Sequence[Any] | None]:
    """Whether `entries` starts with the `count` entries whose key is `known` (see HealthyMemo), and the key
    of `entries` when reading it took one (None: `_key` makes it); whole: the key of `entries`, when the
    caller has it."""
    if format in _BY_VALUE:
        prefix = entries[:count]
        return (prefix if type(prefix) is list else list(prefix)) == known, None
    keyed = _KEYS.get(format)
    if keyed is None:
        return all(map(operator.is_, known, entries)), None
    key, same = keyed
    if whole is None:
        try:
            whole = key(entries)
        except (AttributeError, TypeError):
            return False, None
    return same(known, whole), whole


def _key(format: str, entries: Sequence[Any]) -> Sequence[Any]:
    """The key `entries` are remembered by: the format's `_KEYS`, else a list of the entries themselves
    (compared with a slice of the next request)."""
    keyed = _KEYS.get(format)
    return list(entries) if keyed is None else keyed[0](entries)


class HealthyMemo:
    """`plainly_healthy` for a guard that sees one conversation grow: the last request found healthy is
    remembered (a key of its entries, and where the pass stood after them), and a request that starts
    with the same entries is read only from where they end.

    Agent runtimes call the model again and again on the same history plus a few new messages, so a
    healthy request then costs one comparison per old entry, in C, and a pass over the new ones.
    LangChain hands the same message objects to every model call of a run (matched by identity); the
    OpenAI Agents SDK and LiteLLM's callers build new but equal dicts (a tuple comparison: identity
    first, then the dicts' values); ADK builds new Content and Part objects around the session's own
    calls, responses and texts (matched by `_content_key`).  What is kept is a tuple of references (to
    the entries, or for ADK to what `_content_key` gathers; nothing is copied) and the call ids.  The one
    assumption: an object the runtime already sent is not changed in place afterwards (runtimes replace
    a message to change it: LangGraph's reducer, the SDKs' item lists, ADK's copies); an equal new object
    is always read as what it is.
    """

    __slots__ = ("_last", "_lock", "_repaired", "_scanned", "repeated", "resumed")

    def __init__(self) -> None:
        self._last: tuple[str, str | None, int, Sequence[Any], _State] | None = None
        self._scanned: tuple[Sequence[Any], Sequence[Any]] | None = None  # the last request found broken, its key
        self._repaired: tuple[str, str | None, int, Sequence[Any], _State, list[Any], Any] | None = None
        self._lock = threading.Lock()
        self.resumed = 0
        """How many requests were read from the end of the remembered one (for tests and benchmarks)."""
        self.repeated = 0
        """How many requests took the remembered repair (`repeat`), for tests and benchmarks."""

    def __reduce__(self) -> tuple[type[HealthyMemo], tuple[()]]:
        """A copy or a pickle of a guard starts with an empty memo (what it remembers is a cache, and its
        lock cannot be copied)."""
        return HealthyMemo, ()

    def healthy(self, entries: Sequence[Any], format: str, target: str | None) -> bool:
        """What plainly_healthy(entries, format, target) answers, reading only the entries after the
        remembered healthy prefix when the request starts with it."""
        return self.scan(entries, format, target)[0]

    def scan(self, entries: Sequence[Any], format: str, target: str | None, key: Sequence[Any] | None = None
             ) -> tuple[bool, int, list[str]]:
        """What scan(entries, format, target) answers (a guard hands the cut to its repair, so a request
        that is not plainly healthy is not read twice), reading only the entries after the remembered
        healthy prefix when the request starts with it.  key: as for `first`."""
        return self.first(entries, format, target, False, key)  # type: ignore[return-value]  # (never None so)

    def first(self, entries: Sequence[Any], format: str, target: str | None, repeats: bool = True,
              key: Sequence[Any] | None = None) -> tuple[bool, int, list[str]] | None:
        """A guard's first step on a request: the quick pass (`scan`), which answers a healthy request at
        the cost of one pass and no copy; None while a repair is remembered, so the guard tries that first
        (RequestGuard.guard_objects: `repeat`, then the pass), rather than a pass that would read the whole
        request up to the defect only to find it broken again.  repeats=False: the pass whatever is
        remembered (`scan`).  (The pass is written here, not in `scan`: every model call of a running
        agent comes through here, and this spares it a call.)  key: the entries' key (`_KEYS`), when the guard
        made it reading them for itself (the ADK plugin, looking in its request for the calls it restores), so
        it is not made twice."""
        if repeats and self._repaired is not None:
            return None
        if target not in FAST_TARGETS or (format not in _READERS and format not in _PASSES):  # (_has_pass)
            return False, 0, []
        with self._lock:  # the remembered state is carried on in place (no copy), one request at a time
            last = self._last
            if last is not None and last[0] == format and last[1] == target and len(entries) >= last[2]:
                count = last[2]
                if format in _BY_VALUE:  # `_starts_with` for dicts, inline, without a copy of the request: the
                    # remembered key (a list only `_last` holds) takes the new entries, and is compared whole with
                    # the request (by value in C; the new entries are the same objects), then kept as its key
                    listed = entries if type(entries) is list else list(entries)
                    known: list[Any] = last[3]  # type: ignore[assignment]  # (a list: `_key` and this path make it)
                    tail = listed[count:]
                    known += tail
                    kept = False
                    try:
                        if known == listed:
                            self.resumed += 1
                            state = last[4]  # `_resumed`, inline (a call fewer on every model call of an agent)
                            mark = _mark(state)
                            special = _WALKERS.get(format) or _PASSES.get(format)
                            if special(tail, count, state) if special is not None else _walk_general(
                                    tail, count, format, state):
                                self._last = (format, target, len(known), known, state)
                                kept = True
                                return True, 0, []
                            return _put_back(state, mark)
                    finally:
                        if not kept:  # the remembered request as it was (and an error raised as it was)
                            del known[count:]
                else:
                    matched, key = _starts_with(format, last[3], count, entries, key)
                    if matched:
                        self.resumed += 1
                        return self._resumed(last, entries, entries[count:] if type(entries) is list else
                                             itertools.islice(entries, count, None), key)
        state = _State(target, format)  # a whole pass: a state of its own, outside the lock
        healthy, key = _whole(entries, format, state, key)
        if not healthy:
            self._scanned = (entries, key) if key is not None else None  # for `remember`, if it is repaired
            return _answer(False, state)
        self._last = (format, target, len(entries), key if key is not None else _key(format, entries), state)
        return True, 0, []

    def _resumed(self, last: tuple[str, str | None, int, Sequence[Any], _State], entries: Sequence[Any],
                 tail: Iterable[Any], key: Sequence[Any] | None) -> tuple[bool, int, list[str]]:
        """The pass carried on from the remembered state over `tail`, the entries after its prefix (under the
        lock); when it fails, the state is put back as it was (the ids it added removed), so the next request
        may still start from it.  key: the key of `entries`, when comparing took one."""
        format, target, count, _, state = last
        mark = _mark(state)
        special = _WALKERS.get(format) or _PASSES.get(format)  # (`_walk`, inline: a call fewer per request)
        if special(tail, count, state) if special is not None else _walk_general(tail, count, format, state):
            self._last = (format, target, len(entries), key if key is not None else _key(format, entries), state)
            return True, 0, []
        return _put_back(state, mark)


    @property
    def repairs(self) -> bool:
        """Whether a repair is remembered (read without the lock: `repeat` decides under it)."""
        return self._repaired is not None

    def repeat(self, entries: Sequence[Any], format: str, target: str | None, key: Sequence[Any] | None = None
               ) -> tuple[list[Any], Any] | None:
        """The answer sent for the last repaired request, carried on over the entries added since, and what
        `remember` was given with it; None when `entries` does not start with that request, or what follows
        it is not plainly healthy after the answer (then the guard checks the request again).

        A durable history that broke once stays broken, so every later model call of the session would
        repair the same defect again, reading every turn since: this reads only the new turns.  The answer
        is the one the guard's full repair of the whole request gives: the strict policy plans each turn
        from what comes before it and the turns it answers, the new turns answer nothing before them (their
        ids are new: `remember` adds every id of the repaired part, the dropped ones too), and they are
        plainly healthy after the answer (see the module).  key: the entries' key, when the guard has it (see
        `first`)."""
        if target not in FAST_TARGETS or not _has_pass(format):
            return None  # the new turns are read by the quick pass's rules, which only its targets may take
        with self._lock:
            last = self._repaired
            if last is None or last[0] != format or last[1] != target or len(entries) < last[2]:
                return None
            _, _, count, known, state, answer, said = last
            matched, key = _starts_with(format, known, count, entries, key)
            if not matched:
                return None
            if len(entries) > count:
                if format == "openai-responses" and _turn_item(entries[count - 1]) and _turn_item(entries[count]):
                    return None  # the new items carry on the remembered request's last turn (a call among its
                    # calls): read whole, they are one turn, which the answer, closed by its receipts, is not
                mark = _mark(state)
                if not _walk(itertools.islice(entries, count, None), count, format, state):
                    _restore(state, mark)  # put back as it was (see _resumed)
                    return None
                answer = [*answer, *itertools.islice(entries, count, None)]
            self._repaired = (format, target, len(entries), key if key is not None else _key(format, entries),
                              state, answer, said)
            self.repeated += 1
            return list(answer), said

    def remember(self, entries: Sequence[Any], format: str, target: str | None, answer: list[Any],
                 kept: tuple[int, list[str]], rest: tuple[Sequence[Any], str], ids: Iterable[str],
                 said: Any) -> None:
        """Remember `answer`, the repaired request sent for `entries` (in `format`), for `repeat`.  The answer
        as the quick pass reads it: `kept`, how many of the request's own entries come before the part the
        repair read (a plainly healthy prefix ending where no call is open: the quick pass's cut), with the
        call ids the quick pass saw in them; then `rest` (the entries written for that part, and their format).
        `ids`: every call and result id of the part the repair read, so a later turn reusing one is never
        taken as plainly healthy.  Nothing is remembered when the answer is not plainly healthy itself
        (the quick pass could not carry on from its end), nor for a target the quick pass does not serve (its
        rules would accept turns that target refuses: Bedrock's roles, Mistral's ids)."""
        if target not in FAST_TARGETS or not _has_pass(format):
            return
        state = _State(target, format)
        prefix, seen = kept
        if prefix:  # the quick pass read it already: its state at the cut, rebuilt without reading it again
            state.seen, state.known, state.last = list(seen), set(seen), "results"
            # calls without ids leave no trace in `seen` (_new_ids): with none seen, the prefix is taken to
            # have such calls, so a later call with an id fails the pass (the full check decides it)
            state.kind = "id" if seen else "name" if state.idless else ""
        piece, written = rest
        if not _walk(piece, prefix, written, state):
            return
        state.known.update(ids)  # after the pass: the answer's own calls are among them
        scanned, self._scanned = self._scanned, None
        key = scanned[1] if scanned is not None and (scanned[0] is entries or len(scanned[0]) == len(entries) and all(
            map(operator.is_, scanned[0], entries))) else _key(format, entries)  # the key the quick pass took
        with self._lock:
            self._repaired = (format, target, len(entries), key, state, list(answer), said)


def _turn_item(item: Any) -> bool:
    """Whether a Responses item belongs to an assistant turn (a call, reasoning, an assistant message): items of
    one turn follow one another, so a request cut after one may go on with more of the same turn."""
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    return kind in ("function_call", "reasoning") or (kind in (None, "message") and item.get("role") == "assistant")


Mark = tuple[int, int, int, "list[str] | None", str, str, int]


def _mark(state: _State) -> Mark:
    """Where a remembered state stands, to put it back there (`_restore`) when a pass carried on from it fails."""
    return (len(state.seen), state.cut, state.cut_ids, state.open_calls, state.last, state.kind, len(state.items))


def _restore(state: _State, mark: Mark) -> None:
    """The state put back as it was at `mark`: the call ids and item ids the pass added removed."""
    seen, items = state.seen, state.items
    state.known.difference_update(seen[mark[0]:])
    del seen[mark[0]:]
    state.item_ids.difference_update(items[mark[6]:])
    del items[mark[6]:]
    state.cut, state.cut_ids, state.open_calls, state.last, state.kind = mark[1:6]


def _put_back(state: _State, mark: Mark) -> tuple[bool, int, list[str]]:
    """The answer of a pass carried on from a remembered `state` that failed, and the state put back as it was
    at `mark` (the ids the pass added removed), so the next request may still start from it."""
    answer = _answer(False, state)
    _restore(state, mark)
    return answer


def _new_ids(calls: tuple[str, ...], state: _State) -> bool:
    """True when every call id is plain and not used before in the request (and records them), or every
    call of the request so far has no id where that may pass (see the module)."""
    known = state.known
    for call_id in calls:
        if call_id[:1] == IDLESS:
            if not state.idless or state.kind == "id":
                return False
            state.kind = "name"
            continue
        if state.kind == "name" or not state.plain(call_id) or call_id in known:
            return False
        state.kind = "id"
        known.add(call_id)
        state.seen.append(call_id)
    return True


def _text_empty(content: Any) -> bool:
    """Whether a message's content carries nothing: none, blank text, no blocks, or blocks of blank text alone
    (the full check decides such a message: the strict view leaves out an interrupted frame of blank text, and
    Anthropic refuses blank text); or is an object, which no provider takes as content (OpenAI Chat refuses
    it: content_not_text), so the full check decides that one too."""
    if content is None:
        return True
    if isinstance(content, str):
        return not content.strip()
    if isinstance(content, list):
        return all(type(block) is dict and block.get("type") in _TEXT_BLOCKS and type(block.get("text")) is str
                   and not block["text"].strip() for block in content) or _empty_block(content)
    return type(content) is dict


def _empty_block(content: Any) -> bool:
    """Whether a content list holds a text block whose text is blank, beside anything (Anthropic refuses an empty
    one, Bedrock a whitespace one too, and the strict view planned for them leaves it out: the full check decides
    such a message, calls or none)."""
    return isinstance(content, list) and any(
        type(block) is dict and block.get("type") in _TEXT_BLOCKS and type(block.get("text")) is str
        and not block["text"].strip() for block in content)


def _empty(content: Any, ids: Any) -> bool:
    """What the full check decides of an assistant message: with calls, one holding an empty text block or content
    that is an object (content_not_text); without, one carrying nothing (_text_empty)."""
    return (_empty_block(content) or type(content) is dict) if ids else _text_empty(content)


_TEXT_BLOCKS = frozenset({"text", "input_text", "output_text"})
"""The blocks of text alone (Chat, Anthropic, Responses)."""


def _untyped(content: Any) -> bool:
    """A content list holding a part without `type` (OpenAI Chat refuses it: content_part_type_missing; the full check
    decides, and its view sends a part of a text alone typed)."""
    return type(content) is list and any(type(part) is dict and "type" not in part for part in content)


def _chat(message: Any) -> Entry | None:
    if not isinstance(message, dict):
        return None
    role = message.get("role")
    content = message.get("content")
    if type(content) is list and _untyped(content):
        return None
    if role in ("system", "developer"):  # (none or null content: OpenAI refuses it, content_missing; an image,
        # image_not_user: the full check decides)
        return ("system", (), (), False) if content is not None and not (
            type(content) is list and _image(content)) else None
    if role == "user":
        return ("user", (), (), _text_empty(content))
    if role == "assistant":
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            return None
        ids = []
        for call in calls:
            if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not _text_arguments(call):
                return None
            ids.append(call["id"])
        if message.get("function_call"):
            return None
        return ("assistant", tuple(ids), (), _empty(message.get("content"), ids))
    if role == "tool":
        call_id = message.get("tool_call_id")
        return ("results", (), (call_id,), False) if isinstance(call_id, str) and (type(
            content) is str or type(content) is list and not _image(content)) else None  # (an object, none or null,
        # or an image, which OpenAI takes from a user alone: the full check decides)
    return None


def _image(content: list[Any]) -> bool:
    """A content list holding an `image_url` part: OpenAI Chat refuses it in a tool or system message
    (image_not_user); the full check decides."""
    return any(type(part) is dict and part.get("type") == "image_url" for part in content)


def _text_arguments(call: dict[str, Any]) -> bool:
    """A Chat call typed and with its arguments as text, as OpenAI takes it: one without `type` or whose arguments
    a writer stored as the parsed object (OpenAI Chat refuses them: tool_call_type_missing, arguments_not_text) is
    left to the full check."""
    function = call.get("function")
    return isinstance(function, dict) and isinstance(function.get("arguments"), str) and "type" in call


_RESPONSES_ASSISTANT = frozenset({"reasoning"})


def _responses(item: Any) -> Entry | None:
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "function_call":
        call_id = item.get("call_id")
        # (arguments stored as the parsed object: the API refuses them, arguments_not_text; the full check decides)
        return ("assistant", (call_id,), (), False) if isinstance(call_id, str) and type(
            item.get("arguments")) is str else None
    if kind == "function_call_output":
        call_id = item.get("call_id")
        # (an output stored as an object, or none: the API refuses it, output_not_text; the full check decides)
        return ("results", (), (call_id,), False) if isinstance(call_id, str) and type(
            item.get("output")) in (str, list) else None
    if kind in _RESPONSES_ASSISTANT:
        return ("assistant", (), (), False)
    if kind not in (None, "message"):
        return None
    role = item.get("role")
    if role in ("system", "developer"):
        return ("system", (), (), False)
    if role == "user":
        return ("user", (), (), _text_empty(item.get("content")))
    if role == "assistant":
        return ("assistant", (), (), _text_empty(item.get("content")))
    return None


def _anthropic(message: Any) -> Entry | None:
    if not isinstance(message, dict):
        return None
    role = message.get("role")
    content = message.get("content")
    if isinstance(content, str):
        return (role, (), (), not content.strip()) if role in ("user", "assistant") else None
    if not isinstance(content, list) or not content:
        return None
    calls: list[str] = []
    results: list[str] = []
    other = False
    for block in content:
        if not isinstance(block, dict):
            return None
        kind = block.get("type")
        if kind == "tool_use" and role == "assistant":
            if not isinstance(block.get("id"), str) or not isinstance(block.get("input"), dict):
                return None  # (input missing or not an object: Anthropic refuses it; the full check decides)
            calls.append(block["id"])
        elif kind == "tool_result" and role == "user":
            if other or not isinstance(block.get("tool_use_id"), str) or type(block.get("content")) is dict \
                    or _untyped(block.get("content")):
                return None  # text before a result, or content an object Anthropic refuses (or a block of it without
                # its type: tool_result_content_type_missing): the full check decides
            results.append(block["tool_use_id"])
        elif kind == "text":
            if not isinstance(block.get("text"), str) or not block["text"].strip() or calls:
                return None  # (a block after a call: Anthropic refuses it, tool_use_not_last; the full check decides)
            other = True
        elif kind in ("image", "document", "thinking", "redacted_thinking"):
            if calls:
                return None
            other = True
        else:
            return None
    return _turn(role == "assistant", role == "user", calls, results, other)


def _turn(assistant: bool, user: bool, calls: list[str], results: list[str], other: bool) -> Entry | None:
    """The entry a message of blocks makes (Anthropic's content, Gemini's parts): an assistant turn with its
    calls, a user turn of results only, or a plain user turn; None when results share it with other parts
    or the role is neither (the full check decides)."""
    if assistant:
        return ("assistant", tuple(calls), (), False)
    if user:
        if results and other:
            return None
        return ("results", (), tuple(results), False) if results else ("user", (), (), False)
    return None


def _no_id(name: Any) -> str | None:
    """The key of a Gemini call or response without an id: IDLESS and its name (None: no usable name)."""
    return IDLESS + name if isinstance(name, str) and name else None


def _gemini(content: Any) -> Entry | None:
    if not isinstance(content, dict):
        return None
    role = content.get("role")
    parts = content.get("parts")
    if not isinstance(parts, list) or not parts:
        return None
    calls: list[str] = []
    results: list[str] = []
    other = False
    for part in parts:
        if not isinstance(part, dict):
            return None
        if "functionCall" in part:
            call = part["functionCall"]
            if role != "model" or not isinstance(call, dict) or not isinstance(call.get("args", {}), dict):
                return None  # (args that are no object: Gemini refuses them; the full check decides)
            call_id = call["id"] if "id" in call else _no_id(call.get("name"))
            if not isinstance(call_id, str) or not call_id or (call_id[0] == IDLESS and "id" in call):
                return None
            calls.append(call_id)
        elif "functionResponse" in part:
            response = part["functionResponse"]
            if role != "user" or not isinstance(response, dict) or not isinstance(response.get("response", {}), dict):
                return None  # (a response that is no object: Gemini refuses it; the full check decides)
            response_id = response["id"] if "id" in response else _no_id(response.get("name"))
            if not isinstance(response_id, str) or (response_id[:1] == IDLESS and "id" in response):
                return None
            results.append(response_id)
        elif isinstance(part.get("text"), str) and part["text"].strip():
            other = True
        else:
            return None
    return _turn(role == "model", role == "user", calls, results, other)


_READERS: dict[str, Callable[[Any], Entry | None]] = {
    "openai-chat": _chat, "openai-responses": _responses, "anthropic": _anthropic, "gemini": _gemini,
}


def _langchain(message: Any) -> Entry | None:
    """A LangChain message object (read by its attributes: no dict is built)."""
    kind = getattr(message, "type", None)
    if kind == "human":
        return ("user", (), (), _text_empty(message.content))
    if kind == "system":
        return ("system", (), (), False)
    if kind == "ai":
        if getattr(message, "invalid_tool_calls", None):
            return None
        ids = tuple(call.get("id") for call in message.tool_calls)
        if not all(isinstance(call_id, str) for call_id in ids) or (ids and _block_after_call(message.content)):
            return None
        return ("assistant", ids, (), _empty(message.content, ids))
    if kind == "tool":
        call_id = getattr(message, "tool_call_id", None)
        return ("results", (), (call_id,), False) if isinstance(call_id, str) else None
    return None


_CALL_BLOCKS = frozenset({"tool_use", "tool_call", "function_call", "custom_tool_call", "tool_call_chunk",
                          "invalid_tool_call"})
"""The content blocks naming a call that LangChain's partner models send (formats.langchain._NAMING)."""


def _block_after_call(content: Any) -> bool:
    """Whether a LangChain AIMessage's content holds a block after a block naming a call: ChatAnthropic sends
    them in order and Anthropic refuses the call (tool_use_not_last), so the full check decides."""
    if type(content) is not list:
        return False
    calling = False
    for block in content:
        if type(block) is dict and block.get("type") in _CALL_BLOCKS:
            calling = True
        elif calling:
            return True
    return False


def _langchain_dict(entry: Any) -> Entry | None:
    """A LangChain message as `messages_to_dict` writes it: {"type": ..., "data": {...}}."""
    if not isinstance(entry, dict) or not isinstance(entry.get("data"), dict):
        return None
    kind, data = entry.get("type"), entry["data"]
    if kind == "human":
        return ("user", (), (), _text_empty(data.get("content")))
    if kind == "system":
        return ("system", (), (), False)
    if kind == "ai":
        calls = data.get("tool_calls") or []
        if data.get("invalid_tool_calls") or not isinstance(calls, list):
            return None
        ids: list[str] = []
        for call in calls:
            if not isinstance(call, dict) or not isinstance(call.get("id"), str) \
                    or not isinstance(call.get("args", {}), dict):
                return None  # (args that are no object: the full check decides)
            ids.append(call["id"])
        if ids and _block_after_call(data.get("content")):
            return None
        return ("assistant", tuple(ids), (), _empty(data.get("content"), ids))
    if kind == "tool":
        call_id = data.get("tool_call_id")
        return ("results", (), (call_id,), False) if isinstance(call_id, str) else None
    return None


def _gemini_object(content: Any) -> Entry | None:
    """A google.genai Content object, read by its attributes as `_gemini` reads its dict (no dict is built).

    Attributes are read directly (a Content and its Parts always have them; anything else is not one, and
    the full check decides): ADK hands the guard new Content objects on every call, so this read is the
    guard's whole cost there."""
    try:
        role = content.role
        parts = content.parts
        if not parts:
            return None
        calls: list[str] = []
        results: list[str] = []
        other = False
        for part in parts:
            call = part.function_call
            if call is not None:
                call_id = call.id
                if call_id is None:
                    call_id = _no_id(call.name)
                elif isinstance(call_id, str) and call_id[:1] == IDLESS:
                    return None  # an id that reads as no id: the full check decides
                if role != "model" or not isinstance(call_id, str) or not call_id:
                    return None
                calls.append(call_id)
                continue
            response = part.function_response
            if response is not None:
                response_id = response.id
                if response_id is None:
                    response_id = _no_id(response.name)
                elif isinstance(response_id, str) and response_id[:1] == IDLESS:
                    return None
                if role != "user" or not isinstance(response_id, str):
                    return None
                results.append(response_id)
                continue
            text = part.text
            if isinstance(text, str) and text.strip() and not part.thought and part.inline_data is None:
                other = True
                continue
            return None
    except AttributeError:
        return None
    return _turn(role == "model", role == "user", calls, results, other)


_READERS["langchain-objects"] = _langchain
_READERS["gemini-objects"] = _gemini_object
_READERS["langchain"] = _langchain_dict



def _new_item(item: dict[str, Any], state: _State) -> bool:
    """Whether a Responses item's id, if it has one, is a string no item before it in the request has (and records
    it): the API refuses an input holding one id twice ("Duplicate item found with id rs_…", a turn stored twice),
    and the full check sends the later copy without it or leaves it out, so such a request is not plainly
    healthy."""
    item_id = item.get("id")
    if item_id is None:
        return True
    if type(item_id) is not str or item_id in state.item_ids or foreign_item_id(item) is not None:
        return False  # (an id of another's namespace: item_id_prefix; the full check sends the item without it)
    state.item_ids.add(item_id)
    state.items.append(item_id)
    return True


def _without_id(item: dict[str, Any]) -> bool:
    """A Responses item sent without an id of its own: after a reasoning item with one, the API refuses such a
    message (reasoning_without_following_item), unless the request is sent with `"store": false`; the quick
    pass leaves it to the full check, which knows the request's envelope."""
    given = item.get("id")
    return not (type(given) is str and given)


_ID_PREFIXES, _PLACEHOLDER = ITEM_ID_PREFIXES, AGENTS_PLACEHOLDER_ID


def _walk_responses(entries: Iterable[Any], start: int, state: _State) -> bool:
    """`_walk` for OpenAI Responses items, with `_responses` and `_new_ids` written inline: the same rules,
    answers and state (tests/test_guard_fast.py checks it against the general pass), at about half the cost,
    because the OpenAI Agents SDK and LiteLLM's Responses calls read every item of a request never seen."""
    open_calls, last = state.open_calls, state.last
    known, seen, plain = state.known, state.seen, state.plain
    item_ids, items = state.item_ids, state.items
    stored = -2  # the index of the last reasoning item with an id (the API looks for the item that followed it)
    try:
        for index, item in enumerate(entries, start):
            if not isinstance(item, dict):
                return False
            item_id = item.get("id")
            kind = item.get("type")
            if item_id is not None:  # (`_new_item`, inline)
                if type(item_id) is not str or item_id in item_ids or not item_id.startswith(
                        _ID_PREFIXES.get(kind, "") if type(kind) is str else "msg" if kind is None else ""
                ) and item_id != _PLACEHOLDER:
                    return False  # (an id twice, or of another's namespace: item_id_prefix)
                item_ids.add(item_id)
                items.append(item_id)
            if kind == "function_call":
                call_id = item.get("call_id")
                if not isinstance(call_id, str) or not plain(call_id) or call_id in known or type(
                        item.get("arguments")) is not str:
                    return False  # (arguments as an object or null: the API refuses them; the full check decides)
                if last != "assistant":
                    if open_calls or last not in ("user", "results"):
                        return False
                    last = "assistant"
                known.add(call_id)
                seen.append(call_id)
                if open_calls is None:
                    open_calls = [call_id]
                else:
                    open_calls.append(call_id)
            elif kind == "function_call_output":
                call_id = item.get("call_id")
                if not isinstance(call_id, str) or open_calls is None or last not in ("assistant", "results") \
                        or call_id != open_calls[0] or type(item.get("output")) not in (str, list):
                    return False  # a stray, a duplicate, out of call order, an earlier turn's, or output_not_text
                del open_calls[0]
                last = "results"
                if not open_calls:
                    open_calls = None
            elif kind == "reasoning":
                if last != "assistant":
                    if open_calls or last not in ("user", "results"):
                        return False
                    last = "assistant"
                if not _without_id(item):
                    stored = index
            elif kind is None or kind == "message":
                if stored == index - 1 and _without_id(item):
                    return False  # a stored reasoning item's message sent without its id: the full check judges it
                role = item.get("role")
                if role == "user":
                    if open_calls:
                        return False
                    if last in ("assistant", "results"):  # a user turn after an exchange: a place to cut
                        state.cut, state.cut_ids = index, len(seen)
                    content = item.get("content")  # (`_text_empty`, inline for a string: a call fewer per turn)
                    if last == "user" or (not content.strip() if type(content) is str else _text_empty(content)):
                        return False
                    last = "user"
                elif role == "assistant":
                    content = item.get("content")
                    if not content.strip() if type(content) is str else _text_empty(content):
                        return False
                    if last != "assistant":
                        if open_calls or last not in ("user", "results"):
                            return False
                        last = "assistant"
                elif role in ("system", "developer"):
                    if last != "system":
                        return False
                else:
                    return False
            else:
                return False
        return not open_calls
    finally:
        state.open_calls, state.last = open_calls, last


def _walk_langchain(entries: Iterable[Any], start: int, state: _State) -> bool:
    """`_walk` for LangChain message objects, with `_langchain` and `_new_ids` written inline (the same
    rules, answers and state; tests/test_guard_fast.py checks it against the general pass), because a
    LangGraph thread the guard has not seen yet is read whole."""
    open_calls, last = state.open_calls, state.last
    known, seen, plain = state.known, state.seen, state.plain
    try:
        for index, message in enumerate(entries, start):
            kind = getattr(message, "type", None)
            if kind == "tool":
                call_id = getattr(message, "tool_call_id", None)
                if not isinstance(call_id, str) or open_calls is None or last not in ("assistant", "results") \
                        or call_id != open_calls[0]:
                    return False  # a stray, a duplicate, out of call order, or an earlier turn's
                del open_calls[0]
                last = "results"
                if not open_calls:
                    open_calls = None
            elif kind == "ai":
                if getattr(message, "invalid_tool_calls", None):
                    return False
                ids = [call.get("id") for call in message.tool_calls]
                if open_calls or last not in ("user", "results") or _empty(message.content, ids) \
                        or (ids and _block_after_call(message.content)):
                    return False
                for call_id in ids:
                    if not isinstance(call_id, str) or not plain(call_id) or call_id in known:
                        return False
                    known.add(call_id)
                    seen.append(call_id)
                open_calls = ids or None
                last = "assistant"
            elif kind == "human":
                if open_calls:
                    return False
                if last in ("assistant", "results"):  # a user turn after an exchange: a place to cut
                    state.cut, state.cut_ids = index, len(seen)
                if last == "user" or _text_empty(message.content):
                    return False
                last = "user"
            elif kind == "system":
                if last != "system":
                    return False
            else:
                return False
        return not open_calls
    finally:
        state.open_calls, state.last = open_calls, last


def _walk_chat(entries: Iterable[Any], start: int, state: _State) -> bool:
    """`_walk` for OpenAI Chat messages, with `_chat` and `_new_ids` written inline (the same rules, answers
    and state; tests/test_guard_fast.py checks it against the general pass): LiteLLM's chat requests."""
    open_calls, last = state.open_calls, state.last
    known, seen, plain = state.known, state.seen, state.plain
    try:
        for index, message in enumerate(entries, start):
            if not isinstance(message, dict):
                return False
            role = message.get("role")
            content = message.get("content")
            if type(content) is list and _untyped(content):
                return False  # (a part without its type: content_part_type_missing; the full check decides)
            if role == "tool":
                call_id = message.get("tool_call_id")
                if not isinstance(call_id, str) or open_calls is None or last not in ("assistant", "results") \
                        or call_id != open_calls[0] or not (type(content) is str or type(content) is list
                                                            and not _image(content)):
                    return False  # a stray, a duplicate, out of call order, an earlier turn's, or content_not_text
                    # (an object, none or null), or image_not_user
                del open_calls[0]
                last = "results"
                if not open_calls:
                    open_calls = None
            elif role == "assistant":
                calls = message.get("tool_calls") or []
                if not isinstance(calls, list):
                    return False
                ids = []
                for call in calls:
                    if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not _text_arguments(call):
                        return False
                    ids.append(call["id"])
                if message.get("function_call") or open_calls or last not in ("user", "results") or (
                        _empty(message.get("content"), ids)):
                    return False
                for call_id in ids:
                    if not plain(call_id) or call_id in known:
                        return False
                    known.add(call_id)
                    seen.append(call_id)
                open_calls = ids or None
                last = "assistant"
            elif role == "user":
                if open_calls:
                    return False
                if last in ("assistant", "results"):  # a user turn after an exchange: a place to cut
                    state.cut, state.cut_ids = index, len(seen)
                if last == "user" or _text_empty(message.get("content")):
                    return False
                last = "user"
            elif role in ("system", "developer"):
                if last != "system" or content is None or type(content) is list and _image(content):
                    return False  # (none or null: content_missing; an image: image_not_user; the full check decides)
            else:
                return False
        return not open_calls
    finally:
        state.open_calls, state.last = open_calls, last


def _walk_gemini_objects(entries: Iterable[Any], start: int, state: _State) -> bool:
    """`_walk` for google.genai Contents, with `_gemini_object`, `_turn` and `_new_ids` written inline (the
    same rules and answers; tests/test_guard_fast.py checks it against the general pass): ADK's requests,
    whose new tail is read on every model call and whole on the first.  Each attribute is read once and a
    content's parts are judged as they are read, by its role (a content failing half-way may leave its ids
    in the state: a pass that fails is put back or dropped by its caller, and its cut is never past it)."""
    open_calls, last, kind = state.open_calls, state.last, state.kind
    known, seen, plain, idless = state.known, state.seen, state.plain, state.idless
    try:
        for index, content in enumerate(entries, start):
            role = content.role
            parts = content.parts
            if not parts:
                return False
            if role == "model":
                if open_calls or last not in ("user", "results"):
                    return False
                calls: list[str] = []
                for part in parts:
                    call = part.function_call
                    if call is None:
                        if part.function_response is not None:
                            return False
                        text = part.text
                        if isinstance(text, str) and text.strip() and not part.thought and part.inline_data is None:
                            continue
                        return False
                    call_id = call.id
                    if call_id is None:
                        name = call.name
                        if not isinstance(name, str) or not name or not idless or kind == "id":
                            return False
                        kind = "name"
                        calls.append(IDLESS + name)
                        continue
                    if not isinstance(call_id, str) or not call_id or call_id[0] == IDLESS or kind == "name" \
                            or not plain(call_id) or call_id in known:
                        return False  # (an id that reads as no id: the full check decides)
                    kind = "id"
                    known.add(call_id)
                    seen.append(call_id)
                    calls.append(call_id)
                open_calls = calls or None
                last = "assistant"
                continue
            if role != "user":
                return False
            answered = other = False
            for part in parts:
                if part.function_call is not None:
                    return False
                response = part.function_response
                if response is None:
                    text = part.text
                    if answered or not (isinstance(text, str) and text.strip() and not part.thought
                                        and part.inline_data is None):
                        return False
                    other = True
                    continue
                response_id = response.id
                if response_id is None:
                    name = response.name
                    response_id = IDLESS + name if isinstance(name, str) and name else None
                elif isinstance(response_id, str) and response_id[:1] == IDLESS:
                    return False
                if other or not isinstance(response_id, str):
                    return False
                if not answered and (open_calls is None or last not in ("assistant", "results")):
                    return False
                if not open_calls or response_id != open_calls[0]:
                    return False  # a stray, a duplicate, out of call order, or an earlier turn's
                del open_calls[0]
                answered = True
            if answered:
                last = "results"
                if not open_calls:
                    open_calls = None
                continue
            if open_calls:
                return False
            if last in ("assistant", "results"):  # a user turn after an exchange: a place to cut
                state.cut, state.cut_ids = index, len(seen)
            if last == "user":
                return False
            last = "user"
        return not open_calls
    except AttributeError:
        return False
    finally:
        state.open_calls, state.last, state.kind = open_calls, last, kind


def within_bounds(walk: Callable[[Iterable[Any], int, _State], bool]) -> Callable[[Iterable[Any], int, _State], bool]:
    """A written-out pass that first holds the entries to the target's bounds (`_State.bound`: an entry that may
    hold a string or a tool name the target refuses is not plainly healthy; integrity.guards._bounds), once per
    pass, not per entry, and not at all toward a target without them."""
    @functools.wraps(walk)
    def walked(entries: Iterable[Any], start: int, state: _State) -> bool:
        if state.bound is not None:
            entries = entries if type(entries) is list else list(entries)
            if state.bound(entries):
                return False
        return walk(entries, start, state)

    return walked


_WALKERS: dict[str, Callable[[Iterable[Any], int, _State], bool]] = {
    name: within_bounds(walk) for name, walk in (
        ("openai-responses", _walk_responses), ("langchain-objects", _walk_langchain), ("openai-chat", _walk_chat),
        ("gemini-objects", _walk_gemini_objects))}
"""Formats whose pass is written out (`_walk_general` reads every other format through its reader)."""
_WHOLE: dict[str, Callable[[Sequence[Any], _State, Sequence[Any] | None], tuple[bool, Sequence[Any] | None]]] = {}
"""Whole passes over a format's entries that make their key (`_KEYS`) as they read them, or answer from it
when the caller has it, answering (the pass's answer, the key or None); registered by the module that
writes them (integrity.guards._contents)."""
_PASSES: dict[str, Callable[[Iterable[Any], int, _State], bool]] = {}
"""Passes a guard module registers for objects no per-entry reader reads (integrity.guards.pydantic_ai), each
through `within_bounds`."""
