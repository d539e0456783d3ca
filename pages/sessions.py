"""Sessions: open a session store, list its sessions, inspect one, open it in the inspector.

Listing and loading come from integrity.lab (the store), verdicts from the repair report.
A visitor never names an arbitrary server file: stores open only from the store
folder (`data/` in the project, created on demand; the INTEGRITY_STORE_ROOT
environment variable names another), from an uploaded .db, or as a demo store
in a temporary directory that is removed with the session.  Every refused path
(outside the folder, missing, not a file) gets the same message, so the page
tells nobody which server files exist.  Stores are opened read-only.  Session
ids, titles and message text come from the file: they are neutralized and
appear only in dataframe cells, st.code and st.text.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import streamlit as st

from inspector import ui
from inspector.data_root import ROOT_VARIABLE, data_root, files_in, resolve_in_root
from inspector.entry import through_app
from inspector.safe_text import neutralize, safe_filename, without_paths
from integrity import Mark, RepairKind, RepairReport, ToolCallRepair, facts, repair_with_report
from integrity.lab import DemoStore, Entry, SessionInfo, SQLiteSessionStore, StoreError, describe, open_store

through_app()  # a page URL opened first on a fresh server still runs through app.py

STORE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
REFUSED = ("No session store at this path in the store folder. Stores open only from the store folder "
           "or as an upload.")
VERDICT_LIMIT = 200_000  # entries; bigger sessions get a verdict only when opened
STATUS_ICONS = {"done": "✔ done", "running": "▶ running", "stale": "☠ stale", "idle": "⏸ idle",
                "aborted": "■ aborted", "failed": "✖ failed", "new": "○ new"}
MODES = ["Store folder", "Upload a .db", "Demo store"]


def store_root() -> Path:
    """The one folder stores are opened from (inspector.data_root)."""
    return data_root()


def stores_in(root: Path, limit: int = 500) -> list[str]:
    """Store-like files under root (relative paths, sorted), for the picker."""
    return files_in(root, STORE_SUFFIXES, limit)


def _make_demo() -> None:
    old = st.session_state.get("sessions_demo_store")
    if old is not None:
        old.close()
    st.session_state["sessions_demo_store"] = DemoStore()
    st.session_state["sessions_mode"] = "Demo store"


def _use_found() -> None:
    st.session_state["sessions_store"] = st.session_state.get("sessions_found") or ""


def _when(ms: int | None) -> str:
    if ms is None:
        return ""
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _verdict(store: SQLiteSessionStore, info: SessionInfo) -> str:
    if info.entries > VERDICT_LIMIT:
        return "(large: open it to compute)"
    try:
        _, report = repair_with_report(store.load_transcript(info.session_id), source=info.session_id)
    except StoreError:
        raise
    except Exception as error:  # noqa: BLE001 - one odd session is one cell, not a broken page
        return "⚠ " + ui.failure_line("cannot check", error)
    mark = "✔" if report.healthy else ("⚒" if report.changed else "⚠")
    return neutralize(f"{mark} {report.verdict}")


def _open(path: Path, shown: str) -> SQLiteSessionStore | None:
    """The store at path, read-only; a file that is not one gets its reason, naming it as the user does."""
    try:
        return open_store(path, create=False)
    except StoreError as error:
        st.error("This file could not be opened as a session store.")
        reason = str(error).replace(str(path), shown)
        st.code(neutralize(without_paths(reason)), language=None, wrap_lines=True)
    return None


def _transcript_bytes(messages: list[object]) -> bytes:
    """The stored messages as JSON; a lone surrogate (not UTF-8) is written as its escape."""
    text = json.dumps(messages, ensure_ascii=False, indent=1)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(messages, ensure_ascii=True, indent=1).encode("ascii")


def session_table(store: SQLiteSessionStore, sessions: list[SessionInfo]) -> None:
    """Every session: status, verdict, attempt, entries, lease owner, title, last update."""
    verdicts = {info.session_id: _verdict(store, info) for info in sessions}
    st.dataframe(ui.safe_frame({
        "session": [info.session_id for info in sessions],
        "status": [STATUS_ICONS.get(info.status, info.status) for info in sessions],
        "verdict": [verdicts[info.session_id] for info in sessions],
        "attempt": [info.attempt for info in sessions],
        "entries": [info.entries for info in sessions],
        "lease owner": [info.lease_owner or "" for info in sessions],
        "title": [info.title for info in sessions],
        "updated": [_when(info.updated_at) for info in sessions],
    }), hide_index=True, width="stretch", key="sessions_table")


def _tabs(store: SQLiteSessionStore, picked: str, entries: list[Entry], repair: ToolCallRepair,
          report: RepairReport) -> None:
    log_tab, attempts_tab, view_tab = st.tabs(["Durable log", "Attempts (leases)", "Repaired view"])
    with log_tab:
        st.dataframe(ui.safe_frame({
            "#": [entry.seq for entry in entries],
            "attempt": [entry.attempt for entry in entries],
            "written": [_when(entry.created_at) for entry in entries],
            "message": [describe(entry.message) for entry in entries],
        }), hide_index=True, width="stretch", key="sessions_log")
    with attempts_tab:
        attempts = store.attempts(picked)
        st.dataframe(ui.safe_frame({
            "attempt": [a.attempt for a in attempts],
            "owner": [a.owner for a in attempts],
            "claimed": [_when(a.claimed_at) for a in attempts],
            "entries before": [a.base_seq for a in attempts],
            "ended": [_when(a.ended_at) for a in attempts],
            "outcome": [a.outcome or "(holding)" for a in attempts],
        }), hide_index=True, width="stretch", key="sessions_attempts")
    with view_tab:
        st.dataframe(ui.safe_frame({
            "view #": list(range(len(repair.messages))),
            "from": [f"durable #{v.index}" if v.source == "durable" else "synthesized (view only)"
                     for v in report.view],
            "message": [describe(message) for message in repair.messages],
        }), hide_index=True, width="stretch", key="sessions_view")


def session_detail(store: SQLiteSessionStore, sessions: list[SessionInfo]) -> None:
    """One session: its verdict and counts, durable log, attempts, repaired view, download and inspector link."""
    ids = [info.session_id for info in sessions]
    linked = st.session_state.get("sessions_mode") == "Store folder"  # only a store on the server has a link
    asked = ui.url_get("session") if linked else None
    if asked is not None and st.session_state.get("_url_session") != asked:
        st.session_state["_url_session"] = asked
        if asked in ids:
            st.session_state["sessions_pick"] = asked
        else:
            ui.report_unknown("session", asked, ids, st.session_state.get("sessions_pick") or ids[0])
    if st.session_state.get("sessions_pick") not in ids:
        st.session_state["sessions_pick"] = ids[0]
    picked: str | None = st.selectbox("Session", ids, key="sessions_pick", format_func=neutralize)
    assert picked is not None  # the options are never empty here, so one is always picked
    ui.url_set("session", picked if linked else None)
    st.session_state["_url_session"] = picked
    info = next(row for row in sessions if row.session_id == picked)
    entries = store.entries(picked)
    messages = [entry.message for entry in entries]
    st.text(neutralize(f"session {picked} · {STATUS_ICONS.get(info.status, info.status)} · attempt {info.attempt} "
                       f"· {info.entries} entries"))
    try:
        repair, report = repair_with_report(messages, source=picked)
    except Exception as error:  # noqa: BLE001 - the stored messages are not a transcript the engine takes
        ui.show_failure("this session cannot be checked", error,
                        headline="The stored messages of this session cannot be checked.")
        return
    st.code(neutralize(report.verdict), language=None, wrap_lines=True)
    summary = report.summary
    shown = [("calls", summary.calls), (facts(Mark.ORPHANED_CALL).name, summary.orphaned_calls),
             (facts(RepairKind.MOVED).name, summary.moved), (facts(RepairKind.SYNTHESIZED).name, summary.synthesized)]
    for column, (name, value) in zip(st.columns(len(shown)), shown, strict=True):
        column.metric(name, value)
    _tabs(store, picked, entries, repair, report)

    data = _transcript_bytes(messages)
    actions = st.columns(2)
    actions[0].download_button("Download transcript", data, file_name=safe_filename(picked, "session")[:80] + ".json",
                               mime="application/json", key="sessions_download")
    if actions[1].button("Open in the inspector", key="sessions_inspect"):
        ui.set_current(ui.Source(safe_filename(picked, "session") + ".json", data, "upload"))
        st.session_state["sessions_opened"] = picked
        try:
            st.switch_page("pages/inspector_page.py")
        except st.errors.StreamlitAPIException:
            st.info("Loaded into the inspector: open the Inspector page from the navigation.")


def show_store(path: Path, shown: str) -> None:
    """Open the store read-only, list its sessions and show the picked one; close it whatever happens."""
    store = _open(path, shown)
    if store is None:
        st.stop()
    try:
        sessions = store.list_sessions()
        if not sessions:
            st.info("This store has no sessions yet.")
            return
        session_table(store, sessions)
        session_detail(store, sessions)
    except StoreError as error:
        reason = StoreError(str(error).replace(str(path), shown))
        ui.show_failure("the store could not be read", reason, headline="This store could not be read to the end.")
    finally:
        store.close()


def from_folder() -> tuple[Path, str]:
    """The store the visitor names inside the store folder (or the page stops with one message)."""
    try:
        root = store_root()
    except OSError as error:
        ui.show_failure("the store folder", error, headline="The store folder cannot be created or read.")
        st.stop()
    where = f"the folder named by {ROOT_VARIABLE}" if os.environ.get(ROOT_VARIABLE, "").strip() else \
        "data/ in the project folder"
    asked = ui.url_get("store")  # a link names the store (a path in the folder) and the session
    if asked is not None and st.session_state.get("_url_store") != asked:
        st.session_state["_url_store"] = asked
        st.session_state["sessions_store"] = asked
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    typed = left.text_input("Store file, inside the store folder", key="sessions_store", placeholder="sessions.db",
                            help=f"a path inside {where}; opened read-only, never created")
    found = stores_in(root)
    if found:
        right.selectbox("Stores in the folder", found, index=None, key="sessions_found", on_change=_use_found,
                        placeholder=f"{len(found)} found: pick one", format_func=neutralize)
    if not typed.strip():
        st.info(f"Enter the path of a session store inside the store folder ({where}), upload one, "
                "or create a demo store.")
        st.stop()
    ui.url_set("store", typed.strip())
    st.session_state["_url_store"] = typed.strip()
    path = resolve_in_root(typed, root)
    if path is None:
        st.error(REFUSED)
        st.stop()
    return path, typed.strip()


st.title("Sessions")
st.markdown("Open a session store (an SQLite file written by `integrity.lab`'s store) to see its sessions, "
            "who holds each lease, and whether the stored history needs repair before a model can use it.")
top = st.columns([4, 1], vertical_alignment="bottom")
if ui.url_get("store") is not None and st.session_state.get("_url_store") != ui.url_get("store"):
    st.session_state["sessions_mode"] = "Store folder"  # a link to a store in the folder opens it
mode: str | None = top[0].radio("Open a store from", MODES, horizontal=True, key="sessions_mode")
if mode != "Store folder":  # an upload or a demo store is not on the server: no link names it
    ui.url_set("store", None)
    ui.url_set("session", None)
top[1].button("Create a demo store", on_click=_make_demo, key="sessions_demo",
              help="a temporary store with one session per lab scenario, plus a worker that died; "
                   "removed when your session ends")

if mode == "Store folder":
    show_store(*from_folder())
elif mode == "Upload a .db":
    upload = st.file_uploader("Session store (.db)", type=[s.lstrip(".") for s in STORE_SUFFIXES],
                              key="sessions_upload", help=ui.upload_limit_text() + "; opened read-only")
    ui.upload_limit_note()
    ui.uploaded_names(upload)
    if upload is None:
        st.info("Upload a session store file to inspect it; it is deleted after reading.")
        st.stop()
    with tempfile.TemporaryDirectory(prefix="sessions-upload-") as directory:
        uploaded = Path(directory) / "upload.db"
        uploaded.write_bytes(upload.getvalue())
        show_store(uploaded, upload.name)
else:
    demo: DemoStore | None = st.session_state.get("sessions_demo_store")
    if demo is None or demo.closed:
        st.info("Create a demo store: one session per lab scenario, in a temporary folder.")
        st.stop()
    show_store(demo.path, "demo.db")
