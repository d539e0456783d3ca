"""`check --json`, `--json-lines` and `--provider` on the fast path say what the full path says.

The reference here is the general reader and the one pipeline at its fullest depth
(`integrity.pipeline.check(..., depth="view")`: the whole report and the view, rated by the
target provider) and `json.dumps(msgspec.to_builtins(report, str_keys=True), indent=2)`.  Every sample transcript and
generated broken files (pi-ai arrays and JSONL, one above the size at which every
provider is asked about the file as recorded) are compared byte for byte.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec
import pytest
from cli_inprocess import run, run_process

from integrity._bulk.pieces import ascii_only, finished
from integrity._records import replace
from integrity.analysis import load_all
from integrity.cli import RECHECK_UP_TO, _summary_lines, _verdict_lines, pieces_in_array
from integrity.pipeline import check
from integrity.providers import PROVIDERS
from integrity.report.text import report_bytes

REPO = Path(__file__).resolve().parents[1]
SAMPLES = sorted((REPO / "sample_transcripts").glob("*.json*"))
NOW = 1


def _now() -> int:
    return NOW


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    sys.path.insert(0, str(REPO / "bench"))
    from generate import write

    folder = tmp_path_factory.mktemp("generated")
    paths = []
    for count, seed, jsonl in ((150, 1, False), (700, 2, True), (2_000, 3, False),
                               (RECHECK_UP_TO + 500, 4, False)):
        path = folder / f"broken_{count}.{'jsonl' if jsonl else 'json'}"
        write(count, str(path), jsonl=jsonl, seed=seed)
        paths.append(path)
    return paths


def _reference(path: Path, provider: str | None = None, policy: str = "strict") -> list[tuple[object, object]]:
    """(report, verdict) per checked transcript, as the full path makes them."""
    transcripts = load_all(path.read_bytes(), str(path))
    out = []
    for transcript in transcripts:
        if not transcript.checked:
            continue
        result = check(transcript, provider=provider, policy=policy, depth="view", now=_now)
        report = replace(result.report, format=transcript.format, thread=transcript.name)
        out.append((report, result.providers.get(provider) if provider else None))
    return out


def _dumped(reports: list[object]) -> bytes:
    data = [msgspec.to_builtins(report, str_keys=True) for report in reports]
    return (json.dumps(data if len(data) != 1 else data[0], indent=2) + "\n").encode()


def test_there_are_samples() -> None:
    assert len(SAMPLES) >= 20


@pytest.mark.parametrize("policy", ["strict", "openmaic"])
def test_json_is_the_full_paths_json_on_every_sample(policy: str) -> None:
    for path in SAMPLES:
        result = run("check", "--json", "--now", NOW, "--policy", policy, path)
        assert result.code in (0, 1), result.stderr
        assert result.stdout == _dumped([report for report, _ in _reference(path, policy=policy)]), path.name


def test_json_is_the_full_paths_json_on_generated_files(generated: list[Path]) -> None:
    for path in generated:
        result = run("check", "--json", "--now", NOW, path)
        assert result.code == 1, result.stderr
        assert result.stdout == _dumped([report for report, _ in _reference(path)]), path.name


def _provider_text(path: Path, provider: str) -> str:
    lines = []
    for report, verdict in _reference(path, provider):
        label = str(path) if len(_reference(path)) == 1 else f"{path}#{report.thread}"  # type: ignore[attr-defined]
        lines.append("\n".join(_summary_lines(report, label=label)))
        lines.append("\n".join(_verdict_lines(verdict)))  # type: ignore[arg-type]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_provider_lines_are_the_full_paths_on_pi_ai_files(provider: str, generated: list[Path]) -> None:
    """--provider reads pi-ai files on the fast path now; its lines are those analyze gives."""
    pi_ai = [path for path in SAMPLES if ".pi-ai." in path.name] + generated[:3]
    assert len(pi_ai) >= 8
    for path in pi_ai:
        result = run("check", "--provider", provider, "--now", NOW, path)
        assert result.stdout.decode() == _provider_text(path, provider), (path.name, result.stderr)


@pytest.mark.parametrize("provider", ["anthropic", "gemini", "openai-responses"])
def test_json_with_provider_is_the_full_paths(provider: str, generated: list[Path]) -> None:
    for path in [*SAMPLES, *generated[:2]]:
        result = run("check", "--json", "--provider", provider, "--now", NOW, path)
        assert result.stdout == _dumped([report for report, _ in _reference(path, provider)]), path.name


def test_fast_and_general_reader_agree(generated: list[Path]) -> None:
    """--skip-bad-lines keeps a file off the fast path: both readers give the same reports."""
    for path in [*[p for p in SAMPLES if ".pi-ai." in p.name], *generated]:
        fast = run("check", "--json", "--now", NOW, path)
        general = run("check", "--json", "--skip-bad-lines", "--now", NOW, path)
        assert fast.stdout == general.stdout, path.name


def test_json_lines_holds_one_report_per_transcript_per_line(generated: list[Path]) -> None:
    files = [*SAMPLES, *generated[:2]]
    whole = run("check", "--jobs", "1", "--json", "--now", NOW, *files)
    lines = run("check", "--jobs", "1", "--json-lines", "--now", NOW, *files)
    assert lines.code == whole.code == 1
    reports = json.loads(whole.stdout)
    written = lines.stdout.decode().splitlines()
    assert len(written) == len(reports) >= len(files)
    assert [json.loads(line) for line in written] == reports
    assert all(line.isascii() and line.startswith('{"report_version":') for line in written)


def test_json_lines_over_a_pool_come_in_file_order() -> None:
    """Workers hand back each file's report text; the parent writes them in input order (a real
    process: a pool is not forked inside the test runner)."""
    alone = run_process("check", "--jobs", "1", "--json-lines", "--now", NOW, *SAMPLES)
    pooled = run_process("check", "--jobs", "2", "--json-lines", "--now", NOW, *SAMPLES)
    assert pooled.returncode == alone.returncode == 1
    assert pooled.stdout == alone.stdout
    assert [json.loads(line)["source"] for line in pooled.stdout.splitlines()][:3] == [str(p) for p in SAMPLES[:3]]


def test_json_lines_and_json_are_exclusive() -> None:
    result = run("check", "--json", "--json-lines", SAMPLES[0])
    assert result.code == 2 and "not allowed with" in result.stderr


def test_one_unreadable_file_among_two_leaves_an_array_of_one_report(tmp_path: Path) -> None:
    """Several files give an array whatever they hold (tests/test_cli_json_shape.py), on the fast path too."""
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"[{")
    healthy = REPO / "sample_transcripts" / "healthy.pi-ai.json"
    result = run("check", "--jobs", "1", "--json", "--now", NOW, healthy, broken)
    assert result.code == 2
    assert [report["source"] for report in json.loads(result.stdout)] == [str(healthy)]
    assert run("check", "--json", broken).stdout == b"[]\n"


ODD = ["plain", "caf\u00e9", "\u2028line", "emoji \U0001f600", "del \x7f", "controls \x00\x1f\n\t\"\\/",
       "lone \udc80 surrogate", "\uffff"]


@pytest.mark.parametrize("text", ODD)
def test_report_text_is_json_dumps(text: str) -> None:
    from integrity.report import Summary

    class Holder(Summary, frozen=True, kw_only=True):
        note: str
        table: dict[int, str]
        empty: list[int]

    holder = Holder(messages=1, view_messages=1, calls=0, results=0, orphaned_calls=0, duplicates_dropped=0,
                    moved=0, frames_dropped=0, strays_dropped=0, synthesized=0, strays=0, findings=0, renamed=0,
                    note=text, table={-1: text, 3: "x"}, empty=[])
    data = msgspec.to_builtins(holder, str_keys=True)
    assert report_bytes(holder).decode() == json.dumps(data, indent=2)
    assert report_bytes(holder, indent=False).decode() == json.dumps(data, separators=(",", ":"))
    assert ascii_only(json.dumps(text, ensure_ascii=False)) == json.dumps(text) or "\udc80" in text
    in_array = b"".join(map(finished, pieces_in_array([report_bytes(holder)])))
    assert in_array == json.dumps([data], indent=2)[2:-2].encode()


def test_reports_hold_no_floats() -> None:
    """report_bytes re-indents with msgspec, whose float spelling is not json.dumps's: no report field is one."""
    import typing

    from integrity.report import RepairReport

    seen: set[object] = set()

    def types_in(annotation: object) -> list[object]:
        return [annotation, *(found for arg in typing.get_args(annotation) for found in types_in(arg))]

    def floats(model: object) -> list[str]:
        """Every float-typed field reachable from a record (a msgspec struct: integrity._records)."""
        found = []
        hints = typing.get_type_hints(model)
        for name in getattr(model, "__struct_fields__", ()):
            for candidate in types_in(hints[name]):
                if candidate is float:
                    found.append(f"{model}.{name}")
                if hasattr(candidate, "__struct_fields__") and candidate not in seen:
                    seen.add(candidate)
                    found += floats(candidate)
        return found

    assert floats(RepairReport) == []
    assert len(seen) >= 6  # the walk reached the nested models (actions, view entries, findings...)


def _written_messages(path: Path) -> list[object]:
    data = path.read_bytes()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    loaded = json.loads(data)
    return loaded["messages"] if isinstance(loaded, dict) else loaded


@pytest.mark.parametrize("provider", PROVIDERS)
def test_repair_with_provider_writes_the_full_paths_view_and_keeps_unchanged_bytes(
        provider: str, generated: list[Path], tmp_path: Path) -> None:
    """`repair --provider P` of a pi-ai file takes the fast path: the same verdict lines, exit code and view as the
    general reader (--skip-bad-lines keeps a file off the fast path), and every message the view keeps as it is
    keeps its bytes (a JSONL line of the input is written again only where the view changed its message)."""
    spaced = tmp_path / "spaced.jsonl"  # JSONL as json.dumps writes it (the generator writes compact lines)
    spaced.write_text("".join(json.dumps(json.loads(line)) + "\n" for line in generated[1].read_text().splitlines()))
    for path in [*[p for p in SAMPLES if ".pi-ai." in p.name], *generated[:2], spaced]:
        fast, general = tmp_path / f"fast-{path.name}", tmp_path / f"general-{path.name}"
        said = run("repair", "--provider", provider, "--now", NOW, path, "-o", fast)
        full = run("repair", "--provider", provider, "--now", NOW, "--skip-bad-lines", path, "-o", general)
        assert (said.code, said.stderr) == (full.code, full.stderr), path.name
        assert _written_messages(fast) == _written_messages(general), path.name
        if path.suffix == ".jsonl":
            lines = path.read_bytes().splitlines()
            recorded = {json.dumps(json.loads(line), sort_keys=True): line for line in lines}
            written = fast.read_bytes().splitlines()
            kept = [recorded.get(json.dumps(json.loads(line), sort_keys=True)) for line in written]
            assert all(same is None or same == line for same, line in zip(kept, written, strict=True)), path.name
            assert sum(same is not None for same in kept) > len(lines) / 3, path.name  # (Mistral renames every call)
