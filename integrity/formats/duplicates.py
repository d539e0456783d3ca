"""Duplicate keys in a JSON object: a finding, never resolved in silence.

JSON leaves `{"role": "user", "role": "assistant"}` undefined: Python, JavaScript
and msgspec keep the last value, other parsers the first or refuse it.  A file
checked as one message may reach a provider as another, so it is never healthy:
the reader records a `duplicate_key` note (a malformed finding, like a torn last
line), and a repair writes each such object with the value this reader used.

Finding them must not cost a second parse of every file.  So the file's key
tokens are counted on its bytes (`"` then `:`, corrected for escaped quotes: an
upper bound, exact for JSON as writers produce it) and the parsed objects' keys
are counted; only when the bytes hold more keys than the objects (a key was
lost) is the file parsed again, with a hook that sees every key, to name the
first duplicate and the line of the entry that holds it.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

from .._bulk.key_tokens import key_tokens_bound as key_tokens_bound
from ..loading import ReaderNote


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    built = dict(pairs)
    if len(built) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return built


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs)


def count_keys(roots: list[Any]) -> int:
    """How many keys the parsed objects under roots hold (each key once per object)."""
    total = 0
    stack = list(roots)
    pop, extend = stack.pop, stack.extend
    while stack:
        value = pop()
        kind = type(value)
        if kind is dict:
            total += len(value)
            extend(value.values())
        elif kind is list:
            extend(value)
    return total


def _line(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset)


def first_duplicate(text: str, container: str) -> tuple[int, str] | None:
    """(line of the entry holding it, or 0 for the envelope, key) of the first duplicate key; None if none."""
    if container == "jsonl":
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                try:
                    _DECODER.decode(line)
                except _Duplicate as found:
                    return number, found.key
                except (ValueError, RecursionError):  # a torn or skipped line: the reader noted it already
                    continue
        return None
    starts = [0] + [match.end() for match in re.finditer("\n", text)]
    position = len(text) - len(text.lstrip())
    if container == "array" and text.startswith("[", position):
        position += 1
        while True:
            while position < len(text) and text[position] in " \t\r\n,":
                position += 1
            if position >= len(text) or text[position] == "]":
                return None
            try:
                _, position = _DECODER.raw_decode(text, position)
            except _Duplicate as found:
                return _line(starts, position), found.key
    try:
        _DECODER.decode(text)
    except _Duplicate as found:
        return 0, found.key
    return None


def duplicate_note(data: bytes, container: str, roots: list[Any]) -> ReaderNote | None:
    """The note for the first duplicate key in the file, or None when no object names a key twice."""
    bound = key_tokens_bound(data)
    if bound is not None and bound <= count_keys(roots):
        return None
    text = data.decode("utf-8-sig", "replace")
    found = first_duplicate(text, container)
    if found is None:
        return None
    line, key = found
    return ReaderNote("duplicate_key", line, 0, key)
