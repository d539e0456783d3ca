"""A verdict's request is written without reading the file again, and it is the very request the re-read writes.

to_native re-reads a transcript's file to tell a message a caller changed in place from one as read (_Originals);
`check` of a 200,000-message Chat file spent a quarter of its time on that re-read for the verdict after repair, and
validated the same entries a second time.  The engine's verdicts now trust the messages they read (to_native's
`trusted`: a message of the view is one of the transcript's own objects, or a copy the planner made) and reuse the
verdict as recorded for the very same entries (providers.canonical._validated).  Every file of a provider's request
format the tests hold, and generated transcripts of every defect kind written in each format, are written both
ways here, as recorded and for the view the strict policy plans for the file's provider: the same entries, sources
and body, and the same verdicts.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from integrity.analysis import load_all
from integrity.formats.registry import to_native, write_bytes
from integrity.loading import Transcript, TranscriptError
from integrity.pipeline import check
from integrity.providers import PROVIDER_FORMAT, validate
from integrity.repair.entries import materialize
from integrity.repair.policies import PLANNERS, light_view

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import generate  # noqa: E402  (bench/generate.py: every defect kind)

FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")
OWN = {"openai-chat": "openai-chat", "openai-responses": "openai-responses", "anthropic": "anthropic",
       "gemini": "gemini", "bedrock": "bedrock"}
FILES = sorted(path for folder in ("sample_transcripts", "tests/real", "tests/recorded", "tests/golden")
               for path in (ROOT / folder).rglob("*.json*") if path.is_file())


def _transcripts() -> list[tuple[str, Any]]:
    """Every transcript of a provider format in the files, the recorded provider cases' and answers' requests, and
    generated transcripts of every defect kind written in each format."""
    found = []
    bodies = [(str(path.relative_to(ROOT)), path.name, path.read_bytes()) for path in FILES]
    bodies += [(str(path.relative_to(ROOT)), f"{path.stem}.json", json.dumps(json.loads(path.read_bytes())["request"])
                .encode()) for path in sorted((ROOT / "tests" / "provider_cases").glob("*.json"))]
    for path in sorted((ROOT / "tests" / "recorded").glob("*.jsonl")):  # recorded provider answers' requests
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            record = json.loads(line)
            bodies.append((f"{path.name}:{number}", f"{path.stem}-{number}.{PROVIDER_FORMAT[record['provider']]}.json",
                           json.dumps(record["request"]).encode()))
    for seed, rate in itertools.product(range(3), (0.08, 0.5, 1.0)):  # every defect kind, written in each format
        generated = Transcript(list(generate.messages(300, seed=seed, defect_rate=rate)), "generated.json",
                               json_typed=True)
        bodies += [(f"generated-{seed}-{rate}.{format}", f"generated.{format}.json",
                    write_bytes(generated, None, format)) for format in FORMATS]
    for shown, name, data in bodies:
        try:
            read = load_all(data, name)
        except (TranscriptError, ValueError):
            continue
        found.extend((f"{shown}#{t.name}", t) for t in read if t.format in FORMATS and t.native)
    return found


TRANSCRIPTS = _transcripts()


def _view(transcript: Any) -> list[Any]:
    """The strict view planned for the file's own provider (the messages themselves when it changes nothing)."""
    plan = PLANNERS["strict"](light_view(transcript.messages, "strict"), OWN[transcript.format])
    if not plan.changed or plan.order is None:
        return transcript.messages
    return materialize(plan.order, transcript.messages, plan.placeholder, lambda: 0)[0]


def test_the_corpus_holds_every_provider_format_and_views_that_change() -> None:
    assert {t.format for _, t in TRANSCRIPTS} >= set(FORMATS)
    changed = {t.format for _, t in TRANSCRIPTS if _view(t) is not t.messages}
    assert changed >= set(FORMATS)


@pytest.mark.parametrize(("name", "transcript"), TRANSCRIPTS, ids=[name for name, _ in TRANSCRIPTS])
def test_it_is_the_request_the_re_read_writes(name: str, transcript: Any) -> None:
    for messages in (transcript.messages, _view(transcript)):
        trusted = to_native(messages, transcript.format, transcript, trusted=True)
        written = to_native(messages, transcript.format, transcript)
        assert trusted.messages == written.messages
        assert trusted.sources == written.sources
        assert trusted.body == written.body


def test_the_verdicts_are_those_of_the_re_read_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file's verdicts by its own provider, as recorded and after repair, are the same when every request is
    written with the file read again."""
    import integrity.formats.registry as registry

    quick = {name: _verdicts(t) for name, t in TRANSCRIPTS}
    originals = registry._Originals
    monkeypatch.setattr(registry, "_Originals", lambda transcript, trusted=False: originals(transcript, False))
    assert {name: _verdicts(t) for name, t in TRANSCRIPTS} == quick


def test_a_message_changed_in_place_is_seen_by_validate() -> None:
    """The public `validate` never trusts: a caller who changes a message of the transcript in place and asks again
    is judged on the change (the file is read again to tell it from the message as read)."""
    [transcript] = load_all(json.dumps({"messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "bye"}]}).encode(), "chat.openai-chat.json")
    assert validate(transcript.messages, "openai-chat", transcript) == []
    transcript.messages[2].update(role="toolResult", toolCallId="call_gone", content=[{"type": "text", "text": "x"}])
    said = validate(transcript.messages, "openai-chat", transcript)
    assert said and said == validate([dict(message) for message in transcript.messages], "openai-chat", transcript)


def _verdicts(transcript: Any) -> tuple[Any, ...]:
    result = check(transcript)
    return tuple((name, [(v.rule, v.position, v.canonical_indices) for v in said.before],
                  [(v.rule, v.position, v.canonical_indices) for v in said.after])
                 for name, said in sorted(result.providers.items()))
