"""Lessons: one invariant at a time on a small broken sample, a step-through, and a sandbox.

Lesson texts, the documented provider errors and the step-through come from
integrity.lessons; verdicts and views from integrity.analysis.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from inspector import ui
from inspector.entry import through_app
from inspector.lessons import (
    LESSONS,
    SANDBOX_START,
    find_lesson,
    repair_steps,
    step_view_rows,
)
from inspector.rows import violation_rows

through_app()  # a page URL opened first on a fresh server still runs through app.py

st.title("Lessons")
policy = ui.policy_picker()
provider = ui.provider_picker()

keys = [lesson.key for lesson in LESSONS]
ui.from_url("lesson", "lesson", keys, keys[0])
key = st.radio("Invariant", keys, key="lesson", horizontal=True,
               format_func=lambda k: find_lesson(k).title)  # type: ignore[union-attr]
ui.to_url("lesson", "lesson", key)
lesson = find_lesson(key)
assert lesson is not None

st.subheader(lesson.title)
st.markdown(f"**Rule.** {lesson.rule}")
st.markdown(f"**Why it breaks.** {lesson.why}")

data = ui.read_sample(lesson.sample)
if data is None:
    st.warning(f"The example sample_transcripts/{lesson.sample} is missing.")
    st.stop()
source = ui.Source(lesson.sample, data, "sample")
transcript = ui.load_source(source)
if transcript is None:
    st.stop()
analysis = ui.with_verdicts(source, ui.analysis_for(source, transcript, policy, provider), provider, "lesson")
report = analysis.report

st.caption(f"Example: sample_transcripts/{lesson.sample} · policy {policy}")
ui.verdict_text(analysis)

left, right = st.columns(2)
with left:
    st.markdown("**What providers say** (documented error texts)")
    for provider_name, error_text in lesson.provider_errors:
        st.code(f"{provider_name}: {error_text}", language=None, wrap_lines=True)
with right:
    st.markdown("**Live verdict of the provider rule sets**")
    live = []
    for _name, result in sorted((analysis.verdicts or {}).items()):
        live += violation_rows((result or {}).get("before") or [])
    if live:
        st.dataframe(pd.DataFrame(live)[["provider", "rule", "provider error"]], hide_index=True, width="stretch",
                     column_config={"provider error": st.column_config.TextColumn(width="large")})
    elif analysis.verdicts:
        st.caption("Every provider rule set accepts this example as is.")
    else:
        st.caption("No provider rule sets reported for this engine build.")

st.subheader("Step through the repair")
steps = repair_steps(report)
if not steps:
    st.info("This policy changes nothing here"
            + (f" ({len(report.findings)} finding(s) are reported and left in place)." if report.findings else "."))
    applied = 0
else:
    applied = st.slider("Actions applied", 0, len(steps), 0, key=f"steps_{key}_{policy}")
done_rows = [{"step": n + 1, "status": "✔ applied" if n < applied else "· pending", "action": s.description}
             for n, s in enumerate(steps)]
if done_rows:
    st.dataframe(pd.DataFrame(done_rows), hide_index=True, width="stretch")

view_rows = step_view_rows(analysis, steps, applied)
st.caption(f"The view after {applied} of {len(steps)} action(s): {len(view_rows)} messages")


def _shade(row: pd.Series) -> list[str]:
    return ["background-color: #dbeafe" if row["last step"] else ""] * len(row)


st.dataframe(pd.DataFrame(view_rows).style.apply(_shade, axis=1), hide_index=True, width="stretch",
             column_config={"message": st.column_config.TextColumn(width="large")})

st.divider()
st.subheader("Sandbox: break a transcript by hand")
st.caption("Edit the JSON (pi-ai messages, or any format the engine reads); the verdict and the repaired "
           "view update when you leave the box (Ctrl+Enter).")
if "sandbox" not in st.session_state:
    st.session_state["sandbox"] = st.session_state.get("_keep_sandbox", SANDBOX_START)
text = st.text_area("Transcript", key="sandbox", height=260)
st.session_state["_keep_sandbox"] = text
if st.button("Reset sandbox"):
    st.session_state.pop("sandbox", None)
    st.session_state["_keep_sandbox"] = SANDBOX_START
    st.rerun()
box = ui.Source("sandbox.json", text.encode("utf-8"), "paste")
sandbox_transcript = ui.load_source(box) if text.strip() else None
if sandbox_transcript is not None:
    sandbox = ui.with_verdicts(box, ui.analysis_for(box, sandbox_transcript, policy, provider), provider, "sandbox")
    ui.verdict_text(sandbox)
    ui.verdict_panel(sandbox, provider)
    st.dataframe(ui.styled_rows(ui.rows_frame(ui.rows_for(box, sandbox, provider))), hide_index=True, width="stretch",
                 column_config=ui.ROW_CONFIG, column_order=["kind", "#", "durable transcript", "view #",
                                                            "repaired view", "why"])
