"""The fast array reader (msgspec) reads exactly what the exact parser reads, or hands the file over.

`container._fast_array` is only allowed two answers: the exact parser's entries and
lines, or None (the exact parser then reads the file and names any problem).  These
tests feed both the same bytes: generated JSON in many layouts, the edge values JSON
readers disagree on, and nesting around MAX_DEPTH.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity.formats import container
from integrity.loading import TranscriptError


def exact(data: bytes) -> tuple[list[Any], list[int]] | TranscriptError:
    """What the exact parser makes of a file that is one array (entries and lines), or its error."""
    try:
        text = container.decode_text(data, "x.json")
        first = len(text) - len(text.lstrip())
        entries, lines, end = container._parse_array(text, first, container._line_starts(text), "x.json")
        if text[end:].strip():
            raise TranscriptError("x.json", "", "unexpected data after the array of messages")
    except TranscriptError as error:
        return error
    return entries, lines


def same_values(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (1 and 1.0 are not the same entry)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_values(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_values(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def check(data: bytes) -> None:
    fast = container._fast_array(data)
    slow = exact(data)
    if fast is None:
        return  # handed over: the exact parser decides, as before
    assert not isinstance(slow, TranscriptError), f"fast reader accepted what the exact parser refuses: {slow}"
    assert same_values(fast[0], slow[0])
    assert fast[1] == slow[1]


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(JSON_VALUES, max_size=8), st.sampled_from([None, 0, 1, 2, "\t"]), st.booleans(), st.booleans())
def test_generated_arrays_read_the_same(entries: list[Any], indent: Any, ascii_only: bool, bom: bool) -> None:
    text = json.dumps(entries, indent=indent, ensure_ascii=ascii_only)
    data = text.encode("utf-8")
    check((b"\xef\xbb\xbf" if bom else b"") + data)
    check(b"\n\n  " + data + b"\n")
    check(data.replace(b",", b" ,\n "))  # commas on lines of their own


@pytest.mark.parametrize("data", [
    b"[]", b" [ ] ", b"[1,2,3]", b"[1 , 2,\n3\n,4]", b"[NaN]", b"[Infinity]", b"[-Infinity]", b"[1e400]",
    b"[-1e400]", b"[1e-400]", b"[123456789012345678901234567890]", b"[1" + b"0" * 5000 + b"]",
    b'["\\ud800"]', b'["\\udc00x"]', b'["\xff"]', b'["a\nb"]', b'[{"a":1,"a":2}]', b"[1,]", b"[1] x", b"[1]\x0c",
    b"\x0c[1]", b'[{"k": [1, {"z": null}]}]', b"[-0, -0.0, 0.1, 1E+2, 5e-324, 2.2250738585072014e-308]",
    b"[\"\\u0000\", \"\\/\", \"\\\"\"]", b"\xef\xbb\xbf[1]", b"[1]\n[2]", b"[true, false, null]",
])
def test_edge_values_read_the_same(data: bytes) -> None:
    check(data)


@pytest.mark.parametrize("depth", range(195, 205))
def test_nesting_around_the_limit_reads_the_same(depth: int) -> None:
    check(b"[" + b"[" * depth + b"]" * depth + b"]")
    check(b'[{"a": ' + b"[" * depth + b"]" * depth + b"}, 1]")


def test_the_fast_reader_takes_plain_arrays() -> None:
    """It is not a fast path that never runs: a plain array of messages is read by it."""
    data = json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": []}], indent=2).encode()
    fast = container._fast_array(data)
    assert fast is not None and fast[1] == [2, 6]
    document = container.parse_document(data, "x.json")
    assert document.entries == fast[0] and document.lines == [2, 6] and document.container == "array"


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_absurd_nesting_is_handed_over(depth: int) -> None:
    """msgspec gives up on deep nesting with a RecursionError: the file goes to the exact parser."""
    data = b"[" + b"[" * depth + b"]" * depth + b"]"
    assert container._fast_array(data) is None
    assert isinstance(exact(data), TranscriptError)
