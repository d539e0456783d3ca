"""Sessions: open a session store file, list its sessions, inspect one, open it in the inspector.

Listing and loading come from integrity.store, verdicts from the repair report.
The file is opened without creating it.  Session ids, titles and message text
come from the file, so they appear only in dataframe cells, st.code and st.text.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import tempfile
from datetime import UTC, datetime

import pandas as pd
import streamlit as st

from integrity import Mark, RepairKind, RepairReport, facts, repair_with_report
from integrity.scenarios import describe, write_demo_store
from integrity.store import SessionInfo, SQLiteSessionStore, StoreError, open_store

VERDICT_LIMIT = 200_000  # entries; bigger sessions get a verdict only when opened
STATUS_ICONS = {"done": "✔ done", "running": "▶ running", "stale": "☠ stale", "idle": "⏸ idle",
                "aborted": "■ aborted", "failed": "✖ failed", "new": "○ new"}

st.title("Sessions")
st.markdown("Open a session store (an SQLite file written by `integrity.store`) to see its sessions, "
            "who holds each lease, and whether the stored history needs repair before a model can use it.")


def _make_demo() -> None:
    directory = tempfile.mkdtemp(prefix="sessions-demo-")
    path = os.path.join(directory, "demo.db")
    write_demo_store(path)
    st.session_state["sessions_store"] = path


if "sessions_store" not in st.session_state:
    st.session_state["sessions_store"] = os.environ.get("INTEGRITY_STORE", "")
top = st.columns([4, 1])
path = top[0].text_input("Store file", key="sessions_store", placeholder="/path/to/sessions.db",
                         help="opened as is; a missing file is never created")
top[1].button("Create a demo store", on_click=_make_demo, key="sessions_demo",
              help="a temporary file with one session per lab scenario, plus a worker that died")

if not path.strip():
    st.info("Enter the path of a session store, or create a demo store.")
    st.stop()


def _open(path: str) -> SQLiteSessionStore | None:
    try:
        return open_store(path, create=False)
    except FileNotFoundError:
        st.error("There is no file at this path.")
    except (sqlite3.DatabaseError, StoreError, OSError) as error:
        st.error("This file could not be opened as a session store.")
        st.code(str(error), language=None, wrap_lines=True)
    return None


def _when(ms: int | None) -> str:
    if ms is None:
        return ""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _verdict(store: SQLiteSessionStore, info: SessionInfo) -> tuple[str, RepairReport | None]:
    if info.entries > VERDICT_LIMIT:
        return "(large: open it to compute)", None
    _, report = repair_with_report(store.load_transcript(info.session_id), source=info.session_id)
    mark = "✔" if report.healthy else ("⚒" if report.changed else "⚠")
    return f"{mark} {report.verdict}", report


store = _open(path.strip())
if store is None:
    st.stop()
try:
    sessions = store.list_sessions()
    if not sessions:
        st.info("This store has no sessions yet.")
        st.stop()
    verdicts = {info.session_id: _verdict(store, info)[0] for info in sessions}
    st.dataframe(pd.DataFrame({
        "session": [info.session_id for info in sessions],
        "status": [STATUS_ICONS.get(info.status, info.status) for info in sessions],
        "verdict": [verdicts[info.session_id] for info in sessions],
        "attempt": [info.attempt for info in sessions],
        "entries": [info.entries for info in sessions],
        "lease owner": [info.lease_owner or "" for info in sessions],
        "title": [info.title for info in sessions],
        "updated": [_when(info.updated_at) for info in sessions],
    }), hide_index=True, width="stretch", key="sessions_table")

    ids = [info.session_id for info in sessions]
    if st.session_state.get("sessions_pick") not in ids:
        st.session_state["sessions_pick"] = ids[0]
    picked = st.selectbox("Session", ids, key="sessions_pick")
    info = next(row for row in sessions if row.session_id == picked)
    entries = store.entries(picked)
    messages = [entry.message for entry in entries]
    repair, report = repair_with_report(messages, source=picked)

    st.text(f"session {picked} · {STATUS_ICONS.get(info.status, info.status)} · attempt {info.attempt} "
            f"· {info.entries} entries")
    st.code(report.verdict, language=None, wrap_lines=True)
    summary = report.summary
    shown = [("calls", summary.calls), (facts(Mark.ORPHANED_CALL).name, summary.orphaned_calls),
             (facts(RepairKind.MOVED).name, summary.moved), (facts(RepairKind.SYNTHESIZED).name, summary.synthesized)]
    for column, (name, value) in zip(st.columns(len(shown)), shown, strict=True):
        column.metric(name, value)

    log_tab, attempts_tab, view_tab = st.tabs(["Durable log", "Attempts (leases)", "Repaired view"])
    with log_tab:
        st.dataframe(pd.DataFrame({
            "#": [entry.seq for entry in entries],
            "attempt": [entry.attempt for entry in entries],
            "written": [_when(entry.created_at) for entry in entries],
            "message": [describe(entry.message) for entry in entries],
        }), hide_index=True, width="stretch", key="sessions_log")
    with attempts_tab:
        attempts = store.attempts(picked)
        st.dataframe(pd.DataFrame({
            "attempt": [a.attempt for a in attempts],
            "owner": [a.owner for a in attempts],
            "claimed": [_when(a.claimed_at) for a in attempts],
            "entries before": [a.base_seq for a in attempts],
            "ended": [_when(a.ended_at) for a in attempts],
            "outcome": [a.outcome or "(holding)" for a in attempts],
        }), hide_index=True, width="stretch", key="sessions_attempts")
    with view_tab:
        st.dataframe(pd.DataFrame({
            "view #": list(range(len(repair.messages))),
            "from": [f"durable #{v.index}" if v.source == "durable" else "synthesized (view only)"
                     for v in report.view],
            "message": [describe(message) for message in repair.messages],
        }), hide_index=True, width="stretch", key="sessions_view")

    data = json.dumps(messages, ensure_ascii=False, indent=1).encode("utf-8")
    actions = st.columns(2)
    actions[0].download_button("Download transcript", data,
                               file_name=re.sub(r"[^A-Za-z0-9._-]", "_", picked)[:80] + ".json",
                               mime="application/json", key="sessions_download")
    if actions[1].button("Open in the inspector", key="sessions_inspect"):
        from inspector import ui

        ui.set_current(ui.Source(f"{picked}.json", data, "upload"))
        st.session_state["sessions_opened"] = picked
        try:
            st.switch_page("pages/inspector_page.py")
        except st.errors.StreamlitAPIException:
            st.info("Loaded into the inspector: open the Inspector page from the navigation.")
finally:
    store.close()
