"""The verdict of a file holding several transcripts, for pages that show one transcript at a time.

Why: `check FILE` judges every transcript of a file and exits 1 when any needs repair, so a page that
shows the file's healthy main thread must not let "✔ healthy" stand for the file, nor call a download
"safe to send" while a sidechain in it is still broken.  The fact is the engine's
(integrity.file_verdict.check_file); this module only caches it for the run and words it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import streamlit as st

from integrity import Transcript
from integrity.download import Download
from integrity.file_verdict import FileVerdict, check_file

_RUN = threading.local()
"""`judged`: (digest, policy, provider, verdict) of the file the transcript picker judged in this run."""


@st.cache_resource(max_entries=8, show_spinner=False)
def _judged(digest: str, names: tuple[str, ...], policy: str, provider: str | None,
            _transcripts: Sequence[Transcript]) -> FileVerdict:
    return check_file(_transcripts, provider=provider, policy=policy)


def forget() -> None:
    """A new file is being picked: no verdict of an earlier one may be shown for it."""
    _RUN.judged = None


def judge(digest: str, transcripts: Sequence[Transcript], policy: str, provider: str | None) -> FileVerdict:
    """`check`'s verdict on every transcript of the file (cached by content, policy and provider), kept for
    this run's verdict lines (current)."""
    verdict = _judged(digest, tuple(t.name for t in transcripts), policy, provider, transcripts)
    _RUN.judged = (digest, policy, provider, verdict)
    return verdict


def current(digest: str, policy: str, provider: str | None) -> FileVerdict | None:
    """The file's verdict the picker judged in this run, when it is for this file, policy and provider and the
    file holds more than one checked transcript; else None (a file of one transcript: its verdict is the
    file's)."""
    judged = getattr(_RUN, "judged", None)
    if judged is None or judged[:3] != (digest, policy, provider) or len(judged[3].results) < 2:
        return None
    verdict: FileVerdict = judged[3]
    return verdict


def file_line(verdict: FileVerdict) -> str:
    """The file's verdict as `check FILE` gives it, first in the headline (untrusted names: neutralize it)."""
    if verdict.healthy:
        return f"✔ this file: {verdict.said} (`check` passes it)"
    return f"⚠ this file: {verdict.said} (`check` exits 1 on it)"


def thread_prefix(transcript: Transcript, verdict: FileVerdict | None) -> str:
    """'transcript main: ' before a verdict that is one transcript's of a file holding several; '' else."""
    return f"transcript {transcript.name}: " if verdict is not None else ""


def holds_words(transcript: Transcript, offered: Download | str | None) -> str:
    """What the download of one transcript's view holds, when the file holds several ('' else): the whole
    file (this transcript's view written back, the others as they are) or this transcript alone."""
    if not transcript.siblings:
        return ""
    if isinstance(offered, Download) and offered.holds:
        whole = len(offered.holds) > 1
    else:
        whole = transcript.whole is not None
    if whole:
        return (f"the download is the whole file: transcript {transcript.name} as repaired, the file's other "
                "transcripts as they are")
    return f"the download holds transcript {transcript.name} alone, not the file's other transcripts"
