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
from itertools import compress
from operator import and_, eq, ne
from typing import TYPE_CHECKING, Any

from .common import NATIVE
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
    one message with messages[2]", here of the messages as read (a view that changes messages changes what is
    joined: joins_said with the view, integrity.written.written_light).

    Empty for a transcript read from no file of a provider's request format (its format's writer has no one-entry
    finish step), and for one whose entries the writer sends as they are (the common case: one pass of
    `finish_entry`, which returns the entry itself when it takes it)."""
    return merged(finished(transcript), joins_said(transcript))


def finished(transcript: Transcript) -> dict[int, tuple[str, ...]]:
    """`reshaped` but for the joins: what the writer's one-entry finish step changes, by the first message read
    from each entry it changes."""
    adapter = ADAPTERS.get(transcript.format)
    finish_entry = getattr(adapter, "finish_entry", None)
    native, entries = transcript.native, transcript.entries
    if finish_entry is None or not native or len(entries) != len(transcript.messages):
        return {}
    key = request_key(transcript.format)
    changed: dict[int, tuple[str, ...]] = {}
    for at, entry in enumerate(native):
        sent = finish_entry(entry)
        if sent is not entry and sent != entry:
            changed[at] = tuple(changes(entry, sent, f"{key}[{at}]"))
    if not changed:
        return {}
    opened = _opened(entries)
    first: dict[int, tuple[str, ...]] = {}
    for at in sorted(changed):  # an entry no message opens (a turn's second item) is its message's before it
        owner = next((opened[entry] for entry in range(at, -1, -1) if entry in opened), None)
        if owner is not None:
            first[owner] = first.get(owner, ()) + changed[at]
    return first


def joins_said(transcript: Transcript, view: list[Any] | None = None) -> dict[int, tuple[str, ...]]:
    """`reshaped`'s joins alone: the first message read from each entry the writer sends with another ->
    "messages[3] sent in one message with messages[2]".  view: the view the file is written from, when it changes
    messages (a stray between two results dropped, the two are joined; the receipt before a result dropped, the
    result is sent alone); None: the messages as read."""
    if not transcript.native or len(transcript.entries) != len(transcript.messages):
        return {}
    written = transcript.messages if view is None else view
    joins = joined(transcript, written)
    if not joins:
        return {}
    key = request_key(transcript.format)
    opened = _opened(transcript.entries)
    said: dict[int, tuple[str, ...]] = {}
    for at, (entry, into) in joins.items():
        owner = at if view is None else _durable(transcript, written[at], opened.get(entry))
        if owner is not None:
            said[owner] = said.get(owner, ()) + (f"{key}[{entry}] sent in one message with {key}[{into}]",)
    return said


def _durable(transcript: Transcript, message: Any, first: int | None) -> int | None:
    """The durable index of a view message read from the entry whose first message is `first`: the one of that
    entry's messages (they follow one another) the view holds, else the first (a copy the view made)."""
    if first is None:
        return None
    messages, entries = transcript.messages, transcript.entries
    at = first
    while at < len(messages) and entries[at] == entries[first]:
        if messages[at] is message:
            return at
        at += 1
    return first


def joins_results(format: str | None) -> bool:
    """Whether `format`'s writer joins results the file holds in consecutive entries (`JOINS_RESULTS`)."""
    return bool(getattr(ADAPTERS.get(format or ""), "JOINS_RESULTS", False))


def merged(first: dict[int, tuple[str, ...]], second: dict[int, tuple[str, ...]]) -> dict[int, tuple[str, ...]]:
    """Two accounts of changes by message as one (each message's changes in order: the first's, then the
    second's)."""
    if not second:
        return first
    out = dict(first)
    for index, said in second.items():
        out[index] = out.get(index, ()) + said
    return dict(sorted(out.items()))


def _opened(entries: list[int]) -> dict[int, int]:
    """Each entry a message is read from -> the first such message."""
    opened: dict[int, int] = {}
    for message, entry in enumerate(entries):
        opened.setdefault(entry, message)
    return opened


def joined(transcript: Transcript, messages: list[Any] | None = None) -> dict[int, tuple[int, int]]:
    """Where the writer sends a file entry in one message with another, writing `messages` (the view; None: the
    messages as read): the first of `messages` read from each such entry -> (that entry, the entry of the
    message's first result, which it is sent with: the one before it, or after it where the view put the results
    in call order).  Results of one turn the file holds in consecutive user messages are sent as one.

    The writer's own grouping (`groups`) is asked, and only where a result is followed, past results the repair
    wrote, by a result read from another entry (the only messages it joins): the common file pays one pass over
    its roles.  Asked of the formats whose writer says it joins them (`JOINS_RESULTS`)."""
    adapter = ADAPTERS.get(transcript.format)
    if adapter is None or not joins_results(transcript.format):
        return {}
    messages = transcript.messages if messages is None else messages
    format = transcript.format
    from .common import writable

    found: dict[int, tuple[int, int]] = {}
    seen: set[int] = set()
    for start, end in _split_runs(messages, format):
        low = max(0, start - 1)  # the message on each side: a frame or user text the writer groups with them
        around = messages[low:end + 1]
        for group in adapter.groups([writable(message) for message in around]):
            into: int | None = None
            for at in group:
                at += low
                entry = _entry(messages[at], format)
                if entry is None or not start <= at < end:
                    continue
                if into is None:
                    into = entry
                elif entry != into and entry not in seen:
                    seen.add(entry)
                    found[at] = (entry, into)
    return found


def _split_runs(messages: list[Any], format: str) -> list[tuple[int, int]]:
    """The runs of consecutive results (start, end) that hold results read from two entries of the file (a
    receipt the repair wrote, read from none, among them): the only places the writer joins entries.  Found at
    C speed where a result follows a result read from another entry (a file of 200,000 messages: about 60 ms);
    only those runs are looked at."""
    try:
        roles = [message.get("role") for message in messages]
    except AttributeError:  # (a message that is not an object: a caller's list)
        roles = [message.get("role") if type(message) is dict else None for message in messages]
    results = list(map("toolResult".__eq__, roles))
    at_result = list(compress(range(len(messages)), results))
    entries = [_entry(messages[at], format) for at in at_result]
    following = map(eq, at_result[1:], map((1).__add__, at_result[:-1]))  # a result right after a result
    apart = map(and_, following, map(ne, entries[1:], entries[:-1]))
    runs: list[tuple[int, int]] = []
    end = -1
    for at in compress(at_result[1:], apart):
        if at < end:
            continue
        start, end = at - 1, at + 1
        while start > 0 and results[start - 1]:
            start -= 1
        while end < len(messages) and results[end]:
            end += 1
        found = {_entry(messages[index], format) for index in range(start, end)} - {None}
        if len(found) > 1:
            runs.append((start, end))
    return runs


def _entry(message: Any, format: str) -> int | None:
    """The file entry a message was read from (its native hint), None for one the repair wrote."""
    native = message.get(NATIVE) if type(message) is dict else None
    if type(native) is not dict or native.get("format") != format:
        return None
    entry = native.get("entry")
    return entry if type(entry) is int else None


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
