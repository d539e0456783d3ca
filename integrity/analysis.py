"""One call from a loaded file to everything a user interface shows about it.

The CLI and the inspector both go through `analyze`, so neither re-implements
any engine logic: load -> views -> plan (per policy) -> view + report ->
provider verdicts before and after repair.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .loading import Transcript, parse_json_document
from .plan import Plan
from .policies import DEFAULT_POLICY, PLANNERS, POLICIES
from .reference import materialize, time_ms
from .report import RepairReport, build_report
from .views import LightTranscript, light_transcript

__all__ = ["Analysis", "DEFAULT_POLICY", "PLANNERS", "POLICIES", "analyze", "export_view", "load"]


@dataclass
class Analysis:
    """A transcript, its repaired view under one policy, and the report explaining it."""

    transcript: Transcript
    policy: str
    light: LightTranscript
    plan: Plan
    view: list[Any]
    report: RepairReport
    verdicts: dict[str, Any] = field(default_factory=dict)


def load(data: bytes, source: str = "<input>", format: str = "auto") -> Transcript:
    """Read a transcript from bytes; raises loading.TranscriptError with a one-line message."""
    try:
        from .formats import read_bytes  # the multi-format reader, when present
    except ImportError:
        return parse_json_document(data, source)
    return read_bytes(data, source, format)


def analyze(
    transcript: Transcript,
    policy: str = DEFAULT_POLICY,
    now: Callable[[], int] = time_ms,
) -> Analysis:
    """Plan, materialize and explain the repaired view of a loaded transcript."""
    if policy not in PLANNERS:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    messages = transcript.messages
    light = light_transcript(messages)
    plan = PLANNERS[policy](light)
    if plan.changed:
        view, stamps = materialize(plan, messages, now)
    else:
        view, stamps = messages, []
    report = build_report(light, plan, stamps, transcript.source)
    return Analysis(transcript, policy, light, plan, view, report)


def export_view(analysis: Analysis) -> bytes:
    """The repaired view serialized in the transcript's own format and container."""
    try:
        from .formats import write_bytes
    except ImportError:
        from .loading import dump_transcript

        return dump_transcript(analysis.transcript, analysis.view)
    return write_bytes(analysis.transcript, analysis.view)
