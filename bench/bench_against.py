"""Time one `integrity` command with this tree's engine and with an earlier revision's, alternated.

Usage: python bench/bench_against.py REV [--runs 5] [--fleet 2000x275 | --file PATH] -- ARGS...

On a machine shared with other work the load drifts by 2-3x within minutes, so a figure from one run is
compared with the same command of an earlier revision run just before or after it: each run times the
two in turn (the earlier one first in every other run), and the best of --runs is kept for each.  REV's
`integrity/` is unpacked (git archive) into a temporary folder; both run in a fresh process from the same
working directory.  In ARGS, FILES stands for the fleet's files (--fleet) or the file (--file), and OUT
for a new empty folder each run (`repair --out-dir OUT FILES`, `triage --out OUT/t.parquet ...`).

Example: python bench/bench_against.py 896e08e --fleet 2000x275 -- check FILES
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _unpack(revision: str, folder: str) -> None:
    archive = subprocess.run(["git", "archive", revision, "integrity"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)


def _command(args: list[str], files: list[str], out: str) -> list[str]:
    command: list[str] = []
    for arg in args:
        if arg == "FILES":
            command += files
        elif arg.startswith("OUT"):
            command.append(out + arg[3:])
        else:
            command.append(arg)
    return [sys.executable, "-m", "integrity", *command]


def _time(command: list[str], tree: str) -> float:
    env = {**os.environ, "PYTHONPATH": tree}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:6])} ... failed ({done.returncode}): {done.stderr.decode()[:300]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--fleet", metavar="FILESxMESSAGES")
    parser.add_argument("--file")
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("name the command after --, e.g. -- check FILES")
    cut = argv.index("--")
    options = parser.parse_args(argv[:cut])
    args = argv[cut + 1:]
    if options.fleet:
        folder = HERE / "data" / f"fleet_{options.fleet}"
        files = sorted(str(path) for path in folder.iterdir())
    else:
        files = [str(Path(options.file).resolve())] if options.file else []
    best = {"this tree": float("inf"), options.revision: float("inf")}
    with tempfile.TemporaryDirectory() as earlier:
        _unpack(options.revision, earlier)
        trees = {"this tree": str(ROOT), options.revision: earlier}
        for run in range(options.runs):
            names = list(trees) if run % 2 else list(trees)[::-1]
            for name in names:
                with tempfile.TemporaryDirectory() as out:
                    best[name] = min(best[name], _time(_command(args, files, out), trees[name]))
    shown = " ".join(args)
    print(f"integrity {shown}, best of {options.runs} alternated:")
    for name, elapsed in best.items():
        print(f"  {name:<12} {elapsed:7.2f} s")
    print(f"  this tree / {options.revision} = {best['this tree'] / best[options.revision]:.2f}")


if __name__ == "__main__":
    main()
