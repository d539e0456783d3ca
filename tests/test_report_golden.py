"""Golden-file tests: the repair report of a few representative transcripts, kept stable.

Each case is tests/golden/<name>.input.json (pi-ai messages) with its expected
report in tests/golden/<name>.report.json.  After an intended change to the
report, regenerate the goldens and review the diff by eye:

    UPDATE_GOLDEN=1 python3 -m pytest tests/test_report_golden.py
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from integrity import repair_orphaned_tool_calls, repair_with_report, view_from_report

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
NOW = 1763000009999  # the timestamp of every synthesized receipt

CASES = {
    "abort_race": "calls A and B; result A; an aborted frame; result B (moved back, frame dropped)",
    "crash_duplicate": "the runtime's interrupted receipt, then the real late result (duplicate dropped)",
    "orphan": "a call never answered, a pause and a length-stopped frame (receipt synthesized)",
    "stray_reorder_unchanged": "a stray result and a reordered but complete run (unchanged, two findings)",
    "healthy": "one call answered right after its frame",
}


def load_input(name: str) -> list[Any]:
    return json.loads((GOLDEN / f"{name}.input.json").read_text(encoding="utf-8"))


def report_for(name: str) -> tuple[list[Any], Any, Any]:
    messages = load_input(name)
    result, report = repair_with_report(messages, now=lambda: NOW, source=f"{name}.input.json", policy="openmaic")
    return messages, result, report


@pytest.mark.parametrize("name", sorted(CASES))
def test_report_matches_golden(name: str) -> None:
    _, _, report = report_for(name)
    actual = report.model_dump(mode="json")
    path = GOLDEN / f"{name}.report.json"
    if UPDATE:
        path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert path.is_file(), f"missing golden {path}; run with UPDATE_GOLDEN=1 to create it"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert actual == expected, f"report for {name} changed; if intended, run with UPDATE_GOLDEN=1 and review the diff"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_report_rebuilds_the_view(name: str) -> None:
    """The committed report alone (with the input) reproduces the repaired view."""
    messages, result, _ = report_for(name)
    snapshot = copy.deepcopy(messages)
    golden = json.loads((GOLDEN / f"{name}.report.json").read_text(encoding="utf-8"))
    from integrity import RepairReport

    report = RepairReport.model_validate(golden)
    assert view_from_report(report, messages) == result.messages
    assert result.messages == repair_orphaned_tool_calls(messages, now=lambda: NOW).messages
    assert messages == snapshot


def test_goldens_cover_the_intended_shapes() -> None:
    """Pin the headline of each golden so a regenerated file cannot silently change its meaning."""
    reports = {name: report_for(name)[2] for name in CASES}

    race = reports["abort_race"]
    assert race.changed and not race.healthy
    assert [a.kind for a in race.actions] == ["kept", "kept", "kept", "dropped_interrupted_frame", "moved", "kept", "kept"]
    assert race.actions[4].view_index == 3 and race.repaired_tool_calls == []

    crash = reports["crash_duplicate"]
    duplicate = crash.actions[3]
    assert duplicate.kind == "dropped_duplicate" and duplicate.kept_instead == 2
    assert crash.summary.duplicates_dropped == 1 and crash.synthesized == []

    orphan = reports["orphan"]
    assert orphan.repaired_tool_calls == ["call_readme"]
    assert [(s.call_id, s.view_index, s.timestamp) for s in orphan.synthesized] == [("call_readme", 3, NOW)]
    assert orphan.actions[4].kind == "dropped_interrupted_frame"
    assert [p.outcome for p in orphan.pairings] == ["answered", "synthesized"]

    stray = reports["stray_reorder_unchanged"]
    assert not stray.changed and not stray.healthy
    assert sorted(f.kind for f in stray.findings) == ["results_out_of_order", "stray_result"]
    assert stray.verdict.startswith("unchanged (would be rejected)")

    healthy = reports["healthy"]
    assert healthy.healthy and not healthy.changed and healthy.findings == []
    assert healthy.verdict.startswith("healthy:")


def test_duplicate_left_in_place_is_reported() -> None:
    """A second result for a call, away from any frame, is left in place by the reference
    (the run right after the frame is complete, so nothing is repaired).  The view then
    answers the call twice, which a strict provider rejects: the report must not call
    the transcript healthy, and some finding must name the extra result (#4)."""
    messages = [
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "A", "name": "t", "arguments": {}}],
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "A", "toolName": "t", "content": [], "isError": False, "timestamp": 3},
        {"role": "user", "content": "next", "timestamp": 4},
        {"role": "toolResult", "toolCallId": "A", "toolName": "t", "content": [], "isError": False, "timestamp": 5},
    ]
    result, report = repair_with_report(messages, now=lambda: 0, policy="openmaic")
    assert result.messages is messages  # reference parity: unchanged
    assert not report.healthy, report.verdict
    assert any(4 in finding.durable_indices for finding in report.findings), report.findings
