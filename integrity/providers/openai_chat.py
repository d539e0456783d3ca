"""OpenAI Chat Completions: the rules the API enforces on `messages` tool history.

OpenAI validates tool history strictly and names the offending message with a
`param` such as `messages.[3].role`; we report the same position so a user can
match our finding to the 400 they got.  Error texts are the ones the API returns
(including its spelling "preceeding").
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from itertools import compress, count, repeat
from typing import Any

from ..formats.openai_chat import content_needed
from .chat_shape import read_shape
from .ids import chat_ids, length_rule
from .spec import Endpoint, NameRule, ProviderSpec, RoleSet
from .strings import LIMIT, TOO_LONG, long_strings
from .violation import Violation

PROVIDER = "openai-chat"

UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
STRAY = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
NOT_FOUND = "Invalid parameter: 'tool_call_id' of '{id}' not found in 'tool_calls' of previous message."
MISSING_ID = "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'."
DUPLICATE = (
    "Invalid parameter: Duplicate value for 'tool_call_id' of '{id}', in messages[{first}] and messages[{second}]."
)
CALL_ID_LONG = (
    "Invalid 'messages[{index}].tool_calls[{call}].id': string too long. Expected a string with maximum length 40, "
    "but got a string with length {length} instead."
)
RESULT_ID_LONG = (
    "Invalid 'messages[{index}].tool_call_id': string too long. Expected a string with maximum length 40, "
    "but got a string with length {length} instead."
)
MAX_ID = 40
EMPTY_CALLS = (
    "Invalid 'messages[{index}].tool_calls': empty array. Expected an array with minimum length 1, "
    "but got an empty array instead."
)
ARGUMENTS_OBJECT = (
    "Invalid type for 'messages[{index}].tool_calls[{call}].function.arguments': expected a string, "
    "but got an object instead."
)
TYPE_MISSING = "Missing required parameter: 'messages[{index}].tool_calls[{call}].type'."
PART_TYPE_MISSING = "Missing required parameter: 'messages[{index}].content[{part}].type'."
NAME_LIMIT = 64
NAME_CHARS = "a-zA-Z0-9_-"
"""A history call's function name: at most 64 characters of these (the API's request schema)."""
NAME_LONG = (
    "Invalid 'messages[{index}].tool_calls[{call}].function.name': string too long. Expected a string with maximum "
    f"length {NAME_LIMIT}, but got a string with length {{length}} instead."
)
NAME_PATTERN = (
    "Invalid 'messages[{index}].tool_calls[{call}].function.name': string does not match pattern. Expected a string "
    f"that matches the pattern '^[{NAME_CHARS}]+$'."
)
_NOT_NAME = re.compile(f"[^{NAME_CHARS}]")
CONTENT_OBJECT = (
    "Invalid type for 'messages[{index}].content': expected one of a string or array of objects, "
    "but got an object instead."
)
CONTENT_NULL = "Invalid value for 'content': expected a string, got null."
DEVELOPER_CONTENT_MISSING = "Missing required parameter: 'messages[{index}].content'."
DEVELOPER_CONTENT_NULL = (
    "Invalid type for 'messages[{index}].content': expected one of a string or array of objects, "
    "but got null instead."
)


def unanswered_ids(call_ids: Sequence[str], answered: Sequence[str]) -> list[str]:
    """Call ids (first occurrence order, no repeats) that no answering tool message names."""
    seen = set(answered)
    missing: list[str] = []
    for call_id in call_ids:
        if call_id not in seen and call_id not in missing:
            missing.append(call_id)
    return missing


def validate(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every OpenAI Chat tool-history rule the request breaks, in message order."""
    found: list[Violation] = []
    shape = read_shape(messages)
    for turn in shape.turns:
        ids = set(turn.call_ids)
        first_seen: dict[str, int] = {}
        for index in turn.run:
            result_id = messages[index].get("tool_call_id")
            if not isinstance(result_id, str):
                found.append(Violation(
                    provider=provider, rule="tool_call_id_missing", position=f"messages.[{index}].tool_call_id",
                    native_indices=[index], error=MISSING_ID))
                continue
            if result_id not in ids:
                found.append(Violation(
                    provider=provider, rule="tool_call_id_not_found",
                    position=f"messages.[{index}].tool_call_id", native_indices=[turn.index, index],
                    call_ids=[result_id], error=NOT_FOUND.format(id=result_id)))
            elif result_id in first_seen:
                first = first_seen[result_id]
                found.append(Violation(
                    provider=provider, rule="duplicate_tool_call_id",
                    position=f"messages.[{index}].tool_call_id", native_indices=[first, index],
                    call_ids=[result_id], error=DUPLICATE.format(id=result_id, first=first, second=index)))
            else:
                first_seen[result_id] = index
        answered = [r for r in (messages[i].get("tool_call_id") for i in turn.run) if isinstance(r, str)]
        missing = unanswered_ids(turn.call_ids, answered)
        if missing:
            # OpenAI names the first message after the tool run, or just `messages` when the run ends the request.
            after = turn.index + 1 + len(turn.run)
            found.append(Violation(
                provider=provider, rule="tool_calls_unanswered",
                position=f"messages.[{after}].role" if after < len(messages) else "messages",
                native_indices=[turn.index, *turn.run], call_ids=missing,
                error=UNANSWERED.format(ids=", ".join(missing))))
    for index in shape.strays:
        result_id = messages[index].get("tool_call_id")
        found.append(Violation(
            provider=provider, rule="tool_result_without_call", position=f"messages.[{index}].role",
            native_indices=[index], call_ids=[result_id] if isinstance(result_id, str) else [], error=STRAY))
    for index, role in enumerate(shape.roles):
        # `tool_calls: []` on an assistant message (openai-python's parse helper wrote it into histories)
        if role == "assistant" and messages[index].get("tool_calls") == []:
            found.append(Violation(
                provider=provider, rule="tool_calls_empty", position=f"messages[{index}].tool_calls",
                native_indices=[index], error=EMPTY_CALLS.format(index=index)))
    for turn in shape.turns:
        found += _call_fields(messages[turn.index], turn.index, provider)
    found += _object_contents(messages, provider)
    found += _contents_missing(messages, provider)
    found += _parts_refused(messages, provider)
    found += long_strings(messages, provider, "messages")
    return found


IMAGE_NOT_USER = (
    "Invalid 'messages[{index}]'. Image URLs are only allowed for messages with role 'user', but this message with "
    "role '{role}' contains an image URL."
)
_NO_IMAGES = ("tool", "system")
"""The roles whose message OpenAI refuses an image in (a tuple: a role that is no string is compared, not hashed)."""


def _parts_refused(messages: Sequence[Any], provider: str) -> list[Violation]:
    """What OpenAI refuses of a message's content parts, read in one pass over the lists: an image in a tool or system
    message (image_not_user, said below), and content parts without `type` (code missing_required_parameter, param
    `messages[1].content[0].type`): a tool that returned a list of objects (LangChain's docs tell tools to return
    content blocks; @langchain/core sends them on, "400 Missing required parameter: 'messages[N].content[0].type'"),
    a writer's `{"text": ...}` without its tag (Azure OpenAI, quoted whole in an agent's fix notes and a chat-memory
    guide).  The view sends a part of a text alone as a text part (formats.openai_chat.finish); another stays
    refused."""
    found: list[Violation] = []
    for index, message in enumerate(messages):
        content = message.get("content") if type(message) is dict else None
        if type(content) is list:
            found += [Violation(provider=provider, rule="content_part_type_missing",
                                position=f"messages[{index}].content[{part}].type", native_indices=[index],
                                error=PART_TYPE_MISSING.format(index=index, part=part))
                      for part, value in enumerate(content) if type(value) is dict and "type" not in value]
            role = message.get("role")
            if role in _NO_IMAGES and any(type(part) is dict and part.get("type") == "image_url" for part in content):
                # an image a tool returned (a screenshot, a rendered page) sent in its tool message: OpenAI takes
                # images from a user alone (param `messages[3]`, code invalid_value; strands-agents/sdk-python#320,
                # quoted whole in several agents' code, for a `system` message too); the view sends it as it is
                found.append(Violation(provider=provider, rule="image_not_user", position=f"messages[{index}]",
                                       native_indices=[index], error=IMAGE_NOT_USER.format(index=index, role=role)))
    return found


def _contents_missing(messages: Sequence[Any], provider: str) -> list[Violation]:
    """Messages without `content`, or whose `content` is null: the API takes neither, whatever the role, but for an
    assistant message carrying a call, a legacy `function_call`, a refusal or an audio answer (the format's
    `content_needed`, which its `finish` reads too: one fact).
    Answered, param `messages.[i].content`, "Invalid value for 'content': expected a string, got null." (a proxy's
    conformance table of direct API answers, re-measured on three gpt-5.x models: absent or null content on a user,
    system, tool or bare assistant message; the same text quoted in n8n's docs, in vercel/ai#5526 for a tool result
    of none and in #13744 for an assistant of no text and no calls); a `developer` message in its own schema's
    words.  A writer leaves one for a tool that returned nothing, a turn interrupted before its text, or an
    assistant turn of calls another step dropped.  The `function` role is not judged (the answers on record refuse
    the role itself)."""
    try:  # gathered by C loops: a request without a null content (nearly every one) is never walked, and of one with
        # some only the messages of a null content and no calls, or not an assistant's, are (an assistant turn of calls,
        # a quarter of a tool-using history, keeps its null: OpenAI's own responses write it)
        contents = list(map(dict.get, messages, repeat("content")))
        if None not in contents:
            return []
        nulls = list(compress(count(), map(operator.is_, contents, repeat(None))))
        held = list(map(messages.__getitem__, nulls))
        at: Any = compress(nulls, map(operator.or_, map(operator.is_, map(dict.get, held, repeat("tool_calls")),
                                                        repeat(None)),
                                      map(operator.ne, map(dict.get, held, repeat("role")), repeat("assistant"))))
    except TypeError:  # an entry that is no dict (malformed: no rule reads it)
        at = (index for index, message in enumerate(messages)
              if isinstance(message, dict) and message.get("content") is None)
    found: list[Violation] = []
    for index in at:
        message = messages[index]
        if not content_needed(message):
            continue
        if message.get("role") == "developer":
            absent = "content" not in message
            found.append(Violation(
                provider=provider, rule="developer_content_missing" if absent else "developer_content_null",
                position=f"messages[{index}].content", native_indices=[index],
                error=(DEVELOPER_CONTENT_MISSING if absent else DEVELOPER_CONTENT_NULL).format(index=index)))
        else:
            found.append(Violation(provider=provider, rule="content_missing", position=f"messages.[{index}].content",
                                   native_indices=[index], error=CONTENT_NULL))
    return found


def _object_contents(messages: Sequence[Any], provider: str) -> list[Violation]:
    """Messages whose `content` a writer stored as an object (a tool's result as returned, a user turn as a
    dict): OpenAI takes a string or an array of parts and answers 400 invalid_type with this text, whatever the
    role (pydantic/pydantic-ai#2653, clusterzx/paperless-ai#748; param `messages[1].content`)."""
    return [Violation(provider=provider, rule="content_not_text", position=f"messages[{index}].content",
                      native_indices=[index], error=CONTENT_OBJECT.format(index=index))
            for index, message in enumerate(messages)
            if isinstance(message, dict) and isinstance(message.get("content"), dict)]


def _call_fields(message: Any, index: int, provider: str) -> list[Violation]:
    """The fields of a call the API's request schema refuses, as a writer left them: no `type` (the recorded 400,
    code `missing_required_parameter`: langchain-ai/langchain-azure#35, whose tool calls lacked it), a
    `function.arguments` that is a JSON object where the API takes only its text (code `invalid_type`), and a
    `function.name` longer than 64 characters or holding others than a-zA-Z0-9_- (a tool named by a whole command, a
    dotted MCP name another provider took: "string does not match pattern", mcp-use/mcp-use#90,
    `messages[9].tool_calls[0].function.name`, code `invalid_value`; "string too long", quoted in a workshop's notes
    on a 79-character MCP name and in a project's regression test).  A name both too long and of other characters
    gets the length's text (assumed: one error is answered, which first is not on record); an empty name the
    pattern's (assumed).  Only a missing type and an object are judged of the other fields: no answer to another
    value is on record."""
    found: list[Violation] = []
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    for position, call in enumerate(calls if isinstance(calls, list) else ()):
        if not isinstance(call, dict):
            continue
        ids = [call["id"]] if isinstance(call.get("id"), str) else []
        if "type" not in call:
            found.append(Violation(
                provider=provider, rule="tool_call_type_missing",
                position=f"messages[{index}].tool_calls[{position}].type", native_indices=[index], call_ids=ids,
                error=TYPE_MISSING.format(index=index, call=position)))
        function = call.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        if isinstance(name, str) and (not name or len(name) > NAME_LIMIT or _NOT_NAME.search(name)):
            long = len(name) > NAME_LIMIT
            found.append(Violation(
                provider=provider, rule="function_name_too_long" if long else "function_name_pattern",
                position=f"messages[{index}].tool_calls[{position}].function.name", native_indices=[index],
                call_ids=ids, error=(NAME_LONG if long else NAME_PATTERN).format(index=index, call=position,
                                                                                   length=len(name))))
        if isinstance(function, dict) and isinstance(function.get("arguments"), dict):
            found.append(Violation(
                provider=provider, rule="arguments_not_text",
                position=f"messages[{index}].tool_calls[{position}].function.arguments",
                native_indices=[index], call_ids=ids, error=ARGUMENTS_OBJECT.format(index=index, call=position)))
    return found


def validate_ids(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Call ids longer than 40 characters (the API's code: string_above_max_length)."""
    found: list[Violation] = []
    for index, call, value in chat_ids(messages):
        if len(value) > MAX_ID:
            if call is not None:
                position, template = f"messages[{index}].tool_calls[{call}].id", CALL_ID_LONG
            else:
                position, template = f"messages[{index}].tool_call_id", RESULT_ID_LONG
            found.append(Violation(
                provider=provider, rule="call_id_too_long" if call is not None else "result_id_too_long",
                position=position, native_indices=[index], call_ids=[value],
                error=template.format(index=index, call=call, length=len(value))))
    return found


OPENAI_MODELS = ("openai/", "azure/", "azure_ai/", "gpt-", "chatgpt", r"o\d", "text-davinci", "codex-",
                 "computer-use")
"""OpenAI's model names and the routes that serve them (shared with the Responses API's record)."""

ROLES = RoleSet(
    frozenset({"system", "developer", "user", "assistant", "tool", "function"}),
    "Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and "
    "'developer'.", "messages[{index}].role")
"""The roles Chat Completions takes (param `messages[i].role`, code invalid_value): quoted whole in many reports, a
Gemini `model` role or a UI's own role (`pipeline`, `wizard`, an empty string) sent on as it was."""


SPEC = ProviderSpec(
    model_prefixes=OPENAI_MODELS,
    hosts_others=True,  # OpenAI-compatible and Azure endpoints serve other providers' models
    name=PROVIDER,
    title="OpenAI Chat Completions",
    native_format="openai-chat",
    validate=validate,
    validate_history=None,
    validate_ids=validate_ids,
    id_rule=length_rule(MAX_ID, "OpenAI Chat"),
    needs_call_ids=True,
    role_rules=None,
    tool_names=NameRule(NAME_LIMIT, NAME_CHARS),
    string_limit=LIMIT,
    images_from_user_only=True,
    roles=ROLES,
    errors={
        "role_invalid": ROLES.error,
        "content_part_type_missing": PART_TYPE_MISSING,
        "image_not_user": IMAGE_NOT_USER,
        "tool_calls_unanswered": UNANSWERED,
        "tool_result_without_call": STRAY,
        "tool_call_id_not_found": NOT_FOUND,
        "duplicate_tool_call_id": DUPLICATE,
        "tool_call_id_missing": MISSING_ID,
        "tool_calls_empty": EMPTY_CALLS,
        "arguments_not_text": ARGUMENTS_OBJECT,
        "tool_call_type_missing": TYPE_MISSING,
        "content_not_text": CONTENT_OBJECT,
        "content_missing": CONTENT_NULL,
        "developer_content_missing": DEVELOPER_CONTENT_MISSING,
        "developer_content_null": DEVELOPER_CONTENT_NULL,
        "function_name_too_long": NAME_LONG,
        "function_name_pattern": NAME_PATTERN,
        "call_id_too_long": CALL_ID_LONG,
        "result_id_too_long": RESULT_ID_LONG,
        "string_too_long": TOO_LONG,
    },
    endpoint=Endpoint(
        "https://api.openai.com/v1/chat/completions",
        ("Authorization: Bearer $OPENAI_API_KEY",),
        {"model": "$MODEL"},
        docs="https://platform.openai.com/docs/api-reference/chat/create",
    ),
)
