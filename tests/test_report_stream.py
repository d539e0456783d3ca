"""`check --json` writes a report a chunk at a time, and the bytes are the whole report's.

A report shell (integrity.report.report_shell) has every field of the report but its three long
sections, which integrity.report.text.report_chunks makes, encodes and writes a chunk at a time.
Everything a reader sees must be what `report_bytes(build_report(...))` gives, byte for byte, in both
layouts, once rated by what the providers say (with_recorded) and named (format, thread): the
samples, the real files, generated transcripts with every kind of defect under both policies and
for each provider's view, with chunks of 1 to 7 records so every section is cut many times.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from integrity import POLICIES, PROVIDERS, analyze, load_all
from integrity._diagnosis import recorded_acceptance
from integrity._records import replace
from integrity.analysis import reader_findings, schema_findings
from integrity.loading import Transcript, TranscriptError
from integrity.report import build_report, report_shell, sections_of, with_recorded
from integrity.report import sections as sections_module
from integrity.report.text import report_bytes, report_chunks

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted([*(ROOT / "sample_transcripts").glob("*.json*"), *(ROOT / "tests" / "real").glob("*.*")])
FILES = [path for path in FILES if path.suffix != ".md"]
sys.path.insert(0, str(ROOT / "bench"))
from generate import messages as generated_messages  # noqa: E402


def generated(count: int, seed: int) -> list[Any]:
    return list(generated_messages(count, seed=seed, defect_rate=0.2))


def shell_and_whole(transcript: Transcript, policy: str, provider: str | None) -> tuple[Any, Any]:
    """The report shell and the whole report of one transcript, as analyze plans it."""
    analysis = analyze(transcript, policy, now=lambda: 7, provider=provider, verdicts=False)
    stamps = [entry.timestamp for entry in analysis.report.view if hasattr(entry, "timestamp")]
    schema = [*reader_findings(transcript), *schema_findings(transcript)]
    whole = build_report(analysis.light, analysis.plan, stamps, transcript.source, schema)
    # analyze names the provider the report is judged for even when the plan names none (the reference's)
    assert whole == replace(analysis.report, format=None, thread=None, runtime_results=None,
                            provider=analysis.plan.provider)
    return report_shell(analysis.light, analysis.plan, stamps, transcript.source, schema), whole


def assert_same_text(shell: Any, whole: Any, where: str) -> None:
    for indent in (True, False):
        expected = report_bytes(whole, indent)
        got = b"".join(report_chunks(shell, indent))
        differs = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b), None)
        assert got == expected, f"{where} indent={indent}: first difference at byte {differs}"


RATINGS: list[dict[str, bool]] = [
    {}, {"anthropic": True}, {"anthropic": False},
    {name: True for name in PROVIDERS}, {name: name != "gemini" for name in PROVIDERS},
]


def check_every_rating(transcript: Transcript, policy: str, provider: str | None, where: str) -> None:
    shell, whole = shell_and_whole(transcript, policy, provider)
    assert_same_text(shell, whole, where)
    for rating in RATINGS:
        for named in ({}, {"format": transcript.format, "thread": transcript.name}):
            rated_shell = with_recorded(replace(shell, **named), rating)
            rated_whole = with_recorded(replace(whole, **named), rating)
            assert sections_of(rated_shell) is not None, "with_recorded keeps the shell's sections"
            assert rated_shell.severity == rated_whole.severity and rated_shell.verdict == rated_whole.verdict
            assert_same_text(rated_shell, rated_whole, f"{where} rated {rating} {named}")


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Chunks of a few records: every section of even a small transcript is cut, at every place."""
    monkeypatch.setattr(sections_module, "CHUNK", 3)


def test_there_are_files() -> None:
    assert len(FILES) >= 60


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_every_file_is_written_as_the_whole_report(path: Path) -> None:
    try:
        transcripts = load_all(path.read_bytes(), path.name)
    except TranscriptError:
        return  # a file no reader takes has no report (tests/test_cli_safety.py: its one-line error)
    for transcript in transcripts:
        for policy in POLICIES:
            for provider in (None, "anthropic", "gemini", "bedrock"):
                check_every_rating(transcript, policy, provider, f"{path.name}:{transcript.name} {policy} {provider}")


@pytest.mark.parametrize("seed", range(24))
def test_generated_transcripts_are_written_as_the_whole_report(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sections_module, "CHUNK", 1 + seed % 7)
    rng = random.Random(seed)
    messages = generated(rng.randrange(20, 400), seed=seed)
    transcript = Transcript(messages, f"generated-{seed}.json")
    for policy in POLICIES:
        check_every_rating(transcript, policy, rng.choice([None, *PROVIDERS]), f"seed {seed} {policy}")


def test_a_lone_surrogate_takes_the_standard_librarys_path_chunk_by_chunk() -> None:
    messages: list[Any] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "a\ud800", "name": "t\udfff", "arguments": {}}]},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "b", "name": "é", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": "b", "toolName": "é", "content": [], "isError": False},
    ]
    for policy in POLICIES:
        check_every_rating(Transcript(messages, "surrogate\ud800.json"), policy, None, policy)


def test_an_empty_transcript_has_empty_sections_in_both_layouts() -> None:
    shell, whole = shell_and_whole(Transcript([], "empty.json"), "strict", None)
    assert_same_text(shell, whole, "empty")
    text = b"".join(report_chunks(shell, True)).decode()
    assert '"actions": [],' in text and '"view": []' in text


def test_the_sections_are_rated_as_with_recorded_rates_the_whole_report() -> None:
    messages = generated(60, seed=3)
    shell, whole = shell_and_whole(Transcript(messages, "g.json"), "strict", "openai-chat")
    rated = with_recorded(shell, {"openai-chat": True})  # the target accepts it as recorded
    assert recorded_acceptance(rated) is True
    data = json.loads(b"".join(report_chunks(rated, False)))
    expected = json.loads(report_bytes(with_recorded(whole, {"openai-chat": True}), False))
    assert data["actions"] == expected["actions"] and data["view"] == expected["view"]
    assert {action["severity"] for action in data["actions"]} != {"rejected"}


def test_check_json_over_one_file_and_over_many_writes_the_same_reports(tmp_path: Path) -> None:
    """One file is written a chunk at a time by this process; several go through worker processes,
    which hand their reports back whole: the same reports either way, in both layouts."""
    files = []
    for seed in range(3):
        path = tmp_path / f"t{seed}.json"
        path.write_text(json.dumps(generated(300, seed=seed)))
        files.append(str(path))
    for layout in ("--json", "--json-lines"):
        alone = []
        for path in files:
            done = subprocess.run([sys.executable, "-m", "integrity", "check", layout, "--now", "0", path],
                                  capture_output=True, cwd=ROOT, check=False)
            assert done.returncode == 1 and not done.stderr, done.stderr
            alone.append(json.loads(done.stdout) if layout == "--json" else json.loads(done.stdout))
        together = subprocess.run([sys.executable, "-m", "integrity", "check", layout, "--now", "0", "--jobs", "2",
                                   *files], capture_output=True, cwd=ROOT, check=False)
        assert together.returncode == 1 and not together.stderr, together.stderr
        if layout == "--json":
            assert json.loads(together.stdout) == alone
            # the array's layout is json.dumps's
            assert together.stdout.decode() == json.dumps(alone, indent=2) + "\n"
        else:
            assert [json.loads(line) for line in together.stdout.splitlines()] == alone


def recorded_in_own_turn(messages: list[Any], frame: int, call_id: str) -> list[int]:
    """The plain rule, by scanning the messages: the results recorded under an id from its frame up to the
    next frame using it; the first frame using it owns those recorded before it too."""
    using = [index for index, message in enumerate(messages) if message.get("role") == "assistant"
             and any(part.get("type") == "toolCall" and part.get("id") == call_id
                     for part in message.get("content") or [] if isinstance(part, dict))]
    after = [index for index in using if index > frame]
    low = -1 if frame == using[0] else frame
    high = after[0] if after else len(messages)
    return [index for index, message in enumerate(messages)
            if message.get("role") == "toolResult" and message.get("toolCallId") == call_id and low < index < high]


@pytest.mark.parametrize("policy", POLICIES)
def test_a_reused_id_lists_the_results_of_each_use_s_own_turn(policy: str) -> None:
    def frame(call_id: str) -> dict[str, Any]:
        return {"role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": "t", "arguments": {}}]}

    def result(call_id: str) -> dict[str, Any]:
        return {"role": "toolResult", "toolCallId": call_id, "toolName": "t", "content": [], "isError": False}

    messages = [{"role": "user", "content": "go"}, result("r"), frame("r"), result("r"), frame("x"), result("x"),
                {"role": "user", "content": "again"}, frame("r"), result("r"), result("r"), frame("y"), result("y"),
                frame("r"), {"role": "user", "content": "late"}, result("r")]
    for source in ("plain", "fast"):
        if source == "fast":
            from integrity._bulk.fast_read import read_fast
            from integrity.repair.strict import plan_strict

            if policy != "strict":
                continue
            fast = read_fast(json.dumps(messages).encode(), "reused.json")
            assert fast is not None and fast.light.clean is not None  # the fast path's clean turns
            report = build_report(fast.light, plan_strict(fast.light), source="reused.json")
        else:
            report = analyze(Transcript(messages, "reused.json"), policy).report
        for pairing in report.pairings:
            expected = recorded_in_own_turn(messages, pairing.frame_index, pairing.call_id)
            if pairing.answered_by is not None and pairing.answered_by not in expected:
                expected = sorted([*expected, pairing.answered_by])
            assert pairing.result_indices == expected, (source, pairing)
