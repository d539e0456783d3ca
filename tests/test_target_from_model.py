"""The target provider of a request file follows the `model` it names when that provider reads the same format.

A Chat Completions body for `deepseek-chat` goes to DeepSeek, whose rules are stricter than OpenAI's (an id a
later turn reuses is refused); judging it by OpenAI Chat called a request DeepSeek answers 400 healthy.  The
recorded case: pydantic-ai's DeepSeek Responses cassette, whose whole body names `deepseek-v4-flash` and got
"No tool output found for tool call call-a."
(tests/provider_cases/deepseek-responses_interleaved_calls_whole_body.json).
A model of another request format (a Claude model in a Chat Completions body: a proxy translates it) leaves the
format to decide.  One reading of model names: integrity.providers.models, which the guards use too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity.guards import provider_for_model

CASES = Path(__file__).resolve().parent / "provider_cases"


def _reused_id(model: str | None) -> dict[str, Any]:
    """Two turns calling with the same id `call_0`: DeepSeek refuses it, OpenAI takes it."""
    call = {"id": "call_0", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    body: dict[str, Any] = {"messages": [
        {"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_0", "content": "a"}, {"role": "user", "content": "again"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_0", "content": "b"}, {"role": "assistant", "content": "done"}]}
    if model is not None:
        body["model"] = model
    return body


def _write(tmp_path: Path, body: dict[str, Any]) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


@pytest.mark.parametrize(("model", "target", "code"), [
    ("deepseek-chat", "deepseek", 1), ("deepseek-reasoner", "deepseek", 1),
    ("gpt-4o", "openai-chat", 0), (None, "openai-chat", 0),
    ("claude-sonnet-4-5", "openai-chat", 0),  # another request format: a proxy translates it; the format decides
])
def test_a_chat_request_is_judged_by_the_provider_its_model_names(tmp_path: Path, model: str | None, target: str,
                                                                  code: int) -> None:
    path = _write(tmp_path, _reused_id(model))
    result = run("check", path)
    assert result.code == code, result.stdout
    report = json.loads(run("check", "--json", path).stdout)
    assert report["provider"] == target and report["as_recorded"] == {target: "rejected" if code else "accepted"}
    assert report["verdict"].endswith(f"as recorded by {target}")


def test_the_recorded_deepseek_responses_refusal_is_the_verdict_of_its_whole_body(tmp_path: Path) -> None:
    case = json.loads((CASES / "deepseek-responses_interleaved_calls_whole_body.json").read_text(encoding="utf-8"))
    assert case["status"] == 400 and case["request"]["model"] == "deepseek-v4-flash"
    path = _write(tmp_path, case["request"])
    result = run("check", path)
    assert result.code == 1
    assert result.stdout.decode().splitlines()[0].endswith("rejected as recorded by deepseek-responses")
    said = run("check", "--provider", "deepseek-responses", path).stdout.decode().splitlines()
    assert f"  deepseek-responses as recorded: input[1]: {case['error']}" in said
    out = tmp_path / "out.json"
    assert run("repair", path, "-o", out).code == 0  # its target without --provider: the repair is DeepSeek's
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [item.get("type", item.get("role")) for item in written["input"]] == [
        "assistant", "assistant", "function_call", "function_call", "function_call_output", "function_call_output",
        "user"]
    assert written["model"] == "deepseek-v4-flash"
    assert run("check", out).code == 0


def test_a_mistral_model_brings_mistrals_turn_rules(tmp_path: Path) -> None:
    """Mistral refuses a user message right after tool messages (its role order); OpenAI does not."""
    body = {"model": "mistral-large-latest", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "abcdefghi", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "abcdefghi", "content": "a"}, {"role": "user", "content": "more"}]}
    path = _write(tmp_path, body)
    report = json.loads(run("check", "--json", path).stdout)
    assert report["provider"] == "mistral" and report["as_recorded"] == {"mistral": "rejected"}
    assert report["summary"]["turns_synthesized"] == 1
    body["model"] = "gpt-4.1"
    assert json.loads(run("check", "--json", _write(tmp_path, body)).stdout)["provider"] == "openai-chat"


def test_the_batch_the_triage_table_and_the_guards_read_the_model_alike(tmp_path: Path) -> None:
    from inspector.batch import summarize_all
    from integrity import check, load

    data = json.dumps(_reused_id("deepseek-chat")).encode()
    [row] = summarize_all("request.json", data)
    assert row["verdict"].endswith("rejected as recorded by deepseek")
    transcript = load(data, "request.json")
    assert transcript.model == "deepseek-chat" and check(transcript).target == "deepseek"
    assert provider_for_model(transcript.model) == "deepseek"  # the guards' reading of the same name
