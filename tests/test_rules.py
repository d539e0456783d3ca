"""Named tests for each rule of the reference semantics (issue 2, rules 1-7), quirks included."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from integrity import (
    LeaseLostError,
    PendingToolCall,
    ToolCallRepair,
    append_interrupted_tool_call_results,
    interrupted_tool_result,
    is_interrupted_tool_result,
    orphaned_tool_calls,
    repair_orphaned_tool_calls,
    track_tool_call_message,
    with_tool_call_integrity_repair,
)

TEXT = '{"ok":false,"error":"interrupted","message":"This tool call was interrupted before a result was recorded."}'


# ---------------------------------------------------------------- builders


def user(text: str = "go", ts: int = 1) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": ts}


def call(call_id: Any, name: Any = "tool") -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {}}


def frame(*parts: Any, stop: str = "toolUse", **extra: Any) -> dict[str, Any]:
    content = [part if isinstance(part, dict) else call(part) for part in parts]
    return {"role": "assistant", "content": content, "stopReason": stop, "timestamp": 2, **extra}


def text_frame(stop: str = "stop", **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "stopReason": stop, "timestamp": 2,
            **extra}


def result(call_id: Any, name: str = "tool", text: str = "ok", **extra: Any) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 3, **extra}


def receipt(call_id: str, name: str = "tool", ts: int = 0) -> dict[str, Any]:
    return interrupted_tool_result(PendingToolCall(call_id, name), ts)


def zero() -> int:
    return 0


def repair(messages: list[Any], now: Any = zero) -> ToolCallRepair:
    """Repair and check the object-level guarantees every repair must keep."""
    snapshot = copy.deepcopy(messages)
    outcome = repair_orphaned_tool_calls(messages, now=now)
    assert messages == snapshot, "the input was mutated"
    originals = {id(m) for m in messages}
    for message in outcome.messages:
        if id(message) not in originals:
            assert is_interrupted_tool_result(message)
    return outcome


def same_objects(actual: list[Any], expected: list[Any]) -> bool:
    return len(actual) == len(expected) and all(a is e for a, e in zip(actual, expected, strict=True))


# ---------------------------------------------------------------- rule 1: what a call is


def test_rule1_only_toolcall_parts_with_string_id_and_name_are_calls() -> None:
    assistant = frame(
        call(1, "numeric_id"),
        call("no-name", None),
        call(None, "no-id"),
        {"type": "tool_use", "id": "anthropic", "name": "x"},
        {"type": "text", "text": "hello"},
        "real",
    )
    assistant["content"].append("not a dict")
    assert orphaned_tool_calls([user(), assistant]) == [PendingToolCall("real", "tool")]


def test_rule1_string_content_and_non_assistant_roles_have_no_calls() -> None:
    messages = [
        user(),
        {"role": "assistant", "content": "plain text", "stopReason": "stop"},
        {"role": "user", "content": [call("in-user")]},
        {"role": "custom", "content": [call("in-custom")]},
    ]
    assert orphaned_tool_calls(messages) == []
    assert repair(messages).messages is messages


def test_rule1_frame_whose_only_call_is_malformed_is_a_plain_frame() -> None:
    """An aborted frame holding only a non-string-id call is an interrupted frame, not a call frame."""
    broken = frame(call(7, "x"), stop="aborted")
    messages = [user(), broken, user("again"), frame("A"), user("pause")]
    outcome = repair(messages)
    assert outcome.repaired_tool_calls == ["A"]
    assert broken not in outcome.messages  # dropped as an interrupted frame once repair runs
    # With no repair needed anywhere, the same frame stays.
    healthy = [user(), broken, user("again")]
    assert repair(healthy).messages is healthy


# ---------------------------------------------------------------- rule 2: orphaned_tool_calls


def test_rule2_orphans_in_transcript_order_with_names() -> None:
    messages = [user(), frame(call("B", "b"), call("A", "a")), result("A"), user(), frame(call("C", "c"))]
    assert orphaned_tool_calls(messages) == [PendingToolCall("B", "b"), PendingToolCall("C", "c")]


def test_rule2_a_result_anywhere_answers_the_call() -> None:
    # Before the call, far after it, after a pause: the reference only asks "is there one".
    messages = [result("early"), user(), frame("early", "late"), user("pause"), user(), result("late")]
    assert orphaned_tool_calls(messages) == []


def test_rule2_result_with_non_string_id_is_not_an_answer() -> None:
    messages = [user(), frame("A"), result(None), result(1)]
    assert orphaned_tool_calls(messages) == [PendingToolCall("A", "tool")]


def test_rule2_reused_id_is_listed_per_call() -> None:
    messages = [frame(call("X", "first")), user(), frame(call("X", "second"))]
    assert orphaned_tool_calls(messages) == [PendingToolCall("X", "first"), PendingToolCall("X", "second")]


# ---------------------------------------------------------------- rule 3: the receipt


def test_rule3_interrupted_tool_result_exact_dict_and_key_order() -> None:
    got = interrupted_tool_result(PendingToolCall("call-1", "search"), 1234)
    expected = {
        "role": "toolResult",
        "toolCallId": "call-1",
        "toolName": "search",
        "content": [{"type": "text", "text": TEXT}],
        "details": {"ok": False, "error": "interrupted"},
        "isError": True,
        "timestamp": 1234,
    }
    assert got == expected
    assert json.dumps(got) == json.dumps(expected)  # key order and types too


def test_rule3_text_is_compact_json_in_reference_key_order() -> None:
    text = interrupted_tool_result(PendingToolCall("a", "b"), 0)["content"][0]["text"]
    assert text == TEXT
    assert " " not in text.split('"message"')[0]
    assert list(json.loads(text)) == ["ok", "error", "message"]


def test_rule3_receipts_are_fresh_objects() -> None:
    first = interrupted_tool_result(PendingToolCall("a", "b"), 0)
    second = interrupted_tool_result(PendingToolCall("a", "b"), 0)
    assert first == second and first is not second
    assert first["details"] is not second["details"] and first["content"] is not second["content"]


def test_rule3_default_timestamp_is_wall_clock_ms() -> None:
    import time

    before = time.time_ns() // 1_000_000
    stamp = interrupted_tool_result(PendingToolCall("a", "b"))["timestamp"]
    after = time.time_ns() // 1_000_000
    assert isinstance(stamp, int) and before <= stamp <= after


def test_rule3_is_interrupted_true_for_the_receipt_and_minimal_form() -> None:
    assert is_interrupted_tool_result(receipt("a"))
    assert is_interrupted_tool_result(
        {"role": "toolResult", "isError": True, "details": {"error": "interrupted", "ok": False}}
    )


@pytest.mark.parametrize(
    "message",
    [
        pytest.param({**receipt("a"), "details": {"ok": False, "error": "interrupted", "extra": 1}}, id="extra-key"),
        pytest.param({**receipt("a"), "details": {"ok": 0, "error": "interrupted"}}, id="ok-0"),
        pytest.param({**receipt("a"), "details": {"ok": None, "error": "interrupted"}}, id="ok-null"),
        pytest.param({**receipt("a"), "details": {"ok": False, "error": "Interrupted"}}, id="error-case"),
        pytest.param({**receipt("a"), "details": {"ok": False}}, id="missing-error"),
        pytest.param({**receipt("a"), "details": [["ok", False], ["error", "interrupted"]]}, id="details-list"),
        pytest.param({**receipt("a"), "details": None}, id="details-null"),
        pytest.param({k: v for k, v in receipt("a").items() if k != "details"}, id="no-details"),
        pytest.param({**receipt("a"), "isError": False}, id="isError-false"),
        pytest.param({**receipt("a"), "isError": 1}, id="isError-1"),
        pytest.param({**receipt("a"), "isError": "true"}, id="isError-string"),
        pytest.param({k: v for k, v in receipt("a").items() if k != "isError"}, id="no-isError"),
        pytest.param({**receipt("a"), "role": "assistant"}, id="not-a-result"),
        pytest.param([receipt("a")], id="not-a-dict"),
        pytest.param(None, id="none"),
    ],
)
def test_rule3_is_interrupted_false(message: Any) -> None:
    assert is_interrupted_tool_result(message) is False


def test_rule3_ok_false_means_boolean_false() -> None:
    # In Python 0 == False; the reference compares with ===, so ok: 0 is not a receipt.
    assert not is_interrupted_tool_result({**receipt("a"), "details": {"ok": 0.0, "error": "interrupted"}})


# ---------------------------------------------------------------- rule 4: repair


def test_rule4_healthy_transcript_returned_by_identity() -> None:
    messages = [user(), frame("A", "B"), result("A"), result("B"), text_frame(), user("next")]
    outcome = repair(messages)
    assert outcome.messages is messages
    assert outcome.repaired_tool_calls == []


def test_rule4_empty_and_callless_transcripts_unchanged() -> None:
    empty: list[Any] = []
    assert repair(empty).messages is empty
    chat = [user(), text_frame(), {"role": "system", "content": "x"}]
    assert repair(chat).messages is chat


def test_rule4_missing_result_synthesized_after_frame() -> None:
    messages = [user(), frame(call("A", "a"), call("B", "b")), result("A", "a"), user("next")]
    outcome = repair(messages, now=lambda: 77)
    assert outcome.repaired_tool_calls == ["B"]
    assert same_objects(outcome.messages[:3], messages[:3])
    assert outcome.messages[3] == receipt("B", "b", 77)
    assert outcome.messages[4] is messages[3]
    assert len(outcome.messages) == 5


def test_rule4_order_not_checked_when_run_otherwise_complete() -> None:
    messages = [user(), frame("A", "B", "C"), result("C"), result("A"), result("B"), user("next")]
    outcome = repair(messages)
    assert outcome.messages is messages
    assert outcome.repaired_tool_calls == []


def test_rule4_reordered_results_put_in_call_order_once_repair_runs() -> None:
    # The same reordered run is rewritten in call order when another defect triggers repair.
    messages = [user(), frame("A", "B"), result("B"), result("A"), user(), frame("C")]
    outcome = repair(messages)
    assert same_objects(outcome.messages[:5], [messages[0], messages[1], messages[3], messages[2], messages[4]])
    assert outcome.repaired_tool_calls == ["C"]


def test_rule4_results_moved_back_to_their_frame_across_a_pause() -> None:
    pause = user("are you there?")
    messages = [user(), frame("A"), pause, result("A"), user("next")]
    outcome = repair(messages)
    assert same_objects(outcome.messages, [messages[0], messages[1], messages[3], pause, messages[4]])
    assert outcome.repaired_tool_calls == []


def test_rule4_split_by_aborted_frame_rejoined_and_frame_dropped() -> None:
    aborted = {"role": "assistant", "content": [], "stopReason": "aborted",
               "errorMessage": "Request was aborted", "timestamp": 4}
    messages = [user(), frame("A", "B"), result("A"), aborted, result("B")]
    outcome = repair(messages)
    assert same_objects(outcome.messages, [messages[0], messages[1], messages[2], messages[4]])


def test_rule4_stray_result_left_in_place() -> None:
    stray = result("nobody")
    messages = [user(), stray, frame("A"), result("A"), user()]
    assert repair(messages).messages is messages  # a stray alone does not trigger repair
    broken = [user(), stray, frame("A"), user("pause"), result("A"), result("ghost"), frame("B")]
    outcome = repair(broken)
    assert outcome.messages[1] is stray
    assert outcome.messages[5] is broken[5]  # the other stray stays where it was relative to the rest
    ids = [m.get("toolCallId") for m in outcome.messages]
    assert ids == [None, "nobody", None, "A", None, "ghost", None, "B"]


def test_rule4_stray_inside_a_frames_run_forces_repair_but_stays() -> None:
    """An extra id in the run means repair; the stray is not owned by a call, so it stays put."""
    messages = [user(), frame("A"), result("A"), result("ghost"), user()]
    outcome = repair(messages)
    assert outcome.messages is not messages
    assert same_objects(outcome.messages, messages)
    assert outcome.repaired_tool_calls == []


def test_rule4_result_with_non_string_id_sits_in_a_run() -> None:
    """A non-string toolCallId breaks a frame's run (count mismatch) yet stays where it is."""
    odd = result(5)
    messages = [user(), frame("A"), result("A"), odd, user()]
    outcome = repair(messages)
    assert outcome.messages is not messages
    assert same_objects(outcome.messages, messages)
    # As the run's only member it is not an answer: the call gets a receipt and the odd result stays.
    messages = [user(), frame("A"), odd, user()]
    outcome = repair(messages)
    assert outcome.repaired_tool_calls == ["A"]
    assert outcome.messages[:2] == messages[:2] and outcome.messages[2] == receipt("A")
    assert outcome.messages[3] is odd and outcome.messages[4] is messages[3]


@pytest.mark.parametrize("stop", ["aborted", "length", "error"])
def test_rule4_abnormal_text_frame_dropped_anywhere_once_repair_runs(stop: str) -> None:
    early = text_frame(stop)  # far from the defect, before any call
    messages = [user(), early, user("again"), frame("A", "B"), result("A"), user(), text_frame(stop)]
    outcome = repair(messages)
    assert same_objects(outcome.messages[:4], [messages[0], messages[2], messages[3], messages[4]])
    assert outcome.messages[4] == receipt("B")
    assert same_objects(outcome.messages[5:], [messages[5]])


@pytest.mark.parametrize("stop", ["aborted", "length", "error"])
def test_rule4_abnormal_text_frame_kept_when_no_repair_runs(stop: str) -> None:
    messages = [user(), text_frame(stop), frame("A"), result("A"), text_frame(stop)]
    assert repair(messages).messages is messages


def test_rule4_frame_with_calls_is_never_dropped_even_if_aborted() -> None:
    aborted_calls = frame("A", stop="aborted", errorMessage="boom")
    messages = [user(), aborted_calls, user()]
    outcome = repair(messages)
    assert outcome.messages[1] is aborted_calls
    assert outcome.messages[2] == receipt("A")


def test_rule4_other_stop_reasons_kept() -> None:
    kept = [text_frame("stop"), text_frame("toolUse"), text_frame("refusal"),
            {"role": "assistant", "content": []}, text_frame("ABORTED")]
    messages = [user(), *kept, frame("A")]
    outcome = repair(messages)
    assert same_objects(outcome.messages[1:6], kept)


@pytest.mark.parametrize(
    ("error_message", "dropped"),
    [
        pytest.param("", False, id="empty"),
        pytest.param("   \t\n", False, id="ascii-space"),
        pytest.param("\ufeff", False, id="bom-is-blank-for-js"),
        pytest.param("\u00a0\u2028\u3000", False, id="unicode-space"),
        pytest.param("\x1c", True, id="x1c-not-blank-for-js"),
        pytest.param("\x1f", True, id="x1f-not-blank-for-js"),
        pytest.param("\x85", True, id="nel-not-blank-for-js"),
        pytest.param("\u200b", True, id="zwsp-not-blank"),
        pytest.param(" network error ", True, id="text"),
        pytest.param(None, False, id="null"),
        pytest.param(42, False, id="number"),
        pytest.param(["boom"], False, id="list"),
    ],
)
def test_rule4_error_message_non_blank_by_js_trim(error_message: Any, dropped: bool) -> None:
    target = text_frame("stop", errorMessage=error_message)
    messages = [user(), target, frame("A")]
    outcome = repair(messages)
    assert any(m is target for m in outcome.messages) is (not dropped)


def test_rule4_python_strip_disagrees_with_js_on_these() -> None:
    """The cases above only mean something because Python's strip() differs from JS trim()."""
    assert "\ufeff".strip() == "\ufeff"
    assert "\x1c".strip() == "" and "\x85".strip() == ""


def test_rule4_frame_repeating_an_id_expects_it_once() -> None:
    # The reference compares against the set of call ids: one result satisfies [A, A].
    messages = [user(), frame("A", "A"), result("A"), user()]
    assert repair(messages).messages is messages
    # Once repair runs, every call slot is answered with the first result: the same object twice.
    messages = [user(), frame("A", "A"), result("A"), user(), frame("B")]
    outcome = repair(messages)
    assert outcome.messages[2] is messages[2] and outcome.messages[3] is messages[2]
    assert outcome.repaired_tool_calls == ["B"]


def test_rule4_frame_repeating_an_unanswered_id_gets_two_receipts() -> None:
    messages = [user(), frame("A", "A")]
    outcome = repair(messages)
    assert outcome.repaired_tool_calls == ["A", "A"]
    assert outcome.messages[2] == receipt("A") and outcome.messages[3] == receipt("A")
    assert outcome.messages[2] is not outcome.messages[3]


def test_rule4_id_reused_across_frames_answered_with_first_result() -> None:
    first = result("X", text="first")
    second = result("X", text="second")
    # Both frames complete: no repair, identity.
    healthy = [user(), frame("X"), first, user(), frame("X"), second]
    assert repair(healthy).messages is healthy
    # The second use unanswered: repair runs, both frames get the first result (same object),
    # and nothing is synthesized because X has a result somewhere.
    messages = [user(), frame("X"), first, user(), frame("X"), user("pause")]
    outcome = repair(messages)
    assert outcome.repaired_tool_calls == []
    assert same_objects(outcome.messages,
                        [messages[0], messages[1], first, messages[3], messages[4], first, messages[5]])
    # Both answered, but repair runs for another reason: the second result is a duplicate and is dropped.
    messages = [user(), frame("X"), first, user(), frame("X"), second, frame("Y")]
    outcome = repair(messages)
    assert same_objects(outcome.messages[:6], [messages[0], messages[1], first, messages[3], messages[4], first])
    assert not any(m is second for m in outcome.messages)


def test_rule4_duplicates_dropped_keeping_the_first() -> None:
    first, again = result("A", text="one"), result("A", text="two")
    messages = [user(), frame("A"), first, again, user()]
    outcome = repair(messages)
    assert same_objects(outcome.messages, [messages[0], messages[1], first, messages[4]])


def test_rule4_crash_duplicate_keeps_the_durable_receipt_recorded_first() -> None:
    """A receipt written at shutdown, then the real result: the first durable result wins."""
    stored_receipt = receipt("A", ts=5)
    late = result("A", text="real")
    messages = [user(), frame("A"), stored_receipt, late, user()]
    outcome = repair(messages)
    assert same_objects(outcome.messages, [messages[0], messages[1], stored_receipt, messages[4]])
    assert outcome.repaired_tool_calls == []


def test_rule4_repaired_ids_in_frame_order_and_now_called_per_receipt() -> None:
    ticks = iter(range(100, 200))
    calls: list[int] = []

    def now() -> int:
        value = next(ticks)
        calls.append(value)
        return value

    messages = [user(), frame("B", "A"), user(), frame("C"), result("A")]
    outcome = repair(messages, now=now)
    assert outcome.repaired_tool_calls == ["B", "C"]
    receipts = [m for m in outcome.messages if is_interrupted_tool_result(m)]
    assert [r["toolCallId"] for r in receipts] == ["B", "C"]
    assert [r["timestamp"] for r in receipts] == [100, 101]
    assert calls == [100, 101]


def test_rule4_now_not_called_when_nothing_is_synthesized() -> None:
    def now() -> int:
        raise AssertionError("now() called without a receipt to stamp")

    messages = [user(), frame("A"), user(), result("A")]
    assert repair(messages, now=now).repaired_tool_calls == []
    healthy = [user(), frame("A"), result("A")]
    assert repair(healthy, now=now).messages is healthy


def test_rule4_unknown_roles_and_fields_pass_through_untouched() -> None:
    system = {"role": "system", "content": "rules", "x-extra": [1, 2]}
    custom = {"role": "compactionSummary", "summary": "...", "tokensBefore": 10}
    no_role = {"content": "hm"}
    assistant = {**frame("A"), "provider": "openai", "usage": {"input": 3}}
    messages = [system, user(), assistant, custom, no_role]
    outcome = repair(messages)
    assert same_objects(outcome.messages[:3], [system, messages[1], assistant])
    assert outcome.messages[3] == receipt("A")
    assert same_objects(outcome.messages[4:], [custom, no_role])


def test_rule4_existing_receipt_is_a_normal_result() -> None:
    stored = receipt("A", ts=9)
    messages = [user(), frame("A"), stored]
    assert repair(messages).messages is messages


def test_rule4_result_before_its_call_is_moved_after_the_frame() -> None:
    early = result("A")
    messages = [user(), early, frame("A"), user()]
    outcome = repair(messages)
    assert same_objects(outcome.messages, [messages[0], messages[2], early, messages[3]])


def test_rule4_repair_of_repaired_view_is_identity() -> None:
    messages = [user(), frame("A", "B"), user("pause"), result("B"), result("B"), text_frame("length"), frame("C")]
    view = repair(messages).messages
    again = repair(view)
    assert again.messages is view and again.repaired_tool_calls == []


# ---------------------------------------------------------------- rule 5: transform wrapper


BROKEN = [user(), frame("A")]


def test_rule5_sync_transform_output_is_repaired() -> None:
    seen: list[Any] = []

    def transform(messages: list[Any], extra: str, *, flag: bool) -> list[Any]:
        seen.append((messages, extra, flag))
        return messages + [user("added")]

    wrapped = with_tool_call_integrity_repair(transform, now=lambda: 3)
    assert wrapped.__name__ == "transform"
    out = wrapped(BROKEN, "x", flag=True)
    assert seen == [(BROKEN, "x", True)]
    assert out[:2] == BROKEN and out[2] == receipt("A", ts=3) and out[3] == user("added")


def test_rule5_repair_runs_on_the_output_not_the_input() -> None:
    healthy = [user(), frame("A"), result("A")]
    wrapped = with_tool_call_integrity_repair(lambda messages: messages + [frame("B")], now=zero)
    out = wrapped(healthy)
    assert out[-1] == receipt("B")
    # A transform that fixes its input leaves nothing to repair: its output comes back as is.
    produced = [user()]
    assert with_tool_call_integrity_repair(lambda messages: produced)(BROKEN) is produced


def test_rule5_async_transform() -> None:
    async def transform(messages: list[Any]) -> list[Any]:
        await asyncio.sleep(0)
        return list(messages)

    wrapped = with_tool_call_integrity_repair(transform, now=zero)
    assert asyncio.iscoroutinefunction(wrapped)
    out = asyncio.run(wrapped(BROKEN))
    assert out == [*BROKEN, receipt("A")]


def test_rule5_sync_function_returning_an_awaitable() -> None:
    async def later(messages: list[Any]) -> list[Any]:
        return list(messages)

    def transform(messages: list[Any]) -> Any:
        return later(messages)  # a plain function handing back a coroutine

    wrapped = with_tool_call_integrity_repair(transform, now=zero)
    pending = wrapped(BROKEN)
    assert not isinstance(pending, list)
    assert asyncio.run(pending) == [*BROKEN, receipt("A")]


def test_rule5_healthy_output_returned_by_identity() -> None:
    healthy = [user(), frame("A"), result("A")]

    async def transform(messages: list[Any]) -> list[Any]:
        return healthy

    assert with_tool_call_integrity_repair(lambda m: healthy)(BROKEN) is healthy
    assert asyncio.run(with_tool_call_integrity_repair(transform)(BROKEN)) is healthy


# ---------------------------------------------------------------- rule 6: in-flight tracking


def test_rule6_track_tool_call_message() -> None:
    in_flight: dict[str, PendingToolCall] = {}
    track_tool_call_message(in_flight, frame(call("A", "a"), call("B", "b"), call(3, "bad"), call("C", None)))
    assert in_flight == {"A": PendingToolCall("A", "a"), "B": PendingToolCall("B", "b")}
    assert list(in_flight) == ["A", "B"]
    track_tool_call_message(in_flight, result("A"))
    assert list(in_flight) == ["B"]
    for ignored in (result("unknown"), result(None), user(), text_frame("aborted"),
                    {"role": "custom", "toolCallId": "B"}, None, "B"):
        track_tool_call_message(in_flight, ignored)
    assert list(in_flight) == ["B"]
    track_tool_call_message(in_flight, frame(call("B", "renamed")))
    assert in_flight == {"B": PendingToolCall("B", "renamed")}
    track_tool_call_message(in_flight, receipt("B"))
    assert in_flight == {}


# ---------------------------------------------------------------- rule 7: appending receipts


PENDING = [PendingToolCall("A", "a"), PendingToolCall("B", "b"), PendingToolCall("C", "c")]


class Counter:
    def __init__(self, start: int = 10) -> None:
        self.value = start
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        self.value += 1
        return self.value


def never_lost() -> None:
    raise AssertionError("on_fence_lost must not be called")


def test_rule7_sync_append_one_receipt_per_call_now_per_receipt() -> None:
    written: list[Any] = []
    clock = Counter()
    assert append_interrupted_tool_call_results(PENDING, written.append, never_lost, clock) is None
    assert written == [receipt("A", "a", 11), receipt("B", "b", 12), receipt("C", "c", 13)]
    assert clock.calls == 3


def test_rule7_accepts_any_iterable_and_empty() -> None:
    written: list[Any] = []
    append_interrupted_tool_call_results(iter(PENDING[:1]), written.append, never_lost, zero)
    assert written == [receipt("A", "a")]
    append_interrupted_tool_call_results([], written.append, never_lost, zero)
    assert len(written) == 1


def test_rule7_async_append() -> None:
    written: list[Any] = []
    clock = Counter()

    async def append(message: dict[str, Any]) -> None:
        await asyncio.sleep(0)
        written.append(message)

    pending = append_interrupted_tool_call_results(PENDING, append, never_lost, clock)
    assert pending is not None and written == []
    asyncio.run(pending)  # type: ignore[arg-type]
    assert written == [receipt("A", "a", 11), receipt("B", "b", 12), receipt("C", "c", 13)]
    assert clock.calls == 3


def test_rule7_sync_append_returning_awaitables() -> None:
    written: list[Any] = []

    async def store(message: dict[str, Any]) -> None:
        written.append(message)

    pending = append_interrupted_tool_call_results(PENDING, store, never_lost, Counter())
    asyncio.run(pending)  # type: ignore[arg-type]

    written.clear()
    pending = append_interrupted_tool_call_results(PENDING, lambda message: store(message), never_lost, Counter())
    assert pending is not None
    asyncio.run(pending)
    assert [m["toolCallId"] for m in written] == ["A", "B", "C"]
    assert [m["timestamp"] for m in written] == [11, 12, 13]


def lease_direct() -> BaseException:
    return LeaseLostError("fenced")


def lease_via_cause() -> BaseException:
    outer = RuntimeError("store write failed")
    outer.__cause__ = LeaseLostError("fenced")
    return outer


def lease_via_context() -> BaseException:
    try:
        try:
            raise LeaseLostError("fenced")
        except LeaseLostError:
            raise OSError("while handling")  # noqa: B904 -- the implicit __context__ is what this builds
    except OSError as error:
        assert error.__cause__ is None
        return error


def lease_deep_in_chain() -> BaseException:
    inner = ValueError("middle")
    inner.__context__ = LeaseLostError("fenced")
    outer = RuntimeError("top")
    outer.__cause__ = inner
    return outer


def lease_in_cyclic_chain() -> BaseException:
    a, b = RuntimeError("a"), ValueError("b")
    a.__cause__ = b
    b.__cause__ = a
    b.__context__ = LeaseLostError("fenced")
    return a


def subclass_of_lease() -> BaseException:
    class Stolen(LeaseLostError):
        pass

    return Stolen("newer attempt")


LEASE_ERRORS = [lease_direct, lease_via_cause, lease_via_context, lease_deep_in_chain,
                lease_in_cyclic_chain, subclass_of_lease]


def failing_append(error_factory: Any, fail_at: int, written: list[Any]) -> Any:
    def append(message: dict[str, Any]) -> None:
        if len(written) == fail_at:
            written.append("attempt")
            raise error_factory()
        written.append(message)

    return append


@pytest.mark.parametrize("make_error", LEASE_ERRORS, ids=lambda f: f.__name__)
def test_rule7_lease_lost_sync_stops_and_reports_once(make_error: Any) -> None:
    written: list[Any] = []
    lost: list[int] = []
    outcome = append_interrupted_tool_call_results(
        PENDING, failing_append(make_error, 1, written), lambda: lost.append(1), Counter()
    )
    assert outcome is None
    assert lost == [1]
    assert written == [receipt("A", "a", 11), "attempt"]  # C was never attempted


@pytest.mark.parametrize("make_error", LEASE_ERRORS, ids=lambda f: f.__name__)
def test_rule7_lease_lost_async_stops_and_reports_once(make_error: Any) -> None:
    written: list[Any] = []
    lost: list[int] = []
    sync_append = failing_append(make_error, 1, written)

    async def append(message: dict[str, Any]) -> None:
        await asyncio.sleep(0)
        sync_append(message)

    asyncio.run(append_interrupted_tool_call_results(PENDING, append, lambda: lost.append(1), Counter()))
    assert lost == [1]
    assert written == [receipt("A", "a", 11), "attempt"]


def test_rule7_lease_lost_on_first_async_append() -> None:
    lost: list[int] = []
    attempts: list[Any] = []

    async def append(message: dict[str, Any]) -> None:
        attempts.append(message)
        raise lease_via_cause()

    asyncio.run(append_interrupted_tool_call_results(PENDING, append, lambda: lost.append(1), zero))
    assert lost == [1] and len(attempts) == 1


def test_rule7_lease_lost_from_awaitable_of_sync_append() -> None:
    lost: list[int] = []
    attempts: list[Any] = []

    async def store(message: dict[str, Any]) -> None:
        attempts.append(message)
        if len(attempts) == 2:
            raise LeaseLostError("fenced")

    pending = append_interrupted_tool_call_results(PENDING, lambda m: store(m), lambda: lost.append(1), zero)
    assert pending is not None
    asyncio.run(pending)
    assert lost == [1] and len(attempts) == 2


def cyclic_without_lease() -> BaseException:
    a, b = RuntimeError("a"), ValueError("b")
    a.__cause__ = b
    b.__context__ = a
    b.__cause__ = b
    return a


@pytest.mark.parametrize("make_error", [lambda: ValueError("disk full"), cyclic_without_lease,
                                        lambda: KeyError("x")], ids=["plain", "cyclic-chain", "keyerror"])
def test_rule7_other_errors_propagate_sync(make_error: Any) -> None:
    written: list[Any] = []
    error = make_error()
    with pytest.raises(type(error)):
        append_interrupted_tool_call_results(PENDING, failing_append(lambda: error, 1, written), never_lost, zero)
    assert written == [receipt("A", "a"), "attempt"]


@pytest.mark.parametrize("make_error", [lambda: ValueError("disk full"), cyclic_without_lease],
                         ids=["plain", "cyclic-chain"])
def test_rule7_other_errors_propagate_async(make_error: Any) -> None:
    error = make_error()

    async def append(message: dict[str, Any]) -> None:
        raise error

    with pytest.raises(type(error)):
        asyncio.run(append_interrupted_tool_call_results(PENDING, append, never_lost, zero))


def test_rule7_lease_lost_error_is_an_exception() -> None:
    assert issubclass(LeaseLostError, Exception)
