"""End to end in headless Chromium (Playwright) against `streamlit run app.py` on localhost."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _app_server import open_expander, settled_box, wait_idle

from integrity import RepairKind, facts

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 1600}, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(45_000)
    yield tab
    context.close()


def broken_transcript() -> bytes:
    """One of each highlight kind: moved, dropped frame, dropped duplicate, orphan + synthesized, stray."""
    def result(call_id: str, text: str) -> dict[str, Any]:
        return {"role": "toolResult", "toolCallId": call_id, "toolName": "t",
                "content": [{"type": "text", "text": text}], "isError": False}

    def frame(*ids: str) -> dict[str, Any]:
        return {"role": "assistant", "stopReason": "toolUse",
                "content": [{"type": "toolCall", "id": i, "name": "t", "arguments": {}} for i in ids]}

    return json.dumps([
        {"role": "user", "content": "start"},
        frame("A", "B"), result("A", "a"),
        {"role": "assistant", "content": [], "stopReason": "aborted", "errorMessage": "aborted"},
        result("B", "b"),
        frame("C"), result("C", "c first"), result("C", "c again"),
        frame("D"),
        {"role": "user", "content": "later"},
        result("ghost", "no call made me"),
    ], indent=1).encode()


def open_upload(page: Any, base: str, path: str = "/?policy=openmaic&view=table") -> None:
    page.goto(base + path)
    wait_idle(page)
    page.get_by_text("Upload", exact=True).click()
    wait_idle(page)


def upload(page: Any, name: str, data: bytes) -> None:
    page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(
        {"name": name, "mimeType": "application/json", "buffer": data})
    wait_idle(page)


def wait_for_cell(page: Any, text: str, timeout: float | None = None) -> None:
    """Wait until some data-grid cell shows exactly this text (the grid renders after the page text)."""
    page.wait_for_function(
        """text => Array.from(document.querySelectorAll('[data-testid^="glide-cell-"]'))
                     .some(c => c.innerText === text)""", arg=text, timeout=timeout)


def cell_texts(page: Any) -> list[str]:
    """Text of the visible data-grid cells (glide renders an accessible copy of every visible cell)."""
    page.wait_for_selector('[data-testid^="glide-cell-"]', state="attached")
    return page.eval_on_selector_all('[data-testid^="glide-cell-"]', "cells => cells.map(c => c.innerText)")


def test_upload_a_broken_transcript_and_see_every_highlight_kind(page: Any, server: str) -> None:
    open_upload(page, server)
    upload(page, "broken.json", broken_transcript())
    page.get_by_text("Durable transcript ↔ repaired view").wait_for()
    wait_for_cell(page, "⊖ dropped interrupted frame")
    texts = cell_texts(page)
    for kind in ("· kept", "↪ moved", "⊖ dropped interrupted frame", "⊘ dropped duplicate", "☐ orphaned call",
                 "✚ synthesized receipt", "⚠ stray result"):
        assert kind in texts, kind
    assert any("\u0336" in t for t in texts)  # the dropped duplicate is struck through
    body = page.inner_text("body")
    assert "broken.json · format" in body
    open_expander(page, "Legend: what each row kind means",  # the legend, from the kind registry
                  lambda timeout: wait_for_cell(page, facts(RepairKind.SYNTHESIZED).description, timeout))


def test_upload_bad_input_shows_the_error_line_and_the_app_keeps_working(page: Any, server: str) -> None:
    open_upload(page, server)
    upload(page, "bad.json", b'[{"role": "user", "content": "hi"},\n {"role" "x"}]')
    page.get_by_text("Could not read this input").wait_for()
    assert "bad.json: line 2, column 10: invalid JSON in message 1" in page.inner_text('[data-testid="stCode"]')
    upload(page, "fine.json", (ROOT / "sample_transcripts" / "healthy.pi-ai.json").read_bytes())
    page.get_by_text("✔ healthy").wait_for()


def test_deep_link_and_row_selection_show_the_pairing(page: Any, server: str) -> None:
    page.goto(server + "/?sample=abort_race.pi-ai.json&msg=4&policy=openmaic&view=table")
    wait_idle(page)
    page.get_by_text("[4]: as in your file (pi-ai)", exact=True).wait_for()
    wait_for_cell(page, "▶ selected")
    assert "moved to view #3 (right after its frame)" in page.inner_text("body")
    texts = cell_texts(page)
    assert "▶ selected" in texts and texts.count("↔ paired") >= 2
    page.get_by_role("button", name="Problem ▶").click()  # from durable #4 on: the next stop is on it (#4)
    wait_idle(page)
    page.get_by_text(re.compile(r"^Problem \d+ of \d+ · \[4\] · ")).wait_for()


def test_download_the_report_and_the_repaired_transcript(page: Any, server: str) -> None:
    page.goto(server + "/report?sample=abort_race.pi-ai.json&policy=openmaic")
    wait_idle(page)
    page.get_by_role("button", name="⬇ Report JSON").wait_for()

    def download(label: str) -> bytes:
        with page.expect_download() as info:
            page.get_by_role("button", name=label).click()
        return Path(info.value.path()).read_bytes()

    report = json.loads(download("⬇ Report JSON"))
    # a pi-ai file has no target provider: rated by none, as `check` rates it
    assert report["verdict"] == "repaired: 1 moved, 1 interrupted frame(s) dropped"
    assert "as_recorded" not in report and "provider=" not in page.url
    assert report["summary"]["moved"] == 1 and report["summary"]["frames_dropped"] == 1
    assert [a["kind"] for a in report["actions"]][3:5] == ["dropped_interrupted_frame", "moved"]
    markdown = download("⬇ Report Markdown").decode()
    assert markdown.startswith("### Tool-call repair report: `abort_race.pi-ai.json`")
    assert "| 3 | `assistant` | dropped interrupted frame |" in markdown
    repaired = json.loads(download("⬇ Repaired transcript"))
    assert [m.get("toolCallId") for m in repaired if m["role"] == "toolResult"] == ["call_A", "call_B"]
    assert len(repaired) == 5 and not any(m.get("stopReason") == "aborted" for m in repaired)


def test_lesson_step_through_in_the_browser(page: Any, server: str) -> None:
    page.goto(server + "/lessons?lesson=answered&policy=openmaic")
    wait_idle(page)
    page.get_by_text("Every call is answered", exact=True).first.wait_for()
    slider = page.get_by_role("slider")
    slider.focus()
    slider.press("ArrowRight")
    wait_idle(page)
    page.wait_for_function("() => document.body.innerText.includes('The view after 1 of 1 action(s)')")
    wait_for_cell(page, "✚ receipt")


def test_hostile_transcript_stays_inert(page: Any, server: str) -> None:
    image = "![track](https://evil.example/pixel.png)"
    script = "<script>window.__pwned=1</script><img src=x onerror='window.__pwned=2'>"
    hostile = json.dumps([
        {"role": "user", "content": f"{script} {image} [link](javascript:window.__pwned=3)"},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": image},
            {"type": "toolCall", "id": f"x {image}", "name": script, "arguments": {"q": script}}]},
        {"role": "toolResult", "toolCallId": f"x {image}", "toolName": script,
         "content": [{"type": "text", "text": "B" * 2_000_000 + script + image}]},
    ]).encode()
    remote: list[str] = []
    page.on("request", lambda request: remote.append(request.url) if "evil.example" in request.url else None)
    open_upload(page, server)
    upload(page, "hostile.json", hostile)
    page.get_by_text("Durable transcript ↔ repaired view").wait_for()
    page.locator('input[aria-label="Go to (where in your file, or #n / vN)"]').fill("[2]")
    page.keyboard.press("Enter")
    wait_idle(page)
    page.get_by_text("[2]: as in your file (pi-ai)", exact=True).wait_for()
    page.get_by_text("Result content").wait_for()
    page.wait_for_timeout(1000)
    assert remote == []
    assert page.evaluate("window.__pwned") is None
    assert page.locator('img[src*="evil.example"]').count() == 0
    assert page.locator('a[href^="javascript:"]').count() == 0
    injected = page.evaluate("Array.from(document.scripts).filter(s => s.text.includes('__pwned')).length")
    assert injected == 0
    code_text = page.inner_text("body")
    assert "<script>window.__pwned=1</script>" in code_text  # shown literally, as text
    assert "(cut for display" in code_text


def test_clicking_a_row_selects_it_and_shows_its_pairing(page: Any, server: str) -> None:
    page.goto(server + "/?sample=abort_race.pi-ai.json&policy=openmaic&view=table")
    wait_idle(page)
    wait_for_cell(page, "⊖ dropped interrupted frame")
    wait_for_cell(page, "moved here from durable #4")
    grid = page.locator('[data-testid="stDataFrame"]').filter(  # only the side-by-side table has this cell
        has=page.locator('[data-testid^="glide-cell-"]', has_text="moved here from durable #4"))
    box = settled_box(grid)
    row_height = 35
    # row 5 of the grid (0-based, after the header) is the moved result leaving #4
    page.mouse.click(box["x"] + 14, box["y"] + row_height * (1 + 5) + row_height / 2)
    wait_idle(page)
    page.get_by_text("[4]: as in your file (pi-ai)", exact=True).wait_for()
    wait_for_cell(page, "▶ selected")
    assert "moved to view #3" in page.inner_text("body")
    page.wait_for_function("() => location.search.includes('msg=4')")


def test_batch_of_a_folder_then_open_a_file_in_the_inspector(page: Any, server: str, tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    for name in ("abort_race.pi-ai.json", "orphaned_call.pi-ai.json", "healthy.pi-ai.json"):
        (folder / name).write_bytes((ROOT / "sample_transcripts" / name).read_bytes())
    (folder / "broken.json").write_bytes(b"[{")
    page.goto(server + "/batch?policy=openmaic")
    wait_idle(page)
    page.get_by_text("Upload a folder", exact=True).click()
    wait_idle(page)
    page.locator('input[type="file"]').set_input_files(str(folder))
    wait_idle(page)
    wait_for_cell(page, "unreadable")
    texts = cell_texts(page)
    for name in ("abort_race.pi-ai.json", "orphaned_call.pi-ai.json", "healthy.pi-ai.json", "broken.json"):
        assert any(t.endswith(name) for t in texts), name
    page.get_by_text("Defect kinds across the batch").wait_for()
    page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').click()
    page.keyboard.type("orphaned")
    page.keyboard.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Open in the Inspector ▶").click()
    wait_idle(page)
    page.get_by_text("Durable transcript ↔ repaired view").wait_for()
    page.get_by_role("radio", name="Table", exact=True).click()  # the segmented control's "Table"
    wait_idle(page)
    wait_for_cell(page, "☐ orphaned call")
    assert "orphaned_call.pi-ai.json · format" in page.inner_text("body")
