"""Real results are never replaced, and a request a provider accepts stays accepted after repair.

The strict policy pairs every real result it can: one recorded before its call,
one whose call is already answered (a second result, never a stray), one without
an id (or answering a call without one: Gemini's ids are optional) by tool name.
Anthropic's `tool_result` after other blocks of its message, and Gemini's
`functionResponse` inside the model turn of its call, are read for what they are.
The property at the end ties it together over generated transcripts in every
provider's native format.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from integrity import Transcript, analyze, load, repair_with_report
from integrity.cli import main
from integrity.notes import NoteCode
from integrity.providers import PROVIDERS, validate, validate_recorded
from tests.test_strict_properties import broken_transcripts, written_and_read


def now() -> int:
    return 1763000000000


def user(text: str = "go") -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 1}


def frame(*calls: tuple[str, str]) -> dict[str, Any]:
    return {"role": "assistant", "stopReason": "toolUse", "timestamp": 2,
            "content": [{"type": "toolCall", "id": call_id, "name": name, "arguments": {}} for call_id, name in calls]}


def result(call_id: str, name: str, text: str = "real output", receipt: bool = False) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id, "toolName": name, "timestamp": 3,
                               "content": [{"type": "text", "text": text}], "isError": receipt}
    if receipt:
        message["details"] = {"ok": False, "error": "interrupted"}
    return message


def say(text: str = "done") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop", "timestamp": 4}


def test_a_result_without_an_id_answers_the_call_of_its_tool() -> None:
    view, report = repair_with_report([user(), frame(("abc", "get")), result("", "get"), say()], now=now)
    assert report.synthesized == [] and report.summary.strays == 0 and report.findings == []
    assert [m.get("toolCallId") for m in view.messages] == [None, None, "abc", None]
    assert report.actions[2].codes == [NoteCode.RESULT_PAIRED_BY_NAME, NoteCode.RENAMED]
    assert report.severity == "rejected"  # as recorded, an id-based provider rejects the mismatch


def test_a_result_with_an_id_answers_a_call_without_one() -> None:
    messages = [user(), frame(("", "get")), result("fc-1", "get"), say()]
    view, report = repair_with_report(messages, now=now)
    assert report.synthesized == [] and not any(a.kind.startswith("dropped") for a in report.actions)
    assert view.messages[2]["content"] == messages[2]["content"]


def test_no_result_pairs_by_name_with_a_call_of_another_tool_or_a_later_call() -> None:
    _, report = repair_with_report([user(), frame(("abc", "get")), result("", "put"), say()], now=now)
    assert [s.call_id for s in report.synthesized] == ["abc"]
    assert report.actions[2].kind == "dropped_stray"
    _, report = repair_with_report([user(), result("", "get"), frame(("abc", "get")), say()], now=now)
    assert [s.call_id for s in report.synthesized] == ["abc"]


def test_a_result_recorded_before_its_answered_call_is_a_second_result_not_a_stray() -> None:
    messages = [user(), result("a", "get", "early"), frame(("a", "get")), result("a", "get"), say()]
    _, report = repair_with_report(messages, now=now)
    assert report.actions[1].kind == "dropped_duplicate" and report.actions[1].kept_instead == 3
    assert report.actions[1].codes == [NoteCode.SECOND_RESULT]
    # the real result recorded early beats the receipt recorded after the call
    messages = [user(), result("a", "get", "early"), frame(("a", "get")), result("a", "get", receipt=True), say()]
    view, report = repair_with_report(messages, now=now)
    assert report.actions[3].kind == "dropped_duplicate" and report.actions[3].kept_instead == 1
    assert view.messages[2]["content"][0]["text"] == "early"


GEMINI_IN_MODEL = {"contents": [
    {"role": "user", "parts": [{"text": "weather in Paris?"}]},
    {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                                {"functionResponse": {"name": "get_weather", "response": {"output": "sunny"}}}]},
    {"role": "user", "parts": [{"text": "thanks"}]},
    {"role": "model", "parts": [{"text": "You are welcome."}]},
]}


def test_gemini_function_response_inside_the_model_turn_is_the_real_result(tmp_path: Path) -> None:
    data = json.dumps(GEMINI_IN_MODEL).encode()
    analysis = analyze(load(data, "g.json"), "strict", now, "gemini", ["gemini"])
    assert analysis.report.synthesized == [] and analysis.report.healthy
    assert (analysis.verdicts["gemini"].before, analysis.verdicts["gemini"].after) == ([], [])
    path = tmp_path / "g.json"
    path.write_bytes(data)
    out = tmp_path / "out.json"
    assert main(["repair", "--provider", "gemini", str(path), "-o", str(out)]) == 0
    assert out.read_bytes() == data


ANTHROPIC_TEXT_FIRST = {"system": "s", "messages": [
    {"role": "user", "content": "list the files"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}]},
    {"role": "user", "content": [{"type": "text", "text": "note first"},
                                 {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}]},
    {"role": "assistant", "content": "done"},
]}


def test_the_strict_anthropic_view_puts_tool_results_first(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps(ANTHROPIC_TEXT_FIRST))
    analysis = analyze(load(path.read_bytes(), "a.json"), "strict", now, "anthropic", ["anthropic"])
    assert [v.rule for v in analysis.verdicts["anthropic"].before] == ["tool_result_not_first"]
    assert analysis.verdicts["anthropic"].after == []
    assert [a.kind for a in analysis.report.actions if a.kind != "kept"] == ["moved"]
    assert main(["check", "--provider", "anthropic", str(path)]) == 1
    out = tmp_path / "out.json"
    assert main(["repair", "--provider", "anthropic", str(path), "-o", str(out), "--now", "0"]) == 0
    repaired = json.loads(out.read_text())["messages"]
    assert [block["type"] for block in repaired[2]["content"]] == ["tool_result", "text"]
    assert repaired[2]["content"][1]["text"] == "note first"  # nothing lost, only the order changed


NATIVE = ("pi-ai", "openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")

# Found by this property in CI: a Chat tool message with no id after a frame whose calls all have ids and
# answers; Responses reads its empty id as the earlier id-less calls', so it is their later result.
_LATE_IDLESS = [
    {'role': 'user', 'content': [{'type': 'text', 'text': '[paused: waiting for approval]'}], 'timestamp': 3},
 {'role': 'assistant',
  'content': [{'type': 'text', 'text': 'calling'},
              {'type': 'toolCall', 'id': 'call_0', 'name': 'read_file', 'arguments': {'k': 0}},
              {'type': 'toolCall', 'id': '', 'name': 'read_file', 'arguments': {'k': 1}},
              {'type': 'toolCall', 'id': '', 'name': 'run_shell', 'arguments': {'k': 2}}],
  'stopReason': 'toolUse',
  'timestamp': 1},
 {'role': 'toolResult',
  'toolCallId': '',
  'toolName': 'read_file',
  'content': [{'type': 'text', 'text': '{"ok":false,"error":"interrupted"}'}],
  'details': {'ok': False, 'error': 'interrupted'},
  'isError': True,
  'timestamp': 1},
 {'role': 'toolResult',
  'toolCallId': 'call_0',
  'toolName': 'read_file',
  'content': [{'type': 'text', 'text': 'out 1'}],
  'isError': False,
  'timestamp': 1},
 {'role': 'toolResult',
  'toolCallId': '',
  'toolName': 'run_shell',
  'content': [{'type': 'text', 'text': 'out 2'}],
  'isError': False,
  'timestamp': 1},
 {'role': 'user', 'content': [{'type': 'text', 'text': 'ask 1'}], 'timestamp': 2},
 {'role': 'assistant',
  'content': [{'type': 'text', 'text': 'calling'},
              {'type': 'toolCall', 'id': 'call_1', 'name': 'read_file', 'arguments': {'k': 0}}],
  'stopReason': 'toolUse',
  'timestamp': 2},
 {'role': 'toolResult',
  'toolCallId': '',
  'toolName': 'read_file',
  'content': [{'type': 'text', 'text': 'out 0'}],
  'isError': False,
  'timestamp': 1},
 {'role': 'toolResult',
  'toolCallId': 'call_1',
  'toolName': 'read_file',
  'content': [{'type': 'text', 'text': 'out 3'}],
  'isError': False,
  'timestamp': 2}]




def _read(call_id: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": "read_file", "arguments": {}}],
            "stopReason": "toolUse", "timestamp": 1}


def _out(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "read_file",
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 2}


# Found by this property in a fresh clone's run: a Chat tool message with no id before the frame whose call has
# none (Gemini takes it as recorded, pairing by count); a result cannot answer a call made after it, so the view
# drops it as a stray, which the oracle took for a result dropped though its call (that later one) is there.
_EMPTY_ID_BEFORE_ITS_NAMESAKE = [
    {"role": "user", "content": [{"type": "text", "text": "ask 1"}], "timestamp": 1}, _read("call_1"),
    _out("", "out 4"), {"role": "user", "content": [{"type": "text", "text": "ask 2"}], "timestamp": 1}, _read(""),
    _out("call_1", "out 1")]


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=broken_transcripts(), format=st.sampled_from(NATIVE))
@example(messages=_LATE_IDLESS, format="openai-chat")
@example(messages=_EMPTY_ID_BEFORE_ITS_NAMESAKE, format="openai-chat")
def test_what_a_provider_accepts_as_recorded_it_accepts_after_repair_with_every_real_result(
        messages: list[dict[str, Any]], format: str) -> None:
    """For any transcript a provider accepts as recorded, the strict view for that provider is still
    accepted, and every call with a real result recorded anywhere keeps a real result: no receipt is
    synthesized for it, and a real result is dropped only as a duplicate of another real result kept
    for the same call (the report names it)."""
    transcript = written_and_read(messages, format)
    as_recorded = validate_recorded(transcript)
    for provider in PROVIDERS:
        if as_recorded[provider]:
            continue
        analysis = analyze(transcript, "strict", now, provider)
        violations = validate(analysis.view, provider, transcript, history=True)
        assert violations == [], (format, provider, [(v.rule, v.position) for v in violations])
        check_every_real_result_kept(transcript.messages, analysis.report, f"{format} -> {provider}")


def check_every_real_result_kept(messages: list[Any], report: Any, where: str) -> None:
    real = {i for i, m in enumerate(messages)
            if m.get("role") == "toolResult" and not (m.get("isError") is True and m.get("details"))}
    by_index = {action.durable_index: action for action in report.actions}
    for index in real:
        action = by_index[index]
        if action.kind == "dropped_duplicate":
            assert action.kept_instead in real, f"{where}: real result #{index} dropped for a receipt"
        elif action.kind == "dropped_stray":  # (a result cannot answer a call made after it: a stray, whatever its id)
            before = {p.call_id for p in report.pairings if p.frame_index < index}
            assert messages[index].get("toolCallId") not in before, f"{where}: real result #{index} dropped"
    durable = {(p.frame_index, p.call_position): p for p in report.pairings}  # ids before any renaming
    used = {p.answered_by for p in report.pairings if p.answered_by is not None}
    for receipt in report.synthesized:
        call = durable[(receipt.frame_index, receipt.call_position)]
        frame, call_id = receipt.frame_index, call.call_id
        # A real result of this id that no call uses could have answered it: one recorded after the call, or
        # one recorded before it that no earlier use of the id can own (a result written before its call).
        # A second result of an earlier use, recorded before this call was made, is that use's duplicate.
        # Without an id (Gemini) a result answers a call of its own tool only.
        spare = [i for i in real if messages[i].get("toolCallId") == call_id and i not in used
                 and (call_id != "" or messages[i].get("toolName") == call.tool_name)
                 and (i > frame or not any(p.call_id == call_id and p.frame_index < i for p in report.pairings))]
        assert not spare, (
            f"{where}: a receipt was synthesized for call {call_id!r} (frame #{frame}), whose real result "
            f"#{spare[0]} is recorded and unused")


def _report(pairings: list[tuple[str, str, int, int, int | None]], receipts: list[tuple[int, int]]) -> Any:
    """A report with just what check_every_real_result_kept reads: (call id, tool, frame, position, answer)."""
    return SimpleNamespace(
        pairings=[SimpleNamespace(call_id=c, tool_name=t, frame_index=f, call_position=p, answered_by=a)
                  for c, t, f, p, a in pairings],
        synthesized=[SimpleNamespace(frame_index=f, call_position=p) for f, p in receipts], actions=[])


def test_the_real_result_check_fails_on_a_receipt_beside_an_unused_real_result() -> None:
    """The property's own check can fail: a receipt where a real result of the id is recorded after the
    call and used by no call, or recorded before it with no earlier use to own it."""
    frame = {"role": "assistant"}
    late = [frame, {"role": "toolResult", "toolCallId": "a", "toolName": "f"}]
    early = [{"role": "toolResult", "toolCallId": "a", "toolName": "f"}, frame]
    for messages, at in ((late, 0), (early, 1)):
        report = _report([("a", "f", at, 0, None)], [(at, 0)])
        report.actions = [SimpleNamespace(durable_index=i, kind="kept") for i in range(len(messages))]
        with pytest.raises(AssertionError, match="real result #"):
            check_every_real_result_kept(messages, report, "test")


def test_the_real_result_check_allows_a_receipt_when_the_spare_result_is_an_earlier_uses_duplicate() -> None:
    """A second result of an earlier use of the id, recorded before this call was made, cannot answer it;
    nor can an id-less result of another tool."""
    messages = [{"role": "assistant"}, {"role": "toolResult", "toolCallId": "a", "toolName": "f"},
                {"role": "toolResult", "toolCallId": "a", "toolName": "f"}, {"role": "user"},
                {"role": "assistant"}, {"role": "toolResult", "toolCallId": "", "toolName": "g"}]
    report = _report([("a", "f", 0, 0, 1), ("a", "f", 4, 0, None), ("", "h", 4, 1, None)], [(4, 0), (4, 1)])
    report.actions = [SimpleNamespace(durable_index=i, kind="kept") for i in range(len(messages))]
    check_every_real_result_kept(messages, report, "test")


def test_a_result_without_an_id_or_a_tool_name_answers_the_call_before_it_by_order() -> None:
    """Found by the property above: a Chat tool message names no tool, so a result written with an empty
    tool_call_id has neither an id nor a name.  Gemini pairs by order and accepts it as recorded; the strict
    view used to drop it as a stray (a real result lost).  It now answers the frame's unanswered call."""
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "stopReason": "toolUse",
                 "content": [{"type": "toolCall", "id": "call_0", "name": "read_file", "arguments": {}}]},
                {"role": "toolResult", "toolCallId": "", "toolName": "", "isError": False,
                 "content": [{"type": "text", "text": "the file"}]},
                {"role": "user", "content": "thanks"}]
    analysis = analyze(Transcript(messages, "x.json"), "strict", now, "gemini")
    assert not analysis.report.summary.strays_dropped and not analysis.report.summary.synthesized
    [pairing] = analysis.report.pairings
    assert pairing.answered_by == 2
    [action] = [a for a in analysis.report.actions if a.durable_index == 2]
    assert "result_paired_by_order" in action.codes
    assert analysis.view[2]["toolCallId"] == "call_0" and analysis.view[2]["content"] == messages[2]["content"]
    check_every_real_result_kept(messages, analysis.report, "by order")


def test_a_third_result_without_an_id_or_a_name_after_two_answered_calls_is_a_later_result() -> None:
    """Also found by the property: two id-less calls answered in order by id-less, nameless results, then a
    third such result: it is a later result for the first call (a dropped duplicate that names what it
    repeats), never a stray that claims no call owns it."""
    def result(text: str) -> dict[str, Any]:
        return {"role": "toolResult", "toolCallId": "", "toolName": "", "isError": False,
                "content": [{"type": "text", "text": text}]}

    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "stopReason": "toolUse",
                 "content": [{"type": "toolCall", "id": "", "name": "read_file", "arguments": {}},
                             {"type": "toolCall", "id": "", "name": "run_shell", "arguments": {}}]},
                result("a"), result("b"), result("c")]
    report = analyze(Transcript(messages, "x.json"), "strict", now, "gemini").report
    assert [(p.frame_index, p.call_position, p.answered_by) for p in report.pairings] == [(1, 0, 2), (1, 1, 3)]
    [action] = [a for a in report.actions if a.durable_index == 4]
    assert action.kind == "dropped_duplicate" and action.kept_instead == 2
    check_every_real_result_kept(messages, report, "later result")


CHAT_CALL_WITHOUT_ID = [  # a Chat request whose writer saved the call without an id (the result names one, or none)
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": None,
     "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
    {"role": "tool", "content": "72F"},
    {"role": "assistant", "content": "72F"}]


@pytest.mark.parametrize(("call_id", "result_id"), [(None, None), ("missing", "missing"), ("missing", "abcDEF123")],
                         ids=["both-null", "both-missing", "call-missing-result-named"])
@pytest.mark.parametrize("provider", ["openai-chat", "mistral", "deepseek", "gemini", "anthropic", "bedrock"])
def test_a_chat_call_saved_without_an_id_keeps_its_call_and_its_real_result(
        call_id: Any, result_id: Any, provider: str, tmp_path: Path) -> None:
    """Found by review: the call was read as no call at all, so its real result was dropped as a stray, repair
    exited 0 and the written file held no call and no result.  The strict reading takes a null or missing call
    id as an empty one: the view sends the call with a new id and its result (paired by order: a Chat tool
    message names no tool) with the same one, for every provider (Gemini's too, which needs no id: no writer
    sends a call whose id is not a string).  Both keep their schema findings."""
    messages = json.loads(json.dumps(CHAT_CALL_WITHOUT_ID))
    if call_id is None:
        messages[1]["tool_calls"][0]["id"] = None
    if result_id != "missing":
        messages[2]["tool_call_id"] = result_id
    path = tmp_path / "request.openai-chat.json"
    path.write_text(json.dumps({"model": "x", "messages": messages}))
    analysis = analyze(load(path.read_bytes(), str(path)), "strict", now, provider)
    assert analysis.report.summary.calls == 1 and analysis.report.summary.strays_dropped == 0
    [pairing] = analysis.report.pairings
    assert pairing.answered_by == 2
    out = tmp_path / "out.json"
    assert main(["repair", "--provider", provider, str(path), "-o", str(out)]) == 0
    written = json.loads(out.read_text())["messages"]
    new_id = written[1]["tool_calls"][0]["id"]
    assert new_id and written[2] == {"role": "tool", "tool_call_id": new_id, "content": "72F"}
    assert validate(load(out.read_bytes(), str(out)).messages, provider, history=True) == []
