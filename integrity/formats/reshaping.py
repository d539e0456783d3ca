"""What a repair writes differently in the file's own entries, though it keeps their messages: the writer's finish step.

A provider's request format has a writer whose `finish` step sends an entry kept verbatim from the file in the shape
the provider takes (a null `content` as "", a foreign item id left out, a call's object arguments as their JSON
text, a Gemini response turn with the role `user`...).  The messages are the same, so the plan changes nothing, but
the file `repair` writes and the Inspector offers differs from the input at those entries.  This module says where
and how, from the writer itself (each format's one-entry finish step, `finish_entry`), so the report, the CLI and
every screen say what the written file changes without a second description of the writer's rules.  The writer's
grouping is asked too: a turn's results the file holds in consecutive user messages are sent as one message by
Anthropic's, Bedrock's and Gemini's writers (Bedrock refuses them split), and `repair` wrote them so while its report
said nothing changed.  `repair` gives a file back as it is exactly when neither changes an entry (integrity.written).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .registry import ADAPTERS, request_key

if TYPE_CHECKING:
    from ..loading import Transcript

SHOWN = 40
"""How many characters of a value a change quotes (a longer one is cut and says so)."""


def reshaped(transcript: Transcript) -> dict[int, tuple[str, ...]]:
    """The canonical messages whose file entry the writer sends in another shape: the first message read from each
    such entry -> what changes in it ('messages[3].content: null → ""', "input[1].id left out"), by their places in
    the request, as the providers' error texts name them.  An entry
    no message opens (the second item of a Responses turn) counts for the message read from the entries before it,
    as the providers' verdicts map it (providers.canonical.recorded_entries).

    Entries the writer joins to one before them (`joined`: a turn's results the file holds in consecutive user
    messages, which Anthropic's, Bedrock's and Gemini's writers send as one) are changes too: "messages[3] sent in
    one message with messages[2]".

    Empty for a transcript read from no file of a provider's request format (its format's writer has no one-entry
    finish step), and for one whose entries the writer sends as they are (the common case: one pass of
    `finish_entry`, which returns the entry itself when it takes it)."""
    adapter = ADAPTERS.get(transcript.format)
    finish_entry = getattr(adapter, "finish_entry", None)
    native, entries = transcript.native, transcript.entries
    if (finish_entry is None and not getattr(adapter, "JOINS_RESULTS", False)) or not native \
            or len(entries) != len(transcript.messages):
        return {}
    key = request_key(transcript.format)
    changed: dict[int, tuple[str, ...]] = {}
    if finish_entry is not None:
        for at, entry in enumerate(native):
            sent = finish_entry(entry)
            if sent is not entry and sent != entry:
                changed[at] = tuple(changes(entry, sent, f"{key}[{at}]"))
    for at, into in joined(transcript).items():
        changed[at] = changed.get(at, ()) + (f"{key}[{at}] sent in one message with {key}[{into}]",)
    if not changed:
        return {}
    opened: dict[int, int] = {}  # each entry a message is read from -> the first such message
    for message, entry in enumerate(entries):
        opened.setdefault(entry, message)
    first: dict[int, tuple[str, ...]] = {}
    for at in sorted(changed):  # an entry no message opens (a turn's second item) is its message's before it
        owner = next((opened[entry] for entry in range(at, -1, -1) if entry in opened), None)
        if owner is not None:
            first[owner] = first.get(owner, ()) + changed[at]
    return first


def joined(transcript: Transcript) -> dict[int, int]:
    """The file entries the writer joins to an entry before them, when it writes the messages as read: entry ->
    the entry it is sent in (results of one turn in consecutive user messages, which the writer sends as one).

    The writer's own grouping (`groups`) is asked, and only where two consecutive messages read from different
    entries are a result and a result or user message after it (the only messages it joins): the common file
    pays one pass over its roles.  Asked of the formats whose writer says it joins them (`JOINS_RESULTS`)."""
    adapter = ADAPTERS.get(transcript.format)
    if adapter is None or not getattr(adapter, "JOINS_RESULTS", False):
        return {}
    messages, entries = transcript.messages, transcript.entries
    last = len(messages) - 1
    results = [at for at, message in enumerate(messages)
               if type(message) is dict and message.get("role") == "toolResult"]
    if results and results[-1] == last:
        results.pop()
    if not any(entries[at + 1] != entries[at] and _role(messages[at + 1]) in _AFTER for at in results):
        return {}
    from .common import writable

    found: dict[int, int] = {}
    for group in adapter.groups([writable(message) for message in messages]):
        first = entries[group[0]]
        for message in group[1:]:
            if entries[message] != first and entries[message] not in found and entries[message] > first:
                found[entries[message]] = first
    return found


_AFTER = frozenset(("toolResult", "user"))


def _role(message: Any) -> Any:
    return message.get("role") if type(message) is dict else None


def changes(recorded: Any, sent: Any, path: str = "") -> list[str]:
    """What differs between an entry as recorded and as sent, one phrase per path: a member left out, one added,
    a value replaced (a value shown by its JSON, cut at SHOWN characters; an object or array by its kind)."""
    if type(recorded) is dict and type(sent) is dict:
        found = [f"{_joined(path, key)} left out" for key in recorded if key not in sent]
        for key, value in sent.items():
            if key not in recorded:
                found.append(f"{_joined(path, key)} added: {_shown(value)}")
            elif recorded[key] is not value and recorded[key] != value:
                found.extend(changes(recorded[key], value, _joined(path, key)))
        return found
    if type(recorded) is list and type(sent) is list and len(recorded) == len(sent):
        return [phrase for at, (before, after) in enumerate(zip(recorded, sent, strict=True))
                if before is not after and before != after for phrase in changes(before, after, f"{path}[{at}]")]
    return [f"{path or 'the entry'}: {_shown(recorded)} → {_shown(sent)}"]


def _joined(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _shown(value: Any) -> str:
    """A value as a change quotes it: a scalar as its JSON, an object or array by its kind, and an object sent in
    place of another kind of value (Gemini's `{"output": ...}`) by its keys."""
    if type(value) is dict:
        return "an object" if not value else "{" + ", ".join(json.dumps(key) + ": …" for key in value) + "}"
    if type(value) is list:
        return "an array"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}… ({len(text):,} characters)"
