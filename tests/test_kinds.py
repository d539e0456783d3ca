"""The kind registry is the one list of kinds: every consumer must know every kind.

Adding a RepairKind, FindingCode or Mark without teaching a consumer about it
fails here, naming the consumer.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from inspector import batch, lessons, markdown, theme
from integrity import analyze, load
from integrity._diagnosis import _verdict
from integrity.kinds import (
    ACTION_KINDS,
    FAILING,
    FINDINGS,
    MARKS,
    NOTE_SEVERITIES,
    REPAIR_KINDS,
    SEVERITY_ORDER,
    UNIVERSAL_NOTES,
    VERDICT_ORDER,
    FindingCode,
    Mark,
    RepairKind,
    Severity,
    facts,
    fails,
    note_severity,
    rate,
    worst,
)
from integrity.notes import _TEMPLATES, NoteCode
from integrity.report import Summary

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
ALL_KINDS = [*RepairKind, *FindingCode, *Mark]


def test_every_kind_has_its_facts() -> None:
    assert set(REPAIR_KINDS) == set(RepairKind)
    assert set(FINDINGS) == set(FindingCode)
    assert set(MARKS) == set(Mark)
    for kind in ALL_KINDS:
        fact = facts(kind)
        assert fact.name and fact.description.endswith(".") and isinstance(fact.severity, Severity)
        assert facts(kind.value) is fact


def test_one_name_per_concept() -> None:
    names: dict[str, set[str]] = {}
    for kind in ALL_KINDS:
        names.setdefault(facts(kind).name, set()).add(kind.value)
    shared = {name: kinds for name, kinds in names.items() if len(kinds) > 1}
    # a stray left in place is both a finding and the mark on its row: one concept, one name
    assert shared == {"stray result": {"stray_result", "stray"}}


def test_every_row_kind_has_a_style() -> None:
    assert set(theme.STYLES) == {kind.value for kind in [*RepairKind, *Mark]}
    assert set(theme.ROW_KINDS) == set(theme.STYLES)
    for kind in theme.ROW_KINDS:
        assert theme.label(kind).endswith(facts(kind).name)


def test_summary_counts_and_kinds_match() -> None:
    counted = {fact.summary_field for fact in [*REPAIR_KINDS.values(), *MARKS.values()] if fact.summary_field}
    base = {"messages", "view_messages", "calls", "results"}
    assert counted | base == set(Summary.__struct_fields__), "a Summary count has no kind, or a kind no count"


def test_the_verdict_words_every_counted_repair() -> None:
    verdict_kinds = {kind for kind, fact in REPAIR_KINDS.items() if fact.verdict}
    assert set(VERDICT_ORDER) == verdict_kinds
    zero = dict.fromkeys(Summary.__struct_fields__, 0)
    for kind in VERDICT_ORDER:
        fact = REPAIR_KINDS[kind]
        summary = Summary(**{**zero, fact.summary_field: 1})
        assert f"1 {fact.verdict}" in _verdict(summary, changed=True, severity=Severity.REJECTED)
        assert f"1 {fact.verdict}" in _verdict(summary, changed=True, severity=Severity.NORMALIZED)


def test_batch_and_markdown_show_every_count() -> None:
    counted = [fact for fact in [*REPAIR_KINDS.values(), *MARKS.values()] if fact.summary_field]
    assert {field for field, _ in batch.DEFECT_COLUMNS} == {fact.summary_field for fact in counted}
    summary = Summary(**dict.fromkeys(Summary.__struct_fields__, 0))
    columns = markdown.summary_columns(summary)
    for fact in counted:
        assert any(fact.name in column for column in columns), fact.name


def test_lessons_step_through_every_action_kind() -> None:
    # each action kind the lessons show today has its own sentence; a new one is worded by its registry name
    assert set(lessons._DROP_TEXT) == set(ACTION_KINDS) - {RepairKind.KEPT}
    for kind in ACTION_KINDS:
        assert "#{index}" in lessons.step_text(kind) or kind in (RepairKind.MOVED, RepairKind.REORDERED)
    assert lessons.step_text(RepairKind.DROPPED_STRAY) == lessons._DROP_TEXT[RepairKind.DROPPED_STRAY]
    assert lessons.step_text("kept") == "kept #{index}"


def test_every_kind_has_its_look_and_example_in_its_row() -> None:
    for kind in ALL_KINDS:
        assert facts(kind).example.strip(), kind
    for kind in [*RepairKind, *Mark]:  # row kinds: an icon always, so colour is never the only cue
        assert facts(kind).icon and theme.label(kind.value) == f"{facts(kind).icon} {facts(kind).name}"
        assert theme.colour(kind.value) == facts(kind).colour
    with pytest.raises(ValueError, match="has no icon"):
        theme._style(FindingCode.EMPTY_ID.value)  # a finding is no row kind: it has no look


def test_every_note_code_renders() -> None:
    assert set(_TEMPLATES) == set(NoteCode)


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.*json*")), ids=lambda p: p.name)
def test_reports_use_only_registered_kinds(path: Path) -> None:
    for policy in ("strict", "openmaic"):
        report = analyze(load(path.read_bytes(), path.name), policy).report
        assert {action.kind for action in report.actions} <= set(ACTION_KINDS)
        assert {finding.kind for finding in report.findings} <= set(FindingCode)
        said = (report.as_recorded or {}).get(report.provider) if report.provider else None
        accepted = None if said is None else said == "accepted"  # the file's target's verdict, as check rates it
        for finding in report.findings:
            assert finding.severity == FINDINGS[finding.kind].rated(accepted)
        json.dumps(msgspec.to_builtins(report, str_keys=True))  # plain JSON all the way down


# --- severities -----------------------------------------------------------------------------------

def test_severities_run_from_nothing_wrong_to_worst_and_only_three_fail() -> None:
    assert SEVERITY_ORDER == (Severity.INFO, Severity.NORMALIZED, Severity.LOSSY, Severity.REJECTED,
                              Severity.MALFORMED)
    assert FAILING == {Severity.LOSSY, Severity.REJECTED, Severity.MALFORMED}
    assert [fails(s) for s in SEVERITY_ORDER] == [False, False, True, True, True]
    assert worst([]) is Severity.INFO
    assert worst([Severity.NORMALIZED, Severity.REJECTED, Severity.LOSSY]) is Severity.REJECTED


def test_every_note_code_has_a_severity_and_acceptance_never_makes_it_worse() -> None:
    assert set(NOTE_SEVERITIES) == set(NoteCode)
    rank = SEVERITY_ORDER.index
    for code, (rejected, accepted) in NOTE_SEVERITIES.items():
        assert rank(accepted) <= rank(rejected), code
        assert accepted is not Severity.INFO, code  # a change is never "nothing"
        # with no target the universal invariants judge: what none of them demands is rated as accepted
        unjudged = rejected if code in UNIVERSAL_NOTES else accepted
        assert note_severity(code) is unjudged and note_severity(code, None) is unjudged
        assert note_severity(code, False) is rejected and note_severity(code, True) is accepted
    for kind in ALL_KINDS:
        fact = facts(kind)
        if fact.if_accepted is not None:
            assert rank(fact.if_accepted) <= rank(fact.severity), kind


def test_one_kind_can_mean_different_severities_and_the_worst_reason_wins() -> None:
    dropped = RepairKind.DROPPED_INTERRUPTED_FRAME
    assert rate(dropped, [NoteCode.FRAME_SPLITS_RESULTS]) is Severity.REJECTED
    assert rate(dropped, [NoteCode.FRAME_DROPPED_BY_REFERENCE]) is Severity.LOSSY
    assert rate(RepairKind.MOVED, [NoteCode.MOVED]) is Severity.REJECTED
    assert rate(RepairKind.REORDERED, [NoteCode.REORDERED]) is Severity.NORMALIZED
    assert rate(RepairKind.KEPT) is Severity.INFO
    assert rate(RepairKind.KEPT, [NoteCode.REORDERED, NoteCode.RENAMED], accepted=False) is Severity.REJECTED
    # no target: an id renamed for a later turn's reuse is no universal invariant's; one two calls share is
    assert rate(RepairKind.KEPT, [NoteCode.REORDERED, NoteCode.RENAMED]) is Severity.NORMALIZED
    assert rate(RepairKind.KEPT, [NoteCode.RENAMED, NoteCode.ID_SHARED_IN_TURN]) is Severity.REJECTED
    assert rate(RepairKind.DROPPED_INTERRUPTED_FRAME, [NoteCode.FRAME_EMPTY]) is Severity.NORMALIZED
    assert rate(RepairKind.SYNTHESIZED) is Severity.REJECTED and rate(Mark.ORPHANED_CALL) is Severity.REJECTED
    assert rate(FindingCode.REUSED_CALL_ID) is Severity.LOSSY
    # when the provider(s) that count accept the transcript as recorded, nothing is rejected
    assert rate(RepairKind.MOVED, [NoteCode.MOVED], accepted=True) is Severity.NORMALIZED
    assert rate(RepairKind.DROPPED_DUPLICATE, [NoteCode.SECOND_RESULT], accepted=True) is Severity.LOSSY
    assert rate(RepairKind.SYNTHESIZED, accepted=True) is Severity.LOSSY
    for kind in ALL_KINDS:
        assert rate(kind, accepted=True) is not Severity.REJECTED
    for code in NoteCode:
        assert note_severity(code, True) is not Severity.REJECTED


def test_a_kind_that_changes_nothing_a_provider_needs_is_normalized() -> None:
    assert facts(RepairKind.REORDERED).severity is Severity.NORMALIZED
    assert facts(FindingCode.RESULTS_OUT_OF_ORDER).severity is Severity.NORMALIZED
    assert facts(RepairKind.KEPT).severity is Severity.INFO
