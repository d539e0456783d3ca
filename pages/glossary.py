"""Glossary: every word the app uses, one name each, with one or two sentences and a tiny example.

Entries come from inspector.glossary (the kinds' names and texts from the kind
registry).  `?term=<slug>` puts that entry first, highlighted; other pages link
here with inspector.glossary.term_url.  Only our own text is rendered as Markdown.
"""

from __future__ import annotations

import streamlit as st

from inspector import engine_facts, ui
from inspector.entry import through_app
from inspector.glossary import GENERATED, GROUPS, PARAM, TERMS, Term, find_term, link_terms
from inspector.lessons import find_lesson, lesson_url
from inspector.safe_text import literal

through_app()  # a page URL opened first on a fresh server still runs through app.py

st.title("Glossary")
st.caption("Every word the Lessons, the Lab, the Inspector and the Report use, under one name each. "
           "Kinds (what a repair does, what a finding is) carry the same names and texts as every screen and "
           "export.")


def _entry(term: Term, highlighted: bool = False) -> None:
    """One entry: its name (with an anchor), what it means, a tiny example, and where it is taught."""
    with st.container(border=highlighted, key=f"term_{term.slug}{'_top' if highlighted else ''}"):
        st.markdown(f"##### {'➤ ' if highlighted else ''}{term.name}")
        st.markdown(link_terms(term.text, linked={term.slug}))
        st.code(term.example, language=None, wrap_lines=True)
        notes = []
        if term.aliases:
            notes.append("also read as: " + ", ".join(term.aliases))
        lesson = find_lesson(term.lesson) if term.lesson else None
        if lesson is not None:
            notes.append(f"taught in the lesson [{lesson.title}]({lesson_url(lesson.key)})")
        if notes:
            st.caption(" · ".join(notes))


wanted = st.query_params.get(PARAM)
chosen = find_term(wanted) if wanted else None
if wanted and chosen is None:
    st.warning(f"The glossary has no entry {literal(wanted)}; here is every entry.")
if chosen is not None:
    _entry(chosen, highlighted=True)
    st.divider()

search = st.text_input("Find a word", key="glossary_search", placeholder="receipt, stray, lease ...")
needle = search.strip().lower()
for group in GROUPS:
    terms = [term for term in TERMS if term.group == group
             and (not needle or needle in term.name.lower() or needle in term.text.lower()
                  or any(needle in alias.lower() for alias in term.aliases))]
    if not terms:
        continue
    st.subheader(group)
    if group in GENERATED:
        st.caption(f"Generated: {GENERATED[group]}.")
    for term in terms:
        _entry(term)

if not needle:
    st.divider()
    st.subheader("Which provider refuses what")
    st.markdown("Each lesson's example as recorded, run through every provider's rule set "
                "(`integrity/providers/`): ✔ accepts, or the rule ids it refuses it with.")
    st.dataframe(ui.safe_frame(engine_facts.refusal_matrix()), hide_index=True, width="stretch")
    st.markdown("Every rule of every rule set: its error text, which of those examples it refuses (by lesson "
                "number), and its evidence (the rule tables of docs/providers.md, with the recorded answers).")
    st.dataframe(ui.safe_frame(engine_facts.rule_rows()), hide_index=True, width="stretch",
                 column_config={"error text": st.column_config.TextColumn(width="large"),
                                "evidence": st.column_config.TextColumn(width="large")})

    st.subheader("What makes a result a receipt")
    st.markdown("In pi-ai, only `isError: true` with `details` exactly `{\"ok\": false, \"error\": "
                "\"interrupted\"}` makes a receipt; its text never does. The engine's reading of look-alikes:")
    st.dataframe(ui.safe_frame([{"message": row["message"], "read as": row["read as"]}
                                for row in engine_facts.receipt_examples()]), hide_index=True, width="stretch")
    st.caption("Per format (other formats cannot carry `details`), see the lesson "
               "[Receipts, and a real result after one](/lessons?lesson=receipts).")

    st.subheader("What repair writes when no provider is named")
    st.markdown(engine_facts.repair_sentence())
    st.dataframe(ui.safe_frame(engine_facts.repair_defaults()), hide_index=True, width="stretch")

    st.subheader("When strict drops an aborted frame")
    st.markdown(engine_facts.aborted_frame_sentence())
    st.dataframe(ui.safe_frame(engine_facts.aborted_frame_table()), hide_index=True, width="stretch")
