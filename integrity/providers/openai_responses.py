"""OpenAI Responses API: the rules the API enforces on `input` items.

Responses pairs `function_call` and `function_call_output` items by `call_id`
across the whole input rather than by adjacency, so other items may sit between
a call and its output.  It rejects a call with no output, an output with no call
before it, and two items with the same `id`.  The API's `param` is just `input`;
we point at the item as `input[i]`.

An output may answer any call item with its `call_id`, not only a `function_call`
(recorded, HTTP 200: a `function_call_output` answering a `tool_search_call`).  A
`reasoning` item with an `id` must be followed by the output item that came after
it in the response, which has an `id` of its own: recorded, HTTP 400, a reasoning
item followed by an assistant message without an `id` (the client had rewritten
it); HTTP 200 for the same item followed by its original `msg_…` message or by a
`function_call` with its `fc_…` id.  Only a following message without an id is
flagged: whether a following call item without an id, or nothing at all, is
refused is not recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .ids import length_rule
from .openai_chat import OPENAI_MODELS
from .spec import Endpoint, ProviderSpec
from .violation import Violation

PROVIDER = "openai-responses"

NO_OUTPUT = "No tool output found for function call {id}."
NO_CALL = "No tool call found for function call output with call_id {id}."
DUPLICATE_ITEM = "Duplicate item found with id {id}. Remove duplicate items from your input and try again."
CALL_ID_LONG = (
    "Invalid 'input[{index}].call_id': string too long. Expected a string with maximum length 64, "
    "but got a string with length {length} instead."
)
MAX_CALL_ID = 64
REASONING_ALONE = "Item '{id}' of type 'reasoning' was provided without its required following item."


def item_type(item: Any) -> str | None:
    """The item's type; an item with a role and no type is a message (the easy input form)."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if isinstance(kind, str):
        return kind
    return "message" if "role" in item else None


def _is_call(kind: str | None) -> bool:
    """An item that makes a call an output can answer: `function_call`, `tool_search_call`, `custom_tool_call`..."""
    return kind is not None and kind.endswith("_call")


def _item_id(item: Any) -> str:
    value = item.get("id") if isinstance(item, dict) else None
    return value if isinstance(value, str) else ""


def _call_id(item: Any) -> str:
    value = item.get("call_id")
    return value if isinstance(value, str) else ""


def validate(items: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every Responses input rule on tool calls the request breaks, in item order."""
    found: list[Violation] = []
    kinds = [item_type(item) for item in items]
    called: dict[str, int] = {}
    for index, item in enumerate(items):
        if _is_call(kinds[index]):
            called.setdefault(_call_id(item), index)
        elif kinds[index] == "function_call_output":
            call_id = _call_id(item)
            if call_id not in called:
                found.append(Violation(
                    provider=provider, rule="function_call_output_without_call", position=f"input[{index}]",
                    native_indices=[index], call_ids=[call_id], error=NO_CALL.format(id=call_id)))
    last_output: dict[str, int] = {}  # call id -> index of its last output: one pass, not one scan per call
    for index, item in enumerate(items):
        if kinds[index] == "function_call_output":
            last_output[_call_id(item)] = index
    for index, item in enumerate(items):
        if kinds[index] != "function_call":
            continue
        call_id = _call_id(item)
        if last_output.get(call_id, -1) < index:
            found.append(Violation(
                provider=provider, rule="function_call_unanswered", position=f"input[{index}]",
                native_indices=[index], call_ids=[call_id], error=NO_OUTPUT.format(id=call_id)))
    found.extend(_reasoning_alone(items, kinds, provider))

    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        item_id = _item_id(item)
        if not item_id:
            continue
        if item_id in first_seen:
            found.append(Violation(
                provider=provider, rule="duplicate_item_id", position=f"input[{index}]",
                native_indices=[first_seen[item_id], index],
                call_ids=[_call_id(item)] if kinds[index] in ("function_call", "function_call_output") else [],
                error=DUPLICATE_ITEM.format(id=item_id)))
        else:
            first_seen[item_id] = index
    return found


def validate_ids(items: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """`call_id`s longer than 64 characters."""
    found: list[Violation] = []
    for index, item in enumerate(items):
        call_id = item.get("call_id") if isinstance(item, dict) else None
        if isinstance(call_id, str) and len(call_id) > MAX_CALL_ID:
            found.append(Violation(
                provider=provider, rule="call_id_too_long", position=f"input[{index}].call_id",
                native_indices=[index], call_ids=[call_id],
                error=CALL_ID_LONG.format(index=index, length=len(call_id))))
    return found


def _reasoning_alone(items: Sequence[Any], kinds: list[str | None], provider: str) -> list[Violation]:
    """A reasoning item with an id must be followed by the item it preceded in the response.  One
    followed by a message without an id is alone (recorded); other shapes (a call item without an
    id, the reasoning item ending `input`) are not flagged: no recording or documentation shows
    how they are answered."""
    found = []
    for index, kind in enumerate(kinds):
        reasoning_id = _item_id(items[index]) if kind == "reasoning" else ""
        if not reasoning_id:
            continue
        if index + 1 < len(items) and kinds[index + 1] == "message" and not _item_id(items[index + 1]):
            found.append(Violation(
                provider=provider, rule="reasoning_without_following_item", position=f"input[{index}]",
                native_indices=[index, index + 1], error=REASONING_ALONE.format(id=reasoning_id)))
    return found


SPEC = ProviderSpec(
    model_prefixes=OPENAI_MODELS,  # the same names; the Responses API picks this one
    hosts_others=True,
    name=PROVIDER,
    title="OpenAI Responses",
    native_format="openai-responses",
    validate=validate,
    validate_history=None,
    validate_ids=validate_ids,
    id_rule=length_rule(MAX_CALL_ID, "OpenAI Responses"),
    needs_call_ids=True,
    role_rules=None,
    errors={
        "function_call_unanswered": NO_OUTPUT,
        "function_call_output_without_call": NO_CALL,
        "duplicate_item_id": DUPLICATE_ITEM,
        "reasoning_without_following_item": REASONING_ALONE,
        "call_id_too_long": CALL_ID_LONG,
    },
    endpoint=Endpoint(
        "https://api.openai.com/v1/responses",
        ("Authorization: Bearer $OPENAI_API_KEY",),
        {"model": "$MODEL"},
        docs="https://platform.openai.com/docs/api-reference/responses/create",
    ),
)
