"""Anthropic takes a `tool_use` block only with its `input`: a writer that left out the arguments of a call that took
none (the AI SDK's `input: undefined`, the Gemini SDK's omitted `args` replayed to Claude) left a history it refuses
with "messages.N.content.X.tool_use.input: Field required" (quoted in OpenClaw's FAQ, which tells users to start a
new session, and in the code of apps that fill the input in).  We said "unchanged (malformed) ... accepted as
recorded by anthropic" and repair wrote the block back without its input.  Now the rule refuses it with the API's
text on every surface, and the repaired view (the CLI's and a guard's) sends it `"input": {}`.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

from cli_inprocess import run
from provider_case_files import body_file
from test_provider_cases_verdict import refused_on_every_surface

from integrity import load
from integrity.guards import request_verdict
from integrity.pipeline import check

ERROR = "messages.1.content.1.tool_use.input: Field required"
REQUEST = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
    {"role": "user", "content": "What time is it?"},
    {"role": "assistant", "content": [{"type": "text", "text": "Checking the clock."},
                                      {"type": "tool_use", "id": "toolu_01", "name": "current_time"}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "09:12"}]},
    {"role": "assistant", "content": "It is 09:12."}]}


def test_an_anthropic_request_is_refused_with_the_apis_text_and_repaired(tmp_path: Path) -> None:
    source = body_file(tmp_path, REQUEST, "no_input.anthropic.json")
    recorded = source.read_bytes()
    asked = run("check", "--provider", "anthropic", source)
    shown = asked.stdout.decode()
    assert asked.code == 1 and f"anthropic as recorded: {ERROR}" in shown
    assert "anthropic after repair: accepted" in shown and "malformed" not in shown
    out = tmp_path / "repaired.anthropic.json"
    repaired = run("repair", source, "-o", out)
    assert repaired.code == 0 and "messages[1].content[1].input added: an object" in repaired.stderr
    assert source.read_bytes() == recorded  # the input is never touched
    expected = copy.deepcopy(REQUEST)
    expected["messages"][1]["content"][1]["input"] = {}
    written = json.loads(out.read_bytes())
    assert written == expected  # nothing else changed
    assert list(written["messages"][1]["content"][1]) == ["type", "id", "name", "input"]
    assert run("check", "--provider", "anthropic", out).code == 0


def test_every_surface_says_the_same(tmp_path: Path) -> None:
    refused_on_every_surface(body_file(tmp_path, REQUEST, "no_input.anthropic.json"), "anthropic")


def test_a_call_without_arguments_from_another_format_is_written_with_an_input(tmp_path: Path) -> None:
    """A pi-ai call without arguments is written toward Anthropic with `{}`: accepted, by the skeleton and the full
    request alike (the skeleton's tool_use carries an input as the writer's does)."""
    pi = [{"role": "user", "content": "What time is it?"},
          {"role": "assistant", "stopReason": "toolUse", "content": [
              {"type": "toolCall", "id": "toolu_01", "name": "current_time"}]},
          {"role": "toolResult", "toolCallId": "toolu_01", "toolName": "current_time",
           "content": [{"type": "text", "text": "09:12"}], "isError": False}]
    verdict = check(load(json.dumps(pi).encode(), "time.pi-ai.json"), provider="anthropic")
    assert verdict.providers["anthropic"].before == [] and verdict.providers["anthropic"].after == []


def test_one_missing_input_deep_in_a_long_history_is_found(tmp_path: Path) -> None:
    messages: list[dict[str, Any]] = []
    for number in range(3000):
        messages.append({"role": "user", "content": "go"} if number == 0 else {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{number - 1}", "content": "ok"}]})
        use: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{number}", "name": "f"}
        if number != 1500:
            use["input"] = {"n": number}
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "next"}, use]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_2999", "content": "ok"}]})
    source = body_file(tmp_path, {"model": "claude-sonnet-4-5", "messages": messages}, "long.anthropic.json")
    asked = run("check", "--provider", "anthropic", source)
    shown = asked.stdout.decode()
    assert asked.code == 1, asked.stderr
    assert "as recorded: messages.3001.content.1.tool_use.input: Field required" in shown
    assert shown.count("Field required") == 1 and "anthropic after repair: accepted" in shown


def test_the_litellm_guard_on_v1_messages_sends_the_input() -> None:
    """The guards' quick test passed such a request as healthy; it now leaves it to the full check."""
    from integrity.guards.litellm import ToolCallIntegrityGuard

    data = copy.deepcopy({"model": REQUEST["model"], "messages": REQUEST["messages"]})
    snapshot = copy.deepcopy(data)
    out = asyncio.run(ToolCallIntegrityGuard().async_pre_call_hook(None, None, data, "anthropic_messages"))
    assert data == snapshot and out is not data
    assert out["messages"][1]["content"][1]["input"] == {} and out["messages"][2] is data["messages"][2]
    assert request_verdict(out["messages"], "anthropic", "anthropic").legal
    assert not request_verdict(data["messages"], "anthropic", "anthropic").legal
