"""Start `streamlit run app.py` on a free port and a headless Chromium, for the e2e tests and the benchmark.

The server is a child process we own: it is stopped by its pid when the fixture
ends, never by name.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(timeout: float = 60.0) -> Iterator[str]:
    """Run the app headless; yield its base URL once /_stcore/health answers; stop it afterwards."""
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1",
               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    # Its standard error goes to a file, not a pipe: a pipe nobody reads while the tests run stops the
    # server at its first write past the pipe's 64 KiB.
    with tempfile.TemporaryFile() as errors:  # closed however the run ends
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=errors,
                                   start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                if process.poll() is not None:
                    errors.seek(0)
                    raise RuntimeError(f"streamlit exited early: {errors.read().decode(errors='replace')[-2000:]}")
                try:
                    with urllib.request.urlopen(base + "/_stcore/health", timeout=2) as answer:
                        if answer.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("streamlit did not become healthy in time")
                time.sleep(0.3)
            yield base
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def settled_box(locator, tries: int = 50) -> dict:
    """The element's bounding box once it has stopped moving (two reads 100 ms apart agree).

    A click aimed at a grid cell is computed from this box: code blocks and captions above
    the grid still drawing after the run ends (slower when the machine is busy) would move
    the grid after a single read, and the click would land on another row.
    """
    box = locator.bounding_box()
    for _ in range(tries):
        locator.page.wait_for_timeout(100)
        again = locator.bounding_box()
        if again == box:
            return box
        box = again
    return box


def wait_idle(page, timeout: float = 30_000) -> None:
    """Wait until Streamlit has finished the current run (no running indicator, app rendered)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_function(
        """() => { const w = document.querySelector('[data-testid="stStatusWidget"]');
                   return !w || !w.innerText.match(/Running|Connecting/); }""", timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_function(
        """() => { const w = document.querySelector('[data-testid="stStatusWidget"]');
                   return !w || !w.innerText.match(/Running|Connecting/); }""", timeout=timeout)


def open_expander(page, label: str, ready, tries: int = 3) -> None:
    """Open the expander `label` and wait for ready(timeout_ms) to see its content: a rerun still drawing when
    the click lands may close it again (a loaded machine), so it is opened again, up to `tries` times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    panel = page.locator("details", has_text=label).first
    for attempt in range(tries):
        if panel.get_attribute("open") is None:
            page.get_by_text(label).click()
        try:
            ready(15_000)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
            wait_idle(page)
