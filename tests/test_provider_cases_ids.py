"""Two id rules of real providers: Mistral's undefined call ids, Bedrock's toolUseId length.

Mistral: mistral-common's request validator (mistralai/mistral-common,
src/mistral_common/protocol/instruct/validator.py, read at bc022b9), which the API runs in serving mode, reads a
tool call without an `id` as the id "null" (ToolCall.id defaults to "null") and refuses that id with "Tool call id
has to be defined in serving mode." (MistralRequestValidatorV3._validate_tool_call; seen from the API:
microsoft/autogen#2735, vercel/ai#2477); a tool message whose `tool_call_id` is missing or null gets "Tool call id
has to be defined." (_validate_tool_message; seen: langflow-ai/langflow#5335, Gage-Technologies/mistral-go#8, the
case in tests/provider_cases/mistral_tool_message_without_id.json, transcribed from the Go message structs the
issue quotes: the tool message's ToolCallID was an unexported field, so no `tool_call_id` was sent).  A tool
message's "null" is refused by the nine-character pattern (mistralai/client-js#69).

Bedrock: the Converse API refuses a `toolUse.toolUseId` or `toolResult.toolUseId` over 64 characters with AWS's
validation text, its list positions counted from 1 (BerriAI/litellm#34239, RooCodeInc/Roo-Code#10902).  The
pattern botocore's model gives (`[a-zA-Z0-9_.:-]+`, boto/botocore
botocore/data/bedrock-runtime/2023-09-30/service-2.json, shape ToolUseId) is not checked: its refusal's text for
this member was never seen, and a recorded 200 took `functions.get_temperature:0` (tests/recorded/bedrock.jsonl).

Every verdict is asserted on the full rules (validate_native), the CLI, and the pipeline's fast paths alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run
from provider_case_files import body_file as _file
from provider_case_files import case as _case
from provider_case_files import every_path_verdict
from provider_case_files import said as _said

from integrity import load
from integrity.providers import validate_native

SERVING = "Tool call id has to be defined in serving mode."
DEFINED = "Tool call id has to be defined."
NINE = "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of 9."





def _chat(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"model": "mistral-large-latest", "messages": [{"role": "user", "content": "hi"}, *messages]}


def _call(call_id: str | None) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "function", "function": {"name": "website", "arguments": "{}"}}
    if call_id is not None:
        call["id"] = call_id
    return {"role": "assistant", "content": "", "tool_calls": [call]}


def _tool(call_id: str | None, absent: bool = False) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "tool", "name": "website", "content": "ok"}
    if not absent:
        message["tool_call_id"] = call_id
    return message


# --- Mistral: the recorded refusal of a tool message without tool_call_id ---


def test_the_recorded_tool_message_without_an_id_gets_the_recorded_text() -> None:
    case = _case("mistral_tool_message_without_id")
    assert case["status"] == 400
    found = validate_native(case["request"]["messages"], "mistral", history=True, ids=True)
    assert _said(found) == [("undefined_result_id", "messages[2]", case["error"])]


def test_check_says_the_recorded_refusal_as_recorded(tmp_path: Path) -> None:
    case = _case("mistral_tool_message_without_id")
    result = run("check", "--provider", "mistral", _file(tmp_path, case["request"]))
    lines = result.stdout.decode().splitlines()
    assert f"  mistral as recorded: messages[2]: {case['error']}" in lines, lines
    assert result.code == 1


# --- Mistral: an assistant's call without an id, or with the id "null" ---

UNDEFINED = [
    # a call without `id` (read as "null"), answered by a tool message without tool_call_id: the validator's
    # content check meets the assistant message first (the text vercel/ai#2477 got), then the tool message
    pytest.param(_chat(_call(None), _tool(None, absent=True)),
                 [("undefined_call_id", "messages[1]", SERVING), ("undefined_result_id", "messages[2]", DEFINED)],
                 id="no-id-no-result-id"),
    pytest.param(_chat(_call(None), _tool(None)),  # tool_call_id: null is no id either
                 [("undefined_call_id", "messages[1]", SERVING), ("undefined_result_id", "messages[2]", DEFINED)],
                 id="no-id-null-result-id"),
    # the literal "null" is the validator's own reading of a missing id: refused alike; the result's "null" is
    # refused by the pattern.  A call without `id` answered by "null" pairs (no "Unexpected tool call id").
    pytest.param(_chat(_call("null"), _tool("null")),
                 [("undefined_call_id", "messages[1]", SERVING),
                  ("invalid_tool_call_id", "messages[2]", NINE.format(id="null"))], id="null-null"),
    pytest.param(_chat(_call(None), _tool("null")),
                 [("undefined_call_id", "messages[1]", SERVING),
                  ("invalid_tool_call_id", "messages[2]", NINE.format(id="null"))], id="no-id-null"),
]


@pytest.mark.parametrize(("body", "expected"), UNDEFINED)
def test_mistral_refuses_a_call_id_it_reads_as_null(body: dict[str, Any], expected: list[tuple[str, str, str]],
                                                      tmp_path: Path) -> None:
    assert _said(validate_native(body["messages"], "mistral", history=True, ids=True)) == expected
    result = run("check", "--provider", "mistral", _file(tmp_path, body))
    said = [line for line in result.stdout.decode().splitlines() if line.startswith("  mistral as recorded: ")]
    assert said == [f"  mistral as recorded: {position}: {error}" for _, position, error in expected]
    assert result.code == 1


def test_two_calls_without_ids_are_one_id_twice_to_the_validator() -> None:
    body = _chat({"role": "assistant", "content": "", "tool_calls": [_call(None)["tool_calls"][0]] * 2},
                 _tool("null"), _tool("null"))
    found = _said(validate_native(body["messages"], "mistral", history=True, ids=True))
    assert ("duplicate_call_id", "messages[1]", "Duplicate tool call id null in assistant message") in found
    assert found.count(("undefined_call_id", "messages[1]", SERVING)) == 2


def test_repair_renames_null_ids_for_mistral_and_the_repaired_file_is_accepted(tmp_path: Path) -> None:
    source = _file(tmp_path, _chat(_call("null"), _tool("null"), {"role": "assistant", "content": "done"}))
    out = tmp_path / "out.json"
    assert run("repair", "--provider", "mistral", source, "-o", out, "--now", "0").code == 0
    written = json.loads(out.read_text(encoding="utf-8"))["messages"]
    new_id = written[1]["tool_calls"][0]["id"]
    assert new_id != "null" and written[2]["tool_call_id"] == new_id
    assert validate_native(written, "mistral", history=True, ids=True) == []
    lines = run("check", "--provider", "mistral", out).stdout.decode().splitlines()
    assert "  mistral as recorded: accepted" in lines, lines


# --- the fast paths say what the full rules say (a pi-ai transcript judged toward a provider) ---


def _turn(number: int, call_id: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": f"question {number}"},
        {"role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": "f", "arguments": {}}],
         "stopReason": "toolUse"},
        {"role": "toolResult", "toolCallId": call_id, "toolName": "f", "content": [{"type": "text", "text": "ok"}],
         "isError": False},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop"},
    ]


def _transcript(ids: list[str]) -> bytes:
    return json.dumps([message for number, call_id in enumerate(ids) for message in _turn(number, call_id)]).encode()


_verdicts = every_path_verdict


@pytest.mark.parametrize("ids", [
    ["null"],
    [f"abc{n:06d}" if n != 100 else "null" for n in range(200)],  # one "null" among ids Mistral takes
    [f"call_{n}" if n != 100 else "null" for n in range(200)],  # among ids it refuses (another provider's)
], ids=["alone", "among-taken", "among-refused"])
def test_every_path_refuses_a_null_call_id_toward_mistral(ids: list[str]) -> None:
    said = _verdicts(_transcript(ids), "mistral")
    at = 4 * ids.index("null")
    before, after = said["general"]
    assert ("undefined_call_id", f"messages[{at + 1}]", SERVING) in before
    assert ("invalid_tool_call_id", f"messages[{at + 2}]", NINE.format(id="null")) in before
    assert not any(error == NINE.format(id="null") and position == f"messages[{at + 1}]"
                   for _, position, error in before)
    assert after == []
    assert said["sparse"] == said["bones"] == said["general"]


# --- Bedrock: toolUseId over 64 characters ---

LONG = "call_" + "x" * 60  # 65 characters


def _converse(call_id: str) -> dict[str, Any]:
    return {"messages": [
        {"role": "user", "content": [{"text": "weather?"}]},
        {"role": "assistant", "content": [{"text": "checking"},
                                          {"toolUse": {"toolUseId": call_id, "name": "weather", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": call_id, "content": [{"text": "sunny"}]}}]},
        {"role": "assistant", "content": [{"text": "sunny"}]},
    ]}


def _too_long(index: int, block: int, field: str) -> str:
    return (f"Value at 'messages.{index}.member.content.{block}.member.{field}.toolUseId' failed to satisfy "
            "constraint: Member must have length less than or equal to 64")


def test_bedrock_refuses_a_tool_use_id_over_64_characters_with_aws_text() -> None:
    """AWS answers a request's validation failures with one message: their count, then each clause joined by
    "; " (BerriAI/litellm#34239 quotes "4 validation errors detected: Value at 'messages.4.member.content.2.
    member.toolUse.toolUseId' ...; Value at ..."; one alone reads "1 validation error detected: ...")."""
    found = validate_native(_converse(LONG)["messages"], "bedrock", ids=True)
    assert _said(found) == [("tool_use_id_too_long", "messages.1.content.1",
                             "2 validation errors detected: " + _too_long(2, 2, "toolUse") + "; "
                             + _too_long(3, 1, "toolResult"))]
    assert found[0].native_indices == [1, 2] and found[0].call_ids == [LONG, LONG]
    one = [v for v in validate_native(_converse(LONG)["messages"][:2], "bedrock", ids=True) if v.rule.endswith("long")]
    assert _said(one) == [
        ("tool_use_id_too_long", "messages.1.content.1", "1 validation error detected: " + _too_long(2, 2, "toolUse"))]
    assert validate_native(_converse("x" * 64)["messages"], "bedrock", ids=True) == []


def test_bedrock_takes_the_recorded_ids_with_dots_and_colons() -> None:
    assert validate_native(_converse("functions.get_temperature:0")["messages"], "bedrock", ids=True) == []


def test_check_and_repair_toward_bedrock_rename_a_long_id(tmp_path: Path) -> None:
    source = _file(tmp_path, _converse(LONG))
    lines = run("check", "--provider", "bedrock", source).stdout.decode().splitlines()
    assert f"  bedrock as recorded: messages.1.content.1: 2 validation errors detected: {_too_long(2, 2, 'toolUse')}; "\
        f"{_too_long(3, 1, 'toolResult')}" in lines, lines
    assert "  bedrock after repair: accepted" in lines, lines
    out = tmp_path / "out.json"
    assert run("repair", "--provider", "bedrock", source, "-o", out, "--now", "0").code == 0
    written = json.loads(out.read_text(encoding="utf-8"))["messages"]
    use = written[1]["content"][1]["toolUse"]["toolUseId"]
    assert len(use) <= 64 and written[2]["content"][0]["toolResult"]["toolUseId"] == use
    assert validate_native(written, "bedrock", ids=True) == []
    again = run("check", "--provider", "bedrock", out)
    assert "  bedrock as recorded: accepted" in again.stdout.decode().splitlines()


@pytest.mark.parametrize("ids", [
    [LONG],
    [f"tooluse_{n:06d}" if n != 100 else LONG for n in range(200)],
], ids=["alone", "among-taken"])
def test_every_path_refuses_a_long_id_toward_bedrock(ids: list[str]) -> None:
    said = _verdicts(_transcript(ids), "bedrock")
    before, after = said["general"]
    assert [rule for rule, _, _ in before] == ["tool_use_id_too_long"]
    assert after == []
    assert said["sparse"] == said["bones"] == said["general"]


# --- a tool message without an id keeps answering the call before it ---


@pytest.mark.parametrize("provider", ["mistral", "openai-chat", "deepseek"])
def test_the_recorded_real_result_without_an_id_is_kept_and_sent_with_its_calls_id(tmp_path: Path,
                                                                                   provider: str) -> None:
    """mistral-go#8's tool message has no tool_call_id: the strict view pairs it by order with the call right
    before it (a Chat tool message names no tool) and sends it with that call's id, instead of dropping the
    weather it reports and answering the call with an interrupted receipt."""
    case = _case("mistral_tool_message_without_id")
    recorded = case["request"]["messages"]
    out = tmp_path / "out.json"
    result = run("repair", "--provider", provider, _file(tmp_path, case["request"]), "-o", out)
    assert result.code == 0, result.stderr
    sent = json.loads(out.read_text(encoding="utf-8"))["messages"]
    call_id = recorded[1]["tool_calls"][0]["id"]
    assert sent[2] == {**recorded[2], "tool_call_id": call_id}  # the real result, with its call's id
    assert len(sent) == len(recorded)  # no receipt added
    report = json.loads(run("check", "--json", "--provider", provider, _file(tmp_path, case["request"])).stdout)
    assert report["summary"]["synthesized"] == 0 and report["summary"]["strays_dropped"] == 0
    assert [f["kind"] for f in report["findings"]] == ["result_without_call_id"]  # the schema finding stays


@pytest.mark.parametrize("missing", [True, False], ids=["absent", "null"])
def test_a_pi_ai_result_without_a_call_id_pairs_by_order_in_the_strict_view(missing: bool) -> None:
    from integrity import analyze

    result: dict[str, Any] = {"role": "toolResult", "toolName": "ls", "content": [], "isError": False}
    if not missing:
        result["toolCallId"] = None
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}],
                 "stopReason": "toolUse"}, result]
    analysis = analyze(load(json.dumps(messages).encode(), "s.json"), "strict")
    assert analysis.view[2]["toolCallId"] == "c1" and analysis.view[2]["toolName"] == "ls"
    assert analysis.report.summary.synthesized == 0 and not analysis.report.synthesized
    reference = analyze(load(json.dumps(messages).encode(), "s.json"), "openmaic")
    assert reference.report.summary.synthesized == 1  # the reference's reading is unchanged (its vectors decide)
