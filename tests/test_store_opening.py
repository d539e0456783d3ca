"""Opening a store safely: inspection never writes, foreign or broken files and every SQLite failure are StoreErrors.

Also the store's input rules: lease times are positive, a live lease is never
re-claimed without `steal` (same owner or not), and text SQLite cannot store is
refused with StoreWriteError (or, inside a message body, stored escaped).
"""

from __future__ import annotations

import ctypes
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from integrity.lab import (
    APPLICATION_ID,
    LeaseHeldError,
    SQLiteSessionStore,
    StoreError,
    StoreNotFoundError,
    StoreWriteError,
    open_store,
)


def msg(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 1}


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file in a directory and its bytes."""
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def foreign_db(path: Path, wal: bool = False) -> Path:
    raw = sqlite3.connect(path)
    if wal:
        raw.execute("PRAGMA journal_mode = WAL")
    raw.execute("CREATE TABLE notes (text TEXT)")
    raw.execute("INSERT INTO notes VALUES ('keep me')")
    raw.commit()
    raw.close()
    return path


def made_store(path: Path) -> Path:
    with open_store(path) as store:
        store.create_session("s", "demo", [msg("hello")])
    return path


def legacy_store(path: Path) -> Path:
    """A store as the previous version wrote it: our tables and user_version 1, but no application id."""
    made_store(path)
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA application_id = 0")
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    return path


# ----------------------------------------------------------------------------- what is ours


def test_a_new_store_carries_our_application_id(tmp_path: Path) -> None:
    path = made_store(tmp_path / "new.db")
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    raw.close()


@pytest.mark.parametrize("create", [False, True])
@pytest.mark.parametrize("wal", [False, True])
def test_a_foreign_database_is_refused_and_stays_byte_identical(tmp_path: Path, create: bool, wal: bool) -> None:
    path = foreign_db(tmp_path / "other.db", wal)
    before = snapshot(tmp_path)
    with pytest.raises(StoreError, match="another program.*not a session store"):
        open_store(path, create=create)
    after = snapshot(tmp_path)
    assert after["other.db"] == before["other.db"]  # no WAL switch, no tables, no stamp
    if not wal:  # reading a WAL-mode file may leave SQLite's -wal/-shm beside it; nothing else appears
        assert after == before
    raw = sqlite3.connect(path)
    assert raw.execute("SELECT name FROM sqlite_master").fetchall() == [("notes",)]
    raw.close()


def test_a_database_with_our_table_names_but_another_application_id_is_refused(tmp_path: Path) -> None:
    path = made_store(tmp_path / "impostor.db")
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA application_id = 42")
    raw.close()
    with pytest.raises(StoreError, match="application id 0x2a"):
        open_store(path, create=False)


def test_a_store_of_the_previous_version_is_read_as_is_and_stamped_only_when_opened_for_writing(
        tmp_path: Path) -> None:
    path = legacy_store(tmp_path / "old.db")
    before = snapshot(tmp_path)
    with open_store(path, create=False) as store:
        assert store.load_transcript("s") == [msg("hello")]
    assert snapshot(tmp_path)["old.db"] == before["old.db"]  # inspection did not migrate it
    with open_store(path) as store:
        lease = store.claim("s", "w1", 1000)
        store.append(lease, msg("again"))
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    raw.close()
    with open_store(path, create=False) as store:
        assert store.load_transcript("s") == [msg("hello"), msg("again")]


def test_a_store_from_newer_code_is_refused(tmp_path: Path) -> None:
    path = made_store(tmp_path / "future.db")
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 99")
    raw.close()
    for create in (False, True):
        with pytest.raises(StoreError, match="newer than this code"):
            open_store(path, create=create)


def test_an_empty_file_is_not_a_store_for_inspection_but_can_become_one(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    with pytest.raises(StoreError, match="empty database"):
        open_store(path, create=False)
    assert path.read_bytes() == b""
    with open_store(path) as store:
        assert store.create_session("s")


# ----------------------------------------------------------------------------- broken files and places


def test_random_bytes_are_a_store_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 300)
    for create in (False, True):
        with pytest.raises(StoreError, match="junk.db.*not an SQLite database"):
            open_store(path, create=create)
    assert path.read_bytes() == b"this is not sqlite" * 300


def test_a_store_with_corrupted_pages_is_a_store_error_not_a_sqlite_traceback(tmp_path: Path) -> None:
    path = made_store(tmp_path / "corrupt.db")
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = raw.execute("PRAGMA page_size").fetchone()[0]
    raw.close()
    data = bytearray(path.read_bytes())
    data[page:] = b"\xa5" * (len(data) - page)  # every page but the first (the schema) is garbage
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="corrupt") as caught:
        with open_store(path, create=False) as store:
            store.list_sessions()
            store.entries("s")
    assert isinstance(caught.value.__cause__, sqlite3.DatabaseError)


def test_a_missing_file_is_not_created_and_is_both_a_store_error_and_file_not_found(tmp_path: Path) -> None:
    for read_only in (True, False):
        with pytest.raises(StoreNotFoundError) as caught:
            open_store(tmp_path / "absent.db", create=False, read_only=read_only)
        assert isinstance(caught.value, FileNotFoundError) and isinstance(caught.value, StoreError)
    assert not (tmp_path / "absent.db").exists()


def test_a_directory_or_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    for path in (tmp_path, fifo):
        for create in (False, True):
            with pytest.raises(StoreError, match="not a regular file"):
                open_store(path, create=create)  # a FIFO would block SQLite's open forever


def test_a_missing_directory_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot be opened"):
        open_store(tmp_path / "no" / "such" / "dir.db")


def in_child_without_dac_override(test: Callable[[], None]) -> None:
    """Run `test` in a forked child that obeys file permissions even as root; fail here if it failed there.

    Root normally writes into a 0555 directory; dropping CAP_DAC_OVERRIDE (and
    CAP_DAC_READ_SEARCH) makes the child see it as read-only, as any user would.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(read_fd)
        outcome = b"ok"
        try:
            if os.geteuid() == 0:
                _drop_dac_capabilities()
            test()
        except BaseException as error:  # noqa: BLE001 - reported to the parent
            outcome = f"{type(error).__name__}: {error}".encode()
        os.write(write_fd, outcome)
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as reader:
        outcome = reader.read()
    os.waitpid(pid, 0)
    assert outcome == b"ok", outcome.decode()


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_dac_capabilities() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    for bit in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        data[0].effective &= ~(1 << bit)
        data[0].permitted &= ~(1 << bit)
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def test_a_read_only_directory_gives_store_errors_and_still_allows_inspection(tmp_path: Path) -> None:
    path = made_store(tmp_path / "kept.db")
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    for side in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        side.unlink(missing_ok=True)
    before = snapshot(tmp_path)
    tmp_path.chmod(0o555)

    def check() -> None:
        assert not os.access(tmp_path, os.W_OK)
        with pytest.raises(StoreError, match="new.db.*cannot be opened"):
            open_store(tmp_path / "new.db")
        with pytest.raises(StoreError, match="kept.db.*cannot be written"):
            open_store(path)
        with open_store(path, create=False) as store:  # a WAL store with no -shm, read as immutable
            assert store.load_transcript("s") == [msg("hello")]

    try:
        in_child_without_dac_override(check)
    finally:
        tmp_path.chmod(0o755)
    assert snapshot(tmp_path) == before


def test_a_locked_store_is_a_store_write_error_and_nothing_is_written(tmp_path: Path) -> None:
    path = made_store(tmp_path / "busy.db")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with open_store(path, busy_timeout_ms=50) as store:
            with pytest.raises(StoreWriteError, match="locked by another process") as caught:
                store.claim("s", "w1", 1000)
            assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with open_store(path, create=False) as store:
        assert store.get_session("s").attempt == 0


# ----------------------------------------------------------------------------- inspection is read-only


def test_an_inspected_store_refuses_every_write_and_is_left_unchanged(tmp_path: Path) -> None:
    path = made_store(tmp_path / "look.db")
    before = snapshot(tmp_path)["look.db"]
    with open_store(path, create=False) as store:
        assert store.read_only
        for write in (lambda: store.create_session("t"), lambda: store.claim("s", "w1", 1000)):
            with pytest.raises(StoreWriteError, match="read-only"):
                write()
        assert [info.session_id for info in store.list_sessions()] == ["s"]
    assert snapshot(tmp_path)["look.db"] == before


def test_create_false_read_only_false_writes_to_an_existing_store(tmp_path: Path) -> None:
    path = made_store(tmp_path / "rw.db")
    with open_store(path, create=False, read_only=False) as store:
        lease = store.claim("s", "w1", 1000)
        assert store.append(lease, msg("more")) == 1
    with pytest.raises(ValueError, match="both created and read-only"):
        open_store(path, create=True, read_only=True)


def test_an_entry_that_is_not_json_is_a_store_error(tmp_path: Path) -> None:
    path = made_store(tmp_path / "odd.db")
    raw = sqlite3.connect(path)
    raw.execute("INSERT INTO entries VALUES ('s', 1, 0, 'user', '{not json', 0)")
    raw.commit()
    raw.close()
    with open_store(path, create=False) as store, pytest.raises(StoreError, match="entry 1 of session 's'"):
        store.entries("s")


# ----------------------------------------------------------------------------- leases


@pytest.fixture
def store(tmp_path: Path) -> SQLiteSessionStore:
    now = [1_000_000]
    opened = open_store(tmp_path / "leases.db", clock=lambda: now[0])
    opened.now = now  # type: ignore[attr-defined]
    yield opened
    opened.close()


@pytest.mark.parametrize("ttl", [0, -1, -1000, 1.5, True, None, "100"])
def test_lease_times_must_be_positive_integers(store: SQLiteSessionStore, ttl: Any) -> None:
    with pytest.raises(ValueError, match="ttl_ms must be a positive integer"):
        store.claim("s", "w1", ttl)
    assert store.get_session("s") is None  # nothing was created
    lease = store.claim("s", "w1", 1000)
    with pytest.raises(ValueError, match="ttl_ms must be a positive integer"):
        store.heartbeat(lease, ttl)
    assert store.get_session("s").lease_expires_at == lease.expires_at


def test_wait_time_must_not_be_negative(store: SQLiteSessionStore) -> None:
    with pytest.raises(ValueError, match="wait_ms must be a non-negative integer"):
        store.claim("s", "w1", 1000, wait_ms=-1)
    assert store.claim("s", "w1", 1000, wait_ms=0).attempt == 1


def test_the_same_owner_cannot_re_claim_a_live_lease_without_steal(store: SQLiteSessionStore) -> None:
    first = store.claim("s", "host-1", 1000)
    with pytest.raises(LeaseHeldError) as caught:
        store.claim("s", "host-1", 1000)
    assert caught.value.owner == "host-1"
    store.append(first, msg("still mine"))  # the first claim still fences writes
    second = store.claim("s", "host-1", 1000, steal=True)  # an explicit takeover
    assert second.attempt == 2
    with pytest.raises(StoreWriteError, match="superseded"):
        store.append(first, msg("zombie"))
    store.now[0] += 1000  # type: ignore[attr-defined]
    assert store.claim("s", "host-1", 1000).attempt == 3  # expired: claimed freely
    assert [(a.owner, a.outcome) for a in store.attempts("s")] == [
        ("host-1", "superseded"), ("host-1", "expired"), ("host-1", None)]


# ----------------------------------------------------------------------------- text SQLite cannot store


@pytest.mark.parametrize("field", ["session_id", "title", "owner"])
def test_a_lone_surrogate_in_an_id_title_or_owner_is_a_store_write_error(
        store: SQLiteSessionStore, field: str) -> None:
    bad = "ses\ud800sion"
    with pytest.raises(StoreWriteError, match=f"{field} cannot be stored: a lone surrogate \\(U\\+D800\\) at "
                                              "position 3"):
        if field == "owner":
            store.claim("s", bad, 1000)
        elif field == "title":
            store.create_session("s", bad)
        else:
            store.create_session(bad)
    assert store.list_sessions() == []  # nothing was written
    assert store.create_session("s", "fine")  # the store is still usable


def test_a_message_with_a_lone_surrogate_is_stored_escaped_and_reads_back_the_same(store: SQLiteSessionStore) -> None:
    odd = {"role": "user\udfff", "content": "half an emoji: \ud83d and text é", "timestamp": 2}
    assert store.create_session("s", "demo", [msg("é")])
    lease = store.claim("s", "w1", 1000)
    assert store.append(lease, odd) == 1
    assert store.load_transcript("s") == [msg("é"), odd]
    assert [entry.role for entry in store.entries("s")] == ["user", None]  # the role column holds only text


def test_a_non_string_id_is_a_type_error(store: SQLiteSessionStore) -> None:
    with pytest.raises(TypeError, match="session_id must be a string"):
        store.create_session(123)  # type: ignore[arg-type]


def test_a_foreign_database_with_a_version_of_its_own_is_refused_from_its_header(tmp_path: Path) -> None:
    path = foreign_db(tmp_path / "versioned.db")
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 7")
    raw.close()
    before = snapshot(tmp_path)
    with pytest.raises(StoreError, match="no application id, user_version 7"):
        open_store(path, create=False)
    assert snapshot(tmp_path) == before
