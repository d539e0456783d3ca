"""Each pairing in a report names the result the view really answers its call with.

The report's pairings are what screens draw as call -> result lanes and what the
Markdown lists, so they must agree with `report.view`: the answering result is
one recorded for the call, the view position holds it, and no durable result
answers two calls unless the report says the answer is shared (the reference's
behaviour for a reused id).  Ids cannot be trusted for this: Gemini calls carry
none (every one is '') and ids repeat across turns, so the checks below look at
positions only.  Every sample (every transcript in each file) is checked under
both policies, for no provider and for each provider's view, plus generated
transcripts with several id-less calls per frame.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from integrity import (
    POLICIES,
    PROVIDERS,
    DurableView,
    MergedView,
    ReceiptView,
    RepairKind,
    RepairReport,
    analyze,
    build_report,
    load,
    load_all,
)
from integrity._bulk.fast_read import read_fast
from integrity.loading import Transcript
from integrity.repair.strict import plan_strict

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_transcripts").glob("*.json*"))
SHARED = RepairKind.SHARED.value


def held_by(entry: Any) -> set[int]:
    """The durable messages a view entry carries."""
    if isinstance(entry, DurableView):
        return {entry.index}
    if isinstance(entry, MergedView):
        return set(entry.members)
    return set()


def assert_pairings_agree_with_view(report: RepairReport, where: str) -> None:
    answering: dict[int, list[Any]] = {}
    for pairing in report.pairings:
        call = f"{where}: call #{pairing.frame_index}[{pairing.call_position}]"
        if pairing.answered_by is None:
            assert pairing.outcome == "synthesized", call
            if pairing.view_index is not None:  # its receipt, written for this very call
                entry = report.view[pairing.view_index]
                assert isinstance(entry, ReceiptView), call
                assert (entry.frame_index, entry.call_position) == (pairing.frame_index, pairing.call_position), call
            continue
        assert pairing.answered_by in pairing.result_indices, call
        assert pairing.view_index is not None, call
        assert pairing.answered_by in held_by(report.view[pairing.view_index]), \
            f"{call}: view #{pairing.view_index} does not hold #{pairing.answered_by}"
        answering.setdefault(pairing.answered_by, []).append(pairing)
    for result, pairings in answering.items():
        owner, *others = pairings
        assert owner.outcome != SHARED, f"{where}: #{result} is shared by its first call"
        for other in others:
            assert other.outcome == SHARED, \
                f"{where}: #{result} answers calls #{owner.frame_index} and #{other.frame_index} but is not shared"
    if report.policy == "strict":  # strict never answers two calls with one result
        assert all(len(pairings) == 1 for pairings in answering.values()), where


def sample_cases() -> list[Any]:
    return [pytest.param(path, policy, id=f"{path.name}-{policy}") for path in SAMPLES for policy in POLICIES]


def test_there_are_samples() -> None:
    assert len(SAMPLES) >= 20  # the parametrized test below would pass vacuously without them


@pytest.mark.parametrize(("path", "policy"), sample_cases())
def test_every_sample_pairs_each_call_with_the_result_its_view_holds(path: Path, policy: str) -> None:
    for transcript in load_all(path.read_bytes(), path.name):
        for provider in (None, *PROVIDERS):
            report = analyze(transcript, policy, provider=provider).report
            assert_pairings_agree_with_view(report, f"{path.name}:{transcript.name} {policy} {provider}")


def test_the_gemini_sample_without_ids_answers_each_call_with_its_own_result() -> None:
    path = ROOT / "sample_transcripts" / "no_ids.gemini.json"
    transcript = load(path.read_bytes(), path.name)
    strict = analyze(transcript, "strict").report
    assert not strict.changed
    assert [(p.answered_by, p.view_index, p.outcome) for p in strict.pairings] == [(2, 2, "answered"),
                                                                                  (3, 3, "answered")]
    # the reference answers both id-less calls with the first id-less result and drops the second
    reference = analyze(transcript, "openmaic").report
    assert [(p.answered_by, p.outcome) for p in reference.pairings] == [(2, "answered"), (2, SHARED)]


# --- generated transcripts ---------------------------------------------------------------------------

TOOLS = ("read", "search", "list")


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def reply(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop", "timestamp": 2}


def frame(calls: list[tuple[str, str]]) -> dict[str, Any]:
    return {"role": "assistant", "stopReason": "toolUse", "timestamp": 2,
            "content": [{"type": "toolCall", "id": i, "name": n, "arguments": {"k": k}}
                        for k, (i, n) in enumerate(calls)]}


def result(call_id: str, name: str, text: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 3}


def idless_turns(seed: int, shuffled: bool) -> list[dict[str, Any]]:
    """Turns of 2-4 id-less calls (tools often repeated), each answered once; results in call order
    or, when shuffled, in another order within the run after their frame."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = []
    for turn in range(rng.randint(2, 4)):
        names = [rng.choice(TOOLS) for _ in range(rng.randint(2, 4))]
        messages += [user(f"turn {turn}"), frame([("", name) for name in names])]
        outputs = [result("", name, f"turn {turn} call {position}") for position, name in enumerate(names)]
        if shuffled:
            rng.shuffle(outputs)
        messages += [*outputs, reply(f"done {turn}")]
    return messages


def called(messages: list[dict[str, Any]], frame_index: int, position: int) -> str:
    return str(messages[frame_index]["content"][position]["name"])


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("seed", range(12))
def test_several_idless_calls_per_frame_each_get_their_own_result(seed: int, policy: str) -> None:
    for shuffled in (False, True):
        messages = idless_turns(seed, shuffled)
        for provider in (None, "gemini", "openai-chat"):
            report = analyze(Transcript(messages, "<generated>"), policy, provider=provider).report
            where = f"seed {seed} shuffled={shuffled} {policy} {provider}"
            assert_pairings_agree_with_view(report, where)
            if policy != "strict":
                continue
            answers = [p.answered_by for p in report.pairings]
            assert None not in answers and len(set(answers)) == len(answers), where
            for p in report.pairings:  # by tool name, and in order among calls of one tool
                assert messages[p.answered_by]["toolName"] == p.tool_name, where
            if not shuffled:
                assert all(p.answered_by == p.frame_index + 1 + p.call_position for p in report.pairings), where
            answer = {(p.frame_index, p.call_position): p.answered_by for p in report.pairings}
            for (index, position), index_of_result in answer.items():  # same-tool calls: in recorded order
                earlier = [answer[(index, q)] for q in range(position)
                           if called(messages, index, q) == called(messages, index, position)]
                assert all(r < index_of_result for r in earlier), where


def test_the_fast_path_reports_the_same_pairings_for_idless_calls() -> None:
    for seed in range(6):
        messages = idless_turns(seed, shuffled=seed % 2 == 1)
        fast = read_fast(json.dumps(messages).encode("utf-8"), "generated.json")
        assert fast is not None, "the fast path reads a plain pi-ai array"
        report = build_report(fast.light, plan_strict(fast.light), source="generated.json")
        assert_pairings_agree_with_view(report, f"fast seed {seed}")
        expected = analyze(Transcript(messages, "generated.json"), "strict").report
        assert report.pairings == expected.pairings


def gemini_native(calls_per_turn: list[list[str]]) -> bytes:
    contents: list[dict[str, Any]] = []
    for turn, names in enumerate(calls_per_turn):
        contents.append({"role": "user", "parts": [{"text": f"turn {turn}"}]})
        contents.append({"role": "model", "parts": [{"functionCall": {"name": n, "args": {"k": k}}}
                                                     for k, n in enumerate(names)]})
        contents.append({"role": "user", "parts": [{"functionResponse": {"name": n, "response": {"k": k}}}
                                                    for k, n in enumerate(names)]})
        contents.append({"role": "model", "parts": [{"text": f"done {turn}"}]})
    return json.dumps({"contents": contents}).encode("utf-8")


def test_gemini_files_with_several_idless_calls_per_frame_pair_by_position() -> None:
    data = gemini_native([["read", "read", "read"], ["search", "read", "search", "read"]])
    transcript = load(data, "generated.gemini.json")
    for policy in POLICIES:
        report = analyze(transcript, policy).report
        assert_pairings_agree_with_view(report, policy)
    strict = analyze(transcript, "strict").report
    assert len(strict.pairings) == 7
    assert len({p.answered_by for p in strict.pairings}) == 7


# --- ids reused across turns, results paired by tool name --------------------------------------------


def test_a_reused_id_the_reference_leaves_in_place_is_answered_by_its_own_result_not_shared() -> None:
    messages = [user("a"), frame([("call_0", "read")]), result("call_0", "read", "first"), reply("1"),
                user("b"), frame([("call_0", "read")]), result("call_0", "read", "second"), reply("2")]
    report = analyze(Transcript(messages, "<reused>"), "openmaic").report
    assert not report.changed
    assert [(p.answered_by, p.outcome) for p in report.pairings] == [(2, "answered"), (6, "answered")]
    assert_pairings_agree_with_view(report, "reused, unchanged")
    # once the reference repairs, every use of the id is answered with its first result: shared
    repaired = [*messages, user("c"), frame([("call_9", "read")])]
    report = analyze(Transcript(repaired, "<reused>"), "openmaic").report
    assert report.changed
    assert [(p.answered_by, p.outcome) for p in report.pairings[:2]] == [(2, "answered"), (2, SHARED)]
    assert_pairings_agree_with_view(report, "reused, repaired")


def test_a_reused_id_owns_the_results_of_its_own_turn_and_the_one_answering_it() -> None:
    """Each use of an id lists the results recorded from its frame to the next frame using the id (the first
    use, those before it too), plus its answer; not every result the id ever had (that grew with the square
    of the turns)."""
    messages = [result("call_0", "read", "early"), user("a"), frame([("call_0", "read")]),
                result("call_0", "read", "first"), result("call_0", "read", "again"), reply("1"),
                user("b"), frame([("call_0", "read")]), result("call_0", "read", "second"), reply("2"),
                user("c"), frame([("call_0", "read")]), reply("3")]
    for policy in POLICIES:
        report = analyze(Transcript(messages, "<reused>"), policy).report
        own_turns = [{0, 3, 4}, {8}, set()]
        for pairing, own in zip(report.pairings, own_turns, strict=True):
            answer = {pairing.answered_by} if pairing.answered_by is not None else set()
            assert set(pairing.result_indices) == own | answer, (policy, msgspec.to_builtins(pairing))
        assert_pairings_agree_with_view(report, f"reused thrice, {policy}")
    turns = [m for _ in range(300) for m in (frame([("c1", "grep")]), result("c1", "grep", "ok"))]
    report = analyze(Transcript(turns, "<numbered per turn>"), "strict").report
    assert [p.result_indices for p in report.pairings] == [[2 * n + 1] for n in range(300)]


@pytest.mark.parametrize(("call_id", "result_id"), [("", "x"), ("c1", "")])
def test_a_result_paired_by_tool_name_is_among_the_call_s_results(call_id: str, result_id: str) -> None:
    messages = [user("a"), frame([(call_id, "read")]), result(result_id, "read", "out"), reply("ok")]
    report = analyze(Transcript(messages, "<by name>"), "strict").report
    (pairing,) = report.pairings
    assert pairing.answered_by == 2 and pairing.result_indices == [2]
    assert_pairings_agree_with_view(report, f"{call_id!r} answered by {result_id!r}")
