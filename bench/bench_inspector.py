"""Browser benchmark: upload a generated transcript, then time every interaction a reviewer makes.

Usage: python bench/bench_inspector.py [N ...] [--runs R] [--policy P] [--no-interactions] [--format FORMAT]
       (defaults: 10000 100000, 2 runs, the engine's default policy, pi-ai files)

--format FORMAT uploads the same transcripts written in a provider's request format (openai-chat,
openai-responses, anthropic, gemini, bedrock: a file the general reader reads, judged by the provider its
format implies) instead of the pi-ai file the fast path reads.

Inputs come from bench/generate.py, are written to a temporary directory and
deleted afterwards (never committed).  Each figure is printed with its target
(issues 28 and 29) and OK or MISSED beside it.

Upload (a fresh tab, cold cache every run): the clock starts when the file is
handed to the upload widget.  "first rows" stops when the side-by-side grid has
painted rows and the verdict has replaced "Checking what ... says" (targets:
10,000 messages <= 1.0 s, 100,000 <= 5 s); "fully rendered" when the run has
finished, the page shows its last section and every grid has painted its rows
(their canvas has text below the header row).  The grid's accessibility mirror
(the hidden `glide-cell-*` table) is not waited for: the grid library builds it
on a 200 ms debounce restarted by every change of its props
(`useDebouncedMemo(..., 200)` in glide-data-grid's data-grid.tsx), on a timer
rather than by work.

Interactions (after the first run's upload, in the same tab): the clock starts
at the key press, click or typed Enter and stops when the run it started has
finished (the app's `data-test-script-state` went to "running" and back to
"notRunning", recorded by a MutationObserver with the page's own clock) and what
the action asked for is on screen (the detail panel names the new row, the match
count changed, the page names the new policy).  Targets: every key or click
<= 0.5 s, search <= 0.5 s, a policy switch <= 2 s, the table of all eight
providers <= 10 s at 100,000 messages; the time the every-provider button
promises is printed next to the time it took.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

# Imported after the sys.path set-up above: these modules live in tests/ and bench/.
from _app_server import CHROMIUM, CHROMIUM_ARGS, settled_box, streamlit_server, wait_idle  # noqa: E402
from generate import messages  # noqa: E402

NATIVE_FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")

PAINTED = """grid => {
  // The grid's own canvas (data-grid-canvas) has dark text pixels below its 35 px header row.
  const canvas = grid.querySelector('canvas[data-testid="data-grid-canvas"]');
  if (!canvas || canvas.width < 50 || canvas.height < 60) return false;
  const pixels = canvas.getContext('2d').getImageData(0, 40, Math.min(canvas.width, 900), 30).data;
  let ink = 0;
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && pixels[i] < 160 && pixels[i + 1] < 160) ink++;
  return ink > 40;
}"""
DONE = """count => {
  const w = document.querySelector('[data-testid="stStatusWidget"]');
  if (w && /Running|Connecting/.test(w.innerText)) return false;
  if (!document.body.innerText.includes('Overview: all ' + count + ' rows')) return false;
  const painted = PAINTED;
  const grids = Array.from(document.querySelectorAll('[data-testid="stDataFrame"]'));
  const drawn = grids.filter(painted).length;
  // the side-by-side table, and the overview grid where there is one (up to 3,000 rows)
  return drawn >= (document.body.innerText.includes('the paged table above is the overview') ? 1 : 2);
}""".replace("PAINTED", PAINTED)
FIRST = """() => {
  const text = document.body.innerText;
  if (!text.includes('Durable transcript ↔ repaired view') || /Checking what .* says…/.test(text)) return false;
  const grid = document.querySelector('[data-testid="stDataFrame"]');
  return !!grid && (PAINTED)(grid);
}""".replace("PAINTED", PAINTED)
RUNS = """() => {  // every change of the app's script state, with the page's clock
  window.__runs = [];
  new MutationObserver(changes => {
    // the state it left and the state now: a run that starts and ends within one batch of records still
    // shows as having run (its first record left 'running' or its second left it)
    for (const change of changes) window.__runs.push([change.oldValue,
      change.target.getAttribute('data-test-script-state'), performance.now()]);
  }).observe(document, {attributes: true, attributeOldValue: true, subtree: true,
                        attributeFilter: ['data-test-script-state']});
}"""
FINISHED = """([from, ready]) => {
  const runs = (window.__runs || []).slice(from);
  const app = document.querySelector('[data-testid="stApp"]');
  return runs.some(r => r[0] === 'running' || r[1] === 'running') && app
    && app.getAttribute('data-test-script-state') === 'notRunning' && eval(ready)();
}"""
SELECTED = r"""() => {  // the first line of the detail panel's code block (where the selected message is, its kind)
  const heading = Array.from(document.querySelectorAll('h3')).find(e => e.innerText.startsWith('Selected message'));
  if (!heading) return null;
  const code = Array.from(document.querySelectorAll('[data-testid="stCode"]'))
    .find(e => heading.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING);
  return code ? code.innerText.split('\n')[0].slice(0, 60) : null;
}"""
MATCHES = r"""() => { const m = document.body.innerText.match(/([\d,]+) of ([\d,]+) rows match/);
  return m ? m[1] : null; }"""
SPAN = """from => {  // from the first run's start to the last run's end after `from`, in ms (the server's share)
  const runs = window.__runs.slice(from);
  const start = runs.find(r => r[1] === 'running' || r[0] === 'running');
  return start ? runs[runs.length - 1][2] - start[2] : 0;
}"""
RAN = [0.0]  # the last interaction's span of runs, in seconds
KEY_TARGET, SEARCH_TARGET, POLICY_TARGET, EVERY_TARGET = 0.5, 0.5, 2.0, 10.0


def verdict(seconds: float, target: float) -> str:
    return f"{seconds:6.2f} s  target <= {target:.1f} s  {'OK' if seconds <= target else 'MISSED'}"


def upload(page: Any, path: Path, rows: int) -> tuple[float, float]:
    """Seconds from handing the file to the uploader to the first rows with the verdict, and to fully rendered."""
    page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(str(path))
    start = time.perf_counter()
    page.wait_for_function(FIRST, polling="raf")
    first = time.perf_counter() - start
    page.wait_for_function(DONE, arg=f"{rows:,}", polling=50)
    return first, time.perf_counter() - start


def open_page(browser: Any, base: str, policy: str) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(180_000)
    page.add_init_script(f"({RUNS})()")
    page.goto(f"{base}/?policy={policy}&view=table")
    wait_idle(page)
    page.get_by_text("Upload", exact=True).click()
    wait_idle(page)
    return context, page


def timed(page: Any, action: Callable[[], Any], ready: str = "() => true") -> float:
    """Seconds from `action` to the end of the run it started, with `ready` true on the page.

    Waits 300 ms first (not counted): a click the very moment a run ends can land on a button the browser
    is about to replace, and is lost (no reviewer clicks that fast).
    """
    page.wait_for_timeout(300)
    mark = page.evaluate("window.__runs.length")
    start = time.perf_counter()
    action()
    page.wait_for_function(FINISHED, arg=[mark, ready], polling="raf", timeout=120_000)
    seconds = time.perf_counter() - start
    RAN[0] = page.evaluate(SPAN, mark) / 1000
    return seconds


def changed(script: str, before: Any) -> str:
    return f"() => {{ const now = ({script})(); return now !== null && now !== {json.dumps(before)}; }}"


def interactions(page: Any, size: int, policy: str, other_policy: str) -> list[tuple[str, float, float, str]]:
    """Each interaction once (keys several times), printed as measured: (name, seconds, target, note)."""
    measured: list[tuple[str, float, float, str]] = []

    def note(name: str, seconds: float, goal: float, said: str = "") -> None:
        said = "; ".join(filter(None, (said, f"the app ran {RAN[0]:.2f} s of it")))
        measured.append((name, seconds, goal, said))
        print(f"  {name:<42}{verdict(seconds, goal)}" + (f"  ({said})" if said else ""), flush=True)

    def key(name: str, letter: str) -> None:
        before = page.evaluate(SELECTED)
        page.evaluate("document.activeElement && document.activeElement.blur()")  # keys to the page, not a box
        seconds = timed(page, lambda: page.keyboard.press(letter), changed(SELECTED, before))
        note(name, seconds, KEY_TARGET, f"{page.evaluate(SELECTED)}")

    for name, letter in (("key N (next problem)", "n"), ("key N again", "n"), ("key P (previous problem)", "p"),
                         ("key J (next row)", "j"), ("key J again", "j"), ("key K (previous row)", "k")):
        key(name, letter)

    before = page.evaluate(SELECTED)
    seconds = timed(page, lambda: page.get_by_role("button", name="Problem ▶").click(), changed(SELECTED, before))
    note("click Problem ▶", seconds, KEY_TARGET, f"{page.evaluate(SELECTED)}")

    before = page.evaluate(SELECTED)
    seconds = timed(page, lambda: page.get_by_role("button", name="Row ▼").click(), changed(SELECTED, before))
    note("click Row ▼", seconds, KEY_TARGET, f"{page.evaluate(SELECTED)}")

    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()
    box = settled_box(grid)
    before = page.evaluate(SELECTED)
    seconds = timed(page, lambda: page.mouse.click(box["x"] + 300, box["y"] + 35 * 3 + 17))
    note("click a row in the table", seconds, KEY_TARGET,
                     f"{page.evaluate(SELECTED)}")

    pager = page.get_by_label(re.compile(r"^Page \(of [\d,]+\)$"))
    step_up = page.locator('[data-testid="stNumberInput"]').filter(has=pager).get_by_test_id("stNumberInputStepUp")
    seconds = timed(page, step_up.click)
    note("next page (+)", seconds, KEY_TARGET, "")

    def typed(widget: Any, text: str) -> Callable[[], None]:
        def act() -> None:
            widget.fill(text)
            widget.press("Enter")
        return act

    pages = int(re.sub(r"\D", "", pager.get_attribute("max") or "1") or 1)
    seconds = timed(page, typed(pager, str(max(1, pages // 2))))
    note("type a page number", seconds, KEY_TARGET, f"page {max(1, pages // 2)} of {pages}")

    search = page.get_by_label("Search text or call id")
    for needle in ("call_00000777", "read_file", "interrupted"):
        before = page.evaluate(MATCHES)
        seconds = timed(page, typed(search, needle), changed(MATCHES, before))
        note(f"search '{needle}'", seconds, SEARCH_TARGET, f"{page.evaluate(MATCHES)} rows match")
    before = page.evaluate(MATCHES)
    seconds = timed(page, typed(search, ""), changed(MATCHES, before))
    note("clear the search", seconds, SEARCH_TARGET, "")

    def pick_policy(name: str) -> Callable[[], None]:
        def act() -> None:
            page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(
                has_text="Repair policy").click()
            page.get_by_role("option", name=name, exact=True).click()
        return act

    shown = f"() => document.body.innerText.includes('· policy {other_policy}')"
    note(f"policy {policy} -> {other_policy}", timed(page, pick_policy(other_policy), shown),
                     POLICY_TARGET, "new analysis")
    shown = f"() => document.body.innerText.includes('· policy {policy}')"
    note(f"policy {other_policy} -> {policy}", timed(page, pick_policy(policy), shown),
                     POLICY_TARGET, "seen before")

    button = page.get_by_role("button", name=re.compile("^Check what every provider says"))
    if button.count():
        promise = button.first.inner_text()
        every = """() => !Array.from(document.querySelectorAll('button'))
            .some(b => /Check what every provider says|^Cancel$/.test(b.innerText))
            && !document.querySelector('[data-testid="stProgress"]')"""
        seconds = timed(page, button.first.click, every)
        note("every provider's verdict", seconds, EVERY_TARGET,
                         f"the button said: {promise.split('(', 1)[-1].rstrip(')')}")
        # with every verdict on the page, the keys again
        key("key N with every verdict shown", "n")
        key("key J with every verdict shown", "j")
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--policy", default=None)
    parser.add_argument("--no-interactions", action="store_true", help="time the uploads only")
    parser.add_argument("--format", default=None, choices=NATIVE_FORMATS,
                        help="the transcripts written in this provider request format instead of pi-ai")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from inspector.rows import aligned_rows
    from integrity import POLICIES
    from integrity.analysis import DEFAULT_POLICY, analyze, load
    from integrity.formats import read_bytes, write_bytes

    policy = args.policy or DEFAULT_POLICY
    other_policy = next(name for name in POLICIES if name != policy)
    with tempfile.TemporaryDirectory() as scratch, streamlit_server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for size in args.sizes:
                timings = []
                for run in range(args.runs):  # a new seed per run: different bytes, so no cache hit
                    path = Path(scratch) / f"generated_{size}_{run}.json"
                    written = list(messages(size, seed=100 + run))
                    if args.format:  # the same transcript in the provider's own request format
                        written_as = write_bytes(read_bytes(json.dumps(written).encode(), "generated.json"), None,
                                                 args.format)
                        path = path.with_suffix(f".{args.format}.json")
                        path.write_bytes(written_as)
                    else:
                        path.write_text(json.dumps(written))
                    rows = len(aligned_rows(analyze(load(path.read_bytes(), path.name), policy), previews=False))
                    context, page = open_page(browser, base, policy)
                    try:
                        timings.append(upload(page, path, rows))
                        if run == 0 and not args.no_interactions:
                            print(f"{size:>7,} messages, interactions after the first upload:", flush=True)
                            interactions(page, size, policy, other_policy)
                    except Exception:
                        page.screenshot(path=str(Path(tempfile.gettempdir()) / "bench_inspector_failed.png"))
                        raise
                    finally:
                        context.close()
                        path.unlink()
                firsts = [t[0] for t in timings]
                fulls = [t[1] for t in timings]
                target = 1.0 if size <= 10_000 else 5.0
                print(f"{size:>7,} messages ({rows:,} rows, policy {policy}, {args.format or 'pi-ai'} file, "
                      f"cold cache every run, {args.runs} runs)", flush=True)
                print(f"  {'upload to verdict and first rows':<42}{verdict(statistics.median(firsts), target)}"
                      f"  (runs: {', '.join(f'{f:.2f}' for f in firsts)})")
                print(f"  {'upload to fully rendered':<42}{statistics.median(fulls):6.2f} s"
                      f"  (runs: {', '.join(f'{f:.2f}' for f in fulls)})", flush=True)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
