"""The format registry (what integrity.formats offers): every format module, reading any of them and writing a
view back.  It lives here, loaded on first use (integrity.formats.__getattr__), so that a module that needs only
the skeletons or the shared helpers of the formats package (providers.sparse) does not load every format's
adapter (some 50 ms of every `check --provider` process's start).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from ..loading import BadLineError, ReaderNote, Transcript, TranscriptError
from . import (
    ai_sdk,
    ai_sdk_ui,
    anthropic,
    autogen,
    bedrock,
    claude_code,
    cline_sdk,
    codex,
    gemini,
    gemini_cli,
    goose,
    inspect_ai,
    langchain,
    langgraph,
    letta,
    openai_agents,
    openai_chat,
    openai_responses,
    openhands,
    openhands_v1,
    pi_ai,
    pi_session,
    pydantic_ai_messages,
    swe_agent,
)
from .base import BuildContext
from .common import NATIVE, OPAQUE, SYSTEM_ROLES, EntryError, native_of, opaque_message, writable
from .container import GRAMMAR, Document, parse_document, put_path, serialize  # noqa: F401 (parse_document: API)
from .detection import by_envelope, candidates, choose_with_note, closest
from .parts import split_file
from .spec import FormatSpec

_MODULES = (pi_ai, openai_chat, openai_responses, anthropic, gemini, bedrock, langchain, claude_code, pi_session,
            codex, goose, swe_agent, inspect_ai, openhands, openhands_v1, gemini_cli, pydantic_ai_messages,
            openai_agents,
            letta, autogen, cline_sdk, ai_sdk, ai_sdk_ui, langgraph)
"""THE REGISTRY: every format module, in detection order (each declares its formats' SPECS).  A new format is
its module plus its name here (and in the import above)."""

FORMAT_SPECS: dict[str, FormatSpec] = {spec.name: spec for module in _MODULES for spec in module.SPECS}
"""Every format's spec by name, in detection order (integrity.formats.spec)."""
_ADAPTERS: tuple[Any, ...] = tuple(spec.adapter for spec in FORMAT_SPECS.values())
ADAPTERS: dict[str, Any] = {name: spec.adapter for name, spec in FORMAT_SPECS.items()}
READ_ONLY: tuple[str, ...] = tuple(name for name, spec in FORMAT_SPECS.items() if spec.read_only)
"""Formats read but never written: their views are written in the adapter's WRITES_AS format."""
FORMATS: tuple[str, ...] = tuple(name for name in ADAPTERS if name not in READ_ONLY)
"""The formats read and written (conversion targets)."""
READABLE: tuple[str, ...] = tuple(ADAPTERS)
"""Every format read (FORMATS and READ_ONLY): what --format accepts."""


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
        raise TranscriptError(source, "", f"unknown format {format!r}; expected one of: {', '.join(READABLE)}")


def _check_target(format: str) -> None:
    _check_format(format, "<output>")
    if format in READ_ONLY:
        raise TranscriptError("<output>", "", f"{format} is read-only: a view can be written as "
                                              f"{ADAPTERS[format].WRITES_AS} instead")


def _document_of(document: Any) -> Document:
    if isinstance(document, list):
        return Document(document, [0] * len(document), "array")
    if isinstance(document, dict):
        for key in ("messages", "input", "contents"):
            if isinstance(document.get(key), list):
                return Document(document[key], [0] * len(document[key]), "object", key,
                                {k: v for k, v in document.items() if k != key})
        from .container import string_input

        short = string_input(document)
        if short is not None:
            return Document(short, [0], "object", "input", {k: v for k, v in document.items() if k != "input"})
        return Document([document], [0], "jsonl")
    raise TranscriptError("<input>", "top level", "expected a JSON array or object holding the transcript")


def detect(document: Any) -> str:
    """The format of a parsed JSON document (array, envelope object, or list of JSONL entries).

    Raises TranscriptError when no format fits or several do, telling the user to
    name the format, because a wrong guess would mis-pair tool calls silently.
    """
    doc = _document_of(document)
    return choose_with_note(_ADAPTERS, doc.entries, doc.envelope, "<input>", READABLE, key=doc.key)[0]


def possible_formats(document: Any) -> list[str]:
    """Every format that could have written the document (for UIs offering a choice)."""
    doc = _document_of(document)
    found = by_envelope(_ADAPTERS, doc.entries, doc.envelope, doc.key)[0]
    return found or candidates(_ADAPTERS, doc.entries, doc.envelope)[0]


def _position(doc: Document, index: int) -> str:
    noun = "entry" if doc.container == "jsonl" else "message"
    line = doc.lines[index] if index < len(doc.lines) else 0
    return f"{noun} {index} (line {line})" if line else f"{noun} {index}"


def _lone_message(doc: Document, adapter: Any) -> bool:
    """A file that is one message object (not a list of them): read as a transcript of one message, and
    said.  One entry of a format written as JSON lines (a session with one line) is no such thing."""
    return doc.container == "jsonl" and len(doc.entries) == 1 and isinstance(doc.whole, dict) \
        and FORMAT_SPECS[adapter.NAME].container != "jsonl"


def read_document(doc: Document, source: str, format: str = "auto") -> Transcript:
    """A Transcript of canonical messages from located native entries (see read_bytes)."""
    detection = ""
    if format == "auto":
        format, detection = choose_with_note(_ADAPTERS, doc.entries, doc.envelope, source, READABLE, doc.lines,
                                             doc.key)
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
    if format == openai_responses.NAME and openai_responses.draws_on_storage(doc.envelope, doc.entries):
        # Outputs answering stored calls: kept as they are, never taken for strays.
        for index in openai_responses.outside_outputs(messages):
            messages[index] = {**opaque_message(format, doc.entries[entries[index]]), NATIVE: messages[index][NATIVE]}
    lines = [doc.lines[e] if e < len(doc.lines) else 0 for e in entries]
    if _lone_message(doc, adapter):
        detection = "; ".join(filter(None, ["a single message object, read as a transcript of one message",
                                            detection]))
    dialect_of = getattr(adapter, "dialect_of", None)
    dialect = dialect_of(doc.entries) if dialect_of is not None else ""
    model_of = getattr(adapter, "model_of", None)  # (a thread's entries: each thread names its own)
    model_in = getattr(adapter, "model_in", None)  # (else the file's envelope: a goose session export's)
    session_model = model_of(doc.entries) if model_of is not None else \
        model_in(doc.envelope) if model_in is not None else None
    return Transcript(messages, source, doc.container, doc.key, dict(doc.envelope), lines, format,
                      native=list(doc.entries), native_lines=list(doc.lines), entries=entries, dialect=dialect,
                      detection=detection, notes=list(doc.notes), newline=doc.newline,
                      writes_as=getattr(adapter, "WRITES_AS", "") if getattr(adapter, "READ_ONLY", False) else "",
                      session_model=session_model)


def _threads(transcript: Transcript, doc: Document, source: str) -> list[Transcript]:
    """The transcript split into the threads its entries hold (itself when there is one)."""
    split = getattr(ADAPTERS[transcript.format], "threads", None)
    found = split(doc.entries) if split is not None else None
    if not found:
        return [transcript]
    out = []
    for position, thread in enumerate(found):
        part = Document([doc.entries[i] for i in thread.indices],
                        [doc.lines[i] if i < len(doc.lines) else 0 for i in thread.indices],
                        doc.container, doc.key, doc.envelope, notes=doc.notes if position == 0 else [],
                        newline=doc.newline)
        read = read_document(part, source, transcript.format)
        read.name, read.kind, read.checked = thread.name, thread.kind, thread.checked
        read.whole, read.positions = list(doc.entries), list(thread.indices)
        read.detection = transcript.detection
        out.append(read)
    return out


def _conversation(transcript: Transcript) -> bool:
    """Whether any message is a conversation message (not an opaque native entry), or the transcript is a
    Responses request sending outputs for stored calls (a continued response, item references)."""
    if any(isinstance(m, dict) and m.get("role") not in (OPAQUE, None) for m in transcript.messages):
        return True
    return transcript.format == openai_responses.NAME and bool(transcript.messages) \
        and openai_responses.draws_on_storage(transcript.envelope, transcript.native)


def read_all(data: bytes, source: str, format: str = "auto", skip_bad_lines: bool = False,
             allow_empty: bool = False) -> list[Transcript]:
    """Every transcript a file holds, each with a stable name, in file order.

    An eval log's samples ("sample:<id>"), a retried SWE-agent run's attempts
    ("attempt:<n>"), a Claude Code session's threads ("main", "sidechain:<id>",
    "subagent:<id>") and a session tree's abandoned branches ("branch:<id>", with
    checked=False).  A file with one transcript gives one, named "main".

    skip_bad_lines: leave out JSONL lines that are not JSON (each one becomes a note on
    the first transcript) instead of refusing the file; a cut last line is always
    left out and noted.  Without it, a file whose format's runtime leaves such a line out
    when it resumes the session (a Claude Code session: FormatSpec.skips_bad_lines) is read
    as that runtime reads it, each line left out noted with the runtime's name; any other
    file with such a line is refused (BadLineError).  A file that yields no conversation message is an error (it
    is never healthy), unless allow_empty (an empty list read with a named format).
    """
    if format != "auto":
        _check_format(format, source)
    refused: BadLineError | None = None
    try:
        parts = split_file(data, source, skip_bad_lines)
    except BadLineError as error:  # read as the runtime that wrote it reads it, if it leaves such lines out
        if not error.grammar:  # JSON that JSON.parse reads: no runtime skips it
            raise
        refused = error
        try:
            parts = split_file(data, source, GRAMMAR)
        except TranscriptError as later:  # a later line no runtime skips, or nothing readable left
            raise (later if isinstance(later, BadLineError) else error) from None
    out: list[Transcript] = []
    for part in parts:
        chosen = format if format != "auto" else part.format
        try:
            transcript = read_document(part.document, source, chosen)
        except TranscriptError:
            if refused is not None:  # the lines left do not read as any format: the bad line is the news
                raise refused from None
            raise
        for read in _threads(transcript, part.document, source):
            if refused is not None:
                read.notes = _left_out_by_runtime(read, refused)
            if part.kind != "main":
                read.name, read.kind = part.name, part.kind
            out.append(read)
    names = [t.name for t in out]
    for transcript in out:
        transcript.siblings = [name for name in names if name != transcript.name]
        transcript.json_typed = True
    if not allow_empty and not any(_conversation(t) for t in out):
        if refused is not None:
            raise refused
        raise _no_messages(parts[0].document, out[0] if out else None, source)
    return out


def _left_out_by_runtime(transcript: Transcript, refused: BadLineError) -> list[ReaderNote]:
    """The transcript's notes, each line nobody asked to skip marked with the runtime that leaves it out when it
    resumes the session (its format's `skips_bad_lines`); `refused`, the file's error, when no runtime of its
    format is known to (then the file is refused, as without this reading)."""
    runtime = FORMAT_SPECS[transcript.format].skips_bad_lines
    if not runtime:
        raise refused
    return [replace(note, by=runtime) if note.code == "skipped_line" else note for note in transcript.notes]


def _no_messages(doc: Document, read: Transcript | None, source: str) -> TranscriptError:
    """The error for a file that yields no conversation message: what it was read as, and what came close."""
    said = f"read as {read.format}, " if read is not None else ""
    return TranscriptError(source, "top level",
                           f"no conversation messages found ({said}{len(doc.entries)} entries, none a message); "
                           f"{closest(_ADAPTERS, doc.entries, doc.lines)}")


def pick(transcripts: list[Transcript], name: str | None, source: str) -> Transcript:
    """The transcript called `name`; without a name, the only one or "main" (else an error listing them)."""
    if name is not None:
        for transcript in transcripts:
            if transcript.name == name:
                return transcript
        raise TranscriptError(source, "", f"no transcript named {name!r}; it holds: "
                                          + ", ".join(t.name for t in transcripts))
    if len(transcripts) == 1:
        return transcripts[0]
    for transcript in transcripts:
        if transcript.name == "main":
            return transcript
    raise TranscriptError(source, "", f"the file holds {len(transcripts)} transcripts ("
                                      + ", ".join(t.name for t in transcripts) + "); name one (--thread NAME)")


def read_bytes(data: bytes, source: str, format: str = "auto") -> Transcript:
    """Read a transcript in any supported format into canonical pi-ai messages.

    Accepts a bare array, {"messages": [...]}, pasted request envelopes (`input`,
    `contents`, with `system` and other keys kept) and JSONL.  format="auto" detects
    it.  Every problem is a TranscriptError naming file, position and problem.  A file
    holding several transcripts gives its "main" one (read_all gives them all); one
    without a main transcript (an eval log with several samples) is an error that
    lists them.
    """
    return pick(read_all(data, source, format, allow_empty=format != "auto"), None, source)


class _Originals:
    """The transcript re-read, to recognise unchanged groups and blocks by comparison.

    trusted: the transcript's messages are as it read them (never changed in place since): they stand for the
    re-read, and a message of a view is recognised as unchanged when it is one of them (list and dict comparisons
    take an identical object as equal at once).  The re-read was a quarter of `check` of a large Chat file, for the
    verdict after repair; a verdict on the messages as read needs no guard against a caller's change in place (the
    verdict as recorded reads the file's entries, not the messages).  Writing a file never trusts."""

    def __init__(self, transcript: Transcript, trusted: bool = False) -> None:
        adapter = ADAPTERS[transcript.format]
        self.native = transcript.native
        self.adapter = adapter
        if trusted:
            messages = transcript.messages
        else:
            doc = Document(transcript.native, transcript.native_lines, transcript.container)
            messages = read_document(doc, transcript.source, transcript.format).messages
        # Keyed by the native map's JSON values, None where a key is absent.
        self.segments: dict[tuple[Any, Any], list[Any]] = {}
        self.parts: dict[tuple[Any, Any], Any] = {}
        for message in messages:
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


def to_native(messages: list[dict[str, Any]], format: str, transcript: Transcript | None = None,
              prepared: bool = False, provider: str | None = None, trusted: bool = False) -> NativeRequest:
    """Canonical messages as `format`'s native request, with a map back to canonical indices.

    Pass the transcript the messages were read from to reuse its native entries and
    envelope (lossless when the format is the transcript's own); without it the
    request is built from the canonical messages alone.  prepared: the messages are
    already `writable` (a caller writing one transcript in several formats makes them once).
    provider: the provider the request goes to, where the transcript's runtime sends the format's providers
    different requests (FormatSpec.sends_as); None: the provider named as the format.
    trusted: the transcript's messages were never changed in place since it was read (a verdict's request: see
    _Originals), so the file is not read again to recognise them.
    """
    _check_target(format)
    adapter = ADAPTERS[format]
    same = transcript is not None and transcript.format == format and bool(transcript.native) \
        and format != pi_ai.NAME
    originals = _Originals(transcript, trusted) if same and transcript is not None else None
    context = BuildContext(format, originals.reuse if originals else (lambda message: None),
                           transcript.dialect if transcript is not None and transcript.format == format else "")
    if transcript is not None and transcript.format == format:
        context.state["native"] = transcript.native
    origin: list[int] | None = None
    runtime = FORMAT_SPECS[transcript.format] if transcript is not None and transcript.format != format else None
    if runtime is not None and runtime.sends_messages is not None and format in runtime.sends_as:
        answered = runtime.sends_messages(messages)  # (as its runtime sends them: pi answers a call left alone)
        if answered is not None:
            messages, origin = answered
    if not prepared and format != pi_ai.NAME and getattr(adapter, "inner", None) is not pi_ai:
        # (pi-ai's messages, and the pi sessions that wrap them, are the canonical form itself: an app's own
        # roles, bashExecution or custom, are written as they are, never made opaque and left out)
        messages = [writable(m) for m in messages]
    grouped = adapter.groups(messages)
    system = [i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") in SYSTEM_ROLES]
    if system:  # only then: which of them no group covers (the writer hoists those)
        covered = {i for group in grouped for i in group}
        hoisted = [messages[i] for i in system if i not in covered]
    else:
        hoisted = []
    native: list[Any] = []
    context.state["written"] = native  # the entries written so far (a new entry may take after the last of them)
    sources: list[list[int]] = []
    build = adapter.build
    for group in grouped:
        members = [messages[i] for i in group]
        built = originals.verbatim(members, format) if originals else None
        if built is None:
            built = build(members, context)
        for entry in built:
            native.append(entry)
            sources.append(list(group))
    if originals is not None and getattr(adapter, "KEEPS_ENTRIES", False):
        native, sources = _with_entries_kept(native, sources, messages, originals)
    if hasattr(adapter, "finish"):
        native = adapter.finish(native, context)
    if runtime is not None and transcript is not None:
        sends = runtime.sends_as.get(format)
        if sends is not None:  # (as its runtime sends it)
            native, sources = sends(native, sources, messages, transcript.model, provider or format)
        if origin is not None:  # (each entry's sources: the session's messages it stands for)
            sources = [list(dict.fromkeys(origin[index] for index in source)) for source in sources]
    if transcript is not None and transcript.format == format and (transcript.native or format == pi_ai.NAME):
        if transcript.container == "object":
            body: Any = put_path(transcript.envelope, transcript.key, native)
        else:
            body = native
    else:
        body = adapter.body(native, hoisted)
    return NativeRequest(body, sources, native)


def _with_entries_kept(native: list[Any], sources: list[list[int]], messages: list[Any],
                       originals: _Originals) -> tuple[list[Any], list[list[int]]]:
    """The entries written back into a session file, with every entry of the file that holds no message (a pi
    session's header, a model or thinking-level change, a compaction, a label) kept in its place.

    Such an entry is read with the message after it and written back verbatim with it; when that message is
    rebuilt (merged into another) or left out of the view (an interrupted frame), the entry went with it, and
    the repaired session lost its header (pi cannot open it) or its model change (the next request went to the
    model before it).  Each such entry goes back before the first written entry read from a later entry of the
    file (an entry built for no message of the file, a receipt, stays after the one before it), with that
    entry's sources."""
    entries = originals.native
    written = {id(entry) for entry in native}
    unwrap = originals.adapter.unwrap
    lost = [at for at, entry in enumerate(entries) if id(entry) not in written and unwrap(entry) is None]
    if not lost:
        return native, sources
    place = {id(entry): at for at, entry in enumerate(entries)}
    anchors: list[int] = []
    last = -1
    for entry, source in zip(native, sources, strict=True):
        at = place.get(id(entry))
        if at is None:
            read_from = [native_of(messages[index]).get("entry") for index in source if index < len(messages)]
            found = [entry_at for entry_at in read_from if isinstance(entry_at, int)]
            at = min(found) if found else last
        last = max(last, at)
        anchors.append(last)
    out: list[Any] = []
    out_sources: list[list[int]] = []
    pending = iter(lost)
    next_lost = next(pending, None)
    for entry, source, anchor in zip(native, sources, anchors, strict=True):
        while next_lost is not None and next_lost < anchor:
            out.append(entries[next_lost])
            out_sources.append(list(source))
            next_lost = next(pending, None)
        out.append(entry)
        out_sources.append(source)
    while next_lost is not None:
        out.append(entries[next_lost])
        out_sources.append(list(sources[-1]) if sources else [])
        next_lost = next(pending, None)
    return out, out_sources


def _splice(transcript: Transcript, entries: list[Any]) -> list[Any]:
    """The whole file's entries with one thread's entries replaced by `entries` (the others untouched).

    A kept entry (the same object as read) goes back to its own place; a rebuilt one
    follows the entry written before it, so the thread keeps its order and every other
    thread's entries stay where they were.
    """
    whole = transcript.whole or []
    home = {id(entry): position for entry, position in zip(transcript.native, transcript.positions, strict=False)}
    mine = set(transcript.positions)
    first = transcript.positions[0] if transcript.positions else len(whole)
    keyed = []
    last = first
    for entry in entries:
        last = max(last, home.get(id(entry), last))
        keyed.append((last, entry))
    out: list[Any] = []
    at = 0
    for position, entry in enumerate(whole):
        if position in mine:
            while at < len(keyed) and keyed[at][0] <= position:
                out.append(keyed[at][1])
                at += 1
        else:
            out.append(entry)
    out.extend(entry for _, entry in keyed[at:])
    fix = getattr(ADAPTERS[transcript.format], "spliced", None)  # a format whose entries name others by position
    return fix(whole, out) if fix is not None else out


def _container_of(transcript: Transcript, target: str, body: Any) -> str:
    if target == transcript.format:
        return transcript.container
    if FORMAT_SPECS[target].container == "jsonl":
        return "jsonl"
    return "array" if isinstance(body, list) else "object"


def write_bytes(transcript: Transcript, messages: list[dict[str, Any]] | None = None,
                format: str | None = None, trusted: bool = False, written: NativeRequest | None = None) -> bytes:
    """Serialize canonical messages (default: the transcript's own) in a format (default: its own).

    Written back unchanged in its own format a transcript gives JSON equal to what
    was read.  A repaired view is written with the target format's grouping
    (Anthropic/Bedrock: a turn's results first in one user message; Gemini: one
    response part per call part).  Another format gets that format's usual container:
    an object request body, a bare array (pi-ai, LangChain) or JSONL (Claude Code,
    Codex, pi sessions).  A thread of a file (a Claude Code main thread, a session's
    active branch) is written back into the whole file, the other threads' entries
    untouched.  A read-only format's view is written in the format it names (WRITES_AS).
    trusted: the transcript's messages were never changed in place since it was read (the CLI's and the
    Inspector's own views): the file is not read again to recognise them (to_native).  written: `to_native` of
    these messages in the transcript's own format, made already (the request its provider judged:
    pipeline.CheckResult.written), so not made again.
    """
    target = format or transcript.format
    if messages is not None and format is None and transcript.writes_as:
        target = transcript.writes_as
    if messages is None and target == transcript.format:
        if transcript.whole is not None:
            entries = transcript.whole
        elif transcript.native:
            entries = transcript.native
        else:
            entries = transcript.messages
        if transcript.container == "object":
            return serialize(put_path(transcript.envelope, transcript.key, entries), "object")
        return serialize(entries, transcript.container, transcript.newline)
    _check_target(target)
    request = written if written is not None and messages is not None and target == transcript.format else \
        to_native(transcript.messages if messages is None else messages, target, transcript, trusted=trusted)
    if target == transcript.format and transcript.whole is not None:
        entries = _splice(transcript, request.messages)
        body = put_path(transcript.envelope, transcript.key, entries) if transcript.container == "object" \
            else entries
        return serialize(body, transcript.container, transcript.newline)
    return serialize(request.body, _container_of(transcript, target, request.body), transcript.newline)


def request_key(format: str) -> str:
    """The field of `format`'s request body that holds its messages ("messages", "contents", "input"): where
    a provider's error positions start.  Read from the adapter's own body, so it is never a second copy."""
    _check_target(format)
    body: dict[str, Any] = ADAPTERS[format].body([], [])
    return next(key for key, value in body.items() if isinstance(value, list))


def implied_provider(format: str | None) -> str | None:
    """The provider a file in this format is sent to (its spec's `provider`), None for a format no single
    provider reads (pi-ai, LangChain, ...) or an unknown one."""
    found = FORMAT_SPECS.get(format or "")
    return found.provider if found is not None else None


def read_otherwise(transcript: Transcript, index: int) -> tuple[Any, str] | None:
    """(the message as the file holds it, why the reader reads it otherwise) for message `index` of a transcript
    whose format's reader reads some entries as their runtime sends them (its adapter's `held_otherwise`: a pi
    answer that was aborted is read empty, as pi sends nothing of it); None for every other message."""
    adapter = ADAPTERS.get(transcript.format)
    held = getattr(adapter, "held_otherwise", None)
    if held is None or not 0 <= index < len(transcript.entries):
        return None
    entry = transcript.entries[index]
    return held(transcript.native[entry]) if 0 <= entry < len(transcript.native) else None


def sent_ids(transcript: Transcript) -> dict[str, Callable[[str], str]]:
    """By provider, the call id the runtime of a transcript's format sends for a call id of it, where that is not
    the id itself (FormatSpec.sends_ids, made for the transcript's messages and model); empty for every format
    whose ids are sent as written."""
    found = FORMAT_SPECS.get(transcript.format)
    if found is None or not found.sends_ids:
        return {}
    return {provider: made(transcript.messages, transcript.model) for provider, made in found.sends_ids.items()}


def answered_as_sent(transcript: Transcript) -> dict[str, str]:
    """call id -> the text of the result a transcript's runtime sends of its own for a call of it that has none, as
    it sends the session (FormatSpec.sends_messages: pi's error result "No result provided", Codex's output
    "aborted"); empty for a runtime that sends none, or when no call needs one.  The request judged holds them, so
    the provider may take a session whose call has no result of its own; a screen says why with this."""
    found = FORMAT_SPECS.get(transcript.format)
    if found is None or found.sends_messages is None:
        return {}
    sent = found.sends_messages(transcript.messages)
    if sent is None:
        return {}
    added: dict[str, str] = {}
    for message, source in zip(*sent, strict=True):
        if message is transcript.messages[source] or not isinstance(message, dict) \
                or message.get("role") != "toolResult" or not isinstance(message.get("toolCallId"), str):
            continue
        content = message.get("content")
        text = content[0].get("text") if isinstance(content, list) and content and isinstance(content[0], dict) \
            else None
        added[message["toolCallId"]] = text if isinstance(text, str) else ""
    return added


def sends_signed_reasoning(format: str | None) -> bool:
    """Whether the runtime of this format sends a thinking block's JSON signature as the reasoning item it holds
    (FormatSpec.sends_signed_reasoning: pi)."""
    found = FORMAT_SPECS.get(format) if format is not None else None
    return found is not None and found.sends_signed_reasoning


def judged_by_model(format: str | None) -> frozenset[str]:
    """The provider formats a file of this format is judged toward when the model its entries name is of their
    provider (its spec's `model_decides`: a pi session names the model it talks to, and its runtime's requests to
    these are modelled); empty for every other format."""
    found = FORMAT_SPECS.get(format or "")
    return found.model_decides if found is not None else frozenset()


def formats_for(filename: str) -> list[str]:
    """The formats whose file suffixes `filename` ends in, the most specific suffix first (".traj.json"
    before ".json"), in detection order among equals: a hint for pickers, never a detection."""
    found = [(len(suffix), name) for name, spec in FORMAT_SPECS.items() if (suffix := spec.suffix_of(filename))]
    longest = {name: length for length, name in found}
    return sorted(longest, key=lambda name: -longest[name])


SUFFIXES: tuple[str, ...] = tuple(dict.fromkeys(suffix for spec in FORMAT_SPECS.values() for suffix in spec.suffixes))
"""Every file suffix a transcript is found under, from the specs."""
