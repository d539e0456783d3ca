"""The LangChain guard against the real `create_agent` (LangGraph underneath) with a fake chat model.

Each broken history is run through an agent with a checkpointer, once as LangChain sends it on its own
and once with `middleware=[ToolCallIntegrityMiddleware()]`; what the fake model received is judged by
the engine's rule sets for the target provider (`request_verdict` on the LangChain messages).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import langchain  # noqa: E402,F401 - never skipped: requirements-dev.txt installs it
import pytest
from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import ModelRequest  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, messages_to_dict  # noqa: E402
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
