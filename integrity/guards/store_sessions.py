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
from .store_db import (
    UNREADABLE,
    PostgresRows,
    Thread,
    among,
    columns_of,
    on_postgres,
    one_line,
    read_postgres,
    read_sqlite,
)

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
    return read_postgres(base, read) if on_postgres(base) else read_sqlite(base, read)


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
                out.append(Thread(name, UNREADABLE, [f"agent_messages row {row_id} is not JSON ({one_line(error)}); "
                                                     "SQLiteSession.get_items() skips it, so the SDK sends the session "
                                                     "without an item it stored"]))
                break
        else:
            out.append(Thread(name, "openai-responses", items))
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
    Ties of timestamp are broken as the service that wrote the store breaks them (`_adk_order`), events a
    rewind annulled are left out (`_live_events`), and events a compaction summarised are replaced by its
    summary (`_compacted`): what ADK builds its next request from."""
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
                actions = _legacy_actions(pickled) if legacy else None
            except (ValueError, TypeError) as error:
                problem = f"event {position} is not JSON ({one_line(error)})"
                break
            except _Unread as error:
                problem = f"event {position}: {error}"
                break
            if getattr(actions, "compaction", None):
                problem = (f"event {position} is a compaction (ADK summarised earlier events) in a store of ADK's "
                           "legacy schema, whose compactions this reader does not apply; its verdict would judge "
                           "events ADK no longer sends")
                break
            target = getattr(actions, "rewind_before_invocation_id", None) if legacy else _rewind(event)
            rewind = str(target) if target else None
            events.append((str(invocation or ""), rewind, event))
        if problem:
            out.append(Thread(f"session:{name}", UNREADABLE, [problem]))
            continue
        live = _live_events(events)
        if not legacy and any(_compaction(event) for event in live):
            try:
                contents = _compacted(live)
            except _Unread as error:
                out.append(Thread(f"session:{name}", UNREADABLE, [str(error)]))
                continue
        else:
            contents = [event if legacy else event.get("content") if isinstance(event, dict) else None
                        for event in live]
        out.append(Thread(f"session:{name}", "gemini",
                          [content for content in contents if isinstance(content, dict) and content.get("parts")],
                          None if legacy else _model_of(live)))
    return out


def _model_of(events: list[Any]) -> str | None:
    """The model the session talks to: the `model_version` of its last live event that names one (ADK stores
    the model's answer with the model that gave it; schema v0 has no such column).  It decides between Gemini's
    current models and the older ones that take a call without its thought signature (providers.models)."""
    for event in reversed(events):
        model = event.get("model_version") if isinstance(event, dict) else None
        if isinstance(model, str) and model.strip():
            return model
    return None


def _compaction(event: Any) -> bool:
    """Whether an event (JSON event_data) is a compaction: a summary of the events in a time range."""
    actions = event.get("actions") if isinstance(event, dict) else None
    return isinstance(actions, dict) and bool(actions.get("compaction"))


def _compacted(events: list[Any]) -> list[Any]:
    """The contents ADK sends from these live events (JSON event_data) holding a compaction: each compaction's
    summary in place of the events in its time range, and a call compaction removed put back before a
    response that survived it; ADK's own functions do it (google.adk.flows.llm_flows.context: its
    _process_compaction_events and _recover_compacted_function_calls, which _get_contents runs right after the
    rewinds).  An event ADK keeps as it is gives its stored content."""
    try:
        from google.adk.events import Event
        from google.adk.flows.llm_flows.context._compaction import (
            _process_compaction_events,
            _recover_compacted_function_calls,
        )
    except ImportError as error:
        raise _Unread("it holds a compaction (ADK summarised earlier events), which is applied with ADK's own "
                         f"code (pip install google-adk): {one_line(error)}") from None
    try:
        built = [Event.model_validate(event) for event in events]
    except Exception as error:
        raise _Unread(f"ADK cannot read one of its events: {one_line(error)}") from None
    stored = {id(event): raw.get("content") for event, raw in zip(built, events, strict=True)}
    kept = _recover_compacted_function_calls(_process_compaction_events(built, ""), built)
    return [stored[id(event)] if id(event) in stored else
            event.content.model_dump(exclude_none=True, mode="json") if event.content is not None else None
            for event in kept]


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


class _Unread(Exception):
    """What ADK's own code is needed for and refuses (a legacy event's pickled actions, a compacted session's
    events), or no ADK to read them with: the session's one-line error."""


def _legacy_actions(pickled: Any) -> Any:
    """A legacy event's actions, unpickled by ADK's restricted unpickler (None: none stored)."""
    if not pickled:
        return None
    try:
        from google.adk.sessions import _restricted_pickle
    except ImportError as error:
        raise _Unread("its actions are pickled (ADK's legacy schema); reading a rewind among them needs ADK's "
                         f"restricted unpickler (pip install google-adk): {one_line(error)}") from None
    try:
        return _restricted_pickle.loads(bytes(pickled))
    except Exception as error:
        raise _Unread(f"ADK cannot unpickle its actions: {one_line(error)}") from None


def _live_events(events: list[tuple[str, str | None, Any]]) -> list[Any]:
    """The events (the third of each (invocation, rewind, event)) no rewind annulled, in order.

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
