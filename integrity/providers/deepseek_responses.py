"""DeepSeek's Responses-style endpoint (`api.deepseek.com/responses`): `input` items, paired by position.

OpenAI's Responses API pairs a `function_call` with its `function_call_output` by
`call_id` anywhere later in `input`.  DeepSeek's endpoint reads the items as chat
turns instead: a run of consecutive `function_call` items is one calling turn, and
every call of it must be answered in the run of `function_call_output` items right
after it.  Any other item in between (an assistant message, a reasoning item, a
developer or user message a hook inserted) closes the turn, and the request is
rejected naming the first call left unanswered, although its output is present
later.  An output whose call never appears before it is rejected too, in
DeepSeek's own words.  The API gives no position (`param: null`); we point at
`input[i]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .openai_responses import columns
from .spec import Endpoint, ProviderSpec
from .violation import Violation

PROVIDER = "deepseek-responses"

NO_OUTPUT = "No tool output found for tool call {id}."
NO_CALL = "No tool call found for tool output with call_id {id}."


def _runs(kinds: list[str | None], kind: str, start: int) -> int:
    """The end (exclusive) of the run of items of one type starting at `start`."""
    end = start
    while end < len(kinds) and kinds[end] == kind:
        end += 1
    return end


def validate(items: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every DeepSeek Responses rule on tool calls the request breaks, in item order."""
    kinds, call_ids, _ = columns(items)
    return judge_columns(kinds, call_ids, provider)


def judge_columns(kinds: list[str | None], call_ids: list[str], provider: str = PROVIDER) -> list[Violation]:
    """`validate` of a request read into its columns (openai_responses.columns: each item's type and call_id)."""
    found: list[Violation] = []
    called: set[str] = set()
    index = 0
    while index < len(kinds):
        kind = kinds[index]
        if kind == "function_call":
            calls_end = _runs(kinds, "function_call", index)
            outputs_end = _runs(kinds, "function_call_output", calls_end)
            answered = set(call_ids[calls_end:outputs_end])
            for position in range(index, calls_end):
                call_id = call_ids[position]
                called.add(call_id)
                if call_id not in answered:
                    found.append(Violation(
                        provider=provider, rule="function_call_unanswered", position=f"input[{position}]",
                        native_indices=[position, *range(calls_end, outputs_end)], call_ids=[call_id],
                        error=NO_OUTPUT.format(id=call_id)))
            index = calls_end
            continue
        if kind == "function_call_output" and call_ids[index] not in called:
            call_id = call_ids[index]
            found.append(Violation(
                provider=provider, rule="function_call_output_without_call", position=f"input[{index}]",
                native_indices=[index], call_ids=[call_id], error=NO_CALL.format(id=call_id)))
        index += 1
    return found


SPEC = ProviderSpec(
    model_prefixes=("deepseek/", "deepseek"),  # the same names; the Responses API picks this one
    name=PROVIDER,
    title="DeepSeek Responses",
    native_format="openai-responses",
    validate=validate,
    validate_history=None,
    needs_call_ids=True,
    role_rules=None,
    calls_close_turn=True,  # a call's outputs must come in the run right after its run of calls
    errors={
        "function_call_unanswered": NO_OUTPUT,
        "function_call_output_without_call": NO_CALL,
    },
    endpoint=Endpoint(
        "https://api.deepseek.com/v1/responses",
        ("Authorization: Bearer $DEEPSEEK_API_KEY",),
        {"model": "$MODEL"},
        docs="https://api-docs.deepseek.com/",
    ),
)
