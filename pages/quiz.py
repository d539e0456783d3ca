"""Quiz: predict the verdict and the repaired view of generated broken transcripts, checked by the engine.

Questions come from inspector.quiz (generated from a seed: `?seed=N` gives the same
quiz again); answers come from the engine.  Each miss links the lesson that covers
it.  Transcript content goes only into dataframe cells and st.code.
"""

from __future__ import annotations

import json
import random

import streamlit as st

from inspector import ui
from inspector.entry import through_app
from inspector.glossary import link
from inspector.lessons import find_lesson, lesson_url
from inspector.quiz import POLICY, VERDICT_OPTIONS, Question, make_quiz, mark
from inspector.rows import preview
from inspector.safe_text import literal

through_app()  # a page URL opened first on a fresh server still runs through app.py

st.title("Quiz")
st.markdown(f"Five transcripts you have not seen, each broken the way one lesson teaches. For each, predict what "
            f"the providers say about it as recorded, and the {link('view', 'view')} the "
            f"{link('strict', 'strict')} policy plans (for the provider named, else for none: the "
            f"{link('universal invariants', 'universal invariants')}). Then check: the engine answers, and each "
            "miss points to "
            "the lesson that covers it.")

raw_seed = st.query_params.get("seed")
if raw_seed is not None and not raw_seed.isdigit():
    st.warning(f"{literal(raw_seed, 40)} is not a quiz number; here is a new quiz.")
if "quiz_seed" not in st.session_state or (raw_seed and raw_seed.isdigit()
                                           and st.session_state.get("_quiz_url_seed") != raw_seed):
    st.session_state["quiz_seed"] = int(raw_seed) if raw_seed and raw_seed.isdigit() else random.randrange(1, 10**6)
    st.session_state["_quiz_url_seed"] = raw_seed
seed = st.session_state["quiz_seed"]
st.query_params["seed"] = str(seed)
st.session_state["_quiz_url_seed"] = str(seed)


def _new_quiz() -> None:
    st.session_state["quiz_seed"] = random.randrange(1, 10**6)
    st.session_state.pop("quiz_checked", None)


st.caption(f"Quiz #{seed} (the link gives this quiz again).")
questions = make_quiz(seed)
checked = st.session_state.get("quiz_checked") == seed
score = 0
for number, question in enumerate(questions, start=1):
    st.subheader(f"Transcript {number}")
    provider_note = f" The strict view is planned for {question.provider}." if question.provider else ""
    st.caption(f"{len(question.messages)} messages, pi-ai format.{provider_note}")
    st.dataframe(ui.safe_frame({"#": list(range(len(question.messages))),
                                "message": [preview(m) for m in question.messages]}),
                 hide_index=True, width="stretch", key=f"quiz_table_{seed}_{number}",
                 column_config={"message": st.column_config.TextColumn(width="large")})
    with st.expander("Raw JSON"):
        st.code(json.dumps(question.messages, indent=2, ensure_ascii=False), language="json")

    def view_label(i: int, q: Question = question) -> str:  # q bound now: this question, not the loop's last
        return ", ".join(q.views[i])

    verdict: str | None = st.radio("As recorded, the providers:", VERDICT_OPTIONS, index=None,
                                   key=f"quiz_v_{seed}_{number}")
    planned = question.provider or "no provider (the universal invariants)"
    view: int | None = st.radio(f"The {POLICY} view planned for {planned} sends:",
                                list(range(len(question.views))), index=None,
                                key=f"quiz_view_{seed}_{number}", format_func=view_label)
    if checked:
        result = mark(question, verdict, view)
        score += result.verdict_right + result.view_right
        lesson = find_lesson(question.lesson)
        if result.verdict_right and result.view_right:
            st.success("Both right.")
        else:
            missed = [what + (" (not answered)" if answer is None else "")
                      for what, answer, right in (("the verdict", verdict, result.verdict_right),
                                                  ("the view", view, result.view_right)) if not right]
            st.error("Not quite: " + " and ".join(missed) + ".")
            st.code(result.explanation, language=None, wrap_lines=True)
        if lesson is not None:
            st.markdown(f"Covered by the lesson [{lesson.title}]({lesson_url(lesson.key)}).")

st.divider()
left, right = st.columns(2)
if left.button("Check my answers", type="primary", key="quiz_check"):
    st.session_state["quiz_checked"] = seed
    st.rerun()
right.button("New quiz", key="quiz_new", on_click=_new_quiz)
if checked:
    st.subheader(f"Score: {score} of {2 * len(questions)}")
