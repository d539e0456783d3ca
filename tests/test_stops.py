"""The stops of "Problem ▶" are the engine's facts (findings, provider refusals, repairs), in row order,
starting with the target provider's first refusal; positions name messages by the file's own places."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.positions import find_place, native_label, other_numbers, row_place
from inspector.rows import aligned_rows, rows_by_side
from inspector.stops import FINDING, REFUSAL, REPAIR, Stop, first_stop, next_stop, problem_stops, stops_caption
from integrity import PROVIDERS, analyze, check, judged_by_providers, load
from integrity.pipeline import ALL_PROVIDERS

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"


def stops_of(name: str, provider: str | None = None) -> tuple[list[Stop], object]:
    transcript = load((SAMPLES / name).read_bytes(), name)
    analysis = judged_by_providers(analyze(transcript, provider=provider), PROVIDERS)
    rows = aligned_rows(analysis)
    return problem_stops(analysis, rows, *rows_by_side(rows)), analysis


@pytest.mark.parametrize("name", ["split_results.bedrock.json", "abort_race.pi-ai.json", "orphaned_call.pi-ai.json",
                                  "crash_duplicate.anthropic.json", "healthy.pi-ai.json"])
def test_every_refusal_and_finding_of_check_is_a_stop(name: str) -> None:
    stops, analysis = stops_of(name)
    engine = check(load((SAMPLES / name).read_bytes(), name), also=ALL_PROVIDERS, depth="view")
    refusals = sorted((v.provider, when, v.error) for verdict in engine.providers.values()
                      for when, found in (("before", verdict.before), ("after", verdict.after)) for v in found)
    seen = sorted((s.provider, s.when, s.text.rsplit(": ", 1)[-1]) for s in stops if s.what == REFUSAL)
    assert len(seen) == len(refusals)
    for provider, when, error in refusals:
        assert any(s.provider == provider and s.when == when and s.text.endswith(error) for s in stops
                   if s.what == REFUSAL), (provider, when, error)
    placed = [f for f in engine.findings if f.durable_indices]
    assert len([s for s in stops if s.what == FINDING]) == len(placed)
    assert len([s for s in stops if s.what == REPAIR]) == sum(r.problem for r in aligned_rows(analysis))
    assert [s.row for s in stops] == sorted(s.row for s in stops)  # in the file's order


def test_the_first_press_lands_on_the_target_providers_first_refusal() -> None:
    stops, _ = stops_of("split_results.bedrock.json")  # judged by bedrock, its own format
    start = first_stop(stops)
    assert stops[start].provider == "bedrock" and stops[start].target and stops[start].when == "before"
    assert next_stop(stops, None, None) == start
    assert next_stop(stops, None, None, forward=False) == start
    engine = check(load((SAMPLES / "split_results.bedrock.json").read_bytes(), "x.json"))
    assert engine.target_verdict is not None and stops[start].text.endswith(engine.target_verdict.before[0].error)


def test_a_picked_provider_is_the_target() -> None:
    stops, _ = stops_of("abort_race.pi-ai.json", provider="gemini")
    assert stops[first_stop(stops)].provider == "gemini"
    # pi-ai: no target, the universal invariants judge: the first repair, not another provider's id rule
    untargeted, _ = stops_of("abort_race.pi-ai.json")
    assert not any(s.target for s in untargeted)
    assert untargeted[first_stop(untargeted)].what == REPAIR and untargeted[0].what == REFUSAL


def test_the_caption_says_how_many_stops_are_other_providers_refusals() -> None:
    """A file its target accepts (Gemini takes calls without ids) still has the other providers' refusals to
    visit: the caption counts them apart and names whose verdict it is, as check says it."""
    stops, analysis = stops_of("no_ids.gemini.json")
    engine = check(load((SAMPLES / "no_ids.gemini.json").read_bytes(), "x.json"))
    assert engine.target == "gemini" and engine.target_verdict is not None \
        and engine.target_verdict.accepted_as_recorded and engine.target_verdict.accepted_after_repair
    others = [s for s in stops if s.what == REFUSAL and not s.target]
    assert others and len(others) == len(stops)  # nothing else: no finding, no repair, no refusal by gemini
    assert stops_caption(stops, analysis) == (
        f"{len(stops)} problem(s) to visit with Problem ▶: findings, provider refusals and repairs ({len(others)} of "
        "them refusals by providers other than gemini, shown for information: the verdict is gemini's).")
    untargeted, pi_ai = stops_of("abort_race.pi-ai.json")  # no target: every refusal is for information
    refused = sum(s.what == REFUSAL for s in untargeted)
    assert refused and f"({refused} of them refusals by providers, shown for information: no provider is the " \
        "target, so the universal invariants decide the verdict)." in stops_caption(untargeted, pi_ai)
    judged, bedrock = stops_of("split_results.bedrock.json", provider="bedrock")
    only_target = [s for s in judged if not (s.what == REFUSAL and not s.target)]
    assert stops_caption(only_target, bedrock) == \
        f"{len(only_target)} problem(s) to visit with Problem ▶: findings, provider refusals and repairs."


def test_next_stop_walks_from_the_current_stop_or_the_selected_row_and_wraps() -> None:
    stops = [Stop(1, REFUSAL, "a"), Stop(1, REFUSAL, "b"), Stop(4, REPAIR, "c"), Stop(7, FINDING, "d")]
    assert next_stop(stops, 0, 1) == 1 and next_stop(stops, 1, 1) == 2  # two stops on one row: both visited
    assert next_stop(stops, 3, 7) == 0 and next_stop(stops, 0, 1, forward=False) == 3  # wraps both ways
    assert next_stop(stops, 0, 5) == 3  # the user selected row 5 since: on from there
    assert next_stop(stops, 0, 5, forward=False) == 2
    assert next_stop(stops, None, 9) == 0
    assert next_stop(stops, None, 4) == 2  # a row selected by hand: its own stop first
    assert next_stop(stops, 1, 4) == 2 and next_stop(stops, 2, 4) == 3


def test_positions_name_the_files_own_places() -> None:
    jsonl = load((SAMPLES / "healthy.claude-code.jsonl").read_bytes(), "s.jsonl")
    assert native_label(jsonl, 0).startswith("line ")
    for index in range(len(jsonl.messages)):
        assert find_place(jsonl, native_label(jsonl, index)) is not None
    request = load((SAMPLES / "split_results.bedrock.json").read_bytes(), "r.json")
    assert [row_place(request, i, i) for i in range(2)] == ["messages[0]", "messages[1]"]
    assert find_place(request, "messages[3]") == 3 and find_place(request, "#2") == 2
    assert find_place(request, "messages[99]") is None and find_place(request, "nonsense") is None
    assert row_place(request, None, 5) == "not in the file (view #5)"
    assert other_numbers(4, 3, 5) == "row 4 · durable #3 · view #5"
    assert other_numbers(2, 2, None) == "row 2 · durable #2 · not in the view"
