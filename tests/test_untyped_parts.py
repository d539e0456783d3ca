"""A content part without `type` is refused by OpenAI Chat and Anthropic in their words, and a part of a text alone is
sent typed by the repaired view.

A session that switched from a Bedrock model holds Converse's `{"text": ...}` blocks, which the Messages API answers
"messages.0.content.0.type: Field required"; a tool returning a list of objects, or a writer dropping the tag, gives
OpenAI "Missing required parameter: 'messages[0].content[0].type'.".  The reader calls such a part malformed, and
the verdict said "accepted as recorded" beside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import check, load_all
from integrity.cli import main

CASES = [
    ("openai-chat", lambda content: {"model": "gpt-4o", "messages": [
        {"role": "user", "content": content}, {"role": "assistant", "content": "ok"}]},
     "Missing required parameter: 'messages[0].content[0].type'."),
    ("anthropic", lambda content: {"model": "claude-sonnet-4-5", "messages": [
        {"role": "user", "content": content}, {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]},
     "messages.0.content.0.type: Field required"),
]


@pytest.mark.parametrize(("provider", "body", "error"), CASES, ids=[case[0] for case in CASES])
def test_a_text_part_without_its_type_is_refused_and_sent_typed(
        provider: str, body: Any, error: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body([{"text": "What is in notes.txt?"}])))
    before = path.read_bytes()
    [transcript] = load_all(before, path.name, format=provider)
    said = check(transcript).providers[provider]
    assert [v.error for v in said.before] == [error] and said.accepted_after_repair
    assert main(["check", "--format", provider, str(path)]) == 1
    assert capsys.readouterr().out.splitlines()[0].endswith(f"rejected as recorded by {provider}")
    fixed = tmp_path / "fixed.json"
    assert main(["repair", "--format", provider, str(path), "-o", str(fixed)]) == 0
    assert 'messages[0].content[0].type added: "text"' in capsys.readouterr().err
    assert path.read_bytes() == before
    sent = json.loads(fixed.read_text())["messages"][0]["content"]
    assert sent == [{"type": "text", "text": "What is in notes.txt?"}]
    assert main(["check", "--format", provider, str(fixed)]) == 0


@pytest.mark.parametrize(("provider", "body", "error"), CASES, ids=[case[0] for case in CASES])
def test_a_part_of_other_fields_stays_refused_after_repair(provider: str, body: Any, error: str) -> None:
    """A tool's object sent as a part: what it stands for is not known, so the view sends it as it is."""
    [transcript] = load_all(json.dumps(body([{"temperature": 20}])).encode(), "request.json", format=provider)
    said = check(transcript).providers[provider]
    assert [v.error for v in said.before] == [error] == [v.error for v in said.after]


def test_a_tool_result_block_of_a_text_without_its_type_is_refused_and_sent_typed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tool's list of objects sent on as a tool_result's blocks ("messages.2.content.0.tool_result.content.0.type:
    Field required"); a guard before an Anthropic call sends the block typed too."""
    from integrity.guards._core import RequestGuard

    messages = [{"role": "user", "content": "What is in notes.txt?"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                              "content": [{"text": "alpha"}]}]},
                {"role": "assistant", "content": "It says alpha."}]
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"model": "claude-sonnet-4-5", "messages": messages}))
    [transcript] = load_all(path.read_bytes(), path.name, format="anthropic")
    said = check(transcript).providers["anthropic"]
    assert [v.error for v in said.before] == ["messages.2.content.0.tool_result.content.0.type: Field required"]
    assert said.accepted_after_repair
    fixed = tmp_path / "fixed.json"
    assert main(["repair", "--format", "anthropic", str(path), "-o", str(fixed)]) == 0
    typed = [{"type": "text", "text": "alpha"}]
    assert json.loads(fixed.read_text())["messages"][2]["content"][0]["content"] == typed
    assert main(["check", "--format", "anthropic", str(fixed)]) == 0
    sent = RequestGuard("test").guard([*messages, {"role": "user", "content": "go on"}], "anthropic", "anthropic")
    assert sent is not None and sent[2]["content"][0]["content"] == typed
    assert messages[2]["content"][0]["content"] == [{"text": "alpha"}]  # the caller's request is left as it is
