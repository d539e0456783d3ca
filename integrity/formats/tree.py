"""Session files whose entries form a tree by id and parent id (pi, openclaw, Claude Code).

After a rewind or a /tree jump the runtime appends a new child to an earlier entry;
the entries it left behind stay in the file.  What the model sees next is the chain
from the last entry back to the root (the active branch); every other leaf ends an
abandoned branch.  These helpers find both, and relink parent ids when a repaired
thread is written back (a dropped or moved entry must not leave its children
pointing at nothing).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any

from .base import BuildContext

Key = Callable[[Any], Any]


def chain(entries: list[Any], leaf: int, by_id: dict[Any, int], parent_of: Key) -> list[int]:
    """Indices from the root down to `leaf`, following parent ids (a cycle or a missing parent ends it)."""
    out: list[int] = []
    seen: set[int] = set()
    at: int | None = leaf
    while at is not None and at not in seen:
        seen.add(at)
        out.append(at)
        at = lookup(by_id, parent_of(entries[at]))
    out.reverse()
    return out


def lookup(by_id: dict[Any, int], ident: Any) -> int | None:
    """The index of the entry with this id (None for a missing or non-string id)."""
    return by_id.get(ident) if isinstance(ident, str) else None


def index_by_id(entries: list[Any], members: Iterable[int], id_of: Key) -> dict[Any, int]:
    """id -> entry index, for the member entries that have an id (the first entry wins for a repeated id)."""
    found: dict[Any, int] = {}
    for index in members:
        ident = id_of(entries[index])
        if isinstance(ident, str) and ident not in found:
            found[ident] = index
    return found


def abandoned_leaves(entries: list[Any], members: list[int], active: set[int], by_id: dict[Any, int],
                     parent_of: Key) -> list[int]:
    """Member entries off the active chain that no entry names as its parent: each ends an abandoned branch."""
    parents = {lookup(by_id, parent_of(entries[index])) for index in members}
    return [index for index in members if index not in active and index not in parents
            and index in by_id.values()]


def short_id(context: BuildContext, prefix: str, length: int = 8) -> str:
    """A new deterministic id for a rebuilt entry (hex, `length` characters)."""
    counter = context.state.setdefault("id_counter", 0)
    context.state["id_counter"] = counter + 1
    return uuid.uuid5(uuid.NAMESPACE_URL, f"integrity:{prefix}:{counter}").hex[:length]


def relink(native: list[Any], context: BuildContext, id_key: str, parent_key: str,
           node: Callable[[Any], bool] | None = None) -> list[Any]:
    """Point each entry at the entry written before it when its parent was dropped or moved, or it is new.

    Entries the writer built (context.state["fresh"] holds their ids) always follow
    the previous entry; an entry kept verbatim keeps its parent unless that parent is
    no longer written before it, or entries were inserted right after that parent (a
    receipt written after its call): it then follows them, so what was inserted stays
    on the branch that is sent instead of starting a branch of its own.  An entry the writer
    rebuilt from one of the file's (a call sent with new ids) keeps that entry's id, and is
    the parent the entries after it named: inserted entries after it are inserted after it.  node: whether an
    entry is in the tree at all (a pi session's header has an id and is none); others are written as they are.
    """
    known = {e.get(id_key) for e in context.state.get("native") or []
             if isinstance(e, dict) and isinstance(e.get(id_key), str)}
    fresh = context.state.get("fresh", set())
    emitted: set[str] = set()
    last: Any = None
    inserted_after: Any = None  # the entry a run of inserted entries follows, while that run is the last written
    out = []
    for entry in native:
        if isinstance(entry, dict) and isinstance(entry.get(id_key), str) and (node is None or node(entry)):
            parent = entry.get(parent_key)
            new = id(entry) in fresh
            rebuilt = new and entry[id_key] in known  # (it stands where the file's entry of that id stood)
            if new or (isinstance(parent, str) and parent not in emitted and parent in known) \
                    or (inserted_after is not None and parent == inserted_after):
                if new and not rebuilt and (inserted_after is None or last is None):
                    inserted_after = last
                entry = {**entry, parent_key: last}
            if not new or rebuilt:
                inserted_after = None
            emitted.add(entry[id_key])
            last = entry[id_key]
        out.append(entry)
    return out
