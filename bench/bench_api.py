"""The Python API on parsed dicts, the path a runtime embeds: GC on (the caller's default) vs GC off.

Usage: python bench/bench_api.py [--messages 1000000] [--runs 3]

The engine pauses the cyclic GC inside `repair_orphaned_tool_calls` and
`repair_with_report`, so a caller with the GC on should see about the time of a
caller who turned it off (target: within 1.2x).  The input is bench/data's
generated transcript (made on first use, never committed), parsed once.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import orjson  # noqa: E402
from generate import write  # noqa: E402

from integrity import repair_orphaned_tool_calls, repair_with_report  # noqa: E402


def timed(call: Any, messages: list[Any], gc_on: bool, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        gc.enable() if gc_on else gc.disable()
        start = time.perf_counter()
        call(messages)
        best = min(best, time.perf_counter() - start)
        gc.enable()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--report-messages", type=int, default=100_000,
                        help="size for repair_with_report (its per-message report is the costly part)")
    args = parser.parse_args()
    path = ROOT / "bench" / "data" / f"broken_{args.messages}.json"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write(args.messages, str(path))
    gc.disable()
    messages = orjson.loads(path.read_bytes())
    gc.enable()
    small = messages[: args.report_messages]
    for name, call, data in (
        ("repair_orphaned_tool_calls", lambda m: repair_orphaned_tool_calls(m, lambda: 0), messages),
        ("repair_with_report", lambda m: repair_with_report(m, now=lambda: 0), small),
    ):
        on = timed(call, data, True, args.runs)
        off = timed(call, data, False, args.runs)
        print(f"{name:28} {len(data):>9,} messages: GC on {on:6.2f} s, GC off {off:6.2f} s, ratio {on / off:.2f}")


if __name__ == "__main__":
    main()
