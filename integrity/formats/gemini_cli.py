"""Gemini CLI chat recordings (~/.gemini/tmp/<project hash>/chats/session-*.json).

google-gemini/gemini-cli records every session as one JSON object (its
ChatRecordingService): `{"sessionId", "projectHash", "startTime", "lastUpdated",
"messages": [...]}`.  A message record is `{"id", "timestamp", "type", "content"}`
with `type` "user", "gemini" (the model), or "info" / "error" / "warning" (shown in
the terminal, never sent to the model).  A "gemini" record lists the calls the
model made in `toolCalls`, each `{"id", "name", "args", "status", "result"}`, the
result being the parts sent back (`functionResponse` parts, as Gemini's API takes
them).  When a session is resumed the CLI sends each call and then its result, so
a record with calls reads as the model's turn followed by one result per call that
has a result; a call recorded without one (the session stopped while it ran) is
unanswered.  (`/chat save` checkpoints are lists of Gemini `contents` and read as
gemini.)  Read-only: a repaired view is written as a Gemini request.

Since April 2026 (gemini-cli #23749) a session is a JSON lines log, `session-*.jsonl`: a metadata line
(sessionId, projectHash, ...), then each message record appended whenever it changes (a model record again
as its calls run and their results arrive: the last line of an id is the record, kept where the id first
appeared), `{"$set": {...}}` metadata updates (a `messages` array among them replaces every record), and
`{"$rewindTo": ID}` when the user rewinds (the record ID and every later one are gone; an ID not there
clears them all).  `_session` folds the log as gemini-cli's loadConversationRecord does; each message is
placed at the line of its last version.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Segment
from .common import EntryError, assistant, describe, text_part, tool_call, tool_result
from .read_only import body, build, groups  # noqa: F401 - the adapter protocol
from .spec import here

NAME = "gemini-cli"
READ_ONLY = True
WRITES_AS = "gemini"
_KINDS = ("user", "gemini", "info", "error", "warning")
_ENVELOPE = ("sessionId", "projectHash")


def _is_record(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") in _KINDS and "content" in entry \
        and "role" not in entry and "message" not in entry


def _is_metadata(entry: Any) -> bool:
    """A JSON lines session's metadata line (or a whole legacy record on one line)."""
    return isinstance(entry, dict) and all(isinstance(entry.get(key), str) for key in _ENVELOPE) \
        and "type" not in entry


def _is_log_line(entry: Any) -> bool:
    """A line only a JSON lines session holds: its metadata, a `$set` update or a `$rewindTo`."""
    return _is_metadata(entry) or (isinstance(entry, dict) and (
        isinstance(entry.get("$set"), dict) or isinstance(entry.get("$rewindTo"), str)))


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A session envelope (sessionId and projectHash), a JSON lines session's metadata line, or a model record
    ("gemini") among the records."""
    return all(key in envelope for key in _ENVELOPE) or any(
        _is_metadata(e) or (_is_record(e) and e["type"] == "gemini" and "id" in e) for e in entries)


def fits(entry: Any) -> bool:
    """A message record (a known type with content), or a line of a JSON lines session's log."""
    return _is_record(entry) or _is_log_line(entry)


def _texts(content: Any) -> list[str]:
    """The texts of a record's content: a string, a part, or a list of parts (strings or {text})."""
    if isinstance(content, str):
        return [content] if content else []
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return []
    out = []
    for part in content:
        if isinstance(part, str) and part:
            out.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"] and not part.get("thought"):
            out.append(part["text"])
    return out


def _results(call: dict[str, Any]) -> list[dict[str, Any]]:
    """The result messages gemini-cli sends for one recorded call (none when it has no result): a string result is
    the call's output; a list of parts is sent as it is, one result per functionResponse part, under that part's
    id (a `/compress` writes every sibling's response into each call's result, and gemini-cli sends them all)."""
    raw = call.get("result")
    if raw is None or raw == "":
        return []
    if isinstance(raw, str):
        return [tool_result(call["id"], call["name"], [text_part(raw)], call.get("status") in ("error", "cancelled"))]
    return _responses(raw if isinstance(raw, list) else [raw], call)


def _responses(parts: list[Any], call: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One result per functionResponse part (a text part beside one joins its text); with `call`, a text before
    any response is that call's result."""
    out: list[tuple[str, str, list[str], bool]] = []
    failed_call = call is not None and call.get("status") in ("error", "cancelled")
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            text, failed = _response_text(response.get("response"))
            own_id, own_name = response.get("id"), response.get("name")
            call_id = own_id if isinstance(own_id, str) else str(call["id"]) if call is not None else ""
            name = own_name if isinstance(own_name, str) else str(call["name"]) if call is not None else ""
            out.append((call_id, name, [text] if text else [], failed or failed_call))
        elif out:
            out[-1][2].extend(_texts(part))
        elif call is not None:
            out.append((call["id"], call["name"], _texts(part), failed_call))
    return [tool_result(call_id, name, [text_part("\n".join(texts))] if texts else [], failed)
            for call_id, name, texts, failed in out]


def _response_text(response: Any) -> tuple[str, bool]:
    """A functionResponse's response as text, and whether it is an error."""
    if isinstance(response, dict) and isinstance(response.get("output"), str):
        return response["output"], False
    if isinstance(response, dict) and isinstance(response.get("error"), str):
        return response["error"], True
    return ("" if response is None else json.dumps(response, ensure_ascii=False)), False


def _call(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise EntryError(f"a tool call record must be an object, got {describe(raw)}")
    call_id, name = raw.get("id"), raw.get("name")
    if not isinstance(call_id, str):
        raise EntryError(f"a tool call record's 'id' must be a string, got {describe(call_id)}")
    if not isinstance(name, str):
        raise EntryError(f"a tool call record's 'name' must be a string, got {describe(name)}")
    args = raw.get("args")
    return tool_call(call_id, name, args if isinstance(args, dict) else {})


_IGNORED = ("/", "?", "<session_context>", "<hook_context>")
"""How a user record starts that gemini-cli leaves out when it resumes (isIgnoredUserContent: a command, a question
for the CLI, its own context).  It leaves out an empty one too; that one is read here, so that its blank message is
reported and left out by the repair, never dropped without a word."""


def _messages(record: dict[str, Any]) -> list[dict[str, Any]]:
    """What gemini-cli sends for one record when it resumes the session (convertSessionToClientHistory,
    packages/core/src/utils/sessionUtils.ts): a user record's parts, functionResponse parts as results; a model
    record's parts (its content's own calls in a session written since v0.44, else its text and `toolCalls`),
    then a result per part of each call's recorded result.  Since v0.44 a tool's response is also recorded as
    a user record of its own, so gemini-cli sends it twice (google-gemini/gemini-cli#29365): read as it sends it,
    the second is a duplicate, as the provider sees it."""
    kind = record["type"]
    content = record.get("content")
    if content is not None and not isinstance(content, (str, list, dict)):
        raise EntryError(f"a record's 'content' must be text or parts, got {describe(content)}")
    parts = content if isinstance(content, list) else [content] if isinstance(content, dict) else []
    text = "\n".join(_texts(content))
    if kind == "user":
        responses = _responses([p for p in parts if isinstance(p, dict) and "functionResponse" in p])
        # a command is left out only when the record is its text alone (an image first: gemini-cli's text of the
        # record starts with the image's marker, and it sends the record); an empty one is read, and its blank
        # message reported, rather than dropped unseen
        only_text = all(isinstance(part, str) or (isinstance(part, dict) and part.keys() <= {"text"})
                        for part in parts)
        if not responses and only_text and text.strip().startswith(_IGNORED):
            return []
        return responses + ([{"role": "user", "content": text}] if text or not responses else [])
    if kind != "gemini":
        return []  # info, error and warning records are shown to the user, never sent to the model
    calls = record.get("toolCalls")
    if calls is not None and not isinstance(calls, list):
        raise EntryError(f"'toolCalls' must be an array, got {describe(calls)}")
    raws = list(calls or [])
    own = [p["functionCall"] for p in parts if isinstance(p, dict) and isinstance(p.get("functionCall"), dict)]
    made = [_call(raw) for raw in own] if own else [_call(raw) for raw in raws]
    frame = assistant(([text_part(text)] if text else []) + made, "toolUse" if made else "stop")
    return [frame, *(result for raw in raws for result in _results(raw))]


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages per record: a model record gives its turn and then its calls' results.  A JSON lines
    session's log is folded first (`_session`)."""
    placed = _session(entries) if any(_is_log_line(entry) for entry in entries) else list(enumerate(entries))
    segments = []
    for index, record in placed:
        if not _is_record(record):
            raise EntryError(f"expected a message record with 'type' and 'content', got {describe(record)}",
                             index)
        try:
            messages = _messages(record)
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, messages))
    return segments


def _session(lines: list[Any]) -> list[tuple[int, Any]]:
    """The records a JSON lines session holds at its end, in order, each with the line it was last written on:
    gemini-cli's loadConversationRecord (packages/core/src/services/chatRecordingService.ts) rebuilds the
    conversation it resumes this way."""
    records: dict[str, tuple[int, Any]] = {}  # (a dict keeps an id where it first came, as a JS Map does)
    for index, line in enumerate(lines):
        if not isinstance(line, dict):
            raise EntryError(f"expected a session line (an object), got {describe(line)}", index)
        if isinstance(line.get("$rewindTo"), str):
            target = line["$rewindTo"]
            if target in records:
                ids = list(records)
                for gone in ids[ids.index(target):]:
                    del records[gone]
            else:
                records.clear()
        elif isinstance(line.get("id"), str):
            records[line["id"]] = (index, line)
        elif isinstance(line.get("$set"), dict) or _is_metadata(line):
            update = line["$set"] if "$set" in line else line
            listed = update.get("messages")
            if isinstance(listed, list):
                if "$set" in line:
                    records.clear()  # a checkpoint: the list is the whole conversation
                for record in listed:
                    if isinstance(record, dict) and isinstance(record.get("id"), str):
                        records[record["id"]] = (index, record)
        else:
            raise EntryError("expected a message record (with an 'id'), a metadata line, '$set' or '$rewindTo', "
                             f"got {describe(line)}", index)
    return list(records.values())


SPECS = (here(__name__, provider="gemini", suffixes=(".jsonl", ".json")),)
"""This module's format, as the registry (integrity.formats) lists it.  Its provider:
Gemini CLI sends its history as Gemini generateContent requests."""
