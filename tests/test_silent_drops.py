"""No message vanishes unseen: a broken kind field on a real file's line is read, refused or reported.

Each real transcript has its kind-like keys (a line's type, a message's role, an event's action, a
Codex payload, a Gemini content's parts...) set to a value of the wrong type, or removed.  Whatever
the reader then does, a message that is no longer read must not disappear without a word: the file
is refused with an error, or a finding names the line and the transcript is not called healthy.
Lines of an unknown *string* kind are bookkeeping (runtimes add kinds all the time) and not tried.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from integrity import analyze
from integrity.analysis import load_all
from integrity.loading import TranscriptError
from integrity.pipeline import check

REAL = Path(__file__).resolve().parent / "real"
REFUSED = ("cc_summaries_only.claude-code.jsonl", "unknown_shape.json", "cline_ui_messages.json")
"""Real files kept because they are refused whole (no message, no known shape, a log recognised as having no
tool calls to check)."""
FILES = sorted(path for path in REAL.iterdir()
               if path.suffix in (".json", ".jsonl", ".traj") and path.name not in REFUSED)
KEYS = ("role", "type", "content", "message", "payload", "parts", "tool_calls", "action", "observation")
VALUES: tuple[Any, ...] = (5, None, [], "DEL")
SPOTS_PER_FILE = 80


def _spots(value: Any, path: tuple[Any, ...] = ()) -> Any:
    if isinstance(value, dict):
        for key in value:
            if key in KEYS:
                yield path, key
        for key, inner in value.items():
            yield from _spots(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _spots(inner, (*path, index))


class _Raw(str):
    """A JSONL line that is not JSON (a torn or bad line, kept on purpose): written back as it was."""


def _parse(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return _Raw(line)


def _encode(documents: list[Any], jsonl: bool) -> bytes:
    if jsonl:
        return "".join((document if isinstance(document, _Raw) else json.dumps(document)) + "\n"
                       for document in documents).encode()
    return json.dumps(documents[0]).encode()


def _read(data: bytes, name: str) -> list[Any] | None:
    try:
        return load_all(data, name)
    except TranscriptError:
        return None  # refused with an error: loud, not a silent drop


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_a_message_that_is_no_longer_read_is_never_dropped_unseen(path: Path) -> None:
    """At most SPOTS_PER_FILE spots per file (the first ones: about 3 s for the whole corpus)."""
    jsonl = path.suffix == ".jsonl"
    raw = path.read_bytes()
    documents = [_parse(line) for line in raw.decode().splitlines() if line.strip()] if jsonl \
        else [json.loads(raw)]
    whole = load_all(raw, path.name)
    count = sum(len(transcript.messages) for transcript in whole)
    unseen = []
    spots = [(at, spot) for at, document in enumerate(documents) for spot in _spots(document)]
    for at, (where, key) in spots[:SPOTS_PER_FILE]:
        for value in VALUES:
            broken = copy.deepcopy(documents)
            node = broken[at]
            for step in where:
                node = node[step]
            if value == "DEL":
                del node[key]
            else:
                node[key] = value
            read = _read(_encode(broken, jsonl), path.name)
            if read is None or sum(len(transcript.messages) for transcript in read) >= count:
                continue
            reports = [analyze(transcript).report for transcript in read]
            if path.name.startswith("openhands_") and key == "action" and value == "DEL":
                continue  # an event with neither 'action' nor 'observation' is not recognisably an event
            if not any(report.findings for report in reports) or all(report.healthy for report in reports):
                # (or the file's own provider refuses what is left, naming it: a Gemini content emptied of its parts,
                # parts_empty, is the provider's verdict, not a finding)
                judged = [check(transcript) for transcript in read]
                if any(v.target and v.providers[v.target].before and not v.healthy for v in judged):
                    continue
                unseen.append((at, where, key, value))
    assert unseen == [], f"messages dropped without a finding: {unseen[:5]}"


@pytest.mark.parametrize("name", REFUSED)
def test_the_real_files_left_out_are_refused_whole(name: str) -> None:
    with pytest.raises(TranscriptError):
        load_all((REAL / name).read_bytes(), name)
