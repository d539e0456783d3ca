"""OpenAI Responses requests (and Codex rollouts, which Codex sends as them) get the verdict the API gave.

Each case in tests/provider_cases/openai-responses_*.json names its source: a request pydantic-ai recorded with
the API's answer (HTTP 200), or a refusal whose exact text a public report quotes (HTTP 400; the report holds
no body, so the request is the smallest one of its shape, with the report's call id).  A request the API
accepted must be called healthy and written back with every item (no output taken for a stray, no item called
malformed); a refused one must be refused as recorded with the API's own text, and accepted after repair.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity.providers import validate_native

TESTS = Path(__file__).resolve().parent
CASES = TESTS / "provider_cases"
PROVIDER = "openai-responses"
ACCEPTED = ["openai-responses_tool_search_client_output", "openai-responses_function_call_status_null",
            "openai-responses_compaction_item"]
REFUSED = ["openai-responses_custom_tool_call_unanswered", "openai-responses_local_shell_call_unanswered",
           "openai-responses_custom_tool_call_output_orphan"]


def _case(name: str) -> dict[str, Any]:
    return json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))


def _check(path: Path) -> tuple[int, list[str], dict[str, Any]]:
    """check's exit code, its text lines and its JSON report, for one file judged by OpenAI Responses."""
    text = run("check", "--provider", PROVIDER, path)
    report = run("check", "--json", "--provider", PROVIDER, path)
    assert text.code == report.code, (text.stdout, text.stderr)
    return text.code, text.stdout.decode().splitlines(), json.loads(report.stdout)


def _as_recorded(lines: list[str]) -> list[str]:
    return [line.strip() for line in lines if line.strip().startswith(f"{PROVIDER} as recorded:")]


@pytest.mark.parametrize("name", ACCEPTED)
def test_a_request_the_api_accepted_is_healthy_and_written_back_whole(name: str, tmp_path: Path) -> None:
    case = _case(name)
    assert case["status"] == 200 and case["provider"] == PROVIDER
    assert validate_native(case["request"]["input"], PROVIDER) == []
    path = tmp_path / "request.json"
    path.write_text(json.dumps(case["request"]), encoding="utf-8")
    code, lines, _ = _check(path)
    assert code == 0, lines
    assert lines[0].startswith(f"{path}: healthy:") and "malformed" not in "\n".join(lines), lines
    assert _as_recorded(lines) == [f"{PROVIDER} as recorded: accepted"]
    out = tmp_path / "repaired.json"
    repaired = run("repair", path, "-o", out)
    assert repaired.code == 0, repaired.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["input"] == case["request"]["input"]


def test_an_output_answering_a_client_tool_search_call_is_no_stray(tmp_path: Path) -> None:
    """The recorded output answers a `tool_search_call` by its call_id (HTTP 200): kept, never dropped."""
    case = _case("openai-responses_tool_search_client_output")
    path = tmp_path / "request.json"
    path.write_text(json.dumps(case["request"]), encoding="utf-8")
    _, _, report = _check(path)
    summary = report["summary"]
    assert summary["strays"] == summary["strays_dropped"] == summary["view_messages"] - summary["messages"] == 0
    assert report["healthy"] and not report["changed"] and not report["findings"], summary
    kinds = [item.get("type") for item in case["request"]["input"]]
    assert kinds.count("function_call_output") == 1 and "tool_search_call" in kinds


@pytest.mark.parametrize("name", REFUSED)
def test_a_refused_request_is_refused_as_recorded_with_the_apis_text(name: str, tmp_path: Path) -> None:
    case = _case(name)
    assert case["status"] == 400 and case["provider"] == PROVIDER
    assert [v.error for v in validate_native(case["request"]["input"], PROVIDER)] == [case["error"]]
    path = tmp_path / "request.json"
    path.write_text(json.dumps(case["request"]), encoding="utf-8")
    code, lines, _ = _check(path)
    assert code == 1, lines
    assert _as_recorded(lines) == [f"{PROVIDER} as recorded: input[1]: {case['error']}"], lines
    assert f"{PROVIDER} after repair: accepted" in [line.strip() for line in lines], lines


def _cut_rollout(source: str, drop: str, tmp_path: Path) -> tuple[Path, str]:
    """A real Codex rollout from tests/real with its one item of type `drop` cut: the call it answered is left
    without an output.  Returns the file and that call's id."""
    lines = (TESTS / "real" / source).read_text(encoding="utf-8").splitlines()
    kept, cut = [], []
    for line in lines:
        payload = json.loads(line).get("payload") if line.strip() else None
        (cut if isinstance(payload, dict) and payload.get("type") == drop else kept).append(line)
    assert len(cut) == 1, source
    path = tmp_path / source
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path, json.loads(cut[0])["payload"]["call_id"]


@pytest.mark.parametrize("source,drop,kind", [
    ("codex_rollout.codex.jsonl", "custom_tool_call_output", "custom_tool_call_output"),
    ("codex_local_shell.codex.jsonl", "function_call_output", "function_call_output"),
])
def test_a_codex_rollout_sends_an_unanswered_call_the_output_of_its_kind(
        source: str, drop: str, kind: str, tmp_path: Path) -> None:
    """Codex answers a call left without its output before every request (codex-rs normalize.rs,
    ensure_call_outputs_present): a custom call with a `custom_tool_call_output` "aborted", a local shell call with
    a `function_call_output`, so the API takes what Codex sends (the text it refuses each kind with, sent so, is
    judged on the request bodies above).  The call still has no output of its own: exit 1, and the repair answers
    it."""
    from integrity import load_all
    from integrity.providers.canonical import judged_request

    path, call_id = _cut_rollout(source, drop, tmp_path)
    code, lines, _ = _check(path)
    assert code == 1, lines
    assert _as_recorded(lines) == [f"{PROVIDER} as recorded: accepted"], lines
    assert f"{PROVIDER} after repair: accepted" in [line.strip() for line in lines], lines
    [transcript] = [t for t in load_all(path.read_bytes(), path.name) if t.checked]
    native, _, _ = judged_request(transcript.messages, PROVIDER, transcript, as_recorded=True)
    assert [item for item in native if item.get("call_id") == call_id and item.get("type", "").endswith("_output")] \
        == [{"type": kind, "call_id": call_id, "output": "aborted"}], native


def test_a_continued_request_may_send_a_custom_output_for_a_stored_call(tmp_path: Path) -> None:
    """With `previous_response_id` the API adds the stored response's items: the call is there (the orphan rule
    of every output kind is lifted, as for a function_call_output)."""
    case = _case("openai-responses_custom_tool_call_output_orphan")
    body = {**case["request"], "previous_response_id": "resp_stored"}
    path = tmp_path / "continued.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    code, lines, _ = _check(path)
    assert code == 0 and _as_recorded(lines) == [f"{PROVIDER} as recorded: accepted"], lines


def test_an_output_whose_call_id_is_no_string_is_a_finding_not_an_internal_error(tmp_path: Path) -> None:
    """Found by tests/test_fuzz.py in CI: the check for an output answering a call item kept opaque looked its
    call_id up in a set, and an array there was an internal error (exit 70)."""
    body = [{"role": "user", "content": "Fetch."},
            {"type": "function_call", "call_id": "call_log", "name": "fetch_url", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_log", "output": "x"},
            {"type": "function_call_output", "call_id": [], "output": "142"}, {"role": "user", "content": "Go on."}]
    path = tmp_path / "input.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    result = run("check", path)
    assert result.code == 1, result.stderr
    assert "internal error" not in str(result.stderr) and "malformed" in result.stdout.decode()
