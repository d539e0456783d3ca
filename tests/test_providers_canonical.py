"""validate(): canonical pi-ai messages checked as each provider's native request."""

from __future__ import annotations

from typing import Any

import pytest

from integrity.providers import PROVIDERS, validate


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def calls(*ids: str) -> dict[str, Any]:
    parts = [{"type": "toolCall", "id": i, "name": "f", "arguments": {}} for i in ids]
    return {"role": "assistant", "content": parts, "stopReason": "toolUse", "timestamp": 2}


def result(call_id: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "f",
            "content": [{"type": "text", "text": "ok"}], "isError": False, "timestamp": 3}


def say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop", "timestamp": 4}


HEALTHY = [user("hi"), calls("a", "b"), result("a"), result("b"), say("done"), user("next")]
# A pause message recorded between a call's two results.
PAUSED = [user("hi"), calls("a", "b"), result("a"), user("wait"), result("b")]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_healthy_transcript_passes_every_provider(provider: str) -> None:
    assert validate(HEALTHY, provider, ids=False) == []
    # its ids ("a", "b") are refused by Mistral alone, which takes exactly nine letters or digits
    refused = {v.rule for v in validate(HEALTHY, provider)}
    assert refused == ({"invalid_tool_call_id"} if provider == "mistral" else set())


EXPECTED_PAUSED = {
    "openai-chat": [("tool_calls_unanswered", "messages.[3].role", [1, 2]),
                    ("tool_result_without_call", "messages.[4].role", [4])],
    "deepseek": [("tool_calls_unanswered", "message[1]", [1, 2]), ("tool_result_without_call", "message[4]", [4])],
    "mistral": [("call_response_count_mismatch", "messages[1]", [1, 2]),
                ("unexpected_role_order", "messages[3]", [2, 3]), ("unexpected_role_order", "messages[4]", [3, 4])],
    # Anthropic combines the three user messages into one turn: b's result comes after the pause's text.
    "anthropic": [("tool_result_not_first", "messages.1", [1, 2, 3, 4])],
    # Gemini combines them too, and counts two responses for two calls.
    "gemini": [],
    "bedrock": [("tool_use_unanswered", "messages.2.content", [1, 2]), ("roles_not_alternating", "messages.3", [2, 3]),
                ("roles_not_alternating", "messages.4", [3, 4]), ("too_many_tool_results", "messages.4.content", [4])],
    # Responses pairs by call_id across the input, so a message between call and output is legal there.
    "openai-responses": [],
    # DeepSeek's Responses endpoint pairs by position: b's output is not in the run right after the calls.
    "deepseek-responses": [("function_call_unanswered", "input[2]", [1, 2])],
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_pause_between_results_is_reported_in_each_providers_terms(provider: str) -> None:
    got = [(v.rule, v.position, v.canonical_indices) for v in validate(PAUSED, provider, ids=False)]
    assert got == EXPECTED_PAUSED[provider]


def test_violations_on_merged_result_messages_name_every_canonical_result_in_them() -> None:
    # Anthropic and Bedrock write results a and b as one user message (native 2).
    transcript = [user("hi"), calls("a", "b", "c"), result("a"), result("b")]
    for provider, rule in (("anthropic", "tool_use_unanswered"), ("bedrock", "tool_use_unanswered")):
        (violation,) = validate(transcript, provider)
        assert violation.rule == rule and violation.call_ids == ["c"]
        assert violation.native_indices == [1, 2]
        assert violation.canonical_indices == [1, 2, 3]


def test_unknown_provider_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown provider"):
        validate(HEALTHY, "cohere")
