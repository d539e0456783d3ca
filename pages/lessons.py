"""Lessons: one invariant at a time, both policies side by side, a step-through, and a sandbox.

Everything shown about an example comes from the engine (inspector.lessons runs it
under both policies with every provider's verdict); the lesson texts are checked
against that output by tests/test_lessons.py.  Terms link to the Glossary.
`?lesson=<key>` opens a lesson.  Transcript content goes only into dataframe cells
and st.code; st.markdown gets our own text.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from inspector import engine_facts, ui
from inspector.entry import through_app
from inspector.glossary import link, link_terms
from inspector.lesson_facts import judged_by, view_sentence
from inspector.lessons import (
    LESSON_PARAM,
    LESSONS,
    POLICIES,
    POLICY_TITLES,
    engine_receipts,
    example_bytes,
    find_lesson,
    lesson_analyses,
    lesson_check,
    lesson_text,
    provider_rows,
    receipt_recognition,
    repair_steps,
    step_view_rows,
    verdict_difference,
)
from inspector.rows import preview
from inspector.safe_text import literal

through_app()  # a page URL opened first on a fresh server still runs through app.py

DROPPED_STYLE = "color: #6b7280; text-decoration: line-through; background-color: #f3f4f6"
CHANGED_STYLE = "background-color: #dbeafe"
MESSAGE = st.column_config.TextColumn(width="large")

st.title("Lessons")
st.caption("One rule at a time, on a small broken example. Everything below the rule comes from the engine and "
           "the provider rule sets run on that example; words in blue lead to the [Glossary](/glossary).")
policy = ui.policy_picker()

keys = [lesson.key for lesson in LESSONS]
asked = st.query_params.get(LESSON_PARAM)
if asked is not None and asked not in keys:
    st.warning(f"There is no lesson {literal(asked, 60)}; the lessons are: {', '.join(keys)}.")
ui.from_url("lesson", LESSON_PARAM, keys, keys[0])
key: str | None = st.radio("Invariant", keys, key="lesson", horizontal=True,
                           format_func=lambda k: f"{keys.index(k) + 1}. {LESSONS[keys.index(k)].title}")
assert key is not None  # the options are never empty, so one is always picked
ui.to_url("lesson", LESSON_PARAM, key)
lesson = find_lesson(key)
assert lesson is not None

linked: set[str] = set()
st.subheader(lesson.title)
st.markdown(link_terms(f"**Rule.** {lesson_text(lesson, 'rule')}", linked=linked))
st.markdown(link_terms(f"**Why it breaks.** {lesson_text(lesson, 'why')}", linked=linked))

data = example_bytes(lesson)
analyses = lesson_analyses(lesson)
if data is None or not analyses:
    st.warning(f"The example sample_transcripts/{lesson.sample} is missing.")
    st.stop()
recorded = analyses[POLICIES[0]]
where = (f"sample_transcripts/{lesson.sample} · [open it in the Inspector](/?sample={lesson.sample})"
         if lesson.sample else "a small pi-ai transcript (it is in the sandbox below)")
st.caption(f"Example: {where}" + (f" · the strict view is planned for {lesson.provider}" if lesson.provider else ""))


def _styled(rows: list[dict[str, Any]]) -> Any:
    """Rows of a view with dropped messages greyed and struck through, and the last change highlighted."""
    frame = ui.safe_frame(rows)

    def shade(row: pd.Series) -> list[str]:
        if row.get("view #", "x") == "":
            return [DROPPED_STYLE] * len(row)
        return [CHANGED_STYLE if row.get("last step") else ""] * len(row)

    return frame.style.apply(shade, axis=1)


st.markdown("#### The example, as recorded")
st.dataframe(ui.safe_frame({"#": list(range(len(recorded.transcript.messages))),
                            "message": [preview(m) for m in recorded.transcript.messages]}),
             hide_index=True, width="stretch", column_config={"message": MESSAGE})

st.markdown("#### What each provider says about it, as recorded")
said = recorded.verdicts
rejecting = [name for name, verdict in said.items() if verdict.before]
accepting = [name for name in said if name not in rejecting]
if not rejecting:
    st.markdown(f"Every provider rule set ({len(said)}) accepts this example as recorded.")
else:
    st.markdown(f"Rejected as recorded by **{len(rejecting)} of {len(said)}**: {', '.join(rejecting)}"
                + (f"; accepted by {', '.join(accepting)}." if accepting else "."))
st.dataframe(ui.safe_frame(provider_rows(recorded)), hide_index=True, width="stretch",
             column_config={"provider error": st.column_config.TextColumn(width="large")})

checked = lesson_check(lesson)
if checked is not None:
    option = f" --provider {lesson.provider}" if lesson.provider else ""
    st.markdown(link_terms(f"`check{option}` on this example (strict) says **{checked.status}**, exit code "
                           f"{checked.exit_code}: it is judged by {judged_by(checked.target)}; what the other "
                           "providers say above is information.", linked=linked))
st.markdown("#### The two policies, side by side")
for column, name in zip(st.columns(2), POLICIES, strict=True):
    analysis = analyses[name]
    steps = repair_steps(analysis.report)
    with column:
        term = "the reference" if name == "openmaic" else "strict"
        st.markdown(f"**{link(POLICY_TITLES[name], term)}**")
        st.code(analysis.report.verdict, language=None, wrap_lines=True)
        rows = [{k: v for k, v in row.items() if k != "last step"}
                for row in step_view_rows(analysis, steps, len(steps))]
        st.dataframe(_styled(rows), hide_index=True, width="stretch", key=f"side_{key}_{name}",
                     column_config={"view #": st.column_config.TextColumn(width="small"),
                                    "from": st.column_config.TextColumn(width="small"), "message": MESSAGE})
        st.caption(view_sentence(analysis))
st.markdown(link_terms(f"**Why they differ.** {lesson_text(lesson, 'policies')}", linked=linked))
if lesson.key == "contiguous":
    st.markdown(link_terms(engine_facts.aborted_frame_sentence(), linked=linked)
                + " ([every case, per provider](/glossary#when-strict-drops-an-aborted-frame))")
difference = verdict_difference(analyses)
if difference:
    st.markdown(difference)  # engine facts: provider names and rule ids, no transcript text

if lesson.key == "receipts":
    st.markdown("#### What a receipt is, whole")
    st.markdown(link_terms("The engine writes a receipt for a call it has no result for. These are the two "
                           "receipts, exactly as each policy writes them into the view (every field):",
                           linked=linked))
    receipts = engine_receipts()
    for column, name in zip(st.columns(2), POLICIES, strict=True):
        with column:
            st.caption(POLICY_TITLES[name])
            st.code(json.dumps(receipts.get(name), indent=2, ensure_ascii=False), language="json", wrap_lines=True)
    st.markdown("In pi-ai, what makes a message a receipt is `isError: true` with `details` exactly "
                '`{"ok": false, "error": "interrupted"}`, never its text: a receipt copied without those '
                "fields is read as a real result, and then a real result after it is not preferred. "
                "Other formats cannot carry `details`; there a result is read back as a receipt only when "
                "its whole content is exactly one of the engine's receipt texts, the reference's or the strict "
                "policy's (marked as an error where the format can).")
    st.markdown("The same receipt changed one field at a time, and what the engine reads each as (pi-ai):")
    st.dataframe(ui.safe_frame([{"message": row["message"], "read as": row["read as"]}
                                for row in engine_facts.receipt_examples()]), hide_index=True, width="stretch")
    st.markdown("Written in each format and read back by the engine:")
    recognition = receipt_recognition()
    st.dataframe(ui.safe_frame([{
        "format": row["format"],
        "reference receipt read back as a receipt": "✔ yes" if row["openmaic"] else "✖ no",
        "strict receipt read back as a receipt": "✔ yes" if row["strict"] else "✖ no: a real result",
        "the reference receipt as written": row["openmaic as written"],
    } for row in recognition]), hide_index=True, width="stretch")

st.markdown(f"#### Step through the repair ({policy})")
st.caption("Pick the policy in the sidebar. Dropped messages stay as greyed placeholders where they were.")
analysis = analyses[policy]
steps = repair_steps(analysis.report)
if not steps:
    st.info("This policy changes nothing here"
            + (f" ({len(analysis.report.findings)} finding(s) are reported and left in place)."
               if analysis.report.findings else "."))
    applied = 0
else:
    applied = st.slider("Actions applied", 0, len(steps), 0, key=f"steps_{key}_{policy}")
    st.dataframe(ui.safe_frame([{"step": n + 1, "status": "✔ applied" if n < applied else "· pending",
                                 "action": step.description} for n, step in enumerate(steps)]),
                 hide_index=True, width="stretch", column_config={"action": MESSAGE})
view_rows = step_view_rows(analysis, steps, applied)
live = sum(1 for row in view_rows if row["view #"] != "")
st.caption(f"The view after {applied} of {len(steps)} action(s): {live} messages"
           + (f", {len(view_rows) - live} dropped" if len(view_rows) > live else ""))
st.dataframe(_styled(view_rows), hide_index=True, width="stretch", key=f"steps_view_{key}_{policy}_{applied}",
             column_config={"message": MESSAGE})

st.divider()
st.subheader("Sandbox: break this example by hand")
st.caption("It starts from this lesson's example. Edit the JSON (any format the engine reads); the verdict and "
           "the repaired view update when you leave the box (Ctrl+Enter).")
start = data.decode("utf-8")
if st.session_state.get("_sandbox_lesson") != key or "sandbox" not in st.session_state:
    st.session_state["sandbox"] = start
    st.session_state["_sandbox_lesson"] = key
text = st.text_area("Transcript", key="sandbox", height=260)


def _reset_sandbox() -> None:
    st.session_state["sandbox"] = start


st.button("Reset sandbox", on_click=_reset_sandbox)
box = ui.Source(lesson.example_name if text == start else "sandbox.json", text.encode("utf-8"), "paste")
sandbox_transcript = ui.load_source(box) if text.strip() else None
if sandbox_transcript is not None:
    sandbox = ui.with_verdicts(box, ui.analysis_for(box, sandbox_transcript, policy, lesson.provider),
                               lesson.provider, "sandbox")
    ui.verdict_text(sandbox)
    ui.verdict_panel(sandbox, lesson.provider)
    sandbox_rows = ui.rows_frame(ui.rows_for(box, sandbox, lesson.provider), transcript=sandbox_transcript)
    st.dataframe(ui.styled_rows(sandbox_rows), hide_index=True,
                 width="stretch", column_config={**ui.ROW_CONFIG, **ui.WHY_IN_FULL},
                 column_order=["kind", "#", "durable transcript", "view #", "repaired view", "why"])

st.divider()
position = keys.index(key)
if position + 1 < len(keys):
    st.markdown(f"Next lesson: [{LESSONS[position + 1].title}](/lessons?{LESSON_PARAM}={keys[position + 1]}) · "
                "or test yourself in the [Quiz](/quiz).")
else:
    st.markdown("That was the last lesson. Test yourself on transcripts you have not seen: the [Quiz](/quiz).")
