"""The fast reader (msgspec) reads exactly what the exact parser reads, or hands the file over.

`container._fast_document` is only allowed two answers: the Document the exact
parser makes of the same bytes (entries, lines, container, key, envelope), or None
(the exact parser then reads the file and names any problem).  These tests feed
both the same bytes: generated arrays, request envelopes and JSONL in many layouts,
the edge values JSON readers disagree on, and nesting around MAX_DEPTH.
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


def exact(data: bytes, monkeypatch: pytest.MonkeyPatch) -> container.Document | TranscriptError:
    """What the exact parser makes of the file (the fast reader switched off), or its error."""
    with monkeypatch.context() as patch:
        patch.setattr(container, "_fast_document", lambda data: None)
        try:
            return container.parse_document(data, "x.json")
        except TranscriptError as error:
            return error


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


def check(data: bytes, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Both readers agree (or the fast one hands over); True when the fast reader took the file."""
    if container._fast_document(data) is None:
        return False  # handed over: the exact parser decides, as before
    fast = container.parse_document(data, "x.json")  # the fast reader, then what parse_document adds (notes)
    slow = exact(data, monkeypatch)
    assert not isinstance(slow, TranscriptError), f"fast reader accepted what the exact parser refuses: {slow}"
    assert (fast.container, fast.key, fast.lines, fast.notes) == (slow.container, slow.key, slow.lines, slow.notes)
    assert same_values(fast.entries, slow.entries)
    assert same_values(fast.envelope, slow.envelope)
    assert same_values(fast.whole, slow.whole)
    return True


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=20,
)
ENTRIES = st.lists(st.one_of(JSON_VALUES, st.dictionaries(st.sampled_from(["role", "content", "type"]), JSON_VALUES,
                                                          max_size=3)), max_size=8)
LAYOUTS = st.sampled_from([None, 0, 1, 2, "\t"])
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@SETTINGS
@given(ENTRIES, LAYOUTS, st.booleans(), st.booleans())
def test_generated_arrays_read_the_same(monkeypatch: pytest.MonkeyPatch, entries: list[Any], indent: Any,
                                        ascii_only: bool, bom: bool) -> None:
    data = json.dumps(entries, indent=indent, ensure_ascii=ascii_only).encode("utf-8")
    check((b"\xef\xbb\xbf" if bom else b"") + data, monkeypatch)
    check(b"\n\n  " + data + b"\n", monkeypatch)
    check(data.replace(b",", b" ,\n "), monkeypatch)  # commas on lines of their own


@SETTINGS
@given(ENTRIES, st.sampled_from(list(container.LIST_KEYS) + ["other"]),
       st.dictionaries(st.sampled_from(["model", "system", "tools", "messages", "input", "meta", "k\\\"ey"]),
                       JSON_VALUES, max_size=3),
       LAYOUTS, st.booleans())
def test_generated_envelopes_read_the_same(monkeypatch: pytest.MonkeyPatch, entries: list[Any], key: str,
                                           others: dict[str, Any], indent: Any, key_first: bool) -> None:
    head, _, rest = key.partition(".")
    value: Any = {rest: entries} if rest else entries
    envelope = {head: value, **others} if key_first else {**others, head: value}
    check(json.dumps(envelope, indent=indent).encode(), monkeypatch)


@SETTINGS
@given(st.lists(st.one_of(JSON_VALUES, st.just("")), min_size=1, max_size=6), st.booleans())
def test_generated_jsonl_reads_the_same(monkeypatch: pytest.MonkeyPatch, values: list[Any], crlf: bool) -> None:
    lines = ["" if value == "" else json.dumps(value) for value in values]
    data = ("\r\n" if crlf else "\n").join(lines).encode()
    check(data, monkeypatch)
    check(data + b"\n\n", monkeypatch)


@pytest.mark.parametrize("data", [
    b"[]", b" [ ] ", b"[1,2,3]", b"[1 , 2,\n3\n,4]", b"[NaN]", b"[Infinity]", b"[-Infinity]", b"[1e400]",
    b"[-1e400]", b"[1e-400]", b"[123456789012345678901234567890]", b"[1" + b"0" * 5000 + b"]",
    b'["\\ud800"]', b'["\\udc00x"]', b'["\xff"]', b'["a\nb"]', b'[{"a":1,"a":2}]', b"[1,]", b"[1] x", b"[1]\x0c",
    b"\x0c[1]", b'[{"k": [1, {"z": null}]}]', b"[-0, -0.0, 0.1, 1E+2, 5e-324, 2.2250738585072014e-308]",
    b"[\"\\u0000\", \"\\/\", \"\\\"\"]", b"\xef\xbb\xbf[1]", b"[1]\n[2]", b"[true, false, null]",
    b'{"messages": [1, 2], "messages": [3]}', b'{"messages": [1], "model": "x", "model": "y"}',
    b'{"meta": {"messages": [9]}, "messages": [1,\n 2]}', b'{"messages": "no", "input": [\n1]}',
    b'{"values": {"messages": [{"role": "user"}]}}', b'{"a": 1}', b'{"a": 1}\n{"b": 2}\n', b'{"a": 1}\n{"b": ',
    b'{"a": 1}\n\x0c\n{"b": 2}', b'{"a": 1}\n\xc2\xa0\n{"b": 2}', b'{"a": NaN}\n{"b": 2}', b'{"m\\u0065ssages": [1]}',
    b'{"messages" :\n[ 1 ,\n2 ] }', b'{"messages": [1]} x', b'{"x": "\\"messages\\": [", "messages": [2]}',
])
def test_edge_values_read_the_same(data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    check(data, monkeypatch)


@pytest.mark.parametrize("depth", range(195, 205))
def test_nesting_around_the_limit_reads_the_same(depth: int, monkeypatch: pytest.MonkeyPatch) -> None:
    nest = b"[" * depth + b"]" * depth
    for data in (b"[" + nest + b"]", b'[{"a": ' + nest + b"}, 1]", b'{"messages": [' + nest + b"]}",
                 b'{"other": ' + nest + b', "messages": [1]}', b'{"a": ' + nest + b"}\n{}"):
        check(data, monkeypatch)


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_absurd_nesting_is_handed_over(depth: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """msgspec gives up on deep nesting with a RecursionError: the file goes to the exact parser."""
    data = b"[" + b"[" * depth + b"]" * depth + b"]"
    assert container._fast_document(data) is None
    assert isinstance(exact(data, monkeypatch), TranscriptError)


def test_the_fast_reader_takes_the_usual_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a fast path that never runs: arrays, request envelopes and JSONL are read by it."""
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": []}]
    array = json.dumps(messages, indent=2).encode()
    envelope = json.dumps({"model": "m", "messages": messages, "max_tokens": 5}, indent=1).encode()
    jsonl = b"\n".join(json.dumps(m).encode() for m in messages) + b"\n"
    for data, lines in ((array, [2, 6]), (envelope, [4, 8]), (jsonl, [1, 2])):
        assert check(data, monkeypatch)
        assert container._fast_document(data).lines == lines  # type: ignore[union-attr]
