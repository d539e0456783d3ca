"""LangGraph threads whose `messages` channel is a DeltaChannel (langgraph 1.2, beta) are read as LangGraph reads them.

Such a channel stores no value in most checkpoints, only a snapshot every `snapshot_frequency` updates; LangGraph
rebuilds it from the nearest snapshot and the writes since.  A reader of `channel_values` alone saw no message
and called a broken thread healthy.  Each store here is written by LangGraph's own checkpointer (SQLite, and a real
Postgres server), and what we read must be what the runtime's `get_state` gives, message for message."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage, messages_to_dict
from langgraph.channels.delta import DeltaChannel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import _messages_delta_reducer
from test_guard_stores import fresh_saver, model_tool_loop, postgres  # noqa: F401 - the fixture: a real PostgreSQL server
from typing_extensions import TypedDict

from integrity import check
from integrity.guards.stores import UNREADABLE, read_store, read_store_each, read_threads
from integrity.loading import Transcript, TranscriptError


class Delta(TypedDict):
    """LangGraph's messages channel as a DeltaChannel with its default snapshot frequency (a snapshot every 100
    updates: a short thread has none, every message is replayed from the writes)."""
    messages: Annotated[list[AnyMessage], DeltaChannel(_messages_delta_reducer)]


class Snapshotted(TypedDict):
    """The same, with a snapshot every 2 updates: the rebuild starts at a snapshot (the seed) and replays the rest."""
    messages: Annotated[list[AnyMessage], DeltaChannel(_messages_delta_reducer, snapshot_frequency=2)]


class Plain(TypedDict):
    question: str


def _graph(saver: Any, every: int, raising: bool, turns: int) -> Any:
    """A model that calls the tool `f` `turns` times, then answers; the tool raises on the last call when `raising`
    (the call is checkpointed, its result never is: the reported LangGraph failure)."""

    def model(state: dict[str, Any]) -> dict[str, Any]:
        made = sum(1 for m in state["messages"] if isinstance(m, AIMessage))
        if made < turns:
            call = {"id": f"call_{made}", "name": "f", "args": {"n": made}, "type": "tool_call"}
            return {"messages": [AIMessage("", id=f"a{made}", tool_calls=[call])]}
        return {"messages": [AIMessage("done", id=f"a{made}")]}

    def tools(state: dict[str, Any]) -> dict[str, Any]:
        call = state["messages"][-1].tool_calls[0]
        if raising and call["id"] == f"call_{turns - 1}":
            raise RuntimeError("disk full")
        return {"messages": [ToolMessage(f"r{call['args']['n']}", tool_call_id=call["id"], id=f"t{call['id']}")]}

    def route(state: dict[str, Any]) -> str:
        return "tools" if state["messages"][-1].tool_calls else END

    return model_tool_loop(Snapshotted if every == 2 else Delta, model, tools, route, saver)


def _plain_graph(saver: Any) -> Any:
    graph = StateGraph(Plain)
    graph.add_node("answer", lambda state: {"question": state["question"] + "?"})
    graph.add_edge(START, "answer")
    graph.add_edge("answer", END)
    return graph.compile(checkpointer=saver)


def _write_threads(saver: Any) -> dict[str, list[dict[str, Any]]]:
    """The threads every test reads, and what LangGraph's get_state gives for each one's messages."""
    seen: dict[str, list[dict[str, Any]]] = {}
    for thread, every, raising in (("broken", 100, True), ("healthy", 100, False), ("snapshots", 2, True)):
        graph = _graph(saver, every, raising, turns=4)
        config = {"configurable": {"thread_id": thread}}
        if raising:
            with pytest.raises(RuntimeError, match="disk full"):
                graph.invoke({"messages": [HumanMessage("hi", id="h1")]}, config)
        else:
            graph.invoke({"messages": [HumanMessage("hi", id="h1")]}, config)
        seen[thread] = messages_to_dict(graph.get_state(config).values["messages"])
    _plain_graph(saver).invoke({"question": "why"}, {"configurable": {"thread_id": "no_messages"}})
    return seen


def _checked(transcript: Transcript) -> Any:
    return check(transcript, provider="anthropic", policy="strict")


def _assert_read_as_langgraph_reads(url: str, seen: dict[str, list[dict[str, Any]]]) -> None:
    found = {item.name if isinstance(item, Transcript) else item.position: item for item in read_store_each(url)}
    assert set(found) == {"thread:broken", "thread:healthy", "thread:snapshots", "thread:no_messages"}
    stored = {name: (format, entries) for name, format, entries, _ in read_threads(url, sorted(seen))}
    # the runtime's own view, message for message
    assert stored == {f"thread:{thread}": ("langchain", messages) for thread, messages in seen.items()}
    assert len(seen["broken"]) == 8 and len(seen["snapshots"]) == 8 and len(seen["healthy"]) == 10
    broken = _checked(found["thread:broken"])
    assert not broken.healthy and broken.summary.orphaned_calls == 1  # the call whose tool raised
    snapshots = _checked(found["thread:snapshots"])
    assert not snapshots.healthy and snapshots.summary.orphaned_calls == 1
    assert _checked(found["thread:healthy"]).healthy
    missing = found["thread:no_messages"]
    assert isinstance(missing, TranscriptError)  # nothing to judge is not "healthy: 0 messages"
    assert "no 'messages' channel" in missing.problem
    rows = {name: format for name, format, _, _ in read_threads(url, ["broken", "no_messages"])}
    assert rows == {"thread:broken": "langchain", "thread:no_messages": UNREADABLE}
    with pytest.raises(TranscriptError, match="no 'messages' channel"):
        read_store(url + "?thread=no_messages")


def _snapshot_checkpoints(saver: Any, thread: str) -> int:
    """How many checkpoints of the thread store a DeltaChannel snapshot (the seed path is really taken)."""
    from langgraph.checkpoint.serde.types import _DeltaSnapshot

    config = {"configurable": {"thread_id": thread}}
    return sum(isinstance(item.checkpoint["channel_values"].get("messages"), _DeltaSnapshot)
               for item in saver.list(config))


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[tuple[Path, dict[str, list[dict[str, Any]]]]]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path / "delta.db"
    connection = sqlite3.connect(str(path), check_same_thread=False)
    saver = SqliteSaver(connection)
    seen = _write_threads(saver)
    latest = saver.get_tuple({"configurable": {"thread_id": "broken"}})
    assert latest is not None and "messages" not in latest.checkpoint["channel_values"]  # what fooled the reader
    assert _snapshot_checkpoints(saver, "snapshots") >= 2 and _snapshot_checkpoints(saver, "broken") == 0
    connection.close()
    yield path, seen


def test_a_delta_channel_thread_in_sqlite_is_rebuilt_as_langgraph_rebuilds_it(
        sqlite_store: tuple[Path, dict[str, list[dict[str, Any]]]]) -> None:
    path, seen = sqlite_store
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    beside = sorted(p.name for p in path.parent.iterdir())
    _assert_read_as_langgraph_reads(f"langgraph+sqlite://{path}", seen)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # read-only: no setup(), no WAL switch
    assert sorted(p.name for p in path.parent.iterdir()) == beside


def test_check_says_a_delta_channel_thread_is_broken(sqlite_store: tuple[Path, Any],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from integrity.cli import main

    path, _ = sqlite_store
    assert main(["check", f"langgraph+sqlite://{path}?thread=broken", "--provider", "anthropic"]) == 1
    out = capsys.readouterr().out
    assert "call_3" in out and "0 messages" not in out


def test_a_delta_channel_thread_in_postgres_is_rebuilt_as_langgraph_rebuilds_it(postgres: str) -> None:  # noqa: F811
    import psycopg

    with fresh_saver(postgres) as saver:
        seen = _write_threads(saver)
        assert _snapshot_checkpoints(saver, "snapshots") >= 2
        before = saver.conn.execute("SELECT count(*) FROM checkpoint_writes").fetchone()
    _assert_read_as_langgraph_reads(f"langgraph+postgresql://{postgres}", seen)
    with psycopg.connect(f"postgresql://{postgres}") as connection:
        assert connection.execute("SELECT count(*) FROM checkpoint_writes").fetchone() == before
