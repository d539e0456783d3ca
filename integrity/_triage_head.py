"""Triage's head start: the first batches triaged by a copy of this process while the local cluster starts.

Importing Dask and starting a local cluster take this process about half a second, during which the
machine's other cores would sit idle (the workers do not exist yet).  So, before Dask is imported and
while this process has no other thread (a fork copies only the calling thread: a lock another thread
held would stay held in the copy), it forks a copy that triages batches from the front of the list
until told to stop.  When the cluster is up, `stop` says which batches the copy took (it finishes the
one it is on); the cluster gets the rest, and `results` hands over what the copy did.  A batch the copy
took but never delivered (it died) is the cluster's too, so every batch is triaged exactly once or by
the cluster; the rows are written in input order either way, so the table is the same whichever
process triaged what (tests/test_triage_order.py).

Only on Linux, and never for a --scheduler's cluster (there is no start-up to use).  With the
environment variable INTEGRITY_TRIAGE_NO_HEAD_START set, triage runs without it (to measure what it
saves: bench/bench_triage.py --phases).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ._bulk.forking import fork_is_safe

Task = Callable[[int], Any]
"""What triaging batch i is (triage_batch with its arguments): the copy runs it, the cluster may too."""


class HeadStart:
    """A forked copy of this process triaging batches 0, 1, 2, ... until `stop`."""

    def __init__(self, count: int, task: Task) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self.lock = context.Lock()  # guards the two numbers below, shared with the copy
        self.next = context.RawValue("q", 0)  # the next batch the copy will take
        self.stopped = context.RawValue("b", 0)
        self.count = count
        reading, writing = os.pipe()
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:  # the copy: it never returns
            os.close(reading)
            self._run(task, writing, parent)
        os.close(writing)
        self.reading = reading
        self.taken: int | None = None

    @staticmethod
    def possible() -> bool:
        """Whether a head start can be forked safely here (Linux, and no other thread in this process)."""
        return sys.platform.startswith("linux") and fork_is_safe()

    def _run(self, task: Task, writing: int, parent: int) -> None:
        """The copy: take batches until stopped, none is left or the parent is gone (killed outright: the
        rest of a large fleet would be triaged for nobody), then hand every result over and exit."""
        code = 0
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle (it kills this)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            done: dict[int, Any] = {}
            while True:
                with self.lock:
                    if self.stopped.value or self.next.value >= self.count or os.getppid() != parent:
                        break
                    index = self.next.value
                    self.next.value = index + 1
                done[index] = task(index)
            with os.fdopen(writing, "wb") as out:
                pickle.dump(done, out, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # noqa: BLE001 - whatever went wrong, the parent gives these batches to the cluster
            code = 1
        finally:
            os._exit(code)  # never the parent's exit handlers, nor a second flush of its buffered output

    def stop(self) -> int:
        """Stop the copy taking batches; how many it took (batches below that are its to deliver)."""
        held = self.lock.acquire(timeout=1)
        while not held and self._alive():  # (a copy killed while it held the lock never gives it back)
            held = self.lock.acquire(timeout=1)
        try:
            self.stopped.value = 1
            self.taken = int(self.next.value)
        finally:
            if held:
                self.lock.release()
        return self.taken

    def _alive(self) -> bool:
        """Whether the copy still runs (a copy that has ended is reaped here)."""
        if self.pid and os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            return True
        self.pid = 0
        return False

    def results(self) -> dict[int, Any]:
        """What the copy triaged, by batch (after `stop`; it waits for the batch the copy is on).  A batch
        missing from it is one the copy did not deliver."""
        data = bytearray()
        reading, self.reading = self.reading, -1  # the file object below owns (and closes) it now
        with os.fdopen(reading, "rb") as pipe:
            while chunk := pipe.read(1 << 20):
                data += chunk
        self._reap()
        try:
            done = pickle.loads(data) if data else {}
        except Exception:  # a copy that died while writing: its batches go to the cluster
            done = {}
        return done if isinstance(done, dict) else {}

    def close(self) -> None:
        """Make sure the copy is gone (after an error or an interrupt): kill it and reap it."""
        if self.reading >= 0:
            os.close(self.reading)
            self.reading = -1
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._reap()

    def _reap(self) -> None:
        if self.pid:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.pid = 0


def missing(taken: int, delivered: dict[int, Any]) -> Sequence[int]:
    """The batches the copy took but did not deliver."""
    return [index for index in range(taken) if index not in delivered]
