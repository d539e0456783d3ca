"""OpenAI Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).

Each line is `{"timestamp", "type", "payload"}` (openai/codex, codex-rs protocol
RolloutItem): `response_item` payloads are Responses API items (message, reasoning,
function_call / function_call_output, custom_tool_call / custom_tool_call_output,
local_shell_call, web_search_call...), read exactly as the openai-responses format
reads them; `session_meta`, `turn_context`, `event_msg` and `compacted` lines are kept
in place but are not messages.  Codex never sends the items before a `compacted` line again: they are
listed apart, not judged (`threads`).  Older rollouts (before the typed lines) start with a
bare `{"id", "timestamp", "instructions"}` line and hold bare Responses items, with
`{"record_type": "state"}` lines between: read the same way.

Written back, a kept line is re-emitted verbatim; a rebuilt item is wrapped like the
line it came from (a new one gets the timestamp of the last line written before it).
"""

from __future__ import annotations

from typing import Any

from . import openai_responses
from .base import BuildContext, Thread
from .spec import FormatSpec
from .wrapped import Wrapped

NAME = "codex"
LINE_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")


def _typed_line(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") in LINE_TYPES and "payload" in entry


def _legacy_meta(entry: Any) -> bool:
    """The first line of an old rollout: session id, timestamp and instructions, no type."""
    return isinstance(entry, dict) and "type" not in entry and "role" not in entry and "id" in entry \
        and "timestamp" in entry and ("instructions" in entry or "git" in entry)


def _bare_item(entry: Any) -> bool:
    return isinstance(entry, dict) and "payload" not in entry and openai_responses.fits(entry) \
        and "type" in entry


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """Typed rollout lines, or an old rollout's meta line followed by Responses items or state lines."""
    if any(_typed_line(e) for e in entries):
        return True
    return bool(entries) and _legacy_meta(entries[0]) and all(
        _bare_item(e) or (isinstance(e, dict) and "record_type" in e) for e in entries[1:])


def fits(entry: Any) -> bool:
    """A rollout line (typed, or an old rollout's meta, state or item line)."""
    return _typed_line(entry) or _legacy_meta(entry) or _bare_item(entry) \
        or (isinstance(entry, dict) and "record_type" in entry and "role" not in entry)


def _unwrap(entry: Any) -> Any:
    if _typed_line(entry):
        payload = entry["payload"]
        return payload if entry["type"] == "response_item" and isinstance(payload, dict) else None
    return entry if _bare_item(entry) else None


def _wrap(item: Any, template: Any, context: BuildContext) -> Any:
    """A rebuilt item on a rollout line like its template; a new one on a fresh response_item line."""
    if isinstance(template, dict) and _typed_line(template):
        context.state["codex_stamp"] = template.get("timestamp")
        return {**template, "payload": item}
    native = context.state.get("native") or []
    if isinstance(template, dict) or (native and not any(_typed_line(e) for e in native)):
        return item  # an old rollout holds bare items
    line: dict[str, Any] = {}
    stamp = context.state.get("codex_stamp")
    if stamp is None:
        stamp = next((e.get("timestamp") for e in reversed(native)
                      if isinstance(e, dict) and "timestamp" in e), None)
    if stamp is not None:
        line["timestamp"] = stamp
    line["type"] = "response_item"
    line["payload"] = item
    return line


def _compacted(entry: Any) -> bool:
    return _typed_line(entry) and entry["type"] == "compacted"


def threads(entries: list[Any]) -> list[Thread] | None:
    """After a `compacted` line Codex sends the compaction's replacement history (or a history rebuilt from the
    user messages and the summary) and the items after it, never the items before it again (codex-rs
    replay_rollout_response_items).  So "main" is the items after the last compaction, with every line that
    holds no item; the items before each compaction are "compacted:N", listed and not judged.  None: a rollout
    without a compaction (one transcript)."""
    cuts = [index for index, entry in enumerate(entries) if _compacted(entry)]
    if not cuts:
        return None
    items = [index for index, entry in enumerate(entries) if _unwrap(entry) is not None]
    loose = [index for index, entry in enumerate(entries) if _unwrap(entry) is None]
    found = [Thread("main", "main", sorted(loose + [index for index in items if index > cuts[-1]]))]
    start = 0
    for number, cut in enumerate(cuts, 1):
        span = [index for index in items if start <= index < cut]
        if span:
            found.append(Thread(f"compacted:{number}", "compacted", sorted(loose + span), checked=False))
        start = cut
    return found


ADAPTER = Wrapped(NAME, openai_responses, _unwrap, _wrap, evidence, fits, container="jsonl", threads=threads)


SPECS = (FormatSpec(NAME, ADAPTER, provider="openai-responses", suffixes=(".jsonl",)),)
"""This module's format, as the registry (integrity.formats) lists it: Codex CLI sends its history to the OpenAI
Responses API, so a file in this format is judged by it when no provider is named (integrity.target_provider)."""
