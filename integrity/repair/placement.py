"""Where each durable message is in the repaired view, and where each view message comes from.

Every screen that says "moved to view #3", "not in the view" or "exists only in
the view" must say what the report says.  This is the one mapping they read: it
is derived from the report's `view` (the list of what is actually sent, so it
cannot disagree with the repaired transcript) and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._bulk.gc_pause import without_gc

if TYPE_CHECKING:
    from ..report import RepairReport

_NOWHERE: tuple[int, ...] = ()


@dataclass(frozen=True)
class Placement:
    """Both directions of the durable <-> view mapping of one report.

    `view_of[i]`: the view positions durable message i is sent at (empty: it is not
    in the view; several: a result shared by a reused call id).  `durable_of[p]`:
    the durable messages view position p is made of (empty: the engine wrote it, a
    receipt or a turn; several: results merged into one message).
    """

    view_of: tuple[tuple[int, ...], ...]
    durable_of: tuple[tuple[int, ...], ...]

    def in_view(self, durable: int) -> tuple[int, ...]:
        """View positions of a durable message (empty when it is not sent)."""
        return self.view_of[durable] if 0 <= durable < len(self.view_of) else _NOWHERE

    def sources(self, position: int) -> tuple[int, ...]:
        """Durable messages a view message is made of (empty when the engine wrote it)."""
        return self.durable_of[position] if 0 <= position < len(self.durable_of) else _NOWHERE

    def only_in_view(self, position: int) -> bool:
        """True when the view message at `position` has no durable source (synthesized)."""
        return not self.sources(position)


@without_gc  # new lists for 100,000 messages would make the collector rescan the caller's transcript
def view_placement(report: RepairReport) -> Placement:
    """The durable <-> view mapping of a report, from its view entries (O(messages + view))."""
    view_of: list[list[int]] = [[] for _ in report.actions]
    durable_of: list[tuple[int, ...]] = []
    for position, entry in enumerate(report.view):
        source = entry.source
        if source == "durable":
            members: tuple[int, ...] = (entry.index,)  # type: ignore[union-attr]
        elif source == "merged":
            members = tuple(entry.members)  # type: ignore[union-attr]
        else:
            members = _NOWHERE
        durable_of.append(members)
        for member in members:
            if 0 <= member < len(view_of):
                view_of[member].append(position)
    return Placement(tuple(tuple(positions) for positions in view_of), tuple(durable_of))
