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
filesystem package (s3fs, gcsfs).  Files are sent to workers in batches, results
stream back in completion order and are written as they arrive, so memory stays
flat however large the fleet; a bad file is an error row, never a failed run.
Re-running with the same --out skips transcripts already there (same path and
content hash) and keeps their rows.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._policies import DEFAULT_POLICY

if TYPE_CHECKING:
    from .pipeline import CheckResult

TRANSCRIPT_COLUMNS = (
    "path", "thread", "content_hash", "format", "messages", "calls", "orphaned_calls", "duplicates_dropped",
    "strays", "moved", "frames_dropped", "synthesized", "findings", "healthy", "changed", "status", "severity",
    "verdict", "target", "error",
)
FINDING_COLUMNS = (
    "path", "thread", "content_hash", "source", "code", "severity", "provider", "position", "durable_indices",
    "call_id", "message",
)
BATCH_FILES = 32
"""Files per Dask task: big enough that scheduling costs little, small enough to spread the work."""

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


def findings_path(table: str) -> str:
    """TABLE.parquet -> TABLE.findings.parquet (the findings table lives beside the transcript table)."""
    base = table[: -len(".parquet")] if table.endswith(".parquet") else table
    return base + ".findings.parquet"


def expand_inputs(patterns: Sequence[str]) -> list[str]:
    """Every file the patterns name, as fsspec URLs, sorted and without duplicates.

    A directory stands for every file under it; a glob is expanded by its filesystem.
    """
    from fsspec.core import url_to_fs

    found: set[str] = set()
    for pattern in patterns:
        fs, base = url_to_fs(pattern)
        if fs.isdir(base):
            names = fs.find(base)
        elif any(char in base for char in "*?["):
            names = fs.glob(base)
        else:
            names = [base]
        for name in names:
            if not fs.isdir(name):
                found.add(fs.unstrip_protocol(name) if _remote(fs) else name)
    return sorted(found)


def _remote(fs: Any) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return protocol not in ("file", "local")


def _read(url: str) -> bytes:
    import fsspec

    with fsspec.open(url, "rb") as handle:
        return bytes(handle.read())


def triage_file(url: str, providers: Sequence[str], policy: str, known_hash: str | None = None
                ) -> tuple[Rows, Rows] | None:
    """The transcript rows and finding rows of one file; None when its content hash is known_hash.

    Never raises for a bad file: an unreadable file gives one row with its error.
    """
    from .analysis import load_all
    from .loading import TranscriptError

    try:
        data = _read(url)
    except OSError as error:
        return [_error_row(url, "", f"cannot read: {error.strerror or error}")], []
    digest = hashlib.sha256(data).hexdigest()
    if known_hash is not None and digest == known_hash:
        return None
    try:
        transcripts = load_all(data, url)
    except TranscriptError as error:
        return [_error_row(url, digest, str(error))], []
    except Exception as error:  # a reader that fails on odd input is this file's row, never a failed run
        return [_error_row(url, digest, f"internal error: {type(error).__name__}: {error}")], []
    rows: Rows = []
    findings: Rows = []
    for transcript in transcripts:
        thread = transcript.name if len(transcripts) > 1 else ""
        if not transcript.checked:  # an abandoned branch: never sent to the model again, listed not judged
            rows.append({"path": url, "thread": thread, "content_hash": digest, "format": transcript.format,
                         "messages": len(transcript.messages), "status": "abandoned branch"})
            continue
        try:
            result = _check(transcript, policy, providers)
        except Exception as error:  # a transcript the engine cannot handle is a row, never a failed run
            rows.append(_error_row(url, digest, f"internal error: {type(error).__name__}: {error}", thread))
            continue
        rows.append(_transcript_row(url, digest, thread, result))
        findings.extend(_finding_rows(url, digest, thread, result))
    return rows, findings


def _check(transcript: Any, policy: str, providers: Sequence[str]) -> CheckResult:
    """What `check` says about one transcript (the one pipeline, at the diagnosis's depth): its
    target provider decides; `providers` are asked beside it, for their columns."""
    from .pipeline import Loaded, check_unit

    return check_unit(Loaded(transcript.source, transcript=transcript), also=providers, policy=policy)


def _error_row(path: str, digest: str, error: str, thread: str = "") -> dict[str, Any]:
    return {"path": path, "thread": thread, "content_hash": digest, "status": "unreadable", "error": error}


def _transcript_row(path: str, digest: str, thread: str, result: CheckResult) -> dict[str, Any]:
    report = result.report
    summary = report.summary
    row: dict[str, Any] = {
        "path": path, "thread": thread, "content_hash": digest, "format": result.format,
        "messages": summary.messages, "calls": summary.calls, "orphaned_calls": summary.orphaned_calls,
        "duplicates_dropped": summary.duplicates_dropped, "strays": summary.strays, "moved": summary.moved,
        "frames_dropped": summary.frames_dropped, "synthesized": summary.synthesized, "findings": summary.findings,
        "healthy": report.healthy, "changed": report.changed, "status": result.status.value,
        "severity": result.severity.value, "verdict": report.verdict, "target": result.target, "error": None,
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
    for provider, said in result.providers.items():
        for violation in said.before:
            rows.append({**base, "source": "provider", "code": violation.rule, "severity": "rejected",
                         "provider": provider, "position": violation.position,
                         "durable_indices": list(violation.canonical_indices or violation.native_indices),
                         "call_id": ", ".join(map(str, violation.call_ids)) or None, "message": violation.error})
    return rows


def triage_batch(urls: Sequence[str], providers: Sequence[str], policy: str,
                 known: dict[str, str]) -> tuple[Rows, Rows, int]:
    """One Dask task: the rows of several files, and how many were skipped as already triaged."""
    rows: Rows = []
    findings: Rows = []
    skipped = 0
    for url in urls:
        result = triage_file(url, providers, policy, known.get(url))
        if result is None:
            skipped += 1
            continue
        rows.extend(result[0])
        findings.extend(result[1])
    return rows, findings, skipped


def _batches(items: Sequence[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


def _known(table: str) -> dict[str, str]:
    """path -> content hash of the files an earlier run already triaged into this table."""
    import pyarrow.parquet as pq

    if not os.path.exists(table):
        return {}
    known = pq.read_table(table, columns=["path", "content_hash"]).to_pydict()
    return {path: digest for path, digest in zip(known["path"], known["content_hash"], strict=True) if digest}


class _TableWriter:
    """Streams rows into a Parquet file under a temporary name; `close` renames it into place.

    The schema is fixed by the first rows (plus the columns every table has), so a
    fleet of a million files is written in constant memory.
    """

    def __init__(self, path: str, columns: Sequence[str]) -> None:
        self.path = path
        self.temporary = f"{path}.tmp-{os.getpid()}"
        self.columns = list(columns)
        self.writer: Any = None
        self.schema: Any = None

    def write(self, rows: Rows) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not rows:
            return
        if self.writer is None:
            names = list(self.columns) + sorted({key for row in rows for key in row} - set(self.columns))
            self.columns = names
            table = pa.Table.from_pylist([{name: row.get(name) for name in names} for row in rows])
            self.schema = _widen(table.schema)
            self.writer = pq.ParquetWriter(self.temporary, self.schema)
        table = pa.Table.from_pylist([{name: row.get(name) for name in self.columns} for row in rows],
                                     schema=self.schema)
        self.writer.write_table(table)

    def close(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self.writer is None:  # nothing at all: still an (empty) table with the standard columns
            empty = pa.table({name: pa.array([], pa.string()) for name in self.columns})
            pq.write_table(empty, self.temporary)
        else:
            self.writer.close()
        os.replace(self.temporary, self.path)

    def abandon(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if os.path.exists(self.temporary):
            os.remove(self.temporary)


def _widen(schema: Any) -> Any:
    """Columns typed by the first rows: null-typed ones become strings, integers int64, lists of int64."""
    import pyarrow as pa

    fields = []
    for field in schema:
        kind = field.type
        if pa.types.is_null(kind):
            kind = pa.string()
        elif pa.types.is_integer(kind):
            kind = pa.int64()
        elif pa.types.is_list(kind):
            kind = pa.list_(pa.int64())
        fields.append(pa.field(field.name, kind))
    return pa.schema(fields)


def _carry_over(old: str, writer: _TableWriter, keep: Callable[[dict[str, Any]], bool]) -> None:
    """Copy an earlier run's rows that this run did not redo into the new table."""
    import pyarrow.parquet as pq

    if not os.path.exists(old):
        return
    for batch in pq.ParquetFile(old).iter_batches(batch_size=10_000):
        writer.write([row for row in batch.to_pylist() if keep(row)])


def _client(scheduler: str | None, workers: int | None) -> Any:
    from distributed import Client, LocalCluster

    if scheduler:
        return Client(scheduler)
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster)


def _progress(done: int, total: int, unreadable: int, stream: Any) -> None:
    end = "\n" if done == total else "\r"
    if stream.isatty() or done == total:
        print(f"triage: {done:,}/{total:,} files, {unreadable:,} unreadable", end=end, file=stream, flush=True)


def run_triage(patterns: Sequence[str], out: str, scheduler: str | None = None,
               providers: Sequence[str] | None = None, policy: str = DEFAULT_POLICY, workers: int | None = None,
               batch_files: int = BATCH_FILES, progress: Any = sys.stderr) -> TriageResult:
    """Triage every transcript the patterns name into `out` (and its findings table); see the module docstring."""
    from distributed import as_completed

    started = time.perf_counter()
    chosen = list(providers or ())  # each file's target provider is always asked; these are asked beside it
    urls = expand_inputs(patterns)
    known = _known(out)
    tables = (_TableWriter(out, TRANSCRIPT_COLUMNS), _TableWriter(findings_path(out), FINDING_COLUMNS))
    redone: set[str] = set()
    counts = {"transcripts": 0, "skipped": 0, "unreadable": 0, "done": 0}
    try:
        with _client(scheduler, workers) as client:
            futures = [client.submit(triage_batch, batch, chosen, policy, {u: known[u] for u in batch if u in known},
                                     pure=False) for batch in _batches(urls, batch_files)]
            sizes = {future.key: len(batch) for future, batch in zip(futures, _batches(urls, batch_files),
                                                                     strict=True)}
            for future in as_completed(futures):
                rows, findings, skipped = future.result()
                _account(rows, skipped, counts, redone)
                tables[0].write(rows)
                tables[1].write(findings)
                counts["done"] += sizes[future.key]
                if progress is not None:
                    _progress(counts["done"], len(urls), counts["unreadable"], progress)
                future.release()
        _carry_over(out, tables[0], lambda row: row["path"] not in redone)
        _carry_over(findings_path(out), tables[1], lambda row: row["path"] not in redone)
        for table in tables:
            table.close()
    except BaseException:
        for table in tables:
            table.abandon()
        raise
    return TriageResult(len(urls), counts["transcripts"], counts["skipped"], counts["unreadable"],
                        time.perf_counter() - started, out, findings_path(out))


def _account(rows: Iterable[dict[str, Any]], skipped: int, counts: dict[str, int], redone: set[str]) -> None:
    for row in rows:
        redone.add(row["path"])
        if row.get("status") == "unreadable":
            counts["unreadable"] += 1
        else:
            counts["transcripts"] += 1
    counts["skipped"] += skipped
