"""A report's pieces (integrity._bulk.pieces.Piece) as frames of bytes, to hand them to another process.

A frame is a header (kind, flags, length) and its payload: kind 0 is text to write as it is, kind 1
a Compact value (its depth in the flags' low bits, `body` in the top bit).  Used by the process that
indents a large report (integrity._bulk.indent_process).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Iterable, Iterator

from .pieces import Compact, Piece

_HEADER = struct.Struct("<BBQ")
_BODY = 0x80
BATCH = 1 << 20
"""Bytes gathered before a write: a report's first fields are a few bytes each, its chunks a few MB."""


def framed(pieces: Iterable[Piece]) -> Iterator[bytes]:
    """Each piece as its header and its payload (two bytes objects: the payload is never copied)."""
    header = _HEADER.pack
    for piece in pieces:
        if isinstance(piece, bytes):
            yield header(0, 0, len(piece))
            yield piece
        else:
            text, depth, body = piece
            yield header(1, depth | (_BODY if body else 0), len(text))
            yield text


def unframed(read: Callable[[int], bytes]) -> Iterator[Piece]:
    """The pieces read back, until the input ends."""
    size, unpack = _HEADER.size, _HEADER.unpack
    while True:
        header = read(size)
        if len(header) < size:
            return
        kind, flags, length = unpack(header)
        payload = read(length)
        if len(payload) < length:
            raise EOFError(f"a piece of report ends early ({len(payload)} of {length} bytes)")
        yield payload if kind == 0 else Compact(payload, flags & ~_BODY, bool(flags & _BODY))


def batched(parts: Iterable[bytes]) -> Iterator[list[bytes]]:
    """The parts in lists of about BATCH bytes (a list ends once it holds that many), the last one shorter."""
    held: list[bytes] = []
    size = 0
    for part in parts:
        held.append(part)
        size += len(part)
        if size >= BATCH:
            yield held
            held, size = [], 0
    if held:
        yield held


def write_all(fd: int, parts: list[bytes]) -> None:
    """Write every byte of the parts to fd (os.write may take fewer than it is given, and lets go of the GIL)."""
    data = memoryview(b"".join(parts))
    while data:
        data = data[os.write(fd, data):]
