"""Faults with real OS processes, real threads, real time and one real SQLite file.

Workers are `tests/fault_worker.py` processes; every wait has a timeout and any
process still alive at the end of a test is killed by its pid.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from integrity import is_interrupted_tool_result
from integrity.lab import (
    CallSpec,
    Runtime,
    ScriptedModel,
    ThreadToolExecutor,
    Tool,
    Turn,
    open_store,
    user_message,
)
from tests.view_invariants import assert_legal_view

WORKER = Path(__file__).with_name("fault_worker.py")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


class Workers:
    """Spawns worker processes and guarantees none outlives the test."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.db = tmp_path / "sessions.db"
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Any] = []
        store = open_store(self.db)
        store.create_session("s", "fault test", [user_message("go", 1)])
        store.close()

    def spawn(self, owner: str, *args: str) -> subprocess.Popen:
        err = open(self.tmp_path / f"{owner}.err", "w")  # noqa: SIM115 - closed in cleanup()
        self.logs.append(err)
        proc = subprocess.Popen(
            [sys.executable, str(WORKER), "--db", str(self.db), "--session", "s", "--owner", owner,
             "--out", str(self.tmp_path / f"{owner}.json"), *args],
            stdout=subprocess.DEVNULL, stderr=err,
        )
        self.procs.append(proc)
        return proc

    def finish(self, proc: subprocess.Popen, owner: str, timeout: float = 20) -> dict[str, Any]:
        code = proc.wait(timeout=timeout)
        errors = (self.tmp_path / f"{owner}.err").read_text()
        assert code == 0, f"{owner} exited {code}: {errors}"
        return json.loads((self.tmp_path / f"{owner}.json").read_text())

    def cleanup(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=5)
        for log in self.logs:
            log.close()


@pytest.fixture
def workers(tmp_path: Path):
    pool = Workers(tmp_path)
    yield pool
    pool.cleanup()


def wait_for(predicate: Callable[[], bool], timeout: float = 15, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def entry_count(db: Path) -> int:
    store = open_store(db)
    try:
        info = store.get_session("s")
        return info.entries if info else 0
    finally:
        store.close()


def ids(message: dict) -> tuple:
    if message["role"] == "assistant":
        return tuple(p["id"] for p in message["content"] if p.get("type") == "toolCall") or (message["stopReason"],)
    if message["role"] == "toolResult":
        return ("receipt" if is_interrupted_tool_result(message) else "result", message["toolCallId"])
    return (message["role"],)


def test_two_processes_race_and_only_the_newest_attempt_writes(workers: Workers) -> None:
    # A is slow (10 turns of 400 ms) so it is surely mid-run when B steals; B is quick.
    first = workers.spawn("A", "--turns", "10", "--slow-ms", "400")
    wait_for(lambda: entry_count(workers.db) >= 3, what="A's first results")
    second = workers.spawn("B", "--turns", "10", "--slow-ms", "40", "--steal")
    report_b = workers.finish(second, "B")
    report_a = workers.finish(first, "A")

    assert (report_a["status"], report_a["fence_lost_calls"]) == ("fenced", 1)
    assert (report_b["status"], report_b["attempt"]) == ("done", 2)
    store = open_store(workers.db)
    entries = store.entries("s")
    base_b = store.attempts("s")[1].base_seq
    # Nothing interleaved: attempt numbers never go back, and nothing of A lands after B's claim.
    assert [e.attempt for e in entries] == sorted(e.attempt for e in entries)
    assert all(e.attempt == 2 for e in entries[base_b:])
    # Nothing lost: every successful append of either worker is in the log, verbatim, at its seq.
    by_seq = {e.seq: e.message for e in entries}
    for seq, message in report_a["appended"] + report_b["appended"]:
        assert by_seq[seq] == message
    assert len(report_a["appended"]) + len(report_b["appended"]) + 1 == len(entries)  # + the seeded prompt
    for context in report_b["contexts"]:
        assert_legal_view(context, "B's model view", providers=True)
    assert store.attempts("s")[0].outcome == "superseded"
    assert store.get_session("s").status == "done"


def test_two_processes_started_together_never_both_hold_the_lease(workers: Workers) -> None:
    script = ("--turns", "2", "--slow-ms", "100", "--claim-wait-ms", "20000")
    racers = {owner: workers.spawn(owner, *script) for owner in ("A", "B")}
    reports = {owner: workers.finish(proc, owner) for owner, proc in racers.items()}
    assert sorted(report["attempt"] for report in reports.values()) == [1, 2]
    assert all(report["status"] == "done" and report["fence_lost_calls"] == 0 for report in reports.values())
    first, second = sorted(reports, key=lambda owner: reports[owner]["attempt"])
    store = open_store(workers.db)
    attempts = store.attempts("s")
    assert [(a.owner, a.outcome) for a in attempts] == [(first, "done"), (second, "done")]
    # The second claim only happened once the first worker had released: it found a
    # finished session, called no model and wrote nothing.
    assert attempts[1].claimed_at >= attempts[0].ended_at
    assert reports[second]["contexts"] == [] and reports[second]["appended"] == []
    assert {entry.attempt for entry in store.entries("s")} == {0, 1}


def test_a_worker_killed_with_sigkill_is_resumed_from_a_readable_store(workers: Workers) -> None:
    victim = workers.spawn("A", "--turns", "3", "--slow-ms", "10000", "--ttl-ms", "800")
    wait_for(lambda: entry_count(workers.db) >= 3, what="frame and fast result")
    victim.send_signal(signal.SIGKILL)
    assert victim.wait(timeout=5) == -signal.SIGKILL

    store = open_store(workers.db)
    assert store.integrity_check() == "ok"
    before = store.load_transcript("s")
    assert [ids(m) for m in before] == [("user",), ("a1t0c0", "a1t0c1"), ("result", "a1t0c0")]
    wait_for(lambda: store.get_session("s").status == "stale", timeout=5, what="the dead lease to expire")

    heir = workers.spawn("B", "--turns", "3", "--slow-ms", "30", "--claim-wait-ms", "5000")
    report = workers.finish(heir, "B")
    assert (report["status"], report["attempt"]) == ("done", 2)
    assert [ids(m) for m in report["contexts"][0]] == [
        ("user",), ("a1t0c0", "a1t0c1"), ("result", "a1t0c0"), ("receipt", "a1t0c1"),
    ]
    for context in report["contexts"]:
        assert_legal_view(context, "resumed model view", providers=True)
    after = store.load_transcript("s")
    assert after[: len(before)] == before  # the log still shows exactly what A did...
    assert not any(is_interrupted_tool_result(m) for m in after)  # ...and nobody wrote A's receipt
    assert [(a.owner, a.outcome) for a in store.attempts("s")] == [("A", "expired"), ("B", "done")]


def test_sigkill_during_rapid_appends_leaves_no_torn_entry(workers: Workers) -> None:
    for round_number in range(2):
        writer = workers.spawn(f"W{round_number}", "--append-loop", "--entry-bytes", "200000")
        floor = entry_count(workers.db) + 5
        wait_for(lambda floor=floor: entry_count(workers.db) >= floor, what="appends")
        time.sleep(0.013 * (round_number + 1))
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=5)
        store = open_store(workers.db)
        assert store.integrity_check() == "ok"
        entries = store.entries("s")  # every body parses as JSON
        assert [e.seq for e in entries] == list(range(len(entries)))
        assert store.get_session("s").entries == len(entries)
        assert all(len(e.message["content"]) == 200000 for e in entries[1:])
        store.close()


def test_sigterm_settles_in_flight_calls_and_releases_the_session(workers: Workers) -> None:
    worker = workers.spawn("A", "--turns", "3", "--slow-ms", "10000")
    wait_for(lambda: entry_count(workers.db) >= 3, what="frame and fast result")
    worker.send_signal(signal.SIGTERM)
    report = workers.finish(worker, "A", timeout=10)
    assert report["status"] == "idle"
    store = open_store(workers.db)
    assert [ids(m) for m in store.load_transcript("s")] == [
        ("user",), ("a1t0c0", "a1t0c1"), ("result", "a1t0c0"), ("receipt", "a1t0c1"),
    ]
    info = store.get_session("s")
    assert (info.status, info.lease_owner) == ("idle", None)


# -- real threads and real time, in this process ----------------------------


def thread_worker(db: Path, owner: str, turns: list[Turn], tools: dict[str, Tool], lost: list[str],
                  **options: Any) -> Runtime:
    return Runtime(open_store(db), "s", ScriptedModel(turns), tools, owner=owner,
                   executor=ThreadToolExecutor(), poll_ms=10, on_fence_lost=lambda: lost.append(owner), **options)


def run_in_thread(runtime: Runtime) -> threading.Thread:
    thread = threading.Thread(target=runtime.run, daemon=True)
    thread.start()
    return thread


def test_lease_expiry_during_a_long_tool_fences_the_result(workers: Workers) -> None:
    tools = {"fast": Tool("fast", 10), "slow": Tool("slow", 600)}
    turn = Turn((CallSpec("fast"), CallSpec("slow")))
    lost: list[str] = []
    stalled = thread_worker(workers.db, "A", [turn], tools, lost, lease_ttl_ms=250, heartbeat_ms=None)
    assert stalled.run() == "fenced"
    assert lost == ["A"]
    store = open_store(workers.db)
    assert [ids(m) for m in store.load_transcript("s")] == [("user",), ("a1t0c0", "a1t0c1"), ("result", "a1t0c0")]

    heir = thread_worker(workers.db, "B", [turn, Turn(text="ok")], tools, lost)
    assert heir.run() == "done"
    for context in heir.model.contexts:
        assert_legal_view(context, providers=True)
    assert lost == ["A"]


def test_with_heartbeats_the_same_long_tool_keeps_its_lease(workers: Workers) -> None:
    tools = {"fast": Tool("fast", 10), "slow": Tool("slow", 600)}
    lost: list[str] = []
    runtime = thread_worker(workers.db, "A", [Turn((CallSpec("fast"), CallSpec("slow"))), Turn(text="ok")],
                            tools, lost, lease_ttl_ms=250, heartbeat_ms=60)
    assert runtime.run() == "done"
    assert lost == []


def test_parallel_tools_finishing_after_an_abort(workers: Workers) -> None:
    tools = {"fast": Tool("fast", 10), "stubborn": Tool("stubborn", 300, honors_cancel=False)}
    lost: list[str] = []
    runtime = thread_worker(workers.db, "A", [Turn((CallSpec("fast"), CallSpec("stubborn")))], tools, lost,
                            abort_grace_ms=3000)
    thread = run_in_thread(runtime)
    wait_for(lambda: entry_count(workers.db) >= 3, what="the fast result")
    runtime.cancel("user pressed stop")
    thread.join(timeout=10)
    assert not thread.is_alive() and runtime.final_status == "aborted"
    store = open_store(workers.db)
    log = store.load_transcript("s")
    assert [ids(m) for m in log] == [
        ("user",), ("a1t0c0", "a1t0c1"), ("result", "a1t0c0"), ("aborted",), ("result", "a1t0c1"),
    ]
    resumed = thread_worker(workers.db, "B", [Turn((CallSpec("fast"),)), Turn(text="ok")], tools, lost)
    resumed.start()
    view = resumed.model_view()
    assert [ids(m) for m in view] == [("user",), ("a1t0c0", "a1t0c1"), ("result", "a1t0c0"), ("result", "a1t0c1")]
    assert view[3] == log[4]  # the late result itself, moved back; nothing synthesized


def test_cancellation_while_tools_run_does_not_wait_for_them(workers: Workers) -> None:
    tools = {"slow": Tool("slow", 10_000)}
    lost: list[str] = []
    runtime = thread_worker(workers.db, "A", [Turn((CallSpec("slow"), CallSpec("slow")))], tools, lost)
    thread = run_in_thread(runtime)
    wait_for(lambda: entry_count(workers.db) >= 2, what="the tool frame")
    started = time.monotonic()
    runtime.cancel()
    thread.join(timeout=10)
    assert time.monotonic() - started < 3
    assert runtime.final_status == "aborted"
    store = open_store(workers.db)
    assert [ids(m) for m in store.load_transcript("s")] == [
        ("user",), ("a1t0c0", "a1t0c1"), ("aborted",), ("receipt", "a1t0c0"), ("receipt", "a1t0c1"),
    ]
    assert_legal_view(runtime.model_view())
    assert lost == []
