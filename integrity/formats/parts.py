"""The documents one file holds: an eval log's samples, a retried SWE-agent run's attempts.

Most files hold one entry list (container.parse_document finds it).  Some hold
several transcripts side by side, each its own entry list:

- an Inspect AI eval log: `samples[].messages` in a .json log, or one
  `samples/<id>_epoch_<n>.json` member per sample in a .eval zip (read through
  formats.archive, which bounds how far it may inflate); each sample is
  `sample:<id>` (`sample:<id>@<epoch>` for epochs after the first);
- a SWE-agent trajectory of a retried run: every attempt's history under
  `attempts` (`attempt:<n>`) besides the chosen one at the top (`main`);
- an AutoGen saved state: an agent's LLM context, one per agent of a team
  (`agent:<name>` when several; autogen);
- a Letta agent file (.af): each agent's in-context messages, `agent:<name>` when
  it holds several agents (letta);
- an OpenAI Agents SDK RunState: its original input and generated items, read as
  one history (openai_agents);
- OpenAI fine-tuning JSONL: every line `{"messages": [...]}` (optionally `tools`,
  `parallel_tool_calls`) is one training example, `line:<n>` (its line number), read
  as OpenAI Chat when every example's messages fit it.

Threads inside one entry list (Claude Code sidechains, abandoned branches) are the
format adapters' business (their `threads`); this module only splits files.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from typing import Any

from ..loading import ReaderNote, TranscriptError, as_bytes, describe_value
from . import autogen, letta, openai_agents
from .archive import open_archive, read_members
from .container import Document, envelope_without, json_problem, loads, parse_document
from .duplicates import duplicate_note
from .refusals import refuse_entries, refuse_text

_ZIP_MAGIC = b"PK\x03\x04"


@dataclass
class Part:
    """One document of a file: its entries, its name and the format it must be read as ("auto": detect)."""

    document: Document
    name: str = "main"
    kind: str = "main"
    format: str = "auto"


def split_file(data: bytes, source: str, skip_bad_lines: bool | str = False) -> list[Part]:
    """The documents of a file, in a stable order (data: bytes or any bytes-like object)."""
    data = as_bytes(data)
    if data[:4] == _ZIP_MAGIC:
        return _eval_archive(data, source)
    refuse_text(data, source)
    document = parse_document(data, source, skip_bad_lines)
    refuse_entries(document.entries, source)
    if _is_examples(document):
        return _examples(document, source)
    if _is_instances(document):
        return _instances(document)
    whole = document.whole
    states = autogen.saved_states(whole)
    if states is not None:
        named = len(states) > 1
        return [Part(Document(items, [0] * len(items), "array"), f"agent:{name}" if named else "main",
                     "agent" if named else "main", autogen.NAME) for name, items in states]
    if letta.is_agent_file(whole):
        agents = whole["agents"]
        parts = []
        for position, agent in enumerate(agents):
            items = letta.in_context(agent)
            name = letta.agent_name(agent, position) if len(agents) > 1 else "main"
            parts.append(Part(Document(items, [0] * len(items), "array"), name, name.split(":")[0], letta.NAME))
        return parts
    if openai_agents.is_run_state(whole):
        items = openai_agents.run_state_items(whole)
        return [Part(Document(items, [0] * len(items), "array"), format=openai_agents.NAME)]
    if isinstance(whole, dict):
        if _is_eval_log(whole):
            return _samples(whole.get("samples"), source)
        attempts = whole.get("attempts")
        if isinstance(attempts, list) and attempts and all(
                isinstance(a, dict) and isinstance(a.get("history"), list) for a in attempts):
            parts = [Part(document, "main", "main", "swe-agent")] if document.key == "history" else []
            for number, attempt in enumerate(attempts, start=1):
                history = attempt["history"]
                doc = Document(history, [0] * len(history), "object", "history", envelope_without(attempt, "history"))
                parts.append(Part(doc, f"attempt:{number}", "attempt", "swe-agent"))
            return parts
    return [Part(document)]


def _is_eval_log(whole: dict[str, Any]) -> bool:
    return "samples" in whole and ("eval" in whole or "version" in whole) \
        and not isinstance(whole.get("messages"), list)


def _sample_name(sample: dict[str, Any], position: int) -> str:
    ident = sample.get("id", position + 1)
    epoch = sample.get("epoch", 1)
    return f"sample:{ident}" if epoch in (1, None) else f"sample:{ident}@{epoch}"


def _samples(samples: Any, source: str, notes: list[list[ReaderNote]] | None = None) -> list[Part]:
    if not isinstance(samples, list) or not samples:
        raise TranscriptError(source, "top level", "an Inspect eval log without samples (a header-only log): "
                                                   "there are no messages to check")
    parts = []
    for position, sample in enumerate(samples):
        messages = sample.get("messages") if isinstance(sample, dict) else None
        if not isinstance(messages, list):
            raise TranscriptError(source, f"samples[{position}]", "an eval log sample needs a 'messages' array")
        doc = Document(messages, [0] * len(messages), "array", notes=notes[position] if notes else [])
        parts.append(Part(doc, _sample_name(sample, position), "sample", "inspect"))
    return parts


def _order(sample: dict[str, Any]) -> tuple[Any, ...]:
    ident = sample.get("id")
    epoch = sample.get("epoch") if isinstance(sample.get("epoch"), int) else 0
    if isinstance(ident, int) and not isinstance(ident, bool):
        return (0, ident, "", epoch)
    return (1, 0, str(ident), epoch)


_INSPECT_MEMBERS = frozenset({"header.json", "_journal/start.json"})
"""The members every Inspect .eval log holds, a header-only one too (tests/real/inspect_header_only.inspect.eval)."""


def _eval_archive(data: bytes, source: str) -> list[Part]:
    """The samples of an Inspect .eval archive (a zip of JSON members), read within formats.archive.LIMITS."""
    try:
        archive = open_archive(data, source)
        every = archive.namelist()
        names = [n for n in every if n.startswith("samples/") and n.endswith(".json")]
        if not names and not _INSPECT_MEMBERS.intersection(every):
            raise TranscriptError(source, "", "a zip archive, not an Inspect .eval log (it holds no header.json, "
                                  "_journal/ or samples/): unzip it and check the transcript inside")
        read = [_member(name, member, source) for name, member in read_members(archive, names, source)]
    except TranscriptError:
        raise  # a refusal by the archive limits, already one line naming the member
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError) as error:
        raise TranscriptError(source, "", f"not a readable .eval archive (a zip of JSON members): {error}") from None
    if not all(isinstance(sample, dict) for sample, _ in read):
        raise TranscriptError(source, "samples/", "a sample member of the .eval archive is not a JSON object")
    read.sort(key=lambda found: _order(found[0]))
    return _samples([sample for sample, _ in read], source, [notes for _, notes in read])


def _member(name: str, data: bytes, source: str) -> tuple[Any, list[ReaderNote]]:
    """One member's JSON value, read by the same strict rules as a file (no NaN, no duplicate key in
    silence: a duplicate is a note on that sample), and its notes."""
    try:
        value = loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise TranscriptError(source, f"member {name!r}, byte {error.start}", "not valid UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise TranscriptError(source, f"member {name!r}, line {error.lineno}, column {error.colno}",
                              f"invalid JSON: {json_problem(error)}") from None
    duplicate = duplicate_note(data, "object", [value])
    return value, [duplicate] if duplicate is not None else []


def _is_examples(document: Document) -> bool:
    """JSON lines each holding a whole conversation under `messages` (and no message fields of its own)."""
    return document.container == "jsonl" and len(document.entries) > 0 and all(
        isinstance(e, dict) and "messages" in e and "role" not in e and "type" not in e
        for e in document.entries) and any(isinstance(e["messages"], list) for e in document.entries)


def _is_instances(document: Document) -> bool:
    """JSON lines each an evaluation instance holding its agent's event history: OpenHands' evaluation
    `output.jsonl` (`{"instance_id", "instruction", "history": [events...], "metrics", "test_result", ...}` per
    line, evaluation/benchmarks/*/run_infer.py), the file a benchmark run leaves to debug."""
    return document.container == "jsonl" and len(document.entries) > 0 and all(
        isinstance(e, dict) and isinstance(e.get("history"), list) and "instance_id" in e and "role" not in e
        for e in document.entries)


def _instances(document: Document) -> list[Part]:
    """One part per instance, named by its id (`instance:<id>`), read as OpenHands events when they fit."""
    from . import openhands

    parts: list[Part] = []
    for entry, line in zip(document.entries, document.lines, strict=False):
        history = entry["history"]
        doc = Document(history, [line] * len(history), "object", "history", envelope_without(entry, "history"),
                       notes=document.notes if not parts else [])
        fits = all(openhands.fits(event) for event in history)
        parts.append(Part(doc, f"instance:{entry['instance_id']}", "instance", openhands.NAME if fits else "auto"))
    return parts


def _examples(document: Document, source: str) -> list[Part]:
    """One part per fine-tuning example; OpenAI Chat when all of them fit it (the API the format is for)."""
    from . import openai_chat

    for entry, line in zip(document.entries, document.lines, strict=False):
        if not isinstance(entry["messages"], list):
            raise TranscriptError(source, f"line {line}", "a fine-tuning example's 'messages' must be an array, got "
                                                          f"{describe_value(entry['messages'])}")
    chat = all(openai_chat.fits(m) for e in document.entries for m in e["messages"])
    parts: list[Part] = []
    for entry, line in zip(document.entries, document.lines, strict=False):
        messages = entry["messages"]
        doc = Document(messages, [line] * len(messages), "object", "messages", envelope_without(entry, "messages"),
                       notes=document.notes if not parts else [])
        parts.append(Part(doc, f"line:{line}", "line", openai_chat.NAME if chat else "auto"))
    return parts
