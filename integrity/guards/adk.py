"""The Google ADK guard: a `BasePlugin` whose `before_model_callback` repairs the request's contents.

    from integrity.guards.adk import ToolCallIntegrityPlugin
    app = App(name="app", root_agent=agent, plugins=[ToolCallIntegrityPlugin()])

ADK builds each request's `contents` from the session's events and, doing so, drops a function call
that has no response (a tool that raised, a run interrupted mid-call) and a response that has no call:
the model loses the record that it tried, and a later turn may repeat a side effect.  ADK will not
synthesize an answer in core, because that makes two adjacent user turns (adk-python PR #6914).

The plugin restores each call ADK dropped for want of a response, answers it with the interrupted
receipt, and lets the strict policy of the model's provider keep the turns legal ("gemini-..." ->
gemini, whose rules the engine applies; LiteLlm models "anthropic/claude-..." -> anthropic...).

Which calls, and from which events.  ADK leaves many events out of a request on purpose: a rewound
invocation, another branch of a single-turn or task agent, everything before the current turn under
`include_contents='none'`, what a compaction summarised.  A call in those events was not dropped for
want of a response, and putting it back would undo the user's rewind or leak one branch into another.
So the plugin restores only from the events ADK itself used for this request: importing this module
wraps the `drop_orphaned_function_calls` that ADK's contents builder calls (the last step of
`_get_contents`, after every filter above) in a recorder that notes, in a context variable of the
running task, the events it was given and what it kept; `before_model_callback` takes that note
(once) and restores a call only if it is in those events and ADK dropped it.  The wrapper returns what
ADK returns and never raises; anything unsure restores nothing, and ADK's own request (legal) is
sent: no note (another ADK release, a request built elsewhere), a call not in the noted events, an
event whose neighbour in them is not in the request (another plugin trimmed it), the callback run
outside an ADK flow.  `repaired_contents` called directly takes the events the caller says the
request was built from.

Ids.  ADK keeps its own "adk-" ids in a request only toward the model types that pair calls by id
(its `_is_id_pairing_model`, or a Gemini model on the Interactions API); the plugin asks the same of
the agent's model, so a call restored toward any other model goes without its "adk-" id as ADK's own
calls do, on every request.  (Without an agent to ask: from the request, as before.)  A restored call
is a copy of its event's Content and Parts (the payloads shared, as ADK's `_copy_content_for_request`
copies them): a model class that edits its request's parts never reaches the session's events.  A
call already in the request, by id or as a copy sharing its arguments, is not put back twice.

The plugin replaces `llm_request.contents` with a new list made of the same Content objects where
nothing changed; the session, its events and their contents are untouched.  A healthy request keeps
its very contents list.  What it remembers (the last healthy request, the calls read from the events)
is kept per session and agent, for the few hundred sessions used last.
"""

from __future__ import annotations

import collections
import contextvars
import functools
import logging
import operator
import threading
from collections.abc import Callable
from typing import Any

import pydantic
from google.adk.flows.llm_flows.functions import AF_FUNCTION_CALL_ID_PREFIX
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

from ._contents import repair_window  # (importing it registers the column-wise quick pass over Contents)
from ._core import GuardMode, GuardReport, RequestGuard
from ._fast import IDLESS, HealthyMemo
from ._native import _TEXT, _gemini_receipts
from ._signatures import signs, unsigned_tail
from .adk_columns import missing as _missing
from .adk_columns import spliced

FORMAT = "gemini"


def _dump(content: Any) -> dict[str, Any]:
    """A google.genai Content as the Gemini REST dict (camelCase, bytes as base64) the engine reads."""
    dumped: dict[str, Any] = content.model_dump(mode="json", exclude_none=True, by_alias=True)
    return dumped


def _dumps(contents: list[Any]) -> list[Any]:
    return [_dump(content) for content in contents]


_set = object.__setattr__


def _made(cls: Any, values: dict[str, Any]) -> Any:
    """An instance of the google.genai model `cls` with these field values, set as pydantic's own
    `model_construct` sets them (its __dict__, fields set, no extra, no private attributes), without its
    field-by-field Python loop: what `model_validate` makes of valid values, at a tenth of the cost."""
    made = cls.__new__(cls)
    _set(made, "__dict__", {**_DEFAULTS[cls], **values})
    _set(made, "__pydantic_fields_set__", set(values))
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


_DEFAULTS: dict[Any, dict[str, Any]] = {cls: dict(cls().__dict__) for cls in (
    types.Content, types.Part, types.FunctionResponse)}
"""Each model's field defaults (all None: none has a default factory, a post-init hook or private
attributes; `_RECEIPTS_MADE` checks that what `_made` builds is what `model_validate` builds)."""
_RESPONSE_KEYS = frozenset({"id", "name", "response"})


def _content(native: Any) -> Any:
    """The google.genai Content for a Gemini REST dict the repair wrote (`model_validate`).  A results turn
    of function responses, each with a string id (or none), a string name and a response dict of strings
    (the interrupted receipt), is built directly (`_made`): a guard's first repair builds one."""
    if not _RECEIPTS_MADE or type(native) is not dict or native.keys() != {"role", "parts"} or \
            native["role"] != "user" or type(native["parts"]) is not list or not native["parts"]:
        return types.Content.model_validate(native)
    parts = []
    for part in native["parts"]:
        response = part.get("functionResponse") if type(part) is dict and len(part) == 1 else None
        if type(response) is not dict or not response.keys() <= _RESPONSE_KEYS or "name" not in response or \
                "response" not in response or type(response["name"]) is not str or \
                type(response.get("id", "")) is not str or type(response["response"]) is not dict or \
                not all(type(key) is str and type(value) is str for key, value in response["response"].items()):
            return types.Content.model_validate(native)
        parts.append(_made(types.Part, {"function_response": _made(types.FunctionResponse, {
            **response, "response": dict(response["response"])})}))
    return _made(types.Content, {"role": "user", "parts": parts})


def _receipt(call_id: str, name: str) -> Any:
    """The results turn answering one call with the interrupted receipt: what `_content` builds of the turn
    the direct repair writes for it (`_native._gemini_receipts`), built directly (a call without an id: its
    id is IDLESS and its name, and the receipt carries no id)."""
    if not _RECEIPTS_MADE:
        return _content(_gemini_receipts([(call_id, name)], None))
    values = {"name": name, "response": {"error": _TEXT}} if call_id[:1] == IDLESS else \
        {"id": call_id, "name": name, "response": {"error": _TEXT}}
    return _made(types.Content, {"role": "user", "parts": [_made(types.Part, {
        "function_response": _made(types.FunctionResponse, values)})]})


def _same_model(a: Any, b: Any) -> bool:
    """Two google.genai objects alike field for field and in what was set, at every level."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same_model, a, b))
    if not isinstance(a, pydantic.BaseModel):
        return type(a) is type(b) and a == b
    return type(a) is type(b) and a.model_fields_set == b.model_fields_set and a.__pydantic_extra__ == \
        b.__pydantic_extra__ and a.__pydantic_private__ == b.__pydantic_private__ and a.__dict__.keys() == \
        b.__dict__.keys() and all(_same_model(value, b.__dict__[key]) for key, value in a.__dict__.items())


_RECEIPTS_MADE = True
_RECEIPTS_MADE = all(_same_model(_content(sample), types.Content.model_validate(sample)) for sample in (
    {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "f", "response": {"error": "e"}}},
                               {"functionResponse": {"name": "g", "response": {"error": "e"}}}]},))
"""Whether `_content` builds receipts directly: only when what it builds is what model_validate builds (a
google.genai or pydantic release that changes either makes every content go through model_validate)."""


def _request_copy(content: Any, strip: bool) -> Any:
    """The copy of a session event's `content` a request gets: the Content and each Part copied (shallow:
    their payloads shared), as ADK copies the contents of a request (`_copy_content_for_request`), so a
    model class that sets a part's fields on its request never edits the session's event; strip: its
    calls and responses without their "adk-" ids, as ADK copies them toward a model that does not pair
    calls by id.  The event's own content is never changed."""
    parts = []
    for part in content.parts or []:
        update = {field: _copied(value, {"id": None}) for field in ("function_call", "function_response")
                  if (value := getattr(part, field)) is not None and isinstance(value.id, str)
                  and value.id.startswith(AF_FUNCTION_CALL_ID_PREFIX)} if strip else {}
        parts.append(_copied(part, update))
    return _copied(content, {"parts": parts})


def _stripped(content: Any) -> Any:
    """`content`'s request copy toward a model ADK strips its "adk-" ids for."""
    return _request_copy(content, True)


def _copied(model: Any, update: dict[str, Any]) -> Any:
    """`model.model_copy(update=update)` (a shallow copy, the updated fields set), made as pydantic makes it
    but without its Python-level copy protocol, for a model without extra fields or private attributes
    (google.genai's; any other is copied by model_copy)."""
    if model.__pydantic_extra__ is not None or model.__pydantic_private__ is not None or not _COPIES_MADE:
        return model.model_copy(update=update)
    kind: Any = type(model)
    copied = kind.__new__(kind)
    _set(copied, "__dict__", {**model.__dict__, **update})
    _set(copied, "__pydantic_fields_set__", model.__pydantic_fields_set__ | update.keys())
    _set(copied, "__pydantic_extra__", None)
    _set(copied, "__pydantic_private__", None)
    return copied


_COPIES_MADE = True
_SAMPLE = types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
    id=AF_FUNCTION_CALL_ID_PREFIX + "1", name="f", args={"a": 1})), types.Part(text="t")])
_COPIES_MADE = _same_model(_stripped(_SAMPLE), _SAMPLE.model_copy(update={"parts": [
    _SAMPLE.parts[0].model_copy(update={"function_call": _SAMPLE.parts[0].function_call.model_copy(  # type: ignore
        update={"id": None})}), _SAMPLE.parts[1]]}))  # type: ignore[index]
"""Whether `_copied` copies directly: only when its copy is model_copy's (checked once, at import)."""


class _EventMemo:
    """The calls made and answered in the session's events read so far, remembered with those events (by
    identity: the session keeps its Event objects and appends new ones), so the next model call reads
    only the events added since.  Holds references to the events, never copies; the sets grow in place
    (under a lock: a session's events only grow), and callers only read them."""

    __slots__ = ("_lock", "last")

    def __init__(self) -> None:
        self.last: tuple[str | None, tuple[Any, ...], set[str], set[str], set[str]] | None = None
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[type[_EventMemo], tuple[()]]:
        return _EventMemo, ()  # a copy of the plugin starts empty (the lock cannot be copied)

    def calls(self, events: list[Any], author: str | None) -> tuple[set[str], set[str], set[str]]:
        """(calls this agent made with an id, pending long-running ones excepted: every one no event
        answers, maybe others; the calls answered; the ids of every call in the events): `made - answered`
        is what a reading of every event finds made and unanswered (see _read_calls)."""
        with self._lock:
            last = self.last
            start, made, answered, called = 0, set(), set(), set()
            if last is not None and last[0] == author and len(events) >= len(last[1]) and all(
                    map(operator.is_, last[1], events)):
                start, made, answered, called = len(last[1]), last[2], last[3], last[4]
                if len(events) == start:
                    return made, answered, called
            _read_calls(events[start:] if start else events, author, made, answered, called)
            self.last = (author, tuple(events), made, answered, called)
            return made, answered, called


_CONTENT = operator.attrgetter("content")


def _read_calls(events: Any, author: str | None, made: set[str], answered: set[str], called: set[str]) -> None:
    """Add the events' calls answered and called to the sets (a part's response with an id is read instead
    of its call), and to `made` this agent's calls with an id, pending long-running ones excepted, that no
    event read so far answers (the others cannot be unanswered: the answers only grow).  Each event's
    content is read once (a guard's first model call reads the whole session this way); only the events of
    the calls left unanswered are read again, from the end, for their author and long-running ids (a call
    without an answer is almost always one of the last turns)."""
    events = events if isinstance(events, list) else list(events)
    new_calls: set[str] = set()
    answer = answered.add
    call = new_calls.add
    # the contents fetched by a C loop first: a session's Event objects are large, and reading them in a
    # tight loop lets their memory load side by side (a fifth to a quarter faster at 1,000-10,000 events;
    # their parts fetched the same way are a tenth faster at 100 events but slower from 1,000 on); each
    # attribute read once (a pydantic model's attribute reads are slow)
    for content in list(map(_CONTENT, events)):
        if content is not None:
            parts = content.parts
            if parts:
                for part in parts:
                    response = part.function_response
                    if response is not None and (found := response.id):
                        answer(found)
                        continue
                    function_call = part.function_call
                    if function_call is not None and (found := function_call.id):
                        call(found)
    called |= new_calls
    new_calls -= answered
    if new_calls:
        _made_calls(events, author, new_calls, made)


def _made_calls(events: list[Any], author: str | None, open_ids: set[str], made: set[str]) -> None:
    """Add to `made` those of `open_ids` (calls without an answer) that this agent made in `events` with an
    id, not as pending long-running calls: the events read from the end until each id has a call that
    counts (one that does not, say a pending long-running call, is looked for up to the first event)."""
    pending = set(open_ids)
    for event in reversed(events):
        content = event.content
        if content is None or not content.parts:
            continue
        for part in content.parts:
            function_call = part.function_call
            if function_call is None or function_call.id not in pending or (
                    part.function_response is not None and part.function_response.id):
                continue
            if (author is None or event.author == author) and function_call.id not in (
                    event.long_running_tool_ids or ()):
                made.add(function_call.id)
                pending.discard(function_call.id)
        if not pending:
            return


def restore_dropped_calls(contents: list[Any], events: list[Any], author: str | None,
                          memo: _EventMemo | None = None, *, built: list[Any] | None = None,
                          keep_ids: bool | None = None, strip_unsaid: bool = False) -> list[Any] | None:
    """`contents` with the calls ADK dropped for want of a response put back where their event was
    (None when none was dropped): see `_restored`."""
    return _restored(contents, events, author, memo, built, keep_ids, strip_unsaid)[0]


def _restored(contents: list[Any], events: list[Any], author: str | None, memo: _EventMemo | None,
              built: list[Any] | None, keep_ids: bool | None, strip_unsaid: bool
              ) -> tuple[list[Any] | None, tuple[Any, ...] | None]:
    """(`contents` with the calls ADK dropped for want of a response put back where their event was, or None
    when none was dropped; the key (`_fast._content_key`) of what is sent, `contents` or the restored request,
    when reading the request made one, else None: the quick pass and the memo take it instead of making it).

    `events` are the session's (read for the calls made and answered; with a memo, only the events
    added since its last call), `built` the events ADK built this request from (default: `events`):
    the list its contents builder handed `drop_orphaned_function_calls`, after its rewinds, branch,
    turn and compaction filters.  A call is restored when the session's events made it (this agent's,
    with an id), no event answers it, it is not a pending long-running call, it is in `built`, and it
    is missing from `contents` (by id, or as a copy sharing its arguments: `_missing`).

    The events of `built` are matched to contents in order by `_match_key` (what ADK's copy of a content
    keeps of it, its "adk-" ids stripped or not), from the end: each event to the last content before the
    one matched after it, until every dropped call is placed (a call is dropped for want of an answer,
    so it is almost always one of the last turns, and only the contents from there on are keyed:
    `_Places`).  A turn ADK kept without its call is replaced; a turn ADK dropped whole goes right after
    the content of the event before it, and only when that event is in `contents` (its neighbour is the
    proof that ADK used this part of the session: when it is not, the call is not restored).

    keep_ids: whether ADK kept its own "adk-" ids in this request (it does for the model types that pair
    calls by id); None: read from the request (a call or response without an id says ADK stripped them;
    one with an "adk-" id that it kept them; none of either: `strip_unsaid`, by default kept, as an id a
    pairing model needs is never taken away on a guess).
    A restored turn is a copy of its event's Content and Parts, without its "adk-" ids when ADK stripped
    them, so ADK's internal ids never reach such a model and the request's calls all go without one.
    """
    if memo is not None:
        made, answered, called = memo.calls(events, author)
    else:
        made, answered, called = set(), set(), set()
        _read_calls(events, author, made, answered, called)
    dropped = made - answered
    if not dropped:
        return None, None
    source = events if built is None else built
    calls = _calls_in(source, dropped)
    if not calls:
        return None, None
    dropped, stripped, key = _missing(contents, calls)
    if not dropped:
        return None, key
    strip = (strip_unsaid if stripped is None else stripped) if keep_ids is None else not keep_ids
    places = _Places(contents)
    end = len(contents) - 1  # the last content not matched yet
    inserted: dict[int, list[Any]] = {}  # index -> the restored contents put before contents[index]
    replaced: dict[int, Any] = {}
    pending: list[Any] = []  # restored turns waiting for the event before them to be found in contents
    unplaced = set(dropped)
    for event in reversed(source):
        if not unplaced and not pending:
            break
        content = event.content
        if content is None or not content.parts:
            continue
        lost = [part for part in content.parts if part.function_call is not None and part.function_call.id in dropped]
        if not lost:
            if all(part.function_response is not None and part.function_response.id and
                   part.function_response.id not in called for part in content.parts):
                continue  # answers to no call at all: ADK drops them, so no copy is looked for
            where = places.last(_match_key(content.role, content.parts), end)
            if where >= 0:
                if pending:  # the turns dropped whole go right after this one, in their order
                    inserted.setdefault(where + 1, [])[:0] = pending
                    pending = []
                end = where - 1
            else:
                pending = []  # the event before them is not in the request: unsure, nothing restored
            continue
        unplaced.difference_update(part.function_call.id for part in lost)
        lost_ids = {id(part) for part in lost}
        kept = [part for part in content.parts if id(part) not in lost_ids]
        where = places.last(_match_key(content.role, kept), end) if kept else -1
        if where >= 0:
            replaced[where] = _request_copy(content, strip)  # the turn ADK kept without the call
            if pending:
                inserted.setdefault(where + 1, [])[:0] = pending
                pending = []
            end = where - 1
        elif kept:
            # ADK kept part of this turn, but it is not in the request as ADK built it (a request processor or a
            # plugin changed it since: PlanReActPlanner clears the parts' thought flags, a plugin may copy the
            # calls' arguments): unsure where it is, nothing of it is restored (put back whole, the calls ADK
            # kept would be sent twice, a real result beside an interrupted receipt)
            pending = []
        else:
            pending.insert(0, _request_copy(content, strip))
    if pending:  # the first events: nothing before them to find
        inserted.setdefault(end + 1, [])[:0] = pending
    if not replaced and not inserted:
        return None, key
    out = list(contents)
    for index, content in replaced.items():
        out[index] = content
    for index in sorted(inserted, reverse=True):  # from the end: the indexes before stay where they are
        out[index:index] = inserted[index]
    return out, None if key is None else spliced(key, replaced, inserted)


def _calls_in(events: list[Any], ids: set[str]) -> dict[str, Any]:
    """The FunctionCalls of `events` carrying one of `ids` (the last of each), read from the end until
    each is found."""
    found: dict[str, Any] = {}
    for event in reversed(events):
        content = event.content
        for part in (content.parts or []) if content is not None else []:
            call = part.function_call
            if call is not None and call.id in ids and call.id not in found and not (
                    part.function_response is not None and part.function_response.id):
                found[call.id] = call
        if len(found) == len(ids):
            break
    return found


def _match_key(role: Any, parts: Any) -> tuple[Any, ...]:
    """What ADK's request copy of a content keeps of it: the role and, per part, the text, or the call's or
    response's name and id.  ADK strips its own "adk-" ids from a request to a model that does not pair
    by id (Gemini): for such an id the arguments (or response) object stands in, which the copy shares."""
    keys: list[Any] = []
    for part in parts or ():
        call, response = part.function_call, part.function_response
        if call is not None:
            keys.append(("call", call.name, _id_or_payload(call.id, call.args)))
        elif response is not None:
            keys.append(("response", response.name, _id_or_payload(response.id, response.response)))
        elif part.text is not None:
            keys.append(("text", part.text, bool(part.thought)))
        else:
            keys.append(("other",))  # inline data, files, code...: told apart by their order
    return (role, tuple(keys))


def _id_or_payload(given: Any, payload: Any) -> Any:
    return given if given and not given.startswith(AF_FUNCTION_CALL_ID_PREFIX) else ("shared", id(payload))


class _Places:
    """The contents' match keys, read from the end only as far as the lookups need (each key made once)."""

    __slots__ = ("contents", "places", "read")

    def __init__(self, contents: list[Any]) -> None:
        self.contents = contents
        self.read = len(contents)  # contents[read:] are keyed
        self.places: dict[Any, collections.deque[int]] = {}  # match key -> the indexes keyed so far, last first

    def last(self, key: Any, end: int) -> int:
        """The last index up to `end` of a content with this match key (-1: none).  `end` never grows from
        one lookup to the next, so the indexes past it are forgotten."""
        found = self.places.get(key)
        while found and found[0] > end:
            found.popleft()
        if found:
            return found[0]
        while self.read > 0:
            self.read -= 1
            content = self.contents[self.read]
            other = _match_key(content.role, content.parts)
            self.places.setdefault(other, collections.deque()).append(self.read)
            if other == key and self.read <= end:
                return self.read
        return -1


_BUILT: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar("integrity_adk_built", default=None)
"""The events ADK's contents builder last handed `drop_orphaned_function_calls` in this task (the request
being built: set by the recorder, taken by `before_model_callback`)."""


def _recording(drop: Callable[[list[Any]], list[Any]]) -> Callable[[list[Any]], list[Any]]:
    """ADK's `drop_orphaned_function_calls`, noting the events it was given in `_BUILT` (a reference: no
    copy, no reading); what ADK returns is returned, and the note never raises."""
    @functools.wraps(drop)
    def drop_orphaned_function_calls(events: list[Any]) -> list[Any]:
        kept = drop(events)
        try:
            _BUILT.set(events if isinstance(events, list) else None)
        except Exception:  # noqa: BLE001 - the note is a guard's: it never stops ADK
            pass
        return kept

    drop_orphaned_function_calls.__integrity_recorder__ = True  # type: ignore[attr-defined]
    return drop_orphaned_function_calls


def _install_recorder() -> bool:
    """Wrap the `drop_orphaned_function_calls` ADK's contents builder calls (a name of its module, looked up
    at each call) in `_recording`, once per process.  False when this ADK has no such name: then no
    request has a note, and the plugin restores nothing."""
    try:
        from google.adk.flows.llm_flows.context import _contents as adk_contents

        current = adk_contents.drop_orphaned_function_calls
    except Exception:  # noqa: BLE001 - another ADK release: restore nothing rather than guess
        return False
    if not getattr(current, "__integrity_recorder__", False):
        adk_contents.drop_orphaned_function_calls = _recording(current)  # type: ignore[assignment]
    return True


RECORDING = _install_recorder()


def _keeps_ids(callback_context: Any) -> bool | None:
    """What ADK's contents builder decided for this request's agent: True when it keeps its "adk-" ids
    (a Gemini model on the Interactions API, or a model type that pairs calls by id: its
    `_is_id_pairing_model`), False when it strips them; None when the callback has no agent to ask."""
    try:
        from google.adk.flows.llm_flows.context._contents import _is_id_pairing_model
        from google.adk.models.base_llm import BaseLlm
        from google.adk.models.google_llm import Gemini

        model = callback_context._invocation_context.agent.canonical_model
        if not isinstance(model, BaseLlm):
            return None
        return bool((isinstance(model, Gemini) and model.use_interactions_api) or _is_id_pairing_model(model))
    except Exception:  # noqa: BLE001 - no invocation, another ADK release: the request decides
        return None


def _gemini_named(model: Any) -> bool:
    """Whether ADK makes a model of this name its Gemini class, for which it strips its "adk-" ids (unless
    the model is on the Interactions API: then the request carries them, and says so)."""
    return isinstance(model, str) and model.startswith("gemini-")


def _session_key(callback_context: Any, session: Any) -> tuple[Any, ...] | None:
    """(app name, user id, session id, agent name) of the request, or None when the session has no ids."""
    try:
        key = (session.app_name, session.user_id, session.id, getattr(callback_context, "agent_name", None))
    except Exception:  # noqa: BLE001
        return None
    return key if all(type(part) is str for part in key[:3]) else None


class _SessionMemos:
    """The memos (the last healthy request, the calls read from the events) of the sessions used last,
    one pair per session and agent: one session's requests never resume from another's, and a
    session's growth is read where it left off however many others run in between."""

    __slots__ = ("_lock", "_memos", "size")

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._memos: collections.OrderedDict[Any, tuple[HealthyMemo, _EventMemo]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[type[_SessionMemos], tuple[int]]:
        return _SessionMemos, (self.size,)  # a copy of the plugin starts empty (the lock cannot be copied)

    def __len__(self) -> int:
        return len(self._memos)

    def get(self, key: Any) -> tuple[HealthyMemo, _EventMemo]:
        """The session's memos (new ones for a session not seen lately; the one used least lately is
        forgotten past `size`)."""
        with self._lock:
            found = self._memos.get(key)
            if found is not None:
                self._memos.move_to_end(key)
                return found
            found = self._memos[key] = (HealthyMemo(), _EventMemo())
            if len(self._memos) > self.size:
                self._memos.popitem(last=False)
            return found


class ToolCallIntegrityPlugin(BasePlugin):
    """Repair the contents of every model request an ADK runner makes; never the session.

    mode: "repair" | "report" | "raise"; on_report: called with a GuardReport per request needing repair;
    provider: the target provider when the model name does not say it (default: from `llm_request.model`).
    restore_calls: put back the calls ADK dropped for want of a response, so they are answered with the
    interrupted receipt instead of forgotten (default True).
    """

    def __init__(self, name: str = "tool_call_integrity", *, mode: GuardMode = "repair",
                 on_report: Callable[[GuardReport], Any] | None = None, provider: str | None = None,
                 restore_calls: bool = True, logger: logging.Logger | None = None) -> None:
        super().__init__(name=name)
        self.guard = RequestGuard("adk", mode=mode, on_report=on_report, provider=provider, logger=logger)
        self.memo = HealthyMemo()  # without a session: the last healthy request, read from where it ends
        self.events_memo = _EventMemo()  # without a session: its calls made and answered, read once per event
        self.sessions = _SessionMemos()  # per session and agent, for the requests of an ADK runner
        self.restore_calls = restore_calls

    def repaired_contents(self, contents: list[Any], model: Any, events: list[Any] | None = None,
                          author: str | None = None, *, built: list[Any] | None = None,
                          keep_ids: bool | None = None) -> list[Any] | None:
        """The contents to send instead of `contents`, or None to send them as they are.  events: the
        session's; built: those ADK built `contents` from (default: `events`); keep_ids: whether ADK kept
        its "adk-" ids in them (None: the request says)."""
        return self._repaired(contents, model, events, author, built, keep_ids, self.memo, self.events_memo)

    def _repaired(self, contents: list[Any], model: Any, events: list[Any] | None, author: str | None,
                  built: list[Any] | None, keep_ids: bool | None, memo: HealthyMemo, events_memo: _EventMemo
                  ) -> list[Any] | None:
        restored, key = _restored(contents, events, author, events_memo, built, keep_ids, _gemini_named(model)) \
            if self.restore_calls and events and (built is None or built) else (None, None)
        working = restored if restored is not None else contents
        target = self.guard.target(model)
        if restored is None:
            scanned = memo.first(contents, "gemini-objects", target, key=key)
        else:  # (a remembered repair is tried first, by guard_objects)
            scanned = None if memo.repairs else memo.scan(working, "gemini-objects", target, key)
        if scanned is not None:  # (a request whose current turn holds an unsigned call its target refuses goes to
            # the engine, whose view signs it: the direct repair signs nothing)
            unsigned = signs(target, "gemini-objects") and unsigned_tail(working, "gemini-objects")
            if scanned[0] and not unsigned:
                return None
            direct = None if scanned[0] or unsigned else self._repaired_directly(working, target, scanned, memo)
            if direct is not None:
                return direct
        repaired = self.guard.guard_objects(working, "gemini-objects", _dumps, FORMAT, target, scanned,
                                            memo=memo, build=_content, key=key)
        if repaired is None:
            return restored if self.guard.mode == "repair" else None
        return repaired

    def _repaired_directly(self, contents: list[Any], target: str | None, scanned: tuple[bool, int, list[str]],
                           memo: HealthyMemo | None = None) -> list[Any] | None:
        """What `RequestGuard.guard_objects` sends for `contents`, which the quick pass found not plainly healthy
        (`scanned`), when nothing asks for the engine's report and the direct repair written for one-part
        Contents answers them (`_contents.repair_window`: what `_native.native_repair` answers, without its
        general readers); the repair remembered as guard_objects remembers it.  None: guard_objects decides."""
        guard = self.guard
        if not guard.window or not guard._quiet():
            return None
        _, cut, before = scanned
        listed = list(contents)
        quick = repair_window(listed, cut, before, target, _receipt)
        if quick is None:
            return None
        return guard.repaired_directly(contents, "gemini-objects", listed, _dumps, FORMAT, target, cut, before, quick,
                                       self.memo if memo is None else memo)[1]

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        """Replace llm_request.contents by a repaired list when it needs one; return None so the model runs.
        Calls are restored only from the events ADK noted building this request (`_BUILT`, taken once):
        without a note, none is."""
        built = _BUILT.get()
        if built is not None:
            _BUILT.set(None)
        session = getattr(callback_context, "session", None)
        events = getattr(session, "events", None) or []
        author = getattr(callback_context, "agent_name", None)
        key = _session_key(callback_context, session)
        memo, events_memo = (self.memo, self.events_memo) if key is None else self.sessions.get(key)
        keep_ids = _keeps_ids(callback_context) if built else None
        found = self._repaired(llm_request.contents or [], llm_request.model, events, author, built or [], keep_ids,
                               memo, events_memo)
        if found is not None:
            llm_request.contents = found
        return None
