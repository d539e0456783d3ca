"""OpenAI Responses API: the rules the API enforces on `input` items.

Responses pairs `function_call` and `function_call_output` items by `call_id`
across the whole input rather than by adjacency, so other items may sit between
a call and its output.  It rejects a call with no output, an output with no call
before it, and two items with the same `id`.  The API's `param` is just `input`;
we point at the item as `input[i]`.

An output may answer any call item with its `call_id`, not only a `function_call`
(recorded, HTTP 200: a `function_call_output` answering a `tool_search_call`; Codex answers its
`local_shell_call` with a `function_call_output`).  Each call item the API requires an answer for has its
own text, naming its kind (`custom_tool_call`: "custom tool call", seen; `local_shell_call`: "local shell
call", seen), and so has an orphaned `custom_tool_call_output` (seen); an orphaned `local_shell_call_output`
is not flagged: no text for it has been seen.  A `local_shell_call_output` that names its call by `id`
only (openai-python's own type) is read as answering it, as the reader pairs it (formats.openai_responses;
openai/openai-agents-python#1855 reports the API refusing that shape: not followed yet).  A
`reasoning` item with an `id` must be followed by the output item that came after
it in the response, which has an `id` of its own: recorded, HTTP 400, a reasoning
item followed by an assistant message without an `id` (the client had rewritten
it); HTTP 200 for the same item followed by its original `msg_…` message or by a
`function_call` with its `fc_…` id.  Only a following message without an id is
flagged: whether a following call item without an id, or nothing at all, is
refused is not recorded.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import eq, ge, lt, methodcaller, not_
from typing import Any

from ..formats.openai_responses import (
    AGENTS_PLACEHOLDER_ID,
    ITEM_ID_PREFIXES,
    OUTPUT_KINDS,
    answered_call_id,
    is_call_item,
    object_arguments,
    object_output,
)
from .ids import length_rule
from .openai_chat import OPENAI_MODELS
from .spec import Endpoint, ProviderSpec, RoleSet
from .strings import LIMIT, TOO_LONG, long_strings
from .violation import Violation

PROVIDER = "openai-responses"

NO_OUTPUT = "No tool output found for function call {id}."
NO_CALL = "No tool call found for function call output with call_id {id}."
NO_CUSTOM_OUTPUT = "No tool output found for custom tool call {id}."
NO_SHELL_OUTPUT = "No tool output found for local shell call {id}."
NO_SHELL_CALL_OUTPUT = "No tool output found for shell call {id}."
NO_PATCH_OUTPUT = "No tool output found for apply patch call {id}."
NO_CUSTOM_CALL = "No tool call found for custom tool call output with call_id {id}."
DUPLICATE_ITEM = "Duplicate item found with id {id}. Remove duplicate items from your input and try again."
CALL_ID_LONG = (
    "Invalid 'input[{index}].call_id': string too long. Expected a string with maximum length 64, "
    "but got a string with length {length} instead."
)
MAX_CALL_ID = 64
REASONING_ALONE = "Item '{id}' of type 'reasoning' was provided without its required following item."
ARGUMENTS_OBJECT = "Invalid type for 'input[{index}].arguments': expected a string, but got an object instead."
OUTPUT_OBJECT = (
    "Invalid type for 'input[{index}].output': expected one of a string or array of objects, but got an object instead."
)
ID_PREFIX = "Invalid 'input[{index}].id': '{id}'. Expected an ID that begins with '{prefix}'."


def item_type(item: Any) -> str | None:
    """The item's type; an item with a role and no type is a message (the easy input form)."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if isinstance(kind, str):
        return kind
    return "message" if "role" in item else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def columns(items: Sequence[Any]) -> tuple[list[str | None], list[str], list[str]]:
    """What the rules read of each item, read once: its type (item_type), its `call_id` and its `id` (each ""
    when missing or not a string).  Read by C-level maps, and item by item only where a value is not a string
    (an item of the easy input form, without a type, has none)."""
    if set(map(type, items)) - {dict}:
        kinds = [item_type(item) for item in items]
        return kinds, [("" if not isinstance(item, dict) else _answered_id(item) if kind == "local_shell_call_output"
                        else _text(item.get("call_id"))) for kind, item in zip(kinds, items, strict=True)], \
            [_text(item.get("id")) if isinstance(item, dict) else "" for item in items]
    kinds = list(map(_TYPE, items))
    for index in compress(range(len(kinds)), map(not_, map(isinstance, kinds, repeat(str)))):
        kinds[index] = item_type(items[index])
    call_ids = _strings(list(map(_CALL_ID, items)))
    if "local_shell_call_output" in kinds:
        for index in compress(range(len(kinds)), map(eq, kinds, repeat("local_shell_call_output"))):
            call_ids[index] = _answered_id(items[index])
    return kinds, call_ids, _strings(list(map(_ID, items)))


def _answered_id(item: dict[str, Any]) -> str:
    """The call a `local_shell_call_output` answers, as the reader pairs it (formats.openai_responses)."""
    return _text(answered_call_id(item))


UNANSWERED: dict[str, tuple[str, str]] = {
    "function_call": ("function_call_unanswered", NO_OUTPUT),
    "custom_tool_call": ("custom_tool_call_unanswered", NO_CUSTOM_OUTPUT),
    "local_shell_call": ("local_shell_call_unanswered", NO_SHELL_OUTPUT),
    "shell_call": ("shell_call_unanswered", NO_SHELL_CALL_OUTPUT),
    "apply_patch_call": ("apply_patch_call_unanswered", NO_PATCH_OUTPUT),
}
"""The call items the API refuses without an output after them: kind -> (rule, error text).  Other call items
(a `tool_search_call` the server ran, say) may stand alone (recorded, HTTP 200)."""

WITHOUT_CALL: dict[str, tuple[str, str]] = {
    "function_call_output": ("function_call_output_without_call", NO_CALL),
    "custom_tool_call_output": ("custom_tool_call_output_without_call", NO_CUSTOM_CALL),
}
"""The output items the API refuses without a call before them: kind -> (rule, error text)."""


_TYPE, _CALL_ID, _ID = methodcaller("get", "type"), methodcaller("get", "call_id", ""), methodcaller("get", "id", "")


def _strings(values: list[Any]) -> list[str]:
    """The values, each one that is not a string made ""."""
    for index in compress(range(len(values)), map(not_, map(isinstance, values, repeat(str)))):
        values[index] = ""
    return values


def validate(items: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every Responses input rule on tool calls the request breaks, in item order."""
    kinds, call_ids, item_ids = columns(items)
    found = judge_columns(kinds, call_ids, item_ids, provider)
    if "function_call" in kinds:
        found += object_arguments_found(items, kinds, provider)
    if "function_call_output" in kinds:
        found += object_outputs_found(items, kinds, provider)
    found += long_strings(items, provider, "input")
    return found


def object_outputs_found(items: Sequence[Any], kinds: list[str | None], provider: str = PROVIDER
                         ) -> list[Violation]:
    """A `function_call_output` whose `output` a writer stored as an object (the tool's return value as it came): the
    API takes a string or an array of content parts, and answers 400 invalid_type with this text (seen: an app's
    recorded chat log and a plugin's fix notes, "Invalid type for 'input[0].output': ...").  Only an object is
    judged."""
    return [Violation(provider=provider, rule="output_not_text", position=f"input[{index}].output",
                      native_indices=[index], call_ids=[_text(items[index].get("call_id"))],
                      error=OUTPUT_OBJECT.format(index=index))
            for index in compress(range(len(kinds)), map(eq, kinds, repeat("function_call_output")))
            if object_output(items[index])]


def object_arguments_found(items: Sequence[Any], kinds: list[str | None], provider: str = PROVIDER
                           ) -> list[Violation]:
    """A `function_call` whose `arguments` a writer stored as the parsed object: the API takes only their text (seen,
    code `invalid_type`).  Only an object is judged: no answer to another type is on record."""
    return [Violation(provider=provider, rule="arguments_not_text", position=f"input[{index}].arguments",
                      native_indices=[index], call_ids=[_text(items[index].get("call_id"))],
                      error=ARGUMENTS_OBJECT.format(index=index))
            for index in compress(range(len(kinds)), map(eq, kinds, repeat("function_call")))
            if object_arguments(items[index])]


def judge_columns(kinds: list[str | None], call_ids: list[str], item_ids: list[str],
                  provider: str = PROVIDER) -> list[Violation]:
    """`validate` of a request read into its columns (see `columns`): each rule over the columns with C-level
    maps, and a step per item only where a rule fires (a request of a million items is read once).  item_ids
    may be empty when no item has an id (providers.sparse_items)."""
    found: list[Violation] = []
    indices = range(len(kinds))
    present = set(kinds)
    called_kinds = {kind for kind in present if is_call_item(kind)}
    # (indices held in arrays and each map freed once read: a million items' columns are judged in little more
    # memory than they take)
    calls = array("q", compress(indices, map(called_kinds.__contains__, kinds)))
    outputs = array("q", compress(indices, map(eq, kinds, repeat("function_call_output")))) \
        if not present & (OUTPUT_KINDS - {"function_call_output"}) \
        else array("q", compress(indices, map(OUTPUT_KINDS.__contains__, kinds)))
    output_ids = list(map(call_ids.__getitem__, outputs))
    first_call = dict(zip(map(call_ids.__getitem__, reversed(calls)), reversed(calls), strict=True))  # the first wins
    # (the function calls are the calls, read once, when no other kind of call is in the request: almost always)
    answered = calls if called_kinds <= {"function_call"} else None
    del calls
    for index in compress(outputs, map(ge, map(first_call.get, output_ids, outputs), outputs)):  # none before it
        known = WITHOUT_CALL.get(kinds[index])  # type: ignore[arg-type]
        if known is not None:
            call_id = call_ids[index]
            found.append(Violation(
                provider=provider, rule=known[0], position=f"input[{index}]",
                native_indices=[index], call_ids=[call_id], error=known[1].format(id=call_id)))
    del first_call
    last_output = dict(zip(output_ids, outputs, strict=True))  # the last wins
    del output_ids, outputs
    if answered is None:
        answered = array("q", compress(indices, map(UNANSWERED.__contains__, kinds)))
    for index in compress(answered, map(lt, map(last_output.get, map(call_ids.__getitem__, answered), repeat(-1)),
                                        answered)):  # no output after it
        call_id = call_ids[index]
        rule, text = UNANSWERED[kinds[index]]  # type: ignore[index]
        found.append(Violation(
            provider=provider, rule=rule, position=f"input[{index}]",
            native_indices=[index], call_ids=[call_id], error=text.format(id=call_id)))
    del last_output, answered
    with_id = list(compress(indices, item_ids))
    if with_id:
        found.extend(_reasoning_alone(kinds, item_ids, with_id, provider))
        found.extend(_foreign_ids(kinds, call_ids, item_ids, with_id, provider))
        first_seen: dict[str, int] = {}
        for index in with_id:
            item_id = item_ids[index]
            first = first_seen.setdefault(item_id, index)
            if first != index:
                found.append(Violation(
                    provider=provider, rule="duplicate_item_id", position=f"input[{index}]",
                    native_indices=[first, index],
                    call_ids=[call_ids[index]] if kinds[index] in ("function_call", "function_call_output") else [],
                    error=DUPLICATE_ITEM.format(id=item_id)))
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


def _foreign_ids(kinds: list[str | None], call_ids: list[str], item_ids: list[str], with_id: list[int],
                 provider: str) -> list[Violation]:
    """The items whose id does not begin with their type's prefix (formats.openai_responses.foreign_item_id, on the
    columns: each id tested by C-level maps, a step per item only where one is refused).  with_id: the items with
    an id, in order."""
    read: Callable[[Any, str], str] = ITEM_ID_PREFIXES.get
    begins: Callable[[str, str], bool] = str.startswith
    prefixes = list(map(read, map(kinds.__getitem__, with_id), repeat("")))  # (no prefix: "", which begins all)
    found = []
    for index, prefix in compress(zip(with_id, prefixes, strict=True),
                                  map(not_, map(begins, map(item_ids.__getitem__, with_id), prefixes))):
        item_id = item_ids[index]
        if item_id != AGENTS_PLACEHOLDER_ID:
            found.append(Violation(
                provider=provider, rule="item_id_prefix", position=f"input[{index}].id", native_indices=[index],
                call_ids=[call_ids[index]] if call_ids[index] else [],
                error=ID_PREFIX.format(index=index, id=item_id, prefix=prefix)))
    return found


def _reasoning_alone(kinds: list[str | None], item_ids: list[str], with_id: list[int],
                     provider: str) -> list[Violation]:
    """A reasoning item with an id must be followed by the item it preceded in the response.  One
    followed by a message without an id is alone (recorded); other shapes (a call item without an
    id, the reasoning item ending `input`) are not flagged: no recording or documentation shows
    how they are answered.  with_id: the items with an id, in order."""
    found = []
    for index in with_id:
        if kinds[index] == "reasoning" and index + 1 < len(kinds) and kinds[index + 1] == "message" \
                and not item_ids[index + 1]:
            found.append(Violation(
                provider=provider, rule="reasoning_without_following_item", position=f"input[{index}]",
                native_indices=[index, index + 1], error=REASONING_ALONE.format(id=item_ids[index])))
    return found


ROLES = RoleSet(
    frozenset({"assistant", "system", "developer", "user"}),
    "Invalid value: '{role}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", "input[{index}]")
"""The roles a Responses message item takes (param `input[i]`, code invalid_value): quoted whole in reports of a Chat
`tool` message sent as an input item (an openai-codex adapter's, an MCP client's) and in a mock of the API's answers
to an unknown and an empty role.  An item of another type has no role and is not judged here."""


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
    string_limit=LIMIT,
    roles=ROLES,
    errors={
        "role_invalid": ROLES.error,
        "function_call_unanswered": NO_OUTPUT,
        "function_call_output_without_call": NO_CALL,
        "custom_tool_call_unanswered": NO_CUSTOM_OUTPUT,
        "local_shell_call_unanswered": NO_SHELL_OUTPUT,
        "shell_call_unanswered": NO_SHELL_CALL_OUTPUT,
        "apply_patch_call_unanswered": NO_PATCH_OUTPUT,
        "custom_tool_call_output_without_call": NO_CUSTOM_CALL,
        "duplicate_item_id": DUPLICATE_ITEM,
        "reasoning_without_following_item": REASONING_ALONE,
        "arguments_not_text": ARGUMENTS_OBJECT,
        "output_not_text": OUTPUT_OBJECT,
        "item_id_prefix": ID_PREFIX,
        "call_id_too_long": CALL_ID_LONG,
        "string_too_long": TOO_LONG,
    },
    endpoint=Endpoint(
        "https://api.openai.com/v1/responses",
        ("Authorization: Bearer $OPENAI_API_KEY",),
        {"model": "$MODEL"},
        docs="https://platform.openai.com/docs/api-reference/responses/create",
    ),
    reasoning_once=True,
)
