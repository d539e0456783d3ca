"""A repair report as JSON text, written the way `check --json` always wrote it, at C speed.

`check --json` prints `json.dumps(report.model_dump(mode="json"), indent=2)`.  With
an indent, the standard library encodes in pure Python: 94 MB of report for a
200,000-message file took about 3 s.  Here msgspec encodes the report's records in C
(`model_dump_json`), re-indents it (its layout is json.dumps's: two spaces,
`", "`-free line ends, `[]` and `{}` for empty containers) and every character json.dumps
would escape under ensure_ascii (non-ASCII and DEL) is escaped the same way, so the
text is the same, byte for byte (tests/test_fastpath_reports.py compares them).  Reports
hold no floats (whose spelling would differ); a lone surrogate, which msgspec does not
encode, takes the standard library's path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

_NEEDS_ESCAPE = re.compile("[^\x00-\x7e]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair, as json.dumps writes it
    return f"\\u{0xd800 | (code >> 10):04x}\\u{0xdc00 | (code & 0x3ff):04x}"


def ascii_only(text: str) -> str:
    """JSON text with every non-ASCII character (and DEL) escaped, as json.dumps(ensure_ascii=True) has it.

    Outside strings JSON text is ASCII, so escaping in place changes only string contents.
    """
    if text.isascii() and "\x7f" not in text:
        return text
    return _NEEDS_ESCAPE.sub(_escape, text)


def report_bytes(report: Any, indent: bool = True) -> bytes:
    """The report as JSON: `json.dumps(report.model_dump(mode="json"), indent=2)` when indent, else
    one line (`separators=(",", ":")`), in both cases ASCII only; no trailing newline.

    Bytes all the way (encoded, re-indented, written): a 1,000,000-message report is 470 MB of
    text, and each str copy of it (decoded, concatenated, encoded again for the stream) was as much
    memory again.
    """
    return _encoded(report, indent)


def in_array(text: bytes) -> bytes:
    """An indented report as an element of json.dumps's indented array (two more spaces a line)."""
    return b"  " + text.replace(b"\n", b"\n  ")


def report_chunks(report: Any, indent: bool = True) -> Iterator[bytes]:
    """report_bytes(report, indent), a piece at a time.

    A report shell (integrity.report.report_shell) has its long sections made, encoded and
    handed out a chunk at a time (integrity._report_sections), so `check --json` never holds a
    whole report: its fields are encoded one by one, in the record's order, and the layout is the
    one report_bytes gives the whole (the same bytes: tests/test_report_stream.py).  Any other
    report is report_bytes in one piece.
    """
    from ._diagnosis import recorded_acceptance
    from .report import sections_of

    sections = sections_of(report)
    if sections is None:
        yield report_bytes(report, indent)
        return
    import msgspec

    accepted = recorded_acceptance(report)
    long: dict[str, Iterator[list[Any]]] = {
        "actions": sections.actions(accepted), "pairings": sections.pairings(), "view": sections.view(accepted)}
    fields = [(field.encode_name, getattr(report, field.name)) for field in msgspec.structs.fields(report)
              if field.default is msgspec.NODEFAULT or getattr(report, field.name) != field.default]  # omit_defaults
    end = b"\n" if indent else b""
    yield b"{" + end
    for number, (name, value) in enumerate(fields):
        key = json.dumps(name).encode()
        head = b"  " + key + b": " if indent else key + b":"
        after = (b"," if number < len(fields) - 1 else b"") + end
        if name in long:
            yield head
            yield from _list(long[name], indent)
            yield after
        else:
            yield head + _shifted(_encoded(value, indent), indent) + after
    yield b"}"


def _list(chunks: Iterable[list[Any]], indent: bool) -> Iterator[bytes]:
    """A section's JSON array from its chunks, as the whole list would be written at depth 1."""
    yield b"["
    written = False
    for chunk in chunks:
        if not chunk:
            continue
        body = _shifted(_encoded(chunk, indent), indent)[1:-4 if indent else -1]  # without [ and (\n  )]
        yield b"," + body if written else body
        written = True
    yield b"\n  ]" if written and indent else b"]"


def _shifted(text: bytes, indent: bool) -> bytes:
    """An indented value written one level deeper (a field of the report)."""
    return text.replace(b"\n", b"\n  ") if indent else text


def _encoded(value: Any, indent: bool) -> bytes:
    """Any report record, or list of them, as report_bytes writes a report (indented from depth 0, ASCII only)."""
    import msgspec

    try:
        encoded = msgspec.json.encode(value)
        if indent:
            encoded = msgspec.json.format(encoded, indent=2)
    except (msgspec.DecodeError, UnicodeEncodeError):  # a lone surrogate: json.dumps's path, as report_bytes
        from ._records import _python

        data = _python(value, True)
        text = json.dumps(data, indent=2) if indent else json.dumps(data, separators=(",", ":"))
        return text.encode("ascii")
    if encoded.isascii() and b"\x7f" not in encoded:
        return encoded
    return ascii_only(encoded.decode("utf-8")).encode("ascii")

