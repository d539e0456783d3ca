"""A report of a newer version than this one reads says so, by its version, instead of naming the first field
it happens to lack (an uploaded report_version 99 said "missing required field `policy`")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_inprocess import run

from integrity._records import invalid_where
from integrity.report.build import REPORT_VERSION, read_report

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"


def test_a_newer_report_is_named_by_its_version() -> None:
    with pytest.raises(ValueError) as refused:
        read_report({"report_version": REPORT_VERSION + 96})
    assert invalid_where(refused.value) == (
        "report_version", f"{REPORT_VERSION + 96} is newer than this version of integrity reads (1 to "
                          f"{REPORT_VERSION}): read it with the version that wrote it")


def test_a_report_this_version_wrote_reads_back() -> None:
    written = json.loads(run("check", "--json", SAMPLES / "orphaned_call.pi-ai.json").stdout)
    assert written["report_version"] == REPORT_VERSION
    assert read_report(written).summary.orphaned_calls == 1
