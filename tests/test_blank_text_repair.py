"""The strict view planned for Anthropic leaves blank text out: the recorded refusals, repaired, are accepted.

Anthropic refuses an empty message and a text block that is empty or only whitespace, but for the request's
final assistant message (tests/test_provider_cases_empty.py holds the rules and the recorded texts).  A blank
text carries nothing, so the view planned for a provider with these rules (ProviderSpec.blank_text)
sends each message without its blank texts, and leaves out a user or assistant message holding nothing else
("blank text left out").  experientiallabs/experiential#683 verified the repair live: the recorded request
without its empty text block got HTTP 200.  Bedrock has such rules too (tests/test_provider_cases_bedrock_blank.py);
Gemini refuses only a content without parts, whatever its texts (tests/test_gemini_parts_empty.py), so its view
sends every text as it is; no other provider has such rules, so no other view changes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run
from provider_case_files import body_file, case

from integrity import load
from integrity.pipeline import check
from integrity.providers import validate_native
from integrity.report import view_from_report

TOOL_TURN = "anthropic_empty_text_beside_tool_use"  # [text "", tool_use] on resume (claude-code#62396)
WHITESPACE = "anthropic_empty_whitespace_text"  # an assistant [text " "] between two user turns (opencode#31260)
EMPTY_USER = "anthropic_empty_user_string"  # a user "" alone (autogen#6083)


def _repaired(tmp_path: Path, name: str, provider: str = "anthropic") -> tuple[int, list[Any]]:
    source = body_file(tmp_path, case(name)["request"])
    out = tmp_path / "out.json"
    code = run("repair", "--provider", provider, source, "-o", out, "--now", "0").code
    return code, json.loads(out.read_text(encoding="utf-8"))["messages"]


def test_the_recorded_tool_turn_is_sent_without_its_empty_text_block_and_accepted(tmp_path: Path) -> None:
    messages = case(TOOL_TURN)["request"]["messages"]
    code, written = _repaired(tmp_path, TOOL_TURN)
    assert code == 0
    # what experiential#683 sent and got HTTP 200 for: the same request without the empty block
    assert written == [messages[0], {**messages[1], "content": messages[1]["content"][1:]}, *messages[2:]]
    assert validate_native(written, "anthropic", history=True, ids=True) == []


def test_a_whitespace_answer_between_two_user_turns_is_left_out_and_accepted(tmp_path: Path) -> None:
    messages = case(WHITESPACE)["request"]["messages"]
    code, written = _repaired(tmp_path, WHITESPACE)
    assert code == 0
    assert written == [messages[0], messages[2]]  # the API reads the two user turns as one, as it would have
    assert validate_native(written, "anthropic", history=True, ids=True) == []


@pytest.mark.parametrize(("name", "field", "words"), [
    (TOOL_TURN, "blank_text_left_out", "1 message(s) sent without blank text"),
    (WHITESPACE, "blank_dropped", "1 blank message(s) dropped"),
    (EMPTY_USER, "blank_dropped", "1 blank message(s) dropped")])
def test_check_names_the_change_and_the_repaired_view_is_accepted(name: str, field: str, words: str,
                                                                  tmp_path: Path) -> None:
    source = body_file(tmp_path, case(name)["request"])
    result = run("check", "--provider", "anthropic", source)
    lines = result.stdout.decode().splitlines()
    assert result.code == 1  # refused as recorded
    assert f"  anthropic as recorded: {case(name)['error']}" in lines
    assert "  anthropic after repair: accepted" in lines
    assert words in lines[0]
    report = json.loads(run("check", "--provider", "anthropic", "--json", source).stdout)
    assert report["summary"][field] == 1
    assert report["severity"] == "rejected"


def test_each_action_says_what_was_left_out_and_why(tmp_path: Path) -> None:
    tool_turn = json.loads(run("check", "--provider", "anthropic", "--json",
                               body_file(tmp_path, case(TOOL_TURN)["request"])).stdout)
    frame = tool_turn["actions"][1]
    assert (frame["kind"], frame["codes"], frame["view_index"]) == ("kept", ["blank_text_left_out"], 1)
    assert "Anthropic Messages refuses an empty text block" in frame["reason"], frame["reason"]
    answer = json.loads(run("check", "--provider", "anthropic", "--json",
                            body_file(tmp_path, case(WHITESPACE)["request"], "b.json")).stdout)["actions"][1]
    assert (answer["kind"], answer["codes"], answer["view_index"]) == \
        ("dropped_blank", ["blank_message_left_out"], None)


def _pi(messages: list[Any]) -> Any:
    return load(json.dumps(messages).encode(), "t.pi-ai.json")


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


CALL = {"type": "toolCall", "id": "call_a", "name": "f", "arguments": {}}
DONE = {"role": "assistant", "content": [_text("done")], "stopReason": "stop"}
RESULT = {"role": "toolResult", "toolCallId": "call_a", "toolName": "f", "content": [_text("ok")], "isError": False}


def test_the_final_assistant_message_is_spared_and_the_file_stays_healthy() -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [_text(" ")], "stopReason": "stop"}]
    verdict = check(_pi(messages), provider="anthropic", depth="view")
    assert verdict.healthy and not verdict.report.changed
    assert verdict.report.summary.blank_text_left_out == 0


def test_a_frame_ending_the_file_is_not_spared_its_receipt_follows_it() -> None:
    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": [_text(""), CALL], "stopReason": "toolUse"}]
    verdict = check(_pi(messages), provider="anthropic", depth="view")
    assert verdict.view is not None
    assert verdict.view[1]["content"] == [CALL]
    assert verdict.view[2]["toolCallId"] == "call_a"  # the receipt
    assert verdict.providers["anthropic"].after == []


@pytest.mark.parametrize("provider", [None, "openai-chat", "gemini", "openai-responses"])
def test_no_other_judge_changes_a_blank_text(provider: str | None) -> None:
    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": [_text(""), CALL], "stopReason": "toolUse"}, RESULT,
                {"role": "user", "content": "  "}, DONE]
    verdict = check(_pi(messages), provider=provider, depth="view")
    assert verdict.report.summary.blank_text_left_out == verdict.report.summary.blank_dropped == 0
    assert verdict.view is not None and verdict.view[1]["content"] == [_text(""), CALL]
    assert messages[3] in verdict.view


def test_a_clean_turn_and_a_late_part_and_a_blank_user_turn_together() -> None:
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": [_text(""), CALL, _text("after"), _text("\n\n")],
                 "stopReason": "toolUse"},
                RESULT, {"role": "user", "content": [_text(""), _text(" "), image]},
                {"role": "user", "content": ""}, DONE]
    transcript = _pi(messages)
    verdict = check(transcript, provider="anthropic", depth="view")
    assert verdict.view is not None
    # a message with an empty text is sent without its blank texts, the whitespace ones too (they carry nothing)
    assert [message.get("content") for message in verdict.view] == [
        "hi", [_text("after"), CALL], RESULT["content"], [image], [_text("done")]]
    assert verdict.providers["anthropic"].after == []
    assert (verdict.report.summary.blank_text_left_out, verdict.report.summary.blank_dropped) == (2, 1)
    assert messages[1]["content"][0] == _text("")  # the durable record is untouched
    # the report alone rebuilds the view
    assert view_from_report(verdict.report, transcript.messages) == verdict.view


def test_every_provider_asked_gets_the_same_view_for_anthropic() -> None:
    # the provider table (every provider asked) plans Anthropic's view as `--provider anthropic` does
    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": [_text(""), CALL], "stopReason": "toolUse"}, RESULT,
                {"role": "user", "content": "next"}]
    alone = check(_pi(messages), provider="anthropic")
    table = check(_pi(messages), also="all")
    assert alone.providers["anthropic"].after == table.providers["anthropic"].after == []
    assert table.providers["anthropic"].before == alone.providers["anthropic"].before != []


def test_every_provider_with_empty_content_rules_has_its_format_read_for_blank_text() -> None:
    """A skeleton writes no text: a provider whose rules read blank text is judged on its full request when one is
    there, which holds only for the formats skeleton.BLANK_FORMATS names."""
    from integrity.formats.skeleton import BLANK_FORMATS
    from integrity.providers import SPECS

    reading = {spec.native_format for spec in SPECS.values() if spec.blank_text is not None and spec.blank_text.texts}
    assert reading == BLANK_FORMATS == {"anthropic", "bedrock"}
    # Gemini's rule reads no text (a content without parts): its skeleton writes the same parts, text or none
    assert {name for name, spec in SPECS.items() if spec.blank_text is not None and not spec.blank_text.texts} \
        == {"gemini", "gemini-2"}
