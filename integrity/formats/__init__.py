"""Reading and writing transcripts in the formats agents and providers actually use.

Every format is read into canonical pi-ai AgentMessage dicts (what the engine
understands) and written back from them; one adapter module per format does the
mapping.  Round trips are lossless in two layers:

1. Native entries are kept on the Transcript (`native`).  When a written group of
   canonical messages is exactly what one run of native entries was read as (it is
   compared to a fresh re-read), those entries are re-emitted verbatim, unknown
   fields and all.  Unchanged results that move into another message reuse their
   original native block the same way.
2. What a group rebuilt from canonical messages needs but pi-ai has no field for is
   kept under the namespaced key "_native" of the canonical message or part (never
   written out), and native content without a canonical form travels as opaque
   parts/messages that are written only in their own format.

Each canonical message also records where it came from: Transcript.entries[i] is the
native entry and Transcript.lines[i] its 1-based line, for reports.

Two readings matter to the engine in every format: an assistant turn with no
content is an interrupted frame (stopReason "aborted"; no provider completes a turn
with nothing in it), and a result whose whole content is the runtime's interrupted
text is an interrupted receipt (isError and details restored), so both survive any
conversion.  Formats without tool-call ids (Gemini) read a missing id as "" with
"_native": {"idMissing": true} on the call part or result.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..loading import Transcript, TranscriptError
from . import (
    anthropic,
    bedrock,
    claude_code,
    gemini,
    langchain,
    openai_chat,
    openai_responses,
    pi_ai,
)
from .base import BuildContext
from .common import NATIVE, SYSTEM_ROLES, EntryError, writable
from .container import Document, parse_document, serialize
from .detection import candidates, choose

_ADAPTERS = (pi_ai, openai_chat, openai_responses, anthropic, gemini, bedrock, langchain, claude_code)
ADAPTERS: dict[str, Any] = {adapter.NAME: adapter for adapter in _ADAPTERS}
FORMATS: tuple[str, ...] = tuple(ADAPTERS)


class NativeRequest(NamedTuple):
    """What to_native returns.

    body: the native request structure write_bytes serializes (a list, or an object
      such as {"system": ..., "messages": [...]}).
    sources: sources[i] lists the canonical message indices native message i was
      built from (several for a merged results turn; a verbatim run of entries shares
      one list).
    messages: the native message list inside body (what provider rule sets read).
    """

    body: Any
    sources: list[list[int]]
    messages: list[Any]


def _check_format(format: str, source: str) -> None:
    if format not in ADAPTERS:
        raise TranscriptError(source, "", f"unknown format {format!r}; expected one of: {', '.join(FORMATS)}")


def _document_of(document: Any) -> Document:
    if isinstance(document, list):
        return Document(document, [0] * len(document), "array")
    if isinstance(document, dict):
        for key in ("messages", "input", "contents"):
            if isinstance(document.get(key), list):
                return Document(document[key], [0] * len(document[key]), "object", key,
                                {k: v for k, v in document.items() if k != key})
        return Document([document], [0], "jsonl")
    raise TranscriptError("<input>", "top level", "expected a JSON array or object holding the transcript")


def detect(document: Any) -> str:
    """The format of a parsed JSON document (array, envelope object, or list of JSONL entries).

    Raises TranscriptError when no format fits or several do, telling the user to
    name the format, because a wrong guess would mis-pair tool calls silently.
    """
    doc = _document_of(document)
    return choose(_ADAPTERS, doc.entries, doc.envelope, "<input>", FORMATS)


def possible_formats(document: Any) -> list[str]:
    """Every format that could have written the document (for UIs offering a choice)."""
    doc = _document_of(document)
    return candidates(_ADAPTERS, doc.entries, doc.envelope)[0]


def _position(doc: Document, index: int) -> str:
    noun = "entry" if doc.container == "jsonl" else "message"
    line = doc.lines[index] if index < len(doc.lines) else 0
    return f"{noun} {index} (line {line})" if line else f"{noun} {index}"


def read_document(doc: Document, source: str, format: str = "auto") -> Transcript:
    """A Transcript of canonical messages from located native entries (see read_bytes)."""
    if format == "auto":
        format = choose(_ADAPTERS, doc.entries, doc.envelope, source, FORMATS)
    _check_format(format, source)
    adapter = ADAPTERS[format]
    try:
        segments = adapter.read(doc.entries)
    except EntryError as error:
        index = error.index if error.index is not None else 0
        raise TranscriptError(source, _position(doc, index), f"not a valid {format} entry: {error.problem}") from None
    messages: list[Any] = []
    entries: list[int] = []
    for segment in segments:
        for position, message in enumerate(segment.messages):
            entry = segment.entry_of(position)
            if format != pi_ai.NAME:
                native = message.setdefault(NATIVE, {})
                native.update(format=format, entry=entry, start=segment.start, end=segment.end)
            messages.append(message)
            entries.append(entry)
    lines = [doc.lines[e] if e < len(doc.lines) else 0 for e in entries]
    dialect = langchain.dialect_of(doc.entries) if format == langchain.NAME else ""
    return Transcript(messages, source, doc.container, doc.key, dict(doc.envelope), lines, format,
                      native=list(doc.entries), native_lines=list(doc.lines), entries=entries, dialect=dialect)


def read_bytes(data: bytes, source: str, format: str = "auto") -> Transcript:
    """Read a transcript in any supported format into canonical pi-ai messages.

    Accepts a bare array, {"messages": [...]}, pasted request envelopes (`input`,
    `contents`, with `system` and other keys kept) and JSONL.  format="auto" detects
    it.  Every problem is a TranscriptError naming file, position and problem.
    """
    if format != "auto":
        _check_format(format, source)
    return read_document(parse_document(data, source), source, format)


class _Originals:
    """The transcript re-read, to recognise unchanged groups and blocks by comparison."""

    def __init__(self, transcript: Transcript) -> None:
        adapter = ADAPTERS[transcript.format]
        self.native = transcript.native
        self.adapter = adapter
        doc = Document(transcript.native, transcript.native_lines, transcript.container)
        fresh = read_document(doc, transcript.source, transcript.format)
        # Keyed by the native map's JSON values, None where a key is absent.
        self.segments: dict[tuple[Any, Any], list[Any]] = {}
        self.parts: dict[tuple[Any, Any], Any] = {}
        for message in fresh.messages:
            native = message.get(NATIVE, {}) if isinstance(message, dict) else {}
            key = (native.get("start"), native.get("end"))
            self.segments.setdefault(key, []).append(message)
            if "part" in native:
                self.parts[(native["entry"], native["part"])] = message

    def verbatim(self, group: list[Any], format: str) -> list[Any] | None:
        first = group[0].get(NATIVE) if isinstance(group[0], dict) else None
        if not isinstance(first, dict) or first.get("format") != format:
            return None
        key = (first.get("start"), first.get("end"))
        original = self.segments.get(key)
        if original is None or len(original) != len(group) or original != group:
            return None
        return self.native[key[0]:key[1]]

    def reuse(self, message: dict[str, Any]) -> Any:
        native = message.get(NATIVE)
        if not isinstance(native, dict) or "part" not in native:
            return None
        key: tuple[Any, Any] = (native.get("entry"), native["part"])
        if self.parts.get(key) != message or not hasattr(self.adapter, "reusable_block"):
            return None
        return self.adapter.reusable_block(self.native[key[0]], native["part"])


def to_native(messages: list[dict[str, Any]], format: str, transcript: Transcript | None = None) -> NativeRequest:
    """Canonical messages as `format`'s native request, with a map back to canonical indices.

    Pass the transcript the messages were read from to reuse its native entries and
    envelope (lossless when the format is the transcript's own); without it the
    request is built from the canonical messages alone.
    """
    _check_format(format, "<output>")
    adapter = ADAPTERS[format]
    same = transcript is not None and transcript.format == format and bool(transcript.native) \
        and format != pi_ai.NAME
    originals = _Originals(transcript) if same and transcript is not None else None
    context = BuildContext(format, originals.reuse if originals else (lambda message: None),
                           transcript.dialect if transcript is not None and transcript.format == format else "")
    if transcript is not None and transcript.format == format:
        context.state["native"] = transcript.native
    if format != pi_ai.NAME:
        messages = [writable(m) for m in messages]
    grouped = adapter.groups(messages)
    covered = {i for group in grouped for i in group}
    hoisted = [m for i, m in enumerate(messages) if i not in covered and isinstance(m, dict)
               and m.get("role") in SYSTEM_ROLES]
    native: list[Any] = []
    sources: list[list[int]] = []
    for group in grouped:
        members = [messages[i] for i in group]
        built = originals.verbatim(members, format) if originals else None
        if built is None:
            built = adapter.build(members, context)
        for entry in built:
            native.append(entry)
            sources.append(list(group))
    if hasattr(adapter, "finish"):
        native = adapter.finish(native, context)
    if transcript is not None and transcript.format == format and (transcript.native or format == pi_ai.NAME):
        if transcript.container == "object":
            body: Any = {**transcript.envelope, transcript.key: native}
        else:
            body = native
    else:
        body = adapter.body(native, hoisted)
    return NativeRequest(body, sources, native)


def write_bytes(transcript: Transcript, messages: list[dict[str, Any]] | None = None,
                format: str | None = None) -> bytes:
    """Serialize canonical messages (default: the transcript's own) in a format (default: its own).

    Written back unchanged in its own format a transcript gives JSON equal to what
    was read.  A repaired view is written with the target format's grouping
    (Anthropic/Bedrock: a turn's results first in one user message; Gemini: one
    response part per call part).  Another format gets that format's usual container:
    an object request body, a bare array (pi-ai, LangChain) or JSONL (Claude Code).
    """
    target = format or transcript.format
    _check_format(target, "<output>")
    if messages is None and target == transcript.format:
        if transcript.native:
            entries = transcript.native
        else:
            entries = transcript.messages
        if transcript.container == "object":
            return serialize({**transcript.envelope, transcript.key: entries}, "object")
        return serialize(entries, transcript.container)
    request = to_native(transcript.messages if messages is None else messages, target, transcript)
    if target == transcript.format:
        container = transcript.container
    elif target == claude_code.NAME:
        container = "jsonl"
    else:
        container = "array" if isinstance(request.body, list) else "object"
    return serialize(request.body, container)


__all__ = [
    "ADAPTERS",
    "FORMATS",
    "NativeRequest",
    "detect",
    "possible_formats",
    "read_bytes",
    "read_document",
    "to_native",
    "write_bytes",
]
