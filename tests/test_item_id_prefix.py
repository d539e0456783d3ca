"""A Responses input item whose `id` another server or writer minted is refused in the API's words, and the repaired
view sends the item without it.

Codex replays every item of a session with the id it was given; a gateway that minted `item_…` ids, Codex's own
UUIDs on its hook messages, a custom tool call carrying a function call's `fc_…` after a compaction, a model switch
replaying `toolu_…` or `call_…` ids: the API answers "Invalid 'input[N].id': '…'. Expected an ID that begins with
'fc'." (code invalid_value) on every later turn, and the session is dead.  The verdict said "accepted".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import check, load_all
from integrity.cli import main
from integrity.formats.openai_responses import ITEM_ID_PREFIXES
from integrity.guards._core import RequestGuard
from integrity.guards._fast import scan
from integrity.providers import validate_native

USER = {"role": "user", "content": "q"}
ITEMS: dict[str, dict[str, Any]] = {
    "reasoning": {"type": "reasoning", "summary": []},
    "message": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
    "function_call": {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
    "function_call_output": {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    "web_search_call": {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "x"}},
    "custom_tool_call": {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": "x"},
    "custom_tool_call_output": {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
}


def request_with(kind: str, item_id: str) -> list[dict[str, Any]]:
    """A legal request around one item of `kind` carrying `item_id` (a call with its output, an output with its
    call)."""
    item = {**ITEMS[kind], "id": item_id}
    if kind.endswith("_output"):
        return [USER, ITEMS[kind.removesuffix("_output")], item, USER]
    if kind.endswith("tool_call") or kind == "function_call":
        return [USER, item, ITEMS[f"{kind}_output"], USER]
    return [USER, item, {**ITEMS["message"], "id": "msg_9"}, USER] if kind == "reasoning" else [USER, item, USER]


def said(request: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(v.rule, v.position, v.error) for v in validate_native(request, "openai-responses")]


@pytest.mark.parametrize("kind", sorted(ITEM_ID_PREFIXES))
def test_each_type_takes_its_own_prefix_and_refuses_another(kind: str) -> None:
    prefix = ITEM_ID_PREFIXES[kind]
    assert said(request_with(kind, f"{prefix}_0a7994")) == []
    assert said(request_with(kind, "item_9c5b9896")) == [
        ("item_id_prefix", "input[1].id" if not kind.endswith("_output") else "input[2].id",
         f"Invalid 'input[{2 if kind.endswith('_output') else 1}].id': 'item_9c5b9896'. Expected an ID that begins "
         f"with '{prefix}'.")]


def test_what_is_not_judged() -> None:
    """The Agents SDK's placeholder (its Responses model deletes it before sending), an item without a string id,
    and types whose prefix is not on record."""
    assert said(request_with("function_call", "__fake_id__")) == []
    assert said(request_with("function_call", "")) == []
    assert said([USER, {"type": "item_reference", "id": "anything"}, USER]) == []
    easy = {"role": "user", "content": "hook", "id": "019f629b-43ee-7a82-acb1-3071dbffbdad"}  # a message, typed or not
    assert [rule for rule, _, _ in said([USER, {**ITEMS["message"], "id": "msg_1"}, easy])] == ["item_id_prefix"]


def test_a_codex_session_of_foreign_ids_is_refused_and_sent_without_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "apply the patch"}]},
             {"type": "custom_tool_call", "id": "fc_08d2f9b0", "call_id": "call_1", "name": "apply_patch",
              "input": "*** Begin Patch\n*** End Patch"},
             {"type": "custom_tool_call_output", "call_id": "call_1", "output": "Done"},
             {"type": "reasoning", "id": "item_9c5b9896", "summary": [], "encrypted_content": "gAAAAforeign"},
             {"type": "message", "role": "assistant", "id": "msg_01", "content": [
                 {"type": "output_text", "text": "Patched."}]},
             {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go on"}]}]
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"model": "gpt-5.1-codex", "input": items}))
    before = path.read_bytes()
    [transcript] = load_all(before, path.name, format="openai-responses")
    verdict = check(transcript).providers["openai-responses"]
    assert [v.error for v in verdict.before] == [
        "Invalid 'input[1].id': 'fc_08d2f9b0'. Expected an ID that begins with 'ctc'.",
        "Invalid 'input[3].id': 'item_9c5b9896'. Expected an ID that begins with 'rs'."]
    assert verdict.accepted_after_repair
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines()[0].endswith("rejected as recorded by openai-responses")
    fixed = tmp_path / "fixed.json"
    assert main(["repair", str(path), "-o", str(fixed)]) == 0
    assert "input[1].id left out; input[3].id left out; input[3].encrypted_content left out" in capsys.readouterr().err
    assert path.read_bytes() == before
    sent = json.loads(fixed.read_text())["input"]
    assert "id" not in sent[1] and sent[1]["call_id"] == "call_1" and sent[1]["input"] == items[1]["input"]
    assert sent[3] == {"type": "reasoning", "summary": []}  # the foreign blob goes with its id
    assert sent[4]["id"] == "msg_01"  # an id of the item's own namespace is kept
    assert main(["check", str(fixed)]) == 0


def test_the_guards_never_send_a_foreign_item_id() -> None:
    """The quick pass took such a request as healthy, so a guard before a Responses call sent it as it was; the full
    check's view sends the item without its id, the caller's request left as it is."""
    request = request_with("function_call", "toolu_01A09q90qw90lq917835lq9")
    assert scan(request, "openai-responses", "openai-responses")[0] is False
    sent = RequestGuard("test").guard(request, "openai-responses", "openai-responses")
    assert sent is not None and "id" not in sent[1] and sent[1]["call_id"] == "c1"
    assert validate_native(sent, "openai-responses") == []
    assert request[1]["id"] == "toolu_01A09q90qw90lq917835lq9"
    healthy = request_with("function_call", "fc_0a7994")
    assert scan(healthy, "openai-responses", "openai-responses")[0] is True


def test_a_refusal_of_a_turns_second_item_names_the_turns_row() -> None:
    """The reasoning item and the custom tool call are one assistant message: a refusal of the call (the turn's
    second item) named no message, so "Problem ▶" skipped it and the Inspector could not go to its row."""
    from inspector.stops import REFUSAL, problem_stops
    from integrity import analyze

    sample = Path(__file__).resolve().parent.parent / "sample_transcripts" / "foreign_item_ids.openai-responses.json"
    [transcript] = load_all(sample.read_bytes(), sample.name)
    analysis = analyze(transcript, verdicts=True)
    refused = analysis.verdicts["openai-responses"].before
    assert [(v.position, v.canonical_indices) for v in refused] == [("input[1].id", [1]), ("input[2].id", [1])]
    rows = {index: index for index in range(len(transcript.messages))}
    stops = [stop for stop in problem_stops(analysis, [], rows, rows) if stop.what == REFUSAL and stop.target]
    assert [stop.row for stop in stops] == [1, 1]
