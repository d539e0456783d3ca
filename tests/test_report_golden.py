"""Golden-file tests: the repair report of a few representative transcripts, kept stable.

Each case is tests/golden/<name>.input.json (pi-ai messages) with its expected
report in tests/golden/<name>.report.json (reference policy) and
tests/golden/<name>.strict.report.json (strict policy).  tests/golden/v1/ keeps the
version 1 reports of the reference policy: they must still load, as the same
report.  After an intended change to the report, regenerate the goldens and
review the diff by eye:

    UPDATE_GOLDEN=1 python3 -m pytest tests/test_report_golden.py
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from integrity import repair_orphaned_tool_calls, repair_with_report, view_from_report
from integrity.report import read_report

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


POLICIES = ("openmaic", "strict")


def report_for(name: str, policy: str = "openmaic") -> tuple[list[Any], Any, Any]:
    messages = load_input(name)
    result, report = repair_with_report(messages, now=lambda: NOW, source=f"{name}.input.json", policy=policy)
    return messages, result, report


def golden_path(name: str, policy: str) -> Path:
    return GOLDEN / (f"{name}.report.json" if policy == "openmaic" else f"{name}.{policy}.report.json")


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_report_matches_golden(name: str, policy: str) -> None:
    _, _, report = report_for(name, policy)
    actual = msgspec.to_builtins(report, str_keys=True)
    path = golden_path(name, policy)
    if UPDATE:
        path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert path.is_file(), f"missing golden {path}; run with UPDATE_GOLDEN=1 to create it"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert actual == expected, f"report for {name} changed; if intended, run with UPDATE_GOLDEN=1 and review the diff"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_report_rebuilds_the_view(name: str, policy: str) -> None:
    """The committed report alone (with the input) reproduces the repaired view."""
    messages, result, _ = report_for(name, policy)
    snapshot = copy.deepcopy(messages)
    golden = json.loads(golden_path(name, policy).read_text(encoding="utf-8"))
    report = read_report(golden)
    assert view_from_report(report, messages) == result.messages
    if policy == "openmaic":
        assert result.messages == repair_orphaned_tool_calls(messages, now=lambda: NOW).messages
    assert messages == snapshot


@pytest.mark.parametrize("name", sorted(CASES))
def test_version_1_reports_still_load_as_the_same_report(name: str) -> None:
    """A report written by an earlier release reads as today's report (only note codes are new)."""
    old = json.loads((GOLDEN / "v1" / f"{name}.report.json").read_text(encoding="utf-8"))
    assert old["report_version"] == 1
    upgraded = msgspec.to_builtins(read_report(old), str_keys=True)
    current = msgspec.to_builtins(report_for(name)[2], str_keys=True)
    for report in (upgraded, current):
        for action in report["actions"]:
            action["codes"] = []
    # the verdict line is worded in its release's words (issue 25 renamed "duplicate receipt(s) dropped":
    # neither result need be a receipt; "1 calls" is "1 call" since the forty-second session); every count,
    # action and severity must still be the same
    said = upgraded.pop("verdict").replace("duplicate receipt(s)", "duplicate result(s)")
    said = said.replace(" 1 calls,", " 1 call,")
    assert said == current.pop("verdict")
    assert upgraded == current


def test_goldens_cover_the_intended_shapes() -> None:
    """Pin the headline of each golden so a regenerated file cannot silently change its meaning."""
    reports = {name: report_for(name)[2] for name in CASES}

    race = reports["abort_race"]
    assert race.changed and not race.healthy
    assert [a.kind for a in race.actions] == ["kept", "kept", "kept", "dropped_interrupted_frame", "moved",
                                              "kept", "kept"]
    assert race.actions[4].view_index == 3 and race.repaired_tool_calls == []

    crash = reports["crash_duplicate"]
    duplicate = crash.actions[3]
    assert duplicate.kind == "dropped_duplicate" and duplicate.kept_instead == 2
    assert crash.summary.duplicates_dropped == 1 and crash.synthesized == []
    assert duplicate.codes == ["real_result_after_receipt"]

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
