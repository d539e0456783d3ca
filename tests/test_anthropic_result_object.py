"""Anthropic takes a `tool_result` block's `content` only as a string or a list of blocks: an agent that echoed a
tool's JSON return value into the block left a history the API refuses with "messages.2.content.0.tool_result.content:
Input should be a valid string" (quoted in an agent project's regression test).  We refused such a file as
unreadable (exit 2, "a tool_result block's 'content' must be a string or an array"), and the LiteLLM guard passed the
request on.  Now the content is read as its JSON text, the rule refuses it with the API's text on every surface, and
the repaired view (the CLI's and a guard's) sends that text.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

from cli_inprocess import run
from provider_case_files import body_file
from provider_cases import found
from test_provider_cases_verdict import refused_on_every_surface

from integrity.guards import request_verdict

ERROR = "messages.2.content.0.tool_result.content: Input should be a valid string"
REQUEST = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
    {"role": "user", "content": "What does notes.txt say?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "read_file",
                                       "input": {"path": "notes.txt"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                  "content": {"contents": "ship on Friday", "bytes": 14}}]},
    {"role": "assistant", "content": "It says to ship on Friday."}]}
TEXT = json.dumps(REQUEST["messages"][2]["content"][0]["content"], separators=(",", ":"))


def test_the_rule_says_what_the_api_answered() -> None:
    [said] = found(REQUEST["messages"], "anthropic")
    assert (said["rule"], said["position"], said["error"]) == (
        "tool_result_content_not_text", "messages.2.content.0.tool_result.content", ERROR)
    assert said["native_indices"] == [2] and said["call_ids"] == ["toolu_01"]
    messages = copy.deepcopy(REQUEST["messages"])
    messages[2]["content"][0]["content"] = TEXT
    assert found(messages, "anthropic") == []


def test_check_refuses_it_and_repair_sends_the_same_content_as_text(tmp_path: Path) -> None:
    source = body_file(tmp_path, REQUEST, "echoed.anthropic.json")
    recorded = source.read_bytes()
    asked = run("check", "--provider", "anthropic", source)
    shown = asked.stdout.decode()
    assert asked.code == 1, asked.stderr
    assert f"anthropic as recorded: {ERROR}" in shown  # (the error names its position: said once)
    assert "anthropic after repair: accepted" in shown and "malformed" not in shown
    out = tmp_path / "repaired.anthropic.json"
    repaired = run("repair", source, "-o", out)
    assert repaired.code == 0 and "messages[2].content[0].content: {" in repaired.stderr
    assert source.read_bytes() == recorded  # the input is never touched
    expected = copy.deepcopy(REQUEST)
    expected["messages"][2]["content"][0]["content"] = TEXT
    assert json.loads(out.read_bytes()) == expected  # nothing else changed
    assert run("check", "--provider", "anthropic", out).code == 0


def test_every_surface_says_the_same(tmp_path: Path) -> None:
    refused_on_every_surface(body_file(tmp_path, REQUEST, "echoed.anthropic.json"), "anthropic")


def test_one_object_deep_in_a_long_history_is_found(tmp_path: Path) -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for number in range(3000):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{number}", "name": "f", "input": {"n": number}}]})
        content: Any = {"n": number} if number == 1500 else "ok"
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{number}", "content": content}]})
    source = body_file(tmp_path, {"model": "claude-sonnet-4-5", "messages": messages}, "long.anthropic.json")
    asked = run("check", "--provider", "anthropic", source)
    shown = asked.stdout.decode()
    assert asked.code == 1, asked.stderr
    assert "as recorded: messages.3002.content.0.tool_result.content: Input should be a valid string" in shown
    assert shown.count("Input should be a valid string") == 1 and "anthropic after repair: accepted" in shown


def test_the_litellm_guard_on_v1_messages_sends_the_content_as_text() -> None:
    from integrity.guards.litellm import ToolCallIntegrityGuard

    data = copy.deepcopy({"model": REQUEST["model"], "messages": REQUEST["messages"]})
    snapshot = copy.deepcopy(data)
    out = asyncio.run(ToolCallIntegrityGuard().async_pre_call_hook(None, None, data, "anthropic_messages"))
    assert data == snapshot and out is not data
    assert out["messages"][2]["content"][0]["content"] == TEXT and out["messages"][1] is data["messages"][1]
    assert request_verdict(out["messages"], "anthropic", "anthropic").legal
    assert not request_verdict(data["messages"], "anthropic", "anthropic").legal
