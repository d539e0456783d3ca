"""A fenced session store: sessions, leases and an append-only transcript log.

Why it exists: in-flight tracking and interrupted receipts are only meaningful
against storage that can refuse a write from a worker that no longer owns the
session.  Each claim of a session increments its attempt number, which is the
fencing token; every append carries the token of the claim it was made under,
and the check and the insert happen in one transaction, so a zombie worker
(expired lease, or a newer attempt exists) can never slip an entry in.

A refused write raises `StoreWriteError` whose cause is `LeaseLostError`: the
storage error's cause chain bottoms out in the lease loss, exactly what the
reference's `isLeaseLostError` (and `integrity.fence.is_lease_lost`) walks.

Entries are never rewritten or deleted (SQLite triggers refuse it); repair only
ever builds read-time views.  The SQL keeps to portable statements (plain
tables, `?` parameters, no UPSERT, no RETURNING) so a server database can back
the same `SessionStore` protocol later; the SQLite-only parts are the PRAGMAs,
`BEGIN IMMEDIATE` (a server store takes a row lock, e.g. SELECT ... FOR UPDATE,
instead) and the append-only triggers.

Opening a file is careful because the path may name anything.  A file is ours
when its header carries `APPLICATION_ID` (stamped when the schema is created);
a file from before that stamp (application id 0, user_version 1 and our three
tables) is accepted too, and stamped the first time it is opened for writing.
Anything else (another program's database, a corrupted file, an empty file
opened for reading) raises `StoreError` before a single byte is written: the
journal mode is switched to WAL and the schema created only after the check.
Inspection (`open_store(path, create=False)`) opens the file read-only
(`mode=ro`), never migrates it, and refuses writes.  It leaves nothing beside
the file either: SQLite would create the `-wal` and `-shm` files of a WAL store
for a reader, so while no `-wal` exists (no connection has the store open) the
file is read as immutable, and the connection is opened again the moment a
`-wal` appears or the file changes.  Creating a store follows no symbolic
link: an empty or missing file behind one is a decoy, never made a store.
Every sqlite3 error is re-raised as `StoreError` (`StoreWriteError` from a
write) naming the file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..fence import LeaseLostError
from ..reference import time_ms

SCHEMA_VERSION = 1
APPLICATION_ID = 0x54434931
"""'TCI1' in the SQLite header (PRAGMA application_id): this file is a tool-call-integrity session store."""

_COLUMNS = {
    "sessions": frozenset({"session_id", "title", "status", "attempt", "lease_owner", "lease_expires_at",
                           "entry_count", "created_at", "updated_at"}),
    "attempts": frozenset({"session_id", "attempt", "owner", "claimed_at", "base_seq", "ended_at", "outcome"}),
    "entries": frozenset({"session_id", "seq", "attempt", "role", "body", "created_at"}),
}
"""Our tables and their columns: how a store written before APPLICATION_ID existed is recognised."""

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS sessions (
        session_id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        status TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        lease_owner TEXT,
        lease_expires_at INTEGER,
        entry_count INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS attempts (
        session_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        owner TEXT NOT NULL,
        claimed_at INTEGER NOT NULL,
        base_seq INTEGER NOT NULL,
        ended_at INTEGER,
        outcome TEXT,
        PRIMARY KEY (session_id, attempt)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS entries (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        role TEXT,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq)
    )
    """,
    # SQLite-specific: make "entries are never rewritten" a property of the file,
    # not a promise of this module.
    """
    CREATE TRIGGER IF NOT EXISTS entries_never_updated BEFORE UPDATE ON entries
    BEGIN SELECT RAISE(ABORT, 'entries are append-only'); END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS entries_never_deleted BEFORE DELETE ON entries
    BEGIN SELECT RAISE(ABORT, 'entries are append-only'); END
    """,
)

# Session statuses as stored.  "stale" is never stored: list_sessions reports it
# for a "running" session whose lease has expired (its worker died or stalled).
NEW, RUNNING, IDLE, DONE, FAILED, ABORTED, STALE = "new", "running", "idle", "done", "failed", "aborted", "stale"
END_STATUSES = frozenset({IDLE, DONE, FAILED, ABORTED})


class StoreError(Exception):
    """Anything the store refuses or cannot do (the sqlite3 error, if any, is its __cause__)."""


class StoreWriteError(StoreError):
    """A write was refused; when fenced off, its __cause__ is a LeaseLostError."""


class StoreNotFoundError(StoreError, FileNotFoundError):
    """Opening without create found no file (also a FileNotFoundError, as before)."""


class LeaseHeldError(StoreError):
    """A claim found a live lease held by another owner (and was not told to steal it)."""

    def __init__(self, session_id: str, owner: str, expires_at: int) -> None:
        self.session_id = session_id
        self.owner = owner
        self.expires_at = expires_at
        super().__init__(f"session {session_id!r} is leased to {owner!r} until {expires_at}")


@dataclass(frozen=True)
class Lease:
    """Proof of a claim: the attempt number is the fencing token every append carries."""

    session_id: str
    owner: str
    attempt: int
    expires_at: int


@dataclass(frozen=True)
class SessionInfo:
    """One row of the session list (status already accounts for expired leases)."""

    session_id: str
    title: str
    status: str
    attempt: int
    lease_owner: str | None
    lease_expires_at: int | None
    entries: int
    created_at: int
    updated_at: int


@dataclass(frozen=True)
class Entry:
    """One durable transcript message and the attempt that wrote it (attempt 0 = seeded)."""

    session_id: str
    seq: int
    attempt: int
    role: str | None
    message: Any
    created_at: int


@dataclass(frozen=True)
class AttemptInfo:
    """One claim of a session: who, when, how many entries existed then, how it ended."""

    session_id: str
    attempt: int
    owner: str
    claimed_at: int
    base_seq: int
    ended_at: int | None
    outcome: str | None


@runtime_checkable
class SessionStore(Protocol):
    """What a runtime and an inspector need from session storage; SQLite is one backend."""

    def create_session(self, session_id: str, title: str = "", messages: Sequence[Any] = ()) -> bool: ...

    def claim(self, session_id: str, owner: str, ttl_ms: int, steal: bool = False, wait_ms: int = 0) -> Lease: ...

    def heartbeat(self, lease: Lease, ttl_ms: int) -> Lease: ...

    def release(self, lease: Lease, status: str = IDLE) -> bool: ...

    def append(self, lease: Lease, message: Any) -> int: ...

    def list_sessions(self) -> list[SessionInfo]: ...

    def get_session(self, session_id: str) -> SessionInfo | None: ...

    def entries(self, session_id: str) -> list[Entry]: ...

    def load_transcript(self, session_id: str) -> list[Any]: ...

    def attempts(self, session_id: str) -> list[AttemptInfo]: ...

    def close(self) -> None: ...


def _lease_lost(session_id: str, lease: Lease, row: tuple[Any, ...] | None, now: int) -> str | None:
    """Why the lease no longer fences writes (None when it still does)."""
    if row is None:
        return f"session {session_id!r} does not exist"
    attempt, owner, expires_at = row[0], row[1], row[2]
    if attempt != lease.attempt:
        return f"attempt {lease.attempt} of {session_id!r} was superseded by attempt {attempt}"
    if owner is None or expires_at is None:
        return f"attempt {lease.attempt} of {session_id!r} was released"
    if owner != lease.owner:
        return f"attempt {lease.attempt} of {session_id!r} is owned by {owner!r}, not {lease.owner!r}"
    if expires_at <= now:
        return f"lease of attempt {lease.attempt} on {session_id!r} expired {now - expires_at} ms ago"
    return None


_StoreT = TypeVar("_StoreT", bound="SQLiteSessionStore")  # typing.Self needs Python 3.11


class SQLiteSessionStore:
    """The embedded default backend: one SQLite file in WAL mode, created on first use.

    One connection per store object, guarded by a lock so tool threads may share
    it.  Every write is one `BEGIN IMMEDIATE` transaction (the write lock is
    taken before the fence is read, so check-then-insert cannot race another
    process).  The clock is read inside the transaction too, so a write that
    waited for the lock is judged against the time it actually commits, and
    stored times follow commit order.  A crash mid-transaction leaves the
    previous committed state.

    `create=False` opens an existing store for inspection: read-only by default
    (no WAL switch, no schema, no stamp; every write raises StoreWriteError).
    `read_only=False` with `create=False` opens an existing store for writing
    without ever creating one.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        clock: Callable[[], int] = time_ms,
        create: bool = True,
        synchronous: str = "FULL",
        busy_timeout_ms: int = 10_000,
        read_only: bool | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.read_only = (not create) if read_only is None else read_only
        if create and self.read_only:
            raise ValueError("a store cannot be both created and read-only")
        if synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ValueError(f"unknown synchronous level {synchronous!r}")
        if isinstance(busy_timeout_ms, bool) or not isinstance(busy_timeout_ms, int) or busy_timeout_ms < 0:
            raise ValueError(f"busy_timeout_ms must be a non-negative integer, not {busy_timeout_ms!r}")
        self.clock = clock
        self._lock = threading.RLock()
        self._busy_timeout_ms = busy_timeout_ms
        self._quiet: tuple[int, int, int] | None = None  # the file as an immutable connection read it
        self._check_path(create)
        self._conn = self._connect(create, busy_timeout_ms)
        try:
            with _sqlite_errors(self.path, "cannot open it as a session store", StoreError):
                self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                state = self._identify(create)
                if self.read_only:
                    self._conn.execute("PRAGMA query_only = ON")
                else:
                    if self.path != ":memory:":
                        mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                        if str(mode).lower() != "wal":
                            raise StoreError(f"{self.path}: could not switch to WAL mode (got {mode!r})")
                    self._conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
                    if state != "ours":
                        self._init_schema()
        except BaseException:
            self._conn.close()
            raise

    # -- opening ----------------------------------------------------------

    def _check_path(self, create: bool) -> None:
        """Refuse a missing file (without create) or anything but a regular file, before SQLite opens it.

        SQLite would block on a FIFO and fail obscurely on a directory or a device.
        """
        if self.path == ":memory:":
            return
        if create and not self.read_only and os.path.islink(self.path):
            self._check_link()
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            if not create:
                raise StoreNotFoundError(f"no session store at {self.path}") from None
            return
        except OSError as error:
            raise StoreError(f"{self.path}: cannot open it as a session store: {error.strerror}") from error
        if not stat.S_ISREG(mode):
            raise StoreError(f"{self.path}: not a regular file, so not a session store")
        self._sniff_header()

    def _check_link(self) -> None:
        """A symbolic link may name an existing store; an empty or missing file behind it is never created.

        Otherwise a link planted where a store is expected (to an empty decoy file, or to a
        path that does not exist yet) would have the schema written wherever it points.
        """
        try:
            size = os.stat(self.path).st_size
        except FileNotFoundError:
            raise StoreError(f"{self.path}: a symbolic link to a missing file; a store is created only at a "
                             "path of its own, never through a link") from None
        except OSError as error:
            raise StoreError(f"{self.path}: cannot open it as a session store: {error.strerror}") from error
        if size == 0:
            raise StoreError(f"{self.path}: a symbolic link to an empty file; a store is created only at a "
                             "path of its own, never through a link")

    def _sniff_header(self) -> None:
        """Refuse what the file's first 100 bytes already show is not ours, before SQLite touches it.

        Only conclusive headers are judged here: a WAL-mode file's header may be
        older than its -wal file, so those are left to _identify.
        """
        try:
            with open(self.path, "rb") as file:
                head = file.read(100)
        except OSError as error:
            raise StoreError(f"{self.path}: cannot open it as a session store: {error.strerror}") from error
        if not head:
            return
        if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
            raise StoreError(f"{self.path}: not an SQLite database, so not a session store")
        if head[18] != 1:  # WAL mode (2): the header may be stale
            return
        version = int.from_bytes(head[60:64], "big")
        application_id = int.from_bytes(head[68:72], "big")
        if application_id not in (0, APPLICATION_ID) or (application_id == 0 and version not in (0, SCHEMA_VERSION)):
            raise StoreError(_foreign(self.path, application_id, version))

    def _connect(self, create: bool, busy_timeout_ms: int) -> sqlite3.Connection:
        """A connection by URI: `mode=ro` for inspection, `rw` to open, `rwc` to create."""
        if self.path == ":memory:":
            uri = "file::memory:"
        else:
            mode = "ro" if self.read_only else ("rwc" if create else "rw")
            uri = f"{Path(os.path.abspath(self.path)).as_uri()}?mode={mode}"
        timeout = busy_timeout_ms / 1000
        with _sqlite_errors(self.path, "cannot open it as a session store", StoreError):
            self._quiet = self._quiet_stamp() if self.read_only and self.path != ":memory:" else None
            if self._quiet is not None:  # no -wal: read as immutable, so SQLite creates no -wal or -shm
                return sqlite3.connect(uri + "&immutable=1", uri=True, timeout=timeout, isolation_level=None,
                                       check_same_thread=False)
            conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False)
            if not self.read_only:
                return conn
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return conn
            except sqlite3.OperationalError:
                conn.close()
                if not self._wal_unshareable():
                    raise
            # A WAL store in a directory we cannot write: SQLite cannot create its -shm
            # file, but with no -wal file nobody is writing it, so it can be read as immutable.
            return sqlite3.connect(uri + "&immutable=1", uri=True, timeout=timeout, isolation_level=None,
                                   check_same_thread=False)

    def _quiet_stamp(self) -> tuple[int, int, int] | None:
        """(inode, size, mtime) of a WAL-mode store no connection has open (it has no -wal file), else None.

        A writer creates the -wal before it writes a page, and the main file changes only when
        a checkpoint copies pages from it, so while there is no -wal and the stamp is the same
        the file is what an immutable connection read.
        """
        if os.path.exists(self.path + "-wal"):
            return None
        try:
            with open(self.path, "rb") as file:
                head = file.read(20)
            status = os.stat(self.path)
        except OSError:
            return None
        if len(head) < 20 or head[18] != 2:  # a rollback-journal file: mode=ro creates nothing beside it
            return None
        return status.st_ino, status.st_size, status.st_mtime_ns

    def _refresh(self) -> None:
        """Open the connection again when the store changed since an immutable connection read it."""
        if self._quiet is None or self._quiet_stamp() == self._quiet:
            return
        self._conn.close()
        self._conn = self._connect(False, self._busy_timeout_ms)
        self._conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
        self._conn.execute("PRAGMA query_only = ON")

    def _wal_unshareable(self) -> bool:
        directory = os.path.dirname(os.path.abspath(self.path))
        return not os.path.exists(self.path + "-wal") and not os.access(directory, os.W_OK)

    def _header(self) -> tuple[int, int, dict[str, set[str]], int]:
        """Application id, user_version, our tables' columns as found, and how many schema objects exist."""
        application_id = int(self._conn.execute("PRAGMA application_id").fetchone()[0])
        version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
        objects = self._conn.execute("SELECT type, name FROM sqlite_master").fetchall()
        found: dict[str, set[str]] = {}
        for kind, name in objects:
            if kind == "table" and name in _COLUMNS:
                found[name] = {row[1] for row in self._conn.execute(f'PRAGMA table_info("{name}")')}
        return application_id, version, found, len(objects)

    def _identify(self, create: bool) -> str:
        """'ours' (ready), 'legacy' (ours, from before APPLICATION_ID) or 'empty' (may be created).

        Only reads: a foreign file raises StoreError before anything is written to it.
        """
        application_id, version, tables, objects = self._header()
        complete = all(_COLUMNS[name] <= tables.get(name, set()) for name in _COLUMNS)
        if application_id == APPLICATION_ID:
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: schema version {version} is newer than this code ({SCHEMA_VERSION})")
            if version != SCHEMA_VERSION or not complete:
                raise StoreError(f"{self.path}: a session store with missing tables (damaged?)")
            return "ours"
        if application_id == 0 and version == SCHEMA_VERSION and complete:
            return "ours" if self.read_only else "legacy"
        if application_id == 0 and version == 0 and objects == 0:
            if create:
                return "empty"
            raise StoreError(f"{self.path}: an empty database, not a session store")
        raise StoreError(_foreign(self.path, application_id, version))

    def _init_schema(self) -> None:
        """Create the tables (an empty file) or stamp a store from before APPLICATION_ID, in one transaction.

        The header is read again under the write lock: another process may have
        created the schema, or written something else, since _identify.
        """
        with self._write() as cur:
            application_id = cur.execute("PRAGMA application_id").fetchone()[0]
            if application_id == APPLICATION_ID:
                return
            objects = cur.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            version = cur.execute("PRAGMA user_version").fetchone()[0]
            if objects == 0 and version == 0:
                for statement in _SCHEMA:
                    cur.execute(statement)
                cur.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version != SCHEMA_VERSION:
                raise StoreError(f"{self.path}: changed by another program while opening; not a session store")
            cur.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    # -- plumbing ---------------------------------------------------------

    class _Tx:
        def __init__(self, store: SQLiteSessionStore) -> None:
            self.store = store

        def __enter__(self) -> sqlite3.Cursor:
            store = self.store
            if store.read_only:
                raise StoreWriteError(f"{store.path}: opened read-only (for inspection); nothing was written")
            store._lock.acquire()
            try:
                with _sqlite_errors(store.path, "could not start a write", StoreWriteError):
                    self.cursor = store._conn.cursor()
                    self.cursor.execute("BEGIN IMMEDIATE")
            except BaseException:
                store._lock.release()
                raise
            return self.cursor

        def __exit__(
            self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
        ) -> None:
            store = self.store
            try:
                with _sqlite_errors(store.path, "the write failed and was rolled back", StoreWriteError):
                    if kind is None:
                        try:
                            self.cursor.execute("COMMIT")
                        except BaseException:
                            if store._conn.in_transaction:
                                self.cursor.execute("ROLLBACK")
                            raise
                    elif store._conn.in_transaction:
                        self.cursor.execute("ROLLBACK")
            finally:
                store._lock.release()
            if isinstance(error, (sqlite3.Error, UnicodeEncodeError)):
                why = _sqlite_reason(error) if isinstance(error, sqlite3.Error) else "text SQLite cannot store"
                raise StoreWriteError(f"{store.path}: the write failed and was rolled back: {why}") from error

    def _write(self) -> SQLiteSessionStore._Tx:
        """A write transaction holding the database write lock from its first statement."""
        return SQLiteSessionStore._Tx(self)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock, _sqlite_errors(self.path, "could not read it", StoreError):
            self._refresh()
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        """Close the connection (the file stays; WAL is checkpointed by SQLite)."""
        with self._lock, _sqlite_errors(self.path, "could not close it", StoreError):
            self._conn.close()

    def __enter__(self: _StoreT) -> _StoreT:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes -----------------------------------------------------------

    def create_session(self, session_id: str, title: str = "", messages: Sequence[Any] = ()) -> bool:
        """Create a session (status "new", attempt 0), seeding its log; False if it exists.

        Seeded messages (e.g. the user's prompt) are written as attempt 0 so the
        log shows they predate every worker.
        """
        _check_text("session_id", session_id)
        _check_text("title", title)
        bodies = [_encode(message) for message in messages]
        with self._write() as cur:
            now = self.clock()
            if cur.execute("SELECT 1 FROM sessions WHERE session_id = ?", (session_id,)).fetchone():
                return False
            cur.execute(
                "INSERT INTO sessions (session_id, title, status, attempt, lease_owner, lease_expires_at,"
                " entry_count, created_at, updated_at) VALUES (?, ?, ?, 0, NULL, NULL, ?, ?, ?)",
                (session_id, title, NEW, len(bodies), now, now),
            )
            for seq, (message, body) in enumerate(zip(messages, bodies, strict=True)):
                cur.execute(
                    "INSERT INTO entries (session_id, seq, attempt, role, body, created_at) VALUES (?, ?, 0, ?, ?, ?)",
                    (session_id, seq, _role(message), body, now),
                )
        return True

    def claim(self, session_id: str, owner: str, ttl_ms: int, steal: bool = False, wait_ms: int = 0) -> Lease:
        """Take the session for ttl_ms under a new attempt number (the new fencing token).

        The rule: a claim never takes a live lease, whoever holds it.  A live
        lease raises LeaseHeldError (even when its owner string is the same as
        `owner`) unless `steal` (a takeover: the old attempt's next write is
        fenced off) or until `wait_ms` has passed polling for it to expire or be
        released.  Owner strings are labels, not identities: two processes may
        share one (a host name), and letting a name re-claim would let one fence
        the other off silently.  A worker keeps its lease with `heartbeat`.  An
        expired or released lease is claimed freely.  A missing session is
        created.  ttl_ms must be a positive integer, wait_ms a non-negative one
        (ValueError otherwise).
        """
        _check_ms("ttl_ms", ttl_ms, positive=True)
        _check_ms("wait_ms", wait_ms, positive=False)
        _check_text("owner", owner)
        _check_text("session_id", session_id)
        deadline = time.monotonic() + wait_ms / 1000
        while True:
            try:
                return self._claim_once(session_id, owner, ttl_ms, steal)
            except LeaseHeldError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.02)

    def _claim_once(self, session_id: str, owner: str, ttl_ms: int, steal: bool) -> Lease:
        with self._write() as cur:
            now = self.clock()
            row = cur.execute(
                "SELECT attempt, lease_owner, lease_expires_at, entry_count FROM sessions WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            if row is None:
                cur.execute(
                    "INSERT INTO sessions (session_id, title, status, attempt, lease_owner, lease_expires_at,"
                    " entry_count, created_at, updated_at) VALUES (?, '', ?, 0, NULL, NULL, 0, ?, ?)",
                    (session_id, NEW, now, now),
                )
                row = (0, None, None, 0)
            attempt, held_by, expires_at, count = row
            live = held_by is not None and expires_at is not None and expires_at > now
            if live and not steal:
                raise LeaseHeldError(session_id, held_by, expires_at)
            if attempt > 0:
                outcome = "superseded" if live else ("expired" if held_by is not None else None)
                if outcome:
                    cur.execute(
                        "UPDATE attempts SET ended_at = ?, outcome = ? WHERE session_id = ? AND attempt = ?"
                        " AND ended_at IS NULL",
                        (now, outcome, session_id, attempt),
                    )
            lease = Lease(session_id, owner, attempt + 1, now + ttl_ms)
            cur.execute(
                "UPDATE sessions SET attempt = ?, lease_owner = ?, lease_expires_at = ?, status = ?, updated_at = ?"
                " WHERE session_id = ?",
                (lease.attempt, owner, lease.expires_at, RUNNING, now, session_id),
            )
            cur.execute(
                "INSERT INTO attempts (session_id, attempt, owner, claimed_at, base_seq, ended_at, outcome)"
                " VALUES (?, ?, ?, ?, ?, NULL, NULL)",
                (session_id, lease.attempt, owner, now, count),
            )
        return lease

    def _fence(self, cur: sqlite3.Cursor, lease: Lease, now: int) -> int:
        """Check the lease inside the open transaction; return the entry count or raise fenced."""
        row = cur.execute(
            "SELECT attempt, lease_owner, lease_expires_at, entry_count FROM sessions WHERE session_id = ?",
            (lease.session_id,),
        ).fetchone()
        why = _lease_lost(lease.session_id, lease, row, now)
        if why is not None:
            lost = LeaseLostError(why)
            raise StoreWriteError(f"write to session {lease.session_id!r} rejected: {why}") from lost
        assert row is not None
        return int(row[3])

    def append(self, lease: Lease, message: Any) -> int:
        """Append one message under the lease's attempt; return its seq (its transcript index).

        The fence check and the insert are one transaction: either the entry is
        durable and was written by the current attempt, or nothing was written.
        """
        body = _encode(message)
        with self._write() as cur:
            now = self.clock()
            seq = self._fence(cur, lease, now)
            cur.execute(
                "INSERT INTO entries (session_id, seq, attempt, role, body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (lease.session_id, seq, lease.attempt, _role(message), body, now),
            )
            cur.execute(
                "UPDATE sessions SET entry_count = ?, updated_at = ? WHERE session_id = ?",
                (seq + 1, now, lease.session_id),
            )
        return seq

    def heartbeat(self, lease: Lease, ttl_ms: int) -> Lease:
        """Extend a lease that still fences; a lost lease raises like a refused append.

        ttl_ms must be a positive integer (ValueError otherwise).
        """
        _check_ms("ttl_ms", ttl_ms, positive=True)
        with self._write() as cur:
            now = self.clock()
            self._fence(cur, lease, now)
            renewed = Lease(lease.session_id, lease.owner, lease.attempt, now + ttl_ms)
            cur.execute(
                "UPDATE sessions SET lease_expires_at = ?, updated_at = ? WHERE session_id = ?",
                (renewed.expires_at, now, lease.session_id),
            )
        return renewed

    def release(self, lease: Lease, status: str = IDLE) -> bool:
        """Give the session up with a final status; False (and no change) if the lease was lost."""
        if status not in END_STATUSES:
            raise ValueError(f"release status must be one of {sorted(END_STATUSES)}, not {status!r}")
        with self._write() as cur:
            now = self.clock()
            try:
                self._fence(cur, lease, now)
            except StoreWriteError:
                return False
            cur.execute(
                "UPDATE sessions SET lease_owner = NULL, lease_expires_at = NULL, status = ?, updated_at = ?"
                " WHERE session_id = ?",
                (status, now, lease.session_id),
            )
            cur.execute(
                "UPDATE attempts SET ended_at = ?, outcome = ? WHERE session_id = ? AND attempt = ?",
                (now, status, lease.session_id, lease.attempt),
            )
        return True

    # -- reads ------------------------------------------------------------

    def _info(self, row: tuple[Any, ...], now: int) -> SessionInfo:
        session_id, title, status, attempt, owner, expires_at, count, created, updated = row
        if status == RUNNING and (expires_at is None or expires_at <= now):
            status = STALE
        return SessionInfo(session_id, title, status, attempt, owner, expires_at, count, created, updated)

    _SESSION_COLUMNS = (
        "session_id, title, status, attempt, lease_owner, lease_expires_at, entry_count, created_at, updated_at"
    )

    def list_sessions(self) -> list[SessionInfo]:
        """Every session, most recently updated first, with status, attempt and entry count."""
        now = self.clock()
        rows = self._read(
            f"SELECT {self._SESSION_COLUMNS} FROM sessions ORDER BY updated_at DESC, session_id"
        )
        return [self._info(row, now) for row in rows]

    def get_session(self, session_id: str) -> SessionInfo | None:
        """One session's row, or None."""
        rows = self._read(f"SELECT {self._SESSION_COLUMNS} FROM sessions WHERE session_id = ?", (session_id,))
        return self._info(rows[0], self.clock()) if rows else None

    def entries(self, session_id: str) -> list[Entry]:
        """The durable log of one session in append order, with who wrote each entry."""
        rows = self._read(
            "SELECT seq, attempt, role, body, created_at FROM entries WHERE session_id = ? ORDER BY seq",
            (session_id,),
        )
        return [Entry(session_id, seq, attempt, role, self._decode(session_id, seq, body), created)
                for seq, attempt, role, body, created in rows]

    def _decode(self, session_id: str, seq: int, body: Any) -> Any:
        try:
            return json.loads(body)
        except (TypeError, ValueError, RecursionError) as error:
            raise StoreError(f"{self.path}: entry {seq} of session {session_id!r} is not readable JSON "
                             f"({type(error).__name__})") from error

    def load_transcript(self, session_id: str) -> list[Any]:
        """The durable transcript (messages only), in order: what repair reads."""
        return [entry.message for entry in self.entries(session_id)]

    def attempts(self, session_id: str) -> list[AttemptInfo]:
        """Every claim of one session in order: the history of who owned it."""
        rows = self._read(
            "SELECT attempt, owner, claimed_at, base_seq, ended_at, outcome FROM attempts"
            " WHERE session_id = ? ORDER BY attempt",
            (session_id,),
        )
        return [AttemptInfo(session_id, *row) for row in rows]

    def integrity_check(self) -> str:
        """SQLite's own consistency check ("ok" when the file is sound)."""
        return str(self._read("PRAGMA integrity_check")[0][0])


def open_store(path: str | os.PathLike[str], create: bool = True, **options: Any) -> SQLiteSessionStore:
    """Open (or, with create, make) the SQLite session store at path.

    `create=False` is for inspection: the file must exist and be a session
    store, and it is opened read-only (pass `read_only=False` to write to an
    existing store without ever creating one).
    """
    return SQLiteSessionStore(path, create=create, **options)


def _encode(message: Any) -> str:
    """Serialize before the transaction starts, so a bad message never holds the write lock.

    A lone surrogate cannot be stored as SQLite text (UTF-8), so a message that
    holds one is stored with non-ASCII characters escaped (`\\ud800`): JSON that
    reads back to the very same message.
    """
    try:
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as error:
        raise StoreWriteError(f"message is not JSON-serializable: {error}") from error
    if _storable(body):
        return body
    return json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def _foreign(path: str, application_id: int, version: int) -> str:
    owner = f"application id {application_id:#x}" if application_id else "no application id"
    return f"{path}: an SQLite database of another program ({owner}, user_version {version}), not a session store"


def _storable(text: str) -> bool:
    """Whether SQLite can store the string as text (it must encode as UTF-8: no lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_text(name: str, value: Any) -> None:
    """A session id, title or owner is a string SQLite can store (StoreWriteError for a lone surrogate)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not {type(value).__name__}")
    if not _storable(value):
        position = next(n for n, char in enumerate(value) if "\ud800" <= char <= "\udfff")
        raise StoreWriteError(f"{name} cannot be stored: a lone surrogate (U+{ord(value[position]):04X}) "
                              f"at position {position} is not valid text")


def _check_ms(name: str, value: Any, positive: bool) -> None:
    """Lease times are whole milliseconds: ttl_ms > 0, wait_ms >= 0 (ValueError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < (1 if positive else 0):
        wanted = "a positive" if positive else "a non-negative"
        raise ValueError(f"{name} must be {wanted} integer number of milliseconds, not {value!r}")


def _role(message: Any) -> str | None:
    role = message.get("role") if isinstance(message, dict) else None
    return role if isinstance(role, str) and _storable(role) else None


_REASONS = (
    ("file is not a database", "not an SQLite database, or its header is corrupted"),
    ("malformed", "the file is corrupted"),
    ("database is locked", "it is locked by another process (try again later)"),
    ("readonly", "it cannot be written (read-only file, directory or file system)"),
    ("unable to open", "it cannot be opened (missing directory, no permission, or a read-only location)"),
    ("disk i/o error", "the disk reported an I/O error"),
    ("database or disk is full", "the disk is full"),
)


def _sqlite_reason(error: sqlite3.Error) -> str:
    """A clear reason for an sqlite3 error, with SQLite's own words after it."""
    text = str(error)
    lowered = text.lower()
    for needle, reason in _REASONS:
        if needle in lowered:
            return f"{reason} (SQLite: {text})"
    return f"SQLite: {text}"


class _sqlite_errors:  # noqa: N801 - used like a function: `with _sqlite_errors(...)`
    """Re-raise any sqlite3 error as `kind` (StoreError or StoreWriteError) naming the file and what failed."""

    def __init__(self, path: str, doing: str, kind: type[StoreError]) -> None:
        self.path, self.doing, self.kind = path, doing, kind

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if isinstance(error, sqlite3.Error):
            raise self.kind(f"{self.path}: {self.doing}: {_sqlite_reason(error)}") from error
