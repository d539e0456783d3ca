"""What Codex CLI sends of a rollout: its history normalized before every request.

codex-rs builds each request from its history (`ContextManager::for_prompt`, which a resumed session's history,
read back from the rollout, goes through too) after `normalize_history`: every call that no output answers gets an
output "aborted" right after it (`ensure_call_outputs_present`: function, custom and local shell calls), and every
output whose call is not in the history is left out (`remove_orphan_outputs`).  A rollout whose call was cut off
(the turn aborted before the tool ran) was judged refused ("No tool output found for function call ..."), a request
Codex never sends: the request judged is the one it sends, and the call is still reported as having no result of
its own (the view answers it with the interrupted receipt, and leaves the stray output out).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .common import call_parts, text_part, tool_result
from .spec import SendsAs, from_entries

ABORTED = "aborted"
"""The output codex-rs sends for a call that has none (normalize.rs)."""


def sent_messages(messages: Sequence[Any]) -> tuple[list[Any], list[int]] | None:
    """The messages Codex sends of a rollout (FormatSpec.sends_messages), each with the index of the message it
    stands for; None when it sends them as they are."""
    calls = {call["id"] for message in messages for call in call_parts(message)}
    outputs = {answered for answered in map(_output_id, messages) if answered is not None}
    if calls == outputs:
        return None
    out: list[Any] = []
    origin: list[int] = []
    for index, message in enumerate(messages):
        answered = _output_id(message)
        if answered is not None and answered not in calls:
            continue  # (remove_orphan_outputs)
        out.append(message)
        origin.append(index)
        for call in call_parts(message):
            if call["id"] not in outputs:  # (ensure_call_outputs_present: Codex puts it right after its call
                # item; a turn's calls are one message here, so it follows them, as a turn's outputs do)
                out.append(tool_result(call["id"], call.get("name"), [text_part(ABORTED)], False))
                origin.append(index)
    return out, origin


def _output_id(message: Any) -> str | None:
    if isinstance(message, dict) and message.get("role") == "toolResult" and isinstance(message.get("toolCallId"), str):
        return str(message["toolCallId"])
    return None


SENDS_AS: dict[str, SendsAs] = {"openai-responses": from_entries(lambda native, sources: (native, sources))}
"""Codex talks to OpenAI Responses alone; its request is the history's items as written, once sent_messages has
normalized the history."""
