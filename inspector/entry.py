"""Every page URL runs through app.py, even the first one a fresh server sees.

Streamlit starts in its old `pages/` folder mode until some run calls
`st.navigation`.  So when the first request to a fresh server is a page URL (a
shared link such as `/lessons?lesson=order`), Streamlit runs that page file on
its own: no app.py, its file-name navigation, no wide layout, no shared style.
Each page calls `through_app()` first; in that one case it switches the server
to app.py's navigation (as app.py's own `st.navigation` call would) and reruns,
so the same URL is then served by app.py with everything shared.
"""

from __future__ import annotations

import streamlit as st
from streamlit import runtime
from streamlit.runtime.pages_manager import PagesManager


def through_app() -> None:
    """Rerun through app.py when Streamlit ran this page directly (folder mode); else nothing.

    Only on a real server: Streamlit's test harness (AppTest, no runtime) resets the
    folder-mode flag before every run and already runs app.py's navigation, so a
    rerun there would only swallow the widget event that started the run.
    """
    if not runtime.exists() or type(runtime.get_instance()) is not runtime.Runtime:  # AppTest's stand-in
        return
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()
