"""Every statement the Inspector makes about where a message went agrees with the report's view.

Walks every sample (every transcript in each file) x both policies x every row,
and checks the detail panel's statements and the row notes against
`report.view` directly (not through the mapping the page uses), so a screen can
never say "not in the view" about a message that moved, or "only in the view"
about a durable one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspector.detail import row_detail
from inspector.rows import aligned_rows, rows_by_side
from integrity import POLICIES, analyze, load_all, view_placement

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "sample_transcripts").glob("*.json*"))


def sources_of(report, position: int) -> set[int]:
    entry = report.view[position]
    if entry.source == "durable":
        return {entry.index}
    if entry.source == "merged":
        return set(entry.members)
    return set()


def sent_at(report, durable: int) -> set[int]:
    return {p for p in range(len(report.view)) if durable in sources_of(report, p)}


def cases():
    for path in SAMPLES:
        for policy in POLICIES:
            yield pytest.param(path, policy, id=f"{path.name}-{policy}")


@pytest.mark.parametrize(("path", "policy"), list(cases()))
def test_every_statement_on_every_row_matches_the_report(path: Path, policy: str) -> None:
    for transcript in load_all(path.read_bytes(), path.name):
        analysis = analyze(transcript, policy)
        report = analysis.report
        where = view_placement(report)
        rows = aligned_rows(analysis)
        by_left, by_right = rows_by_side(rows)
        assert set(by_left) == set(range(len(report.actions))), "every durable message has a row"
        assert set(by_right) == set(range(len(report.view))), "every view message has a row"
        for row in rows:
            detail = row_detail(analysis, where, row)
            assert detail.statements, row
            for said in detail.statements:
                for position in said.view:
                    assert f"view #{position}" in said.text.lower(), said
                if said.what == "sent":
                    (durable,) = said.durable
                    assert set(said.view) == sent_at(report, durable) != set(), said
                    assert not re.search(r"not (in|sent)", said.text), said
                elif said.what == "not_sent":
                    (durable,) = said.durable
                    assert sent_at(report, durable) == set(), said
                elif said.what == "made_of":
                    (position,) = said.view
                    assert set(said.durable) == sources_of(report, position) != set(), said
                    assert "only in the view" not in said.text, said
                elif said.what == "only_in_view":
                    (position,) = said.view
                    assert sources_of(report, position) == set(), said
                elif said.what == "kept_instead":
                    (kept,) = said.durable
                    assert set(said.view) == sent_at(report, kept), said
                elif said.what == "read_otherwise":
                    assert said.durable == (row.left,) and "read empty" in said.text, said
                else:
                    pytest.fail(f"unknown statement {said.what}")
            # the row's own note: "view #N" on a durable-only row and "durable #N" on a view-only row
            if row.left is not None and row.right is None:
                for number in map(int, re.findall(r"view #(\d+)", row.note)):
                    assert row.left in sources_of(report, number), (row, number)
            if row.right is not None and row.left is None:
                for number in map(int, re.findall(r"durable #(\d+)", row.note)):
                    assert number in sources_of(report, row.right), (row, number)


def test_a_moved_result_tells_the_same_truth_from_both_of_its_rows() -> None:
    """The issue's example: abort_race.pi-ai.json msg 4 moved to view #3 is sent, not 'not in the view'."""
    path = next(p for p in SAMPLES if p.name == "abort_race.pi-ai.json")
    analysis = analyze(load_all(path.read_bytes(), path.name)[0], "strict")
    where = view_placement(analysis.report)
    rows = aligned_rows(analysis)
    by_left, by_right = rows_by_side(rows)
    from_left = row_detail(analysis, where, rows[by_left[4]])
    from_right = row_detail(analysis, where, rows[by_right[3]])
    assert from_left.durable == from_right.durable == (4,)
    assert from_left.view == from_right.view == (3,)
    assert [s.what for s in from_left.statements] == ["sent"]
    assert [s.what for s in from_right.statements] == ["made_of"]


def test_an_answer_pi_never_sends_shows_what_the_file_holds_and_why_it_is_read_empty() -> None:
    """A pi answer that was aborted is read empty (pi leaves it out of every request); the screens show the text the
    file holds beside the reason, never an empty answer the file does not have."""
    import json

    from inspector.conversation import conversation_rows

    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    said = {"role": "assistant", "content": [{"type": "text", "text": "Half an answer"}], "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "aborted", "timestamp": 2}
    messages = [{"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}, said,
                {"role": "user", "content": [{"type": "text", "text": "again"}], "timestamp": 3}]
    entries = [header] + [{"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}" if n else None,
                           "timestamp": "2026-01-01T00:00:00Z", "message": message}
                          for n, message in enumerate(messages)]
    [transcript] = load_all("\n".join(map(json.dumps, entries)).encode(), "s.jsonl")
    assert transcript.messages[1]["content"] == []  # read as pi sends it
    analysis = analyze(transcript, "strict")
    rows = aligned_rows(analysis)
    by_left, _ = rows_by_side(rows)
    shown = conversation_rows(analysis, rows, 0, len(rows))[by_left[1]]
    assert "Half an answer" in shown.left.body.text
    assert "pi leaves an answer that was aborted out of every request, so it is read empty" in shown.note
    detail = row_detail(analysis, view_placement(analysis.report), rows[by_left[1]])
    assert [s.what for s in detail.statements][-1] == "read_otherwise"
    assert "the file holds 1 block(s) that no model is ever sent" in detail.statements[-1].text
