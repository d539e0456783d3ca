"""DeepSeek chat completions: OpenAI's message shape, DeepSeek's own checks and wording.

DeepSeek words the unanswered-call and stray-result errors differently from
OpenAI and, unlike OpenAI, rejects a `tool_call_id` that appears in two tool
messages anywhere in the request (an id reused across turns is enough), naming
the message as `message[N]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .chat_shape import read_shape, result_id_of
from .openai_chat import unanswered_ids
from .spec import Endpoint, ProviderSpec
from .violation import Violation

PROVIDER = "deepseek"

UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. (insufficient tool messages following tool_calls message)"
)
STRAY = "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
DUPLICATE = "Duplicate value for 'tool_call_id' of {id} in message[{index}]"


def validate(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every DeepSeek tool-history rule the request breaks, in message order."""
    found: list[Violation] = []
    shape = read_shape(messages)
    for turn in shape.turns:
        missing = unanswered_ids(turn.call_ids, turn.answered_ids(messages))
        if missing:
            found.append(Violation(
                provider=provider, rule="tool_calls_unanswered", position=f"message[{turn.index}]",
                native_indices=[turn.index, *turn.run], call_ids=missing, error=UNANSWERED))
    for index in shape.strays:
        result_id = result_id_of(messages[index])
        found.append(Violation(
            provider=provider, rule="tool_result_without_call", position=f"message[{index}]",
            native_indices=[index], call_ids=[result_id] if result_id else [], error=STRAY))
    first_seen: dict[str, int] = {}
    for index, role in enumerate(shape.roles):
        if role != "tool":
            continue
        result_id = result_id_of(messages[index]) or ""
        if result_id in first_seen:
            found.append(Violation(
                provider=provider, rule="duplicate_tool_call_id", position=f"message[{index}]",
                native_indices=[first_seen[result_id], index], call_ids=[result_id],
                error=DUPLICATE.format(id=result_id, index=index)))
        else:
            first_seen[result_id] = index
    return found


SPEC = ProviderSpec(
    model_prefixes=("deepseek/", "deepseek"),
    name=PROVIDER,
    title="DeepSeek",
    native_format="openai-chat",
    validate=validate,
    validate_history=None,
    needs_call_ids=True,
    role_rules=None,
    errors={
        "tool_calls_unanswered": UNANSWERED,
        "tool_result_without_call": STRAY,
        "duplicate_tool_call_id": DUPLICATE,
    },
    endpoint=Endpoint(
        "https://api.deepseek.com/chat/completions",
        ("Authorization: Bearer $DEEPSEEK_API_KEY",),
        {"model": "$MODEL"},
        docs="https://api-docs.deepseek.com/api/create-chat-completion",
    ),
)
