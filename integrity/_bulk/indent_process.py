"""Indenting a large `check --json` report in a second process, while this one makes the next chunk.

At 1,000,000 messages the indented report is 470 MB, and indenting it (msgspec's `format`,
which holds the GIL, so a thread cannot take it) is about a fifth of the command's time.
The report's pieces (integrity.report.text.report_pieces) are plain bytes or compact
values; a child process reads them through a pipe, finishes them (`finished`: the same
function the single-process path calls, so the bytes are the same) and writes them to the
standard output both processes share.  The parent waits for the child at the end of the
report, before it writes anything else, so the order of the output is the order of the pieces.

The pieces go through the pipe as frames (integrity._bulk.frames).
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterable
from typing import IO

from .frames import BATCH, batched, framed, unframed, write_all
from .pieces import Piece, finished

_QUEUED = 2  # batches waiting for the pipe (each about a chunk, a few MB)
CRASHED = 125
"""The child's exit code for anything but an OSError (whose errno is its exit code)."""


class Indenter:
    """The parent's end: send pieces, then `close`, which waits for the child to have written them all.

    Raises the child's OSError (a full disk, say) in this process, where the command's one-line
    error handling is; a closed standard output is not an error (the child reads on and writes
    nothing, as the parent's own stream does: cli._QuietPipe).
    """

    def __init__(self, out: int) -> None:
        """Start the child, writing to file descriptor `out` (this process's standard output)."""
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        code = (f"import sys; sys.path.insert(0, {package_root!r}); "
                "from integrity._bulk.indent_process import main; main()")
        self._process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=out, bufsize=0)
        assert self._process.stdin is not None
        self._pipe: IO[bytes] = self._process.stdin
        self._grow_pipe()
        self._queue: queue.Queue[list[bytes] | None] = queue.Queue(maxsize=_QUEUED)
        self._thread = threading.Thread(target=self._pump, name="indent-pipe", daemon=True)
        self._thread.start()

    def _grow_pipe(self) -> None:
        """A 1 MB pipe where Linux allows it (64 kB by default): fewer switches between the two processes."""
        try:
            import fcntl

            fcntl.fcntl(self._pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), BATCH)
        except (ImportError, OSError):
            pass

    def send(self, pieces: Iterable[Piece]) -> None:
        """Hand the pieces to the child (a thread writes them to its pipe), once: then `close`."""
        for parts in batched(framed(pieces)):
            self._queue.put(parts)

    def _pump(self) -> None:
        """The thread that writes to the pipe (os.write lets go of the GIL): the parent makes the next
        chunk while the child reads this one."""
        fd = self._pipe.fileno()
        while True:
            held = self._queue.get()
            if held is None:
                return
            try:
                write_all(fd, held)
            except BrokenPipeError:  # the child is gone: close() says why; take the rest and drop it
                while self._queue.get() is not None:
                    pass
                return

    def close(self) -> None:
        """End the pipe and wait for the child; raise its OSError here."""
        self._queue.put(None)
        self._thread.join()
        try:
            self._pipe.close()
        except BrokenPipeError:
            pass
        code = self._process.wait()
        if code == 0:
            return
        if 0 < code < CRASHED:
            raise OSError(code, f"writing the report: {os.strerror(code)}")
        raise RuntimeError(f"the process indenting the report stopped (exit code {code})")

    def abort(self) -> None:
        """Stop the child (this process was interrupted, or failed making a piece) and let it go, quietly."""
        self._process.kill()
        self._queue.put(None)  # the pipe's thread, writing to a child that is gone, drops what is queued
        self._thread.join()
        try:
            self._pipe.close()
        except OSError:
            pass
        self._process.wait()


def main() -> None:
    """The child's end: finish every piece from standard input and write it to standard output."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to report; its pipe's end stops us
    pieces = unframed(os.fdopen(0, "rb", buffering=BATCH).read)
    code = 0
    try:
        for parts in batched(map(finished, pieces)):
            write_all(1, parts)
    except BrokenPipeError:  # the reader went away: not an error (nor is it for the parent: cli._QuietPipe)
        pass
    except OSError as error:
        code = error.errno if error.errno and 0 < error.errno < CRASHED else CRASHED
    except BaseException:
        os._exit(CRASHED)
    try:
        for _ in pieces:  # read on to the end, so the parent is never stuck on a full pipe
            pass
    except BaseException:
        os._exit(CRASHED)
    os._exit(code)
