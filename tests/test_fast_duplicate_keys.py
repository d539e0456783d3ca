"""The fast path's duplicate-key check (integrity._bulk.fast_read._feed and _inner_keys): the keys its structs
decoded are held to the key tokens in the bytes, and a block is decoded generically only when they
differ.  These tests hold it to the exact reader: a key named twice anywhere (a message, a content part,
arguments, usage, details, nested deep) always sends the file to the general reader, which reports it,
and a file without one stays on the fast path when every key is one the structs read."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import integrity
from integrity._bulk import fast_read
from integrity.formats.duplicates import first_duplicate, key_tokens_bound

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from generate import messages  # noqa: E402


def _with_free_values(rng: random.Random, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Usage on assistant turns and details on results, nested a few levels, as real pi-ai files have them."""
    for message in items:
        if message["role"] == "assistant" and rng.random() < 0.5:
            message["usage"] = {"input": 3, "output": 4, "cost": {"input": 0.1, "total": {"x": [1, {"y": 2}]}}}
        if message["role"] == "toolResult" and rng.random() < 0.3:
            message["details"] = {"diff": [{"line": 1, "text": "a"}], "meta": {"k": None}}
    return items


def _objects(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every object nested in value with its path."""
    found = []
    if isinstance(value, dict):
        found.append((path, value))
        for key, inner in value.items():
            found += _objects(inner, (*path, key))
    elif isinstance(value, list):
        for number, inner in enumerate(value):
            found += _objects(inner, (*path, number))
    return found


def _duplicate_one_key(rng: random.Random, items: list[dict[str, Any]]) -> str:
    """The transcript's JSON text with one key of one object, anywhere, named a second time."""
    path, target = rng.choice([(p, o) for p, o in _objects(items) if o])
    key = rng.choice(list(target))
    marker = "\u0000dup\u0000"
    target[marker] = target[key]  # written as the key again below, after the one it repeats
    text = json.dumps(items, separators=(",", ":"))
    return text.replace(json.dumps(marker), json.dumps(key), 1)


@pytest.mark.parametrize("seed", range(40))
def test_a_key_named_twice_anywhere_leaves_the_fast_path_and_is_reported(seed: int) -> None:
    rng = random.Random(seed)
    items = _with_free_values(rng, list(messages(rng.randint(4, 60), seed=seed)))
    text = _duplicate_one_key(rng, items)
    container = rng.choice(["array", "jsonl"])
    if container == "jsonl":
        text = "\n".join(_split_array(text))
    data = text.encode()
    assert first_duplicate(text, container) is not None  # the text names some key twice
    assert fast_read.read_fast(data, "dup.json") is None
    assert [note.code for note in integrity.load(data, "dup.json").notes] == ["duplicate_key"]


def _split_array(text: str) -> list[str]:
    """A compact JSON array's top-level values as texts (keys named twice kept as written)."""
    decoder = json.JSONDecoder(object_pairs_hook=lambda pairs: pairs)
    values, position = [], 1
    while text[position] != "]":
        _, end = decoder.raw_decode(text, position)
        values.append(text[position:end])
        position = end + (text[end] == ",")
    return values


@pytest.mark.parametrize("seed", range(20))
def test_a_file_without_a_key_named_twice_is_read_fast_without_a_second_decode(seed: int,
                                                                             monkeypatch: Any) -> None:
    rng = random.Random(seed)
    items = _with_free_values(rng, list(messages(rng.randint(4, 200), seed=seed)))
    data = json.dumps(items, separators=(",", ":")).encode()
    generic: list[bytes] = []
    real = fast_read.msgspec.json.decode
    monkeypatch.setattr(fast_read.msgspec.json, "decode",
                        lambda raw, *a, **k: generic.append(raw) or real(raw, *a, **k))
    assert fast_read.read_fast(data, "ok.json") is not None
    assert generic == []  # the keys the structs decoded matched the key tokens: no generic decode


@pytest.mark.parametrize("text", [
    '[{"role":"user","content":"x","a\\\\":1,"a\\\\":2}]',
    '[{"role":"user","content":"{\\"k\\":1}","content":"y"}]',
    '[{"role":"user","content":"\\u0022:","content":":y"}]',
    '[{"role":"user","content":"x"},{"role" :"user","role":"user","content":"y"}]',
    '[{"role":"user","content":"x","timestamp":1,"timestamp":2}]',
    '[{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{"a":1,"a":2}}]}]',
    '[{"role":"assistant","content":[],"usage":{"cost":{"t":1,"t":2}},"stopReason":"stop"}]',
    '[{"role":"toolResult","toolCallId":"c","content":[],"details":[{"x":1,"x":1}]}]',
    '[{"role":"toolResult","toolCallId":"c","toolCallId":"c","content":[]}]',
    '[{"role":"assistant","content":[{"type":"text","text":"a","text":"b"}]}]',
    '[{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{},"type":"toolCall"}]}]',
])
def test_hand_written_duplicates_leave_the_fast_path(text: str) -> None:
    assert first_duplicate(text, "array") is not None
    assert fast_read.read_fast(text.encode(), "dup.json") is None


@pytest.mark.parametrize("text", [
    '[{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":[]}]}]',
    '[{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":null}]}]',
    '[{"role":"assistant","content":[],"usage":3,"stopReason":"stop"}]',
])
def test_arguments_or_usage_that_are_not_objects_leave_the_fast_path(text: str) -> None:
    assert fast_read.read_fast(text.encode(), "bad.json") is None


def test_the_bound_is_the_general_readers() -> None:
    """The fast path counts key tokens with the general reader's own function, never a copy of it."""
    assert fast_read.key_tokens_bound is key_tokens_bound


@pytest.mark.parametrize("seed", range(12))
def test_a_file_read_a_block_at_a_time_finds_the_same(seed: int, monkeypatch: Any, tmp_path: Any) -> None:
    """A file read a block at a time is checked by a forked child (fast_read._check_beside), which bounds each
    block's key tokens, while the reader counts the keys its own structs hold (_keys_kept holds the two
    together): a key named twice in any block sends the file to the general reader, and only that block is
    decoded a second time."""
    from integrity._bulk import blocks
    from integrity._bulk.blocks import FileSource
    from integrity.loading import open_source

    rng = random.Random(seed)
    items = _with_free_values(rng, list(messages(rng.randint(20, 300), seed=seed)))
    clean = json.dumps(items, separators=(",", ":"))
    broken = _duplicate_one_key(rng, items)
    if seed % 2:
        clean, broken = ("\n".join(_split_array(text)) for text in (clean, broken))
    monkeypatch.setattr(fast_read, "STREAM_FROM", 0)
    monkeypatch.setattr(blocks, "BLOCK", rng.choice([512, 4096, 1 << 20]))
    started: list[Any] = []
    start = fast_read._Beside.start
    monkeypatch.setattr(fast_read._Beside, "start", lambda *a: started.append(start(*a)) or started[-1])
    generic: list[bytes] = []
    real = fast_read.msgspec.json.decode
    monkeypatch.setattr(fast_read.msgspec.json, "decode",
                        lambda raw, *a, **k: generic.append(raw) or real(raw, *a, **k))
    for text, sound in ((clean, True), (broken, False)):
        path = tmp_path / f"{sound}.json"
        path.write_text(text)
        read = fast_read.read_fast_file(FileSource(path.name, *open_source(str(path))), True, True)
        assert (read is not None) == sound
    assert len(started) == 2 and all(child is not None for child in started)  # the child did check them
    assert len(generic) <= 1  # only the broken file's block was decoded generically


_PARTS = {  # each content part the fast reader decodes: its required fields, then each optional one
    "text": ('"type":"text","text":"a: \\"b\\""', ['"textSignature":"s"']),
    "thinking": ('"type":"thinking","thinking":"t"', ['"thinkingSignature":"s"']),
    "toolCall": ('"type":"toolCall","id":"c2","name":"read"',
                 ['"arguments":{"p":{"q":[1,{"r":2}]},"s":"x"}', '"thoughtSignature":"s"']),
    "image": ('"type":"image"', ['"data":"AAAA"', '"mimeType":"image/png"']),
}


def _with_part(kind: str, present: tuple[str, ...], twice: str | None = None) -> str:
    """A pi-ai file whose assistant turn (and, for text and images, user turn and result) holds a part of this
    kind with these optional fields; twice: one of them written a second time."""
    required, _ = _PARTS[kind]
    part = "{" + ",".join((required, *present, *((twice,) if twice else ()))) + "}"
    call = '{"type":"toolCall","id":"c1","name":"read","arguments":{}}'
    said = f"[{part}]" if kind in ("text", "image") else '"hi"'
    results = f"[{part}]" if kind in ("text", "image") else "[]"
    return (f'[{{"role":"user","content":{said}}},'
            f'{{"role":"assistant","content":[{part},{call}],"stopReason":"toolUse","usage":{{"input":1}}}},'
            f'{{"role":"toolResult","toolCallId":"c1","toolName":"read","content":{results},"isError":false}}]')


@pytest.mark.parametrize("kind", sorted(_PARTS))
def test_every_part_kind_with_any_of_its_fields_counts_each_key_once(kind: str) -> None:
    """_feed counts a part's keys from its kind and its set fields (the `sig` of each, an image's data):
    whichever optional fields a part has, its keys equal the general reader's count and the file stays on the
    fast path; any of them named twice sends it to the general reader."""
    from itertools import combinations

    from integrity.formats.duplicates import count_keys
    from integrity.repair.views import LightBuilder

    _, optional = _PARTS[kind]
    for size in range(len(optional) + 1):
        for present in combinations(optional, size):
            text = _with_part(kind, present)
            messages = fast_read._MESSAGES.decode(text.encode())
            free: list[Any] = []
            fed = fast_read._feed(messages, 0, LightBuilder(), {}, free)
            assert fed[1] + fast_read._inner_keys(free)[0] == count_keys([json.loads(text)]), present
            assert fast_read.read_fast(text.encode(), "ok.json") is not None, present
            for field in present:
                assert fast_read.read_fast(_with_part(kind, present, field).encode(), "dup.json") is None, field


_MESSAGE_FIELDS = {  # each message kind the fast reader decodes: its required fields, then each optional one
    "user": ('"role":"user","content":"hi"', ['"timestamp":1', '"_native":{"format":"x"}']),
    "system": ('"role":"system","content":[{"type":"text","text":"be brief"}]', ['"timestamp":1']),
    "assistant": ('"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]',
                  ['"stopReason":"toolUse"', '"errorMessage":null', '"api":"a"', '"provider":"p"', '"model":"m"',
                   '"usage":{"input":1,"cost":{"total":2}}', '"timestamp":2', '"_native":{"k":[1]}']),
    "toolResult": ('"role":"toolResult","toolCallId":"c1","content":[]',
                   ['"toolName":"read"', '"isError":false', '"timestamp":3', '"details":{"a":[{"b":1}]}',
                    '"_native":{}']),
}


@pytest.mark.parametrize("kind", sorted(_MESSAGE_FIELDS))
def test_every_message_kind_with_any_of_its_fields_counts_each_key_once(kind: str) -> None:
    """_feed counts a message's keys from its kind and each optional field it has: whichever it has, its keys
    equal the general reader's count and the file stays on the fast path; any of them named twice sends it to
    the general reader."""
    from itertools import combinations

    from integrity.formats.duplicates import count_keys
    from integrity.repair.views import LightBuilder

    required, optional = _MESSAGE_FIELDS[kind]
    call = '{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read"}],"stopReason":"toolUse"}'
    for size in range(len(optional) + 1):
        for present in combinations(optional, size):
            def text(twice: str | None = None, present: tuple[str, ...] = present) -> str:
                message = "{" + ",".join((required, *present, *((twice,) if twice else ()))) + "}"
                return f"[{call},{message}]"
            messages = fast_read._MESSAGES.decode(text().encode())
            free: list[Any] = []
            fed = fast_read._feed(messages, 0, LightBuilder(), {}, free)
            assert fed[1] + fast_read._inner_keys(free)[0] == count_keys([json.loads(text())]), present
            assert fed[2] == any(field.startswith('"_native"') for field in present)
            if not fed[2]:  # (a hint sends the block to every check, the general reader's nesting included)
                assert fast_read.read_fast(text().encode(), "ok.json") is not None, present
            for field in present[:2]:
                assert fast_read.read_fast(text(field).encode(), "dup.json") is None, field
