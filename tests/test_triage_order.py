"""The triage table is one table, whoever triaged what: the same rows in the same order (byte for byte on
disk) from the local cluster triage starts itself (forked workers, batches sized to them) and from an
existing cluster given as --scheduler with other batch sizes, each row the verdict `check` gives its file.

The first file of the fleet is a large transcript, so its batch finishes after later ones: the rows of
the batches behind it must wait for it, never be written first.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_guard_stores import langgraph_db  # noqa: F401 - the fixture

from integrity.triage import batch_size, findings_path, run_triage, triage_batch
from tests.test_triage import ROOT, SAMPLES, _broken, cluster, sequential  # noqa: F401 - cluster is a fixture

sys.path.insert(0, str(ROOT / "bench"))
from generate import messages  # noqa: E402

FILES = 60


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ordered")
    (folder / "000-large.json").write_text(json.dumps(list(messages(40_000, seed=3, defect_rate=0.05))))
    rng = random.Random(11)
    for n in range(1, FILES):
        if n % 7 == 0:
            sample = SAMPLES[n % len(SAMPLES)]
            (folder / f"{n:03d}-{sample.name}").write_bytes(sample.read_bytes())
        else:
            (folder / f"{n:03d}.json").write_text(json.dumps(_broken(rng, n)))
    (folder / f"{FILES:03d}-bad.json").write_text("[{")
    return folder


def _tables(table: Path) -> tuple[bytes, bytes]:
    return table.read_bytes(), Path(findings_path(str(table))).read_bytes()


def test_local_and_scheduler_runs_write_the_same_table_in_input_order(
        fleet: Path, cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    local = tmp_path / "local.parquet"
    run_triage([str(fleet)], str(local), workers=2, providers=["anthropic"], progress=None)
    runs = {}
    for size in (1, 7):  # one file per task: the completion order is as scrambled as it gets
        table = tmp_path / f"scheduler-{size}.parquet"
        run_triage([str(fleet)], str(table), scheduler=cluster, batch_files=size, providers=["anthropic"],
                   progress=None)
        runs[size] = table
    assert batch_size(FILES + 1, 2) not in runs  # the local run batched the files its own way
    for table in runs.values():
        assert _tables(table) == _tables(local)
    rows = pq.read_table(local).to_pylist()
    paths = sorted(str(path) for path in fleet.iterdir())
    assert [row["path"] for row in rows] == paths  # input order, the slow first file first
    expected = sequential(fleet, capsys)  # `check --json` over the same files, in one process
    for row in rows:
        report = expected[row["path"]]
        if report is None:
            assert row["status"] == "unreadable"
            continue
        assert (row["verdict"], row["healthy"], row["severity"], row["messages"]) == (
            report["verdict"], report["healthy"], report["severity"], report["summary"]["messages"])
    findings = pq.read_table(findings_path(str(local))).to_pylist()
    order = {path: index for index, path in enumerate(paths)}
    assert [order[row["path"]] for row in findings] == sorted(order[row["path"]] for row in findings)
    assert sum(1 for f in findings if f["source"] == "finding") == sum(
        len(report["findings"]) for report in expected.values() if report)


def test_a_batch_of_files_and_store_threads_gives_its_rows_in_input_order(
        fleet: Path, langgraph_db: Path) -> None:  # noqa: F811
    store = f"langgraph+sqlite://{langgraph_db}"
    units = [f"{store}?thread=broken", str(fleet / "001.json"), f"{store}?thread=healthy",
             str(fleet / f"{FILES:03d}-bad.json")]
    rows, findings, skipped = triage_batch(units, ["anthropic"], "strict", {})
    assert [row["path"] for row in rows] == units and skipped == 0
    assert [row["path"] for row in findings] == sorted((row["path"] for row in findings), key=units.index)
    assert {row["path"] for row in findings} >= {units[0], units[1]}  # a thread and a file with findings
