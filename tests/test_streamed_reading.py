"""A large pi-ai file read a block at a time (integrity._bulk.blocks) says and writes what it says read whole.

The CLI reads files of STREAM_FROM bytes or more a block at a time, never whole, and writes the
view by reading the blocks again.  Here the blocks are made tiny, so that every generated
transcript is cut in many places (inside strings, inside messages, between them), in every layout
a file can have: one message per line, a compact or indented array, JSON lines with CRLF and
blank lines.  Whatever the layout, the light view, the strict plan, the cheap diagnosis and the
written view must be the ones the whole-file reader gives; a file that changes between the two
passes is refused with nothing written.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity._bulk import blocks, fast_read
from integrity._bulk.atomic_write import WriteError
from integrity._bulk.blocks import FileSource
from integrity._bulk.fast_read import FastTranscript, read_fast, read_fast_file, write_fast
from integrity._diagnosis import diagnose
from integrity.loading import open_source
from integrity.repair.strict import plan_strict
from integrity.repair.views import LightTranscript, light_transcript
from tests.cli_inprocess import run
from tests.test_strict_properties import broken_transcripts, frame, result, user

NOW = 1_700_000_000_000


def now() -> int:
    return NOW


def one_per_line(messages: list[Any]) -> bytes:
    """The layout this tool writes (every block plain: stretches are copied as slices)."""
    return b"[\n" + b",\n".join(json.dumps(m, separators=(",", ":")).encode() for m in messages) + b"\n]\n"


def compact(messages: list[Any]) -> bytes:
    return json.dumps(messages).encode()


def indented(messages: list[Any]) -> bytes:
    return json.dumps(messages, indent=2).encode()


def json_lines(messages: list[Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def json_lines_crlf_blank(messages: list[Any]) -> bytes:
    return b"\r\n".join(json.dumps(m).encode() + (b"\r\n" if k % 3 == 0 else b"") for k, m in enumerate(messages))


LAYOUTS: dict[str, Callable[[list[Any]], bytes]] = {
    "one per line": one_per_line, "compact": compact, "indented": indented, "json lines": json_lines,
    "json lines, CRLF and blank lines": json_lines_crlf_blank,
}


@pytest.fixture
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 48 bytes (grown until a cut is proved) and every file streamed, however small."""
    monkeypatch.setattr(blocks, "BLOCK", 48)
    monkeypatch.setattr(fast_read, "STREAM_FROM", 0)


def opened(path: str, name: str) -> FileSource:
    """The file as the CLI opens it for the fast path (loading.open_source)."""
    return FileSource(name, *open_source(path))


def streamed(data: bytes, writes: bool = True) -> Iterator[FastTranscript | None]:
    """read_fast_file over `data` written to a temporary file (removed after)."""
    handle, path = tempfile.mkstemp(suffix=".json")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        yield read_fast_file(opened(path, "f.json"), True, writes)
    finally:
        os.unlink(path)


def light_facts(light: LightTranscript) -> tuple[Any, ...]:
    """Everything the planners and reports read of a light view (result_names only where it is kept)."""
    frames = {index: [(call.id, call.name) for call in calls] for index, calls in light.frames.items()}
    return (light.size, light.roles, frames, light.result_keys, light.interrupted_frames, light.receipts,
            light.empty_frames, light.frame_stops, light.clean)


def written(fast: FastTranscript, plan: Any) -> bytes:
    out = io.BytesIO()
    write_fast(fast, plan, now, out)
    return out.getvalue()


def flat(order: list[Any] | None) -> list[Any] | None:
    """An order with its stretches spelled out, one entry per message."""
    if order is None:
        return None
    return [index for entry in order for index in (entry if type(entry) is range else (entry,))]


def assert_same_reading(messages: list[Any], layout: str) -> None:
    data = LAYOUTS[layout](messages)
    whole = read_fast(data, "f.json")
    for fast in streamed(data):
        assert (fast is None) == (whole is None)
        if fast is None or whole is None:
            return
        assert light_facts(fast.light) == light_facts(whole.light)
        plan = plan_strict(whole.light)
        stretched = plan_strict(fast.light, stretches=True)
        assert flat(stretched.order) == plan.order
        assert written(fast, stretched) == written(whole, plan) == written(whole, plan_strict(whole.light,
                                                                                              stretches=True))
        assert (msgspec.to_builtins(diagnose(fast.light, stretched, "f.json"))
                == msgspec.to_builtins(diagnose(whole.light, plan, "f.json")))
        # The names the fast path leaves out are never asked for: the plan of the full dict view is the same.
        full = plan_strict(light_transcript(messages, numeric_ids=True))
        for field in ("changed", "order", "repaired_tool_calls", "dropped_frames", "dropped_duplicates",
                      "dropped_strays", "notes", "settled"):
            assert getattr(full, field) == getattr(plan, field), field


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=broken_transcripts(), layout=st.sampled_from(sorted(LAYOUTS)))
def test_a_file_read_a_block_at_a_time_is_read_as_a_whole_one(tiny_blocks: None, messages: list[Any],
                                                             layout: str) -> None:
    assert_same_reading(messages, layout)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=broken_transcripts(), layout=st.sampled_from(sorted(LAYOUTS)))
def test_without_fork_each_block_is_checked_by_the_reader_itself(tiny_blocks: None, monkeypatch: pytest.MonkeyPatch,
                                                                 messages: list[Any], layout: str) -> None:
    monkeypatch.delattr(os, "fork", raising=False)
    assert_same_reading(messages, layout)


def test_cuts_inside_strings_and_messages_are_refused(tiny_blocks: None) -> None:
    """Separators that look like a message boundary inside a text or inside tool arguments."""
    fake = '},{"role":"user","content":"x"},\n{"role":"assistant"}'
    messages: list[Any] = [user(fake, 1)]
    for k in range(30):
        call = frame([(f"c{k}", "search")], 2 + k)
        call["content"][1]["arguments"] = {"rows": [{"role": "user"}, {"role": "assistant"}], "text": fake}
        messages += [call, result(f"c{k}", "search", fake * (k % 3), 40 + k)]
    messages.append(frame([("lost", "search")], 99))
    for layout in LAYOUTS:
        assert_same_reading(messages, layout)


def test_a_number_the_general_reader_reads_otherwise_late_in_the_file_sends_it_there(tiny_blocks: None) -> None:
    messages: list[Any] = [user("hi", 1)] * 40
    messages.append(frame([("c1", "search")], 2))
    messages[-1]["content"][1]["arguments"] = {"big": 1}
    data = one_per_line(messages).replace(b'"big":1', b'"big":1e999')
    assert read_fast(data, "f.json") is None
    for fast in streamed(data):
        assert fast is None


@pytest.mark.parametrize("layout", ["one per line", "json lines"])
def test_a_message_nested_too_deep_late_in_the_file_sends_it_to_the_general_reader(tiny_blocks: None,
                                                                                   layout: str) -> None:
    messages: list[Any] = [user("hi", k) for k in range(40)] + [frame([("c1", "search")], 2)]
    deep: Any = 1
    for _ in range(260):
        deep = [deep]
    messages[-1]["content"][1]["arguments"] = {"deep": deep}
    shallow = LAYOUTS[layout](messages[:-1] + [frame([("c1", "search")], 2)])
    for fast in streamed(shallow):
        assert fast is not None
    for fast in streamed(LAYOUTS[layout](messages)):
        assert fast is None


def test_a_json_line_holding_two_messages_is_an_error_at_its_line(tmp_path: Any) -> None:
    path = tmp_path / "two.jsonl"
    path.write_bytes(b'{"role":"user","content":"a"},{"role":"user","content":"b"}\n'
                     b'{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"x","arguments":{}}],'
                     b'"stopReason":"toolUse"}\n')
    assert read_fast(path.read_bytes(), "two.jsonl") is None
    outcome = run("check", str(path))
    assert outcome.code == 2
    assert "line 1" in outcome.stderr and "internal error" not in outcome.stderr


def test_a_file_written_to_between_the_passes_is_refused_and_nothing_is_written(tiny_blocks: None,
                                                                                 tmp_path: Any) -> None:
    messages: list[Any] = [user("hi", 1), frame([("c1", "search")], 2), user("again", 3)]
    path = tmp_path / "live.json"
    path.write_bytes(one_per_line(messages * 20))
    fast = read_fast_file(opened(str(path), "live.json"), True, True)
    assert fast is not None
    plan = plan_strict(fast.light, stretches=True)
    assert plan.changed
    with open(path, "r+b") as handle:  # rewritten in place, one byte changed
        handle.seek(10)
        handle.write(b"X")
    os.utime(path, ns=(1, 1))
    with pytest.raises(WriteError, match="changed while it was being read"):
        written(fast, plan)


def test_repair_of_a_file_written_to_meanwhile_writes_nothing_and_says_so(tiny_blocks: None, tmp_path: Any,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from integrity import cli

    path = tmp_path / "live.json"
    path.write_bytes(one_per_line([user("hi", 1), frame([("c1", "search")], 2), user("again", 3)] * 20))
    real = cli._plan

    def plan_then_change(*args: Any, **kwargs: Any) -> Any:
        with open(path, "ab") as handle:
            handle.write(b"\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(cli, "_plan", plan_then_change)
    target = tmp_path / "out.json"
    outcome = run("repair", str(path), "-o", str(target))
    assert outcome.code == 2
    assert outcome.error_lines == [f"error: {path}: it changed while it was being read (is something writing "
                                   f"to it?); try again when it is quiet (no file was written)"]
    assert not target.exists() and os.listdir(tmp_path) == ["live.json"]


def test_the_cli_streams_a_large_file_and_repairs_it_as_read_whole(tmp_path: Any, monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    """End to end through the command line, blocks of 1 kB over a file of a few hundred messages."""
    monkeypatch.setattr(blocks, "BLOCK", 1024)
    monkeypatch.setattr(fast_read, "STREAM_FROM", 0)
    messages: list[Any] = []
    for k in range(120):
        messages += [user(f"step {k}", k), frame([(f"c{k}", "search"), (f"d{k}", "search")], k)]
        messages += [result(f"d{k}", "search", "late", k)] if k % 7 == 0 else [
            result(f"c{k}", "search", "ok", k), result(f"d{k}", "search", "ok", k)]
    path = tmp_path / "big.json"
    path.write_bytes(one_per_line(messages))
    sources: list[str] = []
    real = fast_read._read

    def noted(*args: Any) -> Any:
        sources.append(type(args[0]).__name__)
        return real(*args)

    monkeypatch.setattr(fast_read, "_read", noted)
    streamed_out = run("repair", "--now", str(NOW), str(path))
    monkeypatch.setattr(fast_read, "STREAM_FROM", 1 << 40)
    whole_out = run("repair", "--now", str(NOW), str(path))
    assert sources == ["FileSource", "Source"]
    assert streamed_out.code == whole_out.code == 0
    assert streamed_out.stdout == whole_out.stdout
    lost = sum(1 for k in range(120) if k % 7 == 0)  # 18
    assert len(json.loads(streamed_out.stdout)) == len(messages) + lost  # a receipt for each lost call
    whole_check = run("check", str(path))
    monkeypatch.setattr(fast_read, "STREAM_FROM", 0)
    streamed_check = run("check", str(path))
    assert sources[-2:] == ["Source", "FileSource"]
    assert (streamed_check.code, streamed_check.stdout) == (whole_check.code, whole_check.stdout)
    assert b"18 receipt(s) synthesized" in whole_check.stdout


@pytest.mark.parametrize("order", [
    [range(0, 3), 7, 5, range(8, 10)],  # a message put before one recorded earlier
    [range(0, 3), 2, range(3, 5)],  # twice
    [4, range(0, 4), range(5, 7)],  # a stretch after a later message
    [range(0, 3), 3, range(4, 6)],  # in order
])
def test_a_view_with_stretches_is_checked_for_order_as_its_messages_are(order: list[Any]) -> None:
    from integrity._diagnosis import _reordered, view_size

    assert _reordered(order, {}) == _reordered(flat(order), {})
    assert view_size(order) == len(flat(order) or [])


def test_when_no_process_can_be_forked_the_reader_checks_each_block_itself(tiny_blocks: None,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refuse)
    messages: list[Any] = [user("hi", 1), frame([("c1", "search")], 2), user("again", 3)]
    assert_same_reading(messages, "one per line")
    data = one_per_line(messages).replace(b'"timestamp":3', b'"timestamp":3e999')
    for fast in streamed(data):
        assert fast is None  # the number is still found, by this process


def test_check_says_in_one_line_that_a_file_changed_while_the_providers_were_asked(
        tiny_blocks: None, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A transcript the fast path read in blocks is read again for a provider's verdict (a pi-ai file has no
    target provider of its own: --provider names one) unless its bones were made as it was read: every
    message's bones (read without them), or those of the few messages the light view's judgment looks at
    (providers.sparse); a file that changed meanwhile is one line.  DeepSeek's bones are made as the file is
    read, so its verdict never reads the file twice."""
    messages: list[Any] = [user("hi", 1), frame([("c1", "search")], 2), result("c1", "search", "x" * 200, 3)]
    path = tmp_path / "live.json"
    path.write_bytes(one_per_line(messages * 5))
    import integrity._bulk.fast_bones as fast_bones
    import integrity.cli as cli
    from integrity.pipeline import Loaded

    def changing(read: Any) -> Any:  # the file changes after the light view, before it is read again
        def change_then_read(*args: Any) -> Any:
            with open(path, "ab") as handle:
                handle.write(b"\n")
            return read(*args)

        return change_then_read

    changed = [f"error: {path}: it changed while it was being read (is something writing to it?); try again when "
               f"it is quiet"]
    quiet = run("check", "--provider", "deepseek", str(path))
    with monkeypatch.context() as patch:
        patch.setattr(Loaded, "bones", changing(Loaded.bones))
        outcome = run("check", "--provider", "deepseek", str(path))  # bones made as read: nothing read again
        assert (outcome.code, outcome.stdout) == (quiet.code, quiet.stdout), outcome.stderr
    path.write_bytes(one_per_line(messages * 5))
    with monkeypatch.context() as patch:  # the light view's judgment reads the messages around the broken turn
        patch.setattr(fast_bones, "bones_at", changing(fast_bones.bones_at))
        outcome = run("check", "--provider", "openai-chat", str(path))
        assert outcome.code == 2 and outcome.error_lines == changed, outcome.stderr
    path.write_bytes(one_per_line(messages * 5))
    with monkeypatch.context() as patch:  # read without bones: every message's are read again
        patch.setattr(Loaded, "bones", changing(Loaded.bones))
        patch.setattr(cli, "_bones", lambda args: False)
        outcome = run("check", "--provider", "openai-chat", str(path))
        assert outcome.code == 2 and outcome.error_lines == changed, outcome.stderr


@pytest.mark.parametrize("around", [("[", "]"), (" \n[\r\n", "\n ]\n\t"), ('{"messages": [', "]}"), ("[", "] x")])
def test_an_array_in_memory_in_one_block_is_decoded_as_it_lies_or_joined(around: tuple[str, str]) -> None:
    """array_blocks hands over a whole array held in memory as its own bytes (no copy) when nothing but JSON
    whitespace is around its brackets, else the joined document; either decodes to the same values and holds
    the same key tokens."""
    values = ['{"role":"user","content":"a: b"}', '{"role":"user","content":"c"}']
    head, tail = around
    data = (head + ",\n".join(values) + tail).encode()
    low = len(head)
    high = low + len(",\n".join(values))
    (offset, length, document, decoded), = blocks.array_blocks(blocks.Source(data), low, high)
    assert (offset, length) == (low, high - low)
    assert [bytes(value) for value in decoded] == [value.encode() for value in values]
    assert document.count(b'":') == sum(value.count('":') for value in values)
    lies = head.strip() == "[" and tail.strip() == "]"
    assert (document is data) == lies
