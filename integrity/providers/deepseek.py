"""DeepSeek chat completions: OpenAI's message shape, DeepSeek's own checks and wording.

DeepSeek words the unanswered-call and stray-result errors differently from
OpenAI and, unlike OpenAI, rejects a `tool_call_id` that appears in two tool
messages anywhere in the request (an id reused across turns is enough), naming
the message as `message[N]`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import and_
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
NOT_TEXT = ("Failed to deserialize the JSON body into the target type: messages[{index}]: unknown variant "
            "`{variant}`, expected `text`")
NOT_TEXT_RULE = "content_part_not_text"  # the rule of NOT_TEXT
CONTENT_NULL = ("Failed to deserialize the JSON body into the target type: messages[{index}]: content should be a "
                "string or a list")
CONTENT_NULL_RULE = "content_null"  # the rule of CONTENT_NULL
_NULL_REFUSED = ("system", "user", "tool")
"""The roles whose null content DeepSeek refuses as it reads the body (a tuple: a role that is no string is compared,
not hashed); an assistant's is not judged (what stands in for it is not on record)."""


def validate(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every DeepSeek tool-history rule the request breaks, in message order, and the body's first content part
    DeepSeek cannot read (which DeepSeek names alone: it refuses the body as it reads it)."""
    found: list[Violation] = first_unread(messages, provider)
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


def first_unread(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """What DeepSeek's chat endpoint cannot read first as it reads the body, which it names alone: a null content
    (content_null, below) or a content part of another type than `text` (an `image_url`, an `input_audio`, a `file`, a
    `refusal`): its messages
    take text parts only ("unknown variant `image_url`, expected `text`", every DeepSeek model through V4).  A
    Chat history with a pasted screenshot was judged accepted; DeepSeek answers 400 to every request after.
    Only the first: the body is refused at the first part it cannot read.  The error's `at line 1 column N`
    (where the part sits in the JSON text the client sent) is left out: it depends on how the body is
    serialized."""
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if content is None and isinstance(message, dict) and "content" in message \
                and message.get("role") in _NULL_REFUSED:
            # a null content (a tool that returned nothing, a system message a proxy built without content): refused
            # as the body is read, in serde's words (HKUDS/nanobot#3869: tool and user messages; BigPizzaV3/
            # CodexPlusPlus#1731: a system message, quoted whole); the view sends an empty text (the Chat finish)
            return [Violation(provider=provider, rule=CONTENT_NULL_RULE, position=f"messages[{index}]",
                              native_indices=[index], call_ids=[], error=CONTENT_NULL.format(index=index))]
        if not isinstance(content, list):
            continue
        for part in content:
            variant = part.get("type") if isinstance(part, dict) else None
            if isinstance(variant, str) and variant != "text":
                return [Violation(provider=provider, rule=NOT_TEXT_RULE, position=f"messages[{index}]",
                                  native_indices=[index], call_ids=[],
                                  error=NOT_TEXT.format(index=index, variant=variant))]
    return []


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


PARTS = 4
"""The parts a million result ids are read in, by their hash (unique_ids, repeated_in): each part's set or map is a
quarter of one of every id (21 MB at a million messages, the check's peak), for a pass over the ids per part."""
_PART = [bytes((1 if byte == part else 0) for byte in range(256)) for part in range(PARTS)]


def _parts(ids: Iterable[str]) -> bytes:
    """Each id's part (its hash's low bits), one byte an id: every copy of an id is in the same part."""
    return bytes(map(and_, map(hash, ids), repeat(PARTS - 1)))


def _read(results: Iterable[Any]) -> Iterable[str]:
    """The ids as the rule reads them: one that is not a string is "" (the values themselves when all are)."""
    if set(map(type, results)) <= {str}:
        return results
    return [value if type(value) is str else "" for value in results]


def unique_ids(results: Sequence[Any]) -> bool:
    """Whether no result id is met twice (one not a string read as ""), checked a part of the ids at a time."""
    read = _read(results)
    parts = _parts(read)
    for part in range(PARTS):
        some = list(compress(read, parts.translate(_PART[part])))
        if len(set(some)) != len(some):
            return False
    return True


def repeated_in(results: Mapping[int, Any], provider: str = PROVIDER) -> list[Violation]:
    """repeated_results of a request's results (message index -> id, in message order; one not a string read as
    ""), a part of the ids at a time, in message order."""
    read = _read(results.values())
    parts = _parts(read)
    found: list[Violation] = []
    for part in range(PARTS):
        found += repeated_results(compress(zip(results, read, strict=True), parts.translate(_PART[part])), provider)
    found.sort(key=_later)  # (each part's in message order: merged)
    return found


def _later(violation: Violation) -> int:
    """A repeated id's message (its violation's second native index)."""
    return violation.native_indices[1]


SPEC = ProviderSpec(
    model_prefixes=("deepseek/", "deepseek"),
    name=PROVIDER,
    title="DeepSeek",
    native_format="openai-chat",
    validate=validate,
    validate_history=None,
    needs_call_ids=True,
    role_rules=None,
    takes_images=False,
    errors={
        "tool_calls_unanswered": UNANSWERED,
        "tool_result_without_call": STRAY,
        REPEATED: DUPLICATE,
        NOT_TEXT_RULE: NOT_TEXT,
        CONTENT_NULL_RULE: CONTENT_NULL,
    },
    endpoint=Endpoint(
        "https://api.deepseek.com/chat/completions",
        ("Authorization: Bearer $DEEPSEEK_API_KEY",),
        {"model": "$MODEL"},
        docs="https://api-docs.deepseek.com/api/create-chat-completion",
    ),
)
