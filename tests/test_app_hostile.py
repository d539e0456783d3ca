"""Hostile input on the Inspector, Report and Batch pages: one error line or neutralized text, never a traceback.

Deep JSON, a huge integer, a lone surrogate and a file name full of bidi
controls and ANSI escapes, each uploaded to every page that reads transcripts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from inspector import safe_text, ui

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")

DEEP = ("deep.json", b"[" * 100_000 + b"]" * 100_000)
HUGE = ("huge.json", b'[{"role": "user", "content": "hi", "timestamp": ' + b"9" * 5_000 + b"}]")
RLO, ESC, ZWSP = "\u202e", "\x1b", "\u200b"
HOSTILE_NAME = f"{RLO}nosj.exe{ESC}[31m{ZWSP}.json"
FORBIDDEN = (RLO, ESC, ZWSP, "\u2066", "\ud800")


def surrogate_transcript() -> bytes:
    """An orphaned call whose id, tool name and text hold lone surrogates (valid JSON: they are escapes)."""
    return json.dumps([
        {"role": "user", "content": "half an emoji: \ud83d"},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": "call\ud800", "name": "se\udfffarch", "arguments": {"q": "\ud800"}}]},
    ]).encode()


def hostile_transcript() -> bytes:
    """Bidi controls, zero-width characters and ANSI escapes in text, ids and tool names."""
    return json.dumps([
        {"role": "user", "content": f"{ESC}[2J{ESC}[31mred{ESC}[0m and txt.{RLO}exe"},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": f"call{ZWSP}1", "name": f"\u2066search{RLO}", "arguments": {"q": RLO}}]},
        {"role": "toolResult", "toolCallId": f"call{ZWSP}1", "toolName": "search",
         "content": [{"type": "text", "text": f"ok{RLO}"}]},
        {"role": "toolResult", "toolCallId": f"stray{RLO}", "toolName": "x", "content": []},
    ], ensure_ascii=False).encode()


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    st.cache_resource.clear()
    st.cache_data.clear()


def page(path: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["policy"] = "openmaic"
    at.switch_page(path)
    at.run()
    assert not at.exception
    return at


def upload(path: str, name: str, data: bytes) -> AppTest:
    at = page(path)
    if path.endswith("batch.py"):
        at.file_uploader(key="batch_Upload files").set_value((name, data, "application/json")).run()
    else:
        at.radio(key="source_mode").set_value("Upload").run()
        at.file_uploader(key="uploads").set_value((name, data, "application/json")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def frame_cells(at: AppTest) -> list[str]:
    cells = []
    for element in at.dataframe:
        frame = element.value
        if isinstance(frame, pd.DataFrame):
            cells += [str(value) for value in frame.to_numpy().ravel()] + [str(c) for c in frame.columns]
    return cells


def shown(at: AppTest) -> list[str]:
    """Every string the page shows: text, code, markdown, messages, table cells, select options, metrics."""
    texts = [str(e.value) for e in [*at.text, *at.code, *at.markdown, *at.caption, *at.error, *at.info,
                                    *at.warning, *at.success, *at.title, *at.subheader]]
    texts += [str(option) for box in at.selectbox for option in box.options]
    texts += [f"{m.label} {m.value}" for m in at.metric]
    return texts + frame_cells(at)


def assert_no_leak(at: AppTest) -> None:
    """No raw hostile character, no traceback, no server path anywhere on the page."""
    for text in shown(at):
        assert not any(char in text for char in FORBIDDEN), ascii(text[:300])
        assert "Traceback" not in text and str(ROOT) not in text, text[:300]


PAGES = ["pages/inspector_page.py", "pages/report.py", "pages/batch.py"]


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("case", [DEEP, HUGE], ids=["deep-json", "huge-integer"])
def test_unreadable_json_is_one_error_line_naming_the_file(path: str, case: tuple[str, bytes]) -> None:
    name, data = case
    at = upload(path, name, data)
    assert_no_leak(at)
    if path.endswith("batch.py"):
        table = next(f.value for f in at.dataframe if "status" in f.value.columns).set_index("file")
        assert table.loc[name, "status"] == "unreadable"
        assert table.loc[name, "verdict"].startswith(f"{name}:") and "\n" not in table.loc[name, "verdict"]
        return
    assert len(at.error) == 1
    lines = [c.value for c in at.code if c.value.startswith(f"{name}:")]
    assert len(lines) == 1 and "\n" not in lines[0], [c.value for c in at.code]


@pytest.mark.parametrize("path", PAGES)
def test_a_lone_surrogate_is_shown_as_a_marker(path: str) -> None:
    at = upload(path, "surrogate.json", surrogate_transcript())
    assert not at.error
    assert_no_leak(at)
    if not path.endswith("batch.py"):
        assert any("⟨U+D800⟩" in text for text in shown(at))


def test_the_raw_json_panel_shows_a_lone_surrogate_as_its_escape() -> None:
    at = upload("pages/inspector_page.py", "surrogate.json", surrogate_transcript())
    at.text_input(key="goto").input("1").run()
    assert not at.exception
    raw = next(c.value for c in at.code if '"toolCall"' in c.value)
    assert '"id": "call\\ud800"' in raw
    assert_no_leak(at)


@pytest.mark.parametrize("path", PAGES)
def test_a_hostile_file_name_and_transcript_are_neutralized(path: str) -> None:
    at = upload(path, HOSTILE_NAME, hostile_transcript())
    assert not at.error
    assert_no_leak(at)
    visible = "\n".join(shown(at))
    assert "⟨U+202E⟩nosj.exe⟨ESC⟩[31m⟨U+200B⟩.json" in visible  # the name, with every trick visible
    if not path.endswith("batch.py"):
        assert "call⟨U+200B⟩1" in visible  # ids that only look alike are told apart


def test_the_inspector_detail_panel_escapes_hostile_characters_in_raw_json() -> None:
    at = upload("pages/inspector_page.py", HOSTILE_NAME, hostile_transcript())
    at.text_input(key="goto").input("1").run()
    assert not at.exception
    raw = next(c.value for c in at.code if '"toolCall"' in c.value)
    assert '"id": "call\\u200b1"' in raw and '"name": "\\u2066search\\u202e"' in raw
    assert json.loads(raw)["content"][0]["id"] == f"call{ZWSP}1"  # still the same JSON value
    assert_no_leak(at)


def test_batch_goes_on_past_every_bad_file() -> None:
    at = page("pages/batch.py")
    good = (ROOT / "sample_transcripts" / "crash_duplicate.pi-ai.json").read_bytes()
    at.file_uploader(key="batch_Upload files").set_value([
        DEEP + ("application/json",), ("a.json", good, "application/json"), HUGE + ("application/json",),
        ("surrogate.json", surrogate_transcript(), "application/json"),
        (HOSTILE_NAME, hostile_transcript(), "application/json")]).run()
    assert not at.exception and not at.error
    table = next(f.value for f in at.dataframe if "status" in f.value.columns)
    assert len(table) == 5
    statuses = dict(zip(table["file"], table["status"], strict=True))
    assert statuses["deep.json"] == statuses["huge.json"] == "unreadable"
    assert statuses["a.json"] == "repaired" and statuses["surrogate.json"] != "unreadable"
    assert statuses[safe_text.neutralize(HOSTILE_NAME)] != "unreadable"
    assert_no_leak(at)


def test_the_report_page_reads_a_hostile_report_json_as_one_error_line() -> None:
    at = page("pages/report.py")
    at.radio(key="report_origin").set_value("Uploaded report JSON").run()
    for name, data in (DEEP, HUGE, ("odd.json", b'{"actions": {"a": [1, {"b": 1e999999}]}}')):
        at.file_uploader(key="report_upload").set_value((name, data, "application/json")).run()
        assert not at.exception
        assert len(at.error) == 1
        assert any(c.value.startswith(f"{name}:") and "\n" not in c.value for c in at.code)
        assert_no_leak(at)


def test_an_unexpected_failure_in_a_page_is_one_line_with_details_and_no_server_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"boom in {ROOT}/secret/place.db")

    monkeypatch.setattr(ui, "rows_for", broken)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "abort_race.pi-ai.json"
    at.run()
    assert not at.exception
    assert len(at.error) == 1
    assert at.code[-2].value == "the Inspector page failed: RuntimeError: boom in secret/place.db"
    [details] = [expander for expander in at.expander if "Details" in expander.label]  # the sidebar has its own
    assert "at pages/inspector_page.py:" in details.code[0].value
    assert_no_leak(at)


def test_a_failing_provider_check_is_one_error_line_and_the_rest_of_the_page_is_shown(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise TypeError("unhashable type: 'list'")

    from inspector import verdict_ui

    monkeypatch.setattr(verdict_ui, "provider_verdict", boom)
    at = upload("pages/inspector_page.py", "a.json", surrogate_transcript())
    assert len(at.error) == 1 and at.error[0].value.startswith("Provider verdicts could not be computed")
    assert "a.json: provider verdicts: TypeError: unhashable type: 'list'" in [c.value for c in at.code]
    assert any("rows" in s.value for s in at.subheader)  # the rest of the page is there

    import integrity.pipeline

    real = integrity.pipeline.provider_verdicts
    monkeypatch.setattr(integrity.pipeline, "provider_verdicts",  # asking every provider fails; the target alone
                        lambda transcript, view_for, names: boom() if len(names) > 1 else real(transcript, view_for,
                                                                                              names))
    import integrity.skeleton_verdicts

    on_skeleton = integrity.skeleton_verdicts.skeleton_verdicts  # the same verdicts judged on the requests' skeletons
    monkeypatch.setattr(integrity.skeleton_verdicts, "skeleton_verdicts",
                        lambda loaded, light, plan, names, *rest: boom() if len(names) > 1 else
                        on_skeleton(loaded, light, plan, names, *rest))
    at = upload("pages/batch.py", "a.json", surrogate_transcript())
    table = next(f.value for f in at.dataframe if "status" in f.value.columns)
    assert list(table["status"]) == ["repaired"]  # read and repaired; only the verdicts are missing
    assert list(table["all providers"]) == ["not checked: TypeError"]
    assert list(table["accepted as recorded"]) == ["not checked: TypeError"]


def test_every_uploader_says_its_size_limit_where_it_can_be_seen() -> None:
    note = f"Up to {st.get_option('server.maxUploadSize')} MB per file: a larger file is refused here"
    inspector = page("pages/inspector_page.py")
    inspector.radio(key="source_mode").set_value("Upload").run()
    report = page("pages/report.py")
    report.radio(key="report_origin").set_value("Uploaded report JSON").run()
    sessions = page("pages/sessions.py")
    sessions.radio(key="sessions_mode").set_value("Upload a .db").run()
    for at in (inspector, report, page("pages/batch.py"), sessions):
        assert not at.exception
        assert any(caption.value.startswith(note) for caption in at.caption), [c.value for c in at.caption]
