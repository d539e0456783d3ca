"""Browser benchmark: upload a generated transcript and time until the inspector is fully rendered.

Usage: python bench/bench_inspector.py [N ...] [--runs R] [--policy P]
       (defaults: 10000 100000, 2 runs, the engine's default policy)

Inputs come from bench/generate.py, are written to a temporary directory and
deleted afterwards (never committed).  The clock starts when the file is handed
to the upload widget and stops when the run has finished and the grids (the
paged side-by-side table, and the overview of all rows up to 3,000 rows) show cells.  Targets
(issue 11): 10,000 messages <= 1.0 s; 100,000 messages <= 5 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

# Imported after the sys.path set-up above: these modules live in tests/ and bench/.
from _app_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server, wait_idle  # noqa: E402
from generate import messages  # noqa: E402

DONE = """count => {
  const w = document.querySelector('[data-testid="stStatusWidget"]');
  if (w && /Running|Connecting/.test(w.innerText)) return false;
  if (!document.body.innerText.includes('Overview: all ' + count + ' rows')) return false;
  const grids = Array.from(document.querySelectorAll('[data-testid="stDataFrame"]'));
  const drawn = grids.filter(g => g.querySelector('[data-testid^="glide-cell-"]')).length;
  // the side-by-side table, and the overview grid where there is one (up to 3,000 rows)
  return drawn >= (document.body.innerText.includes('the paged table above is the overview') ? 1 : 2);
}"""
FIRST = "() => document.body.innerText.includes('Durable transcript')"


def one_run(browser, base: str, path: Path, rows: int, policy: str) -> tuple[float, float]:
    """(seconds to the first table, seconds to fully rendered) for one upload in a fresh tab."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{base}/?policy={policy}")
        wait_idle(page)
        page.get_by_text("Upload", exact=True).click()
        wait_idle(page)
        start = time.perf_counter()
        page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(str(path))
        page.wait_for_function(FIRST, polling=50)
        first = time.perf_counter() - start
        page.wait_for_function(DONE, arg=f"{rows:,}", polling=50)
        return first, time.perf_counter() - start
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--policy", default=None)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from inspector.rows import aligned_rows
    from integrity.analysis import DEFAULT_POLICY, analyze, load

    policy = args.policy or DEFAULT_POLICY
    with tempfile.TemporaryDirectory() as scratch, streamlit_server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for size in args.sizes:
                timings = []
                for run in range(args.runs):  # a new seed per run: different bytes, so no cache hit
                    path = Path(scratch) / f"generated_{size}_{run}.json"
                    path.write_text(json.dumps(list(messages(size, seed=100 + run))))
                    rows = len(aligned_rows(analyze(load(path.read_bytes(), path.name), policy)))
                    timings.append(one_run(browser, base, path, rows, policy))
                    path.unlink()
                firsts = [t[0] for t in timings]
                fulls = [t[1] for t in timings]
                target = 1.0 if size <= 10_000 else 5.0
                print(f"{size:>7,} messages ({rows:,} rows, policy {policy}, cold cache every run): "
                      f"first table {statistics.median(firsts):.2f} s, fully rendered median "
                      f"{statistics.median(fulls):.2f} s (runs: {', '.join(f'{f:.2f}' for f in fulls)}) "
                      f"target <= {target:.1f} s: {'OK' if statistics.median(fulls) <= target else 'MISSED'}",
                      flush=True)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
