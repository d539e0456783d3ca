"""The fast path's cheap refusals decide exactly as a whole-file scan would (integrity._fastpath).

The number scan works in overlapping windows; these tests put every suspicious shape on and
around a window's edge and compare with the one-pass scan it replaced.
"""

from __future__ import annotations

import random

import pytest

from integrity import _fastpath


def _whole_file_scan(data: bytes) -> bool:
    """The original one-pass decision: map the whole file to shapes, then search."""
    shapes = data.translate(_fastpath._NUMBER_SHAPES)
    if b"0" * 200 in shapes:
        return True
    for pattern in (b"0e000", b"0ee000"):
        at = shapes.find(pattern)
        while at >= 0:
            if _fastpath._number_token_at(data, at):
                return True
            at = shapes.find(pattern, at + 1)
    return False


SHAPES = [b'{"x":1e999}', b'[1E+400]', b'{"a": 2.5e308}', b'{"id":"call_2_2e189"}', b',' + b"7" * 200,
          b'"' + b"7" * 199 + b'"', b'{"t":1700000001000}', b'[-1.5e-300]', b'{"x": 3e99}']


@pytest.mark.parametrize("shape", SHAPES)
def test_a_shape_across_every_window_edge_is_seen_as_in_one_pass(shape: bytes) -> None:
    edge = _fastpath._SHAPES_CHUNK
    for offset in range(-len(shape) - 2, 3):
        data = b" " * (edge + offset) + shape + b" " * 50
        assert _fastpath._numbers_need_general_reader(data) == _whole_file_scan(data), (shape, offset)


def test_random_files_decide_as_in_one_pass() -> None:
    rng = random.Random(12)
    alphabet = b'0123456789eE+-.,:[]{}" _abcx'
    for _ in range(60):
        size = rng.choice([10, 1000, _fastpath._SHAPES_CHUNK - 3, _fastpath._SHAPES_CHUNK + 500])
        data = bytearray(rng.choice(b" abc,") for _ in range(size))
        for _ in range(rng.randint(0, 6)):
            piece = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
            where = rng.randrange(0, max(1, size - len(piece)))
            data[where:where + len(piece)] = piece
        if rng.random() < 0.2:
            where = rng.randrange(0, max(1, size - 210))
            data[where:where + 201] = b":" + b"9" * 200
        assert _fastpath._numbers_need_general_reader(bytes(data)) == _whole_file_scan(bytes(data))


def test_the_nesting_limit_is_the_general_readers() -> None:
    from integrity.formats.container import MAX_DEPTH

    assert _fastpath.MAX_DEPTH == MAX_DEPTH


@pytest.mark.parametrize("depth", [190, 198, 199, 200, 201, 260])
@pytest.mark.parametrize("container", ["array", "object", "jsonl"])
def test_deep_messages_are_refused_exactly_as_the_general_reader_would(depth: int, container: str) -> None:
    from integrity.formats.container import too_deep

    level = {"array": 1, "object": 2}.get(container, 0)
    for opener, closer in ((b"[", b"]"), (b"{\"a\":", b"}")):
        raw = b'{"role":"user","content":"x","extra":' + opener * depth + b"1" + closer * depth + b"}"
        expected = too_deep(raw, 0, len(raw), level)
        assert _fastpath._nested_too_deep([raw], container, None) == expected
