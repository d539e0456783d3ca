"""An image an OpenAI Chat or Responses history carries as a data URL is read as the image it is.

Chat's `image_url` part and Responses' `input_image` were opaque to their readers: written for Anthropic, Gemini or
Bedrock (the request `check --provider` judges, the Inspector's excerpt and "Copy as curl"), a screenshot a tool
returned was left out, and a user message of the image alone was judged empty ("rejected as recorded by anthropic"
of a request LiteLLM sends fine).  Read as a canonical image, it reaches every writer, and each file is written
back in its own format as it was (the part kept as read: its `detail`, its fields' order).  An image by address
or file id stays opaque: no other format's writer can send its bytes.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from integrity import analyze, check, load
from integrity.formats.registry import to_native
from integrity.providers.canonical import judged_request

RECORDED = Path(__file__).parent / "recorded"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
JPEG = "/9j/4AAQSkZJRgABAQ"
SHOT = f"data:image/png;base64,{PNG}"
NAMED = f"data:image/png;name=a.png;base64,{PNG}"  # (a data URL with a parameter of its own: kept opaque)
CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}}]}


def _file(tmp_path: Path, name: str, body: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(body, indent=2))
    return path


def _request(path: Path, provider: str) -> list[Any]:
    """The native messages judged for `provider` as recorded (written afresh in another format)."""
    transcript = load(path.read_bytes(), path.name)
    return judged_request(transcript.messages, provider, transcript, as_recorded=True)[0]


def _images(request: Any) -> list[tuple[str, str]]:
    """(media type, data) of every image a native request holds, in order, in any provider's shape."""
    found: list[tuple[str, str]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            source = value.get("source") if value.get("type") == "image" else None
            if isinstance(source, dict) and source.get("type") == "base64":  # Anthropic
                found.append((source["media_type"], source["data"]))
            elif isinstance(value.get("inlineData"), dict):  # Gemini
                found.append((value["inlineData"]["mimeType"], value["inlineData"]["data"]))
            elif isinstance(value.get("image"), dict) and "bytes" in value["image"].get("source", {}):  # Bedrock
                found.append((f"image/{value['image']['format']}", value["image"]["source"]["bytes"]))
            else:
                for item in value.values():
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(request)
    return found


def test_a_chat_users_image_alone_is_sent_to_every_provider(tmp_path: Path) -> None:
    path = _file(tmp_path, "pasted.openai-chat.json", [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": SHOT}}]},
        {"role": "assistant", "content": "A red pixel."},
        {"role": "user", "content": "Thanks."}])
    for provider in ("anthropic", "gemini", "bedrock"):
        verdict = check(load(path.read_bytes(), path.name), provider=provider).providers[provider]
        assert verdict.before == [] and verdict.after == [], provider  # (was: the image left out, the turn empty)
        assert _images(_request(path, provider)) == [("image/png", PNG)], provider


def test_a_chat_results_screenshot_reaches_the_anthropic_tool_result(tmp_path: Path) -> None:
    path = _file(tmp_path, "shot.openai-chat.json", [
        {"role": "user", "content": "Look at the page."}, CALL,
        {"role": "tool", "tool_call_id": "call_1", "content": [
            {"type": "text", "text": "captured"},
            {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{JPEG}", "detail": "high"}}]},
        {"role": "assistant", "content": "Done."}])
    [result] = [m for m in _request(path, "anthropic") if m["role"] == "user" and isinstance(m["content"], list)]
    [block] = result["content"]
    assert block["type"] == "tool_result" and _images(block) == [("image/jpeg", JPEG)]


def test_a_recorded_responses_output_image_is_moved_for_chat_not_dropped() -> None:
    """pydantic-ai's recorded Responses request (answered 200): a function_call_output whose list holds an
    input_image.  Toward OpenAI Chat its image was left out (judged "accepted" without it); now the view sends it in
    a user message after the result, as for a Chat file, and Anthropic's tool_result holds it."""
    [record] = [json.loads(line) for line in (RECORDED / "openai-responses.jsonl").read_text().splitlines()
                if "test_mixed_content_ordering[openai_responses]" in line]
    transcript = load(json.dumps(record["request"]).encode(), "mixed.openai-responses.json")
    [(kind, data)] = _images(judged_request(transcript.messages, "anthropic", transcript)[0])
    assert kind == "image/jpeg" and data.startswith("/")
    analysis = analyze(transcript, provider="openai-chat", verdicts=["openai-chat"])
    assert analysis.report.summary.images_moved == 1
    verdict = analysis.verdicts["openai-chat"]
    assert [v.rule for v in verdict.before] == ["image_not_user"] and verdict.after == []
    again = load(json.dumps(record["request"]).encode(), "mixed.openai-responses.json")
    assert check(again, provider="openai-responses").providers["openai-responses"].before == []


def test_a_recorded_mistral_users_image_alone_is_sent_to_anthropic() -> None:
    """pydantic-ai's recorded Mistral request: a user message of one image after the tool's text result."""
    [record] = [json.loads(line) for line in (RECORDED / "mistral.jsonl").read_text().splitlines()
                if "tool_return_content-binary-image-mistral" in line]
    transcript = load(json.dumps(record["request"]).encode(), "binary.openai-chat.json")
    verdict = check(transcript, provider="anthropic").providers["anthropic"]
    assert verdict.before == [], [v.error for v in verdict.before]
    assert len(_images(judged_request(transcript.messages, "anthropic", transcript)[0])) == 1


CHAT = [
    {"role": "system", "content": "You see pages."},
    {"role": "user", "content": [{"type": "text", "text": "Which is newer?"},
                                 {"image_url": {"detail": "low", "url": SHOT}, "type": "image_url"},
                                 {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
                                 {"type": "image_url", "image_url": {"url": NAMED}}]},
    {"role": "assistant", "content": "The first."}]
RESPONSES = [
    {"role": "user", "content": [{"type": "input_text", "text": "Which is newer?"},
                                 {"detail": "low", "image_url": SHOT, "type": "input_image"},
                                 {"type": "input_image", "file_id": "file-abc", "detail": "auto"}]},
    {"type": "function_call", "call_id": "call_1", "name": "screenshot", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": [
        {"type": "input_text", "text": "captured"},
        {"type": "input_image", "image_url": f"data:image/jpeg;base64,{JPEG}", "detail": "high"}]},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The first."}]}]


@pytest.mark.parametrize(("name", "body"), [("pages.openai-chat.json", CHAT),
                                            ("pages.openai-responses.json", RESPONSES)])
def test_each_file_is_written_back_as_it_was(tmp_path: Path, name: str, body: list[Any]) -> None:
    """Written in its own format (the repaired view of a healthy file), each image part comes back as read: the
    same fields in the same order, by data URL, address or file id alike."""
    path = _file(tmp_path, name, body)
    transcript = load(path.read_bytes(), name)
    written = judged_request(transcript.messages, "openai-chat" if "chat" in name else "openai-responses",
                             transcript)[0]
    assert json.dumps(written) == json.dumps(body)


def test_the_detail_an_image_was_sent_with_carries_between_chat_and_responses(tmp_path: Path) -> None:
    chat = _file(tmp_path, "pages.openai-chat.json", CHAT)
    [item] = [m for m in _request(chat, "openai-responses") if m.get("role") == "user"]
    assert [p for p in item["content"] if p["type"] == "input_image"] == [
        {"type": "input_image", "image_url": SHOT, "detail": "low"},
        {"type": "input_image", "image_url": "https://example.com/cat.jpg", "detail": "auto"}]
    responses = _file(tmp_path, "pages.openai-responses.json", RESPONSES)
    user = next(m for m in _request(responses, "openai-chat") if m["role"] == "user")
    assert [p for p in user["content"] if p["type"] == "image_url"] == [
        {"type": "image_url", "image_url": {"url": SHOT, "detail": "low"}}]


def test_an_image_by_address_is_sent_by_address_where_the_provider_takes_one(tmp_path: Path) -> None:
    """An image by address stays the part it was (no bytes to read), and the Chat, Responses, Anthropic and Gemini
    writers send it by address in their own shape; a data URL with a parameter of its own is no image any of them
    can send, and Bedrock takes an image by its bytes alone."""
    path = _file(tmp_path, "pages.openai-chat.json", CHAT)
    transcript = load(path.read_bytes(), path.name)
    assert [p["type"] for p in transcript.messages[1]["content"]] == ["text", "image", "opaque", "opaque"]
    address = "https://example.com/cat.jpg"
    [user] = [m for m in _request(path, "anthropic") if m["role"] == "user"]
    assert user["content"][1:] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "image", "source": {"type": "url", "url": address}}]
    [turn] = [c for c in _request(path, "gemini") if c.get("role") == "user"]
    assert turn["parts"][1:] == [{"inlineData": {"mimeType": "image/png", "data": PNG}},
                                 {"fileData": {"mimeType": "image/jpeg", "fileUri": address}}]
    [message] = [m for m in _request(path, "bedrock") if m["role"] == "user"]
    assert [list(block) for block in message["content"]] == [["text"], ["image"]]


def test_a_users_image_by_address_alone_is_a_turn_anthropic_and_gemini_take(tmp_path: Path) -> None:
    """Judged empty before (the part left out): "rejected as recorded" of a request the provider fetches the
    image of.  Bedrock's request still has nothing to send (it refuses it, as it would a converter's that sent
    nothing: a converter downloads the image first)."""
    path = _file(tmp_path, "linked.openai-chat.json", [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]},
        CALL, {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        {"role": "assistant", "content": "A cat."}])
    transcript = load(path.read_bytes(), path.name)
    for provider in ("anthropic", "gemini", "openai-responses"):
        verdict = check(transcript, provider=provider).providers[provider]
        assert verdict.before == [] and verdict.after == [], provider
    bedrock = check(transcript, provider="bedrock").providers["bedrock"]
    assert [v.rule for v in bedrock.before] == ["empty_message_content"]


def test_an_anthropic_image_by_address_is_sent_to_openai(tmp_path: Path) -> None:
    """The other way: an Anthropic url-source image in a tool result, toward OpenAI Chat, is an image the view
    moves to a user message (OpenAI takes images from a user alone), not a block left out."""
    path = _file(tmp_path, "linked.anthropic.json", {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [
        {"role": "user", "content": "Look."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [
            {"type": "image", "source": {"type": "url", "url": "https://example.com/p.png"}}]}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Seen."}]}]})
    transcript = load(path.read_bytes(), path.name)
    analysis = analyze(transcript, provider="openai-chat", verdicts=["openai-chat"])
    assert analysis.report.summary.images_moved == 1 and analysis.verdicts["openai-chat"].after == []
    assert [v.rule for v in analysis.verdicts["openai-chat"].before] == ["image_not_user"]


def test_an_assistants_image_url_part_stays_opaque(tmp_path: Path) -> None:
    """An assistant's content takes no image in Chat: the part is carried as it was, not read as one."""
    body = [{"role": "user", "content": "Draw."}, CALL, {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
            {"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": SHOT}}]}]
    path = _file(tmp_path, "drawn.openai-chat.json", body)
    transcript = load(path.read_bytes(), path.name)
    assert transcript.format == "openai-chat" and transcript.messages[3]["content"][0]["type"] == "opaque"
    assert json.dumps(judged_request(transcript.messages, "openai-chat", transcript)[0]) == json.dumps(body)


def _recorded_gemini3(tmp_path: Path) -> Path:
    """pydantic-ai's recorded Gemini 3 request (answered 200): a function response whose own `parts` hold two
    images (Gemini 3's multimodal function response), in the SDK's snake_case `inline_data`."""
    [record] = [json.loads(line) for line in (RECORDED / "gemini.jsonl").read_text().splitlines()
                if "test_model_sees_multiple_images[google_gemini3]" in line]
    return _file(tmp_path, "two_images.gemini.json", record["request"])


def test_a_gemini_function_responses_images_are_the_results_images(tmp_path: Path) -> None:
    """Read into the result (they were left out of every other writer's request), so Anthropic's tool_result holds
    them and OpenAI Chat's view moves them to a user message."""
    path = _recorded_gemini3(tmp_path)
    transcript = load(path.read_bytes(), path.name)
    [result] = [m for m in transcript.messages if m["role"] == "toolResult"]
    assert [(p["type"], p.get("mimeType")) for p in result["content"]] == [
        ("text", None), ("image", "image/jpeg"), ("image", "image/png")]
    [turn] = [m for m in _request(path, "anthropic") if m["role"] == "user" and isinstance(m["content"], list)
              and m["content"][0]["type"] == "tool_result"]
    assert [kind for kind, _ in _images(turn)] == ["image/jpeg", "image/png"]
    analysis = analyze(transcript, provider="openai-chat", verdicts=["openai-chat"])
    assert analysis.report.summary.images_moved == 1 and analysis.verdicts["openai-chat"].after == []
    assert check(transcript, provider="gemini").providers["gemini"].before == []


def test_a_gemini_function_response_rewritten_keeps_its_parts(tmp_path: Path) -> None:
    """A result the view changes is written anew, not reused: its `parts` (and any other field of the response)
    come back as read, beside the new id."""
    path = _recorded_gemini3(tmp_path)
    transcript = load(path.read_bytes(), path.name)
    messages = copy.deepcopy(transcript.messages)
    [result] = [m for m in messages if m["role"] == "toolResult"]
    [call] = [p for m in messages if m["role"] == "assistant" for p in m["content"] if p["type"] == "toolCall"]
    result["toolCallId"] = call["id"] = "renamed"
    written = to_native(messages, "gemini", transcript).messages
    response = written[-1]["parts"][0]["functionResponse"]
    original = json.loads(path.read_text())["contents"][-1]["parts"][0]["functionResponse"]
    assert response == {**original, "id": "renamed"}


def test_another_formats_result_image_is_nested_in_geminis_function_response(tmp_path: Path) -> None:
    """A pi session's screenshot toward Gemini: in the function response's own parts, as Gemini 3 takes it and pi's
    own Gemini request sends it (it was left out of the request judged)."""
    path = _file(tmp_path, "shot.pi-ai.json", [
        {"role": "user", "content": "Look.", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "call_1", "name": "screenshot", "arguments": {}}],
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "call_1", "toolName": "screenshot", "isError": False, "timestamp": 3,
         "content": [{"type": "text", "text": "captured"}, {"type": "image", "data": PNG, "mimeType": "image/png"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Seen."}], "stopReason": "stop", "timestamp": 4}])
    [turn] = [c for c in _request(path, "gemini") if any("functionResponse" in p for p in c["parts"])]
    assert turn["parts"][0]["functionResponse"]["parts"] == [{"inlineData": {"mimeType": "image/png", "data": PNG}}]
    assert turn["parts"][0]["functionResponse"]["response"] == {"output": "captured"}
