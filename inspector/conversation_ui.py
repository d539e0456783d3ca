"""Draw the conversation view in Streamlit: two row-aligned columns with lane gutters, badges and folds.

The data comes from inspector.conversation; this module only lays it out.
Transcript text is untrusted: bodies, titles, notes and diffs are drawn with
st.code and st.text, which show text literally (never st.markdown or HTML), and
they were neutralized when the rows were built.  Badge labels and expander
titles are our own words (registry names, counts).  The lane gutter is a
monospace code block beside each body: its first line carries the row's glyphs
and each further line the lanes that continue below, so a lane reads as a line
down the page.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from integrity import Analysis, Severity, facts

from .conversation import GLYPHS, Body, ConversationRow, Side, conversation_rows
from .rows import Row

_BADGE_COLOURS: dict[Severity, Any] = {
    Severity.INFO: "gray",
    Severity.NORMALIZED: "blue",
    Severity.LOSSY: "orange",
    Severity.REJECTED: "red",
    Severity.MALFORMED: "violet",
}
_GUTTER_CHAR_PX = 9
_GUTTER_PAD_PX = 34


def _gutter_text(side: Side, lines: int) -> str:
    """The glyph line, then one `through` line per further body line (capped: a gutter never outgrows its body)."""
    gutter = side.gutter
    return "\n".join([gutter.line or " "] + [gutter.through] * max(0, lines - 1))


def _gutter(where: Any, side: Side, lines: int, width: int) -> None:
    """The lane gutter beside a body; a row no lane touches gets a blank spacer (cheaper than a code block)."""
    if width == 0:  # no lane anywhere in this window's column: no gutter
        return
    pixels = _GUTTER_PAD_PX + _GUTTER_CHAR_PX * width
    if not side.gutter.line.strip() and not side.gutter.through.strip():
        where.text("", width=pixels)
        return
    where.code(_gutter_text(side, lines), language=None, width=pixels)


def _lines(body: Body | None) -> int:
    return min(60, body.head.count("\n") + 1) if body is not None else 1


def _body(where: Any, body: Body, key: str) -> None:
    where.code(body.head, language=None, wrap_lines=True)
    if body.rest:
        more = where.expander(f"show more ({body.rest_lines} more line{'s' if body.rest_lines != 1 else ''})",
                              key=key)
        more.code(body.rest, language=None, wrap_lines=True)
    if body.cut:
        where.text(f"({body.cut:,} more characters not shown: see the raw message or download the transcript)")


def _side(where: Any, side: Side, width: int, key: str) -> None:
    """One half of a row: title, then the gutter beside the body."""
    if side.body is not None:
        where.text(side.title)
    line = where.container(horizontal=True, gap="small")
    _gutter(line, side, _lines(side.body), width)
    box = line.container(width="stretch")
    if side.body is None:
        box.text(side.placeholder)
    else:
        _body(box, side.body, key)


def _comparison(where: Any, crow: ConversationRow, width: int) -> None:
    """The view half of a dropped duplicate's row: which result was kept, why, and how the two differ."""
    found = crow.comparison
    assert found is not None
    line = where.container(horizontal=True, gap="small")
    _gutter(line, crow.right, 1, width)
    box = line.container(width="stretch")
    box.text(found.headline)
    box.text(f"Why: {found.reason}")
    if found.identical:
        box.text("The two bodies are identical.")
    elif found.diff:
        box.text(f"Difference (- kept #{found.kept}, + dropped #{found.dropped}):")
        box.code(found.diff, language="diff", wrap_lines=True)


Place = Callable[[ConversationRow], tuple[str, str]]
"""(what the row's header says, the other numbers for its tooltip): the page passes the file's own position."""


def other_numbers(crow: ConversationRow) -> str:
    """The numbers besides the file's position, shown on demand: row, durable # and view #."""
    parts = [f"row {crow.row}"]
    if crow.left.position is not None:
        parts.append(f"durable #{crow.left.position}")
    parts.append(f"view #{crow.right.position}" if crow.right.position is not None else "not in the view")
    return " · ".join(parts)


def _default_place(crow: ConversationRow) -> tuple[str, str]:
    return f"row {crow.row}", other_numbers(crow)


_VIEW_NUMBER = re.compile(r"^view #\d+ · ")
_SAME_DURABLE = re.compile(r" · durable #\d+$")


def view_title(side: Side) -> str:
    """The view side's title without its numbers (the header names the message; its tooltip has view #n)."""
    return _SAME_DURABLE.sub("", _VIEW_NUMBER.sub("sent as: ", side.title))


def _header(where: Any, crow: ConversationRow, selected: bool, on_select: Callable[[int], Any] | None,
            place: Place = _default_place) -> None:
    bar = where.container(horizontal=True, gap="small", vertical_alignment="center")
    text, numbers = place(crow)
    if on_select is not None:
        bar.button(f"{'● ' if selected else ''}{text}", key=f"conversation-select-{crow.row}",
                   type="primary" if selected else "secondary", on_click=on_select, args=(crow.row,),
                   help=f"select it · {numbers}")
    else:
        bar.text(f"{'● ' if selected else ''}{text}", help=numbers)
    for found in crow.badges:
        bar.badge(found.label, color=_BADGE_COLOURS.get(facts(found.kind).severity, "gray"))
    if crow.note:
        bar.text(crow.note)


def render_row(crow: ConversationRow, widths: tuple[int, int], selected: bool = False,
               on_select: Callable[[int], Any] | None = None, place: Place = _default_place) -> None:
    """One conversation row in a bordered box: header (where, badges, note), then durable | view."""
    with st.container(border=True, key=f"conversation-row-{crow.row}"):
        _header(st, crow, selected, on_select, place)
        left, right = st.columns(2, gap="medium")
        _side(left, crow.left, widths[0], f"conversation-more-l-{crow.row}")
        if crow.comparison is not None:
            _comparison(right, crow, widths[1])
        else:
            _side(right, dataclasses.replace(crow.right, title=view_title(crow.right)), widths[1],
                  f"conversation-more-r-{crow.row}")


def render_legend(where: Any = None) -> None:
    """What the gutter glyphs mean (our own text)."""
    target = where or st
    target.text("Lanes:  " + "   ".join(f"{glyph} {meaning}" for glyph, meaning in GLYPHS.items()))


def render_conversation(
    analysis: Analysis,
    rows: Sequence[Row],
    start: int,
    stop: int,
    selected_row: int | None = None,
    on_select: Callable[[int], Any] | None = None,
    durable_label: Callable[[int], str] | None = None,
    place: Place = _default_place,
) -> list[ConversationRow]:
    """Draw rows[start:stop] as the conversation view; returns the rows drawn (plain data).

    on_select(row number) is called (as a button callback) when the user picks a
    row; selected_row is marked.  Meant for windows of up to about 100 rows.
    durable_label names a durable message (default "durable #i"; the page passes
    the native position first); place names each row in its header, the other
    numbers in its tooltip (default: the row number).
    """
    page = conversation_rows(analysis, rows, start, stop, durable_label=durable_label)
    if not page:
        st.text("No rows to show.")
        return page
    widths = (max(len(crow.left.gutter.line) for crow in page), max(len(crow.right.gutter.line) for crow in page))
    left, right = st.columns(2, gap="medium")
    left.text("Durable transcript (as recorded)")
    right.text("Repaired view (what the provider is sent)")
    for crow in page:
        render_row(crow, widths, crow.row == selected_row, on_select, place)
    return page
