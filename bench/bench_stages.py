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
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import time
from pathlib import Path

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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
