"""The contract every format adapter module fulfils, and the context it builds with.

An adapter module defines:
  NAME: the format name;
  evidence(entries, envelope) -> bool: something only this format writes is present;
  fits(entry) -> bool: the entry could belong to this format (weaker, used when no
      format shows evidence);
  read(entries) -> list[Segment]: canonical messages, grouped by the native entries
      they came from (raise EntryError(problem, index) for an unreadable entry);
  groups(messages) -> list[list[int]]: which canonical messages make one native unit
      (Anthropic puts a frame's results in one user message, and so on);
  build(messages, context) -> list: the native entries for one group;
  body(native, hoisted) -> list | dict: the request body when there is no source
      envelope to reuse (hoisted: system/developer messages this format keeps outside
      its message list).
Optional: reusable_block(native_entry, part) -> the native block a result was read
from; finish(native, context) -> native entries fixed up after building (same length);
threads(entries) -> list[Thread] | None: the transcripts one entry list holds (Claude
Code sidechains, a session tree's abandoned branches; None: just one); REFINES: the
name of a more general format the entries also look like (detection prefers this one);
CONTAINER: how a body converted into this format is written; READ_ONLY / WRITES_AS:
no writer, a view is written in WRITES_AS instead.
Each format module ends with SPECS: its formats' records (integrity.formats.spec.FormatSpec: the adapter,
the provider a file in it is sent to, its file suffixes), which the registry (integrity.formats) lists.
Keeping the contract this small lets the reading and writing pipelines be written
once for all formats.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Segment:
    """Native entries [start, end) and the canonical messages read from them.

    anchor is the entry reports point at (the first message entry; a Claude Code
    segment may start with bookkeeping entries such as summaries).
    """

    start: int
    end: int
    messages: list[dict[str, Any]]
    anchor: int | None = None
    anchors: list[int] | None = None  # per message, when they came from different entries

    @property
    def entry(self) -> int:
        return self.start if self.anchor is None else self.anchor

    def entry_of(self, position: int) -> int:
        """The native entry message `position` of this segment came from."""
        return self.anchors[position] if self.anchors is not None else self.entry


@dataclass
class BuildContext:
    """What an adapter may use while building native entries.

    reuse(message) returns the native block the message was read from when the
    message is unchanged and comes from this format (None otherwise), so regrouped
    results keep provider-only fields.  state is scratch space for one write (for
    example Claude Code's uuid chain).
    """

    format: str
    reuse: Callable[[dict[str, Any]], Any | None] = lambda message: None
    dialect: str = ""
    state: dict[str, Any] = field(default_factory=dict)


@dataclass
class Thread:
    """One transcript among several held by one entry list.

    name: stable ("main", "sidechain:<id>", "subagent:<id>", "branch:<id>"); kind: the
    part before the colon; indices: the entries it is made of, in file order (bookkeeping
    entries such as a session header belong to every thread); checked: False for an
    abandoned branch (listed, never sent to the model again, so no verdict counts it).
    """

    name: str
    kind: str
    indices: list[int]
    checked: bool = True


def per_entry(entries: list[Any], read_one: Callable[[Any], list[dict[str, Any]]]) -> list[Segment]:
    """Segments for formats where each native entry is read on its own (into one or more messages).

    An EntryError from read_one is re-raised with the entry's index, so the one-line
    error names the position in the file.
    """
    from .common import EntryError

    segments = []
    for index, entry in enumerate(entries):
        try:
            messages = read_one(entry)
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, messages))
    return segments
