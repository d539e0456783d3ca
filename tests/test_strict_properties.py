"""The strict policy's guarantee, property-tested over every format and every provider.

Broken canonical transcripts are generated with every defect the strict policy
handles (missing results, results split from their call by aborted frames,
duplicates, an interrupted receipt plus the late real result, strays, ids reused
across turns, empty ids, pause messages between call and result, results before
their call, a frame cut off mid-call, a history starting with an assistant turn,
consecutive user or assistant turns, system messages anywhere), written in each
format with integrity.formats and read back with its reader.  For each provider the strict view planned for it must:

- pass that provider's rule set (validated as a history, as the facade does);
- be idempotent: planning the view again changes nothing;
- lose no durable result except the ones the report names as dropped;
- leave the input untouched;
- be rebuilt exactly by view_from_report from the report and the durable messages.
"""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity._bulk.fast_read import read_fast, write_fast
from integrity.analysis import analyze
from integrity.formats import FORMATS, read_bytes, sent_ids, to_native
from integrity.formats.container import serialize
from integrity.loading import Transcript, TranscriptError
from integrity.providers import PROVIDERS, validate
from integrity.repair.strict import plan_strict
from integrity.repair.views import light_transcript
from integrity.report import view_from_report

NOW = 1_700_000_000_000
NAMES = ("read_file", "run_shell", "search")
RECEIPT_DETAILS = {"ok": False, "error": "interrupted"}


def now() -> int:
    return NOW


def user(text: str, stamp: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": stamp}


def say(text: str, stamp: int) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop",
            "timestamp": stamp}


def frame(calls: list[tuple[str, str]], stamp: int, stop: str = "toolUse") -> dict[str, Any]:
    parts: list[Any] = [{"type": "text", "text": "calling"}]
    parts += [{"type": "toolCall", "id": i, "name": n, "arguments": {"k": k}} for k, (i, n) in enumerate(calls)]
    return {"role": "assistant", "content": parts, "stopReason": stop, "timestamp": stamp}


def result(call_id: str, name: str, text: str, stamp: int) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": stamp}


def receipt(call_id: str, name: str, stamp: int) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": '{"ok":false,"error":"interrupted"}'}],
            "details": dict(RECEIPT_DETAILS), "isError": True, "timestamp": stamp}


def aborted(stamp: int, partial: bool) -> dict[str, Any]:
    content = [{"type": "text", "text": "I will now"}] if partial else []
    return {"role": "assistant", "content": content, "stopReason": "aborted", "errorMessage": "Request was aborted",
            "timestamp": stamp}


DEFECTS = ("drop_result", "abort_frame", "duplicate", "receipt_then_real", "stray", "pause", "result_first",
           "extra_user", "extra_assistant", "aborted_partial_call", "system")


@st.composite
def broken_transcripts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Healthy rounds, then a few defects applied at drawn positions."""
    messages: list[dict[str, Any]] = []
    used: list[str] = []
    fresh = 0
    stamp = 1
    texts = iter(f"out {n}" for n in range(1000))
    for turn in range(draw(st.integers(1, 3))):
        if turn > 0 or draw(st.integers(0, 4)) > 0:  # sometimes the history starts with an assistant turn
            messages.append(user(f"ask {turn}", stamp))
        if draw(st.booleans()):
            messages.append(say("thinking out loud", stamp))
        calls = []
        for _ in range(draw(st.integers(1, 3))):
            how = draw(st.sampled_from(("fresh", "fresh", "reuse", "empty", "joined")))
            if how == "reuse" and used:
                call_id = draw(st.sampled_from(used))
            elif how == "empty":
                call_id = ""
            elif how == "joined":  # an OpenAI call's two ids as pi keeps them (pi sends them apart: pi_responses)
                call_id = f"call_{fresh}|fc_{fresh:0>60}"
                fresh += 1
            else:
                call_id = f"call_{fresh}"
                fresh += 1
            calls.append((call_id, draw(st.sampled_from(NAMES))))
        used += [c for c, _ in calls if c]
        messages.append(frame(calls, stamp))
        for position in draw(st.permutations(range(len(calls)))):
            call_id, name = calls[position]
            messages.append(result(call_id, name, next(texts), stamp))
        if draw(st.booleans()):
            messages.append(say(f"done {turn}", stamp))
        stamp += 1
    for defect in draw(st.lists(st.sampled_from(DEFECTS), max_size=4)):
        results = [i for i, m in enumerate(messages) if m["role"] == "toolResult"]
        anywhere = draw(st.integers(0, len(messages)))
        if defect == "drop_result" and results:
            del messages[draw(st.sampled_from(results))]
        elif defect == "abort_frame":
            messages.insert(anywhere, aborted(stamp, draw(st.booleans())))
        elif defect == "duplicate" and results:
            original = messages[draw(st.sampled_from(results))]
            messages.insert(anywhere, {**copy.deepcopy(original), "content": [{"type": "text", "text": "again"}]})
        elif defect == "receipt_then_real" and results:
            at = draw(st.sampled_from(results))
            real = messages[at]
            messages[at] = receipt(real["toolCallId"], real["toolName"], real["timestamp"])
            messages.insert(draw(st.integers(at + 1, len(messages))), real)
        elif defect == "stray":
            messages.insert(anywhere, result(f"ghost_{anywhere}", "search", "orphan output", stamp))
        elif defect == "pause":
            messages.insert(anywhere, user("[paused: waiting for approval]", stamp))
        elif defect == "result_first" and results:
            moved = messages.pop(draw(st.sampled_from(results)))
            messages.insert(draw(st.integers(0, len(messages))), moved)
        elif defect == "extra_user":
            messages.insert(anywhere, user("one more thing", stamp))
        elif defect == "extra_assistant":
            messages.insert(anywhere, say("let me think", stamp))
        elif defect == "aborted_partial_call":  # a frame cut off mid-call: no result will ever come
            messages.insert(anywhere, frame([(f"partial_{anywhere}", "run_shell")], stamp, stop="aborted"))
        elif defect == "system":
            messages.insert(anywhere, {"role": "system", "content": "Be brief.", "timestamp": stamp})
    return messages


def written_and_read(messages: list[dict[str, Any]], format: str) -> Transcript:
    """The messages written in `format` by integrity.formats, then read back by that format's reader."""
    request = to_native(messages, format)
    container = "jsonl" if format == "claude-code" else ("array" if isinstance(request.body, list) else "object")
    return read_bytes(serialize(request.body, container), f"generated.{format}", format)


def result_positions(report: Any) -> set[int]:
    return {entry.index for entry in report.view if entry.source == "durable"}


def check_strict_guarantee(transcript: Transcript, provider: str) -> None:
    messages = transcript.messages
    before = copy.deepcopy(messages)
    analysis = analyze(transcript, "strict", now, provider)
    view, report, plan = analysis.view, analysis.report, analysis.plan
    where = f"{transcript.format} -> {provider}"

    # 1. The provider accepts the view (as a history; see docs/providers.md on Mistral).
    violations = validate(view, provider, transcript, history=True)
    assert violations == [], f"{where}: {[(v.rule, v.position, v.error) for v in violations]}"

    # 2. Idempotent: the view, planned again for the same provider, is left as it is.
    light_again = light_transcript(view)
    light_again.sent_ids = sent_ids(transcript)  # (the same runtime sends the view: pi's joined ids apart)
    again = plan_strict(light_again, provider)
    assert not again.changed, f"{where}: re-planning the view changed it ({again.order})"

    # 3. No durable result lost except the ones the report names.
    light = analysis.light
    in_view = result_positions(report)
    for merge in report.merges:
        in_view.update(merge.members)
    kinds = {action.durable_index: action.kind for action in report.actions}
    assert sorted(kinds) == list(range(len(messages))), f"{where}: every durable message has an action"
    for index in light.result_keys:
        if index not in in_view:
            assert kinds[index] in ("dropped_duplicate", "dropped_stray"), f"{where}: result #{index} lost"
    named = {index for index, kind in kinds.items() if kind in ("dropped_duplicate", "dropped_stray")}
    assert not named & in_view, f"{where}: a result named as dropped is still in the view"
    for action in report.actions:
        assert action.kind == "kept" or action.reason, f"{where}: #{action.durable_index} {action.kind} unexplained"
    assert all(turn.reason for turn in report.turns)

    # 4. The input is never mutated.
    assert messages == before, f"{where}: the durable transcript changed"

    # 5. The report alone rebuilds the view.
    assert view_from_report(report, messages) == view, f"{where}: view_from_report differs"
    assert report.summary.view_messages == len(view)
    # the report changes exactly when the written file does: the plan's changes, or the file's own writer sending an
    # entry otherwise (`reshaped`: Bedrock's results split by a system message sent as one, found here by hypothesis)
    assert report.changed == (plan.changed or report.summary.reshaped > 0)


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("format", FORMATS)
@SETTINGS
@given(messages=broken_transcripts())
def test_strict_view_is_legal_idempotent_and_lossless(format: str, messages: list[dict[str, Any]]) -> None:
    # Every history the strategy draws can be written in every format, and a format's reader must read
    # back what its writer wrote: a refusal is a bug in one of them, never an example to pass over.
    try:
        transcript = written_and_read(messages, format)
    except TranscriptError as error:
        pytest.fail(f"the {format} reader refused what the {format} writer wrote: {error}")
    for provider in PROVIDERS:
        check_strict_guarantee(transcript, provider)


def test_a_new_id_and_a_renamed_joined_id_are_never_sent_as_one() -> None:
    """Found by the property above (pi-session -> deepseek): an id-less call was named `call_1_2`, and a later use of
    the joined id `call_1|fc_…` was renamed `call_1_2|fc_…_2`; pi sends a joined id's first part alone as a Chat
    request's call id, so DeepSeek got `call_1_2` twice ("Duplicate value for 'tool_call_id' of call_1_2")."""
    joined = "call_1|fc_" + "0" * 60 + "1"

    def call(call_id: str, k: int) -> dict[str, Any]:
        return {"type": "toolCall", "id": call_id, "name": "read_file", "arguments": {"k": k}}

    def result(call_id: str, text: str, at: int) -> dict[str, Any]:
        return {"role": "toolResult", "toolCallId": call_id, "toolName": "read_file",
                "content": [{"type": "text", "text": text}], "isError": False, "timestamp": at}

    def ask(text: str, at: int) -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": at}

    def frame(calls: list[dict[str, Any]], at: int) -> dict[str, Any]:
        return {"role": "assistant", "content": [{"type": "text", "text": "calling"}, *calls],
                "stopReason": "toolUse", "timestamp": at}

    messages = [ask("ask 0", 1), frame([call("call_0", 0), call(joined, 1), call("", 2)], 1),
                result("call_0", "out 0", 1), result(joined, "out 1", 1), result("", "out 2", 1),
                ask("ask 1", 2), frame([call("call_2", 0)], 2), result("call_2", "out 3", 2),
                ask("ask 2", 3), frame([call(joined, 0)], 3), result(joined, "out 4", 3)]
    transcript = written_and_read(messages, "pi-session")
    for provider in PROVIDERS:
        check_strict_guarantee(transcript, provider)


@settings(max_examples=40, deadline=None)
@given(messages=broken_transcripts(), provider=st.sampled_from(PROVIDERS))
def test_fast_path_writes_the_same_view(messages: list[dict[str, Any]], provider: str) -> None:
    """The CLI's byte-level writer emits the same view for every plan entry type (merged, turns...)."""
    data = json.dumps(messages).encode()
    fast = read_fast(data, "generated.json")
    assert fast is not None
    plan = plan_strict(fast.light, provider)
    out = io.BytesIO()
    stamps = write_fast(fast, plan, now, out)
    expected = analyze(Transcript(messages, "generated.json"), "strict", now, provider)
    assert json.loads(out.getvalue()) == expected.view
    assert len(stamps) == len(expected.report.synthesized) + len(expected.report.turns)


_IDS = st.sampled_from(["A", "B", "C", ""])


@st.composite
def tangled_transcripts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Short transcripts over three ids (and ''): reused ids, results before, between and after
    their calls, numeric and non-string ids, in every order: each way a turn can fail to be clean."""
    out: list[dict[str, Any]] = []
    for stamp in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["frame", "result", "result", "user", "aborted"]))
        if kind == "frame":
            ids = draw(st.lists(st.one_of(_IDS, st.just(7)), min_size=1, max_size=3))
            out.append(frame([(i, "search") for i in ids], stamp))  # type: ignore[misc]
        elif kind == "result":
            # ids of every JSON type: a number (read by its text or not), an object (unhashable), null
            call_id = draw(st.one_of(_IDS, st.just(7), st.just({"id": "A"}), st.none()))
            out.append(result(call_id, "search", "r", stamp))
        elif kind == "user":
            out.append(user("go", stamp))
        else:
            out.append(aborted(stamp, False))
    return out


@settings(max_examples=300, deadline=None)
@given(messages=st.one_of(broken_transcripts(), tangled_transcripts()), numeric=st.booleans())
def test_the_clean_turns_found_while_reading_are_the_planners_own(messages: list[dict[str, Any]],
                                                                  numeric: bool) -> None:
    """LightBuilder classifies clean turns as messages stream in; the planner's own search over the
    finished view (used for a view built by hand) must find exactly the same turns and first frames,
    and the builder's loose messages must be every frame and result outside them, in order."""
    from integrity.repair.plan import Plan, index_results
    from integrity.repair.strict import _clean_frames

    fast = read_fast(json.dumps(messages).encode(), "generated.json")  # None for numeric ids (a schema finding)
    for light in (light_transcript(messages, numeric_ids=numeric), *([fast.light] if fast else [])):
        plan = Plan("strict")
        index_results(light, plan)
        if light.numeric_calls or light.numeric_results:  # read by their text: no turn is clean
            assert light.clean is None
            continue
        assert light.clean is not None
        clean, first_frame, loose = light.clean
        assert (clean, first_frame, loose) == _clean_frames(light, plan.first_result)
        inside = {index + at for index in clean for at in range(len(light.frames[index]) + 1)}
        assert loose == sorted((light.frames.keys() | light.result_keys.keys()) - inside)


@settings(max_examples=150, deadline=None)
@given(messages=st.one_of(broken_transcripts(), tangled_transcripts()), numeric=st.booleans(),
       provider=st.sampled_from([None, *PROVIDERS]))
def test_the_strict_plan_is_the_same_whether_the_reader_classified_clean_turns(
        messages: list[dict[str, Any]], numeric: bool, provider: str | None) -> None:
    """Other policies' readers skip the classification (clean=False); the strict planner then finds the
    clean turns itself: both ways must give the same view, notes and drops."""
    streamed = plan_strict(light_transcript(messages, numeric_ids=numeric), provider)
    searched_light = light_transcript(messages, numeric_ids=numeric, clean=False)
    assert searched_light.clean is None
    searched = plan_strict(searched_light, provider)
    for field in ("changed", "order", "repaired_tool_calls", "dropped_frames", "dropped_duplicates",
                  "dropped_strays", "notes", "merged", "settled", "first_result", "more_results"):
        assert getattr(streamed, field) == getattr(searched, field), field
