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
from cli_inprocess import run as run_in_process

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


def _repair(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "integrity", "repair", *args], cwd=REPO, capture_output=True,
                          timeout=300)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_repair_out_dir_writes_what_repair_writes_for_each_file(tmp_path: Path, jobs: str) -> None:
    """repair FILE... --out-dir DIR: each file's view under its name, byte for byte what `repair FILE -o`
    writes, over a pool or not; the lines on standard error in input order, each naming its file.

    The --out-dir run is a real process (its pool, its exit code); the one-file runs it is compared
    with call the same main() in this process (tests/cli_inprocess.py), one interpreter instead of 29."""
    out = tmp_path / "out"
    out.mkdir()
    many = _repair("--jobs", jobs, "--now", "1", "--out-dir", str(out), *map(str, SAMPLES))
    assert many.returncode == 0, many.stderr
    assert sorted(path.name for path in out.iterdir()) == sorted(path.name for path in SAMPLES)
    expected_notes = []
    for sample in SAMPLES:
        alone = tmp_path / "alone.out"
        single = run_in_process("repair", "--now", "1", str(sample), "-o", str(alone))
        assert single.code == 0, single.stderr
        assert (out / sample.name).read_bytes() == alone.read_bytes(), sample.name
        expected_notes += [f"note: {sample}: {line[6:]}" for line in single.stderr.splitlines()]
        alone.unlink()
    assert many.stderr.decode().splitlines() == expected_notes
    assert expected_notes  # some sample is written with a note (its provider's grouping)


def test_repair_out_dir_refuses_before_reading(tmp_path: Path) -> None:
    one, two = SAMPLES[0], SAMPLES[1]
    twin = tmp_path / "twin"
    twin.mkdir()
    shutil.copyfile(one, twin / one.name)
    cases = [
        (["--out-dir", str(tmp_path), "-o", str(tmp_path / "x"), str(one)], "-o and --report are for one file"),
        (["--out-dir", str(tmp_path / "missing"), str(one)], "must be an existing folder"),
        (["--out-dir", str(tmp_path), str(one), str(twin / one.name)], "would both be written to"),
        (["--out-dir", str(tmp_path), "-", str(one)], "standard input"),
        ([str(one), str(two)], "several files need --out-dir"),
    ]
    for arguments, says in cases:
        result = _repair(*arguments)
        assert result.returncode == 2, arguments
        assert says in result.stderr.decode() and len(result.stderr.splitlines()) == 1, result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["twin"]  # nothing written


def test_repair_out_dir_never_writes_over_an_input(tmp_path: Path) -> None:
    """A file whose output would be itself is that file's error; the others are written; exit 2."""
    source = tmp_path / SAMPLES[0].name
    shutil.copyfile(SAMPLES[0], source)
    before = source.read_bytes()
    result = _repair("--jobs", "2", "--out-dir", str(tmp_path), str(source), str(SAMPLES[1]))
    assert result.returncode == 2
    assert "is the input file" in result.stderr.decode()
    assert source.read_bytes() == before
    assert (tmp_path / SAMPLES[1].name).exists()


def test_unbuffered_output_keeps_each_error_line_where_its_file_is(files: list[str]) -> None:
    """Unbuffered (PYTHONUNBUFFERED), a file's lines for standard output are written at once (cmd_check), yet
    with both outputs on one pipe each error line still comes between the lines of the files around it."""
    import os

    merged = subprocess.run([sys.executable, "-m", "integrity", "check", "--jobs", "2", *files], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}).stdout.decode().splitlines()
    apart = _check("--jobs", "1", *files)
    said = apart.stdout.decode().splitlines()
    errors = apart.stderr.decode().splitlines()
    expected: list[str] = []
    for path in files:
        expected += [line for line in errors if path in line]
        at = next((number for number, line in enumerate(said) if line.startswith(f"{path}:")), None)
        while at is not None and at < len(said) and (said[at].startswith((f"{path}:", " "))):
            expected.append(said[at])
            at += 1
    assert len(expected) == len(said) + len(errors)
    assert merged == expected
