"""The LangChain guard against the real `create_agent` (LangGraph underneath) with a fake chat model.

Each broken history is run through an agent with a checkpointer, once as LangChain sends it on its own
and once with `middleware=[ToolCallIntegrityMiddleware()]`; what the fake model received is judged by
the engine's rule sets for the target provider (`request_verdict` on the LangChain messages).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import langchain  # noqa: E402,F401 - never skipped: requirements-dev.txt installs it
import pytest
from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import ModelRequest  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel  # noqa: E402
from langchain_core.messages import (  # noqa: E402
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolCallChunk,
    ToolMessage,
    messages_to_dict,
)
from langchain_core.tools import tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from integrity.guards import GuardReport, ToolCallIntegrityError, request_verdict  # noqa: E402
from integrity.guards.langchain import ToolCallIntegrityMiddleware, provider_for_chat_model  # noqa: E402

TARGET = "anthropic"


class RecordingModel(FakeMessagesListChatModel):
    """A fake chat model that records every message list it is called with (and accepts tools)."""

    seen: list[list[BaseMessage]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, stop, run_manager, **kwargs)


@tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"found {q}"


@tool
def explode(q: str) -> str:
    """A tool that fails after its call was checkpointed."""
    raise RuntimeError("disk full")


def with_ids(messages: list[BaseMessage]) -> list[BaseMessage]:
    """Messages with ids, as a checkpoint holds them (add_messages gives an id to a message without one)."""
    for index, message in enumerate(messages):
        message.id = f"m{index}"
    return messages


def ai_call(*ids: str, name: str = "lookup") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {"q": i}, "id": i, "type": "tool_call"} for i in ids])


# The reported failures as the history a thread resumes with.
HISTORIES: dict[str, list[BaseMessage]] = {name: with_ids(history) for name, history in {
    # summarization dropped the call but kept its result (langchain #38352)
    "orphan result after summarization": [HumanMessage("summary of earlier turns"),
                                          ToolMessage("found x", tool_call_id="call_gone"), HumanMessage("go on")],
    "duplicate result": [HumanMessage("q"), ai_call("c1"), ToolMessage("first", tool_call_id="c1"),
                         ToolMessage("second", tool_call_id="c1"), HumanMessage("go on")],
    "interrupted run": [HumanMessage("q"), ai_call("c1", "c2"), ToolMessage("x is 1", tool_call_id="c1"),
                        HumanMessage("go on")],
}.items()}


def dicts(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    return messages_to_dict(messages)


def agent_for(middleware: list[Any], responses: list[AIMessage], tools: list[Any] | None = None) -> tuple[Any, Any]:
    model = RecordingModel(responses=responses, seen=[])
    agent = create_agent(model, tools or [lookup, explode], checkpointer=InMemorySaver(), middleware=middleware)
    return agent, model


def guard() -> ToolCallIntegrityMiddleware:
    return ToolCallIntegrityMiddleware(provider=TARGET)


def raised_then_resumed(middleware: list[Any], use_async: bool = False) -> tuple[list[BaseMessage], list[Any]]:
    """A tool raises after its call was checkpointed; the user writes again on the same thread.
    Returns what the model received on the second turn and the checkpoint's messages after it."""
    agent, model = agent_for(middleware, [ai_call("call_1", name="explode"), AIMessage("sorry")])
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(RuntimeError, match="disk full"):
        if use_async:
            asyncio.run(agent.ainvoke({"messages": [HumanMessage("hi")]}, config))
        else:
            agent.invoke({"messages": [HumanMessage("hi")]}, config)
    stored = agent.get_state(config).values["messages"]
    assert [type(m).__name__ for m in stored] == ["HumanMessage", "AIMessage"]  # the dangling call is checkpointed
    if use_async:
        asyncio.run(agent.ainvoke({"messages": [HumanMessage("again")]}, config))
    else:
        agent.invoke({"messages": [HumanMessage("again")]}, config)
    return model.seen[-1], agent.get_state(config).values["messages"]


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_a_tool_that_raised_leaves_a_dangling_call_the_guard_answers(use_async: bool) -> None:
    alone, _ = raised_then_resumed([], use_async)
    sent, stored = raised_then_resumed([guard()], use_async)
    alone_verdict = request_verdict(dicts(alone), "langchain", TARGET)
    verdict = request_verdict(dicts(sent), "langchain", TARGET)
    assert not alone_verdict.legal
    assert any("tool_use" in v.error for v in alone_verdict.violations)
    assert verdict.legal and verdict.receipts == 1, verdict.violations
    # the checkpoint keeps the durable record: no receipt was written into the thread
    assert not any(isinstance(m, ToolMessage) for m in stored)


# What LangChain sends on its own for the target (measured here; the table in docs/guards.md).
ALONE_LEGAL = {"orphan result after summarization": False, "duplicate result": False, "interrupted run": False}


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("name", list(HISTORIES))
def test_broken_histories_are_legal_with_the_guard_and_keep_real_results(name: str, use_async: bool) -> None:
    history = HISTORIES[name]
    snapshot = dicts(history)
    seen: dict[str, list[BaseMessage]] = {}
    for label, middleware in (("alone", []), ("guarded", [guard()])):
        agent, model = agent_for(middleware, [AIMessage("done")])
        config = {"configurable": {"thread_id": label}}
        if use_async:
            asyncio.run(agent.ainvoke({"messages": history}, config))
        else:
            agent.invoke({"messages": history}, config)
        seen[label] = model.seen[-1]
        stored = agent.get_state(config).values["messages"]
        assert dicts(stored[: len(history)]) == snapshot  # the checkpoint holds the history as it was
    alone = request_verdict(dicts(seen["alone"]), "langchain", TARGET)
    guarded = request_verdict(dicts(seen["guarded"]), "langchain", TARGET)
    assert alone.legal is ALONE_LEGAL[name], (name, alone)
    assert guarded.legal, (name, guarded.violations)
    firsts = {m.tool_call_id: m.content for m in reversed(history) if isinstance(m, ToolMessage)}
    called = {c["id"] for m in history if isinstance(m, AIMessage) for c in m.tool_calls}
    assert {(k, v) for k, v in firsts.items() if k in called} <= set(guarded.results)
    assert dicts(history) == snapshot  # the caller's messages are never changed


def request_of(messages: list[BaseMessage], model: Any = None) -> ModelRequest:
    return ModelRequest(model=model or RecordingModel(responses=[AIMessage("x")]), messages=messages,
                        system_message=None, tool_choice=None, tools=[], response_format=None, state={"messages": []},
                        runtime=None)


def test_a_healthy_request_is_handed_on_as_the_very_same_object() -> None:
    messages = [HumanMessage("q"), ai_call("c1"), ToolMessage("found q", tool_call_id="c1")]
    request = request_of(messages)
    received: list[Any] = []
    ToolCallIntegrityMiddleware().wrap_model_call(request, lambda r: received.append(r) or AIMessage("ok"))

    async def handler(r: Any) -> Any:
        received.append(r)
        return AIMessage("ok")

    asyncio.run(ToolCallIntegrityMiddleware().awrap_model_call(request, handler))
    assert received[0] is request and received[1] is request
    assert all(a is b for a, b in zip(request.messages, messages, strict=True))


def test_a_repaired_request_reuses_the_unchanged_message_objects() -> None:
    history = HISTORIES["interrupted run"]
    request = request_of(list(history))
    received: list[Any] = []
    ToolCallIntegrityMiddleware().wrap_model_call(request, lambda r: received.append(r) or AIMessage("ok"))
    sent = received[0].messages
    assert received[0] is not request and request.messages == history
    for message in history:
        assert any(m is message for m in sent)
    receipt = next(m for m in sent if isinstance(m, ToolMessage) and m.tool_call_id == "c2")
    assert receipt.name == "lookup" and "interrupted" in str(receipt.content)


def test_target_provider_from_the_chat_model() -> None:
    class ChatAnthropic(RecordingModel):
        pass

    assert provider_for_chat_model(ChatAnthropic(responses=[])) == "anthropic"
    assert provider_for_chat_model(RecordingModel(responses=[])) is None


def test_modes_report_and_raise_and_the_log_line(caplog: pytest.LogCaptureFixture) -> None:
    reports: list[GuardReport] = []
    request = request_of(list(HISTORIES["duplicate result"]))
    received: list[Any] = []
    with caplog.at_level(logging.INFO, logger="integrity.guards"):
        ToolCallIntegrityMiddleware(mode="report", on_report=reports.append).wrap_model_call(
            request, lambda r: received.append(r) or AIMessage("ok"))
    assert received[0] is request and reports[0].counts.get("duplicates_dropped") == 1
    assert len(caplog.records) == 1 and "[langchain]" in caplog.records[0].getMessage()
    with pytest.raises(ToolCallIntegrityError):
        ToolCallIntegrityMiddleware(mode="raise").wrap_model_call(request, lambda r: AIMessage("never"))


def test_a_moved_result_is_the_same_message_object_with_its_artifact() -> None:
    """A result recorded after the next user turn moves back behind its call; nothing of it is rebuilt."""
    late = ToolMessage("found q", tool_call_id="c1", artifact={"rows": [1, 2]}, status="success", id="t1")
    history = with_ids([HumanMessage("q"), ai_call("c1")])
    history += [HumanMessage("hurry", id="h2"), late]
    received: list[Any] = []
    ToolCallIntegrityMiddleware(provider=TARGET).wrap_model_call(
        request_of(history), lambda r: received.append(r) or AIMessage("ok"))
    sent = received[0].messages
    assert [type(m).__name__ for m in sent] == ["HumanMessage", "AIMessage", "ToolMessage", "HumanMessage"]
    assert sent[2] is late and sent[2].artifact == {"rows": [1, 2]}
    assert request_verdict(dicts(sent), "langchain", TARGET).legal


def test_a_run_of_several_model_calls_reads_only_the_new_messages() -> None:
    """LangGraph hands every model call of a run the same message objects plus the new ones: the guard's
    memo reads only those (the requests stay the very same objects, untouched)."""
    middleware = guard()
    agent, model = agent_for([middleware], [ai_call("c1"), ai_call("c2"), ai_call("c3"), AIMessage("done")])
    agent.invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "t"}})
    assert len(model.seen) == 4 and middleware.memo.resumed == 3
    assert all(request_verdict(dicts(seen), "langchain", TARGET).legal for seen in model.seen)


# --- calls LangChain could not parse (AIMessage.invalid_tool_calls) -------------------------------------

def invalid_call(call_id: str | None, args: str = '{"q": "x', name: str | None = "lookup") -> dict[str, Any]:
    """A call whose arguments were cut off (max_tokens hit mid-call) or are not JSON, as the partner models
    record it: ChatOpenAI and ChatAnthropic both still send it (a tool_call, a tool_use block)."""
    return {"name": name, "args": args, "id": call_id, "error": "arguments are not valid JSON",
            "type": "invalid_tool_call"}


def sent_for(history: list[BaseMessage], target: str | None, **options: Any) -> list[BaseMessage]:
    """What the model is handed for `history` through the middleware (one direct model call)."""
    received: list[Any] = []
    ToolCallIntegrityMiddleware(provider=target, **options).wrap_model_call(
        request_of(list(history)), lambda r: received.append(r) or AIMessage("ok"))
    return received[0].messages


@pytest.mark.parametrize("target", ["anthropic", "openai-chat"])
def test_langchains_own_answer_to_an_invalid_call_is_kept(target: str) -> None:
    """create_agent answers a call it could not parse with an error ToolMessage (_patch_invalid_tool_calls) and
    sends a legal request; the guard took that answer for a stray and dropped it, leaving the call (which
    both partner models send) without an answer."""
    truncated = AIMessage("Let me look that up.", invalid_tool_calls=[invalid_call("call_Ab12")],
                          response_metadata={"finish_reason": "length"})
    seen: dict[str, list[BaseMessage]] = {}
    for label, middleware in (("alone", []), ("guarded", [ToolCallIntegrityMiddleware(provider=target)])):
        agent, model = agent_for(middleware, [truncated, AIMessage("retrying"), AIMessage("hi!")])
        config = {"configurable": {"thread_id": label}}
        agent.invoke({"messages": [HumanMessage("look x up")]}, config)
        agent.invoke({"messages": [HumanMessage("hello?")]}, config)
        seen[label] = model.seen[-1]
    for label in ("alone", "guarded"):
        sent = seen[label]
        assert [type(m).__name__ for m in sent] == ["HumanMessage", "AIMessage", "ToolMessage", "HumanMessage"]
        assert sent[1].invalid_tool_calls == truncated.invalid_tool_calls
        assert sent[2].tool_call_id == "call_Ab12" and sent[2].status == "error"
        assert "malformed or truncated" in str(sent[2].content)  # LangChain's own answer, kept
        assert request_verdict(dicts(sent), "langchain", target).legal


@pytest.mark.parametrize("target", ["anthropic", "openai-chat", "mistral"])
def test_a_dangling_invalid_call_is_answered_and_written_back_as_it_was(target: str) -> None:
    truncated = AIMessage("Let me look that up.", id="a1", response_metadata={"finish_reason": "length"},
                          invalid_tool_calls=[invalid_call("call_Ab12")])
    history = [HumanMessage("q", id="h1"), truncated, HumanMessage("again", id="h2")]
    alone = request_verdict(dicts(history), "langchain", target)
    assert not alone.legal  # the call goes on the wire without an answer
    sent = sent_for(history, target)
    kinds = ["HumanMessage", "AIMessage", "ToolMessage", "HumanMessage"]
    if target == "mistral":  # Mistral wants an assistant turn between results and the next user turn
        kinds.insert(3, "AIMessage")
    assert [type(m).__name__ for m in sent] == kinds
    written, answer = sent[1], sent[2]
    (call,) = written.invalid_tool_calls
    assert answer.tool_call_id == call["id"] and answer.status == "error" and answer.name == "lookup"
    assert "not executed" in str(answer.content)  # no tool ran: the engine's answer to unparseable arguments
    expected = truncated.model_dump()
    # the strict view sends {} for arguments that are no JSON object (the report keeps the text)
    expected["invalid_tool_calls"][0]["args"] = "{}"
    if target == "mistral":  # Mistral takes 9-character ids only: the repair renames it
        assert call["id"] != "call_Ab12" and len(call["id"]) == 9
        expected["invalid_tool_calls"][0]["id"] = call["id"]
    assert written.model_dump() == expected  # still an invalid call, its error and every other field as recorded
    assert request_verdict(dicts(sent), "langchain", target).legal
    assert truncated.invalid_tool_calls[0]["id"] == "call_Ab12"  # the caller's message is never changed


@pytest.mark.parametrize("target", ["anthropic", "openai-chat"])
def test_an_invalid_call_without_an_id_is_given_one_and_answered(target: str) -> None:
    """LangChain leaves such a call unanswered (it has no id to answer); ChatOpenAI sends it with a null id,
    which OpenAI refuses.  The repair names it, as it names a parsed call without an id, and answers it:
    ChatAnthropic then sends it too (it skipped it for want of an id), answered."""
    truncated = AIMessage("", id="a1", invalid_tool_calls=[invalid_call(None)])
    sent = sent_for([HumanMessage("q", id="h1"), truncated, HumanMessage("again", id="h2")], target)
    (call,) = sent[1].invalid_tool_calls
    assert isinstance(call["id"], str) and call["id"] and isinstance(sent[2], ToolMessage)
    assert sent[2].tool_call_id == call["id"]
    assert {**call, "id": None, "args": '{"q": "x'} == truncated.invalid_tool_calls[0]
    assert request_verdict(dicts(sent), "langchain", target).legal


def test_a_valid_and_an_invalid_call_of_one_turn_are_both_answered() -> None:
    parsed = {"name": "lookup", "args": {"q": 1}, "id": "call_ok", "type": "tool_call"}
    turn = AIMessage("", id="a1", tool_calls=[parsed], invalid_tool_calls=[invalid_call("call_bad", "{")])
    history = [HumanMessage("q", id="h1"), turn, ToolMessage("found 1", tool_call_id="call_ok", id="t1"),
               HumanMessage("again", id="h2")]
    sent = sent_for(history, "openai-chat")
    assert [m.tool_call_id for m in sent if isinstance(m, ToolMessage)] == ["call_ok", "call_bad"]
    assert sent[1].tool_calls == turn.tool_calls
    assert sent[1].invalid_tool_calls == [{**turn.invalid_tool_calls[0], "args": "{}"}]
    assert request_verdict(dicts(sent), "langchain", "openai-chat").legal


def test_the_cli_judges_a_langchain_file_with_an_invalid_call_as_the_guard_does(tmp_path: Any) -> None:
    """The CLI reads a LangChain file with the guard's reader: answered by LangChain, the file passes and the
    guard hands the request on untouched; left dangling, both find the call unanswered.  Written back,
    the invalid call is the one recorded."""
    from cli_inprocess import run

    truncated = AIMessage("Let me look that up.", id="a1", invalid_tool_calls=[invalid_call("toolu_01Ab")])
    answer = ToolMessage("Tool call lookup with id toolu_01Ab could not be executed - arguments were malformed or "
                         "truncated.", tool_call_id="toolu_01Ab", name="lookup", status="error", id="t1")
    answered = [HumanMessage("q", id="h1"), truncated, answer, HumanMessage("again", id="h2")]
    dangling = [HumanMessage("q", id="h1"), truncated, HumanMessage("again", id="h2")]
    for name, history, code in (("answered", answered, 0), ("dangling", dangling, 1)):
        path = tmp_path / f"{name}.langchain.json"
        path.write_text(json.dumps(dicts(history)))
        assert run("check", "--provider", TARGET, path).code == code, name
        request = request_of(list(history))
        handed: list[Any] = []
        guard().wrap_model_call(request, handed.append)
        assert (handed[0] is request) is (code == 0), name
    out = tmp_path / "out.langchain.json"
    assert run("repair", "--provider", TARGET, tmp_path / "dangling.langchain.json", "-o", out).code == 0
    repaired = json.loads(out.read_text())
    recorded = dicts([truncated])[0]
    recorded["data"]["invalid_tool_calls"][0]["args"] = "{}"  # sent as {}; the report keeps the text
    assert repaired[1] == recorded
    assert repaired[2]["data"]["tool_call_id"] == "toolu_01Ab" and repaired[2]["data"]["status"] == "error"
    assert run("check", "--provider", TARGET, out).code == 0


# --- renamed ids in the content blocks the partner models send ---------------------------------------

def anthropic_turn(call_id: str, message_id: str) -> AIMessage:
    """As ChatAnthropic records a turn: thinking, text and tool_use blocks (which it sends as they are)."""
    return AIMessage([{"type": "thinking", "thinking": "hmm", "signature": "sig=="},
                      {"type": "text", "text": "calling"},
                      {"type": "tool_use", "id": call_id, "name": "lookup", "input": {"q": "x"}}],
                     tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": call_id, "type": "tool_call"}],
                     id=message_id)


def v1_turn(call_id: str, message_id: str) -> AIMessage:
    """output_version="v1": standard `tool_call` blocks in the content."""
    return AIMessage([{"type": "reasoning", "reasoning": "think"}, {"type": "text", "text": "ok"},
                      {"type": "tool_call", "id": call_id, "name": "lookup", "args": {"q": "x"}}],
                     tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": call_id, "type": "tool_call"}],
                     id=message_id, response_metadata={"output_version": "v1", "model_provider": "anthropic"})


def responses_turn(call_id: str, message_id: str) -> AIMessage:
    """ChatOpenAI with the Responses API: `function_call` items (named by call_id) in the content."""
    return AIMessage([{"type": "reasoning", "id": f"rs_{message_id}", "summary": []},
                      {"type": "function_call", "id": f"fc_{message_id}", "call_id": call_id, "name": "lookup",
                       "arguments": '{"q":"x"}'}],
                     tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": call_id, "type": "tool_call"}],
                     id=message_id, response_metadata={"id": f"resp_{message_id}", "model_provider": "openai"})


def named_in_content(message: BaseMessage) -> list[Any]:
    return [block.get("call_id", block.get("id")) for block in message.content
            if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_call", "function_call")]


@pytest.mark.parametrize(("turn", "target"), [(anthropic_turn, "anthropic"), (v1_turn, "anthropic"),
                                              (responses_turn, "openai-responses")],
                         ids=["anthropic-tool_use", "v1-tool_call", "responses-function_call"])
def test_a_renamed_call_id_is_renamed_in_the_content_blocks_that_name_it(turn: Any, target: str) -> None:
    """A reused id is renamed in the second turn; ChatAnthropic and ChatOpenAI(use_responses_api) send the
    content blocks, so a block keeping the old id put an unanswered call (and a duplicate id) on the wire."""
    first, second = turn("c1", "a1"), turn("c1", "a2")
    history = [HumanMessage("q", id="h1"), first, ToolMessage("r", tool_call_id="c1", id="t1"),
               HumanMessage("again", id="h2"), second, HumanMessage("go", id="h3")]
    sent = sent_for(history, target)
    written = next(m for m in sent if m.id == "a2")
    (call,) = written.tool_calls
    assert call["id"] != "c1" and named_in_content(written) == [call["id"]]
    assert next(m for m in sent if m.id == "a1") is first and named_in_content(first) == ["c1"]
    assert named_in_content(second) == ["c1"]  # the caller's message is never changed
    assert any(isinstance(m, ToolMessage) and m.tool_call_id == call["id"] for m in sent)
    assert request_verdict(dicts(sent), "langchain", target).legal


def test_a_renamed_call_id_is_renamed_in_raw_openai_tool_calls_too() -> None:
    """Messages recorded by older ChatOpenAI keep the raw calls in additional_kwargs["tool_calls"]: renamed
    with the parsed ones, so nothing in the message still names the old id."""
    def legacy(call_id: str, message_id: str) -> AIMessage:
        raw = {"id": call_id, "type": "function", "function": {"name": "lookup", "arguments": '{"q": "x"}'}}
        return AIMessage("", id=message_id, additional_kwargs={"tool_calls": [raw]},
                         tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": call_id, "type": "tool_call"}])

    second = legacy("c1", "a2")
    history = [HumanMessage("q", id="h1"), legacy("c1", "a1"), ToolMessage("r", tool_call_id="c1", id="t1"),
               HumanMessage("again", id="h2"), second, HumanMessage("go", id="h3")]
    written = next(m for m in sent_for(history, "openai-chat") if m.id == "a2")
    (call,) = written.tool_calls
    assert call["id"] != "c1" and [raw["id"] for raw in written.additional_kwargs["tool_calls"]] == [call["id"]]
    assert second.additional_kwargs["tool_calls"][0]["id"] == "c1"


# --- chunks and conversion back -------------------------------------------------------------------------

def streamed(call_id: str, message_id: str) -> AIMessageChunk:
    """A turn left in the state as streaming built it (an AIMessageChunk: its calls are its tool_call_chunks)."""
    return AIMessageChunk("", id=message_id, tool_call_chunks=[
        ToolCallChunk(name="lookup", args='{"q": "x"}', id=call_id, index=0)])


@pytest.mark.parametrize("target", ["anthropic", "openai-chat", "mistral"])
@pytest.mark.parametrize("mode", ["repair", "report"])
def test_a_chunk_the_repair_rebuilds_stays_a_chunk(target: str, mode: str) -> None:
    """The writer wrote a chunk back as {"type": "ai", "data": {"type": "AIMessageChunk"...}}, which LangChain
    refuses: the guard raised out of the model call, in every mode."""
    history = [HumanMessage("q", id="h1"), streamed("c1", "a1"), ToolMessage("r", tool_call_id="c1", id="t1"),
               HumanMessage("again", id="h2"), streamed("c1", "a2"), HumanMessage("go", id="h3")]
    reports: list[GuardReport] = []
    sent = sent_for(history, target, mode=mode, on_report=reports.append)
    assert reports and reports[0].counts
    if mode == "report":
        assert all(a is b for a, b in zip(sent, history, strict=True))
        return
    written = next(m for m in sent if m.id == "a2")
    assert type(written) is AIMessageChunk
    (call,) = written.tool_calls
    assert call["id"] != "c1" and [c["id"] for c in written.tool_call_chunks] == [call["id"]]
    assert any(isinstance(m, ToolMessage) and m.tool_call_id == call["id"] for m in sent)
    assert request_verdict(dicts(sent), "langchain", target).legal


@pytest.mark.parametrize("quiet", [True, False], ids=["direct", "pipeline"])
@pytest.mark.parametrize("mode", ["repair", "report"])
def test_the_request_goes_as_it_is_when_its_repair_cannot_be_made_into_messages(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, mode: str, quiet: bool) -> None:
    """docs/guards.md: a guard never stops an agent over a shape it does not know.  Turning the repaired
    entries back into LangChain messages ran outside the guard's error handling."""
    import integrity.guards.langchain as module

    def refuse(entry: Any) -> Any:
        raise ValueError("not a message LangChain builds")

    monkeypatch.setattr(module, "_message", refuse)
    request = request_of(list(HISTORIES["interrupted run"]))
    received: list[Any] = []
    middleware = ToolCallIntegrityMiddleware(mode=mode, on_report=None if quiet else (lambda r: None))
    with caplog.at_level(logging.WARNING, logger="integrity.guards"):
        middleware.wrap_model_call(request, lambda r: received.append(r) or AIMessage("ok"))
    assert received[0] is request
    failed = [r for r in caplog.records if r.exc_info is not None]
    assert failed and "not a message LangChain builds" in str(failed[0].exc_info[1])


@pytest.mark.parametrize("dialect", ["messages_to_dict", "dumpd", "flat"])
def test_a_file_with_invalid_calls_and_chunks_is_written_back_as_read(dialect: str) -> None:
    """The LangChain reader is the CLI's too: an invalid call (read as a call), one without a name (no call:
    kept where it was) and a streamed chunk come back byte for byte in each serialization."""
    from langchain_core.load import dumpd

    from integrity.formats import read_bytes, write_bytes

    history = [HumanMessage("q", id="h1"),
               AIMessage("", id="a1", invalid_tool_calls=[invalid_call(None, name=None), invalid_call("call_bad")]),
               ToolMessage("could not be executed", tool_call_id="call_bad", status="error", id="t1"),
               streamed("c9", "a2"), ToolMessage("found x", tool_call_id="c9", id="t2")]
    entries = {"messages_to_dict": dicts(history), "dumpd": [dumpd(m) for m in history],
               "flat": [m.model_dump() for m in history]}[dialect]
    data = json.dumps(entries).encode()
    transcript = read_bytes(data, "in.json")
    written_as = "langgraph" if dialect == "flat" else "langchain"  # LangGraph's API: the same reader, flat
    assert transcript.format == written_as
    calls = [p for m in transcript.messages if m["role"] == "assistant" for p in m["content"]]
    assert [(p["id"], p["name"], p["arguments"]) for p in calls] == [("call_bad", "lookup", {}),
                                                                      ("c9", "lookup", {"q": "x"})]
    assert json.loads(write_bytes(transcript, transcript.messages, written_as)) == entries


# --- what langchain-openai really sends (ChatOpenAI builds its payload without a network call) ---------------

def chat_openai(responses: bool) -> Any:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="gpt-4.1", api_key="unused", use_responses_api=responses)


def reused_id_history() -> list[BaseMessage]:
    """Two answered turns whose calls share one id (models that number their calls per turn: call_0 each time)."""
    call = {"name": "lookup", "args": {"q": "x"}, "id": "call_0", "type": "tool_call"}
    return [HumanMessage("q", id="h1"), AIMessage("", id="a1", tool_calls=[call]),
            ToolMessage("first answer", tool_call_id="call_0", id="t1"), HumanMessage("and y?", id="h2"),
            AIMessage("", id="a2", tool_calls=[{**call, "args": {"q": "y"}}]),
            ToolMessage("second answer", tool_call_id="call_0", id="t2"), HumanMessage("thanks", id="h3")]


def test_chatopenai_on_the_responses_api_gets_reused_ids_renamed_so_no_call_is_left_out() -> None:
    """langchain-openai's Responses input skips a tool call whose id an earlier input item has: alone, the second
    call never reaches the model and its result reads as the first call's.  The engine finds the history
    healthy (the Responses API takes a reused id), so the guard sends the view with the reused id renamed
    only for a model that drops reused calls."""
    history = reused_id_history()
    model = chat_openai(responses=True)
    alone = model._get_request_payload(history)["input"]
    assert [item["arguments"] for item in alone if item.get("type") == "function_call"] == ['{"q": "x"}']
    received: list[Any] = []
    ToolCallIntegrityMiddleware().wrap_model_call(request_of(list(history), model),
                                                  lambda r: received.append(r) or AIMessage("ok"))
    sent = received[0].messages
    wire = model._get_request_payload(sent)["input"]
    calls = [item for item in wire if item.get("type") == "function_call"]
    outputs = [item for item in wire if item.get("type") == "function_call_output"]
    assert [c["arguments"] for c in calls] == ['{"q": "x"}', '{"q": "y"}']  # both calls on the wire
    assert len({c["call_id"] for c in calls}) == 2 and calls[0]["call_id"] == "call_0"
    assert [(o["call_id"], o["output"]) for o in outputs] == [(calls[0]["call_id"], "first answer"),
                                                              (calls[1]["call_id"], "second answer")]
    assert [wire.index(o) for o in outputs] == [wire.index(c) + 1 for c in calls]  # each right after its call
    assert request_verdict(dicts(sent), "langchain", "openai-responses").legal
    assert history[4].tool_calls[0]["id"] == "call_0" and history[5].tool_call_id == "call_0"  # state unchanged


def test_chatopenai_on_chat_completions_sends_reused_ids_as_they_are() -> None:
    """Chat Completions sends every call of each turn (a reused id is legal there): the request goes as it is."""
    history = reused_id_history()
    model = chat_openai(responses=False)
    request = request_of(list(history), model)
    received: list[Any] = []
    ToolCallIntegrityMiddleware().wrap_model_call(request, lambda r: received.append(r) or AIMessage("ok"))
    assert received[0] is request
    wire = model._get_request_payload(history)["messages"]
    assert [call["id"] for m in wire for call in m.get("tool_calls", [])] == ["call_0", "call_0"]
