"""Triage many transcripts at once: one summary row per file and defect totals.

A file that cannot be read (or that fails in any other way) becomes a row with
its one-line error instead of stopping the batch, so a folder with one broken
file still gets triaged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from inspector.safe_text import without_paths
from integrity import (
    DEFAULT_POLICY,
    MARKS,
    PROVIDERS,
    REPAIR_KINDS,
    Mark,
    TranscriptError,
    analyze,
    load,
    provider_verdict,
)

DEFECT_COLUMNS: tuple[tuple[str, str], ...] = (
    (MARKS[Mark.ORPHANED_CALL].summary_field or "", MARKS[Mark.ORPHANED_CALL].name),
    *((facts.summary_field, facts.name) for facts in REPAIR_KINDS.values() if facts.summary_field),
    (MARKS[Mark.STRAY].summary_field or "", MARKS[Mark.STRAY].name),
    (MARKS[Mark.FINDING].summary_field or "", MARKS[Mark.FINDING].name + "s"),
)
"""(report summary field, column name) for each defect count the batch table shows (names from the registry)."""


VERDICTS_UP_TO = 3_000
"""Per-provider verdicts are computed for files up to this many messages (validation is the slow part)."""


def summarize(name: str, data: bytes, policy: str = DEFAULT_POLICY,
              verdicts_up_to: int = VERDICTS_UP_TO) -> dict[str, Any]:
    """One row for one file: format, sizes, defect counts, verdict, per-provider verdicts or the error."""
    row: dict[str, Any] = {"file": name, "format": "", "messages": 0, "calls": 0}
    for _, column in DEFECT_COLUMNS:
        row[column] = 0
    try:
        transcript = load(data, name)
        analysis = analyze(transcript, policy)
    except TranscriptError as error:
        row.update(status="unreadable", verdict=str(error))
        return row
    except Exception as error:  # noqa: BLE001 - one bad file is one error row; the batch goes on
        message = without_paths(str(error).strip().splitlines()[0][:300]) if str(error).strip() else ""
        row.update(status="unreadable", verdict=f"{name}: {type(error).__name__}" + (f": {message}" if message else ""))
        return row
    try:
        verdicts = provider_verdicts(analysis) if len(transcript.messages) <= verdicts_up_to else {}
    except Exception as error:  # noqa: BLE001 - the file was read: keep its row, say why verdicts are missing
        verdicts = {}
        row["providers rejecting"] = f"not checked: {type(error).__name__}"
    summary = analysis.report.summary
    row["format"] = transcript.format
    row["messages"] = summary.messages
    row["calls"] = summary.calls
    for field, column in DEFECT_COLUMNS:
        row[column] = getattr(summary, field)
    report = analysis.report
    row["status"] = "healthy" if report.healthy else ("repaired" if report.changed else "findings")
    row["verdict"] = report.verdict
    if verdicts:
        row["providers rejecting"] = (
            f"{sum(1 for r in verdicts.values() if r.get('before'))} → "
            f"{sum(1 for r in verdicts.values() if r.get('after'))} of {len(verdicts)}")
    for provider, result in sorted(verdicts.items()):
        before = len((result or {}).get("before") or [])
        after = len((result or {}).get("after") or [])
        row[f"{provider} before"] = "accepted" if not before else f"rejected ({before})"
        row[f"{provider} after"] = "accepted" if not after else f"rejected ({after})"
    return row


def provider_verdicts(analysis: Any) -> dict[str, Any]:
    """Every provider's before/after violations for one analysis."""
    return {name: provider_verdict(analysis, name) for name in PROVIDERS}


def defect_totals(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Sum of every defect column across the batch (for the chart of defect kinds)."""
    totals = {column: 0 for _, column in DEFECT_COLUMNS}
    for row in rows:
        for column in totals:
            value = row.get(column) or 0
            totals[column] += int(value)
    return totals
