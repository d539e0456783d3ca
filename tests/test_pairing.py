"""The strict policy's bulk paths give what its one-by-one walk gives.

integrity.repair.pairing pairs a transcript whose every call id is used once by C-level maps over all its
loose results at once; strict._pair walks them one by one and stays the definition.  On generated
transcripts with every defect kind (the bench generator's, at every defect rate, and drawn ones where an id
has any number of results, real or receipts, before or after its call, among strays, pauses and interrupted
frames) both give the same answers, drops and notes, and the whole plan is the same either way.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity._bulk.fast_read import read_fast
from integrity.repair import strict
from integrity.repair.pairing import CleanTurns, pair_unique
from integrity.repair.plan import Plan
from integrity.repair.views import LightTranscript, light_transcript

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
try:
    import generate
finally:
    sys.path.pop(0)


def _paired(light: LightTranscript, bulk: bool) -> tuple[Any, ...] | None:
    """What pairing records (answers, strays, duplicates, notes), by the bulk path or by the walk."""
    assert light.clean is not None
    clean, first_frame, loose = light.clean
    plan = Plan("strict")
    turns = CleanTurns(light, clean, first_frame)
    answers = pair_unique(light, plan, turns, loose) if bulk else strict._pair(light, plan, turns, loose)
    if answers is None:
        return None
    return answers, plan.dropped_strays, plan.dropped_duplicates, plan.notes


def _walked_plan(light: LightTranscript, **options: Any) -> Plan:
    """plan_strict with every pairing by the walk."""
    original = strict.pair_unique
    strict.pair_unique = lambda *args: None
    try:
        return strict.plan_strict(light, **options)
    finally:
        strict.pair_unique = original


def _same_plans(light: LightTranscript) -> None:
    for options in ({}, {"stretches": True}, {"provider": "anthropic", "stretches": True}):
        bulk = strict.plan_strict(light, **options)
        walked = _walked_plan(light, **options)
        for field in ("changed", "order", "repaired_tool_calls", "dropped_frames", "dropped_strays",
                      "dropped_duplicates", "notes", "merged", "settled"):
            assert getattr(bulk, field) == getattr(walked, field), field


def _assert_agree(messages: list[dict[str, Any]], expect_bulk: bool = True) -> None:
    for light in (light_transcript(messages), _fast_light(messages)):
        walked = _paired(light, bulk=False)
        bulk = _paired(light, bulk=True)
        if bulk is None:
            assert not expect_bulk
            continue
        assert bulk == walked
        _same_plans(light)
    _same_plans(light_transcript(messages, clean=False))  # the planner finds the clean turns itself (_clean_frames)


def _fast_light(messages: list[dict[str, Any]]) -> LightTranscript:
    fast = read_fast(json.dumps(messages).encode(), "t.json")
    assert fast is not None
    return fast.light


@pytest.mark.parametrize("rate", [0.08, 0.5, 1.0])
@pytest.mark.parametrize("seed", range(4))
def test_generated_transcripts_pair_in_bulk_as_the_walk_does(seed: int, rate: float) -> None:
    _assert_agree(list(generate.messages(1500, seed=seed, defect_rate=rate)))


def _call(call_id: str, tool: str) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": tool, "arguments": {}}


def _result(call_id: str, tool: str, receipt: bool) -> dict[str, Any]:
    message = {"role": "toolResult", "toolCallId": call_id, "toolName": tool,
               "content": [{"type": "text", "text": "x"}], "isError": receipt}
    if receipt:
        message["details"] = {"ok": False, "error": "interrupted"}
    return message


@st.composite
def unique_id_transcripts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Frames whose calls each have their own id; each call gets any number of results (real or receipts),
    most right after it, some anywhere (before the frame too); strays, users and interrupted frames between."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    pending: list[dict[str, Any]] = []  # results to put at drawn places once every turn is written
    serial = 0
    for _ in range(draw(st.integers(1, 6))):
        calls = []
        for _ in range(draw(st.integers(1, 3))):
            serial += 1
            calls.append((f"call_{serial}", draw(st.sampled_from(("read", "grep")))))
        messages.append({"role": "assistant", "stopReason": "toolUse",
                         "content": [_call(call_id, tool) for call_id, tool in calls]})
        for call_id, tool in calls:
            for kind in draw(st.lists(st.sampled_from(("next", "next", "next", "receipt", "anywhere")), max_size=3)):
                made = _result(call_id, tool, kind == "receipt" or (kind == "anywhere" and draw(st.booleans())))
                (pending if kind == "anywhere" else messages).append(made)
        for extra in draw(st.lists(st.sampled_from(("stray", "user", "aborted", "empty")), max_size=2)):
            if extra == "stray":
                serial += 1
                messages.append(_result(f"lost_{serial}", "grep", draw(st.booleans())))
            elif extra == "user":
                messages.append({"role": "user", "content": "wait"})
            else:
                messages.append({"role": "assistant", "stopReason": "aborted",
                                 "content": [] if extra == "empty" else [{"type": "text", "text": "so"}]})
    for made in pending:
        messages.insert(draw(st.integers(0, len(messages))), made)
    return messages


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=unique_id_transcripts())
def test_drawn_unique_id_transcripts_pair_in_bulk_as_the_walk_does(messages: list[dict[str, Any]]) -> None:
    _assert_agree(messages)


def test_a_reused_or_empty_id_is_left_to_the_walk() -> None:
    turn = [{"role": "assistant", "stopReason": "toolUse", "content": [_call("a", "t")]}, _result("a", "t", False)]
    reused = [{"role": "user", "content": "go"}, *turn, {"role": "user", "content": "again"}, *turn]
    assert _paired(light_transcript(reused), bulk=True) is None
    empty = [{"role": "user", "content": "go"}, _result("", "t", False), *turn]
    assert _paired(light_transcript(empty), bulk=True) is None
    _assert_agree(reused, expect_bulk=False)
