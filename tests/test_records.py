"""The report's and the verdict's records (integrity._records): msgspec structs, used through msgspec's API.

They replaced pydantic models to halve `check`'s start-up and speed up `check --json`; these
tests hold what that must not change: `check` and `repair` of a pi-ai file never load pydantic,
the records encode, copy (side data included) and validate as the models did, older reports
read (integrity.report.read_report), and a report round-trips through its JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from _pydantic_probe import PROBE

from integrity import POLICIES, load
from integrity._diagnosis import Diagnosis, Summary, diagnose, with_recorded
from integrity._findings import Finding
from integrity._records import invalid_where, json_text, replace
from integrity.kinds import FindingCode, Severity
from integrity.providers import Violation, validate_recorded
from integrity.repair.policies import PLANNERS
from integrity.repair.views import light_transcript
from integrity.report import RepairReport, build_report, read_report, report_shell, sections_of

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_transcripts"


@pytest.mark.parametrize("command", [["check"], ["check", "--policy", "openmaic"], ["repair", "-o", "{out}"]])
@pytest.mark.parametrize("sample", ["orphaned_call.pi-ai.json", "healthy.pi-ai.json"])
def test_check_and_repair_of_a_pi_ai_file_never_load_pydantic(command: list[str], sample: str,
                                                              tmp_path: Path) -> None:
    args = [part.replace("{out}", str(tmp_path / "out.json")) for part in command]
    done = subprocess.run([sys.executable, "-c", PROBE, *args[:1], str(SAMPLES / sample), *args[1:]],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "pydantic not loaded" in done.stderr, done.stderr
    assert done.stdout or command[0] == "repair"  # it did its work


def test_a_full_report_of_a_pi_ai_file_needs_no_pydantic_either() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, "check", "--json", str(SAMPLES / "orphaned_call.pi-ai.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "pydantic not loaded" in done.stderr and json.loads(done.stdout)["actions"]


def _finding(**extra: object) -> Finding:
    return Finding(kind=FindingCode.STRAY_RESULT, severity=Severity.REJECTED, durable_indices=[3],
                   call_id=None, message="m", **extra)  # type: ignore[arg-type]


def test_a_finding_dumps_its_positions_only_when_it_has_them() -> None:
    plain = _finding()
    assert msgspec.to_builtins(plain) == {"kind": "stray_result", "severity": "rejected", "durable_indices": [3],
                                          "call_id": None, "message": "m"}
    positioned = _finding(entry=0, line=1, path="content[0]")
    assert msgspec.to_builtins(positioned)["entry"] == 0  # entry 0 is a position, not "none"
    assert json.loads(msgspec.json.encode(positioned)) == msgspec.to_builtins(positioned)


def test_a_finding_from_an_older_report_gets_its_kinds_severity() -> None:
    data = _report_data()
    data["report_version"] = 2
    data["findings"] = [{"kind": "stray_result", "severity": "error", "durable_indices": [1], "message": "m"}]
    assert read_report(data).findings[0].severity is Severity.REJECTED
    data["findings"][0]["severity"] = "bogus"
    with pytest.raises(ValueError, match="severity"):
        read_report(data)


def test_records_are_frozen_and_copy_with_changes() -> None:
    finding = _finding()
    with pytest.raises(AttributeError):
        finding.severity = Severity.INFO  # type: ignore[misc]
    lowered = replace(finding, severity=Severity.NORMALIZED)
    assert lowered.severity is Severity.NORMALIZED and finding.severity is Severity.REJECTED
    assert Summary.__struct_fields__[:2] == ("messages", "view_messages")


def test_a_copy_keeps_the_side_data_beside_the_fields_and_never_writes_it() -> None:
    """A report shell's sections and a diagnosis's reasons are not fields: replace carries them, JSON never has them."""
    _, light, plan = _plans("stray_result.pi-ai.json")[1]
    shell = report_shell(light, plan, source="s")  # type: ignore[arg-type]
    named = replace(shell, format="pi-ai", thread="main")
    assert sections_of(named) is sections_of(shell) is not None
    assert sections_of(msgspec.structs.replace(shell, format="pi-ai")) is None  # what replace is for
    assert "_sections" not in msgspec.to_builtins(named) and named.format == "pi-ai"


def test_json_text_is_json_dumps_text_lone_surrogates_included() -> None:
    _, light, plan = _plans("stray_result.pi-ai.json")[1]
    report = build_report(light, plan, source="s\u00e9")  # type: ignore[arg-type]
    for record in (report, replace(report, source="\ud800 lone")):
        data = msgspec.to_builtins(record, str_keys=True)
        assert json_text(record, indent=2) == json.dumps(data, indent=2, ensure_ascii=False)
        assert json_text(record) == json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    with pytest.raises(UnicodeEncodeError):  # why json_text exists: msgspec refuses it
        msgspec.json.encode(replace(report, source="\ud800"))


def test_a_summary_leaves_out_the_counts_older_reports_lacked_only_when_zero() -> None:
    counts = dict.fromkeys(Summary.__struct_fields__, 0)
    assert not {"merged", "turns_synthesized", "reordered"} & set(msgspec.to_builtins(Summary(**counts)))
    assert msgspec.to_builtins(Summary(**{**counts, "merged": 2}))["merged"] == 2


def _plans(name: str) -> list[tuple[object, object, object]]:
    transcript = load((SAMPLES / name).read_bytes(), name)
    out = []
    for policy in POLICIES:
        light = light_transcript(transcript.messages, numeric_ids=policy == "strict")
        out.append((transcript, light, PLANNERS[policy](light, None)))
    return out


@pytest.mark.parametrize("name", sorted(path.name for path in SAMPLES.glob("*.json")))
def test_a_copied_diagnosis_is_rated_by_the_providers_as_the_full_report_is(name: str) -> None:
    """check names each diagnosis (replace) before rating it: the copy keeps the changes it rates."""
    for transcript, light, plan in _plans(name):
        said = {provider: not found for provider, found in validate_recorded(transcript).items()}
        diagnosis = replace(diagnose(light, plan, name), format=transcript.format)  # type: ignore
        report = replace(build_report(light, plan, source=name), format=transcript.format)  # type: ignore
        rated, full = with_recorded(diagnosis, said), with_recorded(report, said)
        assert isinstance(rated, Diagnosis)
        assert (rated.severity, rated.healthy, rated.verdict) == (full.severity, full.healthy, full.verdict)
        assert rated.findings == full.findings and rated.summary == full.summary


def test_a_report_round_trips_its_records_through_json() -> None:
    _, light, plan = _plans("stray_result.pi-ai.json")[1]
    report = build_report(light, plan, source="s")  # type: ignore[arg-type]
    text = msgspec.json.encode(report)
    again = read_report(msgspec.json.decode(text))
    assert msgspec.json.encode(again) == text
    assert msgspec.json.decode(text, type=RepairReport) == again  # a current report needs no reshaping
    assert isinstance(again.summary, Summary) and all(isinstance(f, Finding) for f in again.findings)


def _report_data() -> dict[str, Any]:
    _, light, plan = _plans("stray_result.pi-ai.json")[1]
    data: dict[str, Any] = msgspec.to_builtins(build_report(light, plan, source="s"), str_keys=True)  # type: ignore
    return data


def test_a_bad_record_in_a_report_names_where() -> None:
    data = _report_data()
    data["summary"]["messages"] = "many"
    with pytest.raises(ValueError) as caught:
        read_report(data)
    assert invalid_where(caught.value) == ("summary.messages", "Expected `int`, got `str`")
    data["summary"]["messages"] = 5
    data["actions"][1]["kind"] = "teleported"
    with pytest.raises(ValueError) as caught:
        read_report(data)
    where, what = invalid_where(caught.value)
    assert where == "actions[1].kind" and "teleported" in what


def test_a_violation_validates_its_fields() -> None:
    data = {"provider": "anthropic", "rule": "r", "position": "messages.1", "error": "e", "native_indices": [1]}
    assert msgspec.convert(data, Violation).native_indices == [1]
    with pytest.raises(ValueError, match="native_indices"):
        msgspec.convert({**data, "native_indices": "1"}, Violation)


def test_an_older_report_reads_with_the_defaults_it_lacked() -> None:
    """A report written before `renamed`, call ids on findings, `source` or `severity` existed still reads."""
    data = _report_data()
    for key in ("source", "severity"):
        del data[key]
    del data["summary"]["renamed"]
    for finding in data["findings"]:
        del finding["call_id"]
    for action in data["actions"]:
        del action["severity"]
    report = read_report(data)
    assert report.source is None and report.summary.renamed == 0
    assert report.severity is Severity.REJECTED  # the worst of its parts, rated again
    assert all(finding.call_id is None for finding in report.findings)
    assert {action.severity for action in report.actions} >= {Severity.INFO}
