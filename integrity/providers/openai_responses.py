"""OpenAI Responses API: the rules the API enforces on `input` items.

Responses pairs `function_call` and `function_call_output` items by `call_id`
across the whole input rather than by adjacency, so other items may sit between
a call and its output.  It rejects a call with no output, an output with no call
before it, and two items with the same `id`.  The API's `param` is just `input`;
we point at the item as `input[i]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .spec import ProviderSpec
from .violation import Violation

PROVIDER = "openai-responses"

NO_OUTPUT = "No tool output found for function call {id}."
NO_CALL = "No tool call found for function call output with call_id {id}."
DUPLICATE_ITEM = "Duplicate item found with id {id}. Remove duplicate items from your input and try again."


def item_type(item: Any) -> str | None:
    """The item's type; an item with a role and no type is a message (the easy input form)."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if isinstance(kind, str):
        return kind
    return "message" if "role" in item else None


def _call_id(item: Any) -> str:
    value = item.get("call_id")
    return value if isinstance(value, str) else ""


def validate(items: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every Responses input rule on tool calls the request breaks, in item order."""
    found: list[Violation] = []
    kinds = [item_type(item) for item in items]
    called: dict[str, int] = {}
    for index, item in enumerate(items):
        if kinds[index] == "function_call":
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
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        item_id = item.get("id") if isinstance(item, dict) else None
        if not isinstance(item_id, str) or not item_id:
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


SPEC = ProviderSpec(
    name=PROVIDER,
    title="OpenAI Responses",
    native_format="openai-responses",
    validate=validate,
    validate_history=None,
    needs_call_ids=True,
    role_rules=None,
    errors={
        "function_call_unanswered": NO_OUTPUT,
        "function_call_output_without_call": NO_CALL,
        "duplicate_item_id": DUPLICATE_ITEM,
    },
)
