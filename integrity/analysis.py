"""One call from a loaded file to everything a user interface shows about it.

The CLI and the inspector both go through `analyze`, so neither re-implements
any engine logic: load -> views -> plan (per policy) -> view + report ->
provider verdicts before and after repair.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._arguments import require_transcript
from ._entries import materialize
from ._plan import Plan
from ._policies import DEFAULT_POLICY, PLANNERS, POLICIES
from ._views import LightTranscript, light_transcript
from .loading import Transcript
from .reference import time_ms
from .report import RepairReport, build_report
from .schema import schema_findings

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
    provider: str | None = None  # the provider the view was planned for


def load(data: bytes, source: str = "<input>", format: str = "auto") -> Transcript:
    """Read a transcript from bytes; raises loading.TranscriptError with a one-line message."""
    from .formats import read_bytes
    from .formats.container import parse_document
    from .loading import TranscriptError, check_messages

    try:
        return read_bytes(data, source, format)
    except TranscriptError as error:
        if format != "auto" or "unknown transcript format" not in error.problem:
            raise
        # Nothing fits.  When the entries sit in a plain list (an array, JSONL or a
        # {"messages": [...]} object), the pi-ai message check can name the entry
        # that is not a message at all, which says more.  A single JSON object
        # (other envelopes included) is checked as one message, and only when it
        # has a role.
        document = parse_document(data, source)  # read_bytes parsed it already: it cannot fail
        entries, lines = document.entries, document.lines
        single = document.container == "jsonl" and len(entries) == 1
        if document.container == "object" and document.key != "messages":
            text = data.decode("utf-8-sig")
            entries = [{**document.envelope, document.key: entries}]
            lines = [text[: len(text) - len(text.lstrip())].count("\n") + 1]
            single = True
        if not single or "role" in entries[0]:
            try:
                check_messages(Transcript(entries, source, lines=lines))
            except TranscriptError as precise:
                raise precise from None
        raise


def analyze(
    transcript: Transcript,
    policy: str = DEFAULT_POLICY,
    now: Callable[[], int] = time_ms,
    provider: str | None = None,
    verdicts: bool | Sequence[str] = False,
) -> Analysis:
    """Plan, materialize and explain the repaired view of a loaded transcript.

    The report starts with the transcript's schema findings (integrity.schema): a
    malformed entry is never healthy.  Raises TypeError unless `transcript` is a
    Transcript whose messages are a list of dicts.  The view shares objects with
    the input only where it carries a durable message unchanged (the very same
    dict); every message it changes is a deep copy (see repair_with_report).

    provider: the provider the view is for (strict policy: id-less calls get ids
    unless it is Gemini, and the order of turns follows its role rules).  verdicts: True (every provider)
    or a list of providers
    to validate the durable transcript and the view against, before and after.
    """
    require_transcript(transcript, "analyze")
    if policy not in PLANNERS:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    messages = transcript.messages
    light = light_transcript(messages, numeric_ids=policy == "strict")
    plan = PLANNERS[policy](light, provider)
    if plan.changed and plan.order is not None:
        view, stamps = materialize(plan.order, messages, plan.placeholder, now)
    else:
        view, stamps = messages, []
    report = build_report(light, plan, stamps, transcript.source, schema_findings(transcript))
    analysis = Analysis(transcript, policy, light, plan, view, report, provider=provider)
    if verdicts:
        from .providers import PROVIDERS

        chosen = PROVIDERS if verdicts is True else tuple(verdicts)
        analysis.verdicts = {name: provider_verdict(analysis, name, now) for name in chosen}
        from .report import with_recorded  # severities follow what the providers say as recorded

        analysis.report = with_recorded(report, {name: not said["before"] for name, said in analysis.verdicts.items()})
    return analysis


def provider_verdict(analysis: Analysis, provider: str, now: Callable[[], int] = time_ms) -> dict[str, Any]:
    """What one provider would say about the durable transcript and about the view it would get.

    The view is re-planned for that provider when its plan would differ (the
    strict policy names id-less calls only for providers that need ids, and
    follows the chosen provider's role rules).  Both are validated as a stored
    history (`history=True`): rules about the outgoing request itself, such as
    Mistral's "the last message may not be an assistant message", do not apply,
    since the next request appends a new turn.
    """
    from .providers import validate

    transcript = analysis.transcript
    view = analysis.view
    if analysis.policy == "strict" and provider != analysis.provider and plan_depends_on(analysis.light, provider):
        plan = PLANNERS[analysis.policy](analysis.light, provider)
        view = (materialize(plan.order, transcript.messages, plan.placeholder, now)[0]
                if plan.changed and plan.order is not None else transcript.messages)
    return {
        "before": validate(transcript.messages, provider, transcript, history=True),
        "after": validate(view, provider, transcript, history=True),
    }


def plan_depends_on(light: LightTranscript, provider: str | None) -> bool:
    """Whether the strict plan for this provider may differ from another provider's."""
    from ._legalize import has_role_rules

    return has_role_rules(provider) or any(call.id == "" for calls in light.frames.values() for call in calls)


def export_view(analysis: Analysis) -> bytes:
    """The repaired view serialized in the transcript's own format and container."""
    from .formats import write_bytes

    return write_bytes(analysis.transcript, analysis.view)
