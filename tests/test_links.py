"""Links carry what they open: a file in the data folder, the transcript of a file holding several, the
message by its place in the file; a value naming nothing here is reported in one line, never replaced
silently."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from inspector import ui

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
SIDECHAINS = "cc_sidechain_interrupted.claude-code.jsonl"


@pytest.fixture
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "real" / SIDECHAINS, folder / "runs" / SIDECHAINS)
    monkeypatch.setenv("INTEGRITY_STORE_ROOT", str(folder))
    st.cache_resource.clear()
    st.cache_data.clear()
    return folder


def opened(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_link_opens_the_transcript_it_names_in_a_file_of_several(data_folder: Path) -> None:
    data = (data_folder / "runs" / SIDECHAINS).read_bytes()
    at = opened(file=f"runs/{SIDECHAINS}", thread="sidechain:a3f9c2d1")
    assert at.selectbox(key=f"thread_{ui.digest_of(data)}").value == "sidechain:a3f9c2d1"
    assert any("transcript sidechain:a3f9c2d1" in t.value for t in at.text)
    assert at.query_params["thread"] in (["sidechain:a3f9c2d1"], "sidechain:a3f9c2d1")
    at.selectbox(key=f"thread_{ui.digest_of(data)}").set_value("main").run()
    assert "thread" not in at.query_params  # main is the default: the link needs no word for it


def test_an_unknown_transcript_in_a_link_is_reported_and_main_shown(data_folder: Path) -> None:
    at = opened(file=f"runs/{SIDECHAINS}", thread="sidechain:nope")
    warnings = [w.value for w in at.warning]
    assert any("thread=`sidechain:nope` is not known here" in w and "showing `main`" in w for w in warnings)


def test_a_link_selects_a_message_by_its_place_in_the_file(data_folder: Path) -> None:
    at = opened(sample="split_results.bedrock.json", msg="messages[3]")
    assert any(c.value.startswith("messages[3] · ") for c in at.code), [c.value[:40] for c in at.code]
    at = opened(sample="split_results.bedrock.json", msg="messages[9]")
    assert any("The link asks for message" in e.value for e in at.error)


def test_a_file_outside_the_data_folder_is_refused_unread(data_folder: Path) -> None:
    outside = data_folder.parent / "secret.json"
    outside.write_text("[]")
    for asked in (str(outside), "../secret.json", "file://" + str(outside)):
        at = opened(file=asked)
        assert any("does not open: no such file in the data folder" in e.value for e in at.error), asked


def test_a_link_opens_a_store_in_the_folder_and_the_session_it_names(data_folder: Path) -> None:
    from integrity.lab import open_store

    with open_store(data_folder / "team.db") as store:
        store.create_session("one", "first")
        store.create_session("two", "second")
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/sessions.py")
    at.query_params["store"] = "team.db"
    at.query_params["session"] = "two"
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.radio(key="sessions_mode").value == "Store folder"
    assert at.selectbox(key="sessions_pick").value == "two"
    at.selectbox(key="sessions_pick").set_value("one").run()
    assert at.query_params["session"] in (["one"], "one") and at.query_params["store"] in (["team.db"], "team.db")
    other = AppTest.from_file(APP, default_timeout=60)
    other.switch_page("pages/sessions.py")
    other.query_params["store"] = "team.db"
    other.query_params["session"] = "three"
    other.run()
    assert any("session=`three` is not known here" in w.value for w in other.warning)
