"""Row-aligned durable vs repaired rows, pairings and provider verdicts, for the inspector.

The inspector shows the durable transcript and the repaired model view side by
side.  Which durable message lines up with which view message, what kind of
change each row shows, which rows a selected call or result is paired with, and
what each provider would say are all derived from the engine's report here, so
a page (or any other front end) only has to draw rows: it never decides what a
row means.  Everything is plain data (lists, dicts, strings) and has no
Streamlit dependency.  Every string taken from a transcript (previews, ids in
notes and pairings, provider errors) is neutralized here (inspector.safe_text),
so bidi controls, invisible characters and escapes show as visible markers.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from integrity import Analysis, Mark, ReceiptView, RepairKind, TurnView
from integrity.repair.messages import image_type
from integrity.repair.views import blank_text, part_after_call

from .safe_text import escape_json, neutralize
from .theme import id_text, strike

PREVIEW_CHARS = 140
"""Summaries are cut here: a row never carries a huge string to the browser."""


def _clip(text: str, limit: int = PREVIEW_CHARS) -> str:
    if len(text) <= limit and text.isprintable():
        return text  # the common case: short single-line text needs no rework (nor neutralizing)
    text = neutralize(" ".join(text[: limit * 4].split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


BLANK = "(blank text)"
"""How a preview shows a text that is empty or only whitespace (integrity.repair.views.blank_text)."""


def _text_of(content: Any) -> str:
    """The human text of a message content (string or list of parts), for previews only.  A text that is empty or
    only whitespace shows as BLANK, so that the one a provider refuses (and the view leaves out) is seen."""
    if isinstance(content, str):
        return BLANK if blank_text(content) else content[: PREVIEW_CHARS * 4]
    if not isinstance(content, list):
        return ""
    pieces = []
    for part in content[:8]:
        if type(part) is dict:
            kind = part.get("type")
            if kind == "text":
                text = part.get("text")
                if type(text) is str:
                    pieces.append(BLANK if blank_text(text) else text[: PREVIEW_CHARS * 2])
            elif kind == "thinking":
                text = part.get("thinking")
                if type(text) is str:
                    pieces.append("(thinking) " + text[:PREVIEW_CHARS])
            elif image_type(part) is not None:
                pieces.append("(image)")
        elif isinstance(part, str):
            pieces.append(part[: PREVIEW_CHARS * 2])
    return " ".join(pieces)


def _in_order(content: list[Any]) -> list[str]:
    """A frame's parts as preview pieces, in their order: a call as "→ name#id", any other part as _text_of."""
    return [f"→ {part.get('name')}#{id_text(part.get('id'))}"
            if isinstance(part, dict) and part.get("type") == "toolCall" else _text_of([part]) for part in content[:8]]


def preview(message: Any) -> str:
    """One-line plain-text summary of a message: role, calls or answered id, start of the text."""
    if not isinstance(message, dict):
        return _clip(repr(message))
    role = message.get("role")
    role_text = role if isinstance(role, str) else "?"
    content = message.get("content")
    if role == "assistant":
        calls = []
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "toolCall":
                    calls.append(f"{part.get('name')}#{id_text(part.get('id'))}")
        stop = message.get("stopReason")
        flag = f" [{stop}]" if isinstance(stop, str) and stop not in ("toolUse", "stop") else ""
        # in its order: a call before other parts is the defect to see
        if calls and isinstance(content, list) and part_after_call(content):
            return _clip(f"assistant{flag}: " + " ".join(_in_order(content)))
        head = (f"assistant → {', '.join(calls)}" if calls else "assistant") + flag
        body = _text_of(content)
        return _clip(f"{head}: {body}" if body else head)
    if role == "toolResult":
        flag = " error" if message.get("isError") is True else ""
        head = f"result{flag} for {message.get('toolName')}#{id_text(message.get('toolCallId'))}"
        return _clip(f"{head}: {_text_of(content)}")
    return _clip(f"{role_text}: {_text_of(content)}")


@dataclass
class Row:
    """One aligned row: a durable message (left), a view message (right), or both."""

    row: int
    left: int | None
    right: int | None
    kind: str
    left_text: str
    right_text: str
    note: str = ""
    call_ids: tuple[str, ...] = ()
    filled: bool = True

    @property
    def problem(self) -> bool:
        return self.kind != "kept"


def fill_previews(analysis: Analysis, rows: Sequence[Row]) -> None:
    """Compute the text of rows built with previews=False (in place; rows already filled are skipped).

    Previews are the costly part of building rows; a 100,000-message view only
    needs the 50 rows on screen, plus all of them once someone searches text.
    """
    messages = analysis.transcript.messages
    view = analysis.view
    for row in rows:
        if row.filled:
            continue
        if row.left is not None:
            text = preview(messages[row.left])
            row.left_text = strike(text) if row.kind == "dropped_duplicate" else text
        if row.right is not None:
            same = row.left is not None and view[row.right] is messages[row.left]
            row.right_text = row.left_text if same else preview(view[row.right])
        row.filled = True


def role_of(analysis: Analysis, row: Row) -> str:
    """The role shown for a row when its preview has not been computed (cheap, from the report)."""
    if row.left is not None:
        return neutralize(analysis.report.actions[row.left].role or "?")
    return "toolResult"


def _right_kind(analysis: Analysis, position: int) -> tuple[str, str, tuple[str, ...]]:
    entry = analysis.report.view[position]
    if isinstance(entry, ReceiptView):
        return (RepairKind.SYNTHESIZED.value,
                f"answers {entry.tool_name}#{entry.call_id} of frame #{entry.frame_index}; exists only in the view",
                (entry.call_id,))
    if isinstance(entry, TurnView):
        return RepairKind.SYNTHESIZED_TURN.value, f"{entry.role} turn only in the view: {entry.reason}", ()
    members = analysis.placement.sources(position)  # what it is made of: the one durable <-> view mapping
    actions = analysis.report.actions
    if entry.kind is RepairKind.MERGED:
        joined = " + ".join(f"#{member}" for member in members)
        return RepairKind.MERGED.value, f"durable {joined} sent as one {actions[members[-1]].role or ''} message", ()
    action = actions[members[0]]
    ids = (action.call_id,) if action.call_id is not None else ()
    if action.kind in (RepairKind.MOVED, RepairKind.REORDERED):
        verb = "moved" if action.kind == RepairKind.MOVED else "put in call order"
        return action.kind.value, f"{verb} here from durable #{action.durable_index}", ids
    return RepairKind.SHARED.value, f"durable #{action.durable_index} again: answers a reused call id", ids


def _durable_notes(analysis: Analysis) -> dict[int, tuple[str, str]]:
    """Kind and note for kept durable messages that still deserve attention (orphans, findings)."""
    notes: dict[int, tuple[str, str]] = {}
    report = analysis.report
    orphaned = set(report.repaired_tool_calls)
    if orphaned:
        added = report.runtime_results or {}
        for pairing in report.pairings:
            if pairing.call_id in orphaned and not pairing.result_indices:
                old = notes.get(pairing.frame_index, ("", ""))[1]
                text = f"no result answers {pairing.tool_name}#{pairing.call_id} of this frame"
                if pairing.call_id in added:
                    text += (f" (its runtime, {analysis.transcript.format}, sends it a result of its own as it "
                             f"sends the session, {json.dumps(added[pairing.call_id])}: providers are judged on that "
                             "request)")
                notes[pairing.frame_index] = (Mark.ORPHANED_CALL.value, f"{old}; {text}" if old else text)
    for finding in report.findings:
        kind = Mark.STRAY.value if finding.kind == "stray_result" else Mark.FINDING.value
        for index in finding.durable_indices:
            current = notes.get(index)
            if current is None or (current[0] == "finding" and kind == "stray"):
                notes[index] = (kind, finding.message)
            elif finding.message not in current[1]:
                notes[index] = (current[0], current[1] + "; " + finding.message)
    return notes


def aligned_rows(analysis: Analysis, previews: bool = True) -> list[Row]:
    """Rows pairing each durable message with its place in the view, in reading order.

    A message kept in place shares a row with itself; a moved result appears on
    the left where it was recorded and on the right where the view puts it (two
    rows, so it visibly travels); dropped messages have an empty right side;
    synthesized receipts have an empty left side.  Right-only rows are placed
    right after the previous aligned row, next to the frame they answer.
    With previews=False the row texts are left empty for fill_previews.
    """
    report = analysis.report
    messages = analysis.transcript.messages
    view = analysis.view
    view_of = analysis.placement.view_of  # where each durable message is sent: the one mapping
    anchored = {action.durable_index: view_of[action.durable_index][0] for action in report.actions
                if action.kind == RepairKind.KEPT and view_of[action.durable_index]}
    anchor_positions = set(anchored.values())
    notes = _durable_notes(analysis)
    by_frame = pairings_by_frame(analysis)
    rows: list[Row] = []
    total_view = len(report.view)
    cursor = 0

    def flush() -> None:
        nonlocal cursor
        while cursor < total_view and cursor not in anchor_positions:
            kind, note, ids = _right_kind(analysis, cursor)
            rows.append(Row(len(rows), None, cursor, kind, "", preview(view[cursor]) if previews else "",
                            neutralize(note), ids, previews))
            cursor += 1

    flush()
    for action in report.actions:
        index = action.durable_index
        ids: tuple[str, ...] = (action.call_id,) if action.call_id is not None else ()
        frame_ids = tuple(p.call_id for p in by_frame.get(index, ()))
        text = preview(messages[index]) if previews else ""
        if index in anchored:
            position = anchored[index]
            kind, note = notes.get(index, (action.shown_kind.value, action.reason))
            right_text = text if not previews or view[position] is messages[index] else preview(view[position])
            rows.append(Row(len(rows), index, position, kind, text, right_text, neutralize(note), ids + frame_ids,
                            previews))
            cursor = position + 1
            flush()
            continue
        kind = action.kind.value
        if kind == RepairKind.MOVED:
            note = f"moved to view #{action.view_index} (right after its frame)"
        elif kind == RepairKind.REORDERED:
            note = f"put in call order at view #{action.view_index} (no provider needs this)"
        else:
            note = action.reason
        if kind == RepairKind.DROPPED_DUPLICATE:
            text = strike(text)
        rows.append(Row(len(rows), index, None, kind, text, "", neutralize(note), ids + frame_ids, previews))
    while cursor < total_view:  # only reachable if the report's view is inconsistent
        kind, note, ids = _right_kind(analysis, cursor)
        rows.append(Row(len(rows), None, cursor, kind, "", preview(view[cursor]), neutralize(note), ids))
        cursor += 1
    return rows


def rows_by_side(rows: Sequence[Row]) -> tuple[dict[int, int], dict[int, int]]:
    """Durable index -> row and view position -> row (the row a link should select)."""
    left: dict[int, int] = {}
    right: dict[int, int] = {}
    for row in rows:
        if row.left is not None:
            left.setdefault(row.left, row.row)
        if row.right is not None:
            right.setdefault(row.right, row.row)
    return left, right


def pairings_by_frame(analysis: Analysis) -> dict[int, list[Any]]:
    """Frame index -> its pairings (computed on each call: the analysis may be shared, never mutated)."""
    by_frame: dict[int, list[Any]] = {}
    for pairing in analysis.report.pairings:
        by_frame.setdefault(pairing.frame_index, []).append(pairing)
    return by_frame


def problem_rows(rows: Sequence[Row], context: int = 1) -> list[int]:
    """Row numbers of every problem row plus `context` rows on each side (for 'problems only')."""
    keep: set[int] = set()
    total = len(rows)
    for row in rows:
        if row.problem:
            keep.update(range(max(0, row.row - context), min(total, row.row + context + 1)))
    return sorted(keep)


def search_text(row: Row) -> str:
    """What a search looks in for one row, lowercased once: both texts, the note and the call ids (joined by
    NUL, which no search box sends, so no match spans two of them)."""
    return "\x00".join((row.left_text, row.right_text, row.note, *row.call_ids)).lower()


def search_index(rows: Sequence[Row]) -> list[str]:
    """search_text of every row, by row number (rows with their previews filled): built once per analysis,
    so a search over 100,000 rows is one substring test per row instead of four lowercased copies."""
    return [search_text(row) for row in rows]


def filter_rows(
    rows: Sequence[Row],
    problems_only: bool = False,
    kinds: Iterable[str] = (),
    search: str = "",
    context: int = 1,
    index: Sequence[str] | None = None,
) -> list[Row]:
    """The rows a user asked to see: problems with context, certain kinds, text matches.

    index: search_index(rows) (rows[n].row == n), so a search reads no row text; without it each row's
    text is lowercased here.
    """
    selected: Sequence[Row] = rows
    if problems_only:
        selected = [rows[n] for n in problem_rows(rows, context)]
    wanted = set(kinds)
    if wanted:
        selected = [row for row in selected if row.kind in wanted]
    needle = search.strip().lower()
    if needle and index is not None:
        if selected is rows:
            selected = [rows[n] for n, text in enumerate(index) if needle in text]
        else:
            selected = [row for row in selected if needle in index[row.row]]
    elif needle:
        selected = [row for row in selected
                    if needle in row.left_text.lower() or needle in row.right_text.lower()
                    or needle in row.note.lower() or any(needle in c.lower() for c in row.call_ids)]
    return list(selected)


def position_in(shown: Sequence[Row], row: int | None) -> int | None:
    """Where row number `row` is in `shown` (rows in reading order, as filter_rows gives them); None when it is
    not there.  A binary search: the page looks it up on every key press, at any size."""
    if row is None:
        return None
    at = bisect_left(shown, row, key=lambda found: found.row)
    return at if at < len(shown) and shown[at].row == row else None


def next_problem(rows: Sequence[Row], after: int, backwards: bool = False) -> int | None:
    """Row number of the first problem row after `after` (before it with backwards), wrapping around;
    None when healthy."""
    total = len(rows)
    direction = -1 if backwards else 1
    for step in range(1, total + 1):
        row = rows[(after + direction * step) % total]
        if row.problem:
            return row.row
    return None


@dataclass
class Pairs:
    """What a selected message is paired with, for the detail panel and row highlighting."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    durable: set[int] = field(default_factory=set)
    view: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class PairIndex:
    """The report's pairings by frame, by the result that answers them and by every result they list: what
    pairs_for looks up, built in one pass so selecting a row does not scan every pairing."""

    by_frame: dict[int, list[Any]]
    by_answer: dict[int, list[Any]]
    by_result: dict[int, list[Any]]


def pair_index(analysis: Analysis) -> PairIndex:
    """The PairIndex of an analysis (the caller keeps it as long as the analysis)."""
    by_frame: dict[int, list[Any]] = {}
    by_answer: dict[int, list[Any]] = {}
    by_result: dict[int, list[Any]] = {}
    for pairing in analysis.report.pairings:
        by_frame.setdefault(pairing.frame_index, []).append(pairing)
        if pairing.answered_by is not None:
            by_answer.setdefault(pairing.answered_by, []).append(pairing)
        for result in dict.fromkeys(pairing.result_indices):
            by_result.setdefault(result, []).append(pairing)
    return PairIndex(by_frame, by_answer, by_result)


def pairs_for(analysis: Analysis, durable: int | None = None, view_position: int | None = None,
              index: PairIndex | None = None) -> Pairs:
    """A call's results, or a result's call, as rows of plain data (one per call involved).

    index: pair_index(analysis), when the caller keeps one (else it is built for this call).
    """
    report = analysis.report
    index = index or pair_index(analysis)
    found = Pairs()
    chosen: list[Any] = []
    if durable is not None:  # a frame: its calls; a result: the call it answers, else (a duplicate) those listing it
        chosen = list(index.by_frame.get(durable, ()) or index.by_answer.get(durable, ())
                      or index.by_result.get(durable, ()))
    elif view_position is not None:
        entry = report.view[view_position]
        if isinstance(entry, ReceiptView):
            chosen = [p for p in index.by_frame.get(entry.frame_index, ()) if p.call_position == entry.call_position]
        else:  # a durable message, or several merged: the one carrying their fields (a turn: none)
            members = analysis.placement.sources(view_position)
            return pairs_for(analysis, durable=members[-1], index=index) if members else found
    for pairing in chosen:
        found.durable.add(pairing.frame_index)
        found.durable.update(pairing.result_indices)
        if pairing.view_index is not None:
            found.view.add(pairing.view_index)
        found.calls.append({
            "call": neutralize(f"{pairing.tool_name}#{pairing.call_id}"),
            "frame": pairing.frame_index,
            "results (durable)": ", ".join(f"#{i}" for i in pairing.result_indices) or "none",
            "answered by": "synthesized" if pairing.answered_by is None and pairing.outcome == "synthesized"
            else (f"#{pairing.answered_by}" if pairing.answered_by is not None else "—"),
            "view position": pairing.view_index,
            "outcome": pairing.outcome,
        })
    frames = {pairing.frame_index for pairing in chosen}
    for frame in frames:
        found.view.update(analysis.placement.in_view(frame))
    return found


def call_arguments(message: Any) -> list[dict[str, Any]]:
    """The tool calls of an assistant message with their raw arguments (for the detail panel)."""
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return []
    return [{"id": part.get("id"), "name": part.get("name"), "arguments": part.get("arguments")}
            for part in message["content"] if isinstance(part, dict) and part.get("type") == "toolCall"]


def raw_json(message: Any, limit: int = 20_000) -> tuple[str, bool]:
    """Pretty JSON of one message, cut at `limit` characters; the flag says whether it was cut.

    Bidi controls, invisible characters, controls and lone surrogates are written
    as JSON escapes (`\\u202e`): the same JSON, with nothing hidden.
    """
    text = escape_json(json.dumps(message, ensure_ascii=False, indent=2, default=str))
    if len(text) > limit:
        return text[:limit], True
    return text, False


# ----------------------------------------------------------------------------- verdicts


def _field(violation: Any, name: str) -> Any:
    if isinstance(violation, dict):
        return violation.get(name)
    return getattr(violation, name, None)


def violation_rows(violations: Iterable[Any]) -> list[dict[str, Any]]:
    """Provider violations (objects or dicts) as flat rows of text for a table."""
    rows = []
    for violation in violations or ():
        ids = _field(violation, "call_ids") or ()
        native = _field(violation, "native_indices") or ()
        rows.append({
            "provider": neutralize(str(_field(violation, "provider") or "")),
            "rule": neutralize(str(_field(violation, "rule") or "")),
            "position": neutralize(str(_field(violation, "position") if _field(violation, "position") is not None
                                       else "")),
            "durable entries": ", ".join(f"#{n}" for n in native),
            "call ids": neutralize(", ".join(map(str, ids))),
            "provider error": neutralize(str(_field(violation, "error") or "")),
        })
    return rows


def verdict_rows(analysis: Analysis) -> list[dict[str, Any]]:
    """Per provider: would the request be accepted before and after repair (empty when no rule sets)."""
    rows = []
    for provider, result in sorted((analysis.verdicts or {}).items()):
        before, after = result.before, result.after
        rows.append({
            "provider": str(provider),
            "before repair": "✔ accepted" if not before else f"✖ rejected ({len(before)})",
            "after repair": "✔ accepted" if not after else f"✖ rejected ({len(after)})",
        })
    return rows
