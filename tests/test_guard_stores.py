"""Sessions read from the runtimes' own SQLite stores (integrity.guards.stores), written by the runtimes.

A LangGraph SqliteSaver thread broken by a tool that raised, an Agents SDK SQLiteSession and an ADK
DatabaseSessionService session holding the reported failures are read back as Transcripts and checked
by the one pipeline; the database file is never written.
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import agents  # noqa: E402,F401 - never skipped: requirements-dev.txt installs them
import google.adk  # noqa: E402,F401
import langgraph.checkpoint.sqlite  # noqa: E402,F401
import pytest

from integrity import check  # noqa: E402
from integrity.guards.stores import is_store_url, read_store  # noqa: E402
from integrity.loading import TranscriptError  # noqa: E402


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def langgraph_db(tmp_path: Path) -> Path:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver
    from test_guard_langchain import RecordingModel, ai_call, explode, lookup

    path = tmp_path / "checkpoints.db"
    connection = sqlite3.connect(str(path), check_same_thread=False)
    saver = SqliteSaver(connection)
    broken = create_agent(RecordingModel(responses=[ai_call("call_1", name="explode")], seen=[]), [explode],
                          checkpointer=saver)
    with pytest.raises(RuntimeError, match="disk full"):
        broken.invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "broken"}})
    healthy = create_agent(RecordingModel(responses=[ai_call("c1"), AIMessage("x is found")], seen=[]), [lookup],
                           checkpointer=saver)
    healthy.invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "healthy"}})
    connection.close()
    return path


def test_langgraph_threads_are_read_from_the_latest_checkpoint(langgraph_db: Path) -> None:
    before = digest(langgraph_db)
    url = f"langgraph+sqlite://{langgraph_db}"
    assert is_store_url(url)
    threads = {t.name: t for t in read_store(url)}
    assert set(threads) == {"thread:broken", "thread:healthy"}
    broken = check(threads["thread:broken"], provider="anthropic", policy="strict")
    assert not broken.healthy and broken.summary.orphaned_calls == 1
    assert check(threads["thread:healthy"], provider="anthropic", policy="strict").healthy
    assert [t.name for t in read_store(url + "?thread=broken")] == ["thread:broken"]
    assert digest(langgraph_db) == before  # read-only: the file is byte for byte the same
    with sqlite3.connect(str(langgraph_db), timeout=0) as writer:  # no lock left behind
        writer.execute("CREATE TABLE probe (x)")


def test_agents_sqlite_sessions(tmp_path: Path) -> None:
    from agents import SQLiteSession

    path = tmp_path / "sessions.db"

    async def write() -> None:
        session = SQLiteSession("approval", str(path))
        await session.add_items([{"role": "user", "content": "hi"},
                                 {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                                 {"type": "function_call_output", "call_id": "c_gone", "output": "approved"}])
        other = SQLiteSession("fine", str(path))
        await other.add_items([{"role": "user", "content": "hi"}])
        session.close()
        other.close()

    asyncio.run(write())
    before = digest(path)
    sessions = {t.name: t for t in read_store(f"agents+sqlite://{path}")}
    assert set(sessions) == {"session:approval", "session:fine"}
    result = check(sessions["session:approval"], provider="openai-responses", policy="strict")
    assert result.summary.orphaned_calls == 1 and result.summary.strays == 1
    assert check(sessions["session:fine"], policy="strict").healthy
    assert digest(path) == before


@pytest.mark.parametrize("service_kind", ["DatabaseSessionService", "SqliteSessionService"])
def test_adk_sessions(tmp_path: Path, service_kind: str) -> None:
    from google.adk.events import Event
    from google.adk.sessions import DatabaseSessionService
    from google.adk.sessions.sqlite_session_service import SqliteSessionService
    from google.genai import types

    path = tmp_path / "adk.db"

    async def write() -> str:
        service: Any = DatabaseSessionService(f"sqlite+aiosqlite:///{path}") \
            if service_kind == "DatabaseSessionService" else SqliteSessionService(str(path))
        session = await service.create_session(app_name="app", user_id="u")
        for role, part in (("user", types.Part(text="hi")),
                           ("model", types.Part(function_call=types.FunctionCall(id="c1", name="f", args={}))),
                           ("user", types.Part(text="again"))):
            await service.append_event(session, Event(author="user" if role == "user" else "agent",
                                                      invocation_id="i", content=types.Content(role=role,
                                                                                               parts=[part])))
        if hasattr(service, "close"):
            await service.close()
        return str(session.id)

    session_id = asyncio.run(write())
    before = digest(path)
    found = read_store(f"adk+sqlite://{path}?session={session_id}")
    assert [t.name for t in found] == [f"session:{session_id}"]
    result = check(found[0], provider="gemini", policy="strict")
    assert not result.healthy and result.summary.orphaned_calls == 1
    assert digest(path) == before


@pytest.mark.parametrize(("url", "problem"), [
    ("mongo+sqlite:///x.db", "unknown store"),
    ("agents+sqlite:///no/such/file.db", "no such database file"),
])
def test_bad_urls_are_one_line_errors(url: str, problem: str) -> None:
    with pytest.raises(TranscriptError, match=problem) as raised:
        read_store(url)
    assert "\n" not in str(raised.value)


def test_a_database_of_another_runtime_or_a_missing_thread(langgraph_db: Path, tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="cannot read the database"):
        read_store(f"agents+sqlite://{langgraph_db}")
    with pytest.raises(TranscriptError, match="no thread or session 'nope'"):
        read_store(f"langgraph+sqlite://{langgraph_db}?thread=nope")




def _as_postgres(command: list[str]) -> list[str]:
    """initdb and pg_ctl refuse to run as root: as root, run them as the postgres user."""
    import os

    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@pytest.fixture(scope="module")
def postgres() -> Any:
    """A real PostgreSQL server on 127.0.0.1 in a temporary directory, stopped after the module."""
    import os
    import shutil
    import socket
    import subprocess

    # never skipped: the machine image has PostgreSQL 15 and
    # requirements-dev.txt installs langgraph-checkpoint-postgres
    import langgraph.checkpoint.postgres  # noqa: F401

    assert shutil.which("initdb") and shutil.which("pg_ctl"), "PostgreSQL initdb/pg_ctl not on PATH"
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="integrity-pg-"))  # under /tmp: the postgres user can reach it
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    data = root / "data"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    subprocess.run(_as_postgres(["initdb", "-D", str(data), "-A", "trust", "-U", "postgres"]), check=True,
                   capture_output=True)
    subprocess.run(_as_postgres(["pg_ctl", "-D", str(data), "-l", str(root / "log"), "-w", "-o",
                                 f"-p {port} -k {root} -c listen_addresses=127.0.0.1", "start"]),
                   check=True, capture_output=True)
    try:
        yield f"postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_postgres(["pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop"]), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def test_langgraph_postgres_threads(postgres: str) -> None:
    import psycopg
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.postgres import PostgresSaver
    from test_guard_langchain import RecordingModel, ai_call, explode, lookup

    with psycopg.connect(f"postgresql://{postgres}", autocommit=True, prepare_threshold=0) as connection:
        saver = PostgresSaver(connection)
        saver.setup()
        broken = create_agent(RecordingModel(responses=[ai_call("call_1", name="explode")], seen=[]), [explode],
                              checkpointer=saver)
        with pytest.raises(RuntimeError, match="disk full"):
            broken.invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "broken"}})
        healthy = create_agent(RecordingModel(responses=[ai_call("c1"), AIMessage("found")], seen=[]), [lookup],
                               checkpointer=saver)
        healthy.invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "healthy"}})
        before = connection.execute("SELECT count(*) FROM checkpoints").fetchone()

    url = f"langgraph+postgresql://{postgres}"
    threads = {t.name: t for t in read_store(url)}
    assert set(threads) == {"thread:broken", "thread:healthy"}
    result = check(threads["thread:broken"], provider="anthropic", policy="strict")
    assert not result.healthy and result.summary.orphaned_calls == 1
    assert check(threads["thread:healthy"], provider="anthropic", policy="strict").healthy
    assert [t.name for t in read_store(url + "?thread=healthy")] == ["thread:healthy"]
    with pytest.raises(TranscriptError, match="no thread or session 'nope'"):
        read_store(url + "?thread=nope")
    with psycopg.connect(f"postgresql://{postgres}") as connection:
        assert connection.execute("SELECT count(*) FROM checkpoints").fetchone() == before
        # nothing left holding a lock: an exclusive lock is granted at once
        connection.execute("SET lock_timeout = '1s'")
        connection.execute("LOCK TABLE checkpoints IN ACCESS EXCLUSIVE MODE")
        connection.rollback()


def test_check_reads_a_store_url_and_repair_refuses_to_write_one(langgraph_db: Path) -> None:
    """`integrity check langgraph+sqlite:///path.db` judges each thread as `check` judges a file's transcripts."""
    from cli_inprocess import run

    before = digest(langgraph_db)
    url = f"langgraph+sqlite://{langgraph_db}"
    checked = run("check", "--provider", "anthropic", url)
    assert checked.code == 1, checked.stderr
    out = checked.stdout.decode()
    assert f"{url}#thread:broken: repaired: 1 receipt(s) synthesized" in out
    assert f"{url}#thread:healthy: healthy" in out
    assert run("check", "--provider", "anthropic", url + "?thread=healthy").code == 0
    refused = run("repair", url, "-o", str(langgraph_db) + ".out")
    assert refused.code == 2 and "a session store is only read" in refused.stderr
    assert digest(langgraph_db) == before
