"""The schema check's one msgspec pass over a Chat file (schema.openai._all_plain_chat) and over canonical messages
(schema.pi_ai.all_plain) says "nothing wrong" only where the check of each entry (schema.openai._chat,
schema.pi_ai.check_message) finds nothing, and says it of the files people have."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from integrity import Transcript, load_all
from integrity.schema.base import each_entry, json_input
from integrity.schema.openai import _all_plain_chat, _chat, check_entries
from integrity.schema.pi_ai import all_plain, check_message

ROOT = Path(__file__).resolve().parent.parent
CHAT_SHAPED = ("openai-chat.jsonl", "mistral.jsonl", "deepseek.jsonl")


def recorded_requests() -> list[list[Any]]:
    """The messages of every recorded Chat-shaped request (OpenAI, Mistral, DeepSeek: tests/recorded)."""
    found = []
    for name in CHAT_SHAPED:
        for line in (ROOT / "tests" / "recorded" / name).read_text(encoding="utf-8").splitlines():
            messages = json.loads(line).get("request", {}).get("messages")
            if isinstance(messages, list):
                found.append(messages)
    return found


def read_files() -> list[Transcript]:
    """Every transcript of every sample and real file, as its reader made it."""
    found: list[Transcript] = []
    for path in sorted([*(ROOT / "sample_transcripts").iterdir(), *(ROOT / "tests" / "real").iterdir()]):
        if path.suffix in (".json", ".jsonl"):
            try:
                found += load_all(path.read_bytes(), path.name)
            except ValueError:
                continue
    return found


def chat_files() -> list[list[Any]]:
    """The native entries of every sample and real file read as OpenAI Chat."""
    return [transcript.native for transcript in read_files() if transcript.format == "openai-chat"]


def batch_says(entries: list[Any]) -> tuple[bool, list[Any]]:
    with json_input(True):
        return _all_plain_chat(entries), each_entry(entries, _chat)


def test_the_chat_files_people_have_pass_in_one_pass_and_have_no_issue() -> None:
    corpus = recorded_requests() + chat_files()
    assert len(corpus) > 40
    passed = 0
    for entries in corpus:
        plain, issues = batch_says(entries)
        assert not plain or issues == [], entries
        passed += plain
    assert passed >= len(corpus) * 3 // 4  # (the one pass is what most files take)


MUTATIONS: list[Any] = [None, 1, 1.5, True, "", "x", [], {}, [1], [{"type": "text"}], [{"type": "text", "text": 1}],
                        [{"type": "image_url", "image_url": "u"}], [{"type": "other"}], {"a": 1}, "{", "[1]", "{}",
                        "Tool", "function", "\ud800", '{"a": NaN}', [{"text": "no type"}], "[" * 300, "toolResult",
                        "opaque", "custom", "toolUse", [{"type": "toolCall", "id": 1, "name": "f"}], -1, 2 ** 70]
KEYS = ["role", "content", "name", "refusal", "tool_calls", "tool_call_id", "id", "type", "function", "arguments",
        "text", "image_url", "toolCallId", "isError", "stopReason", "errorMessage", "timestamp", "usage", "data",
        "thinking", "textSignature", "toolName"]


def _spots(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key and index path inside a JSON value."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _spots(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _spots(item, (*path, index))
    return found


def _mutated(entries: list[Any], chance: random.Random) -> list[Any]:
    changed = copy.deepcopy(entries)
    for _ in range(chance.randint(1, 2)):
        path = chance.choice(_spots(changed)[1:])
        holder = changed
        for step in path[:-1]:
            holder = holder[step]
        last = path[-1]
        move = chance.randrange(3)
        if move == 0:
            holder[last] = copy.deepcopy(chance.choice(MUTATIONS))
        elif move == 1 and isinstance(holder, dict):
            del holder[last]
        elif isinstance(holder[last], dict):
            holder[last][chance.choice(KEYS)] = copy.deepcopy(chance.choice(MUTATIONS))
    return changed


def test_no_mutation_of_a_chat_file_passes_the_one_pass_with_an_issue_left() -> None:
    chance = random.Random(7)
    corpus = [entries for entries in recorded_requests() + chat_files() if len(json.dumps(entries)) < 20_000]
    refused = 0
    for _ in range(4000):
        entries = _mutated(chance.choice(corpus), chance)
        plain, issues = batch_says(entries)
        assert not plain or issues == [], entries
        refused += not plain
    assert refused > 1000  # (the mutations reach what the one pass must refuse)


def test_entries_built_by_hand_are_checked_one_by_one() -> None:
    """msgspec is more lenient with Python objects than with JSON text (a tuple passes as a list): the one pass is
    only for entries decoded from JSON text."""
    entries = [{"role": "user", "content": ("not", "a", "list")}]
    with json_input(False):
        assert not _all_plain_chat(entries)
        assert check_entries("openai-chat", entries, {}) != []


def canonical_messages() -> list[tuple[list[Any], bool]]:
    """The messages of every sample and real file as its reader made them (canonical: not a pi-ai file's own)."""
    return [(transcript.messages, transcript.format != "pi-ai") for transcript in read_files()]


def canonical_says(messages: list[Any], canonical: bool) -> tuple[bool, list[Any]]:
    with json_input(True):
        return all_plain(messages, canonical), [issue for index, message in enumerate(messages)
                                                for issue in check_message(message, index, canonical)]


def test_the_messages_every_reader_makes_pass_in_one_pass_and_have_no_issue() -> None:
    corpus = canonical_messages()
    assert len(corpus) > 100
    passed = 0
    for messages, canonical in corpus:
        plain, issues = canonical_says(messages, canonical)
        assert not plain or issues == [], messages
        passed += plain
    assert passed >= len(corpus) * 3 // 4


def test_no_mutation_of_a_canonical_transcript_passes_the_one_pass_with_an_issue_left() -> None:
    chance = random.Random(11)
    corpus = [pair for pair in canonical_messages() if len(json.dumps(pair[0], default=str)) < 20_000]
    refused = 0
    for _ in range(4000):
        messages, canonical = chance.choice(corpus)
        changed = _mutated(messages, chance)
        plain, issues = canonical_says(changed, canonical)
        assert not plain or issues == [], changed
        refused += not plain
    assert refused > 1000
