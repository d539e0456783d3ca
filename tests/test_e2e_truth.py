"""The inspector tells the truth and reads like a debugger: issue 11's problems, end to end in Chromium.

A fresh server per module, so the first test really is a shared page link
opened first (the case that used to skip app.py).  Screenshots of what each
test saw go to $E2E_SHOTS when that variable names a folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from _app_server import settled_box, wait_idle

ROOT = Path(__file__).resolve().parent.parent
NAV = '[data-testid="stSidebarNav"]'


def tab(browser: Any, width: int = 1440, height: int = 900) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(60_000)
    return page


def settle(page: Any, *texts: str) -> None:
    """Wait for the run to end and every text to be on the page (code blocks draw a moment after the run)."""
    wait_idle(page)
    for text in texts:
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=text)
    wait_idle(page)


def shot(page: Any, name: str) -> None:
    folder = os.environ.get("E2E_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def upload(page: Any, url: str, name: str, data: bytes) -> None:
    """Open the Inspector at url and upload one file from the sidebar."""
    page.goto(url)
    wait_idle(page)
    page.get_by_text("Upload", exact=True).click()
    wait_idle(page)
    page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(
        {"name": name, "mimeType": "application/json", "buffer": data})


def body(page: Any) -> str:
    return page.inner_text("body")


def test_a_shared_page_link_opened_first_runs_through_the_app(browser: Any, server: str) -> None:
    """Item 7: /lessons?lesson=order as the very first request gets the app's navigation, title and layout."""
    page = tab(browser)
    page.goto(server + "/lessons?lesson=order")
    settle(page, "Results follow call order")
    nav = page.inner_text(NAV)
    assert "Inspector" in nav and "Lessons" in nav
    assert "inspector page" not in nav and "app" not in nav.split()  # not Streamlit's file-name navigation
    assert page.title().startswith("Lessons")
    shot(page, "11-7-direct-lessons-link")
    for path, text in (("/report?sample=abort_race.pi-ai.json", "Report"), ("/batch", "Batch")):
        other = tab(browser)
        other.goto(server + path)
        settle(other, text)
        assert "Inspector" in other.inner_text(NAV)
        other.context.close()
    page.context.close()


def test_a_moved_result_is_never_called_missing(browser: Any, server: str) -> None:
    """Item 1: durable #4 moved to view #3 is 'sent at view #3' from its own row and from the view's row."""
    page = tab(browser, height=1600)
    page.goto(server + "/?sample=abort_race.pi-ai.json&msg=4&view=table")
    settle(page, "is moved: it is sent at view #3")
    text = body(page)
    assert "Not in the repaired view" not in text and "not sent to the model" not in text
    shot(page, "11-1-moved-from-durable-row")
    page.goto(server + "/?sample=abort_race.pi-ai.json&msg=v3&view=table")
    settle(page, "Selected message", "View #3 is durable")
    text = body(page)
    assert "exists only in the view" not in text
    assert "View #3 is durable [4] · #4: moved here from durable #4." in text
    shot(page, "11-1-view-row-of-a-durable-message")
    # a kept result after a dropped receipt: one row, sent at view #2 (never "put in call order": one call)
    page.goto(server + "/?sample=crash_duplicate.anthropic.json&msg=v2&view=table")
    settle(page, "Selected message", "#3 is sent to the model at view #2, on this row")
    text = body(page)
    assert "exists only in the view" not in text and "put in call order" not in text
    page.context.close()


def test_conversation_view_shows_whole_messages_and_the_duplicate_next_to_the_kept_one(
        browser: Any, server: str) -> None:
    """Item 2: whole bodies, real line breaks, lanes, and the dropped duplicate compared with the kept result."""
    page = tab(browser, height=2400)
    page.goto(server + "/?sample=two_results.openai-chat.json&view=conversation")
    settle(page, "Dropped durable #3; kept durable #2", "Error: search backend timed out after 30s",
           "blog.rust-lang.org/2024/07/25: Rust 1.80.0", "-Error: search backend timed out after 30s")
    text = body(page)
    assert "Error: search backend timed out after 30s" in text  # the kept one
    assert "blog.rust-lang.org/2024/07/25: Rust 1.80.0" in text  # the dropped one, whole
    assert "Difference" in text and "-Error: search backend timed out after 30s" in text
    assert "┬" in text and "┴" in text  # the call's lane opens and closes
    shot(page, "11-2-conversation-duplicate")
    page.context.close()


def traceback_transcript() -> bytes:
    trace = 'Traceback (most recent call last):\n  File "run.py", line 3, in <module>\n    main()\nValueError: bad'
    return json.dumps([
        {"role": "user", "content": "run it"},
        {"role": "assistant", "stopReason": "toolUse",
         "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"cmd": "python run.py"}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "isError": True,
         "content": [{"type": "text", "text": trace}]},
    ]).encode()


def test_tool_output_keeps_its_line_breaks(browser: Any, server: str) -> None:
    """Item 2: a traceback in a tool result reads as lines, not as one line with literal \\n."""
    page = tab(browser, height=1600)
    upload(page, server + "/?view=conversation", "trace.json", traceback_transcript())
    settle(page, "ValueError: bad")
    codes = page.eval_on_selector_all('[data-testid="stCode"]', "els => els.map(e => e.innerText)")
    shown = next(c for c in codes if "ValueError: bad" in c and "Traceback" in c)
    assert "Traceback (most recent call last):\n" in shown and "\\n" not in shown
    shot(page, "11-2-traceback-lines")
    page.context.close()


def test_the_raw_panel_shows_the_entry_as_in_the_users_file(browser: Any, server: str) -> None:
    """Item 3: an Anthropic request's entry is shown as Anthropic JSON with its native position first."""
    page = tab(browser, height=1800)
    page.goto(server + "/?sample=split_results.anthropic.json&msg=1&view=table")
    settle(page, "as in your file (anthropic)", '"tool_use"', "line 9 of the file")
    text = body(page)
    assert "messages[1]: as in your file (anthropic)" in text
    raw = next(c for c in page.eval_on_selector_all('[data-testid="stCode"]', "els => els.map(e => e.innerText)")
               if '"tool_use"' in c)
    assert '"toolCall"' not in raw and '"_native"' not in raw and '"stopReason"' not in raw
    assert "line 9 of the file" in text  # where messages[1] starts in the sample
    shot(page, "11-3-native-raw")
    page.context.close()


def test_the_provider_follows_the_file_and_its_400_is_visible_without_a_click(browser: Any, server: str) -> None:
    """Item 4: an Anthropic file is judged by Anthropic; its exact error text is on screen, whole, with its rows."""
    page = tab(browser, height=2400)
    page.goto(server + "/?sample=crash_duplicate.anthropic.json&view=table")
    settle(page, "anthropic, the transcript as recorded: REJECTED",
           "error[duplicate_tool_result] at messages.2.content.1", "→ messages[2]")
    text = body(page)
    exact = ("messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks "
             "with id: toolu_01Suite")
    assert exact in " ".join(text.split("\n"))  # whole, in the headline
    assert "error[duplicate_tool_result] at messages.2.content.1" in text and "about messages[1]" in text
    assert "→ messages[2]" in text  # the request around the failing path, marked
    page.get_by_text("Copy as curl", exact=False).click()
    settle(page, "https://api.anthropic.com/v1/messages")
    assert "$ANTHROPIC_API_KEY" in body(page)
    shot(page, "11-4-provider-follows-file")
    page.context.close()


def test_an_upload_after_opening_the_app_is_judged_by_its_own_provider(browser: Any, server: str) -> None:
    """Item 4, the way a user gets there: open the app (its picker mirrors a default provider into the URL),
    upload an Anthropic request: Anthropic judges it, not the default the URL was given."""
    page = tab(browser, height=1600)
    data = (ROOT / "sample_transcripts" / "crash_duplicate.anthropic.json").read_bytes()
    upload(page, server + "/", "mine.json", data)
    settle(page, "anthropic, the transcript as recorded: REJECTED")
    assert "provider=anthropic" in page.url
    shot(page, "11-4-upload-judged-by-its-provider")
    page.context.close()


def test_unknown_links_say_so(browser: Any, server: str) -> None:
    """Item 7: unknown ?sample=, out-of-range ?msg= and ?lesson= from the root URL."""
    page = tab(browser)
    page.goto(server + "/?sample=nope.json")
    # the name as given is a code block, drawn a moment after the message: waited for, as settle waits
    settle(page, "names a sample that is not in sample_transcripts/", "nope.json")
    assert "sample=nope.json" in page.url  # the URL is not rewritten
    shot(page, "11-7-unknown-sample")
    page.goto(server + "/?sample=abort_race.pi-ai.json&msg=999&view=table")
    settle(page, "The link asks for message 999")
    shot(page, "11-7-msg-out-of-range")
    page.goto(server + "/?lesson=order")
    settle(page, "Results follow call order")
    assert "/lessons" in page.url
    page.context.close()


def selected_cells(page: Any) -> list[str]:
    """The grid's cells once the selected row's marker is drawn (the grid is redrawn after a selection)."""
    page.wait_for_function("""() => Array.from(document.querySelectorAll('[data-testid^="glide-cell-"]'))
                                     .some(c => c.innerText === '▶ selected')""")
    return page.eval_on_selector_all('[data-testid^="glide-cell-"]', "cells => cells.map(c => c.innerText)")


def test_any_cell_or_the_keyboard_selects_a_row(browser: Any, server: str) -> None:
    """Item 8: a click on a text cell selects its row; N/P and J/K move the selection; it is marked."""
    page = tab(browser, height=1400)
    page.goto(server + "/?sample=abort_race.pi-ai.json&view=table")
    settle(page, "rows match")
    page.wait_for_function("""() => Array.from(document.querySelectorAll('[data-testid^="glide-cell-"]'))
                                     .some(c => c.innerText === 'user: Thanks, continue.')""")
    grid = page.locator('[data-testid="stDataFrame"]').first
    box = settled_box(grid)
    # the 'durable transcript' cell of the last row (row 6): far from the checkbox column
    page.mouse.click(box["x"] + 420, box["y"] + 35 * 7 + 17)
    page.wait_for_function("() => location.search.includes('msg=5')")
    wait_idle(page)
    assert "▶ selected" in selected_cells(page)
    page.locator("body").press("n")  # next problem after the last row: wraps to the first stop, on durable #1
    page.wait_for_function("() => location.search.includes('msg=1')")
    page.locator("body").press("p")  # and back round: the last stop, the result moved up from durable #4
    page.wait_for_function("() => location.search.includes('msg=4')")
    page.locator("body").press("j")
    page.wait_for_function("() => location.search.includes('msg=5')")
    wait_idle(page)
    assert "▶ selected" in selected_cells(page)
    shot(page, "11-8-keyboard-selection")
    page.context.close()


def test_narrow_screens_keep_every_label_whole(browser: Any, server: str) -> None:
    """Item 11: at 800 and 1280 px no metric label or button label is cut short."""
    for width in (800, 1280):
        page = tab(browser, width=width, height=1400)
        page.goto(server + "/?sample=abort_race.pi-ai.json&view=table")
        settle(page, "rows match")
        # Streamlit cuts a label in its markdown container (overflow hidden, an ellipsis): none may be cut
        cut = page.evaluate("""() => Array.from(document.querySelectorAll(
                '[data-testid="stMain"] [data-testid="stMarkdownContainer"]'))
            .filter(e => e.offsetParent !== null && getComputedStyle(e).overflow === 'hidden'
                         && e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)""")
        assert cut == [], (width, cut)
        shot(page, f"11-11-layout-{width}")
        page.context.close()


def test_at_1440x900_the_rows_start_above_the_fold(browser: Any, server: str) -> None:
    """Item 11: the side-by-side table (or conversation) begins inside the first screen."""
    page = tab(browser, 1440, 900)
    page.goto(server + "/?sample=abort_race.pi-ai.json&view=table")
    settle(page, "rows match")
    grid = page.locator('[data-testid="stDataFrame"]').filter(  # the side-by-side table, once it is drawn
        has=page.locator('[data-testid^="glide-cell-"]', has_text="user: Read the config and grep for TODOs."))
    grid.first.wait_for()
    top = settled_box(grid.first)["y"]  # once blocks above it stop drawing (a busy machine is slower)
    shot(page, "11-11-above-the-fold-1440x900")
    assert top < 900, top
    page.context.close()


def long_transcript(turns: int) -> bytes:
    """A healthy transcript of 3 * turns + 1 messages: a prompt, then a call and its result and a reply per turn."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for n in range(turns):
        messages.append({"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": f"c{n}", "name": "read", "arguments": {"path": f"f{n}.txt"}}]})
        messages.append({"role": "toolResult", "toolCallId": f"c{n}", "toolName": "read",
                         "content": [{"type": "text", "text": f"contents of f{n}"}], "isError": False})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"read f{n}"}]})
    return json.dumps(messages).encode()


def test_a_long_verdict_run_shows_progress_and_can_be_cancelled(browser: Any, server: str) -> None:
    """Item 6: every provider's verdict on a large transcript runs under a progress bar with a Cancel button."""
    page = tab(browser, height=1200)
    upload(page, server + "/?view=table", "long.json", long_transcript(40_000))
    settle(page, "Check what every provider says (120,001 messages")
    page.get_by_role("button", name="Check what every provider says").click()
    page.wait_for_function("() => document.body.innerText.includes('Checking what the providers say: ')")
    shot(page, "11-6-verdict-progress")
    page.get_by_role("button", name="Cancel", exact=True).click()
    settle(page, "Check what every provider says (cancelled: start again)")
    assert "Checking what the providers say: " not in body(page)
    page.context.close()
