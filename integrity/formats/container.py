"""Finding the list of native entries in a file, whatever wrapper it came in.

People paste a bare JSON array, an object that holds the list (a saved request:
`messages`, `input`, `contents`), or JSONL (one entry per line, as Claude Code and
many loggers write).  This module only locates the entries and the line each
starts on; what the entries mean is the format adapters' business.  Errors are
TranscriptErrors naming file, position and problem on one line.

This is the only container parser: every reader (read_bytes, and the pi-ai
message check analysis.load falls back to) goes through parse_document.
"""

from __future__ import annotations

import bisect
import json
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..loading import BadLineError, ReaderNote, TranscriptError, as_bytes
from .duplicates import duplicate_note

# Keys under which a request envelope holds its list, in the order we look for them: request
# bodies (messages, input, contents), the Claude Code web export (loglines), SWE-agent
# trajectories (history), OpenHands trajectory exports (trajectory), LangGraph thread
# states (values.messages: a dotted key is a path into nested objects), pages of a
# conversation's events as the OpenHands V1 API returns them (items) and a goose session
# as `goose session export --format json` writes it (conversation).
LIST_KEYS = ("messages", "input", "contents", "loglines", "history", "trajectory", "values.messages", "items",
             "conversation")

# The deepest nesting of arrays and objects read (the outermost value is level 1; each
# JSONL line is a value of its own).  Deeper input is refused, never half-processed:
# Python's parser and the code that walks values recurse, and real transcripts nest
# a few dozen levels at most.
MAX_DEPTH = 200

_WS = " \t\r\n"


class _NotJSON(ValueError):
    """Raised by the decoder hooks for a value JSON cannot hold (NaN, Infinity, 1e999)."""


class _Constant(_NotJSON):
    """NaN or Infinity: not JSON by its grammar (JavaScript's JSON.parse refuses them too)."""


class Beyond(json.JSONDecodeError):
    """JSON by its grammar that this reader does not read back faithfully: a number that overflows to infinity,
    an integer past Python's digit limit, nesting past MAX_DEPTH.  JavaScript's JSON.parse reads such a line, so a
    runtime that skips the lines it cannot parse (Claude Code) does not skip it: the file is refused here."""


GRAMMAR = "grammar"
"""skip_bad_lines's third value: leave out only the lines that are not JSON by its grammar (as a runtime that
skips what JSON.parse refuses does), and refuse a file with a line that is JSON but Beyond this reader."""


def _no_constant(name: str) -> Any:
    raise _Constant(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):
        raise _NotJSON(text)
    return value


# One token of JSON text, for finding where a value the decoder refused sits:
# strings are skipped whole so nothing inside them counts.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|(?P<open>[\[{])|(?P<close>[\]}])'
                    r'|(?P<const>-?(?:NaN|Infinity))|(?P<number>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)')


def _digit_limit() -> int:
    """Python's limit on the digits of an integer read from text (0: none)."""
    get = getattr(sys, "get_int_max_str_digits", None)
    return int(get()) if get is not None else 0


def _number_problem(token: str) -> str | None:
    """Why a number token cannot be read faithfully, or None."""
    digits = len(token.lstrip("-"))
    if "." not in token and "e" not in token.lower():
        limit = _digit_limit()
        if limit and digits > limit:
            return f"an integer with {digits} digits is too long (at most {limit} digits are read)"
        return None
    if float(token) in (math.inf, -math.inf):
        return f"the number {token[:24]}{'...' if len(token) > 24 else ''} is too large (it overflows to infinity)"
    return None


def locate_problem(text: str, start: int, level: int) -> tuple[int, str] | None:
    """Where the value at text[start] has something we refuse, and what (None: nothing found).

    level is the nesting level the value sits in (0 for a whole document).  Only the
    error path calls this: it walks the tokens one by one.
    """
    depth = level
    for match in _TOKEN.finditer(text, start):
        kind = match.lastgroup
        if kind == "open":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start(), f"nested deeper than {MAX_DEPTH} levels of arrays and objects (the limit)"
            continue
        if kind == "close":
            depth -= 1
        elif kind == "const":
            return match.start(), (f"{match.group()} is not valid JSON "
                                   "(JSON has no NaN or Infinity; write null or a string)")
        elif kind == "number":
            problem = _number_problem(match.group())
            if problem:
                return match.start(), problem
        if depth <= level:
            return None
    return None


_BRACKETS = bytes.maketrans(b"[]{}", b"()()")
_NOT_STRUCTURE = bytes(c for c in range(256) if c not in b'[]{}"')


def _depth_over(data: bytes, allowed: int) -> bool:
    """Whether valid JSON bytes nest deeper than `allowed` levels, at C speed.

    Escaped backslashes and quotes go first, so every remaining quote opens or
    closes a string; then only brackets and quotes are kept.  Dropping two
    adjacent quotes keeps every bracket's side of the string boundaries, so what
    is left between quote pairs is a bracket inside a string, and is dropped.
    Each pass then removes the innermost bracket pairs: after `allowed` passes
    anything left is deeper.
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    data = data.translate(_BRACKETS, _NOT_STRUCTURE)
    while b'""' in data:
        data = data.replace(b'""', b"")
    if b'"' in data:
        data = b"".join(data.split(b'"')[0::2])
    for _ in range(allowed):
        if not data:
            return False
        data = data.replace(b"()", b"")
    return bool(data)


def too_deep(value: str | bytes, start: int, end: int, level: int) -> bool:
    """Whether the JSON value in value[start:end], sitting at nesting `level`, goes past MAX_DEPTH.

    Cheap for almost every value: a value that deep needs that many opening
    brackets, so short values and values with few brackets are never scanned.
    """
    allowed = MAX_DEPTH - level
    if (end - start) // 2 <= allowed:
        return False
    if isinstance(value, str):
        if value.count("[", start, end) + value.count("{", start, end) <= allowed:
            return False
        return _depth_over(value[start:end].encode("utf-8", "surrogatepass"), allowed)
    if value.count(b"[", start, end) + value.count(b"{", start, end) <= allowed:
        return False
    return _depth_over(value[start:end], allowed)


class _StrictDecoder(json.JSONDecoder):
    """Python's JSON decoder, refusing what is not JSON or cannot be read back faithfully.

    NaN, Infinity, numbers that overflow to infinity, integers longer than Python
    reads, and nesting past MAX_DEPTH all raise JSONDecodeError at the offending
    token, so every caller's positioned error message covers them.  `level` is the
    nesting level of the values it decodes (1 for the entries of a top-level array).
    """

    def __init__(self, level: int = 0) -> None:
        super().__init__(parse_constant=_no_constant, parse_float=_finite_float)
        self.level = level

    def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
        try:
            value, end = super().raw_decode(s, idx)
        except json.JSONDecodeError:
            raise
        except (ValueError, RecursionError) as error:  # _NotJSON, an integer too long, nesting too deep
            found = locate_problem(s, idx, self.level)
            position, problem = found if found else (idx, "a value JSON cannot hold")
            raise (json.JSONDecodeError if isinstance(error, _Constant) else Beyond)(problem, s, position) from None
        if too_deep(s, idx, end, self.level):
            found = locate_problem(s, idx, self.level)
            position, problem = found if found else (idx, f"nested deeper than {MAX_DEPTH} levels")
            raise Beyond(problem, s, position)
        return value, end


_DECODER = _StrictDecoder()
_ENTRY_DECODER = _StrictDecoder(level=1)


def loads(text: str) -> Any:
    """json.loads with this module's rules: NaN, Infinity, overflowing numbers, integers
    past Python's digit limit and nesting past MAX_DEPTH raise JSONDecodeError (a
    ValueError), never RecursionError.  For JSON found inside strings (tool arguments).

    msgspec reads it first, about seven times faster (a tool call's arguments are read twice per check, by the
    reader and the schema check, and again by a writer): it refuses all the exact parser refuses (and lone
    surrogates, which that parser takes) and reads everything else to the same values (tests/test_loads.py), so
    whatever it refuses, and anything nested past MAX_DEPTH, goes to the exact parser, which accepts it or raises
    at the position of the problem."""
    value = _msgspec_value(text)
    if value is None or too_deep(text, 0, len(text), 0):  # (None: refused, or the text was null: either way)
        return _DECODER.decode(text)
    return value


def _line_col(starts: list[int], offset: int) -> tuple[int, int]:
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    position = find("\n")
    while position != -1:
        starts.append(position + 1)
        position = find("\n", position + 1)
    return starts


# Peak memory of reading a file as Python objects and checking it, per byte of file
# (measured: about 15 for a JSONL file of short messages checked with --provider).
MEMORY_PER_BYTE = 20


def _memory_left() -> int | None:
    """Bytes this process may still allocate under an address-space limit (None: no limit set)."""
    try:
        import resource
    except ImportError:  # not POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm") as statm:
            used = int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        used = 0
    return max(soft - used, 0)


def check_memory(size: int, source: str) -> None:
    """Refuse, on one line, a file too large for the address-space limit this process runs under.

    Without a limit a failed allocation raises MemoryError, which the CLI turns into
    one line.  Under one (ulimit -v), some allocations happen in compiled libraries
    that abort the process instead, so the file is refused before reading starts.
    """
    left = _memory_left()
    if left is not None and size * MEMORY_PER_BYTE > left:
        raise TranscriptError(source, "", f"too large for the memory this process may use ({size:,} bytes; "
                                          f"reading it needs about {size * MEMORY_PER_BYTE // 2**20:,} MB, "
                                          f"{left // 2**20:,} MB are left)")


_SIGNATURES = (  # the UTF-32 LE mark begins with the UTF-16 LE one: it is tried first
    (b"\xff\xfe\x00\x00", "UTF-32 LE text (it opens with a UTF-32 LE byte-order mark): save it as UTF-8"),
    (b"\x00\x00\xfe\xff", "UTF-32 BE text (it opens with a UTF-32 BE byte-order mark): save it as UTF-8"),
    (b"\xff\xfe", "UTF-16 LE text (it opens with a UTF-16 LE byte-order mark): save it as UTF-8"),
    (b"\xfe\xff", "UTF-16 BE text (it opens with a UTF-16 BE byte-order mark): save it as UTF-8"),
    (b"\x1f\x8b", "gzip-compressed data: decompress it first (gunzip)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data: decompress it first (unzstd)"),
    (b"BZh", "bzip2-compressed data: decompress it first (bunzip2)"),
)


def _what_it_is(data: bytes) -> str:
    """What a file that is not UTF-8 text most likely is, by its first bytes ("" when unknown)."""
    for signature, said in _SIGNATURES:
        if data.startswith(signature):
            return f"; the file looks like {said}"
    return ""


# JSON text opens with an ASCII character; its NUL bytes around it name the encoding when there is no
# byte-order mark (RFC 4627, section 3).  NUL is valid UTF-8, so such a file decodes and would fail later
# as "invalid JSON" at a NUL.
_UNMARKED = (
    (re.compile(b"[^\x00]\x00\x00\x00", re.DOTALL), "UTF-32 LE"),
    (re.compile(b"\x00\x00\x00[^\x00]", re.DOTALL), "UTF-32 BE"),
    (re.compile(b"[^\x00]\x00[^\x00]\x00", re.DOTALL), "UTF-16 LE"),
    (re.compile(b"\x00[^\x00]\x00[^\x00]", re.DOTALL), "UTF-16 BE"),
)


def _unmarked_wide(data: bytes, source: str) -> None:
    """Refuse UTF-16 or UTF-32 text without a byte-order mark, by its encoding's name."""
    for pattern, name in _UNMARKED:
        if pattern.fullmatch(data[:4]):
            raise TranscriptError(source, "byte 0", f"not UTF-8 text: the file looks like {name} text (without a "
                                                    "byte-order mark): save it as UTF-8")


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text of the file (a leading BOM is ignored), or a TranscriptError naming the bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TranscriptError(source, f"byte {error.start}", "not valid UTF-8 text" + _what_it_is(data)) from None
    if "\x00" in text[:4]:
        _unmarked_wide(data, source)
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise TranscriptError(source, "", "the file is empty; expected a JSON array of messages, "
                                          "an object with a 'messages' array, or JSONL")
    return text


def json_problem(error: json.JSONDecodeError) -> str:
    """What the JSON decoder found, without the " at" it ends some of its messages with ("Unterminated string
    starting at", "Invalid control character at"): it expects its own position after it, and an error here
    names the line and column (where the string starts) before it."""
    return error.msg.removesuffix(" at").removesuffix(" starting")


def _parse_array(text: str, start: int, starts: list[int], source: str) -> tuple[list[Any], list[int], int]:
    """Parse the array opening at text[start] element by element, recording where each starts."""
    items: list[Any] = []
    lines: list[int] = []
    position = start + 1
    length = len(text)
    while position < length and text[position] in _WS:
        position += 1
    if position < length and text[position] == "]":
        return items, lines, position + 1
    while True:
        while position < length and text[position] in _WS:
            position += 1
        try:
            value, end = _ENTRY_DECODER.raw_decode(text, position)
        except json.JSONDecodeError as error:
            line, col = _line_col(starts, error.pos)
            raise TranscriptError(source, f"line {line}, column {col}",
                                  f"invalid JSON in message {len(items)}: {json_problem(error)}") from None
        items.append(value)
        lines.append(_line_col(starts, position)[0])
        position = end
        while position < length and text[position] in _WS:
            position += 1
        if position < length and text[position] == ",":
            position += 1
            continue
        if position < length and text[position] == "]":
            return items, lines, position + 1
        line, col = _line_col(starts, min(position, length))
        problem = "the array of messages is not closed" if position >= length else "expected ',' or ']' after a message"
        raise TranscriptError(source, f"line {line}, column {col}", problem)


_GAP = re.compile(rb"[ \t\r\n]*(?:,[ \t\r\n]*)?")
"""What may separate two entries of an array: JSON whitespace around one comma."""


def _fast_document(data: bytes) -> Document | None:
    """The document read by msgspec, exactly as parse_document reads it; None when unsure.

    msgspec reads JSON about three times faster than the exact parsers below
    (Python's decoder, for positioned errors).  It refuses everything they refuse
    (NaN, Infinity, 1e999, integers past Python's digit limit, lone surrogates,
    invalid UTF-8; a RecursionError on deep nesting) and reads everything else to
    the same values.  Whatever it refuses, nesting past MAX_DEPTH, and any shape
    whose entry lines it cannot place for certain go to the exact parsers, which
    accept or name the position and the problem as before.  Lines come from the
    lengths of the values' raw JSON, so they are the exact parsers' too.
    """
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    first = len(body) - len(body.lstrip(b" \t\r\n"))
    opener = body[first:first + 1]
    if opener == b"[":
        found = _fast_array(body, first)
        return Document(found[0], found[1], "array") if found is not None else None
    if opener != b"{":
        return None
    whole = _msgspec_value(body)
    if whole is None:
        return _fast_jsonl(body)
    if not isinstance(whole, dict):
        return None
    for key in LIST_KEYS:
        found = get_path(whole, key)
        if isinstance(found, list):
            if "." in key:
                lines: list[int] | None = [0] * len(found)
                if _fast_members(body, first, None) is None:  # only the depth check: lines are not placed
                    return None
            else:
                lines = _fast_members(body, first, key)
            if lines is None or len(lines) != len(found):
                return None
            return Document(found, lines, "object", key, envelope_without(whole, key), whole=whole)
    if _fast_members(body, first, None) is None:
        return None
    line = body.count(b"\n", 0, first) + 1
    short = string_input(whole)
    if short is not None:
        return Document(short, [line], "object", "input", envelope_without(whole, "input"), whole=whole)
    return Document([whole], [line], "jsonl", whole=whole)


def _msgspec_value(body: bytes | memoryview | str) -> Any:
    """msgspec's reading of one JSON value, or None when it refuses it (the exact parser decides)."""
    try:
        return msgspec.json.decode(body)
    except (ValueError, RecursionError):  # (msgspec's errors are ValueErrors; so is a str's lone surrogate)
        return None


def _raws(body: bytes | memoryview, kind: Any) -> Any:
    """The raw JSON of each entry of an array (kind list) or member of an object (kind dict), or None."""
    try:
        return msgspec.json.decode(body, type=kind[str, msgspec.Raw] if kind is dict else list[msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None


def _fast_array(body: bytes, first: int) -> tuple[list[Any], list[int]] | None:
    """The entries of a document that is one array (opening at body[first]) and their lines, or None."""
    raws = _raws(body, list)
    entries = _msgspec_value(body) if raws is not None else None
    if not isinstance(entries, list) or len(entries) != len(raws):
        return None
    lines = _entry_lines(body, first, raws, level=1)
    return (entries, lines) if lines is not None else None


def _entry_lines(body: bytes, opening: int, raws: list[Any], level: int) -> list[int] | None:
    """The line each entry of the array opening at body[opening] starts on; None past MAX_DEPTH.

    Entries are found from their raw lengths: between two entries there is only
    JSON whitespace around one comma.  level: the nesting level of the entries.
    """
    lines: list[int] = []
    line, counted = 1, 0
    gap = _GAP.match
    position = opening + 1
    for raw in raws:
        position = gap(body, position).end()  # type: ignore[union-attr]  # the pattern matches anywhere
        end = position + len(memoryview(raw))
        if too_deep(body, position, end, level):
            return None
        line += body.count(b"\n", counted, position)
        counted = position
        lines.append(line)
        position = end
    return lines


_KEY = re.compile(rb'[ \t\r\n]*"(?:[^"\\]|\\.)*"[ \t\r\n]*:[ \t\r\n]*')
"""A member's name up to its value: whitespace, the JSON string, a colon, whitespace."""


def _fast_members(body: bytes, opening: int, key: str | None) -> list[int] | None:
    """Walk the members of the object opening at body[opening]; the lines of the entries of the array
    under top-level `key` ([] when key is None); None when a member is too deep or the walk is unsure.

    Like _lines_in_object, only top-level members count (a nested "messages" is never the
    transcript); a name used twice is left to the exact parser, which says which value counts.
    """
    members = _raws(body, dict)
    if members is None:
        return None
    gap = _GAP.match
    position = opening + 1
    lines: list[int] | None = [] if key is None else None
    seen = 0
    for name, raw in members.items():
        match = _KEY.match(body, position)
        if match is None or _msgspec_value(body[match.start():match.end()].strip(b" \t\r\n:")) != name:
            return None
        start = match.end()
        end = start + len(memoryview(raw))
        if name == key and body[start:start + 1] == b"[":
            lines = _entry_lines(body, start, _raws(memoryview(body)[start:end], list) or [], level=2)
            if lines is None:
                return None
        elif too_deep(body, start, end, 1):
            return None
        seen += 1
        position = gap(body, end).end()  # type: ignore[union-attr]  # the pattern matches anywhere
    rest = body[position:].strip(b" \t\r\n")
    return lines if seen == len(members) and rest == b"}" else None


def _fast_jsonl(body: bytes) -> Document | None:
    """One entry per non-blank line, when msgspec reads every line (else None: the exact parser decides,
    and records torn or skipped lines)."""
    entries: list[Any] = []
    lines: list[int] = []
    for number, line in enumerate(body.split(b"\n"), start=1):
        if not line.strip(b" \t\r\n"):
            if line.strip():  # other blank bytes: what Python calls whitespace is the exact parser's call
                return None
            continue
        value = _msgspec_value(line)
        if value is None or too_deep(line, 0, len(line), 0):
            return None
        entries.append(value)
        lines.append(number)
    return Document(entries, lines, "jsonl")


def _is_cut(line: str, error: json.JSONDecodeError) -> bool:
    """The line is valid JSON up to its end, then stops: what a crash mid-write leaves.  NUL bytes at its end
    (or nothing else) are the crash's too: many file systems write a file's new length before its data, and a
    crash between the two leaves the tail zeroed."""
    body = line.rstrip().rstrip("\0").rstrip()
    if not body:
        return True
    return body.lstrip()[:1] in ("{", "[") and (
        error.pos >= len(body) or error.msg.startswith("Unterminated string"))


def _spliced(line: str, error: json.JSONDecodeError) -> str:
    """What a line holding a whole JSON object and then another is, said after the decoder's "Extra data": a
    record written without its newline, the next appended on the same line (anthropics/claude-code#81843 counts
    such splices in Claude Code sessions), else ""."""
    if error.msg != "Extra data" or line[error.pos:error.pos + 1] != "{":
        return ""
    return " (a record and the next on one line, without the newline between them, as a crash or two writers leave)"


def _parse_jsonl(text: str, starts: list[int], source: str, skip_bad_lines: bool | str = False,
                 notes: list[ReaderNote] | None = None) -> tuple[list[Any], list[int]]:
    """One entry per non-blank line.

    A last line cut off mid-write is left out and recorded in `notes` (the rest of the
    session is what a user wants to debug); any other bad line is an error, or, with
    skip_bad_lines, left out and recorded (with GRAMMAR: only a line that is not JSON by its grammar).
    """
    items: list[Any] = []
    lines: list[int] = []
    rows = text.split("\n")
    last = max((n for n, row in enumerate(rows, start=1) if row.strip()), default=0)
    for number, line in enumerate(rows, start=1):
        if not line.strip():
            continue
        try:
            items.append(_DECODER.decode(line))
        except json.JSONDecodeError as error:
            size = len(line.encode("utf-8"))
            if notes is not None and number == last and items and _is_cut(line, error):
                notes.append(ReaderNote("torn_last_line", number, size, error.msg))
                continue
            beyond = isinstance(error, Beyond)
            if notes is not None and (skip_bad_lines is True or (skip_bad_lines == GRAMMAR and not beyond)):
                notes.append(ReaderNote("skipped_line", number, size, error.msg))
                continue
            raise BadLineError(source, f"line {number}, column {error.colno}",
                               f"invalid JSON on this JSONL line: {json_problem(error)}{_spliced(line, error)}; "
                               "--skip-bad-lines reads the other lines and reports this one", grammar=not beyond) \
                from None
        lines.append(number)
    return items, lines


def _first_line_is_object(text: str) -> bool:
    """The first non-blank line is a whole JSON object on its own (the file is JSONL, not one object)."""
    for line in text.split("\n"):
        if line.strip():
            try:
                return isinstance(_DECODER.decode(line), dict)
            except json.JSONDecodeError:
                return False
    return False


@dataclass
class Document:
    """The entries of a file plus how they were wrapped (to write them back the same way)."""

    entries: list[Any]
    lines: list[int]
    container: str  # "array", "object" or "jsonl"
    key: str = "messages"
    envelope: dict[str, Any] = field(default_factory=dict)
    notes: list[ReaderNote] = field(default_factory=list)  # torn or skipped JSONL lines
    whole: Any = None  # an object container's parsed object (to find the transcripts it holds)
    newline: str = "\n"  # a JSONL file's line ending ("\r\n" when its first line ends so), kept when written


def get_path(whole: Any, key: str) -> Any:
    """whole[key], where a dotted key walks into nested objects (None when absent)."""
    value = whole
    for part in key.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def put_path(envelope: dict[str, Any], key: str, entries: Any) -> dict[str, Any]:
    """The object `envelope` with `entries` placed at `key` (a dotted key: in nested objects).

    A top-level key goes last, as request bodies have always been written; a nested
    one goes into its object, which keeps its place.
    """
    head, _, rest = key.partition(".")
    if not rest:
        return {**envelope, head: entries}
    inner = envelope.get(head)
    value = put_path(inner if isinstance(inner, dict) else {}, rest, entries)
    if head in envelope:
        return {k: (value if k == head else v) for k, v in envelope.items()}
    return {**envelope, head: value}


def string_input(whole: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The entries of a Responses request whose `input` is a string (the API's short form: one user message),
    when no list of LIST_KEYS holds the entries: that one message, as the list form writes it.  Such a request
    holds no tool call, so it is read (and left as it is) rather than refused as a format no reader fits."""
    text = whole.get("input")
    if not isinstance(text, str) or any(isinstance(get_path(whole, key), list) for key in LIST_KEYS):
        return None
    return [{"role": "user", "content": text}]


def envelope_without(whole: dict[str, Any], key: str) -> dict[str, Any]:
    """The object without the list at `key` (put_path puts it back)."""
    head, _, rest = key.partition(".")
    if not rest:
        return {k: v for k, v in whole.items() if k != head}
    inner = whole.get(head)
    return {**whole, head: envelope_without(inner, rest) if isinstance(inner, dict) else inner}


def parse_document(data: bytes, source: str, skip_bad_lines: bool | str = False) -> Document:
    """Locate the entry list of a JSON array, an envelope object or JSONL.

    skip_bad_lines: JSONL lines that are not JSON are left out (each one recorded in
    Document.notes) instead of refusing the file; a cut last line always is.
    """
    data = as_bytes(data)
    document = _parse_document(data, source, skip_bad_lines)
    duplicate = duplicate_note(data, document.container,
                               [document.whole] if document.whole is not None else document.entries)
    if duplicate is not None:
        document.notes.append(duplicate)
    if document.container == "jsonl":
        end = data.find(b"\n")
        if end > 0 and data[end - 1:end] == b"\r":
            document.newline = "\r\n"
    return document


def _parse_document(data: bytes, source: str, skip_bad_lines: bool | str) -> Document:
    check_memory(len(data), source)
    fast = _fast_document(data)
    if fast is not None:
        return fast
    text = decode_text(data, source)
    starts = _line_starts(text)
    first = len(text) - len(text.lstrip())
    opener = text[first]
    if opener == "[":
        entries, lines, end = _parse_array(text, first, starts, source)
        rest = text[end:].strip()
        if rest:
            line, col = _line_col(starts, text.index(rest[0], end))
            raise TranscriptError(source, f"line {line}, column {col}", "unexpected data after the array of messages")
        return Document(entries, lines, "array")
    if opener != "{":
        line, col = _line_col(starts, first)
        raise TranscriptError(source, f"line {line}, column {col}",
                              f"expected a JSON array, a JSON object or JSONL (the first character is {opener!r})")
    try:
        whole = _DECODER.decode(text)
    except json.JSONDecodeError as error:
        if error.msg != "Extra data" and not _first_line_is_object(text):
            raise TranscriptError(source, f"line {error.lineno}, column {error.colno}",
                                  f"invalid JSON: {json_problem(error)}") from None
        notes: list[ReaderNote] = []
        entries, lines = _parse_jsonl(text, starts, source, skip_bad_lines, notes)
        return Document(entries, lines, "jsonl", notes=notes)
    for key in LIST_KEYS:
        found = get_path(whole, key)
        if isinstance(found, list):
            lines = _lines_in_object(text, starts, key, len(found), source) if "." not in key else [0] * len(found)
            return Document(found, lines, "object", key, envelope_without(whole, key), whole=whole)
    line = _line_col(starts, first)[0]
    short = string_input(whole)
    if short is not None:  # a Responses request's short form: `input` as a string
        return Document(short, [line], "object", "input", envelope_without(whole, "input"), whole=whole)
    # A single JSON object without a list: a one-line JSONL file (one entry).
    return Document([whole], [line], "jsonl", whole=whole)


def _lines_in_object(text: str, starts: list[int], key: str, count: int, source: str) -> list[int]:
    """Start line of every entry of the top-level list under `key` (0s if it cannot be found).

    Walks the top-level members with the JSON decoder, so a nested member of the
    same name (metadata.messages, say) is never mistaken for the transcript.
    """
    position = text.index("{") + 1
    try:
        while True:
            position = _skip(text, position)
            if text[position] == "}":
                break
            name, position = _DECODER.raw_decode(text, position)
            position = _skip(text, position) + 1  # past ':'
            position = _skip(text, position)
            if name == key and text[position] == "[":
                _, lines, _ = _parse_array(text, position, starts, source)
                return lines if len(lines) == count else [0] * count
            _, position = _DECODER.raw_decode(text, position)
            position = _skip(text, position)
            if text[position] == ",":
                position += 1
    except (ValueError, IndexError, TranscriptError):
        pass
    return [0] * count


def _skip(text: str, position: int) -> int:
    while text[position] in _WS:
        position += 1
    return position


def serialize(body: Any, container: str, newline: str = "\n") -> bytes:
    """JSON bytes for a body: JSONL writes one compact entry per line (ended by `newline`), others are
    indented."""
    if container == "jsonl":
        entries = body if isinstance(body, list) else [body]
        return json_bytes("".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + newline
                                  for e in entries))
    return indented(body) + b"\n"


def indented(body: Any) -> bytes:
    """`json_bytes(json.dumps(body, ensure_ascii=False, indent=2))`, byte for byte (tests/test_indented.py), made by
    json's C encoder writing it compact and msgspec's formatter indenting that text, which keeps every token as
    written: an indent sends json.dumps to its pure-Python encoder, whose millions of small strings cost a
    200,000-message Chat file's `repair` 1.9 s and some 260 MB more at its peak (0.6 s here).  What msgspec's
    formatter refuses (json.dumps' NaN or Infinity, which no JSON text holds, a lone surrogate's escape, a nesting
    past its depth) is indented by json.dumps itself."""
    compact = json_bytes(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
    try:
        return msgspec.json.format(compact, indent=2)
    except (msgspec.DecodeError, RecursionError):
        return json_bytes(json.dumps(body, ensure_ascii=False, indent=2))


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_bytes(text: str) -> bytes:
    """UTF-8 bytes of JSON text; a lone surrogate (read from a \\udXXX escape) is written as that escape.

    A lone surrogate has no UTF-8 form, and in JSON text it can only sit inside a
    string, so escaping it keeps the output valid JSON that reads back the same.
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text).encode("utf-8")
