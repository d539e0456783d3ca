"""The CLI's fast path for pi-ai files: decode only what the planner reads, keep raw bytes.

A 1,000,000-message transcript is ~230 MB.  Building a dict per message costs
more than parsing it, so here msgspec decodes each message into a tiny struct
(role, call ids and names, result id, stop fields) while a second C-level pass
keeps each message's original bytes.  The planner sees the same LightTranscript
as the dict API; the writer re-emits kept messages byte for byte.

Anything this reader is not sure about (not pi-ai, odd shapes, invalid JSON)
returns None, and the caller uses the general reader, which has the precise,
positioned error messages.  The structs hold the pi-ai schema's rules
(integrity.schema.pi_ai), so a file with a schema finding never passes here:
a role outside user/system/assistant/toolResult, content of the wrong shape, a
text that is not a string, arguments that are not an object, or a call id, tool
name or toolCallId that is not a string all send it to the general reader, which
reports them, as does a bookkeeping field of the wrong type (timestamp, stopReason,
errorMessage, api, provider, model, usage, toolName, isError, signatures).  A file
read here has no schema findings.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import compress, count, repeat
from operator import add, is_not
from typing import Any, BinaryIO, Literal

import msgspec

from ._entries import entry_message
from ._plan import Plan
from ._views import LightBuilder, LightTranscript, is_receipt

_NULL = msgspec.Raw(b"null")


# Content parts are tagged on "type" too: text and thinking parts decode to
# empty structs (their text is skipped, not copied), a toolCall keeps id and
# name.  Any other part type (an Anthropic tool_use, say) fails validation and
# the general reader, which knows every format, takes over.
class _Object(msgspec.Struct, gc=False):
    """Any JSON object, its members skipped (tool arguments: only their type is checked)."""


_UNSET = msgspec.UNSET
_Text_ = str | msgspec.UnsetType  # an optional string field: absent, or a string
_Number = int | float | msgspec.UnsetType


class _ToolCall(msgspec.Struct, gc=False, tag_field="type", tag="toolCall"):
    id: Any = None
    name: Any = None
    arguments: _Object | msgspec.UnsetType = _UNSET
    thoughtSignature: _Text_ = _UNSET


class _Text(msgspec.Struct, gc=False, tag_field="type", tag="text"):
    text: str
    textSignature: _Text_ = _UNSET


class _Thinking(msgspec.Struct, gc=False, tag_field="type", tag="thinking"):
    thinking: str
    thinkingSignature: _Text_ = _UNSET


class _Image(msgspec.Struct, gc=False, tag_field="type", tag="image"):
    data: _Text_ = _UNSET
    mimeType: _Text_ = _UNSET


_Part = _ToolCall | _Text | _Thinking | _Image
_UserContent = str | list[_Text | _Image]


# One struct per role, tagged on "role": msgspec skips every field the planner
# does not read (a user turn decodes to an empty struct), and the role is the
# struct's type, so no role string is allocated per message.  A role outside
# this list raises ValidationError and the general reader takes over.
class _User(msgspec.Struct, gc=False, tag_field="role", tag="user"):
    content: _UserContent
    timestamp: _Number = _UNSET


class _System(msgspec.Struct, gc=False, tag_field="role", tag="system"):
    content: _UserContent
    timestamp: _Number = _UNSET


class _Assistant(msgspec.Struct, gc=False, tag_field="role", tag="assistant"):
    content: list[_Part]
    stopReason: Literal["stop", "length", "toolUse", "error", "aborted"] | None = None
    errorMessage: str | None = None
    api: _Text_ = _UNSET
    provider: _Text_ = _UNSET
    model: _Text_ = _UNSET
    usage: _Object | msgspec.UnsetType = _UNSET
    timestamp: _Number = _UNSET


class _ToolResult(msgspec.Struct, gc=False, tag_field="role", tag="toolResult"):
    content: list[_Text | _Image]
    toolCallId: Any = None
    toolName: _Text_ = _UNSET
    isError: bool | msgspec.UnsetType = _UNSET
    timestamp: _Number = _UNSET
    details: msgspec.Raw = _NULL


_ROLE_OF: dict[type, str] = {_User: "user", _System: "system", _Assistant: "assistant", _ToolResult: "toolResult"}
_MESSAGES = msgspec.json.Decoder(list[_User | _System | _Assistant | _ToolResult])
_RAWS = msgspec.json.Decoder(list[msgspec.Raw])
_ENVELOPE = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ANY = msgspec.json.Decoder()



@dataclass
class FastTranscript:
    """A pi-ai file as raw message bytes plus its light view."""

    source: str
    data: bytes
    container: str  # "array", "object" or "jsonl"
    raws: list[Any]  # bytes-like, one per message
    light: LightTranscript
    envelope: dict[str, Any] | None = None  # object container: key -> raw value
    key: str = "messages"


_CHUNK = 20_000
"""Messages decoded into structs at a time: their texts are decoded (to check they are
strings) and freed chunk by chunk, so peak memory stays near the raw spans'."""


def _light(raws: list[Any], clean: bool = True) -> LightTranscript | None:
    """Build the light view from the raw message spans; None when the file does not look like
    pi-ai or breaks the pi-ai schema (the general reader takes over).

    Each chunk is decoded into structs and fed to the shared LightBuilder (views.py)
    by one plain loop: measured here it is 3-4x faster than a chain of map/compress
    passes.
    """
    roles: list[str] = []
    builder = LightBuilder(clean)
    pi_ai = False
    for start in range(0, len(raws), _CHUNK):
        messages = _MESSAGES.decode(b"[" + b",".join(raws[start:start + _CHUNK]) + b"]")
        roles.extend(map(_ROLE_OF.__getitem__, map(type, messages)))
        found = _feed(messages, start, builder)
        if found is None:
            return None
        pi_ai = pi_ai or found
    if not pi_ai and not builder.result_keys:
        return None
    return builder.build(roles)


def _feed(messages: list[Any], offset: int, builder: LightBuilder) -> bool | None:
    """Feed one chunk of structs to the builder: whether it shows a toolCall part, None when a
    call id, tool name or toolCallId is not a string (a schema finding).  The cheap pre-check on
    stopReason skips the builder for the common completed turn."""
    frame, result, no_calls = builder.frame, builder.result, builder.no_calls
    pi_ai = False
    for index, message in enumerate(messages, offset):
        kind = type(message)
        if kind is _ToolResult:
            details = message.details
            if type(message.toolCallId) is not str:
                return None  # a schema finding: the general reader reports it
            name = message.toolName
            result(index, message.toolCallId, None if name is _UNSET else name,
                   message.isError is True and details is not _NULL and is_receipt(True, _ANY.decode(details)))
        elif kind is _Assistant:
            content = message.content
            if content:
                calls = None
                for part in content:
                    if type(part) is _ToolCall:
                        pi_ai = True
                        if type(part.id) is not str or type(part.name) is not str:
                            return None  # a schema finding: the general reader reports it
                        if calls is None:
                            calls = [part]
                        else:
                            calls.append(part)
                if calls is not None:
                    frame(index, tuple(calls))
                    continue
            stop = message.stopReason
            if (stop is not None and stop != "toolUse" and stop != "stop") or message.errorMessage is not None:
                no_calls(index, stop, message.errorMessage, not content)
    return pi_ai


def read_fast(data: bytes, source: str, clean: bool = True) -> FastTranscript | None:
    """Read a pi-ai JSON array, {"messages": [...]} object or JSONL file; None when unsure.

    clean: classify clean turns while reading (LightBuilder; only the strict policy plans with them).

    The raw spans are decoded first; the light view is then built from them a
    chunk of structs at a time, so the structs (with their texts) never all live at once.
    """
    if _numbers_need_general_reader(data) or not _valid_utf8(data):
        return None
    start = data[:64].lstrip()
    envelope = None
    try:
        if start.startswith(b"["):
            container, body = "array", data
        elif start.startswith(b"{"):
            try:
                envelope = _ENVELOPE.decode(data)
            except msgspec.DecodeError:
                envelope = None
            if envelope is not None:
                raw_body = envelope.get("messages")
                if raw_body is None:
                    return None
                container, body = "object", bytes(raw_body)
            else:
                lines = [line for line in data.split(b"\n") if line.strip()]
                container, body = "jsonl", b""
        else:
            return None
        raws = lines if container == "jsonl" else _RAWS.decode(body)
        if _nested_too_deep(raws, container, envelope):
            return None
        light = _light(raws, clean)
        if light is None:
            return None
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    return FastTranscript(source, data, container, raws, light, envelope)


_UTF8_CHUNK = 1 << 20
"""Bytes checked for UTF-8 at a time: an ASCII slice (most of any transcript) costs a C scan, no decoding."""


def _valid_utf8(data: bytes) -> bool:
    """Whether the whole file is UTF-8.  msgspec checks the strings it decodes, not the ones it skips (tool
    arguments, usage, details): a file with invalid UTF-8 there passed here, and `check` then failed
    with an internal error when it decoded the messages for the providers.  The general reader names
    the byte."""
    if data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(data), _UTF8_CHUNK):
            chunk = data[start:start + _UTF8_CHUNK]
            if not (chunk.isascii() and not decoder.getstate()[0]):
                decoder.decode(chunk)
        decoder.decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True


# The fast path must refuse what the general reader refuses (formats.container), but
# msgspec checks only the syntax of the values it skips.  Numbers: each byte is mapped
# to "0" (a digit), "e" (e, E or +) or "x", so substring searches find a digit followed
# by a 3-digit exponent (1e999 overflows to infinity; a letter before the e, as in an id
# like "call_8_e6163", is no number) and a run of 200 digits (an integer past Python's
# digit limit, or a mantissa long enough to overflow with a 2-digit exponent).  Both are
# rare in transcripts; when seen, the general reader decides.
_NUMBER_SHAPES = bytes(48 if 48 <= c <= 57 else 101 if c in b"eE+" else 120 for c in range(256))


_EXPONENT_SHAPE = re.compile(b"0ee?000")  # either pattern below; measured faster than one bytes.find
_MANTISSA = frozenset(b"0123456789.-")
_SPACE = frozenset(b" \t\r\n")
_BEFORE_VALUE = frozenset(b":,[")


_SHAPES_CHUNK = 1 << 18
"""Bytes mapped to shapes at a time: each window overlaps the next by the longest pattern, so every
match of the whole file lies inside one window; the shapes stay in the CPU cache and never cost a
second copy of the file."""


def _numbers_need_general_reader(data: bytes) -> bool:
    for start in range(0, len(data), _SHAPES_CHUNK):
        shapes = data[start:start + _SHAPES_CHUNK + 200].translate(_NUMBER_SHAPES)
        if b"0" * 200 in shapes:
            return True
        if _EXPONENT_SHAPE.search(shapes) is None:  # neither pattern anywhere (the usual case): one pass, not two
            continue
        for pattern in (b"0e000", b"0ee000"):
            at = shapes.find(pattern)
            while at >= 0:  # a hit inside an id or a hex digest ("call_2_2e189") is no number: look before it
                if _number_token_at(data, start + at):
                    return True
                at = shapes.find(pattern, at + 1)
    return False


def _number_token_at(data: bytes, at: int) -> bool:
    """Whether the digit at `at` ends the mantissa of a JSON number token (it follows ':', ',' or '[').

    Text inside a string that looks like one ("x: 1e999") also answers yes: the general reader then
    decides, which is always safe.
    """
    start = at
    while start >= 0 and data[start] in _MANTISSA:
        start -= 1
    while start >= 0 and data[start] in _SPACE:
        start -= 1
    return start < 0 or data[start] in _BEFORE_VALUE


def _nested_too_deep(raws: list[Any], container: str, envelope: dict[str, Any] | None) -> bool:
    """Whether any message (or envelope member) nests past the general reader's limit.

    Only values long enough to be that deep are looked at (a value n levels deep
    is at least 2n bytes), so a file of ordinary messages costs one pass over lengths.
    """
    level = {"array": 1, "object": 2}.get(container, 0)
    shortest_deep = 2 * (MAX_DEPTH - level) + 1
    # Opening brackets of each long value, counted by C-level maps (no Python step per value):
    # only a value with more than the limit's worth can be that deep, and only those are parsed.
    long_ones = list(map(bytes, compress(raws, map(shortest_deep.__le__, map(len, raws)))))
    if long_ones:
        brackets = map(add, map(bytes.count, long_ones, repeat(b"[")), map(bytes.count, long_ones, repeat(b"{")))
        suspects = compress(long_ones, map((MAX_DEPTH - level).__lt__, brackets))
        if any(_too_deep(raw, level) for raw in suspects):
            return True
    members = [raw for key, raw in (envelope or {}).items() if key != "messages"]
    return any(_too_deep(bytes(raw), 1) for raw in members)


MAX_DEPTH = 200
"""The general reader's nesting limit (formats.container.MAX_DEPTH; a test holds them equal): kept
here so that a file without bracket-heavy messages never loads the formats package."""


def _too_deep(raw: bytes, level: int) -> bool:
    """formats.container.too_deep, loaded only for a value with enough opening brackets to be that deep."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH - level:
        return False
    from .formats.container import too_deep

    return too_deep(raw, 0, len(raw), level)


def _encode(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


_RUN = 4096
"""Kept messages joined into one piece at a time when writing (a few MB: bounded extra memory)."""


def write_fast(fast: FastTranscript, plan: Plan, now: Callable[[], int], out: BinaryIO) -> list[int]:
    """Write the view in the file's own container; kept messages byte for byte.

    An unchanged transcript is written back exactly as read.  Returns the
    timestamps given to synthesized receipts and turns, in view order (for the report).
    """
    write = out.write
    if not plan.changed or plan.order is None:
        write(fast.data)
        return []
    raws = fast.raws
    stamps: list[int] = []
    separator = b"\n" if fast.container == "jsonl" else b",\n"

    def stamp() -> int:
        value = now()
        stamps.append(value)
        return value

    def durable(index: int) -> Any:
        return _ANY.decode(raws[index])

    placeholder = plan.placeholder
    order: list[Any] = plan.order
    # Kept messages go out joined in runs of up to _RUN (one C-level join each, not two pieces per
    # message); only the messages the view changes are decoded and re-encoded, in view order.
    changed = list(compress(count(), map(is_not, map(type, order), repeat(int))))
    changed.append(len(order))

    def runs() -> Iterator[bytes]:
        start = 0
        for at in changed:
            for low in range(start, at, _RUN):
                yield separator.join(map(raws.__getitem__, order[low:min(at, low + _RUN)]))
            if at < len(order):
                yield _encode(entry_message(order[at], durable, placeholder, stamp))
            start = at + 1

    def separated() -> Iterator[bytes]:
        """The pieces with a separator between each two, made while they are written (never all held)."""
        items = runs()
        for item in items:
            yield item
            break
        for item in items:
            yield separator
            yield item

    pieces = separated()
    if fast.container == "jsonl":
        out.writelines(pieces)
        write(b"\n")
    elif fast.container == "array":
        write(b"[\n")
        out.writelines(pieces)
        write(b"\n]\n")
    else:
        assert fast.envelope is not None
        parts: list[bytes | None] = []
        for key, value in fast.envelope.items():
            parts.append(json.dumps(key, ensure_ascii=False).encode("utf-8") + b":")
            parts.append(None if key == fast.key else bytes(value))
            parts.append(b",")
        parts.pop()
        write(b"{")
        for part in parts:
            if part is None:
                write(b"[\n")
                out.writelines(pieces)
                write(b"\n]")
            else:
                write(part)
        write(b"}\n")
    return stamps
