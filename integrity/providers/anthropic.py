"""Anthropic Messages: the rules the API enforces on `messages` tool history.

Anthropic pairs strictly by position: every `tool_use` in an assistant message
must be answered by a `tool_result` in the very next (user) message, those
results must open that message, and each id may be used once.  Errors name the
message (`messages.N`) or the block (`messages.N.content.K`), which we reproduce.
The system prompt is a top-level `system` parameter and is not validated here.
Since Claude Opus 4.8 (2026-05-28) a `system` role message may also sit inside
`messages`, mid-conversation; only one that opens `messages` is rejected (with
the text below).  Its other placement rules (right after a user turn, followed
by an assistant turn or last, never two in a row) are documented, but the text
of the 400 that breaking them returns is not known, so they are not checked.

Consecutive messages with the same role are merged by the API (it no longer
demands strict alternation), so no alternation rule is applied.  The pairing
rules still read the literal next message, as the error texts say.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .chat_shape import role_of
from .spec import ProviderSpec
from .violation import Violation

PROVIDER = "anthropic"

UNANSWERED = (
    "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
UNEXPECTED = (
    "messages.{index}.content.{block}: unexpected `tool_use_id` found in `tool_result` blocks: {ids}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
DUPLICATE_RESULT = (
    "messages.{index}.content.{block}: each tool_use must have a single result. "
    "Found multiple `tool_result` blocks with id: {id}"
)
DUPLICATE_USE = "messages.{index}.content.{block}: `tool_use` ids must be unique"
SYSTEM_FIRST = (
    "messages.0: use the top-level 'system' parameter for the initial system prompt; "
    "the directive-only form (content: [] with output_config) is accepted at any position"
)


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _typed(message: Any, kind: str, key: str) -> list[tuple[int, str]]:
    """(block index, id) of the blocks of one type; a missing or non-string id reads as ""."""
    found = []
    for position, block in enumerate(_blocks(message)):
        if isinstance(block, dict) and block.get("type") == kind:
            value = block.get(key)
            found.append((position, value if isinstance(value, str) else ""))
    return found


def tool_uses(message: Any) -> list[tuple[int, str]]:
    """(block index, id) of an assistant message's `tool_use` blocks."""
    return _typed(message, "tool_use", "id") if role_of(message) == "assistant" else []


def tool_results(message: Any) -> list[tuple[int, str]]:
    """(block index, tool_use_id) of a user message's `tool_result` blocks."""
    return _typed(message, "tool_result", "tool_use_id") if role_of(message) == "user" else []


def _unique(ids: list[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def validate(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every Anthropic tool-history rule the request breaks, in message order.

    Each message's tool_use and tool_result blocks are read once (a rule reading its
    neighbours reads them from that list: reading them again per rule was most of the time)."""
    found: list[Violation] = []
    seen_uses: set[str] = set()
    uses_of = [tool_uses(message) for message in messages]
    results_of = [tool_results(message) for message in messages]
    size = len(messages)
    for index, message in enumerate(messages):
        if index == 0 and role_of(message) == "system" and message.get("content") != []:
            found.append(Violation(
                provider=provider, rule="system_message_first", position="messages.0",
                native_indices=[index], error=SYSTEM_FIRST))
        uses = uses_of[index]
        if uses:
            for block, use_id in uses:
                if use_id in seen_uses:
                    found.append(Violation(
                        provider=provider, rule="duplicate_tool_use_id",
                        position=f"messages.{index}.content.{block}", native_indices=[index], call_ids=[use_id],
                        error=DUPLICATE_USE.format(index=index, block=block)))
                seen_uses.add(use_id)
            following = index + 1 < size
            found.extend(_check_answer(index, uses, results_of[index + 1] if following else [], following,
                                       provider))
        results = results_of[index]
        if results:
            previous = {use_id for _, use_id in uses_of[index - 1]} if index > 0 else set()
            found.extend(_check_results(index, results, previous, provider))
    return found


def _check_answer(
    index: int, uses: list[tuple[int, str]], results: list[tuple[int, str]], following: bool, provider: str
) -> list[Violation]:
    """The message after a tool_use turn must open with tool_result blocks answering every id.

    results: the next message's tool_result blocks; following: whether there is a next message.
    Only the leading run of tool_result blocks counts: a result placed after a text block
    is not seen, and the API reports its id as unanswered.  We name that case
    tool_result_not_first so a reader knows the result exists but is misplaced.
    """
    leading = set()
    for at, (block, result_id) in enumerate(results):
        if block != at:  # some other block comes before this result: it and the ones after it are not seen
            break
        leading.add(result_id)
    unseen = _unique([use_id for _, use_id in uses if use_id not in leading])
    if not unseen:
        return []
    present = {result_id for _, result_id in results}
    rule = "tool_result_not_first" if any(use_id in present for use_id in unseen) else "tool_use_unanswered"
    return [Violation(
        provider=provider, rule=rule, position=f"messages.{index}",
        native_indices=[index] + ([index + 1] if following else []), call_ids=unseen,
        error=UNANSWERED.format(index=index, ids=", ".join(unseen)))]


def _check_results(
    index: int, results: list[tuple[int, str]], previous: set[str], provider: str
) -> list[Violation]:
    """Each tool_result must answer a tool_use of the previous message (previous: its ids), once."""
    found: list[Violation] = []
    unexpected = [(block, result_id) for block, result_id in results if result_id not in previous]
    if unexpected:
        ids = _unique([result_id for _, result_id in unexpected])
        found.append(Violation(
            provider=provider, rule="unexpected_tool_result",
            position=f"messages.{index}.content.{unexpected[0][0]}",
            native_indices=([index - 1] if previous else []) + [index], call_ids=ids,
            error=UNEXPECTED.format(index=index, block=unexpected[0][0], ids=", ".join(ids))))
    seen: set[str] = set()
    for block, result_id in results:
        if result_id in seen and result_id in previous:
            found.append(Violation(
                provider=provider, rule="duplicate_tool_result", position=f"messages.{index}.content.{block}",
                native_indices=[index - 1, index], call_ids=[result_id],
                error=DUPLICATE_RESULT.format(index=index, block=block, id=result_id)))
        seen.add(result_id)
    return found


SPEC = ProviderSpec(
    name=PROVIDER,
    title="Anthropic Messages",
    native_format="anthropic",
    validate=validate,
    validate_history=None,
    needs_call_ids=True,
    role_rules=None,
    errors={
        "tool_use_unanswered": UNANSWERED,
        "tool_result_not_first": UNANSWERED,  # the API does not tell the two apart; our rule id does
        "unexpected_tool_result": UNEXPECTED,
        "duplicate_tool_result": DUPLICATE_RESULT,
        "duplicate_tool_use_id": DUPLICATE_USE,
        "system_message_first": SYSTEM_FIRST,
    },
)
