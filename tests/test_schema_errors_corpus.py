"""The schema validator words every malformed entry exactly as the pydantic twins it replaced did.

Until the schema models' errors were collected by integrity.schema.base's own walker,
each model had a generated pydantic "twin" (strict mode, extra fields allowed) whose
error list worded the findings.  `tests/data/schema_errors_corpus.json` was generated
from that code (run this file: `python3 tests/test_schema_errors_corpus.py`) before the
twins were removed, from seeded random data:

- "models": for every input model, random entries (each field typed, mistyped, absent or
  null, nested parts included) and the twin's complete error list: (clean location, type);
- "entries": random mutations of entries of every sample transcript (a value replaced by
  another JSON type, a key dropped, a tuple instead of an array) and the family's issues
  (path, finding code, sentence), for JSON input and for hand-built (Python) input.

The walker must give the same errors in the same order, and the same findings, but where a finding was moved
on purpose since: a Gemini function response whose `response` is not an object is no schema finding any more
(Gemini's rule function_response_not_object refuses it and the repaired view wraps it), so the one corpus entry
that expected it (entries[97]) no longer does; and a Chat message (OpenAI Chat's shape, mini-swe-agent's too) whose
`content` is an object is read as its JSON text and refused by OpenAI Chat's rule content_not_text (the repaired view
sends the text), so the four corpus entries that expected "'content' is an object" for it (entries[378], [408],
[418], [502]) no longer do; and a Gemini content's roles the reader knows include `tool` (Genkit's role of a turn of
function responses, read as `function` is: the provider's rule role_invalid judges it), so the one sentence listing
them says so; and a Chat tool message without `content` is refused by OpenAI Chat's rule content_missing and sent with
an empty text by the writer's finish step (what the finish step sends is no malformed entry left in place:
schema.openai.check_entries), so the corpus entry that expected "'content' is missing" for it (entries[115]) no
longer does.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import random
import sys
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest

import integrity.schema
from integrity.formats import read_all
from integrity.loading import TranscriptError
from integrity.schema import family, pi_ai
from integrity.schema.base import Open, json_input

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "schema_errors_corpus.json"
FAMILIES = tuple(sorted(module.name for module in pkgutil.iter_modules(integrity.schema.__path__)
                        if module.name != "base"))


def _models() -> dict[str, type[Open]]:
    found: dict[str, type[Open]] = {}
    for name in FAMILIES:
        module = importlib.import_module(f"integrity.schema.{name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Open) and value.__module__ == module.__name__:
                found[f"{name}.{value.__name__}"] = value
    return found


MODELS = _models()
_SCALARS: list[Any] = [None, True, False, 0, 7, -3, 2**70, 1.5, 0.0, "", "x", "user", "text", "a\ud800", "toolCall",
                       "function", "success", "completed", "message"]


def _json(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 2 or roll < 0.6:
        return rng.choice(_SCALARS)
    if roll < 0.8:
        return [_json(rng, depth + 1) for _ in range(rng.randint(0, 2))]
    return {rng.choice(["a", "type", "text", "id"]): _json(rng, depth + 1) for _ in range(rng.randint(0, 2))}


def _typed(kind: Any, rng: random.Random, depth: int) -> Any:
    if rng.random() < 0.25:
        return _json(rng)
    if isinstance(kind, type) and issubclass(kind, Open):
        return _entry(kind, rng, depth + 1)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Literal:
        return rng.choice(args) if rng.random() < 0.9 else rng.choice(args) + "\ud800"
    if origin in (typing.Union, __import__("types").UnionType):
        return _typed(rng.choice(args), rng, depth)
    if origin is list:
        return [_typed(args[0], rng, depth + 1) for _ in range(rng.randint(0, 3 if depth < 2 else 1))]
    if origin is dict:
        return {"k": _typed(args[1], rng, depth + 1)} if rng.random() < 0.5 else {}
    simple = {str: lambda: rng.choice(["s", "", "\ud800"]), int: lambda: rng.choice([1, -(2**70)]),
              float: lambda: rng.choice([1.5, 2]), bool: lambda: rng.choice([True, False]),
              type(None): lambda: None}
    return simple[kind]() if kind in simple else _json(rng)


def _entry(model: type[Open], rng: random.Random, depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    config = model.__struct_config__
    if config.tag_field is not None and rng.random() < 0.9:
        out[config.tag_field] = config.tag if rng.random() < 0.8 else _json(rng)
    for info in msgspec.structs.fields(model):
        if rng.random() < 0.8:
            out[info.name] = _typed(info.type, rng, depth) if depth < 3 else _json(rng)
    if rng.random() < 0.3:
        out["extra"] = _json(rng)
    return out


def _tags(name: str) -> frozenset[str]:
    """The part tags pydantic put in pi-ai locations (main's clean_loc drops them)."""
    if not name.startswith("pi_ai."):
        return frozenset()
    return frozenset(str(model.__struct_config__.tag) for key, model in MODELS.items()
                     if key.startswith("pi_ai.") and model.__struct_config__.tag is not None)


def _mutate(value: Any, rng: random.Random) -> Any:
    """value with one spot changed: replaced by another JSON value, a key dropped, or an array made a tuple."""
    spots: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                spots.append((node, key))
                walk(child)
        elif isinstance(node, list):
            for position, child in enumerate(node):
                spots.append((node, position))
                walk(child)

    walk(value)
    if not spots:
        return value
    parent, key = rng.choice(spots)
    roll = rng.random()
    if roll < 0.2 and isinstance(parent, dict):
        del parent[key]
    elif roll < 0.3 and isinstance(parent[key], list):
        parent[key] = ("tuple", *parent[key])
    else:
        parent[key] = _json(rng)
    return value


def _tuples_to_lists(value: Any) -> Any:
    """A JSON-ready copy, tuples written as {"__tuple__": [...]}; `_revive` undoes it."""
    if isinstance(value, tuple):
        return {"__tuple__": [_tuples_to_lists(item) for item in value]}
    if isinstance(value, list):
        return [_tuples_to_lists(item) for item in value]
    if isinstance(value, dict):
        return {key: _tuples_to_lists(item) for key, item in value.items()}
    return value


def _revive(value: Any) -> Any:
    if isinstance(value, list):
        return [_revive(item) for item in value]
    if isinstance(value, dict):
        if set(value) == {"__tuple__"}:
            return tuple(_revive(item) for item in value["__tuple__"])
        return {key: _revive(item) for key, item in value.items()}
    return value


def _has_tuple(value: Any) -> bool:
    if isinstance(value, tuple):
        return True
    if isinstance(value, list):
        return any(_has_tuple(item) for item in value)
    if isinstance(value, dict):
        return any(_has_tuple(item) for item in value.values())
    return False


def _issues(format: str, entry: Any, trusted: bool) -> list[list[str]]:
    module = family(format)
    with json_input(trusted):
        if module is None or module is pi_ai:
            found = [*pi_ai.check_messages([entry]), *pi_ai.check_messages([entry], canonical=True)]
        else:
            found = module.check_entries(format, [entry], {})
    return [[issue.path, issue.code.value, issue.detail] for issue in found]


def _sources() -> list[Path]:
    real = sorted(path for path in (ROOT / "tests" / "real").glob("*.json*") if path.stat().st_size < 200_000)
    return sorted((ROOT / "sample_transcripts").glob("*.json*")) + real


def generate() -> dict[str, Any]:  # pragma: no cover - run by hand, against the code the corpus freezes
    """The corpus, from the validator in place (run it only against the reference implementation)."""
    from pydantic import ValidationError

    from integrity.schema.base import clean_loc, twin  # type: ignore[attr-defined]  # main's code before the walker

    rng = random.Random(25)
    models: list[Any] = []
    for name, model in MODELS.items():
        for _ in range(10):
            entry = _entry(model, rng) if rng.random() < 0.9 else _json(rng)
            try:
                twin(model).model_validate(entry)
                errors: list[Any] = []
            except ValidationError as error:
                errors = [[list(clean_loc(e["loc"], _tags(name))), e["type"]] for e in error.errors()]
            models.append([name, entry, errors])
    entries: list[Any] = []
    for path in _sources():
        try:
            transcripts = read_all(path.read_bytes(), path.name)
        except TranscriptError:
            continue
        for transcript in transcripts:
            native = transcript.native or transcript.messages
            small = [entry for entry in native if len(json.dumps(entry)) < 450]
            for entry in rng.sample(small, min(len(small), 3)):
                for _ in range(2):
                    mutated = json.loads(json.dumps(entry))
                    for _ in range(rng.randint(1, 3)):
                        mutated = _mutate(mutated, rng)
                    plain = _issues(transcript.format, mutated, False)
                    if not _has_tuple(mutated):
                        assert _issues(transcript.format, mutated, True) == plain
                    entries.append([transcript.format, _tuples_to_lists(mutated), plain])
    return {"models": models, "entries": entries}


def _corpus() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(CORPUS.read_text())
    return loaded


def test_the_corpus_covers_every_model_and_format() -> None:
    corpus = _corpus()
    assert {name for name, _, _ in corpus["models"]} == set(MODELS)
    assert sum(1 for _, _, errors in corpus["models"] if errors) > len(corpus["models"]) // 3
    assert {"pi-ai", "anthropic", "bedrock", "gemini", "openai-chat", "openai-responses", "langchain",
            "claude-code"} <= {format for format, _, _ in corpus["entries"]}
    assert sum(1 for _, _, issues in corpus["entries"] if issues) > 100


def test_every_model_gives_the_twins_errors_in_the_twins_order() -> None:
    from integrity.schema.base import model_errors

    mismatches = []
    for name, entry, expected in _corpus()["models"]:
        got = [[list(loc), kind] for loc, kind in model_errors(MODELS[name], entry)]
        if got != expected:
            mismatches.append((name, entry, got, expected))
    assert not mismatches, mismatches[:3]


@pytest.mark.parametrize("trusted", [False, True], ids=["python-objects", "json-text"])
def test_every_mutated_sample_entry_gets_the_twins_findings(trusted: bool) -> None:
    mismatches = []
    for format, stored, expected in _corpus()["entries"]:
        entry = _revive(stored)
        if trusted and _has_tuple(entry):
            continue  # a tuple is never in an entry decoded from JSON text
        got = _issues(format, entry, trusted)
        if got != expected:
            mismatches.append((format, entry, got, expected))
    assert not mismatches, mismatches[:3]


if __name__ == "__main__":  # pragma: no cover
    CORPUS.parent.mkdir(exist_ok=True)
    CORPUS.write_text(json.dumps(generate(), separators=(",", ":")) + "\n")
    print(f"{CORPUS}: {CORPUS.stat().st_size} bytes", file=sys.stderr)
