"""Typed records for the report and the verdict: msgspec structs, used through msgspec's own API.

One model system, msgspec, and no pydantic look-alike methods.  `check` builds a
diagnosis and every provider's violations for each file, and `check --json` a
report of about two entries per message.  As pydantic models, importing pydantic
and building their schemas was most of `check`'s start-up (0.17-0.21 s against
0.07 s for `repair`), and validating and serializing a 200,000-message report took
about 1.2 s of `check --json`'s 3.95 s (2.75 s as structs; same bytes).  msgspec
already reads the files; its structs are typed, validated from JSON data, encoded
in C and small in memory (no per-object dict).

So a record is written, read and copied with msgspec's functions:
`msgspec.json.encode(record)` (JSON bytes), `msgspec.to_builtins(record, str_keys=True)`
(plain JSON data), `msgspec.convert(data, Type, strict=False)` (a record from JSON
data; a stored report: integrity.report.read_report, which reads older shapes too),
`Type.__struct_fields__` (its field names).  Two helpers here cover what msgspec
leaves out: `replace` keeps the side data a report or diagnosis carries beside its
fields, and `json_text` writes a lone surrogate (which msgspec refuses to encode)
the way json.dumps does.

Serialization rules are declarative: a record class with `omit_defaults=True` leaves
out fields equal to their default (the optional fields older reports lacked), and
fields that must always appear have no default (integrity.report.read_report fills
them in for older input).  So the C encoder alone writes a report, byte for byte as before.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import msgspec

S = TypeVar("S", bound=msgspec.Struct)


def replace(record: S, **changes: Any) -> S:
    """A copy of a record with some fields changed (not validated), keeping its side data.

    A report shell's sections and a diagnosis's reasons live in the record's `__dict__`
    (classes with `dict=True`): beside the fields, so never encoded.  msgspec.structs.replace
    copies only the fields; the pipeline renames and re-rates these records, and the copy must
    still write (or rate) itself as the original would.
    """
    copy = msgspec.structs.replace(record, **changes)
    side = getattr(record, "__dict__", None)
    if side:
        copy.__dict__.update(side)
    return copy


def json_text(record: Any, indent: int = 0) -> str:
    """A record (or list of them) as JSON text, indented as json.dumps(indent=...) would, non-ASCII as is.

    The same text as `json.dumps(msgspec.to_builtins(record, str_keys=True), indent=indent,
    ensure_ascii=False)`, encoded in C; a lone surrogate (read from a \\udXXX escape in a
    transcript), which msgspec refuses to encode, takes that standard-library path instead,
    so the text then holds the surrogate (integrity.formats.container.json_bytes escapes it).
    """
    try:
        encoded = msgspec.json.encode(record)
    except UnicodeEncodeError:
        data = msgspec.to_builtins(record, str_keys=True)
        return json.dumps(data, indent=indent or None, ensure_ascii=False,
                          separators=None if indent else (",", ":"))
    return (msgspec.json.format(encoded, indent=indent) if indent else encoded).decode()


def invalid_where(error: ValueError) -> tuple[str, str]:
    """(where, what) of a validation error: msgspec writes "Expected `int`, got `str` - at `$.summary.messages`";
    this gives ("summary.messages", "Expected `int`, got `str`"), or ("top level", ...) without a path."""
    text = str(error)
    what, separator, where = text.rpartition(" - at `$")
    if not separator or not where.endswith("`"):
        return "top level", text
    return where[:-1].lstrip(".") or "top level", what


class Record(msgspec.Struct, kw_only=True):
    """A typed record (mutable: a report fills in what an older one lacks after validation)."""


class FrozenRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A typed, frozen record."""
