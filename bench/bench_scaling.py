"""Scaling benchmark: is every stage linear in the number of messages?

Usage: python bench/bench_scaling.py [--sizes 5000 20000 80000] [--repeat 3]

For each stage (the light view, both planners, materializing the view, the report,
the analysis facade, and every provider's validator on the durable transcript, on
the repaired view and on one turn of as many parallel calls, and the analysis on a
few shapes that once grew with the square of the size, with call ids and without) it times the stage at
each size (best of --repeat) and prints the time per message.  Between consecutive
sizes the per-message time may grow by at most 1.3x; a stage that grows faster is
flagged, and the command exits 1 if any is.
Run it on a quiet machine: other processes on the same cores show up as growth.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from generate import IDLESS  # noqa: E402
from generate import messages as generated  # noqa: E402

from integrity import PROVIDERS, analyze, load_all, validate  # noqa: E402
from integrity.loading import Transcript  # noqa: E402
from integrity.repair.entries import materialize  # noqa: E402
from integrity.repair.plan import plan_openmaic  # noqa: E402
from integrity.repair.strict import plan_strict  # noqa: E402
from integrity.repair.views import light_transcript  # noqa: E402
from integrity.report import build_report  # noqa: E402

GROWTH_LIMIT = 1.3


def stages(data: list[Any]) -> dict[str, Callable[[], Any]]:
    """The stages to time, each a closure over one transcript of the size being measured."""
    light = light_transcript(data)
    strict = plan_strict(light)
    view, stamps = materialize(strict.order or range(len(data)), data, strict.placeholder, lambda: 0)
    out: dict[str, Callable[[], Any]] = {
        "light view": lambda: light_transcript(data),
        "plan openmaic": lambda: plan_openmaic(light),
        "plan strict": lambda: plan_strict(light),
        "materialize": lambda: materialize(strict.order or range(len(data)), data, strict.placeholder, lambda: 0),
        "report": lambda: build_report(light, strict, stamps),
        "analyze": lambda: analyze(Transcript(data, "bench"), "strict", lambda: 0),
    }
    wide = wide_turn(len(data))
    reversed_wide = [*wide[:2], *reversed(wide[2:])]
    noted = answered_between_notes(len(data))
    out["analyze openmaic (one wide turn, results reversed)"] = \
        lambda: analyze(Transcript(reversed_wide, "bench"), "openmaic", lambda: 0)
    out["analyze strict for bedrock (results between user notes)"] = \
        lambda: analyze(Transcript(noted, "bench"), "strict", lambda: 0, provider="bedrock")
    reused = reused_id_turns(len(data))
    out["analyze strict (every turn reuses one call id)"] = lambda: analyze(Transcript(reused, "bench"), "strict",
                                                                             lambda: 0)
    for shape, make in IDLESS.items():
        shaped = make(len(data))
        out[f"analyze strict (no ids: {shape})"] = lambda m=shaped: analyze(Transcript(m, "bench"), "strict", lambda: 0)
    session = pi_session(data)
    out["read a pi session tree (load_all)"] = lambda: load_all(session, "bench.pi-session.jsonl")
    out["validate anthropic (one call answered again and again)"] = \
        lambda: validate(wide[:2] + [wide[2]] * (len(data) - 2), "anthropic", history=True)
    for provider in PROVIDERS:
        out[f"validate {provider} (durable)"] = lambda p=provider: validate(data, p, history=True)
        out[f"validate {provider} (view)"] = lambda p=provider: validate(view, p, history=True)
        out[f"validate {provider} (one wide turn)"] = lambda p=provider: validate(wide, p, history=True)
    return out


def pi_session(data: list[Any]) -> bytes:
    """The messages as a pi session file (version 3: a tree of entries, each naming its parent), as pi writes
    one: reading its tree once grew with the square of its entries (a 200,000-entry session took minutes)."""
    entries: list[Any] = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z",
                           "cwd": "/w"}]
    parent = None
    for number, message in enumerate(data):
        entries.append({"type": "message", "id": f"{number:08x}", "parentId": parent,
                        "timestamp": "2026-01-01T00:00:00Z", "message": message})
        parent = f"{number:08x}"
    return "".join(json.dumps(entry) + "\n" for entry in entries).encode()


def reused_id_turns(size: int) -> list[dict[str, Any]]:
    """size // 2 turns, each one call with the same id ("c1") and its result, as some runtimes number calls."""
    turn = wide_turn(3)[1:]
    calls = [{**turn[0], "content": [{**turn[0]["content"][0], "id": "c1"}]}, {**turn[1], "toolCallId": "c1"}]
    return [message for _ in range(size // 2) for message in calls]


def answered_between_notes(size: int) -> list[dict[str, Any]]:
    """One frame of parallel calls whose results each come with a user note after them: for providers that
    merge consecutive user-role messages (Bedrock), one run of them all."""
    wide = wide_turn(size // 2 + 1)
    note = {"role": "user", "content": [{"type": "text", "text": "noted"}], "timestamp": 4}
    return [*wide[:2], *(message for result in wide[2:] for message in (result, note))]


def wide_turn(size: int) -> list[dict[str, Any]]:
    """One frame issuing size - 2 parallel calls, then their results: every provider that groups results
    (Anthropic, Bedrock and Gemini put them in one message) sees one message holding all of them."""
    calls = size - 2
    return [{"role": "user", "content": [{"type": "text", "text": "go"}], "timestamp": 1},
            {"role": "assistant", "stopReason": "toolUse", "timestamp": 2,
             "content": [{"type": "toolCall", "id": f"c{i}", "name": "grep", "arguments": {}} for i in range(calls)]},
            *({"role": "toolResult", "toolCallId": f"c{i}", "toolName": "grep", "isError": False, "timestamp": 3,
               "content": [{"type": "text", "text": "ok"}]} for i in range(calls))]


def best(run: Callable[[], Any], repeat: int) -> float:
    """Best time of `repeat` runs with the cyclic GC paused: its pauses grow with every live object
    (the other sizes' data included), which would hide the stage's own growth."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_000, 20_000, 80_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    per_message: dict[str, list[float]] = {}
    for size in args.sizes:
        data = list(generated(size))
        for name, run in stages(data).items():
            per_message.setdefault(name, []).append(best(run, args.repeat) / size)
    flagged = 0
    header = "".join(f"{size:>12,}" for size in args.sizes)
    print(f"{'stage (µs per message)':40}{header}   worst growth")
    for name, values in per_message.items():
        growth = max((later / earlier for earlier, later in zip(values, values[1:], strict=False)), default=1.0)
        flag = "FLAG" if growth > GROWTH_LIMIT else "ok"
        flagged += flag == "FLAG"
        cells = "".join(f"{value * 1e6:>12.2f}" for value in values)
        print(f"{name:40}{cells}   {growth:5.2f}x {flag}")
    print(f"{flagged} stage(s) grow faster than {GROWTH_LIMIT}x per message between sizes")
    return 1 if flagged else 0


if __name__ == "__main__":
    raise SystemExit(main())
