"""The stops of "Problem ▶": every finding, every provider refusal and every repair, in the file's order.

A reviewer presses "Problem ▶" to reach what the verdict is about.  The stops are
the engine's own facts, never re-derived here: the report's findings (with the
durable messages they name), each provider's violations (`validate`'s canonical
indices: durable messages as recorded, view positions after repair) and the
report's repair actions (the rows that are not "kept").  They are ordered by
row; the first press lands on the first refusal of the target provider (the one
`check` judges the file by), since that refusal is why the verdict says what it
says; with no target (the universal invariants judge), on the first finding or
repair.  A fact about no message (a torn last line) has no row: the verdict line
shows it, the stops leave it out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from integrity import Analysis, target_provider

from .rows import Row
from .safe_text import neutralize
from .theme import label

REFUSAL, FINDING, REPAIR = "refusal", "finding", "repair"
_ORDER = {REFUSAL: 0, FINDING: 1, REPAIR: 2}


@dataclass(frozen=True)
class Stop:
    """One place "Problem ▶" visits: its row, what is there (one line of text, neutralized) and whose it is."""

    row: int
    what: str
    text: str
    provider: str | None = None
    when: str = ""
    """for a refusal: "before" (the file as recorded) or "after" (the repaired view)"""
    target: bool = False
    """a refusal by the target provider"""


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


def refusal_stops(verdicts: Mapping[str, Any], target: str | None, by_left: Mapping[int, int],
                  by_right: Mapping[int, int]) -> list[Stop]:
    """Each provider's violations as stops: as recorded at the durable message's row, after repair at the view
    message's row (a violation naming no message of either is left out)."""
    found: list[Stop] = []
    for provider, result in (verdicts or {}).items():
        for when, table, said in (("before", by_left, "as recorded"), ("after", by_right, "after repair")):
            for violation in (_field(result, when) or []) if result else []:
                rows = [table[i] for i in (_field(violation, "canonical_indices") or ()) if i in table]
                if not rows:
                    continue
                text = (f"{provider} refuses the {'file' if when == 'before' else 'repaired view'} ({said}): "
                        f"{_field(violation, 'rule')} at {_field(violation, 'position')}: {_field(violation, 'error')}")
                found.append(Stop(min(rows), REFUSAL, neutralize(text), str(provider), when, provider == target))
    return found


def finding_stops(findings: Sequence[Any], by_left: Mapping[int, int]) -> list[Stop]:
    """The report's findings at the row of the first durable message each names."""
    found: list[Stop] = []
    for finding in findings:
        rows = [by_left[i] for i in (_field(finding, "durable_indices") or ()) if i in by_left]
        if rows:
            said = finding.said if hasattr(finding, "said") else str(_field(finding, "message"))
            found.append(Stop(min(rows), FINDING, neutralize(f"finding: {said}")))
    return found


def repair_stops(rows: Sequence[Row]) -> list[Stop]:
    """The rows where the repaired view differs from the file (the report's actions other than "kept")."""
    return [Stop(row.row, REPAIR, neutralize(f"repair: {label(row.kind)}" + (f": {row.note}" if row.note else "")))
            for row in rows if row.problem]


def problem_stops(analysis: Analysis, rows: Sequence[Row], by_left: Mapping[int, int],
                  by_right: Mapping[int, int]) -> list[Stop]:
    """Every finding, provider refusal and repair of the analysis as stops, in row order (refusals first on
    a row, the target provider's before the others)."""
    target = target_provider(analysis.transcript.format, analysis.provider, analysis.transcript.model)
    stops = [*refusal_stops(analysis.verdicts, target, by_left, by_right),
             *finding_stops(analysis.report.findings, by_left), *repair_stops(rows)]
    return sorted(stops, key=lambda s: (s.row, _ORDER[s.what], not s.target, s.when != "before", s.provider or ""))


def stops_caption(stops: Sequence[Stop], analysis: Analysis) -> str:
    """The line under the navigation bar before a stop is visited: how many stops there are, and how many of them
    are refusals by providers the verdict is not judged by.  A file its target accepts may still hold a dozen of
    those (calls without ids, which other providers refuse): said, so that "healthy" above and a dozen problems
    here do not read as two answers."""
    said = f"{len(stops)} problem(s) to visit with Problem ▶: findings, provider refusals and repairs"
    others = sum(1 for stop in stops if stop.what == REFUSAL and not stop.target)
    if not others:
        return said + "."
    target = target_provider(analysis.transcript.format, analysis.provider, analysis.transcript.model)
    if target is None:
        return (f"{said} ({others} of them refusals by providers, shown for information: no provider is the "
                f"target, so the universal invariants decide the verdict).")
    return (f"{said} ({others} of them refusals by providers other than {target}, shown for information: the "
            f"verdict is {target}'s).")


def first_stop(stops: Sequence[Stop]) -> int:
    """Where the first press lands: what the verdict is judged by first.  The target provider's first refusal
    of the file as recorded, else of the repaired view; without one (no target: the universal invariants
    decide) the first finding, else the first repair; else the first stop (another provider's refusal)."""
    for wanted in (lambda s: s.target and s.when == "before", lambda s: s.target and s.when == "after",
                   lambda s: s.what == FINDING, lambda s: s.what == REPAIR):
        for index, stop in enumerate(stops):
            if wanted(stop):
                return index
    return 0


def next_stop(stops: Sequence[Stop], current: int | None, selected_row: int | None, forward: bool = True) -> int:
    """The stop to visit next (wrapping around): from the current stop when its row is still selected, else
    from the selected row (forward: its own stops first, none visited yet), else the first stop.  `stops`
    must not be empty."""
    total = len(stops)
    if current is not None and 0 <= current < total and stops[current].row == selected_row:
        return (current + (1 if forward else -1)) % total
    if selected_row is None:
        return first_stop(stops)
    if forward:
        return next((n for n, stop in enumerate(stops) if stop.row >= selected_row), 0)
    return next((n for n in range(total - 1, -1, -1) if stops[n].row < selected_row), total - 1)
