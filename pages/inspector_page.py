"""Inspector: raw vs repaired side by side, pairings, filters, verdicts, compare mode.

Row meaning, pairing and filtering come from integrity.alignment; this page
only lays them out.  Transcript text appears only in dataframe cells and code
blocks.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from inspector import ui
from inspector.entry import through_app
from inspector.rows import (
    call_arguments,
    filter_rows,
    next_problem,
    pairs_for,
    raw_json,
)
from inspector.safe_text import neutralize
from inspector.theme import PROBLEM_KINDS, ROW_KINDS, label
from integrity import POLICIES

through_app()  # a page URL opened first on a fresh server still runs through app.py

PAGE_SIZE = 50

st.title("Inspector")
source = ui.input_picker()
policy = ui.policy_picker()
compare = st.sidebar.toggle("Compare policies", key="compare",
                            help="the reference policy next to the others, side by side")

if source is None:
    st.info("Pick a sample, upload a transcript or paste one in the sidebar.")
    st.stop()

transcript = ui.load_source(source)
if transcript is None:
    st.stop()
provider = ui.provider_picker(transcript=transcript)
analysis = ui.analysis_for(source, transcript, policy, provider)
rows = ui.rows_for(source, analysis, provider)

st.text(f"{neutralize(source.name)} · format {transcript.format} · policy {policy}")  # untrusted
verdict_slot = st.empty()  # the verdict goes first, once the providers have rated it (as check does)
ui.metrics(analysis)
analysis = ui.with_verdicts(source, analysis, provider)
with verdict_slot.container():
    ui.verdict_text(analysis)
ui.verdict_panel(analysis, provider)

# ----------------------------------------------------------------------------- selection state


def _select(row: int | None) -> None:
    st.session_state["sel_row"] = row
    if row is None:
        st.query_params.pop("msg", None)
        return
    picked = rows[row]
    st.query_params["msg"] = str(picked.left) if picked.left is not None else f"v{picked.right}"
    st.session_state["_url_msg"] = st.query_params["msg"]


def _row_from_msg(value: str) -> int | None:
    try:
        if value.startswith("v"):
            wanted = int(value[1:])
            return next((r.row for r in rows if r.right == wanted), None)
        wanted = int(value)
    except ValueError:
        return None
    return next((r.row for r in rows if r.left == wanted), None)


state_key = f"{source.digest}:{policy}"
if st.session_state.get("_rows_key") != state_key:
    st.session_state["_rows_key"] = state_key
    st.session_state["sel_row"] = None
link = st.query_params.get("msg")
if link is not None and st.session_state.get("_url_msg") != link:
    st.session_state["_url_msg"] = link
    st.session_state["sel_row"] = _row_from_msg(link)
selected: int | None = st.session_state.get("sel_row")
if selected is not None and selected >= len(rows):
    selected = None

# ----------------------------------------------------------------------------- compare mode

if compare:
    st.subheader("Compare policies")
    policies = list(POLICIES)
    if len(policies) < 2:
        st.caption("Only one policy is available in this engine build; compare mode shows it alone.")
    others = {name: ui.with_verdicts(source, ui.analysis_for(source, transcript, name, provider), provider,
                                     f"cmp_{name}")
              for name in policies}
    table: list[dict[str, Any]] = []
    for field in type(others[policies[0]].report.summary).model_fields:
        values = {name: getattr(other.report.summary, field) for name, other in others.items()}
        table.append({"": field.replace("_", " "), **values})
    for row in ui.verdict_rows(others[policies[0]]):
        name = row["provider"]
        table.append({"": f"{name} after repair",
                      **{p: next((r["after repair"] for r in ui.verdict_rows(o) if r["provider"] == name), "")
                         for p, o in others.items()}})
    compared = pd.DataFrame(table).astype(str)

    def _differs(row: pd.Series) -> list[str]:
        values = set(row.iloc[1:])
        return ["background-color: #fef9c3" if len(values) > 1 else ""] * len(row)

    st.dataframe(compared.style.apply(_differs, axis=1), hide_index=True, width="stretch",
                 height=min(len(compared), 12) * 35 + 40)
    st.caption("Rows where the policies differ are highlighted. Below: each policy's problem rows.")
    columns = st.columns(len(policies))
    for column, name in zip(columns, policies, strict=False):
        with column:
            st.markdown(f"**{name}**")
            ui.verdict_text(others[name])
            problems = filter_rows(ui.rows_for(source, others[name], provider), problems_only=True)[:500]
            other_rows = ui.previewed(others[name], problems)
            st.dataframe(ui.styled_rows(ui.rows_frame(other_rows)), hide_index=True,
                         width="stretch", column_config=ui.ROW_CONFIG,
                         column_order=["kind", "#", "durable transcript", "view #", "repaired view"])
    st.divider()

def _on_goto() -> None:
    """Runs before the rerun, so the table drawn next already shows the chosen message."""
    target = (st.session_state.get("goto") or "").strip()
    found = _row_from_msg(target) if target else None
    st.session_state["_goto_missing"] = bool(target) and found is None
    if found is not None:
        _select(found)


# ----------------------------------------------------------------------------- side by side


@st.fragment
def _on_pick() -> None:
    event = st.session_state.get("detail_table")
    picked = (event or {}).get("selection", {}).get("rows", []) if isinstance(event, dict) else \
        getattr(getattr(event, "selection", None), "rows", [])
    window_rows = st.session_state.get("_window_rows", [])
    if picked and picked[0] < len(window_rows):
        _select(window_rows[picked[0]])


def side_by_side() -> None:
    """Filters, the paged table and the detail panel: clicks rerun only this part, not the overview."""
    selected: int | None = st.session_state.get("sel_row")
    if selected is not None and selected >= len(rows):
        selected = None

    st.subheader("Durable transcript ↔ repaired view")
    with st.expander("Legend: what each row kind means", expanded=False):
        ui.legend()
    st.caption("  ·  ".join(label(k) for k in ROW_KINDS))

    f1, f2, f3, f4 = st.columns([1.5, 2.2, 2.2, 1.4], vertical_alignment="bottom")
    problems_only = f1.checkbox("Problems only", key="problems_only", help="problem rows with one row of context")
    kinds = f2.multiselect("Kinds", list(PROBLEM_KINDS) + ["kept"], format_func=label, key="kinds",
                           placeholder="all kinds")
    search = f3.text_input("Search text or call id", key="search")
    if f4.button("Next problem ▶", width="stretch"):
        found = next_problem(rows, selected if selected is not None else -1)
        if found is None:
            st.toast("No problems in this transcript.")
        else:
            _select(found)
            selected = found

    searched = rows
    if search.strip() and not all(row.filled for row in rows):
        with st.spinner("Reading every message for the search…"):
            searched = ui.searchable_rows(source, analysis, provider)
    shown = filter_rows(searched, problems_only=problems_only, kinds=kinds, search=search)
    pages = max(1, (len(shown) + PAGE_SIZE - 1) // PAGE_SIZE)
    position_of = {row.row: n for n, row in enumerate(shown)}
    if selected is not None and selected in position_of:
        st.session_state["page"] = position_of[selected] // PAGE_SIZE + 1
    if st.session_state.get("page", 1) > pages:
        st.session_state["page"] = 1
    st.session_state.setdefault("page", 1)

    p1, p2 = st.columns([1, 5], vertical_alignment="center")
    page = p1.number_input(f"Page (of {pages})", min_value=1, max_value=pages, step=1, key="page")
    p2.caption(f"{len(shown):,} of {len(rows):,} rows match · {PAGE_SIZE} per page · click a row to see its pairing")

    window = shown[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
    pairs = None
    if selected is not None:
        chosen_row = rows[selected]
        pairs = pairs_for(analysis, durable=chosen_row.left, view_position=chosen_row.right) \
            if chosen_row.left is not None else pairs_for(analysis, view_position=chosen_row.right)
    paired_rows: set[int] = set()
    if pairs is not None:
        paired_rows = {r.row for r in window if (r.left in pairs.durable) or (r.right in pairs.view)}
        paired_rows.add(selected)
    st.session_state["_window_rows"] = [r.row for r in window]

    window = ui.previewed(analysis, window)
    frame = ui.rows_frame(window, paired_rows, selected)
    st.dataframe(ui.styled_rows(frame), hide_index=True, width="stretch", column_config=ui.ROW_CONFIG,
                 on_select=_on_pick, selection_mode="single-row", key="detail_table",
                 height=min(len(window), 18) * 35 + 40)

    detail_panel(selected, pairs)


def detail_panel(selected: int | None, pairs: Any) -> None:
    """The selected row: its kind and note, the raw JSON on each side, its pairing, arguments and result."""
    st.subheader("Selected message")
    go1, go2 = st.columns([2, 3], vertical_alignment="bottom")
    go1.text_input("Open message (durable # or vN for view)", key="goto", placeholder="e.g. 3 or v4",
                   on_change=_on_goto)
    if st.session_state.get("_goto_missing"):
        go2.caption("no such message")

    if selected is None:
        st.caption("Select a row above (or use Next problem) to see its raw JSON and its pairing.")
        return
    row = rows[selected]
    st.code(f"{label(row.kind)} · row {row.row}" + (f" · {row.note}" if row.note else ""), language=None,
            wrap_lines=True)
    left, right = st.columns(2)
    with left:
        if row.left is not None:
            st.markdown(f"**Durable #{row.left}** (raw JSON)")
            text, cut = raw_json(transcript.messages[row.left])
            ui.code_block(text, cut)
        else:
            st.caption("Not in the durable transcript: this message exists only in the view.")
    with right:
        if row.right is not None:
            st.markdown(f"**View #{row.right}** (what the model receives)")
            text, cut = raw_json(analysis.view[row.right])
            ui.code_block(text, cut)
        else:
            st.caption("Not in the repaired view.")
    if pairs is not None and pairs.calls:
        st.markdown("**Pairing**")
        st.dataframe(pd.DataFrame(pairs.calls), hide_index=True, width="stretch")
    message: Any = transcript.messages[row.left] if row.left is not None else analysis.view[row.right]
    arguments = call_arguments(message)
    if arguments:
        st.markdown("**Call arguments**")
        text, cut = raw_json(arguments)
        ui.code_block(text, cut)
    if isinstance(message, dict) and message.get("role") == "toolResult":
        st.markdown("**Result content**")
        text, cut = raw_json(message.get("content"))
        ui.code_block(text, cut)


side_by_side()

# ----------------------------------------------------------------------------- overview

st.subheader(f"Overview: all {len(rows):,} rows")
st.dataframe(ui.overview_frame(rows, analysis), hide_index=True, width="stretch", height=300,
             column_config={"message": st.column_config.TextColumn("message", width="large")})
