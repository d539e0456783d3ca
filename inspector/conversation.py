"""The conversation view as plain data: full message bodies side by side, badges, and call→result lanes.

The paged table gives one line per row; this module gives what a reader needs
to follow a window of rows the way a debugger shows a program: each durable
message (left) and view message (right) in full, as readable text (tool output
with its real line breaks, JSON pretty-printed, call arguments laid out), long
bodies split into a head and a rest the page can fold, and a narrow gutter per
column where every tool call runs as a lane down to its result, like
`git log --graph`:

- a call opens a lane on its frame's row (┬) and its result closes it (┴);
- a call with no result in the column is an open end (○): an orphan in the
  durable column (in the view, the synthesized receipt closes it);
- a call with two results forks (├ on the first, ┴ on the last): a duplicate;
- a result that comes back before an earlier call of the same frame has its
  first result crosses that call's lane (╳ on the lane it overtakes);
- a stray result (no call has its id) has no lane at all.

Lanes are computed once per column in one pass over the rows (`lane_index`)
and then drawn for any window in time linear in the window (lanes opened above
the window pass through it).  Which result answers which call comes from the
report: the view column follows each pairing's view position, the durable
column reads the recorded results of each call id in order.  Everything shown
from a transcript goes through inspector.safe_text.neutralize; nothing here
imports Streamlit.
"""

from __future__ import annotations

import difflib
import heapq
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from integrity import Analysis, ReceiptView, RepairKind, TurnView, facts
from integrity.formats import read_otherwise
from integrity.repair.messages import image_type
from integrity.repair.views import blank_text

from .rows import Row, rows_by_side
from .safe_text import neutralize
from .theme import STYLES, id_text

HEAD_LINES = 14
"""Lines of a body shown before "show more"."""
HEAD_CHARS = 1_500
"""Characters of a body shown before "show more" (a single huge line is cut too)."""
BODY_CHARS = 20_000
"""A body is cut here for display; the raw panel and the download have the rest."""
DIFF_CHARS = 20_000
"""Bodies longer than this are compared by their first DIFF_CHARS characters (difflib is not linear)."""
CHECKPOINT = 128
"""Every CHECKPOINT rows the lane index keeps the set of lanes passing through (for windows)."""

OPEN, OPEN_END, FORK, CLOSE, CROSS, PASS, EMPTY = "┬", "○", "├", "┴", "╳", "│", " "
GLYPHS: dict[str, str] = {
    OPEN: "a tool call opens its lane",
    CLOSE: "its result closes the lane",
    PASS: "a call still waiting for its result",
    FORK: "a call with a further result below (a duplicate forks)",
    OPEN_END: "a call with no result in this column (an open end)",
    CROSS: "a result overtook this earlier call of its frame (out of call order)",
}
"""What each gutter glyph means (for the legend)."""


# ----------------------------------------------------------------------------- readable bodies


@dataclass(frozen=True)
class Body:
    """A message body as readable text: the head always shown, the rest behind "show more"."""

    head: str
    rest: str = ""
    rest_lines: int = 0
    cut: int = 0  # characters left out entirely (beyond BODY_CHARS)

    @property
    def text(self) -> str:
        return self.head + self.rest


def split_body(text: str, head_lines: int = HEAD_LINES, head_chars: int = HEAD_CHARS) -> Body:
    """Split readable text into a head and a rest; the rest is empty for short text."""
    cut = max(0, len(text) - BODY_CHARS)
    if cut:
        text = text[:BODY_CHARS]
    end = -1
    for _ in range(head_lines):
        end = text.find("\n", end + 1)
        if end < 0:
            break
    stop = len(text) if end < 0 else end + 1
    stop = min(stop, head_chars)
    if stop >= len(text) - 40 and text.count("\n", stop) <= 1:  # not worth a fold for a line or two
        return Body(text, "", 0, cut)
    if stop < len(text) and text[stop - 1] != "\n":  # cut inside a line: end the head at a word when near
        space = text.rfind(" ", max(0, stop - 80), stop)
        stop = space + 1 if space > 0 else stop
    rest = text[stop:]
    return Body(text[:stop], rest, rest.count("\n") + 1, cut)


def _pretty(value: Any, indent: int = 0) -> str:
    """JSON-like layout in which a string with line breaks is shown as a block of real lines ("|").

    json.dumps would write "\\n" inside such strings: a traceback in a tool's JSON
    output would read as one long line.  Keys and scalars are still written as JSON.
    """
    pad = "  " * (indent + 1)
    if isinstance(value, dict) and value:
        items = [f"{pad}{json.dumps(str(key), ensure_ascii=False)}: {_pretty(item, indent + 1)}"
                 for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list) and value:
        items = [pad + _pretty(item, indent + 1) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    if isinstance(value, str) and "\n" in value:
        lines = value.split("\n")
        return "|\n" + "\n".join(pad + line for line in lines)
    return json.dumps(value, ensure_ascii=False, default=str)


def readable_text(text: str) -> str:
    """Tool output as a reader wants it: JSON pretty-printed (escaped line breaks as real ones), else as is."""
    stripped = text.strip()
    if len(stripped) < 2 or len(stripped) > 2_000_000 or stripped[0] not in "{[\"":
        return text
    try:
        value = json.loads(stripped)
    except ValueError:
        return text
    if isinstance(value, str):  # a JSON string literal: its decoded text
        return value
    if isinstance(value, (dict, list)) and value:
        return _pretty(value)
    return text


def _arguments(arguments: Any) -> str:
    if isinstance(arguments, str):
        return readable_text(arguments) if arguments.strip() else '""'
    if arguments is None:
        return "(no arguments)"
    return _pretty(arguments)


def _blank(text: str) -> str:
    """A user's or assistant's text that is empty or only whitespace, shown as such (it would show as nothing):
    what Anthropic refuses, and the view planned for it leaves out (blank text left out)."""
    return f"(blank text {json.dumps(text)})"


def _part_text(part: Any, result: bool) -> str:
    if isinstance(part, str):
        return readable_text(part) if result else part
    if not isinstance(part, dict):
        return _pretty(part)
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        text = part["text"]
        return readable_text(text) if result else _blank(text) if blank_text(text) else text
    if kind == "thinking" and isinstance(part.get("thinking"), str):
        return "(thinking)\n" + part["thinking"]
    if kind == "toolCall":
        return f"→ call {part.get('name')} (id {id_text(part.get('id'))})\n{_arguments(part.get('arguments'))}"
    image = image_type(part)
    if image is not None:
        return f"(image {image})".replace(" )", ")")
    shown = {key: item for key, item in part.items() if key != "_native"}
    return _pretty(shown)


def message_text(message: Any) -> str:
    """The whole readable body of a message (not neutralized: see `body_of`)."""
    if not isinstance(message, dict):
        return _pretty(message)
    if message.get("role") == "opaque" and "value" in message:
        return _pretty(message["value"])  # a native entry the engine keeps as it is: show what it holds
    content = message.get("content")
    result = message.get("role") == "toolResult"
    if isinstance(content, str):
        pieces = [readable_text(content) if result else _blank(content) if blank_text(content) else content]
    elif isinstance(content, list):
        pieces = [_part_text(part, result) for part in content]
    elif content is None:
        pieces = []
    else:
        pieces = [_pretty(content)]
    stop = message.get("stopReason")
    if isinstance(stop, str) and stop not in ("toolUse", "stop"):
        error = message.get("errorMessage")
        pieces.append(f"[stopped: {stop}]" + (f" {error}" if isinstance(error, str) and error else ""))
    text = "\n\n".join(piece for piece in pieces if piece)
    return text or "(empty)"


def body_of(message: Any) -> Body:
    """The readable, neutralized body of a message, split for "show more"."""
    return split_body(neutralize(message_text(message)))


def title_of(message: Any) -> str:
    """Role and, for a result, the call it answers and whether it is an error (neutralized)."""
    if not isinstance(message, dict):
        return "(not a message)"
    role = message.get("role")
    text = role if isinstance(role, str) else "?"
    if role == "toolResult":
        text += f" · {message.get('toolName')}#{id_text(message.get('toolCallId'))}"
        if message.get("isError") is True:
            text += " · error"
    elif role == "assistant" and isinstance(message.get("content"), list):
        calls = sum(1 for part in message["content"] if isinstance(part, dict) and part.get("type") == "toolCall")
        if calls:
            text += f" · {calls} call{'s' if calls > 1 else ''}"
    return neutralize(text)


# ----------------------------------------------------------------------------- lanes


@dataclass
class Lane:
    """One tool call in one column: the row it opens on and the rows of its results there."""

    frame: int
    call_position: int
    call: str
    opened: int
    results: list[int] = field(default_factory=list)
    column: int = 0

    @property
    def end(self) -> int:
        return self.results[-1] if self.results else self.opened


@dataclass
class ColumnLanes:
    """The lanes of one column (durable or view) and, per row, what happens to them."""

    lanes: list[Lane]
    total_rows: int
    opens: dict[int, list[int]] = field(default_factory=dict)
    results: dict[int, list[int]] = field(default_factory=dict)
    crossings: dict[int, list[int]] = field(default_factory=dict)
    ends: dict[int, list[int]] = field(default_factory=dict)
    checkpoints: list[list[int]] = field(default_factory=list)
    width: int = 0


def _build_column(lanes: list[Lane], total_rows: int) -> ColumnLanes:
    """Assign each lane the lowest free gutter column and index its events, in one pass over the rows."""
    lanes.sort(key=lambda lane: (lane.opened, lane.frame, lane.call_position))
    built = ColumnLanes(lanes, total_rows)
    for number, lane in enumerate(lanes):
        lane.results.sort()
        built.opens.setdefault(lane.opened, []).append(number)
        built.ends.setdefault(lane.end, []).append(number)
        for row in lane.results:
            built.results.setdefault(row, []).append(number)
    _find_crossings(built)
    free: list[int] = []
    next_column = 0
    active: set[int] = set()
    for row in range(total_rows):
        if row % CHECKPOINT == 0:
            built.checkpoints.append(sorted(active))
        for number in built.opens.get(row, ()):
            lane = lanes[number]
            if free:
                lane.column = heapq.heappop(free)
            else:
                lane.column = next_column
                next_column += 1
            active.add(number)
        for number in built.ends.get(row, ()):
            active.discard(number)
            heapq.heappush(free, lanes[number].column)
    built.width = next_column
    return built


def _find_crossings(built: ColumnLanes) -> None:
    """A result crosses every earlier call of its frame that has not had its first result yet (but will)."""
    by_frame: dict[int, list[int]] = defaultdict(list)
    for number, lane in enumerate(built.lanes):
        by_frame[lane.frame].append(number)
    for numbers in by_frame.values():
        if len(numbers) < 2:
            continue
        numbers.sort(key=lambda n: built.lanes[n].call_position)
        firsts = [built.lanes[n].results[0] if built.lanes[n].results else -1 for n in numbers]  # -1: no result
        for k, number in enumerate(numbers):
            for row in built.lanes[number].results:
                crossed = [numbers[j] for j in range(k) if firsts[j] > row]
                if crossed:
                    built.crossings.setdefault(row, []).extend(crossed)


@dataclass(frozen=True)
class Gutter:
    """The lane glyphs of one column on one row: `line` beside the message's first line, `through` below it."""

    line: str
    through: str


def gutters(column: ColumnLanes, start: int, stop: int) -> list[Gutter]:
    """The gutter of every row in [start, stop): lanes opened above `start` pass through.

    Time is linear in the window (plus at most CHECKPOINT rows of replay): the
    set of lanes passing into the window comes from the nearest checkpoint.
    """
    start = max(0, min(start, column.total_rows))
    stop = max(start, min(stop, column.total_rows))
    lanes = column.lanes
    mark = start // CHECKPOINT
    active: set[int] = set(column.checkpoints[mark]) if mark < len(column.checkpoints) else set()
    for row in range(mark * CHECKPOINT, start):
        active.update(column.opens.get(row, ()))
        active.difference_update(column.ends.get(row, ()))
    cells: list[tuple[dict[int, str], dict[int, str]]] = []
    width = 0
    for row in range(start, stop):
        active.update(column.opens.get(row, ()))
        results = column.results.get(row, ())
        crossed = column.crossings.get(row, ())
        line: dict[int, str] = {}
        through: dict[int, str] = {}
        for number in active:
            lane = lanes[number]
            if lane.opened == row:
                glyph = OPEN if lane.results else OPEN_END
            elif number in results:
                glyph = CLOSE if lane.end == row else FORK
            elif number in crossed:
                glyph = CROSS
            else:
                glyph = PASS
            line[lane.column] = glyph
            if lane.end > row:
                through[lane.column] = PASS
            width = max(width, lane.column + 1)
        cells.append((line, through))
        active.difference_update(column.ends.get(row, ()))
    return [Gutter(_draw(line, width), _draw(through, width)) for line, through in cells]


def _draw(cells: dict[int, str], width: int) -> str:
    return "".join(cells.get(column, EMPTY) for column in range(width))


@dataclass
class LaneIndex:
    """Both columns' lanes and where each durable message and view message sits among the rows."""

    durable: ColumnLanes
    view: ColumnLanes
    row_of_durable: dict[int, int]
    row_of_view: dict[int, int]


def _call_name(pairing: Any) -> str:
    return neutralize(f"{pairing.tool_name}#{id_text(pairing.call_id)}")


def _durable_results(analysis: Analysis) -> dict[tuple[int, int], list[int]]:
    """(frame, call position) -> the durable results recorded for that call, read in order.

    The report gives every result recorded for a call id.  When an id is used by
    one call (the usual case) they are all that call's; a reused or empty id is
    read as the log reads: a result answers the latest earlier frame with an
    unanswered call of that id (the first such call, or the one with its tool
    name), and a result for a call already answered is a further result of the
    call answered last (a duplicate).  A result recorded before any call of its
    id belongs to no lane.
    """
    report = analysis.report
    messages = analysis.transcript.messages
    by_id: dict[str, list[Any]] = defaultdict(list)
    for pairing in report.pairings:
        by_id[pairing.call_id].append(pairing)
    assigned: dict[tuple[int, int], list[int]] = {}
    for pairings in by_id.values():
        results = sorted({index for pairing in pairings for index in pairing.result_indices})
        if len(pairings) == 1:
            only = pairings[0]
            assigned[(only.frame_index, only.call_position)] = [r for r in results if r > only.frame_index]
            continue
        calls = sorted(pairings, key=lambda p: (p.frame_index, p.call_position))
        waiting: list[Any] = []
        last: Any = None
        cursor = 0
        for result in results:
            while cursor < len(calls) and calls[cursor].frame_index < result:
                waiting.append(calls[cursor])
                cursor += 1
            owner = _owner(waiting, messages[result] if result < len(messages) else None)
            if owner is not None:
                waiting.remove(owner)
                last = owner
            else:
                owner = last
            if owner is not None:
                assigned.setdefault((owner.frame_index, owner.call_position), []).append(result)
    return assigned


def _owner(waiting: list[Any], message: Any) -> Any:
    """The waiting call a result answers: in the latest frame with one, its tool name first."""
    if not waiting:
        return None
    frame = waiting[-1].frame_index
    candidates = [p for p in waiting if p.frame_index == frame]
    name = message.get("toolName") if isinstance(message, dict) else None
    for pairing in candidates:
        if pairing.tool_name == name:
            return pairing
    return candidates[0]


def lane_index(analysis: Analysis, rows: Sequence[Row]) -> LaneIndex:
    """Lanes of the durable and the view column for all rows, in one pass (then `gutters` per window)."""
    report = analysis.report
    row_of_durable, row_of_view = rows_by_side(rows)
    recorded = _durable_results(analysis)
    durable: list[Lane] = []
    view: list[Lane] = []
    claimed: set[int] = set()
    view_of = analysis.placement.view_of  # where each durable message is sent: the one mapping
    for pairing in report.pairings:
        key = (pairing.frame_index, pairing.call_position)
        name = _call_name(pairing)
        frame_row = row_of_durable.get(pairing.frame_index)
        if frame_row is not None:
            results = [row_of_durable[r] for r in recorded.get(key, ()) if r in row_of_durable]
            durable.append(Lane(pairing.frame_index, pairing.call_position, name, frame_row, results))
        sent = view_of[pairing.frame_index] if pairing.frame_index < len(view_of) else ()
        frame_view = sent[0] if sent else None
        if frame_view is None or frame_view not in row_of_view:
            continue
        answer = pairing.view_index
        if answer in claimed:  # two calls said to be answered at one place: take this call's own recorded result
            own = [view_of[r][0] for r in recorded.get(key, ()) if view_of[r]]
            answer = next((p for p in own if p not in claimed), answer)
        view_results = []
        if answer is not None and answer in row_of_view:
            claimed.add(answer)
            view_results.append(row_of_view[answer])
        view.append(Lane(pairing.frame_index, pairing.call_position, name, row_of_view[frame_view], view_results))
    total = len(rows)
    return LaneIndex(_build_column(durable, total), _build_column(view, total), row_of_durable, row_of_view)


# ----------------------------------------------------------------------------- conversation rows


@dataclass(frozen=True)
class Badge:
    """A kind from the registry as a row shows it: icon and the registry's name."""

    kind: str
    icon: str
    name: str

    @property
    def label(self) -> str:
        return f"{self.icon} {self.name}"


def badge(kind: str) -> Badge:
    """The badge of a row kind (names come from integrity.kinds, icons from inspector.theme)."""
    return Badge(kind, STYLES[kind].icon, facts(kind).name)


@dataclass(frozen=True)
class Side:
    """One column of a row: which message, its title and body, and the lane gutter beside it."""

    position: int | None
    title: str
    body: Body | None
    gutter: Gutter
    placeholder: str = ""  # what an empty side says (where the message is instead, or why there is none)


@dataclass(frozen=True)
class Comparison:
    """A dropped duplicate next to the result kept for the same call, with their difference."""

    dropped: int
    kept: int | None
    kept_view: int | None
    reason: str
    diff: str
    identical: bool
    kept_body: Body | None

    @property
    def headline(self) -> str:
        kept = f"durable #{self.kept}" if self.kept is not None else "another result"
        where = f" (view #{self.kept_view})" if self.kept_view is not None else ""
        return f"Dropped durable #{self.dropped}; kept {kept}{where} instead."


@dataclass(frozen=True)
class ConversationRow:
    """One aligned row of the conversation: the durable side, the view side, badges and notes."""

    row: int
    kind: str
    badges: tuple[Badge, ...]
    note: str
    left: Side
    right: Side
    comparison: Comparison | None = None

    @property
    def problem(self) -> bool:
        return self.kind != RepairKind.KEPT.value


def compare_duplicate(analysis: Analysis, dropped: int) -> Comparison:
    """The dropped duplicate `dropped` against the result kept instead: which, why, and a text diff."""
    action = analysis.report.actions[dropped]
    messages = analysis.transcript.messages
    kept = action.kept_instead
    sent = analysis.placement.in_view(kept) if kept is not None else ()
    kept_view = sent[0] if sent else None
    dropped_text = neutralize(message_text(messages[dropped]))
    kept_text = neutralize(message_text(messages[kept])) if kept is not None else ""
    diff = ""
    if kept is not None and dropped_text != kept_text:
        lines = difflib.unified_diff(kept_text[:DIFF_CHARS].splitlines(), dropped_text[:DIFF_CHARS].splitlines(),
                                     f"kept #{kept}", f"dropped #{dropped}", lineterm="", n=2)
        diff = "\n".join(lines)
    return Comparison(dropped, kept, kept_view, neutralize(action.reason), diff,
                      kept is not None and dropped_text == kept_text,
                      split_body(kept_text) if kept is not None else None)


def _view_title(analysis: Analysis, position: int) -> str:
    entry = analysis.report.view[position]
    message = analysis.view[position]
    if isinstance(entry, ReceiptView):
        what = facts(RepairKind.REPAIRED_ARGUMENTS if entry.not_executed else RepairKind.SYNTHESIZED).name
        return neutralize(f"view #{position} · {what} · {entry.tool_name}#{id_text(entry.call_id)} "
                          f"(frame #{entry.frame_index})")
    if isinstance(entry, TurnView):
        return neutralize(f"view #{position} · {entry.role} turn only in the view")
    members = analysis.placement.sources(position)
    if entry.kind is RepairKind.MERGED:
        joined = " + ".join(f"#{member}" for member in members)
        return f"view #{position} · {title_of(message)} · durable {joined} merged"
    return f"view #{position} · {title_of(message)} · durable #{members[0]}"


def _left_placeholder(analysis: Analysis, index: LaneIndex, row: Row, name: Callable[[int], str]) -> str:
    """What the durable side of a view-only row says: where its message was recorded, or that it has none."""
    if row.right is None or row.left is not None:
        return ""
    kind = analysis.report.view[row.right].kind
    members = analysis.placement.sources(row.right)
    if kind is RepairKind.REPAIRED_ARGUMENTS:
        return "(none: the engine wrote this 'not executed' result: the call's arguments were invalid)"
    if kind is RepairKind.SYNTHESIZED:
        return "(none: the engine wrote this receipt; it exists only in the view)"
    if kind is RepairKind.SYNTHESIZED_TURN:
        return "(none: this turn exists only in the view)"
    if kind is RepairKind.MERGED:
        return "(merged from " + ", ".join(_where(name(m), index.row_of_durable.get(m)) for m in members) + ")"
    return f"(recorded at {_where(name(members[0]), index.row_of_durable.get(members[0]))})"


def _right_placeholder(analysis: Analysis, index: LaneIndex, row: Row) -> str:
    """What the view side of a durable-only row says: where the view sends it instead, or that it is left out."""
    if row.left is None or row.right is not None:
        return ""
    sent = analysis.placement.in_view(row.left)
    if sent:
        return f"(sent at {_where(f'view #{sent[0]}', index.row_of_view.get(sent[0]))})"
    return "(left out of the view)"


def _where(label: str, row: int | None) -> str:
    return f"{label}, row {row}" if row is not None else label


_index_cache: list[tuple[Analysis, Sequence[Row], int, LaneIndex]] = []


def cached_lane_index(analysis: Analysis, rows: Sequence[Row]) -> LaneIndex:
    """lane_index, remembered for the last few (analysis, rows) pairs, so paging does not redo the pass."""
    for known, known_rows, size, index in _index_cache:
        if known is analysis and known_rows is rows and size == len(rows):
            return index
    index = lane_index(analysis, rows)
    _index_cache.insert(0, (analysis, rows, len(rows), index))
    del _index_cache[4:]
    return index


def conversation_rows(
    analysis: Analysis,
    rows: Sequence[Row],
    start: int,
    stop: int,
    index: LaneIndex | None = None,
    durable_label: Callable[[int], str] | None = None,
) -> list[ConversationRow]:
    """The conversation rows of rows[start:stop]: both sides in full, badges, notes, gutters, comparisons.

    index: from lane_index(analysis, rows) (built and cached when not given).
    durable_label: how to name durable message i (default "durable #i"; the page
    may put the native position first).
    """
    index = index or cached_lane_index(analysis, rows)
    start = max(0, start)
    stop = min(stop, len(rows))
    if stop <= start:
        return []
    left_gutters = gutters(index.durable, start, stop)
    right_gutters = gutters(index.view, start, stop)
    messages = analysis.transcript.messages
    name = durable_label or (lambda i: f"durable #{i}")
    built = []
    for offset, row in enumerate(rows[start:stop]):
        left = Side(None, "", None, left_gutters[offset], _left_placeholder(analysis, index, row, name))
        note = row.note
        held = None
        if row.left is not None:
            message = messages[row.left]
            held = read_otherwise(analysis.transcript, row.left)
            if held is not None:  # the file holds what the reader reads otherwise: show the file, say why
                note = f"{note}; {held[1]}" if note else held[1]
                message = held[0]
            left = Side(row.left, f"{name(row.left)} · {title_of(message)}", body_of(message), left_gutters[offset])
        right = Side(None, "", None, right_gutters[offset], _right_placeholder(analysis, index, row))
        if row.right is not None:
            same = row.left is not None and held is None and analysis.view[row.right] is messages[row.left]
            body = left.body if same else body_of(analysis.view[row.right])
            right = Side(row.right, _view_title(analysis, row.right), body, right_gutters[offset])
        comparison = None
        if row.kind == RepairKind.DROPPED_DUPLICATE.value and row.left is not None:
            comparison = compare_duplicate(analysis, row.left)
        badges = () if row.kind == RepairKind.KEPT.value else (badge(row.kind),)
        built.append(ConversationRow(row.row, row.kind, badges, neutralize(note), left, right, comparison))
    return built


def legend() -> list[tuple[str, str]]:
    """(glyph, meaning) for the gutter legend."""
    return list(GLYPHS.items())


__all__ = [
    "Badge", "Body", "ColumnLanes", "Comparison", "ConversationRow", "GLYPHS", "Gutter", "Lane", "LaneIndex", "Side",
    "badge", "body_of", "cached_lane_index", "compare_duplicate", "conversation_rows", "gutters", "lane_index",
    "legend", "message_text", "readable_text", "split_body", "title_of",
]
