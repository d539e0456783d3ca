"""The threads of a Claude Code session file: main, sidechains, subagent streams, abandoned branches.

- Sidechains (`isSidechain: true`, the Task tool's subagents; `agentId` names one)
  are their own conversations with their own tool calls: each is checked on its own
  as `sidechain:<agentId>` (or `sidechain:<uuid of its first entry>`), never merged
  into the main thread, where its calls would look unanswered and its results stray.
- The Agent SDK's stream (`parent_tool_use_id`) tags a subagent's messages with the
  Task call they serve: each such stream is `subagent:<tool_use_id>`.
- After a rewind (Esc Esc, edit an earlier prompt) Claude Code appends the new prompt
  as a child of an earlier entry.  The main thread is the chain from the last entry
  back to the root (following `logicalParentUuid` across a compaction boundary; the
  messages before the last boundary are `compacted:1`, never sent again).  An
  entry off that chain is only taken for an abandoned branch when its subtree starts
  where a rewind starts one: at a prompt (a user entry that is no tool result) or at
  a response of its own (an assistant `message.id` the chain does not have).  Tool
  results that point at their own tool_use entry, and further blocks of a message the
  chain holds, are how Claude Code links parallel calls, not rewinds: they stay in the
  main thread, in file order.  Abandoned branches are listed as `branch:<uuid>` (the
  chain up to the fork, then the branch), and never mixed in.
"""

from __future__ import annotations

from typing import Any

from .base import Thread
from .tree import chain, index_by_id, lookup


def _message(entry: Any) -> dict[str, Any] | None:
    if isinstance(entry, dict) and entry.get("type") in ("user", "assistant"):
        message = entry.get("message")
        return message if isinstance(message, dict) else None
    return None


def _uuid(entry: Any) -> Any:
    return entry.get("uuid") if isinstance(entry, dict) else None


def _parent(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return None
    parent = entry.get("parentUuid")
    return parent if parent is not None else entry.get("logicalParentUuid")


def _is_prompt(entry: Any) -> bool:
    """A user entry that is not (only) tool results: what a rewind re-sends."""
    message = _message(entry)
    if message is None or entry.get("type") != "user" or entry.get("isMeta") is True:
        return False
    content = message.get("content")
    return isinstance(content, str) or (isinstance(content, list) and not any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content))


def _message_id(entry: Any) -> Any:
    message = _message(entry)
    value = message.get("id") if message is not None and entry.get("type") == "assistant" else None
    return value if isinstance(value, str) else None  # any other id is a schema finding, never a key


def replays(entries: list[Any]) -> set[int]:
    """Message entries that repeat an earlier entry of the file: the same uuid, type and message.

    Claude Code re-writes history into the session file, uuids and all, when it compacts or
    continues a session (anthropics/claude-code#66947: 1,538 uuids written more than once in
    one file), and loads a session by uuid, so each is one message.  Read twice, a replayed
    call and its result would be a reused id and a duplicate result that no request ever had.
    An entry that reuses a uuid with a different message is not a replay and is read."""
    first: dict[str, dict[str, Any]] = {}
    found: set[int] = set()
    for index, entry in enumerate(entries):
        if _message(entry) is None or not isinstance(entry.get("uuid"), str):
            continue
        earlier = first.setdefault(entry["uuid"], entry)
        if earlier is not entry and earlier.get("type") == entry.get("type") \
                and earlier.get("message") == entry.get("message"):
            found.add(index)
    return found


def _sidechain_names(entries: list[Any], side: list[int]) -> dict[int, str]:
    """entry index -> its sidechain's name (by agentId, else by the uuid of the chain's first entry)."""
    by_id = index_by_id(entries, side, _uuid)
    names: dict[int, str] = {}
    for index in side:
        root = chain(entries, index, by_id, _parent)[0]
        agent = next((a for a in (entries[index].get("agentId"), entries[root].get("agentId"))
                      if isinstance(a, str) and a), None)
        names[index] = f"sidechain:{agent or _uuid(entries[root]) or root}"
    return names


def _branches(entries: list[Any], members: list[int]) -> tuple[list[int], list[Thread]]:
    """The main thread's entries and the abandoned branches among `members` (entries in file order)."""
    replayed = replays(entries)  # a re-written copy of an entry is that entry again, never a branch
    linked = [i for i in members if isinstance(_uuid(entries[i]), str) and i not in replayed]
    if not linked:
        return members, []
    by_id = index_by_id(entries, linked, _uuid)
    active = chain(entries, linked[-1], by_id, _parent)
    on_chain = set(active)
    chain_ids = {_message_id(entries[i]) for i in active} - {None}
    abandoned: dict[int, list[int]] = {}  # subtree root -> its entries
    roots: dict[int, int] = {}  # off-chain entry -> the root of its subtree, found once per entry
    for index in linked:
        if index in on_chain:
            continue
        root = _subtree_root(entries, index, by_id, on_chain, roots)
        fork = lookup(by_id, _parent(entries[root]))
        rewound = fork is not None and fork in on_chain and (
            _is_prompt(entries[root]) or (_message_id(entries[root]) not in chain_ids
                                          and _message_id(entries[root]) is not None))
        if rewound:
            abandoned.setdefault(root, []).append(index)
    dropped = {i for found in abandoned.values() for i in found}
    main = [i for i in members if i not in dropped]
    branches = []
    for root, found in abandoned.items():
        fork = lookup(by_id, _parent(entries[root]))
        prefix = [i for i in active if i <= fork] if fork in on_chain else []
        loose = [i for i in members if not isinstance(_uuid(entries[i]), str) and i < root]
        branches.append(Thread(f"branch:{_uuid(entries[root])}", "branch",
                               sorted(set(prefix + found + loose)), checked=False))
    return main, branches


def _subtree_root(entries: list[Any], index: int, by_id: dict[Any, int], on_chain: set[int],
                  roots: dict[int, int]) -> int:
    """The topmost ancestor of an off-chain entry that is itself off the chain (its parent is on it, missing, or
    one already walked: a cycle).  Every entry walked on the way has the same root, so each is kept in `roots`:
    a long subtree off the chain (1,157 linked entries, 868 off the chain in one public session) is walked once,
    not once per entry (284,159 parent lookups).  A walk that meets a cycle keeps nothing: an entry's root in a
    cycle depends on where the walk starts."""
    path = [index]
    seen = {index}
    at = index
    while True:
        known = roots.get(at)
        if known is not None:
            root = known
            break
        parent = lookup(by_id, _parent(entries[at]))
        if parent is None or parent in on_chain:
            root = at
            break
        if parent in seen:
            return at
        seen.add(parent)
        path.append(parent)
        at = parent
    for walked in path:
        roots[walked] = root
    return root


def _compacted(entries: list[Any], main: list[int]) -> list[int]:
    """The main thread's messages before its last compaction boundary (a `compact_boundary` system entry): Claude
    Code sends the messages after the boundary only (its summary, then what follows), so these are never sent
    again: listed apart, not judged."""
    boundary = next((i for i in reversed(main) if isinstance(entries[i], dict) and entries[i].get("type") == "system"
                     and entries[i].get("subtype") == "compact_boundary"), None)
    if boundary is None:
        return []
    return [i for i in main if i < boundary and _message(entries[i]) is not None]


def threads(entries: list[Any]) -> list[Thread] | None:
    """Main, sidechain, subagent and abandoned-branch threads (None when the file is one plain thread)."""
    side = [i for i, e in enumerate(entries) if isinstance(e, dict) and e.get("isSidechain") is True]
    sidechain = set(side)
    streams: dict[str, list[int]] = {}
    for index, entry in enumerate(entries):
        tool_use = entry.get("parent_tool_use_id") if isinstance(entry, dict) else None
        if isinstance(tool_use, str) and tool_use and index not in sidechain:
            streams.setdefault(f"subagent:{tool_use}", []).append(index)
    taken = sidechain | {i for found in streams.values() for i in found}
    main, branches = _branches(entries, [i for i in range(len(entries)) if i not in taken])
    compacted = _compacted(entries, main)
    if not side and not streams and not branches and not compacted:
        return None
    gone = set(compacted)
    main = [i for i in main if i not in gone]
    found: list[Thread] = [Thread("main", "main", main)] if any(_message(entries[i]) for i in main) else []
    if compacted:
        found.append(Thread("compacted:1", "compacted", compacted, checked=False))
    names = _sidechain_names(entries, side)
    for name in dict.fromkeys(names.values()):
        found.append(Thread(name, "sidechain", [i for i in side if names[i] == name]))
    for name, indices in streams.items():
        found.append(Thread(name, "subagent", indices))
    return found + branches
