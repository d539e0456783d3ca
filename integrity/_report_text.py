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
    import msgspec

    try:
        encoded = msgspec.json.encode(report)
        if indent:
            encoded = msgspec.json.format(encoded, indent=2)
    except (msgspec.DecodeError, UnicodeEncodeError):  # a lone surrogate
        data = report.model_dump(mode="json")
        text = json.dumps(data, indent=2) if indent else json.dumps(data, separators=(",", ":"))
        return text.encode("ascii")
    if encoded.isascii() and b"\x7f" not in encoded:
        return encoded
    return ascii_only(encoded.decode("utf-8")).encode("ascii")



def in_array(text: bytes) -> bytes:
    """An indented report as an element of json.dumps's indented array (two more spaces a line)."""
    return b"  " + text.replace(b"\n", b"\n  ")
