"""The Responses API takes a function's output only as a string or an array of content parts: a writer that stored
the return value as the object it was left a history the API refuses with "Invalid type for 'input[0].output':
expected one of a string or array of objects, but got an object instead." (quoted in an app's recorded chat log and
in a plugin's notes on GPT-5's Responses rounds).  We refused such a file as unreadable (exit 2, "a
function_call_output's 'output' must be a string or an array"), and the LiteLLM guard passed the request on.  Now
the output is read as its JSON text, the rule refuses it with the API's text on every surface, and the repaired view
(the CLI's and a guard's) sends that text.
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

ERROR = "Invalid type for 'input[2].output': expected one of a string or array of objects, but got an object instead."
REQUEST = {"model": "gpt-5", "input": [
    {"role": "user", "content": "What is the workspace uri?"},
    {"type": "function_call", "call_id": "call_mX1", "name": "getWorkspaceUri", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_mX1", "output": {"uri": "file:///home/dev/ws", "ok": True}},
    {"role": "assistant", "content": "The workspace is file:///home/dev/ws."}]}
TEXT = json.dumps(REQUEST["input"][2]["output"], separators=(",", ":"))


def test_the_rule_says_what_the_api_answered() -> None:
    [said] = found(REQUEST["input"], "openai-responses")
    assert (said["rule"], said["position"], said["error"]) == ("output_not_text", "input[2].output", ERROR)
    assert said["native_indices"] == [2] and said["call_ids"] == ["call_mX1"]
    items = copy.deepcopy(REQUEST["input"])
    items[2]["output"] = TEXT
    assert found(items, "openai-responses") == []


def test_check_refuses_it_and_repair_sends_the_same_output_as_text(tmp_path: Path) -> None:
    source = body_file(tmp_path, REQUEST, "log.openai-responses.json")
    recorded = source.read_bytes()
    asked = run("check", "--provider", "openai-responses", source)
    shown = asked.stdout.decode()
    assert asked.code == 1, asked.stderr
    assert f"openai-responses as recorded: {ERROR}" in shown  # (its text quotes its position: said once)
    assert "openai-responses after repair: accepted" in shown and "malformed" not in shown
    out = tmp_path / "repaired.openai-responses.json"
    repaired = run("repair", source, "-o", out)
    assert repaired.code == 0 and 'input[2].output: {"uri": …, "ok": …} → ' in repaired.stderr
    assert source.read_bytes() == recorded  # the input is never touched
    expected = copy.deepcopy(REQUEST)
    expected["input"][2]["output"] = TEXT
    assert json.loads(out.read_bytes()) == expected  # nothing else changed, and the text is the same object
    assert run("check", "--provider", "openai-responses", out).code == 0


def test_every_surface_says_the_same(tmp_path: Path) -> None:
    refused_on_every_surface(body_file(tmp_path, REQUEST, "log.openai-responses.json"), "openai-responses")


def test_one_object_deep_in_a_long_input_is_found(tmp_path: Path) -> None:
    items: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for number in range(3000):
        output: Any = {"n": number} if number == 1500 else "ok"
        items += [{"type": "function_call", "call_id": f"call_{number}", "name": "f", "arguments": "{}"},
                  {"type": "function_call_output", "call_id": f"call_{number}", "output": output},
                  {"role": "assistant", "content": "done"}, {"role": "user", "content": f"q{number}"}]
    source = body_file(tmp_path, {"model": "gpt-5", "input": items}, "long.openai-responses.json")
    asked = run("check", "--provider", "openai-responses", source)
    shown = asked.stdout.decode()
    index = 1 + 1500 * 4 + 1
    assert asked.code == 1, asked.stderr
    assert f"as recorded: Invalid type for 'input[{index}].output'" in shown
    assert shown.count("Invalid type for") == 1 and "openai-responses after repair: accepted" in shown


def test_the_litellm_guard_sends_the_output_as_text() -> None:
    from integrity.guards.litellm import ToolCallIntegrityGuard

    data = copy.deepcopy(REQUEST)
    snapshot = copy.deepcopy(data)
    out = asyncio.run(ToolCallIntegrityGuard().async_pre_call_hook(None, None, data, "aresponses"))
    assert data == snapshot  # the caller's history is left as it is
    assert out["input"][2]["output"] == TEXT and out["input"][1] is data["input"][1]
    assert request_verdict(out["input"], "openai-responses", "openai-responses").legal
    assert not request_verdict(data["input"], "openai-responses", "openai-responses").legal
