"""The quiz: transcripts generated from a seed, answers from the engine, misses explained by a lesson."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from inspector.lessons import find_lesson
from inspector.quiz import DEFECTS, VERDICT_OPTIONS, make_question, make_quiz, mark, view_labels
from integrity import analyze
from integrity.loading import Transcript

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("lesson", sorted(DEFECTS))
@pytest.mark.parametrize("seed", range(6))
def test_each_question_is_answered_by_the_engine(lesson: str, seed: int) -> None:
    question = make_question(seed, lesson)
    assert find_lesson(question.lesson) is not None
    analysis = analyze(Transcript(question.messages, "q.json"), "strict", provider=question.provider,
                       verdicts=True)
    rejecting = tuple(name for name, said in analysis.verdicts.items() if said.before)
    assert question.rejecting == rejecting
    assert question.verdict in VERDICT_OPTIONS
    assert (question.verdict == VERDICT_OPTIONS[0]) == (not rejecting)
    assert question.views[question.answer] == view_labels(analysis)
    assert len(set(question.views)) == len(question.views) >= 2  # distinct options, one right
    assert analysis.report.changed or analysis.report.findings or rejecting  # it is broken


def test_the_same_seed_gives_the_same_quiz_and_others_differ() -> None:
    assert make_quiz(41) == make_quiz(41)
    assert make_quiz(41) != make_quiz(42)
    assert len({q.lesson for q in make_quiz(41)}) == 5


def test_marking_checks_both_parts_and_explains_a_miss() -> None:
    question = make_question(3, "receipts")
    right = mark(question, question.verdict, question.answer)
    assert right.verdict_right and right.view_right and not right.explanation
    wrong_view = (question.answer + 1) % len(question.views)
    wrong_verdict = next(option for option in VERDICT_OPTIONS if option != question.verdict)
    missed = mark(question, wrong_verdict, wrong_view)
    assert not missed.verdict_right and not missed.view_right
    assert question.verdict in missed.explanation and ", ".join(question.views[question.answer]) in missed.explanation
    assert all(step in missed.explanation for step in question.steps)


def test_the_page_checks_answers_and_points_to_the_lessons() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "quiz.py"), default_timeout=60)
    at.query_params["seed"] = "41"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    questions = make_quiz(41)
    first = questions[0]
    at.radio(key="quiz_v_41_1").set_value(first.verdict)
    at.radio(key="quiz_view_41_1").set_value(first.answer)
    at.button(key="quiz_check").click().run()
    assert not at.exception
    assert at.success and at.success[0].value == "Both right."
    assert len(at.error) == len(questions) - 1  # the unanswered ones are misses, each explained
    links = [m.value for m in at.markdown if "Covered by the lesson" in m.value]
    assert len(links) == len(questions) and f"lesson={first.lesson}" in links[0]
    assert any(s.value == f"Score: 2 of {2 * len(questions)}" for s in at.subheader)


def test_the_page_says_so_for_a_bad_seed() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "quiz.py"), default_timeout=60)
    at.query_params["seed"] = "abc"
    at.run()
    assert not at.exception and at.warning


def test_a_step_already_in_place_says_so_inside_its_parenthesis() -> None:
    """A reordering the steps before already did read "(no provider needs this) (already in place after the
    steps before)": one parenthetical now."""
    from inspector.quiz import make_quiz, mark

    said = [mark(question, None, None).explanation for question in make_quiz(0)]
    joined = [text for text in said if "already in place after the steps before" in text]
    assert joined, said  # seed 0 has one
    for text in joined:
        assert "(no provider needs this; already in place after the steps before)" in text
        assert ") (already in place" not in text
