"""The Batch page's fleet view over a triage table: defect kinds, rejection rates, worst sessions, open one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from inspector import fleet
from inspector.data_root import LinkError, read_linked
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


def test_the_batch_page_links_each_session_it_can_open_by_its_path(data_folder: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/batch.py")
    at.run()
    at.radio(key="batch_mode").set_value("Triage table").run()
    at.radio(key="fleet_from").set_value("Data folder").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="fleet_pick").options == ["fleet.parquet"]  # the findings table is not offered
    headers = [h.value for h in at.subheader]
    assert {"Defect kinds over the fleet", "Rejection rate per provider", "Worst sessions"} <= set(headers)
    worst = next(frame.value for frame in at.dataframe if fleet.OPEN in frame.value.columns)
    links = {path: link if isinstance(link, str) else None for path, link in zip(worst["path"], worst[fleet.OPEN],
                                                                                strict=True)}
    outside = [link for path, link in links.items() if path.endswith("elsewhere.json")]
    assert outside == [None]  # outside the data folder: never opened, no link
    target = next(link for path, link in links.items() if path.endswith("orphaned_call.pi-ai.json"))
    assert target.startswith("inspector?file=orphaned_call.pi-ai.json")  # the link names the session
    # The link, opened: the Inspector reads that file from the data folder.
    opened = AppTest.from_file(APP, default_timeout=60)
    for key, value in parse_qsl(target.split("?", 1)[1]):
        opened.query_params[key] = value
    opened.run()
    assert not opened.exception, [e.value for e in opened.exception]
    assert any("orphaned_call.pi-ai.json · format pi-ai" in t.value for t in opened.text)


def test_a_session_link_names_a_file_in_the_data_folder_or_a_url_its_table_lists(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "runs").mkdir(parents=True)
    (root / "runs" / "a.json").write_text("[]")
    (tmp_path / "b.json").write_text("[]")
    assert fleet.session_link(str(root / "runs" / "a.json"), root, None, "strict") == \
        "inspector?file=runs/a.json&policy=strict"
    assert fleet.session_link("runs/a.json", root, None, "strict") == "inspector?file=runs/a.json&policy=strict"
    assert fleet.session_link(str(tmp_path / "b.json"), root, None, "strict") is None
    assert fleet.session_link("../b.json", root, None, "strict") is None
    assert fleet.session_link("s3://bucket/c.jsonl", root, None, "strict") is None  # an uploaded table's URL
    assert fleet.session_link("s3://bucket/c.jsonl", root, "fleet.parquet", "strict") == \
        "inspector?file=s3://bucket/c.jsonl&table=fleet.parquet&policy=strict"


def test_a_url_opens_only_when_a_triage_table_in_the_data_folder_lists_it(tmp_path: Path) -> None:
    import fsspec
    import pandas as pd

    root = tmp_path / "data"
    root.mkdir()
    url = f"memory://{tmp_path.name}/session.json"
    with fsspec.open(url, "wb") as handle:
        handle.write((ROOT / "sample_transcripts" / "orphaned_call.pi-ai.json").read_bytes())
    pd.DataFrame({"path": [url]}).to_parquet(root / "fleet.parquet")
    name, data = read_linked(url, "fleet.parquet", root)
    assert name == "session.json" and data.startswith(b"[")
    for table in (None, "missing.parquet", "../fleet.parquet"):
        with pytest.raises(LinkError, match="triage table"):
            read_linked(url, table, root)
    with pytest.raises(LinkError, match="triage table"):
        read_linked(f"memory://{tmp_path.name}/other.json", "fleet.parquet", root)  # not listed: never read
    with pytest.raises(LinkError, match="no such file"):
        read_linked("../outside.json", None, root)


def test_a_file_that_is_not_a_triage_table_is_one_error_line(data_folder: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/batch.py")
    at.run()
    at.radio(key="batch_mode").set_value("Triage table").run()
    at.file_uploader(key="fleet_upload").set_value([("x.parquet", b"garbage", "application/octet-stream")]).run()
    assert not at.exception
    assert any("not a Parquet file" in e.value for e in at.error) or any(
        "not a Parquet file" in c.value for c in at.code)


def test_a_transcript_of_a_file_of_several_is_linked_by_its_thread_and_a_branch_is_not_judged(tmp_path: Path
                                                                                               ) -> None:
    """Found by review: the worst sessions' link named only the file, so a repaired sample of an eval log (or a
    sidechain) opened the file's first, healthy transcript; and an abandoned branch, which `check` lists but does
    not judge, was a worst session and counted among each provider's transcripts."""
    real = ROOT / "tests" / "real"
    names = ["inspect_eval_log_epochs.inspect.json", "cc_rewind.claude-code.jsonl", "healthy.anthropic.json"]
    rows: list[dict[str, Any]] = []
    for name in names:
        source = real / name if (real / name).exists() else ROOT / "sample_transcripts" / name
        shutil.copy(source, tmp_path / name)
        result = triage_file(str(tmp_path / name), ["anthropic"], "strict")
        assert result is not None
        rows += result[0]
    frame = fleet.pd.DataFrame(rows)
    branches = frame[frame["status"] == "abandoned branch"]
    assert len(branches) >= 1
    worst = fleet.worst(frame)
    assert "abandoned branch" not in set(worst["status"])
    judged = len(frame) - len(branches)
    assert fleet.rejection_rates(frame)["transcripts"].tolist() == [judged]
    repaired = worst[worst["thread"].astype(str).str.startswith("sample:")]
    assert len(repaired) >= 1
    linked = fleet.with_links(repaired, tmp_path, None, "strict")
    for link, thread in zip(linked[fleet.OPEN], repaired["thread"], strict=True):
        assert dict(parse_qsl(link.split("?", 1)[1]))["thread"] == thread


def test_the_worst_sessions_say_how_many_calls_their_runtime_answers(tmp_path: Path) -> None:
    """A pi session whose call pi answers with "No result provided" (`check`'s third line; the triage column
    runtime_results): the worst-sessions table carries the count beside its defects; a fleet without one has no
    such column."""
    real = ROOT / "tests" / "real" / "pi_codex_unanswered_call.pi-session.jsonl"
    rows = []
    for path in (real, ROOT / "sample_transcripts" / "orphaned_call.pi-ai.json"):
        result = triage_file(str(path), [], "strict")
        assert result is not None
        rows += result[0]
    table = tmp_path / "fleet.parquet"
    writer = _TableWriter(str(table), TRANSCRIPT_COLUMNS)
    writer.write(rows)
    writer.close()
    worst = fleet.worst(fleet.read_table(table.read_bytes())).set_index("path")
    assert worst.loc[str(real), fleet.RUNTIME] == 1
    assert list(worst.columns).index(fleet.RUNTIME) == list(worst.columns).index("defects") + 1
    writer = _TableWriter(str(table), TRANSCRIPT_COLUMNS)
    writer.write(rows[1:])
    writer.close()
    assert fleet.RUNTIME not in fleet.worst(fleet.read_table(table.read_bytes())).columns
