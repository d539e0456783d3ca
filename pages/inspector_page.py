"""Inspector: the durable transcript and its repaired view side by side, like a debugger.

What a row means, where each message went (`integrity.view_placement` through
inspector.detail), native positions (inspector.positions) and each provider's
errors (inspector.diagnostics) come from the engine; this page only lays them
out.  Transcript text appears only in dataframe cells and code blocks.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from inspector import row_cache, stores_ui, ui, verdict_ui, whole_file
from inspector.conversation import message_text
from inspector.conversation_ui import render_conversation, render_legend
from inspector.data_root import data_root, save_upload
from inspector.detail import row_detail
from inspector.entry import through_app
from inspector.glossary import link
from inspector.positions import (
    file_line_note,
    find_place,
    native_label,
    native_message,
    other_numbers,
    row_place,
)
from inspector.rows import Pairs, call_arguments, filter_rows, pairs_for, position_in, raw_json
from inspector.safe_text import literal, neutralize, safe_filename
from inspector.stops import Stop, next_stop, problem_stops, stops_caption
from inspector.theme import PROBLEM_KINDS, ROW_KINDS, label
from integrity import POLICIES

through_app()  # a page URL opened first on a fresh server still runs through app.py

PAGE_SIZE = 50
WORDS = "Words on this page: " + " · ".join(
    link(term, term) for term in ("durable transcript", "view", "frame", "interrupted frame", "receipt",
                                  "orphaned call", "stray result", "policy", "provider"))
OVERVIEW_UP_TO = 3_000  # above this many rows the paged table is the overview (no grid of every row)

if ui.url_get("lesson") is not None:  # the README's ?lesson= links work from the root URL too
    st.switch_page("pages/lessons.py", query_params={"lesson": ui.url_get("lesson") or ""})

st.title("Inspector")
stored = stores_ui.store_source()  # a session store's thread (by URL), else a sample, upload or paste
picked_source = stored[0] if stored else ui.input_picker()
policy = ui.policy_picker()
compare = st.sidebar.toggle("Compare policies", key="compare",
                            help="the reference policy next to the others, side by side")

if picked_source is None:
    ui.provider_picker()  # always drawn: a picker that leaves the page and comes back may report a stale choice
    if ui.url_get("sample") is None and ui.url_get("file") is None:
        st.info("Pick a sample, upload a transcript or paste one in the sidebar.")
    st.stop()
source = picked_source  # never None from here on (the functions below rely on it)

with st.spinner(f"Reading {literal(source.name)} ({len(source.data):,} bytes)…"):  # staged progress
    loaded = stored[1] if stored else ui.load_source(source, policy)  # (a read error shows on the page)
if loaded is None:
    ui.provider_picker()
    st.stop()
transcript = loaded  # never None from here on (the functions below rely on it)
provider = ui.provider_picker(transcript=transcript)
with st.spinner(f"Repairing {len(transcript.messages):,} messages…"):
    analysis = ui.analysis_for(source, transcript, policy, provider)
with st.spinner("Aligning the durable transcript with the view…"):
    rows = ui.rows_for(source, analysis, provider)


def sides() -> tuple[dict[int, int], dict[int, int]]:
    """Durable index -> row, view position -> row (cached; built only when a link or an error needs a row)."""
    return ui.sides_for(source, analysis, provider, rows)


st.text(f"{neutralize(source.name)} · format {transcript.format} · policy {policy}"  # untrusted: plain text
        + (f" · transcript {neutralize(transcript.name)}" if transcript.name != "main" else ""))
verdict_slot = st.empty()  # the verdict goes first, once the providers have rated it (as check does)
verdict_slot.caption(f"Checking what {provider} says…")
judge_slot = st.container()  # the verdicts' progress, Cancel and "every provider" button
ui.metrics(analysis)


def judge() -> None:
    """Rate the transcript by the providers (drawn at the top) and put the verdict in its place.

    Called after the rows are sent, so the browser draws the table while the providers judge.
    """
    global analysis, judged_already
    name = ui.cache_name(source, transcript)
    with judge_slot:
        analysis = verdict_ui.judged(source.digest, name, analysis, provider)
    with verdict_slot.container():
        verdict_ui.headline(analysis, provider, source.digest, name,
                            whole_file.current(source.digest, policy, provider), data=source.data)
    judged_already = True


judged_already = False  # True once judge() ran in this page run; the side-by-side fragment's reruns see it

# ----------------------------------------------------------------------------- selection state


def _msg_of(row: int) -> str:
    picked = rows[row]
    return str(picked.left) if picked.left is not None else f"v{picked.right}"


def _select(row: int | None) -> None:
    st.session_state["sel_row"] = row
    st.session_state["_table_nonce"] = st.session_state.get("_table_nonce", 0) + 1  # no stale tick in the table
    if row is None:
        ui.url_set("msg", None)
        return
    ui.url_set("msg", _msg_of(row))
    st.session_state["_url_msg"] = _msg_of(row)


def _row_from_msg(value: str) -> int | None:
    """The row a `?msg=` value names: `4` (durable #4), `v3` (view #3) or the file's own place (`line 12`,
    `messages[3]`); None when there is none."""
    value = value.strip().lstrip("#")
    if not value[:1].isdigit() and not value.startswith("v"):
        index = find_place(transcript, value)
        return sides()[0].get(index) if index is not None else None
    try:
        if value.startswith("v"):
            return sides()[1].get(int(value[1:]))
        return sides()[0].get(int(value))
    except ValueError:
        return None


state_key = f"{source.digest}:{transcript.name}:{policy}:{provider}"
if st.session_state.get("_rows_key") != state_key:
    st.session_state["_rows_key"] = state_key
    st.session_state["sel_row"] = None
msg_link = ui.url_get("msg")  # (not `link`: that is the glossary's link maker)
if msg_link is not None and st.session_state.get("_url_msg") != msg_link:
    st.session_state["_url_msg"] = msg_link
    found_row = _row_from_msg(msg_link)
    st.session_state["sel_row"] = found_row
    st.session_state["_bad_msg"] = msg_link if found_row is None else None
if st.session_state.get("_bad_msg"):
    first, last = (native_label(transcript, 0), native_label(transcript, len(transcript.messages) - 1)) \
        if transcript.messages else ("none", "none")
    st.error(f"The link asks for message {literal(st.session_state['_bad_msg'], 40)}: this transcript has "
             f"{literal(first)} to {literal(last)} (durable #0–#{len(transcript.messages) - 1}, view "
             f"v0–v{len(analysis.view) - 1}). Nothing is selected.")

# ----------------------------------------------------------------------------- compare mode


def compare_policies() -> None:
    """Every policy's counts and verdicts side by side, and each policy's problem rows."""
    st.subheader("Compare policies")
    policies = list(POLICIES)
    others = {name: analysis if name == policy else
              verdict_ui.judged(source.digest, ui.cache_name(source, transcript),
                                ui.analysis_for(source, transcript, name, provider), provider, key=f"cmp_{name}")
              for name in policies}
    table: list[dict[str, Any]] = []
    for field in type(others[policies[0]].report.summary).__struct_fields__:
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
            st.dataframe(ui.styled_rows(ui.rows_frame(other_rows, transcript=transcript)), hide_index=True,
                         width="stretch", column_config=ui.ROW_CONFIG,
                         column_order=["kind", "#", "durable transcript", "view #", "repaired view"])
    st.divider()


if compare:
    judge()
    compare_policies()


def _on_goto() -> None:
    """Runs before the rerun, so the table drawn next already shows the chosen message."""
    target = (st.session_state.get("goto") or "").strip()
    found = None
    if target:  # the file's own position first (`line 12`, `messages[3]`), else #n / vN
        index = find_place(transcript, target) if not target.lower().startswith("v") else None
        found = sides()[0].get(index) if index is not None else _row_from_msg(target)
    st.session_state["_goto_missing"] = bool(target) and found is None
    if found is not None:
        _select(found)


@st.cache_resource(max_entries=8, show_spinner=False)
def _cached_stops(digest: str, name: str, policy: str, provider: str | None, judged: tuple[str, ...],
                  _analysis: Any, _rows: Any, _sides: Any) -> list[Stop]:
    return problem_stops(_analysis, _rows, *_sides)


def _stops() -> list[Stop]:
    """The engine's findings, provider refusals and repairs, in row order (inspector.stops); made once per
    transcript, policy, provider and set of providers judged (a 100,000-row walk on every key otherwise)."""
    return _cached_stops(source.digest, ui.cache_name(source, transcript), analysis.policy, provider,
                         tuple(sorted(analysis.verdicts or {})), analysis, rows, sides())


def _step(problems: bool, forward: bool) -> None:
    """Next/previous stop (finding, refusal, repair) or row from the selection (wrapping); the table follows."""
    current = st.session_state.get("sel_row")
    if problems:
        stops = _stops()
        if not stops:
            st.session_state["_stop"] = None
            st.toast("Nothing to visit: no finding, no provider refusal and no repair in this transcript.")
            return
        found = next_stop(stops, st.session_state.get("_stop"), current, forward)
        st.session_state["_stop"] = found
        _select(stops[found].row)
        return
    st.session_state["_stop"] = None
    _select(0 if current is None else (current + (1 if forward else -1)) % len(rows))


def _on_pick() -> None:
    """A click on any cell (or a row's box) selects that row."""
    event = st.session_state.get(f"detail_table_{st.session_state.get('_table_nonce', 0)}")
    selection = (event or {}).get("selection", {}) if isinstance(event, dict) else getattr(event, "selection", {})
    get = selection.get if isinstance(selection, dict) else (lambda name, default: getattr(selection, name, default))
    picked = list(get("rows", []) or [])
    cells = list(get("cells", []) or [])
    if not picked and cells:
        picked = [cells[0][0] if isinstance(cells[0], (list, tuple)) else cells[0].get("row")]
    window_rows = st.session_state.get("_window_rows", [])
    if picked and picked[0] is not None and picked[0] < len(window_rows):
        _select(window_rows[picked[0]])


# ----------------------------------------------------------------------------- side by side


def navigation_bar() -> None:
    """Previous/next stop (keys P/N) and row (K/J), where the current stop is, and the link to this view."""
    with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):  # wraps, never cuts a label
        st.button("◀ Problem", key="prev_problem", on_click=_step, args=(True, False), shortcut="P",
                  help="previous finding, provider refusal or repair (key P)", width="content")
        st.button("Problem ▶", key="next_problem", on_click=_step, args=(True, True), shortcut="N",
                  help="next finding, provider refusal or repair, in the file's order; the first press lands on "
                       "the first refusal of the provider the verdict is judged by (key N)", width="content")
        st.button("▲ Row", key="prev_row", on_click=_step, args=(False, False), shortcut="K",
                  help="previous row (key K)", width="content")
        st.button("Row ▼", key="next_row", on_click=_step, args=(False, True), shortcut="J",
                  help="next row (key J)", width="content")
        copy_link()
    slot = st.empty()
    if judged_already:  # a rerun of the side-by-side fragment (or compare mode): the providers have judged
        with slot.container():
            stop_line()
    else:
        stop_slots.append(slot)  # filled once the providers have judged (their refusals are stops too)


stop_slots: list[Any] = []


def stop_line() -> None:
    """Which stop the selection is, of how many, and what is there (engine text: plain text, never markdown)."""
    stops = _stops()
    index = st.session_state.get("_stop")
    selected = st.session_state.get("sel_row")
    if index is not None and 0 <= index < len(stops) and stops[index].row == selected:
        stop = stops[index]
        where = row_place(transcript, rows[stop.row].left, rows[stop.row].right)
        st.text(f"Problem {index + 1} of {len(stops)} · {where} · {stop.text}")
    elif stops:
        st.caption(stops_caption(stops, analysis))


def _save_upload() -> None:
    """Keep the upload under the data folder and make the address name it (`?file=uploads/...`)."""
    relative = save_upload(source.name, source.data, data_root())
    st.session_state["_url_file"] = relative
    ui.url_set("file", relative)
    ui.url_set("sample", None)
    ui.set_current(ui.Source(relative, source.data, "file"))


def copy_link() -> None:
    """The address of this view, or (an upload or a paste: its bytes are not on the server) why there is none."""
    base = str(getattr(st.context, "url", "") or "").split("?")[0]
    query = urlencode(ui.url_now())
    with st.popover("Copy link to this view", width="content"):
        if source.kind in ("upload", "paste"):
            st.warning("This transcript was uploaded (or pasted) into your browser session: it is not on the "
                       "server, so no link can open it. Download it to share it with the link's settings; "
                       "whoever opens the link uploads it again.")
            st.download_button("Download the transcript", source.data, file_name=safe_filename(source.name),
                               key="link_download", on_click="ignore")
            st.button("Save it in the server's data folder and link to it", key="link_save", on_click=_save_upload,
                      help="writes the file under uploads/ in the data folder (INTEGRITY_STORE_ROOT), so the link "
                           "opens it for anyone who can reach this server")
            st.caption("The settings alone (policy, provider, message), for after the upload:")
        st.code(f"{base}?{query}" if base else f"?{query}", language=None, wrap_lines=True)
        if source.kind not in ("upload", "paste"):
            st.caption("The link opens this transcript, policy, provider and selected message.")


@st.fragment  # keys, clicks, paging and search rerun only this part: they slice rows built once (row_cache)
def side_by_side() -> None:
    """Filters, the paged table and the detail panel: clicks rerun only this part, not the overview."""
    selected: int | None = st.session_state.get("sel_row")
    if selected is not None and selected >= len(rows):
        selected = None

    st.subheader("Durable transcript ↔ repaired view")
    st.caption(WORDS)  # our own markdown: links to the glossary, no transcript text
    small = len(rows) <= CONVERSATION_UP_TO
    shapes = {"conversation": "Conversation", "table": "Table"}
    asked_view = ui.url_get("view")
    if asked_view is not None and st.session_state.get("_url_view") != asked_view:
        st.session_state["_url_view"] = asked_view
        if asked_view in shapes:
            st.session_state["shape"] = shapes[asked_view]
        else:
            ui.report_unknown("view", asked_view, list(shapes), None)
    if st.session_state.get("shape") not in shapes.values():
        st.session_state["shape"] = "Conversation" if small else "Table"
    shape: str | None = st.segmented_control(
        "Show as", list(shapes.values()), key="shape", label_visibility="collapsed",
        help="Conversation: whole messages side by side with call→result lanes (up to "
             f"{CONVERSATION_UP_TO:,} messages). Table: one line per row, filters and search, any size.")
    if shape is not None:
        ui.url_set("view", shape.lower())
        st.session_state["_url_view"] = shape.lower()
    if shape == "Conversation" and small:
        conversation(selected)
        return
    filters = st.container(horizontal=True, gap="small", vertical_alignment="bottom")  # wraps on narrow screens
    with filters:
        problems_only = st.checkbox("Problems only", key="problems_only",
                                    help="problem rows with one row of context", width="content")
        kinds = st.multiselect("Kinds", list(PROBLEM_KINDS) + ["kept"], format_func=label, key="kinds",
                               placeholder="all kinds", width=300)
        search = st.text_input("Search text or call id", key="search", width=260)

    shown = row_cache.shown_rows(source, analysis, provider, problems_only, kinds, search)
    pages = max(1, (len(shown) + PAGE_SIZE - 1) // PAGE_SIZE)
    at = position_in(shown, selected)
    if at is not None:
        st.session_state["page"] = at // PAGE_SIZE + 1
    if st.session_state.get("page", 1) > pages:
        st.session_state["page"] = 1
    st.session_state.setdefault("page", 1)

    with filters:
        page = st.number_input(f"Page (of {pages})", min_value=1, max_value=pages, step=1, key="page", width=150)
    navigation_bar()
    st.caption(f"{len(shown):,} of {len(rows):,} rows match · {PAGE_SIZE} per page · click any cell to select "
               "its row · " + "  ".join(label(k) for k in ROW_KINDS))

    window = shown[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
    pairs = _pairs(selected)
    paired_rows: set[int] = set()
    if pairs is not None:
        assert selected is not None  # pairs are only found for a selected row
        paired_rows = {r.row for r in window if (r.left in pairs.durable) or (r.right in pairs.view)}
        paired_rows.add(selected)
    st.session_state["_window_rows"] = [r.row for r in window]

    window = ui.previewed(analysis, window)
    frame = ui.rows_frame(window, paired_rows, selected, transcript)
    st.dataframe(ui.styled_rows(frame), hide_index=True, width="stretch", column_config=ui.ROW_CONFIG,
                 on_select=_on_pick, selection_mode=["single-row", "single-cell"],
                 key=f"detail_table_{st.session_state.get('_table_nonce', 0)}",
                 height=min(max(len(window), 1), 14) * 35 + 40, row_height=35)  # room for 'empty' too

    with st.expander("Legend: what each row kind means", expanded=False):
        ui.legend()
    detail_panel(selected, pairs)


CONVERSATION_UP_TO = 3_000  # transcripts up to this many rows open in the conversation view, larger in the table
CONVERSATION_PAGE = 20


def conversation(selected: int | None) -> None:
    """Whole messages, durable left and view right, with lanes; pages of CONVERSATION_PAGE rows."""
    pages = max(1, (len(rows) + CONVERSATION_PAGE - 1) // CONVERSATION_PAGE)
    if selected is not None:
        st.session_state["conv_page"] = selected // CONVERSATION_PAGE + 1
    if st.session_state.get("conv_page", 1) > pages:
        st.session_state["conv_page"] = 1
    page = st.number_input(f"Page (of {pages})", min_value=1, max_value=pages, step=1, key="conv_page", width=150)
    navigation_bar()
    start = (page - 1) * CONVERSATION_PAGE
    render_conversation(analysis, rows, start, min(len(rows), start + CONVERSATION_PAGE), selected,
                        on_select=_select, durable_label=lambda index: native_label(transcript, index),
                        place=lambda crow: (row_place(transcript, crow.left.position, crow.right.position),
                                            other_numbers(crow.row, crow.left.position, crow.right.position)))
    with st.expander("Legend: the lanes and the row kinds", expanded=False):
        render_legend()
        ui.legend()
    detail_panel(selected, _pairs(selected))


def _pairs(selected: int | None) -> Pairs | None:
    if selected is None:
        return None
    chosen_row = rows[selected]
    index = row_cache.pairs_index(source, analysis, provider)
    return pairs_for(analysis, durable=chosen_row.left, view_position=chosen_row.right, index=index) \
        if chosen_row.left is not None else pairs_for(analysis, view_position=chosen_row.right, index=index)


def _raw(title: str, message: Any, note: str = "") -> None:
    st.markdown(title)
    if note:
        st.caption(note)
    text, cut = raw_json(message)
    ui.code_block(text, cut)


def detail_panel(selected: int | None, pairs: Pairs | None) -> None:
    """The selected row: where it went (from the report), each side as in the file, its pairing."""
    st.subheader("Selected message")
    go1, go2 = st.columns([2, 3], vertical_alignment="bottom")
    go1.text_input("Go to (where in your file, or #n / vN)", key="goto",
                   placeholder=f"e.g. {native_label(transcript, 0) if transcript.messages else 'line 1'}",
                   on_change=_on_goto, help="the place in your file as the table shows it (`line 12`, "
                   "`messages[3]`), a durable #n, or vN for the repaired view's message N")
    if st.session_state.get("_goto_missing"):
        go2.caption("no such message in this transcript")

    if selected is None:
        st.caption("Select a row above (click any cell, or use the buttons and keys N, P, J, K) to see it whole.")
        return
    row = rows[selected]
    detail = row_detail(analysis, ui.placement_for(source, analysis, provider), row)
    st.code("\n".join([f"{row_place(transcript, row.left, row.right)} · {label(row.kind)}"
                       + (f" · {row.note}" if row.note else ""),
                       *(said.text for said in detail.statements)]), language=None, wrap_lines=True)
    left, right = st.columns(2)
    with left:
        if not detail.durable:
            st.caption("No durable entry: the engine wrote this message for the view.")
        for index in detail.durable:
            _raw(f"**{native_label(transcript, index)}**: as in your file ({transcript.format})",
                 native_message(transcript, index), file_line_note(transcript, index))
            if native_message(transcript, index) != transcript.messages[index]:
                with st.expander("as the engine reads it (canonical form)"):
                    text, cut = raw_json(transcript.messages[index])
                    ui.code_block(text, cut)
    with right:
        if not detail.view:
            st.caption("Not sent to the model: the repaired view leaves it out (see above).")
        for position in detail.view:
            _raw("**Repaired view**: what the model receives (canonical form)", analysis.view[position])
    with st.expander("Other numbers of this message"):
        st.text(other_numbers(row.row, row.left, row.right)
                + "  (row: the table's line; durable #: the engine's index in the transcript; view #: the position "
                  "in the repaired view; a ?msg= link uses durable # or vN)")
    if pairs is not None and pairs.calls:
        st.markdown("**Pairing**")
        st.dataframe(pd.DataFrame(pairs.calls), hide_index=True, width="stretch")
    if row.left is not None:
        message: Any = transcript.messages[row.left]
    else:
        assert row.right is not None  # a row has a durable side, a view side or both
        message = analysis.view[row.right]
    arguments = call_arguments(message)
    if arguments:
        st.markdown("**Call arguments**")
        text, cut = raw_json(arguments)
        ui.code_block(text, cut)
    if isinstance(message, dict) and message.get("role") == "toolResult":
        st.markdown("**Result content**")
        text = neutralize(message_text(message))  # real line breaks, JSON output pretty-printed
        ui.code_block(text[:20_000], len(text) > 20_000, language=None)


side_by_side()
if not compare:
    judge()
for slot in stop_slots:
    with slot.container():
        stop_line()

# ----------------------------------------------------------------------------- what the providers say

st.subheader(f"What {provider} says" if provider else "What the providers say")
targets = verdict_ui.compiler_panel(analysis, provider, *sides())
if targets:
    t1, t2 = st.columns([3, 1], vertical_alignment="bottom")
    picked_error: str | None = t1.selectbox("Go to the row of", [name for name, _ in targets], key="error_target")
    if t2.button("Go to row", width="stretch"):
        assert picked_error is not None  # the options are never empty here, so one is always picked
        _select(dict(targets)[picked_error])
        st.rerun()
verdict_ui.curl_panel(analysis, provider)
with st.expander("Every provider, before and after repair", expanded=False):
    ui.verdict_table(analysis)

# ----------------------------------------------------------------------------- overview

st.subheader(f"Overview: all {len(rows):,} rows")
if len(rows) <= OVERVIEW_UP_TO:
    st.dataframe(ui.overview_frame(rows, analysis), hide_index=True, width="stretch", height=300,
                 column_config={"message": st.column_config.TextColumn("message", width="large")})
else:  # a grid of every row costs seconds to send and draw; the paged table filters and searches them all
    st.caption(f"At {len(rows):,} rows the paged table above is the overview: 'Problems only', 'Kinds' and "
               "the search reach every row, the page number any of them.")
if not compare:
    row_cache.warm(source, analysis, provider)  # the first selection and search then find their indexes ready
