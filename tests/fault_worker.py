"""A worker process for the fault tests: runs one session through the real store.

Why a separate script: the fault tests need real OS processes (SIGKILL, two
workers racing for one lease) against one real SQLite file.  The worker writes
a JSON report at the end (status, whether on_fence_lost fired, what it
appended, every model view it was given); a killed worker writes none, which
is the point.  SIGTERM asks the runtime for a clean shutdown.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from integrity.lab import (
    CallSpec,
    Runtime,
    ScriptedModel,
    ThreadToolExecutor,
    Tool,
    Turn,
    open_store,
)


def script(turns: int, calls: int) -> list[Turn]:
    """`turns` turns of `calls` parallel calls (the last call of each turn is the slow one), then an answer."""
    specs = tuple(CallSpec("fast") for _ in range(calls - 1)) + (CallSpec("slow"),)
    return [Turn(specs) for _ in range(turns)] + [Turn(text="finished")]


def append_loop(args: argparse.Namespace) -> int:
    """Append big entries as fast as possible until killed (for the torn-write test)."""
    store = open_store(args.db)
    lease = store.claim(args.session, args.owner, 600_000, steal=True)
    filler = "x" * args.entry_bytes
    for number in range(args.count):
        store.append(lease, {"role": "user", "content": filler, "n": number, "timestamp": number})
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--session", required=True)
    parser.add_argument("--owner", required=True)
    parser.add_argument("--out")
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--fast-ms", type=int, default=20)
    parser.add_argument("--slow-ms", type=int, default=200)
    parser.add_argument("--ttl-ms", type=int, default=5_000)
    parser.add_argument("--heartbeat-ms", type=int, default=-1)
    parser.add_argument("--steal", action="store_true")
    parser.add_argument("--claim-wait-ms", type=int, default=0)
    parser.add_argument("--append-loop", action="store_true")
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--entry-bytes", type=int, default=20_000)
    args = parser.parse_args()
    if args.append_loop:
        return append_loop(args)

    store = open_store(args.db)
    tools = {"fast": Tool("fast", args.fast_ms), "slow": Tool("slow", args.slow_ms)}
    fence_calls: list[int] = []
    model = ScriptedModel(script(args.turns, args.calls))
    runtime = Runtime(
        store, args.session, model, tools, owner=args.owner, executor=ThreadToolExecutor(),
        lease_ttl_ms=args.ttl_ms, heartbeat_ms=args.heartbeat_ms, steal=args.steal,
        claim_wait_ms=args.claim_wait_ms, on_fence_lost=lambda: fence_calls.append(1),
    )
    signal.signal(signal.SIGTERM, lambda *_: runtime.shutdown("SIGTERM"))
    status = runtime.run()
    loaded = next((event.data["entries"] for event in runtime.events if event.kind == "claimed"), 0)
    seqs = [event.data["seq"] for event in runtime.events if event.kind == "appended"]
    report = {
        "status": status,
        "attempt": runtime.lease.attempt if runtime.lease else None,
        "fence_lost_calls": len(fence_calls),
        "appended": [[seq, message] for seq, message in zip(seqs, runtime.history[loaded:], strict=False)],
        "contexts": model.contexts,
        "events": [[event.kind, event.text] for event in runtime.events],
    }
    if args.out:
        with open(args.out + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(report, handle)
        os.replace(args.out + ".tmp", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
