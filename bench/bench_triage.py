"""Fleet triage throughput on a local Dask cluster, and what 10 million sessions would take.

Usage: python bench/bench_triage.py [--files 2000] [--messages 275] [--workers 2] [--providers all|none|NAME...]
       python bench/bench_triage.py --phases [--runs 5] [--files 2000] [--messages 275] [--workers 2]

Generates a fleet of small sessions under bench/data/fleet_<files>x<messages>/
(never committed), measures the per-file cost in one process (read, parse, plan,
report, provider verdicts), then runs `run_triage` on a LocalCluster with
--workers processes, and prints files/s, messages/s and an estimate, from the
measured per-file cost, of triaging 10 million sessions on N Dask workers.

--phases says where the time of `python -m integrity triage` goes: it runs the command --runs times
in a fresh process (as bench_cli.py --fleet does, with `check` over the same files alternated with
it) with a few functions of integrity.triage wrapped to note the time since the process started and
the CPU time of the process and of its reaped children (the workers) at each step, and prints each
step of the fastest run; and, alternated with them, the same command without its head start
(INTEGRITY_TRIAGE_NO_HEAD_START=1), unwrapped.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
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


PHASES = r"""
import contextlib, os, resource, sys, time
def _since_start():
    with open("/proc/self/stat") as stat:
        ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as uptime:
        return float(uptime.read().split()[0]) - ticks / os.sysconf("SC_CLK_TCK")
ZERO = time.perf_counter() - _since_start()
def note(step):
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"PHASE\t{time.perf_counter() - ZERO:.3f}\t{own.ru_utime + own.ru_stime:.3f}\t"
          f"{kids.ru_utime + kids.ru_stime:.3f}\t{step}", file=sys.stderr, flush=True)
note("interpreter started")
from integrity import cli, triage
note("integrity.cli imported")
expand, client, writer = triage.expand_inputs, triage._client, triage.TableWriter
def listed(*args, **kwargs):
    note("listing the files")
    found = expand(*args, **kwargs)
    note("files listed")
    return found
@contextlib.contextmanager
def timed_client(*args, **kwargs):
    note("Dask imported; starting the cluster")
    with client(*args, **kwargs) as running:
        note("cluster up, client connected")
        yield running
        note("every batch in; closing the cluster")
    note("cluster closed")
class Writer(writer):
    first = True
    def write(self, rows):
        if Writer.first:
            Writer.first = False
            note("first rows in (batch 0)")
        super().write(rows)
    def finish(self):
        note(f"{os.path.basename(self.path)}: writing its last rows, flushing it to disk")
        super().finish()
triage.expand_inputs, triage._client, triage.TableWriter = listed, timed_client, Writer
from integrity import _triage_head
stop = _triage_head.HeadStart.stop
def stopped(self):
    taken = stop(self)
    note(f"head start told to stop: it took {taken} of {self.count} batches")
    return taken
_triage_head.HeadStart.stop = stopped
code = cli.main(sys.argv[1:])
note("both on disk and renamed; command done")
import gc; gc.freeze()  # as integrity/__main__.py
print(f"EXIT\t{time.time():.6f}", file=sys.stderr, flush=True)
sys.exit(code)
"""
"""`python -m integrity` with timestamps (see --phases), run as `python -c PHASES triage ...`."""


def phases(folder: Path, runs: int, workers: int) -> None:
    """Run triage --runs times beside `check` of the same files and print the steps of its fastest run."""
    root = str(ROOT)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(ROOT / "bench" / "data" / "pycache")  # as bench_cli.py's children
    paths = sorted(str(path) for path in folder.iterdir())
    best: tuple[float, list[list[str]], float] | None = None
    checks: list[float] = []
    without: list[float] = []  # triage without its head start (_triage_head), alternated with the rest
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "integrity", "check", *paths], cwd=root, env=env,
                       stdout=subprocess.DEVNULL, check=False)
        checks.append(time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "integrity", "triage", "--workers", str(workers), "--out",
                            os.path.join(out, "fleet.parquet"), str(folder)], cwd=root,
                           env={**env, "INTEGRITY_TRIAGE_NO_HEAD_START": "1"}, capture_output=True, check=True)
            without.append(time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as out:
            start, began = time.perf_counter(), time.time()
            done = subprocess.run([sys.executable, "-c", PHASES, "triage", "--workers", str(workers), "--out",
                                   os.path.join(out, "fleet.parquet"), str(folder)], cwd=root, env=env,
                                  capture_output=True, text=True)
            ended, elapsed = time.time(), time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        lines = [line.split("\t") for line in done.stderr.splitlines()]
        steps = [line[1:] for line in lines if line[0] == "PHASE"]
        exited = float(next(line[1] for line in lines if line[0] == "EXIT"))
        steps.append([f"{elapsed - (ended - exited):.3f}", "", "", "interpreter exit"])
        steps.append([f"{elapsed:.3f}", "", "", "process gone (the time bench_cli.py counts)"])
        if best is None or elapsed < best[0]:
            best = (elapsed, steps, began)
    assert best is not None
    print(f"triage --workers {workers} over {len(paths):,} files, fastest of {runs} "
          f"(check over them: best {min(checks):.2f} s; triage / check = {best[0] / min(checks):.2f}; "
          f"without the head start: best {min(without):.2f} s, {min(without) / min(checks):.2f}x):")
    print(f"  {'at (s)':>7} {'step (s)':>8} {'own CPU':>8} {'workers':>8}  step")
    previous = 0.0
    for at, own, kids, step in best[1]:
        moment = float(at)
        print(f"  {moment:7.3f} {moment - previous:8.3f} {own:>8} {kids:>8}  {step}")
        previous = moment


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=275)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--providers", nargs="+", default=["all"])
    parser.add_argument("--sample", type=int, default=200, help="files timed in one process for the per-file cost")
    parser.add_argument("--phases", action="store_true", help="where the time of `integrity triage` goes")
    parser.add_argument("--runs", type=int, default=5, help="--phases: runs (the fastest is shown)")
    args = parser.parse_args()
    if args.phases:
        phases(fleet(args.files, args.messages), args.runs, args.workers)
        return
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
