"""Ids a provider refuses are never called accepted, and the view planned for it renames them (issue 30, item 4).

Anthropic takes `^[a-zA-Z0-9_-]+$`; Mistral exactly nine letters or digits; OpenAI Chat at most 40 characters
and Responses at most 64 (each with its evidence in docs/providers.md).  The durable record keeps its ids.
"""

from __future__ import annotations

import pytest

import integrity
from integrity.providers import spec

IDS = ["Bash:12", "call_1|fc_1", "", " ", "a\u0000", "x" * 70]


def _transcript(call_id: str) -> integrity.Transcript:
    return integrity.Transcript([
        {"role": "user", "content": "go"},
        {"role": "assistant", "stopReason": "toolUse",
         "content": [{"type": "toolCall", "id": call_id, "name": "bash", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
         "content": [{"type": "text", "text": "ok"}], "isError": False},
        {"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": "done"}]},
        {"role": "user", "content": "next"},
    ], "ids.json")


@pytest.mark.parametrize("call_id", IDS, ids=repr)
@pytest.mark.parametrize("provider", ["anthropic", "mistral", "openai-chat", "openai-responses"])
def test_an_id_the_provider_refuses_is_rejected_as_recorded_and_renamed_after_repair(call_id: str,
                                                                                    provider: str) -> None:
    transcript = _transcript(call_id)
    rule = spec(provider).id_rule
    assert rule is not None
    result = integrity.check(transcript, provider=provider, depth="view")
    said = result.providers[provider]
    refused = call_id != "" and not rule.accepts(call_id)  # an empty id is renamed by every view (its own rule)
    if refused:
        assert not said.accepted_as_recorded and not result.healthy, said.before
        assert "rejected as recorded by " + provider in result.verdict
    assert said.accepted_after_repair, said.after  # the view planned for it sends ids it takes
    assert result.view is not None
    sent = result.view[1]["content"][0]["id"]
    assert rule.accepts(sent) and result.view[2]["toolCallId"] == sent
    assert transcript.messages[1]["content"][0]["id"] == call_id  # the durable record keeps its id


def test_the_issue_ids_are_no_longer_accepted_by_anthropic() -> None:
    for call_id in ("Bash:12", "call_1|fc_1", " ", "a\u0000"):
        said = integrity.check(_transcript(call_id), provider="anthropic").providers["anthropic"]
        assert [v.rule for v in said.before] == ["invalid_tool_use_id", "invalid_tool_result_id"], call_id


def test_renamed_ids_are_unique_and_stable() -> None:
    """Two ids that clean up to the same text get different names; the same input, the same names."""
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "stopReason": "toolUse", "content": [
                    {"type": "toolCall", "id": "a:1", "name": "t", "arguments": {}},
                    {"type": "toolCall", "id": "a|1", "name": "t", "arguments": {}},
                    {"type": "toolCall", "id": "a_1", "name": "t", "arguments": {}}]},
                *({"role": "toolResult", "toolCallId": i, "toolName": "t", "content": [], "isError": False}
                  for i in ("a:1", "a|1", "a_1"))]
    first = integrity.check(integrity.Transcript(messages, "x"), provider="anthropic", depth="view").view
    again = integrity.check(integrity.Transcript(messages, "x"), provider="anthropic", depth="view").view
    assert first is not None and first == again
    sent = [part["id"] for part in first[1]["content"]]
    assert len(set(sent)) == 3 and "a_1" in sent  # the id Anthropic takes keeps its name
    assert [message["toolCallId"] for message in first[2:]] == sent
