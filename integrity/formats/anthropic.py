"""Anthropic Messages `messages` (and the Anthropic message inside Claude Code entries).

Calls are `tool_use` blocks of an assistant message; results are `tool_result`
blocks inside the next user message, possibly followed by text.  A user message is
read as its results (one canonical toolResult per block, in block order) followed by
one user message with the remaining blocks.  Writing groups the other way: a run of
consecutive results becomes one user message, results first, then the text of the
turn they were read with.  The top-level `system` stays in the envelope; canonical
system messages from other formats are hoisted into it.
"""

from __future__ import annotations

from typing import Any

from .base import BuildContext, Segment
from .common import (
    NATIVE,
    OPAQUE,
    SYSTEM_ROLES,
    EntryError,
    NameBook,
    assistant,
    carried,
    describe,
    is_from,
    joined_text,
    native_of,
    object_arguments_text,
    opaque_message,
    opaque_part,
    read_id,
    require_object,
    require_string,
    text_part,
    tool_call,
    tool_result,
)
from .spec import here

NAME = "anthropic"
CONTENT_ROLES = ("user", "assistant")
"""The roles whose content Anthropic's empty-content rules read (providers.anthropic.content_rules; a `system`
message's `content: []` is its directive-only form, accepted anywhere)."""


_SHARED_BLOCKS = ("text", "image", "thinking")  # block types pi-ai's parts have too
_OWN_BLOCKS = ("tool_use", "tool_result", "redacted_thinking", "server_tool_use", "mcp_tool_use", "document",
               "search_result", "container_upload")


def own_block(kind: Any) -> bool:
    """A block type only Anthropic writes: its client and server tool blocks (web search, web fetch, code
    execution, MCP...: every `*_tool_result`, which the API pairs inside the assistant message itself)."""
    return isinstance(kind, str) and (kind in _OWN_BLOCKS or kind.endswith("_tool_result"))


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """Blocks only Anthropic writes (tool_use, tool_result, redacted_thinking, server tool blocks such as
    web search's, documents...), a top-level `system` string or text-block list, or a
    request for a Claude model with `max_tokens` (what Anthropic requires; a repaired view whose tool
    blocks were all dropped still reads back as the Anthropic request it is)."""
    model = envelope.get("model")
    if "max_tokens" in envelope and isinstance(model, str) and model.startswith("claude"):
        return True
    system = envelope.get("system")
    if isinstance(system, str) or (isinstance(system, list) and system and all(
            isinstance(b, dict) and b.get("type") == "text" for b in system)):
        return True
    for entry in entries:
        content = entry.get("content") if isinstance(entry, dict) and "role" in entry else None
        if isinstance(content, list) and any(isinstance(b, dict) and own_block(b.get("type")) for b in content):
            return True
    return False


def fits(entry: Any) -> bool:
    """A user/assistant message whose content is a string or a list of typed Anthropic blocks (a response
    message, `"type": "message"`, is one too)."""
    if not isinstance(entry, dict) or entry.get("role") not in ("user", "assistant") \
            or entry.get("type", "message") != "message":
        return False
    content = entry.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(b, dict) and (b.get("type") in _SHARED_BLOCKS or own_block(b.get("type"))) for b in content)


# ---- reading -------------------------------------------------------------------------------


def _extra(block: dict[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k not in known}


def _parts_in(blocks: list[Any], format: str) -> list[dict[str, Any]]:
    """Canonical parts of non-call, non-result blocks (text, thinking and base64 images; the rest opaque)."""
    parts = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            part = text_part(block["text"])
            extra = _extra(block, ("type", "text"))
            if extra:
                part[NATIVE] = {"extra": extra}
            parts.append(part)
        elif isinstance(block, dict) and block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            part = {"type": "thinking", "thinking": block["thinking"]}
            if isinstance(block.get("signature"), str):
                part["thinkingSignature"] = block["signature"]
            extra = _extra(block, ("type", "thinking", "signature"))
            if extra or "signature" in block and not isinstance(block["signature"], str):
                part[NATIVE] = {"extra": _extra(block, ("type", "thinking"))}
            parts.append(part)
        else:
            parts.append(_image_part(block) or opaque_part(format, block))
    return parts


def _image_part(block: Any) -> dict[str, Any] | None:
    """An image block holding its bytes (`source` of type base64, its media type and data, nothing else) as an
    image part, its other fields (cache_control) kept for writing it back, which every format writes in its own
    shape (as gemini's and bedrock's `_image_part`).  A Claude Code session's pasted screenshot judged toward
    Bedrock or Gemini was an opaque block those writers left out, and its message of the image alone was judged
    empty.  None for an image by URL or file id (kept an opaque Anthropic block) and any other block."""
    if not isinstance(block, dict) or block.get("type") != "image":
        return None
    source = block.get("source")
    if not (isinstance(source, dict) and source.get("type") == "base64" and len(source) == 3
            and isinstance(source.get("media_type"), str) and isinstance(source.get("data"), str)):
        return None
    part: dict[str, Any] = {"type": "image", "data": source["data"], "mimeType": source["media_type"]}
    extra = _extra(block, ("type", "source"))
    if extra:
        part[NATIVE] = {"extra": extra}
    return part


def read_assistant(content: Any, format: str, book: NameBook) -> dict[str, Any]:
    """The canonical assistant message for an Anthropic assistant content (string or blocks)."""
    if isinstance(content, str):
        message = assistant([text_part(content)] if content else [])
        message[NATIVE] = {"format": format, "content": "string"}
        return message
    if not isinstance(content, list):
        raise EntryError(f"'content' must be a string or an array of blocks, got {describe(content)}")
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            call_id = read_id(block.get("id"), "a tool_use block's 'id'")
            name = require_string(block.get("name"), "a tool_use block's 'name'")
            extra = _extra(block, ("type", "id", "name", "input"))
            hints: dict[str, Any] | None = {"extra": extra} if extra else None
            if "input" not in block:
                hints = {**(hints or {}), "noInput": True}
            parts.append(tool_call(call_id, name, block.get("input", {}), hints))
        else:
            parts.extend(_parts_in([block], format))
    book.add_calls(parts)
    message = assistant(parts)
    message[NATIVE] = {"format": format}
    return message


def read_user(content: Any, format: str, book: NameBook) -> list[dict[str, Any]]:
    """Canonical messages for an Anthropic user content: its results first, then the rest."""
    if isinstance(content, str):
        return [{"role": "user", "content": content, NATIVE: {"format": format}}]
    if not isinstance(content, list):
        raise EntryError(f"'content' must be a string or an array of blocks, got {describe(content)}")
    results: list[dict[str, Any]] = []
    rest: list[Any] = []
    for position, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            results.append(_read_result(block, position, format, book))
        else:
            rest.append(block)
    messages = results
    if rest or not results:
        messages.append({"role": "user", "content": _parts_in(rest, format), NATIVE: {"format": format}})
    return messages


def _read_result(block: dict[str, Any], position: int, format: str, book: NameBook) -> dict[str, Any]:
    call_id = block.get("tool_use_id")
    content = block.get("content")
    if isinstance(content, str):
        parts, shape = [text_part(content)], "string"
    elif isinstance(content, list):
        parts, shape = _parts_in(content, format), "list"
    elif content is None:
        parts, shape = [], "absent" if "content" not in block else "null"
    elif isinstance(content, dict):  # (an object Anthropic refuses, tool_result_content_not_text: read as the JSON
        parts, shape = [text_part(object_arguments_text(content))], "string"  # text the repaired view sends)
    else:
        raise EntryError(f"a tool_result block's 'content' must be a string or an array, got {describe(content)}")
    message = tool_result(call_id, book.name(call_id), parts, block.get("is_error") is True, "tool_use_id" in block)
    message[NATIVE] = {"format": format, "part": position, "content": shape}
    extra = _extra(block, ("type", "tool_use_id", "content", "is_error"))
    if extra:
        message[NATIVE]["extra"] = extra
    if "is_error" in block:
        message[NATIVE]["isError"] = block["is_error"]
    return message


def _in_block_order(messages: list[dict[str, Any]], content: Any) -> list[dict[str, Any]]:
    """A user message's other blocks before its results when one of them was recorded first.

    Anthropic rejects a `tool_result` that does not open its message; reading it
    results-first would hide that, and a repair would keep it.  In block order the
    results sit apart from their call, so the view moves them back (results first).
    """
    if not isinstance(content, list) or len(messages) < 2 or messages[-1].get("role") != "user":
        return messages
    first_result = next(i for i, block in enumerate(content)
                        if isinstance(block, dict) and block.get("type") == "tool_result")
    if first_result == 0:
        return messages
    return [messages[-1], *messages[:-1]]


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages per Anthropic message (a user message may yield several)."""
    book = NameBook()
    segments = []
    for index, entry in enumerate(entries):
        try:
            entry = require_object(entry)
            role = entry.get("role")
            if role == "assistant":
                messages = [read_assistant(entry.get("content"), NAME, book)]
            elif role == "user":
                messages = _in_block_order(read_user(entry.get("content"), NAME, book), entry.get("content"))
            elif not isinstance(role, str):
                raise EntryError("the message has no 'role'" if role is None else
                                 f"'role' must be a string, got {describe(role)}")
            else:
                messages = [opaque_message(NAME, entry)]
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, messages))
    return segments


# ---- writing -------------------------------------------------------------------------------


def result_groups(messages: list[dict[str, Any]], format: str) -> list[list[int]]:
    """Results of one turn together (results first), plus the user text read with them."""
    out: list[list[int]] = []
    index = 0
    total = len(messages)
    while index < total:
        message = messages[index]
        role = message.get("role")
        if role in SYSTEM_ROLES or (role == OPAQUE and message.get("format") != format):
            index += 1
            continue
        if role != "toolResult":
            group = [index]
            index += 1
            here = native_of(message)
            # a user message recorded before the results of its own native message (Anthropic reads them
            # so) is one group with them: written back as recorded when unchanged
            while role == "user" and here and here.get("format") == format and index < total \
                    and messages[index].get("role") == "toolResult" \
                    and native_of(messages[index]).get("entry") == here.get("entry"):
                group.append(index)
                index += 1
            out.append(group)
            continue
        group = []
        while index < total and messages[index].get("role") == "toolResult":
            group.append(index)
            index += 1
        if index < total and messages[index].get("role") == "user":
            last = native_of(messages[group[-1]])
            here = native_of(messages[index])
            if last and last.get("format") == format and here.get("format") == format \
                    and here.get("entry") == last.get("entry"):
                group.append(index)
                index += 1
        out.append(group)
    return out


JOINS_RESULTS = True
"""`groups` sends results the file holds in consecutive entries as one (formats.reshaping.joined)."""


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """See result_groups: Anthropic wants a frame's results in the single next user message."""
    return result_groups(messages, NAME)


def merged_user_turns(native: list[Any], sources: list[list[int]]) -> tuple[list[Any], list[list[int]]]:
    """The request as a runtime that merges consecutive user messages sends it (claude_code.sent_request): each
    run of user entries one message, its `tool_result` blocks first, the other blocks after them in order.

    Claude Code records a queued prompt, a hook's text or a parallel call's late result as user entries of their
    own and merges them before every request (its normalizeMessagesForAPI: mergeUserMessages, hoistToolResults),
    so a prompt typed while parallel tools ran, recorded between two of their results, is sent after all of them
    and accepted; judged as the file lists it, it was a false rejection, and every later position in an error
    text was off by the user entries merged before it.  Entries not merged are kept as they are (the same
    objects); a merged one is a new dict (the written entries may be shared)."""
    out: list[Any] = []
    out_sources: list[list[int]] = []
    at, total = 0, len(native)
    while at < total:
        end = at + 1
        while end < total and _is_user(native[at]) and _is_user(native[end]):
            end += 1
        if end - at == 1:
            out.append(native[at])
            out_sources.append(sources[at])
        else:  # (each run merged once: its blocks read once, whatever its length)
            blocks = [block for entry in native[at:end] for block in _as_blocks(entry.get("content"))]
            blocks.sort(key=_not_result)  # (stable: results first, each side in order)
            out.append({**native[at], "content": blocks})
            out_sources.append([index for source in sources[at:end] for index in source])
        at = end
    return out, out_sources


def _is_user(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("role") == "user"


def _not_result(block: Any) -> bool:
    return not (isinstance(block, dict) and block.get("type") == "tool_result")


def _as_blocks(content: Any) -> list[Any]:
    """A user message's content as blocks (a string is one text block, as the API reads it)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def parts_out(parts: Any, format: str, same: bool) -> list[Any]:
    """Anthropic blocks for canonical text/thinking/opaque parts (calls excluded)."""
    blocks = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        extra = part.get(NATIVE, {}).get("extra", {}) if same and isinstance(part.get(NATIVE), dict) else {}
        if kind == "text":
            blocks.append({"type": "text", "text": part.get("text", ""), **extra})
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": part.get("thinking", "")}
            if "thinkingSignature" in part:
                block["signature"] = part["thinkingSignature"]
            blocks.append({**block, **extra})
        elif kind == "image" and isinstance(part.get("data"), str):
            blocks.append({"type": "image", "source": {"type": "base64",
                                                       "media_type": part.get("mimeType", "image/png"),
                                                       "data": part["data"]}, **extra})
        elif kind == OPAQUE and (block := carried(part.get("format"), part.get("value"), format)) is not None:
            blocks.append(block)  # (its own block, or another format's image by address)
    return blocks


def assistant_out(message: dict[str, Any], format: str) -> dict[str, Any]:
    """The Anthropic assistant message for a canonical assistant message."""
    same = is_from(message, format)
    content = message.get("content")
    if same and native_of(message).get("content") == "string" and isinstance(content, list) \
            and all(p.get("type") == "text" for p in content) and len(content) <= 1:
        return {"role": "assistant", "content": content[0]["text"] if content else ""}
    blocks, uses, ordered = [], [], []  # (ordered: every block in its part's place)
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and part.get("type") == "toolCall":
            hints = part.get(NATIVE, {}) if same and isinstance(part.get(NATIVE), dict) else {}
            block = {"type": "tool_use", "id": part.get("id"), "name": part.get("name")}
            if not hints.get("noInput"):
                block["input"] = part.get("arguments", {})
            uses.append({**block, **hints.get("extra", {})})
            ordered.append(uses[-1])
        else:
            written = parts_out([part], format, same)
            blocks.extend(written)
            ordered.extend(written)
    # the calls close the message: Anthropic answers only the trailing run of tool_use blocks, and refuses one
    # followed by text (providers.anthropic, tool_use_not_last); a message written anew (another format's, or
    # one the repair changed) keeps its other blocks in their order, before its calls in theirs, unless its
    # runtime sends its parts in their order (in_order: LangChain's ChatAnthropic), where they stay
    in_order = native_of(message).get("in_order")
    return {"role": "assistant", "content": ordered if in_order else blocks + uses}


def result_block(message: dict[str, Any], format: str, context: BuildContext) -> Any:
    """A tool_result block: the original block when the result is unchanged, else rebuilt."""
    original = context.reuse(message)
    if original is not None:
        return original
    same = is_from(message, format)
    hints = native_of(message) if same else {}
    block: dict[str, Any] = {"type": "tool_result"}
    if "toolCallId" in message:
        block["tool_use_id"] = message["toolCallId"]
    content = message.get("content")
    only_text = isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content)
    shape = hints.get("content")
    if shape in ("absent", "null") and not content:
        if shape == "null":
            block["content"] = None
    elif shape != "list" and only_text and isinstance(content, list) and len(content) == 1:
        block["content"] = content[0]["text"]
    elif shape != "list" and only_text and not content:
        block["content"] = ""
    else:
        block["content"] = parts_out(content, format, same)
    if message.get("isError") is True:
        block["is_error"] = True
    elif "isError" in hints:
        block["is_error"] = hints["isError"] if hints["isError"] is not True else False
    block.update(hints.get("extra", {}))
    return block


def user_out(messages: list[dict[str, Any]], format: str, context: BuildContext) -> dict[str, Any]:
    """One user message: result blocks first, then the blocks of the user message of the turn."""
    results = [m for m in messages if m.get("role") == "toolResult"]
    users = [m for m in messages if m.get("role") == "user"]
    if not results and len(users) == 1 and isinstance(users[0].get("content"), str):
        return {"role": "user", "content": users[0]["content"]}
    blocks = [result_block(m, format, context) for m in results]
    for user in users:
        content = user.get("content")
        if isinstance(content, str):
            blocks.append({"type": "text", "text": content})
        else:
            blocks.extend(parts_out(content, format, is_from(user, format)))
    return {"role": "user", "content": blocks}


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """The Anthropic message for one group."""
    first = messages[0]
    role = first.get("role")
    if role == OPAQUE:
        return [first["value"]]
    if role == "assistant":
        return [assistant_out(first, NAME)]
    if role in ("toolResult", "user"):
        return [user_out(messages, NAME, context)]
    return [{"role": role, "content": first.get("content")}]


def finish(native: list[Any], context: BuildContext) -> list[Any]:
    """The request as Anthropic takes it, where an entry kept verbatim from the file would carry into the repaired
    view what it refuses: a `tool_use` block without `input` (\"messages.1.content.0.tool_use.input: Field
    required\", a writer that left out the arguments of a call that took none) sent with `"input": {}`, the
    arguments it stands for; a `tool_result` whose `content` a writer stored as an object (the tool's return value
    as it came: \"messages.2.content.0.tool_result.content: Input should be a valid string\") sent with its JSON text.
    A block of a text alone without its `type` (a Converse `{"text": ...}` block: \"messages.1.content.0.type: Field
    required\") is sent as the text block it stands for.  The file's entry is left as it is."""
    return list(map(finish_entry, native))


def finish_entry(entry: Any) -> Any:
    """One entry as `finish` sends it: the entry itself when Anthropic takes it as it is, else a copy (what
    formats.reshaping reports of a file's entries)."""
    return _finished(entry) if _unfinished(entry) else entry


def _unfinished(entry: Any) -> bool:
    """Whether `finish` may change the entry: each block read once, by one call (the step runs over every entry of
    every view written, so the common entry costs what its blocks cost, not one pass per fix)."""
    content = entry.get("content") if type(entry) is dict else None
    if type(content) is not list:
        return False
    return any(map(_assistant_block if entry.get("role") == "assistant" else _user_block, content))


def _assistant_block(block: Any) -> bool:
    """A block of an assistant message `finish` may change: a tool_use without input, or a block without type."""
    return type(block) is dict and ("type" not in block or (block["type"] == "tool_use" and "input" not in block))


def _user_block(block: Any) -> bool:
    """A block of a user message `finish` may change: one without type, a tool_result whose content is an object
    or a list holding a block without type."""
    if type(block) is not dict:
        return False
    kind = block.get("type")
    if kind is None:
        return True  # (no type: `_typed` decides whether it is a text alone)
    if kind != "tool_result":
        return False
    inner = block.get("content")
    return type(inner) is dict or (type(inner) is list and any(type(part) is dict and "type" not in part
                                                               for part in inner))


def _finished(entry: dict[str, Any]) -> Any:
    """A copy of the entry as `finish` sends it (the file's entry is left as it is)."""
    return _typed(_with_inputs(entry) if _lacks_input(entry) else _with_texts(entry) if _object_result(entry)
                  else entry)


def _untyped_text(block: Any) -> bool:
    """A block that holds a text alone and no `type` (what Converse writes for a text)."""
    return type(block) is dict and "type" not in block and len(block) == 1 and type(block.get("text")) is str


def _typed(entry: Any) -> Any:
    """The entry with each untyped text block typed, in its content and in its tool_result blocks' content (a copy;
    the entry itself when it has none)."""
    content = entry.get("content") if type(entry) is dict else None
    if type(content) is not list or not any(map(_holds_untyped, content)):
        return entry
    return {**entry, "content": [_typed_block(block) for block in content]}


def _holds_untyped(block: Any) -> bool:
    if _untyped_text(block):
        return True
    inner = block.get("content") if type(block) is dict and block.get("type") == "tool_result" else None
    return type(inner) is list and any(map(_untyped_text, inner))


def _typed_block(block: Any) -> Any:
    if _untyped_text(block):
        return {"type": "text", "text": block["text"]}
    if not _holds_untyped(block):
        return block
    return {**block, "content": [{"type": "text", "text": part["text"]} if _untyped_text(part) else part
                                 for part in block["content"]]}


def _lacks_input(entry: Any) -> bool:
    content = entry.get("content") if isinstance(entry, dict) and entry.get("role") == "assistant" else None
    return isinstance(content, list) and any(map(_use_without_input, content))


def _object_result(entry: Any) -> bool:
    content = entry.get("content") if isinstance(entry, dict) and entry.get("role") == "user" else None
    return isinstance(content, list) and any(map(result_content_object, content))


def result_content_object(block: Any) -> bool:
    """A `tool_result` block whose content is a JSON object (Anthropic takes a string or a list of blocks)."""
    return isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("content"), dict)


def _with_texts(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of the user message whose tool_result blocks hold their object content as its JSON text."""
    return {**entry, "content": [{**block, "content": object_arguments_text(block["content"])}
                                 if result_content_object(block) else block for block in entry["content"]]}


def _use_without_input(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool_use" and "input" not in block


def _with_inputs(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of the message whose tool_use blocks all have an input (put after the name, where the API writes it)."""
    blocks = []
    for block in entry["content"]:
        if _use_without_input(block):
            block = {**{key: value for key, value in block.items() if key in ("type", "id", "name")}, "input": {},
                     **{key: value for key, value in block.items() if key not in ("type", "id", "name")}}
        blocks.append(block)
    return {**entry, "content": blocks}


def system_text(hoisted: list[dict[str, Any]]) -> str:
    """One system prompt from canonical system/developer messages."""
    return "\n\n".join(joined_text(m.get("content")) for m in hoisted)


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """{"system": ..., "messages": [...]} (system only when there was one)."""
    out: dict[str, Any] = {}
    if hoisted:
        out["system"] = system_text(hoisted)
    out["messages"] = native
    return out


def reusable_block(native_entry: Any, part: int) -> Any:
    """The block at `part` of a native message's content (for BuildContext.reuse)."""
    content = native_entry.get("content") if isinstance(native_entry, dict) else None
    return content[part] if isinstance(content, list) and 0 <= part < len(content) else None


SPECS = (here(__name__, provider="anthropic"),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
