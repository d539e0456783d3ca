"""Lessons on the tool-call invariants: one per invariant, both policies side by side, every claim checked.

Each lesson names one invariant and shows it on one small broken example (a file
of `sample_transcripts/` or a tiny inline transcript).  Nothing a lesson shows
about the example is written by hand: the provider errors come from the provider
rule sets, the views, steps and verdicts from the engine under both policies.
What the prose does say is guarded: `claims` (which provider rejects the example
with which rule, or accepts it) and `expect` (what each policy does) are checked
against the engine by tests/test_lessons.py, which also fails when the prose
names a provider that no claim covers.

`repair_steps` splits a report into single actions so a learner can apply them
one at a time; `view_after` gives the view after some of them (dropped messages
stay as placeholders when asked), and applying all of them gives exactly the
report's view.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from integrity import (
    PROVIDERS,
    Placement,
    ReceiptView,
    RepairKind,
    RepairReport,
    TurnView,
    analyze,
    load,
    view_placement,
)
from integrity.formats import FORMATS
from integrity.kinds import facts
from integrity.notes import NoteCode

POLICIES: tuple[str, ...] = ("openmaic", "strict")
"""The policies every lesson shows side by side: the reference first, then strict."""
POLICY_TITLES: dict[str, str] = {"openmaic": "the reference (openmaic)", "strict": "strict (the default)"}
SHORT_TITLES: dict[str, str] = {"openmaic": "the reference", "strict": "strict"}
SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
NOW_MS = 1_763_000_000_000
"""The clock of every lesson's analysis, so receipts carry the same timestamp on every run."""


@dataclass(frozen=True)
class Claim:
    """What the lesson's text says one provider does with the example as recorded.

    rule: the rule id of the error it names (a key of the provider spec's errors); None: the
    text says the provider accepts the example.
    """

    provider: str
    rule: str | None = None


@dataclass(frozen=True)
class Lesson:
    """One invariant, explained on one example.

    sample: a file of sample_transcripts/, or None with `inline` (pi-ai JSON text).
    provider: the provider the strict view is planned for (None: none chosen).
    policies: what the two policies do here and why they differ (checked by `expect`).
    expect: per policy, the kinds (registry names) of every change and finding the engine reports.
    """

    key: str
    title: str
    rule: str
    why: str
    policies: str
    claims: tuple[Claim, ...]
    expect: dict[str, frozenset[str]]
    sample: str | None = None
    inline: str | None = None
    provider: str | None = None
    terms: tuple[str, ...] = field(default=())
    """kinds the lesson teaches besides the ones its example shows (the Glossary links them here)."""

    @property
    def example_name(self) -> str:
        return self.sample or f"{self.key}.pi-ai.json"

    @property
    def provider_errors(self) -> tuple[tuple[str, str], ...]:
        """(provider, error text) for every error claim, as the provider's rule set returns it for the example."""
        said = verdicts_as_recorded(self)
        return tuple((claim.provider, error) for claim in self.claims if claim.rule
                     for rule, error in said.get(claim.provider, ()) if rule == claim.rule)


def _kinds(*names: str) -> frozenset[str]:
    return frozenset(names)


def _pi(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages, indent=2) + "\n"


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def _result(call_id: str, name: str, text: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False}


_REUSED = _pi([
    {"role": "user", "content": "Read main.c, then util.c."},
    {"role": "assistant", "content": [_call("call_0", "read_file", path="main.c")], "stopReason": "toolUse"},
    _result("call_0", "read_file", "int main(void) { return run(); }"),
    {"role": "assistant", "content": [_call("call_0", "read_file", path="util.c")], "stopReason": "toolUse"},
    {"role": "user", "content": "Go on."},
])
"""A small model's ids: call_0 again in the second turn, and that second call got no result."""

_TURNS = _pi([
    {"role": "user", "content": "List the files."},
    {"role": "assistant", "content": [_call("call_ls", "run_shell", cmd="ls")], "stopReason": "toolUse"},
    _result("call_ls", "run_shell", "README.md\nsrc"),
    {"role": "user", "content": "Now count them."},
    {"role": "assistant", "content": [{"type": "text", "text": "There are 2 entries."}], "stopReason": "stop"},
])
"""Every call answered right after its frame, but a user message follows the tool result directly."""

_ALL = PROVIDERS  # every provider, from the registry

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "answered", "Every call is answered",
        "Every tool call in a frame has a tool result in the request.",
        "A crash, a killed worker or a lost write can leave a call without its result (an orphaned call). "
        "Providers refuse the whole request.",
        "Both policies add a receipt for {strict_receipts_for}, in the view only: the durable transcript keeps "
        "the orphan. Their receipts differ in words. The reference's says the call was interrupted; strict's adds that "
        "the outcome is unknown and that a tool with side effects should be checked before it is retried, "
        "because it may have run.",
        (Claim("openai-chat", "tool_calls_unanswered"), Claim("anthropic", "tool_use_unanswered"),
         Claim("gemini", "function_response_count_mismatch")),
        {"openmaic": _kinds("synthesized receipt"), "strict": _kinds("synthesized receipt")},
        sample="orphaned_call.pi-ai.json", terms=("orphaned call",),
    ),
    Lesson(
        "once", "Every call is answered once",
        "A call id has exactly one tool result in the request.",
        "A tool that timed out and was retried can record two results for one call.",
        "Here the policies agree: both keep {ref_kept} (the first result recorded) and drop {ref_dropped}; "
        "{duplicate_receipts}, so nothing says which one is real, and the first is kept. "
        "When the first result is a receipt they do not agree: see the lesson on receipts.",
        (Claim("openai-chat", "duplicate_tool_call_id"), Claim("anthropic", "duplicate_tool_result"),
         Claim("openai-responses")),
        {"openmaic": _kinds("dropped duplicate"), "strict": _kinds("dropped duplicate")},
        sample="two_results.openai-chat.json", terms=("duplicate result",),
    ),
    Lesson(
        "contiguous", "Results come right after their frame",
        "The results of a frame are the messages right after it, with nothing in between.",
        "An interrupted frame (the user pressed stop while a tool ran) or a hook message can land between "
        "a call and its result, when a tool finishes after it.",
        "Here the policies make the same repair: both move the result {strict_moved} back next to its frame "
        "and drop the interrupted frame {strict_frames_dropped}. They differ on interrupted frames that split "
        "nothing: the reference drops every one as soon as it repairs anything, strict only the ones it must "
        "(below: exactly when).",
        (Claim("openai-chat", "tool_calls_unanswered"), Claim("anthropic", "tool_use_unanswered"),
         Claim("openai-responses")),
        {"openmaic": _kinds("moved", "dropped interrupted frame"),
         "strict": _kinds("moved", "dropped interrupted frame")},
        sample="abort_race.pi-ai.json",
    ),
    Lesson(
        "order", "Results follow call order (a normalization)",
        "The results right after a frame come in the order of its calls.",
        "Parallel tools finish in any order. Every provider rule set here pairs results by call id, so "
        "the order alone is refused by none of them: putting results in call order is a normalization, not a "
        "repair. `check` judges this example by {judge} and calls it {healthy_or_not} as it is. As recorded "
        "it is refused by {refusals}, for another rule than the order ({id_rule_mistral}; the view planned for "
        "Mistral renames them).",
        "The reference reports the order as a finding and changes nothing; strict puts the results in call "
        "order ({kind_reordered}), a normalization: a change the order rule of no provider needs.",
        (*(Claim(provider) for provider in _ALL if provider != "mistral"), Claim("mistral", "invalid_tool_call_id")),
        {"openmaic": _kinds("results out of order"), "strict": _kinds("reordered")},
        sample="out_of_order.pi-ai.json",
    ),
    Lesson(
        "no_stray", "No result without a call",
        "Every tool result answers a call made earlier in the request.",
        "Compaction can summarize away the frame that made a call and keep its result: a stray result.",
        "The reference leaves the stray result ({stray_ids}) in place and reports it, so its view is still "
        "rejected; strict drops it ({strict_strays_dropped}: dropped stray), since no call can own it.",
        (Claim("openai-chat", "tool_result_without_call"), Claim("anthropic", "unexpected_tool_result"),
         Claim("openai-responses", "function_call_output_without_call")),
        {"openmaic": _kinds("stray result"), "strict": _kinds("dropped stray")},
        sample="stray_result.pi-ai.json",
    ),
    Lesson(
        "unique_ids", "Call ids are unique, across turns too",
        "Each call id is used by one call only, in the whole request, not just within a turn.",
        "Small models and some servers number calls per turn (call_0 in every turn). Here the second "
        "turn reuses call_0, and that second call got no result. Anthropic accepts an id used again "
        "when each use is answered right after it, so what it rejects here is the second call left "
        "without a result (`tool_use` ids were found without `tool_result` blocks immediately after).",
        "The reference pairs results by id only: the second call_0 looks answered by {ref_shared}, so its "
        "view sends {ref_shared} again as the second call's answer (a shared answer), and the model reads "
        "main.c's content as util.c's. Strict pairs by position: {unanswered} has no result; it sends "
        "{reused_frame} with {strict_renamed} (renamed ids; the durable message keeps its id) and adds a "
        "receipt for {strict_receipts_for}.",
        (Claim("anthropic", "tool_use_unanswered"),),
        {"openmaic": _kinds("shared answer", "reused call id"),
         "strict": _kinds("renamed ids", "synthesized receipt")},
        inline=_REUSED,
    ),
    Lesson(
        "provider", "Provider turn rules",
        "Some providers add rules on the order of turns: {turn_rule_bedrock}; {turn_rule_mistral}. This "
        "history is refused "
        "as recorded by {rejecting} and accepted by {accepting}.",
        "Every call here is answered right after its frame; what breaks is the user message right after "
        "the tool result. A history one provider accepts can be rejected by another.",
        "The reference knows no providers and changes nothing, so its view is rejected as before. Strict "
        "follows the provider the view is for, here Bedrock: it adds a short assistant turn between the "
        "result and the user message (a synthesized turn).",
        (Claim("bedrock", "roles_not_alternating"), Claim("mistral", "unexpected_role_order"),
         Claim("openai-chat"), Claim("anthropic")),
        {"openmaic": _kinds(), "strict": _kinds("synthesized turn")},
        inline=_TURNS, provider="bedrock", terms=("merged",),
    ),
    Lesson(
        "calls_last", "A turn's calls close it",
        "For Anthropic and DeepSeek Responses a tool call must be the last thing in its assistant turn: a call "
        "followed by text or thinking in the same turn counts as unanswered, even when its result comes right after "
        "the turn. Both refuse this request for it. The other refusals below are for other rules: the recorded "
        "request opens with the assistant's turn, and its ids are not Mistral's.",
        "A runtime that stores a turn's parts in the order they streamed in, or a writer that adds the model's "
        "closing words after its calls, can record [call, text]. This example is a request Anthropic answered with "
        "HTTP 400, recorded by the opencode project.",
        "The reference knows no providers and sends the turn as it is, so its view is rejected as before. Strict, "
        "planning the view for Anthropic, sends {strict_calls_last} with its text first and its call last "
        "({kind_calls_last}); the durable message keeps its order. A provider that pairs by id anywhere in the "
        "request (OpenAI) takes either order, so strict changes nothing for it.",
        (Claim("anthropic", "tool_use_not_last"), Claim("deepseek-responses", "function_call_unanswered"),
         Claim("openai-responses"), Claim("openai-chat"), Claim("mistral", "invalid_tool_call_id")),
        {"openmaic": _kinds(), "strict": _kinds("calls put last")},
        sample="text_after_call.anthropic.json", provider="anthropic",
    ),
    Lesson(
        "blank_text", "An empty text is not nothing",
        "Anthropic refuses an empty text block, a message holding nothing but whitespace, and a message with no "
        "content, anywhere but in the request's final assistant message. Bedrock refuses a text block that is "
        "empty or only whitespace anywhere, beside a tool call too, and a message with no content (here also its "
        "two user messages in a row). The other providers take them, though Mistral refuses this request for its "
        "ids.",
        "A client that saves the text it streamed before a tool call, even when the model wrote none, records "
        "[text \"\", tool_use]; the next request refuses the whole history. This example is the request Claude Code "
        "sent when it resumed such a session, which Anthropic answered with HTTP 400.",
        "The reference knows no providers and sends the turn as it is, so its view is rejected as before. Strict, "
        "planning the view for Anthropic, sends {strict_blank_text} without its empty text ({kind_blank_text}); "
        "the durable message keeps it. A message holding nothing else is left out ({kind_dropped_blank}). The same "
        "request without the empty block was accepted (experientiallabs/experiential, issue 683).",
        (Claim("anthropic", "empty_text_block"), Claim("openai-chat"), Claim("openai-responses"), Claim("gemini"),
         Claim("bedrock", "blank_text_block"), Claim("bedrock", "roles_not_alternating"),
         Claim("mistral", "invalid_tool_call_id")),
        {"openmaic": _kinds(), "strict": _kinds("blank text left out")},
        sample="empty_text_on_resume.anthropic.json", provider="anthropic",
    ),
    Lesson(
        "receipts", "Receipts, and a real result after one",
        "A receipt stands in for a result nobody recorded; when the real result arrives later, the call "
        "has two results and one of them must go.",
        "At wind-down a runtime writes a receipt for every call still in flight; a tool that does not stop "
        "when asked finishes anyway, and its real result lands after the receipt.",
        "The reference keeps the first result of a call, here {ref_kept}, {ref_kept_is}, "
        "and drops {ref_dropped}, {ref_dropped_is} (real result hidden). Strict prefers a real result over a "
        "receipt: it keeps {strict_kept} in the receipt's place and drops {strict_dropped}.",
        (Claim("openai-chat", "duplicate_tool_call_id"), Claim("anthropic", "duplicate_tool_result"),
         Claim("openai-responses")),
        {"openmaic": _kinds("dropped duplicate", "real result hidden"),
         "strict": _kinds("dropped duplicate")},
        sample="crash_duplicate.pi-ai.json",
    ),
)


def example_bytes(lesson: Lesson) -> bytes | None:
    """The example's file content (None when a sample file is missing)."""
    if lesson.inline is not None:
        return lesson.inline.encode("utf-8")
    path = SAMPLES / (lesson.sample or "")
    return path.read_bytes() if path.is_file() else None


@lru_cache(maxsize=64)
def _analyses(key: str) -> dict[str, Any]:
    lesson = find_lesson(key)
    data = example_bytes(lesson) if lesson else None
    if lesson is None or data is None:
        return {}
    transcript = load(data, lesson.example_name)
    return {policy: analyze(transcript, policy, now=lambda: NOW_MS, provider=lesson.provider, verdicts=True)
            for policy in POLICIES}


def lesson_analyses(lesson: Lesson) -> dict[str, Any]:
    """The engine's analysis of the example under each policy, with every provider's verdict.

    Cached per lesson (examples are fixed); callers must not change what they get.
    """
    return _analyses(lesson.key)


@lru_cache(maxsize=64)
def _checked(key: str) -> Any:
    lesson = find_lesson(key)
    data = example_bytes(lesson) if lesson else None
    if lesson is None or data is None:
        return None
    from integrity.pipeline import check

    return check(load(data, lesson.example_name), provider=lesson.provider, now=lambda: NOW_MS)


def lesson_check(lesson: Lesson) -> Any:
    """`integrity.check` on the example (strict, the lesson's provider): the status and judge the page states."""
    return _checked(lesson.key)


def lesson_facts(lesson: Lesson) -> dict[str, str]:
    """Every fact a lesson sentence may state about its example, computed by the engine (lesson_facts)."""
    from .lesson_facts import example_facts

    analyses = lesson_analyses(lesson)
    return example_facts(analyses, lesson_check(lesson)) if analyses else {}


def lesson_text(lesson: Lesson, part: str) -> str:
    """A part of the lesson ("rule", "why", "policies") with its `{fields}` filled from the engine's facts."""
    template = str(getattr(lesson, part))
    return template.format(**lesson_facts(lesson)) if "{" in template else template


def verdicts_as_recorded(lesson: Lesson) -> dict[str, list[tuple[str, str]]]:
    """provider -> [(rule, error text)] the provider's rule set returns for the example as recorded."""
    analyses = lesson_analyses(lesson)
    if not analyses:
        return {}
    verdicts = analyses[POLICIES[0]].verdicts
    return {name: [(v.rule, v.error) for v in said.before] for name, said in verdicts.items()}


def changes(report: RepairReport) -> frozenset[str]:
    """The kinds (registry names) of everything the report changes or finds."""
    kinds = {facts(action.kind).name for action in report.actions if action.kind != RepairKind.KEPT}
    kinds |= {facts(action.shown_kind).name for action in report.actions if action.shown_kind != RepairKind.KEPT}
    kinds |= {facts(RepairKind.RENAMED).name for action in report.actions if action.new_ids}
    kinds |= {facts(RepairKind.SHARED).name for action in report.actions if action.also_view_indices}
    kinds |= {facts(entry.kind).name for entry in report.view if entry.kind is not None}
    kinds |= {facts(finding.kind).name for finding in report.findings}
    return frozenset(kinds)


def provider_rows(analysis: Any) -> list[dict[str, str]]:
    """One row per provider error for the example as recorded, and one 'accepted' row per provider that takes it."""
    rows = []
    for name, said in analysis.verdicts.items():
        if not said.before:
            rows.append({"provider": name, "as recorded": "✔ accepted", "rule": "", "provider error": ""})
        for violation in said.before:
            rows.append({"provider": name, "as recorded": "✖ rejected", "rule": violation.rule,
                         "provider error": violation.error})
    return rows


def still_rejecting(analysis: Any) -> list[str]:
    """The providers that reject this policy's view too."""
    return [name for name, said in analysis.verdicts.items() if said.after]


def verdict_difference(analyses: dict[str, Any]) -> str:
    """One sentence when the two policies' views are not refused by the same providers ('' when they are),
    with each refusing provider's rules: a lesson's hand-written comparison of the repairs ("here the
    policies agree") must never stand alone beside verdicts that differ."""
    refused = {policy: still_rejecting(analysis) for policy, analysis in analyses.items()}
    if len({tuple(names) for names in refused.values()}) <= 1:
        return ""
    parts = []
    for policy, names in refused.items():
        said = analyses[policy].verdicts
        who = ", ".join(f"{name} ({', '.join(sorted({v.rule for v in said[name].after}))})" for name in names)
        parts.append(f"{SHORT_TITLES[policy]}'s, {who or 'none'}")
    return ("Their verdicts differ. The providers that refuse the view they are sent: " + "; ".join(parts)
            + "." + _planned_for_them(analyses, refused))


def _planned_for_them(analyses: dict[str, Any], refused: dict[str, list[str]]) -> str:
    """Why strict's view passes where the reference's does not, when it is because strict plans the view it
    sends some providers for their own rules (turn order, ids; what the default view on the page does not
    show): the kinds
    that view adds, from the engine's own plan for each such provider ('' otherwise)."""
    strict = analyses.get("strict")
    if strict is None or strict.provider is not None:
        return ""
    added: dict[str, list[str]] = {}
    for name in (name for name in refused.get("openmaic", []) if name not in refused["strict"]):
        planned = analyze(strict.transcript, "strict", now=lambda: NOW_MS, provider=name, verdicts=False)
        extra = sorted(changes(planned.report) - changes(strict.report))
        if extra:
            added.setdefault(", ".join(extra), []).append(name)
    return "".join(f" Strict plans the view it sends {', '.join(names)} for their own rules (turn order, ids); its "
                   f"changes there also include: {kinds} (see the lesson on provider turn rules)."
                   for kinds, names in added.items())


@dataclass(frozen=True)
class Step:
    """One repair action: which durable message, or which view-only entry, it touches, and how.

    kind: a RepairKind value; durable_index: the durable message it changes;
    synthesized_index: for a synthesized receipt or turn, its position in report.view;
    frame: the frame whose results it places (moves, reorders, receipts), when there is one.
    """

    kind: str
    durable_index: int | None
    synthesized_index: int | None
    description: str
    frame: int | None = None
    kept: int | None = None
    members: tuple[int, ...] = ()

    @property
    def touches(self) -> tuple[int, ...]:
        """The durable messages it changes (several for a frame's results put in call order)."""
        return self.members or (() if self.durable_index is None else (self.durable_index,))


Entry = tuple[str, int]
"""('durable', durable index), ('dropped', durable index) for a dropped message's placeholder, or
(source, view position) for a view-only entry ('synthesized', 'turn' or 'merged', the position in
report.view): one row of a partly repaired view."""

_DROP_TEXT = {
    RepairKind.DROPPED_DUPLICATE: "drop #{index}: a second result for {call}; #{kept} stays",
    RepairKind.DROPPED_INTERRUPTED_FRAME: "drop #{index}: an interrupted frame",
    RepairKind.DROPPED_STRAY: "drop #{index}: a result for {call}, which no call in the transcript has",
    RepairKind.DROPPED_BLANK: "drop #{index}: it holds nothing but blank text, which the provider refuses",
    RepairKind.MOVED: "move {moved} next to {its} frame #{frame}{order}",
    RepairKind.REORDERED: "put the results after frame #{frame} in call order: {order} (no provider needs this)",
    RepairKind.MERGED: "send #{index} inside #{kept}'s message (the provider wants one message per turn)",
}
"""The step text of the action kinds a lesson words itself; any other (a kind added to the registry since)
is worded by its registry name (step_text)."""


def step_text(kind: str) -> str:
    """The step template of an action kind: its own sentence, else '<kind name> #{index}' from the registry."""
    value = getattr(kind, "value", kind)
    own = next((text for known, text in _DROP_TEXT.items() if known.value == value), None)
    return own or f"{facts(kind).name} #{{index}}"


def _frames(report: RepairReport) -> dict[int, int]:
    """durable result index -> the frame whose answer it is where the view first places it, from the pairings."""
    first_view = {a.durable_index: a.view_index for a in report.actions if a.view_index is not None}
    frames = {p.answered_by: p.frame_index for p in report.pairings
              if p.answered_by is not None and p.view_index is not None
              and p.view_index == first_view.get(p.answered_by)}
    for pairing in report.pairings:  # otherwise (a dropped duplicate): the frame of its call id
        for index in ([pairing.answered_by] if pairing.answered_by is not None else []) + pairing.result_indices:
            frames.setdefault(index, pairing.frame_index)
    return frames


def _travels(report: RepairReport, frames: dict[int, int]) -> dict[int | None, list[Any]]:
    """frame -> the actions that move or reorder its results: one step each, since putting one result
    in call order may show nothing until the others of its frame travel too."""
    groups: dict[int | None, list[Any]] = {}
    for action in report.actions:
        if action.kind in (RepairKind.MOVED, RepairKind.REORDERED):
            groups.setdefault(frames.get(action.durable_index), []).append(action)
    return groups


def _travel_step(frame: int | None, group: list[Any]) -> Step:
    """One step for every result of one frame that travels: moved ones named, the call order given."""
    group = sorted(group, key=lambda action: action.view_index if action.view_index is not None else -1)
    members = tuple(action.durable_index for action in group)
    order = ", ".join(f"#{action.durable_index} ({action.call_id})" for action in group)
    moved = [action for action in group if action.kind == RepairKind.MOVED]
    if not moved:
        return Step(RepairKind.REORDERED.value, min(members), None,
                    _DROP_TEXT[RepairKind.REORDERED].format(frame=frame, order=order), frame, members=members)
    named = (f"#{moved[0].durable_index} (the result of {moved[0].call_id})" if len(moved) == 1 else
             ", ".join(f"#{action.durable_index} ({action.call_id})" for action in moved))
    text = _DROP_TEXT[RepairKind.MOVED].format(moved=named, its="its" if len(moved) == 1 else "their", frame=frame,
                                               order=f", in call order: {order}" if len(group) > 1 else "")
    return Step(RepairKind.MOVED.value, min(members), None, text, frame, members=members)


_COPY_STEPS: tuple[tuple[NoteCode, RepairKind, str], ...] = (
    (NoteCode.BLANK_TEXT_LEFT_OUT, RepairKind.BLANK_TEXT,
     "send #{index} without its blank text (the durable message keeps it)"),
    (NoteCode.ERROR_SENT_AS_TEXT, RepairKind.ERROR_AS_TEXT,
     "send the error result #{index} with its text alone, \"(no text content)\" when it has none (the durable "
     "message keeps its parts)"),
    (NoteCode.TOOL_NAME_FIXED, RepairKind.TOOL_NAME,
     "send #{index} with a tool name the provider takes (the durable message keeps the recorded one)"),
    (NoteCode.CALL_SIGNED, RepairKind.SIGNED,
     "send #{index} with its first call signed \"skip_thought_signature_validator\" (the durable message keeps it "
     "unsigned)"),
    (NoteCode.TEXT_CUT, RepairKind.TEXT_CUT,
     "send #{index} with its texts cut to the provider's limit, ending with a note of how many characters are gone "
     "(the durable message keeps them)"),
    (NoteCode.REASONING_SENT_ONCE, RepairKind.REASONING_ONCE,
     "send #{index} without the reasoning item an earlier message sends already (the durable message keeps it)"),
    (NoteCode.IMAGES_MOVED, RepairKind.IMAGES_MOVED,
     "send the result #{index} without its images, a text saying so in their place, and its images in a user "
     "message after the turn's results (the durable message keeps them)"),
    (NoteCode.IMAGES_LEFT_OUT, RepairKind.IMAGES_LEFT_OUT,
     "send #{index} without its images, a text saying so in their place (the durable message keeps them)"),
    (NoteCode.RESHAPED, RepairKind.RESHAPED,
     "write #{index}'s entry in the shape the provider takes, the message unchanged (the file's entry is left as it "
     "is)"),
)
"""The steps of a message the view sends as a changed copy, each said when its action carries the note, in this
order (after its calls put last, before a reused id answered again)."""


def repair_steps(report: RepairReport) -> list[Step]:
    """Every change the report makes: drops first, then what travels (moves, call order), renames and
    shared answers, then receipts, then merges and turns, each in transcript order.

    Drops go first so that, when a result travels, nothing still sits between it and its
    frame but other results of that frame: each step then shows what its text says.
    """
    frames = _frames(report)
    keyed: list[tuple[tuple[int, float], Step]] = []
    for frame, group in _travels(report, frames).items():
        keyed.append(((1, min(a.durable_index for a in group)), _travel_step(frame, group)))
    for action in report.actions:
        index = action.durable_index
        if action.kind not in (RepairKind.KEPT, RepairKind.REORDERED, RepairKind.MOVED):
            frame = frames.get(index)
            text = step_text(action.kind).format(index=index, kept=action.kept_instead, call=action.call_id,
                                                 frame=frame)
            phase = 0 if action.kind.startswith("dropped") else 3 if action.kind == RepairKind.MERGED else 1
            keyed.append(((phase, index), Step(action.kind.value, index, None, text, frame, action.kept_instead)))
        if action.new_ids:
            renames = ", ".join(f"{old} as {new}" for old, new in action.new_ids.items())
            keyed.append(((1, index + 0.1), Step(RepairKind.RENAMED.value, index, None,
                                            f"send #{index} with {renames} (the durable message keeps its ids)")))
        if action.shown_kind is RepairKind.CALLS_LAST:
            keyed.append(((1, index + 0.2), Step(RepairKind.CALLS_LAST.value, index, None,
                                            f"send #{index} with its calls after its other parts (the durable "
                                            "message keeps its order)")))
        for offset, (code, kind, sentence) in enumerate(_COPY_STEPS):  # what the view's copy of it changes
            if code in action.codes:
                keyed.append(((1, index + 0.22 + offset * 0.005), Step(kind.value, index, None,
                                                                      sentence.format(index=index))))
        if action.also_view_indices:
            keyed.append(((1, index + 0.25), Step(RepairKind.SHARED.value, index, None,
                                             f"answer the reused id {action.call_id or ''} again with #{index}"
                                             .replace("id  again", "id again"))))
    where = view_placement(report)
    for position, entry in enumerate(report.view):
        if isinstance(entry, ReceiptView):
            keyed.append(((2, entry.frame_index + 0.5 + entry.call_position / 1000),
                          Step(RepairKind.SYNTHESIZED.value, None, position,
                               f"add a receipt for call {entry.call_id} of frame #{entry.frame_index}",
                               entry.frame_index)))
        elif isinstance(entry, TurnView):
            keyed.append(((3, _turn_anchor(where, position)),
                          Step(RepairKind.SYNTHESIZED_TURN.value, None, position,
                               f"add a{'n' if entry.role == 'assistant' else ''} {entry.role} turn: {entry.reason}")))
    keyed.sort(key=lambda pair: pair[0])
    return _say_when_in_place(report, [step for _, step in keyed])


IN_PLACE = "already in place after the steps before"


def says_in_place(description: str) -> bool:
    """Whether a step's text says it changes no row (see _say_when_in_place)."""
    return description.endswith(IN_PLACE + ")")


def _in_place(description: str) -> str:
    """The step's text with IN_PLACE: inside its closing parenthesis when it ends with one ("... (no provider
    needs this; already in place ...)"), never two parentheticals in a row."""
    if description.endswith(")"):
        return f"{description[:-1]}; {IN_PLACE})"
    return f"{description} ({IN_PLACE})"
_SIMULATE_UP_TO = 300


def _say_when_in_place(report: RepairReport, steps: list[Step]) -> list[Step]:
    """A step that travels but changes no row (an earlier step, such as a shared answer, already put its
    results where they go) says so, so its text never promises a change the rows do not show."""
    import dataclasses

    if len(steps) > _SIMULATE_UP_TO:
        return steps
    for n, step in enumerate(steps):
        if step.kind in (RepairKind.MOVED, RepairKind.REORDERED) and (
                view_after(report, steps, n, True) == view_after(report, steps, n + 1, True)):
            steps[n] = dataclasses.replace(step, description=_in_place(step.description))
    return steps


def _turn_anchor(where: Placement, view_index: int) -> float:
    """Order a synthesized turn just after the durable message the view puts before it."""
    for members in reversed(where.durable_of[:view_index]):
        if members:
            return members[-1] + 0.75
    return -0.5


def view_after(report: RepairReport, steps: list[Step], applied: int, placeholders: bool = False) -> list[Entry]:
    """The view after the first `applied` steps: un-applied changes are undone, the rest kept.

    With every step applied this is exactly `report.view`; with none it is the
    durable transcript.  placeholders: a message an applied step dropped stays as
    ('dropped', index) where it was recorded, so a learner sees what went.
    """
    done = steps[:applied]
    view_only_done = {s.synthesized_index for s in done if s.synthesized_index is not None}
    merged_done = {s.durable_index for s in done if s.kind == RepairKind.MERGED}
    travels = (RepairKind.MOVED, RepairKind.REORDERED)
    moved_done = {index for s in done if s.kind in travels for index in s.touches}
    shared_done = {s.durable_index for s in done if s.kind == RepairKind.SHARED}
    dropped_done = {s.durable_index for s in done if s.kind.startswith("dropped") and s.durable_index is not None}
    moved_all = {index for s in steps if s.kind in travels for index in s.touches}

    entries: list[Entry] = []
    seen: set[int] = set()
    for position, (entry, members) in enumerate(zip(report.view, view_placement(report).durable_of, strict=True)):
        if entry.written_by_engine:
            if position in view_only_done:
                entries.append((entry.source, position))
            continue
        if entry.kind is RepairKind.MERGED:
            if all(member in merged_done for member in members[:-1]):
                entries.append(("merged", position))
            else:
                entries.extend(("durable", member) for member in members)
            seen.update(members)
            continue
        index = members[0]
        if index in moved_all and index not in moved_done:
            continue
        if index in seen and index not in shared_done:
            continue
        seen.add(index)
        entries.append(("durable", index))
    dropped_all = {a.durable_index for a in report.actions if a.kind.startswith("dropped")}
    pending = {index: "durable" for index in (dropped_all - dropped_done) | (moved_all - moved_done)}
    if placeholders:
        pending.update({index: "dropped" for index in dropped_done})
    for index in sorted(pending):  # where it was recorded: before the next recorded message still in place
        at = next((position for position, (source, value) in enumerate(entries)
                   if source in ("durable", "dropped") and value > index
                   and not (source == "durable" and value in moved_done)), len(entries))
        entries.insert(at, (pending[index], index))
    return entries


def step_view_rows(analysis: Any, steps: list[Step], applied: int) -> list[dict[str, Any]]:
    """The partly repaired view as table rows, dropped messages kept as greyed placeholders.

    Columns: view # (blank for a placeholder), where each message comes from, what the
    applied steps did to it (a kind's registry name), a preview, and which row the last
    applied step changed.
    """
    from .rows import preview

    report = analysis.report
    last = steps[applied - 1] if applied else None
    done = steps[:applied]
    rewritten = {s.durable_index: s.kind for s in done
                 if s.kind in (RepairKind.RENAMED, RepairKind.CALLS_LAST, RepairKind.BLANK_TEXT)}
    travelled = {index: s.kind for s in done if s.kind in (RepairKind.MOVED, RepairKind.REORDERED)
                 for index in s.touches}
    drops = {s.durable_index: s.kind for s in done if s.kind.startswith("dropped")}
    shared = {s.durable_index for s in done if s.kind == RepairKind.SHARED}
    where = view_placement(report)
    rows = []
    position = 0
    counted: set[int] = set()
    for origin, index in view_after(report, steps, applied, placeholders=True):
        touched = False
        if origin in ("durable", "dropped"):
            message = analysis.transcript.messages[index]
            if origin == "durable" and index in rewritten and where.in_view(index):  # the view's copy
                message = analysis.view[where.in_view(index)[-1]]
            tag = f"#{index}"
            touched = last is not None and index in last.touches and (
                last.kind != RepairKind.SHARED or index in counted)
            state = (facts(drops[index]).name if origin == "dropped" else
                     facts(RepairKind.SHARED).name if index in counted and index in shared else
                     facts(travelled[index]).name if index in travelled else
                     facts(rewritten[index]).name if index in rewritten else "")
            counted.add(index)
        else:
            entry = report.view[index]
            message = analysis.view[index]
            if entry.kind is RepairKind.MERGED:
                members = where.sources(index)
                tag = "⊕ " + " + ".join(f"#{member}" for member in members)
                touched = last is not None and last.durable_index in members
                state = facts(RepairKind.MERGED).name
            else:
                tag = "✚ receipt" if origin == "synthesized" else "✚ turn"
                touched = last is not None and last.synthesized_index == index
                state = facts(RepairKind.SYNTHESIZED if origin == "synthesized" else RepairKind.SYNTHESIZED_TURN).name
        rows.append({"view #": "" if origin == "dropped" else str(position), "from": tag,
                     "change": state or "as recorded", "message": preview(message),
                     "last step": "◀ just changed" if touched else ""})
        if origin != "dropped":
            position += 1
    return rows


# ----------------------------------------------------------------------------- receipts


def engine_receipts() -> dict[str, dict[str, Any]]:
    """policy -> the receipt the engine writes into the view for an unanswered call (from the 'answered' example)."""
    lesson = find_lesson("answered")
    found: dict[str, dict[str, Any]] = {}
    for policy, analysis in (lesson_analyses(lesson) if lesson else {}).items():
        for position, entry in enumerate(analysis.report.view):
            if entry.kind is RepairKind.SYNTHESIZED:
                found[policy] = analysis.view[position]
                break
    return found


RECOGNITION_FORMATS: tuple[str, ...] = FORMATS
"""The formats the receipts lesson writes a receipt in and reads back: every format the engine writes."""


@lru_cache(maxsize=1)
def receipt_recognition() -> list[dict[str, Any]]:
    """For each format: the receipt as written in it, and whether reading it back still gives a receipt.

    Computed by writing [user, frame, receipt] with the format's writer and reading the
    bytes back with its reader: the engine tells a receipt from a real result only by
    isError with details {ok: false, error: "interrupted"} (pi-ai), which other formats
    cannot carry, so on reading they recognise the engine's exact receipt texts marked as an error.
    """
    from integrity import Transcript, is_interrupted_tool_result, read_bytes, write_bytes
    from integrity.formats import to_native

    receipts = engine_receipts()
    rows = []
    for fmt in RECOGNITION_FORMATS:
        row: dict[str, Any] = {"format": fmt}
        for policy, receipt in receipts.items():
            frame = {"role": "assistant", "stopReason": "toolUse", "timestamp": NOW_MS,
                     "content": [_call(receipt["toolCallId"], receipt["toolName"])]}
            messages = [{"role": "user", "content": "go", "timestamp": NOW_MS}, frame, receipt]
            native = to_native(messages, fmt)
            written = [entry for entry, sources in zip(native.messages, native.sources, strict=False) if 2 in sources]
            back = read_bytes(write_bytes(Transcript(messages, "receipt.json"), messages, fmt), "receipt", fmt)
            results = [m for m in back.messages if isinstance(m, dict) and m.get("role") == "toolResult"]
            row[policy] = bool(results) and is_interrupted_tool_result(results[-1])
            row[f"{policy} as written"] = json.dumps(written[-1] if written else None, ensure_ascii=False)
        rows.append(row)
    return rows


def find_lesson(key: str) -> Lesson | None:
    """The lesson with this key (used by deep links), or None."""
    for lesson in LESSONS:
        if lesson.key == key:
            return lesson
    return None


LESSON_PARAM = "lesson"
"""The query parameter of the Lessons page (`/lessons?lesson=order`)."""


def lesson_url(key: str) -> str:
    return f"/lessons?{LESSON_PARAM}={key}"


