"""A cheap upper bound on the keys written in JSON text, from its bytes alone.

Shared by the general reader (integrity.formats.duplicates) and the fast path (integrity._bulk.fast_read),
which compare it with the keys their parsed objects hold: fewer parsed keys than key tokens means a key
was lost (a duplicate).  Kept here, importing nothing of the project, so that the fast path never loads
the formats package.
"""

from __future__ import annotations

import re

_SPACED_COLON = re.compile(rb'"[ \t\r\n]+:')
_COLON_AFTER_SPACE = re.compile(rb":(?<=[ \t\r\n]:)")
"""A colon right after JSON whitespace: every spaced colon ends with one.  Searched first because its literal
first byte (a colon, rarer than a quote) lets the regex engine skip ahead: about twice as fast on a
compact file, where it finds nothing and _SPACED_COLON is never run."""


def key_tokens_rough(data: bytes) -> int | None:
    """The key tokens `":` in the JSON text, escaped ones too: never fewer than key_tokens_bound, and one scan
    less (None: a key spaced from its colon, see key_tokens_bound).  A reader that decoded this many keys
    has lost none (its keys <= the keys written <= key_tokens_bound <= this) without asking for the bound."""
    if _COLON_AFTER_SPACE.search(data) and _SPACED_COLON.search(data):
        return None
    return data.count(b'":')


def key_tokens_bound(data: bytes) -> int | None:
    """At least as many as the keys written in the JSON text (None: cannot bound it cheaply).

    A key ends with a closing quote right before its colon: `":`.  Inside a string a quote
    is escaped (`\\":`, not counted) unless the backslash is itself escaped (`\\\\":`, a key
    ending in a backslash: counted again).  A key spaced from its colon is not counted, so
    then there is no bound.
    """
    bound = key_tokens_rough(data)
    return None if bound is None else bound + escaped_key_tokens(data)


def escaped_key_tokens(data: bytes) -> int:
    """key_tokens_bound less key_tokens_rough (zero or less): the `":` whose quote is escaped, taken off.

    Those are `\\":` (an escaped quote before a colon: JSON text inside a string, say), less the `\\\\":` among
    them (a key ending in a backslash).  Every `\\\\":` holds a `\\":` one byte on, so the few there usually are
    are found in one pass and the byte before each is looked at, instead of a second pass counting `\\\\":`."""
    find = data.find
    at = find(b'\\":')
    seen = taken = 0
    while at >= 0:
        if seen == _FEW_ESCAPED:  # many (a file of JSON text in strings): two counts beat a Python step each
            return data.count(b'\\\\":') - data.count(b'\\":')
        seen += 1
        if at == 0 or data[at - 1] != _BACKSLASH:  # (an escaped backslash before it: a key, not taken off)
            taken += 1
        at = find(b'\\":', at + 3)
    return -taken


_FEW_ESCAPED = 64
"""Escaped quotes before a colon looked at one by one (escaped_key_tokens); past this, both are counted."""

_BACKSLASH = ord("\\")
