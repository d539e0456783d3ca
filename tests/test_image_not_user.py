"""An image in a Chat tool or system message is refused by OpenAI in its words.

A tool that returns a screenshot or a rendered page, sent on in its `tool` message (strands-agents/sdk-python#320,
LangChain tools returning image blocks, a gateway relaying Codex's view_image): OpenAI answers "Invalid
'messages[3]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains
an image URL." on every later turn.  The verdict said "healthy; accepted as recorded by openai-chat".  The view
planned for OpenAI Chat sends the images in a user message after the turn's results (tests/test_images_moved.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import check, load_all
from integrity.cli import main
from integrity.guards._fast import scan
from integrity.providers import validate_native

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}}]}


def refused(request: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(v.rule, v.error) for v in validate_native(request, "openai-chat")]


@pytest.mark.parametrize("role", ["tool", "system"])
def test_an_image_outside_a_user_message_is_refused(role: str) -> None:
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": "Screenshot taken."}, IMAGE]}
    request = [{"role": "user", "content": "look"}, CALL, {**message, "tool_call_id": "call_1"}] if role == "tool" \
        else [message, {"role": "user", "content": "look"}]
    at = 2 if role == "tool" else 0
    said = (f"Invalid 'messages[{at}]'. Image URLs are only allowed for messages with role 'user', but this message "
            f"with role '{role}' contains an image URL.")
    assert refused(request) == [("image_not_user", said)]
    assert scan(request, "openai-chat", "openai-chat")[0] is False  # the guards' quick pass leaves it to the check


def test_an_image_from_the_user_is_taken() -> None:
    assert refused([{"role": "user", "content": [{"type": "text", "text": "what is this?"}, IMAGE]}]) == []


def test_check_says_rejected_and_repair_writes_what_openai_takes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "Take a screenshot and describe it."}, CALL,
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "Screenshot taken."}, IMAGE]},
        {"role": "assistant", "content": "It shows a login page."}]}
    path = tmp_path / "session.json"
    path.write_text(json.dumps(body))
    [transcript] = load_all(path.read_bytes(), path.name)
    verdict = check(transcript).providers["openai-chat"]
    assert [v.rule for v in verdict.before] == ["image_not_user"] and verdict.after == []
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        f"{path}: repaired: 1 result(s) whose images are sent in a user message; rejected as recorded by openai-chat")
    assert main(["repair", str(path), "-o", str(tmp_path / "out.json")]) == 0  # written as OpenAI takes it
    assert capsys.readouterr().err == ""
    assert main(["check", str(tmp_path / "out.json")]) == 0
