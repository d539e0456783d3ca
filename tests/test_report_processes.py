"""A large `check --json` report is written by two processes: this one makes its records, and a child
indents the text (integrity._bulk.indent_process).

What a reader sees must not depend on them: the bytes are those one process writes, for one report
and for an array of them, in both layouts; a child that fails leaves the work to this process; a
closed standard output is no error, a full disk is one line, and an interrupted parent stops its
children.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest

from integrity import analyze, load
from integrity._bulk.indent_process import Indenter
from integrity._bulk.pieces import Compact, finished
from integrity.analysis import reader_findings, schema_findings
from integrity.report import report_shell
from integrity.report.text import report_pieces

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_transcripts"
BROKEN = [SAMPLES / "abort_race.pi-ai.json", SAMPLES / "split_results.anthropic.json",
          SAMPLES / "crash_duplicate.pi-ai.json"]

VALUES: list[Any] = [
    {"a": 1, "b": [1, 2, {"c": []}], "d": {}, "e": "é\u2028\U0001f600\x7f"},
    [{"x": [[], {}], "y": None}, {"z": "text"}],
    [], {}, "plain", 3, [[[]]],
]


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize("number", range(len(VALUES)))
def test_a_compact_value_is_indented_as_json_dumps_at_its_depth(depth: int, number: int) -> None:
    value = VALUES[number]
    shifted = json.dumps(value, indent=2).replace("\n", "\n" + "  " * depth)
    assert finished(Compact(msgspec.json.encode(value), depth, False)) == shifted.encode("ascii")
    if isinstance(value, list) and value:  # a section's chunk: its items, without the brackets
        body = shifted[1:len(shifted) - (2 * depth + 2)]
        assert finished(Compact(msgspec.json.encode(value), depth, True)) == body.encode("ascii")


def pieces_of(path: Path) -> list[Any]:
    transcript = load(path.read_bytes(), str(path))
    analysis = analyze(transcript, "strict", now=lambda: 7)
    stamps = [entry.timestamp for entry in analysis.report.view if hasattr(entry, "timestamp")]
    schema = [*reader_findings(transcript), *schema_findings(transcript)]
    shell = report_shell(analysis.light, analysis.plan, stamps, transcript.source, schema)
    return list(report_pieces(shell, True))


@pytest.mark.parametrize("path", BROKEN, ids=lambda path: path.name)
def test_the_child_writes_what_this_process_would(path: Path) -> None:
    pieces = pieces_of(path)
    assert any(isinstance(piece, Compact) for piece in pieces)
    with tempfile.TemporaryFile() as out:
        indenter = Indenter(out.fileno())
        indenter.send(pieces)
        indenter.close()
        out.seek(0)
        written = out.read()
    assert written == b"".join(map(finished, pieces))
    assert json.loads(written)["source"] == str(path)


def run_check(arguments: list[str], elsewhere_after: int | None, before: str = "",
              **options: Any) -> subprocess.CompletedProcess[bytes]:
    """`python -m integrity check ARGUMENTS` in a fresh process, handing every report to the indenting
    child from its first value on (elsewhere_after 0) or never (None); `before` runs first."""
    limit = "1 << 62" if elsewhere_after is None else str(elsewhere_after)
    code = ("import sys; import integrity.cli as cli; "
            f"cli.INDENT_ELSEWHERE_AFTER = {limit}; {before or 'pass'}; "
            "sys.exit(cli.main(sys.argv[1:]))")
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **options}
    return subprocess.run([sys.executable, "-c", code, "check", "--now", "0", *arguments], cwd=ROOT, **streams)


@pytest.mark.parametrize("files", [BROKEN[:1], BROKEN], ids=["one report", "an array of three"])
def test_check_json_through_the_child_is_the_same_text(files: list[Path]) -> None:
    arguments = ["--json", "--jobs", "1", *map(str, files)]
    alone = run_check(arguments, None)
    shared = run_check(arguments, 0)
    assert (shared.returncode, shared.stderr) == (alone.returncode, alone.stderr) == (1, b"")
    assert shared.stdout == alone.stdout
    data = json.loads(shared.stdout)
    assert len(data) == len(files) if len(files) > 1 else data["source"] == str(files[0])
    assert shared.stdout == json.dumps(data, indent=2).encode() + b"\n"


def test_a_closed_standard_output_is_no_error() -> None:
    reader_closed = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.buffer.read(10)"], stdin=subprocess.PIPE)
    assert reader_closed.stdin is not None
    result = run_check(["--json", str(BROKEN[0])], 0, stdout=reader_closed.stdin)
    reader_closed.stdin.close()
    reader_closed.wait()
    assert result.stderr == b""
    assert result.returncode == 1  # the verdict's code, as when one process writes


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_disk_is_one_line_as_in_one_process() -> None:
    with open("/dev/full", "wb") as full:
        alone = run_check(["--json", str(BROKEN[0])], None, stdout=full)
        shared = run_check(["--json", str(BROKEN[0])], 0, stdout=full)
    for result in (alone, shared):
        lines = result.stderr.decode().splitlines()
        assert lines == ["error: cannot write the output: No space left on device (the input is unchanged)"]
        assert result.returncode == 2
    assert shared.returncode == alone.returncode


def test_an_interrupted_parent_stops_the_child() -> None:
    read, write = os.pipe()  # nobody reads it: the child blocks on its first write of 1 MB
    try:
        indenter = Indenter(write)
        indenter.send([Compact(b"[" + b",".join([b'"' + b"x" * 1000 + b'"'] * 3000) + b"]", 1, False)])
        indenter.abort()
        assert indenter._process.returncode is not None and indenter._process.returncode < 0
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_the_childs_write_error_is_raised_in_the_parent() -> None:
    with open("/dev/full", "wb") as full:
        indenter = Indenter(full.fileno())
        indenter.send(pieces_of(BROKEN[0]))
        with pytest.raises(OSError) as raised:
            indenter.close()
    assert raised.value.errno == 28 and "No space left on device" in str(raised.value)


def generated_file(tmp_path: Path, count: int = 3000) -> Path:
    """A transcript of bench/generate.py with every kind of defect (a fifth of the turns broken)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from generate import messages

    path = tmp_path / "generated.json"
    path.write_text(json.dumps(list(messages(count, seed=11, defect_rate=0.2))))
    return path


@pytest.mark.parametrize("layout", ["--json", "--json-lines"])
def test_every_defects_sections_through_the_child_are_the_same_text(tmp_path: Path, layout: str) -> None:
    files = [*map(str, BROKEN), str(generated_file(tmp_path))]
    arguments = [layout, "--jobs", "1", *files]
    alone = run_check(arguments, None)
    shared = run_check(arguments, 0)
    assert alone.returncode == shared.returncode == 1 and alone.stderr == shared.stderr == b""
    assert shared.stdout == alone.stdout
    reports = json.loads(shared.stdout) if layout == "--json" else [json.loads(line) for line in
                                                                       shared.stdout.splitlines()]
    assert [report["source"] for report in reports] == files
    assert all(report["pairings"] and report["view"] for report in reports)


def test_no_process_to_indent_leaves_it_to_this_one() -> None:
    arguments = ["--json", "--jobs", "1", *map(str, BROKEN)]
    alone = run_check(arguments, None)
    refused = run_check(arguments, 0, before="import subprocess; subprocess.Popen = lambda *a, **k: "
                                              "(_ for _ in ()).throw(OSError(11, 'no process'))")
    assert (refused.returncode, refused.stderr, refused.stdout) == (alone.returncode, alone.stderr, alone.stdout)
