"""Fleet triage on a real local Dask cluster: totals match sequential `check`, bad files are rows, re-runs resume."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from distributed import LocalCluster

from integrity import PROVIDERS
from integrity.cli import main
from integrity.triage import findings_path, run_triage

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "sample_transcripts").iterdir() if p.suffix in (".json", ".jsonl"))
FILES = 240
SOME_PROVIDERS = ["anthropic", "openai-chat"]


def _broken(rng: random.Random, serial: int) -> list[dict[str, Any]]:
    """A small pi-ai session: some calls answered, some orphaned, sometimes a stray or a duplicate."""
    out: list[dict[str, Any]] = [{"role": "user", "content": f"task {serial}"}]
    for turn in range(rng.randrange(1, 4)):
        ids = [f"c{serial}_{turn}_{k}" for k in range(rng.randrange(1, 3))]
        out.append({"role": "assistant", "stopReason": "toolUse",
                    "content": [{"type": "toolCall", "id": i, "name": "read", "arguments": {}} for i in ids]})
        for call_id in ids:
            if rng.random() < 0.8:
                out.append({"role": "toolResult", "toolCallId": call_id, "toolName": "read",
                            "content": [{"type": "text", "text": "ok"}], "isError": False})
        if rng.random() < 0.2:
            out.append({"role": "toolResult", "toolCallId": "ghost", "toolName": "read", "content": [],
                        "isError": False})
    return out


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fleet")
    rng = random.Random(5)
    for n in range(FILES):
        if n < len(SAMPLES):
            shutil.copy(SAMPLES[n], folder / f"{n:03d}-{SAMPLES[n].name}")
        else:
            (folder / f"{n:03d}.json").write_text(json.dumps(_broken(rng, n)))
    (folder / "nested").mkdir()
    (folder / "nested" / "bad.json").write_text('{"messages": [')
    return folder


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        yield local.scheduler_address


def sequential(folder: Path, capsys: pytest.CaptureFixture[str], provider: str | None = None) -> dict[str, Any]:
    """What `check --json` says about every file, in one process without Dask (None: unreadable)."""
    paths = sorted(str(p) for p in folder.rglob("*") if p.is_file())
    capsys.readouterr()
    main(["check", "--json", *(["--provider", provider] if provider else []), *paths])
    reports = {report["source"]: report for report in json.loads(capsys.readouterr().out)}
    return {path: reports.get(path) for path in paths}


def test_triage_on_a_local_cluster_matches_sequential_check(fleet: Path, cluster: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "fleet.parquet"
    result = run_triage([str(fleet)], str(table), scheduler=cluster, batch_files=16, progress=None,
                        providers=["anthropic"])
    expected = sequential(fleet, capsys)
    asked = sequential(fleet, capsys, "anthropic")  # what Anthropic says of each, named as the target
    rows = pq.read_table(table).to_pylist()
    assert result.files == len(expected) == FILES + 1
    assert result.unreadable == 1 and result.transcripts == FILES
    by_path = {row["path"]: row for row in rows}
    assert set(by_path) == set(expected)
    for path, report in expected.items():
        row = by_path[path]
        if report is None:
            assert row["status"] == "unreadable" and "bad.json" in row["error"]
            continue
        summary = report["summary"]
        assert (row["verdict"], row["healthy"], row["severity"]) == (report["verdict"], report["healthy"],
                                                                     report["severity"])
        assert (row["messages"], row["orphaned_calls"], row["strays"]) == (
            summary["messages"], summary["orphaned_calls"], summary["strays"])
        assert row["anthropic as recorded"] == asked[path]["as_recorded"]["anthropic"]
        own = report.get("as_recorded")  # rated by the file's own provider alone, when its format implies one
        assert row["target"] == (next(iter(own)) if own else None), path
    orphans = sum(r["summary"]["orphaned_calls"] for r in expected.values() if r)
    assert sum(row["orphaned_calls"] or 0 for row in rows) == orphans > 0
    findings = pq.read_table(findings_path(str(table))).to_pylist()
    assert sum(1 for f in findings if f["source"] == "finding") == sum(
        len(r["findings"]) for r in expected.values() if r)
    assert {f["provider"] for f in findings if f["source"] == "provider"} <= set(PROVIDERS)


def test_a_rerun_skips_what_is_already_in_the_table_and_redoes_changed_files(fleet: Path, cluster: str,
                                                                               tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(fleet, copy)
    table = tmp_path / "t.parquet"
    first = run_triage([str(copy)], str(table), scheduler=cluster, providers=SOME_PROVIDERS, progress=None)
    changed = copy / f"{FILES - 1:03d}.json"
    changed.write_text(json.dumps([{"role": "user", "content": "replaced"}]))
    second = run_triage([str(copy)], str(table), scheduler=cluster, providers=SOME_PROVIDERS, progress=None)
    assert second.skipped == first.files - 1 and second.transcripts == 1
    rows = pq.read_table(table).to_pylist()
    assert len(rows) == first.files  # old rows kept once, the changed file's row replaced
    assert next(r for r in rows if r["path"] == str(changed))["messages"] == 1


def _some(fleet: Path, folder: Path, count: int = 12) -> Path:
    """A copy of the first `count` files of the fleet (samples of every format, then generated sessions)."""
    folder.mkdir()
    for path in sorted(fleet.glob("*.json*"))[:count]:
        shutil.copy(path, folder / path.name)
    return folder


def test_a_rerun_asking_another_provider_judges_every_file_again_and_fills_its_columns(
        fleet: Path, cluster: str, tmp_path: Path) -> None:
    copy = _some(fleet, tmp_path / "some")
    table = tmp_path / "t.parquet"
    run_triage([str(copy)], str(table), scheduler=cluster, progress=None)
    again = run_triage([str(copy)], str(table), scheduler=cluster, progress=None)
    assert again.skipped == again.files and again.rejudged == 0  # the same question: nothing to judge again
    asked = run_triage([str(copy)], str(table), scheduler=cluster, providers=["gemini"], progress=None)
    assert asked.skipped == 0 and asked.rejudged == asked.files == asked.transcripts
    rows = pq.read_table(table).to_pylist()
    assert len(rows) == asked.files
    assert all(row["gemini as recorded"] in ("accepted", "rejected") for row in rows)
    assert {row["judged_by"] for row in rows} == {next(iter({row["judged_by"] for row in rows}))}
    assert rows[0]["judged_by"].endswith(", strict, gemini")
    # asking the same again skips them all, and keeps Gemini's verdicts
    same = run_triage([str(copy)], str(table), scheduler=cluster, providers=["gemini"], progress=None)
    assert same.skipped == same.files and same.rejudged == 0
    assert pq.read_table(table).to_pylist() == rows


def test_a_rerun_with_another_policy_or_engine_judges_every_file_again(fleet: Path, cluster: str, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import integrity._triage_table as table_module

    copy = _some(fleet, tmp_path / "some")
    table = tmp_path / "t.parquet"
    first = run_triage([str(copy)], str(table), scheduler=cluster, progress=None)
    other = run_triage([str(copy)], str(table), scheduler=cluster, policy="openmaic", progress=None)
    assert other.skipped == 0 and other.rejudged == first.files
    assert {row["judged_by"].split(", ")[1] for row in pq.read_table(table).to_pylist()} == {"openmaic"}
    engine = table_module.engine_fingerprint()
    assert len(engine) == 12 and engine == table_module.engine_fingerprint()  # the same source, the same mark
    monkeypatch.setattr(table_module, "engine_fingerprint", lambda: "0123456789ab")  # a newer engine
    newer = run_triage([str(copy)], str(table), scheduler=cluster, policy="openmaic", progress=None)
    assert newer.skipped == 0 and newer.rejudged == first.files
    assert {row["judged_by"] for row in pq.read_table(table).to_pylist()} == {"engine 0123456789ab, openmaic"}


def test_only_this_runs_files_are_counted_as_judged_again(fleet: Path, cluster: str, tmp_path: Path) -> None:
    """A run over some of the table's files, with another policy, judges those again and counts them; the rest
    stay as they were (kept, not judged, not counted)."""
    copy = _some(fleet, tmp_path / "some")
    table = tmp_path / "t.parquet"
    first = run_triage([str(copy)], str(table), scheduler=cluster, progress=None)
    some = sorted(copy.iterdir())[:3]
    other = run_triage([str(path) for path in some], str(table), scheduler=cluster, policy="openmaic", progress=None)
    assert other.files == other.rejudged == 3 and other.skipped == 0
    rows = pq.read_table(table).to_pylist()
    assert len(rows) == first.files
    policies = {row["path"]: row["judged_by"].split(", ")[1] for row in rows}
    assert sorted(path for path, policy in policies.items() if policy == "openmaic") == sorted(map(str, some))


def test_a_table_written_before_judged_by_has_every_file_judged_again(fleet: Path, cluster: str, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    copy = _some(fleet, tmp_path / "some")
    table = tmp_path / "t.parquet"
    first = run_triage([str(copy)], str(table), scheduler=cluster, progress=None)
    pq.write_table(pq.read_table(table).drop_columns(["judged_by"]), table)  # as an earlier version wrote it
    capsys.readouterr()
    assert main(["triage", str(copy), "--out", str(table), "--scheduler", cluster]) == 0
    out = capsys.readouterr().out
    assert f"({first.files} transcripts, 0 already in the table" in out
    assert f"{first.files} judged again, unchanged or not: another version of integrity, --policy or --provider" \
        in out
    rows = pq.read_table(table).to_pylist()
    assert len(rows) == first.files and all(row["judged_by"].endswith(", strict") for row in rows)


def test_the_cli_runs_triage_with_a_glob_and_refuses_a_missing_output_folder(fleet: Path, cluster: str,
                                                                             tmp_path: Path,
                                                                             capsys: pytest.CaptureFixture[str]
                                                                             ) -> None:
    out = tmp_path / "glob.parquet"
    code = main(["triage", str(fleet / "00*"), "--out", str(out), "--scheduler", cluster,
                 "--provider", "anthropic"])
    assert code == 0
    rows = pq.read_table(out).to_pylist()
    assert len(rows) == 10 and all(row["path"].startswith(str(fleet / "00")) for row in rows)
    assert "triaged 10 files" in capsys.readouterr().out
    assert main(["triage", str(fleet), "--out", str(tmp_path / "missing" / "t.parquet")]) == 2
    assert "not a writable folder" in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()


def test_a_local_cluster_leaves_the_callers_environment_as_it_was(tmp_path: Path) -> None:
    """Dask's nanny sets its workers' variables (MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS, ...) in the process
    that starts the cluster and never takes them back; triage takes them back, so an inspector or an
    application that runs triage in its own process keeps its environment (and its child processes theirs).
    In a fresh process: this one's environment is already Dask's."""
    import subprocess
    import sys

    probe = ("import os, sys; from integrity.triage import run_triage; before = dict(os.environ); "
             "run_triage(sys.argv[1:2], sys.argv[2], workers=1, progress=None); "
             "print(sorted(set(os.environ.items()) ^ set(before.items())))")
    said = subprocess.run([sys.executable, "-c", probe, str(ROOT / "sample_transcripts"),
                           str(tmp_path / "fleet.parquet")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert said.returncode == 0, said.stderr
    assert said.stdout.strip() == "[]"
    assert (tmp_path / "fleet.parquet").exists()
