"""Anthropic takes a `tool_use` block's `input` only as a JSON object: a writer that stored the arguments' JSON text
left a history it refuses ("messages.61.content.0.tool_use.input: Input should be a valid dictionary", quoted
whole in anthropics/claude-code#6696; #6695, #6697 and anthropics/anthropic-sdk-typescript#648 the same).  We said
"accepted as recorded by anthropic" while the view repaired the call's arguments, and a pi-ai file with such
arguments was "healthy" toward Anthropic but "repaired" with no target.  Now the rule refuses it with the API's text
on every path (the full request and, for any other format, the skeleton gives way to it), and every verdict says
"rejected"; the repaired view sends {} as before (docs/glossary.md "arguments_replaced").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_inprocess import run
from provider_case_files import body_file
from test_provider_cases_verdict import refused_on_every_surface

from integrity import load
from integrity.pipeline import check

ERROR = "messages.1.content.0.tool_use.input: Input should be a valid dictionary"
REQUEST = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                                       "input": '{"city": "Paris"}'}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]}]}
PI = [{"role": "user", "content": "weather?"},
      {"role": "assistant", "stopReason": "toolUse", "content": [
          {"type": "toolCall", "id": "toolu_1", "name": "get_weather", "arguments": '{"city": "Paris"}'}]},
      {"role": "toolResult", "toolCallId": "toolu_1", "toolName": "get_weather",
       "content": [{"type": "text", "text": "sunny"}], "isError": False}]


def test_an_anthropic_request_is_refused_with_the_apis_text_and_repaired(tmp_path: Path) -> None:
    source = body_file(tmp_path, REQUEST, "stored_text.anthropic.json")
    recorded = source.read_bytes()
    asked = run("check", "--provider", "anthropic", source)
    shown = asked.stdout.decode()
    assert asked.code == 1 and f"anthropic as recorded: {ERROR}" in shown
    assert "anthropic after repair: accepted" in shown
    out = tmp_path / "repaired.anthropic.json"
    assert run("repair", source, "-o", out).code == 0
    assert source.read_bytes() == recorded
    assert json.loads(out.read_bytes())["messages"][1]["content"][0]["input"] == {}
    assert run("check", "--provider", "anthropic", out).code == 0
    refused_on_every_surface(source, "anthropic")


def test_another_format_toward_anthropic_says_what_the_request_it_writes_gets(tmp_path: Path) -> None:
    """The skeleton carries no arguments: for such a call it gives way to the full request, so both agree."""
    source = tmp_path / "stored_text.pi-ai.json"
    source.write_text(json.dumps(PI))
    asked = run("check", "--provider", "anthropic", source)
    assert asked.code == 1 and f"anthropic as recorded: {ERROR}" in \
        asked.stdout.decode()
    plain = run("check", source)  # no target: the universal invariants already called it a repair
    assert plain.code == 1 and asked.stdout.decode().splitlines()[0].split(": ")[1] == \
        plain.stdout.decode().splitlines()[0].split(": ")[1]
    verdict = check(load(source.read_bytes(), source.name), provider="anthropic")
    assert [v.rule for v in verdict.providers["anthropic"].before] == ["tool_use_input_not_object"]
    assert verdict.providers["anthropic"].after == []


def test_one_text_deep_in_a_long_history_is_found(tmp_path: Path) -> None:
    messages: list[dict[str, Any]] = []
    for number in range(3000):
        messages.append({"role": "user", "content": "go"} if number == 0 else {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{number - 1}", "content": "ok"}]})
        arguments: Any = json.dumps({"n": number}) if number == 1500 else {"n": number}
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": "next"},
            {"type": "tool_use", "id": f"toolu_{number}", "name": "f", "input": arguments}]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_2999", "content": "ok"}]})
    source = body_file(tmp_path, {"model": "claude-sonnet-4-5", "messages": messages}, "long.anthropic.json")
    shown = run("check", "--provider", "anthropic", source).stdout.decode()
    assert "as recorded: messages.3001.content.1.tool_use.input: Input should be a valid dictionary" in shown
    assert shown.count("Input should be a valid dictionary") == 1 and "anthropic after repair: accepted" in shown


def test_the_litellm_guard_on_v1_messages_repairs_it_too() -> None:
    """The guards' quick test passed such a request as healthy; it now leaves it to the full check."""
    import asyncio
    import copy

    from integrity.guards import request_verdict
    from integrity.guards.litellm import ToolCallIntegrityGuard

    data = copy.deepcopy({"model": REQUEST["model"], "messages": REQUEST["messages"]})
    snapshot = copy.deepcopy(data)
    out = asyncio.run(ToolCallIntegrityGuard().async_pre_call_hook(None, None, data, "anthropic_messages"))
    assert data == snapshot and out is not data
    assert out["messages"][1]["content"][0]["input"] == {} and out["messages"][2] is data["messages"][2]
    assert request_verdict(out["messages"], "anthropic", "anthropic").legal
    assert not request_verdict(data["messages"], "anthropic", "anthropic").legal
