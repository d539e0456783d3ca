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

`integrity check`, `triage` (one row per thread; `list_threads` then `read_threads` per Dask partition)
and the inspector (inspector/stores_ui.py) call this module; nothing else reads a store.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
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
    base, named = split_store_url(url)
    threads = [named] if named is not None else None
    shown = redacted(url)  # a password never reaches a report or a label
    found = [as_transcript(entries, format, shown, name) for name, format, entries in _read(base, threads)]
    if named is not None and not found:
        raise TranscriptError(url, "", f"no thread or session {named!r} in the database")
    return found


def split_store_url(url: str) -> tuple[str, str | None]:
    """The store's URL without its query, and the thread or session the URL names (None: all of them)."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise TranscriptError(url, "", f"unknown store {parts.scheme!r}; expected one of: {', '.join(SCHEMES)}")
    if parts.scheme != "langgraph+postgresql" and not parts.path:
        raise TranscriptError(url, "", "the URL names no database file (expected scheme:///path/to/file.db)")
    query = parse_qs(parts.query, keep_blank_values=True)
    names = query.get("thread", query.get("session"))
    return f"{parts.scheme}://{parts.netloc}{parts.path}", (names[0] if names else None)


def thread_url(base: str, thread: str) -> str:
    """The URL naming one thread (LangGraph) or session (Agents SDK, ADK) of the store at `base`:
    what `integrity check` takes to judge that one thread."""
    key = "thread" if base.startswith("langgraph+") else "session"
    return f"{base}?{key}={quote(thread, safe='')}"


def list_threads(url: str) -> list[str]:
    """The ids of the store's threads or sessions, sorted, in one read (the one the URL names, if it names one
    and it is there).  TranscriptError as read_store."""
    base, named = split_store_url(url)
    kind = base.split("+", 1)[0]
    if base.startswith("langgraph+postgresql"):
        sql = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id"
        with _postgres(base) as connection:
            ids = [str(row["thread_id"]) for row in connection.execute(sql).fetchall()]
    else:
        sql = {"langgraph": "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''",
               "agents": "SELECT DISTINCT session_id FROM agent_messages",
               "adk": "SELECT DISTINCT session_id FROM events"}[kind]
        with _sqlite(base) as connection:
            ids = sorted(str(row[0]) for row in connection.execute(sql).fetchall())
    if named is not None:
        if named not in ids:
            raise TranscriptError(url, "", f"no thread or session {named!r} in the database")
        return [named]
    return ids


def read_threads(url: str, threads: Sequence[str]) -> list[tuple[str, str, list[Any]]]:
    """(name, format, entries) of each named thread that is there, read on one connection (one Dask
    partition of a triage run); the entries are what the runtime stored, as JSON-able dicts."""
    base, _ = split_store_url(url)
    return _read(base, list(threads))


def _read(base: str, threads: list[str] | None) -> list[tuple[str, str, list[Any]]]:
    if base.startswith("langgraph+postgresql"):
        return _langgraph_postgres(base, threads)
    reader = {"langgraph": _langgraph, "agents": _agents, "adk": _adk}[base.split("+", 1)[0]]
    with _sqlite(base) as connection:
        return reader(connection, threads)


@contextmanager
def _sqlite(url: str) -> Iterator[sqlite3.Connection]:
    """The database at the URL's path, opened read-only and closed after; its errors are TranscriptErrors."""
    import os

    path = urlsplit(url).path
    if not os.path.isfile(path):
        raise TranscriptError(path, "", "no such database file")
    connection = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)
    try:
        yield connection
    except sqlite3.Error as error:
        raise TranscriptError(url, "", f"cannot read the database: {error}") from None
    finally:
        connection.close()


def as_transcript(entries: list[Any], format: str, url: str, name: str) -> Transcript:
    """One thread's stored entries (as read_threads gives them) as the engine's Transcript named `name`."""
    from ..formats import read_document
    from ..formats.container import Document

    transcript = read_document(Document(entries, [0] * len(entries), "array"), url, format)
    transcript.name = name
    transcript.kind = name.partition(":")[0]
    return transcript


def _among(column: str, threads: list[str] | None, joiner: str) -> tuple[str, tuple[str, ...]]:
    """The SQL limiting rows to the named threads (none: every thread), and its parameters."""
    if threads is None:
        return "", ()
    return f" {joiner} {column} IN ({', '.join('?' * len(threads))})", tuple(threads)


def _langgraph(connection: sqlite3.Connection, threads: list[str] | None) -> list[tuple[str, str, list[Any]]]:
    """The latest root checkpoint of each thread: its `messages` channel, decoded by LangGraph's serializer."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    sql = ("SELECT thread_id, type, checkpoint FROM checkpoints AS c WHERE checkpoint_ns = '' AND checkpoint_id = "
           "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = c.thread_id AND checkpoint_ns = '')")
    where, parameters = _among("thread_id", threads, "AND")
    rows = connection.execute(sql + where + " ORDER BY thread_id", parameters).fetchall()
    serde = JsonPlusSerializer()
    return [(f"thread:{thread_id}", "langchain", _messages(serde.loads_typed((kind, blob))))
            for thread_id, kind, blob in rows]


def _messages(checkpoint: Any) -> list[Any]:
    """A checkpoint's `messages` channel as LangChain's message dicts."""
    from langchain_core.messages import messages_to_dict

    return messages_to_dict(list((checkpoint.get("channel_values") or {}).get("messages") or []))


def _agents(connection: sqlite3.Connection, sessions: list[str] | None) -> list[tuple[str, str, list[Any]]]:
    """Each session's items in the order they were added (SQLiteSession's `agent_messages` table)."""
    where, parameters = _among("session_id", sessions, "WHERE")
    rows = connection.execute("SELECT session_id, message_data FROM agent_messages" + where +
                              " ORDER BY session_id, id", parameters).fetchall()
    return [(f"session:{key}", "openai-responses", items) for key, items in
            _grouped((key, json.loads(data)) for key, data in rows)]


def _adk(connection: sqlite3.Connection, sessions: list[str] | None) -> list[tuple[str, str, list[Any]]]:
    """Each session's event contents in time order (ADK's `events` table, its JSON `event_data`)."""
    where, parameters = _among("session_id", sessions, "WHERE")
    rows = connection.execute("SELECT session_id, event_data FROM events" + where +
                              " ORDER BY session_id, timestamp", parameters).fetchall()
    contents = []
    for key, data in rows:
        event = json.loads(data) if isinstance(data, (str, bytes)) else (data or {})
        content = event.get("content") if isinstance(event, dict) else None
        if isinstance(content, dict) and content.get("parts"):
            contents.append((key, content))
    return [(f"session:{key}", "gemini", items) for key, items in _grouped(contents)]


def _grouped(rows: Any) -> list[tuple[str, list[Any]]]:
    groups: dict[str, list[Any]] = {}
    for key, value in rows:
        groups.setdefault(str(key), []).append(value)
    return list(groups.items())


@contextmanager
def _postgres(url: str) -> Iterator[Any]:
    """A psycopg connection in autocommit with every transaction read-only: each statement is its own
    read-only transaction, so no lock outlives one read.  Its errors are TranscriptErrors."""
    import psycopg
    from psycopg.rows import dict_row

    dsn = urlsplit(url)._replace(scheme="postgresql", query="").geturl()
    try:
        with psycopg.connect(dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row,
                             options="-c default_transaction_read_only=on") as connection:
            yield connection
    except psycopg.Error as error:
        raise TranscriptError(redacted(url), "", f"cannot read the database: "
                              f"{str(error).strip().splitlines()[0]}") from None


def redacted(url: str) -> str:
    """The URL with its password (if any) replaced by ***: what a row, a label or an error may show."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{parts.username or ''}:***@{host}").geturl()


def _langgraph_postgres(url: str, threads: list[str] | None) -> list[tuple[str, str, list[Any]]]:
    """The latest root checkpoint of each thread of a PostgresSaver database, decoded by PostgresSaver itself,
    one read-only read per thread (and one for the list when no thread is named)."""
    from langgraph.checkpoint.postgres import PostgresSaver

    out = []
    with _postgres(url) as connection:
        if threads is None:
            rows = connection.execute("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' "
                                      "ORDER BY thread_id").fetchall()
            threads = [str(row["thread_id"]) for row in rows]
        saver = PostgresSaver(connection)
        for thread in threads:
            found = saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}})
            if found is not None:
                out.append((f"thread:{thread}", "langchain", _messages(found.checkpoint)))
    return out
