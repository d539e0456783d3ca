"""The inspector's transcript picker: a file holding several transcripts shows one at a time, chosen in the sidebar."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from inspector import ui

ROOT = Path(__file__).resolve().parent.parent
SIDECHAINS = ROOT / "tests" / "real" / "cc_sidechain_interrupted.claude-code.jsonl"


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    st.cache_resource.clear()
    st.cache_data.clear()


def test_a_file_of_several_transcripts_gets_a_picker_and_each_is_analysed_on_its_own() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["policy"] = "strict"
    at.run()
    at.radio(key="source_mode").set_value("Paste").run()
    data = SIDECHAINS.read_bytes()
    at.text_area(key="paste").input(data.decode()).run()
    assert not at.exception, [e.value for e in at.exception]
    picker = at.selectbox(key=f"thread_{ui.digest_of(data)}")
    # the one `check` says needs repair is marked (the file's verdict heads the page: inspector.whole_file)
    assert picker.options == ["main", "sidechain:a3f9c2d1  (needs repair)"] and picker.value == "main"
    codes = [c.value for c in at.code]
    assert any("\ntranscript main: ✔ healthy" in c for c in codes), codes  # the main thread, as recorded
    picker.set_value("sidechain:a3f9c2d1").run()
    assert not at.exception
    codes = [c.value for c in at.code]
    assert not any("✔ healthy" in c for c in codes), codes  # the subagent's unanswered call
