"""The smaller hostile cases of issue 30 (item 5): bytes-like input, wide encodings, CRLF JSONL.

Each failed before: load(memoryview) raised AttributeError; UTF-32 LE text was
called UTF-16; a repaired CRLF JSONL file mixed CRLF and LF lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import integrity
from integrity import TranscriptError

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "stopReason": "toolUse",
     "content": [{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}]},
    {"role": "user", "content": "next"},
]
DATA = json.dumps(MESSAGES).encode()


# ----------------------------------------------------------------------------- bytes-like input


@pytest.mark.parametrize("wrap", [bytearray, memoryview, lambda d: memoryview(b"xx" + d)[2:],
                                  lambda d: memoryview(bytearray(d))])
def test_load_and_load_all_take_any_bytes_like_object(wrap: object) -> None:
    data = wrap(DATA)  # type: ignore[operator]
    assert integrity.load(data).messages == integrity.load(DATA).messages
    assert [t.name for t in integrity.load_all(data)] == ["main"]


def test_a_strided_memoryview_reads_as_its_bytes() -> None:
    doubled = bytes(b for byte in DATA for b in (byte, 0))
    view = memoryview(doubled)[::2]
    assert integrity.load(view).messages == MESSAGES


@pytest.mark.parametrize(("value", "said"), [
    (DATA.decode(), "got a str: pass text.encode('utf-8')"),
    (None, "got NoneType"),
    (42, "got int"),
    ([1, 2], "got list"),
])
def test_what_is_not_bytes_is_a_one_line_type_error(value: object, said: str) -> None:
    with pytest.raises(TypeError) as raised:
        integrity.load(value)  # type: ignore[arg-type]
    assert said in str(raised.value) and "\n" not in str(raised.value)


# ----------------------------------------------------------------------------- wide encodings


@pytest.mark.parametrize(("encoding", "name", "marked"), [
    ("utf-32", "UTF-32 LE", True),
    ("utf-32-le", "UTF-32 LE", False),
    ("utf-32-be", "UTF-32 BE", False),
    ("utf-16", "UTF-16 LE", True),
    ("utf-16-le", "UTF-16 LE", False),
    ("utf-16-be", "UTF-16 BE", False),
])
def test_utf16_and_utf32_text_is_named_by_its_encoding(encoding: str, name: str, marked: bool) -> None:
    with pytest.raises(TranscriptError) as raised:
        integrity.load(DATA.decode().encode(encoding), "t.json")
    text = str(raised.value)
    assert f"looks like {name} text" in text and "save it as UTF-8" in text, text
    assert ("byte-order mark" in text) and (("without a byte-order mark" in text) is not marked)
    other = {"UTF-32 LE", "UTF-32 BE", "UTF-16 LE", "UTF-16 BE"} - {name}
    assert not any(o in text for o in other)


def test_utf32_be_with_its_mark_is_named() -> None:
    with pytest.raises(TranscriptError, match="UTF-32 BE text"):
        integrity.load(b"\x00\x00\xfe\xff" + DATA.decode().encode("utf-32-be"), "t.json")


# ----------------------------------------------------------------------------- CRLF JSONL


def crlf_jsonl(messages: list[dict[str, object]]) -> bytes:
    return b"".join(json.dumps(m, separators=(",", ":")).encode() + b"\r\n" for m in messages)


def assert_crlf_only(data: bytes) -> None:
    assert data.endswith(b"\r\n")
    assert data.count(b"\n") == data.count(b"\r\n"), data


@pytest.mark.parametrize("policy", ["strict", "openmaic"])
def test_the_cli_repairs_a_crlf_jsonl_file_with_crlf_lines_only(tmp_path: Path, policy: str) -> None:
    source = tmp_path / "crlf.jsonl"
    source.write_bytes(crlf_jsonl(MESSAGES))
    out = tmp_path / "out.jsonl"
    result = subprocess.run([sys.executable, "-m", "integrity", "repair", str(source), "--policy", policy,
                             "-o", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    written = out.read_bytes()
    assert len(written.splitlines()) == 4  # the receipt is a new line, with the file's own line ending
    assert_crlf_only(written)


def test_the_api_writes_a_crlf_jsonl_view_and_the_file_itself_with_crlf() -> None:
    data = crlf_jsonl(MESSAGES)
    transcript = integrity.load(data)
    assert transcript.newline == "\r\n"
    assert integrity.write_bytes(transcript) == data
    view = integrity.write_bytes(transcript, integrity.analyze(transcript).view)
    assert len(view.splitlines()) == 4
    assert_crlf_only(view)


def test_an_lf_jsonl_file_stays_lf() -> None:
    data = b"".join(json.dumps(m).encode() + b"\n" for m in MESSAGES)
    view = integrity.write_bytes(integrity.load(data), integrity.analyze(integrity.load(data)).view)
    assert b"\r" not in view


# ----------------------------------------------------------------------------- hand-built values JSON cannot hold


def _with_arguments(arguments: object) -> list[dict[str, object]]:
    return [
        {"role": "assistant", "stopReason": "toolUse",
         "content": [{"type": "toolCall", "id": "c1", "name": "x", "arguments": arguments}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "x", "content": [{"type": "text", "text": "ok"}]},
    ]


def _cycle() -> dict[str, object]:
    loop: dict[str, object] = {}
    loop["self"] = loop
    return loop


@pytest.mark.parametrize(("arguments", "error", "said"), [
    ({1, 2}, TypeError, "['arguments'] is set {1, 2}, which JSON cannot hold"),
    ({"x": float("nan")}, ValueError, "['arguments']['x'] is nan, which JSON cannot hold"),
    ({"x": float("inf")}, ValueError, "['arguments']['x'] is inf, which JSON cannot hold"),
    ({"b": b"raw"}, TypeError, "['arguments']['b'] is bytes b'raw', which JSON cannot hold"),
    (_cycle(), ValueError, "['arguments']['self'] refers back to a value that contains it (a cycle)"),
    ({"when": object()}, TypeError, "['arguments']['when'] is object"),
])
def test_the_api_refuses_values_json_cannot_hold_instead_of_calling_them_healthy(
        arguments: object, error: type[Exception], said: str) -> None:
    messages = _with_arguments(arguments)
    for call in (lambda: integrity.analyze(integrity.Transcript(messages)),
                 lambda: integrity.repair_with_report(messages)):
        with pytest.raises(error) as raised:
            call()
        text = str(raised.value)
        assert "takes JSON values only; messages[0]['content'][0]" in text and said in text, text
        assert "\n" not in text


def test_json_values_built_by_hand_are_still_analyzed() -> None:
    analysis = integrity.analyze(integrity.Transcript(_with_arguments({"n": 1.5, "list": [1, "a", None, True]})))
    assert analysis.report.healthy


# ----------------------------------------------------------------------------- duplicate keys


def _tool_turn() -> list[dict[str, object]]:
    return [
        {"role": "assistant", "stopReason": "toolUse",
         "content": [{"type": "toolCall", "id": "c1", "name": "x", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "x", "content": [{"type": "text", "text": "ok"}]},
    ]


def _duplicated(text: str, field: str, extra: str) -> str:
    """The JSON text with `"field": ...` followed by a second `"field": extra` in the same object."""
    head, _, tail = text.partition(f'"{field}": ')
    value_end = tail.index(",") if "," in tail else len(tail)
    return f'{head}"{field}": {tail[:value_end]}, "{field}": {extra}{tail[value_end:]}'


@pytest.mark.parametrize(("container", "text", "line", "key"), [
    ("array", _duplicated(json.dumps(_tool_turn(), indent=1), "toolCallId", '"c2"'), 14, "toolCallId"),
    ("jsonl", "\n".join(json.dumps(m) for m in _tool_turn()).replace('"role": "toolResult"',
                                                                    '"role": "user", "role": "toolResult"'),
     2, "role"),
    ("object", json.dumps({"model": "m", "messages": MESSAGES}).replace('"model": "m"',
                                                                          '"model": "m", "model": "n"'), 0, "model"),
])
def test_a_duplicate_key_is_a_malformed_finding_naming_key_and_line(container: str, text: str, line: int,
                                                                     key: str) -> None:
    transcript = integrity.load(text.encode(), "dup.json")
    assert transcript.container == container
    assert [(n.code, n.line, n.problem) for n in transcript.notes] == [("duplicate_key", line, key)]
    assert line == 0 or line == transcript.lines[1]  # the line where the entry holding it starts
    report = integrity.analyze(transcript).report
    assert not report.healthy
    found = [f for f in report.findings if f.kind.value == "duplicate_key"]
    assert len(found) == 1 and f"names the key {key!r} twice" in found[0].message
    assert found[0].severity.value == "malformed"


@pytest.mark.parametrize("text", [
    '[{"role": "user", "content": "x", "a\\\\": 1, "a\\\\": 2}]',  # a key ending in a backslash, twice
    '[{"role": "user", "content": "{\\"k\\": 1}", "content": "y"}]',  # beside JSON text inside a string
    '[{"role": "user", "content": "\\u0022:", "content": ":y"}]',  # escapes that look like key ends
    '[{"role": "user", "content": "x"}, {"role" : "user", "role": "user", "content": "y"}]',  # a spaced colon
])
def test_a_duplicate_is_found_whatever_the_text_around_it(text: str) -> None:
    json.loads(text)  # valid JSON
    assert [n.code for n in integrity.load(text.encode()).notes] == ["duplicate_key"]


def test_the_cli_calls_a_file_with_a_duplicate_key_malformed(tmp_path: Path) -> None:
    source = tmp_path / "dup.json"
    source.write_text('[{"role": "user", "role": "assistant", "content": "hi"}]')
    result = subprocess.run([sys.executable, "-m", "integrity", "check", str(source)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "names the key 'role' twice" in result.stdout, result.stdout


@pytest.mark.parametrize("text", [
    json.dumps(MESSAGES),
    json.dumps([{"role": "user", "content": ':"a\\": not a key'}]),  # colons after quotes inside strings
    json.dumps([{"role": "user", "content": "x"}], indent=1).replace('"role":', '"role" :'),  # a spaced colon
    json.dumps([{"role": "user", "content": "a", "nested": {"role": 1, "content": [{"role": 2}]}}]),
])
def test_no_duplicate_no_note(text: str) -> None:
    assert integrity.load(text.encode()).notes == []


def test_check_of_standard_input_when_it_is_closed_is_one_line_exit_2() -> None:
    """`check -` started with standard input closed (`<&-`): one line, exit 2, never exit 70."""
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run(["bash", "-c", f"{sys.executable} -m integrity check - <&-"], capture_output=True,
                          cwd=Path(__file__).resolve().parents[1], timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode().splitlines() == ["error: <stdin>: standard input is closed: there is nothing to read"]


def test_a_duplicate_key_in_a_large_file_read_a_block_at_a_time_is_a_finding(tmp_path: Any) -> None:
    """The CLI's streaming fast path (files over 8 MB) decodes with msgspec, which keeps the last value of a
    key named twice in silence: it hands such a file to the general reader, which reports it."""
    import json as _json
    import sys as _sys
    from pathlib import Path as _Path

    from cli_inprocess import run

    _sys.path.insert(0, str(_Path(__file__).resolve().parents[1] / "bench"))
    from generate import write

    path = tmp_path / "big.json"
    write(45_000, str(path), seed=3)
    data = path.read_bytes()
    assert len(data) > 8 << 20
    at = data.find(b'"arguments":{', len(data) // 2)
    path.write_bytes(data[:at] + b'"arguments":{"zz":1,"zz":2,' + data[at + len(b'"arguments":{'):])
    done = run("check", "--json", path)
    report = _json.loads(done.stdout)
    assert done.code == 1 and any(f["kind"] == "duplicate_key" for f in report["findings"]), report["verdict"]
