"""read_opened reads a file of ordinary size straight from its descriptor (os.read): the same bytes as a file
object reads, an empty file too, a file grown since it was measured read to its end, and the descriptor closed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from integrity import loading
from integrity.loading import TranscriptError, open_source, read_opened


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 65537, 300_000])
def test_reads_the_whole_file_and_closes_it(tmp_path: Path, size: int) -> None:
    path = tmp_path / "f.json"
    data = os.urandom(size)
    path.write_bytes(data)
    handle, status = open_source(str(path))
    assert read_opened(str(path), handle, int(status.st_size)) == data
    with pytest.raises(OSError):
        os.fstat(handle)


@pytest.mark.parametrize("grown", [1, 5000, 3 << 20])
def test_a_file_grown_since_it_was_measured_is_read_to_its_end(tmp_path: Path, grown: int) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"a" * 1000)
    handle, status = open_source(str(path))
    with path.open("ab") as more:
        more.write(b"b" * grown)
    assert read_opened(str(path), handle, int(status.st_size)) == b"a" * 1000 + b"b" * grown


def test_a_file_shrunk_since_it_was_measured_gives_what_is_there(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"a" * 1000)
    handle, status = open_source(str(path))
    os.truncate(path, 10)
    assert read_opened(str(path), handle, int(status.st_size)) == b"a" * 10


def test_a_large_file_is_read_by_a_file_object_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loading, "READ_DIRECTLY_BELOW", 100)
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * 1000)
    handle, status = open_source(str(path))
    assert read_opened(str(path), handle, int(status.st_size)) == b"x" * 1000


def test_a_read_error_is_one_line_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"[]")
    handle, status = open_source(str(path))
    os.close(handle)
    spare = os.open(os.devnull, os.O_WRONLY)  # (a descriptor that cannot be read, where the file's was)
    try:
        if spare != handle:
            os.dup2(spare, handle)
        with pytest.raises(TranscriptError, match="cannot read"):
            read_opened(str(path), handle, int(status.st_size))
    finally:
        if spare != handle:
            os.close(spare)
