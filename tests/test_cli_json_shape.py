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
