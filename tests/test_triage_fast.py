"""Triage reads a pi-ai file by the fast path (integrity._bulk.fast_read), as `check` does: its rows must be
the rows the general reader gives, field for field, for every sample and generated transcripts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from integrity import triage
from integrity._bulk import fast_read

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from generate import DENSE, messages  # noqa: E402

SAMPLES = sorted((ROOT / "sample_transcripts").glob("*.json*")) + sorted((ROOT / "tests" / "real").glob("*.json*"))


def _generated(tmp_path: Path) -> list[Path]:
    paths = []
    for seed, rate in ((1, 0.08), (2, DENSE), (3, 0.3)):
        path = tmp_path / f"generated-{seed}.json"
        path.write_text(json.dumps(list(messages(400, seed=seed, defect_rate=rate))))
        paths.append(path)
    return paths


@pytest.mark.parametrize("policy", ["strict", "openmaic"])
@pytest.mark.parametrize("providers", [(), ("anthropic", "gemini")])
def test_fast_rows_are_the_general_readers(tmp_path: Path, monkeypatch: Any, policy: str,
                                           providers: tuple[str, ...]) -> None:
    fast_ones = 0
    for path in [*SAMPLES, *_generated(tmp_path)]:
        fast = triage.triage_file(str(path), providers, policy)
        fast_ones += fast_read.read_fast(path.read_bytes(), str(path)) is not None
        with monkeypatch.context() as patch:
            patch.setattr(fast_read, "read_fast", lambda *args, **kwargs: None)
            general = triage.triage_file(str(path), providers, policy)
        assert fast == general, path.name
    assert fast_ones >= 10  # the fast path was taken (pi-ai samples and the generated files)
