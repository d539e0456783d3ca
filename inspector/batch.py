"""Triage many transcripts at once: one summary row per file and defect totals.

A file that cannot be read becomes a row with its one-line error instead of
stopping the batch, so a folder with one broken file still gets triaged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .analysis import DEFAULT_POLICY, analyze, load
from .loading import TranscriptError

DEFECT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("orphaned_calls", "orphans"),
    ("duplicates_dropped", "duplicates"),
    ("moved", "moved"),
    ("frames_dropped", "dropped frames"),
    ("strays_dropped", "strays dropped"),
    ("synthesized", "synthesized"),
    ("strays", "strays"),
    ("findings", "findings"),
)
"""(report summary field, column name) for each defect count the batch table shows."""


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
        if len(transcript.messages) <= verdicts_up_to:
            analysis.verdicts = provider_verdicts(analysis)
    except TranscriptError as error:
        row.update(status="unreadable", verdict=str(error))
        return row
    summary = analysis.report.summary
    row["format"] = getattr(transcript, "format", "")
    row["messages"] = summary.messages
    row["calls"] = summary.calls
    for field, column in DEFECT_COLUMNS:
        row[column] = getattr(summary, field)
    report = analysis.report
    row["status"] = "healthy" if report.healthy else ("repaired" if report.changed else "findings")
    row["verdict"] = report.verdict
    if analysis.verdicts:
        row["providers rejecting"] = (
            f"{sum(1 for r in analysis.verdicts.values() if (r or {}).get('before'))} → "
            f"{sum(1 for r in analysis.verdicts.values() if (r or {}).get('after'))} of {len(analysis.verdicts)}")
    for provider, result in sorted((analysis.verdicts or {}).items()):
        before = len((result or {}).get("before") or [])
        after = len((result or {}).get("after") or [])
        row[f"{provider} before"] = "accepted" if not before else f"rejected ({before})"
        row[f"{provider} after"] = "accepted" if not after else f"rejected ({after})"
    return row


def provider_verdicts(analysis: Any) -> dict[str, Any]:
    """Every provider's before/after violations through the facade, when this engine build has them."""
    from . import analysis as facade

    try:
        from .providers import PROVIDERS
    except ImportError:
        return {}
    if hasattr(facade, "provider_verdict"):
        return {name: facade.provider_verdict(analysis, name) for name in PROVIDERS}
    return {}


def defect_totals(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Sum of every defect column across the batch (for the chart of defect kinds)."""
    totals = {column: 0 for _, column in DEFECT_COLUMNS}
    for row in rows:
        for column in totals:
            value = row.get(column) or 0
            totals[column] += int(value)
    return totals
