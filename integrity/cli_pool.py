"""The CLI's worker processes: `check` and `repair --out-dir` over many files on every core.

The workers are forked from the command's process once it has imported the engine, so each starts
with it imported and with the command's arguments in memory (nothing about the command is sent to
them).  The work is cut into chunks of consecutive items, numbered in a pipe before any worker
starts: a worker reads the next number (4 bytes: one read takes exactly one), does that chunk and
writes its outcomes, pickled, to a pipe of its own; the parent reads every worker's pipe and hands
the outcomes on in the items' order.  A worker that is done finds the pipe of numbers empty and
leaves.

multiprocessing.Pool did the same with three threads in the parent; one of them (the worker handler)
woke each time a result waited in the result pipe and spun until the result thread took it: about a
tenth of a second of a core over 2,000 small files, taken from the workers on a 2-core machine.  And a
SIGTERM to `repair --out-dir` while its workers wrote left the Pool's parent waiting forever (5 of 5
tries); here the parent stops and reaps its workers itself (_stop).

A worker ignores Ctrl-C and dies by SIGTERM's default (the parent says `interrupted`); `repair`
turns SIGTERM back into an exception while it writes (atomic_write.signals_raise) so its temporary
files go.  A bug in the work (an exception it raises) is raised again by the parent, as the
in-process loop would raise it.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

CHUNKS_PER_WORKER = 64
"""Chunks per worker process: enough that the workers finish together (the last chunk of 2,000 small files
is about 10 ms of one core), few enough that handing them out costs next to nothing."""

MOST_CHUNKS = 8192
"""The most chunks: their numbers (4 bytes each) are written to the pipe before any worker reads it, so they
must fit in a pipe's buffer (64 kB on Linux) without blocking."""

_NUMBER = struct.Struct("=I")
_SIZE = struct.Struct("=Q")


def in_order(work: Callable[[Any], Any], items: Sequence[Any], jobs: int) -> Generator[Any, None, None]:
    """work(item) for every item over `jobs` forked worker processes, in the items' order.

    The caller makes sure fork exists (os.fork) and that jobs > 1.  When no worker can be forked,
    the items are worked here, one after the other.
    """
    chunks = min(len(items), jobs * CHUNKS_PER_WORKER, MOST_CHUNKS)
    size = -(-len(items) // chunks) if chunks else 1
    count = -(-len(items) // size) if items else 0
    numbers, feed = os.pipe()
    try:
        _write_all(feed, b"".join(map(_NUMBER.pack, range(count))))
    finally:
        os.close(feed)  # a worker that has read every number reads the end of the pipe: it is done
    for stream in (sys.stdout, sys.stderr):  # nothing the parent holds is written twice by a worker
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    workers: dict[int, int] = {}  # a worker's result pipe -> its process id
    finished = False
    try:
        for _ in range(jobs):
            reading, writing = os.pipe()
            # SIGINT and SIGTERM wait while the process forks: a worker stopped in its first instants (the parent
            # stopping them all) would otherwise run the parent's handler inside Python's after-fork hooks, which
            # prints "Exception ignored in: <function _after_fork>" and a traceback to the shared stderr
            masked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
            try:
                pid = os.fork()
            except OSError:  # no process to be had: the workers there are (or this process) do the rest
                signal.pthread_sigmask(signal.SIG_SETMASK, masked)
                os.close(reading)
                os.close(writing)
                break
            if pid == 0:  # the worker: it never returns
                _worker_signals()
                signal.pthread_sigmask(signal.SIG_SETMASK, masked)  # a stop sent meanwhile ends it now, quietly
                os.close(reading)
                for other in workers:
                    os.close(other)
                _worker(work, items, size, numbers, writing)
            signal.pthread_sigmask(signal.SIG_SETMASK, masked)
            os.close(writing)
            workers[reading] = pid
        os.close(numbers)
        numbers = -1
        if not workers:
            yield from map(work, items)
            finished = True
            return
        yield from _gathered(workers, count)
        finished = True
    finally:
        if numbers >= 0:
            os.close(numbers)
        _stop(workers, finished)


def _gathered(workers: dict[int, int], count: int) -> Iterator[Any]:
    """Every chunk's outcomes, in chunk order, as the workers' pipes deliver them."""
    import selectors

    selector = selectors.DefaultSelector()
    held: dict[int, bytearray] = {}
    for reading in workers:
        selector.register(reading, selectors.EVENT_READ)
        held[reading] = bytearray()
    done: dict[int, list[Any]] = {}
    following = 0
    try:
        while following < count:
            while following in done:
                yield from done.pop(following)
                following += 1
            if following >= count:
                break
            if not held:
                raise RuntimeError("a worker process ended before its files were done")
            for key, _ in selector.select():
                reading = int(key.fd)
                data = os.read(reading, 1 << 20)
                if not data:  # the worker has left (its chunks, if any are missing, were never delivered)
                    selector.unregister(reading)
                    del held[reading]
                    continue
                buffer = held[reading]
                buffer += data
                while len(buffer) >= _SIZE.size:
                    (length,) = _SIZE.unpack_from(buffer)
                    if len(buffer) < _SIZE.size + length:
                        break
                    number, ok, value = pickle.loads(memoryview(buffer)[_SIZE.size:_SIZE.size + length])
                    del buffer[:_SIZE.size + length]
                    if not ok:
                        raise value
                    done[number] = value
    finally:
        selector.close()


_STOPPING = {signal.SIGINT, signal.SIGTERM}
"""The signals that stop the pool (held back while it forks a worker)."""


def _worker_signals() -> None:
    """A worker's signal handlers: Ctrl-C is the parent's to handle (it stops the workers); SIGTERM ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _worker(work: Callable[[Any], Any], items: Sequence[Any], size: int, numbers: int, out: int) -> None:
    """A worker: chunks until the pipe of numbers is empty, each one's outcomes written to `out`; then it
    leaves without the parent's exit handlers (nor a second flush of its buffered output)."""
    code = 0
    try:
        _worker_signals()
        while True:
            got = os.read(numbers, _NUMBER.size)
            if not got:
                break
            while len(got) < _NUMBER.size:  # (a pipe hands each 4-byte read its 4 bytes; never short in practice)
                got += os.read(numbers, _NUMBER.size - len(got))
            (number,) = _NUMBER.unpack(got)
            try:
                outcome: tuple[int, bool, Any] = (number, True, [work(item) for item in
                                                                 items[number * size:(number + 1) * size]])
                payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as error:  # a bug: the parent raises it where it would have been raised
                payload = _pickled_error(number, error)
            _write_all(out, _SIZE.pack(len(payload)) + payload)
    except BaseException:  # noqa: BLE001 - the parent is gone or stops us: nothing to tell anyone
        code = 1
    finally:
        os._exit(code)


def _pickled_error(number: int, error: Exception) -> bytes:
    try:
        return pickle.dumps((number, False, error), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an exception that does not pickle: its type and text
        return pickle.dumps((number, False, RuntimeError(f"{type(error).__name__}: {error}")))


def _write_all(handle: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view):]


def _stop(workers: dict[int, int], finished: bool) -> None:
    """Close the result pipes and reap every worker: stopped first (SIGTERM) unless all its work is done."""
    for reading, pid in workers.items():
        os.close(reading)
        if not finished:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for pid in workers.values():
        while True:
            try:
                os.waitpid(pid, 0)
                break
            except ChildProcessError:
                break
            except InterruptedError:
                continue
