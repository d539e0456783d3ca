"""Anthropic Messages and Bedrock Converse messages (one family: user/assistant turns of content blocks).

Input models for the blocks each API defines (text, images, thinking, tool_use and
tool_result; Bedrock's one-key blocks).  The readers keep blocks they cannot map
as opaque parts and read on; here such blocks are reported when they break the
API's schema: a block that is not an object or has no type, a text that is not a
string, tool input that is not an object, a result that names no call, result
content of the wrong shape.  Block types the family does not model are accepted.
"""

from __future__ import annotations

from typing import Any, Literal

from ..kinds import FindingCode
from ..loading import describe_value
from .base import Classify, Issue, Loc, Open, by_field, check_part, json_path, not_a_message, role_issue, validate

ROLES = ("user", "assistant")
ANTHROPIC_ROLES = (*ROLES, "system")
"""Anthropic's roles: since Claude Opus 4.8 a `system` message may sit inside `messages` (recorded HTTP 200,
pydantic-ai's cassettes); the rule set, not the schema, says where (integrity.providers.anthropic).  Bedrock
Converse has no such role."""
CONTENT = by_field()


class Message(Open):
    content: str | list[Any]


class Text(Open):
    text: str
    cache_control: dict[str, Any] | None = None
    citations: list[Any] | None = None


class Source(Open):
    source: dict[str, Any]


class Thinking(Open):
    thinking: str
    signature: str = ""


class Redacted(Open):
    data: str


class ToolUse(Open):
    id: str
    name: str
    input: dict[str, Any]


class ToolResult(Open):
    tool_use_id: str
    content: str | list[Any] = ""
    is_error: bool = False


BLOCKS: dict[Any, tuple[type[Open], Classify]] = {
    "text": (Text, CONTENT), "image": (Source, CONTENT), "document": (Source, CONTENT),
    "thinking": (Thinking, CONTENT), "redacted_thinking": (Redacted, CONTENT),
    "tool_use": (ToolUse, by_field(call_ids=("id",), names=("name",), arguments=("input",))),
    "tool_result": (ToolResult, by_field(result_ids=("tool_use_id",))),
}
RESULT_BLOCKS = {key: BLOCKS[key] for key in ("text", "image", "document")}


def check_message(message: dict[str, Any], index: int, prefix: Loc = ()) -> list[Issue]:
    """An Anthropic message (also inside a Claude Code entry, at `prefix`)."""
    issues = validate(Message, message, index, CONTENT, prefix)
    content = message.get("content")
    for position, block in enumerate(content if isinstance(content, list) else []):
        path = (*prefix, "content", position)
        issues.extend(check_part(BLOCKS, block, index, path))
        if isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            for inner, part in enumerate(block["content"]):
                issues.extend(check_part(RESULT_BLOCKS, part, index, (*path, "content", inner)))
    return issues


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            issues.append(not_a_message(entry, index))
            continue
        role = entry.get("role")
        if role not in (ANTHROPIC_ROLES if format == "anthropic" else ROLES):
            # (worded with the turn roles, as before: a system message is no turn, see ANTHROPIC_ROLES)
            issues.append(role_issue(role, ROLES, index))
            continue
        if format == "anthropic":
            issues.extend(_left_to_the_rules(check_message(entry, index), entry))
            if role == "user" and entry.get("content") == []:
                # Anthropic refuses it ("all messages must have non-empty content"), and the reader has
                # nothing to read in it: a results turn emptied by a writer is said, not dropped unseen
                issues.append(Issue(FindingCode.INVALID_CONTENT, index, "content",
                                    "'content' is empty: a user message needs at least one block"))
        else:
            issues.extend(_bedrock(entry, index))
    return issues


def _left_to_the_rules(issues: list[Issue], message: dict[str, Any]) -> list[Issue]:
    """The message's issues but a tool_use block's missing `input` and a tool_result's content that is an object:
    Anthropic refuses the block (providers.anthropic, tool_use_input_missing, tool_result_content_not_text) and the
    repaired view sends `{}` or the object's JSON text, so it is the rule's verdict, not a finding of the file's."""
    from ..formats.anthropic import result_content_object  # the reader's own test of such a block

    content = message.get("content")
    if not isinstance(content, list):
        return issues
    ruled = {f"content[{position}].input" for position, block in enumerate(content)
             if isinstance(block, dict) and block.get("type") == "tool_use" and "input" not in block}
    ruled.update(f"content[{position}].content" for position, block in enumerate(content)
                 if result_content_object(block))
    return [issue for issue in issues if issue.path not in ruled] if ruled else issues


class BedrockMessage(Open):
    content: list[Any]


class BedrockToolUse(Open):
    toolUseId: str
    name: str
    input: dict[str, Any]


class BedrockToolResult(Open):
    toolUseId: str
    content: list[Any]
    status: Literal["success", "error"] = "success"


class BedrockResultPart(Open):
    text: str = ""
    image: dict[str, Any] | None = None
    document: dict[str, Any] | None = None


_OBJECT_BLOCKS = ("image", "document", "video", "reasoningContent", "cachePoint", "guardContent", "citationsContent")


def _bedrock(message: dict[str, Any], index: int) -> list[Issue]:
    issues = validate(BedrockMessage, message, index, CONTENT)
    content = message.get("content")
    for position, block in enumerate(content if isinstance(content, list) else []):
        issues.extend(_bedrock_block(block, index, ("content", position)))
    return issues


def _bedrock_block(block: Any, index: int, path: Loc) -> list[Issue]:
    if not isinstance(block, dict):
        return check_part({}, block, index, path)
    if "toolUse" in block:
        use = block["toolUse"]
        return validate(BedrockToolUse, use, index, by_field(("toolUseId",), (), ("name",), ("input",)),
                        (*path, "toolUse"))
    if "toolResult" in block:
        result = block["toolResult"]
        found = validate(BedrockToolResult, result, index, by_field(result_ids=("toolUseId",)),
                         (*path, "toolResult"))
        parts = result.get("content") if isinstance(result, dict) else None
        for inner, part in enumerate(parts if isinstance(parts, list) else []):
            found += validate(BedrockResultPart, part, index, CONTENT,
                              (*path, "toolResult", "content", inner))
        return found
    if "text" in block:
        return validate(Text, block, index, CONTENT, path)
    known = [key for key in _OBJECT_BLOCKS if key in block]
    if known:
        return [] if isinstance(block[known[0]], dict) else [_not_object(index, (*path, known[0]), block[known[0]])]
    where = json_path(path)
    return [Issue(FindingCode.INVALID_CONTENT, index, where, f"'{where}' has none of Bedrock's content block keys")]


def _not_object(index: int, path: Loc, value: Any) -> Issue:
    where = json_path(path)
    return Issue(FindingCode.INVALID_CONTENT, index, where,
                 f"'{where}' must be a JSON object, got {describe_value(value)}")
