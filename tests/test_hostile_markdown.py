"""No link, image or HTML from a URL or a file name in the app's own chrome (issue 30, item 2).

Every query parameter any page reads (grep st.query_params: term, lesson, seed,
sample, msg, policy, provider, view, scenario) is set to a Markdown image, a
phishing link, raw HTML, a bare URL and a fence-breaking backtick run, on every
page; then every text of the page that Streamlit renders as Markdown (markdown,
captions, alerts, titles, widget labels and help) must hold the attacker's host
only inside a code span (tests/markdown_spans.py), where no renderer makes a link
or fetches an image.  Where a page says a value was not understood, it quotes it
whole, as a code span.  The browser test (test_hostile_markdown_browser.py)
checks the same in Chromium: no request to the host, no <a> or <img> pointing at it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from inspector.safe_text import literal
from tests.markdown_spans import code_spans, outside_code_spans

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
HOST = "attacker.invalid"
PAYLOADS = (
    f"![a](http://{HOST}/g)",
    f"[Your session expired - sign in again](http://{HOST}/login)",
    f"<img src=http://{HOST}/x onerror=alert(1)>",
    f"`` ` ![b](http://{HOST}/fence) www.{HOST} http://{HOST}/bare",
)
PARAMS = ("term", "lesson", "seed", "sample", "msg", "policy", "provider", "view", "scenario")
PAGES = ("pages/inspector_page.py", "pages/report.py", "pages/lessons.py", "pages/batch.py", "pages/sessions.py",
         "pages/lab.py", "pages/glossary.py", "pages/quiz.py")
MARKDOWN_TYPES = {"markdown", "caption", "warning", "error", "info", "success", "title", "header", "subheader",
                  "toast", "exception", "expandable", "tab"}
SAMPLE = "abort_race.pi-ai.json"


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    st.cache_resource.clear()
    st.cache_data.clear()


def rendered_markdown(at: AppTest) -> list[str]:
    """Every text on the page Streamlit renders as Markdown: element bodies, labels and help texts."""
    found: list[str] = []

    def walk(node: Any) -> None:
        kind = getattr(node, "type", "")
        for attribute in ("value", "body"):
            value = getattr(node, attribute, None)
            if kind in MARKDOWN_TYPES and isinstance(value, str):
                found.append(value)
        for attribute in ("label", "help"):
            value = getattr(node, attribute, None)
            if isinstance(value, str):
                found.append(value)
        proto = getattr(node, "proto", None)
        label = getattr(getattr(proto, "expandable", None), "label", None)
        if isinstance(label, str):
            found.append(label)
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at._tree)
    return found


def assert_no_live_markdown(at: AppTest) -> None:
    for text in rendered_markdown(at):
        outside = outside_code_spans(text)
        assert HOST not in outside and "<img" not in outside and "onerror" not in outside, text[:300]


def run(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for name, value in params.items():
        at.query_params[name] = value
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def quoted(at: AppTest, kind: str, payload: str, limit: int) -> None:
    """The page's `kind` message quotes the value whole (cut to `limit`), as the one helper writes it."""
    texts = [str(e.value) for e in getattr(at, kind)]
    assert any(literal(payload, limit) in text for text in texts), texts
    spans = [span for text in texts for span in code_spans(text)]
    assert spans, texts


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("page", PAGES)
def test_every_query_parameter_on_every_page_renders_no_link_image_or_html(page: str, payload: str) -> None:
    params = {name: payload for name in PARAMS if not (page.endswith("inspector_page.py") and name == "lesson")}
    assert_no_live_markdown(run(page, params))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_pages_that_name_a_bad_value_quote_it_as_code(payload: str) -> None:
    glossary = run("pages/glossary.py", {"term": payload})
    quoted(glossary, "warning", payload, 80)
    lessons = run("pages/inspector_page.py", {"lesson": payload})  # the root URL's ?lesson= goes to Lessons
    quoted(lessons, "warning", payload, 60)
    assert_no_live_markdown(lessons)
    quiz = run("pages/quiz.py", {"seed": payload})
    quoted(quiz, "warning", payload, 40)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_bad_message_link_on_an_open_sample_is_quoted_as_code(payload: str) -> None:
    at = run("pages/inspector_page.py", {"sample": SAMPLE, "msg": payload, "policy": "openmaic", "view": payload,
                                         "provider": payload})
    assert_no_live_markdown(at)
    quoted(at, "error", payload, 40)


def test_an_uploaded_file_name_in_the_reading_spinner_is_a_code_span(monkeypatch: pytest.MonkeyPatch) -> None:
    """The spinner text is Markdown too (and gone by the time the tree is read): record what it is given."""
    said: list[str] = []
    real = st.spinner

    def spinner(text: str = "", *args: Any, **kwargs: Any) -> Any:
        said.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(st, "spinner", spinner)
    name = f"![a](http://{HOST}/g).json"
    at = run("pages/inspector_page.py", {"policy": "openmaic"})
    at.radio(key="source_mode").set_value("Upload").run()
    data = (ROOT / "sample_transcripts" / SAMPLE).read_bytes()
    at.file_uploader(key="uploads").set_value((name, data, "application/json")).run()
    assert not at.exception
    reading = [text for text in said if text.startswith("Reading")]
    assert reading and all(HOST not in outside_code_spans(text) for text in reading), reading
    assert any(literal(name) in text for text in reading), reading
    assert_no_live_markdown(at)


RLO = "\u202e"
BIDI_NAME = f"report{RLO}nosj.exe.json"  # reads as "reportnosj.json.exe"-like garble in the uploader's chip


@pytest.mark.parametrize(("page", "key", "data"), [
    ("pages/inspector_page.py", "uploads", (ROOT / "sample_transcripts" / SAMPLE).read_bytes()),
    ("pages/batch.py", "batch_Upload files", (ROOT / "sample_transcripts" / SAMPLE).read_bytes()),
    ("pages/report.py", "report_upload", b"{}"),
], ids=["inspector", "batch", "report"])
def test_an_uploaded_name_with_bidi_characters_is_shown_again_with_markers(page: str, key: str, data: bytes) -> None:
    """Streamlit's uploader chip shows the name raw (the app cannot change it): the page repeats it, marked."""
    at = run(page, {"policy": "openmaic"})
    if page.endswith("inspector_page.py"):
        at.radio(key="source_mode").set_value("Upload").run()
    elif page.endswith("report.py"):
        at.radio(key="report_origin").set_value("Uploaded report JSON").run()
    at.file_uploader(key=key).set_value((BIDI_NAME, data, "application/json")).run()
    assert not at.exception
    texts = [str(t.value) for t in [*at.text, *at.sidebar.text]]
    assert "report⟨U+202E⟩nosj.exe.json" in texts, texts
    warnings = [str(w.value) for w in [*at.warning, *at.sidebar.warning]]
    assert any("invisible or reordering characters" in w for w in warnings), warnings
