"""A process that runs other threads is never forked (integrity._bulk.forking): the command's pool,
triage's head start and its local cluster's workers all do their work another way there,
and give the same answers.

A forked copy keeps whatever lock another thread held at the fork, held by nobody, and waits for it
forever when it needs it: a test run that had started a Dask cluster of its own forked `check`'s pool and
triage's workers from beside the cluster's threads, and once hung until CI's deadline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from integrity._bulk.forking import fork_is_safe
from integrity._triage_head import HeadStart
from integrity.triage import _local_settings
from tests.cli_inprocess import REPO, run

SAMPLES = sorted(str(path) for path in (REPO / "sample_transcripts").glob("*.json*"))
FORK_METHOD = "distributed.worker.multiprocessing-method"


@pytest.fixture
def another_thread() -> Iterator[None]:
    """A second thread in this process for the test's length (as a test runner's Dask cluster, or the
    inspector's server, would have)."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="another thread", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@pytest.fixture
def no_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused() -> int:
        raise AssertionError("forked beside another thread")

    monkeypatch.setattr(os, "fork", refused)


def test_beside_another_thread_no_fork_is_safe(another_thread: None) -> None:
    assert threading.active_count() > 1
    assert not fork_is_safe()
    assert not HeadStart.possible()


def test_check_beside_another_thread_works_here_and_says_what_its_pool_says(another_thread: None,
                                                                             no_fork: None) -> None:
    pooled = subprocess.run([sys.executable, "-m", "integrity", "check", "--json", "--jobs", "2", *SAMPLES],
                            cwd=REPO, capture_output=True, timeout=300)  # a process of its own: it forks
    here = run("check", "--json", "--jobs", "2", *SAMPLES)
    assert len(SAMPLES) > 2
    assert here.code == pooled.returncode
    assert _stamped_now(here.stdout) == _stamped_now(pooled.stdout)


def _stamped_now(report: bytes) -> Any:
    """The reports, but for when each synthesized receipt or turn was made (the time of the run)."""
    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: "now" if key == "timestamp" and node.get("source") in ("synthesized", "turn") else walk(value)
                    for key, value in node.items()}
        return [walk(item) for item in node] if isinstance(node, list) else node

    return walk(json.loads(report))


def test_the_local_cluster_forks_its_workers_only_from_a_process_alone(another_thread: None) -> None:
    assert FORK_METHOD not in _local_settings()  # here: Dask's own way (spawn)
    alone = subprocess.run([sys.executable, "-c", "from integrity.triage import _local_settings; "
                            f"print(_local_settings().get({FORK_METHOD!r}))"],
                           cwd=REPO, capture_output=True, text=True, timeout=120, check=True)
    expected = "fork" if sys.platform.startswith("linux") else "None"
    assert alone.stdout.strip() == expected


def test_the_command_line_alone_still_forks_its_pool(tmp_path: Path) -> None:
    """The command's own process runs no thread, so it keeps its forked workers (the work is done by
    processes other than this one)."""
    probe = ("import os, sys; from integrity._bulk.forking import fork_is_safe; "
             "from integrity.cli_pool import in_order; print(fork_is_safe(), "
             "bool(set(in_order(lambda _: os.getpid(), list(range(8)), 2)) - {os.getpid()}))")
    said = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120,
                          check=True)
    assert said.stdout.split() == ["True", "True"]
