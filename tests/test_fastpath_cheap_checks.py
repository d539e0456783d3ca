"""The fast path's cheap refusals decide exactly as a whole-file scan would (integrity._bulk.fast_read).

The number scan works in overlapping windows; these tests put every suspicious shape on and
around a window's edge and compare with the one-pass scan it replaced.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from cli_inprocess import run

from integrity._bulk import fast_read


def _whole_file_scan(data: bytes) -> bool:
    """The original one-pass decision: map the whole file to shapes, then search."""
    shapes = data.translate(fast_read._NUMBER_SHAPES)
    if b"0" * 200 in shapes:
        return True
    for pattern in (b"0e000", b"0ee000"):
        at = shapes.find(pattern)
        while at >= 0:
            if fast_read._number_token_at(data, at):
                return True
            at = shapes.find(pattern, at + 1)
    return False


SHAPES = [b'{"x":1e999}', b'[1E+400]', b'{"a": 2.5e308}', b'{"id":"call_2_2e189"}', b',' + b"7" * 200,
          b'"' + b"7" * 199 + b'"', b'{"t":1700000001000}', b'[-1.5e-300]', b'{"x": 3e99}']


@pytest.mark.parametrize("shape", SHAPES)
def test_a_shape_across_every_window_edge_is_seen_as_in_one_pass(shape: bytes) -> None:
    edge = fast_read._SHAPES_CHUNK
    for offset in range(-len(shape) - 2, 3):
        data = b" " * (edge + offset) + shape + b" " * 50
        assert fast_read._numbers_need_general_reader(data) == _whole_file_scan(data), (shape, offset)


def test_random_files_decide_as_in_one_pass() -> None:
    rng = random.Random(12)
    alphabet = b'0123456789eE+-.,:[]{}" _abcx'
    for _ in range(60):
        size = rng.choice([10, 1000, fast_read._SHAPES_CHUNK - 3, fast_read._SHAPES_CHUNK + 500])
        data = bytearray(rng.choice(b" abc,") for _ in range(size))
        for _ in range(rng.randint(0, 6)):
            piece = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
            where = rng.randrange(0, max(1, size - len(piece)))
            data[where:where + len(piece)] = piece
        if rng.random() < 0.2:
            where = rng.randrange(0, max(1, size - 210))
            data[where:where + 201] = b":" + b"9" * 200
        assert fast_read._numbers_need_general_reader(bytes(data)) == _whole_file_scan(bytes(data))


def test_the_nesting_limit_is_the_general_readers() -> None:
    from integrity.formats.container import MAX_DEPTH

    assert fast_read.MAX_DEPTH == MAX_DEPTH


@pytest.mark.parametrize("depth", [190, 198, 199, 200, 201, 260])
@pytest.mark.parametrize("container", ["array", "object", "jsonl"])
def test_deep_messages_are_refused_exactly_as_the_general_reader_would(depth: int, container: str) -> None:
    from integrity.formats.container import too_deep

    level = {"array": 1, "object": 2}.get(container, 0)
    for opener, closer in ((b"[", b"]"), (b"{\"a\":", b"}")):
        raw = b'{"role":"user","content":"x","extra":' + opener * depth + b"1" + closer * depth + b"}"
        expected = too_deep(raw, 0, len(raw), level)
        assert fast_read._nested_too_deep([raw], container) == expected


def _plans_agree(messages: list[Any]) -> Any:
    """The strict plan with its clean-turn shortcuts equals the plan of the full walk, and the cheap
    diagnosis, skipping settled turns, finds the moves a diagnosis looking at every frame finds."""
    from integrity.repair import strict
    from integrity.repair.views import light_transcript
    from integrity.report import moves

    light = light_transcript(messages, numeric_ids=True)
    plan = strict.plan_strict(light)
    walked = _full_walk_plan(light)
    assert (plan.order, plan.notes, plan.dropped_frames, plan.dropped_strays, plan.dropped_duplicates,
            plan.repaired_tool_calls, plan.changed) == \
        (walked.order, walked.notes, walked.dropped_frames, walked.dropped_strays, walked.dropped_duplicates,
         walked.repaired_tool_calls, walked.changed)
    looked_at_all = moves(light, walked)
    assert moves(light, plan) == looked_at_all
    return plan, looked_at_all


def _full_walk_plan(light: Any) -> Any:
    """plan_strict with no turn taken for clean: every frame and result goes through the in-order walk."""
    from integrity.repair import strict
    original = strict._clean_frames
    strict._clean_frames = lambda light, first: ([], None, [])
    try:
        return strict.plan_strict(light)
    finally:
        strict._clean_frames = original


@pytest.mark.parametrize("seed", range(12))
def test_clean_turn_shortcuts_plan_and_diagnose_as_the_full_walk(seed: int) -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    messages = list(generate.messages(3000, seed=seed, defect_rate=0.02 + 0.03 * (seed % 5)))
    plan, (moved, _) = _plans_agree(messages)
    assert plan.settled and plan.changed  # the shortcut is taken, on a transcript that needs repair
    if seed % 5 == 4:
        assert moved  # and some results did move


def test_a_receipt_replaced_by_a_later_real_result_unsettles_its_clean_turn() -> None:
    call = {"role": "assistant", "stopReason": "toolUse", "content": [
        {"type": "toolCall", "id": "a", "name": "t", "arguments": {}},
        {"type": "toolCall", "id": "b", "name": "t", "arguments": {}}]}
    receipt = {"role": "toolResult", "toolCallId": "a", "toolName": "t", "isError": True,
               "details": {"ok": False, "error": "interrupted"}, "content": [{"type": "text", "text": "x"}]}
    real = {"role": "toolResult", "toolCallId": "b", "toolName": "t", "content": [{"type": "text", "text": "ok"}]}
    late = {"role": "toolResult", "toolCallId": "a", "toolName": "t", "content": [{"type": "text", "text": "ok"}]}
    user = {"role": "user", "content": "go"}
    _plans_agree([user, call, receipt, real, user, late, user])
    _plans_agree([user, call, receipt, real, user, {**late, "toolCallId": "b"}, user, late])


@pytest.mark.parametrize("field", ["arguments", "usage", "details", "unknown"])
def test_invalid_utf8_where_the_fast_reader_skips_is_refused_as_the_general_reader_does(field: str,
                                                                                      tmp_path: Any) -> None:
    """msgspec checks only the strings it decodes: a bad byte in tool arguments once passed the fast reader,
    and `check` then died with an internal error decoding the messages for the providers."""
    call = {"type": "toolCall", "id": "c1", "name": "f", "arguments": {"x": "MARK"}}
    frame = {"role": "assistant", "content": [call], "stopReason": "toolUse", "usage": {"note": "MARK"}}
    result = {"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "ok"}],
              "details": {"note": "MARK"}, "extra": "MARK"}
    marked = {"arguments": (0, "arguments"), "usage": (0, "usage"), "details": (1, "details"), "unknown": (1, "extra")}
    messages = [{"role": "user", "content": "hi"}, frame, result]
    text = json.dumps(messages)
    position, key = marked[field]
    target = json.dumps(messages[1 + position][key]) if key != "arguments" else json.dumps(call["arguments"])
    data = text.encode().replace(target.encode(), target.replace("MARK", "\udcff").encode("utf-8", "surrogateescape"))
    assert data != text.encode() and b"\xff" in data
    assert not fast_read._valid_utf8(data) and fast_read.read_fast(data, "x.json") is None
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    checked = run("check", path)
    assert checked.code == 2 and "not valid UTF-8" in checked.stderr and "internal error" not in checked.stderr
    assert run("repair", path, "-o", tmp_path / "out.json").code == 2 and not (tmp_path / "out.json").exists()


def test_utf8_is_checked_across_chunk_edges() -> None:
    edge = fast_read._UTF8_CHUNK
    snowman = "\u2603".encode()  # three bytes
    for cut in range(1, 3):  # the character split over two chunks: still valid
        data = b"a" * (edge - cut) + snowman + b"b" * 10
        assert fast_read._valid_utf8(data)
    assert not fast_read._valid_utf8(b"a" * (edge - 1) + snowman[:2])  # cut off at the end of the file
    assert not fast_read._valid_utf8(b"a" * (edge - 1) + snowman[:1] + b"a" * edge)  # an ASCII chunk after a lead
    assert not fast_read._valid_utf8(b"a" * edge * 2 + b"\xc3\x28")
    assert fast_read._valid_utf8(("\u00e9" * edge).encode())
