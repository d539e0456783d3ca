"""The SQLite session store: leases fence writes, the log is append-only, reads are in order."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from integrity.fence import LeaseLostError, is_lease_lost
from integrity.lab import (
    LeaseHeldError,
    SessionStore,
    SQLiteSessionStore,
    StoreError,
    StoreWriteError,
    open_store,
)


class FakeClock:
    """Lease expiry without sleeping."""

    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


def msg(n: int) -> dict:
    return {"role": "user", "content": f"message {n}", "timestamp": n}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock) -> SQLiteSessionStore:
    opened = open_store(tmp_path / "sessions.db", clock=clock)
    yield opened
    opened.close()


def test_file_is_created_on_first_use_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    assert not path.exists()
    open_store(path).close()
    assert path.exists()
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    raw.close()


def test_opening_a_missing_file_without_create_fails(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        open_store(tmp_path / "absent.db", create=False)
    assert not (tmp_path / "absent.db").exists()


def test_opening_a_foreign_sqlite_file_without_create_leaves_it_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE notes (text TEXT)")
    raw.commit()
    raw.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a session store"):
        open_store(path, create=False)
    assert path.read_bytes() == before


def test_sqlite_store_satisfies_the_protocol(store: SQLiteSessionStore) -> None:
    assert isinstance(store, SessionStore)


def test_each_claim_is_a_new_attempt_and_appends_come_back_in_order(store: SQLiteSessionStore) -> None:
    assert store.create_session("s", "demo", [msg(0)])
    assert not store.create_session("s", "again")
    first = store.claim("s", "w1", 1000)
    assert first.attempt == 1
    assert [store.append(first, msg(n)) for n in (1, 2)] == [1, 2]
    store.release(first, "idle")
    second = store.claim("s", "w2", 1000)
    assert second.attempt == 2
    assert store.append(second, msg(3)) == 3
    assert store.load_transcript("s") == [msg(0), msg(1), msg(2), msg(3)]
    assert [(e.seq, e.attempt) for e in store.entries("s")] == [(0, 0), (1, 1), (2, 1), (3, 2)]


def test_a_superseded_attempt_is_fenced_with_a_cause_chained_lease_loss(store: SQLiteSessionStore) -> None:
    old = store.claim("s", "w1", 1000)
    store.append(old, msg(0))
    store.claim("s", "w2", 1000, steal=True)
    with pytest.raises(StoreWriteError) as caught:
        store.append(old, msg(1))
    # The storage error's cause chain bottoms out in the lease loss (what the reference walks).
    assert isinstance(caught.value.__cause__, LeaseLostError)
    assert is_lease_lost(caught.value)
    assert "superseded by attempt 2" in str(caught.value)
    assert store.load_transcript("s") == [msg(0)]


def test_an_expired_lease_is_fenced_even_without_a_newer_attempt(store: SQLiteSessionStore, clock: FakeClock) -> None:
    lease = store.claim("s", "w1", 500)
    clock.now += 499
    store.append(lease, msg(0))
    clock.now += 1
    with pytest.raises(StoreWriteError) as caught:
        store.append(lease, msg(1))
    assert is_lease_lost(caught.value)
    assert "expired" in str(caught.value)
    assert store.get_session("s").status == "stale"
    assert store.get_session("s").entries == 1


def test_heartbeat_extends_the_lease_and_fails_once_it_is_lost(store: SQLiteSessionStore, clock: FakeClock) -> None:
    lease = store.claim("s", "w1", 500)
    clock.now += 400
    lease = store.heartbeat(lease, 500)
    clock.now += 400  # past the original expiry, inside the extended one
    store.append(lease, msg(0))
    clock.now += 100
    with pytest.raises(StoreWriteError) as caught:
        store.heartbeat(lease, 500)
    assert is_lease_lost(caught.value)


def test_a_live_lease_blocks_other_claims_unless_stolen(store: SQLiteSessionStore, clock: FakeClock) -> None:
    store.claim("s", "w1", 1000)
    with pytest.raises(LeaseHeldError) as caught:
        store.claim("s", "w2", 1000)
    assert caught.value.owner == "w1"
    assert store.get_session("s").attempt == 1
    assert store.claim("s", "w2", 1000, steal=True).attempt == 2
    clock.now += 1000
    assert store.claim("s", "w3", 1000).attempt == 3  # expired: no steal needed
    outcomes = [(a.owner, a.outcome) for a in store.attempts("s")]
    assert outcomes == [("w1", "superseded"), ("w2", "expired"), ("w3", None)]


def test_claim_can_wait_for_a_lease_to_expire(tmp_path: Path) -> None:
    store = open_store(tmp_path / "wait.db")
    store.claim("s", "w1", 150)
    started = time.monotonic()
    lease = store.claim("s", "w2", 1000, wait_ms=3000)
    waited = time.monotonic() - started
    assert lease.attempt == 2
    assert 0.05 < waited < 2.5
    with pytest.raises(LeaseHeldError):
        store.claim("s", "w3", 1000, wait_ms=100)
    store.close()


def test_release_ends_the_lease_and_a_lost_lease_releases_nothing(store: SQLiteSessionStore) -> None:
    lease = store.claim("s", "w1", 1000)
    assert store.release(lease, "done")
    info = store.get_session("s")
    assert (info.status, info.lease_owner) == ("done", None)
    with pytest.raises(StoreWriteError) as caught:
        store.append(lease, msg(0))
    assert "released" in str(caught.value) and is_lease_lost(caught.value)
    newer = store.claim("s", "w2", 1000)
    assert not store.release(lease, "failed")
    assert store.get_session("s").status == "running"
    assert store.release(newer, "idle")
    with pytest.raises(ValueError):
        store.release(newer, "running")


def test_entries_cannot_be_rewritten_or_deleted_even_with_raw_sql(tmp_path: Path) -> None:
    store = open_store(tmp_path / "log.db")
    lease = store.claim("s", "w1", 1000)
    store.append(lease, msg(0))
    store.close()
    raw = sqlite3.connect(tmp_path / "log.db")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("UPDATE entries SET body = '{}'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("DELETE FROM entries")
    raw.close()
    assert open_store(tmp_path / "log.db").load_transcript("s") == [msg(0)]


def test_an_unserializable_message_writes_nothing_and_keeps_the_store_usable(store: SQLiteSessionStore) -> None:
    lease = store.claim("s", "w1", 1000)
    with pytest.raises(StoreWriteError) as caught:
        store.append(lease, {"role": "user", "content": object()})
    assert not is_lease_lost(caught.value)
    assert store.append(lease, msg(0)) == 0
    assert store.get_session("s").entries == 1


def test_list_sessions_reports_status_attempt_and_counts(store: SQLiteSessionStore, clock: FakeClock) -> None:
    store.create_session("fresh", "never claimed", [msg(0)])
    done = store.claim("finished", "w1", 1000)
    store.append(done, msg(0))
    store.append(done, msg(1))
    store.release(done, "done")
    clock.now += 1
    store.claim("dead", "w2", 100)
    clock.now += 100
    rows = {info.session_id: (info.status, info.attempt, info.entries) for info in store.list_sessions()}
    assert rows == {"fresh": ("new", 0, 1), "finished": ("done", 1, 2), "dead": ("stale", 1, 0)}
    assert store.get_session("nope") is None
    assert store.integrity_check() == "ok"


def test_two_connections_see_the_same_fence(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    one, two = open_store(path), open_store(path)
    old = one.claim("s", "w1", 5000)
    two.claim("s", "w2", 5000, steal=True)
    with pytest.raises(StoreWriteError):
        one.append(old, msg(0))
    assert two.load_transcript("s") == []
    one.close()
    two.close()
