"""A message of a role its provider does not take is refused by that provider, in its words (rule role_invalid).

The readers read such a message (a Gemini `model` role sent on to OpenAI, a Chat `tool` message sent to Claude, to
Bedrock or as a Responses item) as an opaque entry, a malformed finding the strict policy leaves in place.  The
verdict said "accepted as recorded by <provider>" beside that finding: a request the provider answers with 400.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import check, load_all
from integrity.cli import main

CASES = [
    ("openai-chat", {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "hi"}, {"role": "model", "content": "done"}]},
     "Invalid value: 'model'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and "
     "'developer'."),
    ("openai-responses", {"model": "gpt-5", "input": [
        {"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}]},
     "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'."),
    ("anthropic", {"messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}, {"role": "tool", "content": "x"}]},
     "messages.2.role: Input should be 'user' or 'assistant'"),
    ("bedrock", {"messages": [
        {"role": "user", "content": [{"text": "hi"}]}, {"role": "developer", "content": [{"text": "x"}]}]},
     "1 validation error detected: Value 'developer' at 'messages.2.member.role' failed to satisfy constraint: "
     "Member must satisfy enum value set: [user, assistant]"),
]


@pytest.mark.parametrize(("provider", "body", "error"), CASES, ids=[case[0] for case in CASES])
def test_the_provider_refuses_the_role_and_every_surface_says_so(
        provider: str, body: dict[str, Any], error: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body))
    [transcript] = load_all(path.read_bytes(), path.name, format=provider)
    result = check(transcript)
    assert result.target == provider
    said = result.providers[provider]
    assert [v.error for v in said.before] == [error]
    assert [v.error for v in said.after] == [error]  # the view sends the entry as it is: no repair is claimed
    assert str(result.status) == "findings" and result.exit_code == 1
    assert main(["check", "--format", provider, str(path)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith(f"rejected as recorded by {provider}"), out
    assert "accepted" not in out.splitlines()[0]
