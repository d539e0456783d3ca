"""Anthropic refuses empty content: one verdict, with the API's own texts, on every path.

Three texts, three rules (integrity/providers/anthropic.py, `content_rules`):

- a user or assistant message whose content is `[]` or `""`: ``messages.N: all messages must have non-empty content
  except for the optional final assistant message`` (lightclient/coop docs/bugs/001-empty-assistant-message.md:
  an assistant `[]` at messages.3; microsoft/autogen#6083: a user `""` at messages.0; many reports quote it,
  anthropics/claude-code#3196, #6774);
- a text block whose text is `""`: ``messages: text content blocks must be non-empty``, no index
  (anthropics/claude-code#62396: `[text "", tool_use]` on resume; experientiallabs/experiential#683 verified it
  live, and the same request without the block accepted);
- a text block, or a string content, of whitespace only: ``messages: text content blocks must contain
  non-whitespace text`` (anomalyco/opencode#31260 quotes the block `{"type": "text", "text": " "}`;
  anthropics/claude-code#23440, #23352).

The request's last message, when it is an assistant's, is spared (the text's own exception).  The cases in
tests/provider_cases/anthropic_empty_*.json are the request bodies those sources give (what they elide filled
in, as each case's note says).  A pi-ai transcript judged toward Anthropic is written by our writer, which
sends what it reads: its verdict is asserted equal on the fast paths (the light view's sparse judgment, every
message's bones) and the general reader's full request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run
from provider_case_files import body_file as _file
from provider_case_files import case as _case
from provider_case_files import every_path_verdict, pi_transcript
from provider_case_files import pi_turn as _turn
from provider_case_files import said as _said

from integrity.providers import validate_native

EMPTY = "messages.{index}: all messages must have non-empty content except for the optional final assistant message"
EMPTY_TEXT = "messages: text content blocks must be non-empty"
BLANK_TEXT = "messages: text content blocks must contain non-whitespace text"

RECORDED = [  # (case, rule, position)
    ("anthropic_empty_user_string", "empty_message_content", "messages.0"),
    ("anthropic_empty_assistant_content", "empty_message_content", "messages.3"),
    ("anthropic_empty_text_beside_tool_use", "empty_text_block", "messages"),
    ("anthropic_empty_whitespace_text", "whitespace_text_block", "messages"),
]





# --- the recorded refusals ---


@pytest.mark.parametrize(("name", "rule", "position"), RECORDED)
def test_the_rule_set_gives_the_recorded_text(name: str, rule: str, position: str) -> None:
    case = _case(name)
    assert case["status"] == 400
    found = validate_native(case["request"]["messages"], "anthropic", history=True, ids=True)
    assert _said(found) == [(rule, position, case["error"])]


@pytest.mark.parametrize(("name", "rule", "position"), RECORDED)
def test_check_says_the_recorded_refusal(name: str, rule: str, position: str, tmp_path: Path) -> None:
    case = _case(name)
    result = run("check", "--provider", "anthropic", _file(tmp_path, case["request"]))
    lines = result.stdout.decode().splitlines()
    assert f"  anthropic as recorded: {case['error']}" in lines, lines
    assert result.code == 1


def test_the_recorded_whitespace_text_beside_tool_use_is_accepted_on_every_surface(tmp_path: Path) -> None:
    """simonw/llm-anthropic's recorded 200: an assistant turn [text " ", tool_use, tool_use] (the client writes a
    display-only space before its calls).  A whitespace text is refused only in a message holding nothing else
    (opencode#31260); beside a call, Anthropic took it: the rules, `check` and `repair` all say so."""
    case = _case("anthropic_whitespace_text_beside_tool_use_accepted")
    assert case["status"] == 200
    assert validate_native(case["request"]["messages"], "anthropic", history=True, ids=True) == []
    source = _file(tmp_path, case["request"])
    said = run("check", "--provider", "anthropic", source)
    assert said.code == 0 and "accepted as recorded by anthropic" in said.stdout.decode().splitlines()[0]
    out = tmp_path / "out.json"
    assert run("repair", "--provider", "anthropic", source, "-o", out).code == 0
    assert out.read_bytes() == source.read_bytes()  # nothing to change: the file as it was


def test_the_request_without_the_empty_text_block_is_accepted() -> None:
    # experientiallabs/experiential#683: the same tool turn without its empty text block got HTTP 200
    messages = _case("anthropic_empty_text_beside_tool_use")["request"]["messages"]
    fixed = [messages[0], {**messages[1], "content": messages[1]["content"][1:]}, *messages[2:]]
    assert validate_native(fixed, "anthropic", history=True, ids=True) == []


# --- what counts as empty, and the final assistant message ---

USER = {"role": "user", "content": "hi"}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


@pytest.mark.parametrize(("message", "expected"), [
    ({"role": "assistant", "content": []}, [("empty_message_content", "messages.1", EMPTY.format(index=1))]),
    ({"role": "assistant", "content": ""}, [("empty_message_content", "messages.1", EMPTY.format(index=1))]),
    ({"role": "user", "content": []}, [("empty_message_content", "messages.1", EMPTY.format(index=1))]),
    ({"role": "assistant", "content": [_text("")]}, [("empty_text_block", "messages", EMPTY_TEXT)]),
    ({"role": "assistant", "content": [_text(" \n\t")]}, [("whitespace_text_block", "messages", BLANK_TEXT)]),
    ({"role": "user", "content": "  "}, [("whitespace_text_block", "messages", BLANK_TEXT)]),
    ({"role": "assistant", "content": [_text("ok"), _text(""), _text(" ")]},  # whitespace beside text: read as taken
     [("empty_text_block", "messages", EMPTY_TEXT)]),
    # not text blocks: other rules, or none known
    ({"role": "assistant", "content": [{"type": "thinking", "thinking": "", "signature": "s"}]}, []),
    ({"role": "assistant", "content": [_text(" ok ")]}, []),
    ({"role": "system", "content": []}, []),  # the directive-only system message, accepted anywhere
], ids=["assistant-list", "assistant-string", "user-list", "text-empty", "text-whitespace", "user-whitespace-string",
        "two-blank-blocks", "thinking", "padded-text", "system-directive"])
def test_an_empty_message_or_text_before_the_end_is_refused(message: dict[str, Any],
                                                            expected: list[tuple[str, str, str]]) -> None:
    found = validate_native([USER, message, {"role": "user", "content": "again"}], "anthropic")
    assert sorted(_said(found)) == sorted(expected)


@pytest.mark.parametrize("content", [[], "", [_text("")], [_text(" ")], " "])
def test_the_final_assistant_message_is_spared(content: Any) -> None:
    assert validate_native([USER, {"role": "assistant", "content": content}], "anthropic") == []


def test_a_final_user_message_is_not_spared() -> None:
    found = validate_native([USER, {"role": "assistant", "content": "ok"}, {"role": "user", "content": ""}],
                            "anthropic")
    assert _said(found) == [("empty_message_content", "messages.2", EMPTY.format(index=2))]


def test_positions_are_the_requests_own_indices() -> None:
    # two user messages combine into one turn for the tool rules; the empty-content rule names the message as sent
    found = validate_native([USER, {"role": "user", "content": "more"}, {"role": "assistant", "content": []},
                             {"role": "user", "content": "again"}], "anthropic")
    assert _said(found) == [("empty_message_content", "messages.2", EMPTY.format(index=2))]


# --- repair: an empty frame is left out (blank texts: tests/test_blank_text_repair.py) ---


def test_repair_leaves_the_recorded_empty_assistant_out_and_the_result_is_accepted(tmp_path: Path) -> None:
    case = _case("anthropic_empty_assistant_content")
    out = tmp_path / "out.json"
    assert run("repair", "--provider", "anthropic", _file(tmp_path, case["request"]), "-o", out, "--now", "0").code == 0
    written = json.loads(out.read_text(encoding="utf-8"))["messages"]
    assert [message["content"] for message in written if message["role"] == "assistant"] == \
        [case["request"]["messages"][1]["content"]]
    assert validate_native(written, "anthropic", history=True, ids=True) == []


# --- every path says what the full request's rules say (a pi-ai transcript judged toward Anthropic) ---


def _transcript(count: int, odd: dict[int, list[dict[str, Any]]]) -> bytes:
    """count plain turns; turn n replaced by odd[n] when given."""
    return pi_transcript(odd, count)


def _verdicts(data: bytes) -> dict[str, tuple[list[Any], list[Any]]]:
    """Anthropic's verdict by every path (provider_case_files.every_path_verdict)."""
    return every_path_verdict(data, "anthropic")


ABORTED = {"role": "assistant", "content": [], "stopReason": "aborted", "errorMessage": "Request was aborted"}
ENDED = {"role": "assistant", "content": [], "stopReason": "stop"}

ODD = [  # (turns, the odd turns, what the full request's rules say as recorded, and after repair: the view planned for
    # Anthropic leaves each blank text out, tests/test_blank_text_repair.py)
    pytest.param(200, {100: [*_turn(100)[:3], ABORTED, *_turn(100)[3:]]},  # an aborted empty frame mid-history
                 [("empty_message_content", "messages.403", EMPTY.format(index=403))], [], id="aborted-empty-frame"),
    pytest.param(200, {100: [{"role": "user", "content": "q"}, ENDED]},  # an empty answer that ended its turn
                 [("empty_message_content", "messages.401", EMPTY.format(index=401))], [], id="empty-answer"),
    pytest.param(200, {199: [*_turn(199), ABORTED]}, [], [], id="aborted-empty-frame-last"),
    pytest.param(200, {100: _turn(100, [_text("")])}, [("empty_text_block", "messages", EMPTY_TEXT)], [],
                 id="empty-text-beside-call"),
    pytest.param(200, {100: _turn(100, [_text("\n\n")])}, [], [],  # accepted beside a call (llm-anthropic's 200)
                 id="whitespace-text-beside-call"),
    pytest.param(200, {100: [{"role": "user", "content": ""}, *_turn(100)[1:]]},
                 [("empty_message_content", "messages.400", EMPTY.format(index=400))], [], id="empty-user-string"),
    pytest.param(200, {100: [{"role": "user", "content": [_text(""), _text("q")]}, *_turn(100)[1:]]},
                 [("empty_text_block", "messages", EMPTY_TEXT)], [], id="empty-beside-user-text"),
    pytest.param(200, {100: [{"role": "user", "content": [_text(" "), _text("\t")]}, *_turn(100)[1:]]},
                 [("whitespace_text_block", "messages", BLANK_TEXT)] * 2, [], id="whitespace-texts-alone"),
    pytest.param(200, {199: [*_turn(199)[:3], {"role": "assistant", "content": [_text(" ")], "stopReason": "stop"}]},
                 [], [], id="blank-final-answer-spared"),
    pytest.param(3, {1: [*_turn(1)[:3], ABORTED, *_turn(1)[3:]]},  # (small: judged whole on every path)
                 [("empty_message_content", "messages.7", EMPTY.format(index=7))], [], id="small"),
]


@pytest.mark.parametrize(("turns", "odd", "before", "after"), ODD)
def test_every_path_gives_the_full_requests_verdict(turns: int, odd: dict[int, list[dict[str, Any]]],
                                                    before: list[Any], after: list[Any]) -> None:
    said = _verdicts(_transcript(turns, odd))
    recorded, repaired = said["general"]
    assert recorded == before
    assert repaired == after
    assert said["sparse"] == said["bones"] == said["general"]
