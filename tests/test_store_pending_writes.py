"""A LangGraph thread's messages include its latest checkpoint's pending writes, as LangGraph's get_state shows them.

langchain's create_agent runs each tool call as its own Send task: when one raises, the others' results are stored
as the checkpoint's pending writes, and a resume sends them without running those tools again.  A
`Command(update=...)` sent while the run waits on an interrupt is stored the same way (the null task's writes: the
checkpoint's own state).  Reading channel_values alone left those results out, and a repair made up receipts for
calls whose real results were in the store.  Each store is written by LangGraph's own code, on SQLite and on a
real Postgres server, and what we read must be what get_state gives."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage, messages_to_dict
from langgraph.graph import END
from langgraph.graph.message import add_messages
from langgraph.types import Command, Send, interrupt
from test_guard_stores import fresh_saver, model_tool_loop, postgres  # noqa: F401 - the fixture: a real PostgreSQL server
from typing_extensions import TypedDict

from integrity import check
from integrity.guards.stores import read_store, read_threads


def _agent(saver: Any) -> tuple[Any, dict[str, int]]:
    """create_agent with two tools called in parallel; `explode` raises the first time it runs."""
    from langchain.agents import create_agent
    from langchain_core.tools import tool
    from test_guard_langchain import RecordingModel

    runs = {"lookup": 0, "explode": 0}

    @tool
    def lookup(q: str) -> str:
        """Looks up."""
        runs["lookup"] += 1
        return f"found {q}"

    @tool
    def explode(q: str) -> str:
        """Fails the first time."""
        runs["explode"] += 1
        if runs["explode"] == 1:
            raise RuntimeError("disk full")
        return "exploded fine"

    calls = [{"name": "lookup", "args": {"q": "c1"}, "id": "c1", "type": "tool_call"},
             {"name": "explode", "args": {"q": "c2"}, "id": "c2", "type": "tool_call"}]
    model = RecordingModel(responses=[AIMessage("", tool_calls=calls), AIMessage("done")], seen=[])
    return create_agent(model, [lookup, explode], checkpointer=saver), runs


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def _waiting(saver: Any) -> Any:
    """A model calling two tools as Send tasks; the tool answering c2 waits on an interrupt (human in the loop)."""

    def model(state: dict[str, Any]) -> dict[str, Any]:
        if any(isinstance(m, AIMessage) for m in state["messages"]):
            return {"messages": [AIMessage("done", id="a1")]}
        calls = [{"id": c, "name": "f", "args": {}, "type": "tool_call"} for c in ("c1", "c2")]
        return {"messages": [AIMessage("", id="a0", tool_calls=calls)]}

    def tool(call: dict[str, Any]) -> dict[str, Any]:
        answer = interrupt("approve?") if call["id"] == "c2" else "r"
        return {"messages": [ToolMessage(str(answer), tool_call_id=call["id"], id=f"t{call['id']}")]}

    def route(state: dict[str, Any]) -> Any:
        last = state["messages"][-1]
        return [Send("tool", call) for call in last.tool_calls] if last.tool_calls else END

    return model_tool_loop(State, model, tool, route, saver, tool_name="tool")


def _write(saver: Any) -> dict[str, list[dict[str, Any]]]:
    """Thread "raised": create_agent, lookup returned and explode raised. Thread "waiting": c1 answered, c2 waits
    on an interrupt, and the user added a message with Command(update=...). get_state's messages for each."""
    agent, runs = _agent(saver)
    config: Any = {"configurable": {"thread_id": "raised"}}
    with pytest.raises(RuntimeError, match="disk full"):
        agent.invoke({"messages": [HumanMessage("hi", id="h1")]}, config)
    assert runs == {"lookup": 1, "explode": 1}
    seen = {"raised": messages_to_dict(agent.get_state(config).values["messages"])}
    graph = _waiting(saver)
    config = {"configurable": {"thread_id": "waiting"}}
    graph.invoke({"messages": [HumanMessage("hi", id="h1")]}, config)
    graph.invoke(Command(update={"messages": [HumanMessage("also this", id="hx")]}), config)
    seen["waiting"] = messages_to_dict(graph.get_state(config).values["messages"])
    return seen


def _assert_read_as_get_state(url: str, seen: dict[str, list[dict[str, Any]]]) -> None:
    assert [m["data"].get("tool_call_id") for m in seen["raised"] if m["type"] == "tool"] == ["c1"]
    assert "hx" in [m["data"]["id"] for m in seen["waiting"]]
    stored = {name: entries for name, _, entries, _ in read_threads(url, sorted(seen))}
    assert stored == {f"thread:{thread}": messages for thread, messages in seen.items()}
    [raised] = read_store(url + "?thread=raised")
    result = check(raised, provider="anthropic", policy="strict")
    assert result.summary.orphaned_calls == 1 and result.summary.synthesized == 1  # c2 only: c1's stored result
    assert "after: c2." in str(result.providers["anthropic"])  # is sent, never made up


def test_pending_writes_are_read_from_sqlite(tmp_path: Path) -> None:
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path / "agent.db"
    connection = sqlite3.connect(str(path), check_same_thread=False)
    seen = _write(SqliteSaver(connection))
    connection.close()
    _assert_read_as_get_state(f"langgraph+sqlite://{path}", seen)


def test_pending_writes_are_read_from_postgres(postgres: str) -> None:  # noqa: F811
    with fresh_saver(postgres) as saver:
        seen = _write(saver)
    _assert_read_as_get_state(f"langgraph+postgresql://{postgres}", seen)
