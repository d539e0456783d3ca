"""Reading transcripts, with errors a person can act on.

Every failure becomes a TranscriptError whose one-line message names the file,
the position (line/column or message index) and what is wrong.  Callers (CLI,
inspector) print that line; they never show a traceback.  The bytes are parsed
in one place, integrity.formats.container; this module holds the error, the
Transcript record, the pi-ai message check and reading a path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
    # Filled by integrity.formats (empty for a Transcript built by hand): the native entries as
    # read, the 1-based line of each, and for every canonical message the index of the
    # native entry it came from (so a report on canonical message i can name native
    # entry entries[i] at line lines[i]).  dialect names a sub-variant of a format
    # (LangChain: "messages_to_dict" or "dumpd").
    native: list[Any] = field(default_factory=list)
    native_lines: list[int] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)
    dialect: str = ""


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
