"""Malformed tool-call arguments are a repair, not a dead session (issue 26, item 5).

A call whose arguments are not a JSON object (cut-off JSON text from an OpenAI-compatible server, a string
where an object belongs) used to leave `repair` writing nothing and the orphan unanswered.  The strict view
now sends {} for them (legal for every provider), keeps the text as recorded in the report, and answers a
call that has no result with an error saying it was not executed; a real result is kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

import integrity
from integrity.kinds import RepairKind
from integrity.providers import PROVIDERS

CHAT = {"model": "gpt-4o", "messages": [
    {"role": "user", "content": "go"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"path": "src/ma'}}]},
    {"role": "user", "content": "hello?"}]}


def _result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "read",
            "content": [{"type": "text", "text": text}], "isError": False}


def test_the_issue_case_is_repaired_into_a_legal_view(tmp_path: Path) -> None:
    source = tmp_path / "chat.openai-chat.json"
    source.write_text(json.dumps(CHAT))
    out, report = tmp_path / "out.json", tmp_path / "report.json"
    done = run("repair", source, "-o", out, "--report", report)
    assert done.code == 0, done.stderr
    written = json.loads(out.read_bytes())["messages"]
    assert written[1]["tool_calls"][0]["function"]["arguments"] == "{}"
    answer = written[2]
    assert answer["role"] == "tool" and answer["tool_call_id"] == "call_1"
    assert "not executed" in answer["content"] and "invalid_arguments" in answer["content"]
    assert run("check", out).code == 0
    for provider in PROVIDERS:  # every provider takes the view planned for it (Bedrock's own turn order aside)
        assert f"{provider} after repair: accepted" in run("check", "--provider", provider, out).stdout.decode()
    said = json.loads(report.read_bytes())
    [action] = [a for a in said["actions"] if "arguments_replaced" in a["codes"]]
    assert '{"path": "src/ma' in action["reason"]  # the text as recorded stays in the report
    assert said["summary"]["arguments_repaired"] == 1
    assert json.loads(source.read_text()) == CHAT  # the input is never changed


def test_a_real_result_is_kept_and_no_error_result_is_added() -> None:
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "stopReason": "toolUse", "content": [
                    {"type": "toolCall", "id": "c1", "name": "read", "arguments": "not an object"}]},
                _result("c1", "the file"), {"role": "user", "content": "thanks"}]
    result = integrity.check(integrity.Transcript(messages, "x.json"), depth="view")
    assert result.view is not None and len(result.view) == 4
    assert result.view[1]["content"][0]["arguments"] == {} and result.view[2] is messages[2]
    assert messages[1]["content"][0]["arguments"] == "not an object"  # the durable record is untouched
    assert result.summary.arguments_repaired == 1 and result.summary.synthesized == 0
    assert not result.findings


@pytest.mark.parametrize("policy", ["strict", "openmaic"])
def test_the_view_rebuilt_from_the_report_is_the_view(policy: str) -> None:
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "stopReason": "toolUse", "content": [
                    {"type": "toolCall", "id": "c1", "name": "read", "arguments": [1, 2]},
                    {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "a"}}]},
                _result("c2", "a")]
    analysis = integrity.analyze(integrity.Transcript(messages, "x.json"), policy, now=lambda: 5)
    assert integrity.view_from_report(analysis.report, messages) == analysis.view
    if policy == "strict":
        kinds = {entry.not_executed for entry in analysis.report.view if isinstance(entry, integrity.ReceiptView)}
        assert kinds == {True}  # c1 answered as not executed, never called an interrupted receipt
        assert analysis.view[1]["content"][0]["arguments"] == {}
        assert analysis.view[1]["content"][1]["arguments"] == {"path": "a"}
        assert RepairKind.REPAIRED_ARGUMENTS.value in {r.value for r in RepairKind}
    else:  # the reference is the reference: a malformed finding, left in place
        assert any(finding.kind.value == "invalid_arguments" for finding in analysis.report.findings)


def test_an_anthropic_request_whose_input_is_not_an_object() -> None:
    request = {"model": "claude", "max_tokens": 10, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": "oops"}]},
        {"role": "user", "content": "hello?"}]}
    transcript = integrity.load(json.dumps(request).encode(), "r.json")
    result = integrity.check(transcript, depth="view")
    assert result.summary.arguments_repaired == 1 and result.exit_code == 1  # anthropic refuses it as recorded
    written = json.loads(integrity.write_bytes(transcript, result.view))
    assert written["messages"][1]["content"][0]["input"] == {}
    assert written["messages"][2]["content"][0]["type"] == "tool_result"
    again = integrity.check(integrity.load(integrity.write_bytes(transcript, result.view), "w.json"))
    assert again.exit_code == 0, again.verdict
