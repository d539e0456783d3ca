"""Entry point of the inspector: `streamlit run app.py`.

The pages live in pages/; the navigation lists the ones present, so pages other
engineers add (sessions, lab) appear as soon as their files exist.  Any error a
page does not handle itself is shown as one line (details in an expander)
instead of Streamlit's traceback.
"""

from __future__ import annotations

import os

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

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
# The default page is served at `/`, and Streamlit gives it no other address: `/inspector` (its name, the
# address every other page has) said "Page not found".  A hidden page at `inspector` runs the same file.
pages = [st.Page(path, title=title, url_path="home" if url == "inspector" else url, default=(url == "inspector"))
         for path, title, url in present]
aliases = [st.Page(path, title=title, url_path=url, visibility="hidden")
           for path, title, url in present if url == "inspector"]
page = st.navigation([*pages, *aliases])
# The title from our own list: outside a Streamlit server (bare mode, e.g. a process that re-runs
# this file as its main module) the page object has no title to give.
title = next((title for (_, title, _), known in zip(present, pages, strict=True) if known is page), "Inspector")
st.set_page_config(page_title=f"{title} · tool-call integrity", layout="wide")  # each page its own tab title
ui.batch_url()
try:
    page.run()
except RerunException as rerun:  # st.rerun: this run's URL waits for the next; st.switch_page brings its own
    current = get_script_run_ctx()
    if current is not None and rerun.rerun_data.page_script_hash != current.page_script_hash:
        ui.flush_url(write=False)
    else:
        ui.hold_url()
    raise
except StopException:  # st.stop: the page is done
    ui.flush_url()
    raise
except Exception as error:  # noqa: BLE001 - the last guard: one error line, never a traceback
    ui.show_failure(f"the {title} page failed", error)
    ui.flush_url()
else:
    ui.flush_url()  # the run's query parameters in one write: one history entry per user action
