"""The public face of integrity.providers: registry, dispatch, and the Violation record."""

from __future__ import annotations

import json

import msgspec
import pytest

from integrity.providers import (
    PROVIDER_FORMAT,
    PROVIDERS,
    Violation,
    validate_native,
    with_canonical_indices,
)
from integrity.providers.registry import VARIANTS

NATIVE_FORMATS = {"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"}


def test_every_provider_reads_one_known_native_format() -> None:
    assert set(PROVIDERS) == NATIVE_FORMATS | {"mistral", "deepseek", "deepseek-responses"}
    assert set(PROVIDER_FORMAT) == set(PROVIDERS + VARIANTS)  # (a variant reads its provider's format)
    assert set(PROVIDER_FORMAT.values()) == NATIVE_FORMATS
    assert PROVIDER_FORMAT["mistral"] == PROVIDER_FORMAT["deepseek"] == "openai-chat"
    assert PROVIDER_FORMAT["deepseek-responses"] == "openai-responses"


def test_unknown_provider_and_non_list_request_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="unknown provider 'cohere'.*openai-chat"):
        validate_native([], "cohere")
    with pytest.raises(TypeError, match="list"):
        validate_native({"messages": []}, "openai-chat")  # type: ignore[arg-type]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_empty_and_malformed_requests_never_raise(provider: str) -> None:
    # Bedrock refuses an empty message list (a prompt sent only as `system`; elastic/kibana#246393)
    assert [v.rule for v in validate_native([], provider)] == (["first_message_not_user"] if provider == "bedrock"
                                                                else [])
    junk = [None, 3, "text", {}, {"role": 5}, {"role": "assistant", "content": 7, "tool_calls": "x"},
            {"role": "user", "content": [None, {"type": "tool_result"}], "parts": "x"}]
    assert all(isinstance(v, Violation) for v in validate_native(junk, provider))


def test_provider_name_is_the_one_asked_for_even_when_rules_are_shared() -> None:
    request = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "x", "content": "ok"}]
    assert {v.provider for v in validate_native(request, "openai-chat")} == {"openai-chat"}
    assert {v.provider for v in validate_native(request, "deepseek")} == {"deepseek"}
    assert {v.provider for v in validate_native(request, "mistral")} == {"mistral"}


def test_violation_is_frozen_and_round_trips_through_json() -> None:
    request = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "x", "content": "ok"}]
    (violation,) = validate_native(request, "openai-chat")
    data = json.loads(msgspec.json.encode(violation))
    assert data["rule"] == "tool_result_without_call" and data["native_indices"] == [1]
    assert data["canonical_indices"] is None
    assert msgspec.convert(data, Violation) == violation
    with pytest.raises(AttributeError):
        violation.rule = "other"  # type: ignore[misc]


def test_violations_come_back_in_request_order() -> None:
    tool = {"role": "tool", "tool_call_id": "x", "content": "ok"}
    request = [{"role": "user", "content": "a"}, tool, {"role": "user", "content": "b"}, tool]
    assert [v.native_indices[0] for v in validate_native(request, "openai-chat")] == [1, 3]


def test_canonical_indices_follow_the_grouping_of_canonical_messages_into_native_entries() -> None:
    # canonical: 0 user, 1 assistant(a, b), 2 result a, 3 result b -> Anthropic merges 2 and 3 into native 2
    request = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}},
                                          {"type": "tool_use", "id": "b", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"}]},
    ]
    (violation,) = with_canonical_indices(validate_native(request, "anthropic"), [[0], [1], [2, 3]])
    assert violation.native_indices == [1, 2]
    assert violation.canonical_indices == [1, 2, 3]


def test_native_positions_past_the_request_map_to_no_canonical_message() -> None:
    request = [{"role": "user", "content": [{"text": "hi"}]},
               {"role": "assistant", "content": [{"toolUse": {"toolUseId": "a", "name": "f", "input": {}}}]}]
    (violation,) = validate_native(request, "bedrock")
    assert violation.position == "messages.2.content"
    assert with_canonical_indices([violation], [[0], [1, 2]])[0].canonical_indices == [1, 2]
