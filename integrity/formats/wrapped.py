"""Formats whose entries wrap another format's messages: one adapter, written once.

A Codex rollout line wraps a Responses item in `payload`; a pi session entry wraps
an AgentMessage in `message`; a SWE-agent history item is a Chat message with a few
fields of its own.  Such a format is the inner format's reading and writing plus two
small functions: `unwrap` (the inner item an entry holds, or None for a line that is
no message: a header, an event, a model change) and `wrap` (an inner item back into
an entry, given the entry it was read from as a template, or None for a new one).

Entries that hold no message travel with the next message's segment (the last ones
with the last segment), so an unchanged run is re-emitted verbatim, bookkeeping and
all, and the engine never sees them between a call and its result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from .base import BuildContext, Segment
from .common import NATIVE, OPAQUE, EntryError, is_from, native_of

Unwrap = Callable[[Any], Any]
Wrap = Callable[[Any, Any, BuildContext], Any]


class Wrapped:
    """An adapter (see base.py) made of an inner adapter and unwrap/wrap.

    name: the format's name; inner: the adapter of the wrapped messages;
    evidence/fits: detection (see base.py); container: how a body converted into
    this format is written ("jsonl", "array" or "object"); body: the request body
    for entries built from another format; finish: fix-ups after building (ids and
    parent links); refines: the inner format a file of this one also looks like
    (detection prefers the more specific format); read_only: no writer (the view is
    written as `writes_as`).
    """

    def __init__(self, name: str, inner: Any, unwrap: Unwrap, wrap: Wrap,
                 evidence: Callable[[list[Any], dict[str, Any]], bool], fits: Callable[[Any], bool], *,
                 container: str = "jsonl", body: Callable[[list[Any], list[dict[str, Any]]], Any] | None = None,
                 finish: Callable[[list[Any], BuildContext], list[Any]] | None = None,
                 groups: Callable[[list[dict[str, Any]]], list[list[int]]] | None = None,
                 refines: str | None = None, threads: Callable[[list[Any]], Any] | None = None,
                 dialect: str = "") -> None:
        self.NAME = name
        self.inner = inner
        self.unwrap = unwrap
        self._wrap = wrap
        self.evidence = evidence
        self.fits = fits
        self.CONTAINER = container
        self._body = body
        self._finish = finish
        self._groups = groups
        self.REFINES = refines
        if threads is not None:
            self.threads = threads
        self.dialect = dialect

    # ---- reading ------------------------------------------------------------------------

    def read(self, entries: list[Any]) -> list[Segment]:
        """The inner format's segments, renumbered to the entries they came from."""
        picked: list[int] = []
        items: list[Any] = []
        for index, entry in enumerate(entries):
            try:
                item = self.unwrap(entry)
            except EntryError as error:  # an entry that should hold a message but holds none readable
                raise EntryError(error.problem, index) from None
            if item is not None:
                picked.append(index)
                items.append(dict(item) if isinstance(item, dict) else item)  # never annotate the native entry
        try:
            inner = self.inner.read(items)
        except EntryError as error:
            where = picked[error.index] if error.index is not None and error.index < len(picked) else None
            raise EntryError(error.problem, where) from None
        segments: list[Segment] = []
        start = 0
        for segment in inner:
            if not segment.messages:
                continue
            end = picked[segment.end - 1] + 1
            anchors = ([picked[at] for at in segment.anchors] if segment.anchors is not None else None)
            segments.append(Segment(start, end, segment.messages, picked[segment.entry], anchors))
            start = end
        if segments and start < len(entries):
            last = segments[-1]
            segments[-1] = Segment(last.start, len(entries), last.messages, last.anchor, last.anchors)
        return segments

    # ---- writing ------------------------------------------------------------------------

    def _as_inner(self, message: Any) -> Any:
        """The message as the inner adapter expects to see it.

        This format's own messages are the inner format's (their NATIVE format renamed);
        messages the inner format read by itself are another format's here (written
        fresh: a LangChain message written as LangGraph takes LangGraph's shape).
        """
        native = native_of(message)
        if native.get("format") == self.NAME:
            return {**message, NATIVE: {**native, "format": self.inner.NAME}}
        if native.get("format") == self.inner.NAME:
            return {**message, NATIVE: {**native, "format": f"{self.inner.NAME} (read as such)"}}
        return message

    def groups(self, messages: list[dict[str, Any]]) -> list[list[int]]:
        """The inner format's grouping (other formats' opaque messages left out)."""
        if self._groups is not None:
            return cast("list[list[int]]", self._groups(messages))
        inner: list[list[int]] = self.inner.groups([self._as_inner(m) for m in messages])
        return inner

    def build(self, messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
        """The inner format's entries for one group, each wrapped like the entry it was read from."""
        template = None
        if is_from(messages[0], self.NAME):
            at = native_of(messages[0]).get("entry")
            native = context.state.get("native") or []
            if isinstance(at, int) and 0 <= at < len(native):
                template = native[at]
        inner_context = BuildContext(self.inner.NAME, context.reuse, context.dialect or self.dialect, context.state)
        built = self.inner.build([self._as_inner(m) for m in messages], inner_context)
        return [self._wrap(item, template, context) for item in built]

    def finish(self, native: list[Any], context: BuildContext) -> list[Any]:
        """Entries fixed up after building (new ids, parent links), when the format needs it."""
        return self._finish(native, context) if self._finish is not None else native

    def body(self, native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
        """The body for entries built from another format."""
        return self._body(native, hoisted) if self._body is not None else native

    def dialect_of(self, entries: list[Any]) -> str:
        """The inner format's dialect of these entries (the one the wrapper names, when it names one)."""
        inner = getattr(self.inner, "dialect_of", None)
        return self.dialect or (inner([self.unwrap(e) for e in entries]) if inner is not None else "")

    def reusable_block(self, native_entry: Any, part: int) -> Any:
        """The inner format's block, found inside the entry."""
        reuse = getattr(self.inner, "reusable_block", None)
        item = self.unwrap(native_entry)
        return reuse(item, part) if reuse is not None and item is not None else None


def keep_group(message: dict[str, Any], name: str) -> bool:
    """A message a writer of format `name` emits (other formats' opaque messages are left out)."""
    return not (message.get("role") == OPAQUE and message.get("format") != name)
