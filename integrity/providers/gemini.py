"""Google Gemini `contents`: the turn rules the API enforces on function calling.

Gemini pairs by turn and by count, not by id (ids are optional): a turn with N
`functionCall` parts must be followed by a turn with N `functionResponse` parts,
a function call turn must follow a user turn or a function response turn, and a
function response turn must follow a function call turn.  The API does not name
a position; we point at `contents[i]`.

A model turn may also carry the `functionResponse` parts answering its own calls
(recorded requests do, and Gemini answers them with HTTP 200): those count as
answers, and such a turn is not a misplaced response turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .chat_shape import role_of
from .spec import CUSTOM, OPAQUE, SYSTEM, ProviderSpec, RoleRules
from .violation import Violation

PROVIDER = "gemini"

COUNT = (
    "Please ensure that the number of function response parts is equal to the number of function call parts "
    "of the function call turn."
)
CALL_POSITION = (
    "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
)
RESPONSE_POSITION = "Please ensure that function response turn comes immediately after a function call turn."

CALL_KEYS = ("functionCall", "function_call")
RESPONSE_KEYS = ("functionResponse", "function_response")


def _parts(content: Any, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """The inner functionCall / functionResponse objects of a content, in part order."""
    parts = content.get("parts") if isinstance(content, dict) else None
    found = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict):
            for key in keys:
                inner = part.get(key)
                if isinstance(inner, dict):
                    found.append(inner)
                    break
    return found


def function_calls(content: Any) -> list[dict[str, Any]]:
    """The functionCall objects of one content."""
    return _parts(content, CALL_KEYS)


def function_responses(content: Any) -> list[dict[str, Any]]:
    """The functionResponse objects of one content."""
    return _parts(content, RESPONSE_KEYS)


def _ids(items: list[dict[str, Any]]) -> list[str]:
    """The optional ids, where present, so the report can name the calls involved."""
    return [item["id"] for item in items if isinstance(item.get("id"), str)]


def validate(contents: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every Gemini function-calling turn rule the request breaks, in content order.

    Each content's calls and responses are read once; the rules read their neighbours' from those lists."""
    found: list[Violation] = []
    calls_of = [function_calls(content) for content in contents]
    responses_of = [function_responses(content) for content in contents]
    size = len(contents)
    for index in range(size):
        calls = calls_of[index]
        responses = responses_of[index]
        previous = contents[index - 1] if index > 0 else None
        if calls:
            follows_user = previous is not None and (
                role_of(previous) in ("user", "function") or bool(responses_of[index - 1]))
            if not follows_user:
                found.append(Violation(
                    provider=provider, rule="function_call_turn_position", position=f"contents[{index}]",
                    native_indices=([index - 1] if previous is not None else []) + [index],
                    call_ids=_ids(calls), error=CALL_POSITION))
            following = index + 1 < size
            answers = [*responses, *(responses_of[index + 1] if following else [])]  # its own answers count first
            if len(answers) != len(calls):
                at = index + 1 if following else index
                found.append(Violation(
                    provider=provider, rule="function_response_count_mismatch", position=f"contents[{at}]",
                    native_indices=[index] + ([index + 1] if following else []),
                    call_ids=_ids(calls), error=COUNT))
        if responses and not calls and not (calls_of[index - 1] if index > 0 else []):
            found.append(Violation(
                provider=provider, rule="function_response_turn_position", position=f"contents[{index}]",
                native_indices=([index - 1] if previous is not None else []) + [index],
                call_ids=_ids(responses), error=RESPONSE_POSITION))
    return found


SPEC = ProviderSpec(
    name=PROVIDER,
    title="Google Gemini",
    native_format="gemini",
    validate=validate,
    validate_history=None,
    needs_call_ids=False,  # pairs by turn and count; ids are optional
    role_rules=RoleRules(
        transparent=frozenset({SYSTEM, CUSTOM, OPAQUE}),  # the writer hoists system messages out of `contents`
        merge_assistants="before_calls",
        results_then_user=False,
        merge_users=False,
        start="no_calls",
        why="Gemini requires a function call turn to come right after a user turn or a function response turn",
    ),
    errors={
        "function_response_count_mismatch": COUNT,
        "function_call_turn_position": CALL_POSITION,
        "function_response_turn_position": RESPONSE_POSITION,
    },
)
