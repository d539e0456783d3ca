"""Anthropic's `tool_use_not_last` gets one verdict on every path, and its repair puts the calls last.

Anthropic refuses an assistant turn whose `tool_use` is followed by another block of the turn, even when its
result opens the next turn (recorded, anomalyco/opencode: tests/provider_cases/anthropic_text_after_tool_use.json).
Such a frame's results follow it directly, in call order: the reader used to count it a clean turn, so the
sparse judgment (integrity.providers.sparse, which judges only around messages outside the clean turns) never
judged it and called the transcript accepted where the bones' judgment rejected it.  The readers now leave a
frame with a part after a call out of the clean turns (LightBuilder.frame's `late`).

Our Anthropic rendering of another format's message (a pi-ai transcript, a Responses turn read as one message)
puts its calls after its other blocks, so such a frame is judged on both paths and found legal.  An Anthropic
request as recorded is sent as it is, so the strict view planned for Anthropic puts such a frame's calls after
its other blocks (a change of its own: "calls put last"), and every surface says so: the last tests.
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


# --- the repair: the view planned for Anthropic puts the calls last ---


def _recorded(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    case = json.loads((CASES / "anthropic_text_after_tool_use.json").read_text(encoding="utf-8"))
    path = tmp_path / "request.json"
    path.write_text(json.dumps(case["request"]), encoding="utf-8")
    return case, path


def _calls_last(message: dict[str, Any]) -> dict[str, Any]:
    """The recorded Anthropic message with its tool_use blocks after its other blocks, each run in its order."""
    blocks = message["content"]
    return {**message, "content": [b for b in blocks if b["type"] != "tool_use"]
            + [b for b in blocks if b["type"] == "tool_use"]}


def test_check_says_the_recorded_refusal_and_a_repair_that_puts_the_calls_last(tmp_path: Path) -> None:
    case, path = _recorded(tmp_path)
    result = run("check", "--provider", "anthropic", path)
    lines = result.stdout.decode().splitlines()
    assert result.code == 1  # rejected as recorded: the file as it is gets the recorded 400
    assert lines[0].endswith(": repaired: 1 frame(s) with their calls put last; rejected as recorded by anthropic")
    assert f"  anthropic as recorded: {case['error']}" in lines
    assert "  anthropic after repair: accepted" in lines
    report = json.loads(run("check", "--json", "--provider", "anthropic", path).stdout)
    assert (report["severity"], report["healthy"], report["changed"]) == ("rejected", False, True)
    assert report["summary"]["calls_put_last"] == 1
    [frame] = [action for action in report["actions"] if action["codes"]]
    assert (frame["durable_index"], frame["kind"], frame["codes"]) == (0, "kept", ["calls_put_last"])
    assert "Anthropic Messages answers only the calls that close an assistant turn" in frame["reason"]


def test_repair_writes_the_text_before_the_call_and_the_written_file_is_accepted(tmp_path: Path) -> None:
    case, path = _recorded(tmp_path)
    before = path.read_bytes()
    out = tmp_path / "out.json"
    result = run("repair", path, "-o", out, "--provider", "anthropic")
    assert result.code == 0, result.stderr
    written = json.loads(out.read_text(encoding="utf-8"))
    request = case["request"]
    assert written == {**request, "messages": [_calls_last(request["messages"][0]), *request["messages"][1:]]}
    assert path.read_bytes() == before  # the durable record is never touched
    again = run("check", "--provider", "anthropic", out)
    assert again.code == 0 and "accepted as recorded by anthropic" in again.stdout.decode()


def test_the_order_written_is_the_one_anthropic_answered_200_for() -> None:
    """The recorded 200 (opencode's patch) sends the text in an assistant message of its own before the call; ours
    keeps one message, text first: the rule set that agrees with both recordings accepts it too."""
    from integrity.providers import validate_native

    accepted = json.loads((CASES / "anthropic_text_before_tool_use.json").read_text(encoding="utf-8"))
    assert accepted["status"] == 200 and validate_native(accepted["request"]["messages"], "anthropic") == []
    refused = json.loads((CASES / "anthropic_text_after_tool_use.json").read_text(encoding="utf-8"))["request"]
    ours = [_calls_last(refused["messages"][0]), *refused["messages"][1:]]
    assert validate_native(ours, "anthropic") == []


def test_the_download_the_batch_the_rows_and_the_report_say_the_same(tmp_path: Path) -> None:
    from inspector.batch import summarize_all
    from inspector.rows import aligned_rows
    from integrity._records import json_text
    from integrity.analysis import analyze, load
    from integrity.download import download
    from integrity.report.build import read_report, view_from_report

    case = json.loads((CASES / "anthropic_text_after_tool_use.json").read_text(encoding="utf-8"))
    data = json.dumps(case["request"]).encode()
    analysis = analyze(load(data), provider="anthropic", verdicts=["anthropic"])
    found = download(analysis, "anthropic")
    assert found.safe_to_send and found.left == ""
    assert json.loads(found.data)["messages"][0] == _calls_last(case["request"]["messages"][0])
    [row] = summarize_all("request.json", data, provider="anthropic")
    assert row["accepted as recorded"] == f"✖ rejected: {case['error']}"
    assert row["accepted after repair"].startswith("✔") and row["safe to send to"] == "anthropic"
    assert [r.kind for r in aligned_rows(analysis, previews=False)][:2] == ["calls_last", "kept"]
    report = read_report(json.loads(json_text(analysis.report)))
    messages = analysis.transcript.messages
    assert view_from_report(report, messages) == analysis.view
    assert [part["type"] for part in analysis.view[0]["content"]] == ["text", "toolCall"]
    assert [part["type"] for part in messages[0]["content"]] == ["toolCall", "text"]  # the record keeps its order


@pytest.mark.parametrize("provider", ["bedrock", "openai-chat", "openai-responses", None])
def test_a_provider_that_answers_calls_anywhere_in_the_turn_gets_the_frame_as_recorded(
        tmp_path: Path, provider: str | None) -> None:
    path = tmp_path / "session.json"
    path.write_text(json.dumps([*_late("text"), USER]), encoding="utf-8")
    options = ("--provider", provider) if provider else ()
    assert run("check", path, *options).code == 0
    report = json.loads(run("check", "--json", path, *options).stdout)
    assert report["changed"] is False and "calls_put_last" not in report["summary"]


def test_toward_anthropic_a_pi_ai_frame_is_put_in_order_in_the_view_and_that_only_normalizes(tmp_path: Path) -> None:
    """Our Anthropic writer would write a pi-ai frame [text, call, text] calls last anyway (accepted as recorded);
    the view says so itself, so the runtime that sends it gets a legal order too: a change Anthropic did not need
    here (normalized), healthy."""
    path = tmp_path / "session.json"
    messages = [*_late("text"), USER]
    path.write_text(json.dumps(messages), encoding="utf-8")
    result = run("check", "--provider", "anthropic", path)
    assert result.code == 0
    assert "the view only normalizes: 1 frame(s) with their calls put last" in result.stdout.decode()
    out = tmp_path / "out.json"
    assert run("repair", "--provider", "anthropic", path, "-o", out).code == 0
    frame = json.loads(out.read_text(encoding="utf-8"))[1]
    assert [part["type"] for part in frame["content"]] == ["text", "text", "toolCall"]
    assert frame["content"][:2] == [PARTS["text"], PARTS["text"]] and frame["content"][2]["id"] == "call_1"


def test_toward_deepseek_responses_a_call_followed_by_text_is_refused_and_repaired(tmp_path: Path) -> None:
    """DeepSeek Responses reads a run of calls as a turn whose outputs must follow it (providers.deepseek_responses):
    the frame written as items [message, function_call, message, function_call_output] is refused; its view sends
    the calls last (the Known gap of docs/providers.md this closes)."""
    path = tmp_path / "session.json"
    path.write_text(json.dumps([*_late("text"), USER]), encoding="utf-8")
    result = run("check", "--provider", "deepseek-responses", path)
    lines = result.stdout.decode().splitlines()
    assert result.code == 1
    assert "  deepseek-responses as recorded: input[2]: No tool output found for tool call call_1." in lines
    assert "  deepseek-responses after repair: accepted" in lines


def test_an_anthropic_frame_is_not_reordered_for_bedrock(tmp_path: Path) -> None:
    """The recorded file toward Bedrock: its writer writes every Anthropic block anew (calls last), so the plan for
    Bedrock puts no calls last, and Bedrock's own rules (roles alternating) decide."""
    _, path = _recorded(tmp_path)
    report = json.loads(run("check", "--json", "--provider", "bedrock", path).stdout)
    assert "calls_put_last" not in report["summary"]
    assert all("calls_put_last" not in action["codes"] for action in report["actions"])
