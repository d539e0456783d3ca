"""Fleet triage throughput on a local Dask cluster, and what 10 million sessions would take.

Usage: python bench/bench_triage.py [--files 2000] [--messages 275] [--workers 2] [--providers all|none|NAME...]

Generates a fleet of small sessions under bench/data/fleet_<files>x<messages>/
(never committed), measures the per-file cost in one process (read, parse, plan,
report, provider verdicts), then runs `run_triage` on a LocalCluster with
--workers processes, and prints files/s, messages/s and an estimate, from the
measured per-file cost, of triaging 10 million sessions on N Dask workers.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from generate import messages as generated  # noqa: E402

from integrity import PROVIDERS  # noqa: E402
from integrity.triage import run_triage, triage_file  # noqa: E402


def fleet(files: int, size: int) -> Path:
    folder = ROOT / "bench" / "data" / f"fleet_{files}x{size}"
    if not folder.exists() or len(list(folder.iterdir())) != files:
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(files):
            (folder / f"session-{n:06d}.json").write_text(json.dumps(list(generated(size, seed=n))))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=275)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--providers", nargs="+", default=["all"])
    parser.add_argument("--sample", type=int, default=200, help="files timed in one process for the per-file cost")
    args = parser.parse_args()
    providers = list(PROVIDERS) if args.providers == ["all"] else [] if args.providers == ["none"] else args.providers
    folder = fleet(args.files, args.messages)
    paths = sorted(str(p) for p in folder.iterdir())

    start = time.perf_counter()
    for path in paths[: args.sample]:
        triage_file(path, providers, "strict")
    per_file = (time.perf_counter() - start) / min(args.sample, len(paths))

    with tempfile.TemporaryDirectory() as out:
        result = run_triage([str(folder)], str(Path(out) / "fleet.parquet"), providers=providers,
                            workers=args.workers, progress=None)
    messages = args.files * args.messages
    print(f"fleet: {args.files:,} files x {args.messages} messages ({messages:,} messages), "
          f"providers: {', '.join(providers) or 'none'}")
    print(f"one process: {per_file * 1000:.2f} ms per file ({args.messages / per_file:,.0f} messages/s)")
    print(f"triage on a LocalCluster of {args.workers} workers: {result.seconds:.1f} s, "
          f"{args.files / result.seconds:,.0f} files/s, {messages / result.seconds:,.0f} messages/s "
          f"(cluster start-up included)")
    efficiency = (per_file * args.files / args.workers) / result.seconds
    print(f"parallel efficiency vs the one-process cost: {efficiency:.0%}")
    for workers in (8, 64, 512):
        hours = 10_000_000 * per_file / workers / max(efficiency, 0.1) / 3600
        print(f"estimate: 10,000,000 sessions of this size on {workers} workers: {hours:,.1f} h")


if __name__ == "__main__":
    main()
