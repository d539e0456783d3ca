"""Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl).

One entry per line; `type` user/assistant entries hold an Anthropic message in
`message`, linked by `uuid` / `parentUuid`.  Claude Code writes one assistant entry
per content block, all sharing `message.id`: consecutive such entries are read as
one canonical assistant message (one frame, as the API saw it).  Tool results are
user entries with `tool_result` blocks (and `toolUseResult`, the tool's structured
output).  Bookkeeping entries (summary, system, file-history-snapshot,
queue-operation, progress...) are not conversation messages: they travel with the
next message's segment so they are re-emitted in place, and never stand between a
call and its result in the engine's eyes.  API error entries (isApiErrorMessage)
become assistant frames with stopReason "error".

Written groups keep Claude Code's own layout (one entry per assistant block, each
result in its own user entry); rebuilt entries get deterministic uuids and the
chain is relinked where an entry's parent was dropped or moved.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from ..repair.views import JS_WHITESPACE, holds_non_text
from . import anthropic
from .base import BuildContext, Segment
from .claude_threads import replays
from .claude_threads import threads as threads
from .common import (
    NATIVE,
    OPAQUE,
    SYSTEM_ROLES,
    EntryError,
    NameBook,
    describe,
    is_from,
    native_of,
    opaque_message,
)
from .spec import from_entries, here

NAME = "claude-code"
_STOP = {"tool_use": "toolUse", "end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
         "pause_turn": "stop", "refusal": "stop"}
_STOP_OUT = {"toolUse": "tool_use", "stop": "end_turn", "length": "max_tokens"}
_SESSION_KEYS = ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch", "agentId")


def _is_message_entry(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") in ("user", "assistant") and "message" in entry


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A user/assistant `type` holding an Anthropic `message` (session lines, the Agent SDK's stream
    with session_id / parent_tool_use_id, the web export's loglines), or a summary with leafUuid."""
    return any(
        isinstance(e, dict) and ((_is_message_entry(e) and isinstance(e["message"], dict)
                                  and ("role" in e["message"] or "content" in e["message"]))
                                 or (e.get("type") == "summary" and "leafUuid" in e))
        for e in entries
    )


def fits(entry: Any) -> bool:
    """A typed session entry (messages carry `message`, bookkeeping entries anything else)."""
    return isinstance(entry, dict) and isinstance(entry.get("type"), str) and "role" not in entry and (
        _is_message_entry(entry) or entry.get("type") not in ("user", "assistant", "message", "function_call"))


def read(entries: list[Any]) -> list[Segment]:
    """Segments of one canonical message group each, with the bookkeeping entries before them."""
    book = NameBook()
    segments: list[Segment] = []
    start = 0
    index = 0
    total = len(entries)
    replayed = replays(entries)
    while index < total:
        entry = entries[index]
        try:
            if not _is_message_entry(entry) or not isinstance(entry["message"], dict) or index in replayed:
                # bookkeeping, a replay of an earlier entry (read once, where it was first written), or
                # a line that is no session entry at all (a writer's slip): it travels with the next
                # message, as it is; the schema check reports the last
                index += 1
                continue
            message = entry["message"]
            anchors = None
            if entry["type"] == "assistant":
                end, parts_of, interleaved = _extent(entries, index)
                blocks = [block for at in parts_of for block in _content_blocks(entries[at]["message"])]
                canonical = _frame(blocks, entry, entries[parts_of[-1]], book)
                messages = [canonical]
                anchors = [index]
                for at in interleaved:
                    for result in anthropic.read_user(entries[at]["message"].get("content"), NAME, book):
                        messages.append(result)
                        anchors.append(at)
            elif message.get("content") is None:
                # A user line whose message has no content (a writer's slip): kept as it is, read on
                # past it; the schema check reports it, and no result is invented from it.
                end = index + 1
                messages = [opaque_message(NAME, entry)]
            else:
                end = index + 1
                messages = anthropic.read_user(message.get("content"), NAME, book)
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(start, end, messages, anchor=index, anchors=anchors))
        start = index = end
    if segments and start < total:
        last_segment = segments[-1]
        segments[-1] = Segment(last_segment.start, total, last_segment.messages, last_segment.anchor,
                               last_segment.anchors)
    return segments


def _extent(entries: list[Any], index: int) -> tuple[int, list[int], list[int]]:
    """Where one assistant message's entries end, which entries hold its blocks, and the
    result entries streamed in between (a parallel batch split by its own outputs).

    Claude Code may write a result, or a bookkeeping line, before the next block of the
    same message; the model still produced one message, so its blocks are read as one
    frame and those results after it.  Only results answering calls already seen, and
    lines that are no message, are crossed; the message ends at its last block.
    """
    message = entries[index]["message"]
    parts_of = [index]
    interleaved: list[int] = []
    pending: list[int] = []
    calls = _call_ids(message)
    end = index + 1
    scan = end
    while scan < len(entries):
        entry = entries[scan]
        if _same_message(entry, message):
            parts_of.append(scan)
            interleaved.extend(pending)
            pending = []
            calls |= _call_ids(entry["message"])
            scan += 1
            end = scan
        elif _answers_only(entry, calls):
            pending.append(scan)
            scan += 1
        elif not _is_message_entry(entry):  # a bookkeeping line (progress, queue-operation, summary) written
            scan += 1  # while the message streamed: crossed, the message's own next block decides
        else:
            break
    return end, parts_of, [at for at in interleaved if at < end]


def _call_ids(message: Any) -> set[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return {b["id"] for b in content or [] if isinstance(b, dict) and b.get("type") == "tool_use"
            and isinstance(b.get("id"), str)} if isinstance(content, list) else set()


def _answers_only(entry: Any, calls: set[Any]) -> bool:
    if not (_is_message_entry(entry) and entry["type"] == "user" and isinstance(entry["message"], dict)):
        return False
    content = entry["message"].get("content")
    return isinstance(content, list) and bool(content) and all(
        isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)
        and b["tool_use_id"] in calls for b in content)


def _frame(blocks: list[Any], first: dict[str, Any], last: dict[str, Any], book: NameBook) -> dict[str, Any]:
    canonical = anthropic.read_assistant(blocks, NAME, book)
    native = canonical.setdefault(NATIVE, {})
    message = first["message"]
    if isinstance(message.get("id"), str):
        native["messageId"] = message["id"]
    stop = last["message"].get("stop_reason")
    if first.get("isApiErrorMessage") is True:
        canonical["stopReason"] = "error"
        canonical["errorMessage"] = "\n".join(p.get("text", "") for p in canonical["content"]
                                              if p.get("type") == "text") or "API error"
    elif isinstance(stop, str) and stop in _STOP and not (stop != "tool_use" and any(
            p.get("type") == "toolCall" for p in canonical["content"])):
        canonical["stopReason"] = _STOP[stop]
    return canonical


def _content_blocks(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    if isinstance(content, list):
        return content
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    raise EntryError(f"'message.content' must be a string or an array, got {describe(content)}")


def _same_message(entry: Any, message: dict[str, Any]) -> bool:
    if not (_is_message_entry(entry) and entry["type"] == "assistant" and isinstance(entry["message"], dict)):
        return False
    ident = message.get("id")
    return isinstance(ident, str) and entry["message"].get("id") == ident


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """Claude Code's own layout: consecutive messages read from one segment stay together."""
    out: list[list[int]] = []
    previous: Any = None
    for index, message in enumerate(messages):
        role = message.get("role")
        if role in SYSTEM_ROLES or (role == OPAQUE and message.get("format") != NAME):
            previous = None
            continue
        native = native_of(message)
        key = (native.get("start"), native.get("end")) if native.get("format") == NAME else None
        if key is not None and key == previous and out:
            out[-1].append(index)
        else:
            out.append([index])
        previous = key
    return out


def _template(context: BuildContext, anchor: Any) -> dict[str, Any]:
    native = context.state.get("native") or []
    if isinstance(anchor, int) and 0 <= anchor < len(native) and isinstance(native[anchor], dict):
        return dict(native[anchor])
    for entry in native:
        if _is_message_entry(entry):
            return {k: entry[k] for k in _SESSION_KEYS if k in entry}
    return {"isSidechain": False, "userType": "external"}


def _new_uuid(context: BuildContext) -> str:
    counter = context.state.setdefault("counter", 0)
    context.state["counter"] = counter + 1
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"integrity:claude-code:{counter}"))


def _stamp(message: dict[str, Any], header: dict[str, Any]) -> Any:
    if isinstance(message.get("timestamp"), (int, float)):
        return datetime.datetime.fromtimestamp(message["timestamp"] / 1000, datetime.timezone.utc) \
            .isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return header.get("timestamp")


def _linked(context: BuildContext) -> bool:
    """Whether the file links its entries by uuid (a file read without any is written without)."""
    native = context.state.get("native")
    return not native or any(isinstance(e, dict) and "uuid" in e for e in native)


def _fresh(context: BuildContext, header: dict[str, Any], kind: str, message: dict[str, Any],
           canonical: dict[str, Any]) -> dict[str, Any]:
    entry = {k: v for k, v in header.items() if k not in ("message", "uuid", "parentUuid", "toolUseResult", "type",
                                                          "timestamp", "requestId", "isApiErrorMessage")}
    if _linked(context):
        entry = {"parentUuid": None, **entry, "type": kind, "message": message, "uuid": _new_uuid(context)}
    else:  # a file without uuids (the web export's loglines) gets none
        entry = {**entry, "type": kind, "message": message}
    stamp = _stamp(canonical, header)
    if stamp is not None:
        entry["timestamp"] = stamp
    context.state.setdefault("fresh", set()).add(id(entry))
    return entry


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """Session entries for one group (rebuilt; unchanged groups are re-emitted verbatim upstream).

    The segment's bookkeeping entries come first, then one entry per assistant block
    and one user entry per source entry of results (or per fresh result).
    """
    native: list[Any] = []
    first = messages[0]
    if is_from(first, NAME):
        hints = native_of(first)
        native_all = context.state.get("native") or []
        start, end = hints.get("start"), hints.get("end")
        if isinstance(start, int) and isinstance(end, int):
            native.extend(e for e in native_all[start:end] if not _is_message_entry(e))
    index = 0
    while index < len(messages):
        message = messages[index]
        role = message.get("role")
        if role == OPAQUE:
            native.append(message["value"])
            index += 1
            continue
        same = is_from(message, NAME)
        header = _template(context, native_of(message).get("entry") if same else None)
        if role == "assistant":
            native.extend(_assistant_entries(message, header, context))
            index += 1
            continue
        run = [message]
        index += 1
        while same and index < len(messages) and messages[index].get("role") in ("toolResult", "user") \
                and is_from(messages[index], NAME) \
                and native_of(messages[index]).get("entry") == native_of(message).get("entry"):
            run.append(messages[index])
            index += 1
        entry = _fresh(context, header, "user", anthropic.user_out(run, NAME, context), message)
        results = [m for m in run if m.get("role") == "toolResult"]
        if same and "toolUseResult" in header and results and all(context.reuse(m) is not None for m in results):
            entry["toolUseResult"] = header["toolUseResult"]
        native.append(entry)
    return native


def _assistant_entries(message: dict[str, Any], header: dict[str, Any], context: BuildContext) -> list[Any]:
    shaped = anthropic.assistant_out(message, NAME)
    given = header.get("message")
    head = {k: v for k, v in given.items() if k != "content"} if isinstance(given, dict) else {}
    if not isinstance(head.get("id"), str):
        # The id is what ties one entry per block back into one message; a rebuilt frame needs one.
        head = {"id": "msg_" + _new_uuid(context).replace("-", "")[:24], "type": "message", "role": "assistant", **head}
    blocks = shaped["content"] if isinstance(shaped["content"], list) else [{"type": "text", "text": shaped["content"]}]
    out = []
    fresh_frame = "message" not in header
    for block in blocks or [None]:
        entry = _fresh(context, header, "assistant", {**head, "content": [block] if block is not None else []}, message)
        if "requestId" in header:
            entry["requestId"] = header["requestId"]
        out.append(entry)
    if fresh_frame:
        # Claude Code records how the turn ended on its last entry; an API error is its own flag.
        stop = message.get("stopReason")
        out[-1]["message"]["stop_reason"] = _STOP_OUT.get(stop) if isinstance(stop, str) else None
        if stop == "error":
            out[-1]["isApiErrorMessage"] = True
    return out


def finish(native: list[Any], context: BuildContext) -> list[Any]:
    """Relink parentUuid where the parent was dropped or moved, and for rebuilt entries."""
    known = {e["uuid"] for e in context.state.get("native") or [] if isinstance(e, dict)
             and isinstance(e.get("uuid"), str)}  # another uuid is a schema finding, never a key
    fresh = context.state.get("fresh", set())
    emitted: set[Any] = set()
    last: Any = None
    out = []
    for entry in native:
        if isinstance(entry, dict) and isinstance(entry.get("uuid"), str):
            parent = entry.get("parentUuid")
            if id(entry) in fresh or (isinstance(parent, str) and parent not in emitted and parent in known):
                entry = {**entry, "parentUuid": last}
            emitted.add(entry["uuid"])
            last = entry["uuid"]
        out.append(entry)
    return out


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """The entries, written as JSONL (a system prompt has no place in a session file)."""
    return native


def reusable_block(native_entry: Any, part: int) -> Any:
    """The block at `part` of an entry's message content (for BuildContext.reuse)."""
    message = native_entry.get("message") if isinstance(native_entry, dict) else None
    return anthropic.reusable_block(message, part)


def sent_request(native: list[Any], sources: list[list[int]]) -> tuple[list[Any], list[list[int]]]:
    """The Anthropic request Claude Code sends for the messages written from its session (FormatSpec.sends_as).

    Before every request its normalizeMessagesForAPI leaves out each assistant message whose blocks are all text
    of whitespace alone (filterWhitespaceOnlyAssistantMessages: what remains when Esc stops a response after
    "\\n\\n" was streamed) and merges each run of user entries into one message, tool_result blocks first
    (mergeUserMessages, hoistToolResults: anthropic.merged_user_turns).  Those sessions went on, the model
    answering the next prompt: judged as the file lists them, they were false rejections ("text content blocks
    must contain non-whitespace text"; a prompt queued between two parallel results).  An error result
    (`is_error`) holding a block that is not text (a screenshot of the failure, written by versions before its
    writer learned to leave them out) is sent with its texts alone, joined by a blank line into one block, or
    with no content when it has none (sanitizeErrorToolResultContent: Anthropic refuses such a block, "all content
    must be type `text` if `is_error` is true"; the empty content it may leave is refused too, and judged so).
    What Claude Code repairs when a pair is broken (a call without its result) is not modelled: that is a
    defect, reported as one."""
    kept = [(entry, source) for entry, source in zip(native, sources, strict=True) if not _whitespace_only(entry)]
    if len(kept) < len(native):
        native, sources = [entry for entry, _ in kept], [source for _, source in kept]
    native = [_text_only_errors(entry) if _holds_error_media(entry) else entry for entry in native]
    return anthropic.merged_user_turns(native, sources)


def _error_media(block: Any) -> bool:
    """A tool_result block marked as an error whose list content holds a block that is not text."""
    content = block.get("content") if isinstance(block, dict) and block.get("type") == "tool_result" \
        and block.get("is_error") else None
    return isinstance(content, list) and holds_non_text(content)


def _holds_error_media(entry: Any) -> bool:
    content = entry.get("content") if isinstance(entry, dict) and entry.get("role") == "user" else None
    return isinstance(content, list) and any(map(_error_media, content))


def _text_only_errors(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of the user message whose error results hold their texts alone (sent_request); the file's entry is
    left as it is."""
    blocks = []
    for block in entry["content"]:
        if _error_media(block):
            texts = [item.get("text") for item in block["content"]
                     if isinstance(item, dict) and item.get("type") == "text"]
            block = {**block, "content": [{"type": "text", "text": "\n\n".join(map(str, texts))}] if texts else []}
        blocks.append(block)
    return {**entry, "content": blocks}


def _whitespace_only(entry: Any) -> bool:
    """An assistant message of one or more text blocks, each of whitespace alone, as JavaScript's trim sees it."""
    if not isinstance(entry, dict) or entry.get("role") != "assistant":
        return False
    content = entry.get("content")
    return isinstance(content, list) and bool(content) and all(
        isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
        and not block["text"].strip(JS_WHITESPACE) for block in content)


SPECS = (here(__name__, provider="anthropic", container="jsonl", skips_bad_lines="Claude Code (since 2.1.121)",
              sends_as={"anthropic": from_entries(sent_request)}),)
"""This module's format, as the registry (integrity.formats) lists it.  Its provider:
Claude Code sends its history as Anthropic Messages requests.  A line that is not JSON (a record cut off and
the next appended on the same line, or two records without the newline between them: anthropics/claude-code
#81843, #52387) is left out when Claude Code resumes the session, since 2.1.121 ("the corrupt line is now
skipped", its release notes); older versions refused the file or stopped at the line (#50347).  Claude Code
builds each request from the session itself (sends_as: sent_request), so the request judged is the one it
sends."""
