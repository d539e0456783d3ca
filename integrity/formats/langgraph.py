"""LangGraph API / SDK message dicts: LangChain messages with their fields at the top level.

The LangGraph server returns a thread's state as `{"values": {"messages": [...]}}`
(and the SDK hands out the same list): each message is the LangChain message's
fields, `type` among them (`human`, `ai`, `tool`, `system`), with `tool_calls`
[{name, args, id, type}] on an AI message and `tool_call_id` / `status` on a tool
message.  LangChain's own serializations wrap the same fields (`{"type", "data"}`,
`{"lc", "kwargs"}`); this format is read and written by the langchain adapter in its
flat dialect, under its own name so nothing mistakes one shape for the other.
"""

from __future__ import annotations

from typing import Any

from . import langchain
from .base import BuildContext
from .common import entry_keys
from .spec import FormatSpec
from .wrapped import Wrapped

NAME = "langgraph"


def _flat(entry: Any) -> bool:
    return isinstance(entry, dict) and langchain.flat_kind(entry) is not None


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """Flat message dicts (a `type` LangChain knows, `content`, no `data` or `lc` wrapper)."""
    keys = entry_keys(entries)
    if keys is not None and "type" not in keys:  # (a Chat or Anthropic file's messages have none)
        return False
    return any(map(_flat, entries))


def _unwrap(entry: Any) -> Any:
    return entry


def _wrap(item: Any, template: Any, context: BuildContext) -> Any:
    return item


ADAPTER = Wrapped(NAME, langchain, _unwrap, _wrap, evidence, _flat, container="array", refines=langchain.NAME,
                  dialect="flat")


SPECS = (FormatSpec(NAME, ADAPTER, suffixes=(".json",)),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
