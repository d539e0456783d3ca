"""Archive bombs (issue 30, item 1): an Inspect .eval that inflates without bound is refused on one line.

Every bomb is made here, small on disk: a member of spaces (deflate packs 200 MiB
into 200 kB), or a zip whose directory lies about its sizes or its member count.
The refusal names the file, the member and the limit; the process that reads the
bomb stays small (its peak memory is measured in a child process); nothing is
written; the CLI, the API and the inspector all refuse with the engine's limits.
"""

from __future__ import annotations

import io
import json
import resource
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import integrity
from integrity import TranscriptError
from integrity.formats import archive

ROOT = Path(__file__).resolve().parent.parent
MiB = 2**20
SAMPLE = {"id": 1, "epoch": 1, "messages": [{"role": "user", "content": "hi"}]}


def spaces_archive(size: int, name: str = "samples/1_epoch_1.json") -> bytes:
    """A .eval holding one member of `size` spaces (valid JSON whitespace, compressed ~1000:1)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z, z.open(name, "w", force_zip64=True) as member:
        chunk = b" " * MiB
        for _ in range(size // MiB):
            member.write(chunk)
        member.write(b" " * (size % MiB))
    return buffer.getvalue()


def good_archive(count: int = 3) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", "{}")
        for n in range(1, count + 1):
            z.writestr(f"samples/{n}_epoch_1.json", json.dumps({**SAMPLE, "id": n}))
    return buffer.getvalue()


def lying_sizes(data: bytes, file_size: int, compress_size: int | None = None) -> bytes:
    """The archive with every central-directory entry claiming these sizes (the members are unchanged)."""
    out = bytearray(data)
    at = out.find(b"PK\x01\x02")
    while at >= 0:
        if compress_size is not None:
            struct.pack_into("<I", out, at + 20, compress_size)
        struct.pack_into("<I", out, at + 24, file_size)
        at = out.find(b"PK\x01\x02", at + 4)
    return bytes(out)


def lying_count(data: bytes, entries: int) -> bytes:
    """The archive whose end record claims `entries` members (at most 65,535 without zip64)."""
    out = bytearray(data)
    end = out.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", out, end + 8, entries, entries)
    return bytes(out)


def refusal(data: bytes, source: str = "bomb.eval") -> str:
    with pytest.raises(TranscriptError) as caught:
        integrity.load_all(data, source)
    text = str(caught.value)
    assert "\n" not in text
    return text


def test_a_well_formed_eval_still_reads() -> None:
    assert [t.name for t in integrity.load_all(good_archive(), "log.eval")] == ["sample:1", "sample:2", "sample:3"]


def test_a_member_inflating_past_the_member_limit_is_refused_naming_file_member_and_limit() -> None:
    text = refusal(spaces_archive(archive.LIMITS.member_bytes + MiB))
    assert text.startswith("bomb.eval: member 'samples/1_epoch_1.json': refused")
    assert f"{archive.LIMITS.member_bytes:,} bytes per member" in text


def test_a_member_inflating_past_the_ratio_is_refused() -> None:
    data = spaces_archive(20 * MiB)
    assert len(data) < 100_000
    text = refusal(data)
    assert "member 'samples/1_epoch_1.json'" in text and f"{archive.LIMITS.ratio}:1" in text


def test_small_members_never_trip_the_ratio() -> None:
    """A short, very repetitive sample (ratio far above the limit, size under the floor) reads."""
    sample = {**SAMPLE, "messages": [{"role": "user", "content": "a" * 200_000}]}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("samples/1_epoch_1.json", json.dumps(sample))
    assert [t.name for t in integrity.load_all(buffer.getvalue(), "log.eval")] == ["sample:1"]


def test_declared_sizes_over_the_total_are_refused_before_anything_is_inflated() -> None:
    """Five members each claiming just under the member limit, at a ratio of 10:1: the sum is over the total."""
    claim = archive.LIMITS.member_bytes - 1
    data = lying_sizes(good_archive(5), claim, claim // 10)
    assert len(data) < 2_000
    text = refusal(data)
    assert f"over the limit of {archive.LIMITS.total_bytes:,} bytes" in text and "member 'samples/" in text


def test_an_archive_listing_too_many_members_is_refused_from_its_end_record() -> None:
    small = archive.ArchiveLimits(members=1000)
    data = lying_count(good_archive(), 1001)
    with pytest.raises(TranscriptError, match=r"^bomb\.eval: refused: the archive lists 1,001 members, over the "
                                              r"limit of 1,000 members$"):
        archive.open_archive(data, "bomb.eval", small)


def test_a_directory_holding_more_members_than_its_end_record_claims_is_counted_before_it_is_parsed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The end record says 3; the directory holds 1,500 entries: counted from their headers, refused."""
    parsed: list[int] = []
    real = zipfile.ZipFile

    def spy(*args: object, **kwargs: object) -> zipfile.ZipFile:
        parsed.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for n in range(1500):
            z.writestr(f"x/{n}", b"")
    monkeypatch.setattr(archive.zipfile, "ZipFile", spy)
    with pytest.raises(TranscriptError, match=r"^bomb\.eval: refused: the archive lists 1,001 members or more, "
                                              r"over the limit of 1,000 members$"):
        archive.open_archive(lying_count(buffer.getvalue(), 3), "bomb.eval", archive.ArchiveLimits(members=1000))
    assert parsed == []  # refused before zipfile read the directory


def test_the_member_limit_holds_with_the_engines_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """LIMITS is read at each call: one assignment changes every reader (here the API's load_all)."""
    monkeypatch.setattr(archive, "LIMITS", archive.ArchiveLimits(members=3))
    text = refusal(good_archive(3))  # header.json + 3 samples = 4 members
    assert "lists 4 members, over the limit of 3 members" in text


def test_the_counted_read_refuses_on_its_own_when_the_declared_sizes_are_not_checked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The second line of defence: a member is read a chunk at a time and refused while reading."""
    monkeypatch.setattr(archive, "_check_declared", lambda *args: None)
    text = refusal(spaces_archive(20 * MiB))
    assert "inflates more than 100 times its compressed size" in text


def _child_peak_kib(command: list[str]) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run a command in a child and return it with the peak resident memory of the children so far (KiB)."""
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    return result, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def test_the_cli_refuses_a_bomb_in_one_line_with_bounded_memory_and_writes_nothing(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.eval"
    bomb.write_bytes(spaces_archive(200 * MiB))  # about 200 kB on disk
    before = bomb.read_bytes()
    out = tmp_path / "out.json"
    result, peak = _child_peak_kib([sys.executable, "-m", "integrity", "repair", str(bomb), "-o", str(out)])
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "bomb.eval: member 'samples/1_epoch_1.json': refused" in lines[0]
    assert "bytes per member" in lines[0]
    # The children's peak: reading the member whole would take over 200 MiB (about 430 MB before the limit).
    assert peak < 150 * 1024, f"peak resident memory {peak // 1024} MiB"
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bomb.eval"]
    assert bomb.read_bytes() == before


def test_the_inspector_refuses_an_uploaded_bomb_with_the_same_limit() -> None:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_resource.clear()
    st.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page("pages/inspector_page.py")
    at.run()
    at.radio(key="source_mode").set_value("Upload").run()
    at.file_uploader(key="uploads").set_value(("bomb.eval", spaces_archive(20 * MiB), "application/zip")).run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Could not read this input. The app keeps working; fix the file or "
                                           "pick another."]
    said = [str(c.value) for c in at.code]
    assert any(c.startswith("bomb.eval: member 'samples/1_epoch_1.json': refused")
               and f"{archive.LIMITS.ratio}:1" in c for c in said), said


def test_triage_gives_a_bomb_one_error_row_with_the_same_refusal(tmp_path: Path) -> None:
    from integrity.triage import triage_file

    bomb = tmp_path / "bomb.eval"
    bomb.write_bytes(spaces_archive(20 * MiB))
    found = triage_file(str(bomb), [], "strict")
    assert found is not None
    rows, findings = found
    assert len(rows) == 1 and findings == []
    said = [str(value) for value in rows[0].values()]
    assert any("member 'samples/1_epoch_1.json': refused" in value and f"{archive.LIMITS.ratio}:1" in value
               for value in said), rows[0]


def _one_sample(text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("samples/1_epoch_1.json", text)
    return buffer.getvalue()


def test_a_member_is_read_by_the_strict_rules_of_a_file() -> None:
    """NaN and duplicate keys inside an archive are what they are in a plain file: an error, a finding."""
    good = json.dumps(SAMPLE)
    with pytest.raises(TranscriptError, match=r"^log\.eval: member 'samples/1_epoch_1\.json', line 1, column \d+: "
                                              r"invalid JSON: NaN is not valid JSON"):
        integrity.load_all(_one_sample(good.replace('"hi"', "NaN")), "log.eval")
    doubled = good.replace('"content": "hi"', '"content": "hi", "content": "bye"')
    (transcript,) = integrity.load_all(_one_sample(doubled), "log.eval")
    assert [(n.code, n.problem) for n in transcript.notes] == [("duplicate_key", "content")]
    assert not integrity.analyze(transcript).report.healthy
