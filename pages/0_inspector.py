"""`/inspector` opened first on a fresh server: the page Streamlit's folder mode finds for that address.

Until app.py's `st.navigation` has run once, Streamlit serves the files of pages/ by their names, and
`/inspector` (the Inspector's address in app.py) matched none of them: "Page not found" stayed on the
screen over the Inspector.  Folder mode names this file `inspector` (the number only orders it); it
switches the server to app.py's navigation and reruns, so the address opens the Inspector.  app.py
never lists it.
"""

from __future__ import annotations

from inspector.entry import through_app

through_app()
