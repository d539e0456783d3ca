"""What goose sends of a session: its messages after its own pass, before every request.

goose runs `fix_conversation` (crates/goose/src/conversation/mod.rs) over the messages the agent sees before each
provider call: the texts of an answer merged and their trailing whitespace trimmed; a message of empty texts left
out; every tool response whose request no earlier answer made, or that answers one already answered, left out; every
tool request that no later response answers left out (and a message that held nothing else with it); consecutive
messages of one role merged (a user message holding tool responses counts as the tool's). So a session whose call
was cut off (a crash, Ctrl-C while the tool ran) is sent without it, and accepted; one whose result comes after
another message (a user's text, a second answer) is sent as it is, and Anthropic refuses it ("tool_use ids were
found without tool_result blocks immediately after": goose#2951, #3249, #6336, #7444). Judged as the file lists it,
the first was a false rejection. goose also leaves out an answer that opens or ends the conversation
(fix_lead_trail). Neither is modelled: a session's next request carries the user's next message after its last
answer, and a goose session opens with the user's message (one that opens with an answer holding a call would be
sent with its results and without the call, which no view can repair; judged as written, its view is). The defects
stay reported on the durable messages: the view answers a cut-off call with the interrupted receipt instead of
forgetting it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .spec import SendsAs, from_entries


def sent_messages(messages: Sequence[Any]) -> tuple[list[Any], list[int]] | None:
    """The messages goose sends of a session (FormatSpec.sends_messages), each with the index of the message it
    stands for (a merged message: its first); None when it sends them as they are."""
    kept: list[tuple[int, Any]] = [(index, _trimmed(message)) for index, message in enumerate(messages)]
    kept = [(index, message) for index, message in kept if not _empty(message)]
    kept = _tool_calling(kept)
    kept = _merged(kept)
    if len(kept) == len(messages) and all(message is messages[index] for index, message in kept):
        return None
    return [message for _, message in kept], [index for index, _ in kept]


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def _is_text(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)


def _trimmed(message: Any) -> Any:
    """An answer with its adjacent texts merged and the trailing whitespace of each text trimmed (goose's
    merge_text_content_items and trim_assistant_text_whitespace); the message itself when that changes nothing."""
    content = message.get("content") if _role(message) == "assistant" else None
    if not isinstance(content, list):
        return message
    parts: list[Any] = []
    for part in content:
        if _is_text(part) and parts and _is_text(parts[-1]):
            parts[-1] = {**parts[-1], "text": parts[-1]["text"] + part["text"]}
        else:
            parts.append(part)
    parts = [{**part, "text": part["text"].rstrip()} if _is_text(part) and part["text"] != part["text"].rstrip()
             else part for part in parts]
    return message if parts == content else {**message, "content": parts}


def _empty(message: Any) -> bool:
    """A user message or an answer of empty texts only, or of nothing (goose's remove_empty_messages)."""
    if _role(message) not in ("user", "assistant"):
        return False
    content = message.get("content")
    if isinstance(content, str):
        return content == ""
    return isinstance(content, list) and all(_is_text(part) and part["text"] == "" for part in content)


def _tool_calling(kept: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """goose's fix_tool_calling: a response whose request is not pending (never made, or answered already) left
    out; then each request still pending left out of its answer, and an answer left with nothing dropped."""
    pending: set[str] = set()
    out: list[tuple[int, Any]] = []
    for index, message in kept:
        role = _role(message)
        if role == "toolResult":
            call_id = message.get("toolCallId")
            if call_id == "":  # (no id to pair by: goose never writes one; a view for Gemini pairs by order)
                out.append((index, message))
                continue
            if call_id not in pending:
                continue
            pending.discard(call_id)
        elif role == "assistant" and isinstance(message.get("content"), list):
            pending.update(part["id"] for part in message["content"] if isinstance(part, dict)
                           and part.get("type") == "toolCall" and isinstance(part.get("id"), str) and part["id"])
        out.append((index, message))
    if not pending:
        return out
    left: list[tuple[int, Any]] = []
    for index, message in out:
        content = message.get("content") if _role(message) == "assistant" else None
        if isinstance(content, list) and any(_pending(part, pending) for part in content):
            message = {**message, "content": [part for part in content if not _pending(part, pending)]}
            if _empty(message):
                continue
        left.append((index, message))
    return left


def _pending(part: Any, pending: set[str]) -> bool:
    return isinstance(part, dict) and part.get("type") == "toolCall" and part.get("id") in pending


def _merged(kept: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """Consecutive answers one answer, consecutive user messages one (goose's merge_consecutive_messages; a run of
    results is one message in every writer already)."""
    out: list[tuple[int, Any]] = []
    for index, message in kept:
        role = _role(message)
        if out and role in ("user", "assistant") and _role(out[-1][1]) == role:
            first_index, first = out[-1]
            out[-1] = (first_index, {**first, "content": _parts(first) + _parts(message)})
            continue
        out.append((index, message))
    return out


def _parts(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content) if isinstance(content, list) else []


SENDS_AS: dict[str, SendsAs] = {format: from_entries(lambda native, sources: (native, sources))
                                for format in ("anthropic", "openai-chat", "openai-responses", "gemini", "bedrock")}
"""goose writes each provider's request from the messages its pass leaves (its formatters: one request message per
message); the pass applies whichever provider is asked."""
