"""Any JSON a user pastes is either read or refused with a TranscriptError, never a crash.

Near-miss shapes (right keys, wrong types) are where adapters break, so the
documents are generated from each format's own vocabulary of keys and values.
Whatever is read must also be writable in every format.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_formats_roundtrip import (  # the healthy shapes, to break
    RENDERERS,
    conversations,
)

from integrity import load
from integrity.formats import FORMATS, READABLE, read_bytes, to_native, write_bytes
from integrity.loading import TranscriptError

KEYS = ["role", "content", "type", "text", "id", "name", "arguments", "tool_calls", "tool_call_id", "function",
        "toolCallId", "toolName", "isError", "stopReason", "call_id", "output", "input", "parts", "functionCall",
        "functionResponse", "args", "response", "toolUse", "toolResult", "toolUseId", "status", "tool_use_id",
        "is_error", "data", "kwargs", "lc", "message", "uuid", "parentUuid", "summary", "thinking", "json"]
VALUES = ["user", "assistant", "tool", "toolResult", "model", "function", "system", "text", "toolCall", "tool_use",
          "tool_result", "function_call", "function_call_output", "reasoning", "message", "human", "ai",
          "constructor", "summary", "error", "c1", ""]
SCALARS = st.one_of(st.sampled_from(VALUES), st.none(), st.booleans(), st.integers(-2, 2))
NODES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
    max_leaves=12,
)
DOCUMENTS = st.one_of(
    st.lists(NODES, max_size=4),
    st.dictionaries(st.sampled_from(["messages", "input", "contents", "system", "model"]), st.lists(NODES, max_size=4),
                    min_size=1, max_size=3),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS, st.sampled_from(("auto",) + READABLE), st.booleans())
def test_reading_never_crashes_and_what_is_read_can_be_written(document: Any, format: str, jsonl: bool) -> None:
    if jsonl and isinstance(document, list) and document and all(isinstance(e, dict) for e in document):
        data = "\n".join(json.dumps(e) for e in document).encode()
    else:
        data = json.dumps(document).encode()
    try:
        transcript = read_bytes(data, "fuzz.json", format)
    except TranscriptError as error:
        assert "\n" not in str(error) and str(error).startswith("fuzz.json: ")
        return
    write_bytes(transcript)
    write_bytes(transcript, list(transcript.messages))
    for target in FORMATS:
        request = to_native(transcript.messages, target, transcript)
        assert len(request.sources) == len(request.messages)
        write_bytes(transcript, format=target)


@st.composite
def mutated(draw: st.DrawFn, node: Any, depth: int = 0) -> Any:
    """The node with some keys dropped, some values replaced by scalars, some entries moved."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            action = draw(st.integers(0, 9))
            if action == 0:
                continue
            out[key] = draw(SCALARS) if action == 1 else draw(mutated(value, depth + 1))
        return out
    if isinstance(node, list):
        items = [draw(mutated(v, depth + 1)) for v in node]
        if items and draw(st.integers(0, 4)) == 0:
            i, j = draw(st.integers(0, len(items) - 1)), draw(st.integers(0, len(items) - 1))
            items[i], items[j] = items[j], items[i]
        if items and draw(st.integers(0, 5)) == 0:
            items.append(items[draw(st.integers(0, len(items) - 1))])
        return items
    return node


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_near_miss_native_files_are_read_or_refused_cleanly(data: st.DataObject) -> None:
    format = data.draw(st.sampled_from(FORMATS))
    body, jsonl = RENDERERS[format](data.draw(conversations()), data.draw)
    broken = data.draw(mutated(body))
    if jsonl and isinstance(broken, list) and all(isinstance(e, dict) for e in broken) and broken:
        raw = "\n".join(json.dumps(e) for e in broken).encode()
    else:
        raw = json.dumps(broken).encode()
    for named in ("auto", format):
        try:
            transcript = read_bytes(raw, "near.json", named)
        except TranscriptError as error:
            assert "\n" not in str(error) and str(error).startswith("near.json: ")
            continue
        assert json.loads(write_bytes(transcript)) if not jsonl else write_bytes(transcript)
        write_bytes(transcript, list(transcript.messages))
        for target in FORMATS:
            request = to_native(transcript.messages, target, transcript)
            assert len(request.sources) == len(request.messages)


@pytest.mark.parametrize(("data", "said"), [
    ('[{"role": "user", "content": "hi"}]'.encode("utf-16"), "UTF-16 LE text"),
    ('[{"role": "user", "content": "hi"}]'.encode("utf-16-be").join([b"\xfe\xff", b""]), "UTF-16 BE text"),
    (gzip.compress(b'[{"role": "user", "content": "hi"}]'), "gzip-compressed"),
])
def test_a_file_that_is_not_utf8_says_what_it_looks_like(data: bytes, said: str) -> None:
    with pytest.raises(TranscriptError) as raised:
        load(data, "t.json")
    assert "not valid UTF-8 text" in str(raised.value) and said in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_zip_that_is_no_inspect_log_says_so() -> None:
    """Found by review: any zip was read as an Inspect .eval archive, and one holding a.json was "an Inspect eval
    log without samples (a header-only log)"."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.json", '[{"role": "user", "content": "hi"}]')
    with pytest.raises(TranscriptError) as raised:
        load(buffer.getvalue(), "t.json")
    said = str(raised.value)
    assert "a zip archive, not an Inspect .eval log" in said and "unzip it" in said and "\n" not in said


def test_random_bytes_are_only_not_utf8() -> None:
    with pytest.raises(TranscriptError) as raised:
        load(b"\x80\x81\x82 not text", "t.json")
    assert str(raised.value).endswith("not valid UTF-8 text")


LEGACY_CALL = {"name": "get_weather", "arguments": '{"city": "Paris"}'}


@pytest.mark.parametrize(("name", "history"), [
    ("legacy.openai-chat.json", [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "function_call": LEGACY_CALL},
        {"role": "function", "name": "get_weather", "content": "sunny"},
        {"role": "assistant", "content": "It is sunny."}]),
    ("refusal.openai-chat.json", [
        {"role": "user", "content": "help me with that"},
        {"role": "assistant", "content": None, "refusal": "I can't help with that."},
        {"role": "user", "content": "ok"}]),
    ("legacy.langchain.json", [
        {"type": "human", "data": {"content": "weather?", "type": "human"}},
        {"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": [],
                                "additional_kwargs": {"function_call": LEGACY_CALL}}},
        {"type": "function", "data": {"content": "sunny", "name": "get_weather", "type": "function"}},
        {"type": "ai", "data": {"content": "It is sunny.", "type": "ai", "tool_calls": []}}]),
])
def test_an_assistant_turn_that_answered_without_content_is_not_an_interrupted_frame(name: str,
                                                                                    history: list[Any]) -> None:
    """A legacy function call, a refusal: read as an empty assistant message, it was taken for an interrupted
    frame and dropped from the repaired view (the legacy call lost, its result kept)."""
    from integrity import analyze

    transcript = load(json.dumps(history).encode(), name)
    report = analyze(transcript).report
    assert report.summary.frames_dropped == 0 and not report.changed
    assert len(transcript.messages) == len(history)


def test_a_message_chunk_written_by_messages_to_dict_is_read_as_its_message() -> None:
    """messages_to_dict writes a chunk's class name as its type ({"type": "AIMessageChunk", "data": ...}), as
    a streamed LangGraph state holds it; it was an unknown role, its call unseen and its result a stray."""
    from integrity import analyze
    from integrity.schema import schema_findings

    history = [
        {"type": "human", "data": {"content": "weather?", "type": "human"}},
        {"type": "AIMessageChunk", "data": {"content": "", "type": "AIMessageChunk", "tool_calls": [
            {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}]}},
        {"type": "ToolMessageChunk", "data": {"content": "sunny", "type": "ToolMessageChunk",
                                              "tool_call_id": "call_1", "name": "get_weather"}},
        {"type": "ai", "data": {"content": "It is sunny.", "type": "ai", "tool_calls": []}}]
    transcript = load(json.dumps(history).encode(), "state.json")
    assert transcript.format == "langchain"
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "toolResult", "assistant"]
    assert schema_findings(transcript) == [] and analyze(transcript).report.healthy
