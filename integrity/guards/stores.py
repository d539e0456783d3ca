"""Sessions read where the runtimes keep them: SQLite stores addressed as URLs, read-only.

    langgraph+sqlite:///path/checkpoints.db[?thread=ID]   a LangGraph SqliteSaver database: the latest
                                                          checkpoint of each thread (or the one named)
    langgraph+postgresql://user@host[:port]/db[?thread=ID] a LangGraph PostgresSaver database, the same
    agents+sqlite:///path/sessions.db[?session=ID]        an OpenAI Agents SDK SQLiteSession database (an
      [?session=ID&branch=B]                            AdvancedSQLiteSession's: each branch a thread)
    agents+postgresql://user@host[:port]/db[?session=ID]  an Agents SDK SQLAlchemySession database on Postgres
    adk+sqlite:///path/sessions.db[?session=ID]           a Google ADK DatabaseSessionService (or
      [?app=APP&user=USER&session=ID]                     SqliteSessionService) database
    adk+postgresql://user@host[:port]/db[?session=ID]     a DatabaseSessionService database on Postgres, the same

`read_store(url)` gives one engine Transcript per thread or session, named "thread:<id>" or
"session:<id>", in the format the runtime's messages are read as (langchain, openai-responses, gemini),
so `integrity.check` and the rest of the pipeline take them like any file.  A URL is a URL: its path is
percent-decoded (`%20` is a space, `%23` a `#`), a SQLite URL names no host (`scheme:///abs/path.db`;
`localhost` is allowed), and a parameter named twice or unknown is an error, never a silent pick.

ADK keys a session by (app, user, session id), so two apps may each hold a session "s1": such a session
is named "session:APP/USER/ID" (a `/` or `%` inside a part written %2F, %25), a session whose id is
unique keeps "session:ID", and `?session=ID` naming an id several apps or users hold is an error that
says to add `&app=APP&user=USER`.

Nothing is written beside a SQLite store: integrity.guards.sqlite_read opens it (integrity.lab.store
reasons the same way for its own file).  A Postgres session is opened with
`default_transaction_read_only=on`, a 5 s lock_timeout (SQLite's busy timeout waits 5 s) and autocommit,
so each read is its own read-only transaction: never a write, never a lock held longer than one read,
never a wait without end on another session's lock; libpq's connection parameters (`?sslmode=require`)
are passed to it, never `options`.  LangGraph checkpoints are decoded by LangGraph's own code
(SqliteSaver's serializer; PostgresSaver itself), a DeltaChannel's messages rebuilt as LangGraph rebuilds them
(`_messages`); the other two stores are plain JSON rows.

One thread that cannot be decoded (a checkpoint of an unknown serializer, a corrupt blob, a row that
is not JSON) is that thread's error, never the store's: `read_threads` gives it the format UNREADABLE
and the reason as its one entry, `as_transcript` raises it as a TranscriptError naming the store and
the thread, and the other threads are read as usual.  An Agents SDK row that is not JSON makes its
session unreadable even though SQLiteSession.get_items() skips such a row: what the SDK sends lacks
a stored item, which is not a session to call healthy.

`integrity check`, `triage` (one row per thread; `list_threads` then `read_threads` per Dask partition)
and the inspector (inspector/stores_ui.py) call this module; nothing else reads a store.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from ..loading import Transcript, TranscriptError
from .sqlite_read import BUSY_SECONDS, read_only

SCHEMES = ("langgraph+sqlite", "langgraph+postgresql", "agents+sqlite", "agents+postgresql", "adk+sqlite",
           "adk+postgresql")
POSTGRES = ("langgraph+postgresql", "agents+postgresql", "adk+postgresql")
"""The schemes of stores on a Postgres server (the others are SQLite files)."""

UNREADABLE = "unreadable"
"""The format read_threads gives a thread it could not decode; its entries are [the one-line reason]."""

# BUSY_SECONDS: how long a read waits for another connection's lock (SQLite's busy timeout, Postgres'
# lock_timeout), one figure for both: sqlite_read's.

Thread = tuple[str, str, list[Any]]
_T = TypeVar("_T")


def is_store_url(source: str) -> bool:
    """True for a source addressed as one of the store URLs above."""
    return source.split(":", 1)[0] in SCHEMES and "://" in source


def read_store(url: str) -> list[Transcript]:
    """Every thread or session of the store (or the one the URL names), as Transcripts.

    A URL of an unknown scheme, a missing file, a database without the runtime's tables, a store with no
    thread, a thread that is not there or one that cannot be decoded is a TranscriptError naming the URL
    and the problem (read_store_each gives the other threads beside the ones that cannot be decoded).
    """
    found = read_store_each(url)
    for item in found:
        if isinstance(item, TranscriptError):
            raise item
    return [item for item in found if isinstance(item, Transcript)]


def read_store_each(url: str) -> list[Transcript | TranscriptError]:
    """Every thread or session of the store (or the one the URL names): a Transcript each, or the
    TranscriptError of one that cannot be decoded (its position is the thread's name), so a caller judges
    the others.  A store that cannot be read at all, or holds no thread, raises TranscriptError."""
    base, named = split_store_url(url)
    shown = redacted(url)  # a password never reaches a report or a label
    out: list[Transcript | TranscriptError] = []
    for name, format, entries in _read(base, [named] if named is not None else None):
        try:
            out.append(as_transcript(entries, format, shown, name))
        except TranscriptError as error:
            out.append(error if format == UNREADABLE else TranscriptError(shown, name, error.problem))
    if not out:
        raise TranscriptError(shown, "", "the store holds no thread or session" if named is None
                              else f"no thread or session {named!r} in the database")
    return out


def split_store_url(url: str) -> tuple[str, str | None]:
    """The store's URL without its query, and the thread or session the URL names (None: all of them).

    The name is what list_threads gives and thread_url takes (an ADK session of several apps or users:
    "APP/USER/ID", see the module docstring)."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise TranscriptError(url, "", f"unknown store {parts.scheme!r}; expected one of: {', '.join(SCHEMES)}")
    shown = redacted(url)
    if parts.fragment or url.endswith("#"):
        raise TranscriptError(shown, "", "'#' starts a URL fragment, which a store URL has none of; "
                              "write a '#' of a path or an id as %23")
    if parts.scheme not in POSTGRES:
        if parts.netloc not in ("", "localhost"):
            raise TranscriptError(shown, "", f"the URL names the host {parts.netloc!r}, but a SQLite store is a "
                                  f"file: {parts.scheme}:///absolute/path.db (no host, or localhost)")
        if not parts.path.startswith("/"):
            raise TranscriptError(shown, "", "the URL names no database file "
                                  "(expected scheme:///path/to/file.db)")
    named = _named(shown, parts.scheme, parts.query)
    connection = _libpq(parts.query) if parts.scheme in POSTGRES else ""
    return f"{parts.scheme}://{parts.netloc}{parts.path}" + (f"?{connection}" if connection else ""), named


_LIBPQ = ("sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "channel_binding", "gssencmode",
          "target_session_attrs", "application_name")
"""libpq connection parameters a Postgres store URL may carry (`?sslmode=require`), handed to the connection
as they are.  Not `options` (it could turn the read-only session off), nor a password (a URL's password is
its netloc's, shown as ***), nor connect_timeout (the reader sets its own)."""


def _libpq(query: str) -> str:
    """The libpq parameters of a URL's query, in their order, as a query string."""
    return urlencode([(key, value) for key, value in parse_qsl(query, keep_blank_values=True) if key in _LIBPQ])


def _named(shown: str, scheme: str, query: str) -> str | None:
    """The thread the query names: `thread` or `session` (either, in every store), and for ADK `app` and
    `user` with it; a Postgres URL's libpq parameters (`_LIBPQ`) are the connection's; a parameter named
    twice or unknown is an error."""
    allowed: tuple[str, ...] = ("thread", "session", "app", "user") if scheme == "adk+sqlite" else \
        ("thread", "session", "app", "user", *_LIBPQ) if scheme == "adk+postgresql" else \
        ("thread", "session", *_LIBPQ) if scheme == "langgraph+postgresql" else \
        ("thread", "session", "branch") if scheme == "agents+sqlite" else \
        ("thread", "session", *_LIBPQ) if scheme == "agents+postgresql" else ("thread", "session")
    given: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key not in allowed:
            raise TranscriptError(shown, "", f"unknown URL parameter {key!r}; this store takes "
                                  + ", ".join(f"?{k}=" for k in allowed))
        if key in given or (key in ("thread", "session") and ({"thread", "session"} & set(given))):
            raise TranscriptError(shown, "", f"the URL names {key!r} more than once; a URL names one thread "
                                  "(or none: every thread)")
        given[key] = value
    thread = given.get("thread", given.get("session"))
    if "app" in given or "user" in given:
        if thread is None or "app" not in given or "user" not in given:
            raise TranscriptError(shown, "", "?app= and ?user= name an ADK session together with ?session=: "
                                  "give all three")
        return "/".join(_escape(part) for part in (given["app"], given["user"], thread))
    if thread is not None and scheme.startswith("adk+"):
        return _escape(thread)
    if scheme.startswith("agents+"):
        if thread is None:
            if "branch" in given:
                raise TranscriptError(shown, "", "?branch= names a branch of the session ?session= names: give both")
            return None
        return _agents_name(thread, given.get("branch", MAIN_BRANCH))
    return thread


def thread_url(base: str, thread: str) -> str:
    """The URL naming one thread (LangGraph) or session (Agents SDK, ADK) of the store at `base`:
    what `integrity check` takes to judge that one thread."""
    if base.startswith("adk+"):
        app, user, session = _adk_parts(base, thread)
        joiner = "&" if "?" in base else "?"  # (after a Postgres URL's libpq parameters)
        if app is not None:
            return f"{base}{joiner}app={quote(app, safe='')}&user={quote(str(user), safe='')}&session=" \
                   f"{quote(session, safe='')}"
        return f"{base}{joiner}session={quote(session, safe='')}"
    if base.startswith("agents+"):
        session, branch = _agents_parts(thread)
        return f"{base}{'&' if '?' in base else '?'}session={quote(session, safe='')}" + \
            ("" if branch == MAIN_BRANCH else f"&branch={quote(branch, safe='')}")
    key = "thread" if base.startswith("langgraph+") else "session"
    return f"{base}{'&' if '?' in base else '?'}{key}={quote(thread, safe='')}"  # (after a Postgres URL's libpq ones)


def store_path(url: str) -> str:
    """The file a SQLite store URL names (percent-decoded, as the reader opens it)."""
    return unquote(urlsplit(url).path)


def list_threads(url: str) -> list[str]:
    """The ids of the store's threads or sessions, sorted, in one read (the one the URL names, if it names one
    and it is there).  TranscriptError as read_store."""
    base, named = split_store_url(url)
    kind = base.split("+", 1)[0]
    if base.startswith("langgraph+postgresql"):
        sql = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id"
        with _postgres(base) as connection:
            ids = [str(row["thread_id"]) for row in connection.execute(sql).fetchall()]
    elif kind == "adk":
        keys = _postgres_read(base, _adk_keys) if base.startswith("adk+postgresql") else _sqlite(base, _adk_keys)
        if named is not None:
            return [_adk_resolve(redacted(url), named, keys)]
        return sorted(keys)
    elif kind == "agents":
        ids = sorted(_postgres_read(base, _agents_names) if base.startswith("agents+postgresql")
                     else _sqlite(base, _agents_names))
    else:
        sql = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
        ids = sorted(_sqlite(base, lambda connection: [str(row[0]) for row in connection.execute(sql)]))
    if named is not None:
        if named not in ids:
            raise TranscriptError(redacted(url), "", f"no thread or session {named!r} in the database")
        return [named]
    return ids


def read_threads(url: str, threads: Sequence[str]) -> list[Thread]:
    """(name, format, entries) of each named thread that is there, read on one connection (one Dask
    partition of a triage run); the entries are what the runtime stored, as JSON-able dicts (format
    UNREADABLE, entries [reason]: a thread that cannot be decoded)."""
    base, _ = split_store_url(url)
    return _read(base, list(threads))


def as_transcript(entries: list[Any], format: str, url: str, name: str) -> Transcript:
    """One thread's stored entries (as read_threads gives them) as the engine's Transcript named `name`;
    a thread read_threads could not decode is its TranscriptError (the store, the thread, the reason)."""
    if format == UNREADABLE:
        raise TranscriptError(url, name, str(entries[0]) if entries else "cannot be read")
    from ..formats import read_document
    from ..formats.container import Document

    transcript = read_document(Document(entries, [0] * len(entries), "array"), url, format)
    transcript.name = name
    transcript.kind = name.partition(":")[0]
    return transcript


def redacted(url: str) -> str:
    """The URL with its password (if any) replaced by ***: what a row, a label or an error may show."""
    parts = urlsplit(url)
    try:
        password = parts.password
    except ValueError:
        return url
    if password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{parts.username or ''}:***@{host}").geturl()


def _read(base: str, threads: list[str] | None) -> list[Thread]:
    if base.startswith("langgraph+postgresql"):
        return _langgraph_postgres(base, threads)
    kind = base.split("+", 1)[0]
    if base.startswith("adk+postgresql"):
        return _postgres_read(base, lambda connection: _adk(connection, redacted(base), threads))
    if kind == "adk":
        return _sqlite(base, lambda connection: _adk(connection, redacted(base), threads))
    if kind == "agents":
        if base.startswith("agents+postgresql"):
            return _postgres_read(base, lambda connection: _agents(connection, threads))
        return _sqlite(base, lambda connection: _agents(connection, threads))
    try:
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    except ImportError as error:
        raise TranscriptError(redacted(base), "", "cannot read it: LangGraph's checkpoint serializer is not "
                              f"installed (pip install langgraph-checkpoint-sqlite): {_one_line(error)}") from None
    return _sqlite(base, lambda connection: _langgraph(connection, safe_serializer(JsonPlusSerializer), threads))


def safe_serializer(serializer: Callable[..., _T]) -> _T:
    """LangGraph's checkpoint serializer in its strict mode: a msgpack value naming a type outside LangGraph's own
    list of safe ones (its messages, datetimes, uuids, ...) is not constructed.  Its default imports and calls
    whatever module and function a checkpoint names, so reading a store someone else wrote would run their code;
    a store is untrusted input here (the strict mode is what LANGGRAPH_STRICT_MSGPACK=true turns on)."""
    return serializer(allowed_msgpack_modules=None)


# --- SQLite: read-only, nothing left beside the file (integrity.guards.sqlite_read) ---------------------------

def _sqlite(url: str, read: Callable[[sqlite3.Connection], _T]) -> _T:
    """`read` run on the database at the URL's path (sqlite_read.read_only); its errors are TranscriptErrors."""
    return read_only(store_path(url), url, read)


# --- the runtimes' tables ------------------------------------------------------------------------------------

def _among(column: str, threads: list[str] | None, joiner: str) -> tuple[str, tuple[str, ...]]:
    """The SQL limiting rows to the named threads (none: every thread), and its parameters."""
    if threads is None:
        return "", ()
    return f" {joiner} {column} IN ({', '.join('?' * len(threads))})", tuple(threads)


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _langgraph(connection: sqlite3.Connection, serde: Any, threads: list[str] | None) -> list[Thread]:
    """The latest root checkpoint of each thread: its `messages` channel, decoded by LangGraph's serializer
    (a thread it cannot decode is that thread's UNREADABLE entry)."""
    sql = ("SELECT thread_id, checkpoint_id, type, checkpoint FROM checkpoints AS c WHERE checkpoint_ns = '' AND "
           "checkpoint_id = (SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = c.thread_id AND "
           "checkpoint_ns = '')")
    where, parameters = _among("thread_id", threads, "AND")
    rows = connection.execute(sql + where + " ORDER BY thread_id", parameters).fetchall()
    out = []
    for thread_id, checkpoint_id, kind, blob in rows:
        name = f"thread:{thread_id}"
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}}
        try:
            checkpoint = serde.loads_typed((kind, blob))
        except Exception as error:  # a serializer it was not written with, a corrupt blob: this thread's error
            out.append((name, UNREADABLE, [f"LangGraph cannot decode its latest checkpoint (type {kind!r}): "
                                           f"{_one_line(error)}"]))
            continue
        try:
            out.append((name, "langchain", _messages(checkpoint, lambda: _sqlite_saver(connection, serde), config)))
        except Exception as error:
            out.append((name, UNREADABLE, [str(error) if isinstance(error, _NoMessages) else
                                           f"LangGraph cannot rebuild its messages: {_one_line(error)}"]))
    return out


class _NoMessages(Exception):
    """A thread whose latest checkpoint has no `messages` channel: nothing to judge, which is not healthy."""


def _messages(checkpoint: Any, saver: Callable[[], Any], config: Any) -> list[Any]:
    """A checkpoint's `messages` channel as LangChain's message dicts, rebuilt as LangGraph rebuilds it.

    A channel declared as a DeltaChannel (langgraph 1.2, beta) stores no value in most checkpoints, only a
    snapshot every so many updates: LangGraph's own load (pregel's channels_from_checkpoint) takes the nearest
    seed and replays the writes since, with the saver's get_delta_channel_history.  This does the same with
    LangGraph's messages reducer; reading channel_values alone would see no message and call the thread
    healthy.  A checkpoint whose state never had a `messages` channel is _NoMessages."""
    from langchain_core.messages import messages_to_dict

    values = checkpoint.get("channel_values") or {}
    if "messages" in values:
        stored = values["messages"]
    elif "messages" in (checkpoint.get("channel_versions") or {}):
        stored = _replayed_messages(saver(), config)
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
    return messages_to_dict(list(stored or []))


def _replayed_messages(saver: Any, config: Any) -> Any:
    """The `messages` value of the checkpoint `config` names, from its nearest seed and the writes since."""
    try:
        from langgraph.channels.delta import DeltaChannel
        from langgraph.graph.message import _messages_delta_reducer
    except ImportError as error:
        raise RuntimeError("its messages were written as a DeltaChannel, which needs langgraph 1.2 or later to "
                           f"rebuild ({_one_line(error)})") from None
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


MAIN_BRANCH = "main"
"""The branch an Agents SDK AdvancedSQLiteSession opens on (its branch pointer lives in memory only), and the one
history of a plain SQLiteSession."""


def _agents_name(session: str, branch: str) -> str:
    """An Agents SDK thread's name: the session id for its main branch, "ID/BRANCH" for another branch of an
    AdvancedSQLiteSession (a `/` or `%` inside a part written %2F, %25, as for ADK)."""
    return _escape(session) if branch == MAIN_BRANCH else f"{_escape(session)}/{_escape(branch)}"


def _agents_parts(name: str) -> tuple[str, str]:
    """(session id, branch) of an Agents SDK thread name."""
    session, _, branch = name.partition("/")
    return unquote(session), unquote(branch) if branch else MAIN_BRANCH


def _branched(connection: Any) -> bool:
    """True for a store an AdvancedSQLiteSession wrote (its `message_structure` table; SQLite only)."""
    if isinstance(connection, _Postgres):
        return False
    sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'message_structure'"
    return connection.execute(sql).fetchone() is not None


def _agents_names(connection: Any) -> list[str]:
    """Every thread of an Agents SDK store: a session, or each branch of an AdvancedSQLiteSession's session."""
    plain = {str(row[0]) for row in connection.execute("SELECT DISTINCT session_id FROM agent_messages")}
    branches: dict[str, list[str]] = {}
    if _branched(connection):
        for session, branch in connection.execute("SELECT DISTINCT session_id, branch_id FROM message_structure"):
            branches.setdefault(str(session), []).append(str(branch))
    return [_agents_name(session, branch) for session in plain | set(branches)
            for branch in branches.get(session, [MAIN_BRANCH])]


def _agents(connection: Any, names: list[str] | None) -> list[Thread]:
    """Each session's items as the SDK's get_items() gives them: a SQLiteSession's in the order they were added
    (a SQLAlchemySession's on Postgres by `created_at`, then id, as it orders them);
    an AdvancedSQLiteSession's per branch, in the branch's sequence (`message_structure`), each branch its own
    thread, since the SDK sends one branch and a store holds them all (reading every row of such a session gave
    a history of two branches interleaved, which nothing sends).  A thread with a row that is not JSON is
    UNREADABLE (get_items() would skip the row: see the module docstring)."""
    import json

    wanted = None if names is None else [_agents_parts(name) for name in names]
    where, parameters = _among("session_id", None if wanted is None else sorted({s for s, _ in wanted}), "WHERE")
    groups: dict[tuple[str, str], list[tuple[int, Any]]] = {}
    order = "created_at, id" if isinstance(connection, _Postgres) else "id"
    for key, row_id, data in connection.execute("SELECT session_id, id, message_data FROM agent_messages" + where +
                                                f" ORDER BY session_id, {order}", parameters):
        groups.setdefault((str(key), MAIN_BRANCH), []).append((row_id, data))
    if _branched(connection):
        structured: dict[tuple[str, str], list[tuple[int, Any]]] = {}
        for key, branch, row_id, data in connection.execute(
                "SELECT s.session_id, s.branch_id, m.id, m.message_data FROM message_structure AS s JOIN "
                "agent_messages AS m ON m.id = s.message_id AND m.session_id = s.session_id" +
                where.replace("session_id", "s.session_id") + " ORDER BY s.session_id, s.branch_id, "
                "s.sequence_number", parameters):
            structured.setdefault((str(key), str(branch)), []).append((row_id, data))
        sessions = {session for session, _ in structured}
        groups = {key: rows for key, rows in groups.items() if key[0] not in sessions} | structured
    out: list[Thread] = []
    for (session, branch), rows in sorted(groups.items()):
        if wanted is not None and (session, branch) not in wanted:
            continue
        name = f"session:{_agents_name(session, branch)}"
        items = []
        for row_id, data in rows:
            try:
                items.append(json.loads(data))
            except (ValueError, TypeError) as error:
                out.append((name, UNREADABLE, [f"agent_messages row {row_id} is not JSON ({_one_line(error)}); "
                                               "SQLiteSession.get_items() skips it, so the SDK sends the session "
                                               "without an item it stored"]))
                break
        else:
            out.append((name, "openai-responses", items))
    return out


def _escape(part: str) -> str:
    return part.replace("%", "%25").replace("/", "%2F")


def _adk_parts(shown: str, name: str) -> tuple[str | None, str | None, str]:
    """(app, user, session id) of an ADK session name: "ID" or "APP/USER/ID" (parts escaped)."""
    parts = name.split("/")
    if len(parts) == 1:
        return None, None, unquote(parts[0])
    if len(parts) == 3:
        return unquote(parts[0]), unquote(parts[1]), unquote(parts[2])
    raise TranscriptError(shown, "", f"{name!r} names no ADK session: ID, or APP/USER/ID with a '/' inside "
                          "a part written %2F")


def _adk_keys(connection: Any) -> dict[str, tuple[str, str, str]]:
    """Every session's name and (app, user, session id): "ID" when no other app or user has a session so
    named, else "APP/USER/ID"."""
    keys = [(str(a), str(u), str(s)) for a, u, s in
            connection.execute("SELECT DISTINCT app_name, user_id, session_id FROM events")]
    counts = Counter(session for _, _, session in keys)
    return {(_escape(s) if counts[s] == 1 else "/".join(map(_escape, (a, u, s)))): (a, u, s) for a, u, s in keys}


def _adk_resolve(shown: str, name: str, keys: dict[str, tuple[str, str, str]]) -> str:
    """The name list_threads gives the session `name` stands for; an id several apps or users hold, or one
    that is not there, is a TranscriptError."""
    app, user, session = _adk_parts(shown, name)
    found = [known for known, key in keys.items()
             if key[2] == session and (app is None or (key[0], key[1]) == (app, user))]
    if not found:
        raise TranscriptError(shown, "", f"no thread or session {session!r}"
                              + (f" of app {app!r} and user {user!r}" if app is not None else "")
                              + " in the database")
    if len(found) > 1:
        owners = ", ".join(f"{keys[k][0]}/{keys[k][1]}" for k in sorted(found))
        raise TranscriptError(shown, "", f"session {session!r} is held by {len(found)} apps or users ({owners}); "
                              "name one: ?app=APP&user=USER&session=ID")
    return found[0]


def _adk(connection: Any, shown: str, sessions: list[str] | None) -> list[Thread]:
    """Each session's live event contents in ADK's order, a session being (app, user, session id) as ADK keys it;
    an event that is not JSON makes its session UNREADABLE.

    The events table holds JSON `event_data` (DatabaseSessionService's schema v1, SqliteSessionService), or in a
    store of ADK's legacy schema v0, which ADK still opens, a JSON column per field with the actions pickled.
    Ties of timestamp are broken as the service that wrote the store breaks them (`_adk_order`), and events a
    rewind annulled are left out (`_live_events`): what ADK builds its next request from."""
    import json

    keys = _adk_keys(connection)
    if sessions is None:
        wanted = sorted(keys)
    else:
        wanted = []
        for session in sessions:
            try:
                wanted.append(_adk_resolve(shown, session, keys))
            except TranscriptError:
                if len(sessions) == 1:
                    raise
    out: list[Thread] = []
    columns = _columns(connection, "events")
    legacy = "event_data" not in columns and "content" in columns  # ADK's schema v0: a JSON column per field
    fields = "invocation_id, content, actions" if legacy else "invocation_id, event_data, NULL"
    sql = (f"SELECT {fields} FROM events WHERE app_name = ? AND user_id = ? AND session_id = ? "
           f"ORDER BY timestamp, {_adk_order(connection)}")
    for name in wanted:
        events: list[tuple[str, str | None, Any]] = []
        problem = ""
        for position, (invocation, data, pickled) in enumerate(connection.execute(sql, keys[name]), 1):
            try:
                event = json.loads(data) if isinstance(data, (str, bytes)) else (data or {})
                rewind = _legacy_rewind(pickled) if legacy else _rewind(event)
            except (ValueError, TypeError) as error:
                problem = f"event {position} is not JSON ({_one_line(error)})"
                break
            except _Unpickled as error:
                problem = f"event {position}: {error}"
                break
            content = event if legacy else event.get("content") if isinstance(event, dict) else None
            events.append((str(invocation or ""), rewind, content))
        if problem:
            out.append((f"session:{name}", UNREADABLE, [problem]))
            continue
        contents = [content for content in _live_events(events)
                    if isinstance(content, dict) and content.get("parts")]
        out.append((f"session:{name}", "gemini", contents))
    return out


def _adk_order(connection: Any) -> str:
    """How the service that wrote the store orders events of one timestamp: DatabaseSessionService (its
    `adk_internal_metadata` table, or the legacy schema) by event id, SqliteSessionService by rowid."""
    if isinstance(connection, _Postgres):
        return "id"  # only DatabaseSessionService writes to Postgres
    tables = {str(row[0]) for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return "id" if "adk_internal_metadata" in tables or "event_data" not in _columns(connection, "events") else "rowid"


def _columns(connection: Any, table: str) -> set[str]:
    """The column names of a table, in either database."""
    if isinstance(connection, _Postgres):
        return {str(row[0]) for row in connection.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND table_schema = "
            "current_schema()", (table,))}
    return {str(row[1]) for row in connection.execute(f"PRAGMA table_info({table})")}


def _rewind(event: Any) -> str | None:
    """The invocation an event's `actions.rewind_before_invocation_id` rewinds to (JSON event_data)."""
    actions = event.get("actions") if isinstance(event, dict) else None
    target = actions.get("rewind_before_invocation_id") if isinstance(actions, dict) else None
    return str(target) if target else None


class _Unpickled(Exception):
    """A legacy event's actions that ADK's restricted unpickler refuses, or no ADK to read them with."""


def _legacy_rewind(pickled: Any) -> str | None:
    """The rewind of a legacy (schema v0) event, whose actions ADK pickled: read by ADK's own restricted
    unpickler, which constructs its data types only (a store is untrusted input)."""
    if not pickled:
        return None
    try:
        from google.adk.sessions import _restricted_pickle
    except ImportError as error:
        raise _Unpickled("its actions are pickled (ADK's legacy schema); reading a rewind among them needs ADK's "
                         f"restricted unpickler (pip install google-adk): {_one_line(error)}") from None
    try:
        actions = _restricted_pickle.loads(bytes(pickled))
    except Exception as error:
        raise _Unpickled(f"ADK cannot unpickle its actions: {_one_line(error)}") from None
    target = getattr(actions, "rewind_before_invocation_id", None)
    return str(target) if target else None


def _live_events(events: list[tuple[str, str | None, Any]]) -> list[Any]:
    """The contents of the (invocation, rewind, content) events no rewind annulled, in order.

    ADK's rule (google.adk.events._rewind_events._apply_rewinds, the one its prompt building and compaction both
    follow): walking back from the end, an event rewinding to invocation X is dropped with every event back to X's
    first one; a rewind to an invocation not before it drops only itself."""
    first: dict[str, int] = {}
    for index, (invocation, _, _) in enumerate(events):
        if invocation:
            first.setdefault(invocation, index)
    kept = []
    index = len(events) - 1
    while index >= 0:
        _, rewind, content = events[index]
        if rewind:
            start = first.get(rewind)
            if start is not None and start < index:
                index = start
        else:
            kept.append(content)
        index -= 1
    return kept[::-1]


# --- Postgres ----------------------------------------------------------------------------------------------

@contextmanager
def _postgres(url: str) -> Iterator[Any]:
    """A psycopg connection in autocommit with every transaction read-only: each statement is its own
    read-only transaction, so no lock outlives one read, and a lock held by another session is waited on
    BUSY_SECONDS at most.  Its errors are TranscriptErrors."""
    try:
        import psycopg
        from psycopg.rows import dict_row
    except ImportError as error:
        raise TranscriptError(redacted(url), "", f"cannot read it: psycopg is not installed (pip install "
                              f"'psycopg[binary]'): {_one_line(error)}") from None

    parts = urlsplit(url)
    settings = _libpq(parts.query)  # (sslmode and the like; never the thread)
    dsn = f"postgresql://{parts.netloc}{parts.path}" + (f"?{settings}" if settings else "")  # (geturl() drops
    # the // of a URL without a host)
    options = f"-c default_transaction_read_only=on -c lock_timeout={BUSY_SECONDS * 1000}"
    try:
        with psycopg.connect(dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row,
                             options=options, connect_timeout=10) as connection:
            yield connection
    except psycopg.Error as error:
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        if "lock timeout" in detail:
            detail += f" (another session held a lock on the table for {BUSY_SECONDS} s; try again)"
        raise TranscriptError(redacted(url), "", f"cannot read the database: {detail}") from None


class _Postgres:
    """A psycopg connection taking SQLite's `?` placeholders and giving rows as tuples, so the ADK reader's
    queries run on either database."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        from psycopg.rows import tuple_row

        cursor = self.connection.cursor(row_factory=tuple_row)
        return cursor.execute(sql.replace("?", "%s"), tuple(parameters))


def _postgres_read(url: str, read: Callable[[Any], _T]) -> _T:
    """`read` run on the Postgres store at `url` (read-only, as _postgres opens it)."""
    with _postgres(url) as connection:
        return read(_Postgres(connection))


def _langgraph_postgres(url: str, threads: list[str] | None) -> list[Thread]:
    """The latest root checkpoint of each thread of a PostgresSaver database, decoded by PostgresSaver itself,
    one read-only read per thread (and one for the list when no thread is named); a thread it cannot
    decode is UNREADABLE."""
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError as error:
        raise TranscriptError(redacted(url), "", f"cannot read it: PostgresSaver is not installed (pip install "
                              f"langgraph-checkpoint-postgres): {_one_line(error)}") from None
    import psycopg

    out: list[Thread] = []
    with _postgres(url) as connection:
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
                    out.append((f"thread:{thread}", "langchain",
                                _messages(found.checkpoint, lambda: saver, found.config)))
            except psycopg.Error:
                raise  # the store's error (a lost connection, a lock timeout): _postgres makes it one line
            except _NoMessages as error:
                out.append((f"thread:{thread}", UNREADABLE, [str(error)]))
            except Exception as error:  # a serializer it was not written with, a corrupt blob: this thread's
                out.append((f"thread:{thread}", UNREADABLE, [f"LangGraph cannot decode its latest checkpoint: "
                                                             f"{_one_line(error)}"]))
    return out
