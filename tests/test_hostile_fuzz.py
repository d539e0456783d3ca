"""A fuzz suite kept in the tests (issue 30, item 6): the API and the pages' query parameters.

Hypothesis draws transcripts (well-formed shapes with ids from a tiny alphabet, so
calls, results, strays and duplicates meet), byte-level mutations of real samples,
.eval archives and arbitrary query values.  Invariants:

- the API (load, load_all, analyze, export_view, and load_all on the export) raises
  nothing but the engine's TranscriptError, ValueError or TypeError, each one line,
  and never changes its input;
- every page, whatever its query parameters, runs without an exception and shows
  no link or image to a host of the value's choosing (tests/markdown_spans.py).

Example counts and deadlines keep the whole file well under a minute.
"""

from __future__ import annotations

import copy
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import streamlit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import integrity
from integrity import TranscriptError
from tests.markdown_spans import outside_code_spans

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = [p.read_bytes() for p in sorted((ROOT / "sample_transcripts").iterdir()) if p.suffix in (".json", ".jsonl")]
EXPECTED = (TranscriptError, ValueError, TypeError)
API = settings(max_examples=60, deadline=2000, suppress_health_check=[HealthCheck.too_slow], database=None)
PAGES = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)

ids = st.sampled_from(["a", "b", "c", "", " ", "a\u0000", "Bash:12", "call_1|fc_1"])
scalars = st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=12)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)
call = st.builds(lambda i, n, a: {"type": "toolCall", "id": i, "name": n, "arguments": a},
                 ids, st.sampled_from(["ls", "grep", ""]),
                 st.dictionaries(st.text(max_size=4), json_values, max_size=3))
assistant = st.builds(lambda calls, stop: {"role": "assistant", "content": calls, "stopReason": stop},
                      st.lists(call, max_size=3), st.sampled_from(["toolUse", "stop", "aborted", "error"]))
result = st.builds(lambda i, text, error: {"role": "toolResult", "toolCallId": i, "toolName": "ls",
                                           "content": [{"type": "text", "text": text}], "isError": error},
                   ids, st.text(max_size=20), st.booleans())
user = st.builds(lambda text: {"role": "user", "content": text}, st.text(max_size=20))
odd = st.dictionaries(st.sampled_from(["role", "content", "id", "toolCallId", "type"]), json_values, max_size=4)
messages = st.lists(st.one_of(assistant, result, user, odd), max_size=8)


def one_line(error: BaseException) -> None:
    assert isinstance(error, EXPECTED), f"{type(error).__name__}: {error}"
    assert "\n" not in str(error) and str(error).strip(), repr(str(error))


def api_round(data: bytes) -> None:
    """load, analyze and export whatever the bytes are; only the engine's own errors, each one line."""
    before = bytes(data)
    try:
        transcripts = integrity.load_all(data, "fuzz.json")
    except Exception as error:  # noqa: BLE001 - the invariant is on the type
        one_line(error)
        return
    for transcript in transcripts:
        durable = copy.deepcopy(transcript.messages)
        try:
            analysis = integrity.analyze(transcript, "strict")
            written = integrity.export_view(analysis)
        except Exception as error:  # noqa: BLE001 - the invariant is on the type
            one_line(error)
            continue
        assert transcript.messages == durable  # the input is never changed
        try:  # the export reads again (a view keeping a malformed entry may read as no transcript: one line)
            integrity.load_all(written, "again.json", analysis.transcript.writes_as or transcript.format)
        except Exception as error:  # noqa: BLE001 - the invariant is on the type
            one_line(error)
    assert data == before


@API
@given(messages, st.sampled_from(["array", "jsonl", "object"]))
def test_drawn_transcripts_load_analyze_and_export_within_the_invariants(drawn: list[Any], shape: str) -> None:
    if shape == "array":
        data = json.dumps(drawn).encode()
    elif shape == "jsonl":
        data = "".join(json.dumps(m) + "\n" for m in drawn).encode()
    else:
        data = json.dumps({"model": "m", "messages": drawn}).encode()
    api_round(data)


@API
@given(st.sampled_from(SAMPLES), st.data())
def test_mutated_samples_stay_within_the_invariants(sample: bytes, data: st.DataObject) -> None:
    mutated = bytearray(sample)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, max(len(mutated) - 1, 0)))
        action = data.draw(st.sampled_from(["flip", "cut", "insert", "truncate"]))
        if action == "flip" and mutated:
            mutated[at] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del mutated[at:at + data.draw(st.integers(1, 40))]
        elif action == "insert":
            mutated[at:at] = data.draw(st.sampled_from([b'"a":1,', b"\x00", b"\xff\xfe", b"{", b"]", b"\r\n", b'\\"']))
        else:
            del mutated[at:]
    api_round(bytes(mutated))


@API
@given(st.lists(st.tuples(st.sampled_from(["samples/1_epoch_1.json", "samples/x.json", "header.json", "a/../b"]),
                          st.binary(max_size=64) | messages.map(lambda m: json.dumps({"messages": m}).encode())),
                max_size=4))
def test_drawn_eval_archives_stay_within_the_invariants(members: list[tuple[str, bytes]]) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, (name, content) in enumerate(members):
            archive.writestr(f"{name}{number}" if name.endswith("/b") else name, content)
    api_round(buffer.getvalue())


NOT_JSON = (float("nan"), float("inf"), b"raw", frozenset({1}), object())
hand_built = st.lists(st.one_of(assistant, result, user), max_size=6).flatmap(
    lambda drawn: st.tuples(st.just(drawn), st.none() if not drawn else st.none() | st.sampled_from(NOT_JSON)))


def _json_only(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_only(v) for k, v in value.items())
    if isinstance(value, list):
        return all(map(_json_only, value))
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    return value is None or isinstance(value, (str, int, bool))


@API
@given(hand_built)
def test_the_api_never_changes_a_hand_built_transcript_nor_calls_one_that_is_not_json_healthy(
        case: tuple[list[Any], Any]) -> None:
    drawn, odd = case
    if odd is not None:  # planted in the last message: a value JSON cannot hold
        drawn[-1]["extra"] = {"value": odd}
    kept = copy.deepcopy(drawn) if odd is None else None
    try:
        analysis = integrity.analyze(integrity.Transcript(drawn), "openmaic")
        integrity.export_view(analysis)
    except Exception as error:  # noqa: BLE001 - the invariant is on the type
        one_line(error)
    else:
        assert _json_only(drawn), "a transcript holding a value JSON cannot hold was analyzed"
    if kept is not None:
        assert drawn == kept


HOST = "attacker.invalid"
query_values = st.one_of(
    st.text(max_size=30),
    st.sampled_from([f"![a](http://{HOST}/g)", f"[x](http://{HOST}/l)", f"<img src=http://{HOST}/i>",
                     f"http://{HOST}/bare", "`", "``", "\u202e", "%00", "../../etc/passwd"]),
).flatmap(lambda value: st.builds(lambda prefix, suffix: prefix + value + suffix,
                                  st.sampled_from(["", "`", "[", "!"]), st.sampled_from(["", "`", "](x)"])))
PAGE_FILES = ("pages/glossary.py", "pages/lessons.py", "pages/quiz.py", "pages/inspector_page.py", "pages/lab.py")
PARAMS = ("term", "lesson", "seed", "sample", "msg", "policy", "provider", "view", "scenario")


@PAGES
@given(st.sampled_from(PAGE_FILES), st.dictionaries(st.sampled_from(PARAMS), query_values, min_size=1, max_size=4))
def test_pages_take_any_query_values_without_an_exception_or_a_live_link(page: str, params: dict[str, str]) -> None:
    streamlit.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for name, value in params.items():
        at.query_params[name] = value
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    for element in [*at.markdown, *at.caption, *at.warning, *at.error, *at.info, *at.success, *at.title,
                    *at.subheader]:
        outside = outside_code_spans(str(element.value))
        assert HOST not in outside and "<img" not in outside, str(element.value)[:200]
