"""OpenAI Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).

Each line is `{"timestamp", "type", "payload"}` (openai/codex, codex-rs protocol
RolloutItem): `response_item` payloads are Responses API items (message, reasoning,
function_call / function_call_output, custom_tool_call / custom_tool_call_output,
local_shell_call, web_search_call...), read exactly as the openai-responses format
reads them; `session_meta`, `turn_context`, `event_msg` and `compacted` lines are kept
in place but are not messages.  Codex never sends the items before a `compacted` line
again, nor the turns a `thread_rolled_back` event dropped: they are listed apart, not
judged (`threads`).  Older rollouts (before the typed lines) start with a bare
`{"id", "timestamp", "instructions"}` line and hold bare Responses items, with
`{"record_type": "state"}` lines between: read the same way.

Written back, a kept line is re-emitted verbatim; a rebuilt item is wrapped like the
line it came from (a new one gets the timestamp of the last line written before it).
"""

from __future__ import annotations

from typing import Any

from . import openai_responses
from .base import BuildContext, Thread
from .codex_requests import SENDS_AS, sent_messages
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
    written = context.state.get("written") or []
    if isinstance(template, dict) and _typed_line(template):
        context.state["codex_stamp"] = (len(written), template.get("timestamp"))
        return {**template, "payload": item}
    native = context.state.get("native") or []
    if isinstance(template, dict) or (native and not any(_typed_line(e) for e in native)):
        return item  # an old rollout holds bare items
    line: dict[str, Any] = {}
    # the timestamp of the line written right before it: a line rebuilt in this group, else the last line
    # written so far (else the file's last): a receipt written after its call keeps the file's lines in time order
    held = context.state.get("codex_stamp")
    stamp = held[1] if held is not None and held[0] == len(written) else None
    if stamp is None:
        stamp = next((e.get("timestamp") for source in (written, native) for e in reversed(source)
                      if isinstance(e, dict) and "timestamp" in e), None)
    if stamp is not None:
        line["timestamp"] = stamp
    line["type"] = "response_item"
    line["payload"] = item
    return line


def _compacted(entry: Any) -> bool:
    return _typed_line(entry) and entry["type"] == "compacted"


def _rolled_back(entry: Any) -> int:
    """The number of user turns a `thread_rolled_back` event drops (0: no such event)."""
    if not (_typed_line(entry) and entry["type"] == "event_msg" and isinstance(entry["payload"], dict)):
        return 0
    payload = entry["payload"]
    turns = payload.get("num_turns")
    return turns if payload.get("type") == "thread_rolled_back" and isinstance(turns, int) and turns > 0 else 0


_CONTEXTUAL = ("<environment_context>", "<user_instructions>", "# agents.md instructions", "<skill>",
               "<skills_instructions>", "<user_shell_command>", "<turn_aborted>", "<hook_prompt")
"""How the user messages Codex writes for itself begin (its environment, the AGENTS.md instructions, a skill, a
shell command the user ran, an interrupted turn, a hook's prompt): no user turn starts there
(codex-rs is_contextual_user_message_content)."""


def _user_turn(item: Any) -> bool:
    """Whether an item starts a user turn, as a rollback counts them (codex-rs is_user_turn_boundary): a user
    message none of whose texts is one of Codex's own."""
    if not (isinstance(item, dict) and item.get("type", "message") == "message" and item.get("role") == "user"):
        return False
    content = item.get("content")
    texts = [content] if isinstance(content, str) else [
        part.get("text") for part in content if isinstance(part, dict)] if isinstance(content, list) else []
    return not any(isinstance(text, str) and text.lstrip().lower().startswith(_CONTEXTUAL) for text in texts)


def threads(entries: list[Any]) -> list[Thread] | None:
    """What Codex sends when it resumes a rollout (codex-rs replay_rollout_response_items) as "main", with every
    line that holds no item; the items it never sends again listed apart and not judged:
    - before a `compacted` line, "compacted:N": Codex starts over from the compaction's replacement history (or
      a history rebuilt from the user messages and the summary);
    - dropped by a `thread_rolled_back` event (the user went back N turns), "branch:rollback-N", an abandoned
      branch: Codex cuts its history at the N-th user turn from the end.
    None: a rollout with neither (one transcript)."""
    if not any(_compacted(entry) or _rolled_back(entry) for entry in entries):
        return None
    history: list[int] = []  # the items Codex holds so far, by entry index
    fate: dict[int, tuple[str, str]] = {}  # an item Codex dropped: (kind, name)
    compactions = rollbacks = 0
    for index, entry in enumerate(entries):
        if _unwrap(entry) is not None:
            history.append(index)
        elif _compacted(entry):
            compactions += 1
            fate.update((at, ("compacted", f"compacted:{compactions}")) for at in history)
            history = []
        elif turns := _rolled_back(entry):
            starts = [place for place, at in enumerate(history) if _user_turn(_unwrap(entries[at]))]
            if starts:
                rollbacks += 1
                cut = starts[0] if turns >= len(starts) else starts[-turns]
                fate.update((at, ("branch", f"branch:rollback-{rollbacks}")) for at in history[cut:])
                history = history[:cut]
    loose = [index for index, entry in enumerate(entries) if _unwrap(entry) is None]
    found = [Thread("main", "main", sorted(loose + history))]
    names: dict[str, tuple[str, list[int]]] = {}
    for at, (kind, name) in sorted(fate.items()):
        names.setdefault(name, (kind, []))[1].append(at)
    found.extend(Thread(name, kind, sorted(loose + items), checked=False) for name, (kind, items) in names.items())
    return found


ADAPTER = Wrapped(NAME, openai_responses, _unwrap, _wrap, evidence, fits, container="jsonl", threads=threads)


SPECS = (FormatSpec(NAME, ADAPTER, provider="openai-responses", suffixes=(".jsonl",), sends_as=SENDS_AS,
                    sends_messages=sent_messages),)
"""This module's format, as the registry (integrity.formats) lists it: Codex CLI sends its history to the OpenAI
Responses API, so a file in this format is judged by it when no provider is named (integrity.target_provider), on
the request Codex sends (codex_requests: a call left without its output answered "aborted")."""
