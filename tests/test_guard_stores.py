"""Sessions read from the runtimes' own SQLite stores (integrity.guards.stores), written by the runtimes.

A LangGraph SqliteSaver thread broken by a tool that raised, an Agents SDK SQLiteSession and an ADK
DatabaseSessionService session holding the reported failures are read back as Transcripts and checked
by the one pipeline; the database file is never written.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import agents  # noqa: E402,F401 - never skipped: requirements-dev.txt installs them
import google.adk  # noqa: E402,F401
import langgraph.checkpoint.sqlite  # noqa: E402,F401
import pytest
from goose_store import goose_store

from integrity import check  # noqa: E402
from integrity.guards.stores import is_store_url, read_store, split_store_url, thread_url  # noqa: E402
from integrity.loading import Transcript, TranscriptError  # noqa: E402


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


def model_tool_loop(schema: Any, model: Any, tool: Any, route: Any, saver: Any, tool_name: str = "tools") -> Any:
    """The usual LangGraph agent, compiled on `saver`: START -> model; model -> the tool node or END as `route`
    says; the tool node -> model."""
    from langgraph.graph import END, START, StateGraph

    graph = StateGraph(schema)
    graph.add_node("model", model)
    graph.add_node(tool_name, tool)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", route, [tool_name, END])
    graph.add_edge(tool_name, "model")
    return graph.compile(checkpointer=saver)


@contextmanager
def fresh_saver(postgres: str) -> Iterator[Any]:
    """A PostgresSaver on the test server, its tables made anew (a test's threads alone in them), on an
    autocommit connection closed after."""
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    with psycopg.connect(f"postgresql://{postgres}", autocommit=True, prepare_threshold=0) as connection:
        connection.execute("DROP TABLE IF EXISTS checkpoints, checkpoint_blobs, checkpoint_writes, "
                           "checkpoint_migrations")
        saver = PostgresSaver(connection)
        saver.setup()
        yield saver


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
    # libpq's connection parameters are the connection's (this server has no TLS: sslmode=require fails), in
    # either order with the thread; `options` could turn the read-only session off and is refused
    assert [t.name for t in read_store(url + "?sslmode=disable&thread=healthy")] == ["thread:healthy"]
    assert [t.name for t in read_store(url + "?thread=healthy&application_name=audit")] == ["thread:healthy"]
    with pytest.raises(TranscriptError, match="SSL|ssl"):
        read_store(url + "?sslmode=require")
    with pytest.raises(TranscriptError, match="unknown URL parameter 'options'"):
        read_store(url + "?options=-c%20default_transaction_read_only%3Doff")
    assert split_store_url(url + "?sslmode=disable&thread=t")[0] == url + "?sslmode=disable"
    assert thread_url(url + "?sslmode=disable", "a b") == url + "?sslmode=disable&thread=a%20b"
    with psycopg.connect(f"postgresql://{postgres}") as connection:
        assert connection.execute("SELECT count(*) FROM checkpoints").fetchone() == before
        # nothing left holding a lock: an exclusive lock is granted at once
        connection.execute("SET lock_timeout = '1s'")
        connection.execute("LOCK TABLE checkpoints IN ACCESS EXCLUSIVE MODE")
        connection.rollback()


def test_postgres_a_thread_that_cannot_be_decoded_and_a_held_lock(postgres: str) -> None:
    """An encrypted checkpoint is its thread's error, the others are read; a lock another session holds is
    waited on a few seconds, then one line (before: the read waited as long as the lock was held)."""
    import time

    import psycopg
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from test_guard_langchain import RecordingModel

    from integrity.guards.stores import read_store_each

    class Xor:
        def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
            return "xor", bytes(b ^ 0x5A for b in plaintext)

        def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
            return bytes(b ^ 0x5A for b in ciphertext)

    server, _, _ = postgres.rpartition("/")
    with psycopg.connect(f"postgresql://{postgres}", autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS held")
        admin.execute("CREATE DATABASE held")
    dsn = f"{server}/held"
    with psycopg.connect(f"postgresql://{dsn}", autocommit=True, prepare_threshold=0) as connection:
        plain = PostgresSaver(connection)
        plain.setup()
        for thread, saver in (("plain", plain), ("secret", PostgresSaver(
                connection, serde=EncryptedSerializer(Xor(), JsonPlusSerializer())))):
            create_agent(RecordingModel(responses=[AIMessage("ok")], seen=[]), [], checkpointer=saver).invoke(
                {"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": thread}})
    url = f"langgraph+postgresql://{dsn}"
    found = {getattr(item, "name", None) or item.position: item for item in read_store_each(url)}
    assert isinstance(found["thread:plain"], Transcript)
    assert isinstance(found["thread:secret"], TranscriptError) and "msgpack+xor" in str(found["thread:secret"])
    with psycopg.connect(f"postgresql://{dsn}") as holder:
        holder.execute("LOCK TABLE checkpoints IN ACCESS EXCLUSIVE MODE")
        started = time.monotonic()
        with pytest.raises(TranscriptError, match="lock timeout") as raised:
            read_store(url)
        assert time.monotonic() - started < 30 and "\n" not in str(raised.value)
        holder.rollback()


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


# --- nothing beside the file (D1), read-only folders (D2) ----------------------------------------------------

def listing(folder: Path) -> set[str]:
    return {entry.name for entry in folder.iterdir()}


def wal_mode(path: Path) -> bool:
    return path.read_bytes()[18] == 2


def _agents_store(path: Path) -> Path:
    from agents import SQLiteSession

    async def write() -> None:
        for name, items in (("approval", [{"role": "user", "content": "hi"},
                                          {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}]),
                            ("fine", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])):
            session = SQLiteSession(name, str(path))
            await session.add_items(items)
            session.close()

    asyncio.run(write())
    return path


def _adk_store(path: Path | str, with_tools: bool = False) -> dict[str, str]:
    """An ADK DatabaseSessionService store written by a real Runner: session 'broken' (a tool that raised),
    'healthy' (a tool call answered); with_tools=False: two plain sessions named alike in two apps.  `path`: a
    SQLite file, or a SQLAlchemy URL (a Postgres database)."""
    from google.adk.agents import LlmAgent
    from google.adk.apps import App
    from google.adk.models import BaseLlm, LlmRequest, LlmResponse
    from google.adk.runners import Runner
    from google.adk.sessions import DatabaseSessionService
    from google.genai import types

    def say(text: str) -> LlmResponse:
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))

    def call(call_id: str, name: str) -> LlmResponse:
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(
            function_call=types.FunctionCall(id=call_id, name=name, args={"q": "x"}),
            thought_signature=b"sig")]))  # (a Gemini model signs a step's first call: Gemini 3 refuses it unsigned)

    class Scripted(BaseLlm):
        model: str = "gemini-2.5-flash"
        script: list[Any] = []

        async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> Any:
            yield self.script.pop(0) if self.script else say("done")

    def explode(q: str) -> str:
        """Fails."""
        raise RuntimeError("disk full")

    def lookup(q: str) -> str:
        """Finds."""
        return f"found {q}"

    async def run(service: Any, app: str, user: str, session: str, script: list[Any]) -> None:
        agent = LlmAgent(name="a", model=Scripted(script=script), tools=[explode, lookup])
        runner = Runner(app=App(name=app, root_agent=agent), session_service=service)
        await service.create_session(app_name=app, user_id=user, session_id=session)
        try:
            async for _ in runner.run_async(user_id=user, session_id=session, new_message=types.Content(
                    role="user", parts=[types.Part(text="hi")])):
                pass
        except RuntimeError:
            pass

    async def write() -> None:
        service = DatabaseSessionService(path if isinstance(path, str) else f"sqlite+aiosqlite:///{path}")
        if with_tools:
            await run(service, "app", "u", "broken", [call("c1", "explode")])
            await run(service, "app", "u", "healthy", [call("c2", "lookup"), say("found it")])
        else:
            await run(service, "app1", "alice", "shared", [call("s1", "explode")])
            await run(service, "app2", "bob", "shared", [call("s2", "lookup"), say("ok")])
            await run(service, "app1", "alice", "alone", [say("plain")])
        await service.close()

    asyncio.run(write())
    return {"broken": "broken", "healthy": "healthy"}


@pytest.fixture(params=["langgraph", "agents", "adk", "goose"])
def wal_store(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    """A store of each SQLite scheme in WAL mode, written by its runtime (ADK writes a rollback-journal file:
    it is switched to WAL, as an operator may), closed: nothing beside it."""
    kind = request.param
    if kind == "langgraph":
        path = request.getfixturevalue("langgraph_db")
    elif kind == "agents":
        path = _agents_store(tmp_path / "sessions.db")
    elif kind == "goose":
        path = goose_store(tmp_path / "goose.db", {name: _goose_session(name) for name in ("s1", "s2")})
    else:
        path = tmp_path / "adk.db"
        _adk_store(path)
        with sqlite3.connect(str(path)) as connection:
            connection.execute("PRAGMA journal_mode=WAL")
        connection.close()
    assert wal_mode(path) and listing(path.parent) == {path.name}
    return kind, path


OTHER = {"langgraph": "agents", "agents": "adk", "adk": "goose", "goose": "langgraph"}


def _goose_session(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (Path(__file__).parent.parent / "sample_transcripts" /
                                          "healthy.goose.jsonl").read_text().splitlines()[1:]]


def test_a_wal_store_is_read_leaving_nothing_beside_it(wal_store: tuple[str, Path]) -> None:
    """mode=ro alone leaves a WAL store's -wal and -shm behind, on a read that fails too."""
    from integrity.guards.stores import list_threads, read_threads

    kind, path = wal_store
    before = digest(path)
    url = f"{kind}+sqlite://{path}"
    assert len(read_store(url)) >= 2
    assert read_threads(url, list_threads(url))
    key = "thread" if kind == "langgraph" else "session"
    with pytest.raises(TranscriptError, match="no thread or session 'nope'"):
        read_store(f"{url}?{key}=nope")
    with pytest.raises(TranscriptError, match="no such table"):
        read_store(f"{OTHER[kind]}+sqlite://{path}")
    assert listing(path.parent) == {path.name}
    assert digest(path) == before


def test_a_store_open_in_its_runtime_is_read_with_its_wal_and_left_as_it_was(langgraph_db: Path) -> None:
    """A writer holds the store open (its -wal and -shm exist, the last thread only in the -wal): the read
    sees that thread and neither adds nor removes a file."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver
    from test_guard_langchain import RecordingModel

    writer = sqlite3.connect(str(langgraph_db), check_same_thread=False)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")  # the new thread stays in the -wal
        create_agent(RecordingModel(responses=[AIMessage("hello")], seen=[]), [], checkpointer=SqliteSaver(writer)
                     ).invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "late"}})
        files = listing(langgraph_db.parent)
        assert {f"{langgraph_db.name}-wal", f"{langgraph_db.name}-shm"} <= files
        names = {t.name for t in read_store(f"langgraph+sqlite://{langgraph_db}")}
        assert names == {"thread:broken", "thread:healthy", "thread:late"}
        with pytest.raises(TranscriptError):
            read_store(f"agents+sqlite://{langgraph_db}")
        assert listing(langgraph_db.parent) == files
    finally:
        writer.close()


def _store_with_frames_and_no_shm(langgraph_db: Path, folder: Path) -> Path:
    """A copy of a store whose -wal holds a thread and which has no -shm (a writer that crashed, a backup)."""
    import shutil

    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver
    from test_guard_langchain import RecordingModel

    writer = sqlite3.connect(str(langgraph_db), check_same_thread=False)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        create_agent(RecordingModel(responses=[AIMessage("hello")], seen=[]), [], checkpointer=SqliteSaver(writer)
                     ).invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "late"}})
        folder.mkdir(exist_ok=True)
        shutil.copy(langgraph_db, folder / "copy.db")
        shutil.copy(f"{langgraph_db}-wal", folder / "copy.db-wal")
    finally:
        writer.close()
    assert (folder / "copy.db-wal").stat().st_size > 32
    return folder / "copy.db"


def test_a_wal_left_without_its_shm_is_read_and_the_shm_the_read_made_removed(langgraph_db: Path,
                                                                              tmp_path: Path) -> None:
    copy = _store_with_frames_and_no_shm(langgraph_db, tmp_path / "backup")
    before = {name: digest(copy.parent / name) for name in listing(copy.parent)}
    names = {t.name for t in read_store(f"langgraph+sqlite://{copy}")}
    assert names == {"thread:broken", "thread:healthy", "thread:late"}  # the -wal's thread is read
    with pytest.raises(TranscriptError, match="no such table"):
        read_store(f"adk+sqlite://{copy}")
    assert {name: digest(copy.parent / name) for name in listing(copy.parent)} == before


def _as_a_reader_who_cannot_write(folder: Path, read: Any) -> tuple[str, Any]:
    """read() run by a user who cannot write `folder` (the nobody user in a forked child when the tests run
    as root, who may write anywhere; else the folder made read-only): ("ok", value) or ("error", message)."""
    import multiprocessing
    import os

    def attempt() -> tuple[str, Any]:
        try:
            return "ok", read()
        except TranscriptError as error:
            return "error", str(error)

    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            return attempt()
        finally:
            folder.chmod(0o755)
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)

    def child() -> None:
        os.setgid(65534)
        os.setuid(65534)
        sending.send(attempt())

    process = context.Process(target=child)
    process.start()
    try:
        assert receiving.poll(60), "the reader did not answer"
        return receiving.recv()  # type: ignore[no-any-return]
    finally:
        process.join(10)


@pytest.fixture
def shared_folder() -> Any:
    """A folder under /tmp any user may read (pytest's tmp_path is its owner's only), removed after."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="integrity-ro-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_wal_store_in_a_folder_the_reader_cannot_write_is_read(langgraph_db: Path, shared_folder: Path) -> None:
    """mode=ro must create the -wal and -shm of a WAL store, and cannot there ("unable to open database
    file"); with no -wal (or one with no frame) the store is read as immutable."""
    import shutil

    store = shared_folder / "checkpoints.db"
    shutil.copy(langgraph_db, store)
    store.chmod(0o644)
    url = f"langgraph+sqlite://{store}"
    names = lambda: sorted(t.name for t in read_store(url))  # noqa: E731
    assert _as_a_reader_who_cannot_write(shared_folder, names) == ("ok", ["thread:broken", "thread:healthy"])
    (shared_folder / "checkpoints.db-wal").write_bytes(b"")  # a writer's empty -wal, and its -shm
    (shared_folder / "checkpoints.db-shm").write_bytes(b"\0" * 32768)
    assert _as_a_reader_who_cannot_write(shared_folder, names) == ("ok", ["thread:broken", "thread:healthy"])
    assert listing(shared_folder) == {"checkpoints.db", "checkpoints.db-wal", "checkpoints.db-shm"}


def test_a_wal_with_transactions_the_reader_cannot_open_is_one_clear_line(langgraph_db: Path,
                                                                        shared_folder: Path) -> None:
    copy = _store_with_frames_and_no_shm(langgraph_db, shared_folder)
    for name in listing(shared_folder):
        (shared_folder / name).chmod(0o644)
    said, message = _as_a_reader_who_cannot_write(
        shared_folder, lambda: [t.name for t in read_store(f"langgraph+sqlite://{copy}")])
    assert said == "error" and "\n" not in message
    assert "its -wal file holds transactions" in message and "copy the .db and its -wal" in message
    assert listing(shared_folder) == {"copy.db", "copy.db-wal"}


# --- one thread that cannot be decoded (D3) ------------------------------------------------------------------

def _encrypted_thread(path: Path) -> None:
    """A thread checkpointed through LangGraph's EncryptedSerializer (a toy cipher): type msgpack+xor."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.checkpoint.sqlite import SqliteSaver
    from test_guard_langchain import RecordingModel

    class Xor:
        def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
            return "xor", bytes(b ^ 0x5A for b in plaintext)

        def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
            return bytes(b ^ 0x5A for b in ciphertext)

    connection = sqlite3.connect(str(path), check_same_thread=False)
    saver = SqliteSaver(connection, serde=EncryptedSerializer(Xor(), JsonPlusSerializer()))
    create_agent(RecordingModel(responses=[AIMessage("ok")], seen=[]), [], checkpointer=saver).invoke(
        {"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "secret"}})
    connection.close()


def test_a_thread_that_cannot_be_decoded_is_its_own_one_line_error(langgraph_db: Path) -> None:
    """An encrypted checkpoint and a corrupt one: check says so in one line each (exit 2) and still judges
    the broken thread; before, the whole read was 'internal error' (exit 70)."""
    from cli_inprocess import run

    from integrity.guards.stores import read_store_each

    _encrypted_thread(langgraph_db)
    with sqlite3.connect(str(langgraph_db)) as connection:
        connection.execute("UPDATE checkpoints SET checkpoint = x'c1c1c1' WHERE thread_id = 'healthy'")
    connection.close()
    url = f"langgraph+sqlite://{langgraph_db}"
    found = {getattr(item, "name", None) or item.position: item for item in read_store_each(url)}
    assert isinstance(found["thread:broken"], Transcript)
    assert isinstance(found["thread:secret"], TranscriptError) and "msgpack+xor" in str(found["thread:secret"])
    assert isinstance(found["thread:healthy"], TranscriptError)
    checked = run("check", "--provider", "anthropic", url)
    assert checked.code == 2
    errors = checked.stderr.strip().splitlines()
    assert len(errors) == 2 and all(line.startswith(f"error: {url}: thread:") for line in errors)
    assert "Unknown serialization type: msgpack+xor" in checked.stderr
    assert f"{url}#thread:broken: repaired: 1 receipt(s) synthesized" in checked.stdout.decode()
    assert run("check", url + "?thread=broken").code == 1
    named = run("check", url + "?thread=secret")
    assert named.code == 2 and len(named.stderr.strip().splitlines()) == 1
    with pytest.raises(TranscriptError, match="thread:healthy: LangGraph cannot decode"):
        read_store(url)  # the strict reader: the first thread that cannot be decoded


def test_triage_marks_only_the_thread_that_cannot_be_decoded(langgraph_db: Path) -> None:
    from integrity.guards.stores import list_threads, thread_url
    from integrity.triage import triage_threads

    _encrypted_thread(langgraph_db)
    url = f"langgraph+sqlite://{langgraph_db}"
    units = [thread_url(url, thread) for thread in list_threads(url)]
    rows, _, _ = triage_threads(url, units, ["anthropic"], "strict", {})
    status = {row["thread"]: (row["status"], row["error"]) for row in rows}
    assert status["thread:secret"][0] == "unreadable" and "msgpack+xor" in status["thread:secret"][1]
    assert "internal error" not in status["thread:secret"][1]
    assert status["thread:healthy"][0] != "unreadable" and status["thread:broken"][0] != "unreadable"


def test_an_agents_row_that_is_not_json_makes_its_session_unreadable(tmp_path: Path) -> None:
    """SQLiteSession.get_items() skips such a row; the session it sends lacks a stored item, so it is one
    error line (exit 2), and the other sessions are judged."""
    from cli_inprocess import run

    path = _agents_store(tmp_path / "sessions.db")
    with sqlite3.connect(str(path)) as connection:
        connection.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('fine', '{not json')")
    connection.close()
    url = f"agents+sqlite://{path}"
    checked = run("check", url)
    assert checked.code == 2
    assert checked.stderr.strip().splitlines() == [checked.stderr.strip()]
    assert f"{url}: session:fine: agent_messages row" in checked.stderr and "get_items() skips it" in checked.stderr
    assert f"{url}#session:approval: repaired" in checked.stdout.decode()


def test_langgraph_not_installed_is_one_line(langgraph_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "langgraph.checkpoint.serde.jsonplus", None)
    with pytest.raises(TranscriptError, match="checkpoint serializer is not installed") as raised:
        read_store(f"langgraph+sqlite://{langgraph_db}")
    assert "\n" not in str(raised.value)


def test_the_inspector_lists_a_thread_that_cannot_be_decoded_and_shows_its_one_line(
        langgraph_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from streamlit.testing.v1 import AppTest

    _encrypted_thread(langgraph_db)
    monkeypatch.setenv("INTEGRITY_STORE_ROOT", str(langgraph_db.parent))
    # the page runs as __main__ and may stay there: a later test's spawned Dask worker would run it again
    monkeypatch.setitem(sys.modules, "__main__", sys.modules["__main__"])
    url = f"langgraph+sqlite://{langgraph_db}"
    page = Path(__file__).resolve().parent.parent / "pages" / "inspector_page.py"
    app = AppTest.from_file(str(page), default_timeout=120)
    app.session_state["store_url"] = url
    app.run()
    assert not app.exception and not app.error  # the first thread (thread:broken) opens
    table = app.dataframe[0].value.set_index("thread")["verdict"].to_dict()
    assert table["thread:secret"] == "unreadable"
    assert table["thread:broken"] not in ("", "unreadable") and table["thread:healthy"] not in ("", "unreadable")
    app.selectbox(key=f"store_thread:{url}").set_value("thread:secret").run()
    assert not app.exception
    assert len(app.error) == 1  # ui.show_error: a fixed headline, then the one line as literal text
    lines = [str(block.value) for block in app.code if "thread:secret" in str(block.value)]
    assert len(lines) == 1 and "msgpack+xor" in lines[0] and "\n" not in lines[0]


# --- URLs, ADK keys, an empty store (D4, D6) ------------------------------------------------------------------

@pytest.mark.parametrize(("suffix", "problem"), [
    ("?thread=broken&thread=healthy", "names 'thread' more than once"),
    ("?thread=broken&session=healthy", "more than once"),
    ("?threads=broken", "unknown URL parameter 'threads'"),
    ("#thread:broken", "URL fragment"),
])
def test_a_url_naming_threads_ambiguously_is_an_error(langgraph_db: Path, suffix: str, problem: str) -> None:
    with pytest.raises(TranscriptError, match=problem) as raised:
        read_store(f"langgraph+sqlite://{langgraph_db}{suffix}")
    assert "\n" not in str(raised.value)


def test_a_url_path_is_percent_decoded_and_a_host_is_refused(langgraph_db: Path, tmp_path: Path) -> None:
    import shutil

    spaced = tmp_path / "with space"
    spaced.mkdir()
    shutil.copy(langgraph_db, spaced / "lg #1.db")
    encoded = f"langgraph+sqlite://{tmp_path}/with%20space/lg%20%231.db?thread=broken"
    assert [t.name for t in read_store(encoded)] == ["thread:broken"]
    assert [t.name for t in read_store(f"langgraph+sqlite://localhost{langgraph_db}?thread=broken")] == [
        "thread:broken"]
    with pytest.raises(TranscriptError, match="names the host '.'"):
        read_store(f"langgraph+sqlite://./{langgraph_db.name}")


def test_a_store_with_no_thread_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from cli_inprocess import run
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path / "empty.db"
    connection = sqlite3.connect(str(path), check_same_thread=False)
    SqliteSaver(connection).setup()
    connection.close()
    for flags, out in (((), b""), (("--json",), b"[]")):  # (--json: as for a file that cannot be read)
        checked = run("check", *flags, f"langgraph+sqlite://{path}")
        assert checked.code == 2, flags
        assert checked.stderr.strip() == f"error: langgraph+sqlite://{path}: the store holds no thread or session"
        assert checked.stdout.strip() == out


def test_adk_sessions_are_keyed_by_app_user_and_id(tmp_path: Path) -> None:
    """Two apps each hold a session 'shared' (one broken, one healthy): read apart, named by app and user;
    ?session=shared is ambiguous, ?app=&user=&session= names one, a unique id keeps ?session=ID."""
    from cli_inprocess import run

    from integrity.guards.stores import list_threads, thread_url

    path = tmp_path / "adk.db"
    _adk_store(path)
    url = f"adk+sqlite://{path}"
    sessions = {t.name: t for t in read_store(url)}
    assert set(sessions) == {"session:alone", "session:app1/alice/shared", "session:app2/bob/shared"}
    assert not check(sessions["session:app1/alice/shared"], provider="gemini", policy="strict").healthy
    assert check(sessions["session:app2/bob/shared"], provider="gemini", policy="strict").healthy
    with pytest.raises(TranscriptError, match=r"held by 2 apps or users \(app1/alice, app2/bob\)") as raised:
        read_store(url + "?session=shared")
    assert "\n" not in str(raised.value)
    assert run("check", url + "?app=app2&user=bob&session=shared").code == 0
    assert run("check", url + "?app=app1&user=alice&session=shared").code == 1
    assert [t.name for t in read_store(url + "?session=alone")] == ["session:alone"]
    assert [t.name for t in read_store(url + "?app=app1&user=alice&session=alone")] == ["session:alone"]
    with pytest.raises(TranscriptError, match="give all three"):
        read_store(url + "?app=app1&session=shared")
    units = [thread_url(url, name) for name in list_threads(url)]  # what triage's rows name
    assert units == [f"{url}?session=alone", f"{url}?app=app1&user=alice&session=shared",
                     f"{url}?app=app2&user=bob&session=shared"]
    assert [[t.name for t in read_store(unit)] for unit in units] == [[name] for name in sorted(sessions)]


def test_a_healthy_adk_session_with_tool_calls_is_healthy(tmp_path: Path) -> None:
    """ADK stores event_data with snake_case function_call / function_response; the schema takes them."""
    from cli_inprocess import run

    path = tmp_path / "adk.db"
    _adk_store(path, with_tools=True)
    url = f"adk+sqlite://{path}"
    healthy = run("check", url + "?session=healthy")
    assert healthy.code == 0, healthy.stdout.decode()
    assert "malformed" not in healthy.stdout.decode()
    broken = run("check", url + "?session=broken")
    assert broken.code == 1 and "malformed" not in broken.stdout.decode()


# --- a store is untrusted input: a checkpoint naming a function never runs it ---


def _calling(marker: Path) -> Any:
    """A msgpack value LangGraph's default serializer would construct by importing and calling os.mkdir(marker)."""
    import ormsgpack
    from langgraph.checkpoint.serde.jsonplus import EXT_CONSTRUCTOR_POS_ARGS

    return ormsgpack.Ext(EXT_CONSTRUCTOR_POS_ARGS, ormsgpack.packb(["os", "mkdir", [str(marker)]]))


def test_a_checkpoint_naming_a_function_is_read_without_calling_it(langgraph_db: Path, tmp_path: Path) -> None:
    """The serializer's default (langgraph-checkpoint 4.x) imports and calls any module and function a msgpack
    value names; the reader decodes in LangGraph's strict mode, so a store someone else wrote runs no code."""
    import ormsgpack

    marker = tmp_path / "ran"
    with sqlite3.connect(str(langgraph_db)) as connection:
        checkpoint_id, blob = connection.execute(
            "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = 'broken' "
            "ORDER BY checkpoint_id DESC LIMIT 1").fetchone()
        state = ormsgpack.unpackb(blob, ext_hook=ormsgpack.Ext)
        state["channel_values"]["planted"] = _calling(marker)
        connection.execute("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = 'broken' AND checkpoint_id = ?",
                           (ormsgpack.packb(state), checkpoint_id))
    [thread] = read_store(f"langgraph+sqlite://{langgraph_db}?thread=broken")
    assert not marker.exists()
    assert check(thread, provider="anthropic").summary.orphaned_calls == 1  # the messages are read as before


def test_a_postgres_checkpoint_naming_a_function_is_read_without_calling_it(postgres: str, tmp_path: Path) -> None:
    import ormsgpack
    import psycopg
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.postgres import PostgresSaver
    from test_guard_langchain import RecordingModel

    marker = tmp_path / "ran"
    with psycopg.connect(f"postgresql://{postgres}", autocommit=True, prepare_threshold=0) as connection:
        saver = PostgresSaver(connection)
        saver.setup()
        create_agent(RecordingModel(responses=[AIMessage("hello")], seen=[]), [], checkpointer=saver).invoke(
            {"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "planted"}})
        connection.execute("UPDATE checkpoint_blobs SET type = 'msgpack', blob = %s "
                           "WHERE thread_id = 'planted' AND channel = 'messages'",
                           (ormsgpack.packb([_calling(marker)]),))
    try:
        read_store(f"langgraph+postgresql://{postgres}?thread=planted")
    except TranscriptError as error:
        assert "\n" not in str(error)  # what it cannot read is one line
    assert not marker.exists()


def test_an_adk_store_of_the_legacy_schema_is_read_as_adk_reads_it(tmp_path: Path) -> None:
    """ADK still opens a database made with its schema v0 (a JSON column per event field, no `event_data`) and
    warns; the reader takes each event's `content` column there."""
    from google.adk.events import Event
    from google.adk.sessions import DatabaseSessionService
    from google.adk.sessions.schemas import v0
    from google.genai import types
    from sqlalchemy import create_engine

    path = tmp_path / "legacy.db"
    engine = create_engine(f"sqlite:///{path}")
    v0.Base.metadata.create_all(engine)
    engine.dispose()

    async def write() -> int:
        service = DatabaseSessionService(f"sqlite+aiosqlite:///{path}")
        session = await service.create_session(app_name="app", user_id="u", session_id="s1")
        for role, part in (("user", types.Part(text="hi")),
                           ("model", types.Part(function_call=types.FunctionCall(id="c1", name="f", args={}))),
                           ("user", types.Part(text="again"))):
            await service.append_event(session, Event(author="user" if role == "user" else "agent",
                                                      invocation_id="i",
                                                      content=types.Content(role=role, parts=[part])))
        got = await service.get_session(app_name="app", user_id="u", session_id="s1")
        await service.close()
        assert got is not None
        return len(got.events)

    assert asyncio.run(write()) == 3
    before = digest(path)
    [thread] = read_store(f"adk+sqlite://{path}")
    assert thread.name == "session:s1" and len(thread.messages) == 3
    assert check(thread).summary.orphaned_calls == 1
    assert digest(path) == before


def test_a_hot_rollback_journal_is_one_line_saying_what_to_do(tmp_path: Path) -> None:
    """A writer killed mid-transaction leaves a hot -journal that a read-only open may not roll back: SQLite says
    'attempt to write a readonly database'; the line says what happened and what to do, and both files stay."""
    import subprocess
    import sys

    path = _agents_store(tmp_path / "sessions.db")
    writer = ("import os, sqlite3, sys\n"
              "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
              "c.execute('pragma journal_mode=delete'); c.execute('pragma cache_size=1'); c.execute('BEGIN')\n"
              "c.execute('CREATE TABLE big(x)')\n"
              "[c.execute('INSERT INTO big VALUES(?)', ('y' * 500,)) for _ in range(3000)]\n"
              "os.kill(os.getpid(), 9)\n")
    subprocess.run([sys.executable, "-c", writer, str(path)], check=False)
    journal = Path(f"{path}-journal")
    assert journal.exists()
    before = (digest(path), digest(journal))
    with pytest.raises(TranscriptError) as refused:
        read_store(f"agents+sqlite://{path}")
    assert "a writer stopped mid-write and left its rollback journal" in str(refused.value)
    assert "\n" not in str(refused.value) and (digest(path), digest(journal)) == before
