"""Reading transcripts from bytes, with errors a person can act on.

Every failure becomes a TranscriptError whose one-line message names the file,
the position (line/column or message index) and what is wrong.  Callers (CLI,
inspector) print that line; they never show a traceback.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import Any, Optional

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


class TranscriptError(ValueError):
    """Input that cannot be read as a transcript; str() is the one-line explanation."""

    def __init__(self, source: str, position: str, problem: str) -> None:
        self.source = source
        self.position = position
        self.problem = problem
        where = f"{source}: {position}: " if position else f"{source}: "
        super().__init__(where + problem)


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
    # Filled by integrity.formats (empty for parse_json_document): the native entries as
    # read, the 1-based line of each, and for every canonical message the index of the
    # native entry it came from (so a report on canonical message i can name native
    # entry entries[i] at line lines[i]).  dialect names a sub-variant of a format
    # (LangChain: "messages_to_dict" or "dumpd").
    native: list[Any] = field(default_factory=list)
    native_lines: list[int] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)
    dialect: str = ""


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


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text of the file (a leading BOM is ignored), or a TranscriptError naming the bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TranscriptError(source, f"byte {error.start}", "not valid UTF-8 text") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise TranscriptError(source, "", "the file is empty; expected a JSON array of messages, "
                                          "an object with a 'messages' array, or JSONL")
    return text


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
            value, end = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError as error:
            line, col = _line_col(starts, error.pos)
            raise TranscriptError(source, f"line {line}, column {col}",
                                  f"invalid JSON in message {len(items)}: {error.msg}") from None
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


def _parse_jsonl(text: str, starts: list[int], source: str) -> tuple[list[Any], list[int]]:
    items: list[Any] = []
    lines: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise TranscriptError(source, f"line {number}, column {error.colno}",
                                  f"invalid JSON on this JSONL line: {error.msg}") from None
        lines.append(number)
    return items, lines


def parse_json_document(data: bytes, source: str = "<input>") -> Transcript:
    """Read a JSON array, a JSON object with a message list, or JSONL; check every message's shape."""
    text = decode_text(data, source)
    starts = _line_starts(text)
    first = len(text) - len(text.lstrip())
    opener = text[first]
    if opener == "[":
        messages, lines, end = _parse_array(text, first, starts, source)
        rest = text[end:].strip()
        if rest:
            line, col = _line_col(starts, text.index(rest[0], end))
            raise TranscriptError(source, f"line {line}, column {col}", "unexpected data after the array of messages")
        transcript = Transcript(messages, source, "array", lines=lines)
    elif opener == "{":
        try:
            whole = json.loads(text)
        except json.JSONDecodeError as error:
            if error.msg == "Extra data":
                messages, lines = _parse_jsonl(text, starts, source)
                transcript = Transcript(messages, source, "jsonl", lines=lines)
            else:
                raise TranscriptError(source, f"line {error.lineno}, column {error.colno}",
                                      f"invalid JSON: {error.msg}") from None
        else:
            if isinstance(whole.get("messages"), list):
                key = "messages"
            elif "role" in whole:
                transcript = Transcript([whole], source, "jsonl", lines=[_line_col(starts, first)[0]])
                check_messages(transcript)
                return transcript
            else:
                raise TranscriptError(source, "top level",
                                      "a JSON object must hold the transcript in a 'messages' array")
            messages = whole[key]
            envelope = {k: v for k, v in whole.items() if k != key}
            transcript = Transcript(messages, source, "object", key, envelope, lines=[0] * len(messages))
            _locate_in_object(text, starts, transcript)
    else:
        line, col = _line_col(starts, first)
        raise TranscriptError(source, f"line {line}, column {col}",
                              "expected a JSON array, a JSON object or JSONL (the first character is "
                              f"{opener!r})")
    check_messages(transcript)
    return transcript


def _locate_in_object(text: str, starts: list[int], transcript: Transcript) -> None:
    """Find the line of every message inside {"messages": [...]} (best effort, for reports)."""
    needle = json.dumps(transcript.key)
    at = text.find(needle)
    while at != -1:
        cursor = at + len(needle)
        while cursor < len(text) and text[cursor] in _WS:
            cursor += 1
        if cursor < len(text) and text[cursor] == ":":
            cursor += 1
            while cursor < len(text) and text[cursor] in _WS:
                cursor += 1
            if cursor < len(text) and text[cursor] == "[":
                try:
                    _, lines, _ = _parse_array(text, cursor, starts, transcript.source)
                except TranscriptError:
                    return
                if len(lines) == len(transcript.messages):
                    transcript.lines = lines
                return
        at = text.find(needle, at + 1)


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
    import os
    import sys

    if path == "-":
        return sys.stdin.buffer.read()
    if os.path.isdir(path):
        raise TranscriptError(path, "", "is a directory, not a transcript file")
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise TranscriptError(path, "", "no such file") from None
    except PermissionError:
        raise TranscriptError(path, "", "permission denied") from None
    except OSError as error:
        raise TranscriptError(path, "", f"cannot read: {error.strerror or error}") from None


def load_file(path: str) -> Transcript:
    """Read a pi-ai transcript file ('-' is stdin)."""
    return parse_json_document(read_source(path), "<stdin>" if path == "-" else path)


def dump_transcript(transcript: Transcript, messages: Optional[list[Any]] = None) -> bytes:
    """Serialize messages in the transcript's own container (array, object envelope or JSONL)."""
    body = transcript.messages if messages is None else messages
    if transcript.container == "jsonl":
        return "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in body).encode("utf-8")
    if transcript.container == "object":
        whole = {**transcript.envelope, transcript.key: body}
        return (json.dumps(whole, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
