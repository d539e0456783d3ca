"""The triage tables' writer: rows built into Arrow from their buffers are pyarrow's own conversion, value
for value; row groups are cut at fixed counts whatever the batches; and writing a table never imports
pandas (pyarrow's conversion does, a fifth of a second of every run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from integrity import PROVIDERS, _triage_table
from integrity._triage_table import DEFAULTS, TableWriter, arrow_table, finding_schema, transcript_schema
from integrity.triage import triage_file

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from generate import messages  # noqa: E402

SAMPLES = sorted((ROOT / "sample_transcripts").glob("*.json*")) + sorted((ROOT / "tests" / "real").glob("*.json*"))
ODD = [  # what no sample gives: every kind of value a column can hold, and columns left out
    {"path": "é/😀.json", "thread": "", "content_hash": "", "status": "unreadable", "error": "ä\nb\x00c"},
    {"path": "p", "messages": 0, "calls": 2**62, "healthy": False, "changed": True, "missing": True},
    {"path": "q", "healthy": None, "error": None},
]
FINDINGS_ODD = [
    {"path": "p", "durable_indices": [], "message": ""},
    {"path": "q", "durable_indices": [0, 2**40, -1], "position": "ü", "missing": None},
]


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("rows")
    paths = list(SAMPLES)
    for seed in (1, 2):
        path = folder / f"generated-{seed}.json"
        path.write_text(json.dumps(list(messages(300, seed=seed, defect_rate=0.2))))
        paths.append(path)
    transcripts: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    for path in paths:
        result = triage_file(str(path), list(PROVIDERS), "strict")
        assert result is not None
        transcripts += result[0]
        findings += result[1]
    assert len(findings) > 100
    return transcripts + ODD, findings + FINDINGS_ODD


def _by_pyarrow(rows: list[dict[str, Any]], schema: Any) -> Any:
    return pa.Table.from_pydict({name: [row.get(name, DEFAULTS.get(name)) for row in rows] for name in schema.names},
                                schema=schema)


def test_tables_built_from_buffers_are_pyarrows_own(rows: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    transcripts, findings = rows
    for table_rows, schema in ((transcripts, transcript_schema(PROVIDERS)), (findings, finding_schema())):
        built = arrow_table(table_rows, schema)
        built.validate(full=True)
        assert built.equals(_by_pyarrow(table_rows, schema))
        assert arrow_table(table_rows, schema, by_pyarrow=True).equals(built)
        assert built.to_pylist()[-1]["path"] == table_rows[-1]["path"]


@pytest.mark.parametrize(("column", "value"), [("messages", "3"), ("messages", True), ("healthy", 1),
                                                ("path", 7), ("path", b"p"), ("error", ["x"])])
def test_a_value_of_the_wrong_type_is_refused(column: str, value: Any) -> None:
    """pa.ArrowTypeError (carry_over's one-line refusal of an earlier table whose rows do not fit), where
    pyarrow raises ArrowInvalid or ArrowTypeError; bytes too, which pyarrow would take as text."""
    with pytest.raises(pa.ArrowTypeError):
        arrow_table([{"path": "p"}, {"path": "q", column: value}], transcript_schema(PROVIDERS))


def test_row_groups_are_cut_at_fixed_counts_however_the_rows_come(
        rows: tuple[list[dict[str, Any]], list[dict[str, Any]]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_triage_table, "ROW_GROUP", 16)
    transcripts = rows[0]
    written = []
    for step in (1, 7, 50, len(transcripts)):
        path = tmp_path / f"t{step}.parquet"
        writer = TableWriter(str(path), transcript_schema(PROVIDERS))
        for start in range(0, len(transcripts), step):
            writer.write(transcripts[start:start + step])
        writer.close()
        written.append(path.read_bytes())
        groups = [pq.ParquetFile(path).metadata.row_group(i).num_rows
                  for i in range(pq.ParquetFile(path).metadata.num_row_groups)]
        assert groups == [16] * (len(transcripts) // 16) + ([len(transcripts) % 16] if len(transcripts) % 16 else [])
    assert all(data == written[0] for data in written)
    assert pq.read_table(tmp_path / "t1.parquet").equals(_by_pyarrow(transcripts, transcript_schema(PROVIDERS)))


WRITE = """
import sys
from integrity import PROVIDERS
from integrity._triage_table import TableWriter, transcript_schema
writer = TableWriter(sys.argv[1], transcript_schema(PROVIDERS))
writer.write([{"path": "p", "messages": 3, "healthy": True, "error": None}])
writer.close()
print("pandas" in sys.modules)
"""


def test_writing_a_table_never_imports_pandas(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", WRITE, str(tmp_path / "t.parquet")], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
    assert pq.read_table(tmp_path / "t.parquet").to_pylist()[0]["messages"] == 3


def test_the_docs_name_every_column_of_the_transcript_table() -> None:
    """docs/triage.md's table of columns is how a user reads a triage table: a column the schema gained (a count
    of a new kind, runtime_results) and the docs did not is a column nobody can read."""
    import re

    from integrity._triage_table import TRANSCRIPT_FIELDS

    docs = (ROOT / "docs" / "triage.md").read_text(encoding="utf-8")
    section = docs[docs.index("Transcript table (`TABLE.parquet`)"):docs.index("Findings table")]
    named = set(re.findall(r"[a-z][a-z_]+", section))
    assert [name for name, _ in TRANSCRIPT_FIELDS if name not in named] == []
