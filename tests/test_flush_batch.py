"""`repair --out-dir` flushes its files to disk in batches (integrity._bulk.atomic_write.FlushBatch): the
promise of one file's write still holds for each file (its bytes are on disk before it gets its final
name, a failure leaves no short file and no temporary file behind) with one wait on the disk a batch."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity import cli
from integrity._bulk import atomic_write

ROOT = Path(__file__).resolve().parents[1]


def _files(folder: Path, count: int) -> list[Path]:
    """Small pi-ai transcripts, every other one with an unanswered call (so its view changes)."""
    folder.mkdir()
    paths = []
    for number in range(count):
        messages: list[dict[str, Any]] = [
            {"role": "user", "content": f"task {number}"},
            {"role": "assistant", "stopReason": "toolUse",
             "content": [{"type": "toolCall", "id": f"c{number}", "name": "ls", "arguments": {}}]}]
        if number % 2:
            messages.append({"role": "toolResult", "toolCallId": f"c{number}", "toolName": "ls",
                             "content": [{"type": "text", "text": "ok"}], "isError": False})
        path = folder / f"s{number:03d}.json"
        path.write_text(json.dumps(messages))
        paths.append(path)
    return paths


def test_every_file_is_on_disk_before_any_gets_its_name(tmp_path: Path, monkeypatch: Any) -> None:
    inputs = _files(tmp_path / "in", 9)
    out = tmp_path / "out"
    out.mkdir()
    flushes: list[tuple[list[str], list[str]]] = []
    real = atomic_write._flush_together

    def watched(targets: Any) -> dict[int, Any]:
        flushes.append((sorted(os.path.basename(t.real) for t in targets), sorted(os.listdir(out))))
        return real(targets)

    monkeypatch.setattr(atomic_write, "_flush_together", watched)
    done = run("repair", "--jobs", "1", "--now", "1", "--out-dir", out, *inputs)
    assert done.code == 0, done.stderr
    assert [name for names, _ in flushes for name in names] == [path.name for path in inputs]
    assert len(flushes) < len(inputs)  # one wait on the disk for several files
    for names, present in flushes:
        assert not set(names) & set(present)  # none of a batch's files had its final name before the flush
    for path in inputs:
        alone = tmp_path / "alone.json"
        assert run("repair", "--now", "1", path, "-o", alone).code == 0
        assert (out / path.name).read_bytes() == alone.read_bytes()
    assert sorted(os.listdir(out)) == sorted(path.name for path in inputs)  # no temporary file left


def test_without_syncfs_each_file_is_fsynced_before_the_renames(tmp_path: Path, monkeypatch: Any) -> None:
    inputs = _files(tmp_path / "in", 4)
    out = tmp_path / "out"
    out.mkdir()
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(atomic_write, "_syncfs", lambda path: False)
    monkeypatch.setattr(atomic_write.os, "fsync", lambda handle: synced.append(handle) or real_fsync(handle))
    done = run("repair", "--jobs", "1", "--out-dir", out, *inputs)
    assert done.code == 0, done.stderr
    assert len(synced) == len(inputs)
    assert sorted(os.listdir(out)) == sorted(path.name for path in inputs)


def test_a_file_whose_flush_fails_is_its_own_error_and_the_others_are_written(tmp_path: Path,
                                                                              monkeypatch: Any) -> None:
    inputs = _files(tmp_path / "in", 5)
    out = tmp_path / "out"
    out.mkdir()
    real_fsync = os.fsync
    refused = {"name": ""}

    def fsync(handle: int) -> None:
        name = os.readlink(f"/proc/self/fd/{handle}")
        if ".s002.json." in name:
            refused["name"] = name
            raise OSError(5, "Input/output error")
        real_fsync(handle)

    monkeypatch.setattr(atomic_write, "_syncfs", lambda path: False)
    monkeypatch.setattr(atomic_write.os, "fsync", fsync)
    done = run("repair", "--jobs", "1", "--out-dir", out, *inputs)
    assert refused["name"]
    assert done.code == 2
    assert done.error_lines == [f"error: {out / 's002.json'}: cannot write the repaired transcript: "
                                f"Input/output error (no file was written)"]
    assert sorted(os.listdir(out)) == sorted(path.name for path in inputs if path.name != "s002.json")


@pytest.mark.parametrize("count", [1, 70, 2 * cli._FLUSH_BATCH + 10])
def test_batches_cover_every_file_once_in_input_order(tmp_path: Path, count: int, monkeypatch: Any) -> None:
    inputs = _files(tmp_path / "in", count)
    out = tmp_path / "out"
    out.mkdir()
    batches: list[list[str]] = []
    real = atomic_write._flush_together
    monkeypatch.setattr(atomic_write, "_flush_together",
                        lambda targets: batches.append([os.path.basename(t.real) for t in targets]) or real(targets))
    done = run("repair", "--jobs", "1", "--out-dir", out, *inputs)
    assert done.code == 0, done.stderr
    assert [name for batch in batches for name in batch] == [path.name for path in inputs]
    assert all(len(batch) <= cli._FLUSH_BATCH for batch in batches)
    assert len(batches) == -(-count // min(cli._FLUSH_BATCH, -(-count // 2)))  # (--jobs 1: two batches or more)
    assert sorted(os.listdir(out)) == sorted(path.name for path in inputs)


def test_a_stop_between_two_files_of_a_batch_leaves_no_temporary_file(tmp_path: Path, monkeypatch: Any) -> None:
    """SIGTERM (the pool being stopped) raises Terminated anywhere in a batch, between two files too: the
    batch's files written so far are removed, never renamed, and no temporary file stays behind."""
    from integrity import cli
    from integrity._bulk.atomic_write import Terminated

    inputs = _files(tmp_path / "in", 3)
    out = tmp_path / "out"
    out.mkdir()
    real = cli._repair_into_folder
    done: list[str] = []

    def stopped_after_one(path: str, args: Any) -> tuple[int, str]:
        if done:
            raise Terminated()  # what the SIGTERM handler raises between two files
        done.append(path)
        return real(path, args)

    monkeypatch.setattr(cli, "_repair_into_folder", stopped_after_one)
    args = cli.build_parser().parse_args(["repair", "--out-dir", str(out), *map(str, inputs)])
    outcomes = cli._repair_batch_into_folder([str(path) for path in inputs], args)
    assert done and all(code == cli.EXIT_TERMINATED for code, _ in outcomes)
    assert os.listdir(out) == []


def test_a_batch_is_flushed_sooner_once_its_files_hold_enough_bytes(tmp_path: Path, monkeypatch: Any) -> None:
    """Large files do not wait for a whole batch: once the files written since the last flush hold
    _FLUSH_BYTES, they are flushed and renamed, and the batch goes on (every file once, in order)."""
    inputs = _files(tmp_path / "in", 9)
    out = tmp_path / "out"
    out.mkdir()
    sizes = [path.stat().st_size for path in inputs]
    monkeypatch.setattr(cli, "_FLUSH_BYTES", sizes[0] + sizes[1])  # about two files a flush
    batches: list[list[str]] = []
    real = atomic_write._flush_together
    monkeypatch.setattr(atomic_write, "_flush_together",
                        lambda targets: batches.append([os.path.basename(t.real) for t in targets]) or real(targets))
    done = run("repair", "--jobs", "1", "--now", "1", "--out-dir", out, *inputs)
    assert done.code == 0, done.stderr
    assert [name for batch in batches for name in batch] == [path.name for path in inputs]
    assert len(batches) >= 4 and all(1 <= len(batch) <= 3 for batch in batches)
    assert sorted(os.listdir(out)) == sorted(path.name for path in inputs)
