"""The view planned for OpenAI Responses sends a reasoning item once (kind reasoning_once).

A client that stores a turn twice (a retried write, a resumed run replaying its items) sends the turn's `reasoning`
item twice, and OpenAI refuses every later request: "Duplicate item found with id rs_…" (vercel/ai#7883,
continuedev/continue#10723, NousResearch/hermes-agent#7939).  The repair renamed the repeated call but sent the
reasoning item again, so `check` of the repaired file still said refused (exit 1).  Now the later copy is left out
of the view (the first is sent), the report says so, and the durable file keeps both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import check, load_all
from integrity.cli import main
from integrity.kinds import RepairKind
from integrity.repair.views import repeated_reasoning
from integrity.report import view_from_report

REAL = Path(__file__).parent / "real" / "responses_turn_stored_twice.openai-responses.json"
RS = "rs_07d3a9c2e51f4b8a0169338a41c2f88193b4e7d1c6a05f2e9b"


def _reasoning(item_id: str, text: str = "Read it first.") -> dict[str, Any]:
    return {"type": "reasoning", "id": item_id, "summary": [{"type": "summary_text", "text": text}],
            "encrypted_content": "gAAAA" + item_id}


def _call(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "read", "arguments": "{\"path\":\"a\"}"}


def _output(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "alpha"}


def _ids(body: dict[str, Any], kind: str) -> list[str]:
    return [item["id"] for item in body["input"] if item.get("type") == kind and "id" in item]


def test_a_turn_stored_twice_is_repaired_into_a_request_openai_takes(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    recorded = REAL.read_bytes()
    assert main(["check", str(REAL), "--provider", "openai-responses"]) == 1
    out = capsys.readouterr().out
    assert f"Duplicate item found with id {RS}. Remove duplicate items from your input and try again." in out
    repaired, report = tmp_path / "out.json", tmp_path / "report.json"
    assert main(["repair", str(REAL), "-o", str(repaired), "--report", str(report)]) == 0
    assert main(["check", str(repaired)]) == 0  # (before: "still flags it ... Duplicate item found with id rs_…")
    capsys.readouterr()
    body = json.loads(repaired.read_text(encoding="utf-8"))
    assert _ids(body, "reasoning") == [RS]  # the first copy sent, the later one left out
    assert REAL.read_bytes() == recorded  # the durable file keeps both
    actions = {action["durable_index"]: action for action in json.loads(report.read_text())["actions"]}
    again = actions[4]  # the repeated turn's answer: renamed, and sent without its reasoning item
    assert "reasoning_sent_once" in again["codes"] and again["new_ids"]
    assert f"sent without its reasoning item(s) {RS}, which an earlier message of the request sends" in again["reason"]
    [transcript] = load_all(recorded, str(REAL))
    verdict = check(transcript, depth="view")
    assert verdict.report.summary.reasoning_once == 1
    assert [a.shown_kind for a in verdict.report.actions if a.durable_index == 4] == [RepairKind.REASONING_ONCE]
    assert view_from_report(verdict.report, transcript.messages) == verdict.view  # the report alone rebuilds it


def _request(items: list[dict[str, Any]]) -> bytes:
    return json.dumps({"model": "gpt-5", "input": [{"role": "user", "content": "go"}, *items]}).encode()


def test_a_reasoning_item_repeated_in_one_turn_is_sent_once_and_the_first_kept() -> None:
    """A client that splits one reasoning item into a part per summary, each with the item's id (the AI SDK's
    shape), sends it twice in one turn."""
    items = [_reasoning("rs_a", "one"), _reasoning("rs_a", "two"), _reasoning("rs_b"), _call("call_1"),
             _output("call_1")]
    [transcript] = load_all(_request(items), "r.json")
    verdict = check(transcript, depth="view")
    assert [v.rule for v in verdict.providers["openai-responses"].before] == ["duplicate_item_id"]
    assert verdict.providers["openai-responses"].after == [] and verdict.exit_code == 1
    assert verdict.view is not None
    kept = [part["thinking"] for part in verdict.view[1]["content"] if part.get("type") == "thinking"]
    assert kept == ["one", "Read it first."]


def test_only_a_provider_that_refuses_an_item_twice_gets_the_change() -> None:
    items = [_reasoning("rs_a"), _call("call_1"), _output("call_1"), _reasoning("rs_a"), _call("call_2"),
             _output("call_2")]
    [transcript] = load_all(_request(items), "r.json")
    assert check(transcript).report.summary.reasoning_once == 1
    for provider in ("anthropic", "openai-chat", "deepseek-responses"):
        assert check(transcript, provider=provider).report.summary.reasoning_once == 0, provider
    healthy = [_reasoning("rs_a"), _call("call_1"), _output("call_1"), _reasoning("rs_b"), _call("call_2"),
               _output("call_2")]
    [transcript] = load_all(_request(healthy), "r.json")
    verdict = check(transcript, depth="view")
    assert verdict.exit_code == 0 and verdict.report.summary.reasoning_once == 0
    assert verdict.view == transcript.messages


def test_the_first_copy_the_view_sends_is_the_one_kept() -> None:
    items = {1: ((0, "rs_a"),), 3: ((0, "rs_a"), (2, "rs_b")), 5: ((1, "rs_b"), (3, "rs_a"))}
    assert repeated_reasoning([1, 3, 5], items.__getitem__) == {3: (0,), 5: (1, 3)}
    # the first holder left out of the view (an interrupted frame dropped): the next one is sent
    assert repeated_reasoning([3, 5], items.__getitem__) == {5: (1, 3)}


def test_a_pi_codex_turn_stored_twice_is_repaired_into_a_request_openai_takes(tmp_path: Path) -> None:
    """pi keeps an OpenAI answer's reasoning item as JSON in its thinking block's `thinkingSignature` and sends it as
    that item: a turn stored twice sent the item twice.  The repair renamed the call and sent the reasoning again,
    so `check` of the written session still said "Duplicate item found with id rs_…" (exit 1)."""
    from test_pi_responses import CODEX, FIRST, THINKING, call, result, text
    from test_pi_session_model import answer, session, user

    entries = session({"provider": "openai-codex", "modelId": "gpt-5.6-luna"}, user("Read notes.txt."),
                      answer([THINKING, call(FIRST)], CODEX, "toolUse"),
                      answer([THINKING, call(FIRST)], CODEX, "toolUse"), result(FIRST),
                      answer([text("done", "msg_01")], CODEX))
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    before = path.read_bytes()
    [transcript] = load_all(before, path.name)
    refused = [v.error for v in check(transcript).providers["openai-responses"].before]
    assert any("Duplicate item found with id rs_0188afd38a9406af016aa8ae7f9c" in error for error in refused), refused
    fixed = tmp_path / "fixed.jsonl"
    assert main(["repair", str(path), "-o", str(fixed)]) == 0
    assert path.read_bytes() == before
    assert main(["check", str(fixed)]) == 0
    written = [json.loads(line) for line in fixed.read_text().splitlines()]
    thinking = [block for entry in written if entry.get("type") == "message"
                for block in entry["message"].get("content") or [] if isinstance(block, dict)
                and block.get("type") == "thinking"]
    assert len(thinking) == 1  # the first copy sent, the later one left out of the view
