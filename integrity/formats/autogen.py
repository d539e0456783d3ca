"""AutoGen (v0.4+ AgentChat) saved state: the LLM messages an agent replays to its model.

microsoft/autogen `autogen_core/models/_types.py` defines the messages a model
context holds, each tagged by `type`: SystemMessage (`content`), UserMessage
(`content`, `source`), AssistantMessage (`content`: text or a list of FunctionCall
`{"id", "name", "arguments"}` with `arguments` JSON text; `thought`), and
FunctionExecutionResultMessage (`content`: FunctionExecutionResult
`{"call_id", "name", "content", "is_error"}`).  `agent.save_state()` writes them
under `llm_context.messages` (older versions: `llm_messages`) of an
AssistantAgentState, a team's `save_state()` nests one such state per agent under
`agent_states.<name>.agent_state`, and a model context's own `save_state()` is
`{"messages": [...]}`.  On load they are sent back to the model as they are, so
they are the transcript: one per agent (`agent:<name>` when a team holds several).
Read-only: a repaired view is written as OpenAI Chat.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Segment
from .common import EntryError, assistant, describe, parse_arguments, text_part, tool_call, tool_result
from .read_only import body, build, groups  # noqa: F401 - the adapter protocol
from .spec import here

NAME = "autogen"
READ_ONLY = True
WRITES_AS = "openai-chat"
_TYPES = ("SystemMessage", "UserMessage", "AssistantMessage", "FunctionExecutionResultMessage")


def _is_message(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") in _TYPES and "content" in entry and "role" not in entry


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """An LLM message of AutoGen's types."""
    return any(_is_message(e) for e in entries)


def fits(entry: Any) -> bool:
    """An AutoGen LLM message."""
    return _is_message(entry)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(item for item in content if isinstance(item, str))  # images are left out
    return json.dumps(content, ensure_ascii=False)


def _assistant(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    thought = message.get("thought")
    parts = [text_part(thought)] if isinstance(thought, str) and thought else []
    if isinstance(content, str):
        return assistant(parts + ([text_part(content)] if content else []), "stop")
    if not isinstance(content, list):
        raise EntryError(f"an AssistantMessage's 'content' must be a string or a list of calls, got "
                         f"{describe(content)}")
    for call in content:
        if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not isinstance(call.get("name"), str):
            raise EntryError("a FunctionCall needs a string 'id' and 'name'")
        parts.append(tool_call(call["id"], call["name"], parse_arguments(call.get("arguments"))))
    return assistant(parts, "toolUse")


def _results(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        raise EntryError(f"a FunctionExecutionResultMessage's 'content' must be a list, got {describe(content)}")
    if not content:
        raise EntryError("a FunctionExecutionResultMessage holds no FunctionExecutionResult")
    out = []
    for result in content:
        if not isinstance(result, dict) or not isinstance(result.get("call_id"), str):
            raise EntryError("a FunctionExecutionResult needs a string 'call_id'")
        text = _text(result.get("content"))
        out.append(tool_result(result["call_id"], result.get("name"), [text_part(text)] if text else [],
                               result.get("is_error") is True))
    return out


def _messages(message: dict[str, Any]) -> list[dict[str, Any]]:
    kind = message["type"]
    if kind == "SystemMessage":
        return [{"role": "system", "content": _text(message.get("content"))}]
    if kind == "UserMessage":
        return [{"role": "user", "content": _text(message.get("content"))}]
    if kind == "AssistantMessage":
        return [_assistant(message)]
    return _results(message)


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages per LLM message (a result message gives one result per function result)."""
    segments = []
    for index, entry in enumerate(entries):
        if not _is_message(entry):
            raise EntryError(f"expected an AutoGen LLM message with 'type' and 'content', got {describe(entry)}",
                             index)
        try:
            messages = _messages(entry)
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, messages))
    return segments



def _agent_messages(state: Any) -> list[Any] | None:
    """The LLM messages of one agent state (None: it holds none)."""
    if not isinstance(state, dict):
        return None
    context = state.get("llm_context")
    if isinstance(context, dict) and isinstance(context.get("messages"), list):
        return list(context["messages"])
    messages = state.get("llm_messages")
    return list(messages) if isinstance(messages, list) else None


def saved_states(whole: Any) -> list[tuple[str, list[Any]]] | None:
    """(agent name, messages) for each agent of a saved AutoGen state; None when `whole` is none."""
    if not isinstance(whole, dict) or not isinstance(whole.get("type"), str):
        return None
    own = _agent_messages(whole)
    if own is not None:
        return [("main", own)]
    agents = whole.get("agent_states")
    if whole["type"] != "TeamState" or not isinstance(agents, dict):
        return None
    found = []
    for name, state in agents.items():
        inner = state.get("agent_state") if isinstance(state, dict) else None
        messages = _agent_messages(inner)
        if messages is not None:
            found.append((str(name), messages))
    return found or None


SPECS = (here(__name__, suffixes=(".json",)),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
