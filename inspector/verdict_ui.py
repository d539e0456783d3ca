"""Streamlit pieces for provider verdicts: progress with cancel, the one-line answer, the compiler-style panel.

Verdicts for seven providers on a large transcript take seconds, so they are
computed one provider at a time under a progress bar with a Cancel button (a
click, a rerun or the end of the session stops the run between providers).
The chosen provider's answer is shown in full without a click; every error names
the rows it is about.  Transcript-derived text is shown only in code blocks.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from integrity import PROVIDERS, Analysis, Placement, ProviderVerdict, provider_verdict, with_verdicts
from integrity.download import RECHECK_UP_TO, Download, download
from integrity.file_verdict import FileVerdict
from integrity.providers.violation import said as position_said

from . import whole_file
from .diagnostics import curl_command, diagnostics, request_body
from .positions import native_label, row_place
from .report_view import after_repair_words
from .safe_text import neutralize
from .ui import show_failure, verdict_line

AUTO_VERDICT_MESSAGES = 3_000
"""Every provider's verdict starts by itself up to this many messages; above it, on a button."""
AUTO_CHOSEN_MESSAGES = 20_000
"""The chosen provider's verdict (the headline's) starts by itself up to this many messages."""


@st.cache_resource(max_entries=16, show_spinner=False)
def _one_verdict(digest: str, name: str, policy: str, provider: str | None, judge: str,
                 _analysis: Analysis, _requests: dict[Any, Any]
                 ) -> tuple[ProviderVerdict, list[Any] | None, float]:
    """The judge's verdict, the view it judged when that view was re-planned for it (else None), and the
    seconds it took (kept with the verdict: what the next estimate reads)."""
    started = time.perf_counter()
    views: dict[str, list[Any]] = {}
    said = provider_verdict(_analysis, judge, requests=_requests, views=views)
    # tens of thousands of kept violations out of the cyclic GC's rescans (as inspector.ui._settled does for
    # the transcript): otherwise every later key press pays for a collection that walks them all
    gc.freeze()
    return said, views.get(judge), time.perf_counter() - started


def _cancel(flag: str) -> None:
    st.session_state[flag] = False


def judged(digest: str, name: str, analysis: Analysis, provider: str | None, key: str = "") -> Analysis:
    """The analysis with the providers' verdicts, computed under a progress bar that can be cancelled.

    Small transcripts get every provider's verdict at once; up to AUTO_CHOSEN_MESSAGES
    the chosen provider's (what the headline and the verdict need); every provider's
    on a button above AUTO_VERDICT_MESSAGES.
    """
    if analysis.verdicts and len(analysis.verdicts) == len(PROVIDERS):
        return analysis
    size = len(analysis.transcript.messages)
    flag = f"_verdicts_{digest}_{name}_{analysis.policy}_{provider}"
    keys = f"{flag}{key}"
    asked = st.session_state.get(flag)  # True: every provider asked for; False: cancelled; None: neither
    names: list[str] = []
    if asked or (asked is None and size <= AUTO_VERDICT_MESSAGES):
        names = list(PROVIDERS)
    elif asked is None and provider in PROVIDERS and size <= AUTO_CHOSEN_MESSAGES:
        names = [provider]
    timings = st.session_state.setdefault(f"_verdict_seconds_{digest}_{name}", {})  # measured in this session
    if len(names) < len(PROVIDERS):
        label = "cancelled: start again" if asked is False else \
            f"{size:,} messages" + (estimate(timings) or ": the time left shows as it runs")
        st.button(f"Check what every provider says ({label})", key=f"verdict_btn_{keys}",
                  on_click=st.session_state.__setitem__, args=(flag, True))
    if not names:
        return analysis
    verdicts: dict[str, ProviderVerdict] = {}
    views: dict[str, list[Any]] = {}
    requests: dict[Any, Any] = {}  # providers sharing a native format share its written requests
    slot = st.empty()
    failed: Exception | None = None
    with slot.container():
        bar = st.progress(0.0, text="Checking what the providers say…")
        if len(names) > 1:
            st.button("Cancel", key=f"verdict_cancel_{keys}", on_click=_cancel, args=(flag,))
        try:
            for count, judge in enumerate(names):
                left = estimate(timings, names[count:], "about {} s left")
                bar.progress(count / len(names), text=f"Checking what the providers say: {judge} ({count + 1} "
                                                       f"of {len(names)}{'; ' + left if left else ''})")
                verdicts[judge], view, timings[judge] = _one_verdict(digest, name, analysis.policy, provider,
                                                                     judge, analysis, requests)
                if view is not None:
                    views[judge] = view
        except Exception as error:  # noqa: BLE001 - the rest of the page is still worth showing
            failed = error
    slot.empty()
    if failed is not None:
        show_failure(f"{name}: provider verdicts", failed,
                     headline="Provider verdicts could not be computed for this transcript; the rest is shown.")
        return analysis
    return with_verdicts(analysis, verdicts, views)


def estimate(timings: dict[str, float], names: Sequence[str] = tuple(PROVIDERS), said: str = ": about {} s") -> str:
    """How long the providers `names` will take, from the verdicts measured on this transcript in this session
    (each provider timed before at its own time, any other at the mean of those); "" before any was measured:
    a constant per message was off by more than 2x (it promised 11 s for 25 s)."""
    if not timings:
        return ""
    mean = sum(timings.values()) / len(timings)
    seconds = sum(timings.get(judge, mean) for judge in names)
    return said.format(f"{seconds:.0f}" if seconds >= 2 else f"{seconds:.1f}")


def headline(analysis: Analysis, provider: str | None, digest: str, name: str,
             whole: FileVerdict | None = None, data: bytes | None = None) -> None:
    """The verdict and the chosen provider's answer in one block: as recorded, after repair, first error whole;
    "safe to send" only of the download `check` passes (offered_download).  whole: the file's verdict when it
    holds several transcripts (inspector.whole_file): said first, and the rest labelled as this transcript's."""
    transcript = analysis.transcript
    prefix = whole_file.thread_prefix(transcript, whole)
    lines = [*([whole_file.file_line(whole)] if whole is not None else []), prefix + verdict_line(analysis),
             *unplaced_findings(analysis)]
    result = (analysis.verdicts or {}).get(provider or "")
    if provider and result is not None:
        offered = offered_download(analysis, provider, digest, name, data=data) if result.accepted_after_repair \
            else None
        lines.extend(provider_lines(result, offered, len(transcript.messages),
                                    transcript.name if whole is not None else None))
        holds = whole_file.holds_words(transcript, offered) if result.accepted_after_repair else ""
        if holds:
            lines.append(f"  ({holds})")
    st.code(neutralize("\n".join(lines)), language=None, wrap_lines=True)


@st.cache_resource(max_entries=64, show_spinner=False)
def _download(digest: str, name: str, policy: str, planned_for: str | None, provider: str | None,
              _analysis: Analysis, _written: dict[Any, Any] | None, _data: bytes | None) -> Download:
    return download(_analysis, provider, written=_written, data=_data)


def offered_download(analysis: Analysis, provider: str | None, digest: str, name: str,
                     written: dict[Any, Any] | None = None, data: bytes | None = None) -> Download | str | None:
    """The bytes the Report page offers for `provider`'s view, read back and checked (cached by content, policy
    and provider); a string: why the view cannot be written (one line, never a traceback); None above
    RECHECK_UP_TO messages: nothing is written until the download is asked for, and nothing is called safe.
    written: shared over one page's providers (integrity.download.download).  data: the file's bytes (digest's),
    given back as they are where `repair` gives them back (integrity.written)."""
    if len(analysis.transcript.messages) > RECHECK_UP_TO:
        return None
    try:
        return _download(digest, name, analysis.policy, analysis.provider, provider, analysis, written, data)
    except Exception as error:  # noqa: BLE001 - the page says the download cannot be offered, and goes on
        return f"the repaired view cannot be written ({type(error).__name__}: {error})"


def provider_lines(result: ProviderVerdict, offered: Download | str | None, size: int,
                   thread: str | None = None) -> list[str]:
    """The chosen provider's answer: as recorded and after repair, each first error whole.  thread: the
    transcript's name when the file holds several (the answer is that transcript's, not the file's)."""
    provider, before, after = result.provider, result.before, result.after
    recorded, view = (f"transcript {thread}", f"the repaired view of transcript {thread}") if thread is not None \
        else ("the transcript", "the repaired view")
    lines = [f"{provider}, {recorded} as recorded: "
             + ("accepted" if not before else f"REJECTED with {len(before)} error(s), the first:")]
    if before:  # (with its position, as `check --provider` says it: a text naming no index says where)
        lines.append(f"  {position_said(before[0])}")
    words = after_repair_words(result, offered, size)
    lines.append(f"{provider}, {view}: {words}" + (", the first:" if after else ""))
    if after:
        lines.append(f"  {position_said(after[0])}")
    return lines


UNPLACED_SHOWN = 5


def unplaced_findings(analysis: Analysis) -> list[str]:
    """The findings about no message of the transcript (a line not read as one, a torn last line), one line
    each as `check` prints them: no row can carry them, and the verdict alone only counts them."""
    unplaced = [finding for finding in analysis.report.findings if not finding.durable_indices]
    lines = [finding.said for finding in unplaced[:UNPLACED_SHOWN]]
    if len(unplaced) > UNPLACED_SHOWN:
        lines.append(f"... and {len(unplaced) - UNPLACED_SHOWN} more about no message: the Report page lists them all")
    return lines


def _row_links(indices: Sequence[int], when: str, analysis: Analysis, placement: Placement | None) -> str:
    """The messages an error is about, by their place in the user's file (the one number shown first):
    as recorded, the error's indices are durable; after repair they are view positions, placed through the
    report's one durable-to-view mapping (a message only the view has is "not in the file")."""
    if when == "before":
        return ", ".join(native_label(analysis.transcript, i) for i in indices)
    return ", ".join(row_place(analysis.transcript, (placement.sources(i) or (None,))[0] if placement else None, i)
                     for i in indices)


def compiler_panel(analysis: Analysis, provider: str | None, by_left: dict[int, int],
                   by_right: dict[int, int]) -> list[tuple[str, int]]:
    """Each error of the chosen provider, before and after repair, like a compiler prints it.

    Returns (label, row) per error so the page can offer "go to its row".
    """
    if not provider or provider not in (analysis.verdicts or {}):
        return []
    targets: list[tuple[str, int]] = []
    size = len(analysis.transcript.messages)
    # No key: the default differs with the size, so a large transcript gets its own toggle, and a toggle
    # that left the page (no transcript for a run) comes back at its default on both ends.
    excerpts = st.toggle("Show the request around each error", value=size <= EXCERPT_UP_TO,
                         help="the provider's request entries around the failing path, one line each "
                              f"(on by default up to {EXCERPT_UP_TO:,} messages: it rebuilds the request)")
    placement = analysis.placement if analysis.report.view else None  # built once per analysis
    for when, title in (("before", "as recorded"), ("after", "after repair")):
        found = diagnostics(analysis, provider, when, excerpts)
        st.markdown(f"**{provider}, {title}:** " + (f"{len(found)} error(s)" if found else "accepted"))
        rest: list[dict[str, Any]] = []
        for number, said in enumerate(found, 1):
            about = _row_links(said.canonical, when, analysis, placement)
            if number <= SHOWN_ERRORS:
                head = f"error[{said.rule}] at {said.position}" + (f"  —  about {about}" if about else "")
                st.code(f"{head}\n{said.error}", language=None, wrap_lines=True)  # the exact text, whole
                if said.excerpt:
                    st.code(said.excerpt, language=None, wrap_lines=False)  # the request around it, an entry a line
            else:
                rest.append({"error": number, "rule": said.rule, "at": said.position, "about": about,
                             "provider's text": said.error})
            table = by_left if when == "before" else by_right
            rows = [table[i] for i in said.canonical if i in table]
            if rows:
                targets.append((f"{title}, error {number}: {said.rule}", rows[0]))
        if rest:  # one table for the rest: hundreds of blocks would take the browser seconds to draw
            st.caption(f"The other {len(rest):,} error(s) of {provider} {title}, each with the rows it is about "
                       "(go to any of them below):")
            st.dataframe(pd.DataFrame(rest), hide_index=True, width="stretch", height=min(len(rest), 8) * 35 + 40,
                         column_config={"provider's text": st.column_config.TextColumn(width="large")})
    return targets


SHOWN_ERRORS = 5
"""Errors printed whole, compiler style; the rest of a provider's errors go in one table."""
EXCERPT_UP_TO = 3_000
"""Up to this many messages the compiler panel quotes the request around each error by default."""
CURL_INLINE_CHARS = 100_000
CURL_INLINE_MESSAGES = 500
"""Up to this many messages the curl command is shown to copy; above, it is built only when downloaded."""


def curl_panel(analysis: Analysis, provider: str | None) -> None:
    """`copy as curl`: the request as recorded, to reproduce the provider's answer (key as a variable)."""
    if not provider:
        return
    label = f"Download the curl command that sends the recorded request to {provider}"
    if len(analysis.transcript.messages) > CURL_INLINE_MESSAGES:  # built only when downloaded
        st.download_button(label, lambda: curl_command(provider, request_body(analysis, provider, "before")).encode(),
                           file_name=f"request.{provider}.sh", mime="text/x-shellscript", key="curl_download",
                           on_click="ignore")
        return
    command = curl_command(provider, request_body(analysis, provider, "before"))
    if len(command) > CURL_INLINE_CHARS:  # a huge message: too long to show, whole in the file
        st.download_button(label, command.encode(), file_name=f"request.{provider}.sh", mime="text/x-shellscript",
                           key="curl_download", on_click="ignore")
        return
    with st.expander(f"Copy as curl: send the recorded request to {provider} (the copy icon is top right)"):
        st.code(command, language="bash", wrap_lines=False)
