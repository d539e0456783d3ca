"""Batch: triage many transcripts: a sortable table, a chart of defect kinds, open one in the inspector;
or open a fleet's triage table (`integrity triage`): defect kinds, rejection rates, the worst sessions.

One row per transcript comes from inspector.batch.summarize_all (unreadable files become
rows with their error); the page adds progress, the chart and the links.  Whether a
file is safe to send is said per provider: the one picked in the sidebar, or by
default each file's own (an Anthropic request is judged by Anthropic, as `check`
does), as recorded and after repair.  Every file opens in the Inspector: samples
by their link, any file (uploads too) by selecting its row.  File names and
verdicts are neutralized for display.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from inspector import fleet, ui
from inspector.batch import REJECTED_STATUS, RUNTIME_SENDS, UNIVERSAL, defect_totals, summarize_all
from inspector.data_root import data_root, files_in, resolve_in_root
from inspector.entry import through_app
from inspector.safe_text import neutralize

through_app()  # a page URL opened first on a fresh server still runs through app.py

st.title("Batch triage")
policy = ui.policy_picker()
OWN = "each file's own provider"


def provider_choice() -> str | None:
    """Sidebar: whom every file is judged by (None: each file's own provider), mirrored in ?provider=."""
    options = [OWN, *ui.provider_names()]
    ui.from_url("batch_provider", "provider", options, OWN)
    picked: str | None = st.sidebar.selectbox(
        "Safe to send to", options, key="batch_provider",
        help="the target provider: whose rules decide the status, as recorded and after repair. By default "
             "each file's own provider (an Anthropic request or a Claude Code session: Anthropic), or "
             f"{UNIVERSAL} for a format no single provider reads (pi-ai, LangChain), as `check` does; a "
             "provider picked here judges every file, as `check --provider` does. The other providers' "
             "verdicts are information and never change the status.")
    ui.to_url("batch_provider", "provider", None if picked == OWN else picked)
    return None if picked == OWN else picked


provider = provider_choice()


@st.cache_data(max_entries=2000, show_spinner=False)
def _summary(digest: str, name: str, policy: str, provider: str | None, _data: bytes) -> list[dict[str, Any]]:
    return summarize_all(name, _data, policy, provider=provider)


def _table_bytes() -> tuple[str, bytes] | None:
    """The triage table to show: an upload, or a .parquet file in the data folder (nothing outside it); its
    name is the path in the data folder for the latter (session links name it)."""
    where: str | None = st.radio("Table from", ["Upload", "Data folder"], horizontal=True, key="fleet_from")
    if where == "Upload":
        upload = st.file_uploader("Triage table (.parquet)", type=["parquet"], key="fleet_upload",
                                  help=ui.upload_limit_text())
        ui.uploaded_names(upload)
        return (upload.name, upload.getvalue()) if upload is not None else None
    root = data_root()
    tables = [name for name in files_in(root, (".parquet",)) if not name.endswith(".findings.parquet")]
    if not tables:
        st.info(f"No triage table in the data folder yet: run `integrity triage ... --out {root}/fleet.parquet`.")
        return None
    picked: str | None = st.selectbox("Table", tables, key="fleet_pick", format_func=neutralize)
    assert picked is not None  # the options are never empty here, so one is always picked
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
    ui.defect_bars(kinds)
    st.dataframe(ui.safe_frame(kinds.to_dict("records")), hide_index=True, width="stretch")
    st.subheader("Rejection rate per provider")
    st.dataframe(ui.safe_frame(fleet.rejection_rates(table).to_dict("records")), hide_index=True, width="stretch")
    st.subheader("Worst sessions")
    in_folder = st.session_state.get("fleet_from") == "Data folder"
    worst = fleet.with_links(fleet.worst(table), data_root(), name if in_folder else None, policy)
    st.dataframe(ui.safe_frame(worst.to_dict("records")), hide_index=True, width="stretch",
                 column_config={"verdict": st.column_config.TextColumn("verdict", width="large"),
                                fleet.OPEN: st.column_config.LinkColumn(
                                    "open", display_text=r"file=([^&]*)", width="medium",
                                    help="opens the session in the Inspector (a new tab); the link names it")})
    if worst[fleet.OPEN].isna().any():
        st.caption("A session without a link cannot be opened from here: its file is outside the data folder, "
                   "or it is a URL listed by an uploaded table (put the table in the data folder).")


mode: str | None = st.radio("Files from", ["Upload files", "Upload a folder", "All samples", "Triage table"],
                            horizontal=True, key="batch_mode",
                            help="Triage table: the Parquet table `integrity triage` writes for a fleet")
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
    ui.uploaded_names(files)
    inputs = [ui.Source(f.name, f.getvalue(), "upload") for f in files or []]

if not inputs:
    st.info("Upload transcripts (files or a whole folder), or choose 'All samples'.")
    st.stop()

progress = st.progress(0.0, text=f"Analysing {len(inputs)} file(s)…")
rows: list[dict[str, Any]] = []
owners: list[int] = []  # the input each row comes from (a file may hold several transcripts)
for number, item in enumerate(inputs, start=1):
    found = _summary(item.digest, item.name, policy, provider, item.data)
    rows.extend(found)
    owners.extend([number - 1] * len(found))
    # no file names: progress text is Markdown
    progress.progress(number / len(inputs), text=f"Analysed {number} of {len(inputs)}")
progress.empty()


def _link(item: ui.Source, thread: str | None) -> str | None:
    """A sample's address in the Inspector (main transcript only); None for uploads (they have none)."""
    if item.kind != "sample" or (thread is not None and thread != "main"):
        return None
    params = {"sample": item.name, "policy": policy, **({"provider": provider} if provider else {})}
    return "/?" + urlencode(params)


def _thread(item: ui.Source, row: dict[str, Any]) -> str | None:
    prefix = item.name + "#"
    return row["file"][len(prefix):] if row["file"].startswith(prefix) else None


frame = ui.safe_frame(rows)  # names and errors from the files: neutralized before pandas sees them
frame.insert(1, "open", [_link(inputs[owner], _thread(inputs[owner], row)) for owner, row in zip(owners, rows,
                                                                                                   strict=True)])
runtime = RUNTIME_SENDS in frame.columns and bool(frame[RUNTIME_SENDS].astype(bool).any())
# (`check`'s third line beside "accepted as recorded", which it explains: shown when a file's runtime adds results)
leading = [c for c in ("file", "status", "accepted as recorded", *([RUNTIME_SENDS] if runtime else []),
                       "accepted after repair", "safe to send to", "all providers", "open", "format", "messages",
                       "calls") if c in frame.columns]
frame = frame[leading + [c for c in frame.columns if c not in leading and c not in ("verdict", RUNTIME_SENDS)]
              + ["verdict"]]
problems = int((frame["status"] != "healthy").sum())
judged = f"judged by {provider}" if provider else "each judged by its own provider"
st.caption(f"{len(frame)} file(s) · {problems} need attention · policy {policy} · {judged} · "
           "click a column header to sort · select a row to open it in the Inspector")


def _status_colour(value: Any) -> str:
    return {"healthy": "background-color: #dcfce7", "repaired": "background-color: #dbeafe",
            "findings": "background-color: #fef9c3", "unreadable": "background-color: #fee2e2",
            REJECTED_STATUS: "background-color: #fee2e2"}.get(str(value), "")


def _said_colour(value: Any) -> str:
    text = str(value)
    return "background-color: #dcfce7" if text.startswith("✔") else \
        "background-color: #fee2e2" if text.startswith("✖") else ""


def _picked_row() -> None:
    """A row selected in the table becomes the file the 'Open in the Inspector' button opens."""
    selection = st.session_state.get("batch_table")
    chosen = getattr(getattr(selection, "selection", None), "rows", None)
    if chosen is None and isinstance(selection, dict):
        chosen = selection.get("selection", {}).get("rows", [])
    if chosen and chosen[0] < len(owners):
        st.session_state["batch_pick"] = owners[chosen[0]]
        st.session_state["batch_thread"] = (owners[chosen[0]], _thread(inputs[owners[chosen[0]]], rows[chosen[0]]))


said = [c for c in ("accepted as recorded", "accepted after repair") if c in frame.columns]
st.dataframe(frame.style.map(_status_colour, subset=["status"]).map(_said_colour, subset=said),
             hide_index=True, width="stretch", height=min(len(frame), 15) * 35 + 40,
             on_select=_picked_row, selection_mode="single-row", key="batch_table",
             column_config={
                 "file": st.column_config.TextColumn("file", pinned=True),
                 "open": st.column_config.LinkColumn(
                     "open", display_text="inspect ↗",
                     help="samples open by their link; any file (uploads too): select its row, then 'Open'"),
                 "status": st.column_config.TextColumn(
                     "status", help="what `check` says under this policy and provider; 'rejected as recorded': "
                                    "nothing to repair, but the provider it is judged by refuses it"),
                 "safe to send to": st.column_config.TextColumn(
                     "safe to send to", help="the provider whose rules decide the next two columns"),
                 "accepted as recorded": st.column_config.TextColumn(
                     "accepted as recorded?", width="medium",
                     help="would that provider accept the file as it is (its first error when not)"),
                 "accepted after repair": st.column_config.TextColumn(
                     "accepted after repair?", width="medium",
                     help="would that provider accept the repaired view"),
                 "all providers": st.column_config.TextColumn("all providers", width="medium"),
                 "verdict": st.column_config.TextColumn("verdict", width="large"),
             })

totals = defect_totals(rows)
st.subheader("Defect kinds across the batch")
chart = pd.DataFrame({"defect": list(totals), "count": list(totals.values())})
ui.defect_bars(chart)

st.subheader("Open a file in the Inspector")
if st.session_state.get("batch_pick") not in range(len(inputs)):
    st.session_state["batch_pick"] = 0
picked: int | None = st.selectbox("File (or select its row in the table)", range(len(inputs)), key="batch_pick",
                                  format_func=lambda n: neutralize(inputs[n].name))
if st.button("Open in the Inspector ▶", key="batch_open"):
    assert picked is not None  # the options are never empty here, so one is always picked
    chosen = inputs[picked]
    owner, thread = st.session_state.get("batch_thread") or (None, None)
    params = {"policy": policy, **({"provider": provider} if provider else {})}
    if thread and owner == picked:  # the transcript of the row selected, not the file's main one
        st.session_state[f"thread_{chosen.digest}"] = thread
    st.session_state.pop("_url_provider", None)  # the Inspector's picker then takes ?provider= as a new link
    if chosen.kind == "sample":
        st.switch_page("pages/inspector_page.py", query_params={"sample": chosen.name, **params})
    ui.set_current(chosen)  # an upload has no address: it goes to the Inspector in this session
    st.query_params.clear()
    st.switch_page("pages/inspector_page.py", query_params=params)
