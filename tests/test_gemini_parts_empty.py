"""Gemini refuses a content without parts: "* GenerateContentRequest.contents[1].parts: contents.parts must not be
empty." (quoted whole in egoist/chatwise-releases#250; the same text in QuantumNous/new-api#1060, vercel/ai#3775 and
agno-agi/agno#2649).  A model turn a stream left empty, or a user turn whose only part a writer dropped, leaves one.
We said "accepted as recorded by gemini" beside a finding of our own that said Gemini refuses it, and repair sent
an empty user turn on.  Now the rule refuses it with the API's text on every surface and every path (the full
request, a skeleton judged in windows, the sparse judgment of a large file), and the view planned for Gemini leaves
out a message without any content (it carries nothing); a blank text is a part, and Gemini's view sends it as it is.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from cli_inprocess import run
from provider_case_files import body_file
from test_provider_cases_verdict import refused_on_every_surface

from integrity import load
from integrity.pipeline import check

EMPTY = "* GenerateContentRequest.contents[{index}].parts: contents.parts must not be empty."
MODEL_EMPTY = {"contents": [
    {"role": "user", "parts": [{"text": "Summarise the report."}]},
    {"role": "model", "parts": []},
    {"role": "user", "parts": [{"text": "Are you there?"}]},
    {"role": "model", "parts": [{"text": "Yes: the report says revenue grew 4%."}]}]}
USER_EMPTY = {"contents": [
    {"role": "user", "parts": [{"text": "Summarise the report."}]},
    {"role": "model", "parts": [{"text": "Which report?"}]},
    {"role": "user", "parts": []},
    {"role": "model", "parts": [{"text": "Please attach it."}]}]}


def _pi_turns(count: int, empty_at: int | None) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for number in range(count):
        call = f"call_{number}"
        messages += [
            {"role": "user", "content": [] if number == empty_at else f"question {number}"},
            {"role": "assistant", "stopReason": "toolUse",
             "content": [{"type": "toolCall", "id": call, "name": "f", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": call, "toolName": "f", "content": [{"type": "text", "text": "ok"}],
             "isError": False},
            {"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": "done"}]}]
    return messages


def test_an_empty_model_turn_is_refused_and_the_view_leaves_it_out(tmp_path: Path) -> None:
    source = body_file(tmp_path, MODEL_EMPTY, "stream.gemini.json")
    asked = run("check", "--provider", "gemini", source)
    shown = asked.stdout.decode()
    assert asked.code == 1 and f"gemini as recorded: {EMPTY.format(index=1)}" in shown
    assert "gemini after repair: accepted" in shown and "malformed" not in shown
    out = tmp_path / "repaired.gemini.json"
    assert run("repair", source, "-o", out).code == 0
    written = json.loads(out.read_bytes())
    assert written["contents"] == [MODEL_EMPTY["contents"][0], *MODEL_EMPTY["contents"][2:]]
    assert run("check", "--provider", "gemini", out).code == 0


def test_an_empty_user_turn_is_refused_and_the_view_leaves_it_out(tmp_path: Path) -> None:
    source = body_file(tmp_path, USER_EMPTY, "dropped_part.gemini.json")
    recorded = source.read_bytes()
    asked = run("check", "--provider", "gemini", source)
    shown = asked.stdout.decode()
    assert asked.code == 1 and f"gemini as recorded: {EMPTY.format(index=2)}" in shown
    assert "gemini after repair: accepted" in shown
    assert "1 blank message(s) dropped" in shown.splitlines()[0]
    out = tmp_path / "repaired.gemini.json"
    assert run("repair", source, "-o", out).code == 0
    assert source.read_bytes() == recorded  # the input is never touched
    expected = copy.deepcopy(USER_EMPTY)
    del expected["contents"][2]  # (two model turns in a row: Gemini reads them as one turn, recorded 200)
    assert json.loads(out.read_bytes()) == expected
    assert run("check", "--provider", "gemini", out).code == 0


def test_every_surface_says_the_same(tmp_path: Path) -> None:
    for name, body in (("model", MODEL_EMPTY), ("user", USER_EMPTY)):
        refused_on_every_surface(body_file(tmp_path, body, f"{name}.gemini.json"), "gemini")


def test_a_blank_text_is_a_part_gemini_takes_and_its_view_keeps_it(tmp_path: Path) -> None:
    body = copy.deepcopy(USER_EMPTY)
    body["contents"][2]["parts"] = [{"text": " "}]
    verdict = check(load(json.dumps(body).encode(), "blank.gemini.json"), provider="gemini", depth="view")
    assert verdict.providers["gemini"].before == [] and verdict.healthy
    assert verdict.report.summary.blank_dropped == verdict.report.summary.blank_text_left_out == 0


def test_another_format_toward_gemini_is_judged_the_same_on_every_path(tmp_path: Path) -> None:
    """A pi-ai user turn with no content: the skeleton (judged in windows) and the full request agree, a small
    file and a large one (the fast reader's sparse judgment) alike."""
    small = _pi_turns(3, empty_at=1)
    verdict = check(load(json.dumps(small).encode(), "small.pi-ai.json"), provider="gemini", depth="view")
    [said] = verdict.providers["gemini"].before
    assert (said.rule, said.position, said.error) == ("parts_empty", "contents[4].parts", EMPTY.format(index=4))
    assert verdict.providers["gemini"].after == [] and verdict.view is not None
    # the empty turn left out, the answer before it is merged into the call turn after it (Gemini's role rules:
    # a call turn comes right after a user or response turn); nothing else changes, nothing is lost
    assert verdict.verdict.startswith("repaired: 1 blank message(s) dropped, 1 message(s) merged")
    assert verdict.view[3]["content"] == [small[3]["content"][0], small[5]["content"][0]] and len(verdict.view) == 10
    source = tmp_path / "long.pi-ai.json"
    source.write_text(json.dumps(_pi_turns(3000, empty_at=1500)))
    asked = run("check", "--provider", "gemini", source)
    shown = asked.stdout.decode()
    index = 1500 * 4  # (one content per message: no system, each run of one result one content)
    assert asked.code == 1, asked.stderr
    assert f"gemini as recorded: {EMPTY.format(index=index)}" in shown  # (its text quotes its position: said once)
    assert shown.count("must not be empty") == 1 and "gemini after repair: accepted" in shown
    healthy = tmp_path / "healthy.pi-ai.json"
    healthy.write_text(json.dumps(_pi_turns(3000, empty_at=None)))
    assert run("check", "--provider", "gemini", healthy).code == 0


def test_one_empty_content_deep_in_a_long_gemini_file_is_found(tmp_path: Path) -> None:
    contents: list[dict[str, Any]] = []
    for number in range(3000):
        contents += [{"role": "user", "parts": [] if number == 1500 else [{"text": f"q{number}"}]},
                     {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"n": number}}}]},
                     {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "ok"}}}]},
                     {"role": "model", "parts": [{"text": "done"}]}]
    source = body_file(tmp_path, {"contents": contents}, "long.gemini.json")
    asked = run("check", "--provider", "gemini", source)
    shown = asked.stdout.decode()
    assert asked.code == 1, asked.stderr
    assert f"as recorded: {EMPTY.format(index=6000)}" in shown
    assert shown.count("must not be empty") == 1 and "gemini after repair: accepted" in shown


def test_an_image_another_format_carried_is_sent_as_inline_data_not_an_empty_turn() -> None:
    """Gemini's writer left an image out, so a user turn of an image alone was written without parts (and now
    refused): it is sent as Gemini's inline data, as the Anthropic and Bedrock writers send it in their blocks."""
    from integrity.formats.registry import to_native

    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    messages = [{"role": "user", "content": [image]},
                {"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": "A red square."}]}]
    verdict = check(load(json.dumps(messages).encode(), "image.pi-ai.json"), provider="gemini")
    assert verdict.providers["gemini"].before == [] and verdict.healthy
    body = to_native(messages, "gemini").body
    assert body["contents"][0] == {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png",
                                                                             "data": "iVBORw0KGgo="}}]}
