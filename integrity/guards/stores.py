"""Sessions read where the runtimes keep them: SQLite stores addressed as URLs, read-only.

    langgraph+sqlite:///path/checkpoints.db[?thread=ID]   a LangGraph SqliteSaver database: the latest
                                                          checkpoint of each thread (or the one named)
    langgraph+postgresql://user@host[:port]/db[?thread=ID] a LangGraph PostgresSaver database, the same
    agents+sqlite:///path/sessions.db[?session=ID]        an OpenAI Agents SDK SQLiteSession database
    adk+sqlite:///path/sessions.db[?session=ID]           a Google ADK DatabaseSessionService (or
                                                          SqliteSessionService) database

`read_store(url)` gives one engine Transcript per thread or session, named "thread:<id>" or
"session:<id>", in the format the runtime's messages are read as (langchain, openai-responses, gemini),
so `integrity.check` and the rest of the pipeline take them like any file.  A SQLite database is
opened read-only (`mode=ro`), read with one query, and closed; a Postgres session is opened with
`default_transaction_read_only=on` and autocommit, so each read is its own read-only transaction: never
a write, never a lock held longer than one read.  LangGraph checkpoints are decoded by LangGraph's own
code (SqliteSaver's serializer; PostgresSaver itself, which needs langgraph-checkpoint-postgres and
psycopg); the other two stores are plain JSON rows.

Not wired into the CLI, triage or the inspector yet (their files belong to other work): this module
is the reader they call.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from ..loading import Transcript, TranscriptError

SCHEMES = ("langgraph+sqlite", "langgraph+postgresql", "agents+sqlite", "adk+sqlite")


def is_store_url(source: str) -> bool:
    """True for a source addressed as one of the store URLs above."""
    return source.split(":", 1)[0] in SCHEMES and "://" in source


def read_store(url: str) -> list[Transcript]:
    """Every thread or session of the store (or the one the URL names), as Transcripts.

    A URL of an unknown scheme, a missing file, a database without the runtime's tables or a thread
    that is not there is a TranscriptError naming the URL and the problem.
    """
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise TranscriptError(url, "", f"unknown store {parts.scheme!r}; expected one of: {', '.join(SCHEMES)}")
    if parts.scheme == "langgraph+postgresql":
        return _langgraph_postgres(url)
    path = parts.path
    if not path:
        raise TranscriptError(url, "", "the URL names no database file (expected scheme:///path/to/file.db)")
    query = parse_qs(parts.query)
    names = query.get("thread") or query.get("session")
    named = names[0] if names else None
    kind, _, _ = parts.scheme.partition("+")
    reader = {"langgraph": _langgraph, "agents": _agents, "adk": _adk}[kind]
    try:
        with _read_only(path) as connection:
            found = reader(connection, url, named)
    except sqlite3.Error as error:
        raise TranscriptError(url, "", f"cannot read the database: {error}") from None
    if named is not None and not found:
        raise TranscriptError(url, "", f"no thread or session {named!r} in the database")
    return found


@contextmanager
def _read_only(path: str) -> Iterator[sqlite3.Connection]:
    import os

    if not os.path.isfile(path):
        raise TranscriptError(path, "", "no such database file")
    connection = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)
    try:
        yield connection
    finally:
        connection.close()


def _transcript(entries: list[Any], format: str, url: str, name: str) -> Transcript:
    from ..formats import read_document
    from ..formats.container import Document

    transcript = read_document(Document(entries, [0] * len(entries), "array"), url, format)
    transcript.name = name
    transcript.kind = name.partition(":")[0]
    return transcript


def _langgraph(connection: sqlite3.Connection, url: str, thread: str | None) -> list[Transcript]:
    """The latest root checkpoint of each thread: its `messages` channel, decoded by LangGraph's serializer."""
    from langchain_core.messages import messages_to_dict
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    sql = ("SELECT thread_id, type, checkpoint FROM checkpoints AS c WHERE checkpoint_ns = '' AND checkpoint_id = "
           "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = c.thread_id AND checkpoint_ns = '')")
    rows = connection.execute(sql + (" AND thread_id = ?" if thread is not None else "") + " ORDER BY thread_id",
                              (thread,) if thread is not None else ()).fetchall()
    serde = JsonPlusSerializer()
    out = []
    for thread_id, kind, blob in rows:
        checkpoint = serde.loads_typed((kind, blob))
        messages = (checkpoint.get("channel_values") or {}).get("messages") or []
        out.append(_transcript(messages_to_dict(list(messages)), "langchain", url, f"thread:{thread_id}"))
    return out


def _agents(connection: sqlite3.Connection, url: str, session: str | None) -> list[Transcript]:
    """Each session's items in the order they were added (SQLiteSession's `agent_messages` table)."""
    sql = "SELECT session_id, message_data FROM agent_messages"
    rows = connection.execute(sql + (" WHERE session_id = ?" if session is not None else "") +
                              " ORDER BY session_id, id", (session,) if session is not None else ()).fetchall()
    return [_transcript(items, "openai-responses", url, f"session:{key}") for key, items in
            _grouped((key, json.loads(data)) for key, data in rows)]


def _adk(connection: sqlite3.Connection, url: str, session: str | None) -> list[Transcript]:
    """Each session's event contents in time order (ADK's `events` table, its JSON `event_data`)."""
    sql = "SELECT session_id, event_data FROM events"
    rows = connection.execute(sql + (" WHERE session_id = ?" if session is not None else "") +
                              " ORDER BY session_id, timestamp", (session,) if session is not None else ()).fetchall()
    contents = []
    for key, data in rows:
        event = json.loads(data) if isinstance(data, (str, bytes)) else (data or {})
        content = event.get("content") if isinstance(event, dict) else None
        if isinstance(content, dict) and content.get("parts"):
            contents.append((key, content))
    return [_transcript(items, "gemini", url, f"session:{key}") for key, items in _grouped(contents)]


def _grouped(rows: Any) -> list[tuple[str, list[Any]]]:
    groups: dict[str, list[Any]] = {}
    for key, value in rows:
        groups.setdefault(str(key), []).append(value)
    return list(groups.items())


def _langgraph_postgres(url: str) -> list[Transcript]:
    """The latest root checkpoint of each thread of a PostgresSaver database, read in read-only transactions."""
    import psycopg
    from langchain_core.messages import messages_to_dict
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    parts = urlsplit(url)
    names = parse_qs(parts.query).get("thread")
    named = names[0] if names else None
    dsn = parts._replace(scheme="postgresql", query="").geturl()
    try:
        with psycopg.connect(dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row,
                             options="-c default_transaction_read_only=on") as connection:
            if named is None:
                rows = connection.execute("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' "
                                          "ORDER BY thread_id").fetchall()
                threads = [str(row["thread_id"]) for row in rows]
            else:
                threads = [named]
            saver = PostgresSaver(connection)
            out: list[Transcript] = []
            for thread in threads:
                found = saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}})
                if found is None:
                    continue
                messages = (found.checkpoint.get("channel_values") or {}).get("messages") or []
                out.append(_transcript(messages_to_dict(list(messages)), "langchain", url, f"thread:{thread}"))
    except psycopg.Error as error:
        raise TranscriptError(url, "", f"cannot read the database: {str(error).strip().splitlines()[0]}") from None
    if named is not None and not out:
        raise TranscriptError(url, "", f"no thread or session {named!r} in the database")
    return out
