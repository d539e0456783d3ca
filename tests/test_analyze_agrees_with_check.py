"""`integrity.analyze(integrity.load(data, name))`, the API's first example, says what `integrity check` says.

Found by timing the Inspector on a Bedrock file: the bench counted the rows of `analyze`'s view, planned for the
universal invariants, while `check`, `repair` and every page plan for the provider the file's format implies
(Bedrock: turns merged and synthesized for its role order), so the page never showed the rows counted.  And
`analyze` rated its report without that provider's verdict: a Chat file whose tool message holds an image, which
OpenAI refuses as recorded (`check` exits 1), was "healthy" by `analyze`.  Now `analyze` without a provider plans
for the target provider and judges it, as `check` does; `target=False` asks for the universal invariants alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from integrity import analyze, check, load_all

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(path for path in [*(ROOT / "sample_transcripts").iterdir(), *(ROOT / "tests" / "real").iterdir()]
               if path.suffix in (".json", ".jsonl"))


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_analyze_without_a_provider_answers_as_check(path: Path) -> None:
    try:
        transcripts = load_all(path.read_bytes(), path.name)
    except ValueError:
        return  # (a file the readers refuse: tests/test_real_corpus.py holds its error)
    for transcript in transcripts:
        if not transcript.checked:
            continue
        said = check(transcript, depth="view", now=lambda: 0)
        analysis = analyze(transcript, now=lambda: 0)
        where = f"{path.name}#{transcript.name}"
        assert analysis.provider == said.target, where
        assert (analysis.report.severity, analysis.report.healthy) == (said.severity, said.report.healthy), where
        assert analysis.report.verdict == said.report.verdict, where
        assert analysis.view == said.view, where
        if said.target is not None:
            assert analysis.verdicts[said.target] == said.providers[said.target], where


def test_a_file_its_provider_refuses_as_recorded_is_not_healthy_by_analyze() -> None:
    transcript = load_all((ROOT / "sample_transcripts" / "screenshot_in_result.openai-chat.json").read_bytes(),
                          "screenshot_in_result.openai-chat.json")[0]
    assert check(transcript).exit_code == 1
    analysis = analyze(transcript)
    assert analysis.provider == "openai-chat" and not analysis.report.healthy
    assert analysis.verdicts["openai-chat"].before and analysis.verdicts["openai-chat"].after == []
    universal = analyze(transcript, target=False)  # the invariants alone: every call answered, the image moved
    assert universal.provider is None and universal.report.healthy and not universal.verdicts
