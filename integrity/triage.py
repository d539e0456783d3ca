"""Fleet triage on Dask: check many stored sessions in parallel and write the answers as Parquet tables.

`integrity triage PATH_OR_GLOB... --out TABLE.parquet` runs the same engine as
`check` on every transcript it finds and writes one row per transcript (path,
thread or sample, format, counts, verdict, each provider's verdict, the error for
an unreadable file) to TABLE.parquet and one row per finding or provider error to
TABLE.findings.parquet beside it.

Dask is the engine.  With no scheduler a local cluster of worker processes starts
on this machine (nothing to set up); with `--scheduler tcp://host:8786` the same
run goes to an existing Dask cluster (Kubernetes, YARN, HPC, cloud; its workers
need this package installed).  Inputs are read through fsspec, so local paths and
globs work out of the box and `s3://` or `gs://` work once the user installs the
filesystem package (s3fs, gcsfs).  Files are sent to workers in batches, a few
per worker at a time, and their rows are written in input order as the batches
finish, so memory stays flat however large the fleet and the table is the same
whichever worker ran what; a bad file is an error row, never a failed run.
Re-running with the same --out skips transcripts already there (same path and
content hash) and keeps their rows; a kept row whose file is gone says so
(`missing`).  The table is replaced whole or not at all: what is on disk at --out
is always a complete table (docs/triage.md; the writing is in _triage_table, what
is read and how in _triage_inputs).

A runtime's session store given as a URL (a LangGraph checkpointer in SQLite or Postgres, an Agents
SDK or ADK session database; integrity.guards.stores) gives one row per thread, whose path is the URL
`integrity check` takes for that thread and whose verdict is the one `check` gives it.  Its threads are
listed in one read and split into the same Dask partitions as files: each partition reads its threads
on one read-only connection, one read per thread, so no lock outlives a read.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._bulk.forking import fork_is_safe
from ._triage_inputs import Identities, exists, expand_inputs, identity, is_store, read_file
from ._triage_inputs import TriageError as TriageError
from ._triage_table import (
    FINDING_FIELDS,
    TRANSCRIPT_FIELDS,
    TableWriter,
    carry_over,
    check_table,
    finding_schema,
    is_temporary_of,
    judged_by,
    known_hashes,
    recorded_providers,
    remove_dead_temporaries,
    transcript_schema,
)
from .kinds import summary_counts
from .repair.policies import DEFAULT_POLICY

if TYPE_CHECKING:
    from .pipeline import CheckResult, Loaded

TRANSCRIPT_COLUMNS = tuple(name for name, _ in TRANSCRIPT_FIELDS)
FINDING_COLUMNS = tuple(name for name, _ in FINDING_FIELDS)
CONNECT_SECONDS = 10
"""How long to try reaching a --scheduler before saying it cannot be reached."""
BATCH_FILES = 256
"""The most files per Dask task (batch_size); each task costs Dask a few milliseconds of its own."""
TASKS_PER_THREAD = 8
"""Tasks per worker thread when the fleet is small enough (batch_size)."""
WINDOW_PER_THREAD = 16
"""Tasks per worker thread sent ahead of the oldest unwritten one: the rows waiting to be written in
order are at most this many tasks' worth per thread, however large the fleet."""

Rows = list[dict[str, Any]]


@dataclass
class TriageResult:
    """What one run did (the tables themselves are on disk)."""

    files: int
    transcripts: int
    skipped: int
    unreadable: int
    seconds: float
    table: str
    findings_table: str
    missing: int = 0
    """Files of rows kept from an earlier run that are no longer there (their rows say `missing`)."""
    rejudged: int = 0
    """Files of this run that the earlier table held and that are judged again whatever their content, since
    another version of the engine, another policy or other asked providers judged them (the rows' `judged_by`)."""


def findings_path(table: str) -> str:
    """TABLE.parquet -> TABLE.findings.parquet (the findings table lives beside the transcript table)."""
    base = table[: -len(".parquet")] if table.endswith(".parquet") else table
    return base + ".findings.parquet"


_read = read_file  # the only I/O of a worker: a special file is never opened for reading


def triage_file(url: str, providers: Sequence[str], policy: str, known_hash: str | None = None
                ) -> tuple[Rows, Rows] | None:
    """The transcript rows and finding rows of one file; None when its content hash is known_hash.

    Never raises for a bad file: an unreadable file gives one row with its error.
    """
    from .loading import TranscriptError
    from .pipeline import unjudged, unjudged_verdict

    try:
        data = _read(url)
    except OSError as error:
        return [_error_row(url, "", f"cannot read: {error.strerror or error}")], []
    digest = hashlib.sha256(data).hexdigest()
    if known_hash is not None and digest == known_hash:
        return None
    try:
        units = _units(data, url, policy, providers)
    except TranscriptError as error:
        return [_error_row(url, digest, str(error))], []
    except Exception as error:  # a reader that fails on odd input is this file's row, never a failed run
        return [_error_row(url, digest, f"internal error: {type(error).__name__}: {error}")], []
    rows: Rows = []
    findings: Rows = []
    for unit in units:
        thread = unit.name if len(units) > 1 else ""
        if not unit.checked:  # an abandoned branch or a compacted-away part: never sent again, listed not judged
            assert unit.transcript is not None
            rows.append({"path": url, "thread": thread, "content_hash": digest, "format": unit.format,
                         "messages": len(unit.transcript.messages),
                         "status": str(unjudged(unit.transcript.kind)[0]),
                         "verdict": unjudged_verdict(unit.transcript.kind, len(unit.transcript.messages))})
            continue
        try:
            result = _check(unit, policy, providers)
        except Exception as error:  # a transcript the engine cannot handle is a row, never a failed run
            rows.append(_error_row(url, digest, f"internal error: {type(error).__name__}: {error}", thread))
            continue
        rows.append(_transcript_row(url, digest, thread, result))
        findings.extend(_finding_rows(url, digest, thread, result))
    return rows, findings


def _units(data: bytes, url: str, policy: str, providers: Sequence[str] = ()) -> list[Loaded]:
    """Every transcript of a file, as `check` reads it: a pi-ai file by the fast path (its light view, no
    dict per message: the same verdict, several times faster; with the bones the providers will judge),
    any other by the general reader."""
    from ._bulk.fast_read import read_fast
    from .pipeline import Loaded, read_bones, reads_contents
    from .repair.policies import reads_closely

    fast = read_fast(data, url, clean=reads_closely(policy), bones=read_bones(providers),
                     blank=reads_contents(providers))
    if fast is not None:
        return [Loaded(url, fast=fast)]
    from .analysis import load_all

    transcripts = load_all(data, url)
    return [Loaded(url, transcript=transcript, count=len(transcripts)) for transcript in transcripts]


def _check(unit: Loaded, policy: str, providers: Sequence[str]) -> CheckResult:
    """What `check` says about one transcript (the one pipeline, at the diagnosis's depth): its
    target provider decides; `providers` are asked beside it, for their columns."""
    from .pipeline import check_unit

    return check_unit(unit, also=providers, policy=policy)


def _error_row(path: str, digest: str, error: str, thread: str = "") -> dict[str, Any]:
    return {"path": path, "thread": thread, "content_hash": digest, "status": "unreadable", "error": error}


def _transcript_row(path: str, digest: str, thread: str, result: CheckResult) -> dict[str, Any]:
    report = result.report
    summary = report.summary
    row: dict[str, Any] = {
        "path": path, "thread": thread, "content_hash": digest, "format": result.format,
        "messages": summary.messages, "calls": summary.calls,
        **{field: getattr(summary, field) for field, _ in summary_counts()},
        "healthy": report.healthy, "changed": report.changed, "status": result.status.value,
        "severity": result.severity.value, "verdict": report.verdict, "target": result.target, "error": None,
        "runtime_results": len(report.runtime_results or ()),
    }
    for provider, said in result.providers.items():
        row[f"{provider} as recorded"] = "accepted" if said.accepted_as_recorded else "rejected"
        row[f"{provider} after repair"] = "accepted" if said.accepted_after_repair else "rejected"
    return row


def _finding_rows(path: str, digest: str, thread: str, result: CheckResult) -> Rows:
    rows: Rows = []
    base = {"path": path, "thread": thread, "content_hash": digest}
    for finding in result.findings:
        rows.append({**base, "source": "finding", "code": finding.kind.value, "severity": finding.severity.value,
                     "provider": None, "position": None, "durable_indices": list(finding.durable_indices),
                     "call_id": finding.call_id, "message": finding.message})
    for call_id, text in (result.report.runtime_results or {}).items():  # what its runtime sends in the call's stead
        rows.append({**base, "source": "runtime", "code": "runtime_result", "severity": None, "provider": None,
                     "position": None, "durable_indices": [], "call_id": call_id, "message": text})
    for provider, said in result.providers.items():
        for violation in said.before:
            rows.append({**base, "source": "provider", "code": violation.rule, "severity": "rejected",
                         "provider": provider, "position": violation.position,
                         "durable_indices": list(violation.canonical_indices or violation.native_indices),
                         "call_id": ", ".join(map(str, violation.call_ids)) or None, "message": violation.error})
    return rows


def triage_batch(urls: Sequence[str], providers: Sequence[str], policy: str,
                 known: dict[str, str], stores: dict[str, str] | None = None) -> tuple[Rows, Rows, int]:
    """One Dask task: the rows of several files (or store threads: `stores` maps a named store to the URL
    that reaches it), and how many were skipped as already triaged."""
    rows: Rows = []
    findings: Rows = []
    skipped = 0
    threads: dict[str, list[str]] = {}  # store -> its threads' input names, read together
    for url in urls:
        if is_store(url):
            threads.setdefault(url.partition("?")[0], []).append(url)
            continue
        result = triage_file(url, providers, policy, known.get(url))
        if result is None:
            skipped += 1
            continue
        rows.extend(result[0])
        findings.extend(result[1])
    for store, units in threads.items():
        more, found, passed = triage_threads((stores or {}).get(store, store), units, providers, policy, known)
        rows.extend(more)
        findings.extend(found)
        skipped += passed
    if threads:  # a store's threads were read together: put every row back in input order
        order = {url: index for index, url in enumerate(urls)}
        rows.sort(key=lambda row: order[row["path"]])
        findings.sort(key=lambda row: order[row["path"]])
    return rows, findings, skipped


def triage_threads(store: str, units: Sequence[str], providers: Sequence[str], policy: str,
                   known: dict[str, str]) -> tuple[Rows, Rows, int]:
    """The rows of some threads of one store (their input names, `STORE?thread=ID`), read on one connection.

    A thread's content hash is that of its stored messages, so a re-run skips a thread whose messages
    did not change; a store that cannot be read gives each thread an error row, never a failed run.
    """
    import json

    from .guards.stores import as_transcript, read_threads, split_store_url
    from .loading import TranscriptError
    from .pipeline import Loaded

    ids = {unit: str(split_store_url(unit)[1]) for unit in units}  # (an ADK session may be app, user and id)
    try:
        stored = {thread.name.partition(":")[2]: thread for thread in read_threads(store, list(ids.values()))}
    except TranscriptError as error:
        return [_error_row(unit, "", str(error).replace(store, unit.partition("?")[0])) for unit in units], [], 0
    except Exception as error:  # a reader that fails on odd rows is these threads' rows, never a failed run
        return [_error_row(unit, "", f"internal error: {type(error).__name__}: {error}") for unit in units], [], 0
    rows: Rows = []
    findings: Rows = []
    skipped = 0
    for unit, thread in ids.items():
        name = ("thread:" if unit.startswith("langgraph+") else "session:") + thread
        if thread not in stored:
            rows.append(_error_row(unit, "", f"{unit}: {name} is no longer in the store", name))
            continue
        _, format, entries, model = stored[thread]
        hashed = entries if model is None else [model, entries]  # (a model changes the verdict as messages do)
        digest = hashlib.sha256(json.dumps(hashed, sort_keys=True, default=str).encode()).hexdigest()
        if known.get(unit) == digest:
            skipped += 1
            continue
        try:
            transcript = as_transcript(entries, format, unit, name, model)
            result = _check(Loaded(unit, transcript=transcript), policy, providers)
        except TranscriptError as error:  # a thread the store reader could not decode: this row alone
            rows.append(_error_row(unit, "", str(error), name))
            continue
        except Exception as error:  # a thread the engine cannot handle is a row, never a failed run
            rows.append(_error_row(unit, digest, f"internal error: {type(error).__name__}: {error}", name))
            continue
        rows.append(_transcript_row(unit, digest, name, result))
        findings.extend(_finding_rows(unit, digest, name, result))
    return rows, findings, skipped


def _batches(items: Sequence[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


LOCAL_SETTINGS: dict[str, Any] = {
    "distributed.worker.profile.enabled": False,  # a sampler of the running task every 10 ms: a tenth of a
    # worker's time on small files, for a profile nobody looks at (the dashboard is off)
    "distributed.admin.tick.interval": "1s",  # the event loop's health check, 50 times a second
    "distributed.admin.system-monitor.interval": "5s",  # the dashboard's CPU/memory graphs
}
"""Dask settings of the local cluster triage starts (never of a --scheduler's): what a short run on a few
cores does not need.  On Linux the workers are forked from this process (while its own threads wait for
them), so they start with the engine already imported instead of a fresh interpreter importing Dask and
the engine each (spawn: about a second of both cores per run); a worker the nanny restarts later is
started Dask's default way (the settings hold while the cluster starts)."""


def _local_settings() -> dict[str, Any]:
    """LOCAL_SETTINGS, and forked workers where that is safe: on Linux (macOS: fork is unsafe once system
    frameworks start threads), from a process that runs no thread of its own yet (_bulk.forking; Dask's
    threads, started with the cluster, wait for the forks).  A host with threads of its own gets spawned
    workers: a forked one could wait forever for a lock one of those threads held."""
    settings = dict(LOCAL_SETTINGS)
    if sys.platform.startswith("linux") and fork_is_safe():
        settings["distributed.worker.multiprocessing-method"] = "fork"
    return settings


def _preload() -> None:
    """Import what a worker runs before the workers are forked, so each starts with it imported."""
    from . import analysis, pipeline  # noqa: F401
    from ._bulk import fast_read  # noqa: F401
    from .guards import stores  # noqa: F401
    from .repair import policies  # noqa: F401


@contextmanager
def _client(scheduler: str | None, workers: int | None) -> Iterator[tuple[Any, int]]:
    """A client of the named scheduler (TriageError when there is none to reach) or of a new local cluster,
    which is closed with it (a `Client(cluster)` alone leaves the cluster's processes running); and how
    many tasks its workers run at once."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout=CONNECT_SECONDS)
        except (OSError, ValueError, TypeError) as error:  # refused, timed out, malformed, unknown protocol
            detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise TriageError(f"--scheduler {scheduler}: cannot reach a Dask scheduler there: {detail}") from None
        with client:
            yield client, max(1, sum(client.nthreads().values()))
        return
    count = workers or os.cpu_count() or 1
    _preload()
    environment = dict(os.environ)  # Dask's nanny sets its workers' variables here and never takes them back
    try:
        with warnings.catch_warnings(), dask.config.set(_local_settings()):
            warnings.simplefilter("ignore", UserWarning)  # "port 8787 is already in use": Dask's chatter
            cluster = LocalCluster(n_workers=count, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.CRITICAL)  # workers log to our stderr
        with cluster, Client(cluster) as client:
            yield client, count
    finally:  # the caller's environment as it was (an inspector or an application runs triage in its process)
        if dict(os.environ) != environment:
            os.environ.clear()
            os.environ.update(environment)


def batch_size(files: int, threads: int) -> int:
    """Files per Dask task: TASKS_PER_THREAD tasks for each task the cluster runs at once (enough to even
    out files of uneven cost), at most BATCH_FILES (so a large fleet still streams in small steps)."""
    return max(1, min(BATCH_FILES, -(-files // (threads * TASKS_PER_THREAD))))


def _progress(done: int, total: int, unreadable: int, stream: Any) -> None:
    end = "\n" if done == total else "\r"
    if stream.isatty() or done == total:
        print(f"triage: {done:,}/{total:,} files, {unreadable:,} unreadable", end=end, file=stream, flush=True)


def run_triage(patterns: Sequence[str], out: str, scheduler: str | None = None,
               providers: Sequence[str] | None = None, policy: str = DEFAULT_POLICY, workers: int | None = None,
               batch_files: int | None = None, progress: Any = sys.stderr) -> TriageResult:
    """Triage every transcript the patterns name into `out` (and its findings table); see the module docstring.

    TriageError (one line) for the user's mistakes and a disk that refuses the table; the table at `out`
    is then as it was.
    """
    from .providers import PROVIDERS, SPECS

    started = time.perf_counter()
    chosen = list(providers or ())  # each file's target provider is always asked; these are asked beside it
    tables = (out, findings_path(out))
    check_table(out, ("path", "content_hash", "status"))
    check_table(tables[1], ("path", "source", "code"), "--out (its findings table)")
    own = {identity(os.path.abspath(table)) for table in tables}
    stores: dict[str, str] = {}  # a store named in the rows -> the URL that reaches it (its password)
    urls = expand_inputs(patterns, lambda key: key in own or any(is_temporary_of(key, t) for t in own), stores)
    remove_dead_temporaries(tables)
    # every provider's columns: a file's target provider (any of them) is known only once it is read; and a variant
    # asked by name (gemini-2), or recorded by an earlier run
    order = list(PROVIDERS) + sorted((set(recorded_providers(out)) | (set(chosen) & SPECS.keys())) - set(PROVIDERS))
    judge = judged_by(policy, chosen)
    known, judged_otherwise = known_hashes(out, judge)
    counts = {"transcripts": 0, "skipped": 0, "unreadable": 0, "done": 0, "missing": 0}
    writers: list[TableWriter] = []

    def open_tables() -> None:  # once the workers have their first files: pyarrow's import is not waited for
        writers.append(TableWriter(tables[1], finding_schema()))
        writers.append(TableWriter(out, transcript_schema(order)))

    try:
        redone = _run_batches(urls, known, scheduler, workers, chosen, policy, batch_files, open_tables, writers,
                              counts, progress, judge, stores)
        keeper = _Keeper(urls, redone)
        carry_over(out, writers[1], keeper)
        counts["missing"] = keeper.missing
        carry_over(tables[1], writers[0], keeper)
        for writer in reversed(writers):  # every row on disk before either rename, so the renames follow
            writer.finish()               # each other at once
        for writer in writers:  # the findings table first: a kill between the renames leaves a table whose
            writer.close()      # rows are older than its findings, and the next run redoes those files
    except BaseException:
        for writer in writers:
            writer.abandon()
        raise
    return TriageResult(len(urls), counts["transcripts"], counts["skipped"], counts["unreadable"],
                        time.perf_counter() - started, out, tables[1], counts["missing"],
                        len(judged_otherwise.intersection(urls)))


def _run_batches(urls: Sequence[str], known: dict[str, str], scheduler: str | None, workers: int | None,
                 chosen: Sequence[str], policy: str, batch_files: int | None, open_tables: Callable[[], None],
                 writers: Sequence[TableWriter], counts: dict[str, int], progress: Any, judge: str,
                 stores: dict[str, str] | None = None) -> set[str]:
    """Send the files to Dask in batches and write their rows in input order; the paths given new rows.

    Batches finish in any order; each one's rows wait until every earlier batch's are written, so the
    table is the same row for row (and byte for byte) whichever process ran which batch, and however
    the files were batched.  At most WINDOW_PER_THREAD batches per worker thread are out at once.  A
    local cluster's start-up is not waited for idle: a copy of this process triages the first batches
    meanwhile (_triage_head).
    """
    from ._triage_head import HeadStart, missing

    def arguments(batch: list[str]) -> tuple[Any, ...]:
        return (batch, chosen, policy, {u: known[u] for u in batch if u in known},
                {s: stores[s] for s in {u.partition("?")[0] for u in batch} if s in stores} if stores else None)

    redone: set[str] = set()
    local = workers or os.cpu_count() or 1
    batches = list(_batches(urls, batch_files or batch_size(len(urls), local))) if not scheduler else []
    if batches:
        _preload()  # once, here: the head start and the workers are forked with it
    head = HeadStart(len(batches), lambda index: triage_batch(*arguments(batches[index]))) \
        if batches and not os.environ.get("INTEGRITY_TRIAGE_NO_HEAD_START") and HeadStart.possible() else None
    try:
        from distributed import as_completed

        with _client(scheduler, workers) as (client, threads):
            if scheduler:
                batches = list(_batches(urls, batch_files or batch_size(len(urls), threads)))
            taken = head.stop() if head else 0  # batches below `taken` are the head start's
            pending = list(range(taken, len(batches)))[::-1]  # (a stack: the next to send is last)
            window = WINDOW_PER_THREAD * threads
            running = as_completed()
            index_of: dict[str, int] = {}
            done: dict[int, tuple[Rows, Rows, int]] = {}
            written = 0

            def send() -> None:
                while pending and pending[-1] < written + window:
                    index = pending.pop()
                    future = client.submit(triage_batch, *arguments(batches[index]), pure=False)
                    index_of[future.key] = index
                    running.add(future)

            send()
            open_tables()
            if head:
                done.update(head.results())
                pending.extend(reversed(missing(taken, done)))  # what the copy took and never delivered
                send()
            while written < len(batches):
                while written in done:
                    rows, findings, skipped = done.pop(written)
                    _account(rows, skipped, counts, redone, judge)
                    writers[1].write(rows)
                    writers[0].write(findings)
                    counts["done"] += len(batches[written])
                    written += 1
                    if progress is not None:
                        _progress(counts["done"], len(urls), counts["unreadable"], progress)
                send()
                if written < len(batches):
                    future = next(running)
                    done[index_of.pop(future.key)] = future.result()
                    future.release()
    finally:
        if head:
            head.close()
    if not writers:
        open_tables()
    return redone


class _Keeper:
    """Which of an earlier run's rows the new table keeps, remembered per path (a file has many rows)."""

    def __init__(self, urls: Sequence[str], redone: set[str]) -> None:
        self.identity = Identities()
        self.names = {self.identity(url): url for url in urls}
        self.redone = redone
        self.cache: dict[str, bool | None] = {}

    def __call__(self, path: str) -> bool | None:
        """None to drop the row (its file was redone now, or it is another name of an input), else whether
        its file is missing (the row stays, marked)."""
        if path not in self.cache:
            if path in self.redone:
                self.cache[path] = None
            elif (key := self.identity(path)) in self.names:
                self.cache[path] = False if self.names[key] == path else None
            else:
                self.cache[path] = not exists(path)
        return self.cache[path]

    @property
    def missing(self) -> int:
        """How many files of kept rows are missing."""
        return sum(1 for missing in self.cache.values() if missing)


def _account(rows: Iterable[dict[str, Any]], skipped: int, counts: dict[str, int], redone: set[str],
             judge: str) -> None:
    for row in rows:
        redone.add(row["path"])
        row["judged_by"] = judge
        if row.get("status") == "unreadable":
            counts["unreadable"] += 1
        else:
            counts["transcripts"] += 1
    counts["skipped"] += skipped


def _TableWriter(path: str, columns: Sequence[str]) -> TableWriter:  # noqa: N802 - the earlier class's name
    """A writer of the transcript table (every provider's columns) or the findings table, by their columns."""
    from .providers import PROVIDERS

    return TableWriter(path, transcript_schema(PROVIDERS) if tuple(columns) == TRANSCRIPT_COLUMNS
                       else finding_schema())
