"""The fast path for a file held in memory (integrity._bulk.fast_read): its messages are decoded straight into
structs, and their raw spans only when asked for (Spans), so the nesting check looks at the free values
(arguments, usage, details) and falls back to every message's raw bytes when a hint or a field the structs
skip could be deep.  These tests hold the result to the general reader's: a file nested one level past its
limit anywhere is refused, one at the limit is read, and the raw spans are the messages' bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from integrity._bulk import fast_read
from integrity._bulk.key_tokens import key_tokens_bound
from integrity.formats.container import MAX_DEPTH, parse_document
from integrity.loading import TranscriptError


def _general_reads(data: bytes) -> bool:
    try:
        parse_document(data, "x")
    except TranscriptError:
        return False
    return True


def _nested(depth: int, opener: str) -> str:
    """A value `depth` levels deep: arrays, or objects each with one key."""
    if opener == "[":
        return "[" * depth + "1" + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def _messages(where: str, value: str) -> list[str]:
    """A call and its result, with `value` as the call's arguments, the turn's usage, the result's details,
    the turn's native hints or a field the structs skip."""
    arguments = value if where == "arguments" else '{"path":"a"}'
    extra = {"usage": f',"usage":{value}', "hint": f',"_native":{value}', "skipped": f',"extra":{value}'}
    turn = ('{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":'
            + arguments + '}],"stopReason":"toolUse"' + extra.get(where, "") + "}")
    details = f',"details":{value}' if where == "details" else ""
    result = '{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]' \
        + details + "}"
    return ['{"role":"user","content":"hi"}', turn, result]


def _file(messages: list[str], container: str) -> bytes:
    body = "[\n" + ",\n".join(messages) + "\n]"
    return (body if container == "array" else '{"messages":' + body + "}").encode()


@pytest.mark.parametrize("where", ["arguments", "usage", "details", "hint", "skipped"])
@pytest.mark.parametrize("container", ["array", "object"])
@pytest.mark.parametrize("opener", ["[", "{"])
def test_nesting_at_and_past_the_limit_is_read_as_the_general_reader_reads_it(where: str, container: str,
                                                                             opener: str) -> None:
    decided = []
    for depth in range(MAX_DEPTH - 8, MAX_DEPTH + 2):
        if where in ("arguments", "usage") and opener == "[":
            continue  # not an object: a schema finding, never the fast path's
        data = _file(_messages(where, _nested(depth, opener)), container)
        general = _general_reads(data)
        decided.append(general)
        if not general:
            assert fast_read.read_fast(data, "x") is None, (where, depth)
        elif where not in ("hint", "skipped") or opener == "[":  # an object hint or skipped field: keys differ
            assert fast_read.read_fast(data, "x") is not None, (where, depth)
    assert not decided or (True in decided and False in decided)  # the limit lies inside the range tried


def test_the_raw_spans_are_each_messages_bytes() -> None:
    messages = _messages("details", '{"ok":true}') * 3
    fast = fast_read.read_fast(_file(messages, "array"), "x")
    assert fast is not None
    assert [bytes(raw) for raw in fast.raws] == [message.encode() for message in messages]
    assert [json.loads(bytes(fast.raws[index])) for index in (4, 0)] == [json.loads(messages[i]) for i in (4, 0)]


@pytest.mark.parametrize("text", [
    '{"a" :1}', '{"a"\t:1}', '{"a"\r\n:1}', '{"a":1, "b" : 2}', 'x : y', '"\\" :', '": :', ' :"', '"a":1',
])
def test_a_key_spaced_from_its_colon_leaves_no_bound(text: str) -> None:
    """key_tokens_bound looks for a colon after whitespace first (cheap), then for the spaced key itself."""
    spaced = any(text[at] == '"' and text[at + 1:].lstrip(" \t\r\n").startswith(":")
                 and text[at + 1] in " \t\r\n" for at in range(len(text) - 1))
    assert (key_tokens_bound(text.encode()) is None) == spaced


_NUMBERS = ["1e999", "-1e999", "1e308", "1.7976931348623158e308", "1.7976931348623159e308", "1" * 4300, "1" * 4301,
            "1" + "0" * 400 + ".0", "1" + "0" * 400, "0." + "0" * 500 + "1", "1e-999", "12345e-3", "-0"]


@pytest.mark.parametrize("number", _NUMBERS)
def test_msgspec_refuses_exactly_the_numbers_python_refuses(number: str) -> None:
    """The fast path lets msgspec judge the numbers of a block whose every value it decoded (_sound_in_memory)."""
    import msgspec

    try:
        expected: object = json.loads(number)
        python_reads = expected not in (float("inf"), float("-inf"))
    except ValueError:
        python_reads = False
    try:
        msgspec.json.decode(number.encode())
        msgspec_reads = True
    except msgspec.DecodeError:
        msgspec_reads = False
    assert msgspec_reads == python_reads


@pytest.mark.parametrize("where", ["timestamp", "arguments", "usage", "details", "hint", "skipped"])
@pytest.mark.parametrize("number", _NUMBERS)
def test_a_number_anywhere_is_read_as_the_general_reader_reads_it(where: str, number: str) -> None:
    if where == "timestamp":
        messages = _messages("none", "0")
        messages[1] = messages[1][:-1] + f',"timestamp":{number}}}'
    else:
        messages = _messages(where, '{"n":' + number + "}")
    data = _file(messages, "array")
    if not _general_reads(data):
        assert fast_read.read_fast(data, "x") is None
    elif where not in ("hint", "skipped"):  # there the keys differ: the whole block's cautious checks decide
        assert fast_read.read_fast(data, "x") is not None


def test_a_format_answered_without_the_formats_package_names_the_provider_its_spec_does() -> None:
    """own_provider answers pi-ai without loading integrity.formats (_NO_OWN_PROVIDER): the specs agree."""
    from integrity._diagnosis import _NO_OWN_PROVIDER, own_provider
    from integrity.formats import FORMAT_SPECS, implied_provider

    for name in _NO_OWN_PROVIDER:
        assert name in FORMAT_SPECS and implied_provider(name) is None and own_provider(name) is None


def test_checking_a_pi_ai_file_never_loads_the_formats_package(tmp_path: Path) -> None:
    """The fast path's `check` of a pi-ai file runs without integrity.formats (about 70 ms of start-up): a file
    that needs it (here, one in another format) loads it, as the control."""
    import subprocess
    import sys

    pi_ai = tmp_path / "t.json"
    pi_ai.write_bytes(_file(_messages("none", "0"), "array"))
    other = tmp_path / "o.json"
    other.write_text('{"messages": [{"role": "user", "content": "hi"}], "model": "gpt-4o"}')
    probe = ("import sys; from integrity.cli import main; main(['check', sys.argv[1]]); "
             "print('integrity.formats' in sys.modules, file=sys.stderr)")
    root = Path(__file__).resolve().parents[1]
    said = [subprocess.run([sys.executable, "-c", probe, str(path)], cwd=root, capture_output=True, text=True)
            .stderr.split()[-1] for path in (pi_ai, other)]
    assert said == ["False", "True"]


def _escaped_by_counting(data: bytes) -> int:
    """escaped_key_tokens's definition: the `\\\\\\\\":` less the `\\\\":` (none when there is no `\\\\":`)."""
    escaped = data.count(b'\\":')
    return data.count(b'\\\\":') - escaped if escaped else 0


@pytest.mark.parametrize("text", [
    b'', b'\\":', b'\\\\":', b'\\\\\\":', b'"a":"\\":\\":"', b'{"a\\\\":1}', b'\\":' * 63 + b'\\\\":',
    b'x\\":' * 64 + b'\\\\":' * 3, b'x\\":' * 200, b'"k":"{\\"ok\\":false,\\"error\\":\\"interrupted\\"}"',
])
def test_escaped_key_tokens_is_the_two_counts(text: bytes) -> None:
    """escaped_key_tokens looks at the byte before each `\\\\":` (a few) instead of counting twice (many: it counts)."""
    from integrity._bulk.key_tokens import escaped_key_tokens

    assert escaped_key_tokens(text) == _escaped_by_counting(text)


def test_escaped_key_tokens_on_every_mix_of_the_bytes_that_matter() -> None:
    import itertools

    from integrity._bulk.key_tokens import escaped_key_tokens

    for length in range(9):
        for letters in itertools.product(b'\\":a', repeat=length):
            text = bytes(letters)
            assert escaped_key_tokens(text) == _escaped_by_counting(text), text
