"""OpenHands event streams (All-Hands-AI/OpenHands, events/serialization, memory/conversation_memory.py).

A conversation is a list of events (a trajectory export, `{"trajectory": [...]}`, or
the event store's files in order): actions `{"id", "source", "action", "args",
"tool_call_metadata"?}` and observations `{"id", "observation", "content", "extras",
"cause", "tool_call_metadata"?}`; ids are numbers, and an observation's `cause` is
the id of the action it answers.  In function-calling mode an agent action carries
`tool_call_metadata` = {function_name, tool_call_id, model_response,
total_calls_in_response}: every action of one LLM response shares its
`model_response`, whose message lists all the calls the model made, and the
observation answering it carries the same metadata.

Read as OpenHands builds the LLM's messages: the actions of one response are one
assistant frame (its calls are the response's tool calls, so a call the model made
but OpenHands never ran is an unanswered call), an observation with metadata is that
call's result, message actions are user or assistant turns, the system action is the
system prompt, a `finish` action is the assistant's closing text (OpenHands sends no
call for it), and events the model never sees (state changes, recalls, condensations)
are left out.  Read-only: a repaired view is written as Chat messages.
"""

from __future__ import annotations

from typing import Any

from .base import Segment
from .common import (
    EntryError,
    assistant,
    describe,
    parse_arguments,
    text_part,
    tool_call,
    tool_result,
)
from .read_only import body, build, groups  # noqa: F401 - the adapter protocol
from .spec import here

NAME = "openhands"
READ_ONLY = True
WRITES_AS = "openai-chat"
_SEEN_AS_USER = ("run", "error", "user_rejected")  # observations without metadata the model is shown


def _is_event(entry: Any) -> bool:
    return isinstance(entry, dict) and ("action" in entry or "observation" in entry) and "role" not in entry


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """Events with an action or observation and a source or cause."""
    return any(_is_event(e) and ("source" in e or "cause" in e or "tool_call_metadata" in e) for e in entries)


def fits(entry: Any) -> bool:
    """An event (an action or an observation)."""
    return _is_event(entry)


def _response_message(metadata: dict[str, Any]) -> dict[str, Any]:
    response = metadata.get("model_response")
    choices = response.get("choices") if isinstance(response, dict) else None
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = first.get("message")
    return message if isinstance(message, dict) else {}


def _response_id(metadata: dict[str, Any], event: dict[str, Any]) -> Any:
    response = metadata.get("model_response")
    ident = response.get("id") if isinstance(response, dict) else None
    return ident if isinstance(ident, str) else ("event", event.get("id"))


def _calls_of(metadata: dict[str, Any], event: dict[str, Any]) -> list[dict[str, Any]]:
    """The response's tool calls, or (no response kept) the one call this action stands for."""
    calls = []
    listed = _response_message(metadata).get("tool_calls")
    for raw in listed if isinstance(listed, list) else []:  # malformed calls are skipped, as a list's are
        function = raw.get("function") if isinstance(raw, dict) else None
        if isinstance(function, dict) and isinstance(raw.get("id"), str) and isinstance(function.get("name"), str):
            calls.append(tool_call(raw["id"], function["name"], parse_arguments(function.get("arguments"))))
    if not calls:
        calls.append(_own_call(metadata, event))
    return calls


def _own_call(metadata: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    call_id, name = metadata.get("tool_call_id"), metadata.get("function_name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise EntryError("'tool_call_metadata' needs a string 'tool_call_id' and 'function_name'")
    args = event.get("args")
    return tool_call(call_id, name, args if isinstance(args, dict) else {})


def _text(value: Any) -> list[dict[str, Any]]:
    return [text_part(value)] if isinstance(value, str) and value else []


def _action(event: dict[str, Any], frames: dict[Any, dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages an action adds (none when it joins a frame already read)."""
    kind, args = event.get("action"), event.get("args")
    args = args if isinstance(args, dict) else {}
    metadata = event.get("tool_call_metadata")
    user = event.get("source") == "user"
    if kind == "system":
        return [{"role": "system", "content": args.get("content", "")}]
    if kind == "finish":
        content = _response_message(metadata).get("content") if isinstance(metadata, dict) else None
        thought = args.get("thought") or args.get("final_thought") or ""
        if isinstance(content, str) and content and content != thought:
            thought = f"{thought}\n{content}" if thought else content
        # a completed turn, even when its text is empty (OpenHands sends it as it is)
        return [{"role": "user", "content": thought}] if user else [assistant(_text(thought), "stop")]
    if kind == "message":
        text = args.get("content", "")
        return [{"role": "user", "content": text}] if user else [assistant(_text(text), "stop")]
    if isinstance(metadata, dict) and not user:
        key = _response_id(metadata, event)
        frame = frames.get(key)
        if frame is None:
            frame = assistant(_text(_response_message(metadata).get("content")) + _calls_of(metadata, event))
            frames[key] = frame
            return [frame]
        own = metadata.get("tool_call_id")
        if not any(p.get("id") == own for p in frame["content"] if p.get("type") == "toolCall"):
            frame["content"].append(_own_call(metadata, event))
        return []
    if user and kind == "run":
        return [{"role": "user", "content": f"User executed the command:\n{args.get('command', '')}"}]
    return []


def _observation(event: dict[str, Any]) -> list[dict[str, Any]]:
    metadata = event.get("tool_call_metadata")
    content = event.get("content", "")
    text = content if isinstance(content, str) else str(content)
    if isinstance(metadata, dict):
        call_id, name = metadata.get("tool_call_id"), metadata.get("function_name")
        if not isinstance(call_id, str):
            raise EntryError(f"an observation's 'tool_call_id' must be a string, got {describe(call_id)}")
        return [tool_result(call_id, name, _text(text), event.get("observation") == "error")]
    if event.get("observation") in _SEEN_AS_USER:
        return [{"role": "user", "content": text}]
    return []


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages in event order; events the model never sees yield none."""
    frames: dict[Any, dict[str, Any]] = {}
    segments = []
    for index, event in enumerate(entries):
        if not isinstance(event, dict):
            raise EntryError(f"expected an event object, got {describe(event)}", index)
        try:
            messages = _action(event, frames) if "action" in event else _observation(event)
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, messages))
    return segments


SPECS = (here(__name__),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
