"""Severity that means something, and exit codes that follow it.

`rejected` needs the target provider to return 400 (the chosen one, else the one the
file's format implies; with none, what every provider refuses: a call split from its
result, an orphan, a stray), `lossy` something unanswered, duplicated, ambiguous or lost,
`normalized` a change no provider needs.  `check` exits 1 only for lossy, rejected or
malformed, and its verdict says whether its target accepts the transcript as recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from integrity import analyze, load, repair_with_report
from integrity._bulk.fast_read import read_fast
from integrity.cli import main
from integrity.loading import Transcript
from integrity.providers import PROVIDERS
from integrity.repair.policies import PLANNERS
from integrity.repair.views import light_transcript
from integrity.report import build_report, diagnose
from tests.test_strict_properties import broken_transcripts

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
EVERY = f"accepted as recorded by all {len(PROVIDERS)} providers"  # with --provider all


def check(capsys: Any, *args: str) -> tuple[int, str]:
    code = main(["check", *args])
    return code, capsys.readouterr().out


def test_results_that_finished_out_of_call_order_inside_their_run_are_healthy(capsys: Any) -> None:
    path = str(SAMPLES / "out_of_order.pi-ai.json")
    code, out = check(capsys, path)
    assert code == 0, out
    verdict = out.splitlines()[0]
    assert "repaired" not in verdict and "moved" not in verdict
    assert "healthy:" in verdict and "2 result(s) put in call order" in verdict
    code, out = check(capsys, "--provider", "all", path)
    assert code == 0 and out.splitlines()[0] == verdict  # what the providers say is information only
    assert out.count(" as recorded: accepted") == len(PROVIDERS) - 1  # Mistral refuses its ids ("call_a")
    assert "mistral as recorded: messages[1]: Tool call id was call_api but must be" in out
    assert out.count(" after repair: accepted") == len(PROVIDERS)  # the view planned for Mistral renames them
    code, out = check(capsys, "--json", path)
    report = json.loads(out)
    assert code == 0 and report["healthy"] and report["changed"] and report["severity"] == "normalized"
    assert {a["kind"]: a["severity"] for a in report["actions"] if a["kind"] != "kept"} == {"reordered": "normalized"}
    assert "as_recorded" not in report  # a pi-ai file has no target provider


def test_a_result_split_from_its_call_is_rejected_and_the_verdict_names_who_accepts_it(capsys: Any) -> None:
    code, out = check(capsys, str(SAMPLES / "pause_between.pi-ai.json"))
    assert code == 1 and out.splitlines()[0].endswith(": repaired: 1 moved")  # a universal invariant
    for accepting in ("openai-responses", "gemini"):  # Gemini combines consecutive user turns
        code, out = check(capsys, "--provider", accepting, str(SAMPLES / "pause_between.pi-ai.json"))
        assert out.splitlines()[0].endswith(f"; accepted as recorded by {accepting}")
    code, out = check(capsys, "--provider", "anthropic", str(SAMPLES / "pause_between.pi-ai.json"))
    assert code == 1 and "repaired: 1 moved; rejected as recorded by anthropic" in out


def test_a_change_the_chosen_provider_does_not_need_is_normalized(capsys: Any) -> None:
    path = str(SAMPLES / "reused_id.openai-chat.json")  # an id reused by a later turn: Chat accepts it
    code, out = check(capsys, "--provider", "openai-chat", path)
    assert code == 0, out
    assert "the view only normalizes: 2 message(s) with renamed ids" in out
    code, out = check(capsys, path)  # none chosen: the file's own provider (a Chat request: OpenAI) counts
    assert code == 0 and out.splitlines()[0].endswith("; accepted as recorded by openai-chat")
    code, out = check(capsys, "--provider", "all", path)  # the others are information
    assert code == 0 and "  deepseek as recorded: " in out and "deepseek as recorded: accepted" not in out
    code, out = check(capsys, "--provider", "deepseek", path)
    assert code == 1


def test_one_kind_two_severities_the_reference_drops_a_frame_it_did_not_have_to() -> None:
    messages = json.loads((SAMPLES / "abort_race.pi-ai.json").read_text())
    _, strict = repair_with_report(messages, now=lambda: 0)
    _, reference = repair_with_report(messages, now=lambda: 0, policy="openmaic")
    [strict_drop] = [a for a in strict.actions if a.kind == "dropped_interrupted_frame"]
    [reference_drop] = [a for a in reference.actions if a.kind == "dropped_interrupted_frame"]
    assert strict_drop.codes == ["frame_splits_results"] and strict_drop.severity == "rejected"
    assert reference_drop.codes == ["frame_dropped_by_reference"] and reference_drop.severity == "lossy"


def test_a_provider_that_rejects_what_the_plan_leaves_alone_still_fails_check(capsys: Any, tmp_path: Path) -> None:
    items = [{"role": "user", "content": "check a and b"},
             {"type": "reasoning", "id": "rs_1", "summary": []},
             {"type": "function_call", "id": "fc_1", "call_id": "call-a", "name": "read", "arguments": "{}"},
             {"type": "reasoning", "id": "rs_2", "summary": []},
             {"type": "function_call", "id": "fc_2", "call_id": "call-b", "name": "read", "arguments": "{}"},
             {"type": "function_call_output", "call_id": "call-a", "output": "A"},
             {"type": "function_call_output", "call_id": "call-b", "output": "B"}]
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"input": items}))
    code, out = check(capsys, str(path))  # a Responses request: OpenAI Responses decides
    assert code == 0 and out.splitlines()[0].endswith("; accepted as recorded by openai-responses")
    code, out = check(capsys, "--provider", "deepseek-responses", str(path))  # the view puts the calls last
    assert code == 1 and out.startswith(f"{path}: repaired: 1 frame(s) with their calls put last; rejected as recorded")
    assert "No tool output found for tool call call-a." in out and "deepseek-responses after repair: accepted" in out
    # what the strict view leaves alone (a system message opening Anthropic's message list, which the view does not
    # hoist into the top-level `system` parameter) fails check, and says so after repair
    call = {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "x"}
    opening = {"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "go"},
                            {"role": "assistant", "content": [call]}, {"role": "user", "content": [result]}]}
    path.write_text(json.dumps(opening))
    code, out = check(capsys, "--provider", "anthropic", str(path))
    assert code == 1 and out.startswith(f"{path}: would be rejected:")
    assert "  anthropic after repair: messages.0: use the top-level 'system' parameter for the initial system " \
        "prompt; the directive-only form (content: [] with output_config) is accepted at any position" \
        in out.splitlines()


def test_the_target_is_asked_whatever_the_size(capsys: Any, tmp_path: Path) -> None:
    """No size makes a file's target provider go unasked: the verdict of a file never changes at a size."""
    big = json.loads((SAMPLES / "two_results.openai-chat.json").read_text())
    messages = big["messages"] if isinstance(big, dict) else big
    grown = [messages[0]] + [{"role": "user", "content": f"note {n}"} if n % 2 else
                             {"role": "assistant", "content": f"ok {n}"} for n in range(12_001)] + messages[1:]
    path = tmp_path / "big.openai-chat.json"
    path.write_text(json.dumps({**big, "messages": grown} if isinstance(big, dict) else grown))
    code, out = check(capsys, str(path))
    assert code == 1 and "rejected as recorded by openai-chat" in out.splitlines()[0]


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=broken_transcripts())
def test_the_cheap_diagnosis_rates_a_transcript_as_the_full_report_does(messages: list[dict[str, Any]]) -> None:
    """check (a diagnosis, no per-message actions) and check --json (the report) never disagree."""
    for policy, planner in PLANNERS.items():
        light = light_transcript(messages, numeric_ids=policy == "strict")
        plan = planner(light, None)
        diagnosis, report = diagnose(light, plan), build_report(light, plan)
        assert (diagnosis.severity, diagnosis.healthy, diagnosis.verdict) == \
            (report.severity, report.healthy, report.verdict), policy
    fast = read_fast(json.dumps(messages).encode(), "<test>")
    if fast is not None:
        fast_diagnosis = diagnose(fast.light, PLANNERS["strict"](fast.light, None))
        strict = analyze(Transcript(messages, "<test>")).report
        assert (fast_diagnosis.severity, fast_diagnosis.verdict) == (strict.severity, strict.verdict)


def test_every_sample_is_rated_the_same_by_check_and_check_json(capsys: Any) -> None:
    for path in sorted(SAMPLES.glob("*.*json*")):
        code, out = check(capsys, str(path))
        json_code, json_out = check(capsys, "--json", str(path))
        report = json.loads(json_out)
        assert code == json_code, path.name
        assert out.splitlines()[0] == f"{path}: {report['verdict']}", path.name
        severities = {a["severity"] for a in report["actions"]} | {f["severity"] for f in report["findings"]}
        severities |= {e["severity"] for e in report["view"] if e["source"] in ("synthesized", "turn")}
        own_rejects = (report.get("as_recorded") or {}).get(report.get("format")) == "rejected"
        assert code == (1 if severities & {"lossy", "rejected", "malformed"} or own_rejects else 0), path.name
        assert (report["severity"] in ("lossy", "rejected", "malformed")) is (code == 1), path.name
        analysis = analyze(load(path.read_bytes(), path.name), verdicts=True)
        assert analysis.report.severity == report["severity"], path.name


def _renamed_shapes(light: Any, plan: Any) -> tuple[set[Any], set[Any]]:
    """The shapes of the messages a plan only renames, read at C speed (_shaped) and one by one (_shaped_each)."""
    from integrity._diagnosis import _shaped, _shaped_each, moves
    from integrity.repair.entries import Merged, Rewritten, unplain

    rewritten: dict[int, Any] = {}
    for entry in unplain(plan.order or []):
        last = entry.entries[-1] if isinstance(entry, Merged) else entry
        if isinstance(last, Rewritten):
            rewritten[last.index] = last.ids
    changed = set(plan.dropped_frames).union(plan.dropped_duplicates, plan.dropped_strays, plan.merged,
                                             moves(light, plan)[0], plan.notes)
    indices = [index for index in rewritten if index not in changed]
    return set(_shaped(light, rewritten, changed)), \
        set(_shaped_each(light, indices, [rewritten[index] for index in indices]))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=broken_transcripts())
def test_the_shapes_of_renamed_messages_read_at_once_are_those_read_one_by_one(messages: list[dict[str, Any]]) -> None:
    """_diagnosis._shaped (the shapes of what a view only renames, read pair by pair at C speed) finds the shapes
    _shape finds message by message, for every provider's view: reused, empty, refused and numeric ids."""
    light = light_transcript(messages, numeric_ids=True)
    for provider in PROVIDERS:
        at_once, one_by_one = _renamed_shapes(light, PLANNERS["strict"](light, provider))
        assert at_once == one_by_one, provider


def test_a_numeric_id_renamed_to_its_text_has_its_own_shape() -> None:
    """A call whose numeric id the view sends as its text keeps its id (NUMERIC_IDS_AS_TEXT), beside one renamed
    (an id longer than OpenAI Chat takes): both shapes are found at once, as one by one."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "stopReason": "toolUse", "timestamp": 1,
         "content": [{"type": "toolCall", "id": 7, "name": "t", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": 7, "toolName": "t", "content": [], "isError": False, "timestamp": 1},
        {"role": "assistant", "stopReason": "toolUse", "timestamp": 1,
         "content": [{"type": "toolCall", "id": "c" * 50, "name": "t", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": "c" * 50, "toolName": "t", "content": [], "isError": False,
         "timestamp": 1},
    ]
    light = light_transcript(messages, numeric_ids=True)
    at_once, one_by_one = _renamed_shapes(light, PLANNERS["strict"](light, "openai-chat"))
    assert at_once == one_by_one == {(True, False), (False, True)}, one_by_one
