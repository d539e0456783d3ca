"""The Inspector's kept indexes give the same answers as the scans they replace.

A key press at 100,000 messages only slices what was built once (inspector.rows'
search index, pairing index and binary position lookup; inspector.row_cache keeps
them): each must agree with the plain scan on every sample, every policy and a
generated transcript with every defect kind, or the fast page would show other
rows than the slow one did.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from inspector.rows import (
    aligned_rows,
    fill_previews,
    filter_rows,
    pair_index,
    pairs_for,
    position_in,
    search_index,
)
from inspector.verdict_ui import estimate
from integrity import POLICIES, Analysis, analyze, load

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "sample_transcripts").iterdir() if p.suffix in (".json", ".jsonl"))
sys.path.insert(0, str(ROOT / "bench"))

from generate import messages  # noqa: E402  (bench/generate.py: every defect kind)


def analyses() -> list[tuple[str, Analysis]]:
    found = [(f"{path.name}/{policy}", analyze(load(path.read_bytes(), path.name), policy))
             for path in SAMPLES for policy in POLICIES]
    generated = json.dumps(list(messages(1_500, seed=3, defect_rate=0.3))).encode()
    found += [(f"generated/{policy}", analyze(load(generated, "generated.json"), policy)) for policy in POLICIES]
    return found


ANALYSES = analyses()


@pytest.mark.parametrize(("name", "analysis"), ANALYSES, ids=[name for name, _ in ANALYSES])
def test_the_search_index_finds_what_the_row_scan_finds(name: str, analysis: Analysis) -> None:
    rows = aligned_rows(analysis, previews=False)
    fill_previews(analysis, rows)
    index = search_index(rows)
    needles = {"call", "RESULT", "  read_file ", "#", "moved", "zzz-not-there", "→"}
    needles |= {row.call_ids[0][2:9] for row in rows[:40] if row.call_ids}  # pieces of real ids, any case
    needles |= {row.left_text[5:12].upper() for row in rows[:40] if len(row.left_text) > 12}
    for needle in sorted(needles):
        for problems_only in (False, True):
            for kinds in ((), ("kept",), ("moved", "synthesized", "dropped_duplicate")):
                plain = filter_rows(rows, problems_only, kinds, needle)
                fast = filter_rows(rows, problems_only, kinds, needle, index=index)
                assert [r.row for r in fast] == [r.row for r in plain], (name, needle, problems_only, kinds)


@pytest.mark.parametrize(("name", "analysis"), ANALYSES, ids=[name for name, _ in ANALYSES])
def test_position_in_is_where_the_row_is_in_any_filtered_list(name: str, analysis: Analysis) -> None:
    rows = aligned_rows(analysis)
    for shown in (rows, filter_rows(rows, problems_only=True), rows[1::3], []):
        where = {row.row: n for n, row in enumerate(shown)}
        for number in range(-1, len(rows) + 1):
            assert position_in(shown, number) == where.get(number), (name, number)
    assert position_in(rows, None) is None


@pytest.mark.parametrize(("name", "analysis"), ANALYSES, ids=[name for name, _ in ANALYSES])
def test_the_pairing_index_pairs_every_row_as_the_scan_did(name: str, analysis: Analysis) -> None:
    report = analysis.report
    index = pair_index(analysis)

    def scanned(durable: int) -> list[object]:  # the lookup pairs_for made before the index: three scans
        return [p for p in report.pairings if p.frame_index == durable] \
            or [p for p in report.pairings if p.answered_by == durable] \
            or [p for p in report.pairings if durable in p.result_indices]

    for durable in range(len(analysis.transcript.messages)):
        found = list(index.by_frame.get(durable, ()) or index.by_answer.get(durable, ())
                     or index.by_result.get(durable, ()))
        assert found == scanned(durable), (name, durable)
    for row in aligned_rows(analysis):
        fast = pairs_for(analysis, durable=row.left, view_position=row.right, index=index) \
            if row.left is not None else pairs_for(analysis, view_position=row.right, index=index)
        built = pairs_for(analysis, durable=row.left, view_position=row.right) \
            if row.left is not None else pairs_for(analysis, view_position=row.right)
        assert (fast.calls, fast.durable, fast.view) == (built.calls, built.durable, built.view), (name, row.row)


def test_the_time_estimate_comes_from_what_was_measured() -> None:
    assert estimate({}) == ""  # nothing measured yet: no number is promised
    measured = {"openai-chat": 1.5, "gemini": 4.5}
    # the two measured at their own time, the six others at the mean of those (3 s each)
    assert estimate(measured) == ": about 24 s"
    assert estimate(measured, ["gemini", "anthropic"], "{} s left") == "8 s left"
    assert estimate({"deepseek": 0.1}, ["deepseek"]) == ": about 0.1 s"
