"""Every lesson's claims against the engine: provider errors, policies, and each step against its rows.

A lesson's text may only say what its example really does: the errors it names must be
what the provider rule sets return for the example, an acceptance it claims must be real,
the policies must do what it says, and each step of the step-through must change the
rows the way its text says.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from inspector.lessons import (
    LESSONS,
    POLICIES,
    Step,
    changes,
    engine_receipts,
    example_bytes,
    lesson_analyses,
    lesson_text,
    receipt_recognition,
    repair_steps,
    says_in_place,
    step_view_rows,
    verdicts_as_recorded,
    view_after,
)
from integrity import PROVIDERS, SPECS, analyze, is_interrupted_tool_result, load
from integrity.repair.placement import view_placement

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_transcripts").glob("*.pi-ai.json"))

# how a lesson's prose names a provider -> the providers that name may mean
PROVIDER_WORDS: dict[str, tuple[str, ...]] = {
    "anthropic": ("anthropic",), "bedrock": ("bedrock",), "gemini": ("gemini",), "mistral": ("mistral",),
    "deepseek": ("deepseek", "deepseek-responses"), "openai chat": ("openai-chat",),
    "openai responses": ("openai-responses",), "openai": ("openai-chat", "openai-responses"),
}


def prose(lesson: Any) -> str:
    """What the page says: the lesson's texts with their fields filled from the engine's facts."""
    return " ".join((lesson.title, *(lesson_text(lesson, part) for part in ("rule", "why", "policies"))))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.key)
def test_every_claim_is_what_the_provider_rule_sets_say(lesson: Any) -> None:
    said = verdicts_as_recorded(lesson)
    assert set(said) == set(PROVIDERS)
    for claim in lesson.claims:
        rules = [rule for rule, _ in said[claim.provider]]
        if claim.rule is None:
            assert not rules, f"{lesson.key}: claims {claim.provider} accepts, but it says {rules}"
        else:
            assert claim.rule in SPECS[claim.provider].errors
            assert claim.rule in rules, f"{lesson.key}: claims {claim.provider} {claim.rule}, it says {rules}"
    assert lesson.provider_errors or all(claim.rule is None for claim in lesson.claims)


def by_hand(lesson: Any) -> str:
    """The lesson's own words, without the fields the engine fills in (those name what the engine says)."""
    return re.sub(r"\{[a-z_]+\}", " ", " ".join((lesson.title, lesson.rule, lesson.why, lesson.policies)))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.key)
def test_the_text_names_no_provider_its_claims_do_not_cover(lesson: Any) -> None:
    text = by_hand(lesson).lower()
    claimed = {claim.provider for claim in lesson.claims}
    for word, providers in sorted(PROVIDER_WORDS.items(), key=lambda pair: -len(pair[0])):
        if re.search(rf"\b{re.escape(word)}\b", text):
            assert claimed & set(providers), f"{lesson.key} names {word!r} without a claim about it"
            text = re.sub(rf"\b{re.escape(word)}\b", " ", text)
    if re.search(r"\b(every provider|no provider|none of them rejects)", by_hand(lesson).lower()):
        accepted = {claim.provider for claim in lesson.claims if claim.rule is None}
        if "none of them rejects" in by_hand(lesson).lower():
            assert accepted == set(PROVIDERS), lesson.key


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.key)
def test_an_error_text_quoted_in_the_prose_is_one_the_example_produces(lesson: Any) -> None:
    text = prose(lesson)
    said = verdicts_as_recorded(lesson)
    for name, spec in SPECS.items():
        for rule, template in spec.errors.items():
            for chunk in re.split(r"\{[^}]*\}", template):
                chunk = chunk.strip(" .:")
                if len(chunk) >= 20 and chunk in text:
                    assert rule in [r for r, _ in said[name]] or any(
                        chunk in error for other in said.values() for _, error in other), (lesson.key, name, rule)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.key)
def test_each_policy_does_what_the_lesson_says(lesson: Any) -> None:
    for policy, analysis in lesson_analyses(lesson).items():
        assert changes(analysis.report) == lesson.expect[policy], (lesson.key, policy)
    assert set(lesson.expect) == set(POLICIES)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.key)
def test_durable_indices_named_in_the_policy_text_exist(lesson: Any) -> None:
    analysis = lesson_analyses(lesson)[POLICIES[0]]
    for number in re.findall(r"#(\d+)", lesson_text(lesson, "policies")):
        assert int(number) < len(analysis.transcript.messages), (lesson.key, number)


def test_every_lesson_has_an_example_and_shows_something_to_learn() -> None:
    keys = [lesson.key for lesson in LESSONS]
    assert len(keys) == len(set(keys))
    for key in ("answered", "once", "contiguous", "order", "no_stray", "unique_ids", "provider", "receipts"):
        assert key in keys
    for lesson in LESSONS:
        assert example_bytes(lesson)
        reports = [a.report for a in lesson_analyses(lesson).values()]
        assert any(r.changed or r.findings for r in reports), lesson.key


# ----------------------------------------------------------------------------- steps against rows


def _live(entries: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return [entry for entry in entries if entry[0] != "dropped"]


def _results_of(report: Any, frame: int) -> set[tuple[str, int]]:
    """Every entry that may sit between a frame and one of its results: its results and receipts."""
    owned = {("durable", index) for p in report.pairings if p.frame_index == frame for index in p.result_indices}
    owned |= {("synthesized", position) for position, e in enumerate(report.view)
              if e.source == "synthesized" and e.frame_index == frame}
    return owned


def _right_after_frame(report: Any, live: list[tuple[str, int]], entry: tuple[str, int], frame: int) -> bool:
    if ("durable", frame) not in live:
        return True  # the frame itself was merged or moved: nothing to check against
    start, end = live.index(("durable", frame)), live.index(entry)
    return start < end and set(live[start + 1:end]) <= _results_of(report, frame)


def check_step(analysis: Any, steps: list[Step], n: int) -> None:
    """Step n (1-based) changes the rows exactly as its text says."""
    report, step = analysis.report, steps[n - 1]
    before = view_after(report, steps, n - 1, placeholders=True)
    after = view_after(report, steps, n, placeholders=True)
    where = (report.source, report.policy, n, step.description)
    for number in re.findall(r"#(\d+)", step.description):  # every message it names is on screen
        assert any(entry[1] == int(number) for entry in after if entry[0] in ("durable", "dropped")) or any(
            entry[0] == "merged" and int(number) in report.view[entry[1]].members for entry in after), where
    index = step.durable_index
    if step.kind.startswith("dropped"):
        assert ("dropped", index) in after and ("durable", index) not in after, where
        assert ("durable", index) in before and len(_live(after)) == len(_live(before)) - 1, where
        if step.kept is not None:
            assert ("durable", step.kept) in after, where
    elif step.kind in ("moved", "reordered"):
        assert (after != before) != says_in_place(step.description), where  # it visibly travels, or says not
        for member in step.touches:
            assert _right_after_frame(report, _live(after), ("durable", member), step.frame), where
    elif step.kind == "synthesized":
        entry = ("synthesized", step.synthesized_index)
        assert entry in after and entry not in before, where
        assert _right_after_frame(report, _live(after), entry, step.frame), where
    elif step.kind == "synthesized_turn":
        assert ("turn", step.synthesized_index) in after and ("turn", step.synthesized_index) not in before, where
    elif step.kind == "shared":
        assert after.count(("durable", index)) > before.count(("durable", index)), where
    elif step.kind == "merged":
        assert ("durable", index) in before and ("durable", index) not in after, where
        assert any(e[0] == "merged" and index in report.view[e[1]].members for e in after), where
    elif step.kind == "calls_last":  # the view's copy of the frame: its other parts first, its calls last
        rows_before = step_view_rows(analysis, steps, n - 1)
        changed = [row for row in step_view_rows(analysis, steps, n) if row["last step"]]
        assert len(changed) == 1 and changed[0]["from"] == f"#{index}", where
        assert changed[0]["message"] not in [row["message"] for row in rows_before if row["from"] == f"#{index}"]
        content = analysis.view[view_placement(report).in_view(index)[-1]]["content"]
        kinds = [part["type"] == "toolCall" for part in content]
        assert kinds == sorted(kinds) and any(kinds), where
    elif step.kind == "blank_text":  # the view's copy of the message: no text that is empty or only whitespace
        rows_before = step_view_rows(analysis, steps, n - 1)
        changed = [row for row in step_view_rows(analysis, steps, n) if row["last step"]]
        assert len(changed) == 1 and changed[0]["from"] == f"#{index}", where
        assert changed[0]["message"] not in [row["message"] for row in rows_before if row["from"] == f"#{index}"]
        content = analysis.view[view_placement(report).in_view(index)[-1]]["content"]
        assert content and not any(part["type"] == "text" and not part["text"].strip() for part in content), where
    elif step.kind == "renamed":
        rows_before = step_view_rows(analysis, steps, n - 1)
        rows_after = step_view_rows(analysis, steps, n)
        changed = [row for row in rows_after if row["last step"]]
        assert len(changed) == 1 and changed[0]["from"] == f"#{index}", where
        new_ids = report.actions[index].new_ids
        assert all(new in changed[0]["message"] for new in new_ids.values()), where
        assert changed[0]["message"] not in [row["message"] for row in rows_before if row["from"] == f"#{index}"]
    else:
        raise AssertionError(f"no check for step kind {step.kind}")
    rows = step_view_rows(analysis, steps, n)
    marked = sum(1 for row in rows if row["last step"])
    expected = after.count(("durable", index)) - 1 if step.kind == "shared" else max(1, len(step.touches))
    assert marked == expected, where  # the row(s) it changed are marked
    assert [row["from"] for row in rows if row["view #"] == ""] == [f"#{e[1]}" for e in after if e[0] == "dropped"]


def _all_steps(analysis: Any) -> None:
    steps = repair_steps(analysis.report)
    for n in range(1, len(steps) + 1):
        check_step(analysis, steps, n)
    final = view_after(analysis.report, steps, len(steps))
    assert final == [("durable", e.index) if e.source == "durable" else (e.source, position)
                     for position, e in enumerate(analysis.report.view)]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.key)
def test_every_step_of_every_lesson_matches_its_rows(lesson: Any) -> None:
    for analysis in lesson_analyses(lesson).values():
        _all_steps(analysis)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda path: path.name)
def test_every_step_of_every_sample_matches_its_rows(sample: Path, policy: str) -> None:
    _all_steps(analyze(load(sample.read_bytes(), sample.name), policy, now=lambda: 0))


def _random(rng: random.Random) -> list[dict[str, Any]]:
    """Traffic with orphans, duplicates, strays, reused ids, splits and aborted frames mixed in."""
    out: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    ids = [f"call_{n}" for n in range(4)]
    for _ in range(rng.randrange(1, 6)):
        calls = rng.sample(ids, rng.randrange(1, 3))
        out.append({"role": "assistant", "stopReason": "toolUse",
                    "content": [{"type": "toolCall", "id": c, "name": "t", "arguments": {}} for c in calls]})
        results = [c for c in calls if rng.random() > 0.2] + (["call_x"] if rng.random() < 0.1 else [])
        rng.shuffle(results)
        for c in results:
            if rng.random() < 0.2:
                out.append(rng.choice([{"role": "user", "content": "hurry"},
                                       {"role": "assistant", "content": [], "stopReason": "aborted"}]))
            out.append({"role": "toolResult", "toolCallId": c, "toolName": "t",
                        "content": [{"type": "text", "text": "ok"}], "isError": False})
            if rng.random() < 0.1:
                out.append(dict(out[-1]))
        out.append({"role": "user", "content": "next"})
    return out


@pytest.mark.parametrize("seed", range(30))
def test_every_step_of_random_transcripts_matches_its_rows(seed: int) -> None:
    messages = _random(random.Random(seed))
    transcript = load(json.dumps(messages).encode(), "random.json")
    for policy in POLICIES:
        _all_steps(analyze(transcript, policy, now=lambda: 0))


# ----------------------------------------------------------------------------- receipts


def test_the_receipts_shown_are_the_engines_with_every_field() -> None:
    receipts = engine_receipts()
    assert set(receipts) == set(POLICIES)
    for receipt in receipts.values():
        assert set(receipt) == {"role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"}
        assert is_interrupted_tool_result(receipt)
        assert receipt["details"] == {"ok": False, "error": "interrupted"}
    assert receipts["openmaic"]["content"] != receipts["strict"]["content"]


def test_receipt_recognition_per_format_is_what_reading_it_back_gives() -> None:
    rows = {row["format"]: row for row in receipt_recognition()}
    assert all(row["openmaic"] for row in rows.values())  # the reference's receipt survives every format
    assert all(row["strict"] for row in rows.values())  # and so does the strict one (its exact text)
    for row in rows.values():
        assert "interrupted" in row["openmaic as written"]


def test_a_lesson_never_shows_differing_verdicts_without_saying_so() -> None:
    """Lesson 1 said the policies differ only in a receipt's words while the reference's view was still
    refused by Bedrock and Mistral beside it: the page now says which providers refuse which view, by which rules."""
    from inspector.lessons import LESSONS, lesson_analyses, still_rejecting, verdict_difference

    differing = []
    for lesson in LESSONS:
        analyses = lesson_analyses(lesson)
        refused = {policy: still_rejecting(analysis) for policy, analysis in analyses.items()}
        sentence = verdict_difference(analyses)
        if len({tuple(names) for names in refused.values()}) == 1:
            assert sentence == "", lesson.key
            continue
        differing.append(lesson.key)
        for policy, names in refused.items():
            for name in names:
                rules = {v.rule for v in analyses[policy].verdicts[name].after}
                assert f"{name} ({', '.join(sorted(rules))})" in sentence, (lesson.key, name)
    assert "answered" in differing and "contiguous" in differing
    answered = verdict_difference(lesson_analyses(next(lesson for lesson in LESSONS if lesson.key == "answered")))
    # the page's strict view is planned for no provider; Bedrock and Mistral get one with a turn between (and
    # Mistral one with ids of nine letters or digits)
    assert "Strict plans the view it sends bedrock for their own rules (turn order, ids)" in answered
    assert "Strict plans the view it sends mistral for their own rules (turn order, ids)" in answered
    assert "synthesized turn" in answered and "renamed ids" in answered


def test_the_docs_list_every_lesson_the_page_opens_by_name() -> None:
    """docs/inspector.md names the `?lesson=` values; a lesson added to the page is added there (review found two
    missing)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "inspector.md").read_text(encoding="utf-8")
    listed = text.split("`?lesson=", 1)[1].split("`", 1)[0].split("|")
    assert listed == [lesson.key for lesson in LESSONS]
