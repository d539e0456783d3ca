"""The Batch page's fleet view over a triage table: defect kinds, rejection rates, worst sessions, open one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from inspector import fleet
from integrity import PROVIDERS
from integrity.triage import FINDING_COLUMNS, TRANSCRIPT_COLUMNS, _TableWriter, triage_file

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
SAMPLES = ["abort_race.pi-ai.json", "healthy.pi-ai.json", "orphaned_call.pi-ai.json", "two_results.openai-chat.json"]


def write_table(folder: Path, outside: Path) -> Path:
    """A triage table (made by the triage engine, without a cluster) over samples in the data folder,
    one file outside it and one unreadable file."""
    rows: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    paths = []
    for name in SAMPLES:
        shutil.copy(ROOT / "sample_transcripts" / name, folder / name)
        paths.append(folder / name)
    shutil.copy(ROOT / "sample_transcripts" / "stray_result.pi-ai.json", outside / "elsewhere.json")
    (folder / "bad.json").write_text("[{")
    for path in [*paths, outside / "elsewhere.json", folder / "bad.json"]:
        result = triage_file(str(path), list(PROVIDERS), "strict")
        assert result is not None
        rows += result[0]
        findings += result[1]
    table = folder / "fleet.parquet"
    for target, columns, content in ((str(table), TRANSCRIPT_COLUMNS, rows),
                                     (str(folder / "fleet.findings.parquet"), FINDING_COLUMNS, findings)):
        writer = _TableWriter(target, columns)
        writer.write(content)
        writer.close()
    return table


@pytest.fixture
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    (tmp_path / "outside").mkdir()
    monkeypatch.setenv("INTEGRITY_STORE_ROOT", str(folder))
    write_table(folder, tmp_path / "outside")
    st.cache_resource.clear()
    st.cache_data.clear()
    return folder


def test_the_fleet_functions_read_what_triage_wrote(data_folder: Path) -> None:
    table = fleet.read_table((data_folder / "fleet.parquet").read_bytes())
    kinds = fleet.defect_kinds(table).set_index("defect")
    assert kinds.loc["orphaned call", "count"] == 1 and kinds.loc["stray result", "transcripts"] == 1
    rates = fleet.rejection_rates(table).set_index("provider")
    assert set(rates.index) == set(PROVIDERS)
    assert rates.loc["anthropic", "transcripts"] == 5  # the unreadable file is not a transcript
    assert rates.loc["anthropic", "rejected as recorded"] >= 3 and rates.loc["anthropic", "rejected after repair"] == 0
    worst = fleet.worst(table)
    assert "healthy.pi-ai.json" not in " ".join(worst["path"])
    assert worst["status"].iloc[-1] == "unreadable"  # unreadable files last: nothing to repair there
    with pytest.raises(fleet.TableError, match="not a Parquet file"):
        fleet.read_table(b"not parquet")


def test_the_batch_page_shows_the_fleet_and_opens_a_session_from_the_data_folder(data_folder: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/batch.py")
    at.run()
    at.radio(key="batch_mode").set_value("Triage table").run()
    at.radio(key="fleet_from").set_value("Data folder").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="fleet_pick").options == ["fleet.parquet"]  # the findings table is not offered
    headers = [h.value for h in at.subheader]
    assert {"Defect kinds over the fleet", "Rejection rate per provider", "Worst sessions"} <= set(headers)
    openable = at.selectbox(key="fleet_open_pick").options
    assert not any("elsewhere.json" in name for name in openable)  # outside the data folder: never opened
    target = next(name for name in openable if name.endswith("orphaned_call.pi-ai.json"))
    at.selectbox(key="fleet_open_pick").set_value(target).run()
    at.button(key="fleet_open").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(t.value == "Inspector" for t in at.title)


def test_a_file_that_is_not_a_triage_table_is_one_error_line(data_folder: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/batch.py")
    at.run()
    at.radio(key="batch_mode").set_value("Triage table").run()
    at.file_uploader(key="fleet_upload").set_value([("x.parquet", b"garbage", "application/octet-stream")]).run()
    assert not at.exception
    assert any("not a Parquet file" in e.value for e in at.error) or any(
        "not a Parquet file" in c.value for c in at.code)
