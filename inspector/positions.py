"""One position scheme for every screen: where a message is in the user's own file first, our index second.

A user looks for the broken entry in their file, so the native position leads:
`line 12` in a JSONL file, `messages[3]` (the provider's own path) in a JSON
request, `[3]` in a bare JSON array; then the canonical index `#4` the engine
and the report use.  Several canonical messages can come from one native entry
(Anthropic content blocks), so two messages may share a native position.
"""

from __future__ import annotations

from typing import Any

from integrity import Transcript


def native_entry(transcript: Transcript, index: int) -> int | None:
    """Index of the native entry canonical message `index` was read from (None when unknown)."""
    if 0 <= index < len(transcript.entries):
        entry = transcript.entries[index]
        if 0 <= entry < len(transcript.native):
            return entry
    return None


def native_message(transcript: Transcript, index: int) -> Any:
    """The entry exactly as it is in the user's file (the canonical message when the file had no other form)."""
    entry = native_entry(transcript, index)
    return transcript.native[entry] if entry is not None else transcript.messages[index]


def line_of(transcript: Transcript, index: int) -> int | None:
    """1-based line where the message's entry starts in the file, when known."""
    entry = native_entry(transcript, index)
    if entry is not None and entry < len(transcript.native_lines):
        return transcript.native_lines[entry]
    if 0 <= index < len(transcript.lines):
        return transcript.lines[index]
    return None


def native_label(transcript: Transcript, index: int) -> str:
    """`line 12` (JSONL), `messages[3]` (JSON object) or `[3]` (JSON array): the place in the user's file."""
    entry = native_entry(transcript, index)
    if entry is None:
        entry = index
    if transcript.whole is not None and entry < len(transcript.positions):
        entry = transcript.positions[entry]
    if transcript.container == "jsonl":
        line = line_of(transcript, index)
        return f"line {line}" if line is not None else f"entry {entry}"
    if transcript.container == "object":
        return f"{transcript.key}[{entry}]"
    return f"[{entry}]"


def durable_label(transcript: Transcript, index: int) -> str:
    """Native position first, canonical index second: `messages[3] · #4`."""
    return f"{native_label(transcript, index)} · #{index}"


def file_line_note(transcript: Transcript, index: int) -> str:
    """`line 38 of the file` for JSON files (where the entry starts), empty for JSONL (the label says it)."""
    if transcript.container == "jsonl":
        return ""
    line = line_of(transcript, index)
    return f"line {line} of the file" if line is not None else ""


def row_place(transcript: Transcript, left: int | None, right: int | None) -> str:
    """The one number a row shows first: where its message is in the user's file (`line 12`, `messages[3]`),
    or, for a message only the repaired view has (a synthesized receipt), that it is not in the file."""
    if left is not None:
        return native_label(transcript, left)
    return f"not in the file (view #{right})" if right is not None else "not in the file"


def other_numbers(row: int, left: int | None, right: int | None) -> str:
    """The other numbers of a row, shown on demand (a tooltip, the detail panel): row, durable #, view #."""
    parts = [f"row {row}"]
    if left is not None:
        parts.append(f"durable #{left}")
    parts.append(f"view #{right}" if right is not None else "not in the view")
    return " · ".join(parts)


def find_place(transcript: Transcript, typed: str) -> int | None:
    """The durable index a typed position names: the file's own (`line 12`, `messages[3]`, `[3]`) or `#3`;
    None when no message is there."""
    text = typed.strip()
    if not text:
        return None
    for index in range(len(transcript.messages)):
        if native_label(transcript, index) == text:
            return index
    lowered = text.lower()
    if lowered.startswith("line "):
        number = lowered[5:].strip()
        if number.isdigit():  # a line inside an entry: the message whose entry starts at or before it
            wanted = int(number)
            found = [i for i in range(len(transcript.messages)) if (line_of(transcript, i) or 0) <= wanted]
            return found[-1] if found else None
        return None
    number = text.lstrip("#")
    if number.isdigit() and int(number) < len(transcript.messages):
        return int(number)
    return None
