"""OpenAI Chat takes a message's content only as a string, an array of parts or null: a writer that stored a tool's
result as returned, or a structured prompt as built, left a history OpenAI refuses with "Invalid type for
'messages[1].content': expected one of a string or array of objects, but got an object instead."
(pydantic/pydantic-ai#2653, tests/provider_cases/openai-chat_content_object.json).  We refused such a file as
unreadable (exit 2, "'content' must be a string, an array or null"), and a file with one more message than the
usual shapes was not even recognised as a Chat history; the LiteLLM guard passed the request on.  Now the file is
read, the rule refuses it with the API's text on every surface, and the repaired view (the CLI's and a guard's)
sends the same content as its JSON text.
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

from integrity.guards import request_verdict

CASE = case("openai-chat_content_object")
PROMPT = CASE["request"]["messages"][1]["content"]
PROMPT_TEXT = json.dumps(PROMPT, ensure_ascii=False, separators=(",", ":"))

RESULT = {"model": "gpt-4o", "messages": [
    {"role": "user", "content": "How many rows are in a.pipe?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "count_rows", "arguments": '{"path":"a.pipe"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": {"rows": 3, "path": "a.pipe", "note": "naïve count"}},
    {"role": "assistant", "content": "a.pipe has 3 rows."}]}


def test_the_rule_says_what_openai_answered() -> None:
    [said] = found(CASE["request"]["messages"], "openai-chat")
    assert (said["rule"], said["position"], said["error"]) == ("content_not_text", CASE["param"], CASE["error"])
    assert said["native_indices"] == [1] and said["call_ids"] == []


def test_only_an_object_is_judged_and_only_toward_openai_chat() -> None:
    messages = copy.deepcopy(CASE["request"]["messages"])
    messages[1]["content"] = PROMPT_TEXT
    assert found(messages, "openai-chat") == []
    messages[1]["content"] = [{"type": "text", "text": PROMPT_TEXT}]
    assert found(messages, "openai-chat") == []
    for provider in ("deepseek", "mistral"):  # Chat-shaped too; no answer to an object is on record for them
        assert [v for v in found(RESULT["messages"], provider) if v["rule"] == "content_not_text"] == []


def test_the_file_is_read_and_refused_where_it_was_unreadable(tmp_path: Path) -> None:
    source = body_file(tmp_path, CASE["request"], "prompt.openai-chat.json")
    asked = run("check", "--provider", "openai-chat", source)
    shown = asked.stdout.decode()
    assert asked.code == 1, asked.stderr
    assert f"openai-chat as recorded: {CASE['error']}" in shown  # (its text quotes its position: said once)
    assert "openai-chat after repair: accepted" in shown and "malformed" not in shown
    plain = run("check", source)  # the format names the target: the same verdict unasked
    assert plain.code == 1 and "rejected as recorded by openai-chat" in plain.stdout.decode()


def test_repair_sends_the_same_content_as_its_json_text(tmp_path: Path) -> None:
    for name, body, index in (("prompt", CASE["request"], 1), ("result", RESULT, 2)):
        source = body_file(tmp_path, body, f"{name}.openai-chat.json")
        recorded = source.read_bytes()
        out = tmp_path / f"{name}.repaired.openai-chat.json"
        repaired = run("repair", source, "-o", out)
        assert repaired.code == 0, repaired.stderr
        assert f"messages[{index}].content: {{" in repaired.stderr  # what the writer changes, where
        assert source.read_bytes() == recorded  # the input is never touched
        expected = copy.deepcopy(body)
        expected["messages"][index]["content"] = json.dumps(body["messages"][index]["content"], ensure_ascii=False,
                                                            separators=(",", ":"))
        assert json.loads(out.read_bytes()) == expected  # nothing else changed
        assert json.loads(expected["messages"][index]["content"]) == body["messages"][index]["content"]  # lossless
        assert run("check", "--provider", "openai-chat", out).code == 0


def test_every_surface_says_the_same(tmp_path: Path) -> None:
    for name, body in (("prompt", CASE["request"]), ("result", RESULT)):
        refused_on_every_surface(body_file(tmp_path, body, f"{name}.openai-chat.json"), "openai-chat")


def test_one_object_deep_in_a_long_history_is_found(tmp_path: Path) -> None:
    """A long file goes through the fast reader and the windowed proof: an otherwise legal turn still holds it."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"}]
    for number in range(3000):
        content: Any = {"n": number} if number == 1500 else "ok"
        messages += [{"role": "user", "content": f"q{number}"},
                     {"role": "assistant", "content": None, "tool_calls": [
                         {"id": f"call_{number}", "type": "function",
                          "function": {"name": "f", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": f"call_{number}", "content": content},
                     {"role": "assistant", "content": "done"}]
    source = body_file(tmp_path, {"model": "gpt-4o", "messages": messages}, "long.openai-chat.json")
    asked = run("check", "--provider", "openai-chat", source)
    shown = asked.stdout.decode()
    index = 1 + 1500 * 4 + 2
    assert asked.code == 1, asked.stderr
    assert f"as recorded: Invalid type for 'messages[{index}].content'" in shown
    assert shown.count("Invalid type for") == 1 and "openai-chat after repair: accepted" in shown


def test_the_litellm_guard_sends_the_content_as_text() -> None:
    from integrity.guards.litellm import ToolCallIntegrityGuard

    for body, index in ((CASE["request"], 1), (RESULT, 2)):
        data = copy.deepcopy(body)
        snapshot = copy.deepcopy(data)
        out = asyncio.run(ToolCallIntegrityGuard().async_pre_call_hook(None, None, data, "completion"))
        assert data == snapshot  # the caller's history is left as it is
        assert json.loads(out["messages"][index]["content"]) == body["messages"][index]["content"]
        assert out["messages"][0] is data["messages"][0]  # unchanged messages are the caller's objects
        assert request_verdict(out["messages"], "openai-chat", "openai-chat").legal
        assert not request_verdict(data["messages"], "openai-chat", "openai-chat").legal
