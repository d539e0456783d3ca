"""The bytes a page offers for download, read back and checked as `check` would check the downloaded file.

Why a module of its own, above the pipeline: a page may say "safe to send" only of bytes that pass `check`
(integrity.pipeline), and `repair`'s note says what is still flagged in the same words (still_flagged,
flagged_note); the analysis below the pipeline only plans and exports the view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .analysis import Analysis, export_view, load_all, provider_view, replans_for
from .loading import Transcript
from .pipeline import CheckResult
from .providers.violation import said
from .written import rejected_by_own_provider

__all__ = ["NOTHING_LEFT", "RECHECK_UP_TO", "Download", "download", "flagged_note", "still_flagged"]


NOTHING_LEFT = ("nothing is left after repair (every entry is dropped): the file holds no message to send, and "
               "`check` cannot read one")
"""What `repair` and the pages say of a view that drops every entry.  (The providers' lines judge the view as a
stored history, to which the next request adds its turn, and take an empty one: this line says what the written
file is, not what a provider answers.)"""

RECHECK_UP_TO = 10_000
"""Downloads of up to this many messages are read back and checked before a page calls them safe to send
(as `repair` re-reads what it writes, cli.RECHECK_UP_TO): above it the re-read would double the page's time."""


@dataclass(frozen=True)
class Download:
    """The bytes a page offers for one provider's view, and what `check` says when it reads them back.

    recheck: check's result on the bytes read back (None: not read back, above RECHECK_UP_TO messages).
    left: what `check` still flags in them, in the words of `repair`'s note ('' when it passes them): in
    any transcript they hold (a thread written back into its whole file carries the file's other threads).
    holds: the names of the transcripts read back from them (more than one: the whole file).
    """

    provider: str | None
    data: bytes
    recheck: CheckResult | None
    left: str
    holds: tuple[str, ...] = ()
    seconds: float = 0.0
    """How long writing, reading back and checking took (a page's estimate for the other providers)."""

    @property
    def safe_to_send(self) -> bool:
        """Whether the bytes were read back and `check` (the provider as its target) passes them."""
        return self.recheck is not None and not self.left


def download(analysis: Analysis, provider: str | None = None, recheck_up_to: int = RECHECK_UP_TO,
             written: dict[str | None, tuple[bytes, Any]] | None = None, data: bytes | None = None) -> Download:
    """The view planned for `provider` as the bytes a page offers, checked as `check --provider` would check
    the downloaded file (read back, the provider as the target): a page says "safe to send" only of bytes that
    pass.  Raises what writing the view raises (a page says it cannot offer it).

    written: shared by the calls of one page over several providers: the providers sent the analysis's own
    view share its bytes and their reading (kept by the provider a view was re-planned for, None for the
    analysis's own view: never by object identity); only the check differs.  data: the file's bytes (the page's
    upload or sample), which `repair` gives back as they are where the view changes nothing (export_view).
    """
    import dataclasses
    import time

    started = time.perf_counter()
    found = _download(analysis, provider, recheck_up_to, written, data)
    return dataclasses.replace(found, seconds=time.perf_counter() - started)


def _download(analysis: Analysis, provider: str | None, recheck_up_to: int,
              written: dict[str | None, tuple[bytes, Any]] | None, file: bytes | None) -> Download:
    from .file_verdict import check_file
    from .loading import TranscriptError
    from .pipeline import check

    transcript = analysis.transcript
    key = provider if provider is not None and replans_for(analysis.policy, analysis.light, analysis.plan,
                                                           provider) else None
    kept = (written or {}).get(key)
    if kept is None:
        data = export_view(analysis, provider, file)
        if not provider_view(analysis, provider):
            return Download(provider, data, None, NOTHING_LEFT)
        if len(transcript.messages) > recheck_up_to:
            return Download(provider, data, None, "")
        try:
            read: Any = load_all(data, transcript.source)  # every transcript: the page's may be a branch
        except TranscriptError as error:
            read = error
        kept = (data, read)
        if written is not None:
            written[key] = kept
    data, read = kept
    if isinstance(read, TranscriptError):
        return Download(provider, data, None, read.problem)
    back = next((t for t in read if t.name == transcript.name), read[0] if len(read) == 1 else None)
    holds = tuple(t.name for t in read)
    if back is None:  # a thread written into the whole file: the thread is read back under its own name
        return Download(provider, data, None, f"no transcript named {transcript.name} in the written file", holds)
    if sum(len(t.messages) for t in read) > recheck_up_to:  # the file's other threads make it too large
        return Download(provider, data, None, "", holds)
    # `check` on the downloaded file judges every transcript in it (exit 1 when any needs repair): so does this
    whole = check_file(read, provider=provider, policy=analysis.policy)
    result = whole.results.get(back.name) or check(back, provider=provider, policy=analysis.policy)  # (a branch)
    left = still_flagged(result, back, analysis.report) or whole.flagged_besides(back.name)
    return Download(provider, data, result, left, holds)


def still_flagged(result: CheckResult, transcript: Transcript | None, report: Any = None) -> str:
    """What `check` still flags in a written view ('' when it passes it), in the words `repair`'s note uses
    (cli: "the repaired view is written, but `check` still flags it: ..."): the provider that still rejects
    it with its first error word for word, else how many findings are left, else the target provider's
    first error, else check's verdict.
    report: the input's report; its first finding (malformed first) leads, named at the user's positions."""
    if result.healthy:
        return ""
    refused: Sequence[Any] = rejected_by_own_provider(transcript) if transcript is not None else []
    if not refused and not result.findings and result.target_verdict is not None:
        refused = result.target_verdict.before[:1]  # the target refuses what no finding names (its first)
    if refused:
        first = refused[0]
        left = f"{first.provider} would still reject it: {said(first)}"
    elif result.findings:
        left = f"{len(result.findings)} finding(s) left"
    else:
        left = f"check says {result.verdict}"
    findings = list(getattr(report, "findings", None) or [])
    lead = next((f for f in findings if f.severity.value == "malformed"), None) or (findings[0] if findings else None)
    return f"{lead.message} ({left})" if lead is not None else left


def flagged_note(source: str, left: str) -> str:
    """`repair`'s note for a view written although `check` still flags it (the Report page says the same)."""
    return f"note: {source}: the repaired view is written, but `check` still flags it: {left} " \
           "(`check` lists every finding)"
