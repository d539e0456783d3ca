"""The Google ADK guard: a `BasePlugin` whose `before_model_callback` repairs the request's contents.

    from integrity.guards.adk import ToolCallIntegrityPlugin
    app = App(name="app", root_agent=agent, plugins=[ToolCallIntegrityPlugin()])

ADK builds each request's `contents` from the session's events and, doing so, drops a function call
that has no response (a tool that raised, a run interrupted mid-call) and a response that has no call:
the model loses the record that it tried, and a later turn may repeat a side effect.  ADK will not
synthesize an answer in core, because that makes two adjacent user turns (adk-python PR #6914).

The plugin restores each call ADK dropped for want of a response (read from the session's own events,
never written back), answers it with the interrupted receipt, and lets the strict policy of the model's
provider keep the turns legal ("gemini-..." -> gemini, whose rules the engine applies; LiteLlm models
"anthropic/claude-..." -> anthropic...).  It replaces `llm_request.contents` with a new list made of the
same Content objects where nothing changed; the session, its events and their contents are untouched.
A healthy request keeps its very contents list.
"""

from __future__ import annotations

import collections
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


def _not_called(contents: list[Any], ids: set[str]) -> tuple[set[str], bool]:
    """The ids of `ids` that no function call in `contents` carries, and whether a call or response in
    `contents` carries no id at all (read only when not every id is found: then every content is read).
    ADK gives every call an id ("adk-..." when the model gave none), so a call without one in a request is
    one whose "adk-" id ADK stripped (then it strips them all, and an "adk-" id is not looked for further).
    Read from the end, and only until every id is found: a call the session has not answered yet is
    almost always one of the last turns."""
    missing = set(ids)
    stripped = False
    for content in reversed(contents):
        for part in (content.parts or []) if content is not None else []:
            call = getattr(part, "function_call", None)
            if call is not None and call.id in missing:
                missing.discard(call.id)
                if not missing:
                    return missing, False
            if not stripped:
                response = getattr(part, "function_response", None)
                stripped = (call is not None and not call.id) or (response is not None and not response.id)
                if stripped and all(found.startswith(AF_FUNCTION_CALL_ID_PREFIX) for found in missing):
                    return missing, True  # ADK stripped every "adk-" id from the request: none of these is in it
    return missing, stripped


def _kept(content: Any) -> Any:
    return content


def _stripped(content: Any) -> Any:
    """A copy of `content` whose calls and responses carry no "adk-" id, as ADK copies the contents of a
    request to a model that does not pair calls by id (google.adk's remove_client_function_call_id): the
    event's own content is never changed."""
    parts = []
    for part in content.parts or []:
        update = {field: _copied(value, {"id": None}) for field in ("function_call", "function_response")
                  if (value := getattr(part, field)) is not None and isinstance(value.id, str)
                  and value.id.startswith(AF_FUNCTION_CALL_ID_PREFIX)}
        parts.append(_copied(part, update) if update else part)
    return _copied(content, {"parts": parts})


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
                          memo: _EventMemo | None = None) -> list[Any] | None:
    """`contents` with the calls ADK dropped for want of a response put back where their event was
    (None when none was dropped).

    A call is restored when the session's events made it (this agent's, with an id), no event answers
    it, it is not a pending long-running call, and it is missing from `contents`.  Events are matched to
    contents in order by `_match_key` (what ADK's copy of a content keeps of it, its "adk-" ids stripped
    or not), from the end: each event to the last content before the one matched after it, until every
    dropped call is placed (a call is dropped for want of an answer, so it is almost always one of the
    last turns, and only the contents from there on are keyed: `_Places`).  The event's own Content object
    is used (never modified); when ADK stripped its own "adk-" ids from the request (a call or response in
    it has no id: ADK does so toward a model that does not pair calls by id, Gemini), a copy of it without
    its "adk-" ids, so ADK's internal ids never reach the model and the request's calls all go without one.
    With a memo, only the events added since its last call are read for the calls made and answered.
    """
    if memo is not None:
        made, answered, called = memo.calls(events, author)
    else:
        made, answered, called = set(), set(), set()
        _read_calls(events, author, made, answered, called)
    dropped = made - answered
    stripped = False
    if dropped:
        dropped, stripped = _not_called(contents, dropped)
    if not dropped:
        return None
    # ADK kept its "adk-" ids in this request (a model pairing calls by id) or stripped them all (Gemini):
    # a restored call follows the request
    own: Callable[[Any], Any] = _stripped if stripped else _kept
    places = _Places(contents)
    end = len(contents) - 1  # the last content not matched yet
    inserted: dict[int, list[Any]] = {}  # index -> the restored contents put before contents[index]
    replaced: dict[int, Any] = {}
    unplaced = set(dropped)
    for event in reversed(events):
        if not unplaced:
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
            end = end if where < 0 else where - 1
            continue
        unplaced.difference_update(part.function_call.id for part in lost)
        kept = [part for part in content.parts if part not in lost]
        where = places.last(_match_key(content.role, kept), end) if kept else -1
        if where >= 0:
            replaced[where] = own(content)  # the turn ADK kept without the call: the event's own content
            end = where - 1
        else:
            inserted.setdefault(end + 1, []).insert(0, own(content))  # after what the earlier events matched
    out = list(contents)
    for index, content in replaced.items():
        out[index] = content
    for index in sorted(inserted, reverse=True):  # from the end: the indexes before stay where they are
        out[index:index] = inserted[index]
    return out


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
        self.memo = HealthyMemo()  # the last healthy request: the next one is read from where it ends
        self.events_memo = _EventMemo()  # the session's calls made and answered, read once per event
        self.restore_calls = restore_calls

    def repaired_contents(self, contents: list[Any], model: Any, events: list[Any] | None = None,
                          author: str | None = None) -> list[Any] | None:
        """The contents to send instead of `contents`, or None to send them as they are."""
        restored = restore_dropped_calls(contents, events, author, self.events_memo) if self.restore_calls and events \
            else None
        working = restored if restored is not None else contents
        target = self.guard.target(model)
        memo = self.memo
        if restored is None:
            scanned = memo.first(contents, "gemini-objects", target)
        else:  # (a remembered repair is tried first, by guard_objects)
            scanned = None if memo.repairs else memo.scan(working, "gemini-objects", target)
        if scanned is not None:
            if scanned[0]:
                return None
            direct = self._repaired_directly(working, target, scanned)
            if direct is not None:
                return direct
        repaired = self.guard.guard_objects(working, "gemini-objects", _dumps, FORMAT, target, scanned,
                                            memo=self.memo, build=_content)
        if repaired is None:
            return restored if self.guard.mode == "repair" else None
        return repaired

    def _repaired_directly(self, contents: list[Any], target: str | None, scanned: tuple[bool, int, list[str]]
                           ) -> list[Any] | None:
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
                                       self.memo)[1]

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        """Replace llm_request.contents by a repaired list when it needs one; return None so the model runs."""
        session = getattr(callback_context, "session", None)
        events = getattr(session, "events", None) or []
        author = getattr(callback_context, "agent_name", None)
        found = self.repaired_contents(llm_request.contents or [], llm_request.model, events, author)
        if found is not None:
            llm_request.contents = found
        return None
