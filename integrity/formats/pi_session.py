"""pi coding-agent session JSONL, and openclaw's (the same SessionManager files).

pi (badlogic/pi-mono, packages/coding-agent, docs/session.md) writes one entry per
line: a `{"type": "session", "version", "id", "cwd", ...}` header, then entries with
`id` / `parentId` (version 2 and later) and a `type`: `message` entries hold a pi-ai
AgentMessage in `message` (the engine's own form, so a message is read as it is);
model_change, thinking_level_change, compaction, branch_summary, custom,
custom_message, label and session_info entries are bookkeeping here (they travel with
the next message and are re-emitted in place).  openclaw stores its agents' sessions
through the same SessionManager; its files are told apart by what only openclaw
writes (`custom` entries such as `model-snapshot` or `openclaw:...`, and
`openclaw.`-typed custom messages).

The entries form a tree: after a /tree jump or a fork the next entry is a child of an
earlier one.  The main transcript is the active branch, the chain from the last entry
back to the root (what pi's buildSessionContext sends); every other leaf ends an
abandoned branch, listed as `branch:<leaf id>` and never mixed in.  Version 1 files
(no ids) are one linear transcript.

A repaired branch is written back with the file's other entries in place: kept
entries verbatim, rebuilt ones with new 8-hex ids, each pointing at the entry written
before it.
"""

from __future__ import annotations

import datetime
from typing import Any

from . import pi_ai
from .base import BuildContext, Thread
from .common import OPAQUE, SYSTEM_ROLES, EntryError, describe, native_of
from .spec import FormatSpec
from .tree import abandoned_leaves, chain, index_by_id, relink, short_id
from .wrapped import Wrapped

_NAMES = ("pi-session", "openclaw")
_ENTRY_TYPES = ("session", "message", "model_change", "thinking_level_change", "compaction", "branch_summary",
                "custom", "custom_message", "label", "session_info")


def _is_entry(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("type"), str) and "role" not in entry \
        and "uuid" not in entry and "payload" not in entry


def _is_message(entry: Any) -> bool:
    """A message entry holding a message object (whatever its role: a malformed one is read on and reported)."""
    return _is_entry(entry) and entry["type"] == "message" and isinstance(entry.get("message"), dict)


def _openclaw_mark(entry: Any) -> bool:
    """Something only openclaw writes into a pi session file."""
    if not isinstance(entry, dict):
        return False
    custom = entry.get("customType")
    return isinstance(custom, str) and entry.get("type") in ("custom", "custom_message") and (
        custom == "model-snapshot" or custom.startswith(("openclaw:", "openclaw.")))


def _session_shape(entries: list[Any]) -> bool:
    """A session header, or message entries linked by id/parentId."""
    return any(_is_entry(e) and (
        (e["type"] == "session" and ("cwd" in e or "version" in e))
        or (_is_message(e) and "parentId" in e and "id" in e)) for e in entries)


def _pi_evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    return _session_shape(entries) and not any(map(_openclaw_mark, entries))


def _openclaw_evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    return _session_shape(entries) and any(map(_openclaw_mark, entries))


def _fits(entry: Any) -> bool:
    """A typed session entry; a message entry must hold a message object."""
    return _is_entry(entry) and (entry["type"] != "message" or _is_message(entry)) and (
        entry["type"] in _ENTRY_TYPES or "parentId" in entry)


def _unwrap(entry: Any) -> Any:
    """The message a message entry holds (None for every other entry).

    A message entry is never skipped: a message without a string role is read on (the
    schema check reports it), and an entry without a message object is an error at that
    entry, where skipping it would drop a message from the transcript without a word."""
    if not (_is_entry(entry) and entry["type"] == "message"):
        return None
    if "message" not in entry:
        raise EntryError("a message entry has no 'message'")
    message = entry["message"]
    if not isinstance(message, dict):
        raise EntryError(f"a message entry's 'message' must be a message object, got {describe(message)}")
    return message


def _iso(ms: Any) -> str | None:
    if not isinstance(ms, (int, float)) or isinstance(ms, bool):
        return None
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc) \
        .isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _wrap(item: Any, template: Any, context: BuildContext) -> Any:
    """A message entry: the template's fields (new id), or a fresh entry; parent links come in finish."""
    entry: dict[str, Any] = {"type": "message"}
    if isinstance(template, dict):
        entry.update({k: v for k, v in template.items() if k not in ("message", "id")})
    stamp = _iso(item.get("timestamp")) if isinstance(item, dict) else None
    entry["id"] = short_id(context, "pi-session")
    entry.setdefault("parentId", None)
    if stamp is not None or "timestamp" not in entry:
        entry["timestamp"] = stamp
    entry["message"] = item
    context.state.setdefault("fresh", set()).add(id(entry))
    return entry


def _finish(native: list[Any], context: BuildContext) -> list[Any]:
    return relink(native, context, "id", "parentId")


def _groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """One entry per message.

    Left out: other formats' opaque messages, and their system/developer messages (a
    session has no place for a system prompt).  A session's own messages always stay.
    """
    return [[i] for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") != OPAQUE
            and not (m.get("role") in SYSTEM_ROLES and native_of(m).get("format") not in (None, *_NAMES))]


def _parent(entry: Any) -> Any:
    return entry.get("parentId") if isinstance(entry, dict) else None


def _id(entry: Any) -> Any:
    return entry.get("id") if isinstance(entry, dict) and entry.get("type") != "session" else None


def threads(entries: list[Any]) -> list[Thread] | None:
    """The active branch as "main" and each abandoned branch as "branch:<leaf id>" (None: a linear file)."""
    members = [i for i, e in enumerate(entries) if isinstance(_id(e), str)]
    if not members:
        return None
    by_id = index_by_id(entries, members, _id)
    active = chain(entries, members[-1], by_id, _parent)
    active_set = set(active)
    loose = [i for i in range(len(entries)) if i not in set(members)]  # the header: every thread's
    leaves = abandoned_leaves(entries, members, active_set, by_id, _parent)
    if not leaves and len(active) == len(members):
        return None
    found = [Thread("main", "main", sorted(loose + active))]
    for leaf in leaves:
        branch = chain(entries, leaf, by_id, _parent)
        found.append(Thread(f"branch:{_id(entries[leaf])}", "branch", sorted(loose + branch), checked=False))
    return found


def _adapter(name: str, evidence: Any) -> Wrapped:
    return Wrapped(name, pi_ai, _unwrap, _wrap, evidence, _fits, container="jsonl", finish=_finish,
                   groups=_groups, threads=threads)


PI_SESSION = _adapter("pi-session", _pi_evidence)
OPENCLAW = _adapter("openclaw", _openclaw_evidence)


SPECS = (FormatSpec(PI_SESSION.NAME, PI_SESSION, suffixes=(".jsonl",)),
         FormatSpec(OPENCLAW.NAME, OPENCLAW, suffixes=(".jsonl",)))
"""This module's format(s), as the registry (integrity.formats) lists them."""
