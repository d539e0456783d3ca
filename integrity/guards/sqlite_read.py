"""Read a SQLite database read-only, leaving nothing beside its file: the session stores' reader.

A runtime's session store (LangGraph's SqliteSaver, the Agents SDK's SQLiteSession) is usually a WAL
database, and SQLite opening one read-only with `mode=ro` still creates a `-shm` file (and a `-wal`) beside
it, which a read-only connection cannot remove: an inspection would leave files in the user's folder.  So:
- a WAL store with no frame in a `-wal` (none, or an empty one) is read as `immutable` (SQLite creates
  nothing), and read again normally if its (inode, size, mtime) changed meanwhile (a checkpoint);
- a rollback-journal database is read with `mode=ro`, which creates nothing;
- a WAL store whose `-wal` holds frames is read with `mode=ro`, and a `-shm` (or empty `-wal`) the read
  created is removed after it, once no other connection holds it (the DMS byte's lock says so); such reads
  are one at a time in a process, since POSIX locks cannot tell this process's connections apart;
- where SQLite cannot create its `-shm` (read-only media, a folder this user cannot write), a `-wal` without
  frames is read as immutable, and one with frames is a one-line error saying to copy the store.
Every read is one snapshot (`BEGIN`) with a busy timeout of BUSY_SECONDS.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ..loading import TranscriptError

BUSY_SECONDS = 5
"""How long a read waits for a lock another connection holds (SQLite's busy timeout)."""

_T = TypeVar("_T")

_SHARED_READS = threading.Lock()
"""One ordinary (non-immutable) read of a WAL store at a time in this process: POSIX locks are per process,
so the test that no other connection holds a -shm this read created is only sound while no other
connection of this process has it open."""


def read_only(path: str, url: str, read: Callable[[sqlite3.Connection], _T]) -> _T:
    """`read` run on the database at `path` (the store `url` names), opened read-only and closed after; its
    errors are TranscriptErrors naming `url`.  See the module docstring for how nothing is left beside it."""
    if os.path.isdir(path):
        raise TranscriptError(url, "", "a directory, not a database file")
    if not os.path.isfile(path):
        raise TranscriptError(url, "", "no such database file")
    uri = f"{Path(os.path.abspath(path)).as_uri()}?mode=ro"
    try:
        quiet = _quiet_stamp(path)
        if quiet is not None:  # a WAL store nobody writes: immutable, so SQLite creates no -wal or -shm
            result = _run(uri + "&immutable=1", read)
            if _quiet_stamp(path) == quiet:
                return result
        if not _is_wal(path):  # a rollback-journal file: mode=ro creates nothing beside it
            return _run(uri, read)
        with _SHARED_READS:
            return _shared(path, uri, read)
    except sqlite3.Error as error:
        if "readonly" in str(error) and os.path.exists(path + "-journal"):  # a hot journal: a writer was cut off
            raise TranscriptError(url, "", "cannot read the database: a writer stopped mid-write and left its "
                                  "rollback journal beside it (-journal), which a read-only open may not roll "
                                  "back; open the store once with its runtime, or read a copy of both files"
                                  ) from None
        raise TranscriptError(url, "", f"cannot read the database: {error}") from None


def _run(uri: str, read: Callable[[sqlite3.Connection], _T]) -> _T:
    connection = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, check_same_thread=False)
    try:
        connection.execute("BEGIN")  # every query of the read sees one snapshot
        return read(connection)
    finally:
        connection.close()


def _shared(path: str, uri: str, read: Callable[[sqlite3.Connection], _T]) -> _T:
    """A WAL store whose -wal holds frames (or appeared meanwhile), read with mode=ro: whatever -wal or -shm
    the read created is removed after it, when no other connection holds it.  Where SQLite cannot create
    its -shm, a -wal without frames is read as immutable; one with frames is a clear error."""
    had = {suffix: os.path.exists(path + suffix) for suffix in ("-wal", "-shm")}
    try:
        return _run(uri, read)
    except sqlite3.OperationalError as error:
        if "unable to open" not in str(error) and "readonly" not in str(error):
            raise
        if _frames(path):
            raise sqlite3.OperationalError(
                f"{error}: its -wal file holds transactions, which SQLite reads only with a -shm file it "
                "can create or write beside the database (read-only media or a folder this user cannot "
                "write); copy the .db and its -wal file to a writable folder and check the copy") from None
        return _run(uri + "&immutable=1", read)
    finally:
        _remove_created(path, had)


def _is_wal(path: str) -> bool:
    try:
        with open(path, "rb") as file:
            head = file.read(20)
    except OSError:
        return False
    return len(head) == 20 and head.startswith(b"SQLite format 3\x00") and head[18] == 2


def _frames(path: str) -> bool:
    """Whether the store's -wal file holds any frame (more than its 32-byte header)."""
    try:
        return os.path.getsize(path + "-wal") > 32
    except OSError:
        return False


def _quiet_stamp(path: str) -> tuple[int, int, int] | None:
    """(inode, size, mtime) of a WAL store with nothing in a -wal file (none, or no frame), else None.

    A writer writes to the -wal, and the main file changes only when a checkpoint copies frames into it, so
    while the stamp is the same the main file is the whole store and an immutable read of it is exact."""
    if _frames(path) or not _is_wal(path):
        return None
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


_DMS_BYTE = 128
"""The byte of a -shm file every SQLite connection that has it open holds a read lock on (unix VFS)."""


def _remove_created(path: str, had: dict[str, bool]) -> None:
    """Remove the -shm (and an empty -wal) this read created, unless another connection has opened them
    since: SQLite's last connection removes them itself, but a read-only one cannot."""
    shm = path + "-shm"
    if had["-shm"] or not os.path.exists(shm):
        return
    try:
        import fcntl
    except ImportError:  # not a POSIX system: leave it (SQLite manages it there)
        return
    try:
        descriptor = os.open(shm, os.O_RDWR)
    except OSError:
        return
    try:
        try:  # a write lock on the DMS byte is granted only when no connection holds the -shm
            fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, _DMS_BYTE)
        except OSError:
            return
        if not had["-wal"] and os.path.exists(path + "-wal") and not _frames(path):
            os.unlink(path + "-wal")
        os.unlink(shm)
    except OSError:
        pass
    finally:
        os.close(descriptor)
