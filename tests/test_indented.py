"""The general writer's indented JSON is json.dumps' own, byte for byte.

`formats.container.indented` writes a body compact with json's C encoder and indents that text with msgspec's
formatter, instead of `json.dumps(..., indent=2)` (whose indent sends it to the pure-Python encoder).  Every file a
user gets back from `repair` in a JSON format goes through it, so it must give the very bytes json.dumps gives, for
any value a reader hands the writer: every sample, real and recorded file, and random values with every kind of
character (control characters, U+2028, lone surrogates), number (huge integers, exponents, -0.0, NaN and the
infinities) and nesting.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from integrity.formats.container import indented, json_bytes, serialize

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [path for path in (ROOT / "sample_transcripts").iterdir() if path.suffix in (".json", ".jsonl")]
    + [path for path in (ROOT / "tests" / "real").iterdir() if path.suffix in (".json", ".jsonl")]
    + sorted((ROOT / "tests" / "recorded").glob("*.jsonl")))


def dumped(value: Any) -> bytes:
    """What the writer gave before: json.dumps' own indent."""
    return json_bytes(json.dumps(value, ensure_ascii=False, indent=2))


def values_of(path: Path) -> list[Any]:
    """The file's JSON values: the document, or each line of a JSON-lines file."""
    text = path.read_text(encoding="utf-8")
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        found = []
        for line in text.splitlines():
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError:  # (a torn or bad line, which some real files hold)
                continue
        return found


def test_the_corpus_is_there() -> None:
    assert len(FILES) > 100


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_every_file_is_indented_as_json_dumps_indents_it(path: Path) -> None:
    for value in values_of(path):
        assert indented(value) == dumped(value)


CHARACTERS = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())
TEXT = st.text(CHARACTERS, max_size=12) | st.sampled_from(["", "\u2028", "\x7f", "\ud800", "a\udfffb", '"\\/', "é😀"])
NUMBERS = st.integers() | st.integers(min_value=-(10 ** 40), max_value=10 ** 40) | st.floats() \
    | st.sampled_from([0.0, -0.0, 1e16, 1e-7, 1.5e300, 5e-324, math.inf, -math.inf, math.nan])
SCALARS = st.none() | st.booleans() | NUMBERS | TEXT
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                      max_leaves=30)


@settings(max_examples=3000, deadline=None)
@given(VALUES)
def test_any_value_is_indented_as_json_dumps_indents_it(value: Any) -> None:
    assert indented(value) == dumped(value)


@pytest.mark.parametrize("value", [math.nan, [math.inf], {"a": "\ud800"}, [[[[]]]], {}, [], "", 10 ** 30, -0.0],
                         ids=repr)
def test_the_edges(value: Any) -> None:
    """NaN and the infinities (msgspec's formatter refuses them: json.dumps indents them), a lone surrogate's
    escape, empty and nested containers."""
    assert indented(value) == dumped(value)


def test_a_deep_value_is_indented_too() -> None:
    deep: Any = "x"
    for _ in range(900):
        deep = [deep]
    assert indented(deep) == dumped(deep)


def test_a_body_is_written_with_its_last_newline() -> None:
    assert serialize({"messages": [1]}, "object") == b'{\n  "messages": [\n    1\n  ]\n}\n'
