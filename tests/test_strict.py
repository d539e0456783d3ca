"""Named tests for each rule of the strict policy, and the sample fixtures repaired per provider."""

from __future__ import annotations

import copy
import io
import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from integrity._bulk.fast_read import read_fast, write_fast
from integrity.analysis import analyze, load
from integrity.loading import Transcript
from integrity.notes import NoteCode
from integrity.providers import PROVIDER_FORMAT, PROVIDERS, validate, validate_native
from integrity.repair.entries import Merged, SynthesizedTurn, materialize
from integrity.repair.strict import STRICT_MESSAGE, plan_strict, strict_placeholder_text
from integrity.repair.views import light_transcript
from integrity.report import RepairReport, read_report, view_from_report

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from generate import idless  # noqa: E402

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
FIXTURES = sorted(p for p in SAMPLES.iterdir() if p.suffix in (".json", ".jsonl"))


def now() -> int:
    return 1_700_000_000_000


def U(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def SAY(text: str = "ok", stop: str = "stop") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": stop, "timestamp": 2}


def F(*calls: tuple[str, str]) -> dict[str, Any]:
    return {"role": "assistant", "stopReason": "toolUse", "timestamp": 2,
            "content": [{"type": "toolCall", "id": i, "name": n, "arguments": {}} for i, n in calls]}


def R(call_id: str, text: str = "out", name: str = "read") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 3}


def RECEIPT(call_id: str, name: str = "read") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": "interrupted"}], "details": {"ok": False, "error": "interrupted"},
            "isError": True, "timestamp": 3}


def ABORTED(text: str | None = "I will") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}] if text else [],
            "stopReason": "aborted", "errorMessage": "aborted", "timestamp": 2}


def strict(messages: list[dict[str, Any]], provider: str | None = None) -> tuple[list[Any], RepairReport]:
    before = copy.deepcopy(messages)
    analysis = analyze(Transcript(messages, "<test>"), "strict", now, provider)
    assert messages == before, "the durable transcript is never changed"
    assert view_from_report(analysis.report, messages) == analysis.view
    return analysis.view, analysis.report


def action(report: RepairReport, index: int) -> Any:
    return next(a for a in report.actions if a.durable_index == index)


def texts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    return [content] if isinstance(content, str) else [p["text"] for p in content if p.get("type") == "text"]


# --- pairing ---------------------------------------------------------------------------------------


def test_a_reused_id_is_paired_by_position_and_renamed_in_the_view() -> None:
    messages = [U(), F(("call_0", "read")), R("call_0", "first"), SAY(), U(),
                F(("call_0", "search")), R("call_0", "second", "search")]
    view, report = strict(messages, "anthropic")
    pairing = {(p.frame_index, p.call_position): p.answered_by for p in report.pairings}
    assert pairing == {(1, 0): 2, (5, 0): 6}
    assert view[5]["content"][0]["id"] == "call_0_2" and view[6]["toolCallId"] == "call_0_2"
    assert texts(view[6]) == ["second"]
    assert action(report, 5).new_ids == {"call_0": "call_0_2"}
    assert NoteCode.RENAMED in action(report, 5).codes
    # Anthropic accepts the reused id as recorded too (each use answered right after it: recorded HTTP 200)
    assert validate(view, "anthropic") == [] and validate(messages, "anthropic") == []


def test_empty_ids_pair_by_order_and_name() -> None:
    messages = [U(), F(("", "read"), ("", "search")), R("", "found", "search"), R("", "contents", "read")]
    view, _ = strict(messages, "gemini")
    assert [texts(m) for m in view[2:]] == [["contents"], ["found"]]  # moved into call order by name
    assert [m["toolCallId"] for m in view[2:]] == ["", ""]  # Gemini pairs without ids
    view, _ = strict(messages, "openai-chat")  # a provider that needs ids gets named ones
    assert [c["id"] for c in view[1]["content"]] == ["call_1_0", "call_1_1"]
    assert [(m["toolCallId"], texts(m)) for m in view[2:]] == [("call_1_0", ["contents"]), ("call_1_1", ["found"])]
    assert validate(view, "openai-chat") == []


def test_empty_ids_with_unknown_result_names_pair_by_order() -> None:
    messages = [U(), F(("", "read"), ("", "search")), R("", "a", ""), R("", "b", "")]
    view, report = strict(messages, "gemini")
    assert not report.changed and view is messages


def test_a_real_result_beats_the_interrupted_receipt() -> None:
    messages = [U(), F(("a", "read")), RECEIPT("a"), U("resumed"), R("a", "real")]
    view, report = strict(messages)
    assert texts(view[2]) == ["real"]
    dropped = action(report, 2)
    assert dropped.kind == "dropped_duplicate" and dropped.kept_instead == 4
    assert dropped.codes == [NoteCode.RECEIPT_REPLACED_BY_REAL]


def test_a_real_result_right_after_its_receipt_keeps_its_place_and_is_not_put_in_call_order() -> None:
    """Only the dropped receipt came before it in the run after its frame: nothing moved, nothing reordered
    (the verdict once said "1 result(s) put in call order" for a frame of one call)."""
    messages = [U(), F(("a", "read"), ("b", "read")), RECEIPT("a"), R("a", "real"), R("b")]
    view, report = strict(messages)
    assert [texts(m) for m in view[2:4]] == [["real"], ["out"]]
    assert action(report, 2).kind == "dropped_duplicate"
    assert action(report, 3).kind == "kept" and action(report, 3).view_index == 2
    assert action(report, 4).kind == "kept" and action(report, 4).view_index == 3
    assert report.summary.reordered == 0 and report.summary.moved == 0
    assert report.verdict.startswith("repaired: 1 duplicate result(s) dropped")
    swapped = [U(), F(("a", "read"), ("b", "read")), RECEIPT("a"), R("b"), R("a", "real")]
    _, report = strict(swapped)  # here b came before a among the results the view keeps: put in call order
    assert action(report, 4).kind == "reordered" and report.summary.reordered >= 1


def test_a_second_real_result_is_dropped_in_favour_of_the_first() -> None:
    messages = [U(), F(("a", "read")), R("a", "first"), R("a", "second")]
    view, report = strict(messages)
    assert action(report, 3).kind == "dropped_duplicate" and action(report, 3).kept_instead == 2
    assert [texts(m) for m in view if m["role"] == "toolResult"] == [["first"]]


def test_strays_are_dropped_and_listed() -> None:
    messages = [R("ghost", "orphan"), U(), F(("a", "read")), R("a")]
    view, report = strict(messages)
    stray = action(report, 0)
    assert stray.kind == "dropped_stray" and stray.view_index is None
    assert stray.codes == [NoteCode.RESULT_WITHOUT_CALL]
    assert report.summary.strays_dropped == 1
    assert messages[0] not in view


def test_a_result_recorded_before_its_call_is_moved_after_it() -> None:
    messages = [U(), R("a", "early"), F(("a", "read"))]
    view, report = strict(messages)
    assert [m["role"] for m in view] == ["user", "assistant", "toolResult"]
    assert action(report, 1).kind == "moved" and action(report, 1).codes == [NoteCode.RESULT_BEFORE_CALL]


# --- interrupted frames ------------------------------------------------------------------------------


def test_an_interrupted_frame_splitting_a_frame_from_its_results_is_dropped_with_its_reason() -> None:
    messages = [U(), F(("a", "read"), ("b", "read")), R("a"), ABORTED(), R("b")]
    view, report = strict(messages)
    assert action(report, 3).kind == "dropped_interrupted_frame"
    assert action(report, 3).codes == [NoteCode.FRAME_SPLITS_RESULTS]
    assert len(view) == 4


def test_an_interrupted_frame_that_splits_nothing_is_kept() -> None:
    messages = [U(), F(("a", "read")), R("a"), ABORTED("partial answer"), U("again")]
    view, report = strict(messages, "anthropic")
    assert not report.changed and view is messages


def test_an_empty_interrupted_frame_is_dropped_with_its_reason() -> None:
    messages = [U(), SAY(), U("more"), ABORTED(None), U("again")]
    _, report = strict(messages)
    assert action(report, 3).kind == "dropped_interrupted_frame" and action(report, 3).codes == [NoteCode.FRAME_EMPTY]


def test_an_interrupted_frame_superseded_by_the_next_assistant_turn_is_dropped_only_for_bedrock() -> None:
    messages = [U(), ABORTED("I will"), SAY("Here is the answer")]
    _, report = strict(messages)
    assert not report.changed
    view, report = strict(messages, "bedrock")
    assert action(report, 1).kind == "dropped_interrupted_frame"
    assert action(report, 1).codes == [NoteCode.FRAME_SUPERSEDED]
    assert validate(view, "bedrock") == []


# --- placeholder -------------------------------------------------------------------------------------


def test_the_placeholder_says_the_outcome_is_unknown_and_is_configurable() -> None:
    messages = [U(), F(("a", "run_shell"))]
    view, report = strict(messages)
    receipt = json.loads(texts(view[2])[0])
    assert receipt["message"] == STRICT_MESSAGE and "unknown" in STRICT_MESSAGE and "check" in STRICT_MESSAGE
    assert report.synthesized[0].text == strict_placeholder_text()
    plan = plan_strict(light_transcript(messages), None, placeholder="Ask the user what happened.")
    custom, _ = materialize(plan.order, messages, plan.placeholder, now)
    assert json.loads(texts(custom[2])[0]) == {"ok": False, "error": "interrupted",
                                              "message": "Ask the user what happened."}


# --- provider role rules -----------------------------------------------------------------------------


def test_bedrock_results_then_a_user_message_get_an_assistant_turn_between() -> None:
    messages = [U(), F(("a", "read")), U("[paused]"), R("a")]
    view, report = strict(messages, "bedrock")
    assert [m["role"] for m in view] == ["user", "assistant", "toolResult", "assistant", "user"]
    turn = report.turns[0]
    assert turn.role == "assistant" and turn.view_index == 3 and turn.code == NoteCode.REPLY_AFTER_RESULTS
    assert report.view[3].source == "turn"
    assert validate(view, "bedrock") == [] and validate(messages, "bedrock") != []


def test_bedrock_consecutive_user_messages_are_sent_as_one() -> None:
    messages = [U("one"), U("two"), SAY()]
    view, report = strict(messages, "bedrock")
    assert len(view) == 2 and texts(view[0]) == ["one", "two"]
    assert action(report, 0).kind == "merged" and action(report, 0).kept_instead == 1
    assert action(report, 0).codes == [NoteCode.MERGED_INTO]
    assert report.merges[0].members == [0, 1] and report.summary.merged == 1
    assert validate(view, "bedrock") == []


def test_a_long_run_of_merged_messages_is_named_by_its_first_and_last_not_in_full() -> None:
    """Every merged message's reason names the run: 40 user turns sent as one name 11 of them and a count,
    so a run of thousands does not put thousands of numbers in each of thousands of reasons."""
    messages = [U(f"note {n}") for n in range(40)] + [SAY()]
    view, report = strict(messages, "bedrock")
    assert len(view) == 2 and report.merges[0].members == list(range(40))
    reason = action(report, 0).reason
    assert "#0, #1, #2, #3, #4, #5, #6, #7, #8, #9, ... (29 more) ... #39" in reason and "#20" not in reason
    assert "#9, ... (28 more) ... #38 before its own" in action(report, 39).reason  # the carrier: the others
    assert validate(view, "bedrock") == []


def test_bedrock_history_starting_with_an_assistant_turn_gets_a_user_turn_first() -> None:
    messages = [SAY("Welcome back"), U(), F(("a", "read")), R("a")]
    view, report = strict(messages, "bedrock")
    assert view[0]["role"] == "user" and report.turns[0].code == NoteCode.START_WITH_USER
    assert validate(view, "bedrock") == []


def test_gemini_text_turn_before_a_call_turn_is_merged_into_it() -> None:
    messages = [U(), SAY("Let me look"), F(("a", "read")), R("a")]
    view, report = strict(messages, "gemini")
    assert len(view) == 3 and texts(view[1]) == ["Let me look"] and view[1]["content"][-1]["type"] == "toolCall"
    assert action(report, 1).kind == "merged" and action(report, 1).codes == [NoteCode.MERGED_INTO]
    # Gemini combines the two model turns itself (recorded HTTP 200), so the file was accepted as well
    assert validate(view, "gemini") == [] and validate(messages, "gemini") == []


def test_mistral_gets_an_assistant_turn_between_tool_and_user() -> None:
    messages = [U(), F(("a", "read")), R("a"), U("next")]
    view, report = strict(messages, "mistral")
    assert [m["role"] for m in view] == ["user", "assistant", "toolResult", "assistant", "user"]
    assert report.turns[0].code == NoteCode.REPLY_AFTER_RESULTS
    assert validate(view, "mistral") == []


def test_mistral_last_role_rule_applies_to_outgoing_requests_only() -> None:
    history = [U(), SAY("done")]
    assert [v.rule for v in validate(history, "mistral")] == ["last_role_assistant"]
    assert validate(history, "mistral", history=True) == []
    request = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "done"}]
    assert [v.rule for v in validate_native(request, "mistral")] == ["last_role_assistant"]
    assert validate_native(request, "mistral", history=True) == []


def test_without_a_provider_the_strict_view_follows_no_role_rules() -> None:
    messages = [U("one"), U("two"), SAY()]
    _, report = strict(messages)
    assert not report.changed and not report.turns and not report.merges


def test_new_view_entries_survive_the_fast_path_and_a_json_report() -> None:
    messages = [SAY("hello"), U("one"), U("two"), F(("a", "read")), U("[paused]"), R("a"), SAY("x"), ABORTED("y"),
                SAY("z")]
    plan = plan_strict(light_transcript(messages), "bedrock")
    assert any(isinstance(e, Merged) for e in plan.order) and any(isinstance(e, SynthesizedTurn) for e in plan.order)
    view, report = strict(messages, "bedrock")
    fast = read_fast(json.dumps(messages).encode(), "x.json")
    out = io.BytesIO()
    write_fast(fast, plan, now, out)
    assert json.loads(out.getvalue()) == view
    again = read_report(json.loads(msgspec.json.encode(report)))
    assert view_from_report(again, messages) == view
    assert validate(view, "bedrock") == []
    assert not plan_strict(light_transcript(view), "bedrock").changed


# --- fixtures ----------------------------------------------------------------------------------------


def fixture_format(path: Path) -> str:
    return path.name.split(".")[1]


OWN_PROVIDERS = [(path, provider) for path in FIXTURES for provider in PROVIDERS
                 if PROVIDER_FORMAT[provider] == fixture_format(path)]


@pytest.mark.parametrize("path,provider", OWN_PROVIDERS, ids=[f"{p.name}-{v}" for p, v in OWN_PROVIDERS])
def test_every_fixture_is_repaired_into_a_request_its_own_provider_accepts(path: Path, provider: str) -> None:
    transcript = load(path.read_bytes(), str(path))
    analysis = analyze(transcript, "strict", now, provider, [provider])
    assert analysis.verdicts[provider].after == []
    assert validate(analysis.view, provider, transcript, history=True) == []


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_every_fixture_is_repaired_into_a_request_every_provider_accepts(path: Path) -> None:
    transcript = load(path.read_bytes(), str(path))
    for provider in PROVIDERS:
        analysis = analyze(transcript, "strict", now, provider)
        after = validate(analysis.view, provider, transcript, history=True)
        assert after == [], f"{provider}: {[(v.rule, v.position) for v in after]}"
        assert view_from_report(analysis.report, transcript.messages) == analysis.view


@pytest.mark.parametrize("provider", [None, "gemini", "anthropic"])
def test_an_idless_result_after_its_calls_are_answered_is_a_later_result_of_its_own_tool(provider: str | None) -> None:
    """Found by tests/test_strict_properties.py: once every id-less call was answered, a later id-less
    result was taken as a second result for the latest id-less call of any tool.  A read_file result
    replaced run_shell's interrupted receipt, and run_shell's real result was then dropped as a
    duplicate: the view answered run_shell with read_file's output, and planning that view again
    changed it."""
    messages = [F(("", "read_file"), ("", "run_shell")), R("", "first read", "read_file"),
                RECEIPT("", "run_shell"), R("", "second read", "read_file"), R("", "shell out", "run_shell"), U()]
    view, report = strict(messages, provider)
    answers = {pairing.tool_name: pairing.answered_by for pairing in report.pairings}
    assert answers == {"read_file": 1, "run_shell": 4}
    assert action(report, 2).kind == "dropped_duplicate" and action(report, 2).kept_instead == 4
    assert action(report, 3).kind == "dropped_duplicate" and action(report, 3).kept_instead == 1
    assert [message["content"][0]["text"] for message in view if message["role"] == "toolResult"] == \
        ["first read", "shell out"]
    assert not plan_strict(light_transcript(view), provider).changed


USER = {"role": "user", "content": [{"type": "text", "text": "next"}], "timestamp": 0}


@pytest.mark.parametrize("turns", [1, 3, 40])
def test_idless_results_of_a_tool_never_called_are_strays_and_counted(turns: int) -> None:
    """Gemini: before each turn, a result of a tool no call has.  Each is dropped as a stray, the summary
    counts them (the verdict and the counts line say the same), and each turn keeps its own result."""
    messages = [USER, *(message for at in range(turns) for message in (
        idless("result", "ghost", at), idless("call", "read", at), idless("result", "read", at)))]
    report = analyze(Transcript(messages, "ghost.json"), "strict", now=lambda: 7).report
    ghosts = [1 + 3 * at for at in range(turns)]
    strays = [a for a in report.actions if a.kind.value == "dropped_stray"]
    assert [a.durable_index for a in strays] == ghosts
    # the reason names the tool: calls without an id exist, so "no call has id ''" would be false
    assert all(a.reason.startswith("a result without an id, and no call of tool 'ghost' is left for it")
               for a in strays)
    assert report.summary.strays == report.summary.strays_dropped == turns
    answered = [(p.frame_index, p.answered_by) for p in report.pairings]
    assert answered == [(2 + 3 * at, 3 + 3 * at) for at in range(turns)]
    reference = analyze(Transcript(messages, "ghost.json"), "openmaic", now=lambda: 7).report
    assert reference.summary.strays == 0  # the reference pairs them by the empty id: duplicates there


@pytest.mark.parametrize("turns", [1, 3, 40])
def test_idless_calls_left_unanswered_are_answered_with_receipts(turns: int) -> None:
    """An unanswered call of one tool before each answered call of another: the answered ones keep their
    results, the others get a synthesized receipt."""
    messages = [USER, *(message for at in range(turns) for message in (
        idless("call", "lost", at), USER, idless("call", "read", at), idless("result", "read", at)))]
    report = analyze(Transcript(messages, "lost.json"), "strict", now=lambda: 7).report
    assert report.summary.orphaned_calls == report.summary.synthesized == turns
    outcomes = {p.frame_index: (p.outcome, p.answered_by) for p in report.pairings}
    assert outcomes == {**{1 + 4 * at: ("synthesized", None) for at in range(turns)},
                        **{3 + 4 * at: ("answered", 4 + 4 * at) for at in range(turns)}}


@pytest.mark.parametrize("turns", [1, 3, 40])
def test_idless_results_before_their_calls_each_answer_one_call(turns: int) -> None:
    """Each result just before its call: without ids, a result after a call answers it (results after
    their calls pair in order), and the first, before every call, answers the one left.  Every call gets
    one real result, none is dropped, and the view is legal for Gemini."""
    messages = [USER, *(message for at in range(turns) for message in (
        idless("result", "read", at), idless("call", "read", at), USER))]
    analysis = analyze(Transcript(messages, "early.json"), "strict", now=lambda: 7, provider="gemini")
    report = analysis.report
    answers = sorted(p.answered_by for p in report.pairings)
    assert answers == [1 + 3 * at for at in range(turns)]
    assert all(p.outcome in ("answered", "moved") for p in report.pairings)
    assert report.summary.strays == report.summary.synthesized == report.summary.duplicates_dropped == 0
    assert validate(analysis.view, "gemini", history=True) == []


def test_an_idless_result_paired_by_order_is_no_stray() -> None:
    """A result without an id naming a tool no call has answers the id-less call waiting for it (by order):
    the count of strays is what the planner dropped, not a guess from the tool's name."""
    messages = [USER, idless("call", "read", 1), idless("result", "ghost", 2), idless("result", "other", 3)]
    report = analyze(Transcript(messages, "order.json"), "strict", now=lambda: 7).report
    assert [(p.frame_index, p.answered_by) for p in report.pairings] == [(1, 2)]
    assert report.summary.strays_dropped == report.summary.strays == 1
