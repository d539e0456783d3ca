"""Benchmark: every provider's verdict on a large transcript, the round the inspector runs on request.

Usage: python bench/bench_verdicts.py [N ...] [--runs R]   (default: 100000 messages, 3 runs)

Times `judged_by_providers` (every provider, before and after repair, written
requests shared by the providers of one native format) on a transcript from
bench/generate.py, and the same providers one by one without sharing, for the
comparison.  Target (issue 11): every provider on 100,000 messages <= 10 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from generate import messages  # noqa: E402

from integrity import PROVIDERS, analyze, judged_by_providers, load, provider_verdict  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", nargs="*", type=int, default=[100_000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for size in args.sizes:
        data = json.dumps(list(messages(size, seed=7))).encode()
        analysis = analyze(load(data, "generated.json"), "strict", provider="openai-chat")
        shared, alone = [], []
        for _ in range(args.runs):  # alternated
            start = time.perf_counter()
            judged_by_providers(analysis, PROVIDERS)
            shared.append(time.perf_counter() - start)
            start = time.perf_counter()
            for provider in PROVIDERS:
                provider_verdict(analysis, provider)
            alone.append(time.perf_counter() - start)
        best = statistics.median(shared)
        print(f"{size:,} messages, {len(PROVIDERS)} providers: {best:.2f} s median (runs: "
              f"{', '.join(f'{t:.2f}' for t in shared)}); without shared requests "
              f"{statistics.median(alone):.2f} s; target <= 10 s: {'OK' if best <= 10 else 'MISSED'}", flush=True)


if __name__ == "__main__":
    main()
