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
    goose+sqlite:///path/sessions.db[?session=ID]         goose's session database: each session's messages, as
                                                          goose reads them back (store_goose)

`read_store(url)` gives one engine Transcript per thread or session, named "thread:<id>" or
"session:<id>", in the format the runtime's messages are read as (langchain, openai-responses, gemini, goose),
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

from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from ..loading import Transcript, TranscriptError
from .store_db import LIBPQ, POSTGRES, SCHEMES, UNREADABLE, Thread, libpq, redacted, store_path
from .store_goose import goose_session_ids, read_goose
from .store_langgraph import langgraph_thread_ids, read_langgraph, safe_serializer
from .store_sessions import (
    MAIN_BRANCH,
    adk_keys_of,
    adk_parts,
    adk_resolve,
    agents_name,
    agents_names_of,
    agents_parts,
    escape_part,
    read_adk,
    read_agents,
)

__all__ = ["POSTGRES", "SCHEMES", "UNREADABLE", "Thread", "as_transcript", "is_store_url", "list_threads",
           "read_store", "read_store_each", "read_threads", "redacted", "safe_serializer", "split_store_url",
           "thread_bytes",
           "store_path", "thread_url"]



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
    for name, format, entries, model in _read(base, [named] if named is not None else None):
        try:
            out.append(as_transcript(entries, format, shown, name, model))
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
    connection = libpq(parts.query) if parts.scheme in POSTGRES else ""
    return f"{parts.scheme}://{parts.netloc}{parts.path}" + (f"?{connection}" if connection else ""), named


def _named(shown: str, scheme: str, query: str) -> str | None:
    """The thread the query names: `thread` or `session` (either, in every store), and for ADK `app` and
    `user` with it; a Postgres URL's libpq parameters (`LIBPQ`) are the connection's; a parameter named
    twice or unknown is an error."""
    own = {"adk+sqlite": ("app", "user"), "adk+postgresql": ("app", "user"), "agents+sqlite": ("branch",)}
    allowed = ("thread", "session", *own.get(scheme, ()), *(LIBPQ if scheme in POSTGRES else ()))
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
        return "/".join(escape_part(part) for part in (given["app"], given["user"], thread))
    if thread is not None and scheme.startswith("adk+"):
        return escape_part(thread)
    if scheme.startswith("agents+"):
        if thread is None:
            if "branch" in given:
                raise TranscriptError(shown, "", "?branch= names a branch of the session ?session= names: give both")
            return None
        return agents_name(thread, given.get("branch", MAIN_BRANCH))
    return thread


def thread_url(base: str, thread: str) -> str:
    """The URL naming one thread (LangGraph) or session (Agents SDK, ADK) of the store at `base`:
    what `integrity check` takes to judge that one thread."""
    if base.startswith("adk+"):
        app, user, session = adk_parts(base, thread)
        joiner = "&" if "?" in base else "?"  # (after a Postgres URL's libpq parameters)
        if app is not None:
            return f"{base}{joiner}app={quote(app, safe='')}&user={quote(str(user), safe='')}&session=" \
                   f"{quote(session, safe='')}"
        return f"{base}{joiner}session={quote(session, safe='')}"
    if base.startswith("agents+"):
        session, branch = agents_parts(thread)
        return f"{base}{'&' if '?' in base else '?'}session={quote(session, safe='')}" + \
            ("" if branch == MAIN_BRANCH else f"&branch={quote(branch, safe='')}")
    key = "thread" if base.startswith("langgraph+") else "session"
    return f"{base}{'&' if '?' in base else '?'}{key}={quote(thread, safe='')}"  # (after a Postgres URL's libpq ones)


def list_threads(url: str) -> list[str]:
    """The ids of the store's threads or sessions, sorted, in one read (the one the URL names, if it names one
    and it is there).  TranscriptError as read_store."""
    base, named = split_store_url(url)
    if base.startswith("adk+"):
        keys = adk_keys_of(base)
        if named is not None:
            return [adk_resolve(redacted(url), named, keys)]
        return sorted(keys)
    ids = sorted(agents_names_of(base) if base.startswith("agents+") else goose_session_ids(base)
                 if base.startswith("goose+") else langgraph_thread_ids(base))
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


def as_transcript(entries: list[Any], format: str, url: str, name: str, model: str | None = None) -> Transcript:
    """One thread's stored entries (as read_threads gives them) as the engine's Transcript named `name`;
    a thread read_threads could not decode is its TranscriptError (the store, the thread, the reason).
    model: the model the store says the thread talks to (Thread.model): the thread is then read as a request body
    naming it (thread_bytes), so the provider it means judges it (an ADK session of Gemini 2.5), and its view
    is written as such a body, which `check` of the written file judges the same."""
    if format == UNREADABLE:
        raise TranscriptError(url, name, str(entries[0]) if entries else "cannot be read")
    from ..formats import read_document
    from ..formats.container import Document

    lines = [0] * len(entries)
    document = Document(entries, lines, "array") if model is None else \
        Document(entries, lines, "object", _body_key(format), {"model": model})
    transcript = read_document(document, url, format)
    transcript.name = name
    transcript.kind = name.partition(":")[0]
    return transcript


def thread_bytes(thread: Thread) -> bytes:
    """One readable thread as the bytes of a file `check` judges as the store's thread is judged: its entries as
    a JSON list, or, when the store names the thread's model, a request body naming it ({"model": ..., "contents":
    [...]}: a request body's `model` picks the provider the same way).  The inspector's cache key and download."""
    import json

    body: Any = thread.entries if thread.model is None else \
        {"model": thread.model, _body_key(thread.format): thread.entries}
    return json.dumps(body, sort_keys=True, default=str).encode()


def _body_key(format: str) -> str:
    """The key of a body naming its model that holds a thread's entries: the format's request key, or for a
    read-only session format its own export's (a goose session's `conversation`: formats.goose)."""
    from ..formats import ADAPTERS, request_key

    own = getattr(ADAPTERS.get(format), "ENVELOPE_KEY", None)
    return own if isinstance(own, str) else request_key(format)


def _read(base: str, threads: list[str] | None) -> list[Thread]:
    if base.startswith("adk+"):
        return read_adk(base, redacted(base), threads)
    if base.startswith("agents+"):
        return read_agents(base, threads)
    if base.startswith("goose+"):
        return read_goose(base, threads)
    return read_langgraph(base, threads)
