"""DeepSeek chat completions: OpenAI's message shape, DeepSeek's own checks and wording.

DeepSeek words the unanswered-call and stray-result errors differently from
OpenAI and, unlike OpenAI, rejects a `tool_call_id` that appears in two tool
messages anywhere in the request (an id reused across turns is enough), naming
the message as `message[N]`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
REPEATED = "duplicate_tool_call_id"  # the rule of DUPLICATE


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
    found += repeated_results(((index, result_id_of(messages[index]) or "")
                               for index, role in enumerate(shape.roles) if role == "tool"), provider)
    return found


def repeated_results(results: Iterable[tuple[int, str]], provider: str = PROVIDER) -> list[Violation]:
    """DeepSeek's rule on a result id met twice, for the tool messages `results` lists ((index, id) in order):
    one violation for each message whose id an earlier one sent.  It reads the whole request, so a request
    judged a stretch at a time (providers.sparse) has it judged here on every result id at once."""
    found: list[Violation] = []
    first_seen: dict[str, int] = {}
    for index, result_id in results:
        first = first_seen.setdefault(result_id, index)
        if first != index:
            found.append(Violation(
                provider=provider, rule=REPEATED, position=f"message[{index}]",
                native_indices=[first, index], call_ids=[result_id],
                error=DUPLICATE.format(id=result_id, index=index)))
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
        REPEATED: DUPLICATE,
    },
    endpoint=Endpoint(
        "https://api.deepseek.com/chat/completions",
        ("Authorization: Bearer $DEEPSEEK_API_KEY",),
        {"model": "$MODEL"},
        docs="https://api-docs.deepseek.com/api/create-chat-completion",
    ),
)
