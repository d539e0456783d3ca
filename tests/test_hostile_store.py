"""Store opening under hostile conditions (issue 30, item 5): symbolic-link decoys and inspection side files.

Before: `open_store(link, create=True)` wrote a store into an empty decoy file a
link pointed at, and a read-only inspection of a WAL store left `-wal` and `-shm`
files beside it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from integrity.lab.store import StoreError, open_store


def msg(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 1}


def snapshot(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def made_store(path: Path) -> Path:
    with open_store(path) as store:
        store.create_session("s", "demo", [msg("hello")])
    return path


def test_an_empty_decoy_behind_a_link_is_never_made_a_store(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    decoy = elsewhere / "decoy.db"
    decoy.write_bytes(b"")
    link = tmp_path / "sessions.db"
    link.symlink_to(decoy)
    with pytest.raises(StoreError, match=r"sessions\.db: a symbolic link to an empty file; a store is created "
                                         r"only at a path of its own"):
        open_store(link, create=True)
    assert decoy.read_bytes() == b"" and sorted(p.name for p in elsewhere.iterdir()) == ["decoy.db"]


def test_a_link_to_a_missing_file_creates_nothing_where_it_points(tmp_path: Path) -> None:
    target = tmp_path / "nowhere.db"
    link = tmp_path / "sessions.db"
    link.symlink_to(target)
    with pytest.raises(StoreError, match="a symbolic link to a missing file"):
        open_store(link)
    assert not target.exists()


def test_a_link_to_a_real_store_still_opens(tmp_path: Path) -> None:
    store_path = made_store(tmp_path / "real.db")
    link = tmp_path / "link.db"
    link.symlink_to(store_path)
    with open_store(link) as store:
        assert store.load_transcript("s") == [msg("hello")]
    with open_store(link, create=False) as store:
        assert store.load_transcript("s") == [msg("hello")]


def test_a_read_only_inspection_leaves_no_wal_or_shm_file(tmp_path: Path) -> None:
    path = made_store(tmp_path / "kept.db")
    before = snapshot(tmp_path)
    assert list(before) == ["kept.db"]
    with open_store(path, create=False) as store:
        assert store.load_transcript("s") == [msg("hello")]
        assert [info.session_id for info in store.list_sessions()] == ["s"]
        assert store.integrity_check() == "ok"
        assert snapshot(tmp_path) == before
    assert snapshot(tmp_path) == before


def test_an_inspection_sees_what_a_writer_adds_while_it_is_open(tmp_path: Path) -> None:
    path = made_store(tmp_path / "live.db")
    with open_store(path, create=False) as reader:
        assert reader.load_transcript("s") == [msg("hello")]
        writer = open_store(path)
        writer.create_session("t", "second", [msg("one")])
        assert os.path.exists(f"{path}-wal")  # the writer's, not ours
        assert sorted(info.session_id for info in reader.list_sessions()) == ["s", "t"]
        lease = writer.claim("t", "w", 60_000)
        writer.append(lease, msg("two"))
        writer.close()  # checkpointed into the main file, -wal removed
        assert reader.load_transcript("t") == [msg("one"), msg("two")]


def test_an_inspection_sees_a_write_made_and_finished_between_two_reads(tmp_path: Path) -> None:
    path = made_store(tmp_path / "live.db")
    with open_store(path, create=False) as reader:
        assert [info.session_id for info in reader.list_sessions()] == ["s"]
        with open_store(path) as writer:
            writer.create_session("t", "second", [msg("one")])
        assert not os.path.exists(f"{path}-wal")
        assert sorted(info.session_id for info in reader.list_sessions()) == ["s", "t"]
        assert reader.load_transcript("t") == [msg("one")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["live.db"]
