"""Navigation a reviewer trusts, in headless Chromium against `streamlit run app.py` (issue 29, item 3).

"Problem ▶" visits the engine's findings and provider refusals starting with the target provider's
first refusal; the file's own position is the number shown; a file detection cannot place gets a
format picker; page URLs match page names; a user action adds one history entry at most; unknown
link values are reported; an upload's link says it cannot open it; a triaged session opens by link.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _app_server import streamlit_server, wait_idle
from test_fleet_view import write_table

from integrity import check, load
from integrity.pipeline import ALL_PROVIDERS

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_transcripts"
STOP_LINE = re.compile(r"^Problem (\d+) of (\d+) · (.*)$")


@pytest.fixture(scope="module")
def data_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's data folder: a triage table over sessions in it (and one outside it)."""
    base = tmp_path_factory.mktemp("navigation")
    folder = base / "data"
    folder.mkdir()
    (base / "outside").mkdir()
    write_table(folder, base / "outside")
    return folder


@pytest.fixture(scope="module")
def server(data_folder: Path) -> Iterator[str]:
    """The app, its data folder the one above (the server inherits INTEGRITY_STORE_ROOT)."""
    patch = pytest.MonkeyPatch()
    patch.setenv("INTEGRITY_STORE_ROOT", str(data_folder))
    try:
        with streamlit_server() as base:
            yield base
    finally:
        patch.undo()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 1600}, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(45_000)
    yield tab
    context.close()


def settle(page: Any) -> None:
    wait_idle(page)
    page.wait_for_timeout(500)
    wait_idle(page)


def open_page(page: Any, url: str) -> None:
    page.goto(url)
    settle(page)


def stop_line(page: Any) -> tuple[int, int, str]:
    """(n, of, what) of the "Problem n of m · where · what" line under the navigation bar."""
    page.get_by_text(STOP_LINE).first.wait_for()
    found = STOP_LINE.match(page.get_by_text(STOP_LINE).first.inner_text().strip())
    assert found is not None
    return int(found.group(1)), int(found.group(2)), found.group(3)


def press_next_problem(page: Any) -> tuple[int, int, str]:
    page.get_by_role("button", name="Problem ▶").first.click()
    settle(page)
    return stop_line(page)


def test_problem_visits_every_refusal_starting_with_the_target_providers_first(page: Any, server: str) -> None:
    name = "split_results.bedrock.json"
    engine = check(load((SAMPLES / name).read_bytes(), name), also=ALL_PROVIDERS, depth="view")
    assert engine.target == "bedrock" and engine.target_verdict is not None and engine.target_verdict.before
    refusals = [(verdict.provider, violation.error) for verdict in engine.providers.values()
                for violation in [*verdict.before, *verdict.after]]
    # the plan changes nothing; the one repair stop is the entry the writer joins to the one before it
    assert engine.report.changed and engine.report.summary.reshaped == 1
    expected = len(refusals) + len(engine.findings) + 1

    open_page(page, f"{server}/inspector?sample={name}")
    assert "No problems" not in page.inner_text("body")
    first, total, what = press_next_problem(page)
    assert (first, total) == (1, expected)
    assert what.split(" · ", 1)[1].startswith(f"{engine.target} refuses the file (as recorded)")
    assert engine.target_verdict.before[0].error in what  # the verdict's first refusal, word for word
    seen = [what]
    for _ in range(total - 1):
        seen.append(press_next_problem(page)[2])
    for provider, error in refusals:
        assert any(f"{provider} refuses" in line and error in line for line in seen), (provider, error)
    assert any("messages[3] sent in one message with messages[2]" in line for line in seen), seen
    assert press_next_problem(page)[0] == 1  # wraps around to the first stop


def test_one_numbering_the_files_own_positions_with_the_others_on_demand(page: Any, server: str) -> None:
    name = "healthy.claude-code.jsonl"
    transcript = load((SAMPLES / name).read_bytes(), name)
    open_page(page, f"{server}/inspector?sample={name}&view=conversation")
    page.get_by_role("button", name=re.compile(r"^line \d+$")).first.wait_for()
    headers = page.locator('[class*="st-key-conversation-row-"] [data-testid="stButton"] button').all_inner_texts()
    lines = sorted({transcript.native_lines[e] for e in transcript.entries})
    assert headers and all(re.fullmatch(r"(● )?line \d+", text.strip()) for text in headers), headers
    assert {int(text.split()[-1]) for text in headers} <= set(lines)
    body = page.inner_text('[data-testid="stMain"]')
    assert not re.search(r"\brow \d+\b", body) and "durable #" not in body  # no second numbering shown first
    # The other numbers on demand: the selected message's panel, closed until opened.
    chosen = page.get_by_role("button", name=re.compile(r"^line \d+$")).nth(1)
    chosen_text = chosen.inner_text().strip()
    chosen.click()
    # The rerun that draws the selection has finished when the chosen header is marked selected.
    page.get_by_role("button", name=f"● {chosen_text}", exact=True).wait_for(timeout=30_000)
    settle(page)
    panel = page.locator("details", has_text="Other numbers of this message")
    panel.first.wait_for(state="attached")
    assert panel.count() == 1
    assert panel.first.get_attribute("open") is None  # on demand: not open until asked
    # The panel's own text, read from the page (drawn closed, as Streamlit sends an expander's content).
    # Opening it is Streamlit's own click, not what this test is for: CI once did not see the text after
    # that click (3 tries of 15 s; never reproduced here), so the figures are read from the closed panel.
    text = panel.first.locator('[data-testid="stText"]').text_content().strip()
    assert text.startswith("row 1 · durable #1 · view #1  (row: the table's line"), text
    assert "durable #" not in page.inner_text('[data-testid="stMain"]')  # still closed: nothing shown


def test_an_ambiguous_file_gets_a_format_picker_of_its_candidates(page: Any, server: str) -> None:
    mixed = [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{}"}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "grep", "content": [], "isError": False},
    ]
    open_page(page, f"{server}/inspector")
    page.get_by_text("Upload", exact=True).click()
    settle(page)
    page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(
        {"name": "mixed.json", "mimeType": "application/json", "buffer": json.dumps(mixed).encode()})
    settle(page)
    page.get_by_text("cannot be told from its content alone").wait_for()
    page.get_by_text("Read it as").wait_for()
    page.locator('[data-testid="stSelectbox"]', has_text="Read it as").click()
    options = page.locator('[role="option"]').all_inner_texts()
    assert sorted(options) == ["openai-chat", "pi-ai"]  # the engine's candidates, not every format
    page.get_by_role("option", name="openai-chat").click()
    settle(page)
    page.get_by_text("mixed.json · format openai-chat").wait_for()
    assert "format=openai-chat" in page.url


def test_page_urls_match_page_names_and_an_action_adds_one_history_entry(page: Any, server: str) -> None:
    open_page(page, f"{server}/inspector?sample=orphaned_call.pi-ai.json")
    assert "Page not found" not in page.inner_text("body")
    page.get_by_role("heading", name="Inspector").wait_for()
    assert page.url.startswith(f"{server}/inspector?")
    loaded = page.evaluate("history.length")
    open_page(page, f"{server}/inspector?sample=orphaned_call.pi-ai.json")  # the same page again: one entry
    assert page.evaluate("history.length") - loaded <= 2  # the goto itself, and at most one URL write
    before = page.evaluate("history.length")
    page.get_by_role("button", name="Row ▼").first.click()
    settle(page)
    assert "msg=0" in page.url
    assert page.evaluate("history.length") == before + 1
    page.get_by_role("button", name="Row ▼").first.click()
    settle(page)
    assert page.evaluate("history.length") == before + 2
    page.go_back()
    settle(page)
    assert "msg=0" in page.url


def test_unknown_link_values_are_reported_in_one_line(page: Any, server: str) -> None:
    open_page(page, f"{server}/inspector?sample=orphaned_call.pi-ai.json&policy=lenient&provider=claude")
    page.get_by_text(re.compile(r"The link's policy=lenient is not known here .*showing strict")).wait_for()
    page.get_by_text(re.compile(r"The link's provider=claude is not known here")).wait_for()
    open_page(page, f"{server}/lab?scenario=meteor")
    page.get_by_text(re.compile(r"The link's scenario=meteor is not known here")).wait_for()
    open_page(page, f"{server}/inspector?file=../../etc/passwd")
    page.get_by_text(re.compile(r"The link's file=.* does not open: no such file in the data folder")).wait_for()


def test_an_uploads_link_says_it_cannot_open_it_and_saving_makes_one_that_does(
        page: Any, server: str, data_folder: Path, browser: Any) -> None:
    data = (SAMPLES / "stray_result.pi-ai.json").read_bytes()
    open_page(page, f"{server}/inspector")
    page.get_by_text("Upload", exact=True).click()
    settle(page)
    page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(
        {"name": "mine.json", "mimeType": "application/json", "buffer": data})
    settle(page)
    page.get_by_text("Copy link to this view").first.click()
    page.get_by_text("it is not on the server, so no link can open it").wait_for()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download the transcript").click()
    assert Path(download.value.path()).read_bytes() == data
    page.get_by_role("button", name="Save it in the server's data folder and link to it").click()
    settle(page)
    assert "file=uploads" in page.url
    saved = [path for path in (data_folder / "uploads").iterdir() if path.name.endswith("mine.json")]
    assert len(saved) == 1 and saved[0].read_bytes() == data
    # Whoever opens the link (another browser) sees the same transcript.
    other = browser.new_context(viewport={"width": 1280, "height": 1200}).new_page()
    other.goto(page.url)
    settle(other)
    other.get_by_text(re.compile(r"uploads/\w+-mine\.json · format pi-ai")).wait_for()
    other.context.close()


def test_the_fleet_view_opens_a_triaged_session_by_a_link_naming_it(page: Any, server: str, data_folder: Path) -> None:
    from inspector import fleet
    from inspector.data_root import data_root

    os.environ["INTEGRITY_STORE_ROOT"] = str(data_folder)
    try:
        link = fleet.session_link(str(data_folder / "orphaned_call.pi-ai.json"), data_root(), None, "strict")
    finally:
        del os.environ["INTEGRITY_STORE_ROOT"]
    open_page(page, f"{server}/batch")
    page.get_by_text("Triage table", exact=True).click()
    settle(page)
    page.get_by_text("Data folder", exact=True).click()
    settle(page)
    page.get_by_text("Worst sessions").wait_for()
    # The link column names each session by its path (glide draws the cells; their text is mirrored).
    page.wait_for_function("""() => Array.from(document.querySelectorAll('[data-testid^="glide-cell-"]'))
                                    .some(c => c.innerText.includes('orphaned_call.pi-ai.json'))""")
    assert link is not None
    open_page(page, f"{server}/{link}")  # what the click opens (a new tab)
    page.get_by_text("orphaned_call.pi-ai.json · format pi-ai").wait_for()
    assert "Page not found" not in page.inner_text("body")
