"""Handing the C allocator's free pages back to the system between the stages of a large check.

A list, dict or set table larger than a few hundred bytes comes from glibc's malloc, and one of at least its
mmap threshold from a mapping that free() unmaps; but each such free raises the threshold to the block's size
(up to 32 MiB), so the tables of a large transcript soon come from the heap, where a freed block stays part of
the process.  Python's own small objects come from arenas of their own, never from those freed blocks: so the
tables the reading and the planning of a million messages make and let go (a list of every call id, the
letters of every message, the pairing's maps) stayed in the process while the provider's verdict filled new
arenas with bones and violations, and `check --provider bedrock` peaked at 223 MiB on a 218 MB file: 20 MiB
of it free pages.  malloc_trim(0) unmaps the free pages of the whole heap, not only its top (glibc 2.8 on).

Only between stages, and only for a large transcript: a call costs a few milliseconds (ctypes' import, then a
walk of the free lists), and it changes none of the allocator's settings (holding the mmap threshold at its
first value, which has the same effect on the peak, cost `repair` a fifth more CPU in faults on fresh pages).
Elsewhere (no glibc: musl, macOS, Windows) nothing happens.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

FROM_MESSAGES = 100_000
"""Transcripts at least this long have their free pages handed back before a provider's verdict."""


def release_free_pages() -> None:
    """Give the C allocator's free pages back to the system (glibc's malloc_trim(0)); elsewhere nothing."""
    trim = _trim()
    if trim is not None:
        trim(0)


@cache
def _trim() -> Callable[[int], int] | None:
    try:
        import ctypes

        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, ImportError):  # no C library to ask, or one without malloc_trim
        return None
