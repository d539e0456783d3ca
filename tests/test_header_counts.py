"""The Inspector's and the Report's count headers: every count the verdict can name is shown beside it
(the Report used to show no stray or dropped-frame count next to "1 stray result(s) dropped")."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.theme import SUMMARY_METRICS, summary_metrics
from integrity import MARKS, POLICIES, REPAIR_KINDS, analyze, load

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_every_nonzero_count_of_the_registry_is_in_the_header(policy: str) -> None:
    seen_extra = set()
    for path in sorted(SAMPLES.glob("*.json*")):
        summary = analyze(load(path.read_bytes(), path.name), policy).report.summary
        shown = summary_metrics(summary, first=[("messages", "messages"), ("view_messages", "view")],
                                last=[("findings", "findings")])
        names = [name for name, _ in shown]
        assert len(names) == len(set(names)), (path.name, names)  # no count twice
        counts = dict(shown)
        assert [name for name, _ in shown[:2]] == ["messages", "view"] and names[-1] == "findings"
        for _, name in SUMMARY_METRICS:
            assert name in counts  # the core counts always, zero or not
        for facts in (*REPAIR_KINDS.values(), *MARKS.values()):
            value = getattr(summary, facts.summary_field, 0) if facts.summary_field else 0
            if value and facts.summary_field != "findings":
                assert counts.get(facts.name) == value, (path.name, facts.name, value, shown)
                if facts.name not in {name for _, name in SUMMARY_METRICS}:
                    seen_extra.add(facts.name)
    if policy == "strict":  # the samples do exercise the extras (the reference policy makes none of them)
        assert {"renamed ids", "reordered", "dropped stray"} <= seen_extra
