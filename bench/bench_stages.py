"""Where a strict `repair` of a pi-ai file spends its time, stage by stage, in one process.

Usage: python bench/bench_stages.py [--messages 1000000] [--runs 3] [--policy strict]

The stages are the CLI's fast path (integrity/_bulk/fast_read.py) called one after the
other: the first pass (the file read a block at a time, each block's messages decoded
into msgspec structs fed to LightBuilder, while a forked child runs the checks the
general reader would refuse on: numbers, UTF-8, nesting, and finds the plain blocks),
the plan, the cheap diagnosis behind `check`, and the second pass writing the view to
/dev/null.  The child's checks are also timed alone, in this process, to show what the
first pass no longer waits for.  The cyclic GC is off, as the CLI has it.  Each figure
is the best of --runs; the input is the one bench_cli.py generates (bench/data/broken_N.json).

With --fleet FILESxMESSAGES (and --provider P), the files bench_cli.py --fleet generates are checked one after
the other in this process, as a `check` worker checks them (integrity.cli's per-file work, each file's lines
made), and each stage's time is summed over the files: reading, planning, the verdicts judged from the light
view, the diagnosis, and the rest (the CLI's lines, the imports, freeing each file).  Each stage is timed around
its call, which adds a little to the total; the total is also timed alone, best of --runs.
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from integrity._bulk import fast_read as fast  # noqa: E402
from integrity._bulk.blocks import FileSource  # noqa: E402
from integrity._diagnosis import diagnose  # noqa: E402
from integrity.loading import open_source  # noqa: E402
from integrity.repair.policies import PLANNERS  # noqa: E402


def once(data_path: Path, policy: str) -> dict[str, float]:
    """One pass over the stages: seconds per stage."""
    times: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        times[name] = now - clock
        clock = now

    read = fast.read_fast_file(FileSource(str(data_path), *open_source(str(data_path))), clean=policy == "strict",
                               writes=True)
    assert read is not None, "not a file the fast path reads"
    lap("first pass (light view)")
    plan = PLANNERS[policy](read.light, None, True)
    lap("plan")
    diagnose(read.light, plan, str(data_path))
    lap("diagnosis (check)")
    with open("/dev/null", "wb") as out:
        fast.write_fast(read, plan, lambda: 0, out)
    lap("second pass (repair)")
    source = FileSource(str(data_path), *open_source(str(data_path)))
    bounds = fast._array_body(source, 0, source.size)
    assert bounds is not None
    clock = time.perf_counter()
    fast._check_beside(source, "array", *bounds, True)
    lap("(the child's checks, alone)")
    source.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--policy", default="strict", choices=sorted(PLANNERS))
    parser.add_argument("--fleet", metavar="FILESxMESSAGES", help="the fleet's files, one process, by stage")
    parser.add_argument("--provider", help="--fleet: check --provider P")
    args = parser.parse_args()
    if args.fleet:
        fleet_stages(args.fleet, args.provider, args.runs)
        return
    source = HERE / "data" / f"broken_{args.messages}.json"
    if not source.exists():
        source.parent.mkdir(exist_ok=True)
        print(f"generating {source} ...", flush=True)
        subprocess.run([sys.executable, str(HERE / "generate.py"), str(args.messages), str(source)], check=True)
    gc.disable()
    best: dict[str, float] = {}
    for _ in range(args.runs):
        for stage, seconds in once(source, args.policy).items():
            best[stage] = min(best.get(stage, seconds), seconds)
    print(f"{source.name}, policy {args.policy}, best of {args.runs}:")
    for stage, seconds in best.items():
        print(f"  {stage:<30} {seconds:6.3f} s")
    print(f"  {'sum (without the child)':<30} {sum(v for k, v in best.items() if not k.startswith('(')):6.3f} s")


def fleet_stages(shape: str, provider: str | None, runs: int) -> None:
    """The fleet's files checked in this process (integrity.cli's worker step for each), best of `runs`, then
    the same with each stage timed around its call."""
    from integrity import cli, pipeline
    from integrity.repair import policies

    files, messages = (int(part) for part in shape.split("x"))
    folder = HERE / "data" / f"fleet_{files}x{messages}"
    if not folder.is_dir() or len(list(folder.iterdir())) < files:
        subprocess.run([sys.executable, str(HERE / "bench_cli.py"), "--fleet", shape, "--only", "--runs", "1"],
                       check=True, stdout=subprocess.DEVNULL)
    paths = sorted(str(path) for path in folder.iterdir())[:files]
    args = cli.build_parser().parse_args(["check", *paths, *(["--provider", provider] if provider else [])])
    gc.disable()

    def run() -> float:
        start = time.perf_counter()
        for path in paths:
            cli._check_file_in_worker(path, args)
        return time.perf_counter() - start

    run()  # (imports, first calls)
    alone = min(run() for _ in range(runs))
    spent: dict[str, float] = {}

    def timed(label: str, real: Any) -> Any:
        def call(*given: Any, **named: Any) -> Any:
            start = time.perf_counter()
            try:
                return real(*given, **named)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - start
        return call

    import integrity.skeleton_verdicts as on_skeletons

    cli._load_file = timed("reading", cli._load_file)
    pipeline._report = timed("diagnosis", pipeline._report)
    pipeline.with_recorded = timed("rated by the target's verdict", pipeline.with_recorded)
    on_skeletons.sparse_letters = timed("the letters (sparse_letters)", on_skeletons.sparse_letters)
    on_skeletons.sparse_verdicts = timed("verdicts from the light view", on_skeletons.sparse_verdicts)
    for name, planner in list(policies.PLANNERS.items()):
        policies.PLANNERS[name] = timed("planning", planner)
    best: dict[str, float] = {}
    for _ in range(runs):
        spent.clear()
        total = run()
        if not best or total < best["total"]:
            best = {**spent, "total": total}
    print(f"{files:,} files of {messages} messages, check{' --provider ' + provider if provider else ''}, "
          f"one process, best of {runs}:")
    print(f"  {'total, untimed':<32} {alone:6.3f} s")
    for stage, seconds in sorted(best.items(), key=lambda item: -item[1]):
        if stage != "total":
            print(f"  {stage:<32} {seconds:6.3f} s")
    rest = best["total"] - sum(seconds for stage, seconds in best.items() if stage != "total")
    print(f"  {'the rest (lines, freeing, ...)':<32} {rest:6.3f} s")
    print(f"  {'total, each stage timed':<32} {best['total']:6.3f} s")


if __name__ == "__main__":
    main()
