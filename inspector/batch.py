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
    judged_by_providers,
    load_all,
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


def summarize_all(name: str, data: bytes, policy: str = DEFAULT_POLICY,
                  verdicts_up_to: int = VERDICTS_UP_TO) -> list[dict[str, Any]]:
    """One row per transcript of a file (an eval log's samples, a session's threads: "file#name"),
    or one row with the file's error; abandoned branches are listed, not judged."""
    try:
        transcripts = load_all(data, name)
    except Exception as error:  # noqa: BLE001 - one bad file is one error row; the batch goes on
        return [_row(name, None, policy, verdicts_up_to, error)]
    if len(transcripts) == 1:
        return [_row(name, transcripts[0], policy, verdicts_up_to)]
    return [_row(f"{name}#{t.name}", t, policy, verdicts_up_to) for t in transcripts]


def _row(name: str, transcript: Any, policy: str, verdicts_up_to: int, failure: Exception | None = None
         ) -> dict[str, Any]:
    """One row: format, sizes, defect counts, verdict, per-provider verdicts, or the error."""
    row: dict[str, Any] = {"file": name, "format": "", "messages": 0, "calls": 0}
    for _, column in DEFECT_COLUMNS:
        row[column] = 0
    if transcript is not None and not transcript.checked:
        row.update(format=transcript.format, messages=len(transcript.messages), status="abandoned branch",
                   verdict="a rewind left it: never sent to the model again, so not checked")
        return row
    try:
        if failure is not None:
            raise failure
        analysis = analyze(transcript, policy)
    except TranscriptError as error:
        row.update(status="unreadable", verdict=str(error))
        return row
    except Exception as error:  # noqa: BLE001 - one bad file is one error row; the batch goes on
        message = without_paths(str(error).strip().splitlines()[0][:300]) if str(error).strip() else ""
        row.update(status="unreadable", verdict=f"{name}: {type(error).__name__}" + (f": {message}" if message else ""))
        return row
    verdicts: dict[str, Any] = {}
    try:
        if len(transcript.messages) <= verdicts_up_to:  # verdicts, and the report rated by them as check does
            analysis = judged_by_providers(analysis, PROVIDERS)
            verdicts = analysis.verdicts
    except Exception as error:  # noqa: BLE001 - the file was read: keep its row, say why verdicts are missing
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


def defect_totals(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Sum of every defect column across the batch (for the chart of defect kinds)."""
    totals = {column: 0 for _, column in DEFECT_COLUMNS}
    for row in rows:
        for column in totals:
            value = row.get(column) or 0
            totals[column] += int(value)
    return totals
