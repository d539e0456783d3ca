"""A guard that repaired a request answers the next one, which only adds turns, from what it sent then.

A durable history that broke once stays broken, so each later model call would repair the same defect
again.  `HealthyMemo.repeat` (integrity.guards._fast) carries the remembered answer on over the new
turns when they are plainly healthy after it.  It may only make the guard faster: on generated
histories in every native format, for every target the quick pass serves and two it does not (Bedrock's
role rule and Mistral's ids refuse turns the quick pass takes: no repair is remembered for them), a guard
primed with an earlier request must send, for a later one, exactly what a fresh guard sends.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_guard_fast import FORMATS, Turn, loop, render, turns

from integrity.guards._core import RequestGuard
from integrity.guards._fast import FAST_TARGETS, HealthyMemo


def guarded(guard: RequestGuard, memo: HealthyMemo | None, entries: list[Any], format: str,
            target: str | None) -> list[Any] | None:
    """What the guard sends for `entries` (dicts in `format`, read as the runtime's own objects)."""
    return guard.guard_objects(entries, format, lambda part: list(part), format, target, memo=memo)


@settings(max_examples=150, deadline=None)
@given(history=turns(), more=turns(), format=st.sampled_from(FORMATS), system=st.booleans(),
       trailing=st.booleans(), target=st.sampled_from(sorted(FAST_TARGETS | {"bedrock", "mistral"}, key=str)),
       data=st.data())
def test_a_primed_guard_sends_what_a_fresh_guard_sends(history: list[Turn], more: list[Turn], format: str,
                                                       system: bool, trailing: bool, target: str | None,
                                                       data: Any) -> None:
    entries = render(history + more, format, system, trailing)
    first = data.draw(st.integers(1, len(entries)), label="first request's length")
    later = data.draw(st.integers(first, len(entries)), label="later request's length")
    guard, memo = RequestGuard("test"), HealthyMemo()
    guarded(guard, memo, copy.deepcopy(entries[:first]), format, target)  # a runtime rebuilds equal dicts
    request = copy.deepcopy(entries[:later])
    before = copy.deepcopy(request)
    assert guarded(guard, memo, request, format, target) == guarded(RequestGuard("test"), None, request, format,
                                                                    target)
    assert request == before  # the request itself is never changed


def broken_loop(format: str) -> list[Any]:
    """An agent loop whose third exchange lost its result (a tool that raised after its call was stored)."""
    history = loop(6)
    history[2] = (history[2][0], history[2][1], history[2][2], [], "")
    return render(history, format, system=True, trailing_user=True)


@pytest.mark.parametrize("format", FORMATS)
def test_the_next_call_on_a_repaired_history_takes_the_memo(format: str) -> None:
    """The agent's next call (the broken history plus a new exchange) is answered from the memo, and the
    answer is the fresh guard's: the receipt where it was, the new turns after it."""
    entries = broken_loop(format)
    grown = entries + render([("", "", ["later_0"], ["later_0"], "done")], format, False, False)[1:]
    guard, memo = RequestGuard("test"), HealthyMemo()
    first = guarded(guard, memo, entries, format, "anthropic")
    assert first is not None and memo.repairs
    again = guarded(guard, memo, grown, format, "anthropic")
    assert memo.repeated == 1
    assert again == guarded(RequestGuard("test"), None, grown, format, "anthropic")
    assert again is not None and again[:len(first)] == first and again[len(first):] == grown[len(entries):]


def test_a_later_turn_reusing_an_id_of_the_repaired_part_is_checked_again() -> None:
    """A new call reusing the id of a result the repair dropped (a stray) is not taken from the memo."""
    entries = render(loop(3), "openai-chat", system=True, trailing_user=True)
    stray = {"role": "tool", "tool_call_id": "reused", "content": "x"}
    broken = [*entries[:-1], stray, entries[-1]]
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "reused", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}
    grown = [*broken, call, {"role": "tool", "tool_call_id": "reused", "content": "y"}]
    guard, memo = RequestGuard("test"), HealthyMemo()
    assert guarded(guard, memo, broken, "openai-chat", "anthropic") is not None
    assert guarded(guard, memo, grown, "openai-chat", "anthropic") == guarded(
        RequestGuard("test"), None, grown, "openai-chat", "anthropic")
    assert memo.repeated == 0


def test_each_request_answered_from_the_memo_is_reported(caplog: Any) -> None:
    """The memo saves the work, not the report: every request that needs repair gets its log line and its
    on_report call, with its own message counts."""
    reports: list[Any] = []
    guard, memo = RequestGuard("test", on_report=reports.append), HealthyMemo()
    entries = broken_loop("openai-chat")
    grown = entries + [{"role": "assistant", "content": "done"}]
    with caplog.at_level(logging.INFO, logger="integrity.guards"):
        guarded(guard, memo, entries, "openai-chat", None)
        guarded(guard, memo, grown, "openai-chat", None)
    assert memo.repeated == 1
    assert [(r.before, r.after, r.applied) for r in reports] == [(len(entries), len(entries) + 1, True),
                                                                 (len(grown), len(grown) + 1, True)]
    assert reports[0].counts == reports[1].counts and reports[0].counts
    assert len([r for r in caplog.records if "integrity guard [test]" in r.getMessage()]) == 2


def test_mode_raise_raises_for_a_request_answered_from_the_memo() -> None:
    from integrity.guards import ToolCallIntegrityError

    guard, memo = RequestGuard("test", mode="raise"), HealthyMemo()
    entries = broken_loop("anthropic")
    for request in (entries, entries + [{"role": "assistant", "content": "done"}]):
        with pytest.raises(ToolCallIntegrityError):
            guarded(guard, memo, request, "anthropic", "anthropic")


@pytest.mark.parametrize("target", ["bedrock", "mistral"])
@pytest.mark.parametrize("format", FORMATS)
def test_no_repair_is_remembered_toward_a_target_the_quick_pass_does_not_serve(format: str, target: str) -> None:
    """A tool raised after its call was stored, then the user wrote again: the second request's new turn is
    plainly healthy by the quick pass's rules, but Bedrock refuses a results turn followed by a user turn
    (the fresh repair puts an assistant turn between) and Mistral refuses the ids.  A guard that repaired the
    first request must not carry its answer on over that turn (found by an adversarial review: it sent
    requests Bedrock and Mistral reject)."""
    history = loop(3)
    history[-1] = (history[-1][0], history[-1][1], history[-1][2], [], "")  # the last call left dangling
    whole = render(history, format, system=False, trailing_user=True)
    first = whole[:-1]  # up to the dangling call
    guard, memo = RequestGuard("test"), HealthyMemo()
    guarded(guard, memo, copy.deepcopy(first), format, target)
    assert memo.repeated == 0 and not memo.repairs
    request = copy.deepcopy(whole)
    assert guarded(guard, memo, request, format, target) == guarded(RequestGuard("test"), None, request, format,
                                                                    target)


def test_a_request_cut_between_two_calls_of_one_turn_is_not_carried_on() -> None:
    """Found by Hypothesis: a Responses request cut after the first of a turn's two calls was repaired (a receipt
    after that call) and remembered; the next request went on with the turn's second call and its output. Carried
    on from the answer, the second call started a turn of its own after the receipt; read whole, the two calls are
    one turn and the receipt comes after both. The guard reads such a request whole, as a fresh guard does."""
    question = {"type": "message", "role": "user", "content": "go"}
    first, second = ({"type": "function_call", "call_id": c, "name": "lookup", "arguments": "{}"}
                     for c in ("call_a", "call_b"))
    output = {"type": "function_call_output", "call_id": "call_b", "output": "x"}
    guard, memo = RequestGuard("test"), HealthyMemo()
    guarded(guard, memo, [question, first], "openai-responses", None)
    later = [question, first, second, output]
    sent = guarded(guard, memo, copy.deepcopy(later), "openai-responses", None)
    assert sent == guarded(RequestGuard("test"), None, copy.deepcopy(later), "openai-responses", None)
    assert sent is not None and [item["type"] for item in sent][:3] == ["message", "function_call", "function_call"]
