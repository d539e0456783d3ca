"""A repair report as JSON text, written the way `check --json` always wrote it, at C speed.

`check --json` prints `json.dumps(msgspec.to_builtins(report, str_keys=True), indent=2)`.  With
an indent, the standard library encodes in pure Python: 94 MB of report for a
200,000-message file took about 3 s.  Here msgspec encodes the report's records in C
(`msgspec.json.encode`), re-indents it (its layout is json.dumps's: two spaces,
`", "`-free line ends, `[]` and `{}` for empty containers) and every character json.dumps
would escape under ensure_ascii (non-ASCII and DEL) is escaped the same way, so the
text is the same, byte for byte (tests/test_fastpath_reports.py compares them).  Reports
hold no floats (whose spelling would differ); a lone surrogate, which msgspec does not
encode, takes the standard library's path.

A large report is written as pieces (`report_pieces`): text, or a value encoded but not yet
indented (`Compact`), which `finished` indents at its depth (integrity._bulk.pieces).  The indenting can then be done
by another process than the one making the records: one the writer starts (integrity._bulk.indent_process).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .._bulk.pieces import Compact, Piece, ascii_bytes, finished, without_brackets
from .._diagnosis import recorded_acceptance
from . import sections_of


def report_bytes(report: Any, indent: bool = True) -> bytes:
    """The report as JSON: `json.dumps(msgspec.to_builtins(report, str_keys=True), indent=2)` when indent, else
    one line (`separators=(",", ":")`), in both cases ASCII only; no trailing newline.

    Bytes all the way (encoded, re-indented, written): a 1,000,000-message report is 470 MB of
    text, and each str copy of it (decoded, concatenated, encoded again for the stream) was as much
    memory again.
    """
    return finished(_piece(report, indent, 0, False))


def report_chunks(report: Any, indent: bool = True) -> Iterator[bytes]:
    """report_bytes(report, indent), a piece at a time (report_pieces, finished here)."""
    return map(finished, report_pieces(report, indent))


def report_pieces(report: Any, indent: bool = True) -> Iterator[Piece]:
    """report_bytes(report, indent), a piece at a time, the indenting of its values left to `finished`.

    A report shell (integrity.report.report_shell) has its long sections made, encoded and
    handed out a chunk at a time (integrity.report.sections), so `check --json` never holds a
    whole report: its fields are encoded one by one, in the record's order, and the layout is the
    one report_bytes gives the whole (the same bytes: tests/test_report_stream.py).  Any other
    report is report_bytes in one piece.
    """
    sections = sections_of(report)
    if sections is None:
        yield _piece(report, indent, 0, False)
        return
    import msgspec

    accepted = recorded_acceptance(report)
    # One process makes all three long sections, one after another.  A forked child made the pairings and
    # the view while this process made the actions until the tenth session: about a quarter faster at a
    # million messages, but the pages both wrote were copied (2.06x the file in all, over check --json's
    # 2x; 1.53x-1.58x in one process).  The indenting may be left to the writer (cli._ReportWriter).
    long: dict[str, Callable[[], Iterator[Piece]]] = {
        "actions": lambda: _list(sections.actions(accepted), indent),
        "pairings": lambda: _list(sections.pairings(), indent),
        "view": lambda: _list(sections.view(accepted), indent)}
    fields = [(field.encode_name, getattr(report, field.name)) for field in msgspec.structs.fields(report)
              if field.default is msgspec.NODEFAULT or getattr(report, field.name) != field.default]  # omit_defaults
    end = b"\n" if indent else b""
    yield b"{" + end
    for number, (name, value) in enumerate(fields):
        key = json.dumps(name).encode()
        yield b"  " + key + b": " if indent else key + b":"
        if name in long:
            yield from long[name]()
        else:
            yield _piece(value, indent, 1, False)
        yield (b"," if number < len(fields) - 1 else b"") + end
    yield b"}"


def _list(chunks: Iterable[list[Any]], indent: bool) -> Iterator[Piece]:
    """A section's JSON array from its chunks, as the whole list would be written at depth 1."""
    yield b"["
    written = False
    for chunk in chunks:
        if not chunk:
            continue
        if written:
            yield b","
        yield _piece(chunk, indent, 1, True)
        written = True
    yield b"\n  ]" if written and indent else b"]"


def _piece(value: Any, indent: bool, depth: int, body: bool) -> Piece:
    """Any report record, or list of them (`body`: its items only), as report_bytes writes it at depth."""
    import msgspec

    try:
        encoded = msgspec.json.encode(value)
    except UnicodeEncodeError:  # a lone surrogate, which msgspec does not encode: json.dumps's path
        data = msgspec.to_builtins(value, str_keys=True)
        if indent:
            text = json.dumps(data, indent=2).replace("\n", "\n" + "  " * depth).encode("ascii")
            return without_brackets(text, depth) if body else text
        text = json.dumps(data, separators=(",", ":")).encode("ascii")
        return text[1:-1] if body else text
    if indent:
        return Compact(encoded, depth, body)
    return ascii_bytes(encoded[1:-1] if body else encoded)
