"""Shared Streamlit pieces for the pages: input loading, URL state, legend, safe rendering.

Pages stay thin: every answer comes from `integrity` (analyze, the report, the
kind registry) through the inspector's row, theme, Markdown, batch and lesson
modules; this module only turns it into widgets.  Transcript
text is untrusted, so nothing here passes transcript strings to st.markdown,
st.write, st.error or HTML: they go through st.code, st.text, st.json and
dataframe cells, which render text literally, and it is neutralized first
(inspector.safe_text): bidi controls, invisible characters and escapes show as
visible markers.  A failure shows one error line, with details (no server
paths) in an expander, never a traceback.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib
import threading
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd
import streamlit as st

from inspector.rows import (
    Row,
    aligned_rows,
    fill_previews,
    rows_by_side,
    verdict_rows,
)
from inspector.safe_text import has_hostile, literal, neutralize, safe_filename, without_paths
from inspector.theme import ROW_KINDS, colour, label, meaning, summary_metrics, visible_prefix
from integrity import (
    DEFAULT_POLICY,
    POLICIES,
    PROVIDERS,
    Analysis,
    Placement,
    Transcript,
    TranscriptError,
    analyze,
    gc_paused,
    judged_by_providers,
    load,
    load_all,
    target_provider,
)
from integrity.loading import BadLineError
from integrity.pipeline import unjudged

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_transcripts"
PASTE_NAME = "pasted.json"


# ----------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Source:
    """The bytes the user chose and a name for them (file name, sample name or 'pasted.json')."""

    name: str
    data: bytes
    kind: str  # "sample", "upload" or "paste"

    @functools.cached_property
    def digest(self) -> str:  # once per Source: hashing 20 MB costs 25 ms, and a page run asks several times
        return digest_of(self.data)


def digest_of(data: bytes) -> str:
    """Content hash used as the cache key, so equal bytes are parsed and analysed once."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def sample_names() -> list[str]:
    """Files in sample_transcripts/ (sorted); the only names a ?sample= link may open."""
    if not SAMPLES.is_dir():
        return []
    return sorted(p.name for p in SAMPLES.iterdir() if p.is_file() and not p.name.startswith(".")
                  and p.suffix in (".json", ".jsonl") and p.stat().st_size < 50_000_000)


def read_sample(name: str) -> bytes | None:
    """A sample's bytes, or None when the name is not one of sample_names() (no path tricks)."""
    if name not in sample_names():
        return None
    return (SAMPLES / name).read_bytes()


# What a @st.cache_resource function returns is one object shared by every session and
# thread: nothing may change it after it is returned.  A page that needs more (verdicts,
# row texts) gets a new object (with_verdicts, previewed, searchable_rows).


@st.cache_resource(max_entries=4, show_spinner=False)
def _load(digest: str, name: str, _data: bytes) -> Any:
    try:
        return load(_data, name)
    except Exception as error:  # a TranscriptError, or any other failure to read: this input's error, never a crash
        return error


def provider_names() -> list[str]:
    """The provider rule sets of the engine."""
    return list(PROVIDERS)


@st.cache_resource(max_entries=8, show_spinner=False)
def _analyze(digest: str, name: str, policy: str, provider: str | None, _transcript: Transcript) -> Analysis:
    # Verdicts are not asked for here: validating every provider costs far more than the repair
    # itself on large transcripts, so they are added by with_verdicts (automatically when small).
    return _settled(analyze(_transcript, policy, provider=provider, verdicts=False))


def _settled(value: Any) -> Any:
    """Move everything alive now (the cached transcript and analysis) out of the cyclic GC's reach.

    A cached 100,000-message transcript is millions of long-lived dicts; every later
    collection on any page run would rescan them all (rows: 1.2 s instead of 0.26 s).
    They hold no reference cycles, so reference counting still frees them when the
    cache lets go: frozen objects are only skipped by the collector, never kept alive.
    """
    gc.freeze()
    return value


AUTO_VERDICT_MESSAGES = 3_000
"""Provider verdicts are computed automatically up to this many messages, on request above it."""


@st.cache_resource(max_entries=16, show_spinner=False)
def _with_verdicts(digest: str, name: str, policy: str, provider: str | None, _analysis: Analysis) -> Analysis:
    return judged_by_providers(_analysis, PROVIDERS)  # verdicts, and the report rated by them as check does


def with_verdicts(source: Source, analysis: Analysis, provider: str | None, key: str = "") -> Analysis:
    """The analysis with every provider's verdicts (before and after): at once when small, on a button when large.

    The verdicts come on a new (cached) Analysis; the one passed in is never changed,
    so use the return value.
    """
    if analysis.verdicts:
        return analysis
    size = len(analysis.transcript.messages)
    flag = f"_verdicts_{source.digest}_{_cache_name(source, analysis.transcript)}_{analysis.policy}"
    wanted = size <= AUTO_VERDICT_MESSAGES or st.session_state.get(flag)
    if not wanted:
        st.button(f"Check provider verdicts ({size:,} messages: this takes a while)", key=f"verdict_btn{key}",
                  on_click=st.session_state.__setitem__, args=(flag, True))
        return analysis
    with st.spinner("Validating against every provider's rules…"):
        try:
            return _with_verdicts(source.digest, _cache_name(source, analysis.transcript), analysis.policy, provider,
                                  analysis)
        except Exception as error:  # noqa: BLE001 - the rest of the page is still worth showing
            show_failure(f"{source.name}: provider verdicts", error,
                         headline="Provider verdicts could not be computed for this transcript; the rest is shown.")
            return analysis


@st.cache_resource(max_entries=8, show_spinner=False)
def _rows(digest: str, name: str, policy: str, provider: str | None, _analysis: Analysis) -> list[Row]:
    with gc_paused():  # 100,000 new rows would make the collector rescan the whole transcript (1.2 s -> 0.26 s)
        return _settled(aligned_rows(_analysis, previews=len(_analysis.transcript.messages) <= PREVIEW_ALL_UP_TO))


PREVIEW_ALL_UP_TO = 3_000
"""Above this many messages, row texts are computed only for the rows on screen (or on a text search)."""


def previewed(analysis: Analysis, rows: Sequence[Row]) -> list[Row]:
    """The rows with their texts: rows built without previews are filled as copies (cached rows stay as they are)."""
    fresh = [row if row.filled else dataclasses.replace(row) for row in rows]
    fill_previews(analysis, fresh)
    return fresh


@st.cache_resource(max_entries=4, show_spinner=False)
def _previewed_rows(digest: str, name: str, policy: str, provider: str | None, _analysis: Analysis) -> list[Row]:
    return previewed(_analysis, _rows(digest, name, policy, provider, _analysis))


@st.cache_resource(max_entries=4, show_spinner=False)
def _load_all(digest: str, name: str, _data: bytes, format: str = "auto", skip_bad_lines: bool = False) -> Any:
    try:
        return _settled(load_all(_data, name, format, skip_bad_lines))
    except Exception as error:  # a TranscriptError, or any other failure to read: this input's error, never a crash
        return error


def load_source(source: Source, policy: str | None = None) -> Transcript | None:
    """Parse (cached by content); on bad input show the one-line error and return None.

    A file holding several transcripts (an eval log's samples, a Claude Code
    session's sidechains, abandoned branches) gets a picker in the sidebar; with the
    page's policy, the file is checked whole as `check FILE` does (inspector.whole_file)
    and the picker marks the transcripts that need repair.
    """
    result = _load_all(source.digest, source.name, source.data)
    choices = format_choices(source.data, source.name, result) if isinstance(result, TranscriptError) else []
    if choices:
        picked = format_picker(source, choices, str(result))
        if picked is None:
            return None
        result = _load_all(source.digest, source.name, source.data, picked)
    else:
        url_set("format", None)
    if isinstance(result, BadLineError):
        skip_key = f"skip_bad_lines:{source.digest}"
        if not st.session_state.get(skip_key):
            show_error(str(result))
        if not st.checkbox("Read the other lines (`--skip-bad-lines`)", key=skip_key,
                           help="Leave out every JSONL line that is not JSON, each one reported as a finding, and "
                                "check the rest, as `integrity check --skip-bad-lines` does."):
            return None
        result = _load_all(source.digest, source.name, source.data, skip_bad_lines=True)
    if isinstance(result, TranscriptError):
        show_error(str(result))
        return None
    if isinstance(result, Exception):
        show_failure(f"{source.name}: could not be read", result, headline=_INPUT_HEADLINE)
        return None
    return pick_transcript(source, result, policy)


def format_choices(data: bytes, name: str, error: TranscriptError) -> list[str]:
    """The formats to offer when detection needs help: the candidates the engine saw signs of when it calls
    the file ambiguous, every format it reads when none fits or the file has no messages; [] for other
    errors (broken JSON, a bad entry: no format would read it)."""
    from integrity.formats import READABLE, possible_formats
    from integrity.formats.container import parse_document

    problem = getattr(error, "problem", "")
    if problem.startswith("ambiguous transcript format"):
        try:
            document = parse_document(data, name)
            whole: Any = document.entries if document.container != "object" \
                else {**document.envelope, document.key: document.entries}
            found = [f for f in possible_formats(whole) if f in READABLE]
        except Exception:  # noqa: BLE001 - the error names them anyway: offer every format
            found = []
        return found or list(READABLE)
    if problem.startswith(("unknown transcript format", "the transcript has no messages")):
        return list(READABLE)
    return []


def format_picker(source: Source, choices: Sequence[str], error: str) -> str | None:
    """Detection needs help: the engine's error, then the formats to read the file as (the CLI's --format),
    mirrored in ?format=; None until one is picked."""
    st.warning("The format of this file cannot be told from its content alone: pick it below "
               "(the command line's `--format`).")
    st.code(neutralize(without_paths(error)), language=None, wrap_lines=True)
    key = f"format_{source.digest}"
    asked = url_get("format")
    if asked is not None and asked in choices and st.session_state.get("_url_format") != asked:
        st.session_state[key] = asked
        st.session_state["_url_format"] = asked
    elif asked is not None and asked not in choices and st.session_state.get("_url_format") != asked:
        st.session_state["_url_format"] = asked
        report_unknown("format", asked, list(choices), None)
    picked: str | None = st.selectbox("Read it as", list(choices), key=key, index=None,
                                      placeholder="pick the format", help="the formats the file shows signs of "
                                      "(every format the engine reads when it fits none)")
    url_set("format", picked)
    if picked is not None:
        st.session_state["_url_format"] = picked
    return picked


def pick_transcript(source: Source, transcripts: Sequence[Transcript], policy: str | None = None) -> Transcript:
    """The only transcript, or the one picked in the sidebar ("main" first; branches are marked, and with a
    policy the transcripts `check` says need repair, judged by the provider in effect)."""
    from inspector import whole_file

    whole_file.forget()
    if len(transcripts) == 1:
        url_set("thread", None)
        return transcripts[0]
    names = [t.name for t in transcripts]
    needing: list[str] = []
    if policy is not None:
        with st.spinner(f"Checking the file's {len(transcripts):,} transcripts…"):
            needing = whole_file.judge(source.digest, transcripts, policy,
                                       provider_in_effect(transcripts[0])).needing
    marks = {t.name: f"  ({unjudged(t.kind)[0]})" if not t.checked else "  (needs repair)" if t.name in needing else ""
             for t in transcripts}
    key = f"thread_{source.digest}"
    default = "main" if "main" in names else names[0]
    asked = url_get("thread")  # a link carries the transcript it opens (?thread=sidechain:...)
    if asked is not None and st.session_state.get("_url_thread") != asked:
        st.session_state["_url_thread"] = asked
        if asked in names:
            st.session_state[key] = asked
        else:
            report_unknown("thread", asked, names, st.session_state.get(key, default))
    if st.session_state.get(key) not in names:
        st.session_state[key] = default
    chosen: str | None = st.sidebar.selectbox(
        f"Transcript ({len(names)} in this file)", names, key=key,
        format_func=lambda name: neutralize(name) + marks[name],
        help="A file may hold several transcripts: a Claude Code session's sidechains, an eval log's samples, "
             "branches a rewind left behind. Each is checked on its own; `check` on the file exits 1 when any "
             "is marked 'needs repair'.")
    url_set("thread", None if chosen in (None, default) else chosen)
    if chosen not in (None, default):
        st.session_state["_url_thread"] = chosen
    picked = transcripts[names.index(chosen) if chosen is not None else 0]  # None only without options
    if not picked.checked:  # listed, never judged: what the page shows is how it would be judged if it were sent
        status, reason = unjudged(picked.kind)
        st.sidebar.info(f"{literal(picked.name)}: {status}: {reason}. `check` lists it without judging it; the "
                        f"page shows how it would be judged if it were sent (`check --thread {literal(picked.name)}`).")
    return picked


def _cache_name(source: Source, transcript: Transcript) -> str:
    """The cache key's name: the file's, plus the transcript's when the file holds several."""
    return f"{source.name}#{transcript.name}" if transcript.siblings else source.name


def analysis_for(source: Source, transcript: Transcript, policy: str, provider: str | None = None) -> Analysis:
    """The engine's analysis under one policy, for one provider (cached by content, policy, provider).

    A failure is shown as one error line and stops the page (never a traceback).
    """
    try:
        return _analyze(source.digest, _cache_name(source, transcript), policy, provider, transcript)
    except Exception as error:  # noqa: BLE001 - an engine failure on this input is this input's error
        show_failure(f"{source.name}: could not be analysed", error,
                     headline="This transcript could not be analysed. The app keeps working; try another.")
        st.stop()
        raise  # not reached: st.stop() raises


def rows_for(source: Source, analysis: Analysis, provider: str | None = None) -> list[Row]:
    """The aligned raw/repaired rows of an analysis (cached by content and policy; shared, so never changed).

    Above PREVIEW_ALL_UP_TO messages their texts are empty: previewed() fills copies
    of the rows on screen, searchable_rows() gives every row with its text.
    """
    return _rows(source.digest, _cache_name(source, analysis.transcript), analysis.policy, provider, analysis)


def searchable_rows(source: Source, analysis: Analysis, provider: str | None = None) -> list[Row]:
    """rows_for with every row's text computed (for a text search; cached like rows_for)."""
    rows = rows_for(source, analysis, provider)
    if all(row.filled for row in rows):
        return rows
    return _previewed_rows(source.digest, _cache_name(source, analysis.transcript), analysis.policy, provider,
                           analysis)


cache_name = _cache_name  # public name for pages that key their own caches the same way


@st.cache_resource(max_entries=8, show_spinner=False)
def _placement(digest: str, name: str, policy: str, provider: str | None, _analysis: Analysis) -> Placement:
    return _analysis.placement


def placement_for(source: Source, analysis: Analysis, provider: str | None = None) -> Placement:
    """The report's durable <-> view mapping (cached like rows_for): what every "sent at"/"not sent" reads."""
    return _placement(source.digest, _cache_name(source, analysis.transcript), analysis.policy, provider, analysis)


@st.cache_resource(max_entries=8, show_spinner=False)
def _sides(digest: str, name: str, policy: str, provider: str | None,
           _rows: Sequence[Row]) -> tuple[dict[int, int], dict[int, int]]:
    return rows_by_side(_rows)


def sides_for(source: Source, analysis: Analysis, provider: str | None,
              rows: Sequence[Row]) -> tuple[dict[int, int], dict[int, int]]:
    """Durable index -> row and view position -> row, for links to rows (cached like rows_for)."""
    return _sides(source.digest, _cache_name(source, analysis.transcript), analysis.policy, provider, rows)


_INPUT_HEADLINE = "Could not read this input. The app keeps working; fix the file or pick another."


def show_error(message: str) -> None:
    """An input error: a fixed headline, then the engine's one-line message as literal text."""
    st.error(_INPUT_HEADLINE)
    st.code(neutralize(without_paths(message)), language=None, wrap_lines=True)


def failure_line(what: str, error: BaseException) -> str:
    """'what: ErrorType: first line of the message', neutralized, without server paths, at most 300 characters."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    line = f"{what}: {type(error).__name__}" + (f": {message}" if message else "")
    line = neutralize(without_paths(line))
    return line if len(line) <= 300 else line[:299] + "…"


def failure_details(error: BaseException, frames: int = 12) -> str:
    """Where it failed, for a bug report: each error of the chain and its innermost frames, no server paths.

    Frames read 'at integrity/x.py:12 in plan' (project-relative; other files by name only).
    """
    lines: list[str] = []
    current: BaseException | None = error
    seen: set[int] = set()
    while current is not None and id(current) not in seen and len(seen) < 5:
        seen.add(id(current))
        if lines:
            lines.append("caused by:")
        lines.append(f"{type(current).__name__}: {str(current)[:1000]}")
        for frame in traceback.extract_tb(current.__traceback__)[-frames:]:
            lines.append(f"  at {frame.filename}:{frame.lineno} in {frame.name}")
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return neutralize(without_paths("\n".join(lines)))


def show_failure(what: str, error: BaseException, headline: str | None = None) -> None:
    """One error line (fixed headline, then the failure as literal text) and the details in a closed expander."""
    st.error(headline or "Something went wrong here. The app keeps working; try another input or page.")
    st.code(failure_line(what, error), language=None, wrap_lines=True)
    with st.expander("Details (for a bug report)", expanded=False):
        st.code(failure_details(error), language=None, wrap_lines=True)


def _clean(value: Any) -> Any:
    return neutralize(value) if isinstance(value, str) else value


def safe_frame(data: Any, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """A table of untrusted text (ids, names, errors from transcripts) with every string cell neutralized.

    `data` is a dict of columns or a list of row dicts (cleaned before pandas sees
    them: pandas' Arrow strings cannot even hold a lone surrogate), or a DataFrame
    (cleaned into a copy).
    """
    if isinstance(data, pd.DataFrame):
        cleaned = data.copy()
        for column in cleaned.columns:
            if not pd.api.types.is_numeric_dtype(cleaned[column]):
                cleaned[column] = [_clean(value) for value in cleaned[column]]
        return cleaned
    if isinstance(data, dict):
        return pd.DataFrame({key: [_clean(value) for value in values] for key, values in data.items()},
                            columns=columns)
    return pd.DataFrame([{key: _clean(value) for key, value in row.items()} for row in data], columns=columns)


# ----------------------------------------------------------------------------- URL state


PENDING = "_url_next"
"""Session key of the query parameters this run wants in the address bar, written once when the run ends."""


def url_get(param: str) -> str | None:
    """A query parameter as this run sees it: what the run already asked to write, else the address bar's."""
    pending = st.session_state.get(PENDING) or {}
    if param in pending:
        value: str | None = pending[param]
        return value
    return st.query_params.get(param)


def url_set(param: str, value: str | None) -> None:
    """Ask for ?param=value (None: no such parameter) in the address bar, written once at the end of the run.

    Every write to st.query_params that changes the address pushes one browser history entry: a page
    that mirrored five widgets one by one added five entries per load, and Back stepped through them.
    Collected here and written by flush_url, a user action adds at most one.  A page run on its own
    (not through app.py, which flushes: Streamlit's test harness switching pages) writes at once.
    """
    if not getattr(_RUN, "batching", False):
        if value is None:
            st.query_params.pop(param, None)
        elif st.query_params.get(param) != value:
            st.query_params[param] = value
        return
    pending = st.session_state.get(PENDING)
    if pending is None:
        pending = st.session_state[PENDING] = {}
    pending[param] = value


def url_now() -> dict[str, str]:
    """The query parameters as they will be once this run's writes land (for links made during the run)."""
    params = {key: st.query_params[key] for key in st.query_params}
    for key, value in (st.session_state.get(PENDING) or {}).items():
        if value is None:
            params.pop(key, None)
        else:
            params[key] = value
    return params


_RUN = threading.local()
"""`batching`: True while app.py runs a page (it calls flush_url when the run ends)."""


def batch_url() -> None:
    """Collect this run's query parameter writes until flush_url (app.py, before it runs the page)."""
    _RUN.batching = True


def hold_url() -> None:
    """This run ends in a rerun of the same page: its writes wait for the end of that run."""
    _RUN.batching = False


def flush_url(write: bool = True) -> None:
    """Write this run's query parameters in one message (one history entry at most); app.py calls it when a
    page's run ends.  write=False drops them (a switch to another page brings its own)."""
    _RUN.batching = False
    wanted = url_now()
    st.session_state.pop(PENDING, None)
    if write and wanted != {key: st.query_params[key] for key in st.query_params}:
        st.query_params.from_dict(wanted)


def report_unknown(param: str, value: str, valid: Sequence[str], used: str | None) -> None:
    """One visible line for a link value that names nothing here: what was asked, what exists, what is shown."""
    known = ", ".join(valid[:12]) + (" …" if len(valid) > 12 else "")
    shown = f"; showing {literal(used, 40)} instead" if used else ""
    st.warning(f"The link's {param}={literal(value, 60)} is not known here (known: {literal(known, 300)}){shown}.")


def from_url(key: str, param: str, valid: Sequence[str], default: Any) -> None:
    """Seed a widget's state from ?param= when the link is new, else keep the last choice.

    A value that names nothing (a mistyped policy) is reported on the page, once per link, never
    silently replaced.
    """
    value = url_get(param)
    if value is not None and value not in valid and st.session_state.get(f"_url_{param}") != value:
        st.session_state[f"_url_{param}"] = value
        st.session_state[f"_bad_{param}"] = value
    if value is not None and value in valid and st.session_state.get(f"_url_{param}") != value:
        st.session_state[key] = value
        st.session_state[f"_url_{param}"] = value
    elif key not in st.session_state:
        kept = st.session_state.get(f"_keep_{key}", default)
        st.session_state[key] = kept if kept in valid else default
    bad = st.session_state.pop(f"_bad_{param}", None)
    if bad is not None:
        report_unknown(param, bad, list(valid), st.session_state.get(key))


def to_url(key: str, param: str, value: str | None) -> None:
    st.session_state[f"_keep_{key}"] = value
    url_set(param, value)
    if value is None:
        st.session_state.pop(f"_url_{param}", None)
    else:
        st.session_state[f"_url_{param}"] = value


def policy_picker(container: Any = None) -> str:
    """Repair policy selector (every policy the engine offers), mirrored in ?policy=."""
    where = container or st.sidebar
    options = list(POLICIES)
    from_url("policy", "policy", options, DEFAULT_POLICY if DEFAULT_POLICY in options else options[0])
    policy = where.selectbox("Repair policy", options, key="policy",
                             help="openmaic is the reference runtime's repair; other policies come from the engine")
    to_url("policy", "policy", policy)
    return policy or options[0]  # None only without options


NO_PROVIDER = "none"
"""The picker's option (and ?provider=none) for no target provider: the universal invariants decide, as
`check` does for a format no single provider reads (integrity.target_provider)."""


def provider_picker(container: Any = None, transcript: Transcript | None = None) -> str | None:
    """Provider selector over the engine's rule sets, mirrored in ?provider=; None: no target provider.

    The provider follows the file, as `check` does (integrity.target_provider): an Anthropic request or a
    Claude Code session is judged by Anthropic, a pi session on Claude through Bedrock by Bedrock (the model it
    names), a format no single provider reads (pi-ai, LangChain) by none (the universal invariants), until the
    user picks one, in the picker or the link.
    """
    where = container or st.sidebar
    options, default = _settle_provider(transcript)
    picked = where.selectbox("Provider", options, key="provider", on_change=_picked_provider,
                             format_func=lambda name: "none: the universal invariants" if name == NO_PROVIDER
                             else name,
                             help="the target provider, whose rules decide 'accepted' in the verdict panel: by "
                                  "default the provider the file is a request to, or the provider of the model a "
                                  "session names (a pi session), as `check` judges it; none for a format no single "
                                  "provider reads (then every call answered once, right after its frame, no "
                                  "stray, decide)")
    to_url("provider", "provider", None if picked == default and picked == NO_PROVIDER else picked)
    return None if picked in (None, NO_PROVIDER) else picked


def _settle_provider(transcript: Transcript | None) -> tuple[list[str], str]:
    """The provider picker's options and default, its state settled from the link and the file (idempotent
    within a run: the transcript picker asks it first, to mark the transcripts by the provider in effect)."""
    providers = provider_names()
    options = [NO_PROVIDER, *providers]
    own = target_provider(transcript.format, None, transcript.model) if transcript is not None else None
    default = own if own in providers else NO_PROVIDER
    asked = url_get("provider")
    if asked in options and st.session_state.get("_url_provider") != asked:
        # A link (or an edited URL) names the provider: the user's pick.  The value this picker
        # mirrored into the URL itself is not: it would pin the first page's default on every file.
        st.session_state["_provider_picked"] = True
    if transcript is not None and not st.session_state.get("_provider_picked"):
        # a file no single provider reads gets the default, not whatever the previous file's provider was
        st.session_state["provider"] = default
    from_url("provider", "provider", options, default)
    return options, default


def provider_in_effect(transcript: Transcript) -> str | None:
    """The provider the page's picker will return for this transcript (None: the universal invariants),
    before the picker is drawn."""
    _settle_provider(transcript)
    picked = st.session_state.get("provider")
    return None if picked in (None, NO_PROVIDER) else str(picked)


def _picked_provider() -> None:
    st.session_state["_provider_picked"] = True


def input_picker(multiple: bool = True) -> Source | None:
    """Sidebar: sample, upload (one or many files) or paste; the choice survives page switches."""
    side = st.sidebar
    side.subheader("Transcript")
    if url_get("file") is not None:
        return linked_file()
    names = sample_names()
    modes = ["Sample", "Upload", "Paste"]
    if url_get("sample") in names and st.session_state.get("_url_sample") != url_get("sample"):
        st.session_state["source_mode"] = "Sample"
    from_url("source_mode", "_never", modes, "Sample")
    mode: str | None = side.radio("Source", modes, key="source_mode", horizontal=True, label_visibility="collapsed")
    st.session_state["_keep_source_mode"] = mode
    source: Source | None = None
    if mode == "Sample":
        if not names:
            side.info("sample_transcripts/ is empty")
            return None
        asked = url_get("sample")
        bad_link = asked is not None and asked not in names
        if bad_link and st.session_state.get("_url_sample") != asked:
            st.session_state["_url_sample"] = asked  # a link to a sample that does not exist: say so, open nothing
            st.session_state["sample"] = None
        elif not bad_link:
            from_url("sample", "sample", names, names[0])
            kept = st.session_state.get("sample") or st.session_state.get("_keep_sample")
            if kept in names:  # set explicitly: on another page this selectbox is a new widget and starts empty
                st.session_state["sample"] = kept
        name: str | None = side.selectbox("Sample", names, key="sample", index=None, placeholder="pick a sample")
        if name is None:
            if asked is not None and asked not in names:
                st.error("The link names a sample that is not in sample_transcripts/ (below, as given): "
                         "pick one in the sidebar.")
                st.code(neutralize(asked), language=None)  # untrusted: a code block, never markdown
            else:
                st.info("Pick a sample in the sidebar.")
            return None
        to_url("sample", "sample", name)
        data = read_sample(name)
        source = Source(name, data, "sample") if data is not None else None
    else:
        to_url("sample", "sample", None)
        if mode == "Upload":
            files = side.file_uploader("Transcript file(s)", type=None, accept_multiple_files=multiple,
                                       key="uploads", help="JSON array, {\"messages\": [...]} or JSONL; "
                                       + upload_limit_text())
            upload_limit_note(side)
            uploaded_names(files, side)
            files = files if isinstance(files, list) else ([files] if files else [])
            if files:
                if len(files) > 1:
                    names_now = [f.name for f in files]
                    if st.session_state.get("_upload_names") != names_now:  # a new file: show it
                        st.session_state["_upload_names"] = names_now
                        st.session_state["upload_pick"] = names_now[-1]
                    picked = side.selectbox("File", names_now, key="upload_pick", format_func=neutralize)
                    chosen = next(f for f in files if f.name == picked)
                else:
                    chosen = files[0]
                source = Source(chosen.name, chosen.getvalue(), "upload")
                st.session_state["_kept_upload"] = source
            else:
                source = st.session_state.get("_kept_upload")
                if source is not None:
                    side.text(f"Showing the last upload: {neutralize(source.name)}")  # untrusted: plain text
        else:
            if "paste" not in st.session_state:
                st.session_state["paste"] = st.session_state.get("_keep_paste", "")
            text = side.text_area("Paste a transcript (JSON or JSONL)", key="paste", height=180,
                                  placeholder='[{"role": "user", "content": "hi"}, ...]')
            st.session_state["_keep_paste"] = text
            if text.strip():
                source = Source(PASTE_NAME, text.encode("utf-8"), "paste")
    if source is not None:
        st.session_state["_current"] = source
    return source


@st.cache_data(max_entries=8, ttl=60, show_spinner=False)
def _read_linked(path: str, table: str | None) -> tuple[str, bytes] | str:
    from inspector.data_root import LinkError, data_root, read_linked

    try:
        return read_linked(path, table, data_root())
    except LinkError as error:
        return str(error)


def _close_link() -> None:
    url_set("file", None)
    url_set("table", None)


def linked_file() -> Source | None:
    """The file a `?file=` link names (in the data folder, or a URL a triage table there lists), or None with
    one error line saying why it does not open; the sidebar says where it came from and closes it."""
    path = url_get("file") or ""
    found = _read_linked(path, url_get("table"))
    side = st.sidebar
    side.text(f"Opened by the link: {neutralize(path)}")  # untrusted: plain text
    side.button("Close it (pick a sample, upload or paste)", key="close_link", on_click=_close_link)
    if isinstance(found, str):
        st.error(f"The link's file={literal(path, 120)} does not open: {found}.")
        return None
    name, data = found
    source = Source(name, data, "file")
    st.session_state["_current"] = source
    return source


def upload_limit_text() -> str:
    """'files up to 100 MB' from server.maxUploadSize (.streamlit/config.toml), for uploaders' help."""
    return f"files up to {st.get_option('server.maxUploadSize')} MB (the CLI reads larger ones)"


def upload_limit_note(container: Any = None) -> None:
    """A visible line under an uploader: the size limit, and where a larger file goes instead.

    The uploader itself refuses a larger file before the app sees it (the file is
    marked in red), so this line is what tells the user why.
    """
    limit = st.get_option("server.maxUploadSize")
    (container or st).caption(f"Up to {limit} MB per file: a larger file is refused here (marked in red). "
                              "Check it with the command line instead.")


def uploaded_names(files: Any, container: Any = None) -> None:
    """Under an uploader: each uploaded file's name whose characters deceive, with them shown as markers.

    Streamlit's own chip above shows the name as the browser gives it, raw: a right-to-left
    override there makes "txt.exe" read as an innocent name, and the app cannot change
    what the chip draws.  So the name is shown again here, as plain text, markers and all.
    """
    files = files if isinstance(files, list) else ([files] if files else [])
    hostile = [f.name for f in files if has_hostile(f.name)]
    if hostile:
        where = container or st
        where.warning("A file name holds invisible or reordering characters; the uploader above shows it "
                      "raw. As it really is:")
        for name in hostile:
            where.text(neutralize(name))  # untrusted: plain text, never markdown


def current_source() -> Source | None:
    """The transcript picked on another page (for pages without their own picker)."""
    return st.session_state.get("_current")


def set_current(source: Source) -> None:
    """Make a transcript current (the batch page uses this before opening the inspector)."""
    st.session_state["_current"] = source
    st.session_state["_kept_upload"] = source
    st.session_state["source_mode"] = "Upload"
    st.session_state["_keep_source_mode"] = "Upload"


# ----------------------------------------------------------------------------- rendering

_PAGE_CSS = """<style>
.block-container, [data-testid="stMainBlockContainer"] {padding: 2.5rem 1.5rem 3rem 1.5rem; max-width: none;}
</style>"""


def page_style() -> None:
    """Tighter page margins so the side-by-side table fits 1280 px; a constant, never transcript data."""
    st.html(_PAGE_CSS)



def legend(container: Any = None) -> None:
    """What each row kind looks like: icon, word and meaning (colour is never the only cue)."""
    where = container or st
    frame = pd.DataFrame([{"kind": label(k), "means": meaning(k)} for k in ROW_KINDS])
    where.dataframe(frame.style.apply(lambda row: [_cell_style(_kind_by_label(row["kind"]))] * len(row), axis=1),
                    hide_index=True, width="stretch",
                    column_config={"kind": st.column_config.TextColumn(width="medium")})


_BY_LABEL = {label(k): k for k in ROW_KINDS}


def _kind_by_label(text: str) -> str:
    return _BY_LABEL.get(text, "kept")


def _cell_style(kind: str) -> str:
    shade = colour(kind)
    if not shade:
        return ""
    grey = "color: #6b7280;" if kind.startswith("dropped") else ""
    return f"background-color: {shade}; {grey}"


ROW_COLUMNS = ["row", "sel", "kind", "#", "durable transcript", "view #", "repaired view", "why"]


def _number(value: int | None) -> str:
    return "" if value is None else str(value)


def rows_frame(rows: Sequence[Row], paired: set[int] | None = None, selected: int | None = None,
               transcript: Transcript | None = None) -> pd.DataFrame:
    """A page of aligned rows as a DataFrame (text cells only; no HTML anywhere).

    With the transcript, "where" is the one number shown first everywhere: the message's place in the
    user's file (`line 12`, `messages[3]`); the row, durable # and view # are in the detail panel.
    """
    from inspector.positions import row_place

    paired = paired or set()

    def where(row: Row) -> str:
        if transcript is not None:
            return row_place(transcript, row.left, row.right)
        return f"view #{row.right}" if row.left is None else str(row.left)

    return pd.DataFrame({
        "row": [r.row for r in rows],
        "sel": ["▶ selected" if r.row == selected else ("↔ paired" if r.row in paired else "") for r in rows],
        "kind": [label(r.kind) for r in rows],
        "#": [where(r) for r in rows],
        "durable transcript": [r.left_text for r in rows],
        "view #": [_number(r.right) for r in rows],
        "repaired view": [r.right_text for r in rows],
        "why": [r.note for r in rows],
    }, columns=ROW_COLUMNS)


def _row_style(row: pd.Series) -> list[str]:
    style = _cell_style(_kind_by_label(row["kind"]))
    if row.get("sel"):
        style += " color: #1d4ed8; font-weight: bold;"
    return [style] * len(row)


def styled_rows(frame: pd.DataFrame) -> Any:
    """Colour each row by its kind (the kind column also carries icon and word); paired rows in blue text."""
    return frame.style.apply(_row_style, axis=1)


ROW_CONFIG = {
    "row": None,
    "sel": st.column_config.TextColumn("", width=70, help="the selected row and the rows paired with it"),
    "kind": st.column_config.TextColumn("kind", width=140),
    "#": st.column_config.TextColumn("where in your file", width=120,
                                     help="where the message is in your file: `line n` (JSONL) or `messages[n]` "
                                          "(JSON). The row's other numbers (row, durable #, view #) are in the "
                                          "panel below when it is selected"),
    "durable transcript": st.column_config.TextColumn("durable transcript", width=230),
    "view #": None,  # on demand: the selected row's panel names its view position
    "repaired view": st.column_config.TextColumn("repaired view (sent to the model)", width=230),
    "why": st.column_config.TextColumn("why (whole in the panel below)", width=250),
}

WHY_IN_FULL = {"why": st.column_config.TextColumn("why", width=250)}
"""The why column where no panel below shows a row's reason whole (the Lessons sandbox)."""


def overview_frame(rows: Sequence[Row], analysis: Analysis | None = None) -> pd.DataFrame:
    """All rows, lean: what a 100,000-message overview table can afford to send to the browser.

    Each row is named by its place in the user's file (`line 12`, `messages[3]`), as everywhere; the
    row number stays, numeric, so sorting the overview keeps the file's order.  Rows whose preview was
    not computed (huge transcripts) show their role instead.
    """
    from inspector.positions import row_place
    from inspector.rows import role_of

    return pd.DataFrame({
        "row": [r.row for r in rows],
        "where in your file": [row_place(analysis.transcript, r.left, r.right) if analysis is not None
                               else ("" if r.left is None else str(r.left)) for r in rows],
        "kind": [label(r.kind) for r in rows],
        "message": [visible_prefix(r.left_text or r.right_text, 90) if r.filled or analysis is None
                    else role_of(analysis, r)
                    for r in rows],
    }).astype({"kind": "category"})  # a dictionary column: half the bytes sent for 100,000 rows


def metrics(analysis: Analysis) -> None:
    """Header metrics from the report summary."""
    summary = analysis.report.summary
    with st.container(horizontal=True, gap="medium"):  # wraps to a second line on narrow screens, never cuts labels
        for name, value in summary_metrics(summary):
            st.metric(name, short_number(value), help=f"{value:,} {name}", width="content")


def short_number(value: int) -> str:
    """'36,212' as is; '100k' / '1.2M' above 99,999 so eight metrics fit one row at 1280 px."""
    if value < 100_000:
        return f"{value:,}"
    if value < 1_000_000:
        return f"{value / 1000:.0f}k"
    return f"{value / 1_000_000:.1f}M"


def verdict_line(analysis: Analysis) -> str:
    """The report's verdict with its icon: ✔ healthy, ⚒ repaired, ⚠ not repaired (untrusted text: neutralize it)."""
    report = analysis.report
    icon = "✔" if report.healthy else ("⚒" if report.changed else "⚠")
    return f"{icon} {report.verdict}"


def verdict_text(analysis: Analysis) -> None:
    """The report's verdict line, as text (it can contain ids taken from the transcript)."""
    st.code(neutralize(verdict_line(analysis)), language=None, wrap_lines=True)


def _verdict_colour(value: Any) -> str:
    text = str(value)
    if text.startswith("✔"):
        return "background-color: #dcfce7"
    if text.startswith("✖"):
        return "background-color: #fee2e2"
    return ""


def verdict_table(analysis: Analysis, width: Literal["stretch", "content"] = "stretch") -> bool:
    """Every provider's answer before and after repair, coloured; False when no provider was asked."""
    rows = verdict_rows(analysis)
    if not rows:
        return False
    st.dataframe(pd.DataFrame(rows).style.map(_verdict_colour), hide_index=True, width=width,
                 height=35 * len(rows) + 40)
    return True


def verdict_panel(analysis: Analysis, provider: str | None) -> None:
    """Would each provider accept the request, before and after repair; the chosen one in detail."""
    from inspector.rows import violation_rows

    # the table on its own line, as wide as its three columns: beside the details (two columns) it was cut to
    # "provider | before repair | af" on a 1000 px screen
    if not verdict_table(analysis, width="content"):
        return
    if provider and provider in (analysis.verdicts or {}):
        result = analysis.verdicts[provider]
        for when in ("before", "after"):
            found = violation_rows(result.before if when == "before" else result.after)
            title = f"{provider} {when} repair: " + (f"{len(found)} error(s)" if found else "accepted")
            with st.expander(title, expanded=bool(found) and when == "after"):
                if found:
                    st.dataframe(pd.DataFrame(found)[["rule", "position", "durable entries", "call ids",
                                                      "provider error"]],
                                 hide_index=True, width="stretch",
                                 column_config={"provider error": st.column_config.TextColumn(width="large")})
                else:
                    st.caption("No rule of this provider is broken.")


def code_block(text: str, truncated: bool = False, language: str | None = "json") -> None:
    """Literal text in a code block, with a note when it was cut."""
    st.code(text, language=language, wrap_lines=True)
    if truncated:
        st.caption("(cut for display; download the transcript for the full text)")


def download_name(name: str, suffix: str) -> str:
    """'session.jsonl' -> 'session.repaired.jsonl' and friends, for download buttons (hostile characters removed)."""
    path = Path(safe_filename(name or "transcript.json"))
    stem = path.stem if path.suffix else path.name
    if suffix.startswith("report"):
        return f"{stem}.{suffix}"
    return f"{stem}.{suffix}{path.suffix or '.json'}"


BAR_PX = 26
"""Height of one bar's row in a defect chart: room for its label at the theme's font size."""

AXIS_PX = 60
"""Height of a defect chart's count axis (ticks, their numbers and its title): Streamlit fits the whole
chart, axis included, into the height it is given."""


def defect_bars(counts: pd.DataFrame) -> None:
    """Defect kinds as horizontal bars (columns `defect` and `count`), every bar with its whole name.

    st.bar_chart has one fixed height, so with a dozen kinds Vega hid every other label (the
    longest bar could be the one without a name) and cut long names short ("dropped interrup…");
    here the chart grows with the number of kinds and no label is hidden or cut.
    """
    import altair as alt

    chart = alt.Chart(counts).mark_bar().encode(
        x=alt.X("count:Q", title="count", axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y("defect:N", sort=None, title=None, axis=alt.Axis(labelLimit=0, labelOverlap=False)),
        tooltip=[alt.Tooltip("defect:N"), alt.Tooltip("count:Q")],
    ).properties(height=BAR_PX * max(len(counts), 1) + AXIS_PX)
    st.altair_chart(chart, width="stretch")
