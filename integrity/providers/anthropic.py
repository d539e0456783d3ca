"""Anthropic Messages: the rules the API enforces on `messages` tool history.

The API first combines consecutive `user` (or `assistant`) messages into one turn
(its reference: "Consecutive `user` or `assistant` turns in your request will be
combined into a single turn"; recorded: two assistant messages in a row, each with
a `tool_use`, answered by one user message, HTTP 200).  On those turns it pairs
strictly by position: every `tool_use` of an assistant turn is answered by a
`tool_result` in the very next (user) turn, those results open that turn, each call
gets one result, and a turn does not repeat a `tool_use` id.  An id may come back in
a later turn when each use is answered right after it (recorded: HTTP 200).  Only the
trailing run of an assistant turn's `tool_use` blocks is answered by the next turn: a
`tool_use` followed by any other block of its turn (text, thinking, a server tool's
blocks) is reported unanswered although its result opens the next turn (recorded:
anomalyco/opencode's `[tool_use, text]` got HTTP 400, the same request with the text
first HTTP 200).
Errors name the turn (`messages.N`) or the block (`messages.N.content.K`) counted in
the combined turns (assumed: the API gives no other numbering once it has combined
them; without consecutive same-role messages the two numberings are the same).  A
request that opens with an assistant turn is numbered as if a user turn came first:
opencode's recording names its opening assistant turn `messages.1`, where a request
opening with a user turn names its assistant turn by its own index (a Bedrock-relayed
refusal of `[user, assistant [tool_use, text], user]` named `messages.1`, BerriAI/litellm#24361).
A server tool Claude calls directly (`server_tool_use`, `srvtoolu_` ids: web search, web fetch, code
execution) is answered by its result block (`web_fetch_tool_result`, ...) in the same assistant turn.  When
Claude calls one of the client's tools in that turn too, the server tool is left without its result and runs
when the client sends the turn's `tool_result` blocks: the next user turn must hold nothing else, and the next
assistant turn opens with the server tool's result.  A user turn with anything besides the results (text after
them) ends the assistant turn with the server tool unresolved, and the API answers `` `web_fetch` tool use with
id `srvtoolu_...` was found without a corresponding `web_fetch_tool_result` block `` (Anthropic's server
tools page, platform.claude.com/docs/en/agents-and-tools/tool-use/server-tools, "mixed" turns: this text and
request verbatim; the other tools' texts are assumed by analogy, named by their result block).  A turn the
client-tool rule already refuses is refused by that rule first (the same page), so this one is not judged
there.  Not judged, for want of a known answer: a user turn right after a paused server tool (`pause_turn`,
which is re-sent as it is), and a continued turn whose next assistant turn lacks the server tool's result.
The system prompt is a top-level `system` parameter and is not validated here.
Since Claude Opus 4.8 (2026-05-28) a `system` role message may also sit inside
`messages`, mid-conversation; only one that opens `messages` is rejected (with
the text below).  Its other placement rules (right after a user turn, followed
by an assistant turn or last, never two in a row) are documented, but the text
of the 400 that breaking them returns is not known, so they are not checked.

Empty content is refused too, by three texts (`content_rules`): a user or assistant message whose content is
`[]` or `""` gets ``messages.N: all messages must have non-empty content except for the optional final
assistant message`` (lightclient/coop docs/bugs/001: an assistant `[]` at `messages.3`; microsoft/autogen#6083:
a user `""` at `messages.0`), N the request's own index (a check of each message, as the id pattern's, which is
counted in the request as sent: assumed, no recording tells the two apart); a text block whose text is `""`
gets ``messages: text content blocks must be non-empty`` (anthropics/claude-code#62396: `[text "", tool_use]`;
experientiallabs/experiential#683, verified live both ways); a message holding nothing but text blocks of only
whitespace (and empty ones), or a string content of whitespace, gets ``messages: text content blocks must contain
non-whitespace text`` (anomalyco/opencode#31260: `[{"type": "text", "text": " "}]`), while a whitespace text
beside another block is accepted (simonw/llm-anthropic's recorded 200 for `[text " ", tool_use, tool_use]`,
claude-haiku-4-5, 2026-04-05: tests/provider_cases/anthropic_whitespace_text_beside_tool_use_accepted.json;
what the API answers for one beside a text that is not blank is not known, and it is read as accepted).  The two block
texts name no index: the API says `messages` alone.  The request's last message, when it is an assistant's, is
left alone by all three (the text's own exception, the prefill; what the API answers for an empty text block
there is not known).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..formats.anthropic import CONTENT_ROLES, result_content_object
from ..repair.views import holds_non_text, only_blank_text
from .chat_shape import role_of
from .ids import all_anthropic_ids, anthropic_ids, anthropic_rule, is_anthropic_id
from .spec import BlankRule, Endpoint, NameRule, ProviderSpec, RoleSet
from .violation import Violation

PROVIDER = "anthropic"
COMBINED_ROLES = ("user", "assistant")

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
INVALID_ID = "messages.{index}.content.{block}.{field}: String should match pattern '^[a-zA-Z0-9_-]+$'"
SERVER_UNRESOLVED = "`{name}` tool use with id `{id}` was found without a corresponding `{result}` block"
"""The server tools page's text (no position: the API names the block by its id)."""
SERVER_RESULTS = {"tool_search_tool_regex": "tool_search_tool_result",
                  "tool_search_tool_bm25": "tool_search_tool_result"}
"""A server tool's result block type, where it is not the tool's name and `_tool_result`."""
SYSTEM_FIRST = (
    "messages.0: use the top-level 'system' parameter for the initial system prompt; "
    "the directive-only form (content: [] with output_config) is accepted at any position"
)
EMPTY_CONTENT = (
    "messages.{index}: all messages must have non-empty content except for the optional final assistant message"
)
EMPTY_TEXT = "messages: text content blocks must be non-empty"
INPUT_NOT_OBJECT = "messages.{index}.content.{block}.tool_use.input: Input should be a valid dictionary"
INPUT_MISSING = "messages.{index}.content.{block}.tool_use.input: Field required"
RESULT_CONTENT_OBJECT = "messages.{index}.content.{block}.tool_result.content: Input should be a valid string"
BLANK_TEXT = "messages: text content blocks must contain non-whitespace text"
ERROR_NOT_TEXT = "messages.{index}.content.{block}.tool_result: all content must be type `text` if `is_error` is true"
ERROR_EMPTY = "messages.{index}.content.{block}.tool_result: content cannot be empty if `is_error` is true"
NAME_LIMIT = 200
"""The longest tool name Anthropic takes in a history's `tool_use` block (its request schema's, in characters)."""
NAME_TOO_LONG = (f"messages.{{index}}.content.{{block}}.tool_use.name: String should have at most {NAME_LIMIT} "
                 "characters")
NAME_EMPTY = "messages.{index}.content.{block}.tool_use.name: String should have at least 1 character"


def tool_name_rule(name: Any) -> tuple[str, str] | None:
    """The schema rule a history `tool_use` block's string name breaks, if one: (rule, error text).  A model
    that emits a whole shell command as a tool name (201 characters) gets the call written to the session and
    answered "No such tool available", and every later request is refused (seen: anthropics/claude-code#94799,
    #7370 `messages.75.content.1.tool_use.name`, #15695, #23681; the limit is 200 for a history block, 64 for a
    tool definition).  An empty name breaks the schema's lower bound ("at least 1 character", quoted in an agent
    project's notes on calls stored without their names).  An older text, "String should match pattern
    '^[a-zA-Z0-9_-]{1,64}$'", is quoted in docs of 2024 only: no pattern is judged."""
    if not isinstance(name, str):
        return None
    if not name:
        return "tool_use_name_empty", NAME_EMPTY
    if len(name) > NAME_LIMIT:
        return "tool_use_name_too_long", NAME_TOO_LONG
    return None


TYPE_MISSING = "messages.{index}.content.{block}.type: Field required"
"""A content block without `type` (pydantic's discriminator): a Converse `{"text": ...}` block replayed to the
Messages API when a session switched from a Bedrock model (quoted whole in a gateway's converter: "400
messages.N.content.0.type: Field required"), a writer's `{text}` without its tag (a Bedrock client's changelog, a
Go client's fix, an MCP agent's notes: `messages.0.content.0.type`, `messages.2.content.0.type`).  The view sends a
block of a text alone as a text block (formats.anthropic.finish); another stays refused."""
RESULT_TYPE_MISSING = "messages.{index}.content.{block}.tool_result.content.{part}.type: Field required"
"""A block inside a `tool_result`'s content without `type`: a tool that returned a list of objects, sent on as the
result's blocks (quoted whole in an agent's fix: "list-of-dicts (our list-returning tools) -> 400
'messages.N.content.0.tool_result.content.0.type: Field required'").  The view sends a block of a text alone typed."""


def block_schema_rules(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """The blocks the API's request schema refuses, at the request's own positions: a `tool_use` block whose name
    breaks its bounds (tool_name_rule), a `tool_result` block whose content does (_result_contents), and a
    `tool_use` block whose `input` is not a JSON object (a writer that stored the arguments' JSON text, or null), or
    that has no `input` at all (a writer that left out the arguments of a call that took none: the AI SDK's
    `input: undefined`, the Gemini SDK's omitted `args` replayed to Claude).  Seen: "Input should be a valid
    dictionary" quoted in anthropics/claude-code#6695, #6696, #6697 and anthropics/anthropic-sdk-typescript#648;
    "Field required" in OpenClaw's FAQ, "LLM request rejected: messages.N.content.X.tool_use.input: Field
    required", and in the code of an AI SDK app and of a Gemini-to-Claude gateway that fill the missing input in."""
    found: list[Violation] = []
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        found += [Violation(provider=provider, rule="content_type_missing",
                            position=f"messages.{index}.content.{block}", native_indices=[index],
                            error=TYPE_MISSING.format(index=index, block=block))
                  for block, part in enumerate(content) if type(part) is dict and "type" not in part]
        if role_of(message) == "user":
            found += _result_contents(content, index, provider)
            continue
        if role_of(message) != "assistant":
            continue
        for block, part in enumerate(content):
            if not isinstance(part, dict) or part.get("type") != "tool_use":
                continue
            use_id = part.get("id")
            named = tool_name_rule(part.get("name"))
            if named is not None:
                found.append(Violation(
                    provider=provider, rule=named[0], position=f"messages.{index}.content.{block}.tool_use.name",
                    native_indices=[index], call_ids=[use_id] if isinstance(use_id, str) else [],
                    error=named[1].format(index=index, block=block)))
            if isinstance(part.get("input"), dict):
                continue
            rule, error = ("tool_use_input_not_object", INPUT_NOT_OBJECT) if "input" in part else (
                "tool_use_input_missing", INPUT_MISSING)
            found.append(Violation(
                provider=provider, rule=rule, position=f"messages.{index}.content.{block}.tool_use.input",
                native_indices=[index], call_ids=[use_id] if isinstance(use_id, str) else [],
                error=error.format(index=index, block=block)))
    return found


def _result_contents(content: list[Any], index: int, provider: str) -> list[Violation]:
    """The `tool_result` blocks of a user message whose content the API's request schema refuses.

    A content a writer stored as an object (the tool's return value as it came): the API takes a string or a list
    of blocks, and answers with the first of the union's errors (seen: quoted in an agent project's regression
    test, "tool_result.content: Input should be a valid string", for tools returning JSON objects echoed into the
    block).  An error result (`is_error: true`) holding a block that is not text, a screenshot taken when the tool
    failed: "all content must be type `text` if `is_error` is true" (seen: vellum-ai/vellum-assistant#18387,
    caozhiyuan/copilot-api#196, and the tests of two agents that quote it with its position,
    `messages.N.content.0.tool_result`; pi sessions that replay such a result get it on every later request).  An
    error result whose content is empty: "content cannot be empty if `is_error` is true" (seen:
    anthropics/claude-agent-sdk-python#248, `messages.2.content.0.tool_result`, a content of ""; a content of
    `[]` is read as empty too, assumed from the text).  Positions are the request's own index, as for the other
    per-block schema rules."""
    found: list[Violation] = []
    for block, part in enumerate(content):
        if not isinstance(part, dict) or part.get("type") != "tool_result":
            continue
        inner = part.get("content")
        if type(inner) is list:  # (a tool's list of objects sent on as the result's blocks)
            found += [Violation(provider=provider, rule="tool_result_content_type_missing",
                                position=f"messages.{index}.content.{block}.tool_result.content.{at}",
                                native_indices=[index],
                                call_ids=[part["tool_use_id"]] if isinstance(part.get("tool_use_id"), str) else [],
                                error=RESULT_TYPE_MISSING.format(index=index, block=block, part=at))
                      for at, value in enumerate(inner) if type(value) is dict and "type" not in value]
        found_rule = error_content_rule(part)
        if found_rule is None:
            continue
        rule, text, where = found_rule
        found.append(Violation(provider=provider, rule=rule, position=f"messages.{index}.content.{block}.{where}",
                               native_indices=[index],
                               call_ids=[part["tool_use_id"]] if isinstance(part.get("tool_use_id"), str) else [],
                               error=text.format(index=index, block=block)))
    return found


def error_content_rule(part: dict[str, Any]) -> tuple[str, str, str] | None:
    """The schema rule a `tool_result` block breaks by its content, if one: (rule, error text, the position's
    tail).  An object content is refused whatever `is_error` says; an error result's content must be text, and
    not empty."""
    if result_content_object(part):
        return "tool_result_content_not_text", RESULT_CONTENT_OBJECT, "tool_result.content"
    if part.get("is_error") is not True:
        return None
    inner = part.get("content")
    if inner == "" or inner == []:
        return "error_result_empty", ERROR_EMPTY, "tool_result"
    if isinstance(inner, list) and holds_non_text(inner):
        return "error_result_not_text", ERROR_NOT_TEXT, "tool_result"
    return None


def _block_rule(text: str) -> tuple[str, str]:
    """The rule and text a blank text block gets: the empty text has its own."""
    return ("empty_text_block", EMPTY_TEXT) if not text else ("whitespace_text_block", BLANK_TEXT)


def content_rules(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """The empty-content rules (see the module's docstring), on each user or assistant message but an assistant
    message that ends the request; positions are the request's own (no turns are combined here)."""
    found: list[Violation] = []
    last = len(messages) - 1
    for index, message in enumerate(messages):
        role = role_of(message)
        if role not in CONTENT_ROLES or (index == last and role == "assistant"):
            continue
        content = message.get("content")
        if content == [] or content == "":
            found.append(Violation(provider=provider, rule="empty_message_content", position=f"messages.{index}",
                                   native_indices=[index], error=EMPTY_CONTENT.format(index=index)))
        elif isinstance(content, str):
            if content.isspace():
                found.append(Violation(provider=provider, rule="whitespace_text_block", position="messages",
                                       native_indices=[index], error=BLANK_TEXT))
        elif isinstance(content, list):
            alone = None  # a whitespace text is refused only with nothing else beside it (read when one is met)
            for block in content:
                text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else None
                if isinstance(text, str) and text.isspace() and alone is None:
                    alone = only_blank_text(content)
                if isinstance(text, str) and (not text or (alone and text.isspace())):
                    rule, error = _block_rule(text)
                    found.append(Violation(provider=provider, rule=rule, position="messages",
                                           native_indices=[index], error=error))
    return found


def _blocks(message: Any) -> list[Any]:
    """A message's content blocks; a string content is one text block (it counts when turns combine)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _typed(blocks: list[Any], kind: str, key: str) -> list[tuple[int, str]]:
    """(block index, id) of the blocks of one type; a missing or non-string id reads as ""."""
    found = []
    for position, block in enumerate(blocks):
        if isinstance(block, dict) and block.get("type") == kind:
            value = block.get(key)
            found.append((position, value if isinstance(value, str) else ""))
    return found


def tool_uses(message: Any) -> list[tuple[int, str]]:
    """(block index, id) of an assistant message's `tool_use` blocks."""
    return _typed(_blocks(message), "tool_use", "id") if role_of(message) == "assistant" else []


def tool_results(message: Any) -> list[tuple[int, str]]:
    """(block index, tool_use_id) of a user message's `tool_result` blocks."""
    return _typed(_blocks(message), "tool_result", "tool_use_id") if role_of(message) == "user" else []


@dataclass(slots=True)
class Turn:
    """Consecutive messages of one role, combined as the API combines them.

    members: the request indices of the messages combined; size: their content blocks, counted
    together; uses / results: (block index in the combined turn, id) of its tool_use blocks (an
    assistant turn) or tool_result blocks (a user turn); other: the block index of the last block
    of an assistant turn that is not a tool_use (-1: none), past which the tool_use blocks before it
    are not answered."""

    role: str | None
    members: list[int]
    size: int
    uses: list[tuple[int, str]]
    results: list[tuple[int, str]]
    other: int = -1
    servers: bool = False  # it holds a `server_tool_use` block (an assistant turn)


def turns(messages: Sequence[Any]) -> list[Turn]:
    """The request's turns: consecutive `user` (or `assistant`) messages become one; others stay alone.

    Each message's blocks are read once, and a combined turn's block indices continue where the
    previous member's stop (no block list is copied: this runs for every provider on every file)."""
    combined: list[Turn] = []
    for index, message in enumerate(messages):
        role = role_of(message)
        blocks = _blocks(message)
        uses = _typed(blocks, "tool_use", "id") if role == "assistant" else []
        results = _typed(blocks, "tool_result", "tool_use_id") if role == "user" else []
        other = _last_other(blocks) if role == "assistant" else -1
        servers = role == "assistant" and other >= 0 and _holds_server(blocks)
        if combined and role in COMBINED_ROLES and combined[-1].role == role:
            turn = combined[-1]
            turn.servers = turn.servers or servers
            offset = turn.size
            turn.members.append(index)
            turn.size += len(blocks)
            turn.uses.extend((block + offset, value) for block, value in uses)
            turn.results.extend((block + offset, value) for block, value in results)
            if other >= 0:
                turn.other = other + offset
        else:
            combined.append(Turn(role, [index], len(blocks), uses, results, other, servers))
    return combined


def _holds_server(blocks: list[Any]) -> bool:
    """Whether a message's blocks hold a `server_tool_use` block."""
    return any(isinstance(block, dict) and block.get("type") == "server_tool_use" for block in blocks)


def _last_other(blocks: list[Any]) -> int:
    """The index of the last block that is not a tool_use (-1: none), read from the end: an assistant
    message that ends with its calls costs one look per call and one more."""
    for position in range(len(blocks) - 1, -1, -1):
        block = blocks[position]
        if not (isinstance(block, dict) and block.get("type") == "tool_use"):
            return position
    return -1


def first_number(role: Any) -> int:
    """The number the API's errors give a request's first turn, of this role: 1 for an assistant turn (numbered
    as if a user turn came first: see the module's docstring), else 0.  The one reading of that numbering: the
    judgments of a stretch apart (providers.windowed, providers.sparse) move its positions by it."""
    return 1 if role == "assistant" else 0


def _unique(ids: list[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def validate(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every Anthropic tool-history rule the request breaks, in message order.

    The messages are combined into turns first (see the module's docstring); each turn's
    tool_use and tool_result blocks are read once, and a rule reading its neighbours reads
    them from those lists."""
    found: list[Violation] = content_rules(messages, provider)
    found += block_schema_rules(messages, provider)
    if messages and role_of(messages[0]) == "system" and messages[0].get("content") != []:
        found.append(Violation(
            provider=provider, rule="system_message_first", position="messages.0",
            native_indices=[0], error=SYSTEM_FIRST))
    combined = turns(messages)
    uses_of = [turn.uses for turn in combined]
    results_of = [turn.results for turn in combined]
    size = len(combined)
    shift = first_number(combined[0].role) if combined else 0
    refused: set[int] = set()  # the turns the client-tool rule refuses (it is judged first)
    for index, turn in enumerate(combined):
        number = index + shift
        uses = uses_of[index]
        if uses:
            seen_uses: set[str] = set()
            for block, use_id in uses:
                if use_id in seen_uses:
                    found.append(Violation(
                        provider=provider, rule="duplicate_tool_use_id",
                        position=f"messages.{number}.content.{block}", native_indices=list(turn.members),
                        call_ids=[use_id], error=DUPLICATE_USE.format(index=number, block=block)))
                seen_uses.add(use_id)
            following = combined[index + 1] if index + 1 < size else None
            answer = _check_answer(number, turn, uses, results_of[index + 1] if following else [], following,
                                   provider)
            found.extend(answer)
            if answer:
                refused.add(index)
        results = results_of[index]
        if results:
            before = combined[index - 1] if index > 0 else None
            previous = {use_id for _, use_id in uses_of[index - 1]} if index > 0 else set()
            found.extend(_check_results(number, turn, results, before if previous else None, previous, provider))
    if any(turn.servers for turn in combined):
        found.extend(_check_servers(messages, combined, refused, shift, provider))
    return found


def _server_blocks(messages: Sequence[Any], turn: Turn) -> tuple[list[tuple[str, str]], set[str]]:
    """(id, name) of each `server_tool_use` block of an assistant turn, and the `tool_use_id` of each server
    tool result block in it (any block type ending in `_tool_result`: a client `tool_result` is a user's)."""
    uses: list[tuple[str, str]] = []
    answered: set[str] = set()
    for member in turn.members:
        for block in _blocks(messages[member]):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "server_tool_use":
                use_id, name = block.get("id"), block.get("name")
                uses.append((use_id if isinstance(use_id, str) else "", name if isinstance(name, str) else ""))
            elif isinstance(kind, str) and kind.endswith("_tool_result") and isinstance(block.get("tool_use_id"), str):
                answered.add(block["tool_use_id"])
    return uses, answered


def _check_servers(messages: Sequence[Any], combined: list[Turn], refused: set[int], shift: int, provider: str
                   ) -> list[Violation]:
    """A server tool left without its result by an assistant turn that also calls the client's tools, whose
    results the next user turn sends with something else after them (see the module's docstring: the case the
    server tools page gives, text and request).  The next user turn is known to open with every result: the
    turns the client-tool rule refuses (`refused`) are not read."""
    found: list[Violation] = []
    size = len(combined)
    for index, turn in enumerate(combined):
        if not turn.servers or not turn.uses or index in refused or index + 1 >= size:
            continue
        following = combined[index + 1]
        if len(following.results) == following.size:
            continue  # results only: the turn goes on (and the API runs the server tool)
        uses, answered = _server_blocks(messages, turn)
        for use_id, name in uses:
            if use_id in answered:
                continue
            found.append(Violation(
                provider=provider, rule="server_tool_use_unresolved", position=f"messages.{index + shift}",
                native_indices=turn.members + following.members, call_ids=[use_id],
                error=SERVER_UNRESOLVED.format(name=name, id=use_id,
                                               result=SERVER_RESULTS.get(name, f"{name}_tool_result"))))
    return found


def validate_ids(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Ids outside `^[a-zA-Z0-9_-]+$` (the empty one included).  The request is validated before its
    turns are combined, so these positions are the request's own."""
    found: list[Violation] = []
    listed = list(anthropic_ids(messages))
    if all_anthropic_ids([value for _, _, _, value in listed]):
        return found  # every id valid, proved by one match over them all
    for index, block, field, value in listed:
        if not is_anthropic_id(value):
            rule = "invalid_tool_use_id" if field == "tool_use.id" else "invalid_tool_result_id"
            found.append(Violation(
                provider=provider, rule=rule, position=f"messages.{index}.content.{block}.{field}",
                native_indices=[index], call_ids=[value],
                error=INVALID_ID.format(index=index, block=block, field=field)))
    return found


def _check_answer(
    index: int, turn: Turn, uses: list[tuple[int, str]], results: list[tuple[int, str]], following: Turn | None,
    provider: str,
) -> list[Violation]:
    """The turn after a tool_use turn must open with tool_result blocks answering every id.

    index: the turn's number in the API's errors; results: the next turn's tool_result blocks;
    following: the next turn, if any.
    Only the leading run of tool_result blocks counts: a result placed after a text block
    is not seen, and the API reports its id as unanswered.  We name that case
    tool_result_not_first so a reader knows the result exists but is misplaced.  Only the
    trailing run of the turn's tool_use blocks is answered: one followed by another block of
    its turn (turn.other) is reported too, even when its result leads the next turn; we name
    that case tool_use_not_last.
    """
    leading = set()
    for at, (block, result_id) in enumerate(results):
        if block != at:  # some other block comes before this result: it and the ones after it are not seen
            break
        leading.add(result_id)
    other = turn.other
    unseen = _unique([use_id for block, use_id in uses if use_id not in leading or block < other])
    if not unseen:
        return []
    present = {result_id for _, result_id in results}
    if any(use_id in leading for block, use_id in uses if block < other):
        rule = "tool_use_not_last"
    elif any(use_id in present for use_id in unseen):
        rule = "tool_result_not_first"
    else:
        rule = "tool_use_unanswered"
    return [Violation(
        provider=provider, rule=rule, position=f"messages.{index}",
        native_indices=turn.members + (following.members if following else []), call_ids=unseen,
        error=UNANSWERED.format(index=index, ids=", ".join(unseen)))]


def _check_results(
    index: int, turn: Turn, results: list[tuple[int, str]], before: Turn | None, previous: set[str], provider: str
) -> list[Violation]:
    """Each tool_result must answer a tool_use of the previous turn (previous: its ids; before: that
    turn when it made calls), once.  index: the turn's number in the API's errors."""
    found: list[Violation] = []
    earlier = before.members if before else []
    unexpected = [(block, result_id) for block, result_id in results if result_id not in previous]
    if unexpected:
        ids = _unique([result_id for _, result_id in unexpected])
        found.append(Violation(
            provider=provider, rule="unexpected_tool_result",
            position=f"messages.{index}.content.{unexpected[0][0]}",
            native_indices=earlier + turn.members, call_ids=ids,
            error=UNEXPECTED.format(index=index, block=unexpected[0][0], ids=", ".join(ids))))
    seen: set[str] = set()
    for block, result_id in results:
        if result_id in seen and result_id in previous:
            found.append(Violation(
                provider=provider, rule="duplicate_tool_result", position=f"messages.{index}.content.{block}",
                native_indices=earlier + turn.members, call_ids=[result_id],
                error=DUPLICATE_RESULT.format(index=index, block=block, id=result_id)))
        seen.add(result_id)
    return found


ROLES = RoleSet(
    frozenset({"user", "assistant", "system"}), "messages.{index}.role: Input should be 'user' or 'assistant'",
    "messages.{index}.role")
"""The roles a Messages request's entries take: user and assistant, and `system` where the mid-conversation system
messages take it (system_message_first judges its place).  The refusal of another (a Chat `tool` message, a
`developer` one) is quoted whole in many reports and projects' mocks; it was worded before system messages were
taken, and whether the API's words now name `system` too is not on record."""


SPEC = ProviderSpec(
    model_prefixes=("anthropic/", "claude/", r".*claude"),  # "claude" anywhere: us.anthropic.claude-...
    name=PROVIDER,
    title="Anthropic Messages",
    native_format="anthropic",
    validate=validate,
    validate_history=None,
    validate_ids=validate_ids,
    id_rule=anthropic_rule(),
    needs_call_ids=True,
    role_rules=None,
    calls_close_turn=True,
    error_text_only=True,
    tool_names=NameRule(NAME_LIMIT),
    blank_text=BlankRule(whitespace_beside=frozenset(), spares_final_assistant=True),
    roles=ROLES,
    errors={
        "role_invalid": ROLES.error,
        "content_type_missing": TYPE_MISSING,
        "tool_result_content_type_missing": RESULT_TYPE_MISSING,
        "tool_use_unanswered": UNANSWERED,
        "tool_result_not_first": UNANSWERED,  # the API does not tell the two apart; our rule id does
        "tool_use_not_last": UNANSWERED,  # likewise: a tool_use followed by another block of its turn
        "unexpected_tool_result": UNEXPECTED,
        "duplicate_tool_result": DUPLICATE_RESULT,
        "duplicate_tool_use_id": DUPLICATE_USE,
        "server_tool_use_unresolved": SERVER_UNRESOLVED.replace("{result}", "{name}_tool_result"),
        "system_message_first": SYSTEM_FIRST,
        "empty_message_content": EMPTY_CONTENT,
        "empty_text_block": EMPTY_TEXT,
        "whitespace_text_block": BLANK_TEXT,
        "tool_use_input_not_object": INPUT_NOT_OBJECT,
        "tool_use_input_missing": INPUT_MISSING,
        "tool_result_content_not_text": RESULT_CONTENT_OBJECT,
        "error_result_not_text": ERROR_NOT_TEXT,
        "error_result_empty": ERROR_EMPTY,
        "tool_use_name_too_long": NAME_TOO_LONG,
        "tool_use_name_empty": NAME_EMPTY,
        "invalid_tool_use_id": INVALID_ID.replace("{field}", "tool_use.id"),
        "invalid_tool_result_id": INVALID_ID.replace("{field}", "tool_result.tool_use_id"),
    },
    endpoint=Endpoint(
        "https://api.anthropic.com/v1/messages",
        ("x-api-key: $ANTHROPIC_API_KEY", "anthropic-version: 2023-06-01"),
        {"model": "$MODEL", "max_tokens": 1024},
        docs="https://docs.anthropic.com/en/api/messages",
    ),
)
