"""The one check pipeline: from a loaded transcript to the verdict every surface shows.

`check` (the CLI's `check` and `repair`, `triage`, the Batch page's rows, the
Inspector and the Report) all go through `check_unit`, so the same file gets the
same status, severity, counts and provider verdicts everywhere:

    light view -> plan (per policy) -> diagnosis or report -> the target provider's
    verdict as recorded and after repair -> the report rated by it -> status and exit.

The *target provider* decides the verdict (`target_provider`): the one named, else
the one the file's format implies (an OpenAI Chat request is judged by OpenAI Chat,
a Claude Code session by Anthropic), else none: then the universal invariants alone
(every call answered exactly once, right after its frame, no stray, no lost real
result) decide.  Other providers are asked only on request; what they say is shown
beside the verdict and never changes it.

How much is built is a depth, not a second pipeline: a diagnosis (counts, findings,
verdict) for `check`, the report's shell for `check --json`, or the whole report and
the materialized view for the Inspector and `repair`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ._bulk.freed_memory import FROM_MESSAGES, release_free_pages
from ._bulk.gc_pause import without_gc
from ._diagnosis import diagnose, target_provider, with_recorded
from ._records import replace
from .loaded import Loaded
from .providers.verdict import ProviderVerdict
from .reference import time_ms
from .repair.policies import DEFAULT_POLICY, PLANNERS

if TYPE_CHECKING:
    from ._diagnosis import Diagnosis, Summary
    from ._findings import Finding
    from .formats.registry import NativeRequest
    from .kinds import Severity
    from .loading import Transcript
    from .repair.plan import Plan
    from .repair.views import LightTranscript
    from .report import RepairReport

__all__ = ["ALL_PROVIDERS", "CheckResult", "Depth", "Loaded", "ProviderVerdict", "Status", "check", "check_unit",
           "informative_providers", "split_provider_option", "status_of", "target_provider", "unjudged",
           "unjudged_record", "unjudged_verdict"]

Depth = Literal["diagnosis", "report", "view"]
"""How much `check` builds: the cheap diagnosis (`check`), the report's shell whose long sections are
written as they are made (`check --json`), or the whole report with the materialized view."""

ALL_PROVIDERS = "all"
"""`--provider all`: every provider is asked, for information (the target still decides)."""


class Status(str, enum.Enum):
    """A transcript's status in one word, the same on every surface (CLI, triage table, Batch, Inspector).

    Derived from the rated report alone by `status_of`: the one rule.
    """

    HEALTHY = "healthy"
    REPAIRED = "repaired"
    FINDINGS = "findings"
    REJECTED_AS_RECORDED = "rejected as recorded"
    UNREADABLE = "unreadable"
    ABANDONED = "abandoned branch"
    COMPACTED = "compacted away"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class CheckResult:
    """Everything `check` says about one transcript: verdict, severity, counts, findings, provider verdicts.

    report: the diagnosis (depth "diagnosis") or the repair report, rated by the target provider's
    verdict as recorded.  providers: every provider asked, the target first.  view: the repaired view
    (depth "view" only).  The status and exit code are derived from the report by one rule.
    """

    source: str
    format: str
    thread: str
    policy: str
    target: str | None
    report: Diagnosis | RepairReport
    providers: Mapping[str, ProviderVerdict] = field(default_factory=dict)
    view: list[Any] | None = None
    plan: Plan | None = None
    written: NativeRequest | None = None
    """The view written in the file's own format for its own provider, when that provider judged it (depth "view"):
    what `repair` writes (formats.write_bytes takes it rather than writing the same request again)."""

    @property
    def verdict(self) -> str:
        return self.report.verdict

    @property
    def severity(self) -> Severity:
        """The worst severity (an old report read back may lack it: then the healthy one, normalized)."""
        from .kinds import Severity

        return self.report.severity or Severity.NORMALIZED

    @property
    def healthy(self) -> bool:
        return self.report.healthy

    @property
    def summary(self) -> Summary:
        return self.report.summary

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings

    @property
    def status(self) -> Status:
        return status_of(self.report)

    @property
    def exit_code(self) -> int:
        """0 when healthy for the target (or the universal invariants), else 1 (needs repair)."""
        return 0 if self.report.healthy else 1

    @property
    def target_verdict(self) -> ProviderVerdict | None:
        return self.providers.get(self.target) if self.target is not None else None


_UNJUDGED: dict[str, tuple[Status, str]] = {
    "branch": (Status.ABANDONED, "a rewind left it: never sent to the model again, so not checked"),
    "compacted": (Status.COMPACTED, "a compaction replaced it: never sent to the model again, so not checked"),
}


UNJUDGED_STATUSES = frozenset(status for status, _ in _UNJUDGED.values())
"""The statuses of the transcripts listed and never judged."""


def unjudged(kind: str) -> tuple[Status, str]:
    """The status and the reason of a transcript listed but not judged (`checked` False), by its kind: an
    abandoned branch (a rewind left it) or a compacted-away part (a compaction replaced it).  Every surface
    (check, triage, Batch, the Inspector's picker) says it with these words."""
    return _UNJUDGED.get(kind, _UNJUDGED["branch"])


def unjudged_verdict(kind: str, messages: int) -> str:
    """The verdict line of a transcript listed and never judged (its kind, its number of messages): "abandoned
    branch, 6 messages (a rewind left it: ...)".  `check` (text and JSON), triage's table and the Batch page say it
    in these words."""
    from ._diagnosis import counted

    status, reason = unjudged(kind)
    return f"{status}, {counted(messages, 'message')} ({reason})"


def unjudged_record(loaded: Loaded) -> dict[str, Any]:
    """What `check --json` and `--json-lines` write for a transcript listed and never judged, in the place of its
    report: a reader of the JSON learns of it as the text output, triage's table and the Inspector's picker say
    it (same status, same reason), and tells it from a report by `checked: false` (it has no summary,
    actions or view: nothing judged it, and nothing about it changes the exit status)."""
    kind = getattr(loaded.transcript, "kind", "")
    messages = len(loaded.transcript.messages) if loaded.transcript is not None else 0
    return {"source": loaded.source, "format": loaded.format, "thread": loaded.name, "checked": False,
            "status": str(unjudged(kind)[0]), "messages": messages, "verdict": unjudged_verdict(kind, messages)}


def not_repaired(kind: str) -> str:
    """Why a transcript of this kind is never repaired ('' when it may be): a compacted-away part is never sent
    again, and a result written for one of its calls would land in the part that is sent (its file's entries after
    the compaction).  `repair --thread` refuses it with these words."""
    if kind != "compacted":
        return ""
    return ("a compaction replaced this part: the runtime never sends it again, so there is nothing to repair, and "
            "a result written for it would land in the part that is sent (repair the file without --thread)")


def status_of(report: Diagnosis | RepairReport) -> Status:
    """The one status rule, from a report rated by its target provider (`with_recorded`).

    healthy: nothing fails.  rejected as recorded: it fails only because the target refuses the
    file's shape as recorded, for nothing the view changes (a user message right after tool results,
    which Bedrock refuses, under a policy that plans no provider's order of turns).  repaired: the
    view changes what fails (a file's writer sending an entry in its provider's shape included:
    results split over two Bedrock messages sent as one).  findings: it fails for what the policy
    leaves in place (a malformed entry).
    """
    from ._diagnosis import fails_only_as_recorded

    if report.healthy:
        return Status.HEALTHY
    if fails_only_as_recorded(report):
        return Status.REJECTED_AS_RECORDED
    return Status.REPAIRED if report.changed else Status.FINDINGS


def informative_providers(names: str | Sequence[str] | None) -> tuple[str, ...]:
    """The providers to ask for information beside the target: ALL_PROVIDERS stands for every one;
    a string is a comma list.  Unknown names raise ValueError naming the known ones."""
    if not names:
        return ()  # (no provider asked: no rule set loaded)
    from .providers import PROVIDERS, spec

    listed = names.split(",") if isinstance(names, str) else list(names)
    found: list[str] = []
    for name in (name.strip() for name in listed):
        if name == ALL_PROVIDERS:
            found.extend(PROVIDERS)
        elif name:
            spec(name)  # raises for an unknown name
            found.append(name)
    return tuple(dict.fromkeys(found))


def split_provider_option(value: str | None) -> tuple[str | None, tuple[str, ...]]:
    """A `--provider` value as (target, providers asked for information): one name is the target;
    ALL_PROVIDERS or a comma list are information beside the format's target."""
    if not value:
        return None, ()
    if value == ALL_PROVIDERS or "," in value:
        return None, informative_providers(value)
    return value, ()


def read_bones(names: Sequence[str]) -> bool | str:
    """What the fast path reads for these providers' verdicts (read_fast's bones): nothing when none is asked;
    only whether messages carry native hints when each is judged from the light view (providers.sparse
    READ_LIGHT); else every message's bones, made as it reads.  names as `also` takes them (ALL_PROVIDERS,
    comma lists)."""
    asked = informative_providers(names)
    if not asked:
        return False
    from .providers.sparse import READ_LIGHT
    from .providers.sparse_items import SERVED as BY_ITEMS

    if not set(asked) <= READ_LIGHT | BY_ITEMS:
        return True
    return "items" if set(asked) & BY_ITEMS else "hints"


def reads_contents(names: Sequence[str]) -> bool:
    """Whether one of these providers' rules reads what the light view leaves out of messages unless asked: blank
    texts or empty contents (ProviderSpec.blank_text: Anthropic's and Bedrock's empty-content rules, Gemini's
    parts_empty), so the fast path looks for them
    (read_fast's blank) and the light view holds them (LightTranscript.blank_texts, which the strict view planned
    for such a provider leaves out), or reads an error result's content (ProviderSpec.error_text_only: the light
    view holds LightTranscript.error_contents, which that view sends as text), or a call's thought signature
    (ProviderSpec.signs_calls: LightTranscript.unsigned_frames, which that view sends signed)."""
    asked = informative_providers(names)
    if not asked:
        return False
    from .providers import SPECS

    return any(SPECS[name].refuses_blank_text or SPECS[name].error_text_only or SPECS[name].signs_calls
               for name in asked if name in SPECS)


def provider_verdicts(transcript: Transcript, view_for: Callable[[str], list[Any]], names: Sequence[str],
                      requests: dict[Any, Any] | None = None) -> dict[str, ProviderVerdict]:
    """Each provider's verdict on the transcript as recorded and on the view planned for it.

    Both are validated as a stored history (`history=True`: the next request appends a turn).
    Providers that read the same native format share its written requests (`validate`'s cache keeps
    the message lists it keys, so no key is ever a freed object's).  requests: where they are kept (the
    caller reads the view's own, providers.canonical.written_request); default: a dict of this call's.
    """
    from .providers.canonical import judge  # validate, without checking again what the engine made

    requests = {} if requests is None else requests
    said: dict[str, ProviderVerdict] = {}
    for name in names:
        before = judge(transcript.messages, name, transcript, history=True, as_recorded=True, requests=requests)
        view = view_for(name)
        after = before if view is transcript.messages and not transcript.native else \
            judge(view, name, transcript, history=True, requests=requests)
        said[name] = ProviderVerdict(name, before, after)
    return said


@without_gc  # the parsed transcript is large: collections would rescan it for nothing
def check_unit(loaded: Loaded, *, provider: str | None = None, also: str | Sequence[str] = (),
               policy: str = DEFAULT_POLICY, depth: Depth = "diagnosis", now: Callable[[], int] = time_ms
               ) -> CheckResult:
    """The one pipeline for one transcript of a file (see the module's docstring).

    provider: the target provider (the view is planned for it), or None for the one the format
    implies (if any).  also: providers asked for information beside it (ALL_PROVIDERS: every one).
    """
    if policy not in PLANNERS:
        from .repair.policies import POLICIES

        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    target = target_provider(loaded.format, provider, loaded.model)
    informative = informative_providers(also)
    planned_for = target  # the view is planned for the provider the verdict is for (named, else implied)
    asks = ([target] if target is not None else []) + [name for name in informative if name != target]
    light = loaded.light(policy, reads_contents(asks))
    # The cheap diagnosis reads a view with stretches (a million ints fewer); a report or a view lists each message,
    # and so do the providers' verdicts unless they are judged from the light view (sparse_letters).
    if asks and depth != "view":  # (the provider modules are loaded only when a provider is asked)
        from .skeleton_verdicts import skeleton_verdicts, sparse_letters

        letters = sparse_letters(loaded, light, asks)
    else:
        letters = None
    plan = PLANNERS[policy](light, planned_for, depth == "diagnosis" and (not asks or letters is not None))
    if asks and light.size >= FROM_MESSAGES:  # the reading's and planning's freed tables go before the verdicts fill
        release_free_pages()  # new arenas (integrity._bulk.freed_memory: 20 of Bedrock's 223 MiB at a million)
    judged = skeleton_verdicts(loaded, light, plan, asks, policy, now, letters) if asks and depth != "view" else None
    if judged is None and letters is not None:  # judged on the messages after all: their views list each one
        plan = PLANNERS[policy](light, planned_for)
    transcript = loaded.messages() if (asks and judged is None) or depth == "view" else None
    view: list[Any] | None = None
    written: Any = None
    verdicts: dict[str, ProviderVerdict] = {}
    stamps: list[int] = []
    if judged is not None:
        verdicts, stamps = judged
    elif transcript is not None:
        from .repair.entries import materialize

        if plan.changed and plan.order is not None:
            view, stamps = materialize(plan.order, transcript.messages, plan.placeholder, now)
        else:
            view = transcript.messages
        from .analysis import view_for_provider
        from .skeleton_verdicts import views_by_plan

        messages = transcript.messages
        view_for = views_by_plan(policy, light, plan, {plan.provider: view},
                                 lambda name: view_for_provider(policy, light, plan, view, messages, name, now))
        requests: dict[Any, Any] = {}
        verdicts = provider_verdicts(transcript, view_for, asks, requests)
        if depth == "view" and target is not None:  # what repair writes is the request the target judged
            from .providers.canonical import written_request

            written = written_request(requests, view, transcript, target)
        requests.clear()  # (the other requests written and the copies judged go before the report is built)
    elif depth == "report":
        from .repair.entries import is_stamped, unplain

        stamps = [now() for entry in unplain(plan.order or []) if is_stamped(entry)]
    if plan.changed and loaded.transcript is not None and loaded.transcript.native:  # (a file of some format)
        from .formats.reshaping import joins_results

        if joins_results(loaded.format):  # what the file's writer joins in this view
            light = _written_light(loaded, light, plan, view, policy, planned_for)
    report = _report(loaded, light, plan, depth, stamps, transcript)
    report = loaded.named(report) if loaded.transcript is None or loaded.transcript.native \
        or loaded.name != "main" or depth != "view" else report
    if target and report.provider != target:  # the reference's plan names no provider: the report is for it
        report = replace(report, provider=target)
    if target is not None:  # rated by the target alone: the verdict never depends on who else was asked
        report = with_recorded(report, {target: verdicts[target].accepted_as_recorded})
    return CheckResult(source=loaded.source, format=loaded.format, thread=loaded.name, policy=policy,
                       target=target, report=report, providers=verdicts, view=view if depth == "view" else None,
                       plan=plan, written=written)


def _written_light(loaded: Loaded, light: LightTranscript, plan: Plan, view: list[Any] | None, policy: str,
                   planned_for: str | None) -> LightTranscript:
    """The light view saying what the file written from this plan's view joins (integrity.written.written_light),
    the view made here when the verdicts were judged without it (a file whose writer joins results, judged toward
    another provider's skeleton: rare)."""
    from .repair.entries import materialize, unplain
    from .written import written_light

    transcript = loaded.messages()
    if view is None:
        listed = plan if plan.order is not None and range not in map(type, unplain(plan.order)) \
            else PLANNERS[policy](light, planned_for)
        if listed.order is None:
            return light
        view = materialize(listed.order, transcript.messages, listed.placeholder, lambda: 0)[0]
    return written_light(light, transcript, True, view)


def _report(loaded: Loaded, light: LightTranscript, plan: Plan, depth: Depth, stamps: list[int],
            transcript: Transcript | None) -> Any:
    """The report at the asked depth, the reading and schema findings first."""
    findings = loaded.findings()
    if depth == "diagnosis":
        return diagnose(light, plan, loaded.source, findings)
    if depth == "report":
        from .report import report_shell

        return report_shell(light, plan, stamps, loaded.source, findings)
    from .report import build_report

    return build_report(light, plan, stamps, loaded.source, findings)


def check(transcript: Transcript, *, provider: str | None = None, also: str | Sequence[str] = (),
          policy: str = DEFAULT_POLICY, depth: Depth = "diagnosis", now: Callable[[], int] = time_ms
          ) -> CheckResult:
    """Check one loaded transcript: its verdict, severity, counts, findings and provider verdicts.

    The same answer as `integrity check` (and triage, and every page of the inspector) gives for it.
    provider: the target provider's name; None for the provider the format implies (or the
    universal invariants when none does).  also: providers asked for information (ALL_PROVIDERS: every one).
    depth: "diagnosis" (cheap), "report" (the report's shell) or "view" (whole report and the view).
    """
    from ._arguments import require_transcript

    require_transcript(transcript, "check")
    return check_unit(Loaded.of(transcript), provider=provider, also=also, policy=policy, depth=depth, now=now)
