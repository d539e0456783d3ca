"""Inspector: open a runtime's session store by URL, list its threads, open one as the page's transcript.

The same URLs `integrity check` reads (integrity.guards.stores: a LangGraph checkpointer in SQLite or
Postgres, an Agents SDK or ADK session database), read-only.  The list's verdicts and the opened
thread's come from the one pipeline (integrity.pipeline.check_unit, the engine's analysis for the
page), so a thread shows what `check URL?thread=ID` says.  Thread names and contents are untrusted:
plain text and dataframe cells only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from inspector import ui
from inspector.safe_text import literal, neutralize
from integrity.loading import Transcript, TranscriptError

if TYPE_CHECKING:
    from integrity.guards.stores import Thread

HOSTS_VARIABLE = "INTEGRITY_STORE_HOSTS"
"""Comma-separated database hosts a Postgres store URL may name (default: this machine only)."""
LOCAL_HOSTS = ("", "127.0.0.1", "localhost", "::1")


def refused(url: str) -> str | None:
    """Why the page will not open this store URL (None: it may).  Anyone who can reach the page can type a
    URL, so a SQLite database is read only under the data folder (the rule for every server file:
    inspector.data_root, the same answer whether or not the file exists), and a Postgres URL only on this
    machine or on the hosts named in $INTEGRITY_STORE_HOSTS."""
    import os
    from urllib.parse import urlsplit

    from inspector.data_root import ROOT_VARIABLE, data_root, resolve_in_root
    from integrity.guards.stores import store_path

    parts = urlsplit(url)
    if parts.scheme.endswith("+postgresql"):
        named = os.environ.get(HOSTS_VARIABLE, "")
        allowed = {*LOCAL_HOSTS, *(h.strip() for h in named.split(",") if h.strip())}
        if (parts.hostname or "") not in allowed:
            return f"the inspector opens Postgres stores on this machine only, or on the hosts named in " \
                   f"{HOSTS_VARIABLE} (check reads any: `python3 -m integrity check URL`)"
        return None
    if resolve_in_root(os.path.abspath(store_path(url)), data_root()) is None:  # the file the reader opens
        return f"the inspector opens store databases under its data folder only ({ROOT_VARIABLE} names it; " \
               "check reads any path: `python3 -m integrity check URL`)"
    return None


LISTED_VERDICTS = 200
"""Threads whose verdict the list shows (each is one check); a larger store lists the rest by name."""
READ_SECONDS = 30
"""How long a store's reading is reused across reruns before it is read again."""

Stored = list["Thread"]


@st.cache_data(ttl=READ_SECONDS, max_entries=4, show_spinner=False)
def _read(url: str) -> Stored | str:
    """Every thread of the store (integrity.guards.stores.Thread), or the one-line error (cached briefly: a
    rerun of the page does not read the store again, a later visit sees new turns)."""
    from integrity.guards.stores import list_threads, read_threads

    try:
        return read_threads(url, list_threads(url))
    except TranscriptError as error:
        return str(error)
    except ImportError as error:  # the runtime's reader (langgraph, psycopg) is an optional dependency
        return f"{url}: cannot read it: {error}"


@st.cache_data(ttl=READ_SECONDS, max_entries=4, show_spinner=False)
def _verdicts(url: str, _stored: Stored) -> list[dict[str, Any]]:
    """The list's rows: each thread's name, messages and `check`'s verdict (the first LISTED_VERDICTS)."""
    from integrity.guards.stores import UNREADABLE, as_transcript
    from integrity.pipeline import Loaded, check_unit

    rows = []
    for index, (name, format, entries, model) in enumerate(_stored):
        row: dict[str, Any] = {"thread": name, "format": format, "entries": len(entries), "verdict": ""}
        if format == UNREADABLE:  # a thread the reader could not decode: opening it shows why
            row["entries"], row["verdict"] = 0, "unreadable"
        elif index < LISTED_VERDICTS:
            transcript = as_transcript(entries, format, url, name, model)
            row["verdict"] = check_unit(Loaded(url, transcript=transcript)).report.verdict
        rows.append(row)
    return rows


def store_source() -> tuple[ui.Source, Transcript] | None:
    """Sidebar: a store URL field; with a URL, the store's threads listed on the page and the one picked in
    the sidebar as (its Source, its Transcript).  None when the field is empty (the page's other pickers
    apply); a store that cannot be read shows its one-line error and stops the page."""
    from integrity.guards.stores import as_transcript, redacted, split_store_url, thread_bytes, thread_url

    with st.sidebar.expander("Session store", expanded=bool(st.session_state.get("store_url"))):
        url = st.text_input("Store URL", key="store_url", placeholder="langgraph+sqlite:///path/checkpoints.db",
                            help="a LangGraph checkpointer (langgraph+sqlite:///file.db, "
                                 "langgraph+postgresql://user@host/db), an Agents SDK (agents+sqlite:///file.db, "
                                 "agents+postgresql://user@host/db) "
                                 "or ADK (adk+sqlite:///file.db, adk+postgresql://user@host/db) session database, "
                                 "or goose's (goose+sqlite:///path/sessions.db); "
                                 "read-only. Clear it to pick a sample or an upload.").strip()
    if not url:
        return None
    try:
        base, named = split_store_url(url)
    except TranscriptError as error:
        ui.show_error(str(error))
        st.stop()
    refusal = refused(url)
    if refusal is not None:
        ui.show_error(f"{redacted(url)}: {refusal}")
        st.stop()
    stored = _read(url)
    if isinstance(stored, str):
        ui.show_error(stored.replace(url, redacted(url)))
        st.stop()
    if not stored:
        ui.show_error(f"{redacted(url)}: the store holds no thread or session")
        st.stop()
    names = [thread.name for thread in stored]
    with st.expander(f"{len(names):,} thread(s) in {literal(redacted(base), 200)}", expanded=named is None):
        st.dataframe(_verdicts(url, stored), hide_index=True, use_container_width=True)
    chosen = st.sidebar.selectbox("Thread", names, key=f"store_thread:{base}", format_func=neutralize)
    thread = stored[names.index(chosen) if chosen in names else 0]
    name, format, entries, model = thread
    shown = thread_url(redacted(base), name.partition(":")[2])
    try:
        transcript = as_transcript(entries, format, shown, name, model)
    except TranscriptError as error:  # this thread cannot be decoded: its one line (the others stay listed)
        ui.show_error(str(error))
        st.stop()
    return ui.Source(shown, thread_bytes(thread), "store"), transcript
