"""Benchmark `check`, `repair` and `triage` end to end through the CLI against orjson.loads, beside issue 28's targets.

Usage: python bench/bench_cli.py [--messages 1000000] [--runs 3] [--jsonl] [--dense] [--startup]
                                [--fleet 2000x275] [--all-providers] [--repair-only] [--reports]
                                [--providers P...] [--only] [--format FORMAT]

Every figure with a target is printed beside it (TARGETS), measured in the same run as what it is
compared with.  --dense times a defect-dense transcript (bench/generate.py --dense: about a quarter of
the messages moved, dropped, reordered or answered by a receipt) instead of the usual one (about 2%).
`repair` is timed writing its file (-o FILE: the temporary file flushed to disk, then renamed; what the
targets count) and writing to standard output.  --startup also times `check` and `repair` on a
20-message file against a bare `python3 -c pass` (best of 10 each); --fleet FILESxMESSAGES times, over
that many small files (generated under bench/data/fleet_FILESxMESSAGES/) on every core, beside orjson.loads of
each file on every core (PARSE_FLEET: the machine's speed in the same run, as the ratios show): `check` (each
file's target provider; none for pi-ai), `check --provider gemini` (one target provider per file),
`repair --out-dir` and `triage` on a LocalCluster of 2 workers (its start-up counted, and also without
it: the time triage itself reports, less the cluster's start), in messages per second (with --format, the same
transcripts written in that format, under bench/data/fleet_FILESxMESSAGES.FORMAT/); --all-providers
adds `check --provider all`; --repair-only times `repair --out-dir` alone.  --reports times `check
--json`, `--json-lines` and `check --provider P` for each of --providers (default: every provider)
with plain `check`, instead of check and repair.  --format FORMAT times the same transcript written in a
provider's request format (openai-chat, openai-responses, anthropic, gemini, bedrock: a file the general reader
reads, judged by the provider its format implies) instead of the pi-ai file the fast path reads.

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


NATIVE_FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")

WRITE_NATIVE = """
import sys
from integrity.formats import read_bytes, write_bytes
format, *pairs = sys.argv[1:]
for source, out in zip(pairs[::2], pairs[1::2]):
    transcript = read_bytes(open(source, 'rb').read(), source)
    open(out, 'wb').write(write_bytes(transcript, None, format))
"""
"""Write each pi-ai file given (source, out, source, out, ...) in a provider's request format, in one process."""


PARSE_FLEET = """
import os, sys, orjson
paths = sys.argv[1:]
cores = len(os.sched_getaffinity(0))
children = []
for share in range(cores):
    pid = os.fork()
    if pid == 0:
        for path in paths[share::cores]:
            with open(path, 'rb') as handle:
                orjson.loads(handle.read())
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
"""
"""The fleet's baseline: a fresh process that forks one child per core, each reading and parsing its share of the
files with orjson.loads (start-up counted, as for every command timed beside it)."""


CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(HERE / "data" / "pycache")
"""Children compile the project once and reuse its bytecode, as an installed package does (pip compiles
it): a shell with PYTHONDONTWRITEBYTECODE set would otherwise recompile ~60 modules per run (~80 ms)."""


def measure(command: list[str], tree: bool = False, stderr: bool = False) -> tuple[float, float, str]:
    """Run a child and return its time, its peak memory (MB) and the start of its output (and of its standard
    error after it, with `stderr`).

    Peak memory is the child's own peak RSS (wait4: exact, not the max over all children); with
    `tree`, the larger of that and the peak, sampled every 0.1 s, of the memory of the child and
    every process it starts together (`check --json` on a large file starts a child to indent its text: see
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
        stdout, errors = out.read(1 << 16), err.read(1 << 16)
    if process.returncode not in (0, 1):
        shown = " ".join(command[:8]) + (f" ... ({len(command) - 8} more)" if len(command) > 8 else "")
        raise SystemExit(f"{shown} failed ({process.returncode}): {errors.decode()[:500]}")
    said = stdout + errors if stderr else stdout  # stderr: standard error too
    # in MB (10**6 bytes), the unit of the file's size it is divided by (ru_maxrss is in KiB: MiB over MB read
    # 4.9% low before the eighth session)
    return elapsed, max(usage.ru_maxrss * 1024 / 1e6, tree_peak[0] / 1e6), said.decode(errors="replace")


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


def _time_target(name: str, messages: int, dense: bool) -> float | None:
    """Issue 28's bound on a command's time / orjson.loads's for this input (None: no target)."""
    if name.startswith("check --provider "):
        return 1.0 if messages >= 1_000_000 else 1.2
    if name in ("repair strict", "repair strict (stdout)"):
        if dense:
            return 0.7 if messages <= 200_000 else None
        return 0.45 if messages >= 1_000_000 else 0.6
    return None


def _memory_target(name: str, messages: int) -> float | None:
    """Issue 28's bound on a command's peak memory / the file's size at 1,000,000 messages (None: no target;
    a smaller file's peak is mostly the interpreter's own)."""
    if messages < 1_000_000:
        return None
    if name in ("repair strict", "check strict", "check") or name.startswith("check --provider "):
        return 1.0  # --provider: the same bound as check
    if name in TREES:
        return 2.0
    return None


def _said(measured: float, bound: float | None, at_most: bool = True) -> str:
    """'target <= 0.60: met' beside a measured figure ('' without a target)."""
    if bound is None:
        return ""
    met = measured <= bound if at_most else measured >= bound
    sign = "<=" if at_most else ">="
    shown = f"{bound:,.2f}" if bound < 100 else f"{bound:,.0f}"
    return f"   target {sign} {shown}: {'met' if met else 'NOT met'}"


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


def fleet(python: str, shape: str, all_providers: bool = False, runs: int = 2, repair_only: bool = False,
          format: str | None = None) -> None:
    """`check`, `check --provider gemini`, `repair --out-dir` and `triage` over many small files on every core,
    each the best of `runs`, alternated (a busy moment hits every command alike), beside the targets
    (repair_only: `repair --out-dir` alone).  format: the same transcripts written in a provider's request format
    (each file judged by that format's provider, through the general reader) instead of pi-ai."""
    files, messages = (int(part) for part in shape.split("x"))
    folder = HERE / "data" / f"fleet_{files}x{messages}"
    if not folder.is_dir() or len(list(folder.iterdir())) < files:
        folder.mkdir(parents=True, exist_ok=True)
        sys.path.insert(0, str(HERE))
        from generate import write

        for number in range(files):
            write(messages, str(folder / f"session-{number:06d}.json"), seed=number)
    if format is not None:
        written = HERE / "data" / f"fleet_{files}x{messages}.{format}"
        if not written.is_dir() or len(list(written.iterdir())) < files:
            written.mkdir(parents=True, exist_ok=True)
            print(f"writing {written} ...", flush=True)
            pairs = [str(path) for source in sorted(folder.iterdir()) for path in (source, written / source.name)]
            subprocess.run([python, "-c", WRITE_NATIVE, format, *pairs], check=True, cwd=ROOT)
        folder = written
    paths = sorted(str(path) for path in folder.iterdir())[:files]
    total = files * messages
    cores = os.cpu_count()
    print(f"over {files:,} files of {messages} messages ({total:,} messages) in {format or 'pi-ai'}, every core "
          f"({cores}), best of {runs}:")
    target = "none for pi-ai" if format is None else f"{format}'s provider"
    runs_of: list[tuple[str, list[str], str, float | None]] = [  # label, command, output kind, messages/s target
        ("orjson.loads of each file (the baseline)", [python, "-c", PARSE_FLEET, *paths], "", None),
        (f"check (each file's target: {target})", [python, "-m", "integrity", "check", *paths], "", 1_000_000),
        ("check --provider gemini (one target each)", [python, "-m", "integrity", "check", "--provider", "gemini",
                                                        *paths], "", 600_000),
        ("repair --out-dir", [python, "-m", "integrity", "repair", "--out-dir"], "folder", 600_000),
        ("triage, LocalCluster of 2 workers", [python, "-m", "integrity", "triage", "--workers", "2", "--out"],
         "table", None),
    ]
    if repair_only:
        runs_of = [run for run in runs_of if run[2] == "folder" or run[0].startswith("orjson")]
    if all_providers:
        runs_of.append(("check --provider all", [python, "-m", "integrity", "check", "--provider", "all", *paths],
                        "", None))
    times: dict[str, list[float]] = {label: [] for label, *_ in runs_of}
    own: list[float] = []  # triage's own time (what it reports), less the cluster's start
    # Every run's output is kept until all are timed, each in a new folder: on a file system without a journal
    # (this machine's ext4) a file made soon after others were deleted costs the kernel a walk past each freed
    # inode, so deleting one run's 2,000 outputs before the next would time the bench's own clean-up.
    with tempfile.TemporaryDirectory() as kept:
        for round_number in range(runs):
            for number, (label, command, output, _target) in enumerate(runs_of):
                out = os.path.join(kept, f"{round_number}-{number}")
                os.mkdir(out)
                if output == "folder":
                    command = [*command, out, *paths]
                elif output == "table":
                    command = [*command, os.path.join(out, "fleet.parquet"), str(folder)]
                elapsed, _, said = measure(command, stderr=output == "table")
                times[label].append(elapsed)
                if output == "table":
                    reported = _triage_seconds(said)
                    if reported is not None:
                        own.append(reported)
    best = {label: min(values) for label, values in times.items()}
    parse = best[runs_of[0][0]]
    for label, _, _, target in runs_of:
        elapsed = best[label]
        rate = total / elapsed
        print(f"  {label:<44} {elapsed:7.2f} s  {rate:11,.0f} messages/s  {elapsed / parse:5.2f}x the baseline"
              f"{_said(rate, target, at_most=False)}")
    if repair_only:
        return
    check = best[runs_of[1][0]]
    triage = best["triage, LocalCluster of 2 workers"]
    print(f"  triage / check = {triage / check:.2f}{_said(triage / check, 1.3)}"
          + (f"   (triage's own time, cluster start-up included: {min(own):.2f} s)" if own else ""))


def _triage_seconds(said: str) -> float | None:
    """The seconds `triage` says it took ('... in 7.6 s -> ...'), None when it did not say."""
    import re

    found = re.search(r" in ([0-9.]+) s -> ", said)
    return float(found.group(1)) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jsonl", action="store_true")
    parser.add_argument("--dense", action="store_true",
                        help="a defect-dense transcript (bench/generate.py --dense) instead of the usual one")
    parser.add_argument("--startup", action="store_true", help="also time start-up on a tiny file")
    parser.add_argument("--fleet", metavar="FILESxMESSAGES", help="also time check over many small files")
    parser.add_argument("--all-providers", action="store_true", help="--fleet: also time check --provider all")
    parser.add_argument("--repair-only", action="store_true", help="--fleet: time only repair --out-dir")
    parser.add_argument("--reports", action="store_true",
                        help="time check --json, --json-lines and --provider P instead of check and repair")
    parser.add_argument("--providers", nargs="+", default=None, metavar="P",
                        help="--reports: the providers timed with check --provider (default: every one)")
    parser.add_argument("--only", action="store_true",
                        help="only --startup and --fleet, not the large file")
    parser.add_argument("--format", default=None, choices=NATIVE_FORMATS,
                        help="the transcript written in this provider request format instead of pi-ai")
    args = parser.parse_args()
    if args.startup:
        startup(sys.executable)
    if args.fleet:
        fleet(sys.executable, args.fleet, args.all_providers, max(1, min(args.runs, 3)), args.repair_only, args.format)
    if args.only:
        return

    data_dir = HERE / "data"
    data_dir.mkdir(exist_ok=True)
    suffix = "jsonl" if args.jsonl else "json"
    shape = "dense_" if args.dense else ""
    source = data_dir / f"broken_{shape}{args.messages}.{suffix}"
    if not source.exists():
        print(f"generating {source} ...", flush=True)
        command = [sys.executable, str(HERE / "generate.py"), str(args.messages), str(source)]
        if args.jsonl:
            command.append("--jsonl")
        if args.dense:
            command.append("--dense")
        subprocess.run(command, check=True)
    if args.format:
        native = data_dir / f"broken_{shape}{args.messages}.{args.format}.json"
        if not native.exists():
            print(f"writing {native} ...", flush=True)
            subprocess.run([sys.executable, "-c", WRITE_NATIVE, args.format, str(source), str(native)], check=True,
                           cwd=ROOT)
        source = native
    size_mb = source.stat().st_size / 1e6
    output = data_dir / f"repaired_{args.messages}.{suffix}"
    python = sys.executable
    providers = args.providers
    if args.reports and providers is None:
        sys.path.insert(0, str(ROOT))
        from integrity.providers import PROVIDERS

        providers = list(PROVIDERS)

    best: dict[str, tuple[float, float]] = {}
    for run in range(args.runs + 1):  # the last run only measures the memory of process trees
        commands = []
        check = [python, "-m", "integrity", "check", "--now", "0", str(source)]
        if args.reports:
            commands += [("check", check), ("check --json", [*check, "--json"]),
                         ("check --json-lines", [*check, "--json-lines"])]
            commands += [(f"check --provider {name}", [*check, "--provider", name]) for name in providers or ()]
        for policy in () if args.reports else ("strict", "openmaic"):
            commands += [
                (f"check {policy}", [python, "-m", "integrity", "check", "--policy", policy, str(source)]),
                (f"repair {policy}", [python, "-m", "integrity", "repair", "--policy", policy, str(source),
                                      "-o", str(output), "--now", "0"]),
            ]
            if policy == "strict":
                commands.append(("repair strict (stdout)", [python, "-m", "integrity", "repair", str(source),
                                                            "--now", "0"]))
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
        memory = ""
        if not name.startswith("orjson"):
            bound = _memory_target(name, args.messages)
            memory = f", peak {peak:,.0f} MB ({peak / size_mb:.2f} x file){_said(peak / size_mb, bound)}"
        print(f"  {name:<36} {elapsed:7.2f} s{memory}")
    parse, strict = best["orjson.loads"][0], best["orjson.loads (gc off)"][0]
    for name, (elapsed, _) in best.items():
        if not name.startswith("orjson"):
            ratio = elapsed / parse
            print(f"  {name:<36} / orjson.loads = {ratio:.2f}   (gc off: {elapsed / strict:.2f})"
                  f"{_said(ratio, _time_target(name, args.messages, args.dense))}")


if __name__ == "__main__":
    main()
