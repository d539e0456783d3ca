"""The pydantic-ai guard: a capability that repairs the messages of every model request.

    from integrity.guards.pydantic_ai import ToolCallIntegrityProcessor
    agent = Agent(model, capabilities=[ToolCallIntegrityProcessor()])

pydantic-ai 2 removed `Agent(history_processors=[...])` (it raises TypeError); history processors are
`capabilities=[ProcessHistory(processor)]`, and the processor is called sync or async, with or without a
RunContext.  Before every request pydantic-ai cleans the history itself (`_clean_message_history`, what
`repair_messages` runs): it drops a result whose call never appeared, answers a dangling call with its own
"interrupted" return (marked in its metadata: the engine reads it as the interrupted receipt, so a real
result recorded later replaces it), and merges adjacent requests.  It leaves a duplicate result (the same call answered
twice: Anthropic and OpenAI refuse it) and a result that comes after a later turn (the call is not
answered where the provider needs it, and the result is a stray where it stands).

The guard is a capability whose `prepare_model_request` hook runs last (innermost), once the model that
serves the attempt is known, and repairs only that request's messages (`request_context.messages`, which
pydantic-ai does not persist) with the strict policy of the model's provider (AnthropicModel /
"anthropic:..." -> anthropic, OpenAIChatModel -> openai-chat, OpenAIResponsesModel -> openai-responses,
GoogleModel -> gemini, BedrockConverseModel -> bedrock...; an instrumented model read through `wrapped`).
A FallbackModel is not a wrapper: the hook sees it, not the candidate serving the attempt, so the guard
reads its candidates (`models`) and repairs for their provider, or, when they send to several, for each in
turn (`providers_for_pydantic_model`); the ModelFallback capability instead shows the hook each candidate.
The run's history, and the `message_history` list passed in, are never changed.

The engine reads each request part as its own message; toward Bedrock it is shown the user side of a turn
as BedrockConverseModel sends it, one user message (`_Conversion`), so a request holding returns and a
prompt, or two prompts, is not "repaired" into turns pydantic-ai never sends apart.  An empty request
(`capture_run_messages` after a tool raised) is no turn, so the calls before it are answered, as pydantic-ai's
own repair answers them.

Called as a history processor (`ProcessHistory(ToolCallIntegrityProcessor())`) it returns the repaired
messages, which pydantic-ai then keeps in the run's history (what a history processor is for).

A healthy request costs one quick pass over the ModelMessage objects (`_walk_pydantic_ai`; the guard's
HealthyMemo reads only what was added since the last healthy request, or since the last repair) and keeps
its very list.  A broken one is read into the engine's `pydantic-ai` form only from the quick pass's cut
on (`_light_part`: the fields the reader reads, no model_dump); unchanged messages come back as the very
objects passed in, and what the repair makes (an interrupted receipt, a request without a duplicate) is
built as pydantic-ai objects (`dataclasses.replace` of the originals, so their metadata, timestamps and
run ids stay).
"""

from __future__ import annotations

import contextvars
import dataclasses
import logging
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import CapabilityOrdering
from pydantic_ai.messages import (
    SYNTHESIZED_TOOL_RETURN_METADATA_KEY,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_core import to_jsonable_python

from ..providers.openai_chat import MAX_ID as _SHORT  # the shortest id limit of a target the quick pass serves
from ._core import GuardMode, GuardReport, RequestGuard, provider_for_model
from ._fast import _PASSES, HealthyMemo, _State, within_bounds
from ._native import _CALLS, _ENTRIES, _GROUPED_RECEIPTS, _TEXT, _Bail, _text_arguments

FORMAT = "pydantic-ai"
OBJECTS = "pydantic-ai-objects"
_RECEIPT_META = {SYNTHESIZED_TOOL_RETURN_METADATA_KEY: True}


def _walk_pydantic_ai(entries: Iterable[Any], start: int, state: _State) -> bool:
    """The quick pass (`integrity.guards._fast`) over pydantic-ai ModelMessages, read by their attributes.

    A request reads as its parts in order, as the engine's reader reads it (system prompts, user prompts,
    tool returns); a response as one assistant turn (text, thinking, tool calls).  The rules are the
    general pass's: system prompts only at the start, user and assistant turns alternating, each call
    (a plain id, new in the request) answered once, in order, by the results right after its turn.
    Anything else (a retry prompt, a part kind newer than this pass, an empty text, a multi-modal
    prompt) answers False and the full check decides.  A cut is a request that starts with a user prompt
    after an exchange."""
    open_calls, last = state.open_calls, state.last
    known, seen, plain = state.known, state.seen, state.plain
    try:
        for index, message in enumerate(entries, start):
            try:
                kind, parts = message.kind, message.parts
            except AttributeError:
                return False
            if not parts:
                return False
            if kind == "response":
                if open_calls or last not in ("user", "results"):
                    return False
                calls: list[str] = []
                said = False
                for part in parts:
                    part_kind = part.part_kind
                    if part_kind == "tool-call":
                        call_id = part.tool_call_id
                        if not isinstance(call_id, str) or call_id in known or not (
                                len(call_id) <= _SHORT and call_id.isascii() and call_id.isidentifier()
                                or plain(call_id)):
                            return False  # (a short ASCII identifier is plain: checked without the pattern)
                        known.add(call_id)
                        seen.append(call_id)
                        calls.append(call_id)
                    elif part_kind == "text":
                        content = part.content
                        if not isinstance(content, str) or not content or content.isspace():
                            return False
                        said = True
                    elif part_kind != "thinking":
                        return False
                if not calls and not said:
                    return False
                open_calls = calls or None
                last = "assistant"
            elif kind == "request":
                first = True
                for part in parts:
                    part_kind = part.part_kind
                    if part_kind == "tool-return":
                        call_id = part.tool_call_id
                        if not open_calls or last not in ("assistant", "results") or call_id != open_calls[0]:
                            return False  # a stray, a duplicate, out of call order, or an earlier turn's
                        del open_calls[0]
                        last = "results"
                        if not open_calls:
                            open_calls = None
                    elif part_kind == "user-prompt":
                        if open_calls:
                            return False
                        if first and last in ("assistant", "results"):  # a user turn after an exchange: a cut
                            state.cut, state.cut_ids = index, len(seen)
                        content = part.content
                        if last == "user" or not isinstance(content, str) or not content or content.isspace():
                            return False
                        last = "user"
                    elif part_kind != "system-prompt" or last != "system":
                        return False
                    first = False
            else:
                return False
        return not open_calls
    finally:
        state.open_calls, state.last = open_calls, last


_PASSES[OBJECTS] = _PASSES[FORMAT] = within_bounds(_walk_pydantic_ai)  # (FORMAT: what the guard writes back, objects:
# the memo reads a repair it remembers)


def _entry(message: Any) -> Any:
    """One ModelMessage as the direct repair reads it (integrity.guards._native): a response is an assistant
    turn (its calls; empty without a call or a non-blank text), a request of tool returns only a results
    turn, a request of one user prompt a user turn; anything else None (the pipeline decides), by the quick
    pass's rules (`_walk_pydantic_ai`)."""
    kind, parts = message.kind, message.parts
    if not parts:
        return None
    if kind == "response":
        calls: list[str] = []
        said = False
        for part in parts:
            part_kind = part.part_kind
            if part_kind == "tool-call":
                if not isinstance(part.tool_call_id, str):
                    return None
                calls.append(part.tool_call_id)
            elif part_kind == "text":
                content = part.content
                if not isinstance(content, str) or not content or content.isspace():
                    return None
                said = True
            elif part_kind != "thinking":
                return None
        return ("assistant", tuple(calls), (), not calls and not said)
    if kind != "request":
        return None
    if all(part.part_kind == "tool-return" for part in parts):
        if any(_synthesized(part) for part in parts):
            return None  # an interrupted receipt, which a later real result replaces: the pipeline decides
        return ("results", (), tuple(part.tool_call_id for part in parts), False)
    if len(parts) == 1 and parts[0].part_kind == "user-prompt":
        content = parts[0].content
        return ("user", (), (), not isinstance(content, str) or not content or content.isspace())
    return None


def _synthesized(part: Any) -> bool:
    """A ToolReturnPart pydantic-ai (or this guard) synthesized for a call without a result: its metadata
    marker set, outcome "interrupted" (the engine's reader reads it as the interrupted receipt)."""
    metadata = part.metadata
    return isinstance(metadata, dict) and metadata.get(SYNTHESIZED_TOOL_RETURN_METADATA_KEY) is True and \
        part.outcome == "interrupted"


def _call_names(message: Any) -> list[str]:
    names = []
    for part in message.parts:
        if part.part_kind == "tool-call":
            args = part.args
            if isinstance(args, str):
                _text_arguments(args)
            elif args is not None and not isinstance(args, dict):
                raise _Bail
            if not isinstance(part.tool_name, str):
                raise _Bail
            names.append(part.tool_name)
    return names


def _receipts(calls: list[tuple[str, str]], turn: Any) -> Any:
    """The request answering a turn's calls with the interrupted receipt, as `_Writer` writes it: one
    ToolReturnPart per call (`_new_request_part`), in a new request stamped with the turn's time."""
    timestamp = turn.timestamp
    stamp = {"timestamp": timestamp} if timestamp is not None else {}
    built = ModelRequest(parts=[ToolReturnPart(tool_name=name, content=_TEXT, tool_call_id=call_id,
                                               metadata=dict(_RECEIPT_META), outcome="interrupted", **stamp)
                                for call_id, name in calls])
    return dataclasses.replace(built, timestamp=timestamp) if timestamp is not None else built


_ENTRIES[OBJECTS] = _entry
_CALLS[OBJECTS] = _call_names
_GROUPED_RECEIPTS[FORMAT] = _receipts


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, str) else to_jsonable_python(value, fallback=str, bytes_mode="base64")


def _light_part(part: Any, joined: bool = False) -> dict[str, Any]:
    """A part as the engine's `pydantic-ai` reader reads it: only the fields it reads (its kind, ids, names,
    content, arguments); a kind it does not read is kept whole (it is carried, never a call).  joined: a
    user-voiced part the target's model class sends inside the turn's user message (`_Conversion`): shown
    as a system prompt, which no role rule counts as a turn."""
    kind = part.part_kind
    if joined:
        return {"part_kind": "system-prompt", "content": _jsonable(part.content)}
    if kind in ("system-prompt", "user-prompt", "retry-feedback"):
        return {"part_kind": kind, "content": _jsonable(part.content)}
    if kind in ("tool-return", "retry-prompt"):
        light = {"part_kind": kind, "tool_name": part.tool_name, "tool_call_id": part.tool_call_id,
                 "content": _jsonable(part.content)}
        if kind == "tool-return" and _synthesized(part):  # the interrupted receipt, as the reader reads it
            light.update(metadata=dict(_RECEIPT_META), outcome="interrupted")
        return light
    if kind in ("text", "thinking"):
        return {"part_kind": kind, "content": part.content}
    if kind == "tool-call":
        return {"part_kind": kind, "tool_name": part.tool_name, "tool_call_id": part.tool_call_id,
                "args": _jsonable(part.args) if part.args is not None else None}
    dumped: dict[str, Any] = to_jsonable_python(part, fallback=str, bytes_mode="base64")
    return dumped


_JOINED = frozenset({"bedrock"})
"""Targets whose pydantic-ai model class sends the user side of a turn as one message, however many parts and
requests it is recorded in: BedrockConverseModel maps each part of a request to a message and then merges
consecutive user messages (`_merge_consecutive_user_messages`; where the model refuses text beside a toolResult
it puts its own "." assistant turn between them instead), and pydantic-ai merges consecutive requests before
every request.  Bedrock's rule that user and assistant turns alternate is then kept by pydantic-ai on the user
side.  (AnthropicModel and GoogleModel send a request as one message too, and OpenAI's, Mistral's and the others'
send its parts one by one; their rules count no user turn against another, and MistralModel puts its own "OK"
assistant turn between tool results and a user prompt.)"""
_EMPTY_REQUEST = {"part_kind": "integrity-empty-request"}
"""What an empty ModelRequest reads as (one part of a kind the reader keeps opaque: no turn, nothing sent).
`capture_run_messages` holds one (`state="interrupted"`) when a tool raised before any return was collected;
pydantic-ai's own repair reads it as nothing, and so the calls before it are answered."""


def _voiced(part: Any) -> bool:
    """A request part pydantic-ai sends as user text (a prompt, a retry's feedback bound to no call)."""
    kind = getattr(part, "part_kind", None)
    return kind in ("user-prompt", "retry-feedback") or kind == "retry-prompt" and getattr(part, "tool_name", 0) is None


class _Conversion:
    """One guarded request's light dicts and the ModelMessages they were made from (by the dict's id; the
    dicts are kept alive here, so an id is never reused while the repair runs).

    Toward a target of `_JOINED` the engine is shown the user side of each turn as that model class sends it:
    one user turn.  The user-voiced parts after the turn's first one are shown as system prompts (Bedrock's
    writer takes those out of the message list, so they separate nothing and count as no turn), and all of
    them after a response that calls tools (the turn's results and prompts are one message, and the strict
    repair answers every call right after its turn, with its result or the interrupted receipt, so the turn
    starts with results whatever else it drops).  Every part keeps its place, and the writer maps each back
    to the part object it was read from."""

    __slots__ = ("joined", "objects")

    def __init__(self, target: str | None = None) -> None:
        self.objects: dict[int, tuple[dict[str, Any], Any]] = {}
        self.joined = target in _JOINED

    def dump(self, messages: list[Any]) -> list[Any]:
        if not self.joined:
            return [self.light(message, ()) for message in messages]
        out: list[Any] = []
        turn: list[Any] = []
        calls = False
        for message in messages:
            if getattr(message, "kind", None) == "request":
                turn.append(message)
                continue
            self.turn(turn, calls, out)
            turn = []
            out.append(self.light(message, ()))
            calls = any(getattr(part, "part_kind", None) == "tool-call" for part in getattr(message, "parts", ()))
        self.turn(turn, calls, out)
        return out

    def turn(self, requests: list[Any], calls: bool, out: list[Any]) -> None:
        """The light dicts of one turn's requests (those between two responses) toward a joined target; calls:
        whether the response before them calls tools (then the turn holds their results, or the receipts the
        repair puts right after the call turn)."""
        voiced = [part for message in requests for part in getattr(message, "parts", ()) if _voiced(part)]
        joined = {id(part) for part in (voiced if calls else voiced[1:])}
        out.extend(self.light(message, joined) for message in requests)

    def light(self, message: Any, joined: Any) -> dict[str, Any]:
        """The light dict of one message; an object that is no ModelMessage (or holds a part this cannot read)
        gives an entry the reader refuses, so the guard sends the request as it is and logs why (dumping runs
        before the guard's own safety net: a guard never stops an agent over a shape it does not know)."""
        try:
            parts = message.parts
            light = {"kind": message.kind, "parts": [_light_part(part, id(part) in joined) for part in parts]
                     if parts else [dict(_EMPTY_REQUEST)]}
        except Exception:  # noqa: BLE001 - see above
            light = {"kind": None, "unreadable": type(message).__name__}
        self.objects[id(light)] = (light, message)
        return light

    def original(self, light: Any) -> Any:
        return self.objects[id(light)][1]


_CONVERSION: contextvars.ContextVar[_Conversion | None] = contextvars.ContextVar("integrity_pydantic_ai", default=None)
"""The conversion of the request being guarded (per thread and task: one guard may serve concurrent runs)."""


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict)) if isinstance(content,
                                                                                                      list) else ""


def _size(content: Any) -> int:
    """How many content parts a message's content is in a merged message (`integrity.repair.messages.merge_messages`:
    a text as one part, an empty one as none)."""
    if isinstance(content, str):
        return 1 if content else 0
    return len(content) if isinstance(content, list) else 0


class _Writer:
    """The repaired canonical view written back as ModelMessages: an original message the view keeps whole
    is the very light dict read (the guard maps it back to the object passed in); anything else is built
    from the originals' parts (`dataclasses.replace`, so what the engine does not read stays) and new
    parts for what the repair made.

    A view message is mapped to the part it was read from by identity, or, for a copy the repair changed
    (a renamed id), by the place the reader recorded (`_native["part"]`), never by its content.  A message
    the repair merged from several (Bedrock's consecutive turns) carries the last one's place and every
    one's content: its members are the messages of its role the view no longer holds right before it."""

    def __init__(self, transcript: Any, conversion: _Conversion) -> None:
        self.native = transcript.native
        self.conversion = conversion
        self.messages = transcript.messages
        self.read = {id(message): message for message in transcript.messages}
        self.where: dict[int, tuple[int, int]] = {}  # canonical message id -> (entry, part)
        self.position: dict[int, int] = {}  # canonical message id -> its place among the messages read
        self.by_entry: dict[int, list[Any]] = {}
        for position, message in enumerate(transcript.messages):
            entry = message["_native"]["entry"]
            parts = self.by_entry.setdefault(entry, [])
            self.where[id(message)] = (entry, len(parts))  # one message per request part, in order
            self.position[id(message)] = position
            parts.append(message)
        self.copied: set[tuple[int, int]] = set()
        self.timestamp: Any = None  # the last response's: a receipt made for its calls takes it

    def source(self, message: dict[str, Any]) -> tuple[int, int] | None:
        """(entry, part) the view message was read from: itself, or a copy the repair changed, by the part
        its native record names (a response is its entry's one message)."""
        found = self.where.get(id(message))
        if found is not None:
            return found
        native = message.get("_native")
        if not isinstance(native, dict) or native.get("format") != FORMAT or native.get("entry") not in self.by_entry:
            return None
        entry = native["entry"]
        read = self.by_entry[entry]
        part = native.get("part", 0 if len(read) == 1 else None)
        if type(part) is not int or not 0 <= part < len(read) or (entry, part) in self.copied:
            return None
        self.copied.add((entry, part))
        return entry, part

    def members(self, message: dict[str, Any], source: tuple[int, int]) -> list[tuple[int, int]]:
        """The (entry, part) of every message a merged view message carries, in order, the carrier (`source`)
        last: the messages of its role right before the carrier that the view holds no other way, as many as
        the merged content's parts need (only the carrier when the content is no more than its own)."""
        carrier = self.by_entry[source[0]][source[1]]
        need = _size(message.get("content")) - _size(carrier.get("content"))
        role = message.get("role")
        found: list[tuple[int, int]] = []
        position = self.position[id(carrier)] - 1
        while need > 0 and position >= 0:
            read = self.messages[position]
            position -= 1
            where = self.where[id(read)]
            if read.get("role") != role:
                if read.get("role") in ("user", "assistant", "toolResult"):
                    break  # a merged run is of one role, with only transparent messages between
                continue
            if where in self.copied:
                break  # the view holds it: the run ends there
            found.append(where)
            need -= _size(read.get("content"))
        if need != 0:
            return [source]  # not a run the view merged: what the carrier does not hold is built new
        self.copied.update(found)
        return [*reversed(found), source]

    def original(self, entry: int) -> Any:
        return self.conversion.original(self.native[entry])

    def write(self, view: list[Any]) -> list[Any]:
        # the parts the view keeps as they were read are nobody's copy
        self.copied.update(self.where[id(message)] for message in view if id(message) in self.where)
        out: list[Any] = []
        pending: list[Any] = []
        for message in view:
            if isinstance(message, dict) and message.get("role") == "assistant":
                out.extend(self.requests(pending))
                pending = []
                out.append(self.response(message))
            else:
                pending.append(message)
        out.extend(self.requests(pending))
        return out

    def response(self, message: dict[str, Any]) -> Any:
        if id(message) in self.read:
            entry = self.where[id(message)][0]
            self.timestamp = self.original(entry).timestamp
            return self.native[entry]
        source = self.source(message)
        given = message.get("content")
        content: list[Any] = given if isinstance(given, list) else []
        if source is None:
            built = ModelResponse(parts=[part for item in content if (part := _new_part(item)) is not None])
            if self.timestamp is not None:
                built = dataclasses.replace(built, timestamp=self.timestamp)
            return built
        parts: list[Any] = []
        members = self.members(message, source)
        offset = 0
        for number, (entry, _) in enumerate(members):
            read = self.by_entry[entry][0].get("content") or []
            items = content[offset:] if number == len(members) - 1 else content[offset:offset + len(read)]
            parts.extend(_response_parts(self.original(entry), read, items))
            offset += len(read)
        original = self.original(source[0])
        self.timestamp = original.timestamp
        return dataclasses.replace(original, parts=parts)

    def requests(self, messages: list[Any]) -> list[Any]:
        """The request side between two responses: each original request the view keeps whole, in its
        place, as the light dict read; the rest grouped into new requests between them."""
        out: list[Any] = []
        loose: list[Any] = []  # (part object, entry it came from or None)
        index = 0
        while index < len(messages):
            message = messages[index]
            found = self.where.get(id(message)) if isinstance(message, dict) else None
            if found is not None and found[1] == 0:
                entry = found[0]
                whole = self.by_entry[entry]
                if len(whole) <= len(messages) - index and all(
                        messages[index + k] is whole[k] for k in range(len(whole))):
                    out.extend(self.request(loose))
                    loose = []
                    out.append(self.native[entry])
                    index += len(whole)
                    continue
            loose.extend(self.parts(message))
            index += 1
        out.extend(self.request(loose))
        return out

    def request(self, loose: list[Any]) -> list[Any]:
        if not loose:
            return []
        base = next((entry for _, entry in loose if entry is not None), None)
        parts = [part for part, _ in loose]
        if base is None:
            built = ModelRequest(parts=parts)
            return [dataclasses.replace(built, timestamp=self.timestamp) if self.timestamp is not None else built]
        return [dataclasses.replace(self.original(base), parts=parts)]

    def parts(self, message: Any) -> list[tuple[Any, int | None]]:
        """The request parts a view message is written as: the part it was read from (a result's renamed id
        set), every member's part for a merged one, or a new part for what the repair made."""
        source = self.source(message) if isinstance(message, dict) else None
        if source is None:
            return [(_new_request_part(message, self.timestamp), None)]
        if id(message) in self.read or message.get("role") != "user":
            original = self.original(source[0]).parts
            if source[1] >= len(original):
                return []  # an empty request's stand-in: no part
            part = original[source[1]]
            if id(message) not in self.read and message.get("role") == "toolResult" and \
                    getattr(part, "tool_call_id", None) != message.get("toolCallId"):
                part = dataclasses.replace(part, tool_call_id=message["toolCallId"])
            return [(part, source[0])]
        members = self.members(message, source)
        written: list[tuple[Any, int | None]] = [(self.original(entry).parts[part], entry) for entry, part in members]
        extra = _size(message.get("content")) - sum(_size(self.by_entry[entry][part].get("content"))
                                                     for entry, part in members)
        if extra > 0:  # content the view carries that no member read holds: kept, as a new prompt
            content = message.get("content")
            text = "".join(item.get("text", "") for item in content[:extra] if isinstance(item, dict)) \
                if isinstance(content, list) else ""
            written.insert(0, (_new_request_part({"role": "user", "content": text}, self.timestamp), None))
        return written


def _response_parts(original: Any, read: list[Any], items: list[Any]) -> list[Any]:
    """The parts of a response the view changed, for its content items: an item the response holds as read
    is its own part (matched at its place, else wherever it stands in the response); a call the repair
    renamed is its part with the new id; anything else a new part."""
    parts: list[Any] = []
    for index, item in enumerate(items):
        at = index if index < len(read) and read[index] == item else next(
            (i for i, old in enumerate(read) if old == item), None)
        if at is not None and at < len(original.parts):
            parts.append(original.parts[at])
            continue
        old = original.parts[index] if index < len(original.parts) else None
        if isinstance(item, dict) and item.get("type") == "toolCall" and isinstance(old, ToolCallPart):
            parts.append(dataclasses.replace(old, tool_call_id=item["id"], tool_name=item["name"]))
        elif (part := _new_part(item)) is not None:
            parts.append(part)
    return parts


def _new_part(item: Any) -> Any:
    """A response part for a canonical content part the repair made (None: nothing to send for it)."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "text":
        return TextPart(content=str(item.get("text", "")))
    if kind == "thinking":
        return ThinkingPart(content=str(item.get("thinking", "")))
    if kind == "toolCall":
        return ToolCallPart(tool_name=str(item.get("name")), args=item.get("arguments"),
                            tool_call_id=str(item.get("id")))
    return None


def _new_request_part(message: Any, timestamp: Any) -> Any:
    """A request part for a canonical message the repair made: the interrupted receipt (a ToolReturnPart marked
    as pydantic-ai marks its own synthesized returns, outcome "interrupted"), a result, a user or system turn."""
    from .. import is_interrupted_tool_result

    role = message.get("role") if isinstance(message, dict) else None
    text = _text(message) if isinstance(message, dict) else ""
    stamp = {"timestamp": timestamp} if timestamp is not None else {}
    if role == "toolResult":
        receipt = is_interrupted_tool_result(message)
        outcome: Literal["interrupted", "failed", "success"] = \
            "interrupted" if receipt else "failed" if message.get("isError") else "success"
        return ToolReturnPart(tool_name=str(message.get("toolName") or ""), content=text,
                              tool_call_id=str(message.get("toolCallId")), metadata=dict(_RECEIPT_META) if receipt
                              else None, outcome=outcome, **stamp)
    if role == "system":
        return SystemPromptPart(content=text, **stamp)
    return UserPromptPart(content=text, **stamp)


class _Guard(RequestGuard):
    """RequestGuard writing the repaired view back as ModelMessages (the engine reads pydantic-ai's form but
    does not write it): see `_Writer`."""

    @staticmethod
    def _written(view: list[Any], format: str, transcript: Any, listed: list[Any]) -> list[Any] | None:
        conversion = _CONVERSION.get()
        if format != FORMAT or conversion is None:
            return RequestGuard._written(view, format, transcript, listed)
        native = _Writer(transcript, conversion).write(view)
        if len(native) == len(listed) and all(a is b for a, b in zip(native, listed, strict=True)):
            return None
        # as ModelMessages throughout (the light dicts as the objects they were read from), so what the
        # guard's memo remembers of a repair is read by the same pass as the request
        return [conversion.original(entry) if isinstance(entry, dict) else entry for entry in native]


def providers_for_pydantic_model(model: Any) -> tuple[str | None, ...]:
    """Every provider a pydantic-ai Model may send a request to, in order, each once: one for a plain model, from
    its "system:model_name" (`provider_for_model` reads pydantic-ai's "provider:" form; an OpenAIResponsesModel
    calls the Responses API); for a FallbackModel (`pydantic_ai.models.fallback`), each of its candidates'
    (`models`: it sends the same messages to each in turn until one answers).  Wrapper models (instrumented)
    are read through `wrapped`.  A FunctionModel or TestModel gives None (the universal invariants), which a
    named provider's rules hold too: None is listed only when no candidate names one."""
    for _ in range(8):
        wrapped = getattr(model, "wrapped", None)
        if wrapped is None:
            break
        model = wrapped
    candidates = getattr(model, "models", None)
    if isinstance(candidates, list) and any(kind.__name__ == "FallbackModel" for kind in type(model).__mro__):
        found: list[str | None] = []
        for candidate in candidates:
            for target in providers_for_pydantic_model(candidate):
                if target not in found:
                    found.append(target)
        named = tuple(target for target in found if target is not None)
        return named or (None,)
    name = getattr(model, "model_name", None)
    if not isinstance(name, str):
        return (provider_for_model(model) if isinstance(model, str) else None,)
    system = getattr(model, "system", None)
    responses = any(kind.__name__ == "OpenAIResponsesModel" for kind in type(model).__mro__)
    return (provider_for_model(f"{system}:{name}" if isinstance(system, str) and system else name,
                               "responses" if responses else "chat"),)


def provider_for_pydantic_model(model: Any) -> str | None:
    """The provider a pydantic-ai Model sends to (`providers_for_pydantic_model`): a FallbackModel's when all its
    candidates send to the same one; None when they differ (no one provider's rules decide for all of them:
    the guard then repairs for each in turn) or for a FunctionModel or TestModel (the universal invariants)."""
    targets = providers_for_pydantic_model(model)
    return targets[0] if len(targets) == 1 else None


class ToolCallIntegrityProcessor(AbstractCapability[Any]):
    """Repair the messages of every model request a pydantic-ai agent makes; never its history.

    `Agent(..., capabilities=[ToolCallIntegrityProcessor()])`, or as a history processor
    `capabilities=[ProcessHistory(ToolCallIntegrityProcessor())]` (then pydantic-ai keeps the repaired
    messages in the run's history).  mode: "repair" | "report" | "raise"; on_report: called with a
    GuardReport per request needing repair; provider: the target provider when the model does not say it
    (a FunctionModel, a TestModel, a custom Model).  A healthy request keeps its very list of messages.
    """

    def __init__(self, *, mode: GuardMode = "repair", on_report: Callable[[GuardReport], Any] | None = None,
                 provider: str | None = None, logger: logging.Logger | None = None) -> None:
        super().__init__()
        self.guard = _Guard("pydantic-ai", mode=mode, on_report=on_report, provider=provider, logger=logger)
        self.memo = HealthyMemo()  # the last healthy request: the next one is read from where it ends
        self._memos: dict[str | None, HealthyMemo] = {}  # a FallbackModel's providers' own (see repaired_messages)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # not built from agent specs (it takes a callback)

    def get_ordering(self) -> CapabilityOrdering:
        return CapabilityOrdering(position="innermost")  # after every other capability shaped the request

    def target(self, model: Any) -> str | None:
        """The provider the guard judges a request to `model` by (None for candidates of several: see targets)."""
        return self.guard.provider if self.guard.provider is not None else provider_for_pydantic_model(model)

    def targets(self, model: Any) -> tuple[str | None, ...]:
        """Every provider a request to `model` may reach: the one given to the guard, else the model's (each
        candidate's for a FallbackModel: `providers_for_pydantic_model`)."""
        return (self.guard.provider,) if self.guard.provider is not None else providers_for_pydantic_model(model)

    def repaired_messages(self, messages: list[ModelMessage], model: Any = None) -> list[ModelMessage]:
        """The messages to send for `model` (a pydantic-ai Model or a model name): `messages` itself when
        healthy (or in mode "report"), else a new list of the same objects where nothing changed.

        A FallbackModel whose candidates send to different providers has its request repaired for each in
        turn (the order of its candidates; each provider's repair of the one before's answer), so what it
        sends is what each candidate's rules take; each is reported as its own.  Every repair only drops,
        moves, answers, renames to the provider's id form or separates turns, which the other rule sets take
        as well.  The ModelFallback capability shows the guard each candidate as it serves the attempt."""
        targets = self.targets(model)
        if len(targets) == 1:
            return self._repaired(messages, targets[0], self.memo)
        out = messages
        for target in targets:
            memo = self._memos.get(target)
            if memo is None:
                memo = self._memos[target] = HealthyMemo()
            out = self._repaired(out, target, memo)
        return out

    def _repaired(self, messages: list[ModelMessage], target: str | None, memo: HealthyMemo) -> list[ModelMessage]:
        scanned = memo.first(messages, OBJECTS, target)
        if scanned is not None and scanned[0]:
            return messages
        conversion = _Conversion(target)
        token = _CONVERSION.set(conversion)
        try:
            repaired = self.guard.guard_objects(messages, OBJECTS, conversion.dump, FORMAT, target, scanned,
                                                memo=memo)
        finally:
            _CONVERSION.reset(token)
        return messages if repaired is None else repaired

    async def prepare_model_request(self, ctx: RunContext[Any], request_context: Any) -> Any:
        """Repair this attempt's messages for the model serving it (pydantic-ai does not persist them)."""
        messages = request_context.messages
        repaired = self.repaired_messages(messages, request_context.model)
        if repaired is not messages:
            request_context.messages = repaired
        return request_context

    async def __call__(self, ctx: RunContext[Any], messages: list[ModelMessage]) -> list[ModelMessage]:
        """As a history processor (`ProcessHistory(guard)`): the repaired messages for the run's model."""
        return self.repaired_messages(messages, ctx.model)
