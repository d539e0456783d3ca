"""SWE-agent trajectories (`.traj`) and mini-swe-agent trajectories (`.traj.json`).

SWE-agent (SWE-agent/SWE-agent, sweagent/types.py HistoryItem, docs/usage/
trajectories.md) writes `{"trajectory": [steps], "history": [items], "info": ...}`.
`history` is what the model was sent: Chat messages with SWE-agent's own fields
(`agent`, `message_type`, `thought`, `action`, `is_demo`...), whose tool messages name
their call in `tool_call_ids` (a list; SWE-agent sends its first id as
`tool_call_id`).  Read as Chat messages, a `tool_call_ids` list pairs like a
`tool_call_id`, so a real result is never taken for a stray.  A retried run keeps
every attempt under `attempts` (each its own transcript, `attempt:<n>`) and the
chosen one at the top.

mini-swe-agent (SWE-agent/mini-swe-agent, docs/usage/output_files.md) writes
`{"info", "messages", "trajectory_format": "mini-swe-agent-1.x"}`; its messages are
Chat messages with an `extra` field (tool-call models add `tool_calls` and `tool`
messages).

Both are written back as they were read: the file's other keys kept, the list
rebuilt in the Chat writer (a SWE-agent tool message again names its call in
`tool_call_ids`).
"""

from __future__ import annotations

from typing import Any

from . import openai_chat
from .base import BuildContext
from .common import entry_keys
from .spec import FormatSpec
from .wrapped import Wrapped

SWE_AGENT = "swe-agent"
MINI = "mini-swe-agent"
_SWE_FIELDS = ("message_type", "tool_call_ids", "is_demo", "thinking_blocks")
_SWE_KEYS = frozenset((*_SWE_FIELDS, "agent"))


def _swe_evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """SWE-agent's own history fields, or a trajectory file's other keys."""
    if "trajectory" in envelope and ("info" in envelope or "environment" in envelope):
        return True
    keys = entry_keys(entries)
    if keys is not None and not keys & _SWE_KEYS:  # (no entry holds one of them: nearly every Chat file)
        return False
    return any(isinstance(e, dict) and "role" in e and (any(k in e for k in _SWE_FIELDS)
                                                        or isinstance(e.get("agent"), str)) for e in entries)


def _mini_evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """The trajectory_format mark, or an info block with messages carrying `extra`."""
    mark = envelope.get("trajectory_format")
    if isinstance(mark, str) and mark.startswith("mini-swe-agent"):
        return True
    return "info" in envelope and any(isinstance(e, dict) and isinstance(e.get("extra"), dict) for e in entries)


def _fits(entry: Any) -> bool:
    return openai_chat.fits(entry)


def _unwrap(entry: Any) -> Any:
    return entry


def _swe_wrap(item: Any, template: Any, context: BuildContext) -> Any:
    """A history item; a tool message names its call in tool_call_ids, as SWE-agent writes it."""
    if not isinstance(item, dict):
        return item
    out = dict(item)
    if out.get("role") == "tool" and "tool_call_id" in out and "tool_call_ids" not in out:
        call_id = out.pop("tool_call_id")
        out["tool_call_ids"] = [call_id]
    if template is None:
        agent = next((e.get("agent") for e in context.state.get("native") or []
                      if isinstance(e, dict) and isinstance(e.get("agent"), str)), None)
        if agent is not None:
            out.setdefault("agent", agent)
        if out.get("role") == "tool":
            out.setdefault("message_type", "observation")
    return out


def _mini_wrap(item: Any, template: Any, context: BuildContext) -> Any:
    return item


def _swe_body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    return {"history": native}


def _mini_body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    return {"info": {}, "messages": native, "trajectory_format": "mini-swe-agent-1.1"}


SWE_ADAPTER = Wrapped(SWE_AGENT, openai_chat, _unwrap, _swe_wrap, _swe_evidence, _fits, container="object",
                      body=_swe_body, refines=openai_chat.NAME)
MINI_ADAPTER = Wrapped(MINI, openai_chat, _unwrap, _mini_wrap, _mini_evidence, _fits, container="object",
                       body=_mini_body, refines=openai_chat.NAME)


SPECS = (FormatSpec(SWE_ADAPTER.NAME, SWE_ADAPTER, suffixes=(".traj", ".json")),
         FormatSpec(MINI_ADAPTER.NAME, MINI_ADAPTER, suffixes=(".traj.json",)))
"""This module's format(s), as the registry (integrity.formats) lists them."""
