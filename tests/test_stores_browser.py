"""The inspector opens a runtime's session store by URL (headless Chromium against `streamlit run app.py`).

The store is a LangGraph SqliteSaver database written by `create_agent` itself, with a thread broken by
a tool that raised after its call was checkpointed; the page lists its threads with `check`'s verdicts
and opens the picked one with the verdict `integrity check URL?thread=ID` gives it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _app_server import wait_idle
from test_guard_stores import digest, langgraph_db  # noqa: F401 - the fixture

from integrity.cli import main


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's data folder: the only place the page opens SQLite stores from."""
    return tmp_path_factory.mktemp("data-root")


@pytest.fixture(scope="module")
def server(root: Path) -> Iterator[str]:
    """The app with its data folder set to `root` (INTEGRITY_STORE_ROOT, read by the server process)."""
    from _app_server import streamlit_server

    before = os.environ.get("INTEGRITY_STORE_ROOT")
    os.environ["INTEGRITY_STORE_ROOT"] = str(root)
    try:
        with streamlit_server() as base:
            yield base
    finally:
        if before is None:
            del os.environ["INTEGRITY_STORE_ROOT"]
        else:
            os.environ["INTEGRITY_STORE_ROOT"] = before


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    tab = context.new_page()
    tab.set_default_timeout(45_000)
    yield tab
    context.close()


def check_verdict(url: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    main(["check", "--json", url])
    return str(json.loads(capsys.readouterr().out)["verdict"])


def wait_for_cell(page: Any, text: str) -> None:
    """Wait until some data-grid cell shows exactly this text (glide renders an accessible copy of each cell)."""
    page.wait_for_function(
        """text => Array.from(document.querySelectorAll('[data-testid^="glide-cell-"]'))
                     .some(c => c.innerText === text)""", arg=text)


def open_store(page: Any, server: str, url: str) -> None:
    page.goto(server + "/")
    wait_idle(page)
    page.get_by_text("Session store", exact=True).click()
    field = page.get_by_label("Store URL", exact=True).and_(page.locator("input"))
    field.fill(url)
    field.press("Enter")
    wait_idle(page)


def test_a_store_url_lists_its_threads_and_opens_one_with_checks_verdict(
        page: Any, server: str, root: Path, langgraph_db: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    langgraph_db = Path(shutil.copy(langgraph_db, root / "checkpoints.db"))
    before = digest(langgraph_db)
    url = f"langgraph+sqlite://{langgraph_db}"
    broken, healthy = (check_verdict(f"{url}?thread={name}", capsys) for name in ("broken", "healthy"))
    assert broken != healthy and "healthy" in healthy
    open_store(page, server, url)
    page.get_by_text("2 thread(s) in").wait_for()
    for text in ("thread:broken", "thread:healthy", broken, healthy):  # the list: check's verdict per thread
        wait_for_cell(page, text)
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(has_text="Thread").click()
    page.get_by_role("option", name="thread:broken").click()
    wait_idle(page)
    page.get_by_text(f"{url}?thread=broken · format langchain", exact=False).wait_for()
    headline = page.locator('[data-testid="stCode"]').first.inner_text()
    assert headline.splitlines()[0].endswith(broken), headline  # the verdict line check prints
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(has_text="Thread").click()
    page.get_by_role("option", name="thread:healthy").click()
    wait_idle(page)
    page.get_by_text(f"{url}?thread=healthy · format langchain", exact=False).wait_for()
    assert page.locator('[data-testid="stCode"]').first.inner_text().splitlines()[0].endswith(healthy)
    assert digest(langgraph_db) == before  # the page only reads


def test_a_store_that_cannot_be_read_is_one_error_line(page: Any, server: str, root: Path, tmp_path: Path) -> None:
    (root / "not-a-database.db").write_bytes(b"these bytes are not a SQLite database" * 100)
    open_store(page, server, f"langgraph+sqlite://{root}/not-a-database.db")
    page.get_by_text("Could not read this input").wait_for()
    assert len(page.locator('[data-testid="stCode"]').first.inner_text().strip().splitlines()) == 1
    page.get_by_label("Store URL", exact=True).and_(page.locator("input")).fill("")  # cleared: the samples are back
    page.get_by_label("Store URL", exact=True).and_(page.locator("input")).press("Enter")
    wait_idle(page)
    page.locator('[data-testid="stSidebar"]').get_by_text("Upload", exact=True).wait_for()  # the pickers are back
    assert "Could not read this input" not in page.inner_text("body")


def test_a_store_outside_the_data_folder_or_a_remote_database_is_refused_alike(
        page: Any, server: str, tmp_path: Path) -> None:
    """Anyone who can reach the page can type a URL: a database outside the data folder is refused with the
    same words whether or not it exists, and a Postgres host other than this machine is refused."""
    real = tmp_path / "elsewhere.db"
    real.write_bytes(b"")
    said = []
    for url in (f"langgraph+sqlite://{real}", f"langgraph+sqlite://{tmp_path}/missing.db"):
        open_store(page, server, url)
        page.get_by_text("data folder only").first.wait_for()
        said.append(page.locator('[data-testid="stCode"]').first.inner_text().replace(url, "URL"))
    assert said[0] == said[1]
    open_store(page, server, "langgraph+postgresql://reader:secret@db.example.com/checkpoints")
    page.get_by_text("on this machine only").first.wait_for()
    assert "secret" not in page.inner_text("body")
