"""The triage tables on disk: their one fixed schema, an all-or-nothing writer, and what an earlier run left.

The durability promise (docs/triage.md): the file at --out is always either the
previous complete table or the new complete one.  Rows stream into
`TABLE.tmp-PID`, which is flushed to disk and renamed over the table only when
every row is in; a failure (a full disk, an interrupt) removes it, and a run
killed outright (kill -9) leaves one that the next run removes, since no live
process owns it.  The schema is declared here, before any row is written, so
no batch (one of unreadable files only, say) can fix a column's type for the
others.
"""

from __future__ import annotations

import errno
import operator
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from typing import Any

from ._triage_inputs import TriageError
from .kinds import summary_counts

_STRING, _INT, _BOOL, _INTS = "string", "int64", "bool", "list<int64>"
TRANSCRIPT_FIELDS: tuple[tuple[str, str], ...] = (
    ("path", _STRING), ("thread", _STRING), ("content_hash", _STRING), ("format", _STRING),
    ("messages", _INT), ("calls", _INT), *((field, _INT) for field, _ in summary_counts()),
    ("healthy", _BOOL), ("changed", _BOOL), ("status", _STRING), ("severity", _STRING), ("verdict", _STRING),
    ("target", _STRING), ("error", _STRING), ("missing", _BOOL), ("judged_by", _STRING),
    ("runtime_results", _INT),
)
"""Every transcript row's columns and types (every count of the kind registry: kinds.summary_counts),
then one string column '<provider> as recorded' and one
'<provider> after repair' per provider the table records.  `missing` is true on a row kept from an earlier
run whose file was not found by this one; `judged_by` says what judged the row (judged_by)."""
FINDING_FIELDS: tuple[tuple[str, str], ...] = (
    ("path", _STRING), ("thread", _STRING), ("content_hash", _STRING), ("source", _STRING), ("code", _STRING),
    ("severity", _STRING), ("provider", _STRING), ("position", _STRING), ("durable_indices", _INTS),
    ("call_id", _STRING), ("message", _STRING), ("missing", _BOOL),
)
"""Every finding row's columns and types (one row per finding or provider error)."""
RECORDED, AFTER = " as recorded", " after repair"
ROW_GROUP = 8192
"""Rows per row group of a table (the last one holds the rest)."""
BUFFERS_UP_TO = 500_000
"""Values a TableWriter converts by their buffers before it turns to pyarrow's conversion (arrow_table):
past about this many, the time pyarrow saves per value has paid for its import of pandas, so a table
never costs much more than the cheaper of the two would (about 0.2 s at most)."""
DEFAULTS: dict[str, Any] = {"missing": False}
"""The value of a column a row does not give (otherwise null)."""
_TEMPORARY = re.compile(r"\.tmp-(\d+)$")


def _arrow_type(name: str) -> Any:
    import pyarrow as pa

    return {_STRING: pa.string(), _INT: pa.int64(), _BOOL: pa.bool_(), _INTS: pa.list_(pa.int64())}[name]


def transcript_schema(providers: Iterable[str]) -> Any:
    """The transcript table's schema when it records these providers' verdicts."""
    import pyarrow as pa

    fields = [pa.field(name, _arrow_type(kind)) for name, kind in TRANSCRIPT_FIELDS]
    for provider in providers:
        fields += [pa.field(provider + RECORDED, pa.string()), pa.field(provider + AFTER, pa.string())]
    return pa.schema(fields)


def finding_schema() -> Any:
    """The findings table's schema."""
    import pyarrow as pa

    return pa.schema([pa.field(name, _arrow_type(kind)) for name, kind in FINDING_FIELDS])


def temporary_name(table: str, pid: int | None = None) -> str:
    """Where a run writes `table` before it is complete."""
    return f"{table}.tmp-{os.getpid() if pid is None else pid}"


def is_temporary_of(name: str, table: str) -> bool:
    """Whether `name` is a temporary of `table` (any process's)."""
    return name.startswith(table + ".tmp-") and _TEMPORARY.search(name) is not None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def remove_dead_temporaries(tables: Sequence[str]) -> list[str]:
    """Remove the temporaries of these tables left by processes that no longer run; their names.

    A live process's temporary is left alone: that run may still finish.
    """
    removed: list[str] = []
    for table in tables:
        folder = os.path.dirname(os.path.abspath(table))
        prefix = os.path.basename(table) + ".tmp-"
        for name in os.listdir(folder):
            match = _TEMPORARY.search(name)
            if name.startswith(prefix) and match and name[len(prefix):] == match.group(1) \
                    and not _alive(int(match.group(1))):
                try:
                    os.remove(os.path.join(folder, name))
                except FileNotFoundError:
                    continue  # another run removed it first
                removed.append(os.path.join(folder, name))
    return removed


def check_table(path: str, columns: Sequence[str], option: str = "--out") -> bool:
    """Whether a triage table is at `path` (False: nothing there); TriageError when something else is.

    Refuses a folder, a special file, a file that is not Parquet and a Parquet file without these columns:
    replacing any of them would destroy what the user keeps there.
    """
    import stat

    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise TriageError(f"{option} {path}: cannot use it: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise TriageError(f"{option} {path}: is a folder; give a file name such as {path.rstrip('/')}/fleet.parquet")
    if not stat.S_ISREG(info.st_mode):
        raise TriageError(f"{option} {path}: is not a regular file; refusing to replace it")
    import pyarrow.parquet as pq  # (only here: no table, no pyarrow before the workers have their files)

    try:
        names = pq.read_schema(path).names
    except Exception:  # pyarrow raises several types for a file that is not Parquet
        raise TriageError(f"{option} {path}: is not a Parquet file; refusing to replace it "
                          "(choose another --out)") from None
    absent = [name for name in columns if name not in names]
    if absent:
        raise TriageError(f"{option} {path}: is a Parquet file but not a triage table (no column "
                          f"{', '.join(absent)}); refusing to replace it")
    return True


def engine_fingerprint() -> str:
    """The first 12 hex digits of the SHA-256 of the engine's source (every .py file of this package).

    Any change to the engine may change a verdict, and a version number does not change with every
    commit; the source does.  About 150 small files: a few milliseconds, once per run.
    """
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def judged_by(policy: str, asked: Iterable[str]) -> str:
    """What judges a run's rows: `engine <fingerprint>, <policy>[, <asked providers>]`.

    A row is kept unjudged on a later run only when this is the same (known_hashes): a table written by
    another version of the engine, with another policy, or asking other providers beside each file's
    target would otherwise keep answers this run would not give (a provider's columns left empty, the
    other policy's repair).
    """
    providers = ",".join(sorted(set(asked)))
    return f"engine {engine_fingerprint()}, {policy}" + (f", {providers}" if providers else "")


def recorded_providers(table: str) -> list[str]:
    """The providers an existing transcript table records verdicts of (none when there is no table)."""
    if not os.path.exists(table):
        return []
    import pyarrow.parquet as pq

    return [name[: -len(RECORDED)] for name in pq.read_schema(table).names if name.endswith(RECORDED)]


def known_hashes(table: str, judge: str) -> tuple[dict[str, str], set[str]]:
    """path -> content hash of the files an earlier run triaged into this table as `judge` judges (readable ones
    only), and the paths of the other files it holds rows of, which something else judged (a table of a version
    before `judged_by`: all of them).  Only the first are skipped when unchanged; the others are judged again.
    """
    if not os.path.exists(table):
        return {}, set()
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(table).names
        columns = ["path", "content_hash", *(["judged_by"] if "judged_by" in names else [])]
        known = pq.read_table(table, columns=columns).to_pydict()
    except Exception as error:  # a damaged table: pyarrow raises several types
        raise _unreadable(table, error) from None
    judges = known.get("judged_by") or [None] * len(known["path"])
    same: dict[str, str] = {}
    other: set[str] = set()
    for path, digest, by in zip(known["path"], known["content_hash"], judges, strict=True):
        if digest and by == judge:
            same[path] = digest
        elif digest:
            other.add(path)
    return same, other - same.keys()


class TableWriter:
    """Streams rows of a fixed schema into the table's temporary; `close` puts it in place, `abandon` removes it.

    Rows are converted to Arrow as they come (while the workers still work, not all at the end) and held
    until ROW_GROUP of them are in, then written as one row group: one group per Dask batch was 126
    small groups for 2,000 files, each a header and statistics per column, and cutting at fixed counts
    makes the file's bytes depend on the rows alone, never on how they were batched.  Memory stays
    bounded (ROW_GROUP rows) however many rows; a row with a column the schema lacks is a bug and
    raises, a value of the wrong type pa.ArrowTypeError.  A write error (a full disk) becomes a
    TriageError naming the table, after the temporary is removed.
    """

    def __init__(self, path: str, schema: Any) -> None:
        import pyarrow.parquet as pq

        self.path = path
        self.schema = schema
        self.names = list(schema.names)
        self.temporary = temporary_name(path)
        self.handle: Any = None
        self.writer: Any = None
        self.held: list[Any] = []  # Arrow tables of the rows not yet written
        self.count = 0  # their rows
        self.values = 0  # values converted so far (arrow_table's choice)
        try:
            self.handle = open(self.temporary, "wb")  # noqa: SIM115 - closed by close or abandon
            self.writer = pq.ParquetWriter(self.handle, schema)
        except OSError as error:
            self._fail(error)

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        """Add rows (in the table's order); whole row groups go to the temporary as they fill."""
        if not rows:
            return
        known = set(self.names)
        for row in rows:
            extra = set(row) - known
            if extra:
                raise ValueError(f"a triage row has columns the schema lacks: {sorted(extra)}")
        self.values += len(rows) * len(self.names)
        self.held.append(arrow_table(rows, self.schema, by_pyarrow=self.values > BUFFERS_UP_TO))
        self.count += len(rows)
        while self.count >= ROW_GROUP:
            self._write_group(ROW_GROUP)

    def _write_group(self, size: int) -> None:
        """Write the first `size` rows held as one row group."""
        import pyarrow as pa

        held = pa.concat_tables(self.held)
        rest = held.slice(size)
        self.held, self.count = ([rest] if rest.num_rows else []), rest.num_rows
        try:
            self.writer.write_table(held.slice(0, size))
        except OSError as error:
            self._fail(error)

    def finish(self) -> None:
        """Write the rows still held, finish the temporary and flush it to disk (it is not yet the table)."""
        if self.count:
            self._write_group(self.count)
        try:
            self.writer.close()
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()
        except OSError as error:
            self._fail(error)

    def close(self) -> None:
        """Finish the temporary (unless done) and rename it over the table."""
        if not self.handle.closed:
            self.finish()
        try:
            os.replace(self.temporary, self.path)
        except OSError as error:
            self._fail(error)
        _sync_folder(self.path)

    def abandon(self) -> None:
        """Remove the temporary; never raises (it runs while another error is on its way)."""
        for step in (getattr(self.writer, "close", None), getattr(self.handle, "close", None)):
            if step is not None:
                try:
                    step()
                except Exception:  # noqa: S110 - the writer of a full disk fails to close; the file goes anyway
                    pass
        if self.writer is not None:
            self.writer.is_open = False  # else its finalizer tries again, and prints the failure at exit
        try:
            os.remove(self.temporary)
        except OSError:
            pass

    def _fail(self, error: OSError) -> None:
        self.abandon()
        raise TriageError(f"--out {self.path}: cannot write: {error.strerror or error}; "
                          "the table is unchanged and nothing was left behind") from None


def arrow_table(rows: Sequence[dict[str, Any]], schema: Any, by_pyarrow: bool = False) -> Any:
    """The rows as an Arrow table of the schema (a column a row does not give: DEFAULTS, else null).

    Built from the columns' buffers (_array), the same table `pa.Table.from_pydict` builds: pyarrow's
    own conversion of Python values (`pa.array`) imports pandas first, a fifth of a second of the
    calling process at the end of a run, for a table with no pandas in it.  It is 3-4 times faster per
    value once pandas is in, so `by_pyarrow` (TableWriter, past BUFFERS_UP_TO values) uses it.  A value
    of the wrong type (an earlier table's row that does not fit) raises pa.ArrowTypeError either way.
    """
    import pyarrow as pa

    columns = {field.name: [row.get(field.name, DEFAULTS.get(field.name)) for row in rows] for field in schema}

    def table() -> Any:
        if by_pyarrow:
            return pa.Table.from_pydict(columns, schema=schema)
        return pa.Table.from_arrays([_array(columns[field.name], field.type) for field in schema], schema=schema)

    try:
        return table()
    except UnicodeEncodeError:  # a lone surrogate: in a file's name that is no UTF-8, or an id read from `\udXXX`
        columns = {name: _escaped(values) for name, values in columns.items()}
        return table()


def _escaped(values: list[Any]) -> list[Any]:
    """A column's values with each lone surrogate of their text written as `\\udXXX`, as the CLI prints a file's
    name or an id (loading.one_line, which also escapes control characters: a table keeps those): Parquet and
    Arrow hold UTF-8 only."""

    def escape(value: Any) -> Any:
        if isinstance(value, str):
            try:
                value.encode()
            except UnicodeEncodeError:
                return value.encode("utf-8", "backslashreplace").decode("utf-8")
            return value
        if isinstance(value, list):
            return [escape(item) for item in value]
        return value

    return [escape(value) for value in values]


def _array(values: list[Any], kind: Any) -> Any:
    """One column's Arrow array, from its buffers (validity bitmap, offsets, values: Arrow's layouts).

    Each step is one pass in C (map, join, count, array) rather than a Python loop per value: the
    findings of `--provider all` over 2,000 files are half a million rows.
    """
    from array import array
    from itertools import accumulate, chain

    import pyarrow as pa

    nulls = values.count(None)
    types = set(map(type, values)) - {type(None)}
    validity = pa.py_buffer(_bits(map(operator.is_not, values, repeat(None)))) if nulls else None
    present = [value for value in values if value is not None] if nulls else values
    if pa.types.is_string(kind):
        _require(types, str, kind, present)
        text = "".join(present).encode()
        if len(text) == sum(map(len, present)):  # all ASCII: a character is a byte
            lengths = map(len, values) if not nulls else (0 if value is None else len(value) for value in values)
        else:
            lengths = (0 if value is None else len(value.encode()) for value in values)
        offsets = array("i", accumulate(lengths, initial=0))  # (a row group's text is under 2 GB)
        return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(offsets), pa.py_buffer(text)],
                                     null_count=nulls)
    if pa.types.is_int64(kind):
        _require(types, int, kind, present)
        numbers = array("q", values if not nulls else [0 if value is None else value for value in values])
        return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(numbers)], null_count=nulls)
    if pa.types.is_boolean(kind):
        _require(types, bool, kind, present)
        truths = _bits(map(operator.is_, values, repeat(True)))
        return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(truths)], null_count=nulls)
    if pa.types.is_list(kind):
        _require(types, list, kind, present)
        offsets = array("i", accumulate(map(len, values) if not nulls else
                                        (0 if value is None else len(value) for value in values), initial=0))
        child = _array(list(chain.from_iterable(present)), kind.value_type)
        return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(offsets)], null_count=nulls,
                                     children=[child])
    raise TypeError(f"no Arrow layout for a triage column of type {kind}")  # a new column type needs one here


def _require(types: set[type], kind: type, arrow: Any, values: list[Any]) -> None:
    """pa.ArrowTypeError unless every value is exactly of this type (True is an int to Python, not to Arrow)."""
    import pyarrow as pa

    if types - {kind}:
        wrong = next(value for value in values if type(value) is not kind)
        raise pa.ArrowTypeError(f"expected {arrow}, got a {type(wrong).__name__} ({str(wrong)[:40]!r})")


_BIT_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def _bits(flags: Iterable[bool]) -> bytes:
    """Arrow's bitmap of the flags: bit i (least significant first) of byte i // 8 is flag i."""
    digits = bytes(flags)[::-1].translate(_BIT_DIGITS)  # the last flag first: the number's highest bit
    return int(digits or b"0", 2).to_bytes((len(digits) + 7) // 8, "little")


def _sync_folder(path: str) -> None:
    """Make the rename itself durable (where the platform allows opening a folder)."""
    try:
        folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(folder)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(folder)


def carry_over(old: str, writer: TableWriter, decide: Callable[[str], bool | None]) -> None:
    """Copy an earlier run's rows into the new table: decide(path) is None to drop a row, else its `missing`.

    Columns the new schema does not have are left out; a value that does not fit its column means the
    file was not written by triage, and is refused rather than dropped.
    """
    import pyarrow as pa

    if not os.path.exists(old):
        return
    keep = set(writer.names)
    batches = _batches(old)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            break
        except Exception as error:  # a damaged table (pyarrow raises several types): the run stops, unchanged
            raise _unreadable(old, error) from None
        rows = []
        for row in batch:
            if not isinstance(row["path"], str):
                raise TriageError(f"--out {old}: a row without a path is not a triage table's; refusing to "
                                  "replace it (choose another --out)")
            missing = decide(row["path"])
            if missing is not None:
                rows.append({**{name: value for name, value in row.items() if name in keep}, "missing": missing})
        try:
            writer.write(rows)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
            raise TriageError(f"--out {old}: its rows do not fit a triage table ({str(error)[:200]}); "
                              "refusing to replace it (choose another --out)") from None


def _batches(table: str) -> Iterator[list[dict[str, Any]]]:
    """The table's rows, 10,000 at a time (constant memory)."""
    import pyarrow.parquet as pq

    for batch in pq.ParquetFile(table).iter_batches(batch_size=10_000):
        yield batch.to_pylist()


def _unreadable(table: str, error: Exception) -> TriageError:
    detail = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
    return TriageError(f"--out {table}: cannot read the earlier table ({detail}); refusing to replace it "
                       "(move it away or choose another --out)")
