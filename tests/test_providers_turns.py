"""Gemini `contents` and OpenAI Responses `input` rule sets.

Each illegal case is minimal: it breaks exactly one rule, and we assert the whole
violation (rule, position, indices, ids, exact provider error text).
"""

from __future__ import annotations

from typing import Any

import pytest

from integrity.providers.strings import LIMIT as STRING_LIMIT
from tests.provider_cases import found, v

# --- Gemini ------------------------------------------------------------------

def GU(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def GM(text: str = "done") -> dict[str, Any]:
    return {"role": "model", "parts": [{"text": text}]}


def GC(*names: str, ids: bool = False, signed: bool = True) -> dict[str, Any]:
    """A model step of calls, its first carrying a thought signature as Gemini 3 writes it (signed=False: none)."""
    parts: list[dict[str, Any]] = [{"functionCall": {"name": n, "args": {}, **({"id": f"id-{n}"} if ids else {})}}
                                   for n in names]
    if signed and parts:
        parts[0]["thoughtSignature"] = "c2ln"
    return {"role": "model", "parts": parts}


def GR(*names: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "parts": [{"functionResponse": {"name": n, "response": {}}} for n in names]}


COUNT = ("Please ensure that the number of function response parts is equal to the number of function call parts "
         "of the function call turn.")
CALL_POSITION = ("Please ensure that function call turn comes immediately after a user turn or after a function "
                 "response turn.")
RESPONSE_POSITION = "Please ensure that function response turn comes immediately after a function call turn."

GEMINI_LEGAL = [
    [GU(), GC("f", "g"), GR("g", "f"), GM()],
    [GU(), GC("f"), GR("f"), GC("g"), GR("g"), GM()],
    # snake_case parts, as the Python SDK serializes them
    [GU(), {"role": "model", "parts": [{"function_call": {"name": "f"}, "thought_signature": "c2ln"}]},
     {"role": "user", "parts": [{"function_response": {"name": "f", "response": {}}}]}],
    # a recorded request with the real functionResponse in the model turn that made the call (HTTP 200)
    [GU(), {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}},
                                       {"functionResponse": {"name": "f", "response": {"output": "ok"}}}]},
     GU("thanks"), GM()],
    [GU(), {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "c2ln"},
                                       {"functionResponse": {"name": "f", "response": {}}}]},
     GC("g"), GR("g"), GM()],
    # Gemini 3 judges the signatures of the current turn alone: an unsigned call before the last user text is taken
    [GU(), GC("f", signed=False), GR("f"), GM(), GU("go on"), GC("g"), GR("g")],
    # Consecutive contents of one role are one turn (recorded, HTTP 200): a model text then a call,
    # two call contents answered by one response content, three responses in three user contents.
    [GU(), GM("thinking"), GC("f"), GR("f")],
    [GU(), GC("f"), GC("g"), GR("f", "g"), GM()],
    [GU(), GC("f", "g", "h"), GR("f"), GR("g"), GR("h"), GU("go on")],
]

GEMINI_ILLEGAL = [
    # seen: egoist/chatwise-releases#250 quotes the whole answer ("* GenerateContentRequest.contents[1].parts: ...")
    pytest.param([GU(), {"role": "model", "parts": []}, GU("again")],
                 v("gemini", "parts_empty", "contents[1].parts", [1], [],
                   "* GenerateContentRequest.contents[1].parts: contents.parts must not be empty."),
                 id="parts-empty"),
    # seen: many reports quote it whole with Gemini 3 models ("position 2": the content's 1-based index)
    pytest.param([GU(), GC("f", "g", ids=True, signed=False), GR("f", "g")],
                 v("gemini", "thought_signature_missing", "contents[1].parts[0]", [1], ["id-f"],
                   "Function call is missing a thought_signature in functionCall parts. This is required for tools to "
                   "work correctly, and missing thought_signature may lead to degraded model performance. Additional "
                   "data, function call `default_api:f` , position 2. Please refer to "
                   "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."),
                 id="thought-signature-missing"),
    pytest.param([GU(), GC("f", "g"), GR("f")],
                 v("gemini", "function_response_count_mismatch", "contents[2]", [1, 2], [], COUNT), id="count"),
    pytest.param([GU(), GC("f", ids=True), GU("never mind")],
                 v("gemini", "function_response_count_mismatch", "contents[2]", [1, 2], ["id-f"], COUNT),
                 id="count-user-text-after-call"),
    pytest.param([GU(), GC("f")],
                 v("gemini", "function_response_count_mismatch", "contents[1]", [1], [], COUNT),
                 id="count-call-at-end"),
    pytest.param([GC("f"), GR("f")],
                 v("gemini", "function_call_turn_position", "contents[0]", [0], [], CALL_POSITION),
                 id="call-first"),
    pytest.param([GU(), GM("ok"), GC("f"), GR("f"), GR("x")],
                 v("gemini", "function_response_count_mismatch", "contents[3]", [1, 2, 3, 4], [], COUNT),
                 id="count-over-combined-turns"),
    pytest.param([GU(), GR("f")],
                 v("gemini", "function_response_turn_position", "contents[1]", [0, 1], [], RESPONSE_POSITION),
                 id="response-without-call"),
    # seen in reports quoting the API's fieldViolations: a tool's text stored as the response itself
    pytest.param([GU(), GC("f"), {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": "sunny"}}]}],
                 v("gemini", "function_response_not_object", "contents[2].parts[0].function_response.response", [2],
                   [], "Invalid value at 'contents[2].parts[0].function_response.response' "
                       "(type.googleapis.com/google.protobuf.Struct), \"sunny\""),
                 id="response-not-object"),
    # seen: blakeblackshear/frigate#24013 quotes it whole (Gemini Flash 3.7); Gemini 2.x takes it (test_gemini_roles)
    pytest.param([GU(), GC("f"), GR("f", role="function"), GM()],
                 v("gemini", "role_invalid", "contents[2].role", [2], [],
                   "Role 'function' is not supported. Please use a valid role: SYSTEM, SYSTEM_1, USER, ASSISTANT, "
                   "DEVELOPER, CONTEXT, USER_CONTEXT, MODEL, USER."),
                 id="role-function"),
]


@pytest.mark.parametrize("request_", GEMINI_LEGAL)
def test_gemini_legal_requests_pass(request_: list[dict[str, Any]]) -> None:
    assert found(request_, "gemini") == []


@pytest.mark.parametrize("request_,expected", GEMINI_ILLEGAL)
def test_gemini_minimal_illegal_request_yields_exactly_that_violation(
    request_: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    assert found(request_, "gemini") == [expected]


# --- OpenAI Responses ----------------------------------------------------------

def MSG(role: str = "user", text: str = "hi") -> dict[str, Any]:
    return {"role": role, "content": text}


def FC(call_id: str, item_id: str = "") -> dict[str, Any]:
    item = {"type": "function_call", "call_id": call_id, "name": "f", "arguments": "{}"}
    return {**item, "id": item_id} if item_id else item


def FO(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "ok"}


def CUSTOM(call_id: str) -> dict[str, Any]:
    return {"type": "custom_tool_call", "call_id": call_id, "name": "apply_patch", "input": "*** Begin Patch"}


def SHELL(call_id: str) -> dict[str, Any]:
    return {"type": "local_shell_call", "call_id": call_id, "status": "completed",
            "action": {"type": "exec", "command": ["ls"], "env": {}}}


def REASONING(item_id: str = "rs_1") -> dict[str, Any]:
    return {"type": "reasoning", "id": item_id, "summary": []}


RESPONSES_LEGAL = [
    [MSG(), FC("a"), FC("b"), FO("a"), FO("b"), MSG("assistant", "done")],
    # recorded (HTTP 200): the reasoning item followed by its own message, with the message's id
    [MSG(), REASONING(), {**MSG("assistant", "3"), "type": "message", "id": "msg_1"}, MSG()],
    # recorded (HTTP 200): an output may answer a tool_search_call
    [MSG(), {"type": "tool_search_call", "call_id": "s1", "arguments": {}}, FO("s1"), MSG()],
    [MSG(), {"type": "reasoning", "id": "rs_1", "summary": []}, FC("a", "fc_1"), FO("a"), FC("b", "fc_2"), FO("b")],
    # Responses pairs by call_id, not adjacency: a message between a call and its output is accepted.
    [MSG(), FC("a"), {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}, FO("a")],
    # a custom tool call answered by its custom output; Codex answers its local shell call with a function_call_output
    [MSG(), CUSTOM("c1"), {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"}, MSG()],
    [MSG(), SHELL("s1"), FO("s1"), MSG()],
]

RESPONSES_ILLEGAL = [
    # recorded (pydantic-ai, HTTP 400): the reasoning item's message was rewritten and lost its id
    pytest.param([MSG(), REASONING(), MSG("assistant", "42"), MSG()],
                 v("openai-responses", "reasoning_without_following_item", "input[1]", [1, 2], [],
                   "Item 'rs_1' of type 'reasoning' was provided without its required following item."),
                 id="reasoning-without-its-message"),
    pytest.param([MSG(), FC("a")],
                 v("openai-responses", "function_call_unanswered", "input[1]", [1], ["a"],
                   "No tool output found for function call a."), id="unanswered"),
    pytest.param([MSG(), FO("x")],
                 v("openai-responses", "function_call_output_without_call", "input[1]", [1], ["x"],
                   "No tool call found for function call output with call_id x."), id="output-without-call"),
    # seen: diegosouzapw/OmniRoute#8946, Soju06/codex-lb#1168 (a custom tool call left without its output)
    pytest.param([MSG(), CUSTOM("c1"), MSG()],
                 v("openai-responses", "custom_tool_call_unanswered", "input[1]", [1], ["c1"],
                   "No tool output found for custom tool call c1."), id="custom-unanswered"),
    # seen: openai/openai-agents-python#1855 (the local shell command's output never sent back)
    pytest.param([MSG(), SHELL("s1"), MSG()],
                 v("openai-responses", "local_shell_call_unanswered", "input[1]", [1], ["s1"],
                   "No tool output found for local shell call s1."), id="local-shell-unanswered"),
    # seen in code quoting the API (Responses proxies' error classifiers)
    pytest.param([MSG(), {"type": "custom_tool_call_output", "call_id": "x", "output": "ok"}],
                 v("openai-responses", "custom_tool_call_output_without_call", "input[1]", [1], ["x"],
                   "No tool call found for custom tool call output with call_id x."), id="custom-output-without-call"),
    pytest.param([MSG(), FC("a", "fc_1"), FO("a"), FC("b", "fc_1"), FO("b")],
                 v("openai-responses", "duplicate_item_id", "input[3]", [1, 3], ["b"],
                   "Duplicate item found with id fc_1. Remove duplicate items from your input and try again."),
                 id="duplicate-item-id"),
    # seen (an adapter's notes on a replayed call, and a Responses emulator's table of the API's answers: param
    # input[1].arguments, code invalid_type): arguments a writer stored as the parsed object
    pytest.param([MSG(), {**FC("a"), "arguments": {"path": "a.pipe"}}, FO("a")],
                 v("openai-responses", "arguments_not_text", "input[1].arguments", [1], ["a"],
                   "Invalid type for 'input[1].arguments': expected a string, but got an object instead."),
                 id="arguments-object"),
    # seen: an app's recorded chat log and a plugin's fix notes (param input[0].output, code invalid_type): a
    # function's return value stored as the object it was
    pytest.param([MSG(), FC("a"), {**FO("a"), "output": {"uri": "file:///w"}}],
                 v("openai-responses", "output_not_text", "input[2].output", [2], ["a"],
                   "Invalid type for 'input[2].output': expected one of a string or array of objects, "
                   "but got an object instead."),
                 id="output-object"),
    # seen: microsoft/agent-framework#8663 (the shell tool's call left without its output)
    pytest.param([MSG(), {"type": "shell_call", "call_id": "sh", "action": {"commands": ["ls"]}}, MSG()],
                 v("openai-responses", "shell_call_unanswered", "input[1]", [1], ["sh"],
                   "No tool output found for shell call sh."), id="shell-call-unanswered"),
    # seen in code quoting the API (Responses proxies' error classifiers)
    pytest.param([MSG(), {"type": "apply_patch_call", "call_id": "ap", "operation": {"type": "delete_file",
                                                                                     "path": "a"}}, MSG()],
                 v("openai-responses", "apply_patch_call_unanswered", "input[1]", [1], ["ap"],
                   "No tool output found for apply patch call ap."), id="apply-patch-call-unanswered"),
    # seen: "Invalid 'input[4].output': string too long. Expected a string with maximum length 10485760" (Codex)
    pytest.param([MSG(), FC("c"), {"type": "function_call_output", "call_id": "c", "output": "x" * (STRING_LIMIT + 1)}],
                 v("openai-responses", "string_too_long", "input[2].output", [2], [],
                   "Invalid 'input[2].output': string too long. Expected a string with maximum length 10485760, "
                   "but got a string with length 10485761 instead."), id="output-too-long"),
    # seen: "Invalid 'input[0].content[1].text': string too long. ... length 12912575"
    pytest.param([{"role": "user", "content": [{"type": "input_text", "text": "a"},
                                               {"type": "input_text", "text": "b" * (STRING_LIMIT + 2)}]}],
                 v("openai-responses", "string_too_long", "input[0].content[1].text", [0], [],
                   "Invalid 'input[0].content[1].text': string too long. Expected a string with maximum length "
                   "10485760, but got a string with length 10485762 instead."), id="text-too-long"),
    # seen, quoted whole: a Chat `tool` message sent as an input item
    pytest.param([MSG(), FC("a"), FO("a"), {"role": "tool", "content": "extra"}],
                 v("openai-responses", "role_invalid", "input[3]", [3], [],
                   "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'."),
                 id="role-invalid"),
    # seen, quoted whole in many reports: a gateway's `call_…` id replayed on a function_call item
    pytest.param([MSG(), FC("a", "call_70eac2a1"), FO("a"), MSG()],
                 v("openai-responses", "item_id_prefix", "input[1].id", [1], ["a"],
                   "Invalid 'input[1].id': 'call_70eac2a1'. Expected an ID that begins with 'fc'."),
                 id="item-id-prefix"),
]


@pytest.mark.parametrize("request_", RESPONSES_LEGAL)
def test_responses_legal_requests_pass(request_: list[dict[str, Any]]) -> None:
    assert found(request_, "openai-responses") == []


@pytest.mark.parametrize("request_,expected", RESPONSES_ILLEGAL)
def test_responses_minimal_illegal_request_yields_exactly_that_violation(
    request_: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    assert found(request_, "openai-responses") == [expected]


def test_responses_output_before_its_call_is_both_an_orphan_output_and_an_unanswered_call() -> None:
    request = [MSG(), FO("a"), FC("a")]
    assert [(x["rule"], x["position"]) for x in found(request, "openai-responses")] == [
        ("function_call_output_without_call", "input[1]"),
        ("function_call_unanswered", "input[2]"),
    ]


# --- DeepSeek's Responses-style endpoint ---------------------------------------

def DEV(text: str = "hook context") -> dict[str, Any]:
    return {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": text}]}


DEEPSEEK_RESPONSES_LEGAL = [
    [MSG(), FC("a"), FC("b"), FO("a"), FO("b"), MSG("assistant", "done")],
    [MSG(), FC("a"), FC("b"), FO("b"), FO("a")],
    # seen accepted (awesome-deepseek-integration#740): each call answered right after it
    [MSG(), REASONING(), MSG("assistant", "checking"), FC("call1"), FO("call1"), REASONING("rs_2"), FC("call2"),
     FO("call2")],
]

DEEPSEEK_RESPONSES_ILLEGAL = [
    # seen rejected for call1 (awesome-deepseek-integration#740): a reasoning item splits the calling turn
    pytest.param([MSG(), REASONING(), MSG("assistant", "checking"), FC("call1"), REASONING("rs_2"), FC("call2"),
                  FO("call1"), FO("call2")],
                 v("deepseek-responses", "function_call_unanswered", "input[3]", [3], ["call1"],
                   "No tool output found for tool call call1."), id="reasoning-between-calls"),
    # seen rejected (DeepSeek-V3#1588): a hook's developer message between a call and its output
    pytest.param([MSG(), FC("call-a"), DEV(), FO("call-a")],
                 v("deepseek-responses", "function_call_unanswered", "input[1]", [1], ["call-a"],
                   "No tool output found for tool call call-a."), id="developer-message-between"),
    pytest.param([MSG(), FO("x")],
                 v("deepseek-responses", "function_call_output_without_call", "input[1]", [1], ["x"],
                   "No tool call found for tool output with call_id x."), id="output-without-call"),
]


@pytest.mark.parametrize("request_", DEEPSEEK_RESPONSES_LEGAL)
def test_deepseek_responses_legal_requests_pass(request_: list[dict[str, Any]]) -> None:
    assert found(request_, "deepseek-responses") == []


@pytest.mark.parametrize("request_,expected", DEEPSEEK_RESPONSES_ILLEGAL)
def test_deepseek_responses_minimal_illegal_request_yields_exactly_that_violation(
    request_: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    assert found(request_, "deepseek-responses") == [expected]


def test_openai_responses_accepts_what_deepseek_responses_rejects() -> None:
    """The same items: OpenAI pairs by call_id anywhere later, DeepSeek by position.  (OpenAI also
    wants a reasoning item followed by the message it preceded, with that message's id: the cases'
    reasoning items are given theirs.)"""
    for param in DEEPSEEK_RESPONSES_ILLEGAL[:2]:
        request = [{**item, "id": "msg_1"} if item.get("role") == "assistant" else item for item in param.values[0]]
        assert found(request, "openai-responses") == []


def test_deepseek_responses_names_every_call_of_a_split_parallel_batch() -> None:
    # Codex's image notices (a developer message) between the outputs of two parallel calls: the second call's
    # output no longer follows the calling turn
    request = [MSG(), FC("call_0"), FC("call_1"), FO("call_0"), DEV("<image_resize_notice>"), FO("call_1")]
    assert [(x["rule"], x["call_ids"]) for x in found(request, "deepseek-responses")] == [
        ("function_call_unanswered", ["call_1"])]
