"""The Responses verdicts skip plainly sound clean turns (item_groups.Places.plain): the same verdict as the bones'.

A clean turn of fresh ids whose frame writes its calls last is one sound group, so the walks leave it out unless a
loose frame or result sits beside it, or it holds a suspect id.  test_sparse's random transcripts reuse four ids,
so hardly any turn there is clean: these are mostly clean turns of fresh ids, with odd messages between them
(reused ids, calls left unanswered, results of no call, answers out of order, parts after a call), judged with the
fallback to every mark turned off, by the light view's judgment and by every message's bones.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_sparse import EXTRA_PARTS, _both

import integrity._bulk.item_groups as item_groups
from integrity.repair.policies import POLICIES

SKIPPED: list[bool] = []


def _call(call_id: str, name: str = "f") -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {}}


def _result(call_id: str, name: str = "f") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name, "content": [], "isError": False}


@st.composite
def _fresh_transcript(draw: st.DrawFn) -> list[dict[str, Any]]:
    used: list[str] = []
    out: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 40))):
        kind = draw(st.sampled_from(["turn"] * 5 + ["user", "assistant", "call", "result", "reused", "late"]))
        if kind in ("turn", "reused", "late"):
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                if kind == "reused" and used and draw(st.booleans()):
                    calls.append(draw(st.sampled_from(used)))
                else:
                    calls.append(f"c{len(used)}")
                    used.append(calls[-1])
            parts = [_call(call_id) for call_id in calls]
            for extra in draw(st.lists(st.sampled_from(EXTRA_PARTS), max_size=2)):
                parts.insert(draw(st.integers(0, len(parts))) if kind == "late" or draw(st.booleans()) else 0, extra)
            if draw(st.booleans()):
                out.append({"role": "user", "content": "go"})
            out.append({"role": "assistant", "content": parts, "stopReason": "toolUse"})
            out.extend(map(_result, calls if draw(st.integers(0, 5)) else draw(st.permutations(calls))))
            if draw(st.booleans()):
                out.append({"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop"})
        elif kind == "user":
            out.append({"role": "user", "content": "hi"})
        elif kind == "assistant":
            out.append({"role": "assistant", "content": [{"type": "text", "text": "hm"}],
                        "stopReason": draw(st.sampled_from(["stop", "aborted"]))})
        elif kind == "call":
            call_id = draw(st.sampled_from(used)) if used and draw(st.booleans()) else f"c{len(used)}"
            used.append(call_id)
            out.append({"role": "assistant", "content": [_call(call_id, "g")], "stopReason": "toolUse"})
        else:
            out.append(_result(draw(st.sampled_from(used)) if used and draw(st.integers(0, 3)) else f"x{len(used)}",
                               "g"))
    return out


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No fallback to every mark, and a note of each judgment whose walk skipped some turns."""
    monkeypatch.setattr(item_groups, "WALKED_AT_MOST", 10.0)
    real = item_groups.judge

    def noted(provider: str, walk: Any, holding: Any = None) -> Any:
        SKIPPED.append(walk.args[0].walked is not None)
        return real(provider, walk, holding)

    monkeypatch.setattr(item_groups, "judge", noted)
    return monkeypatch


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=_fresh_transcript())
def test_the_light_views_verdict_is_the_bones_on_mostly_clean_turns(messages: list[dict[str, Any]],
                                                                     forced: pytest.MonkeyPatch) -> None:
    data = json.dumps(messages).encode()
    for policy in POLICIES:
        for provider in ("openai-responses", "deepseek-responses"):
            both = _both(data, "random", provider, (), "diagnosis", forced, policy)
            if both is None:
                return
            assert both[0].providers == both[1].providers, (policy, provider)


def test_the_walks_above_skipped_turns() -> None:
    """Not vacuous: many of the judgments above walked only part of the marks."""
    assert SKIPPED.count(True) > 50, (SKIPPED.count(True), len(SKIPPED))
