"""integrity.cli_pool: work over forked worker processes, handed on in the items' order.

The workers are forked, so the work and the items are whatever this process holds (closures too).  Each
test checks what the caller sees: every outcome once, in order, whatever process made it; a bug raised
again here; a worker that dies is an error, never a hang; stopping early leaves no worker behind.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pytest

from integrity import cli_pool

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the workers are forked")


def _children() -> set[int]:
    """This process's children, from /proc (Linux)."""
    found = set()
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if fields[1].decode() == me and fields[0] != b"Z":
                found.add(int(entry))
    return found


@pytest.mark.parametrize("count, jobs", [(1, 2), (7, 2), (100, 3), (1000, 2), (300, 8)])
def test_outcomes_come_in_the_items_order_each_once(count: int, jobs: int) -> None:
    items = [f"item-{number}" for number in range(count)]

    def work(item: str) -> tuple[str, int]:
        time.sleep(0.001)  # long enough that every worker is up before the chunks run out
        return item, os.getpid()

    outcomes = list(cli_pool.in_order(work, items, jobs))
    assert [item for item, _ in outcomes] == items
    if count >= 100:  # enough chunks that more than one worker took some
        assert len({pid for _, pid in outcomes}) > 1
    assert os.getpid() not in {pid for _, pid in outcomes}


def test_uneven_work_still_comes_in_order() -> None:
    items = list(range(60))

    def work(item: int) -> int:
        time.sleep(0.02 if item % 7 == 0 else 0)  # some chunks take longer: later ones finish first
        return item * item

    assert list(cli_pool.in_order(work, items, 3)) == [item * item for item in items]


def test_a_bug_in_the_work_is_raised_here() -> None:
    def work(item: int) -> int:
        if item == 41:
            raise ValueError(f"no good: {item}")
        return item

    with pytest.raises(ValueError, match="no good: 41"):
        list(cli_pool.in_order(work, list(range(100)), 2))
    assert _children() == set()


def test_an_exception_that_does_not_pickle_is_raised_as_its_text() -> None:
    class Odd(Exception):
        def __init__(self, held: object) -> None:
            super().__init__("odd one")
            self.held = held

        def __reduce__(self) -> tuple[object, ...]:
            raise TypeError("cannot pickle this")

    def work(item: int) -> int:
        raise Odd(lambda: item)

    with pytest.raises(RuntimeError, match="Odd: odd one"):
        list(cli_pool.in_order(work, [1, 2, 3], 2))


def test_a_worker_that_dies_is_an_error_not_a_hang() -> None:
    def work(item: int) -> int:
        if item == 5:
            os._exit(9)  # killed outright: its chunk never comes
        return item

    with pytest.raises(RuntimeError, match="ended before its files were done"):
        list(cli_pool.in_order(work, list(range(40)), 2))
    assert _children() == set()


def test_stopping_early_stops_and_reaps_every_worker() -> None:
    def work(item: int) -> int:
        time.sleep(0.01)
        return item

    outcomes = cli_pool.in_order(work, list(range(2000)), 2)
    assert next(outcomes) == 0
    outcomes.close()  # the caller stops reading (an interrupt, a closed pipe)
    assert _children() == set()


def test_large_outcomes_cross_whole() -> None:
    items = list(range(8))
    outcomes = list(cli_pool.in_order(lambda item: bytes([item]) * (3 << 20), items, 2))
    assert [len(outcome) for outcome in outcomes] == [3 << 20] * 8
    assert [outcome[:1] for outcome in outcomes] == [bytes([item]) for item in items]


def test_the_cli_works_a_small_first_file_here_and_the_rest_in_workers(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """check's _each_file(first_here=True): the first file, when small, in this process (its imports made once,
    before the workers are forked), every other in a worker; a large first file goes to a worker too."""
    from integrity import cli

    files = []
    for number in range(40):
        path = tmp_path / f"f{number:02d}.json"
        path.write_bytes(b"[]")
        files.append(str(path))
    args = argparse.Namespace(files=files, jobs=2)

    def work(path: str, args: argparse.Namespace) -> tuple[str, int]:
        time.sleep(0.001)
        return path, os.getpid()

    said = list(cli._each_file(work, args, first_here=True))
    assert [path for path, _ in said] == files
    assert said[0][1] == os.getpid() and os.getpid() not in {pid for _, pid in said[1:]}
    monkeypatch.setattr(cli, "FIRST_HERE_BELOW", 2)  # every file here is 2 bytes: none is small now
    said = list(cli._each_file(work, args, first_here=True))
    assert [path for path, _ in said] == files and os.getpid() not in {pid for _, pid in said}


def test_a_signal_as_the_temporary_file_is_made_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM (the pool being stopped) that lands just as the temporary file is made, before the call making it
    returns, still has the file removed: its name was recorded before it existed (with mkstemp, a stopped
    `repair --out-dir` left one about every other run)."""
    import signal

    from integrity._bulk import atomic_write

    real = atomic_write._create

    def made_then_signalled(path: str) -> int:
        made = real(path)
        os.kill(os.getpid(), signal.SIGTERM)  # raises here, the file made and its handle not yet returned
        return made

    monkeypatch.setattr(atomic_write, "_create", made_then_signalled)
    target = atomic_write.Target(str(tmp_path / "out.json"), "repaired transcript")
    atomic_write.plan(str(tmp_path / "in.json"), [target])
    with pytest.raises(atomic_write.Terminated), atomic_write.signals_raise():
        atomic_write.write_all([(target, lambda out: out.write(b"[]"))], open(os.devnull, "wb"))
    assert os.listdir(tmp_path) == []


def test_a_taken_temporary_name_is_never_removed_and_another_is_drawn(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A temporary name already in use (another writer's file) is left alone: the write draws another name, and
    the other file is still there, unchanged, after the output is renamed into place."""
    from integrity._bulk import atomic_write

    taken = tmp_path / ".out.json.000000000000.integrity-tmp"
    taken.write_bytes(b"someone else's")
    draws = iter(["000000000000", "111111111111"])
    monkeypatch.setattr(atomic_write.secrets, "token_hex", lambda size: next(draws))
    target = atomic_write.Target(str(tmp_path / "out.json"), "repaired transcript")
    atomic_write.plan(str(tmp_path / "in.json"), [target])
    atomic_write.write_all([(target, lambda out: out.write(b"[]"))], open(os.devnull, "wb"))
    assert sorted(os.listdir(tmp_path)) == [taken.name, "out.json"]
    assert taken.read_bytes() == b"someone else's" and (tmp_path / "out.json").read_bytes() == b"[]"


def test_stopping_repair_out_dir_leaves_no_temporary_file_and_never_hangs(tmp_path: Path) -> None:
    """SIGTERM to `repair --out-dir` over many files while its workers write: exit 143 within seconds, every
    output either whole under its name or absent, no temporary file left."""
    import signal
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[1]
    sources = tmp_path / "in"
    sources.mkdir()
    sample = (repo / "sample_transcripts" / "orphaned_call.pi-ai.json").read_bytes()
    for number in range(3000):
        (sources / f"s{number:04d}.json").write_bytes(sample)
    out = tmp_path / "out"
    out.mkdir()
    first = subprocess.run([sys.executable, "-m", "integrity", "repair", "--now", "1", str(sources / "s0000.json")],
                           cwd=repo, capture_output=True, env={**os.environ, "PYTHONPATH": str(repo)})
    written = first.stdout  # what repair writes for each of them (they are all the same file)
    stopped = 0
    for written_before in (1, 300, 1000):  # stopped once its workers have written this many files, not after a delay
        for name in os.listdir(out):
            os.unlink(out / name)
        child = subprocess.Popen([sys.executable, "-m", "integrity", "repair", "--now", "1", "--out-dir", str(out),
                                  *sorted(map(str, sources.iterdir()))], cwd=repo, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(repo)})
        deadline = time.monotonic() + 60
        while child.poll() is None and len(os.listdir(out)) < written_before and time.monotonic() < deadline:
            time.sleep(0.005)
        child.send_signal(signal.SIGTERM)
        try:
            _, stderr = child.communicate(timeout=30)
        finally:
            child.kill()
            child.wait()
        if child.returncode != 143:  # (it finished before the signal: nothing to see)
            assert child.returncode in (0, 1)
            continue
        stopped += 1
        assert stderr.decode().strip() == "terminated"
        assert not [name for name in os.listdir(out) if name.endswith(".integrity-tmp")]
        assert all((out / name).read_bytes() == written for name in os.listdir(out))
    assert stopped  # at least one run was stopped while it wrote
