"""What `check` and `repair` print of a file never drives the terminal nor fakes a line of its own.

A call id, a tool name, a result id or a file name is the file's text: untrusted.  An escape sequence in one
(clear the screen, colour the rest red) or a newline followed by "FAKE: healthy" reached standard output raw
in the verdict lines, while the error lines already escaped them (integrity.loading.one_line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

HOSTILE_ID = "a\x1b[2J\x1b[31mX\nFAKE: healthy"
"""A call id that clears the screen, turns red and starts a line of its own."""


def _hostile(tmp_path: Path, name: str = "session.pi-ai.json") -> Path:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "toolCall", "id": HOSTILE_ID, "name": "f\x1b]0;title\x07",
                                           "arguments": {}}], "stopReason": "toolUse"},
        {"role": "toolResult", "toolCallId": "zz\u202eevil\x1b[0m", "toolName": "g", "content": [], "isError": False},
    ]
    path = tmp_path / name
    path.write_text(json.dumps(messages), encoding="utf-8")
    return path


def _printed(*argv: Any) -> tuple[int, str]:
    result = run(*argv)
    return result.code, result.stdout.decode() + result.stderr


@pytest.mark.parametrize("options", [(), ("--provider", "anthropic"), ("--provider", "mistral"), ("--provider", "all")])
def test_check_escapes_what_the_file_says(tmp_path: Path, options: tuple[str, ...]) -> None:
    code, text = _printed("check", *options, _hostile(tmp_path))
    assert code == 1
    assert "\x1b" not in text and "\x07" not in text
    assert not any(line.startswith("FAKE") for line in text.splitlines())
    if options:
        assert "\\x1b[2J" in text  # said, escaped


def test_repair_escapes_the_providers_lines_it_prints(tmp_path: Path) -> None:
    code, text = _printed("repair", "--provider", "anthropic", _hostile(tmp_path), "-o", tmp_path / "out.json")
    assert "\x1b" not in text and not any(line.startswith("FAKE") for line in text.splitlines())


def test_a_file_name_with_a_newline_is_one_verdict_line(tmp_path: Path) -> None:
    path = _hostile(tmp_path, "name\x1b[31m\nfake.json")
    code, text = _printed("check", path)
    [verdict] = [line for line in text.splitlines() if "would be rejected" in line or "repaired" in line]
    assert "name\\x1b[31m\\x0afake.json" in verdict and "\x1b" not in text
