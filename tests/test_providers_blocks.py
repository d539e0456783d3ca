"""Anthropic Messages and Bedrock Converse rule sets (content-block shapes).

Each illegal case is minimal: it breaks exactly one rule, and we assert the whole
violation (rule, position, indices, ids, exact provider error text).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.provider_cases import found, v

# --- Anthropic -------------------------------------------------------------

def AU(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": text}


def AA(*ids: str, text: str | None = None) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_use", "id": i, "name": "f", "input": {}} for i in ids]
    return {"role": "assistant", "content": blocks}


def AR(*ids: str, before: str | None = None, after: str | None = None) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": before}] if before else []
    blocks += [{"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids]
    blocks += [{"type": "text", "text": after}] if after else []
    return {"role": "user", "content": blocks}


def ASAY(text: str = "done") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def ASRV(*ids: str, text: str | None = None, name: str = "web_fetch", answered: bool = False) -> dict[str, Any]:
    """An assistant turn calling a server tool (id srvtoolu_1), then the client's tools `ids`: the server tools page's
    mixed turn; answered: the server tool's result block follows its call in the turn (a turn of server tools
    alone)."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks.append({"type": "server_tool_use", "id": "srvtoolu_1", "name": name, "input": {"url": "https://a.example"}})
    if answered:
        blocks.append({"type": f"{name}_tool_result", "tool_use_id": "srvtoolu_1", "content": {"type": "x"}})
    blocks += [{"type": "tool_use", "id": i, "name": "f", "input": {}} for i in ids]
    return {"role": "assistant", "content": blocks}


def ARESUMED(name: str = "web_fetch") -> dict[str, Any]:
    """The assistant turn after a mixed turn's results: it opens with the server tool's result."""
    return {"role": "assistant", "content": [{"type": f"{name}_tool_result", "tool_use_id": "srvtoolu_1",
                                              "content": {"type": "x"}}, {"type": "text", "text": "done"}]}


UNANSWERED_TAIL = ". Each `tool_use` block must have a corresponding `tool_result` block in the next message."
UNEXPECTED_TAIL = ". Each `tool_result` block must have a corresponding `tool_use` block in the previous message."

ANTHROPIC_LEGAL = [
    # the server tools page: a mixed turn's follow-up holds only the client's results, and the next response opens
    # with the server tool's result; a turn of server tools alone carries their results itself
    [AU(), ASRV("a", text="I'll fetch it and check"), AR("a")],
    [AU(), ASRV("a"), AR("a"), ARESUMED(), AU("thanks")],
    [AU(), ASRV(answered=True), AU("thanks"), ASAY()],
    [AU(), ASRV("a", answered=True), AR("a", after="also, hurry"), ASAY()],
    # not judged (no answer known): a user turn after a paused server tool, a next turn without its result
    [AU(), ASRV(), AU("go on")],
    [AU(), ASRV("a"), AR("a"), ASAY(), AU("thanks")],
    [AU(), AA("a", "b", text="let me look"), AR("b", "a"), ASAY()],
    [AU(), AA("a"), AR("a", after="also, hurry"), ASAY()],
    # The API merges consecutive same-role messages, so no alternation rule applies.
    [AU(), AU("more"), ASAY(), ASAY("more")],
    [AU(), AA("a"), AR("a"), AA("b"), AR("b")],
    # Since Claude Opus 4.8 (2026-05-28) a system message may sit mid-conversation (a recorded request got 200),
    # after a user turn, its tool results included; the directive-only form may even open `messages`.
    [AU(), {"role": "system", "content": "from now on, answer in French"}, ASAY()],
    [AU(), AA("a"), AR("a"), {"role": "system", "content": [{"type": "text", "text": "be brief"}]}, ASAY()],
    [{"role": "system", "content": []}, AU(), ASAY()],
    # recorded (HTTP 200): an id used again in a later turn, each use answered right after it
    [AU(), AA("a"), AR("a"), AA("a"), AR("a"), ASAY()],
    # recorded (HTTP 200): two assistant messages in a row are one turn, answered by one user message
    [AU(), AA("a", text="loading"), AA("b"), AR("a", "b")],
    # the API combines consecutive user messages too (its reference), so results may be split over them
    [AU(), AA("a", "b"), AR("a"), AR("b"), ASAY()],
    [AU(), AA("a"), AR("a"), AU("and then?"), ASAY()],
    # an error result of text alone (a string, or text blocks), and a result that is no error holding an image, or
    # nothing
    [AU(), AA("a", "b"), {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "is_error": True, "content": "Error: timeout"},
        {"type": "tool_result", "tool_use_id": "b", "is_error": True,
         "content": [{"type": "text", "text": "Error"}, {"type": "text", "text": "exit 1"}]}]}, ASAY()],
    [AU(), AA("a", "b"), {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "is_error": False, "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]},
        {"type": "tool_result", "tool_use_id": "b", "content": ""}]}, ASAY()],
    # a tool name of 200 characters, one with a dot and spaces (no pattern is judged in history: the texts of 2024
    # that quote one are older than the limit of 200)
    [AU(), {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "x" * 200, "input": {}},
                                             {"type": "tool_use", "id": "b", "name": "files.read all", "input": {}}]},
     AR("a", "b"), ASAY()],
]

ANTHROPIC_ILLEGAL = [
    # seen: anthropics/claude-code#6695 (messages.1.content.0), anthropic-sdk-typescript#648: the arguments' JSON text
    pytest.param(
        [AU(), {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": '{"x": 1}'}]},
         AR("a")],
        v("anthropic", "tool_use_input_not_object", "messages.1.content.0.tool_use.input", [1], ["a"],
          "messages.1.content.0.tool_use.input: Input should be a valid dictionary"),
        id="input-not-object"),
    # seen: OpenClaw's FAQ ("LLM request rejected: messages.N.content.X.tool_use.input: Field required"), an AI SDK
    # app's and a Gemini-to-Claude gateway's code: a call that took no arguments written without input
    pytest.param(
        [AU(), {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f"}]}, AR("a")],
        v("anthropic", "tool_use_input_missing", "messages.1.content.0.tool_use.input", [1], ["a"],
          "messages.1.content.0.tool_use.input: Field required"),
        id="input-missing"),
    # seen: an agent project's regression test quoting the API ("tool_result.content: Input should be a valid
    # string") for a tool's JSON object echoed into the block
    pytest.param(
        [AU(), AA("a"),
         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": {"n": 1}}]}],
        v("anthropic", "tool_result_content_not_text", "messages.2.content.0.tool_result.content", [2], ["a"],
          "messages.2.content.0.tool_result.content: Input should be a valid string"),
        id="result-content-object"),
    # seen: vellum-ai/vellum-assistant#18387, caozhiyuan/copilot-api#196, two agents' tests quoting the position:
    # an error result holding the screenshot taken when the tool failed
    pytest.param(
        [AU(), AA("a"),
         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "is_error": True, "content": [
             {"type": "text", "text": "Error: timeout"},
             {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}]}],
        v("anthropic", "error_result_not_text", "messages.2.content.0.tool_result", [2], ["a"],
          "messages.2.content.0.tool_result: all content must be type `text` if `is_error` is true"),
        id="error-result-image"),
    # seen: anthropics/claude-agent-sdk-python#248 (messages.2.content.0.tool_result, a content of "")
    pytest.param(
        [AU(), AA("a", "b"),
         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"},
                                      {"type": "tool_result", "tool_use_id": "b", "is_error": True, "content": ""}]}],
        v("anthropic", "error_result_empty", "messages.2.content.1.tool_result", [2], ["b"],
          "messages.2.content.1.tool_result: content cannot be empty if `is_error` is true"),
        id="error-result-empty"),
    pytest.param(
        [AU(), AA("a"), {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "is_error": True,
                                                      "content": []}]}],
        v("anthropic", "error_result_empty", "messages.2.content.0.tool_result", [2], ["a"],
          "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true"),
        id="error-result-empty-list"),
    # seen: anthropics/claude-code#94799 (a whole shell command as the name, 201 characters), #7370
    # (messages.75.content.1.tool_use.name), #15695, #23681
    pytest.param(
        [AU(), {"role": "assistant", "content": [{"type": "text", "text": "on it"}, {
            "type": "tool_use", "id": "a", "name": "x" * 201, "input": {}}]}, AR("a")],
        v("anthropic", "tool_use_name_too_long", "messages.1.content.1.tool_use.name", [1], ["a"],
          "messages.1.content.1.tool_use.name: String should have at most 200 characters"),
        id="tool-name-too-long"),
    # seen: an agent project's notes on calls stored without their names ("at least 1 character")
    pytest.param(
        [AU(), {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "", "input": {}}]}, AR("a")],
        v("anthropic", "tool_use_name_empty", "messages.1.content.0.tool_use.name", [1], ["a"],
          "messages.1.content.0.tool_use.name: String should have at least 1 character"),
        id="tool-name-empty"),
    pytest.param(
        [AU(), AA("a", "b"), AR("a")],
        v("anthropic", "tool_use_unanswered", "messages.1", [1, 2], ["b"],
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: b" + UNANSWERED_TAIL),
        id="unanswered"),
    pytest.param(
        [AU(), AA("a", "b")],
        v("anthropic", "tool_use_unanswered", "messages.1", [1], ["a", "b"],
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a, b"
          + UNANSWERED_TAIL),
        id="unanswered-at-end"),
    pytest.param(
        [AU(), AA("a"), AR("a", "x")],
        v("anthropic", "unexpected_tool_result", "messages.2.content.1", [1, 2], ["x"],
          "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: x" + UNEXPECTED_TAIL),
        id="unexpected"),
    pytest.param(
        [AR("x")],
        v("anthropic", "unexpected_tool_result", "messages.0.content.0", [0], ["x"],
          "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: x" + UNEXPECTED_TAIL),
        id="unexpected-at-head"),
    pytest.param(
        [AU(), AA("a"), AR("a", "a")],
        v("anthropic", "duplicate_tool_result", "messages.2.content.1", [1, 2], ["a"],
          "messages.2.content.1: each tool_use must have a single result. "
          "Found multiple `tool_result` blocks with id: a"),
        id="duplicate-result"),
    pytest.param(
        [AU(), AA("a"), AR("a", before="note first")],
        v("anthropic", "tool_result_not_first", "messages.1", [1, 2], ["a"],
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a" + UNANSWERED_TAIL),
        id="result-not-first"),
    pytest.param(
        [AU(), AA("a", "b"), {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "ok"}, {"type": "text", "text": "note"},
            {"type": "tool_result", "tool_use_id": "b", "content": "ok"}]}],
        v("anthropic", "tool_result_not_first", "messages.1", [1, 2], ["b"],
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: b" + UNANSWERED_TAIL),
        id="second-result-after-text"),
    pytest.param(
        [AU(), AA("a", "a"), AR("a")],
        v("anthropic", "duplicate_tool_use_id", "messages.1.content.1", [1], ["a"],
          "messages.1.content.1: `tool_use` ids must be unique"),
        id="tool-use-id-twice-in-a-turn"),
    pytest.param(
        [AU(), AA("a"), AA("a"), AR("a")],
        v("anthropic", "duplicate_tool_use_id", "messages.1.content.1", [1, 2], ["a"],
          "messages.1.content.1: `tool_use` ids must be unique"),
        id="tool-use-id-twice-in-combined-turn"),
    pytest.param(
        [AU(), AA("a"), AR("a"), AR("a")],
        v("anthropic", "duplicate_tool_result", "messages.2.content.1", [1, 2, 3], ["a"],
          "messages.2.content.1: each tool_use must have a single result. "
          "Found multiple `tool_result` blocks with id: a"),
        id="duplicate-result-in-combined-turn"),
    pytest.param(
        [AU(), AA("a"), AU("note first"), AR("a")],
        v("anthropic", "tool_result_not_first", "messages.1", [1, 2, 3], ["a"],
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a" + UNANSWERED_TAIL),
        id="result-after-a-user-message"),
    pytest.param(  # recorded 400 (anomalyco/opencode): tests/provider_cases/anthropic_text_after_tool_use.json
        [AU(), {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}},
                                                 {"type": "text", "text": "checking"}]}, AR("a")],
        v("anthropic", "tool_use_not_last", "messages.1", [1, 2], ["a"],
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a" + UNANSWERED_TAIL),
        id="text-after-tool-use"),
    pytest.param(
        [{"role": "system", "content": "be brief"}, AU()],
        v("anthropic", "system_message_first", "messages.0", [0], [],
          "messages.0: use the top-level 'system' parameter for the initial system prompt; "
          "the directive-only form (content: [] with output_config) is accepted at any position"),
        id="system-first"),
    # empty content (tests/provider_cases/anthropic_empty_*.json, tests/test_provider_cases_empty.py)
    pytest.param(
        [AU(), {"role": "assistant", "content": []}, AU("again")],
        v("anthropic", "empty_message_content", "messages.1", [1], [],
          "messages.1: all messages must have non-empty content except for the optional final assistant message"),
        id="empty-content"),
    pytest.param(  # documented, request and text: platform.claude.com/docs/en/agents-and-tools/tool-use/server-tools
        [AU(), ASRV("a", text="I'll fetch it and check"), AR("a", after="also, be brief")],
        v("anthropic", "server_tool_use_unresolved", "messages.1", [1, 2], ["srvtoolu_1"],
          "`web_fetch` tool use with id `srvtoolu_1` was found without a corresponding `web_fetch_tool_result` block"),
        id="server-tool-unresolved-by-text-after-results"),
    pytest.param(  # the text in a user message of its own: combined into the results' turn
        [AU(), ASRV("a", name="web_search"), AR("a"), AU("be brief")],
        v("anthropic", "server_tool_use_unresolved", "messages.1", [1, 2, 3], ["srvtoolu_1"],
          "`web_search` tool use with id `srvtoolu_1` was found without a corresponding `web_search_tool_result` "
          "block"),
        id="server-tool-unresolved-by-a-user-message-after-results"),
    pytest.param(  # content before the results fails earlier, with the client-tool text alone (the same page)
        [AU(), ASRV("a"), AR("a", before="first this")],
        v("anthropic", "tool_result_not_first", "messages.1", [1, 2], ["a"],
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a" + UNANSWERED_TAIL),
        id="server-tool-turn-refused-by-the-client-rule-first"),
    pytest.param(
        [AU(), {"role": "assistant", "content": [{"type": "text", "text": ""}]}, AU("again")],
        v("anthropic", "empty_text_block", "messages", [1], [], "messages: text content blocks must be non-empty"),
        id="empty-text-block"),
    pytest.param(
        [AU(), ASAY(" "), AU("again")],
        v("anthropic", "whitespace_text_block", "messages", [1], [],
          "messages: text content blocks must contain non-whitespace text"),
        id="whitespace-text-block"),
    # seen, quoted whole: a Converse text block replayed to the Messages API
    pytest.param(
        [{"role": "user", "content": [{"text": "hi"}]}],
        v("anthropic", "content_type_missing", "messages.0.content.0", [0], [],
          "messages.0.content.0.type: Field required"),
        id="content-type-missing"),
    # seen, quoted whole: a tool's list of objects sent on as the result's blocks
    pytest.param(
        [AU(), AA("a"), {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a",
                                                      "content": [{"row": 1}]}]}],
        v("anthropic", "tool_result_content_type_missing", "messages.2.content.0.tool_result.content.0", [2], ["a"],
          "messages.2.content.0.tool_result.content.0.type: Field required"),
        id="tool-result-content-type-missing"),
    # seen, quoted whole in many reports: a Chat `tool` message sent to Claude
    pytest.param(
        [AU(), AA("a"), AR("a"), {"role": "tool", "content": "extra"}],
        v("anthropic", "role_invalid", "messages.3.role", [3], [],
          "messages.3.role: Input should be 'user' or 'assistant'"),
        id="role-invalid"),
]


@pytest.mark.parametrize("request_", ANTHROPIC_LEGAL)
def test_anthropic_legal_requests_pass(request_: list[dict[str, Any]]) -> None:
    assert found(request_, "anthropic") == []


@pytest.mark.parametrize("request_,expected", ANTHROPIC_ILLEGAL)
def test_anthropic_minimal_illegal_request_yields_exactly_that_violation(
    request_: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    assert found(request_, "anthropic") == [expected]


def test_anthropic_positions_count_combined_turns() -> None:
    """After two user messages combine, the next turns are numbered in the combined list."""
    request = [AU(), AU("more"), AA("a", "b"), AR("a")]
    assert [(x["rule"], x["position"], x["native_indices"]) for x in found(request, "anthropic")] == [
        ("tool_use_unanswered", "messages.1", [2, 3]),
    ]


# --- Bedrock Converse ------------------------------------------------------

def BU(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": [{"text": text}]}


def BA(*ids: str, text: str | None = None) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"text": text}] if text else []
    blocks += [{"toolUse": {"toolUseId": i, "name": "f", "input": {}}} for i in ids]
    return {"role": "assistant", "content": blocks}


def BR(*ids: str, text: str | None = None) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"toolResult": {"toolUseId": i, "content": [{"text": "ok"}]}} for i in ids]
    blocks += [{"text": text}] if text else []
    return {"role": "user", "content": blocks}


BEDROCK_LEGAL = [
    # a successful result with no content, an error one of text and json blocks: no refusal known
    [BU(), BA("a", "b"), {"role": "user", "content": [
        {"toolResult": {"toolUseId": "a", "status": "error", "content": [{"text": "failed"}, {"json": {"code": 2}}]}},
        {"toolResult": {"toolUseId": "b", "status": "success", "content": []}}]}, BA(text="done")],
    [BU(), BA("a", "b", text="checking"), BR("b", "a"), BA(text="done")],
    # recorded (HTTP 200; Claude Sonnet 4.5, Nova): results and text or media in one user message
    [BU(), BA("a"), BR("a", text="and a note")],
    # recorded (HTTP 200; Claude Sonnet 4.5): a conversation opening with an assistant message
    [BA(text="hello"), BU()],
    # recorded (HTTP 200; Nova 2 Lite): a server tool's use answered in the same assistant message
    [BU(), {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "s", "name": "nova_code_interpreter", "input": {}, "type": "server_tool_use"}},
        {"toolResult": {"toolUseId": "s", "content": [{"text": "7"}]}}, {"toolUse": {"toolUseId": "a", "name": "f"}}]},
     BR("a")],
    [BU(), BA(text="hello")],
    [BU(), BA("a"), BR("a"), BA("b"), BR("b"), BA(text="done"), BU()],
]

BEDROCK_ILLEGAL = [
    pytest.param(
        [],
        v("bedrock", "first_message_not_user", "messages", [], [],
          "A conversation must start with a user message. Try again with a conversation that starts with a user "
          "message."),
        id="no-message"),
    pytest.param(
        [BU(), BU("again")],
        v("bedrock", "roles_not_alternating", "messages.1", [0, 1], [],
          "A conversation must alternate between user and assistant roles. "
          "Make sure the conversation alternates between user and assistant roles and try again."),
        id="not-alternating"),
    pytest.param(
        [BU(), BA("a", "b"), BR("a")],
        v("bedrock", "tool_use_unanswered", "messages.2.content", [1, 2], ["b"],
          "Expected toolResult blocks at messages.2.content for the following Ids: b"),
        id="unanswered"),
    pytest.param(
        [BU(), BA("a", "b")],
        v("bedrock", "tool_use_unanswered", "messages.2.content", [1], ["a", "b"],
          "Expected toolResult blocks at messages.2.content for the following Ids: a, b"),
        id="unanswered-at-end"),
    pytest.param(
        [BU(), BA("a"), BR("a", "x")],
        v("bedrock", "too_many_tool_results", "messages.2.content", [1, 2], ["x"],
          "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of "
          "previous turn."),
        id="too-many-results"),
    pytest.param(
        [BR("x")],
        v("bedrock", "too_many_tool_results", "messages.0.content", [0], ["x"],
          "The number of toolResult blocks at messages.0.content exceeds the number of toolUse blocks of "
          "previous turn."),
        id="result-at-head"),
    pytest.param(
        [BU(), BA("a"), {"role": "user", "content": [{"toolResult": {"toolUseId": "a", "content": [],
                                                                       "status": "error"}}]}],
        v("bedrock", "error_result_empty", "messages.2.content.0.toolResult", [2], ["a"],
          "The content field at messages.2.content.0.toolResult cannot be empty when status value is error."),
        id="error-result-empty"),
    pytest.param(
        [BU(), BA("a"), {"role": "user", "content": [{"toolResult": {"toolUseId": "a", "status": "error", "content": [
            {"text": "timeout"}, {"image": {"format": "png", "source": {"bytes": "AAAA"}}}]}}]}],
        v("bedrock", "error_result_not_text", "messages.2.content.0.tool_result", [2], ["a"],
          "messages.2.content.0.tool_result: all content must be type `text` if `is_error` is true"),
        id="error-result-not-text"),
    # seen: a system message first ("Value 'system' at 'messages.1.member.role' ..."): AWS counts from 1
    pytest.param(
        [{"role": "system", "content": [{"text": "be brief"}]}, BU()],
        v("bedrock", "role_invalid", "messages.0.role", [0], [],
          "1 validation error detected: Value 'system' at 'messages.1.member.role' failed to satisfy constraint: "
          "Member must satisfy enum value set: [user, assistant]"),
        id="role-invalid"),
]


@pytest.mark.parametrize("request_", BEDROCK_LEGAL)
def test_bedrock_legal_requests_pass(request_: list[dict[str, Any]]) -> None:
    assert found(request_, "bedrock") == []


@pytest.mark.parametrize("request_,expected", BEDROCK_ILLEGAL)
def test_bedrock_minimal_illegal_request_yields_exactly_that_violation(
    request_: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    assert found(request_, "bedrock") == [expected]


def test_bedrock_results_split_across_two_user_turns_break_three_rules() -> None:
    request = [BU(), BA("a", "b"), BR("a"), BR("b")]
    assert [(x["rule"], x["position"]) for x in found(request, "bedrock")] == [
        ("tool_use_unanswered", "messages.2.content"),
        ("roles_not_alternating", "messages.3"),
        ("too_many_tool_results", "messages.3.content"),
    ]
