"""OpenAI takes a call only typed and with its arguments as text: a writer that stored the parsed object left a
history OpenAI refuses (Chat: "Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string,
but got an object instead.", tests/provider_cases/openai-chat_arguments_object.json; Responses: "Invalid type for
'input[1].arguments': ...", seen).  We said "accepted" (Responses: a malformed finding that contradicted itself) and
repair wrote the object back.  Now the rule refuses it with the API's text, every surface says so, and the repaired
view (the CLI's and a guard's) sends the same arguments as their JSON text.  A Chat call written without its `type`
("Missing required parameter: 'messages[2].tool_calls[0].type'.", langchain-ai/langchain-azure#35) is refused and
sent typed.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

from cli_inprocess import run
from provider_case_files import body_file, case
from provider_cases import found
from test_provider_cases_verdict import refused_on_every_surface

from integrity.guards import GuardReport, request_verdict

CASE = case("openai-chat_arguments_object")


def test_the_rule_says_what_openai_answered() -> None:
    [said] = found(CASE["request"]["messages"], "openai-chat")
    assert (said["rule"], said["position"], said["error"]) == ("arguments_not_text", CASE["param"], CASE["error"])
    assert said["native_indices"] == [2] and said["call_ids"] == ["call_9hZ2qX1bT0"]


def test_only_an_object_is_judged_and_only_toward_openai_chat() -> None:
    messages = copy.deepcopy(CASE["request"]["messages"])
    messages[2]["tool_calls"][0]["function"]["arguments"] = '{"appName":"Calculator"}'
    assert found(messages, "openai-chat") == []
    for provider in ("deepseek", "mistral"):  # Chat-shaped too; no answer to an object is on record for them
        assert [v["rule"] for v in found(CASE["request"]["messages"], provider)
                if v["rule"] == "arguments_not_text"] == []


def test_check_refuses_it_and_repair_sends_the_same_arguments_as_text(tmp_path: Path) -> None:
    source = body_file(tmp_path, CASE["request"], "gosling.openai-chat.json")
    recorded = source.read_bytes()
    asked = run("check", "--provider", "openai-chat", source)
    assert asked.code == 1
    assert f"openai-chat as recorded: {CASE['error']}" in asked.stdout.decode()  # (said once: the text quotes it)
    assert "openai-chat after repair: accepted" in asked.stdout.decode()
    out = tmp_path / "repaired.openai-chat.json"
    repaired = run("repair", source, "-o", out)
    assert repaired.code == 0, repaired.stderr
    assert source.read_bytes() == recorded  # the input is never touched
    written = json.loads(out.read_bytes())
    call = written["messages"][2]["tool_calls"][0]
    assert call["function"]["arguments"] == '{"appName":"Calculator"}'
    expected = copy.deepcopy(CASE["request"])
    expected["messages"][2]["tool_calls"][0]["function"]["arguments"] = '{"appName":"Calculator"}'
    assert written == expected  # nothing else changed
    assert run("check", "--provider", "openai-chat", out).code == 0


def test_every_surface_says_the_same(tmp_path: Path) -> None:
    refused_on_every_surface(body_file(tmp_path, CASE["request"], "gosling.openai-chat.json"), "openai-chat")


def test_one_object_deep_in_a_long_history_is_found(tmp_path: Path) -> None:
    """A long file is judged by the windowed proof: a turn that is otherwise plainly legal still holds the call."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"}]
    for number in range(3000):
        arguments: Any = {"n": number} if number == 1500 else json.dumps({"n": number})
        messages += [{"role": "user", "content": f"q{number}"},
                     {"role": "assistant", "content": None, "tool_calls": [
                         {"id": f"call_{number}", "type": "function",
                          "function": {"name": "f", "arguments": arguments}}]},
                     {"role": "tool", "tool_call_id": f"call_{number}", "content": "ok"},
                     {"role": "assistant", "content": "done"}]
    source = body_file(tmp_path, {"model": "gpt-4o", "messages": messages}, "long.openai-chat.json")
    asked = run("check", "--provider", "openai-chat", source).stdout.decode()
    index = 1 + 1500 * 4 + 1
    assert f"as recorded: Invalid type for 'messages[{index}].tool_calls[0].function.arguments'" in asked
    assert asked.count("Invalid type for") == 1 and "openai-chat after repair: accepted" in asked


def test_the_litellm_guard_sends_the_arguments_as_text() -> None:
    from integrity.guards.litellm import ToolCallIntegrityGuard

    data = {"model": "gpt-4o", "messages": CASE["request"]["messages"]}
    snapshot = copy.deepcopy(data)
    reports: list[GuardReport] = []
    out = asyncio.run(ToolCallIntegrityGuard(on_report=reports.append).async_pre_call_hook(None, None, data,
                                                                                           "completion"))
    assert data == snapshot  # the caller's history is left as it is
    assert out["messages"][2]["tool_calls"][0]["function"]["arguments"] == '{"appName":"Calculator"}'
    assert out["messages"][3] is data["messages"][3]  # unchanged messages are the caller's objects
    assert reports and reports[0].target == "openai-chat"
    assert request_verdict(out["messages"], "openai-chat", "openai-chat").legal
    assert not request_verdict(data["messages"], "openai-chat", "openai-chat").legal


RESPONSES = {"model": "gpt-4.1", "input": [
    {"role": "user", "content": "read it"},
    {"type": "function_call", "call_id": "call_1", "name": "read", "arguments": {"path": "a.pipe"}},
    {"type": "function_call_output", "call_id": "call_1", "output": "3 rows"}]}
RESPONSES_ERROR = "Invalid type for 'input[1].arguments': expected a string, but got an object instead."


def test_responses_check_refuses_it_and_repair_sends_the_same_arguments_as_text(tmp_path: Path) -> None:
    source = body_file(tmp_path, RESPONSES, "replayed.openai-responses.json")
    asked = run("check", "--provider", "openai-responses", source)
    assert asked.code == 1
    shown = asked.stdout.decode()
    assert f"openai-responses as recorded: {RESPONSES_ERROR}" in shown  # (its text quotes its position: said once)
    assert "openai-responses after repair: accepted" in shown
    assert "malformed" not in shown  # it was "'arguments' must be a JSON object, got an object"
    out = tmp_path / "repaired.openai-responses.json"
    assert run("repair", source, "-o", out).code == 0
    expected = copy.deepcopy(RESPONSES)
    expected["input"][1]["arguments"] = '{"path":"a.pipe"}'
    assert json.loads(out.read_bytes()) == expected
    refused_on_every_surface(source, "openai-responses")


def test_responses_one_object_deep_in_a_long_input_is_found(tmp_path: Path) -> None:
    items: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for number in range(3000):
        arguments: Any = {"n": number} if number == 1500 else json.dumps({"n": number})
        items += [{"type": "function_call", "call_id": f"call_{number}", "name": "f", "arguments": arguments},
                  {"type": "function_call_output", "call_id": f"call_{number}", "output": "ok"},
                  {"role": "assistant", "content": "done"}, {"role": "user", "content": f"q{number}"}]
    source = body_file(tmp_path, {"model": "gpt-4.1", "input": items}, "long.openai-responses.json")
    asked = run("check", "--provider", "openai-responses", source).stdout.decode()
    index = 1 + 1500 * 4
    assert f"as recorded: Invalid type for 'input[{index}].arguments'" in asked
    assert asked.count("Invalid type for") == 1 and "openai-responses after repair: accepted" in asked


def test_the_litellm_guard_sends_responses_arguments_as_text() -> None:
    from integrity.guards.litellm import ToolCallIntegrityGuard

    data = copy.deepcopy(RESPONSES)
    snapshot = copy.deepcopy(data)
    out = asyncio.run(ToolCallIntegrityGuard().async_pre_call_hook(None, None, data, "aresponses"))
    assert data == snapshot
    assert out["input"][1]["arguments"] == '{"path":"a.pipe"}' and out["input"][2] is data["input"][2]
    assert request_verdict(out["input"], "openai-responses", "openai-responses").legal


def test_a_chat_call_without_its_type_is_refused_and_sent_typed(tmp_path: Path) -> None:
    request = copy.deepcopy(CASE["request"])
    call = request["messages"][2]["tool_calls"][0]
    del call["type"]
    call["function"]["arguments"] = '{"appName": "Calculator"}'
    source = body_file(tmp_path, request, "untyped.openai-chat.json")
    asked = run("check", "--provider", "openai-chat", source)
    shown = asked.stdout.decode()
    assert asked.code == 1 and "openai-chat as recorded: Missing required " \
        "parameter: 'messages[2].tool_calls[0].type'." in shown and "openai-chat after repair: accepted" in shown
    out = tmp_path / "typed.openai-chat.json"
    assert run("repair", source, "-o", out).code == 0
    written = json.loads(out.read_bytes())
    expected = copy.deepcopy(request)
    expected["messages"][2]["tool_calls"][0] = {"id": "call_9hZ2qX1bT0", "type": "function",
                                                "function": call["function"]}
    assert written == expected and list(written["messages"][2]["tool_calls"][0]) == ["id", "type", "function"]
    refused_on_every_surface(source, "openai-chat")
    from integrity.guards.litellm import ToolCallIntegrityGuard

    data = {"model": "gpt-4o", "messages": request["messages"]}
    out_data = asyncio.run(ToolCallIntegrityGuard().async_pre_call_hook(None, None, data, "completion"))
    assert out_data["messages"][2]["tool_calls"][0]["type"] == "function" and "type" not in call
    assert request_verdict(out_data["messages"], "openai-chat", "openai-chat").legal
