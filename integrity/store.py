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
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, TypeVar, runtime_checkable

from .fence import LeaseLostError
from .reference import time_ms

SCHEMA_VERSION = 1

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
    """Anything the store refuses or cannot do."""


class StoreWriteError(StoreError):
    """A write was refused; when fenced off, its __cause__ is a LeaseLostError."""


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
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        clock: Callable[[], int] = time_ms,
        create: bool = True,
        synchronous: str = "FULL",
        busy_timeout_ms: int = 10_000,
    ) -> None:
        self.path = os.fspath(path)
        if not create and not os.path.exists(self.path):
            raise FileNotFoundError(f"no session store at {self.path}")
        if synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ValueError(f"unknown synchronous level {synchronous!r}")
        self.clock = clock
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(
            self.path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
        )
        self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if not create and not self._read(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'"
        ):
            # Opening for inspection must never write into someone else's database.
            self._conn.close()
            raise StoreError(f"{self.path} is an SQLite file but not a session store")
        if self.path != ":memory:":
            mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"{self.path}: could not switch to WAL mode (got {mode!r})")
        self._conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
        self._init_schema()

    # -- plumbing ---------------------------------------------------------

    def _init_schema(self) -> None:
        """Create the tables once; an up-to-date file is opened without taking the write lock."""
        if self._read("PRAGMA user_version")[0][0] == SCHEMA_VERSION:
            return
        with self._write() as cur:
            version = cur.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: schema version {version} is newer than this code ({SCHEMA_VERSION})")
            for statement in _SCHEMA:
                cur.execute(statement)
            cur.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    class _Tx:
        def __init__(self, store: SQLiteSessionStore) -> None:
            self.store = store

        def __enter__(self) -> sqlite3.Cursor:
            self.store._lock.acquire()
            try:
                self.cursor = self.store._conn.cursor()
                self.cursor.execute("BEGIN IMMEDIATE")
            except BaseException:
                self.store._lock.release()
                raise
            return self.cursor

        def __exit__(
            self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
        ) -> None:
            try:
                if kind is None:
                    try:
                        self.cursor.execute("COMMIT")
                    except BaseException:
                        if self.store._conn.in_transaction:
                            self.cursor.execute("ROLLBACK")
                        raise
                elif self.store._conn.in_transaction:
                    self.cursor.execute("ROLLBACK")
            finally:
                self.store._lock.release()

    def _write(self) -> SQLiteSessionStore._Tx:
        """A write transaction holding the database write lock from its first statement."""
        return SQLiteSessionStore._Tx(self)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        """Close the connection (the file stays; WAL is checkpointed by SQLite)."""
        with self._lock:
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

        A live lease of another owner raises LeaseHeldError, unless `steal` (a
        takeover: the old owner's next write is fenced off) or until `wait_ms`
        has passed polling for it to expire or be released.  A missing session is
        created.  Claiming supersedes any earlier attempt, even one's own.
        """
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
            if live and held_by != owner and not steal:
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
        """Extend a lease that still fences; a lost lease raises like a refused append."""
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
        return [Entry(session_id, seq, attempt, role, json.loads(body), created)
                for seq, attempt, role, body, created in rows]

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
    """Open (or, with create, make) the SQLite session store at path."""
    return SQLiteSessionStore(path, create=create, **options)


def _encode(message: Any) -> str:
    """Serialize before the transaction starts, so a bad message never holds the write lock."""
    try:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreWriteError(f"message is not JSON-serializable: {error}") from error


def _role(message: Any) -> str | None:
    role = message.get("role") if isinstance(message, dict) else None
    return role if isinstance(role, str) else None
