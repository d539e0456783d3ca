"""`triage` over runtime session stores: one row per thread, the verdict `check URL?thread=ID` gives it.

The stores are written by the runtimes' own code (LangGraph's SqliteSaver and PostgresSaver under
`create_agent`, the Agents SDK's SQLiteSession), with broken threads made by a tool that raised after
its call was checkpointed; a real PostgreSQL server runs on 127.0.0.1 (test_guard_stores's fixture).
Triage runs on a real local Dask cluster, and the store is never written.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from distributed import LocalCluster
from test_guard_stores import digest, langgraph_db, postgres  # noqa: F401 - the fixtures

from integrity.cli import main
from integrity.triage import TriageError, findings_path, run_triage

THREADS = 7  # threads written to Postgres: every third broken


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        yield local.scheduler_address


def checked(url: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What `integrity check --json URL` says of the one thread the URL names."""
    capsys.readouterr()
    main(["check", "--json", url])
    report = json.loads(capsys.readouterr().out)  # one transcript: one report object
    assert isinstance(report, dict) and report["source"] == url.replace(":s3cret@", ":***@")
    return report


def assert_rows_match_check(rows: list[dict[str, Any]], findings: list[dict[str, Any]],
                            capsys: pytest.CaptureFixture[str], reach: Any = lambda path: path) -> None:
    for row in rows:
        report = checked(reach(row["path"]), capsys)
        assert (row["verdict"], row["healthy"], row["severity"]) == (
            report["verdict"], report["healthy"], report["severity"]), row["path"]
        own = report.get("as_recorded") or {}  # rated by the thread's own provider, when its format implies one
        assert row["target"] == next(iter(own), None)
        assert all(row[f"{provider} as recorded"] == said for provider, said in own.items())
        assert sum(1 for f in findings if f["path"] == row["path"] and f["source"] == "finding") == len(
            report["findings"])
        assert (row["messages"], row["orphaned_calls"]) == (report["summary"]["messages"],
                                                           report["summary"]["orphaned_calls"])


@pytest.fixture
def agents_db(tmp_path: Path) -> Path:
    from agents import SQLiteSession

    path = tmp_path / "sessions.db"

    async def write() -> None:
        approval = SQLiteSession("approval", str(path))
        await approval.add_items([{"role": "user", "content": "hi"},
                                  {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                                  {"type": "function_call_output", "call_id": "c_gone", "output": "approved"}])
        fine = SQLiteSession("fine", str(path))
        await fine.add_items([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
        approval.close()
        fine.close()

    asyncio.run(write())
    return path


def test_sqlite_stores_give_one_row_per_thread_with_checks_verdict(langgraph_db: Path,  # noqa: F811
                                                                  agents_db: Path, cluster: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    before = (digest(langgraph_db), digest(agents_db))
    table = tmp_path / "stores.parquet"
    result = run_triage([f"langgraph+sqlite://{langgraph_db}", f"agents+sqlite://{agents_db}"], str(table),
                        scheduler=cluster, progress=None)
    rows = {row["path"]: row for row in pq.read_table(table).to_pylist()}
    assert set(rows) == {f"langgraph+sqlite://{langgraph_db}?thread=broken",
                         f"langgraph+sqlite://{langgraph_db}?thread=healthy",
                         f"agents+sqlite://{agents_db}?session=approval", f"agents+sqlite://{agents_db}?session=fine"}
    assert result.transcripts == 4 and result.unreadable == 0
    broken = rows[f"langgraph+sqlite://{langgraph_db}?thread=broken"]
    assert broken["thread"] == "thread:broken" and broken["orphaned_calls"] == 1 and not broken["healthy"]
    assert rows[f"agents+sqlite://{agents_db}?session=approval"]["strays"] == 1
    assert_rows_match_check(list(rows.values()), pq.read_table(findings_path(str(table))).to_pylist(), capsys)
    assert (digest(langgraph_db), digest(agents_db)) == before  # never written

    again = run_triage([f"langgraph+sqlite://{langgraph_db}"], str(table), scheduler=cluster, progress=None)
    assert again.skipped == 2 and again.transcripts == 0  # unchanged threads are not checked again
    assert len(pq.read_table(table)) == 4


def _write_postgres_threads(dsn: str) -> None:
    import psycopg
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.postgres import PostgresSaver
    from test_guard_langchain import RecordingModel, ai_call, explode, lookup

    with psycopg.connect(dsn, autocommit=True, prepare_threshold=0) as connection:
        saver = PostgresSaver(connection)
        saver.setup()
        for n in range(THREADS):
            config = {"configurable": {"thread_id": f"t{n}"}}
            if n % 3 == 0:  # a tool that raised after its call was checkpointed
                agent = create_agent(RecordingModel(responses=[ai_call(f"call_{n}", name="explode")], seen=[]),
                                     [explode], checkpointer=saver)
                with pytest.raises(RuntimeError, match="disk full"):
                    agent.invoke({"messages": [HumanMessage(f"task {n}")]}, config)
            else:
                agent = create_agent(RecordingModel(responses=[ai_call(f"c{n}"), AIMessage("found")], seen=[]),
                                     [lookup], checkpointer=saver)
                agent.invoke({"messages": [HumanMessage(f"task {n}")]}, config)


def test_a_postgres_checkpointer_is_split_into_partitions_read_only(postgres: str,  # noqa: F811
                                                                    cluster: str, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import psycopg

    _write_postgres_threads(f"postgresql://{postgres}")
    with psycopg.connect(f"postgresql://{postgres}") as connection:
        before = connection.execute("SELECT count(*), max(checkpoint_id) FROM checkpoints").fetchone()
    user, _, host = postgres.partition("@")
    store = f"langgraph+postgresql://{user}:s3cret@{host}"  # trust auth: any password is taken
    table = tmp_path / "pg.parquet"
    result = run_triage([store], str(table), scheduler=cluster, batch_files=2, progress=None)  # 4 partitions
    rows = pq.read_table(table).to_pylist()
    assert result.files == THREADS == len(rows) == result.transcripts
    shown = f"langgraph+postgresql://{user}:***@{host}"
    assert sorted(row["path"] for row in rows) == [f"{shown}?thread=t{n}" for n in range(THREADS)]
    assert "s3cret" not in table.read_bytes().decode("latin-1")  # the password never reaches the table
    assert sorted(row["thread"] for row in rows if row["orphaned_calls"]) == [
        f"thread:t{n}" for n in range(THREADS) if n % 3 == 0]
    findings = pq.read_table(findings_path(str(table))).to_pylist()
    assert_rows_match_check(rows, findings, capsys, lambda path: path.replace(":***@", ":s3cret@"))
    with psycopg.connect(f"postgresql://{postgres}") as connection:
        assert connection.execute("SELECT count(*), max(checkpoint_id) FROM checkpoints").fetchone() == before
        connection.execute("SET lock_timeout = '1s'")  # no lock left behind: an exclusive one is granted at once
        connection.execute("LOCK TABLE checkpoints IN ACCESS EXCLUSIVE MODE")
        connection.rollback()

    one = run_triage([f"langgraph+postgresql://{postgres}?thread=t3"], str(tmp_path / "one.parquet"),
                     scheduler=cluster, progress=None)
    assert one.files == 1 and pq.read_table(tmp_path / "one.parquet").to_pylist()[0]["orphaned_calls"] == 1


def test_a_store_that_cannot_be_read_is_a_one_line_error(tmp_path: Path, langgraph_db: Path,  # noqa: F811
                                                         postgres: str) -> None:  # noqa: F811
    out = str(tmp_path / "t.parquet")
    with pytest.raises(TriageError, match="no such database file"):
        run_triage([f"langgraph+sqlite://{tmp_path}/none.db"], out, progress=None)
    with pytest.raises(TriageError, match="no thread or session 'nope'"):
        run_triage([f"langgraph+sqlite://{langgraph_db}?thread=nope"], out, progress=None)
    with pytest.raises(TriageError, match="cannot read the database") as raised:
        run_triage([f"langgraph+postgresql://{postgres.partition('@')[0]}:pw@127.0.0.1:1/none"], out,
                   progress=None)
    assert "\n" not in str(raised.value) and "pw@" not in str(raised.value)
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).execute("CREATE TABLE agent_messages (id, session_id, message_data)").connection.close()
    with pytest.raises(TriageError, match="holds no thread"):
        run_triage([f"agents+sqlite://{empty}"], out, progress=None)


def test_an_adk_store_on_postgres_is_triaged_with_checks_verdict(postgres: str,  # noqa: F811
                                                                  cluster: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """ADK's DatabaseSessionService on Postgres: one row per session, each with `check`'s verdict for it."""
    from test_guard_stores import _adk_store

    _adk_store(f"postgresql+psycopg://{postgres}", with_tools=True)
    store = f"adk+postgresql://{postgres}"
    table = tmp_path / "adk.parquet"
    result = run_triage([store], str(table), scheduler=cluster, batch_files=1, progress=None)
    rows = pq.read_table(table).to_pylist()
    assert result.files == 2 == len(rows)
    assert sorted(row["path"] for row in rows) == [f"{store}?session=broken", f"{store}?session=healthy"]
    assert [row["thread"] for row in rows if row["orphaned_calls"]] == ["session:broken"]
    assert_rows_match_check(rows, pq.read_table(findings_path(str(table))).to_pylist(), capsys)
