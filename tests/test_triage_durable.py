"""Triage that never loses its table: a fixed schema, each file once, special files never read, no temporary
left behind (full disk, kill -9), deleted files marked, and every user mistake one line and exit 2."""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from integrity.cli import main
from integrity.triage import findings_path, run_triage
from tests.test_triage import ROOT, SAMPLES, _broken, cluster  # noqa: F401 - cluster is a fixture

GOOD = [json.dumps(_broken(__import__("random").Random(n), n)) for n in range(6)]
PROVIDER = ["--provider", "anthropic"]


def call(argv: list[str]) -> int:
    """main(argv), with argparse's exit as a code."""
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 2


def rows(table: Path) -> list[dict[str, Any]]:
    return pq.read_table(table).to_pylist()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name)


def folder_of(tmp_path: Path, good: int = 3, bad: int = 0) -> Path:
    folder = tmp_path / "d"
    folder.mkdir()
    for n in range(good):
        (folder / f"g{n}.json").write_text(GOOD[n])
    for n in range(bad):
        (folder / f"b{n}.json").write_text('{"messages": [')
    return folder


def assert_one_line(capfd: pytest.CaptureFixture[str], *expected: str) -> None:
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("triage: ")]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and all(text in lines[0] for text in expected), err
    assert "Traceback" not in err and "distributed." not in err and "internal error" not in err


def test_error_rows_fit_the_schema_in_any_order(tmp_path: Path, cluster: str,  # noqa: F811
                                               capfd: pytest.CaptureFixture[str]) -> None:
    folder = folder_of(tmp_path, good=0, bad=2)
    out = tmp_path / "t.parquet"
    assert call(["triage", str(folder), "--out", str(out), "--scheduler", cluster, *PROVIDER]) == 0
    assert {row["status"] for row in rows(out)} == {"unreadable"}
    for n in range(3):  # good files after a table of error rows only
        (folder / f"g{n}.json").write_text(GOOD[n])
    assert call(["triage", str(folder), "--out", str(out), "--scheduler", cluster, *PROVIDER]) == 0
    (folder / "new-bad.json").write_text("[{")  # a re-run whose only new row is an error row
    assert call(["triage", str(folder), "--out", str(out), "--scheduler", cluster, *PROVIDER]) == 0
    table = pq.read_table(out)
    assert str(table.schema.field("messages").type) == "int64" and str(table.schema.field("healthy").type) == "bool"
    by_path = {row["path"]: row for row in table.to_pylist()}
    assert len(table) == 6 == len(by_path)
    assert by_path[str(folder / "new-bad.json")]["status"] == "unreadable"
    assert by_path[str(folder / "g0.json")]["messages"] > 0
    mixed = tmp_path / "mixed.parquet"  # batches of one: some batches hold only an error row
    result = run_triage([str(folder)], str(mixed), scheduler=cluster, providers=["anthropic"], batch_files=1,
                        progress=None)
    assert (result.files, result.unreadable, len(rows(mixed))) == (6, 3, 6)
    assert "error" not in capfd.readouterr().err


def test_aliases_of_one_file_give_one_row(tmp_path: Path, cluster: str,  # noqa: F811
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    folder = folder_of(tmp_path, good=2)
    os.rename(folder / "g0.json", folder / "b.json")
    (folder / "link.json").symlink_to("b.json")
    (folder / "[g].json").write_text(GOOD[3])  # a name that looks like a glob is that file when it exists
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "t.parquet"
    code = call(["triage", "d/b.json", "./d/b.json", "d/../d/b.json", "d/*.json", str(tmp_path / "d" / "b.json"),
                 "--out", str(out), "--scheduler", cluster, *PROVIDER])
    assert code == 0
    assert sorted(row["path"] for row in rows(out)) == [str(folder / "[g].json"), str(folder / "b.json"),
                                                        str(folder / "g1.json")]
    assert call(["triage", "d/[g].json", "--out", str(tmp_path / "one.parquet"), "--scheduler", cluster]) == 0
    assert [row["path"] for row in rows(tmp_path / "one.parquet")] == [str(folder / "[g].json")]


def test_special_files_are_error_rows_and_never_read(tmp_path: Path, cluster: str) -> None:  # noqa: F811
    folder = folder_of(tmp_path, good=1)
    os.mkfifo(folder / "fifo.json")
    (folder / "zero.json").symlink_to("/dev/zero")  # a device that never ends
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(folder / "sock.json"))
    out = tmp_path / "t.parquet"
    try:
        done = subprocess.run([sys.executable, "-m", "integrity", "triage", str(folder), "--out", str(out),
                               "--scheduler", cluster, *PROVIDER], cwd=ROOT, capture_output=True, text=True,
                              timeout=90)
    finally:
        listener.close()
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "distributed." not in done.stderr
    errors = {Path(row["path"]).name: row["error"] for row in rows(out) if row["status"] == "unreadable"}
    assert errors == {"fifo.json": "cannot read: not a regular file (a FIFO); skipped without reading it",
                      "zero.json": "cannot read: not a regular file (a character device); skipped without reading it",
                      "sock.json": "cannot read: not a regular file (a socket); skipped without reading it"}
    assert len(rows(out)) == 4


def test_temporaries_of_dead_runs_are_removed_and_a_live_runs_kept(tmp_path: Path, cluster: str) -> None:  # noqa: F811
    folder = folder_of(tmp_path, good=1)
    out = tmp_path / "t.parquet"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    for name in (f"t.parquet.tmp-{dead_pid}", f"t.findings.parquet.tmp-{dead_pid}", "t.parquet.tmp-1",
                 "t.parquet.tmp-x", "other.parquet.tmp-99999999"):
        (tmp_path / name).write_bytes(b"PAR1 partial")
    run_triage([str(folder)], str(out), scheduler=cluster, providers=["anthropic"], progress=None)
    assert leftovers(tmp_path) == ["other.parquet.tmp-99999999", "t.parquet.tmp-1", "t.parquet.tmp-x"]
    assert len(rows(out)) == 1


def test_a_full_disk_leaves_the_old_table_and_nothing_else(tmp_path: Path, cluster: str,  # noqa: F811
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capfd: pytest.CaptureFixture[str]) -> None:
    folder = folder_of(tmp_path, good=3, bad=1)
    out = tmp_path / "t.parquet"
    run_triage([str(folder / "g0.json")], str(out), scheduler=cluster, providers=["anthropic"], progress=None)
    before = (out.read_bytes(), Path(findings_path(str(out))).read_bytes())

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq.ParquetWriter, "write_table", full)
    monkeypatch.setattr(pq.ParquetWriter, "close", full)  # a writer on a full disk cannot close either
    capfd.readouterr()
    assert call(["triage", str(folder), "--out", str(out), "--scheduler", cluster, *PROVIDER]) == 2
    assert_one_line(capfd, str(out), "No space left on device", "unchanged")
    assert (out.read_bytes(), Path(findings_path(str(out))).read_bytes()) == before
    assert leftovers(tmp_path) == []


def test_a_file_size_limit_refuses_the_table_for_real_and_leaves_nothing(tmp_path: Path,
                                                                         cluster: str) -> None:  # noqa: F811
    folder = tmp_path / "d"
    folder.mkdir()
    for n in range(40):
        (folder / f"s{n:02d}{SAMPLES[n % len(SAMPLES)].suffix}").write_bytes(SAMPLES[n % len(SAMPLES)].read_bytes())
    out = tmp_path / "t.parquet"

    def limit() -> None:  # the kernel refuses writes past 16 KB (EFBIG), as a full disk refuses them
        resource.setrlimit(resource.RLIMIT_FSIZE, (16_384, 16_384))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    done = subprocess.run([sys.executable, "-m", "integrity", "triage", str(folder), "--out", str(out),
                           "--scheduler", cluster], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          preexec_fn=limit)
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("triage: ")]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert str(out) in lines[0] and "File too large" in lines[0], done.stderr
    assert not out.exists() and leftovers(tmp_path) == []


def test_rows_of_deleted_files_are_marked_missing(tmp_path: Path, cluster: str,  # noqa: F811
                                                  capfd: pytest.CaptureFixture[str]) -> None:
    folder = folder_of(tmp_path, good=3)
    out = tmp_path / "t.parquet"
    argv = ["triage", str(folder), "--out", str(out), "--scheduler", cluster, *PROVIDER]
    assert call(argv) == 0
    with_findings = {Path(row["path"]).name for row in pq.read_table(findings_path(str(out))).to_pylist()}
    assert "g0.json" in with_findings  # so the findings table has rows to mark
    kept = (folder / "g0.json").read_text()
    (folder / "g0.json").unlink()
    capfd.readouterr()
    assert call(argv) == 0
    assert "1 no longer there (rows kept, marked missing)" in capfd.readouterr().out
    missing = {Path(row["path"]).name: row["missing"] for row in rows(out)}
    assert missing == {"g0.json": True, "g1.json": False, "g2.json": False}
    found = pq.read_table(findings_path(str(out))).to_pylist()
    assert {row["missing"] for row in found if row["path"].endswith("g0.json")} == {True}
    assert {row["missing"] for row in found if not row["path"].endswith("g0.json")} <= {False}
    (folder / "g0.json").write_text(kept)  # back again: no longer marked
    assert call(argv) == 0
    assert not any(row["missing"] for row in rows(out)) and len(rows(out)) == 3


OUT = ["--out", "{tmp}/t.parquet"]


@pytest.mark.parametrize(("argv", "expected"), [
    (["{folder}", *OUT, "--workers", "0"], "--workers"), (["{folder}", *OUT, "--workers", "-3"], "--workers"),
    (["{folder}", *OUT, "--workers", "many"], "--workers"), (["{folder}", *OUT, "--policy", "none"], "--policy"),
    (["{folder}", *OUT, "--scheduler", "tcp://127.0.0.1:1"], "cannot reach"),
    (["{folder}", *OUT, "--scheduler", "tcp://::x"], "cannot reach"),
    (["{folder}", *OUT, "--scheduler", "nope://host:8786"], "unknown address scheme"),
    (["{folder}", *OUT, "--scheduler", "tcp://h:1", "--workers", "2"], "--workers"),
    (["{folder}", "--out", "{folder}"], "is a folder"),
    (["{folder}", "--out", "{folder}/g0.json"], "not a Parquet file"),
    (["{folder}", "--out", "{tmp}/parquet-like.parquet"], "not a Parquet file"),
    (["{folder}", "--out", "{tmp}/other.parquet"], "not a triage table"),
    (["{folder}/t.parquet", "--out", "{folder}/t.parquet"], "own output table"),
    (["{folder}/*.nothing", *OUT], "matches no file"), (["{folder}/absent.json", *OUT], "no such file"),
    (["nosuchprotocol://bucket/x", *OUT], "cannot read it"),
    (["{folder}", *OUT, "--workers", "100000"], "--workers: at most"),
    (["{folder}", *OUT, "--scheduler", " "], "--scheduler: empty"),
    (["{folder}", "--out", ""], "give a file name"), (["{folder}", "--out", "{tmp}/new/"], "give a file name"),
    (["{folder}", *OUT, "--provider", "nobody"], "unknown provider"),
], ids=lambda value: "-".join(value).replace("{", "").replace("}", "").replace(" ", "_")
   if isinstance(value, list) else "")
def test_every_user_mistake_is_exit_2_and_one_line(argv: list[str], expected: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capfd: pytest.CaptureFixture[str]) -> None:
    import pyarrow as pa

    folder = folder_of(tmp_path, good=1)
    (tmp_path / "parquet-like.parquet").write_text("not parquet")
    pq.write_table(pa.table({"x": [1]}), tmp_path / "other.parquet")
    pq.write_table(pa.table({"path": ["p"], "content_hash": ["h"], "status": ["s"]}), folder / "t.parquet")
    files = lambda: {p: p.read_bytes() for p in [*tmp_path.iterdir(), *folder.iterdir()] if p.is_file()}  # noqa: E731
    before = files()
    monkeypatch.setattr("integrity.triage.CONNECT_SECONDS", 2)
    capfd.readouterr()
    assert call(["triage", *(arg.format(folder=folder, tmp=tmp_path) for arg in argv)]) == 2
    assert_one_line(capfd, expected)
    assert files() == before


SLOW_WRITER = """
import sys, time
import pyarrow.parquet as pq
write = pq.ParquetWriter.write_table
def slow(self, table, *args, **kwargs):
    write(self, table, *args, **kwargs)
    print("rows written", file=sys.stderr, flush=True)
    time.sleep(60)  # the run is stopped here, with rows in a temporary table on disk
pq.ParquetWriter.write_table = slow
from integrity.cli import main
sys.exit(main(sys.argv[1:]))
"""


def wait_for_rows(process: subprocess.Popen[Any]) -> None:
    """Until the run under SLOW_WRITER has written rows into its temporary table (it then sleeps)."""
    assert process.stderr is not None
    for line in process.stderr:
        if "rows written" in (line.decode() if isinstance(line, bytes) else line):
            return
    raise AssertionError("the run ended before writing any row")


def test_kill_9_mid_run_then_a_rerun_loses_and_repeats_no_row(tmp_path: Path, cluster: str) -> None:  # noqa: F811
    folder = folder_of(tmp_path, good=4, bad=1)
    out = tmp_path / "t.parquet"
    argv = ["triage", str(folder), "--out", str(out), "--scheduler", cluster, *PROVIDER]
    assert call(argv) == 0
    before = out.read_bytes()
    (folder / "g4.json").write_text(GOOD[4])
    (folder / "g0.json").write_text(GOOD[5])  # changed: its row must be replaced, not doubled
    (folder / "g1.json").unlink()
    process = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, *argv], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for_rows(process)
    process.kill()
    process.wait()
    assert process.returncode == -signal.SIGKILL
    assert out.read_bytes() == before and leftovers(tmp_path)
    assert call(argv) == 0
    assert leftovers(tmp_path) == []
    table = rows(out)
    keys = [(row["path"], row["thread"]) for row in table]
    assert len(keys) == len(set(keys))
    assert {Path(row["path"]).name: row["missing"] for row in table} == {
        "g0.json": False, "g1.json": True, "g2.json": False, "g3.json": False, "g4.json": False, "b0.json": False}
    assert next(row for row in table if row["path"].endswith("g0.json"))["content_hash"] == __import__(
        "hashlib").sha256(GOOD[5].encode()).hexdigest()
    found = pq.read_table(findings_path(str(out))).to_pylist()
    assert all(row["content_hash"] in {r["content_hash"] for r in table} for row in found)


def test_sigterm_mid_run_removes_the_temporaries_and_keeps_the_table(tmp_path: Path,
                                                                     cluster: str) -> None:  # noqa: F811
    folder = folder_of(tmp_path, good=3)
    out = tmp_path / "t.parquet"
    argv = ["triage", str(folder), "--out", str(out), "--scheduler", cluster, *PROVIDER]
    assert call(argv) == 0
    before = out.read_bytes()
    (folder / "g3.json").write_text(GOOD[3])
    process = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, *argv], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    wait_for_rows(process)
    process.terminate()
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143 and err.strip().splitlines()[-1] == "terminated", err
    assert "Traceback" not in err
    assert out.read_bytes() == before and leftovers(tmp_path) == []


def test_an_earlier_table_of_error_rows_only_in_string_columns_is_updated(tmp_path: Path,
                                                                         cluster: str) -> None:  # noqa: F811
    import pyarrow as pa

    folder = folder_of(tmp_path, good=2, bad=1)
    out = tmp_path / "t.parquet"
    bad = str(folder / "b0.json")  # as the earlier writer left it: every column typed string by an error row
    columns = ["path", "thread", "content_hash", "format", "messages", "healthy", "status", "error"]
    old = {name: [None] for name in columns} | {"path": [bad], "thread": [""], "content_hash": ["h"],
                                                "status": ["unreadable"], "error": ["bad"]}
    pq.write_table(pa.table({name: pa.array(values, pa.string()) for name, values in old.items()}), out)
    result = run_triage([str(folder)], str(out), scheduler=cluster, providers=["anthropic"], progress=None)
    assert (result.files, result.transcripts, result.unreadable) == (3, 2, 1)
    assert sorted(row["path"] for row in rows(out)) == sorted(str(p) for p in folder.iterdir())


def test_a_damaged_table_is_refused_and_left_as_it_is(tmp_path: Path, cluster: str,  # noqa: F811
                                                      capfd: pytest.CaptureFixture[str]) -> None:
    folder = folder_of(tmp_path, good=2)
    out = tmp_path / "t.parquet"
    assert call(["triage", str(folder), "--out", str(out), "--scheduler", cluster, *PROVIDER]) == 0
    data = bytearray(out.read_bytes())
    data[8:200] = bytes(192)  # the footer (the schema) is whole, the column data is not
    out.write_bytes(bytes(data))
    capfd.readouterr()
    assert call(["triage", str(folder), "--out", str(out), "--scheduler", cluster, *PROVIDER]) == 2
    assert_one_line(capfd, str(out), "cannot read the earlier table")
    assert out.read_bytes() == bytes(data) and leftovers(tmp_path) == []


def test_a_table_inside_the_input_folder_is_never_its_own_input_on_a_local_cluster(tmp_path: Path) -> None:
    folder = folder_of(tmp_path, good=2)
    out = folder / "t.parquet"
    command = [sys.executable, "-m", "integrity", "triage", str(folder), "--out", str(out), "--workers", "1",
               *PROVIDER]
    for _ in range(2):
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert [line for line in done.stderr.splitlines() if not line.startswith("triage: ")] == [], done.stderr
    assert sorted(Path(row["path"]).name for row in rows(out)) == ["g0.json", "g1.json"]
    assert "2 files (0 transcripts, 2 already in the table" in done.stdout


def test_every_provider_has_its_columns_and_the_fleet_view_lists_those_asked(tmp_path: Path,
                                                                            cluster: str) -> None:  # noqa: F811
    import pandas as pd

    from inspector import fleet
    from integrity import PROVIDERS

    folder = folder_of(tmp_path, good=3, bad=1)
    out = tmp_path / "t.parquet"
    run_triage([str(folder)], str(out), scheduler=cluster, providers=["anthropic"], progress=None)
    table = pq.read_table(out)
    assert all(f"{name} as recorded" in table.column_names for name in PROVIDERS)
    asked = sorted(name for name in PROVIDERS if any(table.column(f"{name} as recorded").to_pylist()))
    assert "anthropic" in asked and len(asked) < len(PROVIDERS)
    assert fleet.providers(pd.read_parquet(out)) == asked
