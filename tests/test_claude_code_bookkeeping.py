"""A Claude Code message split by a bookkeeping line is still one frame.

Claude Code writes each content block of one API message as its own line (they share `message.id`), and may
write other lines while the message streams: `progress`, `queue-operation` (the user typing), `summary`.  Found by
review on real sessions (codemie-ai/codemie-code's fixtures, Claude Code 2.0.76 and 2.1.7): such a line between
two blocks of one message split it into frames, so a healthy session got "moved" actions, more messages than the
API saw, and, toward OpenAI Chat or Bedrock, refusals no provider gives.  The file with the line and without it
must say the same.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from integrity import load
from integrity.pipeline import check


def _assistant(uuid: str, parent: str, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                        "content": [block], "stop_reason": None}}


def _result(uuid: str, parent: str, call_id: str) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                                                      "content": "ok"}]}}


BOOKKEEPING = {
    "progress": {"type": "progress", "uuid": "p1", "parentUuid": "a1", "sessionId": "s", "data": {"type": "x"}},
    "queue-operation": {"type": "queue-operation", "operation": "enqueue", "sessionId": "s", "content": "more"},
    "summary": {"type": "summary", "summary": "Earlier work", "leafUuid": "a1"},
}


def _session(between: dict[str, Any] | None) -> bytes:
    lines = [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
              "message": {"role": "user", "content": "go"}},
             _assistant("a1", "u1", {"type": "text", "text": "Looking."}),
             *([between] if between is not None else []),
             _assistant("a2", "a1", {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}),
             _assistant("a3", "a2", {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}}),
             _result("r1", "a3", "toolu_1"), _result("r2", "r1", "toolu_2")]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@pytest.mark.parametrize("kind", sorted(BOOKKEEPING))
@pytest.mark.parametrize("provider", ["anthropic", "openai-chat", "bedrock"])
def test_a_bookkeeping_line_between_blocks_of_one_message_splits_nothing(kind: str, provider: str) -> None:
    plain = check(load(_session(None), "s.claude-code.jsonl"), provider=provider)
    split = check(load(_session(BOOKKEEPING[kind]), "s.claude-code.jsonl"), provider=provider)
    assert split.report.summary.messages == plain.report.summary.messages == 4  # user, one frame, two results
    assert split.report.summary == plain.report.summary
    assert split.providers[provider].before == plain.providers[provider].before == []
    assert split.report.healthy and not split.report.changed
