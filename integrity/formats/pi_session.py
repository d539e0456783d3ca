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
entries verbatim, rebuilt ones under the id of the entry they were read from (new
ones with new 8-hex ids), each pointing at the entry written before it.  pi's own
message roles (bashExecution, custom...) are pi-ai messages here and written as they
are.  An entry that names another (a compaction's first kept entry, a branch
summary's origin, a label's target) still names it, or the next entry written when
the repair dropped it; a version 1 compaction's `firstKeptEntryIndex` (a position in
the file) follows its entry to where it is written.
"""

from __future__ import annotations

import datetime
from typing import Any

from . import pi_ai
from .base import BuildContext, Thread
from .common import OPAQUE, SYSTEM_ROLES, EntryError, describe, native_of
from .pi_requests import JUDGED, SENDS_AS, SENDS_IDS, as_pi_sends, held_otherwise, model_of, sent_messages
from .spec import FormatSpec
from .tree import abandoned_leaves, chain, index_by_id, lookup, relink, short_id
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
    return as_pi_sends(message)


def _iso(ms: Any) -> str | None:
    if not isinstance(ms, (int, float)) or isinstance(ms, bool):
        return None
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc) \
        .isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _wrap(item: Any, template: Any, context: BuildContext) -> Any:
    """A message entry: the template's fields, or a fresh entry; a new id (`_finish` gives a rebuilt entry its
    template's id back) and parent links come in finish."""
    entry: dict[str, Any] = {"type": "message"}
    if isinstance(template, dict):
        entry.update({k: v for k, v in template.items() if k not in ("message", "id")})
        context.state.setdefault("origin", {})[id(entry)] = template
    stamp = _iso(item.get("timestamp")) if isinstance(item, dict) else None
    entry["id"] = short_id(context, "pi-session")
    entry.setdefault("parentId", None)
    if stamp is not None or "timestamp" not in entry:
        entry["timestamp"] = stamp
    entry["message"] = item
    context.state.setdefault("fresh", set()).add(id(entry))
    return entry


_REFERENCES = (("compaction", "firstKeptEntryId"), ("branch_summary", "fromId"), ("label", "targetId"))
"""The entries that name another entry by id besides their parent (pi's session-manager.ts): a compaction the
first entry it keeps (pi sends that entry and the ones after it, none before), a branch summary where its
branch left, a label the entry it labels."""


def _finish(native: list[Any], context: BuildContext) -> list[Any]:
    """Ids and links of the written entries.  A rebuilt entry keeps the id of the entry it was read from (the
    first one built from it, when that id is not also written verbatim), so what names it still does; a name
    of an entry the repair dropped is moved to the next entry written after it, and a version 1 file's
    compaction position (`firstKeptEntryIndex`, an index into the file's entries) to the same entry's new
    place: pi starts the context it sends at that entry, and a dangling or shifted one would send none of
    the kept turns, or start them at a tool result whose call was summarised away."""
    origin: dict[int, Any] = context.state.get("origin", {})
    fresh: set[int] = context.state.get("fresh", set())
    verbatim = {e["id"] for e in native if isinstance(e, dict) and id(e) not in fresh and isinstance(e.get("id"), str)}
    for entry in native:
        template = origin.get(id(entry))
        old = template.get("id") if isinstance(template, dict) else None
        if isinstance(old, str) and old not in verbatim:
            verbatim.add(old)
            entry["id"] = old  # (a dict this writer built: never the file's own)
    written = _rewritten_names(native, context)
    return relink(written, context, "id", "parentId", node=lambda entry: _id(entry) is not None)


def _rewritten_names(native: list[Any], context: BuildContext) -> list[Any]:
    """`native` with each name of a dropped entry (`_REFERENCES`, v1 `firstKeptEntryIndex`) moved on to the next
    entry written after it in the file (an entry naming one is copied, never changed in place)."""
    original: list[Any] = context.state.get("native") or []
    origin: dict[int, Any] = context.state.get("origin", {})
    place = {id(entry): at for at, entry in enumerate(original)}
    written_at: dict[int, int] = {}  # the file's entry number -> where it is written now
    for at, entry in enumerate(native):
        source = place.get(id(entry), place.get(id(origin.get(id(entry)))))
        if source is not None:
            written_at.setdefault(source, at)
    ids = [entry.get("id") if isinstance(entry, dict) else None for entry in original]
    kept_ids = {entry["id"] for entry in native if isinstance(entry, dict) and isinstance(entry.get("id"), str)}

    def next_written(number: int) -> int | None:
        return next((at for at in range(number, len(original)) if at in written_at), None)

    out = native
    for at, entry in enumerate(native):
        if not isinstance(entry, dict):
            continue
        changed: dict[str, Any] = {}
        for kind, key in _REFERENCES:
            named = entry.get(key)
            if entry.get("type") == kind and isinstance(named, str) and named not in kept_ids and named in ids:
                following = next_written(ids.index(named))
                moved = native[written_at[following]].get("id") if following is not None else None
                if isinstance(moved, str):
                    changed[key] = moved
        index = entry.get("firstKeptEntryIndex")
        if entry.get("type") == "compaction" and isinstance(index, int) and not isinstance(index, bool) \
                and 0 <= index < len(original):
            following = next_written(index)
            if following is not None and written_at[following] != index:
                changed["firstKeptEntryIndex"] = written_at[following]
        if changed:
            if out is native:
                out = list(native)
            out[at] = {**entry, **changed}
    return out


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
    """The active branch as "main" and each abandoned branch as "branch:<leaf id>"; the messages a compaction on
    the active branch left behind as "compacted:1" (None: a linear file without a compaction).

    pi sends the latest compaction's summary, then the branch from its first kept entry on (buildSessionContext
    in its session-manager.ts): the messages before that entry are never sent again, so they are listed and not
    judged, like an abandoned branch."""
    members = [i for i, e in enumerate(entries) if isinstance(_id(e), str)]
    if not members:  # a version 1 file: one linear list, a compaction naming its first kept entry by index
        everything = list(range(len(entries)))
        cut = _compacted(entries, everything, {})
        if not cut:
            return None
        header = [i for i in everything if _is_entry(entries[i]) and entries[i]["type"] == "session"]
        return [Thread("main", "main", [i for i in everything if i not in cut]),
                Thread("compacted:1", "compacted", sorted(header + sorted(cut)), checked=False)]
    by_id = index_by_id(entries, members, _id)
    active = chain(entries, members[-1], by_id, _parent)
    active_set = set(active)
    tree = set(members)  # (once: rebuilt for each entry, it made reading a 200,000-entry session take minutes)
    loose = [i for i in range(len(entries)) if i not in tree]  # the header: every thread's
    leaves = abandoned_leaves(entries, members, active_set, by_id, _parent)
    cut = _compacted(entries, active, by_id)
    if not leaves and not cut and len(active) == len(members):
        return None
    found = [Thread("main", "main", sorted(loose + [i for i in active if i not in cut]))]
    if cut:
        found.append(Thread("compacted:1", "compacted", sorted(loose + sorted(cut)), checked=False))
    for leaf in leaves:
        branch = chain(entries, leaf, by_id, _parent)
        found.append(Thread(f"branch:{_id(entries[leaf])}", "branch", sorted(loose + branch), checked=False))
    return found


def _compacted(entries: list[Any], path: list[int], by_id: dict[Any, int]) -> set[int]:
    """The message entries of `path` before the first entry the last compaction on it keeps (none without a
    compaction).  pi sends the entries before the compaction only from its first kept entry on: one it cannot
    find on the path (a dangling `firstKeptEntryId`, a version 1 `firstKeptEntryIndex` naming the header, which
    pi's migration leaves without an id) keeps none of them."""
    last = next((i for i in reversed(path) if _is_entry(entries[i]) and entries[i]["type"] == "compaction"), None)
    if last is None:
        return set()
    compaction = entries[last]
    kept = lookup(by_id, compaction.get("firstKeptEntryId"))
    index = compaction.get("firstKeptEntryIndex")
    if kept is None and isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(entries) \
            and not (_is_entry(entries[index]) and entries[index]["type"] == "session"):
        kept = index
    before = path[:path.index(last)]
    start = before.index(kept) if kept in before else len(before)
    return {i for i in before[:start] if _unwrap_safe(entries[i]) is not None}


def _unwrap_safe(entry: Any) -> Any:
    """The message an entry holds, None for any other entry (a broken message entry is read, and reported, later)."""
    return entry.get("message") if _is_entry(entry) and entry["type"] == "message" else None


def spliced(before: list[Any], after: list[Any]) -> list[Any]:
    """The whole file after one thread's entries were written back into it (registry._splice): a version 1
    compaction outside that thread still names, by `firstKeptEntryIndex`, the entry it named before (the same
    object, which a thread written back leaves in place), though entries written before it moved it down."""
    at = {id(entry): position for position, entry in enumerate(after)}
    unchanged = {id(entry) for entry in before}
    out = after
    for position, entry in enumerate(after):
        index = entry.get("firstKeptEntryIndex") if isinstance(entry, dict) and entry.get("type") == "compaction" \
            else None
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(before) \
                and id(entry) in unchanged:
            moved = at.get(id(before[index]))
            if moved is not None and moved != index:
                if out is after:
                    out = list(after)
                out[position] = {**entry, "firstKeptEntryIndex": moved}
    return out


def _adapter(name: str, evidence: Any) -> Wrapped:
    adapter = Wrapped(name, pi_ai, _unwrap, _wrap, evidence, _fits, container="jsonl", finish=_finish,
                      groups=_groups, threads=threads)
    adapter.spliced = spliced  # type: ignore[attr-defined]
    adapter.model_of = model_of  # type: ignore[attr-defined]
    adapter.held_otherwise = held_otherwise  # type: ignore[attr-defined]  # (registry.read_otherwise)
    adapter.KEEPS_ENTRIES = True  # type: ignore[attr-defined]  # (registry._with_entries_kept)
    return adapter


PI_SESSION = _adapter("pi-session", _pi_evidence)
OPENCLAW = _adapter("openclaw", _openclaw_evidence)


SPECS = tuple(FormatSpec(adapter.NAME, adapter, suffixes=(".jsonl",), sends_as=SENDS_AS, model_decides=JUDGED,
                         sends_ids=SENDS_IDS, sends_messages=sent_messages, sends_signed_reasoning=True)
              for adapter in (PI_SESSION, OPENCLAW))
"""This module's format(s), as the registry (integrity.formats) lists them.  pi sends a session to the model it
names, as pi_requests models it (model_of, SENDS_AS): no single provider reads the format, the model decides."""
