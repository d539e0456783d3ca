"""The sessions and lab pages, driven through Streamlit's AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from integrity import repair_with_report
from integrity.lab import SCENARIOS, open_store, user_message

PAGES = Path(__file__).resolve().parent.parent / "pages"
HOSTILE = "<script>alert(1)</script> **bold** [link](http://x)"


def lab() -> AppTest:
    at = AppTest.from_file(str(PAGES / "lab.py"), default_timeout=60).run()
    labs.append(at)
    return at


labs: list[AppTest] = []


def sessions() -> AppTest:
    at = AppTest.from_file(str(PAGES / "sessions.py"), default_timeout=60).run()
    pages.append(at)
    return at


pages: list[AppTest] = []


@pytest.fixture(autouse=True)
def _demo_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Stores open from a temp store folder; demo stores and lab runs the pages made are closed after the test."""
    monkeypatch.setenv("INTEGRITY_STORE_ROOT", str(tmp_path / "stores"))
    pages.clear()
    labs.clear()
    yield
    for at in pages:
        if "sessions_demo_store" in at.session_state:
            at.session_state["sessions_demo_store"].close()
    for at in labs:  # a lab run owns a temp dir until it is closed
        if "lab_state" in at.session_state:
            at.session_state["lab_state"]["run"].close()


def root(tmp_path: Path) -> Path:
    folder = tmp_path / "stores"
    folder.mkdir(exist_ok=True)
    return folder


def demo_path(at: AppTest) -> Path:
    return at.session_state["sessions_demo_store"].path


def open_typed(at: AppTest, typed: str) -> AppTest:
    return at.text_input(key="sessions_store").set_value(typed).run()


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
    at = open_typed(sessions(), "nope.db")
    assert at.error and not at.exception
    assert not (root(tmp_path) / "nope.db").exists()


def visible(at: AppTest) -> list[str]:
    """Every message the page shows (errors, infos, code, text), in order."""
    return [str(e.value) for e in [*at.error, *at.info, *at.warning, *at.code, *at.text]]


def test_a_path_outside_the_store_folder_and_a_missing_one_inside_get_the_same_message(tmp_path: Path) -> None:
    folder = root(tmp_path)
    outside = tmp_path / "secret.db"
    outside.write_bytes(b"")
    (folder / "link.db").symlink_to(outside)  # a link inside the folder that leads out of it
    refusals = {}
    for typed in ("missing.db", str(outside), "../secret.db", "link.db", str(tmp_path / "absent.db"), "/etc/passwd",
                  "sub/../../secret.db", ".", "nul\x00.db"):
        at = open_typed(sessions(), typed)
        assert not at.exception and len(at.error) == 1, typed
        refusals[typed] = visible(at)
    assert len({tuple(shown) for shown in refusals.values()}) == 1, refusals  # nothing tells them apart
    assert not any(str(tmp_path) in text for text in refusals["missing.db"])


def test_a_store_inside_the_folder_opens_by_relative_or_absolute_path(tmp_path: Path) -> None:
    folder = root(tmp_path)
    (folder / "team").mkdir()
    with open_store(folder / "team" / "s.db") as store:
        store.create_session("one", "first")
    for typed in ("team/s.db", str(folder / "team" / "s.db"), "team/../team/s.db"):
        at = open_typed(sessions(), typed)
        assert not at.exception and not at.error, typed
        assert list(at.dataframe[0].value["session"]) == ["one"]
    at = sessions()
    assert at.selectbox(key="sessions_found").options == ["team/s.db"]  # the folder's stores, to pick from
    at.selectbox(key="sessions_found").set_value("team/s.db").run()
    assert at.text_input(key="sessions_store").value == "team/s.db"
    assert list(at.dataframe[0].value["session"]) == ["one"]


def test_the_default_store_folder_is_data_in_the_project_and_ignored_by_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTEGRITY_STORE_ROOT")
    project = PAGES.parent
    at = sessions()
    assert not at.exception
    assert (project / "data").is_dir()
    assert "/data/" in (project / ".gitignore").read_text().splitlines()


def test_a_file_that_is_not_a_store_is_reported(tmp_path: Path) -> None:
    junk = root(tmp_path) / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    at = open_typed(sessions(), "junk.db")
    assert at.error and not at.exception
    assert "junk.db: not an SQLite database" in at.code[0].value  # named as typed: no server path
    assert str(tmp_path) not in at.code[0].value


def test_a_foreign_sqlite_file_is_reported_and_left_unchanged(tmp_path: Path) -> None:
    import sqlite3

    other = root(tmp_path) / "other.db"
    raw = sqlite3.connect(other)
    raw.execute("CREATE TABLE notes (text TEXT)")
    raw.commit()
    raw.close()
    before = other.read_bytes()
    at = open_typed(sessions(), "other.db")
    assert at.error and "not a session store" in at.code[0].value
    assert other.read_bytes() == before
    assert sorted(path.name for path in other.parent.iterdir()) == ["other.db"]


def test_an_uploaded_store_is_read_and_its_temporary_copy_removed(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    source = tmp_path / "mine.db"
    with open_store(source) as store:
        store.create_session("uploaded", "from a file", [user_message("hi", 1)])
    spare = tmp_path / "spare-temp"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    at = sessions()
    at.radio(key="sessions_mode").set_value("Upload a .db").run()
    at.file_uploader(key="sessions_upload").set_value(("mine.db", source.read_bytes(), "application/octet-stream"))
    at.run()
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value["session"]) == ["uploaded"]
    assert list(spare.iterdir()) == []  # the uploaded copy is gone once the page is drawn
    at.file_uploader(key="sessions_upload").set_value(("junk.db", b"not a database" * 10, "application/octet-stream"))
    at.run()
    assert at.error and not at.exception and "junk.db: not an SQLite database" in at.code[0].value


def test_demo_stores_are_removed_when_replaced_or_closed() -> None:
    at = sessions()
    at.button(key="sessions_demo").click().run()
    first = demo_path(at)
    assert first.exists()
    at.button(key="sessions_demo").click().run()
    second = demo_path(at)
    assert not first.parent.exists() and second.exists()
    at.session_state["sessions_demo_store"].close()
    assert not second.parent.exists()


def test_a_demo_store_nobody_holds_any_more_is_removed() -> None:
    import gc

    from integrity.lab import DemoStore

    demo = DemoStore()
    directory = demo.directory
    assert (directory / "demo.db").exists()
    del demo
    gc.collect()
    assert not directory.exists()


def test_the_demo_store_lists_sessions_and_opens_one_in_the_inspector() -> None:
    at = sessions()
    at.button(key="sessions_demo").click().run()
    assert not at.exception
    table = at.dataframe[0].value
    assert set(table["session"]) == set(SCENARIOS) | {"crash-unrecovered"}
    row = table[table["session"] == "crash-unrecovered"].iloc[0]
    store = open_store(demo_path(at), create=False)
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
    path = root(tmp_path) / "hostile.db"
    store = open_store(path)
    store.create_session(HOSTILE, HOSTILE, [user_message(HOSTILE, 1)])
    store.close()
    at = open_typed(sessions(), "hostile.db")
    assert not at.exception
    assert HOSTILE in set(at.dataframe[0].value["title"])
    assert "<script>" not in markdown_text(at)
    assert all("<script>" not in str(element.value) for element in at.markdown)


def test_open_in_the_inspector_lands_on_the_inspector_page_inside_the_app() -> None:
    at = AppTest.from_file(str(PAGES.parent / "app.py"), default_timeout=60).run()
    pages.append(at)
    at.switch_page("pages/sessions.py").run()
    at.button(key="sessions_demo").click().run()
    at.selectbox(key="sessions_pick").set_value("late_parallel").run()
    at.button(key="sessions_inspect").click().run()
    assert not at.exception
    assert at.title[0].value == "Inspector"
    shown = [str(element.value) for element in [*at.text, *at.caption, *at.code]]
    assert any("late_parallel.json" in text for text in shown)  # the stored session is the one open


def _view(at: AppTest) -> list[str]:
    return list(next(e.value for e in at.dataframe if "view #" in e.value.columns)["from"])


def test_the_lab_says_which_policy_it_applies_and_why() -> None:
    at = lab()
    text = at.info[0].value
    assert "openmaic" in text and "with_tool_call_integrity_repair" in text and "/glossary?term=" in text


def test_running_calls_are_in_flight_not_receipts_until_the_run_winds_down() -> None:
    at = lab()  # late_parallel
    at.button(key="lab_next").click().run()
    at.button(key="lab_next").click().run()  # the model turn: search and fetch both running
    assert _view(at).count("↻ in flight (no receipt)") == 2 and "synthesized (view only)" not in _view(at)
    assert any("2 call(s) in flight" in c.value for c in at.code)
    assert [e.label for e in at.expander][:1] == ["If the next model call needed the view now"]
    at.selectbox(key="lab_scenario").set_value("lease_stolen").run()
    for _ in range(4):  # worker 2 takes the session over while worker 1's fetch still runs
        at.button(key="lab_next").click().run()
    assert "synthesized (view only)" in _view(at)  # the new owner's next model call needs an answer
    assert "↻ in flight (no receipt)" not in _view(at)
