"""Entry point of the inspector: `streamlit run app.py`.

The pages live in pages/; the navigation lists the ones present, so pages other
engineers add (sessions, lab) appear as soon as their files exist.  Any error a
page does not handle itself is shown as one line (details in an expander)
instead of Streamlit's traceback.
"""

from __future__ import annotations

import os

import streamlit as st

from inspector import ui
from inspector.entry import through_app

through_app()  # the first run of a fresh server may come here through Streamlit's pages-folder mode
HERE = os.path.dirname(os.path.abspath(__file__))

st.set_page_config(page_title="Tool-call integrity inspector", layout="wide")
ui.page_style()

PAGES = [
    ("pages/inspector_page.py", "Inspector", "inspector"),
    ("pages/report.py", "Report", "report"),
    ("pages/lessons.py", "Lessons", "lessons"),
    ("pages/batch.py", "Batch", "batch"),
    ("pages/sessions.py", "Sessions", "sessions"),
    ("pages/lab.py", "Lab", "lab"),
    ("pages/glossary.py", "Glossary", "glossary"),
    ("pages/quiz.py", "Quiz", "quiz"),
]

present = [(path, title, url) for path, title, url in PAGES if os.path.exists(os.path.join(HERE, path))]
pages = [st.Page(path, title=title, url_path=url, default=(url == "inspector")) for path, title, url in present]
page = st.navigation(pages)
# The title from our own list: outside a Streamlit server (bare mode, e.g. a process that re-runs
# this file as its main module) the page object has no title to give.
title = next((title for (_, title, _), known in zip(present, pages, strict=True) if known is page), "Inspector")
st.set_page_config(page_title=f"{title} · tool-call integrity", layout="wide")  # each page its own tab title
try:
    page.run()
except Exception as error:  # noqa: BLE001 - the last guard: one error line, never a traceback
    # (st.stop, st.rerun and st.switch_page raise BaseExceptions, which pass through.)
    ui.show_failure(f"the {title} page failed", error)
