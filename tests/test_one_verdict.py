"""One answer everywhere: the CLI, triage and the Batch page say the same about the same file.

Every sample and every file under tests/real/ goes through `integrity check --json` (a
subprocess-free run of the real CLI), triage's per-file worker function and the Batch page's
row builder; each transcript's status, severity, verdict, exit status and counts must agree,
and agree with `integrity.check` (the one pipeline), for the default target and for a named one;
a transcript listed and never judged (an abandoned branch, a compacted-away part) is listed by
each with one status.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from inspector.batch import DEFECT_COLUMNS, RUNTIME_SENDS, summarize_all
from integrity import load_all
from integrity.naming import runtime_results_said
from integrity.pipeline import UNJUDGED_STATUSES, Status, check, status_of, unjudged
from integrity.triage import triage_file

REPO = Path(__file__).resolve().parents[1]
FILES = sorted(p for folder in ("sample_transcripts", "tests/real") for p in (REPO / folder).iterdir()
               if p.is_file() and p.suffix != ".md")
COUNTS = ("messages", "calls", "orphaned_calls", "duplicates_dropped", "strays", "moved", "frames_dropped",
          "synthesized", "findings", "reshaped")


def _cli(path: Path, provider: str | None, policy: str) -> tuple[int, list[dict[str, Any]]]:
    args = ["check", "--json", "--now", "0", "--policy", policy, *(["--provider", provider] if provider else []),
            str(path)]
    result = run(*args)
    if result.code == 2:
        return 2, []
    payload = json.loads(result.stdout)
    return result.code, payload if isinstance(payload, list) else [payload]


def _by_thread(reports: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {report.get("thread") or "main": report for report in reports}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
@pytest.mark.parametrize(("policy", "provider"), [("strict", None), ("strict", "anthropic"), ("strict", "bedrock"),
                                                  ("strict", "gemini"), ("strict", "gemini-2"), ("openmaic", None),
                                                  ("openmaic", "openai-chat")])
def test_cli_triage_batch_and_the_api_agree(path: Path, policy: str, provider: str | None) -> None:
    data = path.read_bytes()
    code, reports = _cli(path, provider, policy)
    batch = summarize_all(path.name, data, policy, provider=provider)
    if code == 2:  # unreadable: every surface says so
        assert [row["status"] for row in batch] == [str(Status.UNREADABLE)]
        if provider is None:
            rows, _ = triage_file(str(path), [], policy) or ([], [])
            assert [row["status"] for row in rows] == [str(Status.UNREADABLE)]
        return
    every = load_all(data, str(path))
    transcripts = [t for t in every if t.checked]
    entries = [report for report in reports if report.get("checked") is False]  # listed, never judged
    assert [(entry["thread"], entry["status"], entry["messages"]) for entry in entries] == \
        [(t.name, str(unjudged(t.kind)[0]), len(t.messages)) for t in every if not t.checked]
    cli = _by_thread([report for report in reports if report.get("checked") is not False])
    assert len(cli) == len(transcripts)
    statuses = []
    for transcript in transcripts:
        result = check(transcript, provider=provider, policy=policy)
        report = cli[transcript.name]
        # the API and the CLI: one pipeline
        assert (report["healthy"], report["severity"], report["verdict"], report["changed"]) == \
            (result.healthy, result.severity.value, result.verdict, result.report.changed), transcript.name
        assert {key: report["summary"].get(key, 0) for key in COUNTS} == \
            {key: getattr(result.summary, key) for key in COUNTS}
        # the results its runtime sends of its own (pi's "No result provided", Codex's "aborted"): one field
        assert report.get("runtime_results") == result.report.runtime_results, transcript.name
        statuses.append(result.status)
        # the Batch page's row
        name = path.name if len(batch) == 1 else f"{path.name}#{transcript.name}"
        [row] = [row for row in batch if row["file"] == name]
        assert (row["status"], row["verdict"]) == (str(result.status), result.verdict), name
        assert row[RUNTIME_SENDS] == (runtime_results_said(result.report) or ""), name  # check's third line
        for field, column in DEFECT_COLUMNS:
            assert row[column] == getattr(result.summary, field), (name, column)
    # the exit status follows the statuses: 0 only when every transcript is healthy
    assert code == (0 if all(status is Status.HEALTHY for status in statuses) else 1), statuses
    if provider is None:  # triage's worker: the same rows (its target is each file's own)
        found = triage_file(str(path), [], policy)
        assert found is not None
        unjudged_rows = {row["thread"] or "main": row["status"] for row in found[0]
                         if row["status"] in {str(status) for status in UNJUDGED_STATUSES}}
        listed = [t for t in every if not t.checked]  # listed, never judged: said alike
        assert unjudged_rows == {t.name: str(unjudged(t.kind)[0]) for t in listed} == \
            {entry["thread"]: entry["status"] for entry in entries}
        assert {row["file"].partition("#")[2]: row["status"] for row in batch if row["status"] in
                {str(status) for status in UNJUDGED_STATUSES}} == unjudged_rows
        # and in the same words: check's JSON record, triage's row and the Batch page's row
        said = {entry["thread"]: entry["verdict"] for entry in entries}
        assert {row["thread"] or "main": row["verdict"] for row in found[0]
                if row["status"] in {str(status) for status in UNJUDGED_STATUSES}} == said
        assert {row["file"].partition("#")[2]: row["verdict"] for row in batch
                if row["status"] in {str(status) for status in UNJUDGED_STATUSES}} == said
        rows = [row for row in found[0] if row["status"] not in {str(status) for status in UNJUDGED_STATUSES}]
        assert [(row["status"], row["severity"], row["verdict"]) for row in rows] == \
            [(str(status), cli[t.name]["severity"], cli[t.name]["verdict"])
             for status, t in zip(statuses, transcripts, strict=True)]
        for row, transcript in zip(rows, transcripts, strict=True):
            assert {key: row[key] for key in COUNTS} == {key: cli[transcript.name]["summary"].get(key, 0)
                                                         for key in COUNTS}
            assert row["runtime_results"] == len(cli[transcript.name].get("runtime_results") or {})


def test_the_status_rule_is_one_function() -> None:
    """status_of is the only rule: the batch, triage and CheckResult all name its values."""
    [transcript] = load_all((REPO / "sample_transcripts" / "split_results.bedrock.json").read_bytes(), "x")
    result = check(transcript)
    assert result.status is status_of(result.report)
    assert result.exit_code == (0 if result.status is Status.HEALTHY else 1)


def test_triage_is_deterministic_and_asks_each_provider_about_its_own_view(tmp_path: Path) -> None:
    """Views and requests are never cached by the id() of a freed object: three runs, one table."""
    paths = [p for p in FILES if p.suffix == ".json"][:12]
    runs = []
    for _ in range(3):
        rows = []
        for path in paths:
            found = triage_file(str(path), ["all"], "strict")
            assert found is not None
            rows.extend(found[0])
        runs.append(rows)
    assert runs[0] == runs[1] == runs[2]
    for path in paths:  # and every provider column is what `check --provider P` says of it
        found = triage_file(str(path), ["all"], "strict")
        assert found is not None
        for row in found[0]:
            if row["status"] in (str(Status.UNREADABLE), str(Status.ABANDONED)) or row["thread"]:
                continue
            [transcript] = [t for t in load_all(path.read_bytes(), str(path)) if t.checked]
            for provider in ("mistral", "bedrock", "anthropic"):
                said = check(transcript, provider=provider).providers[provider]
                assert row[f"{provider} after repair"] == ("accepted" if said.accepted_after_repair
                                                            else "rejected"), (path.name, provider)


def test_triage_columns_judged_from_the_light_view_are_what_check_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """Triage reads a pi-ai file without bones when every provider it asks is judged from the light view
    (providers.sparse); each column is then what the one pipeline says of the transcript read in full."""
    from integrity.pipeline import read_bones
    from integrity.providers import PROVIDERS

    light = list(PROVIDERS)  # every provider: by stretches (providers.sparse) or by items (sparse_items)
    import integrity.skeleton_verdicts as on_skeletons
    from integrity._bulk.fast_read import read_fast

    used: list[bool] = []
    real = on_skeletons.sparse_verdicts
    monkeypatch.setattr(on_skeletons, "sparse_verdicts", lambda *args: used.append(True) or real(*args))
    assert read_bones(light) == "items" and read_bones(["anthropic", "gemini"]) == "hints"
    checked = 0
    for path in FILES:
        if read_fast(path.read_bytes(), str(path)) is None:  # not read by the fast path: judged as ever
            continue
        found = triage_file(str(path), light, "strict")
        assert found is not None
        for row in found[0]:
            if row["status"] in (str(Status.UNREADABLE), str(Status.ABANDONED)) or row["thread"]:
                continue
            [transcript] = [t for t in load_all(path.read_bytes(), str(path)) if t.checked]
            for provider in light:
                said = check(transcript, provider=provider).providers[provider]
                assert (row[f"{provider} as recorded"], row[f"{provider} after repair"]) == (
                    "accepted" if said.accepted_as_recorded else "rejected",
                    "accepted" if said.accepted_after_repair else "rejected"), (path.name, provider)
            checked += 1
    # (judged from the light view: check's own reading is the general one; a file with an interrupted frame
    # written with no block is judged on the bones when Bedrock is asked, skeleton_verdicts.sparse_letters)
    assert checked >= 8 and len(used) >= 7


@pytest.mark.parametrize("provider", [None, "openai-responses", "anthropic"])
def test_cli_triage_batch_and_the_api_agree_on_a_string_above_the_limit(provider: str | None, tmp_path: Path) -> None:
    """The same comparison as for the committed files, on a generated file holding one string above OpenAI's limit
    (its target, openai-chat, and openai-responses cut it; Anthropic takes it as it is)."""
    from test_screens_agree import _long_output_request

    test_cli_triage_batch_and_the_api_agree(_long_output_request(tmp_path / "long.openai-chat.json"), "strict",
                                            provider)
