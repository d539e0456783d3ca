"""One round of provider verdicts shares written requests between providers of one native format.

Sharing must never change an answer: every sample, both policies, every provider,
with and without the shared requests, gives the same violations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from integrity import POLICIES, PROVIDERS, analyze, judged_by_providers, load_all, provider_verdict
from integrity.pipeline import ProviderVerdict

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "sample_transcripts").glob("*.json*"))


def said(verdict: ProviderVerdict) -> dict[str, list[Any]]:
    return {"before": [msgspec.to_builtins(v) for v in verdict.before],
            "after": [msgspec.to_builtins(v) for v in verdict.after]}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("policy", list(POLICIES))
def test_shared_requests_give_the_same_verdicts(path: Path, policy: str) -> None:
    for transcript in load_all(path.read_bytes(), path.name):
        analysis = analyze(transcript, policy)
        requests: dict[Any, Any] = {}
        for provider in PROVIDERS:
            alone = provider_verdict(analysis, provider)
            shared = provider_verdict(analysis, provider, requests=requests)
            assert said(shared) == said(alone), provider
        assert requests, "the round kept the requests it wrote"
        rated = judged_by_providers(analysis, PROVIDERS)
        assert {p: said(v) for p, v in rated.verdicts.items()} == \
            {p: said(provider_verdict(analysis, p)) for p in PROVIDERS}


def test_a_request_is_reused_only_for_the_very_same_list() -> None:
    from integrity.providers.canonical import judged_request

    path = next(p for p in SAMPLES if p.name == "abort_race.pi-ai.json")
    transcript = load_all(path.read_bytes(), path.name)[0]
    requests: dict[Any, Any] = {}
    first = judged_request(transcript.messages, "openai-chat", transcript, False, requests)
    assert judged_request(transcript.messages, "mistral", transcript, False, requests) is first  # same format
    copy = list(transcript.messages)[:-1]
    assert judged_request(copy, "openai-chat", transcript, False, requests) is not first  # another list
