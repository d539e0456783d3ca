"""How a report of a transcript read from a file names what it is about: one function for `check`, the API and the
inspector (integrity.loaded.Loaded.named, integrity.analysis.analyze), so each says the same."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._records import replace

if TYPE_CHECKING:
    from .loading import Transcript


def named_report(report: Any, transcript: Transcript | None, format: str | None, name: str) -> Any:
    """A report (or diagnosis) of a transcript read from a file, naming the format read, the transcript (thread or
    sample) it is about and the results its runtime adds as it sends the session (formats.answered_as_sent:
    `runtime_results`, why a provider takes a call no result of the file answers).  The one naming `check`, the
    API and the inspector give a report.  transcript: None when read by the fast path (whose formats add none)."""
    added: dict[str, str] | None = None
    if transcript is not None:
        from .formats import answered_as_sent

        added = answered_as_sent(transcript) or None
    return replace(report, format=format, thread=name, runtime_results=added)


def runtime_results_said(report: Any) -> str | None:
    """The one sentence every edge says about the results a transcript's runtime adds as it sends the session (the
    report's `runtime_results`), or None when it adds none: `check`'s third line, the batch table's column and
    the triage table's count say the same thing, so a reader never wonders why a provider took an orphaned call.
    The last clause only when a provider judged a request (no provider asked: none judged)."""
    added = report.runtime_results
    if not added:
        return None
    import json

    texts = ", ".join(json.dumps(text) for text in dict.fromkeys(added.values()))
    judged = ": the request judged holds it" if report.as_recorded else ""
    return (f"its runtime ({report.format}) sends {len(added)} call(s) a result of its own as it sends the session "
            f"({texts}){judged}")
