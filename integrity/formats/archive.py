"""Reading members of a zip archive (an Inspect .eval log) without letting it inflate without bound.

A zip bomb is a small file that decompresses to gigabytes: 2 MB became 4.6 GB in
the inspector's server, 1 MB became 2 GB in the CLI.  Every archive this package
reads goes through `read_members`, which holds the one set of limits the CLI,
triage and the inspector share (`LIMITS`):

- how many members the archive may list (zipfile parses its central directory
  whole, about 500 bytes of memory an entry, so a directory of millions of empty
  entries is refused from its end record and its entry headers, counted before
  zipfile reads them);
- how many bytes one member and all members read may inflate to;
- how far one member may inflate relative to its compressed size (deflate gives
  at most ~1000:1, JSON rarely more than 20:1; the ratio is only held against
  members above `ratio_floor`, so small members never trip it).

The declared sizes are checked first (a refusal costs nothing), then every member
is read in chunks and counted (a header that lies about its size is caught while
reading, never after inflating it whole).  A refusal is one TranscriptError line
naming the file, the member and the limit.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass

from ..loading import TranscriptError
from .container import check_memory

MiB = 2**20


@dataclass(frozen=True)
class ArchiveLimits:
    """What one archive may hold; see the module docstring for why each exists."""

    members: int = 100_000
    member_bytes: int = 128 * MiB
    total_bytes: int = 512 * MiB
    ratio: int = 100
    ratio_floor: int = 1 * MiB


LIMITS = ArchiveLimits()
"""The limits every reader of archives uses (CLI, triage, inspector): defined once, here."""

_CHUNK = 1 * MiB
_END = b"PK\x05\x06"
_END64_LOCATOR = b"PK\x06\x07"
_END64 = b"PK\x06\x06"
_ENTRY = b"PK\x01\x02"


def _directory(data: bytes) -> tuple[int, int, int] | None:
    """(entries the end record claims, where the central directory starts, its size in bytes), read before
    zipfile parses the directory; None when there is no end record (zipfile then says the file is no zip).

    The directory ends where the end record (or the zip64 end record before it) starts, so its start is
    found from its size, as zipfile finds it (also behind data prepended to the archive).
    """
    at = data.rfind(_END, max(0, len(data) - 65_557))
    if at < 0 or at + 22 > len(data):
        return None
    entries, size = struct.unpack_from("<HI", data, at + 10)
    ends = at
    locator = at - 20
    if locator >= 0 and data[locator:locator + 4] == _END64_LOCATOR:
        record = data.rfind(_END64, 0, locator)
        if record >= 0 and record + 56 <= locator:
            entries, size = struct.unpack_from("<QQ", data, record + 32)
            ends = record
    return entries, max(ends - size, 0), size


def _count_entries(data: bytes, start: int, size: int, limit: int) -> int:
    """How many entries the central directory holds, counted from their headers up to limit + 1 (a
    directory that lies about its count in the end record is still counted before zipfile parses it)."""
    count = 0
    position, end = start, min(start + size, len(data))
    while count <= limit and position + 46 <= end and data.startswith(_ENTRY, position):
        name, extra, comment = struct.unpack_from("<HHH", data, position + 28)
        position += 46 + name + extra + comment
        count += 1
    return count


_HINT = "; a log this large is read sample by sample: unzip it and check the samples/*.json files"


def _refuse(source: str, member: str, problem: str) -> TranscriptError:
    return TranscriptError(source, f"member {member!r}" if member else "", problem)


def open_archive(data: bytes, source: str, limits: ArchiveLimits | None = None) -> zipfile.ZipFile:
    """The archive, once its member count is within limits (from the end record and the directory's entry
    headers before zipfile parses them, then from the parsed list).

    limits: LIMITS when None (looked up at each call, so one assignment changes every reader).
    """
    limits = limits or LIMITS
    found = _directory(data)
    if found is not None:
        claimed, start, size = found
        entries = claimed if claimed > limits.members else _count_entries(data, start, size, limits.members)
        if entries > limits.members:
            more = "" if entries == claimed else " or more"
            raise _refuse(source, "", f"refused: the archive lists {entries:,} members{more}, over the limit of "
                                      f"{limits.members:,} members")
    archive = zipfile.ZipFile(io.BytesIO(data))
    if len(archive.infolist()) > limits.members:
        raise _refuse(source, "", f"refused: the archive lists {len(archive.infolist()):,} members, over the "
                                  f"limit of {limits.members:,} members")
    return archive


def _check_declared(info: zipfile.ZipInfo, source: str, limits: ArchiveLimits) -> None:
    if info.file_size > limits.member_bytes:
        raise _refuse(source, info.filename, f"refused: it inflates to {info.file_size:,} bytes, over the limit of "
                                             f"{limits.member_bytes:,} bytes per member{_HINT}")
    if info.file_size > limits.ratio_floor and info.file_size > limits.ratio * max(info.compress_size, 1):
        raise _refuse(source, info.filename, f"refused: it inflates {info.file_size // max(info.compress_size, 1):,}"
                                             f" times its compressed size, over the limit of {limits.ratio}:1 "
                                             "(a zip bomb?)")


def _read_counted(archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: str, limits: ArchiveLimits,
                  total: int) -> bytes:
    """The member's bytes, read a chunk at a time and refused as soon as a count goes over a limit."""
    chunks = []
    size = 0
    with archive.open(info) as stream:
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            if size > limits.member_bytes:
                raise _refuse(source, info.filename, f"refused: it inflates to more than {limits.member_bytes:,} "
                                                     "bytes, the limit per member")
            if total + size > limits.total_bytes:
                raise _refuse(source, info.filename, f"refused: the archive inflates to more than "
                                                     f"{limits.total_bytes:,} bytes, the limit for all members")
            if size > limits.ratio_floor and size > limits.ratio * max(info.compress_size, 1):
                raise _refuse(source, info.filename, f"refused: it inflates more than {limits.ratio} times its "
                                                     f"compressed size, the limit (a zip bomb?)")
            chunks.append(chunk)
    return b"".join(chunks)


def read_members(archive: zipfile.ZipFile, names: list[str], source: str,
                 limits: ArchiveLimits | None = None) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of each named member, in order, within the limits (declared sizes checked first)."""
    limits = limits or LIMITS
    infos = [archive.getinfo(name) for name in names]
    declared = 0
    for info in infos:
        _check_declared(info, source, limits)
        declared += info.file_size
        if declared > limits.total_bytes:
            raise _refuse(source, info.filename, f"refused: the archive's members inflate to {declared:,} bytes "
                                                 f"or more, over the limit of {limits.total_bytes:,} bytes{_HINT}")
    check_memory(declared, source)  # under an address-space limit: refused before inflating, as a plain file is
    total = 0
    for info in infos:
        data = _read_counted(archive, info, source, limits, total)
        total += len(data)
        yield info.filename, data
