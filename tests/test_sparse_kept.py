"""The view's judgment of a large file reuses the bones the recorded judgment decoded (Durable.keep,
SparseView.regions_kept): the view's regions are mostly the recorded ones again, so their messages are not read
from the file and decoded twice.  Whatever is kept (nothing, a few, every one), the verdicts are the ones the
bones of every message give; with room for them all, the view's judgment reads nothing from the file again.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from integrity.pipeline import Loaded, check_unit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import generate  # noqa: E402  (bench/generate.py: every defect kind)

CHAT = ("bedrock", "gemini", "deepseek", "anthropic")


def _file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A transcript read a block at a time (tiny blocks), so that bones are decoded from the file again."""
    import integrity._bulk.blocks as blocks
    import integrity._bulk.fast_read as fast_read

    monkeypatch.setattr(blocks, "BLOCK", 4096)
    monkeypatch.setattr(fast_read, "STREAM_FROM", 0)
    path = tmp_path / "t.json"
    # (an interrupted frame with no part sends Bedrock's verdict to the bones, skeleton_verdicts.sparse_letters:
    # left out here, so that every provider is judged from the light view)
    path.write_bytes(json.dumps([message for message in generate.messages(2_000, seed=11, defect_rate=0.05)
                                 if message.get("role") != "assistant" or message.get("content")]).encode())
    return path


def _check(path: Path, provider: str, bones: Any) -> Any:
    import integrity._bulk.fast_read as fast_read
    from integrity._bulk.blocks import FileSource
    from integrity.loading import open_source

    fast = fast_read.read_fast_file(FileSource(str(path), *open_source(str(path))), True, False, bones)
    assert fast is not None
    return check_unit(Loaded(str(path), fast=fast), provider=provider, now=itertools.count(1).__next__)


@pytest.mark.parametrize("kept", [0, 7, 300, 1 << 20])
def test_what_is_kept_never_changes_a_verdict(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kept: int) -> None:
    import integrity._bulk.sparse_view as sparse_view

    path = _file(tmp_path, monkeypatch)
    monkeypatch.setattr(sparse_view, "KEPT", kept)
    for provider in CHAT:
        sparse, whole = _check(path, provider, "items"), _check(path, provider, True)
        assert sparse.providers == whole.providers and sparse.report == whole.report, provider
        assert sparse.providers[provider].before and sparse.plan.changed, provider  # both judgments ran


def test_the_views_judgment_reads_nothing_again_when_all_is_kept(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    import integrity._bulk.fast_bones as fast_bones
    import integrity._bulk.sparse_view as sparse_view
    import integrity.providers.sparse as sparse

    path = _file(tmp_path, monkeypatch)
    decoded: list[tuple[bool, int]] = []  # (in the view's judgment, how many messages)
    real_bones, real_judge = fast_bones.bones_at, sparse.judge_sparse
    judging_view = [False]

    def counting(raws: Any, indices: list[int]) -> Any:
        decoded.append((judging_view[0], len(indices)))
        return real_bones(raws, indices)

    def judge(*args: Any, **kwargs: Any) -> Any:
        judging_view[0] = kwargs.get("plain", False)
        return real_judge(*args, **kwargs)

    monkeypatch.setattr(fast_bones, "bones_at", counting)
    monkeypatch.setattr(sparse_view.fast_bones, "bones_at", counting)
    import integrity.skeleton_verdicts as on_skeletons  # (sparse_verdicts calls the judge_sparse it imported)

    monkeypatch.setattr(on_skeletons, "judge_sparse", judge)
    for kept, provider in itertools.product((1 << 20, 0), CHAT):
        monkeypatch.setattr(sparse_view, "KEPT", kept)
        decoded.clear()
        _check(path, provider, "items")
        recorded = sum(count for view, count in decoded if not view)
        again = sum(count for view, count in decoded if view)
        assert recorded > 0, provider
        assert (again == 0) == bool(kept), (provider, kept, again)
