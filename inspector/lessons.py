"""Lessons on the tool-call invariants, and a step-by-step replay of a repair.

Each lesson names one invariant, points at a small broken example in
`sample_transcripts/`, and quotes the error text providers return when it is
broken (the documented texts below; live verdicts from the provider rule sets
are shown next to them when available; texts as collected in docs/providers.md).  `repair_steps` splits a report into
single actions so a learner can apply them one at a time and watch the view
change; applying all of them gives exactly the report's view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from integrity import DurableView, MergedView, ReceiptView, RepairKind, RepairReport, TurnView, spec


@dataclass(frozen=True)
class Lesson:
    """One invariant, explained on one example."""

    key: str
    title: str
    rule: str
    why: str
    sample: str
    provider_errors: tuple[tuple[str, str], ...]


def _said(provider: str, rule: str, **fields: object) -> tuple[str, str]:
    """(provider, the error text its rule set returns for `rule`), filled in from the provider's spec."""
    return provider, spec(provider).errors[rule].format(**fields)


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "answered", "Every call is answered",
        "Every tool call in an assistant frame has a tool result in the request.",
        "A crash or a lost write can leave a call without its result. Providers refuse the whole "
        "request; the repair synthesizes an 'interrupted' receipt so the model knows the outcome is unknown.",
        "orphaned_call.pi-ai.json",
        (_said("openai-chat", "tool_calls_unanswered", ids="call_readme"),
         _said("openai-responses", "function_call_unanswered", id="call_readme"),
         _said("bedrock", "tool_use_unanswered", index=2, ids="call_readme")),
    ),
    Lesson(
        "once", "Every call is answered once",
        "A call id has exactly one result in the request.",
        "Crash recovery can write an interrupted receipt and then the real result arrives late. "
        "The reference keeps the first durable receipt and drops the later one from the view.",
        "crash_duplicate.pi-ai.json",
        (_said("openai-chat", "duplicate_tool_call_id", id="call_deploy", first=2, second=3),
         _said("anthropic", "duplicate_tool_result", index=2, block=1, id="call_deploy"),
         _said("deepseek", "duplicate_tool_call_id", id="call_deploy", index=3),
         _said("bedrock", "too_many_tool_results", index=2)),
    ),
    Lesson(
        "contiguous", "Results come right after their frame",
        "The results of a frame are the messages immediately after it, with nothing in between.",
        "An aborted retry or a hook message can land between a call and its result. The repair moves "
        "the results back right after their frame and drops interrupted frames without calls.",
        "abort_race.pi-ai.json",
        (_said("anthropic", "tool_use_unanswered", index=1, ids="call_B"),
         _said("openai-chat", "tool_calls_unanswered", ids="call_B")),
    ),
    Lesson(
        "order", "Results follow call order",
        "The results after a frame appear in the order of its calls.",
        "Parallel tools finish in any order. Providers that pair by position (Gemini without ids) "
        "mismatch results; the reference only reports it, the strict policy reorders.",
        "out_of_order.pi-ai.json",
        (_said("gemini", "function_response_count_mismatch"),),
    ),
    Lesson(
        "no_stray", "No result without a call",
        "Every tool result answers a call that exists earlier in the request.",
        "Compaction can summarize away the frame that made a call and keep its result. The reference "
        "leaves such a stray in place (and providers reject it); the strict policy drops it.",
        "stray_result.pi-ai.json",
        (_said("openai-chat", "tool_result_without_call"),
         _said("anthropic", "unexpected_tool_result", index=1, block=0, ids="call_gone"),
         _said("openai-responses", "function_call_output_without_call", id="call_gone")),
    ),
    Lesson(
        "provider", "Provider-specific rules",
        "Each provider adds its own shape rules: Anthropic and Bedrock want all results of a turn in the "
        "single next user message, Gemini one response part per call part, Mistral equal counts, DeepSeek "
        "unique ids.",
        "A history that one provider accepts can be rejected by another; check the verdict for the "
        "provider you will send it to.",
        "pause_between.pi-ai.json",
        (_said("mistral", "call_response_count_mismatch"),
         _said("gemini", "function_call_turn_position"),
         _said("bedrock", "tool_use_unanswered", index=2, ids="call_rm")),
    ),
)


@dataclass(frozen=True)
class Step:
    """One repair action: which durable message, or which view-only entry, it touches, and how.

    kind: a RepairKind value; durable_index: the durable message it changes;
    synthesized_index: for a synthesized receipt or turn, its position in report.view.
    """

    kind: str
    durable_index: int | None
    synthesized_index: int | None
    description: str


Entry = tuple[str, int]
"""('durable', durable index) or (source, view position) for a view-only entry ('synthesized',
'turn' or 'merged', the position in report.view): one message of a partly repaired view."""

_DROP_TEXT = {
    RepairKind.DROPPED_DUPLICATE: "drop #{index}: duplicate of #{kept}",
    RepairKind.DROPPED_INTERRUPTED_FRAME: "drop #{index}: interrupted frame without calls",
    RepairKind.DROPPED_STRAY: "drop #{index}: result for a call that does not exist",
    RepairKind.MOVED: "move #{index} to view position {view}",
    RepairKind.REORDERED: "put #{index} in call order, at view position {view} (no provider needs this)",
    RepairKind.MERGED: "send #{index} inside #{kept}'s message (the provider wants one message per role turn)",
}


def repair_steps(report: RepairReport) -> list[Step]:
    """Every change the report makes, in transcript order (synthesized receipts after their frame)."""
    keyed: list[tuple[float, Step]] = []
    for action in report.actions:
        if action.kind != RepairKind.KEPT:
            text = _DROP_TEXT[action.kind].format(index=action.durable_index, kept=action.kept_instead,
                                                  view=action.view_index)
            keyed.append((action.durable_index, Step(action.kind.value, action.durable_index, None, text)))
        if action.also_view_indices:
            keyed.append((action.durable_index + 0.25,
                          Step(RepairKind.SHARED.value, action.durable_index, None,
                               f"answer a reused id again with #{action.durable_index}")))
    for position, entry in enumerate(report.view):
        if isinstance(entry, ReceiptView):
            keyed.append((entry.frame_index + 0.5 + entry.call_position / 1000,
                          Step(RepairKind.SYNTHESIZED.value, None, position,
                               f"synthesize an interrupted receipt for call {entry.call_id!r} of frame "
                               f"#{entry.frame_index}")))
        elif isinstance(entry, TurnView):
            keyed.append((_turn_anchor(report, position),
                          Step(RepairKind.SYNTHESIZED_TURN.value, None, position,
                               f"add a {entry.role} turn: {entry.reason}")))
    keyed.sort(key=lambda pair: pair[0])
    return [step for _, step in keyed]


def _turn_anchor(report: RepairReport, view_index: int) -> float:
    """Order a synthesized turn just after the durable message the view puts before it."""
    for entry in reversed(report.view[:view_index]):
        if isinstance(entry, DurableView):
            return entry.index + 0.75
        if isinstance(entry, MergedView):
            return entry.members[-1] + 0.75
    return -0.5


def view_after(report: RepairReport, steps: list[Step], applied: int) -> list[Entry]:
    """The view after the first `applied` steps: un-applied changes are undone, the rest kept.

    With every step applied this is exactly `report.view`; with none it is the
    durable transcript.
    """
    done = steps[:applied]
    view_only_done = {s.synthesized_index for s in done if s.synthesized_index is not None}
    merged_done = {s.durable_index for s in done if s.kind == RepairKind.MERGED}
    travels = (RepairKind.MOVED, RepairKind.REORDERED)
    moved_done = {s.durable_index for s in done if s.kind in travels}
    shared_done = {s.durable_index for s in done if s.kind == RepairKind.SHARED}
    dropped_done = {s.durable_index for s in done if s.kind.startswith("dropped")}
    moved_all = {s.durable_index for s in steps if s.kind in travels}

    entries: list[Entry] = []
    seen: set[int] = set()
    for position, entry in enumerate(report.view):
        if isinstance(entry, (ReceiptView, TurnView)):
            if position in view_only_done:
                entries.append((entry.source, position))
            continue
        if isinstance(entry, MergedView):
            members = entry.members
            if all(member in merged_done for member in members[:-1]):
                entries.append(("merged", position))
            else:
                entries.extend(("durable", member) for member in members)
            seen.update(members)
            continue
        index = entry.index
        if index in moved_all and index not in moved_done:
            continue
        if index in seen and index not in shared_done:
            continue
        seen.add(index)
        entries.append(("durable", index))
    pending = sorted(
        {a.durable_index for a in report.actions if a.kind.startswith("dropped")} - dropped_done
        | (moved_all - moved_done)
    )
    for index in pending:
        at = 0
        for position, (source, value) in enumerate(entries):
            if source == "durable" and value < index:
                at = position + 1
        entries.insert(at, ("durable", index))
    return entries


def step_view_rows(analysis: Any, steps: list[Step], applied: int) -> list[dict[str, Any]]:
    """The partly repaired view as table rows: position, where each message comes from, a preview,
    and which row the last applied step changed."""
    from .rows import preview

    report = analysis.report
    last = steps[applied - 1] if applied else None
    rows = []
    for position, (origin, index) in enumerate(view_after(report, steps, applied)):
        if origin == "durable":
            message, tag = analysis.transcript.messages[index], f"#{index}"
            touched = last is not None and last.durable_index == index
        else:
            entry = report.view[index]
            message = analysis.view[index]
            if isinstance(entry, MergedView):
                tag = "⊕ " + " + ".join(f"#{member}" for member in entry.members)
                touched = last is not None and last.durable_index in entry.members
            else:
                tag = "✚ synthesized" if origin == "synthesized" else "✚ turn"
                touched = last is not None and last.synthesized_index == index
        rows.append({"position": position, "from": tag, "message": preview(message),
                     "last step": "◀ just changed" if touched else ""})
    return rows


SANDBOX_START = """[
  {"role": "user", "content": "Read a.txt and b.txt"},
  {"role": "assistant", "stopReason": "toolUse", "content": [
    {"type": "toolCall", "id": "call_a", "name": "read_file", "arguments": {"path": "a.txt"}},
    {"type": "toolCall", "id": "call_b", "name": "read_file", "arguments": {"path": "b.txt"}}]},
  {"role": "toolResult", "toolCallId": "call_b", "toolName": "read_file",
   "content": [{"type": "text", "text": "contents of b"}], "isError": false},
  {"role": "user", "content": "Hurry up"},
  {"role": "toolResult", "toolCallId": "call_a", "toolName": "read_file",
   "content": [{"type": "text", "text": "contents of a"}], "isError": false}
]
"""
"""The sandbox's starting transcript: a result split from its frame by a user message."""


def find_lesson(key: str) -> Lesson | None:
    """The lesson with this key (used by deep links), or None."""
    for lesson in LESSONS:
        if lesson.key == key:
            return lesson
    return None
