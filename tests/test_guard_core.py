"""The shared guard core on generated broken requests: what it sends is legal for the target and keeps results.

Histories are generated in every native format the guards hand to the core (test_guard_fast's
generator: dangling calls, duplicates, strays, reordered results, reused and odd ids, empty turns), and
guarded for every target the quick test serves plus Mistral and Bedrock (which never take it).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_guard_fast import FORMATS, Turn, render, turns

from integrity.guards import RequestGuard, request_verdict

TARGETS = (None, "openai-chat", "openai-responses", "anthropic", "gemini", "mistral", "bedrock")
QUIET = logging.getLogger("integrity.guards.tests")
QUIET.disabled = True


def kept_results(history: list[Turn]) -> set[str]:
    """The call ids whose first real result must reach the model: plain ids used once, answered."""
    counts: dict[str, int] = {}
    for _, _, calls, _, _ in history:
        for call_id in calls:
            counts[call_id] = counts.get(call_id, 0) + 1
    plain = {c for c, n in counts.items() if n == 1 and re.fullmatch(r"[A-Za-z0-9_-]+", c)}
    return {r for _, _, calls, results, _ in history for r in results if r in plain and r in calls}


@settings(max_examples=60, deadline=None)
@given(history=turns(), format=st.sampled_from(FORMATS), target=st.sampled_from(TARGETS),
       system=st.booleans(), trailing=st.booleans())
def test_the_guarded_request_is_legal_and_keeps_the_real_results(history: list[Turn], format: str, target: Any,
                                                                 system: bool, trailing: bool) -> None:
    entries = render(history, format, system, trailing)
    if not any(turn[0].strip() for turn in history):
        return  # no user turn with text at all: no provider takes such a request, nothing to keep
    out = RequestGuard("test", logger=QUIET).guard(entries, format, target)
    sent = entries if out is None else out
    verdict = request_verdict(sent, format, target)
    assert verdict.healthy, (format, target, sent)
    assert not [v for v in verdict.violations if v.call_ids], (format, target, verdict.violations)
    assert kept_results(history) <= {call_id for call_id, _ in verdict.results}, (format, target, sent)
