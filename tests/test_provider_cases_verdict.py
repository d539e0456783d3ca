"""The verdict says what the judge needs and what `repair` does: a reviewer's cases (adv_one), checked on every
surface that renders the one verdict (check, check --json, --json-lines, triage's rows, the API the inspector
reads).

D2: with no target provider (a pi-ai file, no --provider), the universal invariants judge: a change none of them
demands (an id renamed because a later turn reuses it, an empty interrupted frame left out) is a normalization,
as it is for a target that accepts the file (docs/glossary.md "universal invariants", "normalization";
docs/providers.md: "An id reused by a later turn is accepted"); what breaks one (an orphan, a stray, an id two
calls of one turn share) still fails.
D5: the verdict is rated by the target alone and reads the same whoever else is asked, and the Glossary says so.
D4: a torn last line: the verdict, the JSON's `changed` and what `repair` writes agree, and repair keeps every
other line byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from inspector.glossary import find_term
from integrity import load
from integrity.analysis import analyze
from integrity.kinds import Severity
from integrity.notes import Note, NoteCode, render
from integrity.pipeline import check, target_provider
from integrity.triage import triage_file


def _call(call_id: str, name: str = "ls") -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {}}


def _result(call_id: str, text: str, name: str = "ls") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False}


def _frame(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(calls), "stopReason": "toolUse"}


def _reply(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop"}


REUSED_LATER = [{"role": "user", "content": "go"}, _frame(_call("c1")), _result("c1", "a"), _reply("x"),
                {"role": "user", "content": "again"}, _frame(_call("c1")), _result("c1", "b"), _reply("y")]
"""adv_one p05_reused: id c1 reused by a later turn, each use answered right after it."""

EMPTY_ABORTED = [{"role": "user", "content": "go"}, {"role": "assistant", "content": [], "stopReason": "aborted"},
                 {"role": "user", "content": "hi"}, _reply("ok")]
"""adv_one p18_empty_assistant: an empty aborted assistant message, no calls."""

SHARED_IN_TURN = [{"role": "user", "content": "go"}, _frame(_call("c1", "a"), _call("c1", "b")),
                  _result("c1", "A", "a"), _result("c1", "B", "b"), _reply("done")]
"""Two calls of one frame share an id: no result names one of them alone."""

ORPHAN = [{"role": "user", "content": "go"}, _frame(_call("c1")), _reply("x")]

STRAY = [{"role": "user", "content": "go"}, _result("gone", "a"), _reply("x")]


def _write(tmp_path: Path, name: str, messages: list[dict[str, Any]]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(messages))
    return path


def _surfaces(path: Path) -> list[tuple[str, str, str, bool, int]]:
    """(surface, verdict, severity, healthy, exit) as check, check --json, check --json-lines, triage's row and
    the API (the inspector's analyze) say it."""
    said = []
    plain = run("check", path)
    said.append(("check", plain.stdout.decode().splitlines()[0].split(": ", 1)[1], "", plain.code == 0, plain.code))
    as_json = run("check", "--json", path)
    report = json.loads(as_json.stdout)
    said.append(("json", report["verdict"], report["severity"], report["healthy"], as_json.code))
    lines = run("check", "--json-lines", path)
    [row] = [json.loads(line) for line in lines.stdout.decode().splitlines() if line.strip()]
    said.append(("json-lines", row["verdict"], row["severity"], row["healthy"], lines.code))
    found = triage_file(str(path), [], "strict")
    assert found is not None
    [triaged] = found[0]
    said.append(("triage", triaged["verdict"], triaged["severity"], triaged["healthy"], 0 if triaged["healthy"] else 1))
    transcript = load(path.read_bytes(), path.name)
    api = check(transcript)
    said.append(("api", api.verdict, api.severity.value, api.healthy, api.exit_code))
    # (the Inspector plans the view for the provider the file implies, as check does: inspector.ui._settle_provider)
    shown = analyze(transcript, "strict", verdicts=True,
                    provider=target_provider(transcript.format, None, transcript.model)).report
    said.append(("inspector", shown.verdict, (shown.severity or Severity.NORMALIZED).value, shown.healthy,
                 0 if shown.healthy else 1))
    return said


def _agree(said: list[tuple[str, str, str, bool, int]]) -> tuple[str, str, bool, int]:
    verdicts = {verdict for _, verdict, _, _, _ in said}
    severities = {severity for _, _, severity, _, _ in said if severity}
    states = {(healthy, code) for _, _, _, healthy, code in said}
    assert len(verdicts) == 1 and len(severities) == 1 and len(states) == 1, said
    [(healthy, code)] = states
    return verdicts.pop(), severities.pop(), healthy, code


def refused_on_every_surface(source: Path, provider: str) -> None:
    """check, --json, --json-lines, triage, the API and the Inspector all say: rejected as recorded by provider
    (severity "rejected", exit 1): the one verdict of a file whose shape the provider refuses."""
    verdict, severity, healthy, code = _agree(_surfaces(source))
    assert (severity, healthy, code) == ("rejected", False, 1)
    assert verdict.endswith(f"rejected as recorded by {provider}")


@pytest.mark.parametrize(("name", "messages"), [("p05_reused.pi-ai.json", REUSED_LATER),
                                                ("p18_empty_assistant.pi-ai.json", EMPTY_ABORTED)])
def test_no_target_a_change_no_universal_invariant_demands_only_normalizes(
        tmp_path: Path, name: str, messages: list[dict[str, Any]]) -> None:
    verdict, severity, healthy, code = _agree(_surfaces(_write(tmp_path, name, messages)))
    assert (severity, healthy, code) == ("normalized", True, 0)
    assert verdict.startswith("healthy: ") and "the view only normalizes: " in verdict


def test_no_target_agrees_with_the_targets_that_accept_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "p05_reused.pi-ai.json", REUSED_LATER)
    for provider in ("openai-chat", "anthropic", "gemini", "bedrock", "openai-responses"):
        assert run("check", "--provider", provider, path).code == 0, provider
    refused = run("check", "--provider", "deepseek", path)  # DeepSeek refuses an id a later turn reuses
    assert refused.code == 1 and "rejected as recorded by deepseek" in refused.stdout.decode()


@pytest.mark.parametrize(("name", "messages"), [("shared.pi-ai.json", SHARED_IN_TURN),
                                                ("orphan.pi-ai.json", ORPHAN), ("stray.pi-ai.json", STRAY)])
def test_no_target_what_breaks_a_universal_invariant_still_fails(
        tmp_path: Path, name: str, messages: list[dict[str, Any]]) -> None:
    verdict, severity, healthy, code = _agree(_surfaces(_write(tmp_path, name, messages)))
    assert (severity, healthy, code) == ("rejected", False, 1)
    assert verdict.startswith("repaired: ")


def test_the_reasons_say_only_what_the_engine_holds(tmp_path: Path) -> None:
    renamed = render(Note.of(NoteCode.RENAMED, ids={"c1": "c1_2"}))
    assert "providers reject an id used twice" not in renamed and "DeepSeek" in renamed
    assert "providers reject" not in render(Note.of(NoteCode.FRAME_EMPTY))
    report = check(load(_write(tmp_path, "s.pi-ai.json", SHARED_IN_TURN).read_bytes(), "s.pi-ai.json"),
                   depth="view").report
    codes = {code for action in report.actions for code in action.codes}
    assert NoteCode.ID_SHARED_IN_TURN in codes


# ----------------------------------------------------------------------------- D5: one verdict, whoever is asked

def test_the_verdict_reads_the_same_whoever_else_is_asked_and_the_glossary_says_so(tmp_path: Path) -> None:
    body = {"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "b"}]}]}
    path = tmp_path / "a04_reused.anthropic.json"  # adv_one a04: Mistral and DeepSeek refuse it, Anthropic takes it
    path.write_text(json.dumps(body))
    alone, every = run("check", path), run("check", "--provider", "all", path)
    assert alone.code == every.code == 0
    assert every.stdout.decode().splitlines()[0] == alone.stdout.decode().splitlines()[0]
    assert "mistral as recorded: messages[1]" in every.stdout.decode()
    term = find_term("healthy for")
    verdict = find_term("verdict")
    assert term is not None and verdict is not None
    assert "plain \"healthy\"" in term.text and "healthy for a provider" not in verdict.text


# ----------------------------------------------------------------------------- D4: a torn last line

TORN_LINES = [json.dumps(m).encode() for m in (
    {"role": "user", "content": "go"}, _frame(_call("c1")), _result("c1", "ok"), _reply("done"))]


@pytest.mark.parametrize(("bom", "newline"), [(b"", b"\n"), (b"\xef\xbb\xbf", b"\r\n")])
def test_a_torn_last_line_is_a_change_repair_makes_and_the_rest_is_kept_byte_for_byte(
        tmp_path: Path, bom: bytes, newline: bytes) -> None:
    kept = bom + b"".join(line + newline for line in TORN_LINES)
    path = tmp_path / "p14_torn.pi-ai.jsonl"
    path.write_bytes(kept + b'{"role": "toolResult", "t')
    checked = run("check", "--json", path)
    report = json.loads(checked.stdout)
    assert checked.code == 1 and report["changed"] is True and report["severity"] == "malformed"
    assert report["verdict"] == "repaired: 1 torn last line(s) left out"
    assert "left in place" not in report["verdict"] and "finding(s) left" not in report["verdict"]
    out = tmp_path / "out.pi-ai.jsonl"
    assert run("repair", path, "-o", out).code == 0
    assert out.read_bytes() == kept
    assert run("check", out).code == 0


def test_a_torn_line_with_other_changes_names_both(tmp_path: Path) -> None:
    lines = [*TORN_LINES[:2], TORN_LINES[3]]  # the call's result is lost: the view answers it
    path = tmp_path / "torn_orphan.pi-ai.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines) + b'{"role": "us')
    verdict = json.loads(run("check", "--json", path).stdout)["verdict"]
    assert verdict == "repaired: 1 receipt(s) synthesized, 1 torn last line(s) left out"
