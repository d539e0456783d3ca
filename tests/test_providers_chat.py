"""OpenAI Chat, DeepSeek and Mistral rule sets on the OpenAI Chat `messages` shape.

Each illegal case is minimal: it breaks exactly one rule, and we assert the whole
violation (rule, position, indices, ids, exact provider error text).
"""

from __future__ import annotations

from typing import Any

import pytest

from integrity.providers.strings import LIMIT as STRING_LIMIT
from tests.provider_cases import found, v


def U(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": text}


def A(*ids: str) -> dict[str, Any]:
    calls = [{"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def T(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def SAY(text: str = "done", **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": text, **extra}


OPENAI_UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: "
)

LEGAL = [
    ("openai-chat", [U(), A("a", "b"), T("a"), T("b"), SAY()]),
    ("openai-chat", [U(), A("a", "b"), T("b"), T("a"), SAY()]),
    ("openai-chat", [{"role": "system", "content": "s"}, U(), SAY(), U()]),
    # OpenAI matches results to the calls of the turn they follow, so an id reused in a later turn is accepted.
    ("openai-chat", [U(), A("a"), T("a"), U(), A("a"), T("a")]),
    ("deepseek", [U(), A("a", "b"), T("a"), T("b"), SAY(), U()]),
    ("deepseek", [{"role": "user", "content": [{"type": "text", "text": "hi"}]}, SAY()]),  # (text parts are read)
    # OpenAI and Mistral read an image part
    ("openai-chat", [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/a.png"}}]}]),
    ("mistral", [U(), A("a", "b"), T("a"), T("b"), SAY(), U()]),
    ("mistral", [U(), A("a"), T("a")]),
    ("mistral", [U(), SAY("Sure,", prefix=True)]),
]


@pytest.mark.parametrize("provider,request_", LEGAL)
def test_legal_requests_pass(provider: str, request_: list[dict[str, Any]]) -> None:
    assert found(request_, provider) == []


ILLEGAL = [
    pytest.param(
        "openai-chat", [U(), A("a", "b"), T("a"), U()],
        v("openai-chat", "tool_calls_unanswered", "messages.[3].role", [1, 2], ["b"], OPENAI_UNANSWERED + "b"),
        id="openai-unanswered"),
    pytest.param(
        "openai-chat", [U(), A("a", "b"), SAY()],
        v("openai-chat", "tool_calls_unanswered", "messages.[2].role", [1], ["a", "b"], OPENAI_UNANSWERED + "a, b"),
        id="openai-unanswered-two"),
    pytest.param(
        "openai-chat", [U(), A("a", "b"), T("b")],
        v("openai-chat", "tool_calls_unanswered", "messages", [1, 2], ["a"], OPENAI_UNANSWERED + "a"),
        id="openai-unanswered-at-end"),
    pytest.param(
        "openai-chat", [U(), T("x")],
        v("openai-chat", "tool_result_without_call", "messages.[1].role", [1], ["x"],
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."),
        id="openai-stray"),
    pytest.param(
        "openai-chat", [U(), A("a"), T("a"), T("x")],
        v("openai-chat", "tool_call_id_not_found", "messages.[3].tool_call_id", [1, 3], ["x"],
          "Invalid parameter: 'tool_call_id' of 'x' not found in 'tool_calls' of previous message."),
        id="openai-not-found"),
    pytest.param(
        "openai-chat", [U(), A("a"), T("a"), T("a")],
        v("openai-chat", "duplicate_tool_call_id", "messages.[3].tool_call_id", [2, 3], ["a"],
          "Invalid parameter: Duplicate value for 'tool_call_id' of 'a', in messages[2] and messages[3]."),
        id="openai-duplicate"),
    pytest.param(
        "openai-chat", [U(), {"role": "assistant", "content": "ok", "tool_calls": []}, U()],
        v("openai-chat", "tool_calls_empty", "messages[1].tool_calls", [1], [],
          "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, "
          "but got an empty array instead."),
        id="openai-empty-tool-calls"),
    pytest.param(
        "openai-chat", [U(), {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]},
            {"role": "tool", "tool_call_id": "a", "content": "ok"}],
        v("openai-chat", "arguments_not_text", "messages[1].tool_calls[0].function.arguments", [1], ["a"],
          "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, "
          "but got an object instead."),
        id="openai-arguments-object"),
    pytest.param(  # seen: langchain-ai/langchain-azure#35 (Azure OpenAI, tool calls written without their type)
        "openai-chat", [U(), {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "ok"}],
        v("openai-chat", "tool_call_type_missing", "messages[1].tool_calls[0].type", [1], ["a"],
          "Missing required parameter: 'messages[1].tool_calls[0].type'."),
        id="openai-call-type-missing"),
    pytest.param(  # seen: mcp-use/mcp-use#90 (param messages[9].tool_calls[0].function.name, code invalid_value)
        "openai-chat", [U(), {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "search.web", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "ok"}],
        v("openai-chat", "function_name_pattern", "messages[1].tool_calls[0].function.name", [1], ["a"],
          "Invalid 'messages[1].tool_calls[0].function.name': string does not match pattern. Expected a string "
          "that matches the pattern '^[a-zA-Z0-9_-]+$'."),
        id="openai-function-name-pattern"),
    pytest.param(  # seen: a workshop's notes on a 79-character MCP name, a project's regression test (70)
        "openai-chat", [U(), {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "n" * 79, "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "ok"}],
        v("openai-chat", "function_name_too_long", "messages[1].tool_calls[0].function.name", [1], ["a"],
          "Invalid 'messages[1].tool_calls[0].function.name': string too long. Expected a string with maximum "
          "length 64, but got a string with length 79 instead."),
        id="openai-function-name-too-long"),
    pytest.param(  # seen: QwenLM/qwen-code#879 (messages.[4] after a history compression: a result as an object)
        "openai-chat", [U(), A("a"), {"role": "tool", "tool_call_id": "a", "content": {"rows": 3}}],
        v("openai-chat", "content_not_text", "messages[2].content", [2], [],
          "Invalid type for 'messages[2].content': expected one of a string or array of objects, "
          "but got an object instead."),
        id="openai-content-object"),
    pytest.param(
        "deepseek", [U(), A("a"), U()],
        v("deepseek", "tool_calls_unanswered", "message[1]", [1], ["a"],
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
          "'tool_call_id'. (insufficient tool messages following tool_calls message)"),
        id="deepseek-unanswered"),
    pytest.param(
        "deepseek", [U(), T("x")],
        v("deepseek", "tool_result_without_call", "message[1]", [1], ["x"],
          "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"),
        id="deepseek-stray"),
    pytest.param(
        "deepseek", [U(), A("a"), T("a"), U(), A("a"), T("a")],
        v("deepseek", "duplicate_tool_call_id", "message[5]", [2, 5], ["a"],
          "Duplicate value for 'tool_call_id' of a in message[5]"),
        id="deepseek-duplicate-across-turns"),
    pytest.param(  # a screenshot in the history: DeepSeek reads text parts only (esengine/DeepSeek-Reasonix#7859);
        # only the first part it cannot read is reported (the body is refused there)
        "deepseek", [U(), A("a"), T("a"), {"role": "user", "content": [
            {"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
            {"type": "input_audio", "input_audio": {"data": "AA==", "format": "wav"}}]}, U(), SAY()],
        v("deepseek", "content_part_not_text", "messages[3]", [3], [],
          "Failed to deserialize the JSON body into the target type: messages[3]: unknown variant `image_url`, "
          "expected `text`"),
        id="deepseek-image-part"),
    pytest.param(  # parallel calls stored as one assistant message each (NousResearch/hermes-agent#29148)
        "deepseek", [U(), A("a"), A("b"), T("a"), T("b")],
        v("deepseek", "tool_calls_unanswered", "message[1]", [1], ["a"],
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
          "'tool_call_id'. (insufficient tool messages following tool_calls message)"),
        id="deepseek-interleaved-call-run"),
    pytest.param(
        "mistral", [U(), A("a", "b"), T("a")],
        v("mistral", "call_response_count_mismatch", "messages[1]", [1, 2], ["a", "b"],
          "Not the same number of function calls and responses"),
        id="mistral-count"),
    pytest.param(  # mistral-common's v13 validator (the API's) stops at the second answer, before it counts
        "mistral", [U(), A("a"), T("a"), T("a")],
        v("mistral", "duplicate_result_id", "messages[3]", [1, 3], ["a"], "Duplicate tool call id a in tool results"),
        id="mistral-count-extra-result"),
    pytest.param(  # pydantic/pydantic-ai#3733: devstral-2512 answered this text
        "mistral", [U(), A("a"), T("b")],
        v("mistral", "unexpected_tool_call_id", "messages[2]", [1, 2], ["b"],
          "Unexpected tool call id b in tool results"),
        id="mistral-result-for-another-call"),
    pytest.param(
        "mistral", [U(), A("a", "a"), T("a")],
        v("mistral", "duplicate_call_id", "messages[1]", [1], ["a"],
          "Duplicate tool call id a in assistant message"),
        id="mistral-call-id-twice-in-a-turn"),
    pytest.param(
        "mistral", [T("x")],
        v("mistral", "call_response_count_mismatch", "messages[0]", [0], ["x"],
          "Not the same number of function calls and responses"),
        id="mistral-result-first"),
    pytest.param(
        "mistral", [U(), T("x")],
        v("mistral", "unexpected_role_order", "messages[1]", [0, 1], ["x"], "Unexpected role 'tool' after role 'user'"),
        id="mistral-tool-after-user"),
    pytest.param(
        "mistral", [U(), A("a"), T("a"), U()],
        v("mistral", "unexpected_role_order", "messages[3]", [2, 3], [], "Unexpected role 'user' after role 'tool'"),
        id="mistral-user-after-tool"),
    pytest.param(
        "mistral", [U(), SAY()],
        v("mistral", "last_role_assistant", "messages[1]", [1], [],
          "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant"),
        id="mistral-last-assistant"),
    # seen: "Invalid 'messages[1].content': string too long. ... length 11818940" (a tool's output of a large file)
    pytest.param(
        "openai-chat", [U(), A("a"), {"role": "tool", "tool_call_id": "a", "content": "x" * (STRING_LIMIT + 1)}],
        v("openai-chat", "string_too_long", "messages[2].content", [2], [],
          "Invalid 'messages[2].content': string too long. Expected a string with maximum length 10485760, "
          "but got a string with length 10485761 instead."),
        id="openai-string-too-long"),
    pytest.param(
        "openai-chat", [{"role": "user", "content": [{"type": "text", "text": "hi"},
                                                     {"type": "text", "text": "y" * (STRING_LIMIT + 7)}]}],
        v("openai-chat", "string_too_long", "messages[0].content[1].text", [0], [],
          "Invalid 'messages[0].content[1].text': string too long. Expected a string with maximum length 10485760, "
          "but got a string with length 10485767 instead."),
        id="openai-text-part-too-long"),
    pytest.param(
        "openai-chat", [U(), {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "write", "arguments": "z" * (STRING_LIMIT + 1)}}]},
            T("a"), T("b")],
        v("openai-chat", "string_too_long", "messages[1].tool_calls[1].function.arguments", [1], [],
          "Invalid 'messages[1].tool_calls[1].function.arguments': string too long. Expected a string with maximum "
          "length 10485760, but got a string with length 10485761 instead."),
        id="openai-arguments-too-long"),
    # seen, quoted whole in many reports: a Gemini `model` role sent on to OpenAI
    pytest.param(
        "openai-chat", [U(), {"role": "model", "content": "done"}],
        v("openai-chat", "role_invalid", "messages[1].role", [1], [],
          "Invalid value: 'model'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and "
          "'developer'."),
        id="openai-role-invalid"),
    # seen, quoted whole: a tool's list of objects sent on as content parts
    pytest.param(
        "openai-chat", [U(), {"role": "assistant", "content": "ok"}, {"role": "user", "content": [{"foo": 1}]}],
        v("openai-chat", "content_part_type_missing", "messages[2].content[0].type", [2], [],
          "Missing required parameter: 'messages[2].content[0].type'."),
        id="openai-content-part-type-missing"),
    # recorded in a proxy's conformance table of direct API answers; quoted in vercel/ai#5526 (a tool result of none)
    pytest.param(
        "openai-chat", [U(), A("a"), {"role": "tool", "tool_call_id": "a", "content": None}],
        v("openai-chat", "content_missing", "messages.[2].content", [2], [],
          "Invalid value for 'content': expected a string, got null."),
        id="openai-content-missing"),
    pytest.param(
        "openai-chat", [U(), {"role": "developer"}],
        v("openai-chat", "developer_content_missing", "messages[1].content", [1], [],
          "Missing required parameter: 'messages[1].content'."),
        id="openai-developer-content-missing"),
    pytest.param(
        "openai-chat", [U(), {"role": "developer", "content": None}],
        v("openai-chat", "developer_content_null", "messages[1].content", [1], [],
          "Invalid type for 'messages[1].content': expected one of a string or array of objects, but got null "
          "instead."),
        id="openai-developer-content-null"),
    # seen, quoted whole in many agents' code: strands-agents/sdk-python#320 (a tool that returned an image)
    pytest.param(
        "openai-chat", [U(), A("a"), {"role": "tool", "tool_call_id": "a", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}],
        v("openai-chat", "image_not_user", "messages[2]", [2], [],
          "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', but this message with "
          "role 'tool' contains an image URL."),
        id="openai-image-not-user"),
    # seen, quoted whole: BigPizzaV3/CodexPlusPlus#1731 (a system message of null content); HKUDS/nanobot#3869
    pytest.param(
        "deepseek", [U(), A("a"), {"role": "tool", "tool_call_id": "a", "content": None}],
        v("deepseek", "content_null", "messages[2]", [2], [],
          "Failed to deserialize the JSON body into the target type: messages[2]: content should be a string or a "
          "list"),
        id="deepseek-content-null"),
]


@pytest.mark.parametrize("provider,request_,expected", ILLEGAL)
def test_minimal_illegal_request_yields_exactly_that_violation(
    provider: str, request_: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    assert found(request_, provider) == [expected]


def test_a_user_message_between_call_and_result_is_two_openai_errors_in_order() -> None:
    request = [U(), A("a"), U("wait"), T("a")]
    assert [(x["rule"], x["position"]) for x in found(request, "openai-chat")] == [
        ("tool_calls_unanswered", "messages.[2].role"),
        ("tool_result_without_call", "messages.[3].role"),
    ]


@pytest.mark.parametrize("bad_id", [None, 7])
def test_openai_tool_message_without_a_string_id_is_a_missing_parameter(bad_id: Any) -> None:
    tool = {"role": "tool", "content": "ok"} if bad_id is None else {"role": "tool", "tool_call_id": bad_id,
                                                                      "content": "ok"}
    assert found([U(), A("a"), T("a"), tool], "openai-chat") == [
        v("openai-chat", "tool_call_id_missing", "messages.[3].tool_call_id", [3], [],
          "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.")]


def test_a_call_without_an_id_reads_as_the_empty_id_and_pairs_with_an_empty_tool_call_id() -> None:
    request = [U(), {"role": "assistant", "tool_calls": [{"type": "function"}]}, T("")]
    assert found(request, "openai-chat") == []


def test_a_screenshot_in_a_chat_history_is_refused_by_deepseek_alone(tmp_path: Any,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A Chat history with an image part: OpenAI reads it (exit 0), DeepSeek refuses the body at the part.  The view
    planned for DeepSeek, whose models read text alone, sends the message with a text in place of the image (pi sends
    such a model none either; the durable file keeps it): it once kept the image, and every later request of the
    session was refused."""
    import json

    from integrity.cli import main

    path = tmp_path / "screenshot.json"
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    path.write_text(json.dumps([
        {"role": "user", "content": [{"type": "text", "text": "what is on this screen?"}, image]},
        A("call_1"), T("call_1"), SAY("A login form.")]), encoding="utf-8")
    assert main(["check", str(path)]) == 0
    capsys.readouterr()
    assert main(["check", "--provider", "deepseek", str(path)]) == 1
    out = capsys.readouterr().out
    assert "deepseek as recorded: Failed to deserialize the JSON body into the target type: " \
           "messages[0]: unknown variant `image_url`, expected `text`" in out
    view = tmp_path / "view.json"
    assert main(["repair", "--provider", "deepseek", "-o", str(view), str(path)]) == 0  # (what it wrote passes)
    assert json.loads(view.read_text(encoding="utf-8"))[0]["content"] == [
        {"type": "text", "text": "what is on this screen?"},
        {"type": "text", "text": "(1 image(s) left out: the provider takes no image)"}]
    assert main(["check", "--provider", "deepseek", str(view)]) == 0
    assert image in json.loads(path.read_text(encoding="utf-8"))[0]["content"]  # the input is never changed
