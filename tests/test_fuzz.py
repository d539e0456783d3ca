"""Fuzzing the CLI with garbage (issue 10, item 7): random bytes, cut-off files, one field
of a real transcript given the wrong type, deep nesting, odd file names.

Whatever comes in, `check` and `repair` must: exit 0, 1 or 2 (never the internal
error code), print at most one line on stderr and never a traceback, leave the
input as it was, and either write both outputs or neither; every transcript
`repair` writes must read again and `check` must call it healthy.

The CLI runs in this process (tests/cli_inprocess.py); example counts are kept
small enough for the file to run in well under a minute.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli_inprocess import CODES, REPO, Result, passes_check, run, run_process

SAMPLES = {p.name: p.read_bytes() for p in sorted((REPO / "sample_transcripts").iterdir())
           if p.suffix in (".json", ".jsonl")}


def _parses(name: str, data: bytes) -> bool:
    try:
        if name.endswith(".jsonl"):
            [json.loads(line) for line in data.decode().splitlines() if line.strip()]
        else:
            json.loads(data)
    except ValueError:  # the torn and broken ones: the byte-level tests cover those
        return False
    return True


REAL = {p.name: p.read_bytes() for p in sorted((REPO / "tests" / "real").iterdir())
        if p.suffix in (".json", ".jsonl", ".traj") and _parses(p.name, p.read_bytes())}
"""Files other tools wrote (Claude Code, Codex, SWE-agent, inspect, OpenHands, LangGraph...): their shapes,
mutated, found a crash the samples never reached (a SWE-agent message whose content is a list of strings)."""
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Values of every JSON type, each a likely wrong type for some field.
ODD_VALUES: list[Any] = [None, True, False, 0, -1, 1.5, 10**30, "", "x", "Assistant", "banana", [], [1], ["x"],
                         {}, {"a": 1}, {"type": "text"}, [{"type": "toolCall"}]]


def assert_contract(result: Result, *, quiet: bool) -> None:
    """What every run guarantees, whatever the input."""
    assert result.code in CODES, (result.code, result.stderr)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    lines = result.error_lines
    if result.code == 2 or (result.code == 1 and not quiet):
        assert len(lines) == 1, result.stderr
    if quiet or result.code == 0:
        assert lines == [], result.stderr


def exercise(data: bytes, name: str = "in.json") -> tuple[Result, Result]:
    """check, then repair with -o and --report, then check what repair wrote."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = root / name
        path.write_bytes(data)
        out, report = root / "out", root / "report.json"
        checked = run("check", path)
        assert_contract(checked, quiet=checked.code != 2)
        repaired = run("repair", path, "-o", out, "--report", report)
        assert_contract(repaired, quiet=repaired.code == 1)  # exit 1: written, and one note says what is left
        assert path.read_bytes() == data
        if checked.code == 2:  # what check cannot read, repair cannot either (the reverse may hold: a
            assert repaired.code == 2, repaired.stderr  # file of several broken transcripts needs --thread)
        written = sorted(p.name for p in root.iterdir() if p != path)
        if repaired.code in (0, 1):  # repair always writes its best view (issue 26)
            assert written == ["out", "report.json"]
            assert "report_version" in json.loads(report.read_bytes())
        if repaired.code == 0:
            assert passes_check(out), (data[:300], out.read_bytes()[:300], run("check", out).stdout)
        elif repaired.code == 1:
            assert [line for line in repaired.stderr.splitlines() if "`check` still flags it" in line], \
                repaired.stderr
        else:
            assert written == [], written  # neither output, and no temporary file left behind
        return checked, repaired


# ---------------------------------------------------------------- strategies


def container_of(name: str, data: bytes) -> str:
    return "jsonl" if name.endswith(".jsonl") else "json"


def dump(value: Any, container: str) -> bytes:
    if container == "jsonl":
        return "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in value).encode()
    return json.dumps(value, ensure_ascii=False, indent=1).encode()


def parsed(name: str) -> Any:
    data = SAMPLES[name] if name in SAMPLES else REAL[name]
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in data.decode().splitlines() if line.strip()]
    return json.loads(data)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a parsed document (keys and indices)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*prefix, index))
    return found


def _at(document: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        document = document[step]
    return document


def replaced(document: Any, path: tuple[Any, ...], value: Any, delete: bool = False) -> Any:
    """A copy of document with the value at path replaced (or its key removed)."""
    document = json.loads(json.dumps(document))
    holder = document
    for step in path[:-1]:
        holder = holder[step]
    if delete:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return document


@st.composite
def mutations(draw: st.DrawFn, corpus: dict[str, bytes] = SAMPLES) -> tuple[str, bytes]:
    """A transcript of the corpus with one field given another type (or removed)."""
    name = draw(st.sampled_from(sorted(corpus)))
    document = parsed(name)
    path = draw(st.sampled_from(paths(document)))
    delete = draw(st.booleans()) and isinstance(path[-1], str)
    value = draw(st.sampled_from(ODD_VALUES))
    return name, dump(replaced(document, path, value, delete), container_of(name, corpus[name]))


# ---------------------------------------------------------------- the fuzz tests


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes(data: bytes) -> None:
    exercise(data)


@FUZZ
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_truncated_transcripts(name: str, data: st.DataObject) -> None:
    whole = SAMPLES[name]
    cut = data.draw(st.integers(min_value=0, max_value=len(whole) - 1))
    exercise(whole[:cut], "in" + Path(name).suffix)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_one_field_of_another_type(case: tuple[str, bytes]) -> None:
    name, data = case
    exercise(data, "in" + Path(name).suffix)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations(REAL))
def test_one_field_of_a_real_file_of_another_type(case: tuple[str, bytes]) -> None:
    name, data = case
    exercise(data, "in" + Path(name).suffix)


def test_a_message_whose_content_is_a_list_of_strings_is_judged_not_a_crash() -> None:
    """Found by the test above: an OpenAI-shaped message (SWE-agent's history) with content ["x"] crashed
    writing the Chat request for the providers (internal error)."""
    document = parsed("swe_function_calling.swe-agent.traj")
    path = ("history", 9, "content")  # a tool message's observation
    assert isinstance(_at(document, path), str)
    checked, repaired = exercise(dump(replaced(document, path, ["x"]), "json"), "in.traj")
    assert checked.code in (0, 1) and repaired.code in (0, 1)


def test_a_pi_answer_naming_its_api_or_stop_reason_with_a_list_is_judged_not_a_crash() -> None:
    """Found by the test above in a fresh clone: a pi session whose answer has `"api": []` (or a stopReason that is
    an object) crashed choosing the model pi sends the session to (a list put in a set: internal error, exit 70)."""
    document = parsed("pi_codex_unanswered_call.pi-session.jsonl")
    answer = (4, "message")
    assert _at(document, (*answer, "role")) == "assistant" and isinstance(_at(document, (*answer, "api")), str)
    for field, value in (("api", []), ("api", {}), ("stopReason", []), ("stopReason", {}), ("provider", ["x"])):
        data = dump(replaced(document, (*answer, field), value), "jsonl")
        checked, repaired = exercise(data, "in.pi-session.jsonl")
        assert checked.code in (0, 1) and repaired.code in (0, 1), (field, value, checked.stderr)


def _shapes(document: Any) -> list[tuple[Any, ...]]:
    """One path to a scalar for each place a document holds one (indices of lists folded): every field a reader
    may read, once."""
    first: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for path in paths(document):
        if not isinstance(_at(document, path), (dict, list)):
            first.setdefault(tuple("#" if isinstance(step, int) else step for step in path), path)
    return list(first.values())


@pytest.mark.parametrize("name", sorted({**REAL, **SAMPLES}))
def test_every_field_given_a_list_or_an_object_is_judged_not_a_crash(name: str) -> None:
    """Every field of every real file and sample, one at a time, given a list or an object where the writer put a
    string or a number: a reader that puts such a value in a set or a dict key (pi's `"api": []` did) crashes.
    Sampling one field at random found that crash only now and then; this asks each field, for every provider."""
    corpus = SAMPLES if name in SAMPLES else REAL
    document = parsed(name)
    for index, path in enumerate(_shapes(document)):
        value: Any = [] if index % 2 == 0 else {}
        with tempfile.TemporaryDirectory() as folder:
            target = Path(folder) / ("in" + Path(name).suffix)
            target.write_bytes(dump(replaced(document, path, value), container_of(name, corpus[name])))
            for argv in (("check", target), ("check", target, "--provider", "all")):
                result = run(*argv)
                assert result.code in CODES and "internal error" not in result.stderr, (path, value, result.stderr)


@FUZZ
@given(st.sampled_from(sorted(SAMPLES)), st.integers(min_value=1, max_value=3000), st.data())
def test_deep_nesting_anywhere(name: str, depth: int, data: st.DataObject) -> None:
    document = parsed(name)
    path = data.draw(st.sampled_from(paths(document)))
    deep: Any = []
    for _ in range(min(depth, 150)):  # built as text past this, so json.dumps never recurses deeply
        deep = [deep]
    text = dump(replaced(document, path, "@@DEEP@@"), container_of(name, SAMPLES[name])).decode()
    extra = max(depth - 150, 0)
    nest = "[" * extra + json.dumps(deep) + "]" * extra
    exercise(text.replace('"@@DEEP@@"', nest).encode(), "in" + Path(name).suffix)


ODD_NAME_CHARACTERS = st.sampled_from(list(" \t\n\r\x1b\x7f'\"$*?[]{}();&|<>\\~#%!é中\u202e\u200b\U0001f600-.,:="))


@FUZZ
@given(st.text(ODD_NAME_CHARACTERS, min_size=1, max_size=40).filter(lambda n: n not in (".", "..")),
       st.sampled_from(sorted(SAMPLES)))
def test_odd_file_names(name: str, sample: str) -> None:
    checked, repaired = exercise(SAMPLES[sample], name)
    assert checked.code in (0, 1) and repaired.code in (0, 1)


@FUZZ
@given(st.sampled_from(sorted(SAMPLES)), st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "9" * 4400]),
       st.data())
def test_values_json_cannot_hold_anywhere(name: str, token: str, data: st.DataObject) -> None:
    document = parsed(name)
    path = data.draw(st.sampled_from(paths(document)))
    text = dump(replaced(document, path, "@@BAD@@"), container_of(name, SAMPLES[name])).decode()
    checked, _ = exercise(text.replace('"@@BAD@@"', token).encode(), "in" + Path(name).suffix)
    runtime = {".claude-code.jsonl": "Claude Code (since 2.1.121)", ".goose.jsonl": "goose (its legacy sessions)"}
    skipping = next((who for suffix, who in runtime.items() if name.endswith(suffix)), None)
    if skipping is not None and token in ("NaN", "Infinity", "-Infinity") and checked.code == 1:
        # not JSON by its grammar: Claude Code's JSON.parse (goose's serde_json) refuses the line and leaves it out
        # when it resumes, and so does the reader (1e999 and a 4,400-digit integer are JSON it reads: the file is
        # refused as elsewhere)
        assert f"as {skipping} leaves it out" in checked.stdout.decode()
        return
    assert checked.code == 2 and ", column " in checked.stderr


# ---------------------------------------------------------------- what fuzzing found

# (sample, path, value): each of these once crashed check or repair (an unhashable id used as a key).
FOUND = [
    ("compacted_call.claude-code.jsonl", (3, "parentUuid"), []),
    ("compacted_call.claude-code.jsonl", (3, "uuid"), []),
    ("split_batch.claude-code.jsonl", (4, "message", "content", 0, "tool_use_id"), {}),
    ("healthy.claude-code.jsonl", (3, "message", "content", 0, "id"), []),
    ("split_batch.claude-code.jsonl", (3, "message", "id"), []),
    ("stray_result.pi-ai.json", (1, "toolCallId"), {}),
    ("two_results.openai-chat.json", (3, "tool_call_id"), [{"type": "toolCall"}]),
    ("stray_result.pi-ai.json", (1, "content", 0, "type"), []),
]


def test_what_fuzzing_found() -> None:
    for name, path, value in FOUND:
        assert path in paths(parsed(name)), (name, path)
        data = dump(replaced(parsed(name), path, value), container_of(name, SAMPLES[name]))
        checked, _ = exercise(data, "in" + Path(name).suffix)
        assert checked.code in (1, 2)  # never healthy: the schema reports the broken id
        for provider in ("openai-responses", "anthropic", "gemini"):
            assert run("check", "--provider", provider, "-", stdin=data).code in CODES


# ---------------------------------------------------------------- a few real processes

GARBAGE = {
    "binary": bytes(range(256)) * 3,
    "truncated": SAMPLES["crash_duplicate.pi-ai.json"][:500],
    "nan": SAMPLES["healthy.pi-ai.json"].replace(b"1763000000000", b"NaN", 1),
    "deep": b"[" * 50_000 + b"]" * 50_000,
    "banana": b'[{"role": "banana"}]',
}


def test_garbage_in_a_real_process(tmp_path: Path) -> None:
    """The same contract outside pytest's process: real standard streams, a real exit status."""
    for name, data in GARBAGE.items():
        path = tmp_path / f"{name} \x1b[1m\n.json"
        path.write_bytes(data)
        for argv in (["check", path], ["repair", path, "-o", tmp_path / "o.json", "--report", tmp_path / "r.json"]):
            done = run_process(*argv)
            stderr = done.stderr.decode("utf-8", "replace")
            assert done.returncode in CODES, (name, argv[0], stderr)
            assert "Traceback" not in stderr and len(stderr.splitlines()) <= 1, (name, stderr)
        assert path.read_bytes() == data
        written = done.returncode in (0, 1)  # repair writes its best view of what it can read, else nothing
        assert (tmp_path / "o.json").exists() == written and (tmp_path / "r.json").exists() == written, name
        for output in (tmp_path / "o.json", tmp_path / "r.json", path):
            output.unlink(missing_ok=True)


# ---------------------------------------------------------------- schema-breaking mutations

PI_AI = sorted(name for name in SAMPLES if ".pi-ai." in name)
# Fields of a pi-ai transcript whose type the schema fixes, and values that break it.
BREAKING: dict[str, list[Any]] = {
    "role": [None, 1, [], {}, "banana", "Assistant"],
    "content": [1, True, {"type": "text"}],
    "id": [None, 1, [], {}],
    "name": [None, 1, [], {}],
    "toolCallId": [None, 1, [], {}],
    "arguments": [1, "x", [1]],
}


@st.composite
def breaking_mutations(draw: st.DrawFn) -> tuple[str, bytes, tuple[Any, ...]]:
    name = draw(st.sampled_from(PI_AI))
    document = parsed(name)
    candidates = [p for p in paths(document) if p and p[-1] in BREAKING
                  and (p[-1] not in ("id", "name", "arguments") or len(p) == 4)]  # a call part's fields
    path = draw(st.sampled_from(candidates))
    value = draw(st.sampled_from(BREAKING[path[-1]]))
    return name, dump(replaced(document, path, value), "json"), path


@FUZZ
@given(breaking_mutations())
def test_every_schema_breaking_mutation_is_reported(case: tuple[str, bytes, tuple[Any, ...]]) -> None:
    name, data, path = case
    checked, repaired = exercise(data)
    assert checked.code in (1, 2), (path, checked.stdout)
    if checked.code == 1 and path[-1] == "arguments":  # the strict view repairs invalid arguments (issue 26)
        assert b"repaired arguments 1" in checked.stdout, (path, checked.stdout)
        assert repaired.code == 0, (path, repaired.stderr)  # and what repair writes passes check
    elif checked.code == 1:
        assert b"malformed" in checked.stdout, (path, checked.stdout)


def test_an_openhands_response_whose_tool_calls_is_not_a_list_is_read_not_a_crash() -> None:
    """Found by mutating tests/real: tool_calls -1 in an action's kept model response was iterated
    (internal error).  A malformed list is read as no list, like a malformed call in one: the action's
    own call (tool_call_metadata) stands for it."""
    document = parsed("openhands_trajectory.openhands.json")
    path = ("trajectory", 4, "tool_call_metadata", "model_response", "choices", 0, "message", "tool_calls")
    assert isinstance(_at(document, path), list)
    checked, repaired = exercise(dump(replaced(document, path, -1), "json"), "in.openhands.json")
    assert checked.code in (0, 1) and repaired.code in (0, 1)
