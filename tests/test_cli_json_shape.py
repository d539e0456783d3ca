"""`check --json`'s shape follows the command line, never what the files turn out to hold.

One file holding one transcript: its report.  Several files: an array, even when all but one cannot be read
(an unreadable file is an error line on standard error); a script reading the output never meets an object
where it expected an array because one file of a run was bad.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_inprocess import run

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"


def _said(*files: object) -> object:
    return json.loads(run("check", "--json", *files).stdout)


def test_one_file_is_its_report(tmp_path: Path) -> None:
    assert isinstance(_said(SAMPLES / "healthy.pi-ai.json"), dict)


def test_several_files_are_an_array_even_when_only_one_is_readable(tmp_path: Path) -> None:
    broken = tmp_path / "torn.json"
    broken.write_text('[{"role": "user", "content": "hi"', encoding="utf-8")
    result = run("check", "--json", SAMPLES / "healthy.pi-ai.json", broken)
    assert result.code == 2 and "torn.json" in result.stderr
    said = json.loads(result.stdout)
    assert isinstance(said, list) and [report["source"] for report in said] == [str(SAMPLES / "healthy.pi-ai.json")]
    assert _said(broken, broken) == []
    assert len(_said(SAMPLES / "healthy.pi-ai.json", SAMPLES / "orphaned_call.pi-ai.json")) == 2  # type: ignore[arg-type]


BRANCHED = Path(__file__).resolve().parent / "real" / "pi_tree_branch.pi-session.jsonl"


def test_a_transcript_listed_and_never_judged_has_its_entry_in_the_json() -> None:
    """An abandoned branch is in check's text, triage's table and the Inspector's picker; a reader of --json
    meets it too, as an entry that says `checked: false` with the same status and reason, never as a report,
    and it changes nothing of the exit status."""
    from integrity import read_report

    text = run("check", BRANCHED)
    said = run("check", "--json", BRANCHED)
    assert said.code == text.code == 0
    payload = json.loads(said.stdout)
    assert isinstance(payload, list) and [entry.get("thread") for entry in payload] == ["main", "branch:538453d7"]
    report, branch = payload
    assert "checked" not in report and read_report(report).healthy
    assert branch == {"source": str(BRANCHED), "format": "pi-session", "thread": "branch:538453d7", "checked": False,
                      "status": "abandoned branch", "messages": 6,
                      "verdict": "abandoned branch, 6 messages (a rewind left it: never sent to the model again, "
                                 "so not checked)"}
    line = next(line for line in text.stdout.decode().splitlines() if "#branch:538453d7" in line)
    assert line == f"{BRANCHED}#branch:538453d7: {branch['verdict'][:-1]}; --thread branch:538453d7 checks it)"
    lines = [json.loads(line) for line in run("check", "--json-lines", BRANCHED).stdout.splitlines()]
    assert lines == payload
    assert isinstance(_said("--thread", "main", BRANCHED), dict)  # one transcript asked for: its report alone
    try:
        read_report(branch)
    except ValueError as error:
        assert "never judges (abandoned branch)" in str(error) and "$.checked" in str(error)
    else:
        raise AssertionError("an entry for a transcript never judged is read as a report")
