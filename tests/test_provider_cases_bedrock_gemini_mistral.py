"""Real recorded Bedrock, Gemini and Mistral requests (answered 200) get the verdict the provider gave.

Each case in tests/provider_cases/ is a request body pydantic-ai recorded with the provider's answer
(source, path and commit in the file).  A request the provider accepted must be read as its format,
with no malformed finding and no invented receipt, and `repair` must not turn it into one the
provider's rules reject.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run
from provider_case_files import body_file as _body_file
from provider_case_files import case as _case

from integrity.formats import detect, read_bytes
from integrity.formats.bedrock import answered_in_place
from integrity.providers import validate_native


def _check(path: Path, provider: str) -> tuple[int, list[str], dict[str, Any]]:
    """check's exit code, its text lines and its JSON report, for one file and one target provider."""
    text = run("check", "--provider", provider, path)
    report = run("check", "--json", "--provider", provider, path)
    assert text.code == report.code, (text.stdout, text.stderr)
    return text.code, text.stdout.decode().splitlines(), json.loads(report.stdout)


# --- Bedrock: a server tool's toolUse answered by its toolResult in the same assistant message (D2) ---

BEDROCK = "bedrock_server_tool_in_place"
SERVER_USE = "tooluse_dV5ehBNfl1hUE-UTM9cIww"  # Nova's code interpreter, answered inside message 1


def test_the_recorded_bedrock_server_tool_request_is_accepted_before_and_after_repair(tmp_path: Path) -> None:
    case = _case(BEDROCK)
    assert case["status"] == 200 and validate_native(case["request"]["messages"], "bedrock") == []
    code, lines, report = _check(_body_file(tmp_path, case["request"]), "bedrock")
    assert "  bedrock as recorded: accepted" in lines
    assert "  bedrock after repair: accepted" in lines, lines
    assert code == 0 and report["format"] == "bedrock"
    summary = report["summary"]
    # the server tool's use is no client call: one call (final_result), answered, nothing synthesized
    assert (summary["calls"], summary["orphaned_calls"], summary["synthesized"]) == (1, 0, 0)
    assert [p["call_id"] for p in report["pairings"]] == ["tooluse_DaRsVjwcShCI_3pOsIsWqg"]


def test_repair_keeps_the_server_tools_use_and_result_in_place_and_adds_no_result(tmp_path: Path) -> None:
    request = _case(BEDROCK)["request"]
    out = tmp_path / "out.json"
    assert run("repair", _body_file(tmp_path, request), "-o", out, "--now", "0").code == 0
    written = json.loads(out.read_text(encoding="utf-8"))["messages"]
    assert validate_native(written, "bedrock") == []
    assert written[1] == request["messages"][1]  # the assistant message, both server blocks, as recorded
    answers = [b["toolResult"]["toolUseId"] for m in written[2:] for b in m["content"] if "toolResult" in b]
    assert answers == ["tooluse_DaRsVjwcShCI_3pOsIsWqg"]


def test_the_reader_keeps_a_server_tools_use_answered_in_place_as_it_is() -> None:
    request = _case(BEDROCK)["request"]
    assert answered_in_place(request["messages"][1]["content"]) == {SERVER_USE}
    messages = read_bytes(json.dumps(request).encode(), "bedrock").messages
    frame = next(m for m in messages if m["role"] == "assistant")
    calls = [p["id"] for p in frame["content"] if p.get("type") == "toolCall"]
    assert calls == ["tooluse_DaRsVjwcShCI_3pOsIsWqg"]


def test_a_server_tools_use_without_its_result_is_a_call_the_next_message_must_answer(tmp_path: Path) -> None:
    """The reader and the rule set read the same fact: without the in-place toolResult (cut from the
    recorded request), Bedrock's rules expect it in the next message and the reader sees an unanswered call."""
    request = _case(BEDROCK)["request"]
    frame = request["messages"][1]
    frame["content"] = [b for b in frame["content"] if "toolResult" not in b]
    code, lines, report = _check(_body_file(tmp_path, request), "bedrock")
    assert "  bedrock as recorded: Expected toolResult blocks at messages.2.content for the " \
           f"following Ids: {SERVER_USE}" in lines, lines
    assert "  bedrock after repair: accepted" in lines
    assert code == 1 and report["summary"]["orphaned_calls"] == 1


# --- Gemini: a built-in tool's toolCall / toolResponse parts (D5c) ---

GEMINI = "gemini_builtin_tool_parts"


def test_the_recorded_gemini_request_with_built_in_tool_parts_is_healthy(tmp_path: Path) -> None:
    case = _case(GEMINI)
    assert case["status"] == 200
    path = _body_file(tmp_path, case["request"])
    code, lines, report = _check(path, "gemini")
    assert report["findings"] == [] and not any("malformed" in line for line in lines), lines
    assert code == 0 and report["format"] == "gemini"
    out = tmp_path / "out.json"
    assert run("repair", path, "-o", out).code == 0
    assert out.read_bytes() == path.read_bytes()  # an accepted request is written back as it was


def test_built_in_tool_parts_are_judged_in_either_spelling_and_a_wrong_shape_is_still_malformed(
        tmp_path: Path) -> None:
    request = _case(GEMINI)["request"]
    parts = request["contents"][1]["parts"]
    parts[1]["tool_call"] = parts[1].pop("toolCall")  # the Python SDK's snake_case dump
    parts[2]["tool_response"] = parts[2].pop("toolResponse")
    assert _check(_body_file(tmp_path, request, "snake.json"), "gemini")[2]["findings"] == []
    parts[1]["tool_call"] = "not an object"
    _, lines, report = _check(_body_file(tmp_path, request, "bad.json"), "gemini")
    assert [(f["kind"], f["path"]) for f in report["findings"]] == [
        ("invalid_content", "contents[1].parts[1].tool_call")], report["findings"]
    assert any("malformed: message 1 (line 1): 'parts[1].tool_call' is a string" in line for line in lines), lines


# --- Mistral: a Magistral request with a thinking chunk, in its request envelope (D5d) ---

MISTRAL = "mistral_magistral_thinking"


def test_the_recorded_magistral_request_is_read_as_the_chat_request_it_is(tmp_path: Path) -> None:
    case = _case(MISTRAL)
    assert case["status"] == 200 and "model" in case["request"]
    code, lines, report = _check(_body_file(tmp_path, case["request"]), "mistral")
    assert report["format"] == "openai-chat" and report["findings"] == [], (lines, report["findings"])
    assert not any("anthropic" in line for line in lines), lines
    assert "  mistral as recorded: accepted" in lines and code == 0


@pytest.mark.parametrize("drop", [(), ("tool_calls",), ("tool_calls", "prefix")])
def test_a_mistral_thinking_chunk_is_chat_evidence_with_or_without_the_model_and_tool_calls(
        drop: tuple[str, ...]) -> None:
    request = _case(MISTRAL)["request"]
    for key in drop:
        del request["messages"][1][key]
    assert detect(request) == "openai-chat"
    assert detect(request["messages"]) == "openai-chat"


def test_a_tool_use_id_that_is_an_array_is_an_entry_error_not_an_internal_error(tmp_path: Path) -> None:
    """Found by tests/test_fuzz.py: the in-place answer check looked a toolUseId up in a set before knowing it is a
    string, and an array there was an internal error (exit 70) instead of the reader's one-line error."""
    body = {"modelId": "amazon.nova-lite-v1:0", "messages": [
        {"role": "user", "content": [{"text": "q"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": [[]], "name": "f", "input": {}}}]}]}
    path = tmp_path / "converse.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    result = run("check", path)
    assert result.code == 2 and "internal error" not in str(result.stderr)
    assert "'toolUseId' must be a string, got an array" in str(result.stderr)
