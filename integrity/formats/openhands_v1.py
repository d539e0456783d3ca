"""OpenHands V1 event logs (the OpenHands software-agent SDK: openhands/sdk/event).

A conversation is a list of typed events, each `{"kind": <class name>, "id",
"timestamp", "source": "agent" | "user" | "environment", ...}` (the SDK's event
files in order, or a list of them).  The events the LLM sees, and how the SDK turns
them into messages:

- SystemPromptEvent: `system_prompt` {text}: the system prompt;
- MessageEvent: `llm_message` {role, content: [{type: text, text}]}: a user or
  assistant turn (`extended_content` appended);
- ActionEvent: one tool call (`tool_call_id`, `tool_name`, `tool_call` with its
  arguments, `thought` text parts); the actions of one LLM response share
  `llm_response_id` and are one assistant message with parallel calls;
- ObservationEvent: the result of the call `tool_call_id` (`observation` holds
  the tool's output, its `content` text parts); UserRejectObservation (a rejected
  call) and AgentErrorEvent with a `tool_call_id` are error results of that call;
  an AgentErrorEvent without one is shown to the model as a user message.

State updates, pauses and condensation bookkeeping are not messages.  Read-only: a
repaired view is written as Chat messages.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Segment
from .common import EntryError, assistant, describe, parse_arguments, text_part, tool_call, tool_result
from .read_only import body, build, groups  # noqa: F401 - the adapter protocol
from .spec import here

NAME = "openhands-v1"
READ_ONLY = True
WRITES_AS = "openai-chat"
_SEEN = ("SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent", "UserRejectObservation",
         "AgentErrorEvent")
_RESULTS = ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent")


def _is_event(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("kind"), str) and "source" in entry \
        and "role" not in entry


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """An event of a kind the SDK sends to the model (a `kind` class name with a `source`)."""
    return any(_is_event(e) and e["kind"] in _SEEN for e in entries)


def fits(entry: Any) -> bool:
    """A V1 event (any kind: state updates and condensations are events too)."""
    return _is_event(entry)


def _texts(value: Any) -> list[str]:
    """The texts of a TextContent list (or a string, or one TextContent)."""
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return []
    return [p["text"] for p in value if isinstance(p, dict) and isinstance(p.get("text"), str) and p["text"]]


def _arguments(event: dict[str, Any]) -> Any:
    """The call's arguments: the tool call's (litellm's `function.arguments` or the SDK's own `arguments`),
    else the action's fields."""
    call = event.get("tool_call")
    if isinstance(call, dict):
        function = call.get("function")
        raw = function.get("arguments") if isinstance(function, dict) else call.get("arguments")
        if raw is not None:
            return parse_arguments(raw)
    action = event.get("action")
    return {k: v for k, v in action.items() if k != "kind"} if isinstance(action, dict) else {}


def _call(event: dict[str, Any]) -> dict[str, Any]:
    call_id, name = event.get("tool_call_id"), event.get("tool_name")
    if not isinstance(call_id, str):
        raise EntryError(f"an ActionEvent's 'tool_call_id' must be a string, got {describe(call_id)}")
    if not isinstance(name, str):
        raise EntryError(f"an ActionEvent's 'tool_name' must be a string, got {describe(name)}")
    return tool_call(call_id, name, _arguments(event))


def _observation_text(event: dict[str, Any]) -> str:
    kind = event["kind"]
    if kind == "UserRejectObservation":
        reason = event.get("rejection_reason")
        return f"Action rejected: {reason if isinstance(reason, str) else 'User rejected the action'}"
    if kind == "AgentErrorEvent":
        error = event.get("error")
        return error if isinstance(error, str) else ""
    observation = event.get("observation")
    if not isinstance(observation, dict):
        return "\n".join(_texts(observation))
    for key in ("content", "output", "text"):
        found = _texts(observation.get(key))
        if found:
            return "\n".join(found)
    return json.dumps({k: v for k, v in observation.items() if k != "kind"}, ensure_ascii=False)


def _is_error(event: dict[str, Any]) -> bool:
    observation = event.get("observation")
    return event["kind"] != "ObservationEvent" or (isinstance(observation, dict)
                                                    and observation.get("is_error") is True)


def _message(event: dict[str, Any], frames: dict[Any, dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages one event adds (none when an action joins its response's message already read)."""
    kind = event["kind"]
    if kind == "SystemPromptEvent":
        return [{"role": "system", "content": "\n".join(_texts(event.get("system_prompt")))}]
    if kind == "MessageEvent":
        message = event.get("llm_message")
        if not isinstance(message, dict):
            raise EntryError(f"a MessageEvent's 'llm_message' must be an object, got {describe(message)}")
        text = "\n".join(_texts(message.get("content")) + _texts(event.get("extended_content")))
        if message.get("role") == "assistant":
            return [assistant([text_part(text)] if text else [], "stop")]
        return [{"role": "user", "content": text}]
    if kind == "ActionEvent":
        key = event.get("llm_response_id")
        frame = frames.get(key) if isinstance(key, str) else None
        call = _call(event)
        if frame is not None:
            frame["content"].append(call)
            return []
        thought = "\n".join(_texts(event.get("thought")))
        frame = assistant(([text_part(thought)] if thought else []) + [call])
        if isinstance(key, str):
            frames[key] = frame
        return [frame]
    if kind in _RESULTS and isinstance(event.get("tool_call_id"), str):
        text = _observation_text(event)
        return [tool_result(event["tool_call_id"], event.get("tool_name"), [text_part(text)] if text else [],
                            _is_error(event))]
    if kind == "AgentErrorEvent":
        return [{"role": "user", "content": _observation_text(event)}]
    if kind in _RESULTS:
        raise EntryError(f"a {kind}'s 'tool_call_id' must be a string, got {describe(event.get('tool_call_id'))}")
    return []


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages in event order; events the model never sees yield none."""
    frames: dict[Any, dict[str, Any]] = {}
    segments = []
    for index, event in enumerate(entries):
        if not _is_event(event):
            raise EntryError(f"expected an event object with 'kind' and 'source', got {describe(event)}", index)
        try:
            messages = _message(event, frames)
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, messages))
    return segments


SPECS = (here(__name__),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
