"""Benchmark `check` and `repair` end to end through the CLI against orjson.loads.

Usage: python bench/bench_cli.py [--messages 1000000] [--runs 3] [--jsonl] [--startup] [--fleet 2000x275]
                                [--reports] [--only]

--startup also times `check` and `repair` on a 20-message file against a bare
`python3 -c pass` (best of 10 each); --fleet FILESxMESSAGES times `check` and
`repair --out-dir` over that many small files (generated under
bench/data/fleet_FILESxMESSAGES/) with --jobs 1 and with every core, in messages per
second, and `check` with one provider and with no provider asked about each file as
recorded (what those verdicts cost).  --reports times `check --json`,
`--json-lines` and `--provider anthropic` (with plain `check`) instead of check and repair.

The input (about 230 MB for a million messages) is generated on demand under
bench/data/ (never committed).  Every timing is a fresh process, so imports and
start-up count; each time is the best of --runs.  Peak memory is the largest over the runs of
the child's max RSS, and of its process tree's for the commands that may start more processes
(in one more run, not timed: see measure).  The baseline is `orjson.loads(data)` in a
fresh process, timed around the call alone, with Python's defaults (cyclic GC on, as any
caller has it), and also with the GC disabled for a stricter comparison.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

PARSE = """
import gc, sys, time, orjson
data = open(sys.argv[1], 'rb').read()
if sys.argv[2] == 'nogc':
    gc.disable()
start = time.perf_counter()
if sys.argv[1].endswith('.jsonl'):  # one document per line, as a JSON-lines reader parses it
    [orjson.loads(line) for line in data.splitlines() if line.strip()]
else:
    orjson.loads(data)
print(time.perf_counter() - start)
"""


CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(HERE / "data" / "pycache")
"""Children compile the project once and reuse its bytecode, as an installed package does (pip compiles
it): a shell with PYTHONDONTWRITEBYTECODE set would otherwise recompile ~60 modules per run (~80 ms)."""


def measure(command: list[str], tree: bool = False) -> tuple[float, float, str]:
    """Run a child and return its time, its peak memory and the start of its output.

    Peak memory is the child's own peak RSS (wait4: exact, not the max over all children); with
    `tree`, the larger of that and the peak, sampled every 0.1 s, of the memory of the child and
    every process it starts together (`check --json` on a large file forks a child: see
    _sample_tree).  Sampling slows the child (by about 6% on `check --json`), so it is asked for
    in a run of its own, never in one whose time is kept.
    The child's output goes to a temporary file, never into this process: Linux starts a child's
    peak RSS at the peak of the process that spawned it, so reading a 94 MB report here made every
    later child (even `python -c pass`) report 193 MB.  Only the first 64 kB of output is returned.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=err, env=CHILD_ENV)
        tree_peak = [0]
        done = threading.Event()
        sampler = threading.Thread(target=_sample_tree, args=(process.pid, tree_peak, done), daemon=True)
        if tree:
            sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        done.set()
        if tree:
            sampler.join()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(1 << 16), err.read(1 << 16)
    if process.returncode not in (0, 1):
        shown = " ".join(command[:8]) + (f" ... ({len(command) - 8} more)" if len(command) > 8 else "")
        raise SystemExit(f"{shown} failed ({process.returncode}): {stderr.decode()[:500]}")
    return elapsed, max(usage.ru_maxrss / 1024, tree_peak[0] / 2**20), stdout.decode(errors="replace")


def _sample_tree(root: int, peak: list[int], done: threading.Event) -> None:
    """The peak of the memory of root and its descendants together, read from /proc every 0.1 s (Linux).

    Each process counts its proportional set size (PSS: a page shared by n processes counts 1/n in
    each), so a forked child's pages shared with its parent are counted once, not twice as RSS would.
    A lone process is not read (wait4 has its exact peak, and reading its pages' counts slows it).
    """
    while not done.wait(0.1):
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as stat:
                        parents[int(entry)] = int(stat.read().rsplit(b")", 1)[1].split()[1])
                except OSError:
                    continue
        tree, grown = {root}, True
        while grown:
            more = {pid for pid, parent in parents.items() if parent in tree} - tree
            grown = bool(more)
            tree |= more
        if len(tree) > 1:
            peak[0] = max(peak[0], sum(map(_proportional, tree)))


def _proportional(pid: int) -> int:
    """A process's PSS in bytes (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


TREES = ("check --json", "check --json-lines")
"""The commands that may run more than one process (the rest are one: their own peak is exact)."""


def startup(python: str) -> None:
    """`check` and `repair` on a tiny pi-ai file (the fast reader) and on a tiny Anthropic request (the
    exact reader and the schema checks) against a bare interpreter, best of 10 each."""
    small = HERE / "data" / "small_20.json"
    if not small.exists():
        subprocess.run([python, str(HERE / "generate.py"), "20", str(small)], check=True)
    out = HERE / "data" / "small_20.repaired.json"
    native = ROOT / "sample_transcripts" / "split_results.anthropic.json"  # another reader and schema
    commands = [("python3 -c pass", [python, "-c", "pass"]),
                ("check (20 messages)", [python, "-m", "integrity", "check", str(small)]),
                ("repair (20 messages)", [python, "-m", "integrity", "repair", str(small), "-o", str(out)]),
                ("check (Anthropic, 5)", [python, "-m", "integrity", "check", str(native)]),
                ("repair (Anthropic, 5)", [python, "-m", "integrity", "repair", str(native), "-o", str(out)])]
    for _, command in commands:  # compile once (see CHILD_ENV)
        measure(command)
    times: dict[str, list[float]] = {name: [] for name, _ in commands}
    for _ in range(10):  # alternated, so a busy moment hits every command alike
        for name, command in commands:
            times[name].append(measure(command)[0])
    best = {name: min(values) for name, values in times.items()}
    print("start-up, best of 10 (alternated):")
    for name, elapsed in best.items():
        print(f"  {name:<22} {elapsed:7.3f} s")


def fleet(python: str, shape: str) -> None:
    """`check` and `repair --out-dir` over many small files, in one process (--jobs 1) and on every core (the
    default); then `check` on every core with one provider and with none asked about each file as recorded."""
    files, messages = (int(part) for part in shape.split("x"))
    folder = HERE / "data" / f"fleet_{files}x{messages}"
    if not folder.is_dir() or len(list(folder.iterdir())) < files:
        folder.mkdir(parents=True, exist_ok=True)
        sys.path.insert(0, str(HERE))
        from generate import write

        for number in range(files):
            write(messages, str(folder / f"session-{number:06d}.json"), seed=number)
    paths = sorted(str(path) for path in folder.iterdir())[:files]
    total = files * messages
    print(f"check and repair over {files:,} files of {messages} messages ({total:,} messages), best of 2:")
    every = f"--jobs {os.cpu_count()} (default)"
    runs: list[tuple[str, list[str], bool]] = [
        ("check --jobs 1", [python, "-m", "integrity", "check", "--jobs", "1", *paths], False),
        (f"check {every}", [python, "-m", "integrity", "check", *paths], False),
        ("repair --out-dir --jobs 1", [python, "-m", "integrity", "repair", "--jobs", "1", "--out-dir"], True),
        (f"repair --out-dir {every}", [python, "-m", "integrity", "repair", "--out-dir"], True),
    ]
    # What asking providers costs: each file's target provider decides (a pi-ai file has none, so the default
    # asks none); one named target (gemini), and every provider asked for information (`--provider all`: what
    # `check` asked of every file up to 10,000 messages before the target-provider rule).
    for label, option in (("check --provider gemini", "gemini"), ("check --provider all", "all")):
        runs.append((label, [python, "-m", "integrity", "check", "--provider", option, *paths], False))
    for label, command, into_folder in runs:
        times = []
        for _ in range(2):
            with tempfile.TemporaryDirectory() as out:
                times.append(measure([*command, out, *paths] if into_folder else command)[0])
        elapsed = min(times)
        print(f"  {label:<36} {elapsed:7.2f} s  {total / elapsed:11,.0f} messages/s  {files / elapsed:7,.0f} files/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jsonl", action="store_true")
    parser.add_argument("--startup", action="store_true", help="also time start-up on a tiny file")
    parser.add_argument("--fleet", metavar="FILESxMESSAGES", help="also time check over many small files")
    parser.add_argument("--reports", action="store_true",
                        help="time check --json, --json-lines and --provider anthropic instead of check and repair")
    parser.add_argument("--only", action="store_true",
                        help="only --startup and --fleet, not the large file")
    args = parser.parse_args()
    if args.startup:
        startup(sys.executable)
    if args.fleet:
        fleet(sys.executable, args.fleet)
    if args.only:
        return

    data_dir = HERE / "data"
    data_dir.mkdir(exist_ok=True)
    suffix = "jsonl" if args.jsonl else "json"
    source = data_dir / f"broken_{args.messages}.{suffix}"
    if not source.exists():
        print(f"generating {source} ...", flush=True)
        command = [sys.executable, str(HERE / "generate.py"), str(args.messages), str(source)]
        if args.jsonl:
            command.append("--jsonl")
        subprocess.run(command, check=True)
    size_mb = source.stat().st_size / 1e6
    output = data_dir / f"repaired_{args.messages}.{suffix}"
    python = sys.executable

    best: dict[str, tuple[float, float]] = {}
    for run in range(args.runs + 1):  # the last run only measures the memory of process trees
        commands = []
        check = [python, "-m", "integrity", "check", "--now", "0", str(source)]
        if args.reports:
            commands += [("check", check), ("check --json", [*check, "--json"]),
                         ("check --json-lines", [*check, "--json-lines"]),
                         ("check --provider anthropic", [*check, "--provider", "anthropic"])]
        for policy in () if args.reports else ("strict", "openmaic"):
            commands += [
                (f"check {policy}", [python, "-m", "integrity", "check", "--policy", policy, str(source)]),
                (f"repair {policy}", [python, "-m", "integrity", "repair", "--policy", policy, str(source),
                                      "-o", str(output), "--now", "0"]),
            ]
        if run == args.runs:
            for name, command in commands:
                if name in TREES:
                    _, peak, _ = measure(command, tree=True)
                    best[name] = (best[name][0], max(best[name][1], peak))
            break
        commands += [
            ("orjson.loads", [python, "-c", PARSE, str(source), "gc"]),
            ("orjson.loads (gc off)", [python, "-c", PARSE, str(source), "nogc"]),
        ]
        for name, command in commands:
            elapsed, peak, stdout = measure(command)
            if name.startswith("orjson"):
                elapsed = float(stdout.strip())
            kept = best.get(name)
            best[name] = (elapsed, peak) if kept is None else (min(kept[0], elapsed), max(kept[1], peak))

    print(f"input: {source.name}, {args.messages:,} messages, {size_mb:.0f} MB; best of {args.runs} runs")
    for name, (elapsed, peak) in best.items():
        memory = f", peak {peak:,.0f} MB ({peak / size_mb:.2f} x file)" if not name.startswith("orjson") else ""
        print(f"  {name:<28} {elapsed:7.2f} s{memory}")
    parse, strict = best["orjson.loads"][0], best["orjson.loads (gc off)"][0]
    for name, (elapsed, _) in best.items():
        if not name.startswith("orjson"):
            print(f"  {name:<28} / orjson.loads = {elapsed / parse:.2f}   "
                  f"(/ orjson.loads with gc off = {elapsed / strict:.2f})")


if __name__ == "__main__":
    main()
