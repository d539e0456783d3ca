"""Command line: `python -m integrity check|repair`.

Exit codes: see EXIT_CODES (also in `--help` and the README).  Bad input never
prints a traceback: one line names the file, the position and the problem.  Output
files are written by integrity._bulk.atomic_write: never the input, never a special file,
all or nothing.  An unexpected exception is a bug: one line `internal error: ...`
and EXIT_INTERNAL (`--debug` prints the traceback).  A closed standard output
(`check ... | head -1`) stops the output quietly; the exit code is unchanged.
"""

from __future__ import annotations

import argparse
import errno
import gc
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn, TextIO, cast

from ._bulk.atomic_write import STDOUT, Target, Terminated, WriteError, signals_raise, write_all
from ._bulk.atomic_write import plan as plan_targets
from ._bulk.forking import fork_is_safe
from .loading import TranscriptError, one_line, open_source, read_opened, read_source
from .naming import runtime_results_said

if TYPE_CHECKING:  # the report module is imported lazily, only by the commands that need it
    from ._bulk.pieces import Piece
    from .pipeline import CheckResult, ProviderVerdict
    from .pipeline import Loaded as _Loaded  # one transcript of a file: the pipeline's unit

EXIT_HEALTHY, EXIT_NEEDS_REPAIR, EXIT_UNREADABLE = 0, 1, 2
EXIT_INTERNAL = 70  # EX_SOFTWARE (sysexits.h): a bug in this program, never a verdict
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143

EXIT_CODES = """exit codes:
  0   check: every file healthy; repair: the view was written
  1   check: some file needs repair (its target provider rejects it, or
      it breaks a rule every provider has);
      repair: the view was written, but --provider still rejects it or
      check still flags it (every message dropped, or a malformed entry
      the strict view keeps: a note line says what is left)
  2   a file could not be read, an output was refused or could not be
      written (nothing was written), or the command line is wrong
  70  internal error: a bug; one line on stderr, --debug prints the traceback
  130 interrupted (SIGINT), 143 terminated (SIGTERM): no output file is changed"""


def _policies() -> Sequence[str]:
    from .repair.policies import POLICIES

    return POLICIES


def _providers() -> Sequence[str]:
    """The names --provider takes: every provider, then the variants (`gemini-2`), which "all" does not ask."""
    from .providers.registry import PROVIDERS, VARIANTS

    return PROVIDERS + VARIANTS


def _clock(fixed: int | None) -> Callable[[], int]:
    from .reference import time_ms

    if fixed is None:
        return time_ms
    return lambda: fixed


def _source_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _fast_allowed(args: argparse.Namespace) -> bool:
    thread = getattr(args, "thread", None)
    return (args.format in ("auto", "pi-ai") and thread in (None, "main")
            and not getattr(args, "skip_bad_lines", False))


def _bones(args: argparse.Namespace) -> bool | str:
    """What the fast path reads for a provider verdict (pipeline.read_bones; a pi-ai file has no provider of
    its own, so only a named one is asked)."""
    return _bones_for(getattr(args, "provider", None))


@cache  # asked once per file: worked out once per command
def _bones_for(provider: str | None) -> bool | str:
    from .pipeline import read_bones

    target, also = _provider_option(provider)
    return read_bones([target, *also] if target else also)


@cache
def _blank_for(provider: str | None) -> bool:
    """Whether the fast path looks for blank texts: a provider asked reads them (pipeline.reads_contents)."""
    from .pipeline import reads_contents

    target, also = _provider_option(provider)
    return reads_contents([target, *also] if target else also)


@cache
def _provider_option(provider: str | None) -> tuple[str | None, tuple[str, ...]]:
    """pipeline.split_provider_option, once per command (each file asks it)."""
    from .pipeline import split_provider_option

    return split_provider_option(provider)


def _clean(args: argparse.Namespace) -> bool:
    return _clean_for(getattr(args, "policy", None))


@cache
def _clean_for(policy: str | None) -> bool:
    from .repair.policies import DEFAULT_POLICY, reads_closely

    return reads_closely(policy or DEFAULT_POLICY)


def _load_file(path: str, args: argparse.Namespace, allow_fast: bool,
               writes: bool = False) -> tuple[list[_Loaded], bytes | None]:
    """Every transcript of the file at `path`, and its bytes (None: a large pi-ai file the fast path
    reads a block at a time, never whole; see fast_read.read_fast_file; writes: its view is written).
    The file is opened once, whichever way it is read."""
    if _is_store_path(path):  # a runtime's session store (langgraph+sqlite://...)
        units, unreadable = _load_store(path, args, writes)
        if unreadable:
            raise unreadable[0]
        return units, None
    if path == "-" or not (allow_fast and _fast_allowed(args)):
        data = read_source(path)
        return _load(path, data, args, allow_fast), data
    from ._bulk.blocks import FileSource
    from ._bulk.fast_read import STREAM_FROM, read_fast_file

    handle, status = open_source(path)
    if status.st_size < STREAM_FROM:  # read whole (read_fast_file reads only larger files a block at a time)
        data = read_opened(path, handle, int(status.st_size))
        return _load(path, data, args, allow_fast), data
    stream = FileSource(_source_name(path), handle, status)
    try:
        fast = read_fast_file(stream, _clean(args), writes, _bones(args), _blank_for(getattr(args, "provider", None)))
    except BaseException:
        stream.close()
        raise
    if fast is not None:
        from .pipeline import Loaded

        return [Loaded(fast.source, fast=fast)], None
    data = read_opened(path, stream.detach(), int(status.st_size))
    return _load(path, data, args, allow_fast), data


def _is_store_path(path: str) -> bool:
    return "+" in path.split("://", 1)[0] and "://" in path


def _load_store(url: str, args: argparse.Namespace, writes: bool) -> tuple[list[_Loaded], list[TranscriptError]]:
    """Every thread or session of a runtime's store (integrity.guards.stores: LangGraph checkpointers,
    Agents SDK and ADK session databases), read-only, and the error of each thread that cannot be decoded;
    `repair` writes files, so a store is refused there."""
    from .guards.stores import is_store_url, read_store_each, redacted

    if not is_store_url(url):
        raise TranscriptError(url, "", "not a file, and not a store URL this tool reads (langgraph+sqlite://, "
                              "langgraph+postgresql://, agents+sqlite://, agents+postgresql://, adk+sqlite://, "
                              "adk+postgresql://, goose+sqlite://)")
    if writes:
        raise TranscriptError(url, "", "a session store is only read: `check` it; `repair` writes a file")
    found = read_store_each(url)
    transcripts = [item for item in found if not isinstance(item, TranscriptError)]
    unreadable = [item for item in found if isinstance(item, TranscriptError)]
    thread = getattr(args, "thread", None)
    if thread is not None:
        from .formats import pick

        unreadable = [error for error in unreadable if error.position == thread]
        transcripts = [] if unreadable else [pick(transcripts, thread, url)]
    from .pipeline import Loaded

    return [Loaded(redacted(url), transcript=transcript, count=len(found)) for transcript in transcripts], unreadable


def _load(path: str, data: bytes, args: argparse.Namespace, allow_fast: bool) -> list[_Loaded]:
    """Every transcript of the file (or only --thread's), each its own _Loaded."""
    source = _source_name(path)
    thread = getattr(args, "thread", None)
    skip = bool(getattr(args, "skip_bad_lines", False))
    if allow_fast and _fast_allowed(args):
        from ._bulk.fast_read import read_fast

        fast = read_fast(data, source, clean=_clean(args), bones=_bones(args),
                         blank=_blank_for(getattr(args, "provider", None)))
        if fast is not None:
            from .pipeline import Loaded

            return [Loaded(source, fast=fast)]
    from .analysis import load_all
    from .formats import pick

    transcripts = load_all(data, source, args.format, skip)
    count = len(transcripts)
    if thread is not None:
        transcripts = [pick(transcripts, thread, source)]
    from .pipeline import Loaded

    return [Loaded(source, transcript=transcript, count=count) for transcript in transcripts]


def _aside_lines(loaded: _Loaded) -> list[str]:
    """What check says besides the verdict: how an undecided format was chosen."""
    detection = getattr(loaded.transcript, "detection", "")
    return [one_line(f"  format: {detection}")] if detection else []


def _branch_line(loaded: _Loaded) -> str:
    from .pipeline import unjudged_record

    said = unjudged_record(loaded)["verdict"]
    return one_line(f"{loaded.label}: {said[:-1]}; --thread {loaded.name} checks it)")


def _unjudged_pieces(loaded: _Loaded, indent: bool) -> list[bytes]:
    """--json's entry for a transcript listed and never judged (pipeline.unjudged_record), laid out as a report is."""
    from .pipeline import unjudged_record
    from .report.text import report_bytes

    return [report_bytes(unjudged_record(loaded), indent)]


def _plan(light: Any, policy: str, provider: str | None = None, stretches: bool = False) -> Any:
    from .repair.policies import PLANNERS

    return PLANNERS[policy](light, provider, stretches)


def _counts(summary: Any) -> str:
    """Every nonzero count the kind registry lists, by the kind's one name ("no defects" when none)."""
    fields, labels = _counted()
    said = [f"{label} {count}" for label, count in zip(labels, map(getattr, itertools.repeat(summary), fields),
                                                        strict=True) if count]
    return ", ".join(said) or "no defects"


@cache
def _counted() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The summary fields the counts line says (kinds.summary_counts, findings aside) and their names, once."""
    from .kinds import summary_counts

    counted = [(field, label) for field, label in summary_counts() if field != "findings"]
    return tuple(field for field, _ in counted), tuple(label for _, label in counted)


def _summary_lines(report: Any, limit: int = 20, label: str | None = None) -> list[str]:
    s = report.summary
    verdict = report.verdict
    lines = [
        one_line(f"{label or report.source}: {verdict}"),  # (a name or an id from the file never drives the terminal)
        f"  messages {s.messages}, calls {s.calls}, results {s.results}; " + _counts(s),
    ]
    runtime = runtime_results_said(report)
    if runtime:
        lines.append(one_line(f"  {runtime}"))
    for finding in report.findings[:limit]:
        lines.append(one_line(f"  {finding.said}"))
    if len(report.findings) > limit:
        lines.append(f"  ... and {len(report.findings) - limit} more finding(s); use --json for all")
    return lines


def _verdict_lines(said: ProviderVerdict) -> Iterator[str]:
    """The provider's lines (a block of them joined by newlines at a time, for a long verdict), made as they are
    written: Mistral's verdict on a million-message file is about 90 MB of text."""
    from .providers.refused import said_lines

    for label, violations in (("as recorded", said.before), ("after repair", said.after)):
        if not violations:
            yield f"  {said.provider} {label}: accepted"
        yield from said_lines(violations, f"  {said.provider} {label}: ")


def _judge(loaded: _Loaded, args: argparse.Namespace, now: Callable[[], int]) -> CheckResult:
    """What `check` says about one transcript: the one pipeline (integrity.pipeline.check_unit), at the
    depth the output needs (the report's shell for --json, else the cheap diagnosis)."""
    from .pipeline import check_unit

    target, also = _provider_option(args.provider)
    return check_unit(loaded, provider=target, also=also, policy=args.policy,
                      depth="report" if args.json else "diagnosis", now=now)


class _Checked:
    """What `check` says about one file: lines for standard output and error, in order, the exit code
    it alone would give, and its reports as JSON text (--json): each the pieces to write in turn, made
    as they are written (in a worker process, joined: see _check_file_in_worker)."""

    __slots__ = ("lines", "code", "reports")

    def __init__(self) -> None:
        self.lines: list[tuple[bool, str | Iterator[str]]] = []  # (to standard error, text or its blocks: a line each)
        self.code = EXIT_HEALTHY
        self.reports: list[Iterable[Piece]] = []


def _check_file(path: str, args: argparse.Namespace) -> _Checked:
    """Check one file (every transcript it holds); never raises TranscriptError (it is an error line)."""
    now = _clock(args.now)
    outcome = _Checked()
    try:
        if _is_store_path(path):  # a store thread that cannot be decoded is its error line; the others are judged
            units, unreadable = _load_store(path, args, writes=False)
        else:
            units, unreadable = _load_file(path, args, allow_fast=True)[0], []
        judged = [(loaded, _judge(loaded, args, now)) for loaded in units if loaded.checked or args.thread]
    except TranscriptError as error:
        outcome.lines.append((True, f"error: {error}"))
        outcome.code = EXIT_UNREADABLE
        return outcome
    for thread_error in unreadable:
        outcome.lines.append((True, f"error: {thread_error}"))
        outcome.code = EXIT_UNREADABLE
    for loaded, result in judged:
        outcome.code = max(outcome.code, result.exit_code)
        if args.json:
            from .report.text import report_pieces

            loaded.fast = None  # the file's raw spans are not needed to write the report: free them
            outcome.reports.append(report_pieces(result.report, indent=not args.json_lines))
        else:
            outcome.lines.append((False, "\n".join(_summary_lines(result.report, label=loaded.label)
                                                   + _aside_lines(loaded))))
            shown = [said for name, said in result.providers.items()
                     if name != result.target or args.provider]  # the target's lines when it was named
            if shown:  # (written a block at a time as it is printed: a verdict may have a million lines)
                from .providers.refused import in_blocks

                outcome.lines.append((False, in_blocks(line for said in shown for line in _verdict_lines(said))))
    if not args.thread:
        for loaded in units:
            if loaded.checked:
                continue
            if args.json:  # (in file order after the judged ones, as the text output lists them)
                outcome.reports.append(_unjudged_pieces(loaded, indent=not args.json_lines))
            else:
                outcome.lines.append((False, _branch_line(loaded)))
    return outcome


def _check_file_in_worker(path: str, args: argparse.Namespace) -> _Checked:
    """_check_file in a worker process: its reports written out, so the outcome is plain data the worker
    hands back to the parent, which prints every file's outcome in input order."""
    from ._bulk.pieces import finished

    outcome = _check_file(path, args)
    outcome.reports = [[b"".join(map(finished, pieces))] for pieces in outcome.reports]
    outcome.lines = [(to_error, text if isinstance(text, str) else "\n".join(text)) for to_error, text in outcome.lines]
    return outcome


def _jobs(args: argparse.Namespace) -> int:
    """How many worker processes check uses: --jobs, else every core this process may run on."""
    if args.jobs is not None:
        return int(args.jobs)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not every platform has it
        return os.cpu_count() or 1


def _checked_files(args: argparse.Namespace) -> Iterator[_Checked]:
    """Every file's outcome, in input order (see _each_file)."""
    return _each_file(_check_file, args, _check_file_in_worker, first_here=True)


def _each_file(work: Callable[..., Any], args: argparse.Namespace,
               in_worker: Callable[..., Any] | None = None, first_here: bool = False) -> Iterator[Any]:
    """work(path, args) for every file, in input order: in this process, or over worker processes
    (--jobs) when there are several files and none is standard input (read once, by this process);
    there, in_worker(path, args) when given (work with an outcome a worker can hand back).

    Workers are forked (integrity.cli_pool) once the engine is imported here, so they start with it and
    with these arguments; each file is read, judged (or repaired) and let go in its worker, and only
    its outcome comes back.  first_here: the first file, when small, is worked here before the workers
    are forked, which imports whatever its work needs (a provider's verdict reads the formats' and the
    report's modules: 0.17 s of a core), once, instead of once in every worker.
    """
    files = list(args.files)
    jobs = min(_jobs(args), len(files))
    if jobs > 1 and "-" not in files and fork_is_safe():  # (not on Windows, nor beside other threads: one process)
        from functools import partial

        from .cli_pool import in_order

        each = partial(in_worker or work, args=args)
        if first_here and _small(files[0]):  # (a large first file is not worked alone while the cores wait)
            yield each(files[0])
            files = files[1:]
            jobs = min(jobs, len(files))
        else:
            _preload()
        yield from in_order(each, files, jobs) if jobs > 1 else map(each, files)
        return
    yield from (work(path, args) for path in files)


FIRST_HERE_BELOW = 1 << 20
"""Bytes below which the first file is worked before the workers are forked (_each_file's first_here): a few
milliseconds at most, while the other cores wait."""


def _small(path: str) -> bool:
    try:
        return os.stat(path).st_size < FIRST_HERE_BELOW
    except (OSError, ValueError):  # not there, or no path at all: its work says so, at once
        return True


def _preload() -> None:
    """Import what every worker of `repair --out-dir` runs before the workers are forked: each starts with the
    engine imported, instead of importing it again (about 50 ms of a core per worker)."""
    from . import pipeline  # noqa: F401
    from ._bulk import fast_read  # noqa: F401
    from ._bulk.atomic_write import syncfs_function
    from .repair import policies  # noqa: F401

    syncfs_function()  # (ctypes: about 5 ms a process)


class _ReportWriter:
    """Writes reports as they come: with --json-lines one line each; with --json one indented document
    when one file was given and it holds a single report, else an indented array of them (json.dumps's
    layout, as before).  array: several files were given, so the output is an array whatever they hold (a
    file that cannot be read is an error line, never a change of the output's shape).

    A report is the pieces of its text, made as they are written (integrity.report.text.report_pieces).  Only
    the first report is held back (not yet made), until a second one shows the output is an array.
    Once an indented report has passed INDENT_ELSEWHERE_AFTER bytes, the rest of it is indented by
    a second process (integrity._bulk.indent_process) while this one makes its next pieces.
    """

    def __init__(self, lines: bool, array: bool = False) -> None:
        self.lines = lines
        self.array = array
        self.count = 0
        self.first: Iterable[Piece] | None = None
        sys.stdout.flush()  # reports go to the byte stream beneath (no text copy of a 470 MB report)
        self.stream = sys.stdout.buffer
        self.write = self.stream.write
        self.elsewhere = True  # whether a second process may indent (standard output has a descriptor)

    def add(self, pieces: Iterable[Piece]) -> None:
        if self.lines:
            self._write(pieces)
            self.write(b"\n")
        elif self.count == 0 and not self.array:
            self.first = pieces
        else:
            if self.first is not None:
                self.write(b"[\n")
                self._write(pieces_in_array(self.first))
                self.first = None
            self.write(b",\n" if self.count else b"[\n")
            self._write(pieces_in_array(pieces))
        self.count += 1

    def _write(self, pieces: Iterable[Piece]) -> None:
        """Write pieces, gathered to about 1 MB a write (a report's first fields are a few bytes each)."""
        from ._bulk.pieces import finished

        write, size, compact = self.write, 0, 0
        held: list[bytes] = []
        pieces = iter(pieces)
        for piece in pieces:
            if not isinstance(piece, bytes):
                compact += len(piece.text)
                if compact >= INDENT_ELSEWHERE_AFTER and self.elsewhere:
                    write(b"".join(held))
                    held, size = [], 0
                    if self._indent_elsewhere(itertools.chain([piece], pieces)):
                        return
                piece = finished(piece)
            held.append(piece)
            size += len(piece)
            if size >= 1 << 20:
                write(b"".join(held))
                held, size = [], 0
        if held:
            write(b"".join(held))

    def _indent_elsewhere(self, pieces: Iterator[Piece]) -> bool:
        """Hand the rest of a large report to a second process to indent and write (False: not possible
        here, when standard output is no file descriptor, as in a test capturing it)."""
        try:
            fd = self.stream.fileno()
        except (AttributeError, OSError, ValueError):
            self.elsewhere = False
            return False
        from ._bulk.indent_process import Indenter

        self.stream.flush()
        try:
            indenter = Indenter(fd)
        except OSError:  # no process to be had: this one indents
            self.elsewhere = False
            return False
        try:
            indenter.send(pieces)
        except BaseException:  # interrupted, or a bug: stop the child, and say what happened here
            indenter.abort()
            raise
        indenter.close()
        return True

    def close(self) -> None:
        if self.lines:
            return
        if self.count == 0:
            self.write(b"[]\n")
        elif self.first is not None:
            self._write(self.first)
            self.write(b"\n")
        else:
            self.write(b"\n]\n")


INDENT_ELSEWHERE_AFTER = 32 << 20
"""Compact bytes of one report after which the rest is indented by a second process: starting it costs
about 0.1 s, which indenting 32 MB takes (measured: msgspec indents 307 MB in about 0.85 s)."""


def pieces_in_array(pieces: Iterable[Piece]) -> Iterator[Piece]:
    """An indented report's pieces as an element of json.dumps's indented array (two more spaces a line):
    text shifted, a value still to indent one level deeper."""
    from ._bulk.pieces import Compact

    yield b"  "
    for piece in pieces:
        if isinstance(piece, bytes):
            yield piece.replace(b"\n", b"\n  ")
        else:
            yield Compact(piece.text, piece.depth + 1, piece.body)


def cmd_check(args: argparse.Namespace) -> int:
    worst = EXIT_HEALTHY
    args.json = args.json or args.json_lines
    reports = _ReportWriter(args.json_lines, array=len(args.files) > 1) if args.json else None
    # Unbuffered (python -u, PYTHONUNBUFFERED), print makes two writes a line, each a system call: a file's
    # lines for standard output go in one (the same bytes, in the same order beside standard error).  A buffered
    # stream gathers them itself, and is left to (its writes to the descriptor fall where they always did).
    joined = bool(getattr(sys.stdout, "write_through", False))
    for outcome in _checked_files(args):
        lines = outcome.lines
        if joined and lines and not any(to_error or not isinstance(text, str) for to_error, text in lines):
            sys.stdout.write("".join(f"{text}\n" for _, text in lines))
        else:
            for to_error, text in lines:
                for block in [text] if isinstance(text, str) else text:  # (a verdict's blocks: never none)
                    print(block, file=sys.stderr if to_error else sys.stdout)
        if reports is not None:
            for report in outcome.reports:
                reports.add(report)
        worst = max(worst, outcome.code)
    if reports is not None:
        reports.close()
    return worst


def _holds_no_entries(payload: bytes) -> bool:
    """Whether written bytes hold no entry at all (an empty file, `[]`, `{"messages": []}`)."""
    from .formats.container import parse_document

    try:
        return not parse_document(payload, "<output>").entries
    except TranscriptError:
        return True


def _still_flagged(payload: bytes, source: str, args: argparse.Namespace) -> str:
    """How much `check` would still flag in the bytes repair is about to write ('' when it passes them).

    Only asked when the report leaves findings in place (a malformed entry the
    strict view keeps as it is): repair writes nothing `check` would not pass.
    The decision is check's own (_judge: the one pipeline), by the same target provider
    (`--provider`, else the one each transcript implies), over the whole file written: a thread
    written back into its file is not all `check` judges there, so every transcript `check`
    would judge is read back, and the one --thread names.  What still fails is written, and
    exit 1 says so.
    """
    named = getattr(args, "thread", None)
    plain = argparse.Namespace(**{**vars(args), "json": False, "thread": None})
    now = _clock(args.now)
    try:
        units = _load(source, payload, plain, allow_fast=True)
    except TranscriptError as error:
        return error.problem
    if named is not None and named not in {unit.name for unit in units}:
        named = None  # the thread was written alone (a sample of an eval log): the file is that transcript
    for unit in units:
        if not (unit.checked or unit.name == named):
            continue
        result = _judge(unit, plain, now)
        if result.exit_code:
            from .download import still_flagged

            left = still_flagged(result, unit.transcript)  # the Report page says the same words
            return f"its transcript {unit.name}: {left}" if len(units) > 1 else left
    return ""


RECHECK_UP_TO = 10_000
"""repair reads back what it is about to write, as `check` would, for files of up to this many messages
(and always when findings are left in place): above it, the re-read would double a large repair's time."""


def _still_failing(source: str, empty: bool, report: Any, payload: bytes, args: argparse.Namespace) -> str:
    """Why `check` would still flag what repair writes ('' when it passes it).

    repair always writes its best view (issue 26: a view that still fails is more use than none, and
    the Inspector offers the same download); it then says on one line what is left and exits 1.
    Looked at: nothing left (every entry dropped), or, under a policy that rechecks its view (strict),
    a view check still fails: always when findings are left in place, and for every file of up to
    RECHECK_UP_TO messages (the written bytes are read back as check reads them).
    """
    from .repair.policies import POLICY

    if empty:
        from .download import NOTHING_LEFT  # (only here: the module loads the report's and formats' readers)

        return NOTHING_LEFT

    recheck = report is not None and POLICY[args.policy].rechecks_written_view and (
        report.summary.findings or report.summary.messages <= RECHECK_UP_TO)
    if recheck:  # findings left in place, or a file small enough to re-read what is written (it may read
        left = _still_flagged(payload, source, args)  # as another format: check must pass what check reads)
        if left:  # name the first finding in the input (its positions are the user's file's)
            first = next((f for f in report.findings if f.severity.value == "malformed"), None) \
                or (report.findings[0] if report.findings else None)
            return f"{first.message} ({left})" if first else left
    return ""


def _repair_targets(args: argparse.Namespace) -> list[Target]:
    """The transcript's target (a file, or standard output) and the report's, if asked for."""
    targets = [Target(STDOUT if args.output is None else args.output, "repaired transcript")]
    if args.report is not None:  # an empty name is refused as a path, never taken for "no report"
        targets.append(Target(args.report, "report"))
    return targets


def _report_json(report: Any) -> bytes:
    """The report as JSON bytes; a lone surrogate (from an escape in the transcript) is written escaped."""
    from ._records import json_text
    from .formats.container import json_bytes

    return json_bytes(json_text(report, indent=2) + "\n")


def _write_repair(targets: list[Target], produce: Callable[[BinaryIO], Any], report: Any) -> int:
    """Write the transcript and the report all or nothing; one error line and exit 2 on failure."""
    jobs: list[tuple[Target, Callable[[BinaryIO], Any]]] = [(targets[0], produce)]
    if len(targets) > 1:
        text = _report_json(report)
        jobs.append((targets[1], lambda out: out.write(text)))
    try:
        write_all(jobs, sys.stdout.buffer)
    except WriteError as error:
        _error(f"error: {error} (no file was written)")
        return EXIT_UNREADABLE
    return EXIT_HEALTHY


def _needs_repair(loaded: _Loaded, args: argparse.Namespace) -> bool:
    """Whether `check` calls this transcript not healthy: the same pipeline, for the same target (`check FILE
    [--provider P]` exits 1 on it).  A diagnosis of its own, by the universal invariants alone, had called a
    thread healthy that its format's provider refuses, and `repair` wrote the file back as it was, exit 0."""
    from .pipeline import check_unit

    target, _ = _provider_option(getattr(args, "provider", None))
    return not check_unit(loaded, provider=target, policy=args.policy, depth="diagnosis").healthy


def _repair_unit(units: list[_Loaded], args: argparse.Namespace) -> _Loaded | None:
    """Which transcript `repair` writes: the only one, the one --thread names, or the only one that needs repair.

    None: the file holds several transcripts and none needs repair (the file is
    written back as it is); with --report, the one transcript `check` judges when the others are abandoned
    branches (a session tree rewound: `check` says they are never sent), so the report describes what is sent.
    Several that need repair, without --thread, is an error naming them: repairing one silently would drop the
    others' fixes.
    """
    from .pipeline import not_repaired

    refused = not_repaired(getattr(units[0].transcript, "kind", "")) if len(units) == 1 else ""
    if refused and getattr(args, "thread", None) is not None:
        raise TranscriptError(units[0].source, f"--thread {units[0].name}", refused)
    if len(units) == 1:
        return units[0]
    broken = [u for u in units if u.checked and _needs_repair(u, args)]
    if not broken:
        checked = [u for u in units if u.checked]
        if getattr(args, "report", None) and len(checked) == 1:  # the others are abandoned branches, never sent
            print(f"note: reporting on {checked[0].label}, the one transcript of {len(units)} in the file that is "
                  "checked (the others are abandoned branches)", file=sys.stderr)
            return checked[0]
        return None
    if len(broken) > 1:
        raise TranscriptError(units[0].source, "", f"{len(broken)} of its {len(units)} transcripts need repair ("
                              + ", ".join(u.name for u in broken) + "); name the one to write with --thread NAME")
    print(f"note: repairing {broken[0].label}, the one transcript of {len(units)} in the file that needs repair",
          file=sys.stderr)
    return broken[0]


def cmd_repair(args: argparse.Namespace) -> int:
    now = _clock(args.now)
    targets = _repair_targets(args)
    try:
        plan_targets(args.file, targets)
    except WriteError as error:
        _error(f"error: {error}")
        return EXIT_UNREADABLE
    try:
        units, data = _load_file(args.file, args, allow_fast=args.report is None, writes=True)
        chosen = _repair_unit(units, args)
    except TranscriptError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    if chosen is None:  # several transcripts, none needs repair: the file is the view
        if args.report:
            _error(f"error: {_source_name(args.file)}: it holds several transcripts and none needs repair; "
                   "--report describes one: name it with --thread NAME")
            return EXIT_UNREADABLE
        kept = data
        assert kept is not None  # several transcripts: the general reader read the file whole
        return _write_repair(targets, lambda out: out.write(kept), None)
    loaded = chosen
    report: Any = None
    notes: list[str] = []
    still_rejected = False
    if loaded.fast is not None:  # (a pi-ai file: every message the view keeps as it is keeps its bytes)
        from ._bulk.fast_read import write_fast

        plan = None
        if args.provider:  # the verdict check gives, and the view it judged (its plan, for the provider)
            from .pipeline import check_unit

            checked = check_unit(loaded, provider=args.provider, policy=args.policy, now=now)
            said = checked.providers[args.provider]
            print("\n".join(_verdict_lines(said)), file=sys.stderr)
            still_rejected = not said.accepted_after_repair
            plan = checked.plan
        if plan is None:  # only write_fast reads its order: with stretches
            plan = _plan(loaded.fast.light, args.policy, args.provider, stretches=True)
        if plan.renamed_alike is not None:  # (turns renamed alike ride in the stretches: write_fast needs them listed)
            plan = _plan(loaded.fast.light, args.policy, args.provider)
        empty = plan.changed and plan.order is not None and not plan.order

        def produce(out: BinaryIO) -> None:
            write_fast(loaded.fast, plan, now, out)
    else:
        from .pipeline import check_unit

        result = check_unit(loaded, provider=args.provider, policy=args.policy, depth="view", now=now)
        report = result.report if result.report.format is not None else loaded.named(result.report)  # (named
        # by the pipeline already when read natively: naming again would run the runtime's pass for nothing)
        assert data is not None and result.plan is not None  # the general reader read the file whole
        changed = result.plan.changed
        assert loaded.transcript is not None and result.view is not None  # (the general reader, depth "view")
        from .written import repaired_bytes

        payload = repaired_bytes(loaded.transcript, changed, result.view, data, notes, verdicts=result.providers,
                                 reshapes=result.report.summary.reshaped > 0, written=result.written)
        empty = changed and not result.view and _holds_no_entries(payload)
        if args.provider:
            said = result.providers[args.provider]
            print("\n".join(_verdict_lines(said)), file=sys.stderr)
            still_rejected = not said.accepted_after_repair

        def produce(out: BinaryIO) -> None:
            out.write(payload)
    del data
    left = _still_failing(loaded.source, empty, report, payload if report is not None else b"", args)
    from .written import is_shape_note

    for note in notes:
        if not (left and is_shape_note(note)):  # never claim a fix check does not see
            print(note, file=sys.stderr)
    written = _write_repair(targets, produce, report)
    if written != EXIT_HEALTHY:
        return written
    if left:
        from .download import flagged_note

        _error(flagged_note(loaded.source, left))
        return EXIT_NEEDS_REPAIR
    return EXIT_NEEDS_REPAIR if still_rejected else EXIT_HEALTHY


def cmd_repair_files(args: argparse.Namespace) -> int:
    """`repair FILE` (to -o or standard output), or `repair FILE... --out-dir DIR` (each file's view to
    DIR/<its name>, over --jobs worker processes, every file's lines in input order)."""
    if args.out_dir is None:
        if len(args.files) > 1:
            _error("error: several files need --out-dir DIR (each view is written there under its file's name)")
            return EXIT_UNREADABLE
        args.file = args.files[0]
        return cmd_repair(args)
    refused = _out_dir_refusal(args)
    if refused:
        _error(f"error: {refused}")
        return EXIT_UNREADABLE
    worst = EXIT_HEALTHY
    files = list(args.files)
    size = max(1, min(_FLUSH_BATCH, -(-len(files) // (2 * _jobs(args)))))
    batches = argparse.Namespace(**{**vars(args), "files": [files[at:at + size] for at in range(0, len(files), size)]})
    for outcomes in _each_file(_repair_batch_into_folder, batches):
        for code, text in outcomes:
            if text:
                sys.stderr.write(text)
            worst = max(worst, code)
    return worst


_FLUSH_BATCH = 256
"""`repair --out-dir`: at most this many files are flushed to disk together (atomic_write.FlushBatch).  Each
flush (one syncfs) waits for the disk whatever it holds: over 2,000 files of 59 kB on 2 cores, batches of 256
took 1.025 s on the median of 8 rounds against 1.075 s for batches of 64, alternated (docs/performance.md,
eleventh session)."""

_FLUSH_BYTES = 64 << 20
"""...and the batch is flushed sooner once the files written since its last flush hold this many bytes: large
files gain nothing from sharing a flush (the disk's time is their bytes'), and their outputs get their names
as they would one at a time."""


def _repair_batch_into_folder(paths: list[str], args: argparse.Namespace) -> list[tuple[int, str]]:
    """_repair_into_folder for each of `paths`, their files flushed to disk together and then renamed into
    place (atomic_write.flushed_together: the promise of one file's write, one wait on the disk)."""
    from ._bulk.atomic_write import flushed_together

    outcomes: list[tuple[int, str]] = []
    one = argparse.Namespace(**vars(args))  # each file's arguments: its file and output set by _repair_into_folder
    failed: dict[int, WriteError] = {}
    try:  # SIGTERM raises anywhere in the batch (between two files too), so its temporary files are removed
        with signals_raise(), flushed_together() as batch:
            for number, path in enumerate(paths):
                batch.key = number
                outcomes.append(_repair_into_folder(path, one))
                if outcomes[-1][0] == EXIT_TERMINATED:  # the pool is being stopped: nothing more is renamed
                    return outcomes
                if batch.held >= _FLUSH_BYTES:
                    failed.update(batch.finish())
            failed.update(batch.finish())
    except Terminated:
        return [(EXIT_TERMINATED, "")] * max(1, len(outcomes))
    for number, error in failed.items():
        outcomes[number] = (EXIT_UNREADABLE, f"error: {error} (no file was written)\n")
    return outcomes


def _out_dir_refusal(args: argparse.Namespace) -> str:
    """Why `repair --out-dir` cannot run as asked ('' when it can): checked before any file is read."""
    if args.output is not None or args.report is not None:
        return "--out-dir writes each view under its file's name: -o and --report are for one file"
    if not os.path.isdir(args.out_dir):
        return f"{args.out_dir}: --out-dir must be an existing folder"
    if "-" in args.files:
        return "standard input ('-') has no name to write under --out-dir: repair it alone with -o FILE"
    seen: dict[str, str] = {}
    for path in args.files:
        name = os.path.basename(path)
        if name in seen:
            return f"{seen[name]} and {path} would both be written to {os.path.join(args.out_dir, name)}"
        seen[name] = path
    return ""


def _repair_into_folder(path: str, one: argparse.Namespace) -> tuple[int, str]:
    """Repair one file into --out-dir; its exit code and what it says on standard error (handed back, so
    the parent prints every file's lines in input order).  A bug in one file is that file's line.

    `one` is the batch's copy of the command's arguments: its file and output are set here.  SIGTERM raises
    Terminated through the batch's signals_raise (_repair_batch_into_folder)."""
    import contextlib
    import io

    one.file, one.output = path, os.path.join(one.out_dir, os.path.basename(path))
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            code = cmd_repair(one)
    except Terminated:  # the pool is being stopped: the write cleaned up after itself
        return EXIT_TERMINATED, ""
    except Exception as error:  # a bug: one line for this file, the others go on
        detail = str(error).strip() or "(no message)"
        said.write(one_line(f"internal error: {path}: {type(error).__name__}: {detail} (a bug in integrity; "
                            "--debug prints the traceback)") + "\n")
        return EXIT_INTERNAL, said.getvalue()
    lines = said.getvalue().splitlines(keepends=True)  # a note names the file it is about, among many
    return code, "".join(f"note: {path}: {line[6:]}" if line.startswith("note: ") else line for line in lines)


def cmd_triage(args: argparse.Namespace) -> int:
    """Triage a fleet; every mistake of the user's (or refusal of the disk) is exit 2 and one line, the table
    untouched, and Dask's own log lines stay off standard error."""
    import logging

    from .triage import TriageError, run_triage

    parent = os.path.dirname(os.path.abspath(args.out))
    cores = os.cpu_count() or 1
    most = max(64, 4 * cores)  # more worker processes than that is a typo that would swamp the machine
    if not args.out.strip() or args.out.endswith(os.sep):
        mistake = f"--out {args.out!r}: give a file name such as fleet.parquet"
    elif not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        mistake = f"{args.out}: cannot write: {parent} is not a writable folder"
    elif unknown := [name for name in args.providers or () if name not in _providers() and name != "all"]:
        mistake = f"--provider: unknown provider {unknown[0]!r} (choose from {', '.join(_providers())}, or all)"
    elif args.scheduler is not None and not args.scheduler.strip():
        mistake = "--scheduler: empty; give the scheduler's address (tcp://host:8786) or leave the option out"
    elif args.workers is not None and args.scheduler:
        mistake = "--workers: sizes the local cluster, so it cannot go with --scheduler"
    elif args.workers is not None and args.workers > most:
        mistake = f"--workers: at most {most} on this machine ({cores} cores), not {args.workers}"
    else:
        mistake = ""
    if mistake:
        _error(f"error: {mistake}")
        return EXIT_UNREADABLE
    quiet = [(logger, logger.level) for logger in map(logging.getLogger, ("distributed", "tornado", "asyncio"))]
    for logger, _level in quiet:  # a scheduler that cannot be reached is our one line, not Dask's log
        logger.setLevel(logging.CRITICAL)
    try:
        result = run_triage(args.inputs, args.out, args.scheduler, args.providers, args.policy, args.workers)
    except TriageError as error:
        _error(f"error: {error}")
        return EXIT_UNREADABLE
    finally:
        for logger, level in quiet:
            logger.setLevel(level)
    missing = f", {result.missing:,} no longer there (rows kept, marked missing)" if result.missing else ""
    if result.rejudged:
        missing += (f"; {result.rejudged:,} judged again, unchanged or not: another version of integrity, "
                    "--policy or --provider judged them before")
    print(f"triaged {result.files:,} files ({result.transcripts:,} transcripts, {result.skipped:,} already in "
          f"the table, {result.unreadable:,} unreadable{missing}) in {result.seconds:.1f} s -> {result.table}, "
          f"{result.findings_table}")
    return EXIT_HEALTHY


def _one_line_usage_error(command: str) -> Callable[[str], NoReturn]:
    """An argparse `error` that says what is wrong on one line (exit 2), without the usage block."""

    def error(message: str) -> NoReturn:
        _error(f"error: {command}: {message} (see --help)")
        raise SystemExit(EXIT_UNREADABLE)

    return error


def _positive(text: str) -> int:
    """A whole number of at least 1 (argparse type for --jobs and --workers)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


_PROVIDER_NAMES = "<providers>"
"""Stands in help texts for the provider names, filled in only when help is shown (_Parser): the registry
loads every rule set, which every command would otherwise pay for at start-up."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help names the providers from the registry, looked up only when shown."""

    def format_help(self) -> str:
        text = super().format_help()
        return text.replace(_PROVIDER_NAMES, ", ".join(_providers())) if _PROVIDER_NAMES in text else text


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m integrity",
        description="Check and repair the tool-call history of LLM agent transcripts.",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--debug", action="store_true", help="print the traceback of an internal error")
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--policy", default=_policies()[0], choices=list(_policies()),
                         help="repair policy (default: %(default)s)")
        sub.add_argument("--format", default="auto", help="transcript format (default: auto-detect)")
        sub.add_argument("--provider", default=None, metavar="NAME",
                         help="the target provider: its verdict before and after repair decides (and the "
                              "strict view is shaped for it); default: the provider the format implies, else "
                              "the universal invariants.  'all' or a comma list asks others too, for "
                              "information (check only).  One of: " + _PROVIDER_NAMES)
        sub.add_argument("--now", type=int, default=None, metavar="MS",
                         help="timestamp (ms) for synthesized receipts, for reproducible output")
        sub.add_argument("--thread", default=None, metavar="NAME",
                         help="only this transcript of a file holding several (main, sidechain:<id>, "
                              "subagent:<id>, sample:<id>, attempt:<n>, branch:<id>)")
        sub.add_argument("--skip-bad-lines", action="store_true",
                         help="JSONL: leave out lines that are not JSON (each one is reported) instead of "
                              "refusing the file; a cut last line is always left out and reported")
        sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                         help="print the traceback of an internal error")
        sub.epilog = EXIT_CODES
        sub.formatter_class = argparse.RawDescriptionHelpFormatter

    check = commands.add_parser("check", help="diagnose files; exit 0 healthy, 1 needs repair, 2 unreadable")
    check.add_argument("files", nargs="+", metavar="FILE", help="transcript files ('-' for stdin)")
    reports = check.add_mutually_exclusive_group()
    reports.add_argument("--json", action="store_true", help="print the full repair reports as JSON")
    reports.add_argument("--json-lines", action="store_true",
                         help="print each transcript's full repair report as one line of JSON, as it is checked")
    check.add_argument("--jobs", type=_positive, default=None, metavar="N",
                       help="check files in N worker processes (default: every core); results come in "
                            "the order of the files")
    common(check)
    check.set_defaults(handler=cmd_check)

    repair = commands.add_parser("repair", help="write the repaired model view (the input is never changed)")
    repair.add_argument("files", nargs="+", metavar="FILE",
                        help="transcript file ('-' for stdin); several with --out-dir")
    repair.add_argument("--out-dir", metavar="DIR",
                        help="write each file's repaired view to DIR under the file's name (never over an input)")
    repair.add_argument("--jobs", type=_positive, default=None, metavar="N",
                        help="with --out-dir: repair files in N worker processes (default: every core); their "
                             "lines come in the order of the files")
    repair.add_argument("-o", "--output", metavar="FILE",
                        help="output file (default or '-': standard output); a regular file, never the input")
    repair.add_argument("--report", metavar="REPORT.json",
                        help="also write the repair report as JSON ('-': standard output, then -o FILE is needed)")
    common(repair)
    repair.set_defaults(handler=cmd_repair_files)

    triage = commands.add_parser("triage", help="check a fleet of stored sessions on Dask into Parquet tables")
    triage.add_argument("inputs", nargs="+", metavar="PATH_OR_GLOB",
                        help="files, folders or globs (local, or s3://, gs://, ... with their fsspec package)")
    triage.add_argument("--out", required=True, metavar="TABLE.parquet",
                        help="one row per transcript; findings go to TABLE.findings.parquet beside it")
    triage.add_argument("--scheduler", metavar="ADDRESS",
                        help="an existing Dask scheduler (tcp://host:8786); default: a local cluster")
    triage.add_argument("--provider", action="append", dest="providers", metavar="NAME",
                        help="a provider whose verdict to record beside each file's target provider (which "
                             "decides the status and is always recorded); repeat, or 'all'")
    triage.add_argument("--policy", default=_policies()[0], choices=list(_policies()),
                        help="repair policy (default: %(default)s)")
    triage.add_argument("--workers", type=_positive, metavar="N",
                        help="local cluster workers (default: all cores)")
    triage.set_defaults(handler=cmd_triage, provider=None)
    triage.error = _one_line_usage_error("triage")  # type: ignore[method-assign, assignment]
    return parser


def _error(line: str) -> None:
    """One line on standard error (control characters escaped, so it stays one line)."""
    print(one_line(line), file=sys.stderr)


class _QuietPipe:
    """Standard output that goes quiet when the reader closes the pipe (`check x | head -1`).

    A closed pipe is the reader's choice, not an error: the rest of the output is
    dropped (the descriptor is pointed at the null device, so the interpreter's own
    final flush is quiet too) and the command finishes with its usual exit code.
    Text with lone surrogates (from escapes in a transcript) is written escaped.
    """

    def __init__(self, stream: Any, state: dict[str, bool] | None = None) -> None:
        self._stream = stream
        self._state = state if state is not None else {"closed": False}

    def _silence(self) -> None:
        self._state["closed"] = True
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError, AttributeError):
            pass  # no descriptor (an in-memory stream): nothing will flush it at exit

    def write(self, data: Any) -> int:
        if self._state["closed"]:
            return len(data)
        try:
            try:
                return int(self._stream.write(data))
            except UnicodeEncodeError:
                return int(self._stream.write(data.encode("utf-8", "backslashreplace").decode("utf-8")))
        except BrokenPipeError:
            self._silence()
            return len(data)

    def writelines(self, lines: Any) -> None:
        if not self._state["closed"]:
            try:
                self._stream.writelines(lines)
            except BrokenPipeError:
                self._silence()

    def flush(self) -> None:
        if not self._state["closed"]:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._silence()

    @property
    def buffer(self) -> _QuietPipe:
        return _QuietPipe(self._stream.buffer, self._state)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _named_files(args: argparse.Namespace) -> str:
    files = [args.file] if getattr(args, "file", None) else list(getattr(args, "files", None) or [])
    return f"{files[0] if files[0] != STDOUT else '<stdin>'}: " if len(files) == 1 else ""


_OUTPUT_ERRNOS = frozenset(code for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO")
                           if (code := getattr(errno, name, None)))
"""Errors of the device standard output (or standard error) writes to, which reach _run as they are: files
this command writes itself report their own (integrity._bulk.atomic_write)."""


def _run(args: argparse.Namespace) -> int:
    """Run the command; every exception becomes one line and an exit code (see EXIT_CODES)."""
    try:
        with signals_raise():
            return int(args.handler(args))
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_INTERRUPTED
    except Terminated:
        _error("terminated")
        return EXIT_TERMINATED
    except BrokenPipeError:  # standard error closed too, or a pipe we did not guard: nothing to tell
        return EXIT_UNREADABLE
    except MemoryError:
        _error(f"error: {_named_files(args)}not enough memory to process the input (it is too large "
               "for this machine); nothing was written")
        return EXIT_UNREADABLE
    except Exception as error:  # a bug: say so on one line, never as a verdict
        if isinstance(error, OSError) and error.errno is not None and error.errno in _OUTPUT_ERRNOS:
            # not a bug: the device the output goes to
            _error(f"error: cannot write the output: {os.strerror(error.errno)} (the input is unchanged)")
            return EXIT_UNREADABLE
        if args.debug:
            import traceback

            traceback.print_exc()
        detail = str(error).strip() or "(no message)"
        _error(f"internal error: {_named_files(args)}{type(error).__name__}: {detail} "
               "(a bug in integrity; --debug prints the traceback)")
        return EXIT_INTERNAL


def main(argv: Sequence[str] | None = None) -> int:
    """Run `python -m integrity` with argv (default: sys.argv[1:]) and return its exit code."""
    # The engine builds no reference cycles; the cyclic collector would only
    # rescan millions of live objects on big files.  The caller's setting comes back.
    collecting = gc.isenabled()
    gc.disable()
    parser = build_parser()
    real_stdout = sys.stdout
    try:
        args = parser.parse_args(argv)
        unknown = [name for name in (args.provider or "").split(",") if name and name != "all"
                   and name not in _providers()]
        if unknown or (args.provider is not None and not args.provider.strip(", ")):
            parser.error(f"argument --provider: invalid choice: {(unknown or [args.provider])[0]!r} "
                         f"(choose from {', '.join(_providers())}, 'all', or a comma list)")
        if args.command == "repair" and args.provider and ("," in args.provider or args.provider == "all"):
            parser.error("argument --provider: repair shapes its view for one provider: name one")
        sys.stdout = cast(TextIO, _QuietPipe(real_stdout))
        code = _run(args)
        sys.stdout.flush()
        return code
    finally:
        sys.stdout = real_stdout
        if collecting:
            gc.enable()
