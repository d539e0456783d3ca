"""Reading transcripts, with errors a person can act on.

Every failure becomes a TranscriptError whose one-line message names the file,
the position (line/column or message index) and what is wrong.  Callers (CLI,
inspector) print that line; they never show a traceback.  The bytes are parsed
in one place, integrity.formats.container; this module holds the error, the
Transcript record, the pi-ai message check and reading a path.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any


class TranscriptError(ValueError):
    """Input that cannot be read as a transcript; str() is the one-line explanation."""

    def __init__(self, source: str, position: str, problem: str) -> None:
        self.source = source
        self.position = position
        self.problem = problem
        where = f"{source}: {position}: " if position else f"{source}: "
        super().__init__(one_line(where + problem))


class BadLineError(TranscriptError):
    """A JSONL line in the middle of a file that is not JSON: the file is refused, unless its format's runtime
    leaves such a line out when it resumes the session (integrity.formats.registry.read_all reads it so then).
    grammar: the line is not JSON by its grammar (what such a runtime's JSON.parse refuses too); False for a line
    that is JSON this reader does not read back faithfully (a number overflowing, nesting past its limit)."""

    def __init__(self, source: str, position: str, problem: str, grammar: bool = True) -> None:
        super().__init__(source, position, problem)
        self.grammar = grammar


# Control characters (a newline in a file name, an escape sequence in a role) are shown
# escaped, so an error is always one line and never drives the terminal.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7f, *range(0x80, 0xa0))}
_CONTROLS.update({0x2028: "\\u2028", 0x2029: "\\u2029"})


_NEEDS_ESCAPING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
"""What one_line changes: found in C, so the text that needs nothing (nearly all) is given back as it is."""


def one_line(text: str) -> str:
    """text with control characters escaped (so it prints as one line) and lone surrogates as \\udXXX: what the CLI
    prints of a file (its name, an id, a thread's name) never drives the terminal nor starts a line of its own."""
    if _NEEDS_ESCAPING.search(text) is None:
        return text
    text = text.translate(_CONTROLS)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


@dataclass
class Transcript:
    """A loaded transcript: its messages plus what is needed to write it back the same way.

    container: "array" (a JSON list), "object" (a JSON object holding the list under
    `key`) or "jsonl" (one message per line).  lines[i] is the 1-based line where
    message i starts in the file, so reports can point back at the durable entry.
    """

    messages: list[Any]
    source: str = "<input>"
    container: str = "array"
    key: str = "messages"
    envelope: dict[str, Any] = field(default_factory=dict)
    lines: list[int] = field(default_factory=list)
    format: str = "pi-ai"
    # Filled by integrity.formats (empty for a Transcript built by hand): the native entries as
    # read, the 1-based line of each, and for every canonical message the index of the
    # native entry it came from (so a report on canonical message i can name native
    # entry entries[i] at line lines[i]).  dialect names a sub-variant of a format
    # (LangChain: "messages_to_dict" or "dumpd").
    native: list[Any] = field(default_factory=list)
    native_lines: list[int] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)
    dialect: str = ""
    # A file may hold several transcripts (an eval log's samples, a Claude Code session's
    # sidechains, a pi session's abandoned branches).  name is this one's stable name
    # ("main", "sidechain:<id>", "subagent:<id>", "sample:<id>", "attempt:<n>",
    # "branch:<id>"), kind the part before the colon.  checked is False for an abandoned
    # branch: it is listed, never sent to the model again, so no verdict counts it.
    name: str = "main"
    kind: str = "main"
    checked: bool = True
    # When this transcript is one thread of a file's entry list: every entry of the file
    # (`whole`) and where each of `native` sits in it (`positions`), so a repaired thread is
    # written back into the file with the other threads' entries untouched.
    whole: list[Any] | None = None
    positions: list[int] = field(default_factory=list)
    # What reading had to say that is no message: a torn last line, skipped bad lines, how
    # an undecided format was chosen (`detection`), the file's other transcripts.
    notes: list[ReaderNote] = field(default_factory=list)
    detection: str = ""
    siblings: list[str] = field(default_factory=list)
    writes_as: str = ""  # a read-only format's view is written in this format (openhands -> openai-chat)
    # True when the entries were decoded from JSON text by this package's readers, so they hold
    # only JSON's types (dict, list, str, int, float, bool, None): the schema check may then
    # trust its C validator's "valid" (integrity.schema.base).  False for a Transcript built by hand.
    json_typed: bool = False
    # A JSONL file's line ending ("\r\n" when its first line ends so): written back the same, so a repaired
    # CRLF file never mixes CRLF and LF lines.
    newline: str = "\n"
    # The model a session log's runtime sends this thread to next, as its format reads it from the entries (a pi
    # session's current model, in integrity.providers.models' words: "anthropic:claude-sonnet-4-5"); None when
    # the entries name none.  A request body names its own model in its envelope instead.
    session_model: str | None = None

    @property
    def model(self) -> Any:
        """The model the file's request names (its envelope's `model`: a request body's), else the one the session
        names (session_model), or None: with the format it says which provider the request is sent to
        (integrity._diagnosis.own_provider)."""
        named = self.envelope.get("model") if isinstance(self.envelope, dict) else None
        return named if named is not None else self.session_model


@dataclass(frozen=True)
class ReaderNote:
    """Something the reader found that is not a message: a torn last line or a skipped bad line.

    code: a FindingCode value (torn_last_line, skipped_line, duplicate_key); line: the 1-based line (0: the
    file's envelope object); size: bytes not parsed; problem: what the JSON decoder said (the key, for
    duplicate_key); by: for a skipped line nobody asked to skip, the runtime that leaves it out when it
    resumes the session (the file's format's `skips_bad_lines`), so the line is left out as it is there.
    """

    code: str
    line: int
    size: int
    problem: str
    by: str = ""

    def message(self) -> str:
        """The sentence a report shows for it."""
        if self.code == "duplicate_key":
            where = f"line {self.line}: an object in the entry starting here" if self.line else "an object of the file"
            return (f"{where} names the key {self.problem!r} twice; JSON readers disagree on which "
                    "value counts (this one takes the last), so a provider may read another message than the "
                    "one checked; a repair writes the last value only")
        if self.code == "torn_last_line":
            return (f"line {self.line}: the last line is cut off mid-write ({self.size} bytes not parsed), as a "
                    "crash leaves it; read up to the line before, and a repair writes the transcript without it")
        if self.by:
            return (f"line {self.line}: not valid JSON ({self.problem}); left out ({self.size} bytes), as {self.by} "
                    "leaves it out when it resumes the session")
        return f"line {self.line}: not valid JSON ({self.problem}); skipped ({self.size} bytes), as asked"


def as_bytes(data: Any) -> bytes:
    """The file's bytes from any bytes-like object (bytes, bytearray, memoryview, an mmap...).

    Readers slice and search the data as bytes, so a bytes-like object is copied
    once here (bytes pass as they are).  Anything else is a TypeError on one line:
    a str especially, whose encoding the caller knows and this package would guess.
    """
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        raise TypeError("expected the file's bytes, got a str: pass text.encode('utf-8')")
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(f"expected the file's bytes (bytes, bytearray or memoryview), got "
                        f"{type(data).__name__}") from None
    return view.tobytes()


def describe_value(value: Any) -> str:
    """'a string', 'an array'... for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def message_position(transcript: Transcript, index: int) -> str:
    """'message N (line L)' for error messages and reports."""
    if index < len(transcript.lines) and transcript.lines[index]:
        return f"message {index} (line {transcript.lines[index]})"
    return f"message {index}"


def check_messages(transcript: Transcript) -> None:
    """Every message must be a JSON object with a string role; anything else is a clear error."""
    for index, message in enumerate(transcript.messages):
        if not isinstance(message, dict):
            raise TranscriptError(transcript.source, message_position(transcript, index),
                                  f"expected a message object, got {describe_value(message)}")
        role = message.get("role")
        if not isinstance(role, str):
            problem = "has no 'role'" if role is None else f"'role' must be a string, got {describe_value(role)}"
            raise TranscriptError(transcript.source, message_position(transcript, index), f"the message {problem}")


def read_source(path: str) -> bytes:
    """The bytes of a transcript file ('-' is stdin); unreadable paths become TranscriptErrors."""
    import sys

    if path == "-":
        if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:  # started with standard input closed
            raise TranscriptError("<stdin>", "", "standard input is closed: there is nothing to read")
        try:
            return sys.stdin.buffer.read()
        except MemoryError:
            raise TranscriptError("<stdin>", "", "too large to read into memory") from None
        except (OSError, ValueError) as error:  # a closed or unreadable descriptor
            raise TranscriptError("<stdin>", "", f"cannot read standard input: {error}") from None
    handle, status = open_source(path)
    return read_opened(path, handle, int(status.st_size))


def open_source(path: str) -> tuple[int, Any]:
    """An open descriptor of a regular file and its status (os.fstat); the caller closes it (read_opened
    does).  Unreadable paths, directories, FIFOs, devices and sockets become TranscriptErrors."""
    # O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below).
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags)
    except FileNotFoundError:
        raise TranscriptError(path, "", "no such file") from None
    except PermissionError:
        raise TranscriptError(path, "", "permission denied") from None
    except OSError as error:
        try:  # a socket cannot be opened at all: say what it is
            _check_regular(path, os.stat(path))
        except OSError:
            pass
        raise TranscriptError(path, "", f"cannot read: {error.strerror or error}") from None
    try:
        status = os.fstat(handle)
        _check_regular(path, status)
    except BaseException:
        os.close(handle)
        raise
    return handle, status


def read_opened(path: str, handle: int, size: int) -> bytes:
    """The whole file behind a descriptor open_source gave (read from its start), which it closes.

    A file of ordinary size is read by os.read straight from the descriptor: its whole size and the end after
    it, in two system calls.  A file object costs five more (two fstat, two lseek and an ioctl), and its
    making: about a fifth of reading a small file, which `check` over a folder of thousands pays for each."""
    if size < READ_DIRECTLY_BELOW:
        try:
            return read_to_end(handle, size)
        except MemoryError:
            raise TranscriptError(path, "", f"too large to read into memory ({size:,} bytes)") from None
        except OSError as error:
            raise TranscriptError(path, "", f"cannot read: {error.strerror or error}") from None
        finally:
            os.close(handle)
    with os.fdopen(handle, "rb") as stream:
        try:
            return stream.read()
        except MemoryError:
            raise TranscriptError(path, "", f"too large to read into memory ({size:,} bytes)") from None
        except OSError as error:
            raise TranscriptError(path, "", f"cannot read: {error.strerror or error}") from None


READ_DIRECTLY_BELOW = 1 << 26
"""Files below this size are read by os.read (read_opened); a larger one by a file object, which grows one buffer
instead of joining the pieces a read of more than 2 GB comes in (Linux reads at most that much at once)."""


def read_to_end(handle: int, size: int) -> bytes:
    """Every byte from the descriptor's position to the end of its file, `size` of them expected: one read of
    them and one that finds the end (a file grown since, or a read cut short, gets the reads it needs)."""
    data = os.read(handle, size + 1)
    if not data:
        return data
    more = os.read(handle, 1)
    if not more:
        return data
    pieces = [data, more]
    while more:
        more = os.read(handle, 1 << 20)
        pieces.append(more)
    return b"".join(pieces)


def _check_regular(path: str, status: Any) -> int:
    """The size of a regular file; anything else (a directory, FIFO, device, socket) is refused."""
    if stat.S_ISREG(status.st_mode):
        return int(status.st_size)
    from ._bulk.atomic_write import file_kind

    kind = file_kind(status.st_mode)
    if kind == "a directory":
        raise TranscriptError(path, "", "is a directory, not a transcript file")
    if kind:
        raise TranscriptError(path, "", f"is {kind}, not a regular file; to read a stream, pipe it "
                                        "to standard input and name the file '-'")
    return int(status.st_size)
