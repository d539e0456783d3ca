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
GoogleModel -> gemini...).  The run's history, and the `message_history` list passed in, are never changed.
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
from ._fast import _PASSES, HealthyMemo, _State
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


_PASSES[OBJECTS] = _walk_pydantic_ai
_PASSES[FORMAT] = _walk_pydantic_ai  # what the guard writes back (objects): the memo reads a repair it remembers


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


def _light_part(part: Any) -> dict[str, Any]:
    """A part as the engine's `pydantic-ai` reader reads it: only the fields it reads (its kind, ids, names,
    content, arguments); a kind it does not read is kept whole (it is carried, never a call)."""
    kind = part.part_kind
    if kind in ("system-prompt", "user-prompt"):
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


class _Conversion:
    """One guarded request's light dicts and the ModelMessages they were made from (by the dict's id; the
    dicts are kept alive here, so an id is never reused while the repair runs)."""

    __slots__ = ("objects",)

    def __init__(self) -> None:
        self.objects: dict[int, tuple[dict[str, Any], Any]] = {}

    def dump(self, messages: list[Any]) -> list[Any]:
        out = []
        for message in messages:
            light = {"kind": message.kind, "parts": [_light_part(part) for part in message.parts]}
            self.objects[id(light)] = (light, message)
            out.append(light)
        return out

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


class _Writer:
    """The repaired canonical view written back as ModelMessages: an original message the view keeps whole
    is the very light dict read (the guard maps it back to the object passed in); anything else is built
    from the originals' parts (`dataclasses.replace`, so what the engine does not read stays) and new
    parts for what the repair made."""

    def __init__(self, transcript: Any, conversion: _Conversion) -> None:
        self.native = transcript.native
        self.conversion = conversion
        self.read = {id(message): message for message in transcript.messages}
        self.where: dict[int, tuple[int, int]] = {}  # canonical message id -> (entry, part)
        self.by_entry: dict[int, list[Any]] = {}
        for message in transcript.messages:
            entry = message["_native"]["entry"]
            parts = self.by_entry.setdefault(entry, [])
            self.where[id(message)] = (entry, len(parts))
            parts.append(message)
        self.copied: set[tuple[int, int]] = set()
        self.timestamp: Any = None  # the last response's: a receipt made for its calls takes it

    def source(self, message: dict[str, Any]) -> tuple[int, int] | None:
        """(entry, part) the view message was read from: itself, or a copy the repair changed (renamed ids),
        matched to a part of its entry with its role that the view holds no other way: the first with the
        same content, else the first."""
        found = self.where.get(id(message))
        if found is not None:
            return found
        native = message.get("_native")
        if not isinstance(native, dict) or native.get("format") != FORMAT or native.get("entry") not in self.by_entry:
            return None
        entry = native["entry"]
        free = [(part, read) for part, read in enumerate(self.by_entry[entry])
                if read.get("role") == message.get("role") and (entry, part) not in self.copied]
        chosen = next((part for part, read in free if read.get("content") == message.get("content")),
                      free[0][0] if free else None)
        if chosen is None:
            return None
        self.copied.add((entry, chosen))
        return entry, chosen

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
        original = self.original(source[0])
        read = self.by_entry[source[0]][0].get("content") or []
        parts: list[Any] = []
        for index, item in enumerate(content):
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
            loose.append(self.part(message))
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

    def part(self, message: Any) -> tuple[Any, int | None]:
        source = self.source(message) if isinstance(message, dict) else None
        if source is not None:
            original = self.original(source[0]).parts[source[1]]
            if id(message) not in self.read and message.get("role") == "toolResult" and \
                    getattr(original, "tool_call_id", None) != message.get("toolCallId"):
                original = dataclasses.replace(original, tool_call_id=message["toolCallId"])
            return original, source[0]
        return _new_request_part(message, self.timestamp), None


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


def provider_for_pydantic_model(model: Any) -> str | None:
    """The provider a pydantic-ai Model sends to, from its "system:model_name" (`provider_for_model` reads
    pydantic-ai's "provider:" form); an OpenAIResponsesModel calls the Responses API.  Wrapper models
    (instrumented, fallback candidates) are read through `wrapped`; a FunctionModel or TestModel gives None
    (the universal invariants)."""
    for _ in range(8):
        wrapped = getattr(model, "wrapped", None)
        if wrapped is None:
            break
        model = wrapped
    name = getattr(model, "model_name", None)
    if not isinstance(name, str):
        return provider_for_model(model) if isinstance(model, str) else None
    system = getattr(model, "system", None)
    responses = any(kind.__name__ == "OpenAIResponsesModel" for kind in type(model).__mro__)
    return provider_for_model(f"{system}:{name}" if isinstance(system, str) and system else name,
                              "responses" if responses else "chat")


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

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # not built from agent specs (it takes a callback)

    def get_ordering(self) -> CapabilityOrdering:
        return CapabilityOrdering(position="innermost")  # after every other capability shaped the request

    def target(self, model: Any) -> str | None:
        return self.guard.provider if self.guard.provider is not None else provider_for_pydantic_model(model)

    def repaired_messages(self, messages: list[ModelMessage], model: Any = None) -> list[ModelMessage]:
        """The messages to send for `model` (a pydantic-ai Model or a model name): `messages` itself when
        healthy (or in mode "report"), else a new list of the same objects where nothing changed."""
        target = self.target(model)
        scanned = self.memo.first(messages, OBJECTS, target)
        if scanned is not None and scanned[0]:
            return messages
        conversion = _Conversion()
        token = _CONVERSION.set(conversion)
        try:
            repaired = self.guard.guard_objects(messages, OBJECTS, conversion.dump, FORMAT, target, scanned,
                                                memo=self.memo)
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
