"""The Report page in headless Chromium: each provider's download is the view planned for that provider.

abort_race.pi-ai.json is the issue's example: Bedrock and Mistral accept the view planned for them
(Mistral's ids renamed, Bedrock's turns in its role order), not the page's own view.  The page
says "accepted" for them only beside a download of that very view: downloaded through the browser,
`check --provider P` passes it; the page's own download (planned with no target) is refused by both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _app_server import CHROMIUM, CHROMIUM_ARGS, wait_idle
from cli_inprocess import run
from playwright import sync_api

from integrity import PROVIDERS

SAMPLE = "abort_race.pi-ai.json"


@pytest.fixture()
def page(server: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_context(viewport={"width": 1280, "height": 1600}, accept_downloads=True).new_page()
        tab.set_default_timeout(45_000)
        tab.goto(server + "/")  # the app's own navigation first
        wait_idle(tab)
        yield tab
        browser.close()


def _download(page: Any, label: str, folder: Path) -> Path:
    with page.expect_download() as event:
        page.get_by_role("button", name=label, exact=True).click()
    path = folder / event.value.suggested_filename
    event.value.save_as(path)
    return path


def test_each_providers_download_is_the_view_it_accepts(page: Any, server: str, tmp_path: Path) -> None:
    page.goto(f"{server}/report?sample={SAMPLE}&policy=strict")
    wait_idle(page)
    page.get_by_role("heading", name="Provider verdicts").wait_for()
    own = _download(page, "⬇ Repaired transcript", tmp_path)
    for provider in ("bedrock", "mistral"):
        planned = _download(page, f"⬇ view for {provider}", tmp_path)
        assert planned.name == f"abort_race.pi-ai.repaired-for-{provider}.json"
        assert run("check", "--provider", provider, planned).code == 0, provider  # safe to send, as the page says
        assert run("check", "--provider", provider, own).code == 1, provider  # the page's own view is not theirs
    for provider in PROVIDERS:  # one download per provider, beside its row
        assert page.get_by_role("button", name=f"⬇ view for {provider}", exact=True).count() == 1, provider
    text = page.locator('[data-testid="stText"]').filter(has_text="⬇ Repaired transcript").first.inner_text()
    assert "planned with no target provider" in text and "safe to send" in text
