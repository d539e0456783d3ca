"""Property-based tests: random pi-ai transcripts with every defect kind.

The generator writes turns the way a runtime would (user turn, assistant frame
with calls, results) and then breaks them the ways real transcripts break:
missing results, results split from their frame by an aborted frame or a pause,
reordered results, duplicates (including a crash receipt followed by the real
result), results recorded before their call or turns later, stray results, a
non-string toolCallId, length/error/aborted text frames anywhere, ids reused
across frames and (optionally) repeated inside one frame.
"""

from __future__ import annotations

import copy
import io
import json
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity import (
    PendingToolCall,
    interrupted_tool_result,
    is_interrupted_tool_result,
    repair_orphaned_tool_calls,
    repair_with_report,
    view_from_report,
)
from integrity._bulk.fast_read import read_fast, write_fast
from integrity.kinds import worst
from integrity.repair.plan import plan_openmaic
from integrity.repair.views import light_transcript
from integrity.schema.pi_ai import check_messages

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

EXTRAS = ["stray", "nonstring", "length", "aborted", "error", "errmsg", "pause", "system", "custom"]


def zero() -> int:
    return 0


class Builder:
    def __init__(self) -> None:
        self.stamp = 0

    def ts(self) -> int:
        self.stamp += 1
        return self.stamp

    def user(self, text: str = "go") -> dict[str, Any]:
        return {"role": "user", "content": text, "timestamp": self.ts()}

    def frame(self, calls: list[tuple[str, str]]) -> dict[str, Any]:
        content: list[Any] = [{"type": "text", "text": "calling"}]
        content += [{"type": "toolCall", "id": cid, "name": name, "arguments": {"n": i}}
                    for i, (cid, name) in enumerate(calls)]
        return {"role": "assistant", "content": content, "stopReason": "toolUse", "timestamp": self.ts()}

    def text(self, stop: str = "stop", **extra: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": [{"type": "text", "text": "..."}], "stopReason": stop,
                "timestamp": self.ts(), **extra}

    def result(self, call_id: Any, name: str = "tool") -> dict[str, Any]:
        stamp = self.ts()
        return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
                "content": [{"type": "text", "text": f"result {stamp}"}], "isError": False, "timestamp": stamp}

    def receipt(self, call_id: str, name: str) -> dict[str, Any]:
        return interrupted_tool_result(PendingToolCall(call_id, name), self.ts())

    def extra(self, kind: str) -> dict[str, Any]:
        if kind == "stray":
            return self.result(f"stray-{self.stamp}", "ghost")
        if kind == "nonstring":
            return self.result(self.stamp, "ghost")
        if kind in ("length", "aborted", "error"):
            return self.text(kind)
        if kind == "errmsg":
            return self.text("stop", errorMessage="upstream 500")
        if kind == "pause":
            return self.user("still there?")
        if kind == "system":
            return {"role": "system", "content": "note", "timestamp": self.ts()}
        return {"role": "compactionSummary", "summary": "...", "timestamp": self.ts()}


@st.composite
def transcripts(draw: Any, repeat_in_frame: bool = True, custom_roles: bool = True) -> list[dict[str, Any]]:
    b = Builder()
    extras = [kind for kind in EXTRAS if custom_roles or kind != "custom"]
    messages: list[dict[str, Any]] = []
    deferred: list[dict[str, Any]] = []
    used: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        for kind in draw(st.lists(st.sampled_from(extras), max_size=2)):
            messages.append(b.extra(kind))
        if deferred and draw(st.booleans()):
            messages.extend(deferred)
            deferred = []
        if draw(st.integers(0, 3)) == 0:
            messages += [b.user(), b.text(draw(st.sampled_from(["stop", "stop", "length", "error"])))]
            continue
        calls: list[tuple[str, str]] = []
        for position in range(draw(st.integers(1, 3))):
            source = draw(st.sampled_from(["fresh"] * 6 + ["reuse"] + (["repeat"] if repeat_in_frame else [])))
            if source == "reuse" and used:
                call_id = draw(st.sampled_from(used))
            elif source == "repeat" and calls:
                call_id = draw(st.sampled_from(calls))[0]
            else:
                call_id = f"call_{len(used)}_{position}"
            calls.append((call_id, f"tool{len(calls)}"))
        used += [cid for cid, _ in calls]
        early: list[dict[str, Any]] = []
        run: list[dict[str, Any]] = []
        for cid, name in calls:
            fate = draw(st.sampled_from(["ok"] * 5 + ["missing", "deferred", "early", "duplicate", "crash"]))
            if fate == "ok":
                run.append(b.result(cid, name))
            elif fate == "deferred":
                deferred.append(b.result(cid, name))
            elif fate == "early":
                early.append(b.result(cid, name))
            elif fate == "duplicate":
                run.append(b.result(cid, name))
                (run if draw(st.booleans()) else deferred).append(b.result(cid, name))
            elif fate == "crash":  # receipt written at shutdown, then the real result after a restart
                run.append(b.receipt(cid, name))
                deferred.append(b.result(cid, name))
        run = draw(st.permutations(run))
        for _ in range(draw(st.integers(0, 2))):  # split the run: aborted frame, pause, stray, length ...
            run.insert(draw(st.integers(0, len(run))), b.extra(draw(st.sampled_from(extras))))
        messages += early + [b.user(), b.frame(calls)] + run
    if deferred and draw(st.booleans()):
        messages.extend(deferred)
    return messages


# ---------------------------------------------------------------- helpers


def call_ids(message: Any) -> list[str]:
    if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
        return []
    return [p["id"] for p in message["content"]
            if isinstance(p, dict) and p.get("type") == "toolCall" and isinstance(p.get("id"), str)
            and isinstance(p.get("name"), str)]


def all_call_ids(messages: list[Any]) -> Counter[str]:
    return Counter(cid for m in messages for cid in call_ids(m))


def is_result(message: Any) -> bool:
    return message.get("role") == "toolResult"


def adjacent_stray(view: list[Any], known: set[str]) -> bool:
    """A result no call owns sitting right after a frame's answers: the reference re-repairs that."""
    for position, message in enumerate(view):
        calls = call_ids(message)
        if calls:
            after = position + 1 + len(calls)
            if after < len(view) and is_result(view[after]) and view[after].get("toolCallId") not in known:
                return True
    return False


def repeats_in_frame(messages: list[Any]) -> bool:
    return any(len(set(ids)) != len(ids) for ids in map(call_ids, messages))


# ---------------------------------------------------------------- properties


def check_input_never_mutated(messages: list[Any]) -> None:
    snapshot = copy.deepcopy(messages)
    repair_orphaned_tool_calls(messages, now=zero)
    repair_with_report(messages, now=zero, policy="openmaic")
    assert json.dumps(messages) == json.dumps(snapshot)


def check_idempotence(messages: list[Any]) -> None:
    view = repair_orphaned_tool_calls(messages, now=zero).messages
    again = repair_orphaned_tool_calls(view, now=zero)
    assert again.repaired_tool_calls == []
    # The reference's run check can fail on a view its rebuild cannot improve, so a
    # second repair runs again in two cases: a frame repeating an id (its answers
    # repeat too, while the check expects each id once) and a stray result left in
    # place right after a frame's answers (an extra id in the run).  Without those,
    # the repaired view comes back by identity.
    known = all_call_ids(messages)
    if not repeats_in_frame(messages) and not adjacent_stray(view, set(known)):
        assert again.messages is view
    # Even when it runs again it changes nothing, unless an id is used by several
    # calls: then every use is answered with the first result in the view, which
    # can be the receipt synthesized for an earlier use (with that use's tool name).
    if all(count == 1 for count in known.values()):
        assert len(again.messages) == len(view)
        assert all(a is b for a, b in zip(again.messages, view, strict=True))


def check_every_call_answered_once_right_after_its_frame_in_call_order(messages: list[Any]) -> None:
    result, report = repair_with_report(messages, now=zero, policy="openmaic")
    view = result.messages
    uses = all_call_ids(view)
    slots: set[int] = set()
    for position, message in enumerate(view):
        calls = call_ids(message)
        run = [m.get("toolCallId") for m in view[position + 1: position + 1 + len(calls)] if is_result(m)]
        if result.messages is messages:
            # Unchanged (the reference does not check order in an otherwise complete
            # run): the answers are right after the frame; the report flags the order.
            if len(set(calls)) == len(calls):
                assert sorted(run) == sorted(calls)
            if run != calls and len(run) == len(calls):
                assert any(f.kind == "results_out_of_order" and position in f.durable_indices
                           for f in report.findings)
        else:
            assert run == calls, f"frame #{position}: answers {run} for calls {calls}"
        slots.update(range(position + 1, position + 1 + len(calls)))
    # Every result that answers some call sits in an answer slot; the rest are strays
    # (or, in an unchanged transcript, durable duplicates the reference leaves alone).
    answer_counts = Counter(m.get("toolCallId") for m in view if is_result(m))
    for position, message in enumerate(view):
        if is_result(message) and message.get("toolCallId") in uses and position not in slots:
            assert result.messages is messages
    for cid, count in uses.items():
        if count != 1:  # ids used by several calls share the first result (the reference quirk)
            continue
        if answer_counts[cid] != 1:
            # Only possible when nothing was repaired: a second result for the call
            # sits away from any frame, so the reference's run check passes.
            assert result.messages is messages, f"call {cid!r} answered {answer_counts[cid]} times"


@SETTINGS
@given(transcripts())
def test_repair_properties(messages: list[Any]) -> None:
    """All dict-path properties on one generated transcript (generation dominates the cost)."""
    check_input_never_mutated(messages)
    check_idempotence(messages)
    check_every_call_answered_once_right_after_its_frame_in_call_order(messages)
    check_no_durable_result_lost_except_named_duplicates(messages)
    check_report_summary_agrees_with_actions(messages)


@SETTINGS
@given(transcripts(repeat_in_frame=False))
def test_report_flags_a_duplicate_left_in_place(messages: list[Any]) -> None:
    """An unchanged view can answer a call twice (see above); the report must say so.

    A strict provider rejects a second result for one call, so a report that calls
    such a transcript healthy ("every call answered once") and lists no finding for
    the extra result misleads the reader.
    """
    result, report = repair_with_report(messages, now=zero, policy="openmaic")
    uses = all_call_ids(messages)
    for cid, count in uses.items():
        found = [i for i, m in enumerate(result.messages) if is_result(m) and m.get("toolCallId") == cid]
        if count == 1 and len(found) > 1:
            extra = found[1:]  # unchanged view: view positions are durable indices
            assert not report.healthy, (
                f"call {cid!r} is answered {len(found)} times in the view, yet the report says {report.verdict!r}"
            )
            assert any(set(extra) & set(f.durable_indices) for f in report.findings), (
                f"no finding names the extra result(s) {extra} for call {cid!r}"
            )


def check_no_durable_result_lost_except_named_duplicates(messages: list[Any]) -> None:
    result, report = repair_with_report(messages, now=zero, policy="openmaic")
    view = result.messages
    in_view = {id(m) for m in view}
    known = set(all_call_ids(messages))
    by_index = {action.durable_index: action for action in report.actions}
    assert sorted(by_index) == list(range(len(messages)))
    first_for: dict[str, int] = {}
    for index, message in enumerate(messages):
        action = by_index[index]
        if is_result(message):
            cid = message.get("toolCallId")
            if isinstance(cid, str):
                first_for.setdefault(cid, index)
            if id(message) in in_view:
                assert action.kind in ("kept", "moved", "reordered")
                continue
            # Dropped: only a later duplicate of a call's result, and the report names the one kept.
            assert cid in known, "a stray result must stay in place"
            assert action.kind == "dropped_duplicate"
            assert action.kept_instead == first_for[cid] != index
            assert id(messages[action.kept_instead]) in in_view
        elif id(message) not in in_view:
            assert action.kind == "dropped_interrupted_frame"
            assert message["role"] == "assistant" and not call_ids(message)
        else:
            assert action.kind == "kept"
    # Kept messages keep their relative order apart from results moved to their frame.
    others = [m for m in messages if not is_result(m) and id(m) in in_view]
    assert [m for m in view if not is_result(m)] == others
    assert all(any(m is o for o in others) for m in view if not is_result(m))
    assert view_from_report(report, messages) == view


def check_report_summary_agrees_with_actions(messages: list[Any]) -> None:
    result, report = repair_with_report(messages, now=zero, policy="openmaic")
    s = report.summary
    kinds = Counter(action.kind for action in report.actions)
    known = set(all_call_ids(messages))
    assert s.messages == len(messages) == len(report.actions)
    assert s.view_messages == len(result.messages) == len(report.view)
    assert s.moved == kinds["moved"] and s.reordered == kinds["reordered"]
    assert s.duplicates_dropped == kinds["dropped_duplicate"]
    assert s.frames_dropped == kinds["dropped_interrupted_frame"]
    assert s.strays_dropped == kinds["dropped_stray"] == 0
    assert s.synthesized == len(report.synthesized) == sum(1 for e in report.view if e.source == "synthesized")
    assert s.synthesized == sum(1 for m in result.messages if is_interrupted_tool_result(m)
                                and not any(m is d for d in messages))
    assert s.calls == len(report.pairings) == sum(all_call_ids(messages).values())
    assert s.results == sum(1 for m in messages if is_result(m))
    assert s.orphaned_calls == len(report.repaired_tool_calls) == len(result.repaired_tool_calls)
    assert s.strays == sum(1 for m in messages if is_result(m) and m.get("toolCallId") not in known)
    assert s.findings == len(report.findings)
    assert sum(1 for p in report.pairings if p.outcome == "synthesized") == s.synthesized
    assert report.changed is (result.messages is not messages)
    severities = [*(a.severity for a in report.actions), *(f.severity for f in report.findings),
                  *(e.severity for e in report.view if e.source in ("synthesized", "turn"))]
    assert report.severity is worst(severities)
    assert report.healthy is (report.severity in ("info", "normalized"))
    if report.changed and report.healthy:  # the view only normalizes: never worded as a repair
        assert report.verdict.startswith("healthy:") and "moved" not in report.verdict
    assert report.verdict and "\n" not in report.verdict
    if not report.changed:
        assert kinds == Counter({"kept": len(messages)})


@SETTINGS
@given(transcripts(custom_roles=False))
def test_fast_path_equals_dict_path(messages: list[Any]) -> None:
    data = json.dumps(messages).encode("utf-8")
    fast = read_fast(data, "<test>")
    has_tool_messages = any(
        is_result(m) or any(isinstance(p, dict) and p.get("type") == "toolCall"
                            for p in (m.get("content") if isinstance(m.get("content"), list) else []))
        for m in messages)
    malformed = check_messages(messages)
    if fast is None:
        # the fast path declines only what is not pi-ai, or breaks the pi-ai schema (the general reader reports it)
        assert not has_tool_messages or malformed, "the fast path declined a well-formed pi-ai transcript"
        return
    assert not malformed, "the fast path read a file with schema findings: it must validate the same"
    dict_plan = plan_openmaic(light_transcript(messages))
    fast_plan = plan_openmaic(fast.light)

    def shape(plan: Any) -> Any:
        order = None if plan.order is None else [
            e if type(e) is int else (e.call_id, e.tool_name, e.frame_index, e.call_position) for e in plan.order
        ]
        return plan.changed, order, plan.repaired_tool_calls, sorted(plan.dropped_frames), plan.dropped_duplicates

    assert shape(fast_plan) == shape(dict_plan)
    out = io.BytesIO()
    write_fast(fast, fast_plan, zero, out)
    expected = repair_orphaned_tool_calls(messages, now=zero).messages
    if not fast_plan.changed:
        assert out.getvalue() == data
    assert json.loads(out.getvalue()) == expected
