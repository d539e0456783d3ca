"""The Agents SDK's and ADK's session tables read as each runtime reads them (get_items, get_session): an
AdvancedSQLiteSession's branches one thread each, ADK's rewinds applied and its ties broken as the service
that wrote the store breaks them.  Plain JSON rows, on SQLite or Postgres (store_db.PostgresRows).
integrity.guards.stores calls these."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote

from ..loading import TranscriptError
from .store_db import UNREADABLE, PostgresRows, Thread, among, columns_of, one_line, read_postgres, read_sqlite

_T = TypeVar("_T")

def read_agents(base: str, threads: list[str] | None) -> list[Thread]:
    """The threads (all, or the named ones) of the Agents SDK store at `base`, on SQLite or Postgres."""
    return _on(base, lambda connection: agents_threads(connection, threads))


def agents_names_of(base: str) -> list[str]:
    """Every thread name of the Agents SDK store at `base` (agents_names), in one read."""
    return _on(base, agents_names)


def read_adk(base: str, shown: str, threads: list[str] | None) -> list[Thread]:
    """The sessions (all, or the named ones) of the ADK store at `base` (shown as `shown`), on SQLite or Postgres."""
    return _on(base, lambda connection: adk_threads(connection, shown, threads))


def adk_keys_of(base: str) -> dict[str, tuple[str, str, str]]:
    """Every session name of the ADK store at `base` and its (app, user, session id) key (adk_keys)."""
    return _on(base, adk_keys)


def _on(base: str, read: Callable[[Any], _T]) -> _T:
    return read_postgres(base, read) if base.split(":", 1)[0].endswith("+postgresql") else read_sqlite(base, read)


MAIN_BRANCH = "main"
"""The branch an Agents SDK AdvancedSQLiteSession opens on (its branch pointer lives in memory only), and the one
history of a plain SQLiteSession."""


def agents_name(session: str, branch: str) -> str:
    """An Agents SDK thread's name: the session id for its main branch, "ID/BRANCH" for another branch of an
    AdvancedSQLiteSession (a `/` or `%` inside a part written %2F, %25, as for ADK)."""
    return escape_part(session) if branch == MAIN_BRANCH else f"{escape_part(session)}/{escape_part(branch)}"


def agents_parts(name: str) -> tuple[str, str]:
    """(session id, branch) of an Agents SDK thread name."""
    session, _, branch = name.partition("/")
    return unquote(session), unquote(branch) if branch else MAIN_BRANCH


def _branched(connection: Any) -> bool:
    """True for a store an AdvancedSQLiteSession wrote (its `message_structure` table; SQLite only)."""
    if isinstance(connection, PostgresRows):
        return False
    sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'message_structure'"
    return connection.execute(sql).fetchone() is not None


def agents_names(connection: Any) -> list[str]:
    """Every thread of an Agents SDK store: a session, or each branch of an AdvancedSQLiteSession's session."""
    plain = {str(row[0]) for row in connection.execute("SELECT DISTINCT session_id FROM agent_messages")}
    branches: dict[str, list[str]] = {}
    if _branched(connection):
        for session, branch in connection.execute("SELECT DISTINCT session_id, branch_id FROM message_structure"):
            branches.setdefault(str(session), []).append(str(branch))
    return [agents_name(session, branch) for session in plain | set(branches)
            for branch in branches.get(session, [MAIN_BRANCH])]


def agents_threads(connection: Any, names: list[str] | None) -> list[Thread]:
    """Each session's items as the SDK's get_items() gives them: a SQLiteSession's in the order they were added
    (a SQLAlchemySession's on Postgres by `created_at`, then id, as it orders them);
    an AdvancedSQLiteSession's per branch, in the branch's sequence (`message_structure`), each branch its own
    thread, since the SDK sends one branch and a store holds them all (reading every row of such a session gave
    a history of two branches interleaved, which nothing sends).  A thread with a row that is not JSON is
    UNREADABLE (get_items() would skip the row: see the module docstring)."""
    import json

    wanted = None if names is None else [agents_parts(name) for name in names]
    where, parameters = among("session_id", None if wanted is None else sorted({s for s, _ in wanted}), "WHERE")
    groups: dict[tuple[str, str], list[tuple[int, Any]]] = {}
    order = "created_at, id" if isinstance(connection, PostgresRows) else "id"
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
        name = f"session:{agents_name(session, branch)}"
        items = []
        for row_id, data in rows:
            try:
                items.append(json.loads(data))
            except (ValueError, TypeError) as error:
                out.append((name, UNREADABLE, [f"agent_messages row {row_id} is not JSON ({one_line(error)}); "
                                               "SQLiteSession.get_items() skips it, so the SDK sends the session "
                                               "without an item it stored"]))
                break
        else:
            out.append((name, "openai-responses", items))
    return out


def escape_part(part: str) -> str:
    return part.replace("%", "%25").replace("/", "%2F")


def adk_parts(shown: str, name: str) -> tuple[str | None, str | None, str]:
    """(app, user, session id) of an ADK session name: "ID" or "APP/USER/ID" (parts escaped)."""
    parts = name.split("/")
    if len(parts) == 1:
        return None, None, unquote(parts[0])
    if len(parts) == 3:
        return unquote(parts[0]), unquote(parts[1]), unquote(parts[2])
    raise TranscriptError(shown, "", f"{name!r} names no ADK session: ID, or APP/USER/ID with a '/' inside "
                          "a part written %2F")


def adk_keys(connection: Any) -> dict[str, tuple[str, str, str]]:
    """Every session's name and (app, user, session id): "ID" when no other app or user has a session so
    named, else "APP/USER/ID"."""
    keys = [(str(a), str(u), str(s)) for a, u, s in
            connection.execute("SELECT DISTINCT app_name, user_id, session_id FROM events")]
    counts = Counter(session for _, _, session in keys)
    return {(escape_part(s) if counts[s] == 1 else "/".join(map(escape_part, (a, u, s)))): (a, u, s)
            for a, u, s in keys}


def adk_resolve(shown: str, name: str, keys: dict[str, tuple[str, str, str]]) -> str:
    """The name list_threads gives the session `name` stands for; an id several apps or users hold, or one
    that is not there, is a TranscriptError."""
    app, user, session = adk_parts(shown, name)
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


def adk_threads(connection: Any, shown: str, sessions: list[str] | None) -> list[Thread]:
    """Each session's live event contents in ADK's order, a session being (app, user, session id) as ADK keys it;
    an event that is not JSON makes its session UNREADABLE.

    The events table holds JSON `event_data` (DatabaseSessionService's schema v1, SqliteSessionService), or in a
    store of ADK's legacy schema v0, which ADK still opens, a JSON column per field with the actions pickled.
    Ties of timestamp are broken as the service that wrote the store breaks them (`_adk_order`), and events a
    rewind annulled are left out (`_live_events`): what ADK builds its next request from."""
    import json

    keys = adk_keys(connection)
    if sessions is None:
        wanted = sorted(keys)
    else:
        wanted = []
        for session in sessions:
            try:
                wanted.append(adk_resolve(shown, session, keys))
            except TranscriptError:
                if len(sessions) == 1:
                    raise
    out: list[Thread] = []
    columns = columns_of(connection, "events")
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
                problem = f"event {position} is not JSON ({one_line(error)})"
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
    if isinstance(connection, PostgresRows):
        return "id"  # only DatabaseSessionService writes to Postgres
    tables = {str(row[0]) for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    legacy = "event_data" not in columns_of(connection, "events")
    return "id" if "adk_internal_metadata" in tables or legacy else "rowid"


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
                         f"restricted unpickler (pip install google-adk): {one_line(error)}") from None
    try:
        actions = _restricted_pickle.loads(bytes(pickled))
    except Exception as error:
        raise _Unpickled(f"ADK cannot unpickle its actions: {one_line(error)}") from None
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
