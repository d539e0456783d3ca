"""The CLI as a careless or hostile user meets it: only JSON is read, nothing crashes,
nothing the user has is lost (issue 10, items 2 and 3).

Most runs call integrity.cli.main in this process (tests/cli_inprocess.py); signals,
closed pipes, FIFOs and memory limits use real processes.  Special files are made
in tmp_path (a FIFO, a socket), never the real /dev/null.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from integrity._bulk import atomic_write
from integrity._bulk.fast_read import read_fast
from integrity.cli import EXIT_INTERNAL
from integrity.formats.container import MAX_DEPTH, parse_document
from integrity.loading import TranscriptError
from tests.cli_inprocess import REPO, Result, assert_clean_failure, passes_check, run, run_process

SAMPLES = REPO / "sample_transcripts"
ORPHAN = (SAMPLES / "orphaned_call.pi-ai.json").read_bytes()  # needs repair: a receipt is synthesized
HEALTHY = (SAMPLES / "healthy.pi-ai.json").read_bytes()


def call_turn(value: str, call_id: str = "c1") -> str:
    """A pi-ai assistant turn calling a tool whose arguments hold `value` (raw JSON text)."""
    return ('{"role":"assistant","stopReason":"toolUse","timestamp":1,"content":[{"type":"toolCall",'
            f'"id":"{call_id}","name":"t","arguments":{{"x":{value}}}}}]}}')


USER = '{"role":"user","content":"go","timestamp":2}'


def as_array(*messages: str) -> bytes:
    return ("[\n" + ",\n".join(messages) + "\n]\n").encode()


def as_jsonl(*messages: str) -> bytes:
    return "".join(m + "\n" for m in messages).encode()


def as_envelope(*messages: str) -> bytes:
    return ('{"model": "m",\n "messages": [\n' + ",\n".join(messages) + "\n]}\n").encode()


CONTAINERS: dict[str, Callable[..., bytes]] = {"array": as_array, "jsonl": as_jsonl, "object": as_envelope}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# Levels above the nested value inside call_turn: the message object, its content
# array, the call object and its arguments object.  The array and the envelope add
# one and two levels around the messages; each JSONL line stands alone.
AROUND = {"array": 5, "jsonl": 4, "object": 6}

# Values the readers refuse, and the word the error line must carry.
REFUSED = {
    "nan": ("NaN", "NaN is not valid JSON"),
    "infinity": ("Infinity", "Infinity is not valid JSON"),
    "minus_infinity": ("-Infinity", "-Infinity is not valid JSON"),
    "overflow": ("1e999", "overflows to infinity"),
    "overflow_upper": ("-2.5E+400", "overflows to infinity"),
    "long_mantissa": ("1" + "0" * 250 + "e60", "overflows to infinity"),
    "huge_integer": ("9" * 5000, "5000 digits"),
}
# Values both readers accept (the edges of the above).
ACCEPTED = {
    "largest_float": "1.7976931348623157e308",
    "underflow": "1e-999",
    "long_integer": "9" * 4300,
    "text_that_looks_refused": '"NaN Infinity 1e999 [[[["',
    "lone_surrogate": '"\\udc00"',
}


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def position_of(data: bytes, token: bytes) -> tuple[int, int]:
    """1-based line and column of the first `token` in data (ASCII data)."""
    offset = data.index(token)
    line = data.count(b"\n", 0, offset) + 1
    return line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def fast_reads(data: bytes) -> bool:
    return read_fast(data, "x") is not None


def general_reads(data: bytes) -> bool:
    try:
        parse_document(data, "x")
    except TranscriptError:
        return False
    return True


# ---------------------------------------------------------------- only JSON


@pytest.mark.parametrize("container", sorted(CONTAINERS))
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_values_json_cannot_hold_are_refused_with_their_position(tmp_path: Path, container: str,
                                                                  case: str) -> None:
    value, words = REFUSED[case]
    data = CONTAINERS[container](USER, call_turn(value))
    path = write(tmp_path / "in.json", data)
    line, column = position_of(data, value.encode())
    for argv in (["check", path], ["check", "--provider", "anthropic", path], ["repair", path, "-o", tmp_path / "o"]):
        message = assert_clean_failure(run(*argv))
        assert message.startswith(f"error: {path}: line {line}, column {column}: "), message
        assert words in message
    assert not (tmp_path / "o").exists()
    assert path.read_bytes() == data


@pytest.mark.parametrize("container", sorted(CONTAINERS))
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_fast_path_refuses_what_the_general_reader_refuses(container: str, case: str) -> None:
    data = CONTAINERS[container](USER, call_turn(REFUSED[case][0]))
    assert not general_reads(data)
    assert not fast_reads(data)  # so the CLI falls back to the general reader and its error line


@pytest.mark.parametrize("container", sorted(CONTAINERS))
@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_both_readers_accept_the_edges(tmp_path: Path, container: str, case: str) -> None:
    data = CONTAINERS[container](USER, call_turn(ACCEPTED[case]), USER)
    assert general_reads(data)
    # The fast path may decline a file it is not sure of (a 3-digit exponent, a long
    # digit run, a lone surrogate escape): the general reader then reads it.
    if case == "underflow":
        assert fast_reads(data)
    path = write(tmp_path / "in.json", data)
    assert run("check", path).code == 1  # the call is unanswered: needs repair, on either path
    assert run("check", "--json", path).code == 1


@pytest.mark.parametrize("container", sorted(CONTAINERS))
def test_nesting_limit_is_exact_and_the_same_on_both_paths(tmp_path: Path, container: str) -> None:
    inner = MAX_DEPTH - AROUND[container]
    deepest = CONTAINERS[container](USER, call_turn(nested(inner)))
    too_deep = CONTAINERS[container](USER, call_turn(nested(inner + 1)))
    assert general_reads(deepest) and fast_reads(deepest)
    assert not general_reads(too_deep) and not fast_reads(too_deep)
    assert run("check", write(tmp_path / "ok.json", deepest)).code == 1
    message = assert_clean_failure(run("check", write(tmp_path / "deep.json", too_deep)))
    assert f"nested deeper than {MAX_DEPTH} levels" in message


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_absurd_nesting_is_one_line_not_a_recursion_error(tmp_path: Path, depth: int) -> None:
    for data in (nested(depth).encode(), as_array(USER, call_turn(nested(depth))), as_jsonl(call_turn(nested(depth)))):
        path = write(tmp_path / "deep.json", data)
        for argv in (["check", path], ["check", "--json", path], ["repair", path]):
            message = assert_clean_failure(run(*argv))
            assert "nested deeper than" in message and ", column " in message


def test_json_inside_a_string_follows_the_same_rules(tmp_path: Path) -> None:
    """Chat arguments are JSON text in a string: NaN or absurd nesting there is invalid JSON text, not a crash."""
    for inner in (nested(3000), '{"x": NaN}'):
        chat = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "t", "arguments": inner}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "ok"}]
        path = write(tmp_path / "chat.json", json.dumps(chat).encode())
        shown = run("check", "--policy", "openmaic", path)  # the reference leaves it: a malformed finding
        assert shown.code == 1 and b"is not valid JSON text" in shown.stdout, shown.stderr
        # strict sends {} and keeps the call's real result (issue 26): OpenAI takes the text as recorded
        shown = run("check", path)
        assert shown.code == 0 and b"1 call(s) with invalid arguments repaired" in shown.stdout, shown.stdout
        done = run("repair", "--provider", "anthropic", path, "-o", tmp_path / "o.json")
        assert done.code == 0 and "anthropic after repair: accepted" in done.stderr, done.stderr
        written = json.loads((tmp_path / "o.json").read_bytes())
        assert written[1]["tool_calls"][0]["function"]["arguments"] == "{}" and written[2]["content"] == "ok"
        assert passes_check(tmp_path / "o.json")
        (tmp_path / "o.json").unlink()


def test_lone_surrogates_are_written_back_escaped_and_read_again(tmp_path: Path) -> None:
    data = as_array(USER, call_turn('"\\ud83d alone"', call_id="id\\udc00"), USER)
    path = write(tmp_path / "in.json", data)
    out, report = tmp_path / "out.json", tmp_path / "report.json"
    assert run("repair", path, "-o", out, "--report", report).code == 0
    for written in (out, report):
        text = written.read_bytes().decode("utf-8")  # valid UTF-8: no raw surrogate bytes
        assert "\\udc00" in text
        json.loads(text)
    assert passes_check(out)
    assert run("check", "--json", path).code == 1


@pytest.mark.parametrize("provider", ["mistral", "all"])
def test_an_id_with_a_lone_surrogate_is_renamed_for_mistral(tmp_path: Path, provider: str) -> None:
    """Found by review: Mistral's new ids hash the refused one, whose UTF-8 encoding refused the surrogate: exit 70
    (an internal error) for `check --provider mistral` and `--provider all`, and every inspector page."""
    path = write(tmp_path / "in.json", as_array(USER, call_turn('"ok"', call_id="call_\\ud800"), USER))
    said = run("check", "--provider", provider, path)
    assert said.code in (0, 1) and b"internal error" not in said.stdout + said.stderr.encode(), said.stderr
    out = tmp_path / "out.json"
    assert run("repair", "--provider", "mistral", path, "-o", out).code == 0
    assert run("check", "--provider", "mistral", out).code == 0


def test_triage_keeps_a_row_for_a_lone_surrogate_in_an_id_or_a_file_name(tmp_path: Path) -> None:
    """Found by review: a lone surrogate (an id read from `\\udXXX`, or a file name that is not UTF-8) reached the
    Parquet table, which holds UTF-8 only: exit 70 and no table, though "a bad file is a row, never a failed
    run".  The table holds such text escaped, as the CLI prints it."""
    import pyarrow.parquet as pq

    folder = tmp_path / "in"
    folder.mkdir()
    write(folder / "id.json", as_array(USER, call_turn('"ok"', call_id="call_\\udc00"), USER))
    write(Path(os.fsdecode(os.path.join(os.fsencode(folder), b"g\xff.json"))), ORPHAN)
    table = tmp_path / "fleet.parquet"
    done = run("triage", folder, "--out", table, "--workers", "1", "--provider", "mistral")
    assert done.code == 0, done.stderr
    paths = sorted(pq.read_table(table).column("path").to_pylist())
    assert len(paths) == 2 and paths[0].endswith("g\\udcff.json"), paths
    said = " ".join(pq.read_table(tmp_path / "fleet.findings.parquet").column("message").to_pylist())
    assert "call_\\udc00" in said


def test_a_file_name_that_is_not_utf8_is_printed_escaped(tmp_path: Path) -> None:
    name = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"in\xff.json"))  # '\udcff' stands for the byte
    write(Path(name), ORPHAN)
    shown = run("check", name)
    assert shown.code == 1 and b"in\\udcff.json: " in shown.stdout
    missing = assert_clean_failure(run("check", name + "x"))
    assert "in\\udcff.jsonx: no such file" in missing


# ---------------------------------------------------------------- no crash


def test_an_unexpected_exception_is_one_line_and_its_own_exit_code(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import integrity.pipeline

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("a bug\nover two lines")

    monkeypatch.setattr(integrity.pipeline, "diagnose", broken)  # (the diagnosis, where the pipeline calls it)
    path = write(tmp_path / "in.json", ORPHAN)
    result = run("check", path)
    message = assert_clean_failure(result, EXIT_INTERNAL)
    assert message.startswith(f"internal error: {path}: KeyError: ") and "--debug" in message
    assert EXIT_INTERNAL not in (0, 1, 2)
    debug = run("check", "--debug", path)
    assert debug.code == EXIT_INTERNAL and "Traceback" in debug.stderr
    assert run("--debug", "check", path).stderr.count("Traceback") == 1


def test_exit_codes_are_in_the_help_and_the_cli_guide() -> None:
    shown = run("--help")
    assert shown.code == 0
    text = shown.stdout.decode()
    assert f"{EXIT_INTERNAL}  internal error" in text
    assert "internal error" in run("repair", "--help").stdout.decode()
    guide = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")  # the README links to it for exit codes
    assert f"`{EXIT_INTERNAL}`" in guide and "--debug" in guide
    assert "docs/cli.md" in (REPO / "README.md").read_text(encoding="utf-8")


def test_running_out_of_memory_is_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import integrity.formats.container as container

    def exhausted(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError()

    path = write(tmp_path / "in.json", as_envelope(USER, '{"role":"toolResult"}'))
    monkeypatch.setattr(container, "decode_text", exhausted)  # the exact parser
    monkeypatch.setattr(container, "_fast_document", exhausted)  # and the fast reader before it
    message = assert_clean_failure(run("check", "--provider", "anthropic", path))
    assert "not enough memory" in message and str(path) in message


def test_a_file_larger_than_the_memory_allowed_is_one_line_exit_2(tmp_path: Path) -> None:
    """A real process under an address-space limit smaller than what reading the file needs."""
    resource = pytest.importorskip("resource")  # POSIX only; the CI machine has it
    big = tmp_path / "big.jsonl"
    line = json.dumps({"role": "user", "content": "x" * 200, "timestamp": 1}).encode() + b"\n"
    big.write_bytes(line * 400_000)  # ~90 MB of text: several times that as objects
    limit = 300 * 1024 * 1024

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = run_process("check", "--provider", "anthropic", big, preexec_fn=cap, timeout=120)
    stderr = done.stderr.decode()
    assert done.returncode == 2, stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    assert "memory" in stderr and str(big) in stderr


def test_a_closed_standard_output_is_quiet_and_keeps_the_verdict(tmp_path: Path) -> None:
    path = write(tmp_path / "in.json", as_array(*([USER, call_turn("1")] * 3000)))  # output > a pipe buffer
    script = (f"{sys.executable} -m integrity check {path} {path} | head -c 0; echo \" $?\" ${{PIPESTATUS[0]}}; "
              f"{sys.executable} -m integrity repair {path} | head -c 10 >/dev/null; echo \" $?\" ${{PIPESTATUS[0]}}")
    done = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.stderr == b""  # no traceback, no "Exception ignored"
    assert done.stdout.split() == [b"0", b"1", b"0", b"0"]  # check: needs repair (1); repair: written (0)


def test_repair_writes_its_best_view_and_says_what_check_still_flags(tmp_path: Path) -> None:
    """Every message dropped (a lone result no call owns): the empty view is written, exit 1, one note says so."""
    for name, data in (("lone.json", b'[{"role":"toolResult","content":"x"}]'),
                       ("stray.jsonl", as_jsonl('{"role":"toolResult","toolCallId":"x","toolName":"t",'
                                                '"content":[],"isError":false}'))):
        path = write(tmp_path / name, data)
        out, report = tmp_path / f"{name}.out", tmp_path / f"{name}.report"
        done = run("repair", path, "-o", out, "--report", report)
        assert done.code == 1 and not done.error_lines, done.stderr
        assert "nothing is left after repair" in done.stderr and out.exists() and report.exists()
        assert path.read_bytes() == data


def test_repair_writes_a_view_check_would_still_flag_and_names_the_finding(tmp_path: Path) -> None:
    """A malformed entry the strict view keeps as it is: the view is written, exit 1, the finding named."""
    data = as_array(USER, '{"role":"banana"}', call_turn('"x"'))
    path = write(tmp_path / "in.json", data)
    assert run("check", path).code == 1
    out, report = tmp_path / "out.json", tmp_path / "report.json"
    done = run("repair", path, "-o", out, "--report", report)
    assert done.code == 1 and not done.error_lines, done.stderr
    [line] = done.stderr.splitlines()
    assert "`check` still flags it" in line and "banana" in line
    assert out.exists() and report.exists() and path.read_bytes() == data
    assert run("check", out).code == 1  # what it says is left is what check says
    # The reference policy is the reference: it writes what the reference would.
    assert run("repair", "--policy", "openmaic", path, "-o", out).code == 0 and out.exists()


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir() if p.suffix in (".json", ".jsonl")))
def test_every_sample_repairs_to_a_file_check_calls_healthy(tmp_path: Path, sample: str) -> None:
    out = tmp_path / ("out" + Path(sample).suffix)
    repaired = run("repair", SAMPLES / sample, "-o", out, "--report", tmp_path / "r.json")
    assert repaired.code == 0, repaired.stderr
    assert passes_check(out), run("check", out).stdout
    json.loads((tmp_path / "r.json").read_bytes())


# ---------------------------------------------------------------- reading


def test_a_fifo_as_input_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    done = run_process("check", fifo, timeout=30)  # a hang would raise TimeoutExpired
    assert time.monotonic() - started < 30
    stderr = done.stderr.decode()
    assert done.returncode == 2 and len(stderr.strip().splitlines()) == 1
    assert "is a FIFO, not a regular file" in stderr and "'-'" in stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_directory_and_a_socket_as_input_are_refused(tmp_path: Path) -> None:
    assert "is a directory" in assert_clean_failure(run("check", tmp_path))
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "s"))
        assert "is a socket" in assert_clean_failure(run("check", tmp_path / "s"))


def test_an_odd_file_name_stays_on_one_line(tmp_path: Path) -> None:
    odd = tmp_path / "two\nlines \x1b[31mred.json"
    message = assert_clean_failure(run("check", odd))
    assert "\\x0a" in message and "\\x1b" in message and "no such file" in message


# ---------------------------------------------------------------- writing: what is refused


def input_file(tmp_path: Path, data: bytes = ORPHAN) -> Path:
    return write(tmp_path / "in.json", data)


def assert_refused(result: Result, path: Path | str, words: str) -> None:
    message = assert_clean_failure(result)
    assert message.startswith(f"error: {path}: "), message
    assert words in message, message


def test_the_output_or_report_is_never_the_input(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    os.link(source, tmp_path / "hard.json")
    os.symlink(source, tmp_path / "link.json")
    out = tmp_path / "out.json"
    cases = [
        ["repair", source, "-o", source],
        ["repair", source, "-o", out, "--report", source],
        ["repair", source, "-o", tmp_path / "hard.json"],
        ["repair", source, "-o", tmp_path / "link.json"],
        ["repair", source, "-o", tmp_path / "sub" / ".." / "in.json"],
    ]
    (tmp_path / "sub").mkdir()
    for argv in cases:
        assert_refused(run(*argv), argv[-1], "is the input file")
    assert source.read_bytes() == ORPHAN and not out.exists()


def test_standard_input_redirected_from_the_output_file_is_the_input(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    with source.open("rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "integrity", "repair", "-", "-o", str(source)], stdin=stdin,
                              cwd=REPO, capture_output=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2 and b"is the input file" in done.stderr
    assert source.read_bytes() == ORPHAN


def test_output_and_report_must_be_different_files(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    out = tmp_path / "out.json"
    assert_refused(run("repair", source, "-o", out, "--report", out), out, "need different files")
    write(out, b"old")
    os.symlink(out, tmp_path / "alias.json")
    assert_refused(run("repair", source, "-o", out, "--report", tmp_path / "alias.json"),
                   tmp_path / "alias.json", "need different files")
    assert out.read_bytes() == b"old"


def test_special_files_are_never_replaced(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "out.sock"))
        for flag, target, kind in (("--report", fifo, "a FIFO"), ("-o", tmp_path / "out.sock", "a socket"),
                                   ("-o", tmp_path, "a directory")):
            argv = ["repair", source, flag, target] + (["-o", tmp_path / "o.json"] if flag == "--report" else [])
            assert_refused(run(*argv), target, f"is {kind}, not a regular file")
        assert stat.S_ISSOCK((tmp_path / "out.sock").stat().st_mode)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert not (tmp_path / "o.json").exists()


def test_a_link_to_a_special_file_or_to_nothing_is_refused(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    fifo = tmp_path / "f.fifo"
    os.mkfifo(fifo)
    os.symlink(fifo, tmp_path / "to_fifo.json")
    os.symlink(tmp_path / "missing.json", tmp_path / "dangling.json")
    assert_refused(run("repair", source, "-o", tmp_path / "to_fifo.json"), tmp_path / "to_fifo.json", "a FIFO")
    assert_refused(run("repair", source, "-o", tmp_path / "dangling.json"), tmp_path / "dangling.json",
                   "symbolic link to a missing file")
    assert stat.S_ISFIFO(fifo.stat().st_mode) and not (tmp_path / "missing.json").exists()


def test_an_empty_name_or_a_folder_path_is_refused(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    assert "an empty file name for the repaired transcript" in assert_clean_failure(run("repair", source, "-o", ""))
    assert "an empty file name for the report" in assert_clean_failure(
        run("repair", source, "-o", tmp_path / "o.json", "--report", ""))
    assert_refused(run("repair", source, "-o", f"{tmp_path}/new/"), f"{tmp_path}/new/", "names a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.json"]


def test_a_missing_folder_is_named_by_the_users_path(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    target = tmp_path / "nowhere" / "out.json"
    assert_refused(run("repair", source, "-o", target), target, "folder does not exist")


# ---------------------------------------------------------------- writing: how


def test_a_symbolic_link_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    target = write(tmp_path / "real.json", b"old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    os.symlink(target, link)
    assert run("repair", source, "-o", link).code == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert passes_check(target)


def test_an_existing_outputs_mode_is_kept_and_a_new_one_follows_the_umask(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    private = write(tmp_path / "private.json", b"old")
    private.chmod(0o600)
    report = write(tmp_path / "report.json", b"old")
    report.chmod(0o600)
    assert run("repair", source, "-o", private, "--report", report).code == 0
    assert stat.S_IMODE(private.stat().st_mode) == 0o600 and stat.S_IMODE(report.stat().st_mode) == 0o600
    mask = os.umask(0o027)
    try:
        assert run("repair", source, "-o", tmp_path / "new.json").code == 0
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640


def test_report_dash_is_standard_output_and_then_the_transcript_needs_a_file(tmp_path: Path) -> None:
    source = input_file(tmp_path)
    out = tmp_path / "out.json"
    shown = run("repair", source, "-o", out, "--report", "-")
    assert shown.code == 0
    assert "report_version" in json.loads(shown.stdout)
    assert passes_check(out)
    assert not (REPO / "-").exists() and not (tmp_path / "-").exists()
    for argv in (["repair", source, "--report", "-"], ["repair", source, "-o", "-", "--report", "-"]):
        message = assert_clean_failure(run(*argv))
        assert "cannot both go to standard output" in message and "-o FILE" in message


def temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".integrity-tmp") or ".integrity-tmp" in p.name]


def test_a_full_disk_while_writing_the_report_is_a_report_failure_and_leaves_neither(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = input_file(tmp_path)
    out = write(tmp_path / "out.json", b"old output")
    report = tmp_path / "report.json"
    real = atomic_write._write_temporary

    def full_for_the_report(target: atomic_write.Target, produce: Callable[..., Any]) -> None:
        if target.what == "report":
            def no_space(stream: Any) -> None:
                stream.write(b"{")
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            produce = no_space
        real(target, produce)

    monkeypatch.setattr(atomic_write, "_write_temporary", full_for_the_report)
    message = assert_clean_failure(run("repair", source, "-o", out, "--report", report))
    assert message.startswith(f"error: {report}: cannot write the report: No space left on device")
    assert "no file was written" in message and "integrity-tmp" not in message
    assert out.read_bytes() == b"old output" and not report.exists()
    assert temporaries(tmp_path) == []


def test_a_failed_rename_puts_back_what_was_already_renamed(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    source = input_file(tmp_path)
    out = write(tmp_path / "out.json", b"old output")
    fresh = tmp_path / "fresh.json"
    real_replace = os.replace

    def failing(src: Any, dst: Any) -> None:
        if str(dst) == str(tmp_path / "report.json") or str(dst) == str(tmp_path / "r2.json"):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    message = assert_clean_failure(run("repair", source, "-o", out, "--report", tmp_path / "report.json"))
    assert message.startswith(f"error: {tmp_path / 'report.json'}: cannot write the report")
    assert out.read_bytes() == b"old output"  # the transcript was renamed, then put back
    assert_clean_failure(run("repair", source, "-o", fresh, "--report", tmp_path / "r2.json"))
    assert not fresh.exists()  # a new file that was renamed into place is removed again
    assert temporaries(tmp_path) == []


def test_an_unwritable_output_is_named_by_the_users_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = input_file(tmp_path)
    target = tmp_path / "out.json"

    def refused(path: str) -> int:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)

    monkeypatch.setattr(atomic_write, "_create", refused)
    message = assert_clean_failure(run("repair", source, "-o", target))
    # the folder that takes no new file is named, not only the target (which may well exist: -o /proc/version)
    assert message.startswith(f"error: {target}: cannot write the repaired transcript: cannot make a new file in "
                              f"{tmp_path} (Permission denied)")
    assert "integrity-tmp" not in message


SLOW_WRITER = textwrap.dedent("""
    import sys, time
    from integrity._bulk import atomic_write
    from integrity.cli import main
    real = atomic_write._write_temporary
    def slow(target, produce):
        def stalled(stream):
            produce(stream)
            stream.flush()
            sys.stderr.write("writing\\n"); sys.stderr.flush()
            time.sleep(60)
        real(target, stalled)
    atomic_write._write_temporary = slow
    sys.exit(main(sys.argv[1:]))
""")


@pytest.mark.parametrize("signum, code, word", [(signal.SIGTERM, 143, "terminated"),
                                                (signal.SIGINT, 130, "interrupted")])
def test_a_signal_while_writing_removes_the_temporary_files(tmp_path: Path, signum: int, code: int,
                                                            word: str) -> None:
    source = input_file(tmp_path)
    out = write(tmp_path / "out.json", b"old output")
    # SIGINT at its default in the child, as in a terminal: a test run started in the background by a shell
    # without job control inherits SIGINT ignored, and Python then never raises KeyboardInterrupt
    child = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, "repair", str(source), "-o", str(out)],
                             cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stderr is not None
        assert child.stderr.readline() == b"writing\n"
        assert temporaries(tmp_path)  # the temporary file exists while it is being written
        child.send_signal(signum)
        _, stderr = child.communicate(timeout=30)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == code
    assert stderr.decode().strip() == word
    assert temporaries(tmp_path) == [] and out.read_bytes() == b"old output"
