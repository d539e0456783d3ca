"""Batch: triage many transcripts: a sortable table, a chart of defect kinds, open one in the inspector;
or open a fleet's triage table (`integrity triage`): defect kinds, rejection rates, the worst sessions.

One row per transcript comes from inspector.batch.summarize_all (unreadable files become
rows with their error); the page adds progress, the chart and the links.  File
names and verdicts are neutralized for display.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from inspector import fleet, ui
from inspector.batch import defect_totals, summarize_all
from inspector.data_root import data_root, files_in, resolve_in_root
from inspector.entry import through_app
from inspector.safe_text import neutralize

through_app()  # a page URL opened first on a fresh server still runs through app.py

st.title("Batch triage")
policy = ui.policy_picker()


@st.cache_data(max_entries=2000, show_spinner=False)
def _summary(digest: str, name: str, policy: str, _data: bytes) -> list[dict[str, Any]]:
    return summarize_all(name, _data, policy)


def _table_bytes() -> tuple[str, bytes] | None:
    """The triage table to show: an upload, or a .parquet file in the data folder (nothing outside it)."""
    where = st.radio("Table from", ["Upload", "Data folder"], horizontal=True, key="fleet_from")
    if where == "Upload":
        upload = st.file_uploader("Triage table (.parquet)", type=["parquet"], key="fleet_upload",
                                  help=ui.upload_limit_text())
        return (upload.name, upload.getvalue()) if upload is not None else None
    root = data_root()
    tables = [name for name in files_in(root, (".parquet",)) if not name.endswith(".findings.parquet")]
    if not tables:
        st.info(f"No triage table in the data folder yet: run `integrity triage ... --out {root}/fleet.parquet`.")
        return None
    picked = st.selectbox("Table", tables, key="fleet_pick", format_func=neutralize)
    path = resolve_in_root(picked, root)
    if path is None:
        st.error("No triage table at this path in the data folder.")
        return None
    return picked, path.read_bytes()


def fleet_view(policy: str) -> None:
    """Defect kinds over the fleet, the rejection rate per provider, and the worst sessions to open."""
    chosen = _table_bytes()
    if chosen is None:
        return
    name, data = chosen
    try:
        table = fleet.read_table(data)
    except fleet.TableError as error:
        ui.show_error(f"{name}: {error}")
        return
    readable = int((table["status"] != "unreadable").sum())
    st.caption(f"{len(table):,} transcript(s) in {table['path'].nunique():,} file(s) · "
               f"{int((table['status'] == 'healthy').sum()):,} healthy · {len(table) - readable:,} unreadable")
    kinds = fleet.defect_kinds(table)
    st.subheader("Defect kinds over the fleet")
    st.bar_chart(kinds, x="defect", y="count", horizontal=True, height=280, sort=False)
    st.dataframe(ui.safe_frame(kinds.to_dict("records")), hide_index=True, width="stretch")
    st.subheader("Rejection rate per provider")
    st.dataframe(ui.safe_frame(fleet.rejection_rates(table).to_dict("records")), hide_index=True, width="stretch")
    st.subheader("Worst sessions")
    worst = fleet.worst(table)
    st.dataframe(ui.safe_frame(worst.to_dict("records")), hide_index=True, width="stretch",
                 column_config={"verdict": st.column_config.TextColumn("verdict", width="large")})
    openable = _openable(worst)
    if not openable:
        st.caption("Sessions open in the inspector when their files are in the data folder.")
        return
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    picked = c1.selectbox("Session", list(openable), key="fleet_open_pick", format_func=neutralize)
    if c2.button("Open in inspector ▶", width="stretch", key="fleet_open"):
        path = openable[picked]
        ui.set_current(ui.Source(path.name, path.read_bytes(), "upload"))
        st.query_params.clear()
        st.switch_page("pages/inspector_page.py", query_params={"policy": policy})


def _openable(worst: pd.DataFrame) -> dict[str, Path]:
    """The worst sessions whose files lie in the data folder (only those may be opened), by their path."""
    root = data_root()
    found: dict[str, Path] = {}
    for path in worst["path"]:
        resolved = resolve_in_root(os.path.relpath(path, root) if os.path.isabs(path) else path, root)
        if resolved is not None:
            found[path] = resolved
    return found


mode = st.radio("Files from", ["Upload files", "Upload a folder", "All samples", "Triage table"], horizontal=True,
                key="batch_mode", help="Triage table: the Parquet table `integrity triage` writes for a fleet")
if mode == "Triage table":
    fleet_view(policy)
    st.stop()
inputs: list[ui.Source] = []
if mode == "All samples":
    for name in ui.sample_names():
        data = ui.read_sample(name)
        if data is not None:
            inputs.append(ui.Source(name, data, "sample"))
else:
    files = st.file_uploader("Transcripts", accept_multiple_files="directory" if mode == "Upload a folder" else True,
                             key=f"batch_{mode}", help=ui.upload_limit_text())
    ui.upload_limit_note()
    inputs = [ui.Source(f.name, f.getvalue(), "upload") for f in files or []]

if not inputs:
    st.info("Upload transcripts (files or a whole folder), or choose 'All samples'.")
    st.stop()

progress = st.progress(0.0, text=f"Analysing {len(inputs)} file(s)…")
rows = []
for number, item in enumerate(inputs, start=1):
    rows.extend(_summary(item.digest, item.name, policy, item.data))
    # no file names: progress text is Markdown
    progress.progress(number / len(inputs), text=f"Analysed {number} of {len(inputs)}")
progress.empty()

frame = ui.safe_frame(rows)  # names and errors from the files: neutralized before pandas sees them
leading = [c for c in ("file", "status", "providers rejecting", "format", "messages", "calls") if c in frame.columns]
frame = frame[leading + [c for c in frame.columns if c not in leading and c != "verdict"] + ["verdict"]]
if mode == "All samples":
    frame.insert(1, "open", [f"/?sample={name}&policy={policy}" for name in frame["file"]])
problems = int((frame["status"] != "healthy").sum())
st.caption(f"{len(frame)} file(s) · {problems} need attention · policy {policy} · click a column header to sort")


def _status_colour(value: Any) -> str:
    return {"healthy": "background-color: #dcfce7", "repaired": "background-color: #dbeafe",
            "findings": "background-color: #fef9c3", "unreadable": "background-color: #fee2e2"}.get(str(value), "")


st.dataframe(frame.style.map(_status_colour, subset=["status"]), hide_index=True, width="stretch",
             height=min(len(frame), 15) * 35 + 40,
             column_config={
                 "providers rejecting": st.column_config.TextColumn(
                     "rejected by", help="providers whose rules reject the request: before → after repair"),
                 "open": st.column_config.LinkColumn("open", display_text="inspect ↗"),
                 "verdict": st.column_config.TextColumn("verdict", width="large"),
             })

totals = defect_totals(rows)
st.subheader("Defect kinds across the batch")
chart = pd.DataFrame({"defect": list(totals), "count": list(totals.values())})
st.bar_chart(chart, x="defect", y="count", horizontal=True, height=280, sort=False)

st.subheader("Open one file in the inspector")
names = [item.name for item in inputs]
c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
picked = c1.selectbox("File", names, key="batch_pick", format_func=neutralize)
if c2.button("Open in inspector ▶", width="stretch"):
    chosen = next(item for item in inputs if item.name == picked)
    if chosen.kind == "sample":
        st.switch_page("pages/inspector_page.py", query_params={"sample": chosen.name, "policy": policy})
    ui.set_current(chosen)
    st.query_params.clear()
    st.switch_page("pages/inspector_page.py", query_params={"policy": policy})
