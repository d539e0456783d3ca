"""Anthropic's `tool_use_not_last` gets one verdict on every path, and today's repair of it is pinned.

Anthropic refuses an assistant turn whose `tool_use` is followed by another block of the turn, even when its
result opens the next turn (recorded, anomalyco/opencode: tests/provider_cases/anthropic_text_after_tool_use.json).
Such a frame's results follow it directly, in call order: the reader used to count it a clean turn, so the
sparse judgment (integrity.providers.sparse, which judges only around messages outside the clean turns) never
judged it and called the transcript accepted where the bones' judgment rejected it.  The readers now leave a
frame with a part after a call out of the clean turns (LightBuilder.frame's `late`).

Our Anthropic rendering of another format's message (a pi-ai transcript, a Responses turn read as one message)
puts its calls after its other blocks, so such a frame is judged on both paths and found legal.  An Anthropic
request as recorded is sent as it is: the strict view does not (yet) move a kept message's other blocks before
its calls, so the recorded file stays rejected after repair, and every surface says so.  The last tests pin that,
so that a later repair shows as a deliberate change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity._bulk.fast_read import read_fast
from integrity.repair.views import light_transcript
from tests.test_sparse import USED, _assert_same, _both

CASES = Path(__file__).resolve().parent / "provider_cases"

USER = {"role": "user", "content": "go on"}
ANSWER = {"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop"}
PARTS = {"text": {"type": "text", "text": "t"}, "thinking": {"type": "thinking", "thinking": "h"},
         "image": {"type": "image", "data": "AA==", "mimeType": "image/png"}}


def _call(call_id: str) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": "f", "arguments": {}}


def _frame(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"role": "assistant", "content": parts, "stopReason": "toolUse"}


def _result(call_id: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "f", "content": [], "isError": False}


def _padding(turns: int) -> list[dict[str, Any]]:
    """Plain user / answer turns: anchors on both sides, so that the frame sits in a stretch of its own."""
    return [message for _ in range(turns) for message in (USER, ANSWER)]


def _late(kind: str, call_id: str = "call_1") -> list[dict[str, Any]]:
    """A frame whose call is followed by a part of this kind, answered right after it."""
    return [USER, _frame([PARTS["text"], _call(call_id), PARTS[kind]]), _result(call_id), ANSWER]


@pytest.mark.parametrize("kind", sorted(PARTS))
def test_a_part_after_a_call_is_judged_on_the_sparse_path_too(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """In the middle of a transcript (anchors around it: no first or last stretch seeds it), the frame is judged,
    and the sparse judgment says what the bones say, for every provider it serves."""
    messages = [*_padding(5), *_late(kind), *_padding(5)]
    data = json.dumps(messages).encode()
    USED.clear()
    assert _assert_same(data, "late", monkeypatch) > 0
    assert any(USED)  # (the sparse judgment did judge, it did not hand the request back)
    both = _both(data, "late", "anthropic", (), "diagnosis", monkeypatch)
    assert both is not None
    sparse = both[0].providers["anthropic"]
    # our Anthropic rendering of another format's message puts its calls after its other blocks
    # (formats.anthropic.assistant_out, formats.skeleton's _ANTHROPIC): judged, and legal, on both paths
    assert sparse.before == sparse.after == []


def test_a_transcript_opening_with_an_assistant_turn_is_numbered_alike_on_every_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Anthropic numbers the turns of a request opening with an assistant turn from 1 (anthropic.py): a stretch
    judged apart, far from the start, is numbered so too."""
    dangling = [USER, _frame([PARTS["text"], _call("call_1")]), ANSWER]  # a call no result answers
    messages = [ANSWER, *_padding(5), *dangling, *_padding(5)]
    data = json.dumps(messages).encode()
    assert _assert_same(data, "opening", monkeypatch) > 0
    both = _both(data, "opening", "anthropic", (), "diagnosis", monkeypatch)
    assert both is not None
    assert [v.position for v in both[0].providers["anthropic"].before] == ["messages.13"]  # (+1: see anthropic.py)


def test_the_readers_leave_a_frame_with_a_part_after_a_call_out_of_the_clean_turns() -> None:
    """Both readers (the dict reader and the fast reader's own steps) agree: a part before the calls keeps a
    frame clean; one after them (in either reading step: with a turn open or not) does not."""
    messages = [USER, _frame([PARTS["text"], _call("a")]), _result("a"),  # clean
                _frame([_call("b"), PARTS["thinking"]]), _result("b"),  # a part after: loose
                _frame([_call("c")]),  # left open by the next frame: the builder's own frame step
                _frame([_call("d"), PARTS["text"], _call("e")]), _result("d"), _result("e"), ANSWER]
    fast = read_fast(json.dumps(messages).encode(), "late")
    assert fast is not None
    for light in (light_transcript(messages), fast.light):
        assert light.clean is not None
        clean, _, loose = light.clean
        assert clean == [1]
        assert loose == [3, 4, 5, 6, 7, 8]


# --- today's repair: the strict view keeps the parts where they are ---


def _recorded(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    case = json.loads((CASES / "anthropic_text_after_tool_use.json").read_text(encoding="utf-8"))
    path = tmp_path / "request.json"
    path.write_text(json.dumps(case["request"]), encoding="utf-8")
    return case, path


def test_check_says_the_recorded_file_stays_rejected_after_repair(tmp_path: Path) -> None:
    case, path = _recorded(tmp_path)
    result = run("check", "--provider", "anthropic", path)
    text = result.stdout.decode()
    assert result.code == 1
    assert text.splitlines()[0].endswith("rejected as recorded by anthropic")
    assert f"  anthropic as recorded: {case['error']}" in text.splitlines()
    assert f"  anthropic after repair: {case['error']}" in text.splitlines()
    assert "safe to send" not in text and "accepted" not in text
    report = json.loads(run("check", "--json", "--provider", "anthropic", path).stdout)
    assert (report["severity"], report["healthy"], report["changed"]) == ("rejected", False, False)
    assert report["as_recorded"] == {"anthropic": "rejected"}


def test_repair_writes_the_request_unchanged_and_says_the_provider_still_refuses_it(tmp_path: Path) -> None:
    """Pinned: the strict view moves no part before a call yet (a repair that does changes this test)."""
    case, path = _recorded(tmp_path)
    out = tmp_path / "out.json"
    result = run("repair", path, "-o", out, "--provider", "anthropic")
    assert result.code == 1
    assert json.loads(out.read_text(encoding="utf-8")) == case["request"]
    assert "anthropic would still reject it: " + case["error"] in result.stderr
    assert "safe to send" not in result.stderr


def test_the_download_and_the_batch_do_not_call_it_safe_to_send() -> None:
    from inspector.batch import summarize_all
    from integrity.analysis import analyze, load
    from integrity.download import download

    case = json.loads((CASES / "anthropic_text_after_tool_use.json").read_text(encoding="utf-8"))
    data = json.dumps(case["request"]).encode()
    found = download(analyze(load(data), provider="anthropic", verdicts=["anthropic"]), "anthropic")
    assert not found.safe_to_send and case["error"] in found.left
    [row] = summarize_all("request.json", data, provider="anthropic")
    assert row["safe to send to"] == "anthropic"
    assert row["accepted as recorded"] == row["accepted after repair"] == f"✖ rejected: {case['error']}"
