"""A LangChain AIMessage's calls are judged where ChatAnthropic sends them: in its content's block order.

langchain-anthropic's `_format_messages` sends an AIMessage's content blocks in their order (a `tool_use`
block naming one of the message's `tool_calls` is replaced by that call, in its place) and only then the
calls no block names.  A turn recorded [tool_use, text] therefore reaches Anthropic as such, and Anthropic
refuses it (recorded: tests/provider_cases/anthropic_text_after_tool_use.json, anomalyco/opencode).  The
LangChain reader used to keep such blocks opaque and put the calls after the content, so the engine saw
[text, call] and called the turn accepted.  Every request here is what the real ChatAnthropic builds
(`_get_request_payload`, no network call), judged by the engine's Anthropic rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run
from langchain_anthropic import ChatAnthropic
from langchain_core.load import dumpd, load
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)
from test_guard_langchain import request_of

from integrity.formats import read_document
from integrity.formats.common import OPAQUE
from integrity.formats.container import Document
from integrity.guards.langchain import ToolCallIntegrityMiddleware
from integrity.providers import validate_native
from integrity.repair.views import light_transcript

CASE = json.loads((Path(__file__).resolve().parent / "provider_cases" / "anthropic_text_after_tool_use.json")
                  .read_text())
REFUSED = CASE["error"]  # the recorded 400, for the recorded turn's call id
RECORDED_TURN = CASE["request"]["messages"][0]["content"]  # [tool_use call_1, text]
THINKING = {"type": "thinking", "thinking": "the weather, then", "signature": "EqQBCkYIBxgCKkA="}

# The verdict and the guard need more than the LangChain reader and writer: the Anthropic writer must send a
# message whose hints say "in_order" in its order (formats/anthropic.py; formats/skeleton.py then hands such a
# request to the full writer), and the guards' quick pass must not take such a turn for healthy
# (guards/_fast.py).  Strict: once those land, these pass, and the mark must go.


def chat_anthropic_messages(history: list[BaseMessage]) -> list[dict[str, Any]]:
    """The `messages` ChatAnthropic sends for `history` (its own payload builder: _format_messages)."""
    model = ChatAnthropic(model=CASE["request"]["model"], api_key="not-used")  # type: ignore[call-arg]
    return model._get_request_payload(history)["messages"]  # type: ignore[no-any-return]


def recorded_turn(*before: dict[str, Any]) -> AIMessage:
    """The recorded turn as ChatAnthropic keeps it in the state: its blocks as content, the call parsed."""
    use = RECORDED_TURN[0]
    return AIMessage([*before, *RECORDED_TURN], id="a1", response_metadata={"model_provider": "anthropic"},
                     usage_metadata={"input_tokens": 12, "output_tokens": 7, "total_tokens": 19},
                     tool_calls=[{"name": use["name"], "args": use["input"], "id": use["id"], "type": "tool_call"}])


def history_of(turn: AIMessage) -> list[BaseMessage]:
    result = CASE["request"]["messages"][1]["content"][0]
    return [HumanMessage("What is the weather in Paris?", id="h1"), turn,
            ToolMessage(result["content"], tool_call_id=result["tool_use_id"], id="t1"),
            HumanMessage(CASE["request"]["messages"][2]["content"][0]["text"], id="h2")]


def errors(history: list[BaseMessage]) -> list[str]:
    return [violation.error for violation in validate_native(chat_anthropic_messages(history), "anthropic")]


def canonical(history: list[BaseMessage]) -> list[dict[str, Any]]:
    entries = messages_to_dict(history)
    return read_document(Document(entries, [0] * len(entries), "array"), "<history>", "langchain").messages


def test_the_reader_puts_a_call_where_its_block_is() -> None:
    """The call named by the recorded tool_use block is read in its place, before the text: the light view
    counts the frame as one with a part after a call (what the strict view sends with its calls last)."""
    messages = canonical(history_of(recorded_turn(THINKING)))
    assert [part["type"] for part in messages[1]["content"]] == [OPAQUE, "toolCall", "text"]
    assert light_transcript(messages).late_frames == {1}


def test_calls_no_block_names_follow_the_content_in_call_order() -> None:
    """ChatAnthropic sends the calls missing from the content after it (parsed ones first, then the invalid
    ones); a block naming a call of the message is that call, whatever its kind (a v1 tool_call here)."""
    turn = AIMessage([{"type": "tool_call", "id": "c2", "name": "lookup", "args": {"q": "b"}},
                      {"type": "text", "text": "and more"}], id="a1",
                     tool_calls=[{"name": "lookup", "args": {"q": "a"}, "id": "c1", "type": "tool_call"},
                                 {"name": "lookup", "args": {"q": "b"}, "id": "c2", "type": "tool_call"}],
                     invalid_tool_calls=[{"name": "lookup", "args": '{"q": ', "id": "c3", "error": None,
                                          "type": "invalid_tool_call"}])
    messages = canonical([HumanMessage("q"), turn])
    assert [(part["type"], part.get("id")) for part in messages[1]["content"]] == [
        ("toolCall", "c2"), ("text", None), ("toolCall", "c1"), ("toolCall", "c3")]


def test_chat_anthropic_refuses_the_turn_alone_and_the_guard_sends_its_calls_last() -> None:
    """Alone: Anthropic's recorded refusal.  With the guard: the turn goes with its call after its text and
    thinking (every block kept, signature and all; its other fields too), and is accepted."""
    turn = recorded_turn(THINKING)
    history = history_of(turn)
    assert errors(history) == [REFUSED]
    request = request_of(list(history))
    handed: list[Any] = []
    ToolCallIntegrityMiddleware(provider="anthropic").wrap_model_call(request, handed.append)
    assert handed[0] is not request
    _check_sent(history, handed[0].messages, turn)


def _check_sent(history: list[BaseMessage], sent: list[BaseMessage], turn: AIMessage) -> None:
    assert errors(sent) == []
    written = sent[1]
    assert written.content == [THINKING, RECORDED_TURN[1], RECORDED_TURN[0]]
    assert written.tool_calls == turn.tool_calls and written.id == turn.id
    assert written.response_metadata == turn.response_metadata and written.usage_metadata == turn.usage_metadata
    assert all(a is b for a, b in zip(sent, history, strict=True) if a is not written)  # the rest as it was
    assert turn.content == [THINKING, *RECORDED_TURN]  # the caller's message is never changed


@pytest.mark.parametrize("dialect", ["messages_to_dict", "dumpd"])
def test_repair_of_a_langchain_file_puts_the_calls_last(tmp_path: Path, dialect: str) -> None:
    """`repair --provider anthropic` writes the turn with its call after its text: ChatAnthropic then sends
    what Anthropic accepts.  Nothing else of the file changes."""
    turn = recorded_turn(THINKING)
    history = history_of(turn)
    entries = messages_to_dict(history) if dialect == "messages_to_dict" else [dumpd(m) for m in history]
    path, out = tmp_path / "history.json", tmp_path / "repaired.json"
    path.write_text(json.dumps(entries))
    assert run("repair", "--provider", "anthropic", path, "-o", out).code == 0
    repaired = json.loads(out.read_text())
    assert [e for at, e in enumerate(repaired) if at != 1] == [e for at, e in enumerate(entries) if at != 1]
    fields = repaired[1]["data" if dialect == "messages_to_dict" else "kwargs"]
    assert fields["content"] == [THINKING, RECORDED_TURN[1], RECORDED_TURN[0]]
    sent = messages_from_dict(repaired) if dialect == "messages_to_dict" else \
        [load(entry, allowed_objects="messages") for entry in repaired]
    assert errors(sent) == []
    assert run("check", "--provider", "anthropic", out).code == 0


def test_check_of_a_langchain_file_says_rejected_as_recorded(tmp_path: Path) -> None:
    """`check --provider anthropic` says what Anthropic answered ChatAnthropic's request: the recorded 400."""
    path = tmp_path / "history.json"
    path.write_text(json.dumps(messages_to_dict(history_of(recorded_turn()))))
    found = run("check", "--provider", "anthropic", path)
    assert found.code == 1
    text = found.stdout.decode()
    assert "rejected as recorded by anthropic" in text and REFUSED in text
    assert "calls put last 1" in text


def test_a_reordered_turn_keeps_its_calls_listed_as_recorded(tmp_path: Path) -> None:
    """Calls named by the content in another order than `tool_calls`: read in the content's order (the wire's),
    written back with `tool_calls` in the recorded order and the blocks where the view puts them."""
    uses = [{"type": "tool_use", "id": f"c{n}", "name": "lookup", "input": {"q": str(n)}} for n in (2, 1)]
    turn = AIMessage([*uses, {"type": "text", "text": "two lookups"}], id="a1",
                     tool_calls=[{"name": "lookup", "args": {"q": str(n)}, "id": f"c{n}", "type": "tool_call"}
                                 for n in (1, 2)])
    history = [HumanMessage("q", id="h1"), turn, ToolMessage("r2", tool_call_id="c2", id="t2"),
               ToolMessage("r1", tool_call_id="c1", id="t1"), HumanMessage("go", id="h2")]
    assert errors(history) != []
    path, out = tmp_path / "history.json", tmp_path / "repaired.json"
    path.write_text(json.dumps(messages_to_dict(history)))
    assert run("repair", "--provider", "anthropic", path, "-o", out).code == 0
    fields = json.loads(out.read_text())[1]["data"]
    assert fields["content"] == [turn.content[2], *uses]
    assert [call["id"] for call in fields["tool_calls"]] == ["c1", "c2"]
