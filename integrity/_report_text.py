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


def report_text(report: Any, indent: bool = True) -> str:
    """The report as JSON: `json.dumps(report.model_dump(mode="json"), indent=2)` when indent, else
    one line (`separators=(",", ":")`), in both cases ASCII only; no trailing newline."""
    import msgspec

    try:
        compact = report.model_dump_json()
        return ascii_only(msgspec.json.format(compact, indent=2) if indent else compact)
    except (msgspec.DecodeError, UnicodeEncodeError):  # a lone surrogate
        data = report.model_dump(mode="json")
        return json.dumps(data, indent=2) if indent else json.dumps(data, separators=(",", ":"))


def in_array(text: str) -> str:
    """An indented report's text as an element of json.dumps's indented array (two more spaces a line)."""
    return "  " + text.replace("\n", "\n  ")
