"""The lab's scenario catalogue: each fault reproduces on demand, and every pane tells the truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from integrity import is_interrupted_tool_result
from integrity.lab import SCENARIOS, describe, run_all, start_scenario
from tests.view_invariants import assert_legal_view


def lines(entries) -> list[str]:
    return [describe(entry.message) for entry in entries]


@pytest.mark.parametrize("key", sorted(SCENARIOS))
def test_every_snapshot_shows_a_legal_view_of_an_append_only_log(key: str, tmp_path: Path) -> None:
    snapshots = run_all(key, str(tmp_path))
    assert snapshots[-1].done and snapshots[-1].lesson
    assert not any(snap.lesson for snap in snapshots[:-1])
    previous = [json.dumps(entry.message, sort_keys=True) for entry in snapshots[0].durable]
    for snap in snapshots[1:]:
        assert_legal_view(snap.view, f"{key} step {snap.step}")
        bodies = [json.dumps(entry.message, sort_keys=True) for entry in snap.durable]
        assert bodies[: len(previous)] == previous, f"log rewritten at step {snap.step}"
        assert snap.new_entries == len(bodies) - len(previous)
        previous = bodies
    assert snapshots[-1].session.status == "done"


def test_scenarios_are_deterministic(tmp_path: Path) -> None:
    first = run_all("late_parallel", str(tmp_path / "one"))
    second = run_all("late_parallel", str(tmp_path / "two"))
    assert [e.message for e in first[-1].durable] == [e.message for e in second[-1].durable]


def test_the_abort_race_is_reproduced_and_repaired_without_inventing_results(tmp_path: Path) -> None:
    last = run_all("late_parallel", str(tmp_path))[-1]
    assert lines(last.durable)[:5] == [
        "user       Find the release notes and summarize them.",
        "assistant  calls a1t0c0 search, a1t0c1 fetch",
        "toolResult a1t0c0 (search) result",
        "assistant  aborted: the user pressed stop",
        "toolResult a1t0c1 (fetch) result",
    ]
    assert [describe(m) for m in last.view][2:4] == ["toolResult a1t0c0 (search) result",
                                                      "toolResult a1t0c1 (fetch) result"]
    summary = last.report.summary
    assert (summary.moved, summary.frames_dropped, summary.synthesized) == (1, 1, 0)


def test_a_crash_leaves_the_orphan_in_the_log_and_only_the_view_answers_it(tmp_path: Path) -> None:
    snapshots = run_all("crash", str(tmp_path))
    crashed = next(snap for snap in snapshots if snap.label.startswith("Worker 1 is killed"))
    assert crashed.new_entries == 0
    assert crashed.in_flight["worker 1"] == {"a1t0c1": "fetch"}
    last = snapshots[-1]
    assert not any(is_interrupted_tool_result(entry.message) for entry in last.durable)
    assert [receipt.call_id for receipt in last.report.synthesized] == ["a1t0c1"]
    assert [(a.owner, a.outcome) for a in last.attempts] == [("worker 1", "expired"), ("worker 2", "done")]


def test_a_stolen_lease_fences_the_old_worker_and_only_the_new_attempt_writes(tmp_path: Path) -> None:
    snapshots = run_all("lease_stolen", str(tmp_path))
    fenced = next(snap for snap in snapshots if snap.label == "Worker 1: fetch finishes")
    assert fenced.new_entries == 0
    assert [event.kind for event in fenced.events].count("fence_lost") == 1
    last = snapshots[-1]
    old = next(worker for worker in last.workers if worker.name == "worker 1")
    assert (old.status, old.fence_lost) == ("fenced", True)
    takeover = last.attempts[1].base_seq
    assert {entry.attempt for entry in last.durable[takeover:]} == {2}


def test_an_abort_mid_tools_writes_a_durable_receipt_that_the_view_moves(tmp_path: Path) -> None:
    last = run_all("abort_mid_tools", str(tmp_path))[-1]
    receipts = [entry.seq for entry in last.durable if is_interrupted_tool_result(entry.message)]
    assert receipts == [4]
    assert last.report.summary.synthesized == 0 and last.report.summary.moved == 1


def test_the_healthy_run_needs_no_repair(tmp_path: Path) -> None:
    last = run_all("healthy", str(tmp_path))[-1]
    assert last.report.healthy and not last.report.changed
    assert last.view == [entry.message for entry in last.durable]


def test_stepping_past_the_end_does_nothing_more(tmp_path: Path) -> None:
    run = start_scenario("healthy", str(tmp_path))
    try:
        while not run.done:
            run.step()
        count = len(run.store.entries("lab"))
        again = run.step()
        assert again.done and len(again.durable) == count
    finally:
        run.close()
    with pytest.raises(KeyError):
        start_scenario("nope")


def test_a_demo_store_holds_one_session_per_scenario_and_a_dead_worker(tmp_path: Path) -> None:
    from integrity.lab import open_store, write_demo_store

    path = tmp_path / "demo.db"
    made = write_demo_store(str(path))
    store = open_store(path, create=False)
    rows = {info.session_id: info for info in store.list_sessions()}
    assert set(rows) == set(made) == set(SCENARIOS) | {"crash-unrecovered"}
    assert all(rows[key].status == "done" for key in SCENARIOS)
    dead = rows["crash-unrecovered"]
    assert (dead.status, dead.lease_owner, dead.entries) == ("stale", "worker 1", 3)
    with pytest.raises(FileExistsError):
        write_demo_store(str(path))


@pytest.mark.parametrize("key", sorted(SCENARIOS))
def test_the_view_pane_is_exactly_what_the_runtime_would_send(key: str, tmp_path: Path) -> None:
    from integrity import repair_orphaned_tool_calls
    from integrity.lab import without_interrupted_frames

    for snap in run_all(key, str(tmp_path)):
        durable = [entry.message for entry in snap.durable]
        sent = repair_orphaned_tool_calls(without_interrupted_frames(durable), lambda: 0).messages
        shown = [dict(m, timestamp=0) if is_interrupted_tool_result(m) else m for m in snap.view]
        sent = [dict(m, timestamp=0) if is_interrupted_tool_result(m) else m for m in sent]
        assert shown == sent, f"step {snap.step}"
