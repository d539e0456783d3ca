"""The conversation view: lanes agree with the report, windows agree with the whole, text stays text.

Every sample under both policies: each call in the view column is closed by
exactly the result the report pairs it with, orphans are open ends in the
durable column, strays have no lane, crossings sit exactly where a report
pairing is answered before an earlier call of its frame, forks exactly at
second results.  Windows of the gutter equal the same rows of the full
computation (also across checkpoints on a long generated transcript).  Bodies
have real line breaks, hostile text is neutralized and drawn only as text, and
a small AppTest script renders the view.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from inspector.conversation import (
    CHECKPOINT,
    CLOSE,
    CROSS,
    FORK,
    HEAD_LINES,
    OPEN,
    OPEN_END,
    Body,
    ColumnLanes,
    LaneIndex,
    body_of,
    conversation_rows,
    gutters,
    lane_index,
    readable_text,
    split_body,
)
from inspector.rows import Row, aligned_rows
from inspector.theme import STYLES
from integrity import Analysis, FindingCode, RepairKind, analyze, facts, load

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p.name for p in (ROOT / "sample_transcripts").iterdir() if p.suffix in (".json", ".jsonl"))
POLICIES = ("strict", "openmaic")


def analysed(name: str, policy: str) -> tuple[Analysis, list[Row], LaneIndex]:
    transcript = load((ROOT / "sample_transcripts" / name).read_bytes(), name)
    analysis = analyze(transcript, policy)
    rows = aligned_rows(analysis)
    return analysis, rows, lane_index(analysis, rows)


def from_messages(messages: list[dict[str, Any]], policy: str = "strict") -> tuple[Analysis, list[Row], LaneIndex]:
    analysis = analyze(load(json.dumps(messages).encode(), "generated.json"), policy)
    rows = aligned_rows(analysis)
    return analysis, rows, lane_index(analysis, rows)


def glyph_at(column: ColumnLanes, row: int, lane_column: int) -> str:
    line = gutters(column, row, row + 1)[0].line
    return line[lane_column] if lane_column < len(line) else " "


def strays(analysis: Analysis) -> set[int]:
    report = analysis.report
    found = {i for f in report.findings if f.kind == FindingCode.STRAY_RESULT for i in f.durable_indices}
    return found | {a.durable_index for a in report.actions if a.kind == RepairKind.DROPPED_STRAY}


CASES = [(name, policy) for name in SAMPLES for policy in POLICIES]


@pytest.mark.parametrize(("name", "policy"), CASES)
def test_every_call_in_the_view_is_closed_by_the_result_the_report_pairs_it_with(name: str, policy: str) -> None:
    analysis, rows, index = analysed(name, policy)
    report = analysis.report
    lanes = {(lane.frame, lane.call_position): lane for lane in index.view.lanes}
    claimed: dict[int, list[int]] = {}
    for pairing in report.pairings:
        claimed.setdefault(pairing.view_index, []).append(pairing.frame_index)
    for pairing in report.pairings:
        frame_view = report.actions[pairing.frame_index].view_index
        lane = lanes.get((pairing.frame_index, pairing.call_position))
        if frame_view is None:
            assert lane is None
            continue
        assert lane is not None and lane.opened == index.row_of_view[frame_view]
        assert len(lane.results) == 1, (pairing, lane)
        closed_at = rows[lane.results[0]].right
        if len(claimed[pairing.view_index]) == 1:
            assert closed_at == pairing.view_index
        else:  # the report names one place for several calls: each lane still gets a result of its own
            assert analysis.view[closed_at]["role"] == "toolResult"
        assert glyph_at(index.view, lane.results[0], lane.column) == CLOSE
        assert glyph_at(index.view, lane.opened, lane.column) == OPEN
    closing = [lane.results[0] for lane in index.view.lanes]
    assert len(closing) == len(set(closing)), "a view result closes two lanes"
    stray_rows = {index.row_of_view[a.view_index] for a in report.actions
                  if a.durable_index in strays(analysis) and a.view_index is not None}
    result_rows = {index.row_of_view[p] for p, message in enumerate(analysis.view)
                   if isinstance(message, dict) and message.get("role") == "toolResult"}
    assert set(closing) == result_rows - stray_rows
    assert not stray_rows & set(index.view.results)


@pytest.mark.parametrize(("name", "policy"), CASES)
def test_durable_lanes_open_ends_strays_and_forks(name: str, policy: str) -> None:
    analysis, rows, index = analysed(name, policy)
    report = analysis.report
    lanes = {(lane.frame, lane.call_position): lane for lane in index.durable.lanes}
    single_use = {p.call_id for p in report.pairings if sum(q.call_id == p.call_id for q in report.pairings) == 1}
    forks: set[tuple[int, int]] = set()
    for pairing in report.pairings:
        lane = lanes[(pairing.frame_index, pairing.call_position)]
        assert lane.opened == index.row_of_durable[pairing.frame_index]
        recorded = [rows[r].left for r in lane.results]
        assert set(recorded) <= set(pairing.result_indices)
        if not pairing.result_indices:  # an orphan: an open end on its frame's row, and nothing below
            assert lane.results == [] and glyph_at(index.durable, lane.opened, lane.column) == OPEN_END
        if pairing.call_id in single_use:
            assert recorded == sorted(r for r in pairing.result_indices if r > pairing.frame_index)
        for row in lane.results[:-1]:
            forks.add((row, lane.column))
        if lane.results:
            assert glyph_at(index.durable, lane.results[-1], lane.column) == CLOSE
    full = gutters(index.durable, 0, len(rows))
    drawn = {(row, col) for row, gutter in enumerate(full) for col, glyph in enumerate(gutter.line) if glyph == FORK}
    assert drawn == forks
    assert all(OPEN_END not in gutter.line and FORK not in gutter.line for gutter in gutters(index.view, 0, len(rows)))
    stray_rows = {index.row_of_durable[i] for i in strays(analysis)}
    assert not stray_rows & set(index.durable.results)
    for row in stray_rows:
        assert not set(full[row].line) & {OPEN, CLOSE, FORK, OPEN_END}


def expected_crossings(answers: dict[tuple[int, int], list[int]]) -> set[int]:
    """Rows where a call's result comes before the first result of an earlier call of the same frame."""
    rows = set()
    for (frame, position), results in answers.items():
        for row in results:
            if any(f == frame and p < position and other and other[0] > row for (f, p), other in answers.items()):
                rows.add(row)
    return rows


@pytest.mark.parametrize(("name", "policy"), CASES)
def test_crossings_sit_exactly_where_results_are_out_of_call_order(name: str, policy: str) -> None:
    analysis, rows, index = analysed(name, policy)
    report = analysis.report
    view_answers = {(p.frame_index, p.call_position): [index.row_of_view[p.view_index]]
                    for p in report.pairings if p.view_index is not None
                    and report.actions[p.frame_index].view_index is not None}
    ids = [p.call_id for p in report.pairings]
    durable_answers = {(p.frame_index, p.call_position): sorted(index.row_of_durable[r] for r in p.result_indices
                                                                 if r > p.frame_index)
                       for p in report.pairings if ids.count(p.call_id) == 1}
    for column, answers in ((index.view, view_answers), (index.durable, durable_answers)):
        drawn = {row for row, gutter in enumerate(gutters(column, 0, len(rows))) if CROSS in gutter.line}
        if column is index.durable and len(durable_answers) < len(report.pairings):
            assert drawn >= expected_crossings(answers)
        else:
            assert drawn == expected_crossings(answers)


@pytest.mark.parametrize("policy", POLICIES)
def test_the_out_of_order_sample_crosses_where_the_report_says(policy: str) -> None:
    analysis, rows, index = analysed("out_of_order.pi-ai.json", policy)
    durable = gutters(index.durable, 0, len(rows))
    assert [row for row, g in enumerate(durable) if CROSS in g.line] == [index.row_of_durable[2]]
    view = gutters(index.view, 0, len(rows))
    crossed = [row for row, g in enumerate(view) if CROSS in g.line]
    assert crossed == ([] if policy == "strict" else [index.row_of_view[2]])  # strict puts results in call order


@pytest.mark.parametrize(("name", "policy"), CASES)
def test_windows_draw_the_same_lanes_as_the_whole(name: str, policy: str) -> None:
    _, rows, index = analysed(name, policy)
    for column in (index.durable, index.view):
        whole = gutters(column, 0, len(rows))
        for size in (1, 2, 3):
            for start in range(len(rows)):
                window = gutters(column, start, start + size)
                assert [(g.line.rstrip(), g.through.rstrip()) for g in window] == \
                    [(g.line.rstrip(), g.through.rstrip()) for g in whole[start:start + size]]


def generated(turns: int) -> list[dict[str, Any]]:
    """Turns of two calls each: in order, out of order, split by a user message, duplicated, or orphaned."""
    messages: list[dict[str, Any]] = []
    for turn in range(turns):
        a, b = f"a{turn}", f"b{turn}"
        messages.append({"role": "user", "content": f"step {turn}"})
        messages.append({"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": a, "name": "run", "arguments": {"n": turn}},
            {"type": "toolCall", "id": b, "name": "read", "arguments": {"n": turn}}]})
        ra = {"role": "toolResult", "toolCallId": a, "toolName": "run", "content": [{"type": "text", "text": "ok"}]}
        rb = {"role": "toolResult", "toolCallId": b, "toolName": "read", "content": [{"type": "text", "text": "x\ny"}]}
        shape = turn % 5
        if shape == 0:
            messages += [ra, rb]
        elif shape == 1:
            messages += [rb, ra]
        elif shape == 2:
            messages += [ra] + [{"role": "user", "content": "wait"}] * (turn % 7) + [rb]
        elif shape == 3:
            messages += [ra, rb, dict(rb, content=[{"type": "text", "text": "x\nz"}])]
        else:
            messages += [ra, {"role": "toolResult", "toolCallId": f"gone{turn}", "toolName": "grep", "content": []}]
        messages.append({"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": "done"}]})
    return messages


@pytest.mark.parametrize("policy", POLICIES)
def test_windows_across_checkpoints_match_the_whole(policy: str) -> None:
    messages = generated(90)
    messages.insert(3, {"role": "assistant", "stopReason": "toolUse", "content": [
        {"type": "toolCall", "id": "late", "name": "slow", "arguments": {}}]})
    messages.append({"role": "toolResult", "toolCallId": "late", "toolName": "slow", "content": []})  # spans it all
    _, rows, index = from_messages(messages, policy)
    assert len(rows) > 3 * CHECKPOINT
    for column in (index.durable, index.view):
        whole = [(g.line.rstrip(), g.through.rstrip()) for g in gutters(column, 0, len(rows))]
        for start in (0, 1, CHECKPOINT - 1, CHECKPOINT, CHECKPOINT + 5, 2 * CHECKPOINT + 77, len(rows) - 3):
            for size in (1, 50, 100):
                window = [(g.line.rstrip(), g.through.rstrip()) for g in gutters(column, start, start + size)]
                assert window == whole[start:start + size]
    late = next(lane for lane in index.durable.lanes if lane.call == "slow#late")
    middle = (late.opened + late.end) // 2
    assert gutters(index.durable, middle, middle + 1)[0].line[late.column] != " "  # passes through the window


# ----------------------------------------------------------------------------- text


def test_tool_output_has_real_line_breaks() -> None:
    stderr = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad'
    text = readable_text(json.dumps({"ok": False, "stderr": stderr}))
    lines = text.split("\n")
    assert "\\n" not in text
    assert lines[3].strip() == "Traceback (most recent call last):" and lines[4].strip() == 'File "x.py", line 1'
    assert readable_text(json.dumps("a\nb")) == "a\nb"
    assert readable_text("plain \\n stays") == "plain \\n stays"
    body = body_of({"role": "toolResult", "toolCallId": "c", "toolName": "t",
                    "content": [{"type": "text", "text": json.dumps({"out": stderr})}]})
    assert "ValueError: bad" in body.text.split("\n")[-2]


def test_sample_bodies_have_real_newlines_and_pretty_arguments() -> None:
    analysis, rows, index = analysed("abort_race.pi-ai.json", "strict")
    page = conversation_rows(analysis, rows, 0, len(rows), index)
    result = next(r for r in page if r.left.position == 2)
    assert result.left.body is not None and result.left.body.text.split("\n") == ["[server]", "port = 8080"]
    frame = next(r for r in page if r.left.position == 1)
    assert frame.left.body is not None and '  "path": "config.toml"' in frame.left.body.text.split("\n")


def test_long_outputs_fold_into_a_head_and_a_rest() -> None:
    text = "\n".join(f"line {n}" for n in range(200))
    body = split_body(text)
    assert body.head.count("\n") == HEAD_LINES and body.rest and body.head + body.rest == text
    assert body.rest_lines == 200 - HEAD_LINES
    assert split_body("short\ntext") == Body("short\ntext")


def test_a_dropped_duplicate_is_compared_with_the_kept_result() -> None:
    analysis, rows, index = analysed("two_results.openai-chat.json", "strict")
    page = conversation_rows(analysis, rows, 0, len(rows), index)
    row = next(r for r in page if r.kind == RepairKind.DROPPED_DUPLICATE.value)
    found = row.comparison
    assert found is not None and (found.dropped, found.kept, found.kept_view) == (3, 2, 2)
    assert found.reason == analysis.report.actions[3].reason
    assert "-Error: search backend timed out after 30s" in found.diff.split("\n")
    assert any(line.startswith("+blog.rust-lang.org") for line in found.diff.split("\n"))
    assert row.badges[0].name == facts(RepairKind.DROPPED_DUPLICATE).name
    assert row.badges[0].icon == STYLES[RepairKind.DROPPED_DUPLICATE.value].icon


@pytest.mark.parametrize(("name", "policy"), CASES)
def test_badges_and_empty_sides_say_what_the_report_says(name: str, policy: str) -> None:
    analysis, rows, index = analysed(name, policy)
    for crow in conversation_rows(analysis, rows, 0, len(rows), index):
        assert [b.name for b in crow.badges] == ([] if crow.kind == "kept" else [facts(crow.kind).name])
        if crow.left.position is None and crow.right.position is not None:
            entry = analysis.report.view[crow.right.position]
            if entry.source == "durable":
                assert f"durable #{entry.index}, row {index.row_of_durable[entry.index]}" in crow.left.placeholder
            elif entry.source in ("synthesized", "turn"):
                assert "only in the view" in crow.left.placeholder
        if crow.right.position is None and crow.left.position is not None:
            moved_to = analysis.report.actions[crow.left.position].view_index
            assert (f"view #{moved_to}" in crow.right.placeholder) if moved_to is not None else \
                crow.right.placeholder == "(left out of the view)"


HOSTILE = "<script>alert(1)</script> ![x](http://evil.example/p.png) [click](javascript:alert(1)) \u202eexe.txt\u200b"


def hostile_transcript() -> list[dict[str, Any]]:
    call_id = "call\u202e1"
    return [
        {"role": "user", "content": HOSTILE},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": HOSTILE},
            {"type": "toolCall", "id": call_id, "name": "ev\u202eil", "arguments": {"q": HOSTILE}}]},
        {"role": "toolResult", "toolCallId": call_id, "toolName": "ev\u202eil",
         "content": [{"type": "text", "text": HOSTILE}]},
        {"role": "toolResult", "toolCallId": call_id, "toolName": "ev\u202eil",
         "content": [{"type": "text", "text": HOSTILE + "\nsecond"}]},
    ]


def test_hostile_text_is_neutralized_in_every_string() -> None:
    analysis, rows, index = from_messages(hostile_transcript())
    page = conversation_rows(analysis, rows, 0, len(rows), index)
    strings: list[str] = []
    for crow in page:
        strings += [crow.note, crow.left.title, crow.right.title, crow.left.placeholder, crow.right.placeholder]
        for side in (crow.left, crow.right):
            if side.body is not None:
                strings += [side.body.head, side.body.rest]
        if crow.comparison is not None:
            strings += [crow.comparison.diff, crow.comparison.reason, crow.comparison.headline]
    assert not any("\u202e" in s or "\u200b" in s for s in strings)
    assert any("<script>alert(1)</script>" in s and "⟨U+202E⟩" in s for s in strings)
    assert any("ev⟨U+202E⟩il" in s for s in strings)


def render_script(name: str, policy: str, data: bytes) -> None:
    """The AppTest script: a transcript drawn through render_conversation (run as its own source: no imports here)."""
    import streamlit as st_module

    from inspector.conversation_ui import render_conversation, render_legend
    from inspector.rows import aligned_rows as rows_of
    from integrity import analyze as analyze_it
    from integrity import load as load_it

    analysis = analyze_it(load_it(data, name), policy)
    rows = rows_of(analysis)
    render_legend()
    picked = st_module.session_state.get("picked")
    render_conversation(analysis, rows, 0, len(rows), picked,
                        lambda row: st_module.session_state.__setitem__("picked", row))


def run_app(name: str, policy: str = "strict", messages: Any = None) -> AppTest:
    data = json.dumps(messages).encode() if messages is not None else (ROOT / "sample_transcripts" / name).read_bytes()
    at = AppTest.from_function(render_script, args=(name, policy, data), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_conversation_of_a_sample_renders() -> None:
    at = run_app("two_results.openai-chat.json")
    codes = [c.value for c in at.code]
    assert "Error: search backend timed out after 30s" in codes
    assert any(c.startswith("--- kept #2") for c in codes)  # the diff of the dropped duplicate
    assert any(OPEN in c for c in codes) and any(FORK in c for c in codes)
    texts = [t.value for t in at.text]
    assert any("Dropped durable #3; kept durable #2 (view #2)" in t for t in texts)
    at.button(key="conversation-select-3").click().run()
    assert at.session_state["picked"] == 3
    assert at.button(key="conversation-select-3").label.startswith("●")


def test_hostile_text_is_drawn_only_as_text() -> None:
    at = run_app("hostile.json", messages=hostile_transcript())
    shown = [str(e.value) for e in [*at.code, *at.text]]
    assert any("<script>alert(1)</script>" in s for s in shown)
    for element in [*at.markdown, *at.caption]:  # our own words only: no transcript text as Markdown
        assert "script" not in element.value and "evil" not in element.value and "\u202e" not in element.value
    assert not any("\u202e" in s for s in shown)


def test_an_opaque_entry_shows_what_it_holds() -> None:
    """A native entry kept as it is (a Responses output answering a stored call, a Codex web search...) was
    shown as '(empty)', hiding the very output a user looks for."""
    output = {"type": "function_call_output", "call_id": "call_1", "output": "42"}
    body = body_of({"role": "opaque", "format": "openai-responses", "value": output})
    assert "function_call_output" in body.head and "call_1" in body.head and "(empty)" not in body.head


def test_a_blank_text_is_shown_as_such_not_as_nothing() -> None:
    """A user's or assistant's text that is empty or only whitespace (what Anthropic refuses, and the view planned
    for it leaves out) is named with its exact characters; a tool result's text is shown as it is."""
    from inspector.conversation import message_text

    frame = {"role": "assistant", "content": [{"type": "text", "text": "\n\n"},
                                              {"type": "toolCall", "id": "c1", "name": "f", "arguments": {}}]}
    assert message_text(frame).startswith('(blank text "\\n\\n")\n\n→ call f (id c1)')
    assert message_text({"role": "user", "content": ""}) == '(blank text "")'
    assert message_text({"role": "toolResult", "content": [{"type": "text", "text": " "}]}) == " "
