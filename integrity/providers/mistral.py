"""Mistral chat completions: OpenAI's message shape with Mistral's stricter ordering.

Each assistant turn with tool calls must be followed by exactly as many tool
messages, and (mistral-common's validator from tokenizer v13, which the API runs
for its current models) each tool message must answer a call of that turn, once,
and the turn's call ids must be distinct.  It also enforces role order around
tool messages (no `user` straight after `tool`, no `tool` without a calling
turn) and refuses to serve a request that ends on a plain assistant message.

That last rule concerns the request being sent, not the history inside it: a
stored transcript normally ends on the assistant's reply, and the next request
appends the new user turn.  `validate(..., history=True)` checks a transcript's
history (the other rules only) and skips it; the default checks an outgoing
request and keeps it.

The validator reads a tool call without an `id` as the id "null" (mistral-common's
ToolCall.id defaults to it), and in serving mode refuses that id, however it came
(`served_call_id`; the id rules below).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .chat_shape import CallTurn, call_ids_of, read_shape, result_id_of, role_of
from .ids import chat_ids, is_mistral_id, mistral_rule
from .spec import OPAQUE, Endpoint, ProviderSpec, RoleRules
from .violation import Violation

PROVIDER = "mistral"

COUNT = "Not the same number of function calls and responses"
ORDER = "Unexpected role '{role}' after role '{previous}'"
INVALID_ID = "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of 9."
LAST = "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant"
UNEXPECTED_RESULT = "Unexpected tool call id {id} in tool results"
DUPLICATE_RESULT = "Duplicate tool call id {id} in tool results"
DUPLICATE_CALL = "Duplicate tool call id {id} in assistant message"
UNDEFINED_CALL = "Tool call id has to be defined in serving mode."
UNDEFINED_RESULT = "Tool call id has to be defined."
NULL = "null"
"""The id mistral-common's validator gives a tool call sent without one, and refuses in serving mode."""


REQUEST_ONLY_RULES = ("last_role_assistant",)


def validate(messages: Sequence[Any], provider: str = PROVIDER, history: bool = False) -> list[Violation]:
    """Every Mistral tool-history and role-order rule the request breaks, in message order.

    history=True: the messages are a transcript's history, not the request being
    sent, so the request-only rule `last_role_assistant` is not checked.
    """
    found: list[Violation] = []
    shape = read_shape(messages)
    roles = shape.roles
    for turn in shape.turns:
        unpaired = _unpaired(messages, turn, provider)
        if unpaired:  # the validator stops at the first of these, before it counts
            found.extend(unpaired)
        elif len(turn.run) != len(turn.call_ids):
            found.append(Violation(
                provider=provider, rule="call_response_count_mismatch", position=f"messages[{turn.index}]",
                native_indices=[turn.index, *turn.run], call_ids=list(turn.call_ids), error=COUNT))
    for index in shape.strays:
        previous = roles[index - 1] if index > 0 else None
        result_id = messages[index].get("tool_call_id")
        ids = [result_id] if isinstance(result_id, str) else []
        if previous is None:
            # A tool message with nothing before it: one response, no call.
            found.append(Violation(
                provider=provider, rule="call_response_count_mismatch", position=f"messages[{index}]",
                native_indices=[index], call_ids=ids, error=COUNT))
        else:
            found.append(Violation(
                provider=provider, rule="unexpected_role_order", position=f"messages[{index}]",
                native_indices=[index - 1, index], call_ids=ids,
                error=ORDER.format(role="tool", previous=previous)))
    for index in range(1, len(messages)):
        if roles[index] == "user" and roles[index - 1] == "tool":
            found.append(Violation(
                provider=provider, rule="unexpected_role_order", position=f"messages[{index}]",
                native_indices=[index - 1, index], error=ORDER.format(role="user", previous="tool")))
    if messages and not history:
        last = len(messages) - 1
        message = messages[last]
        if roles[last] == "assistant" and message.get("prefix") is not True:
            found.append(Violation(
                provider=provider, rule="last_role_assistant", position=f"messages[{last}]",
                native_indices=[last], call_ids=call_ids_of(message), error=LAST))
    return found


def _unpaired(messages: Sequence[Any], turn: CallTurn, provider: str) -> list[Violation]:
    """The turn's ids mistral-common's v13 validator refuses: a call id the turn uses twice, and a tool message
    whose id answers no call of the turn or one already answered.  A call without `id` is read as the validator
    reads it (served_call_id: "null", which a tool message's "null" answers); a result id missing or not a string
    is left to the count (the API's recorded answer to a tool message without one is the undefined id's text,
    an id rule: validate_ids)."""
    found: list[Violation] = []
    called: set[str] = set()
    for call_id in _served_call_ids(messages[turn.index]):
        if call_id and call_id in called:
            found.append(Violation(
                provider=provider, rule="duplicate_call_id", position=f"messages[{turn.index}]",
                native_indices=[turn.index], call_ids=[call_id], error=DUPLICATE_CALL.format(id=call_id)))
        called.add(call_id)
    answered: set[str] = set()
    for index in turn.run:
        result_id = result_id_of(messages[index])
        if not result_id:
            continue
        if result_id in answered:
            found.append(Violation(
                provider=provider, rule="duplicate_result_id", position=f"messages[{index}]",
                native_indices=[turn.index, index], call_ids=[result_id],
                error=DUPLICATE_RESULT.format(id=result_id)))
        elif result_id not in called:
            found.append(Violation(
                provider=provider, rule="unexpected_tool_call_id", position=f"messages[{index}]",
                native_indices=[turn.index, index], call_ids=[result_id],
                error=UNEXPECTED_RESULT.format(id=result_id)))
        answered.add(result_id)
    return found


def served_call_id(call: Any) -> str:
    """A tool call's id as the validator reads it: NULL when the call has no `id` (its default), the id when it is a
    string, else "" (a call that is no object, or an id of another type: not modelled)."""
    if isinstance(call, dict):
        value = call.get("id", NULL)
        return value if isinstance(value, str) else ""
    return ""


def _served_call_ids(message: Any) -> list[str]:
    """served_call_id of each of an assistant message's tool calls, in order."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return [served_call_id(call) for call in calls] if isinstance(calls, list) else []


def validate_history(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """The rules that apply to a stored transcript's history (every rule but `last_role_assistant`)."""
    return validate(messages, provider, history=True)


def validate_ids(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Call ids that are not exactly nine letters or digits, or that the validator reads as undefined: a call's
    "null" (what it reads for a call without `id`) and a tool message without a `tool_call_id` (or a null one)."""
    return refused_ids(chat_ids(messages), provider) + _undefined(messages, provider)


def _undefined(messages: Sequence[Any], provider: str) -> list[Violation]:
    """The ids chat_ids does not list that the validator refuses as undefined (MistralRequestValidatorV3's
    _validate_tool_call and _validate_tool_message, serving mode): a call without `id`, and a tool message whose
    `tool_call_id` is missing or null."""
    found: list[Violation] = []
    for index, message in enumerate(messages):
        role = role_of(message)
        if role == "assistant":
            calls = message.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict) and "id" not in call:
                    found.append(Violation(
                        provider=provider, rule="undefined_call_id", position=f"messages[{index}]",
                        native_indices=[index], error=UNDEFINED_CALL))
        elif role == "tool" and message.get("tool_call_id") is None:
            found.append(Violation(
                provider=provider, rule="undefined_result_id", position=f"messages[{index}]",
                native_indices=[index], error=UNDEFINED_RESULT))
    return found


def refused_ids(ids: Iterable[tuple[int, int | None, str]], provider: str = PROVIDER) -> list[Violation]:
    """validate_ids of a request's ids ((message index, call position or None for a result, id), in order, as
    ids.chat_ids reads them): a request judged a stretch at a time (providers.sparse) has them judged here on
    every id at once."""
    found: list[Violation] = []
    for index, call, value in ids:
        if call is not None and value == NULL:  # the validator's own undefined id: refused as such in serving mode
            found.append(Violation(
                provider=provider, rule="undefined_call_id", position=f"messages[{index}]",
                native_indices=[index], call_ids=[value], error=UNDEFINED_CALL))
        elif not is_mistral_id(value):
            found.append(Violation(
                provider=provider, rule="invalid_tool_call_id", position=f"messages[{index}]",
                native_indices=[index], call_ids=[value], error=INVALID_ID.format(id=value)))
    return found


SPEC = ProviderSpec(
    model_prefixes=("mistral/", "mistral", "codestral", "magistral", "devstral", "ministral", "pixtral", "voxtral",
                    "open-mistral", "open-mixtral", "open-codestral"),  # Mistral's model names (docs.mistral.ai models)
    name=PROVIDER,
    title="Mistral",
    native_format="openai-chat",
    validate=validate,
    validate_history=validate_history,
    validate_ids=validate_ids,
    id_rule=mistral_rule(),
    needs_call_ids=True,
    role_rules=RoleRules(
        transparent=frozenset({OPAQUE}),  # system messages stay in the Chat shape's message list
        merge_assistants=None,
        results_then_user=True,
        merge_users=False,
        start=None,
        why=("Mistral rejects a user message right after tool messages "
             f"({ORDER.format(role='user', previous='tool')})"),
    ),
    errors={
        "call_response_count_mismatch": COUNT,
        "unexpected_role_order": ORDER,
        "last_role_assistant": LAST,
        "invalid_tool_call_id": INVALID_ID,
        "unexpected_tool_call_id": UNEXPECTED_RESULT,
        "duplicate_result_id": DUPLICATE_RESULT,
        "duplicate_call_id": DUPLICATE_CALL,
        "undefined_call_id": UNDEFINED_CALL,
        "undefined_result_id": UNDEFINED_RESULT,
    },
    endpoint=Endpoint(
        "https://api.mistral.ai/v1/chat/completions",
        ("Authorization: Bearer $MISTRAL_API_KEY",),
        {"model": "$MODEL"},
        docs="https://docs.mistral.ai/api/#tag/chat",
    ),
)
