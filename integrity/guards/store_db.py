"""What the store readers share: opening a store read-only (a SQLite file through sqlite_read, a Postgres database
over a read-only session), a Postgres connection that takes SQLite's queries, and the one-line errors.

integrity.guards.stores (URLs, listing, dispatch) and the readers of each runtime's tables
(store_langgraph, store_sessions) import this; nothing else does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from ..loading import TranscriptError
from .sqlite_read import BUSY_SECONDS, read_only

# BUSY_SECONDS: how long a read waits for another connection's lock (SQLite's busy timeout, Postgres'
# lock_timeout), one figure for both: sqlite_read's.

SCHEMES = ("langgraph+sqlite", "langgraph+postgresql", "agents+sqlite", "agents+postgresql", "adk+sqlite",
           "adk+postgresql", "goose+sqlite")
POSTGRES = ("langgraph+postgresql", "agents+postgresql", "adk+postgresql")
"""The schemes of stores on a Postgres server (the others are SQLite files)."""


def on_postgres(url: str) -> bool:
    """Whether a store URL names a Postgres database (else a SQLite file)."""
    return url.split(":", 1)[0] in POSTGRES


UNREADABLE = "unreadable"
"""The format read_threads gives a thread it could not decode; its entries are [the one-line reason]."""


class Thread(NamedTuple):
    """One thread or session as read_threads gives it: its name, its format (UNREADABLE: entries is [the reason]),
    the entries the runtime stored, and the model the store says the session talks to (None: it does not say,
    and the format's provider judges it as its current models)."""

    name: str
    format: str
    entries: list[Any]
    model: str | None = None

_T = TypeVar("_T")


def store_path(url: str) -> str:
    """The file a SQLite store URL names (percent-decoded, as the reader opens it)."""
    return unquote(urlsplit(url).path)


def read_sqlite(url: str, read: Callable[[sqlite3.Connection], _T]) -> _T:
    """`read` run on the database at the URL's path (sqlite_read.read_only); its errors are TranscriptErrors."""
    return read_only(store_path(url), url, read)


def among(column: str, threads: list[str] | None, joiner: str) -> tuple[str, tuple[str, ...]]:
    """The SQL limiting rows to the named threads (none: every thread), and its parameters."""
    if threads is None:
        return "", ()
    return f" {joiner} {column} IN ({', '.join('?' * len(threads))})", tuple(threads)


def one_line(error: BaseException) -> str:
    """An exception as one line (its type and its message's first line): what a store's error row says."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def columns_of(connection: Any, table: str) -> set[str]:
    """The column names of a table, in either database."""
    if isinstance(connection, PostgresRows):
        return {str(row[0]) for row in connection.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND table_schema = "
            "current_schema()", (table,))}
    return {str(row[1]) for row in connection.execute(f"PRAGMA table_info({table})")}


@contextmanager
def postgres_connection(url: str) -> Iterator[Any]:
    """A psycopg connection in autocommit with every transaction read-only: each statement is its own
    read-only transaction, so no lock outlives one read, and a lock held by another session is waited on
    BUSY_SECONDS at most.  Its errors are TranscriptErrors."""
    try:
        import psycopg
        from psycopg.rows import dict_row
    except ImportError as error:
        raise TranscriptError(redacted(url), "", f"cannot read it: psycopg is not installed (pip install "
                              f"'psycopg[binary]'): {one_line(error)}") from None

    parts = urlsplit(url)
    settings = libpq(parts.query)  # (sslmode and the like; never the thread)
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


class PostgresRows:
    """A psycopg connection taking SQLite's `?` placeholders and giving rows as tuples, so the ADK reader's
    queries run on either database."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        from psycopg.rows import tuple_row

        cursor = self.connection.cursor(row_factory=tuple_row)
        return cursor.execute(sql.replace("?", "%s"), tuple(parameters))


def read_postgres(url: str, read: Callable[[Any], _T]) -> _T:
    """`read` run on the Postgres store at `url` (read-only, as postgres_connection opens it)."""
    with postgres_connection(url) as connection:
        return read(PostgresRows(connection))


LIBPQ = ("sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "channel_binding", "gssencmode",
          "target_session_attrs", "application_name")
"""libpq connection parameters a Postgres store URL may carry (`?sslmode=require`), handed to the connection
as they are.  Not `options` (it could turn the read-only session off), nor a password (a URL's password is
its netloc's, shown as ***), nor connect_timeout (the reader sets its own)."""


def libpq(query: str) -> str:
    """The libpq parameters of a URL's query, in their order, as a query string."""
    return urlencode([(key, value) for key, value in parse_qsl(query, keep_blank_values=True) if key in LIBPQ])


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
