"""LangGraph checkpointers read as LangGraph reads them: the latest root checkpoint of each thread, decoded by
LangGraph's own serializer in its strict mode, its `messages` channel rebuilt as LangGraph rebuilds it (a
DeltaChannel's from its snapshot and the writes since).  integrity.guards.stores calls these."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..loading import TranscriptError
from .store_db import UNREADABLE, Thread, among, on_postgres, one_line, postgres_connection, read_sqlite, redacted

_T = TypeVar("_T")


def read_langgraph(base: str, threads: list[str] | None) -> list[Thread]:
    """The threads (all, or the named ones) of the LangGraph checkpointer at `base`, on SQLite or Postgres."""
    if on_postgres(base):
        return langgraph_postgres_threads(base, threads)
    try:
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    except ImportError as error:
        raise TranscriptError(redacted(base), "", "cannot read it: LangGraph's checkpoint serializer is not "
                              f"installed (pip install langgraph-checkpoint-sqlite): {one_line(error)}") from None
    serde = safe_serializer(JsonPlusSerializer)
    return read_sqlite(base, lambda connection: langgraph_sqlite_threads(connection, serde, threads))


def langgraph_thread_ids(base: str) -> list[str]:
    """The ids of the checkpointer's threads (their root checkpoints), in one read."""
    sql = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
    if on_postgres(base):
        with postgres_connection(base) as connection:
            return [str(row["thread_id"]) for row in connection.execute(sql).fetchall()]
    return read_sqlite(base, lambda connection: [str(row[0]) for row in connection.execute(sql)])

def safe_serializer(serializer: Callable[..., _T]) -> _T:
    """LangGraph's checkpoint serializer in its strict mode: a msgpack value naming a type outside LangGraph's own
    list of safe ones (its messages, datetimes, uuids, ...) is not constructed.  Its default imports and calls
    whatever module and function a checkpoint names, so reading a store someone else wrote would run their code;
    a store is untrusted input here (the strict mode is what LANGGRAPH_STRICT_MSGPACK=true turns on)."""
    return serializer(allowed_msgpack_modules=None)


def langgraph_sqlite_threads(connection: sqlite3.Connection, serde: Any, threads: list[str] | None) -> list[Thread]:
    """The latest root checkpoint of each thread: its `messages` channel, decoded by LangGraph's serializer
    (a thread it cannot decode is that thread's UNREADABLE entry)."""
    sql = ("SELECT thread_id, checkpoint_id, type, checkpoint FROM checkpoints AS c WHERE checkpoint_ns = '' AND "
           "checkpoint_id = (SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = c.thread_id AND "
           "checkpoint_ns = '')")
    where, parameters = among("thread_id", threads, "AND")
    rows = connection.execute(sql + where + " ORDER BY thread_id", parameters).fetchall()
    out = []
    for thread_id, checkpoint_id, kind, blob in rows:
        name = f"thread:{thread_id}"
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}}
        try:
            checkpoint = serde.loads_typed((kind, blob))
        except Exception as error:  # a serializer it was not written with, a corrupt blob: this thread's error
            out.append(Thread(name, UNREADABLE, [f"LangGraph cannot decode its latest checkpoint (type {kind!r}): "
                                                 f"{one_line(error)}"]))
            continue
        try:
            pending = _pending_writes(connection, serde, thread_id, checkpoint_id)
            out.append(Thread(name, "langchain", _messages(checkpoint, lambda: _sqlite_saver(connection, serde), config,
                                                           pending)))
        except Exception as error:
            out.append(Thread(name, UNREADABLE, [str(error) if isinstance(error, _NoMessages) else
                                                 f"LangGraph cannot rebuild its messages: {one_line(error)}"]))
    return out


class _NoMessages(Exception):
    """A thread whose latest checkpoint has no `messages` channel: nothing to judge, which is not healthy."""


def _messages(checkpoint: Any, saver: Callable[[], Any], config: Any, pending: Sequence[Any]) -> list[Any]:
    """A checkpoint's `messages` channel as LangChain's message dicts, rebuilt as LangGraph rebuilds it.

    A channel declared as a DeltaChannel (langgraph 1.2, beta) stores no value in most checkpoints, only a
    snapshot every so many updates: LangGraph's own load (pregel's channels_from_checkpoint) takes the nearest
    seed and replays the writes since, with the saver's get_delta_channel_history.  This does the same with
    LangGraph's messages reducer; reading channel_values alone would see no message and call the thread
    healthy.

    Then the checkpoint's pending writes to `messages` (`pending`: (task id, channel, value), in the saver's
    order), as LangGraph's get_state applies them (pregel's _prepare_state_snapshot): first those of the null
    task (a `Command(update=...)` or update_state while the run waits: part of the checkpoint's own state),
    then those of the tasks of the next step that already finished (what a resume sends without running them
    again: a tool node's Send task that returned while another raised or waits on an interrupt).  Without
    them a stored tool result was left out, and a repair made up a receipt for it.  A checkpoint whose state
    never had a `messages` channel, and no write to one, is _NoMessages."""
    from langchain_core.messages import messages_to_dict

    values = checkpoint.get("channel_values") or {}
    writes = [write for write in pending if write[1] == "messages"]
    if "messages" in values:
        stored = values["messages"]
    elif "messages" in (checkpoint.get("channel_versions") or {}):
        stored = _replayed_messages(saver(), config)
    elif writes:
        stored = []
    else:
        raise _NoMessages("its latest checkpoint has no 'messages' channel (the graph keeps no chat history "
                          "under that key), so there is no request to judge")
    try:
        from langgraph.checkpoint.serde.types import _DeltaSnapshot
    except ImportError:  # a LangGraph before DeltaChannel writes no snapshot
        pass
    else:
        if isinstance(stored, _DeltaSnapshot):
            stored = stored.value
    own = [value for task, _, value in writes if task == NULL_TASK_ID]
    for batch in (own, [value for task, _, value in writes if task != NULL_TASK_ID]):
        if batch:
            stored = _updated(list(stored or []), batch)
    return messages_to_dict(list(stored or []))


NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
"""The task id LangGraph stores a checkpoint's own input writes under (langgraph._internal._constants)."""


def _updated(messages: list[Any], values: list[Any]) -> Any:
    """`messages` after one step's writes `values`, as the messages channel folds them: LangGraph's own channel
    (an Overwrite among them resets it), else add_messages one value after the other."""
    try:
        from langgraph.channels.delta import DeltaChannel
        from langgraph.graph.message import _messages_delta_reducer
    except ImportError:
        from langgraph.graph.message import add_messages

        for value in values:
            messages = add_messages(messages, value)  # type: ignore[assignment]
        return messages
    reducer: Any = _messages_delta_reducer
    channel: Any = DeltaChannel(reducer).from_checkpoint(messages)
    channel.update(values)
    return channel.get()


def _pending_writes(connection: sqlite3.Connection, serde: Any, thread_id: str, checkpoint_id: str) -> list[Any]:
    """The checkpoint's pending writes to `messages`, decoded, in the order SqliteSaver's get_tuple gives them
    (task_path, task_id, idx: LangGraph's writes_sort_key)."""
    columns = {str(row[1]) for row in connection.execute("PRAGMA table_info(writes)")}
    if not columns:
        return []
    order = "task_path, task_id, idx" if "task_path" in columns else "task_id, idx"
    rows = connection.execute("SELECT task_id, channel, type, value FROM writes WHERE thread_id = ? AND "
                              "checkpoint_ns = '' AND checkpoint_id = ? AND channel = 'messages' ORDER BY " + order,
                              (thread_id, checkpoint_id)).fetchall()
    return [(str(task), str(channel), serde.loads_typed((kind, value))) for task, channel, kind, value in rows]


def _replayed_messages(saver: Any, config: Any) -> Any:
    """The `messages` value of the checkpoint `config` names, from its nearest seed and the writes since."""
    try:
        from langgraph.channels.delta import DeltaChannel
        from langgraph.graph.message import _messages_delta_reducer
    except ImportError as error:
        raise RuntimeError("its messages were written as a DeltaChannel, which needs langgraph 1.2 or later to "
                           f"rebuild ({one_line(error)})") from None
    history = saver.get_delta_channel_history(config=config, channels=["messages"])["messages"]
    reducer: Any = _messages_delta_reducer  # (typed for message lists; DeltaChannel's is any sequence)
    channel: Any = DeltaChannel(reducer).from_checkpoint(history.get("seed"))
    channel.replay_writes(history["writes"])
    return channel.get()


def _sqlite_saver(connection: sqlite3.Connection, serde: Any) -> Any:
    """LangGraph's SqliteSaver over the read-only connection, as the store is: its setup() would create tables
    and switch the file to WAL, so it is marked done, and a store from before the writes' task_path column
    is read without it (as SqliteSaver reads a read-only store)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    saver = SqliteSaver(connection, serde=serde)
    saver.is_setup = True
    saver._has_task_path = "task_path" in {str(row[1]) for row in connection.execute("PRAGMA table_info(writes)")}
    return saver


def langgraph_postgres_threads(url: str, threads: list[str] | None) -> list[Thread]:
    """The latest root checkpoint of each thread of a PostgresSaver database, decoded by PostgresSaver itself,
    one read-only read per thread (and one for the list when no thread is named); a thread it cannot
    decode is UNREADABLE."""
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError as error:
        raise TranscriptError(redacted(url), "", f"cannot read it: PostgresSaver is not installed (pip install "
                              f"langgraph-checkpoint-postgres): {one_line(error)}") from None
    import psycopg

    out: list[Thread] = []
    with postgres_connection(url) as connection:
        if threads is None:
            rows = connection.execute("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' "
                                      "ORDER BY thread_id").fetchall()
            threads = [str(row["thread_id"]) for row in rows]
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

        saver = PostgresSaver(connection, serde=safe_serializer(JsonPlusSerializer))
        for thread in threads:
            try:
                found = saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}})
                if found is not None:
                    out.append(Thread(f"thread:{thread}", "langchain",
                                      _messages(found.checkpoint, lambda: saver, found.config,
                                                found.pending_writes or [])))
            except psycopg.Error:
                raise  # the store's error (a lost connection, a lock timeout): postgres_connection makes it one line
            except _NoMessages as error:
                out.append(Thread(f"thread:{thread}", UNREADABLE, [str(error)]))
            except Exception as error:  # a serializer it was not written with, a corrupt blob: this thread's
                out.append(Thread(f"thread:{thread}", UNREADABLE, [f"LangGraph cannot decode its latest checkpoint: "
                                                                   f"{one_line(error)}"]))
    return out
