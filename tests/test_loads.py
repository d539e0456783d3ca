"""container.loads (the JSON inside strings: tool arguments) reads what the exact parser reads, and refuses what it
refuses with the same error: msgspec reads it first and the exact parser decides whatever msgspec refuses."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from integrity.formats.container import _DECODER, MAX_DEPTH, loads

EDGES = [
    '{"a":1,"a":2}', '"\\ud800"', '"\ud800"', '"\\udc00\\ud800"', '"\\ud83d\\ude00"', '{"\\ud83d\\ude00":1}',
    "1e400", "-1e400", "2.5e308", "1.7976931348623157e308", "4.9e-324", "1.5e-400", "NaN", "-Infinity",
    "9" * 4300, "9" * 4301, "-" + "9" * 30, "-0", "-0.0", "0.1", "1E5", "123456789012345678901234567890.5",
    "[1,2", '{"a":1} x', ' {"a":1} ', '{"a":1}\n', '"\x01"', '"\\u0000"', "", " ", "true", '"\\/"', "[1,]", "01",
    '"é"', "\ufeff{}", "[" * MAX_DEPTH + "]" * MAX_DEPTH, "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    '{"k":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1), '"' + "[" * 500 + '"', '{"a": [1, {"b": null}], "c": ""}',
]


def outcome(read: Any, text: str) -> tuple[str, Any]:
    """What one reading gives: the value (repr, so -0.0, 1 and 1.0 and key order count) or the error said."""
    try:
        value = read(text)
    except ValueError as error:
        return "error", (type(error).__name__, str(error))
    return "value", (repr(value), _types(value))


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_types(item) for item in value]
    return type(value).__name__


@pytest.mark.parametrize("text", EDGES, ids=range(len(EDGES)))
def test_an_edge_reads_as_the_exact_parser_reads_it(text: str) -> None:
    assert outcome(loads, text) == outcome(_DECODER.decode, text)


def _value(chance: random.Random, depth: int = 0) -> Any:
    kind = chance.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return chance.choice([None, True, False])
    if kind == 1:
        return chance.randint(-(2 ** 70), 2 ** 70)
    if kind == 2:
        return chance.choice([chance.uniform(-1e6, 1e6), chance.random() * 10 ** chance.randint(-320, 308), -0.0])
    if kind in (3, 4, 5):
        return "".join(chance.choice("ab \"\\/\n\t\x00é😀\u2028\ud800") for _ in range(chance.randrange(8)))
    if kind in (6, 7):
        return [_value(chance, depth + 1) for _ in range(chance.randrange(4))]
    return {_value(chance, 9) if chance.random() < 0.5 else "k": _value(chance, depth + 1)
            for _ in range(chance.randrange(4))}


def test_random_texts_and_their_mutations_read_as_the_exact_parser_reads_them() -> None:
    chance = random.Random(28)
    for _ in range(3000):
        value = _value(chance)
        text = json.dumps(value, ensure_ascii=chance.random() < 0.5)
        texts = [text]
        for _ in range(3):  # a character dropped, doubled or replaced: mostly not JSON any more
            at = chance.randrange(len(text) + 1)
            texts.append(text[:at] + chance.choice(['', '"', "]", "}", ",", "\\", "e9", "NaN", "1e999", " "])
                         + text[at + chance.randrange(2):])
        for one in texts:
            assert outcome(loads, one) == outcome(_DECODER.decode, one), one
