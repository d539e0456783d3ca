"""What the detail panel says about a selected row, as checkable statements.

Each sentence the Inspector shows about where a message went ("sent at view #3",
"not sent to the model", "exists only in the view") is built here from the
report's one durable <-> view mapping (`integrity.view_placement`), never from
which side of a table row happens to be filled: a moved result is on the left
of one row and the right of another, and both rows must tell the same truth.
Statements carry the indices they are about, so a test can check every one of
them against the report.
"""

from __future__ import annotations

from dataclasses import dataclass

from integrity import Analysis, Placement, RepairKind, facts
from integrity.formats import read_otherwise

from .positions import durable_label
from .rows import Row
from .safe_text import neutralize


@dataclass(frozen=True)
class Statement:
    """One sentence of the detail panel and the facts it claims.

    what: "sent" (durable -> view positions), "not_sent" (durable message absent
    from the view), "made_of" (view position <- durable messages), "only_in_view"
    (view position with no durable source), "kept_instead" (the result kept in
    place of a dropped duplicate) or "read_otherwise" (the file holds more than the
    engine reads: an answer the runtime never sends, integrity.formats.read_otherwise).
    """

    what: str
    text: str
    durable: tuple[int, ...] = ()
    view: tuple[int, ...] = ()


@dataclass(frozen=True)
class Detail:
    """The durable messages and view messages to show for a row, and what to say about them."""

    durable: tuple[int, ...]
    view: tuple[int, ...]
    statements: tuple[Statement, ...]


def _positions(view: tuple[int, ...]) -> str:
    return " and ".join(f"view #{p}" for p in view)


def _durable_statements(analysis: Analysis, where: Placement, row: Row, index: int) -> list[Statement]:
    transcript = analysis.transcript
    action = analysis.report.actions[index]
    view = where.in_view(index)
    name = durable_label(transcript, index)
    if not view:
        kind = facts(action.kind).name if action.kind != RepairKind.KEPT else "not sent"
        said = [Statement("not_sent", f"{name} is not sent to the model ({kind}): {action.reason}".rstrip(": "),
                          (index,))]
        kept = action.kept_instead
        if action.kind == RepairKind.DROPPED_DUPLICATE and kept is not None:
            sent = where.in_view(kept)
            at = f", sent at {_positions(sent)}" if sent else ""
            said.append(Statement("kept_instead", f"The result kept instead is {durable_label(transcript, kept)}{at}.",
                                  (kept,), sent))
        return said
    together = [m for p in view for m in where.sources(p) if m != index]
    if row.right in view and len(view) == 1:
        text = f"{name} is sent to the model at {_positions(view)}, on this row."
    elif action.kind in (RepairKind.MOVED, RepairKind.REORDERED):
        text = f"{name} is moved: it is sent at {_positions(view)}, shown on its own row."
    else:
        text = f"{name} is sent at {_positions(view)}."
    if together:
        text += " It is merged there with " + ", ".join(f"#{m}" for m in together) + "."
    return [Statement("sent", text, (index,), view)]


def row_detail(analysis: Analysis, where: Placement, row: Row) -> Detail:
    """What to show and say for one row (both ends of a moved message, whichever row was picked)."""
    if row.left is not None:
        view = where.in_view(row.left)
        said = _durable_statements(analysis, where, row, row.left)
        held = read_otherwise(analysis.transcript, row.left)
        if held is not None:  # the reader reads it as its runtime sends it: say so beside the file's entry
            said.append(Statement("read_otherwise", f"{durable_label(analysis.transcript, row.left)}: "
                                  f"{neutralize(held[1])}.", (row.left,)))
        return Detail((row.left,), view, tuple(said))
    position = row.right if row.right is not None else -1
    sources = where.sources(position)
    if not sources:
        kind = facts(RepairKind(row.kind)).name if row.kind in RepairKind._value2member_map_ else row.kind
        text = f"View #{position} exists only in the view: the engine wrote it ({kind}); no durable entry holds it."
        return Detail((), (position,), (Statement("only_in_view", text, (), (position,)),))
    names = ", ".join(durable_label(analysis.transcript, s) for s in sources)
    verb = "is made of" if len(sources) > 1 else "is"
    text = f"View #{position} {verb} durable {names}" + (f": {neutralize(row.note)}." if row.note else ".")
    return Detail(sources, (position,), (Statement("made_of", text, sources, (position,)),))
