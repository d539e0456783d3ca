"""A Codex rollout is judged as Codex sends it (integrity.formats.codex_requests).

codex-rs normalizes its history before every request (context_manager/normalize.rs): a call that no output answers
gets an output "aborted" right after it, and an output whose call is not in the history is left out.  Judged as
the file lists it, a rollout whose turn was aborted before its tool ran was refused by OpenAI Responses ("No tool
output found for function call ..."): a request Codex never sends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import check, load_all
from integrity.cli import main
from integrity.formats.codex_requests import ABORTED, sent_messages
from integrity.kinds import Severity
from integrity.providers.canonical import judged_request

REAL = Path(__file__).resolve().parent / "real"


def line(payload: dict[str, Any], kind: str = "response_item") -> dict[str, Any]:
    return {"timestamp": "2025-10-29T00:59:01.113Z", "type": kind, "payload": payload}


META = line({"id": "0199a214-0000-7000-8000-00000000000a", "timestamp": "2025-10-29T00:59:00.000Z", "cwd": "/w",
             "originator": "codex_cli_rs", "cli_version": "0.46.0"}, "session_meta")


def said(role: str, text: str) -> dict[str, Any]:
    kind = "input_text" if role == "user" else "output_text"
    return line({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})


def function_call(call_id: str) -> dict[str, Any]:
    return line({"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["ls"]}),
                 "call_id": call_id})


def custom_call(call_id: str) -> dict[str, Any]:
    return line({"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch",
                 "call_id": call_id, "status": "completed"})


def output(call_id: str, text: str = "ok") -> dict[str, Any]:
    return line({"type": "function_call_output", "call_id": call_id, "output": text})


def sent(entries: list[dict[str, Any]]) -> tuple[Any, list[Any]]:
    data = "".join(json.dumps(entry) + "\n" for entry in entries).encode()
    [transcript] = [t for t in load_all(data, "rollout.codex.jsonl") if t.checked]
    native, _, _ = judged_request(transcript.messages, "openai-responses", transcript, as_recorded=True)
    return transcript, native


def kinds(native: list[Any]) -> list[str]:
    return [item.get("type") or item.get("role") for item in native]


def test_the_aborted_turn_is_accepted_as_codex_sends_it_and_still_needs_its_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = REAL / "codex_turn_aborted.codex.jsonl"
    before = path.read_bytes()
    assert main(["check", str(path)]) == 1  # the call has no output of its own
    out = capsys.readouterr().out
    assert "accepted as recorded by openai-responses" in out and "rejected" not in out, out
    [transcript] = [t for t in load_all(before, path.name) if t.checked]
    native, sources, _ = judged_request(transcript.messages, "openai-responses", transcript, as_recorded=True)
    at = next(i for i, item in enumerate(native) if item.get("call_id") == "call_Lk1Zx2Cv3Bn4Mm5Qw6Er7Ty8U")
    assert native[at]["type"] == "function_call"
    assert native[at + 1] == {"type": "function_call_output", "call_id": "call_Lk1Zx2Cv3Bn4Mm5Qw6Er7Ty8U",
                              "output": ABORTED}
    assert sources[at + 1] == sources[at]  # it stands for the message holding its call
    assert check(transcript).report.severity is Severity.LOSSY
    fixed = tmp_path / "fixed.codex.jsonl"
    assert main(["repair", str(path), "-o", str(fixed)]) == 0
    assert path.read_bytes() == before
    assert main(["check", str(fixed)]) == 0


def test_each_call_without_output_gets_one_after_its_turns_calls_of_its_own_kind() -> None:
    """Codex puts the output right after its call item; the reader holds a turn's calls in one message, and the
    output comes after them, before the outputs recorded (the API takes a turn's calls, then their outputs)."""
    transcript, native = sent([META, said("user", "patch it"), custom_call("call_patch"), function_call("call_ls"),
                               output("call_ls", "a.txt"), said("user", "stop")])
    assert kinds(native) == ["message", "custom_tool_call", "function_call", "custom_tool_call_output",
                             "function_call_output", "message"], native
    assert native[3] == {"type": "custom_tool_call_output", "call_id": "call_patch", "output": ABORTED}
    assert native[4]["output"] == "a.txt"
    assert check(transcript).providers["openai-responses"].accepted_as_recorded


def test_an_output_whose_call_is_gone_is_left_out() -> None:
    transcript, native = sent([META, said("user", "go"), output("call_gone", "late"), said("assistant", "done")])
    assert kinds(native) == ["message", "message"]
    verdict = check(transcript).providers["openai-responses"]
    assert verdict.accepted_as_recorded, [v.error for v in verdict.before]
    assert check(transcript).report.severity is Severity.LOSSY  # still a result no call asked for


def test_a_call_at_the_end_is_answered_too() -> None:
    """Unlike pi, codex-rs answers every call without an output, the last one too."""
    _, native = sent([META, said("user", "go"), function_call("call_last")])
    assert kinds(native)[-2:] == ["function_call", "function_call_output"]


def test_a_rollout_codex_sends_as_it_is_is_not_copied() -> None:
    [transcript] = [t for t in load_all((REAL / "codex_rollout.codex.jsonl").read_bytes(), "r.codex.jsonl")
                    if t.checked]
    assert sent_messages(transcript.messages) is None
