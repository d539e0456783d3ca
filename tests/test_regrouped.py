"""A view that changes no message can still pass a provider that refuses the file: the request written for it
groups the messages otherwise (a frame's results split over two user messages, sent as one). The Inspector's
headline says so, from the two requests the verdict judged; it said "accepted: safe to send" beside rows that
all read "kept" and a Problem button that found nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.verdict_ui import regrouped
from integrity import PROVIDERS, Analysis, analyze, judged_by_providers, load

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"


def judged(name: str, provider: str) -> Analysis:
    return judged_by_providers(analyze(load((SAMPLES / name).read_bytes(), name), "strict", provider=provider),
                               PROVIDERS)


@pytest.mark.parametrize(("name", "provider"), [("split_results.bedrock.json", "bedrock")])
def test_results_split_in_the_file_are_said_to_be_sent_as_one(name: str, provider: str) -> None:
    analysis = judged(name, provider)
    said = analysis.verdicts[provider]
    assert said.before and not said.after and not analysis.report.changed
    lines = regrouped(analysis, provider, name, name)
    assert lines[0].startswith(f"No message changes: the request written for {provider} groups the messages")
    assert "(5 entries in the file, 4 in the request)" in lines[0]
    assert lines[1:] == ["  durable #2 and #3, 2 entries in the file, are sent as one"]


def test_nothing_is_said_where_the_request_groups_as_the_file_or_the_view_changes() -> None:
    for path in sorted(SAMPLES.glob("*.json*")):
        if path.name.startswith("split_results"):
            continue
        for provider in ("anthropic", "openai-chat"):
            analysis = judged(path.name, provider)
            lines = regrouped(analysis, provider, path.name, path.name)
            if analysis.report.changed:
                assert lines == [], path.name
            else:
                assert all("are sent as one" in line for line in lines[1:]), (path.name, lines)
