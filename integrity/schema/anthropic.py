"""Anthropic Messages and Bedrock Converse messages (one family: user/assistant turns of content blocks).

Read on by the readers but reported here: a role the API does not have, tool
input that is not an object, and a tool result that names no call.
"""

from __future__ import annotations

from typing import Any

from .base import Issue, arguments_issue, id_issue, not_a_message, role_issue

ROLES = ("user", "assistant")


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    block = _anthropic_block if format == "anthropic" else _bedrock_block
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            issues.append(not_a_message(entry, index))
            continue
        role = entry.get("role")
        if role not in ROLES:
            issues.append(role_issue(role, ROLES, index))
            continue
        content = entry.get("content")
        for position, part in enumerate(content if isinstance(content, list) else []):
            if isinstance(part, dict):
                issues.extend(found for found in block(part, index, f"content[{position}]") if found is not None)
    return issues


def _anthropic_block(block: dict[str, Any], index: int, path: str) -> list[Issue | None]:
    kind = block.get("type")
    if kind == "tool_use":
        return [arguments_issue(block.get("input"), index, f"{path}.input", text=False)]
    if kind == "tool_result":
        return [id_issue(block, "tool_use_id", index, f"{path}.tool_use_id", call=False)]
    return []


def _bedrock_block(block: dict[str, Any], index: int, path: str) -> list[Issue | None]:
    use = block.get("toolUse")
    if isinstance(use, dict):
        return [arguments_issue(use.get("input"), index, f"{path}.toolUse.input", text=False)]
    result = block.get("toolResult")
    if isinstance(result, dict):
        return [id_issue(result, "toolUseId", index, f"{path}.toolResult.toolUseId", call=False)]
    return []
