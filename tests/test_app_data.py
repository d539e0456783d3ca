"""The UI-facing engine modules: aligned rows, pairings, verdict rows, Markdown, lessons, batch."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from inspector.batch import defect_totals, summarize_all
from inspector.lessons import LESSONS, example_bytes, repair_steps, view_after
from inspector.markdown import code, report_markdown
from inspector.rows import (
    aligned_rows,
    fill_previews,
    filter_rows,
    next_problem,
    pairs_for,
    preview,
    problem_rows,
    verdict_rows,
    violation_rows,
)
from inspector.theme import ROW_KINDS
from integrity import POLICIES, analyze, load
from integrity.pipeline import ProviderVerdict

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_transcripts").glob("*.pi-ai.json"))


def random_transcript(rng: random.Random, turns: int) -> list[dict[str, Any]]:
    """Agent traffic with every defect kind mixed in, ids sometimes reused, results sometimes stray."""
    out: list[dict[str, Any]] = []
    serial = 0
    for _ in range(turns):
        out.append({"role": "user", "content": "go"})
        calls = []
        for _ in range(rng.choice((0, 1, 2, 3))):
            serial += 1
            calls.append(f"c{serial if rng.random() > 0.05 else 1}")
        stop = rng.choice(["toolUse", "toolUse", "aborted", "length", "stop"])
        out.append({"role": "assistant", "stopReason": stop,
                    "content": [{"type": "toolCall", "id": c, "name": "t", "arguments": {}} for c in calls]})
        results = [{"role": "toolResult", "toolCallId": c, "toolName": "t", "content": [], "isError": False}
                   for c in calls if rng.random() > 0.15]
        rng.shuffle(results) if rng.random() < 0.2 else None
        if results and rng.random() < 0.15:
            results.append(dict(results[0]))
        if rng.random() < 0.1:
            results.insert(0, {"role": "toolResult", "toolCallId": f"gone{serial}", "toolName": "t", "content": []})
        if results and rng.random() < 0.15:
            results.insert(rng.randrange(len(results)), {"role": "assistant", "stopReason": "aborted", "content": []})
        out.extend(results)
    return out


def analysed(messages: list[dict[str, Any]], policy: str) -> Any:
    return analyze(load(json.dumps(messages).encode(), "t.json"), policy)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("seed", range(40))
def test_rows_show_every_durable_message_and_every_view_message_once(seed: int, policy: str) -> None:
    rng = random.Random(seed)
    analysis = analysed(random_transcript(rng, rng.randrange(1, 30)), policy)
    rows = aligned_rows(analysis)
    lefts = [r.left for r in rows if r.left is not None]
    rights = [r.right for r in rows if r.right is not None]
    assert lefts == list(range(len(analysis.transcript.messages)))  # durable order, each once
    assert rights == list(range(len(analysis.view)))  # view order, each once
    assert [r.row for r in rows] == list(range(len(rows)))
    for row in rows:
        assert row.kind in ROW_KINDS
        if row.left is not None and row.right is not None:
            same = analysis.view[row.right] is analysis.transcript.messages[row.left]
            assert same or analysis.report.actions[row.left].new_ids  # a copy only when ids were renamed
        if row.kind == "synthesized":
            assert row.left is None
        if row.kind.startswith("dropped"):
            assert row.right is None and row.note


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("seed", range(40))
def test_stepping_through_every_action_ends_exactly_at_the_view(seed: int, policy: str) -> None:
    rng = random.Random(1000 + seed)
    analysis = analysed(random_transcript(rng, rng.randrange(1, 25)), policy)
    report = analysis.report
    steps = repair_steps(report)
    assert view_after(report, steps, 0) == [("durable", i) for i in range(len(analysis.transcript.messages))]
    assert view_after(report, steps, len(steps)) == [
        ("durable", e.index) if e.source == "durable" else (e.source, position)
        for position, e in enumerate(report.view)]
    sizes = [len(view_after(report, steps, k)) for k in range(len(steps) + 1)]
    for step, before, after in zip(steps, sizes, sizes[1:], strict=False):  # one action at a time
        if step.kind == "shared":  # one result answering every later reuse of its id
            assert after - before == len(report.actions[step.durable_index].also_view_indices)
        else:
            assert abs(after - before) <= 1


def test_moved_result_travels_and_pairing_links_both_ends() -> None:
    analysis = analyze(load((ROOT / "sample_transcripts" / "abort_race.pi-ai.json").read_bytes()))
    rows = aligned_rows(analysis)
    moved = [r for r in rows if r.kind == "moved"]
    assert [(r.left, r.right) for r in moved] == [(None, 3), (4, None)]
    assert rows.index(moved[0]) < rows.index(moved[1])  # arrives next to its frame, leaves from where it was
    pairs = pairs_for(analysis, durable=4)
    assert pairs.durable == {1, 4} and pairs.view == {1, 3}
    assert pairs_for(analysis, view_position=3).calls == pairs.calls
    frame = pairs_for(analysis, durable=1)
    assert [c["call"] for c in frame.calls] == ["read_file#call_A", "grep#call_B"]


def test_synthesized_receipt_pairs_back_to_its_call() -> None:
    analysis = analyze(load((ROOT / "sample_transcripts" / "orphaned_call.pi-ai.json").read_bytes()))
    rows = aligned_rows(analysis)
    synthesized = next(r for r in rows if r.kind == "synthesized")
    pairs = pairs_for(analysis, view_position=synthesized.right)
    assert [c["call"] for c in pairs.calls] == ["read_file#call_readme"]
    assert pairs.calls[0]["answered by"] == "synthesized"
    assert next(r for r in rows if r.left == 1).kind == "orphaned_call"


def test_filters_context_search_and_next_problem() -> None:
    analysis = analyze(load((ROOT / "sample_transcripts" / "abort_race.pi-ai.json").read_bytes()))
    rows = aligned_rows(analysis)
    assert problem_rows(rows) == [2, 3, 4, 5, 6]
    assert [r.row for r in filter_rows(rows, problems_only=True, context=0)] == [3, 4, 5]
    assert [r.row for r in filter_rows(rows, kinds=["dropped_interrupted_frame"])] == [4]
    assert [r.row for r in filter_rows(rows, search="CALL_b")] == [1, 3, 5]
    assert next_problem(rows, -1) == 3 and next_problem(rows, 5) == 3 and next_problem(rows, 3) == 4
    healthy = aligned_rows(analyze(load((ROOT / "sample_transcripts" / "healthy.pi-ai.json").read_bytes())))
    assert next_problem(healthy, -1) is None and filter_rows(healthy, problems_only=True) == []


def test_previews_are_short_single_lines_even_for_huge_messages() -> None:
    huge = {"role": "toolResult", "toolCallId": "x", "toolName": "t",
            "content": [{"type": "text", "text": "line\n" * 2_000_000}]}
    text = preview(huge)
    assert len(text) <= 140 and "\n" not in text
    assert preview(["not", "a", "dict"]).startswith("['not'")


def test_a_blank_text_is_seen_in_a_preview_and_gone_from_the_view_sent_to_anthropic() -> None:
    """A text that is empty or only whitespace would show as nothing: the preview names it, so the row of a
    message the view sends without it (blank text left out) shows what changed."""
    frame = {"role": "assistant", "stopReason": "toolUse", "content": [
        {"type": "text", "text": ""}, {"type": "toolCall", "id": "c1", "name": "f", "arguments": {}}]}
    assert preview(frame) == "assistant → f#c1: (blank text)"
    assert preview({"role": "user", "content": " \n"}) == "user: (blank text)"
    assert preview({"role": "user", "content": [{"type": "text", "text": " ok "}]}) == "user:  ok "
    messages = [{"role": "user", "content": "go"}, frame,
                {"role": "toolResult", "toolCallId": "c1", "toolName": "f", "content": [], "isError": False},
                {"role": "user", "content": "next"}]
    analysis = analyze(load(json.dumps(messages).encode(), "t.pi-ai.json"), "strict", provider="anthropic")
    assert preview(analysis.view[1]) == "assistant → f#c1"


def test_verdict_rows_accept_objects_or_dicts_and_an_empty_mapping() -> None:
    analysis = analyze(load((ROOT / "sample_transcripts" / "healthy.pi-ai.json").read_bytes()))
    analysis.verdicts = {}
    assert verdict_rows(analysis) == []

    class Violation:
        provider, rule, position, native_indices, call_ids, error = "bedrock", "r", 2, [3], ["a"], "Expected toolResult"

    analysis.verdicts = {"bedrock": ProviderVerdict("bedrock", [Violation()], []),  # type: ignore[list-item]
                         "gemini": ProviderVerdict("gemini", [], [])}
    assert verdict_rows(analysis) == [
        {"provider": "bedrock", "before repair": "✖ rejected (1)", "after repair": "✔ accepted"},
        {"provider": "gemini", "before repair": "✔ accepted", "after repair": "✔ accepted"},
    ]
    assert violation_rows([Violation()])[0] == {"provider": "bedrock", "rule": "r", "position": "2",
                                                "durable entries": "#3", "call ids": "a",
                                                "provider error": "Expected toolResult"}


def test_markdown_keeps_transcript_strings_inside_code_spans() -> None:
    hostile_id = "x` ![p](https://evil.example/p.png) <script>alert(1)</script> | col"
    messages = [{"role": "assistant", "stopReason": "toolUse",
                 "content": [{"type": "toolCall", "id": hostile_id, "name": "t`ool", "arguments": {}}]}]
    analysis = analyze(load(json.dumps(messages).encode(), "evil`name.json"))
    text = report_markdown(analysis.report)
    for line in text.splitlines():
        if "evil.example" in line:
            # every occurrence sits inside a code span opened with a longer backtick fence
            assert "``x` ![p](https://evil.example/p.png) <script>alert(1)</script> \\| col``" in line
    assert "| col" not in text.replace("\\| col", "")  # a pipe inside a cell is escaped: it cannot split the cell
    assert code("a`b") == "``a`b``" and code("`") == "`` ` ``" and code("two\nlines") == "`two lines`"


def test_markdown_lists_changes_findings_and_verdicts() -> None:
    analysis = analyze(load((ROOT / "sample_transcripts" / "crash_duplicate.pi-ai.json").read_bytes(), "c.json"),
                       "openmaic")
    text = report_markdown(analysis.report, {"deepseek": ProviderVerdict("deepseek", [object()], [])})  # type: ignore[list-item]
    assert "### Actions (1 of 6 durable messages changed)" in text
    assert "| 3 | `toolResult` | dropped duplicate |" in text
    assert "| `deepseek` | rejected (1) | accepted |" in text


def test_batch_rows_and_totals() -> None:
    rows = [row for p in SAMPLES for row in summarize_all(p.name, p.read_bytes())] + summarize_all("broken.json", b"[")
    by_name = {row["file"]: row for row in rows}
    assert by_name["broken.json"]["status"] == "unreadable"
    assert by_name["broken.json"]["verdict"].startswith("broken.json: line 1")
    assert by_name["healthy.pi-ai.json"]["status"] == "healthy"
    totals = defect_totals(rows)
    assert totals["dropped duplicate"] == sum(row["dropped duplicate"] for row in rows) >= 1
    assert totals["orphaned call"] >= 1 and totals["dropped interrupted frame"] >= 1


def test_every_lesson_has_its_sample_and_shows_something_to_learn() -> None:
    for lesson in LESSONS:
        data = example_bytes(lesson)
        assert data, lesson.key
        reports = [analyze(load(data, lesson.example_name), policy, provider=lesson.provider).report
                   for policy in POLICIES]
        assert any(report.changed or report.findings for report in reports), lesson.key
        assert lesson.claims


def test_short_numbers_fit_a_metric() -> None:
    from inspector import ui

    assert [ui.short_number(n) for n in (7, 36_212, 100_000, 250_400, 1_234_567)] == [
        "7", "36,212", "100k", "250k", "1.2M"]


@pytest.mark.parametrize("seed", range(10))
def test_rows_without_previews_fill_to_the_same_rows(seed: int) -> None:
    rng = random.Random(500 + seed)
    analysis = analysed(random_transcript(rng, 20), POLICIES[0])
    full = aligned_rows(analysis)
    lazy = aligned_rows(analysis, previews=False)
    assert all(not r.filled and r.left_text == r.right_text == "" for r in lazy)
    fill_previews(analysis, lazy[:5])
    assert [r.filled for r in lazy[:6]] == [True] * 5 + [False] * (len(lazy[5:6]))
    fill_previews(analysis, lazy)
    assert lazy == full
