"""Writing repaired views and converting between formats: grouping, ids, mapping back.

Provider validation converts canonical messages to each provider's request, and
the repaired view is exported in the source format; both only work if the writer
groups results the way each provider needs, keeps what it does not understand,
and can say which canonical messages each native message came from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import repair_orphaned_tool_calls
from integrity.formats import FORMATS, read_bytes, to_native, write_bytes
from integrity.reference import (
    INTERRUPTED_TEXT,
    PendingToolCall,
    interrupted_tool_result,
)
from integrity.repair.plan import plan_openmaic
from integrity.repair.views import light_transcript

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"


def load(name: str, format: str = "auto") -> Any:
    return read_bytes((SAMPLES / name).read_bytes(), name, format)


def parsed(data: bytes) -> Any:
    try:
        return json.loads(data)
    except json.JSONDecodeError:
        return [json.loads(line) for line in data.decode().split("\n") if line.strip()]


def result_ids(native_message: dict[str, Any]) -> list[str]:
    """Result ids of one Anthropic/Bedrock/Gemini user turn, in block order."""
    ids = []
    blocks = native_message.get("content") or native_message.get("parts") or []
    for block in blocks if isinstance(blocks, list) else []:
        if block.get("type") == "tool_result":
            ids.append(block["tool_use_id"])
        elif "toolResult" in block:
            ids.append(block["toolResult"]["toolUseId"])
        elif "functionResponse" in block:
            ids.append(block["functionResponse"].get("id", ""))
    return ids


@pytest.mark.parametrize("name", ["split_results.anthropic.json", "split_results.bedrock.json"])
def test_results_split_across_user_messages_are_written_in_one(name: str) -> None:
    transcript = load(name)
    request = to_native(transcript.messages, transcript.format, transcript)
    turns = [m for m in request.messages if m["role"] == "user" and result_ids(m)]
    assert len(turns) == 1 and len(result_ids(turns[0])) == 2
    merged = request.messages.index(turns[0])
    # The merged message maps back to both canonical results, which came from two native entries.
    sources = request.sources[merged]
    assert [transcript.messages[i]["role"] for i in sources] == ["toolResult", "toolResult"]
    assert len({transcript.entries[i] for i in sources}) == 2
    # Unchanged blocks are reused as they were (nothing rebuilt or lost).
    originals = [block for entry in transcript.native if entry["role"] == "user" and isinstance(entry["content"], list)
                 for block in entry["content"] if result_ids({"content": [block]})]
    assert turns[0]["content"] == originals
    # Without the transcript, the same grouping comes from the canonical messages alone.
    assert to_native(transcript.messages, transcript.format).messages == request.messages


def test_abort_race_repaired_view_is_one_results_turn_in_every_grouping_format() -> None:
    transcript = load("abort_race.pi-ai.json")
    view = repair_orphaned_tool_calls(transcript.messages).messages
    for format in ("anthropic", "bedrock", "gemini"):
        request = to_native(view, format)
        turns = [m for m in request.messages if result_ids(m)]
        assert [result_ids(m) for m in turns] == [["call_A", "call_B"]], format
        calls_at = next(i for i, m in enumerate(request.messages) if m["role"] in ("assistant", "model"))
        assert request.messages[calls_at + 1] is turns[0]  # results come right after the calls


def test_results_come_before_the_user_text_of_their_turn() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "grep", "arguments": {}}],
         "stopReason": "toolUse"},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "grep", "content": [{"type": "text", "text": "x"}],
         "isError": False},
    ]
    anthropic = read_bytes(json.dumps({"system": "s", "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "grep", "input": {}}]},
        {"role": "user", "content": [{"type": "text", "text": "note first"},
                                     {"type": "tool_result", "tool_use_id": "c1", "content": "x"}]},
    ]}).encode(), "a.json")
    # Read in block order: the text was recorded first, so the result does not follow its call (Anthropic
    # rejects that message; read results-first, a repair would never see it and keep it).
    assert [m["role"] for m in anthropic.messages] == ["user", "assistant", "user", "toolResult"]
    # Unchanged, the native message keeps its own block order.
    assert parsed(write_bytes(anthropic, list(anthropic.messages))) == parsed(write_bytes(anthropic))
    # Rebuilt (the text edited), the result goes first as Anthropic requires.
    edited = [dict(m) for m in anthropic.messages]
    edited[2] = {**edited[2], "content": [{"type": "text", "text": "note, edited"}]}
    last = to_native(edited, "anthropic", anthropic).messages[-1]
    assert [block["type"] for block in last["content"]] == ["tool_result", "text"]
    # So does the repaired order (the result back right after its call), with the text unchanged.
    moved = [anthropic.messages[i] for i in (0, 1, 3, 2)]
    last = to_native(moved, "anthropic", anthropic).messages[-1]
    assert [block["type"] for block in last["content"]] == ["tool_result", "text"]
    assert to_native(messages, "anthropic").messages[-1]["content"][0]["type"] == "tool_result"


def test_gemini_without_ids_round_trips_without_ids_and_marks_them_missing() -> None:
    transcript = load("no_ids.gemini.json")
    calls = [p for m in transcript.messages if m["role"] == "assistant"
             for p in m["content"] if p["type"] == "toolCall"]
    results = [m for m in transcript.messages if m["role"] == "toolResult"]
    assert [c["id"] for c in calls] == ["", ""] and all(c["_native"]["idMissing"] for c in calls)
    assert [r["toolCallId"] for r in results] == ["", ""] and all(r["_native"]["idMissing"] for r in results)
    assert [r["toolName"] for r in results] == ["convert_currency", "convert_currency"]
    assert parsed(write_bytes(transcript, list(transcript.messages))) \
        == parsed((SAMPLES / "no_ids.gemini.json").read_bytes())
    # Converted to pi-ai and back, still no ids, and one response part per call part in one turn.
    as_pi = read_bytes(write_bytes(transcript, format="pi-ai"), "p", "pi-ai")
    back = read_bytes(write_bytes(as_pi, format="gemini"), "g")
    turn = next(m for m in back.native if any("functionResponse" in p for p in m["parts"]))
    assert [("id" in p["functionResponse"]) for p in turn["parts"]] == [False, False]
    assert len(turn["parts"]) == 2


def test_system_messages_are_hoisted_where_the_provider_wants_them() -> None:
    chat = load("healthy.openai-chat.json")
    system = chat.messages[0]["content"]
    assert to_native(chat.messages, "anthropic").body["system"] == system
    assert to_native(chat.messages, "bedrock").body["system"] == [{"text": system}]
    assert to_native(chat.messages, "gemini").body["systemInstruction"] == {"parts": [{"text": system}]}
    for format in ("anthropic", "bedrock", "gemini"):
        request = to_native(chat.messages, format)
        assert all(m.get("role") != "system" for m in request.messages)
        # The hoisted system message maps to no native message; everything else maps to something.
        assert 0 not in {i for sources in request.sources for i in sources}
        assert {i for sources in request.sources for i in sources} == set(range(1, len(chat.messages)))


def test_synthesized_receipt_is_written_natively_and_recognised_again() -> None:
    transcript = load("healthy.anthropic.json")
    frame = next(i for i, m in enumerate(transcript.messages) if m["role"] == "assistant"
                 and any(p["type"] == "toolCall" for p in m["content"]))
    call = next(p for p in transcript.messages[frame]["content"] if p["type"] == "toolCall")
    receipt = interrupted_tool_result(PendingToolCall(call["id"], call["name"]), 1)
    view = transcript.messages[:frame + 1] + [receipt]
    for format in FORMATS:
        back = read_bytes(write_bytes(transcript, view, format), "back", format)
        last = back.messages[-1]
        assert last["role"] == "toolResult" and last["toolCallId"] == call["id"], format
        assert last["isError"] is True and last["details"] == {"ok": False, "error": "interrupted"}, format
        assert last["content"][0]["text"] == INTERRUPTED_TEXT


def test_claude_code_repaired_view_keeps_a_valid_uuid_chain() -> None:
    transcript = load("healthy.claude-code.jsonl")
    frame = next(i for i, m in enumerate(transcript.messages) if m["role"] == "assistant")
    # Drop the first result and move the other: parents of the moved entries no longer precede them.
    view = [m for i, m in enumerate(transcript.messages) if not (m["role"] == "toolResult" and i == frame + 1)]
    entries = parsed(write_bytes(transcript, view))
    seen: set[str] = set()
    for entry in entries:
        if "uuid" in entry:
            assert entry["parentUuid"] is None or entry["parentUuid"] in seen
            seen.add(entry["uuid"])
    # The bookkeeping entries survive the rewrite.
    kinds = [e["type"] for e in entries]
    assert kinds.count("summary") == 1 and kinds.count("file-history-snapshot") == 1
    back = read_bytes(write_bytes(transcript, view), "cc", "claude-code")
    assert [m["role"] for m in back.messages] == [m["role"] for m in view]


def test_claude_code_batch_split_by_its_outputs_is_read_as_one_frame() -> None:
    transcript = load("split_batch.claude-code.jsonl")
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "toolResult", "toolResult", "assistant"]
    frame = transcript.messages[1]
    assert [p["id"] for p in frame["content"]] == ["toolu_01CfgA", "toolu_01CfgB"]
    # Each message still points at its own line: the results at lines 3 and 5, the frame at line 2.
    assert transcript.lines == [1, 2, 3, 5, 6]
    assert not plan_openmaic(light_transcript(transcript.messages)).changed
    # Anthropic then sees the batch as one message answered by one results turn.
    request = to_native(transcript.messages, "anthropic")
    assert [result_ids(m) for m in request.messages if result_ids(m)] == [["toolu_01CfgA", "toolu_01CfgB"]]


def test_to_native_sources_cover_every_canonical_message_once() -> None:
    transcript = load("healthy.claude-code.jsonl")
    for format in FORMATS:
        request = to_native(transcript.messages, format)
        covered = sorted({i for sources in request.sources for i in sources})
        assert covered == list(range(len(transcript.messages))), format
        assert len(request.sources) == len(request.messages)


def test_the_namespaced_key_is_never_written() -> None:
    for path in sorted(SAMPLES.iterdir()):
        if path.name == "README.md":
            continue
        transcript = read_bytes(path.read_bytes(), path.name)
        for format in FORMATS:
            assert b'"_native"' not in write_bytes(transcript, format=format), (path.name, format)


def test_unknown_native_fields_survive_a_regrouped_write() -> None:
    document = {"model": "claude-sonnet-4-5", "max_tokens": 512, "metadata": {"user_id": "u-42"}, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "grep", "input": {"q": "a"}},
            {"type": "tool_use", "id": "t2", "name": "grep", "input": {"q": "b"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a",
                                      "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": [
            {"type": "text", "text": "b", "citations": None}]}]},
    ]}
    transcript = read_bytes(json.dumps(document).encode(), "r.json")
    written = parsed(write_bytes(transcript, list(transcript.messages)))
    assert written["metadata"] == {"user_id": "u-42"} and written["max_tokens"] == 512
    assert written["messages"][2]["content"] == document["messages"][2]["content"] + document["messages"][3]["content"]
    assert len(written["messages"]) == 3


def test_pi_ai_output_carries_a_system_prompt_as_a_context() -> None:
    chat = load("healthy.openai-chat.json")
    body = to_native(chat.messages, "pi-ai").body
    assert body["systemPrompt"] == chat.messages[0]["content"]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "toolResult", "toolResult", "assistant"]
    context = read_bytes(write_bytes(chat, format="pi-ai"), "ctx.json")
    assert context.format == "pi-ai" and context.envelope == {"systemPrompt": chat.messages[0]["content"]}
    # A pi-ai file's own custom roles are never hoisted away.
    own = read_bytes(json.dumps([{"role": "system", "content": "custom"}, {"role": "user", "content": "hi"}]).encode(),
                     "own.json", "pi-ai")
    assert parsed(write_bytes(own, list(own.messages))) == parsed(write_bytes(own))


def test_gemini_python_sdk_snake_case_is_read_and_rebuilt_in_its_own_spelling() -> None:
    document = {"contents": [
        {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
        {"role": "model", "parts": [{"function_call": {"id": "a1", "name": "get_forecast", "args": {"city": "Oslo"}},
                                     "thought_signature": "c2ln"}]},
        {"role": "user", "parts": [{"function_response": {"id": "a1", "name": "get_forecast",
                                                          "response": {"output": "3°C, snow"}}}]},
    ]}
    transcript = read_bytes(json.dumps(document).encode(), "snake.json")
    assert transcript.format == "gemini"
    assert pairing_of(transcript.messages) == ([("a1", "get_forecast")], ["a1"])
    assert to_native(transcript.messages, "gemini").messages == document["contents"]
    as_chat = read_bytes(write_bytes(transcript, format="openai-chat"), "c", "openai-chat")
    converted = to_native(as_chat.messages, "gemini")
    assert "functionCall" in converted.messages[1]["parts"][0]  # fresh output uses the REST spelling


def pairing_of(messages: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], list[Any]]:
    calls = [(p["id"], p["name"]) for m in messages if m.get("role") == "assistant"
             for p in m["content"] if p.get("type") == "toolCall"]
    return calls, [m.get("toolCallId") for m in messages if m.get("role") == "toolResult"]


def test_an_interrupted_empty_frame_survives_conversion_to_every_format() -> None:
    transcript = load("abort_race.pi-ai.json")
    aborted = [i for i, m in enumerate(transcript.messages) if m.get("stopReason") == "aborted"]
    assert aborted
    for format in FORMATS:
        back = read_bytes(write_bytes(transcript, format=format), "back", format)
        roles = [(m["role"], m.get("stopReason") == "aborted") for m in back.messages]
        assert roles == [(m["role"], m.get("stopReason") == "aborted") for m in transcript.messages], format


def test_stop_reasons_survive_a_trip_through_claude_code() -> None:
    messages = [
        {"role": "user", "content": "Summarize the log."},
        {"role": "assistant", "content": [{"type": "text", "text": "The log shows"}], "stopReason": "length"},
        {"role": "user", "content": "Try again."},
        {"role": "assistant", "content": [{"type": "text", "text": "overloaded_error"}], "stopReason": "error",
         "errorMessage": "overloaded_error"},
        {"role": "user", "content": "Once more."},
        {"role": "assistant", "content": [{"type": "text", "text": "It shows 3 restarts."}], "stopReason": "stop"},
    ]
    pi = read_bytes(json.dumps(messages).encode(), "pi.json", "pi-ai")
    back = read_bytes(write_bytes(pi, format="claude-code"), "cc.jsonl")
    assert back.format == "claude-code"
    assert [m.get("stopReason") for m in back.messages if m["role"] == "assistant"] == ["length", "error", "stop"]


def test_an_empty_frame_interrupted_only_by_its_error_message_is_kept_as_an_incomplete_responses_item() -> None:
    """The one interrupted-frame predicate decides here too: a blank stopReason with an errorMessage counts."""
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [], "stopReason": "stop", "errorMessage": "upstream reset"}]
    items = to_native(messages, "openai-responses").messages
    assert items[-1] == {"type": "message", "role": "assistant", "status": "incomplete", "content": []}
    messages[1]["errorMessage"] = " \u3000 "  # blank by JavaScript's trim(): not interrupted, nothing to keep
    assert [item.get("role") for item in to_native(messages, "openai-responses").messages] == ["user"]


PNG = "iVBORw0KGgo="
GEMINI_IMAGE = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}]},
                             {"role": "model", "parts": [{"text": "a cat"}]},
                             {"role": "user", "parts": [{"text": "thanks"}]}]}
BEDROCK_IMAGE = {"messages": [{"role": "user", "content": [{"image": {"format": "png",
                                                                      "source": {"bytes": "iVBORw0KGgo="}}}]},
                              {"role": "assistant", "content": [{"text": "a cat"}]},
                              {"role": "user", "content": [{"text": "thanks"}]}]}
IMAGE_SHAPES = {"anthropic": lambda m: m["content"][0]["source"] == {"type": "base64", "media_type": "image/png",
                                                                    "data": "iVBORw0KGgo="},
                "bedrock": lambda m: m["content"][0] == {"image": {"format": "png", "source": {"bytes": PNG}}},
                "gemini": lambda m: m["parts"][0] == {"inlineData": {"mimeType": "image/png", "data": PNG}}}


@pytest.mark.parametrize("request_body", [GEMINI_IMAGE, BEDROCK_IMAGE], ids=["gemini", "bedrock"])
def test_an_image_alone_in_a_turn_is_sent_to_every_provider_in_its_shape(request_body: dict[str, Any]) -> None:
    """An inline image (Gemini's inlineData, Converse's image bytes) is read as an image part: the request written for
    each provider carries it in that provider's shape, so a turn of the image alone is not judged empty toward
    another provider (it was an opaque block the other writers left out: "all messages must have non-empty
    content", "parts must not be empty")."""
    from integrity.pipeline import check
    from integrity.providers.canonical import judged_request

    data = json.dumps(request_body).encode()
    transcript = read_bytes(data, "request.json")
    assert transcript.messages[0]["content"] == [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]
    for provider, shape in IMAGE_SHAPES.items():
        result = check(transcript, provider=provider)
        assert result.exit_code == 0 and result.providers[provider].before == [], provider
        assert shape(judged_request(transcript.messages, provider, transcript, as_recorded=True)[0][0]), provider


def test_an_inline_pdf_or_an_image_with_more_fields_stays_opaque() -> None:
    """Only an image holding its bytes and nothing else is an image part; a PDF, or a part with a field of its own,
    stays the format's own block (written for that format only)."""
    pdf = {"contents": [{"role": "user", "parts": [{"text": "read"}, {"inlineData": {"mimeType": "application/pdf",
                                                                                     "data": "JVBERi0="}}]}]}
    more = {"contents": [{"role": "user", "parts": [{"text": "see"}, {"inlineData": {"mimeType": "image/png",
                                                                                    "data": "iVBORw0KGgo="},
                                                                     "mediaResolution": "high"}]}]}
    for body in (pdf, more):
        transcript = read_bytes(json.dumps(body).encode(), "request.json")
        assert transcript.messages[0]["content"][1]["type"] == "opaque", body
