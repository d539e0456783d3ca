"""Real recorded Anthropic requests get the verdict the API gave.

Each case in tests/provider_cases/anthropic_*.json is a request body a project recorded against the live
API, with its answer (source, path and commit in the file): opencode's pair of `[tool_use, text]`
(HTTP 400) and `[text, tool_use]` (HTTP 200) assistant turns, and pydantic-ai's requests with a `system`
message mid-conversation (HTTP 200).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity.providers import validate_native

CASES = Path(__file__).resolve().parent / "provider_cases"
SYSTEM_CASES = ["anthropic_system_mid_conversation", "anthropic_system_mid_conversation_anchor"]


def _case(name: str) -> dict[str, Any]:
    return json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))


def _body_file(tmp_path: Path, request: Any) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
    return path


# --- a tool_use followed by a text block in its assistant message (D1) ---


def test_the_rule_set_refuses_a_text_block_after_a_tool_use_with_the_recorded_text() -> None:
    case = _case("anthropic_text_after_tool_use")
    found = validate_native(case["request"]["messages"], "anthropic")
    assert case["status"] == 400
    assert [v.error for v in found] == [case["error"]]
    assert [(v.rule, v.position, v.call_ids) for v in found] == [("tool_use_not_last", "messages.1", ["call_1"])]


def test_the_same_request_with_the_text_first_is_accepted() -> None:
    case = _case("anthropic_text_before_tool_use")
    assert case["status"] == 200
    assert validate_native(case["request"]["messages"], "anthropic") == []


def test_check_says_the_recorded_refusal(tmp_path: Path) -> None:
    case = _case("anthropic_text_after_tool_use")
    result = run("check", "--provider", "anthropic", _body_file(tmp_path, case["request"]))
    lines = result.stdout.decode().splitlines()
    assert f"  anthropic as recorded: {case['error']}" in lines, lines
    assert result.code == 1


def test_a_request_opening_with_a_user_turn_names_the_assistant_turn_by_its_own_index() -> None:
    # the numbering the recorded refusal above is read against: without an opening assistant turn the
    # turn named is the assistant's own index (BerriAI/litellm#24361, the same shape relayed by Bedrock)
    messages = [{"role": "user", "content": "weather?"}, *_case("anthropic_text_after_tool_use")["request"]["messages"]]
    found = validate_native(messages, "anthropic")
    assert [(v.rule, v.position) for v in found] == [("tool_use_not_last", "messages.1")]


def test_only_the_calls_before_the_other_block_are_reported() -> None:
    use = lambda name: {"type": "tool_use", "id": name, "name": "f", "input": {}}  # noqa: E731
    answer = lambda name: {"type": "tool_result", "tool_use_id": name, "content": "ok"}  # noqa: E731
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [use("a"), {"type": "text", "text": "and"}, use("b")]},
                {"role": "user", "content": [answer("a"), answer("b")]}]
    assert [(v.rule, v.call_ids) for v in validate_native(messages, "anthropic")] == [("tool_use_not_last", ["a"])]
    # a text of a second assistant message of the same turn comes after the first one's call too
    split = [messages[0], {"role": "assistant", "content": [use("a")]},
             {"role": "assistant", "content": "and"}, {"role": "user", "content": [answer("a")]}]
    assert [(v.rule, v.position) for v in validate_native(split, "anthropic")] == [("tool_use_not_last", "messages.1")]


# --- a system message mid-conversation (D5a) ---


@pytest.mark.parametrize("name", SYSTEM_CASES)
def test_a_recorded_mid_conversation_system_message_is_read_and_accepted(tmp_path: Path, name: str) -> None:
    case = _case(name)
    assert case["status"] == 200 and case["request"]["messages"][-1]["role"] == "system"
    path = _body_file(tmp_path, case["request"])
    result = run("check", "--json", "--provider", "anthropic", path)
    report = json.loads(result.stdout)
    assert report["format"] == "anthropic" and report["findings"] == []
    assert report["as_recorded"] == {"anthropic": "accepted"}
    assert result.code == 0 and report["healthy"]


@pytest.mark.parametrize("name", SYSTEM_CASES)
def test_repair_writes_a_recorded_mid_conversation_system_message_back_as_it_was(tmp_path: Path, name: str) -> None:
    request = _case(name)["request"]
    out = tmp_path / "out.json"
    assert run("repair", _body_file(tmp_path, request), "-o", out).code == 0
    assert json.loads(out.read_text(encoding="utf-8")) == request
