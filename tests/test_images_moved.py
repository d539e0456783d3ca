"""A tool result's images, sent to OpenAI Chat in a user message after the turn's results; and no writer drops one.

OpenAI Chat refuses an image outside a user message ("Image URLs are only allowed for messages with role 'user', but
this message with role 'tool' contains an image URL."): a tool that returns a screenshot kills every later request
of the session (strands-agents/sdk-python#320).  The strict view planned for OpenAI Chat sends such a result with a
text in place of its images, and the images in one user message right after the turn's results (pi's own OpenAI Chat
builder moves them so too); the report says it (`images_moved` on the result, a turn of code `images_carried`), and
the view rebuilt from the report is the view.  Before, the Chat and Responses writers dropped every image read from
another format (a pi or Claude Code screenshot, a user's pasted image): the request judged "accepted" lacked it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity import analyze, check, load
from integrity.formats.registry import to_native
from integrity.kinds import RepairKind
from integrity.notes import NoteCode
from integrity.report import view_from_report

ROOT = Path(__file__).resolve().parents[1]
PNG, JPEG = "iVBORw0KGgo=", "/9j/4AAQ"
CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": f"call_{n}", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}} for n in (1, 2)]}


def _image_url(data: str, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}


def _chat(tmp_path: Path) -> Path:
    """A Chat request whose two parallel results each hold a screenshot (the first after a text, the second alone)."""
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "Compare the two pages."}, CALL,
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "page one"}, _image_url(PNG)]},
        {"role": "tool", "tool_call_id": "call_2", "content": [_image_url(JPEG, "image/jpeg")]},
        {"role": "assistant", "content": "They differ in the header."},
        {"role": "user", "content": "Thanks."}]}
    path = tmp_path / "two_shots.openai-chat.json"
    path.write_text(json.dumps(body))
    return path


def _pi(tmp_path: Path) -> Path:
    """The same session as pi-ai messages (canonical images)."""
    messages = [
        {"role": "user", "content": "Compare the two pages.", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": f"call_{n}", "name": "screenshot", "arguments": {}}
                                          for n in (1, 2)], "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "call_1", "toolName": "screenshot", "isError": False, "timestamp": 3,
         "content": [{"type": "text", "text": "page one"}, {"type": "image", "data": PNG, "mimeType": "image/png"}]},
        {"role": "toolResult", "toolCallId": "call_2", "toolName": "screenshot", "isError": False, "timestamp": 4,
         "content": [{"type": "image", "data": JPEG, "mimeType": "image/jpeg"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "They differ in the header."}], "stopReason": "stop",
         "timestamp": 5},
        {"role": "user", "content": "Thanks.", "timestamp": 6}]
    path = tmp_path / "two_shots.pi-ai.json"
    path.write_text(json.dumps(messages, indent=2))
    return path


def test_a_chat_file_with_images_in_its_results_is_repaired_for_openai(tmp_path: Path) -> None:
    path = _chat(tmp_path)
    said = run("check", path)
    assert said.code == 1
    assert said.stdout.decode().splitlines()[0] == (
        f"{path}: repaired: 2 result(s) whose images are sent in a user message; rejected as recorded by openai-chat")
    out = tmp_path / "out.json"
    assert run("repair", "--now", "0", path, "-o", out).code == 0
    sent = json.loads(out.read_text())["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool", "user", "assistant", "user"]
    note = {"type": "text", "text": "(1 image(s) sent in the user message after the tool results)"}
    assert sent[2]["content"] == [{"type": "text", "text": "page one"}, note]
    assert sent[3]["content"] == [note]
    said = "Image(s) returned by the tool call(s) above (call_1, call_2):"
    assert sent[4]["content"] == [{"type": "text", "text": said}, _image_url(PNG), _image_url(JPEG, "image/jpeg")]
    # (one message after the run of results, the images in call order)
    again = run("check", out)
    assert again.code == 0 and "accepted as recorded by openai-chat" in again.stdout.decode()


def test_the_report_says_it_and_rebuilds_the_view(tmp_path: Path) -> None:
    transcript = load(_chat(tmp_path).read_bytes(), "two_shots.openai-chat.json")
    analysis = analyze(transcript, provider="openai-chat", now=lambda: 7)
    report = analysis.report
    assert report.summary.images_moved == 2 and report.summary.turns_synthesized == 0
    moved = [a for a in report.actions if NoteCode.IMAGES_MOVED in a.codes]
    assert [a.durable_index for a in moved] == [2, 3]
    assert {a.shown_kind for a in moved} == {RepairKind.IMAGES_MOVED}
    [turn] = [item for item in report.view if item.source == "turn"]
    assert (turn.view_index, turn.code, turn.images) == (4, NoteCode.IMAGES_CARRIED, [2, 3])
    assert view_from_report(report, transcript.messages) == analysis.view
    assert transcript.messages[2]["content"][1]["type"] == "image"  # the durable messages keep their images
    verdict = check(transcript, provider="openai-chat").providers["openai-chat"]
    assert [v.rule for v in verdict.before] == ["image_not_user", "image_not_user"] and verdict.after == []


@pytest.mark.parametrize("options", [[], ["--report", "REPORT"]], ids=["fast", "general"])
def test_a_pi_file_toward_openai_chat_is_written_with_its_images_after_the_results(
        tmp_path: Path, options: list[str]) -> None:
    path = _pi(tmp_path)
    out = tmp_path / "out.json"
    options = [str(tmp_path / "report.json") if option == "REPORT" else option for option in options]
    assert run("repair", "--now", "0", "--provider", "openai-chat", *options, path, "-o", out).code == 0
    sent = json.loads(out.read_text())
    assert [m["role"] for m in sent] == ["user", "assistant", "toolResult", "toolResult", "user", "assistant", "user"]
    assert sent[4]["content"][1:] == [sent_image for m in json.loads(path.read_text())[2:4]
                                      for sent_image in m["content"] if sent_image["type"] == "image"]
    assert run("check", "--provider", "openai-chat", out).code == 0
    if not options:  # the fast path and the general reader write one file (tests/test_pi_ai_written_once.py)
        general = tmp_path / "general.json"
        run("repair", "--now", "0", "--provider", "openai-chat", "--report", tmp_path / "r.json", path, "-o", general)
        assert general.read_bytes() == out.read_bytes()


def test_other_providers_keep_the_images_where_they_are(tmp_path: Path) -> None:
    """Anthropic and OpenAI Responses take an image in a tool result: their views send the file as it is."""
    transcript = load(_pi(tmp_path).read_bytes(), "two_shots.pi-ai.json")
    for provider in ("anthropic", "openai-responses", "gemini", "bedrock"):
        analysis = analyze(transcript, provider=provider)
        assert analysis.report.summary.images_moved == 0, provider
        assert check(transcript, provider=provider).providers[provider].accepted_after_repair, provider


def test_no_writer_drops_an_image_read_from_another_format(tmp_path: Path) -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "what is this?"},
                                             {"type": "image", "data": PNG, "mimeType": "image/png"}], "timestamp": 1}]
    transcript = load(json.dumps(messages).encode(), "pasted.pi-ai.json")
    url = f"data:image/png;base64,{PNG}"
    assert to_native(transcript.messages, "openai-chat", transcript).messages[0]["content"][1] == \
        {"type": "image_url", "image_url": {"url": url}}
    assert to_native(transcript.messages, "openai-responses", transcript).messages[0]["content"][1] == \
        {"type": "input_image", "image_url": url, "detail": "auto"}
    pi = load(_pi(tmp_path).read_bytes(), "two_shots.pi-ai.json")
    output = to_native(pi.messages, "openai-responses", pi).messages[3]["output"]  # (a function_call_output)
    assert output == [{"type": "input_text", "text": "page one"},
                      {"type": "input_image", "image_url": url, "detail": "auto"}]


def test_deepseek_takes_no_image_and_the_view_for_it_sends_none(tmp_path: Path) -> None:
    """DeepSeek refuses any image part ("unknown variant `image_url`, expected `text`"): a pasted image is judged
    refused toward it (the request once judged had it dropped), and the view planned for it sends each message
    holding one with a text in their place (`images_left_out`); pi, which sends a DeepSeek model no image, is judged
    on the request it sends."""
    path = ROOT / "tests" / "real" / "cc_pasted_image.claude-code.jsonl"
    said = run("check", "--provider", "deepseek", path).stdout.decode()
    assert "deepseek as recorded: Failed to deserialize the JSON body into the target type: messages[4]: unknown " \
        "variant `image_url`, expected `text`" in said
    assert "repaired: 1 message(s) sent without their images" in said and "deepseek after repair: accepted" in said
    transcript = load(_chat(tmp_path).read_bytes(), "two_shots.openai-chat.json")
    analysis = analyze(transcript, provider="deepseek", now=lambda: 7)
    assert analysis.report.summary.images_left_out == 2 and analysis.report.summary.images_moved == 0
    assert [a.durable_index for a in analysis.report.actions if a.shown_kind is RepairKind.IMAGES_LEFT_OUT] == [2, 3]
    assert analysis.view[3]["content"][-1] == {"type": "text", "text": "(1 image(s) left out: the provider takes no "
                                                                       "image)"}
    assert view_from_report(analysis.report, transcript.messages) == analysis.view
    assert check(transcript, provider="deepseek").providers["deepseek"].accepted_after_repair
    pi = run("check", "--provider", "deepseek,openai-chat",
             ROOT / "tests" / "real" / "pi_bedrock_error_screenshot.pi-session.jsonl").stdout.decode()
    assert "deepseek as recorded: accepted" in pi and "openai-chat as recorded: accepted" in pi


def test_pi_sends_a_result_image_to_openai_chat_in_a_user_message_after_it() -> None:
    """pi's own builder (pi-ai's openai-completions): the result's texts in its tool message, the images in a user
    message right after it, "Attached image(s) from tool result:"; to a model that takes no image, none."""
    from integrity.formats import read_all

    path = ROOT / "tests" / "real" / "pi_bedrock_error_screenshot.pi-session.jsonl"
    [transcript] = read_all(path.read_bytes(), path.name)
    chat = to_native(transcript.messages, "openai-chat", transcript).messages
    [at] = [i for i, m in enumerate(chat) if m["role"] == "tool"]
    assert chat[at + 1]["role"] == "user" and chat[at + 1]["content"][0] == {
        "type": "text", "text": "Attached image(s) from tool result:"}
    assert chat[at + 1]["content"][1]["type"] == "image_url"
    deepseek = to_native(transcript.messages, "openai-chat", transcript, provider="deepseek").messages
    assert [m["role"] for m in deepseek].count("user") == [m["role"] for m in chat].count("user") - 1
