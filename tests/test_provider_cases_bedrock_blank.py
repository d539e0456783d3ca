"""Bedrock Converse refuses empty content and blank text: one verdict, with AWS's own texts, on every path.

Two texts, two rules (integrity/providers/bedrock.py, `content_rules`), in any user or assistant message:

- a message whose `content` is `[]`: ``The content field in the Message object at messages.N is empty. ...``
  (Portkey-AI/gateway#995, vercel/ai#15248);
- a `text` block that is empty or only whitespace, beside other blocks of an assistant message too: ``The text
  field in the ContentBlock object at messages.N.content.M is blank. ...`` (langchain-ai/langchain-aws#403: the
  AWS CLI's answer for an assistant `[{"text": "\\n\\n"}]`; vercel/ai#6254: `[{text: "\\n\\n"}, {toolUse}]` at
  messages.7.content.0).  In a user message a whitespace text beside other blocks is taken (pydantic-ai's
  recorded 200: tests/provider_cases/bedrock_whitespace_text_beside_document_accepted.json).

Unlike Anthropic's rules, a whitespace text beside a tool call is refused, and the last message is not spared.
The strict view planned for Bedrock sends a message without its blank texts, and leaves out one holding nothing
else; the repaired request is accepted and keeps every real text, call and result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run
from provider_case_files import body_file, case, every_path_verdict, pi_transcript, said
from provider_case_files import pi_turn as _turn

from integrity import load
from integrity.pipeline import check
from integrity.providers import validate_native
from integrity.report import view_from_report

RECORDED = [  # (case, rule, position)
    ("bedrock_blank_text_alone", "blank_text_block", "messages.1.content.0"),
    ("bedrock_blank_text_beside_tool_use", "blank_text_block", "messages.7.content.0"),
    ("bedrock_empty_assistant_content", "empty_message_content", "messages.1"),
]


def _text(text: str) -> dict[str, str]:
    return {"text": text}


@pytest.mark.parametrize(("name", "rule", "position"), RECORDED)
def test_the_rule_set_gives_the_recorded_text(name: str, rule: str, position: str) -> None:
    recorded = case(name)
    assert recorded["status"] == 400 and recorded["provider"] == "bedrock"
    found = validate_native(recorded["request"]["messages"], "bedrock", history=True, ids=True)
    assert said(found)[0] == (rule, position, recorded["error"])


@pytest.mark.parametrize(("name", "rule", "position"), RECORDED)
def test_check_says_the_recorded_refusal_and_repair_writes_an_accepted_request(name: str, rule: str, position: str,
                                                                               tmp_path: Path) -> None:
    recorded = case(name)
    source = body_file(tmp_path, recorded["request"])
    before = source.read_bytes()
    result = run("check", "--provider", "bedrock", source)
    lines = result.stdout.decode().splitlines()
    assert f"  bedrock as recorded: {recorded['error']}" in lines, lines  # (its text quotes its position: said once)
    assert "  bedrock after repair: accepted" in lines and result.code == 1
    out = tmp_path / "out.json"
    assert run("repair", "--provider", "bedrock", source, "-o", out, "--now", "0").code == 0
    assert source.read_bytes() == before  # the durable record is untouched
    written = json.loads(out.read_text(encoding="utf-8"))["messages"]
    assert validate_native(written, "bedrock", history=True, ids=True) == []
    assert run("check", "--provider", "bedrock", out).code == 0
    # nothing real lost: every text that is not blank, every call and every result is still sent
    assert _real(written) == _real(recorded["request"]["messages"])


def _real(messages: list[dict[str, Any]]) -> list[Any]:
    """Every non-blank text, toolUse id and toolResult id of a Converse request, in order."""
    found: list[Any] = []
    for message in messages:
        for block in message["content"]:
            if "text" in block and block["text"].strip():
                found.append(block["text"])
            elif "toolUse" in block:
                found.append(("use", block["toolUse"]["toolUseId"]))
            elif "toolResult" in block:
                found.append(("result", block["toolResult"]["toolUseId"]))
    return found


def test_the_whitespace_text_beside_a_call_is_left_out_and_the_call_kept(tmp_path: Path) -> None:
    messages = case("bedrock_blank_text_beside_tool_use")["request"]["messages"]
    verdict = check(load(json.dumps({"messages": messages}).encode(), "r.bedrock.json"), provider="bedrock",
                    depth="view")
    assert verdict.view is not None
    assert (verdict.report.summary.blank_text_left_out, verdict.report.summary.blank_dropped) == (1, 0)
    frame = [message for message in verdict.view if any(part.get("id") == "tooluse_d4"
                                                        for part in message.get("content") or [])]
    assert [part["type"] for part in frame[0]["content"]] == ["toolCall"]
    assert verdict.providers["bedrock"].after == []


def test_the_recorded_whitespace_text_beside_a_users_document_is_accepted_on_every_surface(tmp_path: Path) -> None:
    """pydantic-ai's recorded 200 (Claude Sonnet 4.5 behind Converse): a user message [text, document, text "\\n",
    cachePoint, text, cachePoint].  Every refusal seen is an assistant message's; in a user message a whitespace
    text beside other blocks was taken: the rules, `check` and `repair` all say so."""
    recorded = case("bedrock_whitespace_text_beside_document_accepted")
    assert recorded["status"] == 200 and {"text": "\n"} in recorded["request"]["messages"][0]["content"]
    assert validate_native(recorded["request"]["messages"], "bedrock", history=True, ids=True) == []
    source = body_file(tmp_path, recorded["request"])
    said_now = run("check", "--provider", "bedrock", source)
    assert said_now.code == 0 and "accepted as recorded by bedrock" in said_now.stdout.decode().splitlines()[0]
    out = tmp_path / "out.json"
    assert run("repair", "--provider", "bedrock", source, "-o", out).code == 0
    assert json.loads(out.read_bytes())["messages"] == recorded["request"]["messages"]


# --- what counts as blank, and where ---

USER = {"role": "user", "content": [_text("hi")]}
AGAIN = {"role": "user", "content": [_text("again")]}
BLANK = ("The text field in the ContentBlock object at messages.{index}.content.{block} is blank. "
         "Add text to the text field, and try again.")
EMPTY = ("The content field in the Message object at messages.{index} is empty. "
         "Add a ContentBlock object to the content field and try again.")
USE = {"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}
RESULT = {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [_text("ok")]}}]}


@pytest.mark.parametrize(("messages", "expected"), [
    ([USER, {"role": "assistant", "content": [_text("")]}, AGAIN],
     [("blank_text_block", "messages.1.content.0", BLANK.format(index=1, block=0))]),
    ([USER, {"role": "assistant", "content": [_text("ok"), _text(" \t")]}, AGAIN],
     [("blank_text_block", "messages.1.content.1", BLANK.format(index=1, block=1))]),
    ([USER, {"role": "assistant", "content": [_text(" "), USE]}, RESULT],
     [("blank_text_block", "messages.1.content.0", BLANK.format(index=1, block=0))]),
    ([USER, {"role": "assistant", "content": [_text("")]}],  # the last message is not spared
     [("blank_text_block", "messages.1.content.0", BLANK.format(index=1, block=0))]),
    ([{"role": "user", "content": []}], [("empty_message_content", "messages.0", EMPTY.format(index=0))]),
    ([USER, {"role": "assistant", "content": [_text(" ok ")]}, AGAIN], []),
    ([USER, {"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": ""}}},
                                              _text("ok")]}, AGAIN], []),
], ids=["empty-text", "whitespace-beside-text", "whitespace-beside-call", "last-message", "empty-content",
        "padded-text", "reasoning"])
def test_blank_text_anywhere_is_refused(messages: list[Any], expected: list[tuple[str, str, str]]) -> None:
    assert said(validate_native(messages, "bedrock", history=True, ids=True)) == expected


# --- a pi-ai transcript judged toward Bedrock: every path, and the report ---


def _pi_text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
ODD = [  # (the odd turns, the rules broken as recorded; after repair: none)
    pytest.param({100: _turn(100, [_pi_text("")])}, ["blank_text_block"], id="empty-text-beside-call"),
    pytest.param({100: _turn(100, [_pi_text("\n\n")])}, ["blank_text_block"], id="whitespace-text-beside-call"),
    pytest.param({100: [{"role": "user", "content": [_pi_text(" "), IMAGE]}, *_turn(100)[1:]]},
                 [], id="user-whitespace-beside-image"),  # (a user's: taken, recorded 200)
    pytest.param({100: [{"role": "user", "content": [_pi_text(""), IMAGE]}, *_turn(100)[1:]]},
                 ["blank_text_block"], id="user-empty-text-beside-image"),
    pytest.param({100: [{"role": "user", "content": [_pi_text(" "), _pi_text("\t")]}, *_turn(100)[1:]]},
                 ["blank_text_block", "blank_text_block"], id="user-blank-texts-alone"),
    pytest.param({100: [{"role": "user", "content": ""}, *_turn(100)[1:]]}, ["blank_text_block"],
                 id="empty-user-string"),
    pytest.param({100: [*_turn(100)[:3], {"role": "assistant", "content": [_pi_text(" ")], "stopReason": "stop"}]},
                 ["blank_text_block"], id="whitespace-answer"),
    pytest.param({199: [*_turn(199)[:3], {"role": "assistant", "content": [_pi_text("")], "stopReason": "stop"}]},
                 ["blank_text_block"], id="empty-last-answer"),
    pytest.param({100: [{"role": "user", "content": [IMAGE]}, *_turn(100)[1:]]}, [], id="image-alone"),
    pytest.param({100: [{"role": "user", "content": "hi"},
                        {"role": "assistant", "content": [], "stopReason": "aborted"}, *_turn(100)]},
                 ["empty_message_content"],
                 id="aborted-empty-frame"),  # (found by Hypothesis: the light view's judgment did not see it)
    pytest.param({100: [{"role": "user", "content": "look"}, {"role": "user", "content": [_pi_text("\t"), IMAGE]},
                        *_turn(100)[1:]]}, ["roles_not_alternating"], id="merged-user-turns"),
    pytest.param({100: [*_turn(100)[:3], {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hm", "thinkingSignature": "s"}], "stopReason": "stop"}]}, [],
                 id="thinking-alone"),
]


@pytest.mark.parametrize(("odd", "rules"), ODD)
def test_every_path_gives_one_verdict_and_the_view_is_accepted(odd: dict[int, list[dict[str, Any]]],
                                                               rules: list[str]) -> None:
    data = pi_transcript(odd)
    found = every_path_verdict(data, "bedrock")
    assert found["sparse"] == found["bones"] == found["general"]
    before, after = found["general"]
    assert [rule for rule, _, _ in before] == rules and after == []
    transcript = load(data, "t.pi-ai.json")
    verdict = check(transcript, provider="bedrock", depth="view")
    assert verdict.view is not None
    assert view_from_report(verdict.report, transcript.messages) == verdict.view
    sent = json.dumps(verdict.view)  # every real text, call, result and image is still sent
    recorded = data.decode()
    assert all(sent.count(kept) == recorded.count(kept) for kept in ('"ok"', '"done"', '"AAAA"', '"hm"'))
    assert all(f'"call_{number}"' in sent for number in range(200))


MERGED = {  # a run of one role the view for Bedrock sends as one message, a member holding a blank text
    "first-member": [{"role": "user", "content": [_pi_text(""), IMAGE]}, {"role": "user", "content": "hi"},
                     {"role": "assistant", "content": [_pi_text("yo")], "stopReason": "stop"}],
    "last-member": [{"role": "user", "content": "hi"}, {"role": "user", "content": [_pi_text(""), IMAGE]},
                    {"role": "assistant", "content": [_pi_text("yo")], "stopReason": "stop"}],
    "assistants": [{"role": "user", "content": "hi"},
                   {"role": "assistant", "content": [_pi_text(""), _pi_text("a")], "stopReason": "stop"},
                   {"role": "assistant", "content": [_pi_text("\n"), {"type": "toolCall", "id": "c1", "name": "f",
                                                                      "arguments": {}}], "stopReason": "toolUse"},
                   {"role": "toolResult", "toolCallId": "c1", "toolName": "f", "content": [_pi_text("ok")],
                    "isError": False}],
}


@pytest.mark.parametrize("name", MERGED)
def test_a_merged_member_without_its_blank_text_is_in_the_report_and_the_report_rebuilds_the_view(name: str) -> None:
    """Found while building the rule: a member of a merged run sent without its blank text was reported as merged
    alone, so view_from_report sent the blank text again."""
    transcript = load(json.dumps(MERGED[name]).encode(), "t.pi-ai.json")
    verdict = check(transcript, provider="bedrock", depth="view")
    assert verdict.view is not None and verdict.providers["bedrock"].after == []
    cut = {action.durable_index for action in verdict.report.actions
           if "blank_text_left_out" in [code.value for code in action.codes]}
    assert len(cut) == verdict.report.summary.blank_text_left_out > 0
    assert view_from_report(verdict.report, transcript.messages) == verdict.view
    assert '"AAAA"' in json.dumps(verdict.view) or name == "assistants"
