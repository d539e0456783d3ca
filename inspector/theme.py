"""How each kind looks: an icon and a colour next to the registry's name, never colour alone.

Names, meanings, icons and colours come from the kind registry (integrity.kinds KindFacts); this
module turns them into labels and cell styles.  A row kind (a repair kind or a mark) without an icon
fails at import, naming the kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from integrity import MARKS, REPAIR_KINDS, Mark, RepairKind, facts
from integrity.kinds import summary_counts


@dataclass(frozen=True)
class Style:
    """The look of one kind on a row, in the legend and in filters (read from its KindFacts)."""

    icon: str
    colour: str


def _style(kind: str) -> Style:
    found = facts(kind)
    if not found.icon:
        raise ValueError(f"row kind {kind!r} has no icon in the kind registry (integrity.kinds KindFacts.icon)")
    return Style(found.icon, found.colour)


STYLES: dict[str, Style] = {kind.value: _style(kind.value) for table in (REPAIR_KINDS, MARKS) for kind in table}
"""Every row kind: each RepairKind and each Mark, by its string value, as its registry row says it looks."""

ROW_KINDS: tuple[str, ...] = tuple(kind.value for kind in REPAIR_KINDS) + tuple(mark.value for mark in MARKS)
PROBLEM_KINDS: tuple[str, ...] = tuple(kind for kind in ROW_KINDS if kind != RepairKind.KEPT.value)
STRIKE = "\u0336"


def strike(text: str) -> str:
    """Struck-through text made of combining characters, so it survives any plain-text renderer."""
    return "".join(ch + STRIKE for ch in text)


def id_text(call_id: Any) -> str:
    """A call id as every screen writes it: an empty one (Gemini's calls may have none) as "(no id)"."""
    return "(no id)" if call_id == "" else str(call_id)


def visible_prefix(text: str, limit: int) -> str:
    """The first `limit` characters a reader sees: a struck-through text carries a combining mark after each
    of them, so cutting it by length alone showed half as much of a dropped message as of any other."""
    return text[: 2 * limit] if STRIKE in text else text[:limit]


def label(kind: str) -> str:
    """'icon name' for a kind, the text every row and legend entry shows."""
    return f"{_style(kind).icon} {facts(kind).name}"


def meaning(kind: str) -> str:
    """The registry's description of a kind (the legend and the glossary)."""
    return facts(kind).description


def colour(kind: str) -> str:
    """The kind's background colour ("" for none), from its registry row."""
    return _style(kind).colour


_HEADLINE = (Mark.ORPHANED_CALL, RepairKind.DROPPED_DUPLICATE, RepairKind.MOVED,
             RepairKind.DROPPED_INTERRUPTED_FRAME, RepairKind.SYNTHESIZED, Mark.STRAY)
"""The counts a header always shows, even at zero (any other count shows when it is not zero)."""

SUMMARY_METRICS: tuple[tuple[str, str], ...] = (
    ("messages", "messages"), ("calls", "calls"),
    *((str(facts(kind).summary_field), facts(kind).name) for kind in _HEADLINE),
)
"""(summary field, label) for the header metrics; labels are the registry's names."""


def summary_metrics(summary: Any, first: Sequence[tuple[str, str]] = (),
                    last: Sequence[tuple[str, str]] = ()) -> list[tuple[str, int]]:
    """(label, count) for a header: `first`, the core counts (SUMMARY_METRICS) always, then every other count
    the registry keeps that this summary has (reordered, renamed ids, merged, ...), then `last`; so a change
    the verdict names always has its number beside it.  first/last: extra (summary field, label) pairs."""
    fields = list(first)
    taken = {field for field, _ in (*first, *last)}
    for field, name in SUMMARY_METRICS:
        if field not in taken:
            fields.append((field, name))
            taken.add(field)
    for counted, name in summary_counts():
        if counted not in taken and getattr(summary, counted, None):
            fields.append((counted, name))
            taken.add(counted)
    return [(name, getattr(summary, field)) for field, name in (*fields, *last)]
