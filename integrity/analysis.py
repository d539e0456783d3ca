"""Loading, and the analysis the inspector's pages browse: plan, view and whole report of one transcript.

`analyze` keeps what a page needs to browse (the light view, the plan, the view); the verdict every
surface states comes from the one pipeline (integrity.pipeline.check), which shares this module's
rules: the view a provider is sent (view_for_provider) and the rating by the target provider
(with_verdicts), so a page and `check` never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ._arguments import require_transcript
from ._bulk.gc_pause import without_gc
from ._records import replace
from .loading import Transcript
from .naming import named_report
from .reference import time_ms
from .repair.entries import materialize
from .repair.placement import Placement, view_placement
from .repair.plan import Plan
from .repair.policies import DEFAULT_POLICY, PLANNERS, POLICIES, POLICY, light_view
from .repair.views import LightTranscript, signed_reasoning
from .report import RepairReport, build_report
from .schema import schema_findings
from .written import repaired_bytes, written_light

if TYPE_CHECKING:
    from .providers.verdict import ProviderVerdict

__all__ = ["Analysis", "DEFAULT_POLICY", "PLANNERS", "POLICIES", "analyze", "export_view", "load", "load_all",
           "provider_view", "reader_findings"]


@dataclass
class Analysis:
    """A transcript, its repaired view under one policy, and the report explaining it."""

    transcript: Transcript
    policy: str
    light: LightTranscript
    plan: Plan
    view: list[Any]
    report: RepairReport
    verdicts: dict[str, ProviderVerdict] = field(default_factory=dict)
    provider: str | None = None  # the provider the view was planned for
    views: dict[str, list[Any]] = field(default_factory=dict)
    """The views re-planned for a provider (replans_for) while its verdict was made: the very view the verdict
    is about, so the page offers for download exactly what the provider accepted (provider_view)."""

    @cached_property
    def placement(self) -> Placement:
        """The report's durable <-> view mapping (integrity.view_placement), built once per analysis: every
        screen that says where a message went, or what a view message is made of, reads it."""
        return view_placement(self.report)


@without_gc  # the parsed transcript is large: collections would rescan it for nothing
def load(data: bytes, source: str = "<input>", format: str = "auto") -> Transcript:
    """Read a transcript from bytes; raises loading.TranscriptError with a one-line message.

    A file holding several transcripts gives its "main" one (a Claude Code session's
    main thread, a session tree's active branch); one without a main transcript (an
    eval log of several samples) is an error listing them: use load_all.
    """
    from .formats import read_bytes

    try:
        return read_bytes(data, source, format)
    except Exception as error:
        _explain(error, data, source, format)
        raise


@without_gc  # the parsed transcript is large: collections would rescan it for nothing
def load_all(data: bytes, source: str = "<input>", format: str = "auto",
             skip_bad_lines: bool = False) -> list[Transcript]:
    """Every transcript a file holds, each named ("main", "sidechain:<id>", "sample:<id>", ...).

    See integrity.formats.read_all; raises loading.TranscriptError with a one-line message.
    """
    from .formats import read_all

    try:
        return read_all(data, source, format, skip_bad_lines)
    except Exception as error:
        _explain(error, data, source, format)
        raise


def _explain(error: Exception, data: bytes, source: str, format: str) -> None:
    """Raise a more precise error than "unknown transcript format" when there is one.

    When the entries sit in a plain list (an array, JSONL or a {"messages": [...]}
    object), the pi-ai message check can name the entry that is not a message at
    all, which says more.  A single JSON object (other envelopes included) is checked
    as one message, and only when it has a role.  Returns when it has nothing better.
    """
    from .formats.container import parse_document
    from .loading import TranscriptError, check_messages

    if not isinstance(error, TranscriptError) or format != "auto" or "unknown transcript format" not in error.problem:
        return
    document = parse_document(data, source)  # read_bytes parsed it already: it cannot fail
    entries, lines = document.entries, document.lines
    single = document.container == "jsonl" and len(entries) == 1
    if document.container == "object" and document.key != "messages":
        text = data.decode("utf-8-sig")
        entries = [{**document.envelope, document.key: entries}]
        lines = [text[: len(text) - len(text.lstrip())].count("\n") + 1]
        single = True
    if not single or (isinstance(entries[0], dict) and "role" in entries[0]):
        try:
            check_messages(Transcript(entries, source, lines=lines))
        except TranscriptError as precise:
            from .formats import ADAPTERS
            from .formats.detection import closest

            hint = closest(list(ADAPTERS.values()), document.entries, document.lines)
            raise TranscriptError(precise.source, precise.position, f"{precise.problem} ({hint})") from None


def reader_findings(transcript: Transcript) -> list[Any]:
    """What reading the file found besides its messages (a torn last line, skipped bad lines), as findings.

    They are reported first (with the schema findings): such a file is never called healthy.
    """
    if not transcript.notes:
        return []
    from ._findings import Finding
    from .kinds import FINDINGS, FindingCode

    found = []
    for note in transcript.notes:
        code = FindingCode(note.code)
        found.append(Finding(kind=code, severity=FINDINGS[code].severity, durable_indices=[],
                             call_id=None, message=note.message(), line=note.line))
    return found


def transcript_light(transcript: Transcript, policy: str) -> LightTranscript:
    """The light view of a transcript the policy plans on, knowing the ids its runtime sends (LightTranscript.sent_ids:
    a file read from some runtime's format); the one light view of `check` and of `analyze`."""
    light = light_view(transcript.messages, policy)
    if transcript.native:
        from .formats import sends_signed_reasoning, sent_ids
        from .formats.reshaping import finished, joins_said, merged

        light.sent_ids = sent_ids(transcript)
        light.joined = joins_said(transcript)
        light.reshaped = merged(finished(transcript), light.joined)
        if sends_signed_reasoning(transcript.format):
            signed_reasoning(light, transcript.messages)
    return light


@without_gc  # the parsed transcript is large: collections would rescan it for nothing
def analyze(
    transcript: Transcript,
    policy: str = DEFAULT_POLICY,
    now: Callable[[], int] = time_ms,
    provider: str | None = None,
    verdicts: bool | Sequence[str] | None = None,
    *,
    target: bool = True,
) -> Analysis:
    """Plan, materialize and explain the repaired view of a loaded transcript.

    The report starts with the transcript's schema findings (integrity.schema): a
    malformed entry is never healthy.  Raises TypeError unless `transcript` is a
    Transcript whose messages are a list of dicts.  The view shares objects with
    the input only where it carries a durable message unchanged (the very same
    dict); every message it changes is a deep copy (see repair_with_report).

    provider: the provider the view is for (strict policy: id-less calls get ids
    unless it is Gemini, and the order of turns follows its role rules); None for the target provider, the one
    `check`, `repair`, triage and every page take for the file (integrity.target_provider: the provider its format
    and model imply, else none and the universal invariants), so that the same file gets the same view and report
    here as there; with target=False, None plans for the universal invariants alone, whatever the file implies
    (what a lesson on the invariants shows).  verdicts: True (every provider) or a list of providers
    to validate the durable transcript and the view against, before and after; None (the default) for the
    target provider's alone, which rates the report as `check` rates it (a file its own provider refuses as
    recorded is never called healthy here); False for none (a front end that adds them one at a time:
    with_verdicts).
    """
    require_transcript(transcript, "analyze")
    if policy not in PLANNERS:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if provider is None and target:
        from ._diagnosis import target_provider

        provider = target_provider(transcript.format, None, transcript.model)
    if verdicts is None:
        verdicts = [provider] if provider else False
    messages = transcript.messages
    light = transcript_light(transcript, policy)
    plan = PLANNERS[policy](light, provider)
    if plan.changed and plan.order is not None:
        view, stamps = materialize(plan.order, messages, plan.placeholder, now)
    else:
        view, stamps = messages, []
    light = written_light(light, transcript, plan.changed, view)  # (what the writer joins in this view)
    report = build_report(light, plan, stamps, transcript.source,
                          [*reader_findings(transcript), *schema_findings(transcript)])
    if transcript.native or transcript.name != "main":  # read from a file: say what was read
        report = named_report(report, transcript, transcript.format, transcript.name)
    if provider and report.provider != provider:  # the reference's plan names none: the report is for it
        report = replace(report, provider=provider)
    analysis = Analysis(transcript, policy, light, plan, view, report, provider=provider)
    if verdicts:
        from .providers import PROVIDERS

        return judged_by_providers(analysis, PROVIDERS if verdicts is True else tuple(verdicts), now)
    return analysis


@without_gc  # the parsed transcript is large: collections would rescan it for nothing
def judged_by_providers(analysis: Analysis, providers: Sequence[str], now: Callable[[], int] = time_ms
                        ) -> Analysis:
    """A new Analysis with each provider's verdict, before and after repair, and its report rated by the target
    provider's verdict as recorded (with_verdicts: the same rating `check` gives; the input is not changed)."""
    requests: dict[Any, Any] = {}  # providers sharing a native format share its written requests
    views: dict[str, list[Any]] = {}
    verdicts = {name: provider_verdict(analysis, name, now, requests, views) for name in providers}
    return with_verdicts(analysis, verdicts, views)


def with_verdicts(analysis: Analysis, verdicts: Mapping[str, ProviderVerdict],
                  views: Mapping[str, list[Any]] | None = None) -> Analysis:
    """A new Analysis carrying `provider_verdict` results (and the views re-planned for them), its report rated by
    the target provider's (the one the view was planned for, else the one the format implies:
    integrity.pipeline.target_provider), as `check` rates it; the others are information.

    For front ends that compute the verdicts one provider at a time (to show progress
    and stop when asked) and still want the one rating `check` gives.
    """
    import dataclasses

    from ._diagnosis import target_provider
    from .report import with_recorded

    target = target_provider(analysis.transcript.format, analysis.provider, analysis.transcript.model)
    report = analysis.report
    if target is not None and target in verdicts:  # rated by the target alone, as `check` rates it
        report = with_recorded(report, {target: verdicts[target].accepted_as_recorded})
    return dataclasses.replace(analysis, verdicts=dict(verdicts), report=report,
                               views={**analysis.views, **(views or {})})


@without_gc  # the parsed transcript is large: collections would rescan it for nothing
def provider_verdict(analysis: Analysis, provider: str, now: Callable[[], int] = time_ms,
                     requests: dict[Any, Any] | None = None, views: dict[str, list[Any]] | None = None
                     ) -> ProviderVerdict:
    """What one provider would say about the durable transcript and about the view it would get (the
    pipeline's ProviderVerdict: the same type `check` gives).

    The view is re-planned for that provider when its plan would differ (the
    strict policy names id-less calls only for providers that need ids, and
    follows the chosen provider's role rules): provider_view.  Both are validated as a stored
    history (`history=True`): rules about the outgoing request itself, such as
    Mistral's "the last message may not be an assistant message", do not apply,
    since the next request appends a new turn.  requests: shared by the calls of one
    round over every provider (see `validate`), so a native request is written once.  views: where a
    view re-planned for the provider is kept (with_verdicts puts it on the Analysis, so the download
    offered for that provider is the very view judged here).
    """
    from .providers.canonical import judge  # validate, without checking again what the engine read or made
    from .providers.verdict import ProviderVerdict

    transcript = analysis.transcript
    view = provider_view(analysis, provider, now)
    if views is not None and view is not analysis.view:
        views[provider] = view
    return ProviderVerdict(
        provider,
        judge(transcript.messages, provider, transcript, history=True, as_recorded=True, requests=requests),
        judge(view, provider, transcript, history=True, requests=requests),
    )


def provider_view(analysis: Analysis, provider: str | None, now: Callable[[], int] = time_ms) -> list[Any]:
    """The view `provider` is sent (None: the one the analysis planned): the analysis's own view, or the one
    re-planned for it (view_for_provider), the one kept with its verdict when there is one."""
    if provider is None:
        return analysis.view
    kept = analysis.views.get(provider)
    if kept is not None:
        return kept
    return view_for_provider(analysis.policy, analysis.light, analysis.plan, analysis.view,
                             analysis.transcript.messages, provider, now)


def replans_for(policy: str, light: LightTranscript, plan: Plan, provider: str) -> bool:
    """Whether the view `provider` is sent is planned for it rather than `plan`'s: the policy plans per provider
    (strict) and that provider's plan may differ (its role rules, its id rule, ids for id-less calls), or `plan`'s
    may differ from one planned for no rule of a provider: DeepSeek was judged on the view planned for Anthropic, an
    error result's screenshot left out, and said "accepted after repair" beside an Anthropic target while `check
    --provider deepseek` said the view planned for it is refused."""
    if not POLICY[policy].plans_per_provider or provider == plan.provider:
        return False
    if plan.own_rules is None:  # (the same for every provider asked: once per plan)
        plan.own_rules = plan_depends_on(light, plan.provider)
    return plan.own_rules or plan_depends_on(light, provider)


def view_for_provider(policy: str, light: LightTranscript, plan: Plan, view: list[Any], messages: list[Any],
                      provider: str, now: Callable[[], int] = time_ms) -> list[Any]:
    """The view `provider` is sent: `view` (planned by `plan`), or one re-planned for it (replans_for).
    The one rule for check's provider verdicts and the inspector's, one provider at a time."""
    if not replans_for(policy, light, plan, provider):
        return view
    own = PLANNERS[policy](light, provider)
    return materialize(own.order, messages, own.placeholder, now)[0] if own.changed and own.order is not None \
        else messages


def plan_depends_on(light: LightTranscript, provider: str | None) -> bool:
    """Whether the strict plan for this provider may differ from another provider's."""
    from .repair.legalize import has_role_rules
    from .repair.strict import (
        blank_left_out,
        calls_put_last,
        calls_signed,
        errors_as_text,
        images_left_out,
        images_moved,
        reasoning_sent_once,
        refuses_names,
        refuses_some_id,
        texts_cut,
    )

    return has_role_rules(provider) or any(call.id == "" for calls in light.frames.values() for call in calls) \
        or refuses_some_id(light, provider) or bool(calls_put_last(light, provider)) \
        or any(blank_left_out(light, provider)) or bool(errors_as_text(light, provider)) \
        or refuses_names(light, provider) or bool(calls_signed(light, provider)) or bool(texts_cut(light, provider)) \
        or bool(reasoning_sent_once(light, provider)) or bool(images_moved(light, provider)) \
        or bool(images_left_out(light, provider))


def export_view(analysis: Analysis, provider: str | None = None, data: bytes | None = None) -> bytes:
    """The view planned for `provider` (None: the analysis's own) as `repair` writes it (integrity.written): the
    file as it is when the view changes nothing and the file's provider takes it (`data`, the file's bytes, when
    the caller has them: byte for byte what `repair` gives back; else its entries as read), else the view
    serialized in the transcript's own format and container: what a page offers for download for that provider."""
    view = provider_view(analysis, provider)
    return repaired_bytes(analysis.transcript, view is not analysis.transcript.messages, view, data,
                          verdicts=analysis.verdicts)
