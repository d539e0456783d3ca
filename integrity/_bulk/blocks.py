"""A pi-ai file's messages a block at a time, so the fast path never holds the whole file.

Pass one (the fast path's reader) splits the file's body into blocks of whole messages and
decodes each block once; only the light view's facts outlive it.  Pass two (the writer, or
`check` asking the providers) reads a block again when it needs one of its messages, and keeps
only a few blocks at once.  A file too large to copy into memory twice is then repaired in
about the memory of its light view.

A block of a JSON array is cut just after a '}' that is followed by a ',' and a '{' (JSON
whitespace between).  Such a '}' may lie inside a string or deeper in a message, so each cut is
proved by decoding '[' + block + ']': that decodes only when the block is whole top-level values
(a cut inside a string leaves it open, a cut inside a message leaves a bracket open).  A block of
JSONL is cut after a newline.
"""

from __future__ import annotations

import os
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate
from typing import Any, BinaryIO

import msgspec

from ..loading import TranscriptError

_RAWS = msgspec.json.Decoder(list[msgspec.Raw])

BLOCK = 1 << 20
"""Bytes read at a time (about 18,000 generated messages): large enough that each block costs one
C-level decode, small enough that a few of them are little beside the light view."""

KEEP = 3
"""Blocks the writer keeps read at once (of each kind: copied as slices, or decoded): the view moves
a result next to its call, rarely further than the next block, so the blocks before are freed as it
writes on (a block needed again is read again)."""

_TRIES = 8
"""Cuts tried in a block before it is read larger (each failed try costs one decode of the block)."""

_SEPARATOR = re.compile(rb"\}[ \t\n\r]*,[ \t\n\r]*(\{)")
_MESSAGE_START = re.compile(rb"\}[ \t\n\r]*,[ \t\n\r]*(\{)[ \t\n\r]*\"role\"")
"""A cut before '{"role"' is tried first: pi-ai writes role first, and a message's parts (text, toolCall)
are tagged on "type", so such a cut is almost always between two messages."""
JSON_SPACE = b" \t\n\r"


class Source:
    """The bytes of a file already in memory."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)

    def read(self, offset: int, length: int) -> bytes:
        return self.data[offset:offset + length]

    def copy_to(self, out: BinaryIO) -> None:
        out.write(self.data)

    def check(self) -> None:
        """Raise when the bytes changed since they were first read (bytes in memory never do)."""

    def whole(self) -> bytes:
        return self.data


class FileSource(Source):
    """A regular file read with pread, with the size and modification time it had when opened.

    The descriptor stays open between the passes: a file replaced by rename is still read as it
    was; a file written in place changes its modification time, and check() says so.
    """

    def __init__(self, source: str, handle: int, stat: os.stat_result) -> None:
        """source: the file's name in messages; handle: an open descriptor (loading.open_source), which
        this object closes from now on unless detach() gives it back."""
        self.source = source
        self.handle = handle
        self.size = stat.st_size
        self._stamp = (stat.st_size, stat.st_mtime_ns)

    def read(self, offset: int, length: int) -> bytes:
        length = max(0, min(length, self.size - offset))
        try:
            data = os.pread(self.handle, length, offset)
            while len(data) < length:  # a short read (a signal, a very large block): read on
                more = os.pread(self.handle, length - len(data), offset + len(data))
                if not more:
                    raise changed(self.source)
                data += more
        except OSError as error:
            raise TranscriptError(self.source, "", f"cannot read: {error.strerror or error}") from None
        return data

    def copy_to(self, out: BinaryIO) -> None:
        for offset in range(0, self.size, BLOCK):
            out.write(self.read(offset, BLOCK))
        self.check()

    def check(self) -> None:
        stat = os.fstat(self.handle)
        if (stat.st_size, stat.st_mtime_ns) != self._stamp:
            raise changed(self.source)

    def whole(self) -> bytes:
        data = self.read(0, self.size)
        self.check()
        return data

    def close(self) -> None:
        if self.handle >= 0:
            os.close(self.handle)
            self.handle = -1

    def detach(self) -> int:
        """The descriptor, no longer closed by this object (the caller reads the file whole with it)."""
        handle, self.handle = self.handle, -1
        return handle

    def __del__(self) -> None:
        self.close()


def changed(source: str) -> Exception:
    return TranscriptError(source, "", "it changed while it was being read (is something writing to it?); "
                                       "try again when it is quiet")


Block = tuple[int, int, int, int]
"""(offset, length, first message, messages): one block of the file's body."""


def array_blocks(source: Source, low: int, high: int, decode: Callable[[bytes], list[Any]] = _RAWS.decode,
                 size: int | None = None) -> Iterator[tuple[int, int, bytes, list[Any]]]:
    """(offset, length, document, values) for runs of whole top-level values of the array body source[low:high].

    document is '[' + the run + ']', and values what `decode` makes of it (by default one msgspec.Raw
    per value; any decoder of a JSON array proves a cut).  Raises msgspec.DecodeError when the body
    is not a valid array's, and msgspec.ValidationError when `decode` refuses a value (either way the
    caller gives up the fast path).  size: bytes read at a time (BLOCK).
    """
    size = size or BLOCK
    if high - low <= size and type(source) is Source and _bracketed(source.data, low, high):
        yield low, high - low, source.data, decode(source.data)  # the bytes as they are: no copy
        return
    position = low
    while position < high:
        end = min(high, position + size)
        chunk = source.read(position, end - position)
        if end == high:
            document = b"".join((b"[", chunk, b"]"))  # one copy (a + b + c makes two)
            yield position, len(chunk), document, decode(document)
            return
        for match in _last_separators(chunk):
            cut = match.start() + 1
            document = b"".join((b"[", memoryview(chunk)[:cut], b"]"))
            try:
                values = decode(document)
            except msgspec.ValidationError:
                raise  # a value the decoder refuses: the fast path is over whatever the cut
            except msgspec.DecodeError:
                continue  # the '}' was inside a string or a message: try the one before
            yield position, cut, document, values
            position += match.start(1)
            break
        else:
            size *= 2  # no provable cut here (one very long message): read more at once


def _bracketed(data: bytes, low: int, high: int) -> bool:
    """Whether data is '[' + data[low:high] + ']' up to JSON whitespace: the array itself, which decodes (and
    holds the same key tokens, bytes and nesting) as the document array_blocks would join, without the copies."""
    return data[:low].strip(JSON_SPACE) == b"[" and data[high:].strip(JSON_SPACE) == b"]"


def _last_separators(chunk: bytes) -> Iterator[re.Match[bytes]]:
    """The last few candidate cuts of a chunk, last first: before a '{"role"' first, then any.  Each kind is
    looked for in the chunk's last 4 kB, else its last 64 kB, else all of it, and only when the cuts before
    failed: the first cut tried almost always holds, so a block costs one search of a few kB (a search of
    the last 64 kB for both kinds was ~8 ms of reading 200,000 messages in blocks of 1 MB)."""
    for pattern in (_MESSAGE_START, _SEPARATOR):
        for tail in _TAILS:
            start = max(0, len(chunk) - tail)
            found = list(pattern.finditer(chunk, start))
            if found or start == 0:
                break
        yield from found[::-1][:_TRIES]


_TAILS = (1 << 12, 1 << 16, 1 << 62)
"""How much of a chunk's end _last_separators searches, widening until it finds a cut to try."""


def line_blocks(source: Source, low: int, high: int,
                size: int | None = None) -> Iterator[tuple[int, int, bytes, list[bytes]]]:
    """(offset, length, bytes, lines) for runs of whole lines of source[low:high]; lines: the non-blank ones."""
    size = size or BLOCK
    position = low
    while position < high:
        end = min(high, position + size)
        chunk = source.read(position, end - position)
        cut = len(chunk) if end == high else chunk.rfind(b"\n") + 1
        if cut == 0:
            size *= 2  # one line longer than a block: read more at once
            continue
        if cut < len(chunk):
            chunk = chunk[:cut]
        yield position, cut, chunk, _lines(chunk)
        position += cut


def block_raws(chunk: bytes, container: str) -> list[Any]:
    """The messages' raw bytes of a block read again (pass two), as pass one split them."""
    if container == "jsonl":
        return _lines(chunk)
    return _RAWS.decode(b"".join((b"[", chunk, b"]")))


def _lines(chunk: bytes) -> list[bytes]:
    """The non-blank lines of a block of JSON lines (a blank one holds no message)."""
    return [line for line in chunk.split(b"\n") if line.strip()]


SEPARATORS = {"jsonl": b"\n", "array": b",\n", "object": b",\n"}
"""What the writer puts between two messages of each container."""


def plain_starts(chunk: bytes, start: int, end: int, raws: list[Any], container: str) -> array[int] | None:
    """Where each message starts, from chunk[start:end] (and where the one after the last would: one more
    than the messages), when a block's messages are exactly the messages joined by the writer's separator
    (a file this tool wrote, or one message per line): the writer then copies a stretch of them as one
    slice of the block, without decoding it again.  None for any other block."""
    separator = SEPARATORS[container]
    joined = separator.join(raws)
    if len(joined) != end - start or not chunk.startswith(joined, start):
        return None
    return array("Q", [0, *accumulate(map(len(separator).__add__, map(len, raws)))])


def plain_end(chunk: bytes, container: str) -> int:
    """Where a block's messages end: before a JSON line's newline, at the end of an array's values."""
    return len(chunk) - 1 if container == "jsonl" and chunk.endswith(b"\n") else len(chunk)


class Spans:
    """Each message's raw bytes by index: all kept when the file is in memory, else read again a block
    at a time (at most KEEP blocks at once, the least recently read freed first).

    starts: for a file read a block at a time, each block's plain_starts (None for a block that must
    be decoded again to find its messages).
    """

    def __init__(self, source: Source, name: str, container: str, blocks: list[Block], count: int,
                 raws: list[Any] | None = None, starts: list[array[int] | None] | None = None) -> None:
        self._source = source
        self._name = name
        self._container = container
        self._separator = len(SEPARATORS[container])
        self._blocks = blocks
        self._firsts = [block[2] for block in blocks]
        self._count = count
        self._streamed = raws is None
        self._all: list[Any] = raws if raws is not None else []  # streamed: filled on first use
        self._starts = starts or [None] * len(blocks)
        self._decoded: dict[int, None] = {}  # blocks whose raws are in _all, least recently read first
        self._plain: dict[int, tuple[memoryview, array[int]]] = {}  # plain blocks read: bytes, message starts
        self._hot: tuple[int, int, memoryview, array[int]] | None = None  # the plain block piece() used last
        self._cut: tuple[int, Any] | None = None  # the block documents() read last: its raw spans, or (bytes, starts)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> Any:
        return self.pieces([index])[0]

    def __iter__(self) -> Iterator[Any]:
        for _, _, first, count in self._blocks:
            yield from self.pieces(range(first, first + count))
        self._source.check()  # what was read again is what the light view was built from

    def documents(self, indices: Sequence[int]) -> Iterator[bytes]:
        """The messages at these indices (in order) as JSON arrays to decode: raw spans kept, one array of them;
        else one per block holding some of them, that block read again and its messages sliced out where they
        are (a plain block: plain_starts) or cut into raw spans (msgspec's Raw: a third of decoding them), of
        which only these are joined (only the last block read is kept: a caller wanting a few messages of a
        large file decodes those and lets the block go, instead of holding every message's raw span)."""
        if not self._streamed:
            yield b"".join((b"[", b",".join(map(self._all.__getitem__, indices)), b"]"))
            return
        wanted = sorted(set(indices))
        numbers = sorted({bisect_right(self._firsts, index) - 1 for index in wanted})
        for number in numbers:
            _, _, first, count = self._blocks[number]
            picked = wanted[bisect_left(wanted, first):bisect_left(wanted, first + count)]
            if self._cut is not None and self._cut[0] == number:  # (the last block of the batch before)
                cut = self._cut[1]
            else:  # a plain block's messages are sliced out where they are (plain_starts); others cut again
                cut = self._plain_of(number) if self._starts[number] is not None else self._raws_of(number)
                self._cut = (number, cut)
            if type(cut) is tuple:
                view, starts = cut
                separator = self._separator
                yield b"".join((b"[", b",".join([view[starts[index - first]:starts[index - first + 1] - separator]
                                                 for index in picked]), b"]"))
            else:
                yield b"".join((b"[", b",".join([cut[index - first] for index in picked]), b"]"))

    def changed(self) -> Exception:
        """The error a file changed since it was first read raises (blocks.changed)."""
        return changed(self._name)

    def check(self) -> None:
        """Raise when the file changed since the light view was built from it (bytes in memory never do)."""
        self._source.check()

    def stretch(self, start: int, stop: int) -> Iterator[Any]:
        """The messages start..stop-1 as pieces to write with the separator between each two: a slice
        of the file per plain block (see plain_starts), else one piece per message."""
        if not self._streamed:
            yield SEPARATORS[self._container].join(self._all[start:stop])
            return
        while start < stop:
            number = bisect_right(self._firsts, start) - 1
            _, _, first, count = self._blocks[number]
            end = min(stop, first + count)
            if self._starts[number] is None:
                yield SEPARATORS[self._container].join(self.pieces(range(start, end)))
            else:
                view, starts = self._read_plain(number)
                yield view[starts[start - first]:starts[end - first] - self._separator]
            start = end

    def piece(self, start: int, stop: int) -> Any:
        """The messages start..stop-1 as one piece (what stretch yields), or None when they are not one slice
        of a plain block (the caller asks stretch then).  The writer asks this for every entry of a view
        order, so the plain block used last is kept at hand (no search, no generator per message)."""
        if not self._streamed:
            return SEPARATORS[self._container].join(self._all[start:stop])
        hot = self._hot
        if hot is None or start < hot[0] or stop > hot[1]:
            number = bisect_right(self._firsts, start) - 1
            _, _, first, count = self._blocks[number]
            if stop > first + count or self._starts[number] is None:
                return None
            view, starts = self._read_plain(number)
            hot = self._hot = (first, first + count, view, starts)
        first, _, view, starts = hot
        return view[starts[start - first]:starts[stop - first] - self._separator]

    def pieces(self, indices: Sequence[int]) -> list[Any]:
        """The raw bytes of the messages at these indices, in order."""
        if self._streamed and not self._all:
            self._all = [None] * self._count
        got = list(map(self._all.__getitem__, indices))
        if all(got):
            return got
        for index in indices:
            if self._all[index] is None:
                self._decode(bisect_right(self._firsts, index) - 1)
        got = list(map(self._all.__getitem__, indices))
        while len(self._decoded) > KEEP:
            number = next(iter(self._decoded))
            del self._decoded[number]
            _, _, first, count = self._blocks[number]
            self._all[first:first + count] = [None] * count
        return got

    def _read(self, number: int) -> bytes:
        offset, length, _, _ = self._blocks[number]
        return self._source.read(offset, length)

    def _raws_of(self, number: int) -> list[Any]:
        """A block read again and cut into its messages' raw spans; `changed` when they are not as many."""
        _, _, _, count = self._blocks[number]
        try:
            raws = block_raws(self._read(number), self._container)
        except msgspec.DecodeError:
            raws = []
        if len(raws) != count:
            raise changed(self._name)
        return raws

    def _decode(self, number: int) -> None:
        _, _, first, count = self._blocks[number]
        self._all[first:first + count] = self._raws_of(number)
        self._decoded[number] = None

    def _read_plain(self, number: int) -> tuple[memoryview, array[int]]:
        """_plain_of, the last KEEP blocks kept (the writer reads a block many times)."""
        found = self._plain.get(number)
        if found is None:
            found = self._plain[number] = self._plain_of(number)
            while len(self._plain) > KEEP:
                del self._plain[next(iter(self._plain))]
        return found

    def _plain_of(self, number: int) -> tuple[memoryview, array[int]]:
        """A plain block read again: its bytes and where each message starts in them (plain_starts)."""
        starts = self._starts[number]
        assert starts is not None
        data = self._read(number)
        if starts[-1] - self._separator != plain_end(data, self._container):
            raise changed(self._name)
        return memoryview(data), starts
