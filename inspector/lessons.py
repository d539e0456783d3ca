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

from .report import RepairReport


@dataclass(frozen=True)
class Lesson:
    """One invariant, explained on one example."""

    key: str
    title: str
    rule: str
    why: str
    sample: str
    provider_errors: tuple[tuple[str, str], ...]


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "answered", "Every call is answered",
        "Every tool call in an assistant frame has a tool result in the request.",
        "A crash or a lost write can leave a call without its result. Providers refuse the whole "
        "request; the repair synthesizes an 'interrupted' receipt so the model knows the outcome is unknown.",
        "orphaned_call.pi-ai.json",
        (("openai-chat", ("An assistant message with 'tool_calls' must be followed by tool messages responding "
                         "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                         "call_readme")),
         ("openai-responses", "No tool output found for function call call_readme."),
         ("bedrock", "Expected toolResult blocks at messages.2.content for the following Ids: call_readme")),
    ),
    Lesson(
        "once", "Every call is answered once",
        "A call id has exactly one result in the request.",
        "Crash recovery can write an interrupted receipt and then the real result arrives late. "
        "The reference keeps the first durable receipt and drops the later one from the view.",
        "crash_duplicate.pi-ai.json",
        (("openai-chat", ("Invalid parameter: Duplicate value for 'tool_call_id' of 'call_deploy', in messages[2] "
                          "and messages[3].")),
         ("anthropic", ("messages.2.content.1: each tool_use must have a single result. Found multiple "
                        "`tool_result` blocks with id: call_deploy")),
         ("deepseek", "Duplicate value for 'tool_call_id' of call_deploy in message[3]"),
         ("bedrock", ("The number of toolResult blocks at messages.2.content exceeds the number of toolUse "
                     "blocks of previous turn."))),
    ),
    Lesson(
        "contiguous", "Results come right after their frame",
        "The results of a frame are the messages immediately after it, with nothing in between.",
        "An aborted retry or a hook message can land between a call and its result. The repair moves "
        "the results back right after their frame and drops interrupted frames without calls.",
        "abort_race.pi-ai.json",
        (("anthropic", ("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
                       "call_B. Each `tool_use` block must have a corresponding `tool_result` block in the "
                       "next message.")),
         ("openai-chat", ("An assistant message with 'tool_calls' must be followed by tool messages responding "
                         "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                         "call_B"))),
    ),
    Lesson(
        "order", "Results follow call order",
        "The results after a frame appear in the order of its calls.",
        "Parallel tools finish in any order. Providers that pair by position (Gemini without ids) "
        "mismatch results; the reference only reports it, the strict policy reorders.",
        "out_of_order.pi-ai.json",
        (("gemini", ("Please ensure that the number of function response parts is equal to the number of "
                    "function call parts of the function call turn.")),),
    ),
    Lesson(
        "no_stray", "No result without a call",
        "Every tool result answers a call that exists earlier in the request.",
        "Compaction can summarize away the frame that made a call and keep its result. The reference "
        "leaves such a stray in place (and providers reject it); the strict policy drops it.",
        "stray_result.pi-ai.json",
        (("openai-chat", ("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                         "message with 'tool_calls'.")),
         ("anthropic", ("unexpected `tool_use_id` found in `tool_result` blocks: call_gone. Each `tool_result` "
                       "block must have a corresponding `tool_use` block in the previous message.")),
         ("openai-responses", "No tool call found for function call output with call_id call_gone.")),
    ),
    Lesson(
        "provider", "Provider-specific rules",
        "Each provider adds its own shape rules: Anthropic and Bedrock want all results of a turn in the "
        "single next user message, Gemini one response part per call part, Mistral equal counts, DeepSeek "
        "unique ids.",
        "A history that one provider accepts can be rejected by another; check the verdict for the "
        "provider you will send it to.",
        "pause_between.pi-ai.json",
        (("mistral", "Not the same number of function calls and responses"),
         ("gemini", ("Please ensure that function call turn comes immediately after a user turn or after a "
                    "function response turn.")),
         ("bedrock", "Expected toolResult blocks at messages.2.content for the following Ids: call_rm")),
    ),
)


@dataclass(frozen=True)
class Step:
    """One repair action: which durable message (or synthesized receipt) it touches, and how."""

    kind: str
    durable_index: int | None
    synthesized_index: int | None
    description: str


Entry = tuple[str, int]
"""('durable', index), ('synthesized', index into report.synthesized), ('turn', index into
report.turns) or ('merged', index into report.merges): one view message."""


def repair_steps(report: RepairReport) -> list[Step]:
    """Every change the report makes, in transcript order (synthesized receipts after their frame)."""
    from .alignment import reordered_kept

    reordered = reordered_kept(report)
    keyed: list[tuple[float, Step]] = []
    for action in report.actions:
        if action.durable_index in reordered:
            keyed.append((action.durable_index,
                          Step("moved", action.durable_index, None,
                               f"move #{action.durable_index} to view position {action.view_index} "
                               "(ahead of a message the policy leaves in place)")))
        elif action.kind != "kept":
            text = {
                "moved": f"move #{action.durable_index} to view position {action.view_index}",
                "dropped_duplicate": f"drop #{action.durable_index}: duplicate of #{action.kept_instead}",
                "dropped_interrupted_frame": f"drop #{action.durable_index}: interrupted frame without calls",
                "dropped_stray": f"drop #{action.durable_index}: result for a call that does not exist",
                "merged": f"send #{action.durable_index} inside #{action.kept_instead}'s message "
                          "(the provider wants one message per role turn)",
            }[action.kind]
            keyed.append((action.durable_index, Step(action.kind, action.durable_index, None, text)))
        if action.also_view_indices:
            keyed.append((action.durable_index + 0.25,
                          Step("shared", action.durable_index, None,
                               f"answer a reused id again with #{action.durable_index}")))
    for number, receipt in enumerate(report.synthesized):
        keyed.append((receipt.frame_index + 0.5 + receipt.call_position / 1000,
                      Step("synthesized", None, number,
                           f"synthesize an interrupted receipt for call {receipt.call_id!r} of frame "
                           f"#{receipt.frame_index}")))
    for number, turn in enumerate(report.turns):
        keyed.append((_turn_anchor(report, turn.view_index),
                      Step("turn", None, number, f"add a {turn.role} turn: {turn.reason}")))
    keyed.sort(key=lambda pair: pair[0])
    return [step for _, step in keyed]


def _turn_anchor(report: RepairReport, view_index: int) -> float:
    """Order a synthesized turn just after the durable message the view puts before it."""
    for entry in reversed(report.view[:view_index]):
        if entry.source == "durable":
            return entry.index + 0.75
        if entry.source == "merged":
            return report.merges[entry.index].members[-1] + 0.75
    return -0.5


def view_after(report: RepairReport, steps: list[Step], applied: int) -> list[Entry]:
    """The view after the first `applied` steps: un-applied changes are undone, the rest kept.

    With every step applied this is exactly `report.view`; with none it is the
    durable transcript.
    """
    done = steps[:applied]
    synthesized_done = {s.synthesized_index for s in done if s.kind == "synthesized"}
    turns_done = {s.synthesized_index for s in done if s.kind == "turn"}
    merged_done = {s.durable_index for s in done if s.kind == "merged"}
    moved_done = {s.durable_index for s in done if s.kind == "moved"}
    shared_done = {s.durable_index for s in done if s.kind == "shared"}
    dropped_done = {s.durable_index for s in done if s.kind.startswith("dropped")}
    moved_all = {s.durable_index for s in steps if s.kind == "moved"}  # includes reordered 'kept' ones

    entries: list[Entry] = []
    seen: set[int] = set()
    for entry in report.view:
        if entry.source == "synthesized":
            if entry.index in synthesized_done:
                entries.append(("synthesized", entry.index))
            continue
        if entry.source == "turn":
            if entry.index in turns_done:
                entries.append(("turn", entry.index))
            continue
        if entry.source == "merged":
            members = report.merges[entry.index].members
            if all(member in merged_done for member in members[:-1]):
                entries.append(("merged", entry.index))
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
