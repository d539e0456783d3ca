"""AWS Bedrock Converse: the rules the API enforces on `messages` tool history.

Converse is stricter than Anthropic's own API: roles must strictly alternate, the
message list may not be empty, every `toolUse` must be answered by `toolResult`
blocks in the next message, and that message may not carry more results than the
previous turn had calls.  Errors point at `messages.N.content`.

Two rules reported for some models are not checked, because recorded requests to
other models were answered 200: a list that starts with an assistant message
(Claude Sonnet 4.5 accepted one), and `toolResult` blocks sharing a user message
with text, image, document or video blocks (Claude Sonnet 4.5, Nova Pro and Nova 2
Lite accepted them; the refusal was reported for Claude 3 Opus and Llama 4).  A
`toolUse` of a server tool (`"type": "server_tool_use"`) answered by a `toolResult`
in the same assistant message is answered there (recorded, Nova 2 Lite, HTTP 200).

Empty content is refused by two texts (`content_rules`), in any user or assistant message, the last one too (no
exception is known; assumed): a message whose `content` is `[]` gets ``The content field in the Message object at
messages.N is empty. ...`` (vercel/ai#15248: an assistant `content: []`), and a `text` block whose text is empty
or only whitespace gets ``The text field in the ContentBlock object at messages.N.content.M is blank. ...``, beside
other blocks of an assistant message too (vercel/ai#6254: an assistant `[{text: "\n\n"}, {toolUse}]` at
messages.7.content.0; langchain-ai/langchain-aws#403: the AWS CLI's answer for an assistant `[{"text": "\n\n"}]`
at messages.1.content.0; boto/botocore#3525).  Positions are the request's own.  Unlike Anthropic's, the rule
takes no whitespace text beside a tool call.  A user message's whitespace text beside other blocks is taken
(recorded 200: pydantic-ai's `[text, document, {"text": "\n"}, cachePoint, text, cachePoint]` to Claude Sonnet 4.5,
test_bedrock_cache_write_and_read); one with nothing but blank texts beside it, and an empty one, are refused
(every refusal seen is an assistant message's: assumed alike).  Claude models behind Converse were seen
answering Anthropic's own whitespace text instead (NousResearch/hermes-agent#39829): the verdict is the same,
the text may differ.  An error `toolResult` (`"status": "error"`) is refused with no content (Converse's own
text) or with a block that is not text (Claude's, relayed): `_error_content`.

Its id rule: a `toolUseId` (of a `toolUse` or a `toolResult`) of more than 64 characters is
refused with AWS's own validation text, whose list positions count from 1 (seen:
BerriAI/litellm#34239, RooCodeInc/Roo-Code#10902).  The pattern AWS documents is not checked:
a recorded request with `functions.get_temperature:0` was answered 200, botocore's model has
since widened it to `[a-zA-Z0-9_.:-]+`, and its refusal's text for this member was never seen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..formats.bedrock import answered_in_place
from .anthropic import ERROR_NOT_TEXT as ANTHROPIC_ERROR_NOT_TEXT
from .chat_shape import role_of
from .ids import length_rule
from .spec import CUSTOM, OPAQUE, SYSTEM, BlankRule, Endpoint, NameRule, ProviderSpec, RoleRules, RoleSet
from .violation import Violation

PROVIDER = "bedrock"

START = "A conversation must start with a user message. Try again with a conversation that starts with a user message."
ALTERNATE = (
    "A conversation must alternate between user and assistant roles. "
    "Make sure the conversation alternates between user and assistant roles and try again."
)
EXPECTED = "Expected toolResult blocks at messages.{index}.content for the following Ids: {ids}"
EXCEEDS = (
    "The number of toolResult blocks at messages.{index}.content exceeds the number of toolUse blocks of previous turn."
)

EMPTY_CONTENT = (
    "The content field in the Message object at messages.{index} is empty. "
    "Add a ContentBlock object to the content field and try again."
)
BLANK_TEXT = (
    "The text field in the ContentBlock object at messages.{index}.content.{block} is blank. "
    "Add text to the text field, and try again."
)

ERROR_EMPTY = ("The content field at messages.{index}.content.{block}.toolResult cannot be empty when status value is "
               "error.")
"""An error toolResult (`"status": "error"`) whose content is `[]` (seen:
aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15, an agent that wrote the failed tool's result so and
persisted it: every later request of the session refused; positions the request's own, as the other texts above)."""
ERROR_NOT_TEXT = ANTHROPIC_ERROR_NOT_TEXT
"""An error toolResult holding a block that is not text (an image, a document, a video; a `json` block is text to
the model): Converse passes the request on, and a Claude model refuses it with Anthropic's own text (seen:
can1357/oh-my-pi#12809, a screenshot in the result of a cell that then threw; the session re-sent it on every later
request and after a restart).  Converse's blocks map one to one onto Anthropic's here, so the position is the
request's own; judged as Claude answers it, as the alternation rule is (the verdict names no model)."""
_TEXT_BLOCKS = frozenset({"text", "json"})

ID_LIMIT = 64
"""The longest toolUseId Converse takes (botocore's model, shape ToolUseId: max 64; seen refused above it)."""
TOO_LONG_CLAUSE = (
    "Value at 'messages.{index}.member.content.{block}.member.{field}.toolUseId' failed to satisfy constraint: "
    "Member must have length less than or equal to 64"
)
"""One clause of AWS's validation message: `index` and `block` count from 1, `field` is toolUse or toolResult."""
TOO_LONG = "{count} validation {errors} detected: " + TOO_LONG_CLAUSE + "{others}"
"""AWS's one message for a request's validation failures: "1 validation error detected: " and the clause, or
"N validation errors detected: " and the N clauses joined by "; " (BerriAI/litellm#34239 quotes four;
genkit-ai/aws-bedrock-js-plugin#43 one).  validate_ids gives it once, for every too long id of the request."""
_ID_RULES = {"toolUse": "tool_use_id_too_long", "toolResult": "tool_result_id_too_long"}
NAME_CHARS = "a-zA-Z0-9_-"
"""The characters of a toolUse block's name (botocore's model, shape ToolName: pattern [a-zA-Z0-9_-]+, 1 to 64)."""
_NOT_NAME = re.compile(f"[^{NAME_CHARS}]")
NAME_LONG_CLAUSE = ("Value at 'messages.{index}.member.content.{block}.member.toolUse.name' failed to satisfy "
                    "constraint: Member must have length less than or equal to 64")
NAME_PATTERN_CLAUSE = ("Value at 'messages.{index}.member.content.{block}.member.toolUse.name' failed to satisfy "
                       f"constraint: Member must satisfy regular expression pattern: [{NAME_CHARS}]+")
NAME_EMPTY_CLAUSE = ("Value at 'messages.{index}.member.content.{block}.member.toolUse.name' failed to satisfy "
                     "constraint: Member must have length greater than or equal to 1")
"""The clauses of AWS's validation message for a history call's name (seen: openclaw/openclaw#12892, "2 validation
errors detected: Value at 'messages.73.member.content.2.member.toolUse.name' failed to satisfy constraint: Member
must have length less than or equal to 64; Value at ... Member must satisfy regular expression pattern:
[a-zA-Z0-9_-]+"; vercel/ai#17781, a hallucinated `$READFILE` replayed).  An empty name's clauses, the pattern's then
the length's, as AWS words them for a tool definition's empty name (BerriAI/litellm#24668)."""


def name_clauses(name: str) -> list[tuple[str, str]]:
    """The (rule, clause template) AWS's validation gives a toolUse block's name, in AWS's order: the length over
    64, the pattern, the length under 1."""
    found = []
    if len(name) > ID_LIMIT:
        found.append(("tool_use_name_too_long", NAME_LONG_CLAUSE))
    if not name or _NOT_NAME.search(name):
        found.append(("tool_use_name_pattern", NAME_PATTERN_CLAUSE))
    if not name:  # (after the pattern's: a violation is named by its first clause, so this one by the pattern's)
        found.append(("tool_use_name_pattern", NAME_EMPTY_CLAUSE))
    return found


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _ids(message: Any, kind: str) -> list[str]:
    """toolUseId of each block of one kind (toolUse or toolResult); "" when missing."""
    ids = []
    for block in _blocks(message):
        inner = block.get(kind) if isinstance(block, dict) else None
        if isinstance(inner, dict):
            value = inner.get("toolUseId")
            ids.append(value if isinstance(value, str) else "")
    return ids


def tool_uses(message: Any) -> list[str]:
    """The toolUseIds an assistant message calls and leaves to the next message: a server tool's
    toolUse answered by a toolResult in the same message is not one of them."""
    return _uses(message) if role_of(message) == "assistant" else []


def _uses(message: Any) -> list[str]:
    """tool_uses of a message whose role is known to be the assistant's."""
    uses = _ids(message, "toolUse")
    if not uses:
        return uses
    answered_here = answered_in_place(_blocks(message))  # the reader's own reading of it (one fact, one place)
    return [use_id for use_id in uses if use_id not in answered_here] if answered_here else uses


def tool_results(message: Any) -> list[str]:
    """The toolUseIds a user message answers."""
    return _ids(message, "toolResult") if role_of(message) == "user" else []


def content_rules(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """The empty-content rules (see the module's docstring): a user or assistant message with no block, each
    text block of whitespace only (the empty one included), wherever it is, and an error toolResult with no block or
    with a block that is not text (_error_content)."""
    found: list[Violation] = []
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if content == []:
            found.append(Violation(provider=provider, rule="empty_message_content", position=f"messages.{index}",
                                   native_indices=[index], error=EMPTY_CONTENT.format(index=index)))
            continue
        if not isinstance(content, list):
            continue
        alone = None  # a user's whitespace text is refused only with nothing but blank texts beside it (read once)
        for block, part in enumerate(content):
            text = part.get("text") if type(part) is dict else None
            if text is None and type(part) is dict:  # (a block of another kind: read only then)
                result = part.get("toolResult")
                if type(result) is dict and result.get("status") == "error":
                    found += _error_content(result, index, block, provider)
                continue
            if type(text) is str and (not text or text.isspace()):
                if text and message.get("role") == "user":
                    if alone is None:
                        alone = _only_blank(content)
                    if not alone:
                        continue
                found.append(Violation(provider=provider, rule="blank_text_block",
                                       position=f"messages.{index}.content.{block}", native_indices=[index],
                                       error=BLANK_TEXT.format(index=index, block=block)))
    return found


def _error_content(result: dict[str, Any], index: int, block: int, provider: str) -> list[Violation]:
    """What an error toolResult's content breaks: none (ERROR_EMPTY), or a block that is not text (ERROR_NOT_TEXT,
    with Anthropic's position: `tool_result`)."""
    inner = result.get("content")
    if inner == []:
        rule, error, where = "error_result_empty", ERROR_EMPTY, "toolResult"
    elif isinstance(inner, list) and any(not isinstance(item, dict) or item.keys().isdisjoint(_TEXT_BLOCKS)
                                         for item in inner):
        rule, error, where = "error_result_not_text", ERROR_NOT_TEXT, "tool_result"
    else:
        return []
    use_id = result.get("toolUseId")
    return [Violation(provider=provider, rule=rule, position=f"messages.{index}.content.{block}.{where}",
                      native_indices=[index], call_ids=[use_id] if isinstance(use_id, str) else [],
                      error=error.format(index=index, block=block))]


def _only_blank(content: list[Any]) -> bool:
    """Whether every block of a content list is a text block whose text is blank (empty or only whitespace)."""
    return all(type(part) is dict and type(part.get("text")) is str and (not part["text"] or part["text"].isspace())
               for part in content)


def validate(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """Every Bedrock Converse rule on roles and tool history the request breaks, in message order.

    Each message's role, toolUse and toolResult ids are read once; the rules read their
    neighbours' from those lists."""
    found: list[Violation] = content_rules(messages, provider)
    roles = [role_of(message) for message in messages]
    # (tool_uses and tool_results of each message, its role read once)
    uses_of = [_uses(message) if role == "assistant" else [] for message, role in zip(messages, roles, strict=True)]
    results_of = [_ids(message, "toolResult") if role == "user" else []
                  for message, role in zip(messages, roles, strict=True)]
    size = len(messages)
    if not messages:  # an empty list (a prompt sent only as `system`): seen refused, whatever the model
        found.append(Violation(provider=provider, rule="first_message_not_user", position="messages",
                               native_indices=[], error=START))
    for index in range(size):
        if index > 0 and roles[index] == roles[index - 1]:
            found.append(Violation(provider=provider, rule="roles_not_alternating", position=f"messages.{index}",
                                   native_indices=[index - 1, index], error=ALTERNATE))
        uses = uses_of[index]
        if uses:
            answered = set(results_of[index + 1]) if index + 1 < size else set()
            missing = list(dict.fromkeys(u for u in uses if u not in answered))
            if missing:
                involved = [index] + ([index + 1] if index + 1 < size else [])
                found.append(Violation(
                    provider=provider, rule="tool_use_unanswered", position=f"messages.{index + 1}.content",
                    native_indices=involved, call_ids=missing,
                    error=EXPECTED.format(index=index + 1, ids=", ".join(missing))))
        results = results_of[index]
        if results:
            previous = uses_of[index - 1] if index > 0 else []
            if len(results) > len(previous):
                extra = [r for r in dict.fromkeys(results) if r not in previous] or results
                found.append(Violation(
                    provider=provider, rule="too_many_tool_results", position=f"messages.{index}.content",
                    native_indices=([index - 1] if previous else []) + [index], call_ids=list(extra),
                    error=EXCEEDS.format(index=index)))
    return found


def validate_ids(messages: Sequence[Any], provider: str = PROVIDER) -> list[Violation]:
    """toolUseIds over ID_LIMIT characters, of `toolUse` and `toolResult` blocks alike, and toolUse names AWS's
    validation refuses (name_clauses), in request order (AWS checks the request's shape before any rule on its
    turns, so the positions are the request's own): one violation, as AWS answers with one message listing them
    all (TOO_LONG), named by the first (its rule and position)."""
    clauses: list[str] = []
    first: tuple[str, str] | None = None
    indices: list[int] = []
    ids: list[str] = []
    for index, message in enumerate(messages):
        for block_index, block in enumerate(_blocks(message)):
            if not isinstance(block, dict):
                continue
            for field, rule in _ID_RULES.items():
                inner = block.get(field)
                value = inner.get("toolUseId") if isinstance(inner, dict) else None
                if isinstance(value, str) and len(value) > ID_LIMIT:
                    clauses.append(TOO_LONG_CLAUSE.format(index=index + 1, block=block_index + 1, field=field))
                    first = first or (rule, f"messages.{index}.content.{block_index}")
                    if not indices or indices[-1] != index:
                        indices.append(index)
                    ids.append(value)
                name = inner.get("name") if field == "toolUse" and isinstance(inner, dict) else None
                named = name_clauses(name) if isinstance(name, str) else []
                if named:
                    for name_rule, clause in named:
                        clauses.append(clause.format(index=index + 1, block=block_index + 1))
                        first = first or (name_rule, f"messages.{index}.content.{block_index}.toolUse.name")
                    if not indices or indices[-1] != index:
                        indices.append(index)
                    if isinstance(value, str) and value not in ids:
                        ids.append(value)
    if first is None:
        return []
    count = len(clauses)
    error = f"{count} validation {'error' if count == 1 else 'errors'} detected: " + "; ".join(clauses)
    return [Violation(provider=provider, rule=first[0], position=first[1], native_indices=indices, call_ids=ids,
                      error=error)]


ROLES = RoleSet(
    frozenset({"user", "assistant"}),
    "1 validation error detected: Value '{role}' at 'messages.{index}.member.role' failed to satisfy constraint: "
    "Member must satisfy enum value set: [user, assistant]", "messages.{index}.role", from_one=True)
"""The roles Converse takes (botocore's model, shape ConversationRole): AWS's validation message counts messages from
1 (a `system` message first: "Value 'system' at 'messages.1.member.role' ...", quoted in an agent's error table;
`developer` refused so in another project's notes)."""


SPEC = ProviderSpec(
    model_prefixes=("bedrock/",),
    name=PROVIDER,
    title="AWS Bedrock Converse",
    native_format="bedrock",
    validate=validate,
    validate_history=None,
    validate_ids=validate_ids,
    id_rule=length_rule(ID_LIMIT, "Bedrock Converse"),
    tool_names=NameRule(ID_LIMIT, NAME_CHARS),
    needs_call_ids=True,
    blank_text=BlankRule(whitespace_beside=frozenset({"assistant"}), spares_final_assistant=False),
    error_text_only=True,
    role_rules=RoleRules(
        transparent=frozenset({SYSTEM, CUSTOM, OPAQUE}),  # the writer hoists system messages out of `messages`
        merge_assistants="all",
        results_then_user=True,
        merge_users=True,
        start="user",
        why="Bedrock Converse requires user and assistant turns to alternate",
        start_why="Bedrock Converse requires a conversation to start with a user message",
        results_why=("Bedrock Converse requires user and assistant turns to alternate, and some models "
                     "reject text in the same turn as tool results"),
    ),
    roles=ROLES,
    errors={
        "role_invalid": ROLES.error,
        "first_message_not_user": START,
        "roles_not_alternating": ALTERNATE,
        "tool_use_unanswered": EXPECTED,
        "too_many_tool_results": EXCEEDS,
        "empty_message_content": EMPTY_CONTENT,
        "blank_text_block": BLANK_TEXT,
        "error_result_empty": ERROR_EMPTY,
        "error_result_not_text": ERROR_NOT_TEXT,
        "tool_use_id_too_long": TOO_LONG.replace("{field}", "toolUse"),
        "tool_result_id_too_long": TOO_LONG.replace("{field}", "toolResult"),
        "tool_use_name_too_long": "{count} validation {errors} detected: " + NAME_LONG_CLAUSE + "{others}",
        "tool_use_name_pattern": "{count} validation {errors} detected: " + NAME_PATTERN_CLAUSE + "{others}",
    },
    endpoint=Endpoint(
        "https://bedrock-runtime.$AWS_REGION.amazonaws.com/model/$MODEL/converse",
        (),
        {},
        docs="https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html",
        signing="aws-sigv4:bedrock",
    ),
)
