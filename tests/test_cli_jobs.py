"""`check --jobs N`: many files over a pool of worker processes say exactly what one process says.

Every sample transcript, plus an unreadable file and a missing one, is checked with
--jobs 1 (in the command's own process) and with worker pools: the same lines on
both outputs, in the order of the files, and the same exit code.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLES = sorted((REPO / "sample_transcripts").glob("*.json*"))


def _check(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "integrity", "check", *args], cwd=REPO, input=stdin,
                          capture_output=True, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("many")
    paths = []
    for number, sample in enumerate(SAMPLES * 2):  # twice over: more files than workers, healthy and not
        target = folder / f"{number:03d}-{sample.name}"
        shutil.copyfile(sample, target)
        paths.append(str(target))
    broken = folder / "broken.json"
    broken.write_bytes(b'[{"role": "user", "content": "hi"}, {')
    paths.insert(5, str(broken))
    paths.insert(9, str(folder / "missing.json"))
    return paths


def test_samples_are_there() -> None:
    assert len(SAMPLES) >= 10


@pytest.mark.parametrize("jobs", ["2", "3"])
def test_a_pool_says_what_one_process_says_in_file_order(files: list[str], jobs: str) -> None:
    alone = _check("--jobs", "1", *files)
    pooled = _check("--jobs", jobs, *files)
    assert alone.returncode == pooled.returncode == 2  # the unreadable ones
    assert pooled.stdout == alone.stdout
    assert pooled.stderr == alone.stderr
    lines = alone.stdout.decode().splitlines()
    named = [line.split(":")[0] for line in lines if not line.startswith(" ") and line.split(":")[0] in files]
    assert named == [path for path in files if path in named]  # input order
    assert len(alone.stderr.decode().splitlines()) == 2


def test_json_reports_come_in_file_order(files: list[str]) -> None:
    readable = [path for path in files if "broken" not in path and "missing" not in path][:12]
    alone = _check("--jobs", "1", "--json", "--now", "1", *readable)
    pooled = _check("--jobs", "2", "--json", "--now", "1", *readable)
    assert pooled.returncode == alone.returncode
    assert pooled.stdout == alone.stdout
    assert [report["source"] for report in json.loads(alone.stdout)][:1] == [readable[0]]


def test_the_default_uses_the_pool_and_says_the_same(files: list[str]) -> None:
    assert _check(*files).stdout == _check("--jobs", "1", *files).stdout


def test_standard_input_among_the_files_is_read_once_by_the_command(files: list[str]) -> None:
    sample = (REPO / "sample_transcripts" / "healthy.pi-ai.json").read_bytes()
    mixed = _check("--jobs", "2", files[0], "-", files[1], stdin=sample)
    alone = _check("--jobs", "1", files[0], "-", files[1], stdin=sample)
    assert mixed.stdout == alone.stdout and mixed.returncode == alone.returncode
    assert b"<stdin>" in mixed.stdout


@pytest.mark.parametrize("value", ["0", "-1", "two", ""])
def test_a_bad_jobs_value_is_one_line_and_exit_2(value: str) -> None:
    done = _check("--jobs", value, str(SAMPLES[0]))
    assert done.returncode == 2
    assert b"--jobs" in done.stderr and b"Traceback" not in done.stderr
