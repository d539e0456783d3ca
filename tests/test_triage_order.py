"""The triage table is one table, whoever triaged what: the same rows in the same order (byte for byte on
disk) from the local cluster triage starts itself (forked workers, batches sized to them, the first
batches triaged by the head start while it starts: _triage_head) and from an existing cluster given as
--scheduler with other batch sizes, each row the verdict `check` gives its file.

A file in the middle of the fleet is a large transcript, so its batch finishes after later ones: the
rows of the batches behind it must wait for it, never be written first.  The files before it are small
and many, so that the head start takes several batches.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from test_guard_stores import langgraph_db  # noqa: F401 - the fixture

from integrity._triage_head import HeadStart, missing
from integrity.triage import batch_size, findings_path, run_triage, triage_batch
from tests.test_triage import ROOT, SAMPLES, _broken, cluster, sequential  # noqa: F401 - cluster is a fixture

sys.path.insert(0, str(ROOT / "bench"))
from generate import messages  # noqa: E402

FILES = 300
LARGE = 150


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ordered")
    (folder / f"{LARGE:03d}-large.json").write_text(json.dumps(list(messages(40_000, seed=3, defect_rate=0.05))))
    rng = random.Random(11)
    for n in range(FILES):
        if n == LARGE:
            continue
        if n % 7 == 0:
            sample = SAMPLES[n % len(SAMPLES)]
            (folder / f"{n:03d}-{sample.name}").write_bytes(sample.read_bytes())
        else:
            (folder / f"{n:03d}.json").write_text(json.dumps(_broken(rng, n)))
    (folder / f"{FILES:03d}-bad.json").write_text("[{")
    return folder


def _tables(table: Path) -> tuple[bytes, bytes]:
    return table.read_bytes(), Path(findings_path(str(table))).read_bytes()


def test_local_and_scheduler_runs_write_the_same_table_in_input_order(
        fleet: Path, cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    local = tmp_path / "local.parquet"  # in this process, which runs a cluster's threads: no head start
    run_triage([str(fleet)], str(local), workers=2, providers=["anthropic"], progress=None)
    runs = {}
    command = tmp_path / "command.parquet"  # as a user runs it: the head start triages the first batches
    done = subprocess.run([sys.executable, "-m", "integrity", "triage", str(fleet), "--out", str(command),
                           "--workers", "2", "--provider", "anthropic"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    for size in (1, 7):  # one file per task: the completion order is as scrambled as it gets
        table = tmp_path / f"scheduler-{size}.parquet"
        run_triage([str(fleet)], str(table), scheduler=cluster, batch_files=size, providers=["anthropic"],
                   progress=None)
        runs[size] = table
    assert batch_size(FILES + 1, 2) not in runs  # the local run batched the files its own way
    for table in [command, *runs.values()]:
        assert _tables(table) == _tables(local)
    rows = pq.read_table(local).to_pylist()
    paths = sorted(str(path) for path in fleet.iterdir())
    assert [row["path"] for row in rows] == paths  # input order, the slow file in its place
    expected = sequential(fleet, capsys)  # `check --json` over the same files, in one process
    for row in rows:
        report = expected[row["path"]]
        if report is None:
            assert row["status"] == "unreadable"
            continue
        assert (row["verdict"], row["healthy"], row["severity"], row["messages"]) == (
            report["verdict"], report["healthy"], report["severity"], report["summary"]["messages"])
    findings = pq.read_table(findings_path(str(local))).to_pylist()
    order = {path: index for index, path in enumerate(paths)}
    assert [order[row["path"]] for row in findings] == sorted(order[row["path"]] for row in findings)
    assert sum(1 for f in findings if f["source"] == "finding") == sum(
        len(report["findings"]) for report in expected.values() if report)


def test_a_batch_of_files_and_store_threads_gives_its_rows_in_input_order(
        fleet: Path, langgraph_db: Path) -> None:  # noqa: F811
    store = f"langgraph+sqlite://{langgraph_db}"
    units = [f"{store}?thread=broken", str(fleet / "001.json"), f"{store}?thread=healthy",
             str(fleet / f"{FILES:03d}-bad.json")]
    rows, findings, skipped = triage_batch(units, ["anthropic"], "strict", {})
    assert [row["path"] for row in rows] == units and skipped == 0
    assert [row["path"] for row in findings] == sorted((row["path"] for row in findings), key=units.index)
    assert {row["path"] for row in findings} >= {units[0], units[1]}  # a thread and a file with findings


def _slow_double(index: int) -> int:
    time.sleep(0.02)
    return index * 2


def _head_start_for_a_while(count: int, work: Any) -> tuple[int, dict[int, Any]]:
    """Run a head start over `count` batches for 0.3 s, stop it: how many it took, and what it handed over."""
    head = HeadStart(count, work)
    try:
        time.sleep(0.3)
        taken = head.stop()
        return taken, head.results()
    finally:
        head.close()


def test_the_head_start_delivers_exactly_the_batches_it_took() -> None:
    taken, results = _head_start_for_a_while(200, _slow_double)
    assert 0 < taken < 200  # it worked meanwhile, and left the rest
    assert results == {index: index * 2 for index in range(taken)}
    assert missing(taken, results) == []


def _dies_at_three(index: int) -> int:
    if index == 3:
        os._exit(9)  # the copy is killed mid-run (out of memory, say)
    return index


def test_batches_a_dead_head_start_took_are_missing_so_the_cluster_gets_them() -> None:
    taken, results = _head_start_for_a_while(10, _dies_at_three)
    assert taken == 4 and results == {}  # it died before handing anything over
    assert missing(taken, results) == [0, 1, 2, 3]


ORPHANED = """
import os, sys, time
from integrity._triage_head import HeadStart
def slow(index):
    time.sleep(0.05)
    return index
head = HeadStart(100_000, slow)  # an hour and a half of batches
print(head.pid, flush=True)
time.sleep(0.3)
os.kill(os.getpid(), 9)  # the run is killed outright: nobody will stop the copy or read what it did
"""


def test_a_head_start_whose_run_was_killed_stops_taking_batches() -> None:
    run = subprocess.Popen([sys.executable, "-c", ORPHANED], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert run.stdout is not None
    copy = int(run.stdout.readline())
    run.wait(timeout=30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{copy}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):  # exited, not yet reaped by init
                    break
        except FileNotFoundError:  # exited and reaped
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the head start went on triaging for a run that no longer exists")


def test_store_threads_and_files_from_the_command_line_are_the_scheduler_runs_table(
        fleet: Path, langgraph_db: Path, cluster: str, tmp_path: Path) -> None:  # noqa: F811
    inputs = [f"langgraph+sqlite://{langgraph_db}", str(fleet / "001.json"), str(fleet / "002.json")]
    scheduled = tmp_path / "scheduled.parquet"
    run_triage(inputs, str(scheduled), scheduler=cluster, batch_files=1, progress=None)
    command = tmp_path / "command.parquet"  # the head start reads the store's threads in its copy
    done = subprocess.run([sys.executable, "-m", "integrity", "triage", *inputs, "--out", str(command),
                           "--workers", "1"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _tables(command) == _tables(scheduled)
    paths = [row["path"] for row in pq.read_table(command).to_pylist()]
    assert len(paths) == 4 and paths == sorted(paths) and any("thread=broken" in path for path in paths)


def test_stopping_a_copy_that_died_holding_the_lock_does_not_hang() -> None:
    head = HeadStart(1000, _slow_double)
    try:
        time.sleep(0.2)
        assert head.lock.acquire(timeout=5)  # as a copy killed inside its claim would leave it: never released
        os.kill(head.pid, 9)
        started = time.monotonic()
        taken = head.stop()
        assert time.monotonic() - started < 10 and taken > 0
        assert head.results() == {}  # killed before handing anything over: the cluster gets them all
    finally:
        head.close()
