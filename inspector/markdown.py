"""A repair report as Markdown, for pasting into a code review.

Call ids, tool names and finding messages come from the transcript, so they are
untrusted: every such string is put in a code span with backticks, pipes and
line breaks neutralised, so a hostile transcript cannot inject links, images or
HTML into the review where the Markdown is pasted, nor into the Report page,
which renders this Markdown as its preview.  Provider error texts are quoted
word for word; every empty value is "—" (inspector.report_view.NONE).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from inspector.report_view import NONE, RUNTIME_SENDS, action_rows, changed, or_none, view_only_rows, violation_text
from inspector.safe_text import code_span
from integrity import Analysis, ProviderVerdict, RepairReport
from integrity.file_verdict import FileVerdict
from integrity.kinds import facts, summary_counts


def code(value: Any, limit: int = 200, in_table: bool = True) -> str:
    """An inline code span that stays one span whatever the text holds (backticks, newlines, pipes).

    Runs of whitespace become one space (a table cell is one line); a pipe is written `\\|`, which a
    GFM table reads as a literal pipe inside the cell (even inside a code span), so the text reads
    exactly as it was (outside a table, `in_table=False`, a pipe needs no escape); text longer than
    `limit` is cut with "…".
    """
    text = " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return code_span(text, in_table)


def summary_columns(s: Any) -> dict[str, int]:
    """Column name -> count for a report summary; every count of the kind registry, by the kind's name."""
    columns = {"messages": s.messages, "view": s.view_messages, "calls": s.calls, "results": s.results}
    for field, label in summary_counts():
        columns[label + "s" if field == "findings" else label] = getattr(s, field)
    return columns


def _table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _cell(value: Any, limit: int = 200) -> str:
    """A table cell of untrusted text: a code span, or '—' when there is nothing."""
    return NONE if value is None or value == "" or value == NONE else code(value, limit)


def _actions(report: RepairReport, analysis: Analysis | None, max_rows: int) -> list[str]:
    actions = action_rows(report, analysis, None, changed_only=True, limit=max_rows)
    total = sum(1 for action in report.actions if changed(action))
    lines = ["", f"#### Actions ({total} of {len(report.actions)} durable messages changed)", ""]
    if not actions:
        return [*lines, "No durable message changed."]
    columns = ["durable #", "role", "action", *(["message"] if analysis is not None else []), "view #",
               "call id", "why"]
    lines += _table(columns, [
        [str(row["durable #"]), _cell(row["role"]), row["action"],
         *([_cell(row["message"], 120)] if analysis is not None else []), row["view #"],
         _cell(row["call id"]), _cell(row["why"], 300)]
        for row in actions])
    if total > max_rows:
        lines.append(f"\n… {total - max_rows} more actions left out")
    return lines


def _view_only(report: RepairReport, analysis: Analysis | None, max_rows: int) -> list[str]:
    rows = view_only_rows(report, analysis, None, limit=max_rows)
    if not rows:
        return []
    lines = ["", f"#### Messages written for the view ({len(rows)})", ""]
    return lines + _table(
        ["view #", "kind", "message", "for call", "tool", "frame (durable #)", "written at"],
        [[str(row["view #"]), row["kind"], _cell(row["message"], 120), _cell(row["for call"]), _cell(row["tool"]),
          row["frame (durable #)"], row["written at"]] for row in rows])


def _findings(report: RepairReport, max_rows: int) -> list[str]:
    lines = ["", f"#### Findings ({len(report.findings)})", ""]
    if not report.findings:
        return [*lines, "No findings."]
    return lines + _table(
        ["severity", "kind", "durable #", "finding"],
        [[f.severity.value, facts(f.kind).name, or_none(f.durable_indices[:20]), _cell(f.message, 300)]
         for f in report.findings[:max_rows]],
    )


def _pairings(report: RepairReport, max_rows: int) -> list[str]:
    problems = [p for p in report.pairings if p.outcome != "answered"]
    lines = ["", f"#### Pairings not answered in place ({len(problems)} of {len(report.pairings)} calls)", ""]
    if not problems:
        return [*lines, "Every call is answered where it was recorded."]
    added = report.runtime_results or {}  # (its runtime's own results: the column the report page shows too)
    return lines + _table(
        ["call id", "tool", "frame (durable #)", "results (durable #)", "answered by (durable #)", "view #",
         "outcome", *([RUNTIME_SENDS] if added else [])],
        [[_cell(p.call_id), _cell(p.tool_name), str(p.frame_index), or_none(p.result_indices),
          or_none(p.answered_by), or_none(p.view_index), p.outcome,
          *([_cell(added.get(p.call_id or ""))] if added else [])]
         for p in problems[:max_rows]],
    )


def _said(violations: Sequence[Any]) -> str:
    return "accepted" if not violations else f"rejected ({len(violations)})"


def _verdicts(verdicts: Mapping[str, ProviderVerdict], max_rows: int) -> list[str]:
    """Per provider: accepted or rejected, as recorded and after repair, with each error the provider returns,
    word for word (one row per error)."""
    rows: list[list[str]] = []
    left_out = 0
    for provider, result in sorted(verdicts.items()):
        before, after = result.before, result.after
        head = [code(provider), _said(before), _said(after)]
        errors = [("as recorded", v) for v in before] + [("after repair", v) for v in after]
        if not errors:
            rows.append([*head, NONE, NONE])
        for when, violation in errors:
            if len(rows) >= max_rows:
                left_out += 1
                continue
            where, error = violation_text(violation)
            rows.append([*head, f"{when}, at {_cell(where)}" if where else when, _cell(error, 2000)])
    lines = ["", "#### Provider verdicts", "",
             "Each provider's answer after repair is about the view planned for that provider (the Report page "
             "downloads each).", "",
             *_table(["provider", "as recorded", "after repair (its view)", "where", "provider error"], rows)]
    if left_out:
        lines.append(f"\n… {left_out} more provider errors left out")
    return lines


def report_markdown(
    report: RepairReport,
    verdicts: Mapping[str, ProviderVerdict] | None = None,
    max_rows: int = 500,
    analysis: Analysis | None = None,
    whole: FileVerdict | None = None,
) -> str:
    """The whole report: verdict, summary, changed actions, messages only in the view, findings, pairings,
    and what each provider says (with its error texts).

    Kept messages are left out of the actions table (a review wants what changed);
    with the analysis, each action shows an excerpt of its message.  Tables stop at
    `max_rows` rows with a line saying how many were left out.  Empty values are "—".
    whole: the file's verdict when the file holds several transcripts (integrity.file_verdict): said first,
    and the report's verdict is labelled as its transcript's.
    """
    lines = [f"### Tool-call repair report: {code(report.source or 'transcript', in_table=False)}", ""]
    own, healthy = "", "healthy"
    if whole is not None:
        lines.append(f"**File:** {code(whole.said, 400, in_table=False)} · `check` exits {whole.exit_code} "
                     "on it  ")
        thread = code(report.thread or "main", in_table=False)
        own, healthy = f" of transcript {thread}", f"transcript {thread} healthy"
    lines += [
        f"**Verdict{own}:** {code(report.verdict, 400, in_table=False)}  ",
        (f"**Policy:** {code(report.policy, in_table=False)} · changed: {'yes' if report.changed else 'no'} · "
         f"{healthy}: {'yes' if report.healthy else 'no'}"),
        "",
    ]
    counts = summary_columns(report.summary)
    lines.append("**Counts:** " + " · ".join(f"{name} {value:,}" for name, value in counts.items()))
    lines += _actions(report, analysis, max_rows)
    lines += _view_only(report, analysis, max_rows)
    lines += _findings(report, max_rows)
    lines += _pairings(report, max_rows)
    if verdicts:
        lines += _verdicts(verdicts, max_rows)
    return "\n".join(lines) + "\n"
