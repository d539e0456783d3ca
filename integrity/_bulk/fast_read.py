"""The CLI's fast path for pi-ai files: decode only what the planner reads, keep raw bytes.

A 1,000,000-message transcript is ~230 MB.  Building a dict per message costs
more than parsing it, so here msgspec decodes each message into a tiny struct
(role, call ids and names, result id, stop fields), a block of the file at a
time (integrity._bulk.blocks): a large file is never held whole, only its light view
is, and the writer reads the blocks again to re-emit kept messages byte for byte
(a stretch of them as one slice of the file).  The planner sees the same
LightTranscript as the dict API.

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
import marshal
import os
import re
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain, compress, count, repeat
from operator import add, is_, is_not, ne
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

import msgspec

from ..loading import TranscriptError
from ..repair.entries import Synthesized, entry_message
from ..repair.messages import INTERRUPTED_TEXT, receipt_message
from ..repair.views import LightBuilder, LightTranscript, blank_text, fresh_calls, holds_refused_name, is_receipt
from .blocks import (
    BLOCK,
    JSON_SPACE,
    Block,
    FileSource,
    Source,
    Spans,
    array_blocks,
    block_raws,
    line_blocks,
    plain_end,
    plain_starts,
)
from .key_tokens import escaped_key_tokens, key_tokens_bound, key_tokens_rough

if TYPE_CHECKING:
    from ..repair.plan import Plan
    from .fast_bones import ItemShapes

# Content parts are tagged on "type" too: a toolCall keeps id and name, text and thinking parts their text
# (only to prove it a string).  Any other part type (an Anthropic tool_use, say) fails validation and
# the general reader, which knows every format, takes over.  Each part's one optional string field (its
# signature; an image's mimeType) is the attribute `sig` whatever its key, so that _feed counts a part's keys
# the same way whatever its kind.
_UNSET = msgspec.UNSET
_Text_ = str | msgspec.UnsetType  # an optional string field: absent, or a string
_Number = int | float | msgspec.UnsetType
_Object = dict[str, Any] | msgspec.UnsetType  # an object whose members the planner never reads (keys counted)
_Free = Any  # a value whose members the planner never reads (absent: UNSET; keys counted)


class _ToolCall(msgspec.Struct, gc=False, tag_field="type", tag="toolCall"):
    id: str
    name: str
    arguments: _Object = _UNSET  # its keys counted (_feed gathers it, then lets it go)
    sig: _Text_ = msgspec.field(name="thoughtSignature", default=_UNSET)


class _Text(msgspec.Struct, gc=False, tag_field="type", tag="text"):
    text: str
    sig: _Text_ = msgspec.field(name="textSignature", default=_UNSET)


class _Thinking(msgspec.Struct, gc=False, tag_field="type", tag="thinking"):
    thinking: str
    sig: _Text_ = msgspec.field(name="thinkingSignature", default=_UNSET)


class _Image(msgspec.Struct, gc=False, tag_field="type", tag="image"):
    data: _Text_ = _UNSET
    sig: _Text_ = msgspec.field(name="mimeType", default=_UNSET)


_Part = _ToolCall | _Text | _Thinking | _Image
_UserContent = str | list[_Text | _Image]


# One struct per role, tagged on "role": msgspec skips every field the planner
# does not read (a user turn decodes to an empty struct), and the role is the
# struct's type, so no role string is allocated per message.  A role outside
# this list raises ValidationError and the general reader takes over.
_HINT = msgspec.field(name="_native", default=_UNSET)
"""A message's native hints (formats.common.NATIVE): read only for its bones (which format they are for)."""


class _Said(msgspec.Struct, gc=False, tag_field="role"):
    """What a user or system turn holds (the two differ only in their tag)."""

    content: _UserContent
    timestamp: _Number = _UNSET
    hint: Any = _HINT


class _User(_Said, tag="user"):
    pass


class _System(_Said, tag="system"):
    pass


class _Assistant(msgspec.Struct, gc=False, tag_field="role", tag="assistant"):
    content: list[_Part]
    stopReason: Literal["stop", "length", "toolUse", "error", "aborted"] | None | msgspec.UnsetType = _UNSET
    errorMessage: str | None | msgspec.UnsetType = _UNSET
    api: _Text_ = _UNSET
    provider: _Text_ = _UNSET
    model: _Text_ = _UNSET
    usage: _Object = _UNSET  # its keys counted (_feed gathers it)
    timestamp: _Number = _UNSET
    hint: Any = _HINT


class _ToolResult(msgspec.Struct, gc=False, tag_field="role", tag="toolResult"):
    content: list[_Text | _Image]
    toolCallId: str
    toolName: _Text_ = _UNSET
    isError: bool | msgspec.UnsetType = _UNSET
    timestamp: _Number = _UNSET
    details: _Free = _UNSET
    hint: Any = _HINT



STRUCTS: tuple[type, type, type, type, type, dict[type, str]] = (
    _ToolResult, _Assistant, _User, _ToolCall, _Image, {_Text: "text", _Thinking: "thinking"})
"""This reader's struct classes, as fast_bones.struct_bones reads them (Structs)."""

_ROLE_OF: dict[type, str] = {_User: "user", _System: "system", _Assistant: "assistant", _ToolResult: "toolResult"}
_MESSAGES = msgspec.json.Decoder(list[_User | _System | _Assistant | _ToolResult])
_ENVELOPE = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ANY = msgspec.json.Decoder()



@dataclass
class FastTranscript:
    """A pi-ai file as its messages' raw bytes (by index, see blocks.Spans) plus its light view."""

    source: str
    input: Source  # the file's bytes (in memory, or read again from the file)
    container: str  # "array", "object" or "jsonl"
    raws: Spans  # bytes-like, one per message
    light: LightTranscript
    envelope: dict[str, Any] | None = None  # object container: key -> raw value
    key: str = "messages"
    bones: tuple[list[Any], set[str]] | None = None  # every message's bones, read with it (read_fast's bones)
    hinted: set[str] | None = None  # the formats of the messages' native hints, when bones were asked (any way)
    items: ItemShapes | None = None  # the Responses items of each message (bones="items")
    structs: list[Any] | None = None  # a file in memory read for hints: every message's struct (Durable's bones)


def _feed(messages: list[Any], offset: int, builder: LightBuilder, names: dict[str, str],
          free: list[Any]) -> tuple[bool, int, bool]:
    """Feed one block of structs to the builder and count the keys they hold, each object's distinct keys
    once: whether it shows a toolCall part, the keys (the free values' own keys aside: _inner_keys counts
    them) and whether some message carries native hints.  names: each tool name seen so far, so that the
    calls kept in the light view share one string per name.  free: gets every call's arguments (which the
    call lets go), every turn's usage, every result's details and every message's native hints.  (A call id,
    tool name or toolCallId that is not a string is a schema finding: the structs refuse it, and the general
    reader reports it.)

    Most messages belong to clean turns: a frame with fresh call ids (and no part after a call) opens a
    turn, and each of its results right after it answers the call the turn waits for.  Those steps of
    LightBuilder (frame and result) are taken here, on the builder's open turn held in local names, with no
    call per message, and so is a result when no turn is open (a loose one: most of a defect-dense file's);
    any other frame or result goes to the builder's own method, the open turn handed over before and read
    back after.
    A turn whose results end a block hands the builder the tool names of the results it got so far
    (LightBuilder.pending), so that a turn found not clean in the next block names them all.

    A key counts when its field was in the JSON (every optional field defaults to UNSET): each message's and
    part's tag ("role", "type") and required fields, and each optional field set, tested where the loop
    holds the struct anyway, on a struct of one kind at a time (a Python step per field is cheaper than a
    tuple of fields per struct, or a map per field).  A field the structs skip (not in the pi-ai schema) is
    not counted.

    Every free value was decoded with its message (by msgspec, which refuses a number Python reads as
    infinity or an integer longer than Python reads, as the general reader does), so a block whose keys
    all count has no value left unread: see _sound_in_memory."""
    no_calls = builder.no_calls
    name_of = names.setdefault
    keep = free.append
    unset = _UNSET
    image = _Image
    frames, result_keys, first, loose_ids = builder.frames, builder.result_keys, builder.first_frame, builder.loose_ids
    clean, loose, pending, sparse = builder.clean_frames, builder.loose, builder.pending, builder.sparse
    named = None if sparse else builder.names  # each result's tool name, kept here (else only loose results')
    loose_names, receipts, images = builder.names, builder.receipts, builder.images
    turns = builder.classifying
    want_at, want, turn, turn_frame = builder.want_at, builder.want, builder.turn, builder.turn_frame
    told = want_at  # the open turn's results before this index are in pending
    late = -1  # the last assistant message with a part after a call (LightBuilder.frame's late)
    pi_ai = hinted = False
    keys = 0
    for index, message in enumerate(messages, offset):
        kind = type(message)
        if kind is _ToolResult:
            call_id = message.toolCallId
            name = message.toolName
            error = message.isError
            details = message.details
            if name is unset:  # role, toolCallId and content, then each optional field set
                name = None
                keys += 3 if error is unset else 4
            else:
                keys += 4 if error is unset else 5
            if message.timestamp is not unset:
                keys += 1
            if details is not unset:
                keys += 1
                keep(details)
            if message.hint is not unset:
                hinted = True
                keys += 1
                keep(message.hint)
            for part in message.content:
                keys += 3 if part.sig is not unset else 2
                if type(part) is image:
                    if part.data is unset:
                        keys -= 1
                    elif images[-1:] != [index]:
                        images.append(index)
            if index == want_at and call_id == want and (error is not True or not is_receipt(True, details)):
                result_keys[index] = want  # the call's own string: each id of a clean turn is held once
                if named is not None:
                    named[index] = name
                answered = index - turn_frame
                if answered == len(turn):
                    clean.append(turn_frame)
                    want_at = -1
                    if pending:
                        pending.clear()
                else:
                    want = turn[answered].id
                    want_at = index + 1
                continue
            if want_at == -1 and turns:  # no turn open: a loose result (LightBuilder.result's step for it)
                result_keys[index] = call_id
                loose_names[index] = name
                if error is True and is_receipt(True, details):
                    receipts.add(index)
                loose.append(index)
                loose_ids.add(call_id)
                continue
            if sparse and told < want_at:
                _tell(messages, offset, told, want_at, pending)
            builder.want_at, builder.want, builder.turn, builder.turn_frame = want_at, want, turn, turn_frame
            builder.result(index, call_id, name, error is True and is_receipt(True, details))
            want_at, want, turn, turn_frame = builder.want_at, builder.want, builder.turn, builder.turn_frame
            told = want_at
        elif kind is _Assistant:
            content = message.content
            stop, error = message.stopReason, message.errorMessage
            keys += 2 if stop is unset else 3  # role, content and stopReason, then each optional field set
            if error is not unset:
                keys += 1
            if message.api is not unset:
                keys += 1
            if message.provider is not unset:
                keys += 1
            if message.model is not unset:
                keys += 1
            if message.timestamp is not unset:
                keys += 1
            if message.usage is not unset:
                keys += 1
                keep(message.usage)
            if message.hint is not unset:
                hinted = True
                keys += 1
                keep(message.hint)
            calls = None
            for part in content:
                if type(part) is _ToolCall:
                    name = part.name
                    part.name = name_of(name, name)
                    keys += 4 if part.sig is not unset else 3  # type, id, name and sig
                    if part.arguments is not unset:
                        keys += 1
                        keep(part.arguments)
                        part.arguments = unset  # counted here; ~6 MB a million messages
                    if calls is None:
                        calls = [part]
                    else:
                        calls.append(part)
                else:
                    keys += 3 if part.sig is not unset else 2
                    if type(part) is image and part.data is unset:
                        keys -= 1
                    if calls is not None:  # a part after a call: no clean turn (LightBuilder.frame's late)
                        late = index
            if calls is not None:
                pi_ai = True
                found = tuple(calls)
                if want_at == -1 and turns:  # frame(), when no turn is open
                    frames[index] = found
                    if len(found) == 1:
                        call_id = found[0].id
                        if call_id in first:
                            fresh = False
                        else:
                            first[call_id] = index
                            fresh = call_id not in loose_ids and call_id != ""
                    else:
                        fresh = fresh_calls(found, index, first, loose_ids)
                    if late == index:  # frame()'s late: never a clean turn
                        builder.late.add(index)
                        loose.append(index)
                    elif fresh:
                        turn, turn_frame, want_at, want = found, index, index + 1, found[0].id
                        told = want_at
                    else:
                        loose.append(index)
                    continue
                if sparse and told < want_at:
                    _tell(messages, offset, told, want_at, pending)
                builder.want_at, builder.want, builder.turn, builder.turn_frame = want_at, want, turn, turn_frame
                builder.frame(index, found, late == index)
                want_at, want, turn, turn_frame = builder.want_at, builder.want, builder.turn, builder.turn_frame
                told = want_at
                continue
            if (stop is not unset and stop is not None and stop != "toolUse" and stop != "stop") \
                    or (error is not unset and error is not None):
                no_calls(index, None if stop is unset else stop, None if error is unset else error, not content,
                         bool(content) and all(type(part) is _Text and blank_text(part.text) for part in content))
        else:
            content = message.content
            keys += 2 if message.timestamp is unset else 3  # role, content and timestamp
            if message.hint is not unset:
                hinted = True
                keys += 1
                keep(message.hint)
            if type(content) is list:
                for part in content:
                    keys += 3 if part.sig is not unset else 2
                    if type(part) is image:
                        if part.data is unset:
                            keys -= 1
                        elif images[-1:] != [index]:
                            images.append(index)
    if sparse and told < want_at:
        _tell(messages, offset, told, want_at, pending)
    builder.want_at, builder.want, builder.turn, builder.turn_frame = want_at, want, turn, turn_frame
    return pi_ai, keys, hinted


def _tell(messages: list[Any], offset: int, start: int, stop: int, pending: list[tuple[int, Any]]) -> None:
    """The open turn's results start..stop-1 (answered in _feed) into pending, with their tool names, as
    LightBuilder.result puts each (the builder names them if the turn turns out not clean)."""
    for index in range(start, stop):
        name = messages[index - offset].toolName
        pending.append((index, None if name is _UNSET else name))


def read_fast(data: bytes, source: str, clean: bool = True, bones: bool | str = False, blank: bool = True
              ) -> FastTranscript | None:
    """Read a pi-ai JSON array, {"messages": [...]} object or JSONL file held in memory; None when unsure.

    clean: classify clean turns while reading (LightBuilder; only the strict policy plans with them).
    bones: also make every message's bones from the structs it is read into (a provider verdict judges
    them: integrity.formats.skeleton), instead of decoding the messages again later (fast_bones); "hints":
    only learn which formats the messages' native hints are for (providers.sparse judges the light view and
    the bones of a few messages); "items": those, and the Responses items each message is written as
    (fast_bones.ItemShapes: providers.sparse_items judges a Responses request from them).
    blank: look for blank texts and messages written with no block (fast_bones.blank_or_empty), which only a
    provider with empty-content rules reads (Anthropic: pipeline.reads_contents); False skips the pass.
    """
    return _read(Source(data), source, clean, False, bones, blank)


STREAM_FROM = 8 << 20
"""Files at least this large are read a block at a time (read_fast_file); smaller ones whole."""


def read_fast_file(stream: FileSource, clean: bool = True, writes: bool = False,
                   bones: bool | str = False, blank: bool = True) -> FastTranscript | None:
    """read_fast for a large regular file read a block at a time, never whole (see integrity._bulk.blocks): a
    1,000,000-message file is then read in about the memory of its light view.  None when the file
    is smaller than STREAM_FROM or not sure to be pi-ai: the caller still owns `stream` and reads it
    whole.  writes: the view will be written (write_fast), so learn which blocks it can copy as
    slices (blocks.plain_starts)."""
    if stream.size < STREAM_FROM:
        return None
    return _read(stream, stream.source, clean, writes, bones, blank)


def _no_blank_check() -> set[str]:
    """The hints a read starts with when no provider asked reads blank texts: fast_bones' mark for one already
    there, so its pass over every chunk (blank_or_empty) is skipped."""
    from ..formats.skeleton import BLANK_TEXT

    return {BLANK_TEXT}


def _read(input: Source, source: str, clean: bool, writes: bool = False, bones: bool | str = False,
          blank: bool = True) -> FastTranscript | None:
    head = input.read(0, 64).lstrip(JSON_SPACE)
    envelope = None
    body, low, high = input, 0, input.size
    try:
        if head.startswith(b"["):
            container = "array"
        elif head.startswith(b"{"):
            container, envelope = _object_or_lines(input)
            if container == "object":
                assert envelope is not None
                raw_body = envelope.get("messages")
                if raw_body is None:
                    return None
                body = Source(bytes(raw_body))
                low, high = 0, body.size
                members = [raw for key, raw in envelope.items() if key != "messages"]
                if any(_too_deep(bytes(raw), 1) for raw in members):
                    return None
        else:
            return None
        if container != "jsonl":
            bounds = _array_body(body, low, high)
            if bounds is None:
                return None
            low, high = bounds
        made: tuple[list[Any] | None, set[str]] | None = \
            (None if bones in ("hints", "items") else [], set() if blank else _no_blank_check()) if bones else None
        items = _item_shapes() if bones == "items" else None
        # a file in memory whose verdicts are judged from the light view keeps its messages' structs: the few
        # messages judged take their bones from them (fast_bones.struct_bones), not from decoding them again
        structs: list[Any] | None = [] if bones in ("hints", "items") and not isinstance(body, FileSource) else None
        # a verdict judged from the light view reads a few messages again (fast_bones.bones_at): a plain block's
        # message starts (learnt beside) let it slice them out instead of cutting the block into raw spans again
        read = _blocks(body, container, low, high, clean, writes or bones in ("hints", "items"), made, items,
                       structs)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if read is None:
        return None
    light, blocks, raws, starts = read
    if made is not None and holds_refused_name(light):  # the light view the sparse judgment reads holds no rule on
        from ..formats.skeleton import TOOL_NAME  # names: marked, a provider that refuses one of them judges the
        # bones, and the turns holding it in windows (only when a provider verdict is asked)

        made[1].add(TOOL_NAME)
    if made is not None:
        # (a provider is asked) a message may be written with a string above a provider's limit when a block is longer:
        # a message's bytes bound the characters of its texts joined and of its arguments as compact JSON, and a
        # block's bytes are its messages'.  Marked, the full request judges it.
        from ..formats.skeleton import LONG_STRING, STRING_LIMIT

        if any(length > STRING_LIMIT for _, length, _, _ in blocks):
            made[1].add(LONG_STRING)
    spans = Spans(body, source, container, blocks, light.size, raws, starts)
    return FastTranscript(source, input, container, spans, light, envelope,
                          bones=None if made is None or made[0] is None else (made[0], made[1]),
                          hinted=None if made is None else made[1], items=items, structs=structs)


def _item_shapes() -> ItemShapes:
    from .fast_bones import ItemShapes  # only when a Responses verdict is asked

    return ItemShapes()


def _object_or_lines(input: Source) -> tuple[str, dict[str, Any] | None]:
    """A file opening with '{': one JSON object ("object", its members) or JSON lines ("jsonl").

    In memory the whole file is decoded as one object, as ever; a file read a block at a time is
    JSON lines when its first line is a whole object with more after it (one object cannot be
    followed by anything), and is otherwise read whole as one object (a DecodeError when it is not).
    """
    if isinstance(input, FileSource):
        first = input.read(0, BLOCK)
        end = first.find(b"\n")
        if end > 0 and first[end:].strip(JSON_SPACE):
            try:
                _ENVELOPE.decode(first[:end])
                return "jsonl", None
            except msgspec.DecodeError:
                pass
        return "object", _ENVELOPE.decode(input.whole())
    try:
        return "object", _ENVELOPE.decode(input.whole())
    except msgspec.DecodeError:
        return "jsonl", None


def _array_body(body: Source, low: int, high: int) -> tuple[int, int] | None:
    """Where the values of the JSON array body[low:high] lie: after its '[' and before its ']' (JSON
    whitespace stripped); None when it is not one array between whitespace, or an empty one."""
    head = body.read(low, 64)
    start = low + len(head) - len(head.lstrip(JSON_SPACE))
    tail = body.read(max(low, high - 64), high - max(low, high - 64))
    end = high - (len(tail) - len(tail.rstrip(JSON_SPACE)))
    if not (body.read(start, 1) == b"[" and end - start >= 2 and body.read(end - 1, 1) == b"]"):
        return None
    inner = body.read(start + 1, 64)
    first = start + 1 + len(inner) - len(inner.lstrip(JSON_SPACE))
    tail = body.read(max(first, end - 1 - 64), end - 1 - max(first, end - 1 - 64))
    last = end - 1 - (len(tail) - len(tail.rstrip(JSON_SPACE)))
    return (first, last) if last > first else None


_Read = tuple[LightTranscript, list[Block], "list[Any] | None", list["array[int] | None"]]
"""The light view, the blocks, every raw span (JSON lines in memory; None: decoded when asked, by Spans) and
each block's plain starts (blocks.plain_starts)."""


def _blocks(body: Source, container: str, low: int, high: int, clean: bool, writes: bool,
            bones: tuple[list[Any] | None, set[str]] | None = None, items: ItemShapes | None = None,
            structs_kept: list[Any] | None = None) -> _Read | None:
    """Build the light view a block at a time (see integrity._bulk.blocks): the blocks, and every raw span of
    JSON lines in memory (an array's are decoded when asked for, by Spans); None when the file does not look
    like pi-ai or breaks the pi-ai schema.

    Each block is proved valid JSON (UTF-8, numbers Python reads alike, nesting the general reader
    allows) before its messages are decoded into structs and fed to the shared LightBuilder
    (views.py) by one plain loop (measured 3-4x faster than a chain of map/compress passes).  bones: gets
    every message's bones and the formats of their hints, made from the same structs (no bones, only the
    formats, when its list is None).  items: gets every message's Responses items (with bones only).
    structs_kept: gets every message's struct.
    """
    kinds: dict[Any, Any] = {}
    keep = not isinstance(body, FileSource)
    roles: list[str] = []
    blocks: list[Block] = []
    kept: list[Any] = []
    builder = LightBuilder(clean, sparse_names=True)  # ids here are strings (else the general reader reads)
    names: dict[str, str] = {}
    decoded: list[tuple[int, bool]] = []  # each block's keys its structs hold (_feed, _inner_keys), and whether
    # some message of it may nest deeper than the general reader allows (see _sound_in_memory)
    pi_ai = False
    beside = None if keep else _Beside.start(body, container, low, high, writes)
    # An array's blocks are decoded once, into the structs (that proves each cut as well as the raw spans
    # would), when a child checks beside or the file is in memory (its raw spans are then decoded only when
    # asked for: Spans); otherwise each block's raw spans are decoded too, for the checks.
    structs = container == "array" and (beside is not None or keep)
    try:
        for offset, length, document, values in _split(body, container, low, high, structs):
            if structs:
                messages = values
            else:
                document = _document(document, values, container)
                if beside is None and not _sound(document, values, container, keys=False):
                    return None
                messages = _MESSAGES.decode(document)
                if len(messages) != len(values):  # a JSON line holding more than one value
                    return None
                if keep:
                    kept.extend(values)
            first = len(roles)
            roles.extend(map(_ROLE_OF.__getitem__, map(type, messages)))
            free: list[Any] = []
            found, keys, hinted = _feed(messages, first, builder, names, free)
            inner, depth = _inner_keys(free)
            keys += inner
            if bones is not None:
                from .fast_bones import struct_bones, struct_hints  # only when a provider verdict is asked

                if bones[0] is None:
                    struct_hints(messages, bones[1], STRUCTS)
                else:
                    bones[0].extend(struct_bones(messages, bones[1], kinds, STRUCTS))
            if items is not None:
                from .fast_bones import struct_items

                struct_items(messages, items, STRUCTS)
            if structs_kept is not None:
                structs_kept += messages
            if beside is None and not (_sound_in_memory(document, hinted, depth, keys, container)
                                       if structs else not _lost_keys(document, keys)):
                return None
            decoded.append((keys, hinted or depth > _SHALLOW - _LEVEL.get(container, 0)))
            pi_ai = pi_ai or found
            blocks.append((offset, length, first, len(messages)))
        if not pi_ai and not builder.result_keys:
            return None
        starts: list[array[int] | None] = [None] * len(blocks)
        if beside is not None:
            answer = beside.answer()
            if answer is None or not _keys_kept(body, container, blocks, decoded, answer):
                return None
            for number, ((offset, length, _, count), told) in enumerate(zip(blocks, answer, strict=False)):
                plain = told[3]
                if told[:2] == (offset, length) and plain is not None and len(plain) == count + 1:
                    starts[number] = plain  # the child cut the file where this process did
    finally:
        if beside is not None:
            beside.stop()
    if isinstance(body, FileSource):
        body.check()
    return builder.build(roles), blocks, kept if keep and not structs else None, starts


def _split(body: Source, container: str, low: int, high: int,
           structs: bool = False) -> Iterator[tuple[int, int, bytes, list[Any]]]:
    """A body's blocks (integrity._bulk.blocks): JSON lines, or an array's values as raw spans (as message structs
    with structs: the caller's only decode of the block)."""
    if container == "jsonl":
        return line_blocks(body, low, high)
    return array_blocks(body, low, high, _MESSAGES.decode) if structs else array_blocks(body, low, high)


def _document(chunk: bytes, raws: list[Any], container: str) -> bytes:
    """A block as one JSON array of its messages (JSON lines joined; the blank ones are ASCII whitespace)."""
    return b"".join((b"[", b",".join(raws), b"]")) if container == "jsonl" else chunk


def _sound(document: bytes, raws: list[Any], container: str, keys: bool = True) -> bool:
    """Whether the general reader would read a block's bytes as msgspec does: UTF-8 throughout, numbers
    Python reads alike, no message nested past its limit, and (keys) no object naming a key twice
    (msgspec keeps the last value in silence: the general reader reports it as a duplicate_key finding).
    Without keys the caller holds the block's key tokens to the keys its structs decoded (_lost_keys)."""
    return (not _numbers_need_general_reader(document) and _valid_utf8(document)
            and not _nested_too_deep(raws, container) and not (keys and _lost_keys(document)))


def _lost_keys(document: bytes, decoded: int | None = None, bound: int | None = -1) -> bool:
    """Whether decoding the block loses a key (an object names one twice), or that cannot be ruled out
    cheaply (a key spaced from its colon): the key tokens in the bytes against the keys decoded.

    decoded: the keys the block's structs hold (_feed).  When it equals the bound on the key
    tokens no key was lost (each object's distinct keys <= the keys written <= the bound), and the block
    is never decoded a second time; otherwise (a field the structs skip, or a duplicate) every key of
    a generic decode is counted.  bound: key_tokens_bound(document) when the caller has it (-1: not given).
    """
    if bound == -1:
        bound = key_tokens_bound(document)
    if bound is None:
        return True
    if decoded is not None and decoded == bound:
        return False
    from ..formats.duplicates import count_keys

    try:
        return bound != count_keys([msgspec.json.decode(document)])
    except (msgspec.DecodeError, RecursionError):
        return True


def _inner_keys(values: list[Any]) -> tuple[int, int]:
    """The keys of every object among values and nested in them (formats.duplicates.count_keys; only containers
    are walked), and how many levels of arrays and objects they nest (0: no container), here so that the fast
    path never loads the formats package.  Walked a level at a time by C-level maps (no Python step per object:
    a million messages' usage and arguments hold millions); a level without containers (the values of most
    arguments: strings and numbers) ends the walk after one pass over their types."""
    total = depth = 0
    while values:
        kinds = list(map(type, values))
        objects = kinds.count(dict)
        arrays = kinds.count(list)
        if not objects and not arrays:
            break
        depth += 1
        inner: list[Any] = []
        if objects:
            found = list(compress(values, map(is_, kinds, repeat(dict))))
            total += sum(map(len, found))
            inner += chain.from_iterable(map(dict.values, found))
        if arrays:
            inner += chain.from_iterable(compress(values, map(is_, kinds, repeat(list))))
        values = inner
    return total, depth




_Told = tuple[int, int, "int | None", "array[int] | None"]
"""What the child of _Beside says of each block it cut: its offset and length, the bound on its key tokens
(key_tokens_bound; None: none cheaply) and where its messages start when it is plain (blocks.plain_starts; None:
not plain, or not asked)."""


def _check_beside(body: Source, container: str, low: int, high: int, writes: bool) -> list[_Told] | None:
    """What the child of _Beside works out: None when some block is not UTF-8, else for each block
    the bound on its key tokens, and where its messages start when the view will be written (writes) and
    the block is plain (the parent would otherwise add up their lengths as it writes).  The keys the structs
    hold are counted by the reader, which decodes them anyway (_keys_kept holds the two together): the child
    never decodes the structs a second time.

    The other checks of _sound (numbers, nesting) are the reader's, and only for a block whose keys do not
    all count or that may nest deep (_keys_kept): a block whose every key its structs hold had every value
    decoded by msgspec, which refuses the numbers the general reader refuses (see _sound_in_memory).  They
    were two fifths of this child's work, which a large file's reading waits for."""
    found: list[_Told] = []
    for offset, length, chunk, raws in _split(body, container, low, high):
        document = _document(chunk, raws, container)
        if not _valid_utf8(document):
            return None
        start, end = (0, plain_end(chunk, container)) if container == "jsonl" else (1, len(chunk) - 1)
        plain = plain_starts(chunk, start, end, raws, container) if writes else None
        found.append((offset, length, key_tokens_bound(document), plain))
    return found


def _keys_kept(body: Source, container: str, blocks: list[Block], decoded: list[tuple[int, bool]],
               told: list[_Told]) -> bool:
    """Whether every block reads as the general reader reads it, from the keys each block's structs hold and
    whether it may nest deep (decoded, by the reader) and the bound on its key tokens the child worked out
    (told): when the keys equal the bound no key was lost and every value was decoded (see _lost_keys,
    _sound_in_memory), and only a block that may nest deep is read again, for its nesting.  A block where
    they differ, or that the child cut elsewhere, is read again and checked exactly (_sound, and _lost_keys:
    one generic decode of it)."""
    for number, (offset, length, _, _) in enumerate(blocks):
        said = told[number] if number < len(told) else None
        keys, deep = decoded[number]
        if said is not None and said[:2] == (offset, length) and said[2] is not None and said[2] == keys:
            if deep and _nested_too_deep(block_raws(body.read(offset, length), container), container):
                return False
            continue
        chunk = body.read(offset, length)
        raws = block_raws(chunk, container)
        document = _document(chunk, raws, container) if container == "jsonl" else b"".join((b"[", chunk, b"]"))
        if not _sound(document, raws, container, keys=False) or _lost_keys(document, keys):
            return False
    return True


def _sent(told: list[_Told] | None) -> Any:
    """The child's answer as marshal writes it (each block's message starts as their bytes)."""
    if told is None:
        return None
    return [(offset, length, bound, None if plain is None else plain.tobytes())
            for offset, length, bound, plain in told]


def _received(sent: Any) -> list[_Told] | None:
    """_sent's answer back as the child worked it out (None for anything else)."""
    if not isinstance(sent, list):
        return None
    told: list[_Told] = []
    for offset, length, bound, plain in sent:
        starts = None
        if plain is not None:
            starts = array("Q")
            starts.frombytes(plain)
        told.append((offset, length, bound, starts))
    return told


class _Beside:
    """_check_beside run by a forked child on another core while this process decodes the messages:
    its checks (UTF-8, the key tokens, plain blocks) cost about as much as cutting the file into blocks.
    Where fork is missing the caller checks each block itself."""

    def __init__(self, pid: int, pipe: int) -> None:
        self._pid = pid
        self._pipe = pipe

    @classmethod
    def start(cls, body: Source, container: str, low: int, high: int, writes: bool) -> _Beside | None:
        if not hasattr(os, "fork"):
            return None
        try:
            read, write = os.pipe()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:  # no process to spare: the caller checks each block itself
            os.close(read)
            os.close(write)
            return None
        if pid == 0:  # the child: send its answer (marshal: built in, nothing to import), then leave without cleanup
            code = 0
            try:
                os.close(read)
                with os.fdopen(write, "wb") as out:
                    out.write(marshal.dumps(_sent(_check_beside(body, container, low, high, writes))))
            except BaseException:
                code = 1  # no answer: the parent reads the file with the general reader
            finally:
                os._exit(code)
        os.close(write)
        return cls(pid, read)

    def answer(self) -> list[_Told] | None:
        """The child's answer (None: some block is not sound, or the child failed)."""
        parts = []
        while True:
            part = os.read(self._pipe, 1 << 20)
            if not part:
                break
            parts.append(part)
        try:
            return _received(marshal.loads(b"".join(parts)))
        except Exception:
            return None

    def stop(self) -> None:
        """Reap the child (stopping it first when the reader gave up before asking)."""
        if self._pid:
            from .children import kill_and_reap

            kill_and_reap(self._pid)
            os.close(self._pipe)
            self._pid = 0


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


def _nested_too_deep(raws: list[Any], container: str) -> bool:
    """Whether any message of a block nests past the general reader's limit.

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
        return any(_too_deep(raw, level) for raw in suspects)
    return False


_SPANS = msgspec.json.Decoder(list[msgspec.Raw])


def _sound_in_memory(document: bytes, hinted: bool, depth: int, keys: int, container: str) -> bool:
    """_sound for a block decoded straight into its structs (a file in memory), its keys included: its raw spans
    are decoded only when a check needs them.

    When the keys the structs hold (_feed) equal the key tokens, every key written is one the
    structs read: no field was skipped, so every value of the block was decoded by msgspec, typed or
    generically (the free values: _feed), and msgspec refuses exactly the numbers the general
    reader refuses (infinite floats, integers past Python's digit limit: a test holds them alike), so no
    number needs looking for.  A message then nests only as deep as its free values (the calls' arguments,
    three levels in, the turns' usage and the results' details, one level in; depth: the deepest of them,
    _inner_keys) and its native hints (hinted: some message has them): with no hint, and no free value that
    deep even three levels in, no message is.  Otherwise every check runs on the whole block, as for any block.
    """
    if not _valid_utf8(document):
        return False
    rough = key_tokens_rough(document)
    bound = rough if rough is None or rough == keys else rough + escaped_key_tokens(document)
    if bound is not None and bound == keys:
        if not hinted and depth <= _SHALLOW - _LEVEL.get(container, 0):
            return True
        return not _nested_too_deep(_SPANS.decode(document), container)
    return not (_numbers_need_general_reader(document) or _lost_keys(document, keys, bound)
                or _nested_too_deep(_SPANS.decode(document), container))


MAX_DEPTH = 200
"""The general reader's nesting limit (formats.container.MAX_DEPTH; a test holds them equal): kept
here so that a file without bracket-heavy messages never loads the formats package."""

_SHALLOW = MAX_DEPTH - 3
"""The deepest free values (_inner_keys' depth) a message without native hints may hold, its container aside
(_LEVEL), and not nest past MAX_DEPTH: a call's arguments lie three levels into its message."""

_LEVEL = {"array": 1, "object": 2}
"""The levels a container puts around each message."""


def _too_deep(raw: bytes, level: int) -> bool:
    """formats.container.too_deep, loaded only for a value with enough opening brackets to be that deep."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH - level:
        return False
    from ..formats.container import too_deep

    return too_deep(raw, 0, len(raw), level)


def encoded(message: Any) -> bytes:
    """A message as the fast writer writes one anew: compact JSON, UTF-8 (write_spliced's callers too)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


_TEXT = json.encoder.encode_basestring  # the string encoder json.dumps uses with ensure_ascii=False


def _receipt(entry: Synthesized, placeholder: str | None, timestamp: Any) -> bytes | None:
    """encoded(receipt_message(...)) for a synthesized receipt, written straight from its entry (no dict,
    no encoder walk: a defect-dense file has thousands); None when the timestamp is not an int (then the
    caller encodes the message).  The same text as json.dumps's, piece by piece: a test holds them equal."""
    if type(timestamp) is not int:
        return None
    text = INTERRUPTED_TEXT if placeholder is None else placeholder
    return "".join(('{"role":"toolResult","toolCallId":', _TEXT(entry.call_id),
                    ',"toolName":', _TEXT(entry.tool_name),
                    ',"content":[{"type":"text","text":', _TEXT(text),
                    '}],"details":{"ok":false,"error":"interrupted"},"isError":true,"timestamp":',
                    int.__repr__(timestamp), "}")).encode("utf-8")


_WRITE = 1 << 20
"""Bytes joined into one write (bounded extra memory, few system calls)."""

_FEW = 16
"""Kept messages between two other entries merged into stretches one by one (more: by C-level maps)."""

_RUN = 4096
"""Kept messages joined into one piece at a time when writing (a few MB: bounded extra memory)."""


def _stretches(order: list[Any], start: int, stop: int, raws: Spans) -> Iterator[Any]:
    """The kept messages order[start:stop] (all indices) as pieces: one per stretch of consecutive
    messages (Spans.stretch: a slice of the file, or of the bytes in memory), found by C-level maps."""
    for low in range(start, stop, _RUN):
        run = order[low:min(stop, low + _RUN)]
        begin = 0
        for cut in [*compress(count(1), map(ne, run[1:], map(add, run, repeat(1)))), len(run)]:
            got = raws.piece(run[begin], run[cut - 1] + 1)
            if got is None:
                yield from raws.stretch(run[begin], run[cut - 1] + 1)
            else:
                yield got
            begin = cut


def write_fast(fast: FastTranscript, plan: Plan, now: Callable[[], int], out: BinaryIO) -> list[int]:
    """Write the view in the file's own container; kept messages byte for byte.

    An unchanged transcript is written back exactly as read.  Returns the
    timestamps given to synthesized receipts and turns, in view order (for the report).  A plan whose
    stretches carry turns renamed alike (plan.renamed_alike) is refused: their new ids are not in its order.
    """
    if plan.renamed_alike is not None:
        raise ValueError("write_fast writes an order that lists its renamed messages: plan it without stretches")
    try:
        return _write(fast, plan, now, out)
    except TranscriptError as error:  # the file changed between the passes: nothing is written
        from .atomic_write import WriteError

        raise WriteError(error.source, error.problem) from None


def _write(fast: FastTranscript, plan: Plan, now: Callable[[], int], out: BinaryIO) -> list[int]:
    if not plan.changed or plan.order is None:
        fast.input.copy_to(out)
        return []
    stamps: list[int] = []

    def stamp() -> int:
        value = now()
        stamps.append(value)
        return value

    _framed(fast, out, lambda pieces, ending: _write_order(plan, fast.raws, pieces, ending, stamp))
    fast.input.check()  # (a file read a block at a time: unchanged since it was read, or nothing is written)
    return stamps


def write_spliced(fast: FastTranscript, view: list[int | bytes], out: BinaryIO) -> None:
    """Write a view given as its messages in the file's own container, as write_fast writes one: an int is the
    index of a message kept as it is (its bytes in the file), bytes a message written anew (compact JSON).

    The general reader's writer for a pi-ai file (integrity.written) writes through this, so `repair --report` and
    the Inspector's download give the bytes `repair` gives: one file for one view."""
    def messages(pieces: _Pieces, ending: bytes) -> None:
        low = high = -1  # the kept messages low..high-1 not written yet (none: -1)
        for entry in view:
            if type(entry) is int:
                if entry == high:
                    high += 1
                    continue
                if low != high:
                    pieces.run(low, high)
                low, high = entry, entry + 1
                continue
            if low != high:
                pieces.run(low, high)
                low = high = -1
            assert isinstance(entry, bytes)
            pieces.add(entry + ending)
        if low != high:
            pieces.run(low, high)
        pieces.flush()

    _framed(fast, out, messages)


def _framed(fast: FastTranscript, out: BinaryIO, messages: Callable[[_Pieces, bytes], None]) -> None:
    """The file's container around the view's messages, which `messages` writes through the pieces it is
    given, each message written anew followed by the line ending it is given."""
    write = out.write
    raws = fast.raws
    separator = b"\n" if fast.container == "jsonl" else b",\n"
    # A CRLF JSONL file: its kept lines keep their "\r" (a line is everything before "\n"), so each line
    # written anew gets one too, and the file keeps one line ending (never CRLF and LF mixed).
    ending = b"\r" if fast.container == "jsonl" and len(raws) and bytes(raws[0]).endswith(b"\r") else b""
    pieces = _Pieces(raws, separator, out)
    if fast.container == "jsonl":
        messages(pieces, ending)
        write(b"\n")
    elif fast.container == "array":
        write(b"[\n")
        messages(pieces, ending)
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
                messages(pieces, ending)
                write(b"\n]")
            else:
                write(part)
        write(b"}\n")


def _write_order(plan: Plan, raws: Spans, pieces: _Pieces, ending: bytes, stamp: Callable[[], int]) -> None:
    """Write the view's messages, in view order, separated: kept ones as slices of their blocks, consecutive ones
    (kept one by one or as a stretch) as one slice; only the messages the view changes are written anew.

    The order holds a kept message as its index, or a stretch of them as a range (see plan_strict); the
    indices between two other entries are merged by hand when they are few (a frame and its answers, say),
    else by C-level maps (_stretches).  A defect-dense view has an entry every few messages: each costs a
    few steps here, no call (a call per piece, and a generator per piece and per batch, were most of the
    time this took)."""
    placeholder = plan.placeholder
    order: list[Any] = plan.order or []

    def durable(index: int) -> Any:
        return _ANY.decode(raws[index])

    changed = list(compress(count(), map(is_not, map(type, order), repeat(int))))
    end = len(order)
    changed.append(end)
    run = pieces.run
    add = pieces.add
    low = high = -1  # the kept messages low..high-1 not written yet (none: -1)
    start = 0
    for at in changed:
        if at - start > _FEW:
            if low != high:
                run(low, high)
            for piece in _stretches(order, start, at, raws):
                add(piece)
            low = high = -1
        elif start < at:
            for index in order[start:at]:
                if index == high:
                    high += 1
                    continue
                if low != high:
                    run(low, high)
                low, high = index, index + 1
        if at < end:
            entry = order[at]
            if type(entry) is range:  # a stretch kept as recorded (Plan.order with stretches)
                if entry.start == high:
                    high = entry.stop
                else:
                    if low != high:
                        run(low, high)
                    low, high = entry.start, entry.stop
            else:
                if low != high:
                    run(low, high)
                    low = high = -1
                if type(entry) is Synthesized and not entry.not_executed and type(entry.call_id) is str \
                        and type(entry.tool_name) is str:
                    timestamp = stamp()
                    written = _receipt(entry, placeholder, timestamp)
                    add((encoded(receipt_message(entry.call_id, entry.tool_name, timestamp, placeholder))
                         if written is None else written) + ending)
                else:
                    add(encoded(entry_message(entry, durable, placeholder, stamp)) + ending)
        start = at + 1
    if low != high:
        run(low, high)
    pieces.flush()


class _Pieces:
    """The pieces of a view as written: joined with the separator into writes of about _WRITE bytes (a stretch
    is often a few kB: one write each would cost a system call per 8 kB buffer), kept messages sliced out of
    their plain block (Spans.piece: the block used last kept at hand, no search)."""

    __slots__ = ("_raws", "_separator", "_out", "_batch", "_size", "_written")

    def __init__(self, raws: Spans, separator: bytes, out: BinaryIO) -> None:
        self._raws = raws
        self._separator = separator
        self._out = out
        self._batch: list[Any] = []
        self._size = 0
        self._written = False

    def run(self, low: int, high: int) -> None:
        """The kept messages low..high-1: one slice of their block when it is plain (else Spans.stretch)."""
        piece = self._raws.piece(low, high)
        if piece is None:
            for piece in self._raws.stretch(low, high):
                self.add(piece)
            return
        self._batch.append(piece)
        self._size += len(piece)
        if self._size >= _WRITE:
            self.flush()

    def add(self, piece: Any) -> None:
        self._batch.append(piece)
        self._size += len(piece)
        if self._size >= _WRITE:
            self.flush()

    def flush(self) -> None:
        if self._batch:
            if self._written:
                self._out.write(self._separator)
            self._out.write(self._separator.join(self._batch))
            self._written = True
            self._batch = []
            self._size = 0
