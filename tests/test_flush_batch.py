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


@pytest.mark.parametrize("count", [1, 70, 130])
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
    assert all(len(batch) <= 64 for batch in batches)
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


def test_a_batch_is_flushed_while_the_next_one_is_written(tmp_path: Path, monkeypatch: Any) -> None:
    """The flush of one batch (its own thread) runs while the next batch's files are made: it waits here until a
    temporary file of a later batch exists, which never happens if the files wait for the flush."""
    import threading

    inputs = _files(tmp_path / "in", 20)
    out = tmp_path / "out"
    out.mkdir()
    later = threading.Event()
    first: list[str] = []
    seen: list[bool] = []
    real_flush, real_create = atomic_write._flush_together, atomic_write._create

    def create(path: str) -> int:
        if first and first[0] not in path:
            later.set()
        return real_create(path)

    def flush(targets: Any) -> dict[int, Any]:
        if not first:
            first.extend(os.path.basename(t.real) for t in targets)
            seen.append(later.wait(20))
        return real_flush(targets)

    monkeypatch.setattr(atomic_write, "_create", create)
    monkeypatch.setattr(atomic_write, "_flush_together", flush)
    monkeypatch.setattr("integrity.cli._FLUSH_BATCH", 8)
    done = run("repair", "--jobs", "1", "--now", "1", "--out-dir", out, *inputs)
    assert done.code == 0, done.stderr
    assert seen == [True] and 0 < len(first) < len(inputs)
    assert sorted(os.listdir(out)) == sorted(path.name for path in inputs)


def test_a_stop_while_a_batch_is_flushed_leaves_no_temporary_file(tmp_path: Path) -> None:
    """Stopped after the first batch's outcomes (the second batch written, its flush started, its files not
    renamed): the first batch's files are there whole, the second's are gone, no temporary file is left."""
    from integrity import cli
    from integrity.cli_pool import overlapped

    inputs = _files(tmp_path / "in", 6)
    out = tmp_path / "out"
    out.mkdir()
    args = cli.build_parser().parse_args(["repair", "--now", "1", "--out-dir", str(out), *map(str, inputs)])
    each = overlapped(lambda paths: cli._begin_batch(paths, args), [list(map(str, inputs[:3])),
                                                                   list(map(str, inputs[3:]))])
    assert [code for code, _ in next(each)] == [0, 0, 0]
    assert any(name.endswith(".integrity-tmp") for name in os.listdir(out))  # the second batch, being flushed
    each.close()
    assert sorted(os.listdir(out)) == [path.name for path in inputs[:3]]


def test_a_started_batch_nobody_ends_is_discarded_by_the_guard(tmp_path: Path) -> None:
    """A stop between a batch's start and whoever would end it (the batch then held by no one): the guard
    `repair --out-dir` runs its batches in removes its files."""
    from integrity import cli

    inputs = _files(tmp_path / "in", 3)
    out = tmp_path / "out"
    out.mkdir()
    args = cli.build_parser().parse_args(["repair", "--now", "1", "--out-dir", str(out), *map(str, inputs)])
    with pytest.raises(atomic_write.Terminated), cli._batches_guarded():
        cli._begin_batch(list(map(str, inputs)), args)  # begun, then dropped
        assert len(os.listdir(out)) == 3
        raise atomic_write.Terminated()
    assert os.listdir(out) == []


@pytest.mark.parametrize("count, jobs", [(1, 2), (9, 2), (130, 1), (2000, 2), (5000, 8)])
def test_batches_cut_the_files_in_order_and_shrink_toward_the_end(count: int, jobs: int) -> None:
    from integrity import cli

    files = [f"f{number}" for number in range(count)]
    batches = cli._batches(files, jobs)
    assert [name for batch in batches for name in batch] == files
    sizes = [len(batch) for batch in batches]
    assert max(sizes) <= cli._FLUSH_BATCH and sizes == sorted(sizes[:-1], reverse=True) + sizes[-1:]
    if count >= 100:
        assert sizes[-2] == cli._SMALLEST_BATCH < sizes[0]


def test_a_batch_plans_its_files_as_each_file_alone(tmp_path: Path) -> None:
    """Inside a batch, plan() works a path's real name out from its folder's (once a batch) and one lstat: the
    same real path, the same status and the same refusals as without a batch, links included."""
    real_folder = tmp_path / "real"
    real_folder.mkdir()
    (tmp_path / "linked").symlink_to(real_folder)
    (real_folder / "there.json").write_bytes(b"[]")
    (real_folder / "input.json").write_bytes(b"[]")
    (real_folder / "link.json").symlink_to(real_folder / "there.json")
    (real_folder / "dangling.json").symlink_to(real_folder / "missing.json")
    source = str(tmp_path / "linked" / "input.json")

    def planned(name: str) -> tuple[str, Any, str]:
        target = atomic_write.Target(str(tmp_path / "linked" / name), "repaired transcript")
        try:
            atomic_write.plan(source, [target])
        except atomic_write.WriteError as error:
            return "", None, str(error)
        existing = target.existing
        return target.real, existing and (existing.st_ino, existing.st_mode), ""

    names = ["new.json", "there.json", "link.json", "dangling.json", "input.json", ".", "sub/"]
    alone = [planned(name) for name in names]
    with atomic_write.flushed_together():
        batched = [planned(name) for name in names]
    assert batched == alone
    assert alone[0][0] == str(real_folder / "new.json") and alone[2][0] == str(real_folder / "there.json")
    assert "symbolic link to a missing file" in alone[3][2] and "is the input file" in alone[4][2]
