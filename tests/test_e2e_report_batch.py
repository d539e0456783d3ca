"""The Report and Batch pages in headless Chromium: the rendered Markdown preview stays inert with hostile
text, and an upload (which has no address) opens in the Inspector from either page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _app_server import CHROMIUM, CHROMIUM_ARGS, wait_idle
from playwright import sync_api

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_transcripts"
HOSTILE = "![x](http://evil.example/x.png) <script>window.__pwned=1</script> [link](javascript:alert(1)) " \
          "<img src=x onerror=window.__pwned=2>"


@pytest.fixture()
def page(server: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_context(viewport={"width": 1280, "height": 1600}).new_page()
        tab.set_default_timeout(45_000)
        tab.goto(server + "/")  # the app's own navigation first
        wait_idle(tab)
        yield tab
        browser.close()


def hostile_transcript() -> bytes:
    return json.dumps([
        {"role": "user", "content": HOSTILE},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": HOSTILE},
            {"type": "toolCall", "id": f"id {HOSTILE}", "name": "t", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": f"stray {HOSTILE}", "toolName": "t",
         "content": [{"type": "text", "text": HOSTILE}]},
    ]).encode()


def upload_in_sidebar(page: Any, tmp_path: Path, name: str, data: bytes) -> None:
    page.locator('[data-testid="stSidebar"] label:has-text("Upload")').first.click()
    wait_idle(page)
    path = tmp_path / name
    path.write_bytes(data)
    page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(str(path))
    wait_idle(page)


def test_the_markdown_preview_renders_and_hostile_text_stays_inert(page: Any, server: str, tmp_path: Path) -> None:
    page.goto(server + "/report?policy=openmaic")
    wait_idle(page)
    upload_in_sidebar(page, tmp_path, "hostile.json", hostile_transcript())
    preview = page.locator('[data-testid="stMarkdownContainer"]:has(h3:has-text("Tool-call repair report"))')
    preview.wait_for()
    assert preview.locator("table").count() >= 1  # rendered, not shown as source
    assert "![x](http://evil.example/x.png)" in preview.inner_text()  # shown, as literal text
    assert preview.locator("img, script, iframe").count() == 0
    links = [preview.locator("a").nth(n).get_attribute("href") for n in range(preview.locator("a").count())]
    assert all(href and href.startswith("#") for href in links), links  # only the headings' own anchors
    assert page.locator('img[src*="evil"], a[href^="javascript"], a[href*="evil"]').count() == 0
    assert page.evaluate("window.__pwned") is None


def test_an_upload_opens_in_the_inspector_from_the_report(page: Any, server: str, tmp_path: Path) -> None:
    page.goto(server + "/report?policy=strict")
    wait_idle(page)
    upload_in_sidebar(page, tmp_path, "mine.json", (SAMPLES / "crash_duplicate.pi-ai.json").read_bytes())
    page.get_by_text("an upload has no address", exact=False).wait_for()
    page.get_by_role("button", name="Open in the Inspector ▶").click()
    wait_idle(page)
    page.get_by_role("heading", name="Inspector", exact=True).wait_for()
    assert "msg=2" in page.url  # durable #2, the first changed message
    page.get_by_text("mine.json", exact=False).first.wait_for()  # the upload, not a sample


def test_an_uploaded_file_opens_in_the_inspector_from_batch(page: Any, server: str, tmp_path: Path) -> None:
    page.goto(server + "/batch?policy=strict")
    wait_idle(page)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_bytes((SAMPLES / "healthy.pi-ai.json").read_bytes())
    second.write_bytes((SAMPLES / "orphaned_call.pi-ai.json").read_bytes())
    page.locator('[data-testid="stMain"] input[type="file"]').set_input_files([str(first), str(second)])
    wait_idle(page)
    page.get_by_text("2 file(s)", exact=False).wait_for()
    page.locator('[data-testid="stSelectbox"]:has-text("File (or select its row")').click()
    page.get_by_role("option", name="second.json").click()
    wait_idle(page)
    page.get_by_role("button", name="Open in the Inspector ▶").click()
    wait_idle(page)
    page.get_by_role("heading", name="Inspector", exact=True).wait_for()
    page.get_by_text("second.json", exact=False).first.wait_for()


def test_every_defect_bar_on_batch_has_its_whole_name(page: Any, server: str) -> None:
    """The defect chart names every bar: with a fixed height Vega hid every other label (the longest bar,
    "moved", had none) and cut "dropped interrupted frame" short."""
    page.goto(server + "/batch?policy=strict")
    wait_idle(page)
    page.get_by_test_id("stRadioGroup").first.get_by_text("All samples").click()
    wait_idle(page)
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    chart.locator("svg text").first.wait_for()
    labels = chart.locator("svg text").evaluate_all(
        "els => els.map(e => [e.textContent, getComputedStyle(e).opacity])")
    hidden = [text for text, opacity in labels if float(opacity) == 0]
    shown = {text for text, opacity in labels if float(opacity) > 0}
    assert not hidden, hidden
    assert {"moved", "dropped interrupted frame", "dropped duplicate", "stray result", "findings"} <= shown, shown
    assert not any(text.endswith("…") for text in shown), shown
