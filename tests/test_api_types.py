"""The Python API takes only a list of message dicts, and its view never reaches back into the input.

Every public entry point that takes messages raises TypeError, naming the first
bad element, for anything else (a string used to be "healthy: 5 messages"; an
envelope dict hid its orphan).  The view shares objects with the input only
where it carries a durable message unchanged (the very same dict); every message
it changes is a copy that can be mutated freely.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

import integrity
from integrity import Transcript, analyze, repair_with_report, view_from_report


def user(text: str = "go") -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def frame(*ids: Any) -> dict[str, Any]:
    return {"role": "assistant", "stopReason": "toolUse", "timestamp": 2,
            "content": [{"type": "toolCall", "id": i, "name": "grep", "arguments": {"q": {"deep": [1, 2]}}}
                        for i in ids]}


def result(call_id: Any) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "grep", "isError": False, "timestamp": 3,
            "content": [{"type": "text", "text": "ok"}], "details": {"lines": [1]}}


MESSAGES = [user(), frame("A"), result("A")]


def _report_view(messages: Any) -> Any:
    return view_from_report(repair_with_report(MESSAGES)[1], messages)


ENTRY_POINTS: dict[str, Callable[[Any], Any]] = {
    "repair_orphaned_tool_calls": integrity.repair_orphaned_tool_calls,
    "orphaned_tool_calls": integrity.orphaned_tool_calls,
    "repair_with_report": integrity.repair_with_report,
    "validate": lambda messages: integrity.validate(messages, "anthropic"),
    "view_from_report": _report_view,
}

NOT_A_LIST: dict[str, Any] = {
    "string": "hello",
    "bytes": b'[{"role": "user", "content": "x"}]',
    "none": None,
    "tuple": tuple(MESSAGES),
    "one-message": MESSAGES[0],
    "number": 5,
}


@pytest.mark.parametrize("value", sorted(NOT_A_LIST))
@pytest.mark.parametrize("function", sorted(ENTRY_POINTS))
def test_anything_but_a_list_is_a_type_error(function: str, value: str) -> None:
    with pytest.raises(TypeError, match=rf"{function}\(\) takes a list of message dicts, got "
                                        rf"{type(NOT_A_LIST[value]).__name__}"):
        ENTRY_POINTS[function](NOT_A_LIST[value])


@pytest.mark.parametrize("function", sorted(ENTRY_POINTS))
def test_an_envelope_gets_a_hint_to_pass_its_messages(function: str) -> None:
    envelope = {"model": "m", "messages": [user(), frame("A")]}  # the orphan it used to hide
    with pytest.raises(TypeError, match=r"pass its \['messages'\] list"):
        ENTRY_POINTS[function](envelope)


@pytest.mark.parametrize("function", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("bad", [5, "text", None, ["a", "list"]], ids=["int", "str", "none", "list"])
def test_the_first_element_that_is_not_a_message_is_named(function: str, bad: Any) -> None:
    messages = [user(), bad, frame("A"), 7]
    with pytest.raises(TypeError, match=rf"messages\[1\] is {type(bad).__name__} .*not a message dict"):
        ENTRY_POINTS[function](messages)


def test_analyze_takes_a_transcript_of_message_dicts() -> None:
    with pytest.raises(TypeError, match=r"analyze\(\) takes a Transcript, got list.*Transcript\(messages\)"):
        analyze(MESSAGES)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"messages\[0\] is str"):
        analyze(Transcript(["hello"]))
    with pytest.raises(TypeError, match=r"got dict; it looks like a request envelope"):
        analyze(Transcript({"messages": MESSAGES}))  # type: ignore[arg-type]


def test_a_list_of_message_dicts_still_works() -> None:
    assert integrity.repair_orphaned_tool_calls(MESSAGES).messages is MESSAGES
    assert integrity.orphaned_tool_calls([user(), frame("A")]) == [integrity.PendingToolCall("A", "grep")]
    assert repair_with_report([])[1].healthy


# ---- the view never shares a mutable object with the input it changed -----------------------------


def _scribble(value: Any) -> None:
    """Change every dict and list inside a view message (arguments, content, details...)."""
    if isinstance(value, dict):
        for inner in list(value.values()):
            _scribble(inner)
        value["scribbled"] = True
    elif isinstance(value, list):
        for inner in list(value):
            _scribble(inner)
        value.append("scribbled")


CHANGED_VIEWS = {
    # a reused id: the second frame and its result are renamed copies
    "renamed": ([user(), frame("A"), result("A"), user("again"), frame("A"), result("A")], None),
    # a numeric id: the frame and its result are sent with the id as a string
    "numeric": ([user(), frame(1), result(1)], None),
    # results split from their frame, an orphan: moved results and a synthesized receipt
    "moved": ([user(), frame("A", "B"), result("B"), user("pause"), result("A"), frame("C"), user("x")], None),
    # Bedrock wants one message per turn: consecutive user messages are merged (a copy)
    "merged": ([user(), user("more"), frame("A"), result("A"), user("next"), user("and more")], "bedrock"),
}


@pytest.mark.parametrize("case", sorted(CHANGED_VIEWS))
def test_mutating_changed_view_messages_leaves_the_input_unchanged(case: str) -> None:
    messages, provider = CHANGED_VIEWS[case]
    messages = copy.deepcopy(messages)
    snapshot = copy.deepcopy(messages)
    analysis = analyze(Transcript(messages), provider=provider)
    durable = {id(message) for message in messages}
    changed = [message for message in analysis.view if id(message) not in durable]
    assert changed, "the case must make the view change some message"
    # unchanged messages are the input objects themselves, exactly where the report says so
    for entry, message in zip(analysis.report.view, analysis.view, strict=True):
        if entry.source == "durable" and not entry.ids:
            assert message is messages[entry.index]
        else:
            assert id(message) not in durable
    for message in changed:
        _scribble(message)
    assert messages == snapshot
    assert json.dumps(messages) == json.dumps(snapshot)


def test_repair_with_report_view_is_independent_where_it_changed() -> None:
    messages = [user(), frame("A"), result("A"), user("again"), frame("A"), result("A")]
    snapshot = copy.deepcopy(messages)
    repair, _ = repair_with_report(messages)
    renamed = [m for m in repair.messages if all(m is not d for d in messages)]
    assert len(renamed) == 2
    renamed[0]["content"][0]["arguments"]["q"]["deep"].append(3)  # the arguments dict of a renamed frame
    renamed[1]["details"]["lines"].clear()
    assert messages == snapshot
