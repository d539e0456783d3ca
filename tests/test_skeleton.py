"""A request's skeleton stands for the request: the same verdicts and error texts, for every provider.

`check --provider` judges the skeleton of each request (integrity.formats.skeleton: roles, grouping, block
kinds, ids and positions, no text) instead of the full native request.  That is only sound while every
rule set reads structure alone and every skeleton writer groups exactly as its format's writer: these
tests hold the two verdicts equal, violation for violation (rule, position, error text, native and
canonical indices, call ids), on every sample, every file in tests/real/, every recorded request in
tests/recorded/ and generated transcripts with every defect kind, as recorded and for the view planned
for each provider.  They also hold the fast path's bones (read from raw bytes) equal to the bones of
the decoded messages, and `check`'s answer equal with and without the skeleton.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from integrity.formats import read_all
from integrity.formats.skeleton import (
    BLANK_FORMATS,
    BLANK_TEXT,
    ERROR_CONTENT,
    ERROR_CONTENT_FORMATS,
    IMAGE,
    IMAGE_FORMATS,
    all_bones,
    stands_for,
)
from integrity.loading import Transcript, TranscriptError
from integrity.providers import PROVIDER_FORMAT, PROVIDERS, validate_native
from integrity.providers.canonical import (
    in_context,
    judge_written,
    judged_request,
    skeleton_once,
    with_canonical_indices,
)
from integrity.repair.entries import materialize
from integrity.repair.policies import PLANNERS, light_view

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import generate  # noqa: E402  (bench/generate.py: every defect kind)

SEEDS = range(4)
RATES = (0.08, 0.5, 1.0)


def _files() -> Iterator[tuple[str, Transcript]]:
    paths = sorted((ROOT / "sample_transcripts").iterdir()) + sorted((ROOT / "tests" / "real").iterdir())
    for path in paths:
        if path.suffix == ".md" and "aider" not in path.name:
            continue
        try:
            found = read_all(path.read_bytes(), str(path))
        except TranscriptError:
            continue  # the unreadable files of the corpus (test_real_corpus pins their errors)
        for transcript in found:
            yield f"{path.name}#{transcript.name}", transcript
    for path in sorted((ROOT / "tests" / "recorded").glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            record = json.loads(line)
            data = json.dumps(record["request"]).encode()
            for transcript in read_all(data, f"{path.name}:{number}", PROVIDER_FORMAT[record["provider"]]):
                yield f"{path.name}:{number}", transcript


def _generated() -> Iterator[tuple[str, Transcript]]:
    for seed, rate in itertools.product(SEEDS, RATES):
        messages = list(generate.messages(400, seed=seed, defect_rate=rate))
        yield f"generated-{seed}-{rate}", Transcript(messages, f"generated-{seed}-{rate}", json_typed=True)


CORPUS = list(_files()) + list(_generated())


def _views(transcript: Transcript, provider: str) -> list[list[Any]]:
    """The transcript's messages and the view the strict policy plans for the provider."""
    plan = PLANNERS["strict"](light_view(transcript.messages, "strict"), provider)
    view = materialize(plan.order, transcript.messages, plan.placeholder, lambda: 7)[0] \
        if plan.changed and plan.order is not None else transcript.messages
    return [transcript.messages, view]


def test_the_corpus_is_large_and_varied() -> None:
    formats = {transcript.format for _, transcript in CORPUS}
    assert len(CORPUS) > 250 and len(formats) >= 20, (len(CORPUS), sorted(formats))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_skeleton_verdicts_equal_the_full_requests(provider: str) -> None:
    """Every violation, as recorded and after repair, the same from the skeleton as from the full request."""
    format = PROVIDER_FORMAT[provider]
    compared = refused = 0
    for name, transcript in CORPUS:
        if transcript.format == format or not stands_for({transcript.format}, format):
            continue  # judged on its own recorded entries, or written from its hints (a Codex rollout as Responses)
        for messages in _views(transcript, provider):
            written = skeleton_once(messages, format, None)
            marks = all_bones(messages)[1] if written is None else set()
            if format in BLANK_FORMATS and BLANK_TEXT in marks or format in ERROR_CONTENT_FORMATS \
                    and ERROR_CONTENT in marks or format in IMAGE_FORMATS and IMAGE in marks:
                continue  # a blank text, which Anthropic's and Bedrock's empty-content rules read, an error
                # result's content Anthropic refuses, or an image OpenAI Chat's providers judge: a skeleton carries
                # none
            assert written is not None, f"{name}: carries hints of {format} without being read from it"
            native, sources, _ = judged_request(messages, provider, transcript)  # the full request, written
            full = with_canonical_indices(in_context(validate_native(native, provider, history=True, ids=True),
                                                     transcript), sources)
            assert in_context(judge_written(written, provider), transcript) == full, f"{name} ({provider})"
            compared += 1
            refused += bool(full)
    assert compared > 400 and refused > 25, (compared, refused)  # broken files among them, not only healthy ones


def test_messages_with_hints_of_the_format_get_no_skeleton() -> None:
    """A message read from the format keeps hints its writer reads (verbatim entries, item heads): the full
    writer must write it."""
    for name, transcript in CORPUS:
        _, hinted = all_bones(transcript.messages)
        if transcript.format in PROVIDER_FORMAT.values() and transcript.format in hinted:
            assert skeleton_once(transcript.messages, transcript.format, None) is None, name
            return
    raise AssertionError("no transcript of a provider's own format in the corpus")


def _pi_ai_files() -> Iterator[tuple[str, bytes]]:
    for path in sorted((ROOT / "sample_transcripts").glob("*.json*")):
        yield path.name, path.read_bytes()
    for seed, rate in itertools.product(SEEDS, RATES):
        yield f"generated-{seed}-{rate}", json.dumps(list(generate.messages(400, seed=seed, defect_rate=rate))).encode()
    odd = [{"role": "user", "content": [{"type": "image", "mimeType": "image/png"}, {"type": "text", "text": "x"}]},
           {"role": "assistant", "content": [], "stopReason": "aborted", "_native": {"format": "anthropic"}},
           {"role": "system", "content": "be brief"},
           {"role": "assistant", "content": [{"type": "thinking", "thinking": ""},
                                             {"type": "toolCall", "id": "a", "name": "t", "arguments": {}}]},
           {"role": "toolResult", "toolCallId": "a", "toolName": "t", "content": [], "isError": False}]
    yield "odd", json.dumps(odd).encode()
    # an error result holding an image (Anthropic refuses it, a skeleton cannot show it), one of text alone
    failed = [{"role": "user", "content": "look"},
              {"role": "assistant", "content": [{"type": "toolCall", "id": "b", "name": "shot", "arguments": {}},
                                                {"type": "toolCall", "id": "c", "name": "shot", "arguments": {}}]},
              {"role": "toolResult", "toolCallId": "b", "toolName": "shot", "isError": True, "content": [
                  {"type": "text", "text": "Error: timeout"},
                  {"type": "image", "data": "iVBO", "mimeType": "image/png"}]},
              {"role": "toolResult", "toolCallId": "c", "toolName": "shot", "isError": True,
               "content": [{"type": "text", "text": "Error"}]}]
    yield "failed-with-image", json.dumps(failed).encode()
    # a tool named by a whole shell command, over Anthropic's 200 characters, and one with no name: the sparse
    # judgment's light view holds no rule on names, the skeleton does
    named = [{"role": "user", "content": "go"},
             {"role": "assistant", "content": [{"type": "toolCall", "id": "d", "name": "ls -la " * 29, "arguments": {}},
                                               {"type": "toolCall", "id": "e", "name": "", "arguments": {}}]},
             {"role": "toolResult", "toolCallId": "d", "toolName": "ls", "isError": True,
              "content": [{"type": "text", "text": "No such tool available"}]},
             {"role": "toolResult", "toolCallId": "e", "toolName": "", "isError": True,
              "content": [{"type": "text", "text": "No such tool available"}]}]
    yield "tool-named-by-a-command", json.dumps(named).encode()
    # the same deep in a long request whose turns combine messages (a system message, two user messages in a
    # row): judged in windows, its positions moved by entries (Anthropic's per-block rules) or turns
    turn = [{"role": "user", "content": "and?"}, {"role": "user", "content": "go on"},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "f", "name": "files.read", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": "f", "toolName": "files.read",
             "content": [{"type": "text", "text": "x"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]
    plain = [{"role": "user", "content": "next"},
             {"role": "assistant", "content": [{"type": "toolCall", "id": "g", "name": "ls", "arguments": {}}]},
             {"role": "toolResult", "toolCallId": "g", "toolName": "ls", "content": [{"type": "text", "text": "y"}]},
             {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]
    deep = _unique_ids([{"role": "system", "content": "be brief"}] + plain * 12 + turn + plain * 12 + named + plain * 3)
    yield "tool-names-deep", json.dumps(deep).encode()
    # an error result with no content (Anthropic and Bedrock refuse it) deep in a long request: judged on its full
    # request by every path, its positions the request's own
    empty = [{"role": "user", "content": "run it"},
             {"role": "assistant", "content": [{"type": "toolCall", "id": "h", "name": "run", "arguments": {}}]},
             {"role": "toolResult", "toolCallId": "h", "toolName": "run", "isError": True, "content": []},
             {"role": "assistant", "content": [{"type": "text", "text": "it failed"}]}]
    yield "error-result-empty-deep", json.dumps(_unique_ids(plain * 12 + empty + plain * 12)).encode()


def _unique_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of the messages whose ids are unique in the request: each call's id gets its message's index, and
    each result the id of the latest call it answered."""
    copied = json.loads(json.dumps(messages))
    latest: dict[str, str] = {}
    for at, message in enumerate(copied):
        for part in message["content"] if isinstance(message["content"], list) else ():
            if part.get("type") == "toolCall":
                latest[part["id"]] = f"{part['id']}{at}"
                part["id"] = latest[part["id"]]
        if message["role"] == "toolResult":
            message["toolCallId"] = latest[message["toolCallId"]]
    return copied


def test_fast_bones_equal_the_decoded_messages_bones() -> None:
    from integrity._bulk.fast_bones import fast_bones
    from integrity._bulk.fast_read import read_fast

    read = 0
    for name, data in _pi_ai_files():
        fast = read_fast(data, name)
        if fast is None:
            continue
        messages = [json.loads(bytes(raw)) for raw in fast.raws]
        assert fast_bones(fast.raws, fast.light.size) == all_bones(messages), name
        assert fast.bones is None  # made only when asked: a check without a provider never judges them
        made = read_fast(data, name, bones=True)
        assert made is not None and made.bones == all_bones(messages), name  # made while reading, the same
        read += 1
    assert read >= 14


def _check_both(monkeypatch: pytest.MonkeyPatch, transcript_or_file: Any, **options: Any) -> tuple[Any, Any]:
    """check_unit's answer with the skeleton and with the full requests (timestamps from one counter each)."""
    import integrity.pipeline as pipeline
    import integrity.providers.canonical as canonical
    import integrity.skeleton_verdicts as on_skeletons

    answers = []
    real = on_skeletons.skeleton_verdicts
    for skeleton_on in (True, False):
        ticks = itertools.count(1_000)
        with monkeypatch.context() as patch:
            if skeleton_on:
                def counted(*args: Any, **kwargs: Any) -> Any:
                    found = real(*args, **kwargs)
                    USED.append(found is not None)
                    return found

                patch.setattr(on_skeletons, "skeleton_verdicts", counted)
            else:  # the full requests: neither the pipeline's bones nor judge's skeleton (whole or in windows)
                patch.setattr(on_skeletons, "skeleton_verdicts", lambda *args, **kwargs: None)
                patch.setattr(canonical, "skeleton_once", lambda *args, **kwargs: None)
                patch.setattr(canonical, "_windowed", lambda *args, **kwargs: None)
            answers.append(pipeline.check_unit(transcript_or_file, now=ticks.__next__, **options))
    return answers[0], answers[1]


USED: list[bool] = []


@pytest.mark.parametrize("depth", ["diagnosis", "report"])
def test_check_says_the_same_with_and_without_the_skeleton(monkeypatch: pytest.MonkeyPatch, depth: str) -> None:
    """The fast path (raw bytes, no dicts) and the general reader, each provider the target, all asked beside."""
    from integrity._bulk.fast_read import read_fast
    from integrity.pipeline import ALL_PROVIDERS, Loaded

    checked = 0
    USED.clear()
    for name, data in _pi_ai_files():
        fast = read_fast(data, name)
        loaded = [Loaded(name, fast=fast)] if fast is not None else []
        loaded += [Loaded.of(transcript) for transcript in read_all(data, name)]
        for one, provider in itertools.product(loaded, [*PROVIDERS, None]):
            also = ALL_PROVIDERS if provider is None else ()
            with_skeleton, without = _check_both(monkeypatch, one, provider=provider, also=also, depth=depth)
            assert with_skeleton.providers == without.providers, (name, provider)
            assert with_skeleton.report == without.report, (name, provider)
            checked += 1
    assert checked > 100 and USED.count(True) > 100 and USED.count(False) > 20, (checked, USED.count(True))


def test_the_inspectors_verdicts_are_the_same_with_and_without_the_skeleton(monkeypatch: pytest.MonkeyPatch) -> None:
    """judged_by_providers (the Inspector's provider table: every provider, each view re-planned for its
    provider, the bones of each view reused from the transcript's) against the full requests."""
    import integrity.providers.canonical as canonical
    from integrity import analyze, judged_by_providers

    compared = 0
    for name, transcript in CORPUS[::3]:
        analysis = analyze(transcript)
        with_skeleton = judged_by_providers(analysis, PROVIDERS, now=lambda: 7)
        with monkeypatch.context() as patch:
            patch.setattr(canonical, "skeleton_once", lambda *args, **kwargs: None)
            patch.setattr(canonical, "_windowed", lambda *args, **kwargs: None)
            without = judged_by_providers(analysis, PROVIDERS, now=lambda: 7)
        assert with_skeleton.verdicts == without.verdicts, name
        assert with_skeleton.report == without.report, name
        compared += 1
    assert compared > 80
