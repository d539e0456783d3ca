"""Batch: triage many transcripts: a sortable table, a chart of defect kinds, open one in the inspector.

One row per file comes from inspector.batch.summarize (unreadable files become
rows with their error); the page adds progress, the chart and the links.  File
names and verdicts are neutralized for display.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from inspector import ui
from inspector.batch import defect_totals, summarize
from inspector.safe_text import neutralize

st.title("Batch triage")
policy = ui.policy_picker()


@st.cache_data(max_entries=2000, show_spinner=False)
def _summary(digest: str, name: str, policy: str, _data: bytes) -> dict[str, Any]:
    return summarize(name, _data, policy)


mode = st.radio("Files from", ["Upload files", "Upload a folder", "All samples"], horizontal=True, key="batch_mode")
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
    rows.append(_summary(item.digest, item.name, policy, item.data))
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
