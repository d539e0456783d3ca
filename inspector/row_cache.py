"""What the Inspector's table reads on every key press, built once per analysis and kept.

A key press, a click, a page change or a search re-runs only the side-by-side
part of the page (a Streamlit fragment), and that part must only slice rows
built before: the analysis, its rows (inspector.ui), the pairing index that
answers "what is this row paired with", and the lowercased text of every row that
a search reads are each built once per (file digest, transcript, policy,
provider) and kept in Streamlit's resource cache, like inspector.ui's caches.
What a filter returns is kept too (the last few), so paging through the rows of
one search never filters again.  Everything kept is shared by every session:
nothing here changes a kept object.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import streamlit as st

from integrity import POLICIES, Analysis

from .rows import PairIndex, Row, filter_rows, pair_index, search_index
from .ui import Source, _analyze, cache_name, placement_for, rows_for, searchable_rows
from .ui import _settled as settled  # kept objects out of the collector's rescans


@st.cache_resource(max_entries=8, show_spinner=False)
def _pair_index(digest: str, name: str, policy: str, provider: str | None, _analysis: Analysis) -> PairIndex:
    return settled(pair_index(_analysis))


def pairs_index(source: Source, analysis: Analysis, provider: str | None) -> PairIndex:
    """The analysis's PairIndex (for inspector.rows.pairs_for), built once."""
    return _pair_index(source.digest, cache_name(source, analysis.transcript), analysis.policy, provider, analysis)


@st.cache_resource(max_entries=4, show_spinner=False)
def _search(digest: str, name: str, policy: str, provider: str | None, _source: Source,
            _analysis: Analysis) -> tuple[list[Row], list[str]]:
    rows = searchable_rows(_source, _analysis, provider)
    return settled((rows, search_index(rows)))


def searched(source: Source, analysis: Analysis, provider: str | None) -> tuple[list[Row], list[str]]:
    """Every row with its text, and each row's lowercased search text (inspector.rows.search_index)."""
    return _search(source.digest, cache_name(source, analysis.transcript), analysis.policy, provider, source,
                   analysis)


WARM_ABOVE = 20_000
"""Rows above which the page builds its indexes in the background: below, each takes a few hundredths of a
second when first asked for, less than a background thread would take from the page's own runs."""
WARM_AFTER = 0.3
"""Seconds the background build waits: the page's last elements go to the browser first (they need the GIL)."""


def _build(source: Source, analysis: Analysis, provider: str | None) -> None:
    time.sleep(WARM_AFTER)
    pairs_index(source, analysis, provider)
    placement_for(source, analysis, provider)
    searched(source, analysis, provider)
    for policy in POLICIES:  # a policy switch then finds its analysis and rows made
        if policy != analysis.policy:
            try:
                rows_for(source, _analyze(source.digest, cache_name(source, analysis.transcript), policy, provider,
                                          analysis.transcript), provider)
            except Exception:  # noqa: BLE001, S112 - the switch itself will show this policy's failure
                continue


def warm(source: Source, analysis: Analysis, provider: str | None) -> None:
    """Build what the next clicks read, in the background once the page is drawn.

    The first selected row reads the pairing index and the durable <-> view mapping; the first search
    reads every row's text, which a large transcript's rows are built without
    (inspector.ui.PREVIEW_ALL_UP_TO: a few tenths of a second at 100,000 messages); a policy switch reads
    the other policy's analysis and rows (about a second at 100,000).  All are kept in the same caches
    the page reads, whose per-key lock makes a click that comes first wait for the build in progress,
    never build it twice; once built, this is a few cache hits.
    """
    if len(rows_for(source, analysis, provider)) > WARM_ABOVE:
        threading.Thread(target=_build, args=(source, analysis, provider), daemon=True,
                         name="inspector-warm").start()


@st.cache_resource(max_entries=16, show_spinner=False)
def _shown(digest: str, name: str, policy: str, provider: str | None, problems_only: bool,
           kinds: tuple[str, ...], needle: str, _rows: Sequence[Row], _index: Sequence[str] | None) -> list[Row]:
    return filter_rows(_rows, problems_only=problems_only, kinds=kinds, search=needle, index=_index)


def shown_rows(source: Source, analysis: Analysis, provider: str | None, problems_only: bool = False,
               kinds: Sequence[str] = (), search: str = "") -> Sequence[Row]:
    """The rows a user asked to see (inspector.rows.filter_rows), from the kept rows and index.

    With no filter it is the kept rows themselves (no copy); a search reads the kept search index.
    """
    rows = rows_for(source, analysis, provider)
    needle = search.strip().lower()
    if not problems_only and not kinds and not needle:
        return rows
    index: list[str] | None = None
    if needle:
        rows, index = searched(source, analysis, provider)
    return _shown(source.digest, cache_name(source, analysis.transcript), analysis.policy, provider,
                  problems_only, tuple(sorted(kinds)), needle, rows, index)
