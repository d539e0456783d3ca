"""Session databases on Postgres (how ADK and the Agents SDK run in production) are read like the SQLite ones.

ADK's DatabaseSessionService (written by its own Runner) and the Agents SDK's SQLAlchemySession, on a real
PostgreSQL server on 127.0.0.1 (the `postgres` fixture), through SQLAlchemy's psycopg driver: what we read must be
what the runtime's get_session / get_items gives, and nothing may be written or left locked."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_guard_stores import _adk_store, postgres  # noqa: F401 - the writer, and the fixture: a real server

from integrity import check
from integrity.guards.stores import list_threads, read_store, read_threads, thread_url
from integrity.loading import TranscriptError


def _given(database: str) -> dict[str, list[dict[str, Any]]]:
    """ADK's own answer: each session's event contents as get_session gives them, as JSON."""
    from google.adk.sessions import DatabaseSessionService

    async def read() -> dict[str, list[dict[str, Any]]]:
        service = DatabaseSessionService(database)
        out = {}
        for session_id in ("broken", "healthy"):
            session = await service.get_session(app_name="app", user_id="u", session_id=session_id)
            assert session is not None
            out[session_id] = [e.content.model_dump(exclude_none=True, mode="json") for e in session.events
                               if e.content is not None and e.content.parts]
        await service.close()
        return out

    return asyncio.run(read())


def _assert_read_as_the_runtime_reads(url: str, format: str, given: dict[str, list[Any]], broken: str) -> None:
    """The store's sessions are what the runtime gave (`given`, by session id), each judged by `format`'s own
    provider: the one named `broken` (a call left unanswered) is, the others are healthy."""
    assert list_threads(url) == sorted(given)
    stored = {name: (kind, entries) for name, kind, entries, _ in read_threads(url, sorted(given))}
    assert stored == {f"session:{key}": (format, entries) for key, entries in given.items()}
    verdicts = {t.name: check(t, provider=format, policy="strict")
                for t in read_store(url)}
    for key in given:
        result = verdicts[f"session:{key}"]
        assert (result.healthy, result.summary.orphaned_calls) == ((False, 1) if key == broken else (True, 0)), key


def test_an_adk_store_on_postgres_is_read_as_adk_reads_it(postgres: str) -> None:  # noqa: F811
    import psycopg

    database = f"postgresql+psycopg://{postgres}"
    with psycopg.connect(f"postgresql://{postgres}", autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS events, sessions, app_states, user_states, adk_internal_metadata "
                           "CASCADE")
    _adk_store(database, with_tools=True)
    given = _given(database)
    with psycopg.connect(f"postgresql://{postgres}") as connection:
        before = connection.execute("SELECT count(*), max(timestamp) FROM events").fetchone()

    url = f"adk+postgresql://{postgres}"
    _assert_read_as_the_runtime_reads(url, "gemini", given, broken="broken")
    # the URL forms the SQLite store takes, libpq's parameters beside them
    assert [t.name for t in read_store(url + "?sslmode=disable&session=healthy")] == ["session:healthy"]
    assert [t.name for t in read_store(url + "?app=app&user=u&session=broken")] == ["session:broken"]
    assert thread_url(url + "?sslmode=disable", "healthy") == url + "?sslmode=disable&session=healthy"
    with pytest.raises(TranscriptError, match="no thread or session 'nope'"):
        read_store(url + "?session=nope")
    with pytest.raises(TranscriptError, match="unknown URL parameter 'options'"):
        read_store(url + "?options=-c%20default_transaction_read_only%3Doff")
    with psycopg.connect(f"postgresql://{postgres}") as connection:
        assert connection.execute("SELECT count(*), max(timestamp) FROM events").fetchone() == before
        connection.execute("SET lock_timeout = '1s'")
        connection.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")  # no lock left behind
        connection.rollback()


def test_check_and_a_database_without_adk_tables(postgres: str, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    import psycopg

    from integrity.cli import main

    with psycopg.connect(f"postgresql://{postgres}", autocommit=True) as connection:
        connection.execute("CREATE DATABASE empty_adk")
    assert main(["check", f"adk+postgresql://{postgres.rsplit('/', 1)[0]}/empty_adk"]) == 2
    err = capsys.readouterr().err
    assert "empty_adk" in err and "events" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_an_agents_sqlalchemy_session_on_postgres_is_read_as_get_items_gives_it(postgres: str) -> None:  # noqa: F811
    import psycopg
    from agents.extensions.memory import SQLAlchemySession

    database = f"postgresql+psycopg://{postgres}"
    with psycopg.connect(f"postgresql://{postgres}", autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS agent_messages, agent_sessions CASCADE")
    call = {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}", "id": "fc_1"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "found"}

    async def write() -> dict[str, list[Any]]:
        seen = {}
        for session_id, items in (("approval", [{"role": "user", "content": "find x"}, call,
                                                {"role": "user", "content": "well?"}]),
                                  ("fine", [{"role": "user", "content": "find x"}, call, output])):
            session = SQLAlchemySession.from_url(session_id, url=database, create_tables=True)
            await session.add_items(items)
            seen[session_id] = await session.get_items()
            await session.engine.dispose()
        return seen

    seen = asyncio.run(write())
    url = f"agents+postgresql://{postgres}"
    _assert_read_as_the_runtime_reads(url, "openai-responses", seen, broken="approval")
    assert thread_url(url + "?sslmode=disable", "fine") == url + "?sslmode=disable&session=fine"
    assert [t.name for t in read_store(url + "?sslmode=disable&session=fine")] == ["session:fine"]
    with pytest.raises(TranscriptError, match=r"unknown URL parameter 'branch'"):
        read_store(url + "?session=fine&branch=b")  # branches are AdvancedSQLiteSession's, a SQLite file's
