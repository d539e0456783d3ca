"""A repair report as Markdown, for pasting into a code review.

Call ids, tool names and finding messages come from the transcript, so they are
untrusted: every such string is put in a code span (or a fenced block) with
backticks and line breaks neutralised, so a hostile transcript cannot inject
links, images or HTML into the review where the Markdown is pasted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from integrity import REPAIR_KINDS, Mark, RepairKind, RepairReport, facts


def code(value: Any, limit: int = 200) -> str:
    """An inline code span that stays one span whatever the text holds (backticks, newlines, pipes)."""
    text = " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("|", "¦")
    longest = 0
    run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def summary_columns(s: Any) -> dict[str, int]:
    """Column name -> count for a report summary; names of kinds are the registry's."""
    columns = {"messages": s.messages, "view": s.view_messages, "calls": s.calls, "results": s.results,
               facts(Mark.ORPHANED_CALL).name: s.orphaned_calls}
    for kind in (RepairKind.DROPPED_DUPLICATE, RepairKind.MOVED, RepairKind.REORDERED,
                 RepairKind.DROPPED_INTERRUPTED_FRAME,
                 RepairKind.DROPPED_STRAY, RepairKind.SYNTHESIZED, RepairKind.RENAMED, RepairKind.MERGED,
                 RepairKind.SYNTHESIZED_TURN):
        field = REPAIR_KINDS[kind].summary_field
        assert field is not None
        columns[REPAIR_KINDS[kind].name] = getattr(s, field)
    columns[facts(Mark.STRAY).name] = s.strays
    columns[facts(Mark.FINDING).name + "s"] = s.findings
    return columns


def _table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _actions(report: RepairReport, max_rows: int) -> list[str]:
    changed = [a for a in report.actions if a.kind != "kept" or a.also_view_indices or a.new_ids]
    lines = ["", f"### Actions ({len(changed)} of {len(report.actions)} durable messages changed)", ""]
    if not changed:
        return [*lines, "No durable message changed."]
    lines += _table(
        ["durable #", "role", "action", "view #", "call id", "why"],
        [[str(a.durable_index), code(a.role or "?"), facts(a.kind).name,
          "—" if a.view_index is None else ", ".join(map(str, [a.view_index, *a.also_view_indices])),
          code(a.call_id) if a.call_id is not None else "—", code(a.reason, 300) if a.reason else ""]
         for a in changed[:max_rows]],
    )
    if len(changed) > max_rows:
        lines.append(f"\n… {len(changed) - max_rows} more actions left out")
    return lines


def _receipts_and_findings(report: RepairReport, max_rows: int) -> list[str]:
    lines: list[str] = []
    if report.synthesized:
        lines += ["", f"### Synthesized receipts ({len(report.synthesized)})", ""]
        lines += _table(
            ["call id", "tool", "frame #", "call position", "view #"],
            [[code(r.call_id), code(r.tool_name), str(r.frame_index), str(r.call_position), str(r.view_index)]
             for r in report.synthesized[:max_rows]],
        )
    lines += ["", f"### Findings ({len(report.findings)})", ""]
    if not report.findings:
        return [*lines, "None."]
    return lines + _table(
        ["severity", "kind", "durable #", "message"],
        [[f.severity.value, facts(f.kind).name, ", ".join(map(str, f.durable_indices[:20])), code(f.message, 300)]
         for f in report.findings[:max_rows]],
    )


def _pairings(report: RepairReport, max_rows: int) -> list[str]:
    problems = [p for p in report.pairings if p.outcome != "answered"]
    lines = ["", f"### Pairings not answered in place ({len(problems)} of {len(report.pairings)} calls)", ""]
    if not problems:
        return lines
    return lines + _table(
        ["call id", "tool", "frame #", "results", "answered by", "view #", "outcome"],
        [[code(p.call_id), code(p.tool_name), str(p.frame_index),
          ", ".join(map(str, p.result_indices)) or "none",
          "—" if p.answered_by is None else str(p.answered_by),
          "—" if p.view_index is None else str(p.view_index), p.outcome]
         for p in problems[:max_rows]],
    )


def _verdicts(verdicts: Mapping[str, Any]) -> list[str]:
    rows = []
    for provider, result in sorted(verdicts.items()):
        before = len((result or {}).get("before") or [])
        after = len((result or {}).get("after") or [])
        rows.append([code(provider), "accepted" if not before else f"rejected ({before})",
                     "accepted" if not after else f"rejected ({after})"])
    return ["", "### Provider verdicts", "", *_table(["provider", "before repair", "after repair"], rows)]


def report_markdown(
    report: RepairReport,
    verdicts: Mapping[str, Any] | None = None,
    max_rows: int = 500,
) -> str:
    """The whole report: verdict, summary, changed actions, synthesized receipts, findings, verdicts.

    Kept messages are left out of the actions table (a review wants what changed);
    tables stop at `max_rows` rows with a line saying how many were left out.
    """
    lines = [
        f"## Tool-call repair report: {code(report.source or 'transcript')}",
        "",
        f"**Verdict:** {code(report.verdict, 400)}  ",
        (f"**Policy:** {code(report.policy)} · changed: {'yes' if report.changed else 'no'} · "
         f"healthy: {'yes' if report.healthy else 'no'}"),
        "",
    ]
    counts = summary_columns(report.summary)
    lines += _table(list(counts), [[str(value) for value in counts.values()]])
    lines += _actions(report, max_rows)
    lines += _receipts_and_findings(report, max_rows)
    lines += _pairings(report, max_rows)
    if verdicts:
        lines += _verdicts(verdicts)
    return "\n".join(lines) + "\n"
