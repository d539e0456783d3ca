"""Fixtures the browser tests share: a Streamlit server and a headless Chromium, one of each per test module.

Per module, so a module's first test meets a fresh server (the first request a
server sees is a case of its own: see tests/test_e2e_truth.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _app_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with streamlit_server() as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright import sync_api  # never skipped: a missing Playwright or Chromium fails the run

    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
