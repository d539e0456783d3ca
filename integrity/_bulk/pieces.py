"""JSON text in pieces: values encoded in C now, indented as json.dumps would later, by any process.

Why: `json.dumps(..., indent=2)` encodes in pure Python, seconds for a large report.
msgspec encodes in C on one line; `finished` re-indents that text (msgspec's `format`)
to json.dumps's layout at the depth the value sits, and escapes every character
json.dumps would escape under ensure_ascii, so the bytes are the same.  A `Piece` is
either text to write as it is or a `Compact` value still to indent, so the indenting
can be done by another process than the one encoding (integrity._bulk.indent_process, which
receives pieces as frames through integrity._bulk.frames).  Nothing here knows what a report is: integrity.report.text
writes a report with these pieces.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_NEEDS_ESCAPE = re.compile("[^\x00-\x7e]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair, as json.dumps writes it
    return f"\\u{0xd800 | (code >> 10):04x}\\u{0xdc00 | (code & 0x3ff):04x}"


def ascii_only(text: str) -> str:
    """JSON text with every non-ASCII character (and DEL) escaped, as json.dumps(ensure_ascii=True) has it.

    Outside strings JSON text is ASCII, so escaping in place changes only string contents.
    """
    if text.isascii() and "\x7f" not in text:
        return text
    return _NEEDS_ESCAPE.sub(_escape, text)


class Compact(NamedTuple):
    """A value of indented JSON text as msgspec encodes it (one line), not yet indented: `finished`
    indents it as json.dumps would at `depth`, and for a section's chunk (`body`) leaves out the list's
    brackets.  Indenting is a third of what `check --json` costs on a large file, and it needs nothing
    but this text, so another process can do it (integrity._bulk.indent_process) while this one makes the
    next chunk."""

    text: bytes
    depth: int
    body: bool


Piece = bytes | Compact


def finished(piece: Piece) -> bytes:
    """A piece of JSON text as it is written: a Compact one indented and ASCII only, any other as is.

    A value at depth d is indented inside d lists around it and taken out of them again: the
    same text as indenting it alone and shifting every line right, without another pass over it.
    """
    if isinstance(piece, bytes):
        return piece
    import msgspec

    text, depth, body = piece
    if depth:
        text = msgspec.json.format(b"[" * depth + text + b"]" * depth, indent=2)
        text = text[2 * depth + depth * (depth + 1):len(text) - (2 * depth + depth * (depth - 1))]
    else:
        text = msgspec.json.format(text, indent=2)
    return ascii_bytes(without_brackets(text, depth) if body else text)


def without_brackets(text: bytes, depth: int) -> bytes:
    """An indented list at depth without its brackets: without "[" and "\n" + depth's indent + "]"."""
    return text[1:len(text) - (2 * depth + 2)]


def ascii_bytes(text: bytes) -> bytes:
    """JSON text as ASCII only (ascii_only), without decoding it when it is already."""
    if text.isascii() and b"\x7f" not in text:
        return text
    return ascii_only(text.decode("utf-8")).encode("ascii")
