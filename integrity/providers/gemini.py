"""Google Gemini `contents`: the turn rules the API enforces on function calling.

Gemini pairs by turn and by count, not by id (ids are optional): a turn with N
`functionCall` parts must be followed by a turn with N `functionResponse` parts,
a function call turn must follow a user turn or a function response turn, and a
function response turn must follow a function call turn.  The API does not name
a position; we point at `contents[i]`.

A model turn may also carry the `functionResponse` parts answering its own calls
(recorded requests do, and Gemini answers them with HTTP 200): those count as
answers, and such a turn is not a misplaced response turn.

Consecutive contents of one role are one turn: the rules read the combined turns.
Recorded (HTTP 200): two model contents in a row, each with one `functionCall`,
answered by one user content with two `functionResponse` parts; and one model
content with three calls answered by three user contents of one response each.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from ..repair.views import SIGNATURE_KEYS
from .chat_shape import role_of
from .spec import CUSTOM, OPAQUE, SYSTEM, BlankRule, Endpoint, ProviderSpec, RoleRules, RoleSet
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
RESPONSE_NOT_OBJECT = ("Invalid value at 'contents[{index}].parts[{part}].function_response.response' "
                       "(type.googleapis.com/google.protobuf.Struct), {value}")
PARTS_EMPTY = "* GenerateContentRequest.contents[{index}].parts: contents.parts must not be empty."
SIGNATURE_MISSING = (
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
    "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call "
    "`default_api:{name}` , position {position}. Please refer to "
    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details.")

ROLE_NOT_SUPPORTED = ("Role '{role}' is not supported. Please use a valid role: SYSTEM, SYSTEM_1, USER, ASSISTANT, "
                      "DEVELOPER, CONTEXT, USER_CONTEXT, MODEL, USER.")
"""What the current models answer a content whose role is none they take: `function`, which older code (the
Gemini docs' first function-calling example, inspect_ai before 2025-08, Spring AI, Firebase's quickstart) gives a
turn of function responses, and `tool` (Genkit): "Role 'function' is not supported. ..." from Gemini Flash 3.7
(blakeblackshear/frigate#24013, 2026-08), the same refusal from Gemini 3.5 (firebase/quickstart-ios#1871) and the
Gemini API's generateContent (sashiko-dev/sashiko#500).  The roles it lists are taken (case aside); what the models
do with the ones besides user and model is not known, so no rule refuses them."""
TAKEN_ROLES = frozenset({"system", "system_1", "user", "assistant", "developer", "context", "user_context", "model"})
ROLE_INVALID_OLDER = "Please use a valid role: user, model."
"""What Gemini 1.x and 2.x answer a content whose role is not user, model or function (the Vertex AI batch
prediction page's failed row, role `tester`, on gemini-2.0-flash; reports of `system` and `assistant` roles sent by
agents, google.genai ClientError 400).  They take `function`: the Gemini API's own curl example of 2024 sent a
function response so (spring-projects/spring-ai#866), and Inspect sent it so until inspect_ai#2378."""
ROLES = RoleSet(TAKEN_ROLES, ROLE_NOT_SUPPORTED, "contents[{index}].role", folded=True)
"""The current models' roles (rule role_invalid, judged by the registry for every rule set that has one)."""
OLDER_ROLES = RoleSet(frozenset({"user", "model", "function"}), ROLE_INVALID_OLDER, "contents[{index}].role")
"""Gemini 1.x and 2.x's roles (the `gemini-2` rule set's)."""

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


def _calls_and_responses(content: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """function_calls and function_responses of one content, its parts read once."""
    parts = content.get("parts") if isinstance(content, dict) else None
    calls: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    # (CALL_KEYS and RESPONSE_KEYS spelled out, each in its order: the rule set reads every part of every
    # content it judges, and a loop over the key tuples was most of its time)
    for part in parts if isinstance(parts, list) else ():
        if isinstance(part, dict):
            inner = part.get("functionCall")
            if isinstance(inner, dict) or isinstance(inner := part.get("function_call"), dict):
                calls.append(inner)
            inner = part.get("functionResponse")
            if isinstance(inner, dict) or isinstance(inner := part.get("function_response"), dict):
                responses.append(inner)
    return calls, responses


def function_calls(content: Any) -> list[dict[str, Any]]:
    """The functionCall objects of one content."""
    return _parts(content, CALL_KEYS)


def function_responses(content: Any) -> list[dict[str, Any]]:
    """The functionResponse objects of one content."""
    return _parts(content, RESPONSE_KEYS)


def _ids(items: list[dict[str, Any]]) -> list[str]:
    """The optional ids, where present, so the report can name the calls involved."""
    return [item["id"] for item in items if isinstance(item.get("id"), str)]


def turns(contents: Sequence[Any]) -> list[list[int]]:
    """The request's turns, as lists of content indices: consecutive contents of one role are one turn."""
    combined: list[list[int]] = []
    previous: object = object()
    for index, content in enumerate(contents):
        role = role_of(content)
        if combined and role is not None and role == previous:
            combined[-1].append(index)
        else:
            combined.append([index])
        previous = role
    return combined


def _first_with(contents: Sequence[Any], turn: list[int], parts: Any) -> int:
    """The index of the turn's first content that has parts of the kind `parts` reads."""
    return next((index for index in turn if parts(contents[index])), turn[0])


def _response_values(content: Any, index: int, provider: str) -> list[Violation]:
    """Each function response of the content at `index` whose `response` is not a JSON object (a writer that
    stored the tool's text, or its list, as it came): the API's request parser refuses it, naming the part and
    appending the value as JSON (seen in several reports quoting the API's fieldViolations).  A response without
    `response` is not judged."""
    found: list[Violation] = []
    parts = content.get("parts") if isinstance(content, dict) else None
    for position, part in enumerate(parts if isinstance(parts, list) else ()):
        key = _response_key(part)
        response = part[key] if key is not None else None
        if isinstance(response, dict) and "response" in response and not isinstance(response["response"], dict):
            value = json.dumps(response["response"], ensure_ascii=False)
            found.append(Violation(
                provider=provider, rule="function_response_not_object",
                position=f"contents[{index}].parts[{position}].function_response.response",
                native_indices=[index], call_ids=[response["id"]] if isinstance(response.get("id"), str) else [],
                error=RESPONSE_NOT_OBJECT.format(index=index, part=position, value=value)))
    return found


def _response_key(part: Any) -> str | None:
    """The key a part holds its function response under (camelCase or the Python SDK's snake_case), if any."""
    if not isinstance(part, dict):
        return None
    return RESPONSE_KEYS[0] if RESPONSE_KEYS[0] in part else RESPONSE_KEYS[1] if RESPONSE_KEYS[1] in part else None


def validate(contents: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every rule a Gemini 3 model holds the request to (validate_turns' turn rules, then unsigned_calls'); the role
    of each content is the registry's (ProviderSpec.roles: ROLES, and OLDER_ROLES for Gemini 1.x and 2.x)."""
    return validate_turns(contents, provider) + unsigned_calls(contents, provider)


def current_turn(contents: Sequence[Any]) -> int:
    """The index of the content that opens the current turn: the last one not the model's holding a part that is no
    function response (a user's text, an image); 0 when none does.  Gemini 3 validates the signatures of the calls
    after it ("the current turn": ai.google.dev/gemini-api/docs/thought-signatures)."""
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        if isinstance(content, dict) and content.get("role") != "model":
            parts = content.get("parts")
            if isinstance(parts, list) and any(isinstance(part, dict) and _response_key(part) is None
                                               for part in parts):
                return index
    return 0


def signed(part: dict[str, Any]) -> bool:
    """Whether a part carries a thought signature (camelCase, or the Python SDK's snake_case dump)."""
    return any(isinstance(part.get(key), str) and part[key] for key in SIGNATURE_KEYS)


def unsigned_calls(contents: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Each model content of the current turn (current_turn) whose first function call carries no thought signature:
    a Gemini 3 model refuses it ("Function call is missing a thought_signature in functionCall parts. ...", the
    content's 1-based index as its position: "position 2" for a first step, quoted in many reports, e.g.
    nanbingxyz/5ire#405 with gemini-3-pro-preview, which "does not happen with gemini-2.5").  Only the first call
    of a step carries one (parallel calls share it); calls before the current turn are not checked.  Gemini 2.x
    and Gemini 3 Pro Image take such a history (the `gemini-2` rule set: validate_turns alone)."""
    found: list[Violation] = []
    for index in range(current_turn(contents) + 1, len(contents)):
        content = contents[index]
        parts = content.get("parts") if isinstance(content, dict) and content.get("role") == "model" else None
        for position, part in enumerate(parts if isinstance(parts, list) else ()):
            call = _call_of(part)
            if call is None:
                continue
            if not signed(part):
                name = call.get("name")
                found.append(Violation(
                    provider=provider, rule="thought_signature_missing",
                    position=f"contents[{index}].parts[{position}]",
                    native_indices=[index], call_ids=[call["id"]] if isinstance(call.get("id"), str) else [],
                    error=SIGNATURE_MISSING.format(name=name if isinstance(name, str) else "", position=index + 1)))
            break
    return found


def _call_of(part: Any) -> dict[str, Any] | None:
    """The functionCall object of a part (either spelling), or None."""
    if not isinstance(part, dict):
        return None
    for key in CALL_KEYS:
        inner = part.get(key)
        if isinstance(inner, dict):
            return inner
    return None


def validate_turns(contents: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every Gemini function-calling turn rule the request breaks, in content order.

    The contents are combined into turns first; each turn's calls and responses are read once,
    and the rules read their neighbours' from those lists.  A position names the turn's first
    content holding the parts the rule is about (its first content for a count).  A content without parts is
    refused whatever its turn (parts_empty: the API's request parser answers "* GenerateContentRequest.contents[1]
    .parts: contents.parts must not be empty.", quoted whole in egoist/chatwise-releases#250 and in reports of
    AI SDK, agno and new-api users)."""
    combined = turns(contents)
    each = list(map(_calls_and_responses, contents))
    found: list[Violation] = [
        Violation(provider=provider, rule="parts_empty", position=f"contents[{index}].parts", native_indices=[index],
                  error=PARTS_EMPTY.format(index=index))
        for index, content in enumerate(contents) if isinstance(content, dict) and content.get("parts") == []]
    for index, (_, responses) in enumerate(each):  # (only a content holding responses is read again)
        if responses and any("response" in inner and not isinstance(inner["response"], dict) for inner in responses):
            found += _response_values(contents[index], index, provider)
    calls_each = [calls for calls, _ in each]
    responses_each = [responses for _, responses in each]
    calls_of = [calls_each[turn[0]] if len(turn) == 1 else [c for i in turn for c in calls_each[i]]
                for turn in combined]
    responses_of = [responses_each[turn[0]] if len(turn) == 1 else [r for i in turn for r in responses_each[i]]
                    for turn in combined]
    size = len(combined)
    for at, turn in enumerate(combined):
        calls = calls_of[at]
        responses = responses_of[at]
        before = combined[at - 1] if at > 0 else []
        if calls:
            follows_user = at > 0 and (
                role_of(contents[before[0]]) in ("user", "function") or bool(responses_of[at - 1]))
            if not follows_user:
                found.append(Violation(
                    provider=provider, rule="function_call_turn_position",
                    position=f"contents[{_first_with(contents, turn, function_calls)}]",
                    native_indices=before + turn, call_ids=_ids(calls), error=CALL_POSITION))
            after = combined[at + 1] if at + 1 < size else []
            answers = [*responses, *(responses_of[at + 1] if after else [])]  # its own answers count first
            if len(answers) != len(calls):
                found.append(Violation(
                    provider=provider, rule="function_response_count_mismatch",
                    position=f"contents[{after[0] if after else turn[0]}]",
                    native_indices=turn + after, call_ids=_ids(calls), error=COUNT))
        if responses and not calls and not (calls_of[at - 1] if at > 0 else []):
            found.append(Violation(
                provider=provider, rule="function_response_turn_position",
                position=f"contents[{_first_with(contents, turn, function_responses)}]",
                native_indices=before + turn, call_ids=_ids(responses), error=RESPONSE_POSITION))
    return found


SPEC = ProviderSpec(
    signs_calls=True,
    model_prefixes=("gemini/", "google/", "vertex_ai/", "vertex_ai_beta/", "gemini"),  # (Gemma: OLDER_SPEC's)
    hosts_others=True,  # Vertex AI serves Claude and others
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
    roles=ROLES,
    errors={
        "function_response_count_mismatch": COUNT,
        "function_call_turn_position": CALL_POSITION,
        "function_response_turn_position": RESPONSE_POSITION,
        "function_response_not_object": RESPONSE_NOT_OBJECT,
        "parts_empty": PARTS_EMPTY,
        "thought_signature_missing": SIGNATURE_MISSING,
        "role_invalid": ROLES.error,
    },
    # (a content without parts: "contents.parts must not be empty"; a text, blank or not, is a part)
    blank_text=BlankRule(whitespace_beside=frozenset(), spares_final_assistant=False, texts=False),
    endpoint=Endpoint(
        "https://generativelanguage.googleapis.com/v1beta/models/$GEMINI_MODEL:generateContent",
        ("x-goog-api-key: $GEMINI_API_KEY",),
        {},
        docs="https://ai.google.dev/api/generate-content",
    ),
)


OLDER = "gemini-2"
"""The rules of the Gemini models that take a call without its thought signature: Gemini 1.x and 2.x, Gemma, and
Gemini 3 Pro Image ("doesn't return a 400 error if a thought signature isn't returned": Vertex AI's thought
signatures page).  A variant of `gemini` (ProviderSpec.variant_of), chosen by a model's name where a request names
one (providers.models): a guard for `gemini-2.5-flash`, a recorded exchange's endpoint; `--provider gemini-2` asks
it by name.  Gemini alone means the current models."""

OLDER_SPEC = dataclasses.replace(
    SPEC, name=OLDER, title="Google Gemini 2.x", validate=validate_turns, variant_of=PROVIDER, signs_calls=False,
    roles=OLDER_ROLES,
    model_prefixes=(r"gemini-(1|2)(\.\d+)?(-|\Z)", r"gemini-(pro|ultra)(-vision)?(-\d+)?\Z", r"gemma",
                    r"gemini-3(\.\d+)?-pro-image"),
    errors={**{rule: text for rule, text in SPEC.errors.items() if rule != "thought_signature_missing"},
            "role_invalid": OLDER_ROLES.error})
