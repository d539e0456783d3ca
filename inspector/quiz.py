"""The quiz: generated broken transcripts, and the engine's answers to check a learner's predictions.

Why it exists: a learner who went through the lessons should predict, for a
transcript never seen, what providers say and what the repaired view is.  Every
transcript is generated from a seed (one defect of a lesson, with random tools,
ids and texts), and every answer comes from the engine for that transcript:
nothing is a hand-fixed answer.  Each question names the lesson that covers it,
so a miss is explained by that lesson.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from integrity import ReceiptView, RepairKind, TurnView, analyze
from integrity.loading import Transcript

POLICY = "strict"
"""The policy whose repaired view the quiz asks for (the default)."""
NOW_MS = 1_763_000_000_000
VERDICT_OPTIONS: tuple[str, ...] = ("every provider accepts it", "some providers reject it",
                                    "every provider rejects it")

_TOOLS = (("read_file", "path", ("a.txt", "src/main.py", "README.md", "notes.md")),
          ("run_shell", "cmd", ("ls", "make test", "git status", "pytest -q")),
          ("web_search", "query", ("rust 1.80", "weather Oslo", "python 3.13 news")),
          ("fetch", "url", ("https://example.org/a", "https://example.org/b")))


@dataclass(frozen=True)
class Question:
    """One generated transcript, what the engine says about it, and the options a learner picks from.

    lesson: the key of the lesson that covers its defect; provider: the provider the strict view
    is planned for (None: none chosen); verdict: the right VERDICT_OPTIONS entry; views: view
    options (each a tuple of row labels), views[answer] the engine's strict view.
    """

    seed: int
    lesson: str
    messages: list[dict[str, Any]]
    provider: str | None
    verdict: str
    rejecting: tuple[str, ...]
    views: tuple[tuple[str, ...], ...]
    answer: int
    engine_verdict: str
    steps: tuple[str, ...]


class _Maker:
    """Builds small pi-ai transcripts with random but readable tools, ids and texts."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.serial = rng.randrange(10, 90)
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": rng.choice(
            ("Check the project.", "Look this up for me.", "Run the usual checks.")), "timestamp": NOW_MS}]

    def new_id(self) -> str:
        self.serial += 1
        return f"call_{self.serial}"

    def frame(self, count: int, ids: list[str] | None = None) -> list[tuple[str, str]]:
        calls = []
        for n in range(count):
            tool, field, values = self.rng.choice(_TOOLS)
            call_id = ids[n] if ids else self.new_id()
            calls.append((call_id, tool, {field: self.rng.choice(values)}))
        self.add({"role": "assistant", "stopReason": "toolUse",
                  "content": [{"type": "toolCall", "id": c, "name": t, "arguments": a} for c, t, a in calls]})
        return [(c, t) for c, t, _ in calls]

    def result(self, call: tuple[str, str], text: str | None = None, receipt: bool = False) -> None:
        message: dict[str, Any] = {"role": "toolResult", "toolCallId": call[0], "toolName": call[1],
                                   "content": [{"type": "text", "text": text or self.rng.choice(
                                       ("ok", "done: 3 files", "42 results", "exit 0"))}], "isError": receipt}
        if receipt:
            message["content"] = [{"type": "text", "text": '{"ok":false,"error":"interrupted","message":'
                                   '"This tool call was interrupted before a result was recorded."}'}]
            message["details"] = {"ok": False, "error": "interrupted"}
        self.add(message)

    def user(self, text: str) -> None:
        self.add({"role": "user", "content": text})

    def reply(self) -> None:
        self.add({"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": "Done."}]})

    def add(self, message: dict[str, Any]) -> None:
        message.setdefault("timestamp", NOW_MS + len(self.messages))
        self.messages.append(message)


def _orphan(m: _Maker) -> None:
    calls = m.frame(m.rng.randrange(1, 3))
    for call in calls[1:]:
        m.result(call)
    m.user("Continue.")


def _duplicate(m: _Maker) -> None:
    calls = m.frame(1)
    m.result(calls[0], "Error: timed out")
    m.result(calls[0])
    m.reply()


def _split(m: _Maker) -> None:
    calls = m.frame(2)
    m.result(calls[0])
    if m.rng.random() < 0.5:
        m.add({"role": "assistant", "stopReason": "aborted", "content": []})
    else:
        m.user("Approve? yes")
    m.result(calls[1])
    m.reply()


def _order(m: _Maker) -> None:
    calls = m.frame(m.rng.randrange(2, 4))
    for call in reversed(calls):
        m.result(call)
    m.reply()


def _stray(m: _Maker) -> None:
    m.result((f"call_gone_{m.rng.randrange(100)}", "read_file"))
    m.reply()


def _reused(m: _Maker) -> None:
    call_id = m.new_id()
    first = m.frame(1, [call_id])
    m.result(first[0])
    second = m.frame(1, [call_id])
    if m.rng.random() < 0.5:
        m.result(second[0])
        m.reply()
    else:
        m.user("Go on.")


def _late_real(m: _Maker) -> None:
    calls = m.frame(1)
    m.result(calls[0], receipt=True)
    m.result(calls[0])
    m.reply()


def _turns(m: _Maker) -> None:
    calls = m.frame(1)
    m.result(calls[0])
    m.user("Now summarize.")
    m.reply()


DEFECTS: dict[str, tuple[Callable[[_Maker], None], str | None]] = {
    "answered": (_orphan, None), "once": (_duplicate, None), "contiguous": (_split, None),
    "order": (_order, None), "no_stray": (_stray, None), "unique_ids": (_reused, None),
    "receipts": (_late_real, None), "provider": (_turns, "bedrock"),
}
"""lesson key -> (how to break a transcript that way, the provider the strict view is planned for)."""


def view_labels(analysis: Any) -> tuple[str, ...]:
    """The repaired view as short row labels: '#3' for durable #3, '#3 (ids renamed)', '✚ receipt for call_x'..."""
    labels = []
    for entry in analysis.report.view:
        if isinstance(entry, ReceiptView):
            labels.append(f"✚ receipt for {entry.call_id}")
        elif isinstance(entry, TurnView):
            labels.append(f"✚ {entry.role} turn")
        elif entry.kind is RepairKind.MERGED:
            labels.append("⊕ " + " + ".join(f"#{member}" for member in entry.members))
        else:
            labels.append(f"#{entry.members[0]}" + (" (ids renamed)" if entry.ids else ""))
    return tuple(labels)


def _distractors(rng: random.Random, right: tuple[str, ...], others: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Wrong views a learner might predict: as recorded, the other policy's, a receipt missing, a drop undone."""
    wrong = list(others)
    if any(label.startswith("✚") for label in right):
        wrong.append(tuple(label for label in right if not label.startswith("✚")))
    plain = [label for label in right if label.startswith("#")]
    if len(plain) >= 3:
        swapped = list(right)
        a, b = right.index(plain[-2]), right.index(plain[-1])
        swapped[a], swapped[b] = swapped[b], swapped[a]
        wrong.append(tuple(swapped))
    unique: list[tuple[str, ...]] = []
    for option in wrong:
        if option != right and option not in unique:
            unique.append(option)
    rng.shuffle(unique)
    return unique[:3]


def make_question(seed: int, lesson: str | None = None) -> Question:
    """One question from a seed: a transcript broken the way one lesson teaches, and the engine's answers."""
    rng = random.Random(seed)
    key = lesson or rng.choice(sorted(DEFECTS))
    build, provider = DEFECTS[key]
    maker = _Maker(rng)
    build(maker)
    transcript = Transcript(maker.messages, f"quiz-{seed}.json")
    strict = analyze(transcript, POLICY, now=lambda: NOW_MS, provider=provider, verdicts=True)
    reference = analyze(transcript, "openmaic", now=lambda: NOW_MS, provider=provider, verdicts=False)
    rejecting = tuple(name for name, said in strict.verdicts.items() if said.before)
    verdict = VERDICT_OPTIONS[0 if not rejecting else 2 if len(rejecting) == len(strict.verdicts) else 1]
    right = view_labels(strict)
    as_recorded = tuple(f"#{index}" for index in range(len(maker.messages)))
    options = [right, *_distractors(rng, right, [as_recorded, view_labels(reference)])]
    rng.shuffle(options)
    from .lessons import repair_steps

    return Question(seed, key, maker.messages, provider, verdict, rejecting, tuple(options), options.index(right),
                    strict.report.verdict, tuple(step.description for step in repair_steps(strict.report)))


def make_quiz(seed: int, size: int = 5) -> list[Question]:
    """`size` questions from one seed, each on a different lesson."""
    rng = random.Random(seed)
    keys = rng.sample(sorted(DEFECTS), min(size, len(DEFECTS)))
    return [make_question(rng.randrange(1 << 30), key) for key in keys]


@dataclass(frozen=True)
class Marked:
    """How one answer was marked: right or not for each part, and what to read on a miss."""

    verdict_right: bool
    view_right: bool
    explanation: str


def mark(question: Question, verdict: str | None, view: int | None) -> Marked:
    """Check a learner's two predictions against the engine's answers; explain a miss from the engine's output."""
    verdict_right = verdict == question.verdict
    view_right = view == question.answer
    parts = []
    if not verdict_right:
        said = (f"rejected as recorded by {', '.join(question.rejecting)}" if question.rejecting
                else "accepted as recorded by every provider")
        parts.append(f"Verdict: {question.verdict} ({said}).")
    if not view_right:
        steps = "; ".join(question.steps) or "nothing to change"
        parts.append(f"Repaired view ({POLICY}): {', '.join(question.views[question.answer])}. The steps: {steps}.")
    return Marked(verdict_right, view_right, " ".join(parts))
