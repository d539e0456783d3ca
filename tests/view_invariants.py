"""The provider tool-call invariants, as one reusable checker for model views.

Strict providers accept a history only when every tool call is answered exactly
once, its results sit contiguously right after the assistant frame that made
the calls, in call order, and no result exists without its call.  Fault tests
hand every model view a worker produced to `view_violations`; an empty list
means the view is legal.  What a model is actually sent must also pass every
provider rule set in `integrity.providers` (`provider_violations`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from integrity.providers import PROVIDERS, validate


def _calls(message: Any) -> list[str]:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [
        part["id"]
        for part in content
        if isinstance(part, dict) and part.get("type") == "toolCall" and isinstance(part.get("id"), str)
    ]


def view_violations(messages: Sequence[Any]) -> list[str]:
    """Every way `messages` breaks the tool-call invariants (empty when legal)."""
    problems: list[str] = []
    all_calls = [call for message in messages for call in _calls(message)]
    for call_id, count in Counter(all_calls).items():
        if count > 1:
            problems.append(f"call id {call_id!r} is used by {count} calls")
    answers = Counter(
        message.get("toolCallId")
        for message in messages
        if isinstance(message, dict) and message.get("role") == "toolResult"
    )
    for call_id in all_calls:
        if answers[call_id] != 1:
            problems.append(f"call {call_id!r} is answered {answers[call_id]} times")
    index = 0
    total = len(messages)
    while index < total:
        message = messages[index]
        calls = _calls(message)
        if calls:
            run = []
            cursor = index + 1
            while cursor < total and cursor <= index + len(calls):
                following = messages[cursor]
                if not (isinstance(following, dict) and following.get("role") == "toolResult"):
                    break
                run.append(following.get("toolCallId"))
                cursor += 1
            if run != calls:
                problems.append(f"#{index}: results after the frame are {run}, expected {calls} in call order")
            index = cursor
            continue
        if isinstance(message, dict) and message.get("role") == "toolResult":
            problems.append(f"#{index}: result for {message.get('toolCallId')!r} is not right after its frame")
        index += 1
    return problems


def provider_violations(messages: Sequence[Any]) -> list[str]:
    """Why any provider (openai-chat, anthropic, gemini, bedrock, ...) would reject this request's shape.

    Id rules (Anthropic's pattern, Mistral's nine characters) are left out: the ids are the runtime's
    own, and only a view planned for one provider renames the ids that provider refuses."""
    return [
        f"{violation.provider}: {violation.rule} at {violation.position}: {violation.error}"
        for provider in PROVIDERS
        for violation in validate(list(messages), provider, ids=False)
    ]


def assert_legal_view(messages: Sequence[Any], label: str = "model view", providers: bool = False) -> None:
    """Fail with every violation listed (and the roles, to see the shape).

    providers=True also requires every provider rule set to accept the messages:
    right for a context a model was sent, wrong for a view that ends with the
    model's own final answer (Mistral, for one, refuses a trailing assistant).
    """
    problems = view_violations(messages)
    if providers:
        problems += provider_violations(messages)
    if problems:
        shape = [
            (m.get("role"), m.get("toolCallId") or _calls(m) or m.get("stopReason")) if isinstance(m, dict) else m
            for m in messages
        ]
        raise AssertionError(f"{label} is illegal: {problems}\nshape: {shape}")
