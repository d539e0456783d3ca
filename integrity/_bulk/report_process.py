"""A large report's pairings and view, made by a forked child while this process writes its actions.

Making the three long sections is Python work on one core: at 1,000,000 messages about 1 s for
the actions and as much for the pairings and the view.  The report writes the actions first, so
a child forked with everything the sections need makes the pairings and the view meanwhile, and
spills their pieces (integrity._bulk.frames) to an unlinked temporary file; this process reads
them back when it gets there, indented by the child when the report is (`finish`).  The child
runs the same generators as this process would (integrity.report.sections), so the bytes are
the same; if it fails for any reason, this process makes the sections itself.

Memory: both processes write to pages they shared after the fork (reference counts, new
objects in half-full pools), so each such page is copied once; at 1,000,000 messages the two
hold about 1.5x what this process alone held (bench/bench_cli.py measures the pair).

Only where fork exists and this process runs no other thread (a fork copies only the thread
that calls it).
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import IO

from .children import kill_and_reap
from .forking import fork_is_safe
from .frames import END, batched, framed, unframed, write_all
from .freed_memory import release_free_pages
from .pieces import Piece, finished

FORK_FROM = 100_000
"""Messages from which the later sections are made by a child: forking a process of a few hundred
MB costs some 10 ms and every page either process then writes is copied once; below this the
sections take a few tenths of a second in all."""


class Later:
    """The pairings and the view (each an iterator of pieces), made by a child when one could start."""

    def __init__(self, pairings: Callable[[], Iterator[Piece]], view: Callable[[], Iterator[Piece]],
                 messages: int, finish: bool = False) -> None:
        """finish: the child indents its pieces (integrity._bulk.pieces.finished) before it spills them."""
        self._make = (pairings, view)
        self._finish = finish
        self._pid = 0
        self._spill: IO[bytes] | None = None
        self._read: Iterator[Piece | None] | None = None
        if messages >= FORK_FROM and fork_is_safe():
            try:
                self._start()
            except OSError:  # no temporary file, or no process to be had: this process makes them
                self.close()
        self.forked = bool(self._pid)
        """Whether a child makes the two sections (their pieces then come finished when asked for)."""

    def _start(self) -> None:
        spill = self._spill = tempfile.TemporaryFile()
        release_free_pages()  # both processes would hold the pages C's allocator keeps free (tens of MB after a read)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # nothing buffered here is written twice
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to report
                # standard input and output are the parent's: a reader waiting for the output's end must
                # not wait for this process too
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                _spill_sections(self._make, spill.fileno(), self._finish)
                code = 0
            finally:
                os._exit(code)
        self._pid = pid

    def section(self, number: int) -> Iterator[Piece]:
        """Section `number` (0: pairings, 1: view), asked for in that order."""
        if self._pid and number == 0:
            self._read = self._wait()
        if self._read is None:
            yield from self._make[number]()
            return
        for piece in self._read:
            if piece is None:
                return
            yield piece

    def _wait(self) -> Iterator[Piece | None] | None:
        """The child's pieces once it has made them all, or None when it failed (made here, then)."""
        _, status = os.waitpid(self._pid, 0)
        self._pid = 0
        assert self._spill is not None
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        self._spill.seek(0)
        return unframed(self._spill.read)

    def close(self) -> None:
        """Stop the child if it still runs (the report was not written to its end) and drop its file."""
        if self._pid:
            kill_and_reap(self._pid)
            self._pid = 0
        if self._spill is not None:
            self._spill.close()
            self._spill = None


def _spill_sections(make: tuple[Callable[[], Iterator[Piece]], ...], fd: int, finish: bool) -> None:
    """Write each section's pieces as frames (finished first when `finish`), each section closed by an end
    frame, to fd.

    (Everything it calls is imported before the fork: another thread of a program embedding this
    could hold the import lock at that moment, and the child would wait for it forever.)
    """
    def frames() -> Iterator[bytes]:
        for section in make:
            yield from framed(map(finished, section()) if finish else section())
            yield END

    for parts in batched(frames()):
        write_all(fd, parts)
