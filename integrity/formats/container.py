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
from dataclasses import dataclass, field
from typing import Any

from ..loading import TranscriptError

# Keys under which a request envelope holds its list, in the order we look for them.
LIST_KEYS = ("messages", "input", "contents")

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


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


@dataclass
class Document:
    """The entries of a file plus how they were wrapped (to write them back the same way)."""

    entries: list[Any]
    lines: list[int]
    container: str  # "array", "object" or "jsonl"
    key: str = "messages"
    envelope: dict[str, Any] = field(default_factory=dict)


def parse_document(data: bytes, source: str) -> Document:
    """Locate the entry list of a JSON array, an envelope object or JSONL."""
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
        whole = json.loads(text)
    except json.JSONDecodeError as error:
        if error.msg != "Extra data":
            raise TranscriptError(source, f"line {error.lineno}, column {error.colno}",
                                  f"invalid JSON: {error.msg}") from None
        entries, lines = _parse_jsonl(text, starts, source)
        return Document(entries, lines, "jsonl")
    for key in LIST_KEYS:
        if isinstance(whole.get(key), list):
            envelope = {k: v for k, v in whole.items() if k != key}
            lines = _lines_in_object(text, starts, key, len(whole[key]), source)
            return Document(whole[key], lines, "object", key, envelope)
    # A single JSON object without a list: a one-line JSONL file (one entry).
    return Document([whole], [_line_col(starts, first)[0]], "jsonl")


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


def serialize(body: Any, container: str) -> bytes:
    """JSON bytes for a body: JSONL writes one compact entry per line, others are indented."""
    if container == "jsonl":
        entries = body if isinstance(body, list) else [body]
        return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in entries).encode("utf-8")
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
