"""How each kind looks: an icon and a colour next to the registry's name, never colour alone.

Names and meanings come from the kind registry (integrity.kinds); this module
adds only what is visual.  tests/test_kinds.py fails when a kind has no style.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from integrity import MARKS, REPAIR_KINDS, Mark, RepairKind, facts
from integrity.kinds import summary_counts


@dataclass(frozen=True)
class Style:
    """The look of one kind on a row, in the legend and in filters."""

    icon: str
    colour: str


STYLES: dict[str, Style] = {
    RepairKind.KEPT.value: Style("·", ""),
    RepairKind.MOVED.value: Style("↪", "#dbeafe"),
    RepairKind.REORDERED.value: Style("⇅", "#eff6ff"),
    RepairKind.DROPPED_DUPLICATE.value: Style("⊘", "#fee2e2"),
    RepairKind.DROPPED_INTERRUPTED_FRAME.value: Style("⊖", "#e5e7eb"),
    RepairKind.DROPPED_STRAY.value: Style("✖", "#fecaca"),
    RepairKind.SYNTHESIZED.value: Style("✚", "#dcfce7"),
    RepairKind.MERGED.value: Style("⊕", "#cffafe"),
    RepairKind.SYNTHESIZED_TURN.value: Style("✚", "#d1fae5"),
    RepairKind.RENAMED.value: Style("✎", "#e0e7ff"),
    RepairKind.SHARED.value: Style("⇉", "#ede9fe"),
    RepairKind.REPAIRED_ARGUMENTS.value: Style("{}", "#fae8ff"),
    Mark.ORPHANED_CALL.value: Style("☐", "#fef3c7"),
    Mark.STRAY.value: Style("⚠", "#ffedd5"),
    Mark.FINDING.value: Style("⚑", "#fef9c3"),
}
"""Every row kind: each RepairKind and each Mark, by its string value."""

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
    return f"{STYLES[kind].icon} {facts(kind).name}"


def meaning(kind: str) -> str:
    """The registry's description of a kind (the legend and the glossary)."""
    return facts(kind).description


def colour(kind: str) -> str:
    return STYLES[kind].colour


SUMMARY_METRICS: tuple[tuple[str, str], ...] = (
    ("messages", "messages"),
    ("calls", "calls"),
    ("orphaned_calls", facts(Mark.ORPHANED_CALL).name),
    ("duplicates_dropped", facts(RepairKind.DROPPED_DUPLICATE).name),
    ("moved", facts(RepairKind.MOVED).name),
    ("frames_dropped", facts(RepairKind.DROPPED_INTERRUPTED_FRAME).name),
    ("synthesized", facts(RepairKind.SYNTHESIZED).name),
    ("strays", facts(Mark.STRAY).name),
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
