"""In Chromium: a link to the app carrying Markdown or HTML makes no request leave, and shows no link or image.

The links of issue 30 (an image that fetches, a phishing link inside the app's
warning, raw HTML) through every page that quotes a query value.  Every request
the page makes is recorded (page.on("request")): none may go to the attacker's
host; the DOM may hold no <a> or <img> pointing at it; and the value is shown, as
text, so the check is not passing on an empty page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

from _app_server import wait_idle

HOST = "attacker.invalid"
IMAGE = f"![a](http://{HOST}/g)"
PHISH = f"[Your session expired - sign in again](http://{HOST}/login)"
HTML = f"<img src=http://{HOST}/x onerror=alert(1)>"
LINKS = (
    ("/glossary?term=", IMAGE, "The glossary has no entry"),
    ("/glossary?term=", PHISH, "The glossary has no entry"),
    ("/lessons?lesson=", HTML, "There is no lesson"),
    ("/?lesson=", PHISH, "There is no lesson"),
    ("/quiz?seed=", IMAGE, "is not a quiz number"),
    ("/?sample=abort_race.pi-ai.json&msg=", PHISH, "The link asks for message"),
)


def test_hostile_query_values_make_no_request_and_no_link_in_the_browser(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))  # (the app's own URLs carry the payload)
    try:
        for path, payload, said in LINKS:
            page.goto(server + path + quote(payload, safe=""))
            wait_idle(page)
            page.get_by_text(said).first.wait_for(timeout=30_000)
            page.wait_for_timeout(300)
            assert [url for url in requested if urlsplit(url).hostname == HOST] == [], path
            links = page.locator(f'a[href*="{HOST}"], img[src*="{HOST}"], [srcset*="{HOST}"]').count()
            assert links == 0, (path, payload)
            shown = page.locator('[data-testid="stAlert"]').all_inner_texts()
            assert any(payload[:30] in text for text in shown), (path, shown)  # quoted whole, as text
        assert requested
    finally:
        context.close()
