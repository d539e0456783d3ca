"""Triage many transcripts at once: one summary row per file and defect totals.

A file that cannot be read (or that fails in any other way) becomes a row with
its one-line error instead of stopping the batch, so a folder with one broken
file still gets triaged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from inspector.report_view import violation_text
from inspector.safe_text import without_paths
from integrity import DEFAULT_POLICY, TranscriptError, load_all
from integrity.kinds import summary_counts
from integrity.naming import runtime_results_said
from integrity.pipeline import (
    ALL_PROVIDERS,
    ProviderVerdict,
    Status,
    check,
    target_provider,
    unjudged,
    unjudged_verdict,
)

DEFECT_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (field, label + "s" if field == "findings" else label) for field, label in summary_counts())
"""(report summary field, column name) for each defect count the batch table shows (names from the registry)."""


VERDICTS_UP_TO = 3_000
"""Per-provider verdicts are computed for files up to this many messages (validation is the slow part)."""

UNIVERSAL = "the universal invariants"
"""What 'safe to send to' says for a file no single provider reads (pi-ai, LangChain, ...) when none is picked:
no provider is the target (integrity.target_provider), so the invariants every provider shares decide; what
the providers say is information (the 'all providers' column)."""

RUNTIME_SENDS = "its runtime sends"
"""The column saying what `check` says on its third line: the results the file's runtime adds as it sends the
session (integrity.naming.runtime_results_said), why a provider takes a call no result of the file answers."""

REJECTED_STATUS = str(Status.REJECTED_AS_RECORDED)
"""The status of a file the repair finds nothing to change in, which the provider it is judged by refuses."""


def summarize_all(name: str, data: bytes, policy: str = DEFAULT_POLICY,
                  verdicts_up_to: int = VERDICTS_UP_TO, provider: str | None = None) -> list[dict[str, Any]]:
    """One row per transcript of a file (an eval log's samples, a session's threads: "file#name"),
    or one row with the file's error; abandoned branches are listed, not judged.

    provider: judge every file by this provider (as `check --provider` does: the view is shaped for it
    and its verdict decides the status); None: each file by its own provider (as `check` does), or by
    every provider for a format no single provider reads.
    """
    try:
        transcripts = load_all(data, name)
    except Exception as error:  # noqa: BLE001 - one bad file is one error row; the batch goes on
        return [_row(name, None, policy, verdicts_up_to, provider, error)]
    if len(transcripts) == 1:
        return [_row(name, transcripts[0], policy, verdicts_up_to, provider)]
    return [_row(f"{name}#{t.name}", t, policy, verdicts_up_to, provider) for t in transcripts]


def judge_of(format: str | None, provider: str | None, model: Any = None) -> str:
    """Whom a file is judged by: the picked provider, else the file's own (integrity.target_provider: its
    format and the model it names), else the universal invariants."""
    return target_provider(format, provider, model) or UNIVERSAL


def _row(name: str, transcript: Any, policy: str, verdicts_up_to: int, provider: str | None,
         failure: Exception | None = None) -> dict[str, Any]:
    """One row: format, sizes, defect counts, status and verdict (the one pipeline's, as `check` says
    them), the target's verdict and every provider's for information, or the error."""
    row: dict[str, Any] = {"file": name, "format": "", "messages": 0, "calls": 0}
    for _, column in DEFECT_COLUMNS:
        row[column] = 0
    if transcript is not None and not transcript.checked:
        messages = len(transcript.messages)
        row.update(format=transcript.format, messages=messages, status=str(unjudged(transcript.kind)[0]),
                   verdict=unjudged_verdict(transcript.kind, messages))
        return row
    small = transcript is not None and len(transcript.messages) <= verdicts_up_to
    missing = ""  # why the other providers' verdicts are missing, when asking them failed
    try:
        if failure is not None:
            raise failure
        try:
            result = check(transcript, provider=provider, also=ALL_PROVIDERS if small else (), policy=policy)
        except Exception as error:  # noqa: BLE001 - asking the other providers failed: keep the row without them
            if not small:
                raise
            missing = f"not checked: {type(error).__name__}"
            result = check(transcript, provider=provider, policy=policy)
    except TranscriptError as error:
        row.update(status=str(Status.UNREADABLE), verdict=str(error))
        return row
    except Exception as error:  # noqa: BLE001 - one bad file is one error row; the batch goes on
        message = without_paths(str(error).strip().splitlines()[0][:300]) if str(error).strip() else ""
        row.update(status=str(Status.UNREADABLE),
                   verdict=f"{name}: {type(error).__name__}" + (f": {message}" if message else ""))
        return row
    judge = judge_of(transcript.format, provider, transcript.model)
    row["safe to send to"] = judge
    summary = result.summary
    row["format"] = transcript.format
    row["messages"] = summary.messages
    row["calls"] = summary.calls
    for field, column in DEFECT_COLUMNS:
        row[column] = getattr(summary, field)
    row["status"] = str(result.status)
    row["verdict"] = result.verdict
    row[RUNTIME_SENDS] = runtime_results_said(result.report) or ""
    if missing:
        row["accepted as recorded"] = row["accepted after repair"] = row["all providers"] = missing
    elif small:
        row.update(safe_to_send(result.providers, judge))
    else:
        row["accepted as recorded"] = row["accepted after repair"] = row["all providers"] = (
            f"not checked: over {verdicts_up_to:,} messages (open it in the Inspector)")
        if result.target_verdict is not None:
            row.update({key: value for key, value in safe_to_send(result.providers, judge).items()
                        if key in ("accepted as recorded", "accepted after repair")})
    return row


def _errors(result: ProviderVerdict | None, when: str) -> list[Any]:
    return [] if result is None else list(result.before if when == "before" else result.after)


def _said(verdicts: Mapping[str, Any], judge: str, when: str) -> str:
    """What the judge says at one moment: '✔ accepted', or '✖ rejected: <the provider's first error>'."""
    if judge == UNIVERSAL:
        return "no target provider: the universal invariants decide (see status)"
    if judge not in verdicts:
        return "not checked"
    errors = _errors(verdicts[judge], when)
    if not errors:
        return "✔ accepted"
    first = violation_text(errors[0])[1]
    first = first if len(first) <= 200 else first[:199] + "…"
    more = f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return f"✖ rejected: {first}{more}" if first else f"✖ rejected ({len(errors)}){more}"


def safe_to_send(verdicts: Mapping[str, Any], judge: str) -> dict[str, str]:
    """The 'safe to send' columns and each provider's own, from the verdicts of every provider."""
    before = sum(1 for result in verdicts.values() if _errors(result, "before"))
    after = sum(1 for result in verdicts.values() if _errors(result, "after"))
    row = {
        "accepted as recorded": _said(verdicts, judge, "before"),
        "accepted after repair": _said(verdicts, judge, "after"),
        "all providers": (f"information, not the verdict (judged by {judge}): {before} of {len(verdicts)} providers "
                          f"reject it as recorded, {after} reject the view planned for them"
                          if before or after else f"accepted by all {len(verdicts)} providers"),
    }
    for provider, result in sorted(verdicts.items()):
        for when, column in (("before", RECORDED), ("after", AFTER)):
            errors = _errors(result, when)
            row[provider + column] = "✔ accepted" if not errors else f"✖ rejected ({len(errors)})"
    return row


RECORDED = " as recorded"
AFTER = " after repair"


def defect_totals(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Sum of every defect column across the batch (for the chart of defect kinds)."""
    totals = {column: 0 for _, column in DEFECT_COLUMNS}
    for row in rows:
        for column in totals:
            value = row.get(column) or 0
            totals[column] += int(value)
    return totals
