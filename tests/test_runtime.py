"""The run loop on a virtual clock: what it writes, what the model sees, how it winds down."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import is_interrupted_tool_result
from integrity.lab import (
    CallSpec,
    Runtime,
    ScriptedModel,
    SQLiteSessionStore,
    Tool,
    Turn,
    VirtualClock,
    VirtualToolExecutor,
    open_store,
    user_message,
)
from tests.view_invariants import (
    assert_legal_view,
    provider_violations,
    view_violations,
)

TOOLS = {
    "fast": Tool("fast", 50),
    "slow": Tool("slow", 400),
    "stubborn": Tool("stubborn", 400, honors_cancel=False),
    "broken": Tool("broken", 30, fails=True),
}


def shape(messages: list[Any]) -> list[tuple]:
    """Role plus the call/result ids or stop reason: enough to compare logs exactly."""
    out = []
    for m in messages:
        if m["role"] == "assistant":
            ids = [p["id"] for p in m["content"] if p.get("type") == "toolCall"]
            out.append(("assistant", tuple(ids) or m.get("stopReason")))
        elif m["role"] == "toolResult":
            out.append(("receipt" if is_interrupted_tool_result(m) else "result", m["toolCallId"]))
        else:
            out.append((m["role"],))
    return out


class Lab:
    """One store file and one virtual clock shared by every worker of a test."""

    def __init__(self, tmp_path: Path) -> None:
        self.clock = VirtualClock()
        self.path = tmp_path / "lab.db"
        self.store = open_store(self.path, clock=self.clock)
        self.store.create_session("s", "test", [user_message("go", self.clock())])
        self.lost: list[str] = []

    def worker(self, owner: str, turns: list[Turn], **options: Any) -> Runtime:
        store = SQLiteSessionStore(self.path, clock=self.clock)
        runtime = Runtime(store, "s", ScriptedModel(turns), TOOLS, owner=owner,
                          executor=VirtualToolExecutor(self.clock), clock=self.clock,
                          on_fence_lost=lambda: self.lost.append(owner), **options)
        runtime.start()
        return runtime

    def log(self) -> list[Any]:
        return self.store.load_transcript("s")


def two_calls(first: str = "fast", second: str = "slow") -> Turn:
    return Turn((CallSpec(first), CallSpec(second)))


def step_until(runtime: Runtime, predicate) -> None:
    for _ in range(100):
        if predicate():
            return
        runtime.step()
    raise AssertionError("condition never reached")


def test_a_healthy_run_records_every_step_and_the_model_always_sees_legal_context(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    runtime = lab.worker("w1", [two_calls(), Turn((CallSpec("broken"),)), Turn(text="ok")])
    assert runtime.run() == "done"
    assert shape(lab.log()) == [
        ("user",),
        ("assistant", ("a1t0c0", "a1t0c1")), ("result", "a1t0c0"), ("result", "a1t0c1"),
        ("assistant", ("a1t1c0",)), ("result", "a1t1c0"),
        ("assistant", "stop"),
    ]
    failed = lab.log()[5]
    assert failed["isError"] is True and not is_interrupted_tool_result(failed)
    assert len(runtime.model.contexts) == 3
    for context in runtime.model.contexts:
        assert_legal_view(context, providers=True)
    assert runtime.in_flight == {}
    assert lab.store.get_session("s").status == "done"
    assert lab.lost == []


def test_in_flight_map_follows_durable_appends(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    runtime = lab.worker("w1", [two_calls()])
    runtime.step()  # model turn: frame appended, both calls in flight
    assert sorted(runtime.in_flight) == ["a1t0c0", "a1t0c1"]
    runtime.step()  # the fast call finishes
    assert sorted(runtime.in_flight) == ["a1t0c1"]
    runtime.step()
    assert runtime.in_flight == {}


def test_resume_hands_the_model_a_repaired_view_and_leaves_the_log_untouched(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    first = lab.worker("w1", [two_calls()], lease_ttl_ms=1000)
    first.step()
    first.step()  # fast result recorded, slow still running
    first.crash()
    before = [json.dumps(m, sort_keys=True) for m in lab.log()]
    lab.clock.advance(1000)  # the dead worker's lease runs out
    second = lab.worker("w2", [two_calls(), two_calls(), Turn(text="done")])
    assert second.lease.attempt == 2
    second.step()
    first_view = second.model.contexts[0]
    assert shape(first_view) == [("user",), ("assistant", ("a1t0c0", "a1t0c1")), ("result", "a1t0c0"),
                                 ("receipt", "a1t0c1")]
    assert second.in_flight.keys() == {"a2t1c0", "a2t1c1"}  # never the dead worker's calls
    assert second.run() == "done"
    after = lab.log()
    assert [json.dumps(m, sort_keys=True) for m in after[: len(before)]] == before
    assert not any(is_interrupted_tool_result(m) for m in after)  # synthesized only in views
    for context in second.model.contexts:
        assert_legal_view(context, providers=True)


def test_cancel_while_tools_run_writes_receipts_for_what_was_in_flight(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    runtime = lab.worker("w1", [Turn((CallSpec("fast"), CallSpec("slow"), CallSpec("slow")))])
    runtime.step()
    runtime.step()
    runtime.cancel("user pressed stop")
    assert runtime.run() == "aborted"
    assert shape(lab.log()) == [
        ("user",), ("assistant", ("a1t0c0", "a1t0c1", "a1t0c2")), ("result", "a1t0c0"),
        ("assistant", "aborted"), ("receipt", "a1t0c1"), ("receipt", "a1t0c2"),
    ]
    assert view_violations(lab.log()) != []  # the durable order itself is not provider-legal
    assert_legal_view(runtime.model_view())
    assert lab.store.get_session("s").status == "aborted"
    assert lab.lost == []


def test_a_parallel_tool_finishing_after_the_abort_lands_after_the_abort_frame(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    runtime = lab.worker("w1", [two_calls("fast", "stubborn")], abort_grace_ms=1000)
    runtime.step()
    runtime.step()
    runtime.cancel()
    assert runtime.run() == "aborted"
    # The race in the reference's own comment, reproduced in the durable log...
    assert shape(lab.log()) == [
        ("user",), ("assistant", ("a1t0c0", "a1t0c1")), ("result", "a1t0c0"),
        ("assistant", "aborted"), ("result", "a1t0c1"),
    ]
    # ...and the view moves the late result back and drops the abort frame.
    assert shape(runtime.model_view()) == [
        ("user",), ("assistant", ("a1t0c0", "a1t0c1")), ("result", "a1t0c0"), ("result", "a1t0c1"),
    ]


def test_a_tool_later_than_the_abort_grace_gets_a_receipt_and_its_result_is_dropped(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    runtime = lab.worker("w1", [two_calls("fast", "stubborn")], abort_grace_ms=100)
    runtime.step()
    runtime.step()
    runtime.cancel()
    assert runtime.run() == "aborted"
    assert shape(lab.log())[-2:] == [("assistant", "aborted"), ("receipt", "a1t0c1")]


def test_shutdown_settles_in_flight_calls_and_leaves_the_session_resumable(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    runtime = lab.worker("w1", [two_calls(), Turn(text="done")])
    runtime.step()
    runtime.shutdown()
    assert runtime.run() == "idle"
    assert shape(lab.log())[-2:] == [("receipt", "a1t0c0"), ("receipt", "a1t0c1")]
    assert lab.store.get_session("s").lease_owner is None
    resumed = lab.worker("w2", [two_calls(), Turn(text="done")])
    assert resumed.lease.attempt == 2  # no steal needed: the lease was released
    assert resumed.run() == "done"


def test_a_failing_model_turn_records_an_error_frame_and_fails_the_session(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    model_turns = [two_calls(), Turn(text="done")]
    runtime = lab.worker("w1", model_turns)
    runtime.model.fail_turns = {1}
    assert runtime.run() == "failed"
    assert shape(lab.log())[-1] == ("assistant", "error")
    assert "scripted model failure" in lab.log()[-1]["errorMessage"]
    assert lab.store.get_session("s").status == "failed"


def test_a_stolen_lease_fences_the_old_worker_which_reports_it_once(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    old = lab.worker("w1", [two_calls(), Turn(text="done")])
    old.step()
    old.step()
    thief = lab.worker("w2", [two_calls(), Turn(text="done")], steal=True)
    assert old.run() == "fenced"
    assert lab.lost == ["w1"]
    assert old.fence_lost
    kinds = [event.kind for event in old.events]
    assert kinds.count("fence_lost") == 1 and "refused" in kinds
    assert thief.run() == "done"
    entries = lab.store.entries("s")
    attempts = [entry.attempt for entry in entries]
    assert attempts == sorted(attempts)  # nothing from attempt 1 after attempt 2 began
    base = lab.store.attempts("s")[1].base_seq
    assert all(entry.attempt == 2 for entry in entries[base:])
    assert_legal_view(thief.model_view())


def test_a_stalled_worker_whose_lease_expires_mid_tool_is_fenced(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    stalled = lab.worker("w1", [two_calls()], lease_ttl_ms=200, heartbeat_ms=None)
    assert stalled.run() == "fenced"
    assert lab.lost == ["w1"]
    assert shape(lab.log()) == [("user",), ("assistant", ("a1t0c0", "a1t0c1")), ("result", "a1t0c0")]


def test_heartbeats_keep_a_slow_tool_inside_the_lease(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    runtime = lab.worker("w1", [Turn((CallSpec("slow", {"delay_ms": 2000}),)), Turn(text="ok")], lease_ttl_ms=300)
    assert runtime.run() == "done"
    assert any(event.kind == "heartbeat" for event in runtime.events)
    assert lab.lost == []


@pytest.mark.parametrize(
    "messages, fragment",
    [
        ([{"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "f"}]}], "answered 0 times"),
        ([{"role": "toolResult", "toolCallId": "x"}], "not right after its frame"),
        ([{"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "f"},
                                            {"type": "toolCall", "id": "b", "name": "f"}]},
          {"role": "toolResult", "toolCallId": "b"}, {"role": "toolResult", "toolCallId": "a"}], "in call order"),
        ([{"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "f"}]},
          {"role": "toolResult", "toolCallId": "a"}, {"role": "toolResult", "toolCallId": "a"}], "answered 2 times"),
        ([{"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "f"}]},
          {"role": "user", "content": "?"}, {"role": "toolResult", "toolCallId": "a"}], "expected ['a']"),
    ],
)
def test_the_invariant_checker_catches_each_illegal_shape(messages: list, fragment: str) -> None:
    problems = view_violations(messages)
    assert any(fragment in problem for problem in problems), problems
    with pytest.raises(AssertionError):
        assert_legal_view(messages)


def test_results_are_recorded_in_call_order_even_when_tools_finish_out_of_order(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    runtime = lab.worker("w1", [Turn((CallSpec("slow"), CallSpec("fast"))), Turn(text="ok")])
    runtime.step()
    events = runtime.step()  # fast finishes first: held, nothing written
    assert [e.kind for e in events] == ["tool_finished"]
    assert "held until a1t0c0" in events[0].text
    assert len(lab.log()) == 2
    runtime.step()  # slow finishes: both recorded, in call order
    assert shape(lab.log())[2:] == [("result", "a1t0c0"), ("result", "a1t0c1")]
    assert runtime.run() == "done"


def test_a_held_result_is_recorded_at_wind_down_instead_of_a_receipt(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    runtime = lab.worker("w1", [Turn((CallSpec("slow"), CallSpec("fast")))])
    runtime.step()
    runtime.step()  # fast finished and is held behind slow
    runtime.shutdown()
    assert runtime.run() == "idle"
    assert shape(lab.log())[2:] == [("receipt", "a1t0c0"), ("result", "a1t0c1")]
    assert_legal_view(lab.log())


def test_a_resumed_context_leaves_out_an_unfinished_abort_frame(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    first = lab.worker("w1", [two_calls(), Turn((CallSpec("fast"),)), Turn(text="ok")])
    first.step()
    first.step()
    first.step()  # both results recorded; the next step would be a model turn
    first.cancel("stopped between turns")
    assert first.run() == "aborted"
    assert shape(lab.log())[-1] == ("assistant", "aborted")  # the log keeps it...
    second = lab.worker("w2", [two_calls(), Turn((CallSpec("fast"),)), Turn(text="ok")])
    assert second.run() == "done"
    sent = second.model.contexts[0]
    assert shape(sent)[-1] == ("result", "a1t0c1")  # ...the model is not sent it
    for context in second.model.contexts:
        assert_legal_view(context, providers=True)
    unfiltered = lab.log()[:7]  # ..., aborted frame, next frame, its result: what a naive resume sends
    assert shape(unfiltered)[4:6] == [("assistant", "aborted"), ("assistant", ("a2t1c0",))]
    assert view_violations(unfiltered) == []  # the tool-call invariants alone do not catch it
    assert provider_violations(unfiltered)  # providers do: two assistant turns in a row


def test_resuming_a_finished_session_does_not_call_the_model(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    assert lab.worker("w1", [Turn(text="ok")]).run() == "done"
    entries = len(lab.log())
    again = lab.worker("w2", [Turn(text="ok")])
    assert again.run() == "done"
    assert again.model.contexts == [] and len(lab.log()) == entries


def test_a_frame_with_only_an_error_message_is_interrupted_for_the_runtime(tmp_path: Path) -> None:
    """stopReason "stop" plus a non-blank errorMessage: interrupted, as views.frame_is_interrupted says.

    The runtime neither sends such a frame to the model nor counts it as a finished
    turn (nor takes it for a final answer), exactly like an aborted or error frame.
    """
    from integrity.lab import without_interrupted_frames

    clock = VirtualClock()
    cut = {"role": "assistant", "content": [{"type": "text", "text": "Let me"}], "stopReason": "stop",
           "errorMessage": "upstream connection reset", "timestamp": clock()}
    blank = dict(cut, errorMessage=" \u3000\n")  # blank by JavaScript's trim(): not interrupted
    user = user_message("go", clock())
    assert without_interrupted_frames([user, cut]) == [user]
    assert without_interrupted_frames([user, blank]) == [user, blank]

    store = open_store(tmp_path / "lab.db", clock=clock)
    store.create_session("s", "test", [user, cut])
    runtime = Runtime(store, "s", ScriptedModel([Turn(text="ok")]), TOOLS, owner="w1",
                      executor=VirtualToolExecutor(clock), clock=clock)
    runtime.start()
    assert runtime.run() == "done"  # not "nothing to resume": the cut frame is no final answer
    assert [shape(context) for context in runtime.model.contexts] == [[("user",)]]
    assert shape(store.load_transcript("s")) == [("user",), ("assistant", "stop"), ("assistant", "stop")]
    assert store.load_transcript("s")[2]["content"] == [{"type": "text", "text": "ok"}]  # turn 0 played
