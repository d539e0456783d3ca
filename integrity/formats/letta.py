"""Letta agent files (`.af`, letta-ai/agent-file; letta's `schemas/agent_file.py`).

An agent file is one JSON object: `{"agents": [...], "blocks", "tools", "groups",
"files", "sources", "mcp_servers", "metadata", "created_at"}`.  Each agent holds its
message log in `messages` and the ones in its context window, in order, in
`in_context_message_ids` (older files: `in_context_message_indices`); what the model
is sent next is the in-context messages, so that is the transcript (every message
when the file names none).  A message is `{"type": "message", "role", "content": [
{"type": "text", "text"}...], "tool_calls" (OpenAI's shape), "tool_call_id",
"tool_returns", "id", "agent_id", "otid"...}`: Chat messages with Letta's fields,
read as the Chat message each stands for.  An agent file with several agents holds
one transcript per agent (`agent:<name>`).  Read-only: a repaired view is written
as OpenAI Chat.
"""

from __future__ import annotations

from typing import Any

from . import openai_chat
from .base import BuildContext
from .spec import FormatSpec
from .wrapped import Wrapped

NAME = "letta"
_ROLES = ("system", "user", "assistant", "tool")
_LETTA_KEYS = ("tool_returns", "otid", "agent_id", "sender_id", "batch_item_id")


def _text(content: Any) -> str | None:
    """A Letta content list's text (its text parts joined); None when it has none."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text"
             and isinstance(p.get("text"), str)]
    return "\n".join(texts) if texts else None


def _unwrap(message: Any) -> Any:
    """The Chat message a Letta message stands for (None: a role the model is not sent as such)."""
    if not isinstance(message, dict):
        return message
    role = message.get("role")
    if role not in _ROLES:
        return None
    out: dict[str, Any] = {"role": role, "content": _text(message.get("content"))}
    if role == "assistant" and message.get("tool_calls"):
        out["tool_calls"] = message["tool_calls"]
    if role == "tool":
        out["tool_call_id"] = message.get("tool_call_id")
        if out["content"] is None:
            returns = message.get("tool_returns")
            first = returns[0] if isinstance(returns, list) and returns and isinstance(returns[0], dict) else {}
            out["content"] = first.get("func_response") if isinstance(first.get("func_response"), str) else ""
    elif out["content"] is None and role != "assistant":
        out["content"] = ""
    return out


def _wrap(item: Any, template: Any, context: BuildContext) -> Any:
    raise NotImplementedError("letta is read-only")


def _is_message(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("role"), str) and \
        (entry.get("type") == "message" or any(key in entry for key in _LETTA_KEYS))


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A message with Letta's own fields (tool_returns, otid, agent_id...)."""
    return any(_is_message(e) and any(key in e for key in _LETTA_KEYS) for e in entries)


def fits(entry: Any) -> bool:
    """A Letta message."""
    return _is_message(entry)


class _ReadOnly(Wrapped):
    """Read, never written: a view is written as OpenAI Chat messages."""

    READ_ONLY = True
    WRITES_AS = "openai-chat"


ADAPTER = _ReadOnly(NAME, openai_chat, _unwrap, _wrap, evidence, fits, container="array")


def is_agent_file(whole: Any) -> bool:
    """An agent file: a list of agents, each with a message list, beside Letta's other tables."""
    return isinstance(whole, dict) and isinstance(whole.get("agents"), list) and bool(whole["agents"]) \
        and all(isinstance(a, dict) and isinstance(a.get("messages"), list) for a in whole["agents"]) \
        and any(key in whole for key in ("blocks", "tools", "mcp_servers", "created_at"))


def in_context(agent: dict[str, Any]) -> list[Any]:
    """The agent's in-context messages, in context order (every message when the file names none)."""
    messages = agent["messages"]
    ids = agent.get("in_context_message_ids")
    if isinstance(ids, list) and ids:
        by_id = {m.get("id"): m for m in messages if isinstance(m, dict)}
        if all(ident in by_id for ident in ids):
            return [by_id[ident] for ident in ids]
    indices = agent.get("in_context_message_indices")
    if isinstance(indices, list) and indices and all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(messages) for i in indices):
        return [messages[i] for i in indices]
    return list(messages)


def agent_name(agent: dict[str, Any], position: int) -> str:
    """The agent's thread name: `agent:<name>`, else its position."""
    name = agent.get("name")
    return f"agent:{name}" if isinstance(name, str) and name else f"agent:{position + 1}"


SPECS = (FormatSpec(NAME, ADAPTER, suffixes=(".af", ".json")),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
