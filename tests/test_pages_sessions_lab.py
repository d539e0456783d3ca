"""The sessions and lab pages, driven through Streamlit's AppTest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from integrity.report import repair_with_report
from integrity.runtime import user_message
from integrity.scenarios import SCENARIOS
from integrity.store import open_store

PAGES = Path(__file__).resolve().parent.parent / "pages"
HOSTILE = "<script>alert(1)</script> **bold** [link](http://x)"


def lab() -> AppTest:
    at = AppTest.from_file(str(PAGES / "lab.py"), default_timeout=60).run()
    labs.append(at)
    return at


labs: list[AppTest] = []


def sessions() -> AppTest:
    return AppTest.from_file(str(PAGES / "sessions.py"), default_timeout=60).run()


@pytest.fixture(autouse=True)
def _demo_dirs():
    """Demo stores and lab runs live in temp dirs the pages make; remove the ones a test created."""
    made.clear()
    labs.clear()
    yield
    for directory in made:
        shutil.rmtree(directory, ignore_errors=True)
    for at in labs:  # a lab run owns a temp dir until it is closed
        if "lab_state" in at.session_state:
            at.session_state["lab_state"]["run"].close()


made: list[Path] = []


def remove_demo_store_later(at: AppTest) -> None:
    made.append(Path(at.text_input(key="sessions_store").value).parent)


def frame_text(at: AppTest, index: int) -> str:
    return at.dataframe[index].value.to_string()


def markdown_text(at: AppTest) -> str:
    return "\n".join(str(element.value) for element in at.markdown)


def test_the_lab_steps_through_the_abort_race_to_its_lesson() -> None:
    at = lab()
    assert not at.exception
    assert at.selectbox(key="lab_scenario").value == "late_parallel"
    assert at.subheader[0].value == "Ready"
    steps = 0
    while not at.button(key="lab_next").disabled:
        at.button(key="lab_next").click().run()
        assert not at.exception
        steps += 1
    assert steps == 8
    assert "assistant  aborted: the user pressed stop" in frame_text(at, 0)
    assert at.success and "moves the late result back" in at.success[0].value
    assert "a1t0c" not in markdown_text(at)  # message-derived text stays out of markdown


def test_the_view_pane_drops_the_abort_frame_the_log_keeps() -> None:
    at = lab()
    at.button(key="lab_all").click().run()
    frames = [element.value for element in at.dataframe]
    durable = next(f for f in frames if "new" in f.columns)
    view = next(f for f in frames if "view #" in f.columns)
    assert any("aborted" in text for text in durable["message"])
    assert not any("aborted" in text for text in view["message"])
    assert list(view["from"][:4]) == ["durable #0", "durable #1", "durable #2", "durable #4"]


@pytest.mark.parametrize("key", ["abort_mid_tools", "crash", "lease_stolen", "slow_tool", "healthy"])
def test_every_scenario_runs_to_its_lesson_in_the_page(key: str) -> None:
    at = lab()
    at.selectbox(key="lab_scenario").set_value(key).run()
    assert at.subheader[0].value == "Ready"
    at.button(key="lab_all").click().run()
    assert not at.exception
    assert at.success[0].value == SCENARIOS[key].lesson
    assert at.button(key="lab_next").disabled


def test_restart_goes_back_to_the_start() -> None:
    at = lab()
    at.button(key="lab_next").click().run()
    at.button(key="lab_restart").click().run()
    assert at.subheader[0].value == "Ready"
    assert not at.button(key="lab_next").disabled


def test_sessions_page_asks_for_a_store_first() -> None:
    at = sessions()
    assert not at.exception
    assert "Enter the path" in at.info[0].value


def test_a_missing_store_is_reported_and_not_created(tmp_path: Path) -> None:
    at = sessions()
    missing = tmp_path / "nope.db"
    at.text_input(key="sessions_store").set_value(str(missing)).run()
    assert at.error and not at.exception
    assert not missing.exists()


def test_a_file_that_is_not_a_store_is_reported(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    at = sessions()
    at.text_input(key="sessions_store").set_value(str(junk)).run()
    assert at.error and not at.exception
    assert at.code  # the database error, as literal text


def test_a_foreign_sqlite_file_is_reported_and_left_unchanged(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "other.db"
    raw = sqlite3.connect(other)
    raw.execute("CREATE TABLE notes (text TEXT)")
    raw.commit()
    raw.close()
    before = other.read_bytes()
    at = sessions()
    at.text_input(key="sessions_store").set_value(str(other)).run()
    assert at.error and "not a session store" in at.code[0].value
    assert other.read_bytes() == before


def test_the_demo_store_lists_sessions_and_opens_one_in_the_inspector() -> None:
    at = sessions()
    at.button(key="sessions_demo").click().run()
    remove_demo_store_later(at)
    assert not at.exception
    table = at.dataframe[0].value
    assert set(table["session"]) == set(SCENARIOS) | {"crash-unrecovered"}
    row = table[table["session"] == "crash-unrecovered"].iloc[0]
    store = open_store(at.text_input(key="sessions_store").value, create=False)
    _, report = repair_with_report(store.load_transcript("crash-unrecovered"))
    assert row["status"].startswith("☠ stale") and row["verdict"] == f"⚒ {report.verdict}"
    assert report.summary.synthesized == 1
    at.selectbox(key="sessions_pick").set_value("crash-unrecovered").run()
    view = next(element.value for element in at.dataframe if "view #" in element.value.columns)
    assert list(view["from"]) == ["durable #0", "durable #1", "durable #2", "synthesized (view only)"]
    at.button(key="sessions_inspect").click().run()
    current = at.session_state["_current"]
    assert json.loads(current.data) == store.load_transcript("crash-unrecovered")
    store.close()


def test_transcript_text_from_the_store_never_reaches_markdown(tmp_path: Path) -> None:
    path = tmp_path / "hostile.db"
    store = open_store(path)
    store.create_session(HOSTILE, HOSTILE, [user_message(HOSTILE, 1)])
    store.close()
    at = sessions()
    at.text_input(key="sessions_store").set_value(str(path)).run()
    assert not at.exception
    assert HOSTILE in set(at.dataframe[0].value["title"])
    assert "<script>" not in markdown_text(at)
    assert all("<script>" not in str(element.value) for element in at.markdown)


def test_open_in_the_inspector_lands_on_the_inspector_page_inside_the_app() -> None:
    at = AppTest.from_file(str(PAGES.parent / "app.py"), default_timeout=60).run()
    at.switch_page("pages/sessions.py").run()
    at.button(key="sessions_demo").click().run()
    remove_demo_store_later(at)
    at.selectbox(key="sessions_pick").set_value("late_parallel").run()
    at.button(key="sessions_inspect").click().run()
    assert not at.exception
    assert at.title[0].value == "Inspector"
    shown = [str(element.value) for element in [*at.text, *at.caption, *at.code]]
    assert any("late_parallel.json" in text for text in shown)  # the stored session is the one open
