"""The schema models' two validators (integrity.schema.base): msgspec says "valid", the checker words the errors.

Each input model is declared once, as a msgspec struct; `model_errors` lists every error
with the checker compiled from the same declaration (integrity.schema._compiled, held to
the old walker by tests/test_schema_compiled.py).  These tests hold what makes the pair
safe to use:

- on JSON values the two agree on every entry, valid or not (so msgspec's "valid"
  never hides a finding the walker would report);
- msgspec is trusted only for transcripts this package decoded from JSON text, and
  every transcript the readers return is such a transcript, holding JSON's types only;
- no file of any format, valid or malformed, loads pydantic to be checked or repaired.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest
from _pydantic_probe import PROBE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import integrity.schema
from integrity import Transcript
from integrity.formats import read_all
from integrity.kinds import FindingCode
from integrity.loading import TranscriptError
from integrity.schema import schema_findings
from integrity.schema.base import Open, accepts, model_errors

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_transcripts"
REAL = ROOT / "tests" / "real"
FAMILIES = tuple(sorted(module.name for module in pkgutil.iter_modules(integrity.schema.__path__)
                        if not module.name.startswith("_") and module.name != "base"))  # every family module,
# so a new one is covered too (the shared code, base and the private _compiled, declares no model)


def _models() -> list[type[Open]]:
    found: list[type[Open]] = []
    for family in FAMILIES:
        module = importlib.import_module(f"integrity.schema.{family}")
        found.extend(value for value in vars(module).values()
                     if isinstance(value, type) and issubclass(value, Open) and value.__module__ == module.__name__)
    return found


MODELS = _models()

# Text includes lone surrogates: JSON's "\ud800" decodes to one, and msgspec cannot encode it.
TEXT = st.text(st.characters(blacklist_categories=()), max_size=4)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), TEXT)
JSON = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                    max_leaves=8)


def _value(kind: Any) -> st.SearchStrategy[Any]:
    """Mostly a value of the declared type (so deep errors are reached), sometimes any JSON value."""
    return st.one_of(_typed(kind), JSON) if kind is not Any else JSON


def _typed(kind: Any) -> st.SearchStrategy[Any]:
    if isinstance(kind, type) and issubclass(kind, Open):
        return _entry(kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Literal:
        return st.one_of(st.sampled_from(args), st.sampled_from(args).map(lambda value: value + "\ud800"))
    if origin in (typing.Union, __import__("types").UnionType):
        return st.one_of(*(_typed(arg) for arg in args))
    if origin is list:
        return st.lists(_value(args[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(st.text(max_size=3), _value(args[1]), max_size=3)
    simple = {str: TEXT, int: st.integers(-(2**70), 2**70), float: st.floats(allow_nan=False),
              bool: st.booleans(), type(None): st.none()}
    return simple.get(kind, JSON)


def _entry(model: type[Open]) -> st.SearchStrategy[dict[str, Any]]:
    """A dict for `model`: each field present (typed or any value) or absent, its tag usually right, an extra key."""
    fields = msgspec.structs.fields(model)
    config = model.__struct_config__

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if config.tag_field is not None and draw(st.integers(0, 9)):
            out[config.tag_field] = config.tag if draw(st.integers(0, 5)) else draw(JSON)
        for info in fields:
            if draw(st.integers(0, 4)):
                out[info.name] = draw(_value(info.type))
        if draw(st.booleans()):
            out["extra"] = draw(JSON)
        return out

    return build()


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m.__module__.rsplit('.', 1)[-1]}.{m.__name__}")
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_msgspec_and_the_walker_agree_on_json_values(model: type[Open], data: st.DataObject) -> None:
    entry = data.draw(st.one_of(_entry(model), JSON))
    assert accepts(model, entry) == (not model_errors(model, entry)), json.dumps(entry)


def _wrong_everywhere(model: type[Open]) -> dict[str, Any]:
    """An entry with every field (and the tag) of the wrong type, so each is reported."""
    return {name: object() for name in ("type", *(info.name for info in msgspec.structs.fields(model)))}


def test_the_walker_keeps_the_declared_field_order_with_a_tag_first() -> None:
    from integrity.schema import langchain, pi_ai

    fields = [loc[0] for loc, _ in model_errors(pi_ai.ToolCall, _wrong_everywhere(pi_ai.ToolCall))]
    assert fields == ["type", "id", "name", "arguments", "thoughtSignature"]
    fields = [loc[0] for loc, _ in model_errors(langchain.ToolFields, _wrong_everywhere(langchain.ToolFields))]
    assert fields[-2:] == ["tool_call_id", "status"]


def test_a_hand_built_transcript_is_judged_by_the_walker_where_msgspec_would_be_lenient() -> None:
    # A tuple is not a JSON array: the walker refuses it as content, msgspec would take it.
    transcript = Transcript([{"role": "user", "content": ("a tuple",), "timestamp": 1}], "hand.json")
    assert not transcript.json_typed
    findings = schema_findings(transcript)
    assert [f.kind for f in findings] == [FindingCode.INVALID_CONTENT]


def _json_only(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_only(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_only(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


@pytest.mark.parametrize("path", sorted([*SAMPLES.glob("*.json*"), *REAL.glob("*.json*"), *REAL.glob("*.eval")]),
                         ids=lambda p: p.name)
def test_every_transcript_the_readers_return_holds_json_types_only(path: Path) -> None:
    try:
        transcripts = read_all(path.read_bytes(), path.name)
    except TranscriptError as error:  # refused whole (its own test says why): no transcript to trust
        assert "\n" not in str(error)
        transcripts = []
    for transcript in transcripts:
        assert transcript.json_typed
        assert _json_only(transcript.messages) and _json_only(transcript.native)


@pytest.mark.parametrize("sample", ["split_results.anthropic.json", "healthy.bedrock.json", "healthy.gemini.json",
                                    "healthy.openai-chat.json", "healthy.openai-responses.json",
                                    "healthy.langchain.json", "healthy.claude-code.jsonl"])
@pytest.mark.parametrize("command", ["check", "repair"])
def test_a_small_valid_file_of_any_format_is_judged_without_pydantic(sample: str, command: str,
                                                                     tmp_path: Path) -> None:
    extra = ["-o", str(tmp_path / sample)] if command == "repair" else []
    done = subprocess.run([sys.executable, "-c", PROBE, command, str(SAMPLES / sample), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "pydantic not loaded" in done.stderr, done.stderr
    assert "malformed" not in done.stdout + done.stderr


def test_a_malformed_entry_gets_the_complete_wording_without_pydantic(tmp_path: Path) -> None:
    bad = [{"role": "user", "content": [{"type": "text", "text": 7}]},
           {"role": "assistant", "content": [{"type": "tool_use", "id": "A", "name": "grep", "input": []}]}]
    path = tmp_path / "bad.anthropic.json"
    path.write_text(json.dumps(bad))
    done = subprocess.run([sys.executable, "-c", PROBE, "check", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert "pydantic not loaded" in done.stderr, done.stderr
    assert "message 0 (line 1): 'content[0].text' is a number (7), which is not valid here" in done.stdout
    # the strict view repairs the input that is not an object (sent as {}): a repair, not a finding
    assert "1 call(s) with invalid arguments repaired" in done.stdout and "content[0].input" not in done.stdout
    reference = subprocess.run([sys.executable, "-c", PROBE, "check", "--policy", "openmaic", str(path)], cwd=ROOT,
                               capture_output=True, text=True, timeout=60)
    assert "message 1 (line 1): 'content[0].input' must be a JSON object, got an array" in reference.stdout


def test_a_lone_surrogate_in_a_role_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    """Found by byte fuzzing: msgspec raised UnicodeEncodeError comparing "user\\ud800" to its literal."""
    path = tmp_path / "surrogate.json"
    path.write_text('[{"role": "user\\ud800", "content": "go"}]')
    done = subprocess.run([sys.executable, "-m", "integrity", "check", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "malformed: message 0 (line 1): role" in done.stdout and "internal error" not in done.stderr
