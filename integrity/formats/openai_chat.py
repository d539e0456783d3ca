"""OpenAI Chat Completions `messages` (also what Mistral, DeepSeek and llama.cpp accept).

Calls are `tool_calls` on an assistant message (arguments are a JSON string),
results are `role: "tool"` messages with `tool_call_id`; one native message maps to
one canonical message.  Fields pi-ai has no place for (a message's `name`,
`refusal`, DeepSeek's `reasoning_content`...) are kept in NATIVE["extra"] and the
exact arguments text in the call part's NATIVE["arguments"], so a message rebuilt
in this format comes back field for field.
"""

from __future__ import annotations

from typing import Any

from .base import BuildContext, Segment, per_entry
from .common import (
    NATIVE,
    OPAQUE,
    SYSTEM_ROLES,
    EntryError,
    NameBook,
    arguments_text,
    assistant,
    carried,
    data_url,
    describe,
    image_detail,
    image_of_data_url,
    is_from,
    native_of,
    object_arguments_text,
    opaque_message,
    opaque_part,
    parse_arguments,
    read_id,
    require_object,
    require_string,
    text_part,
    tool_call,
    tool_result,
)
from .spec import here

NAME = "openai-chat"
_ROLES = ("user", "assistant", "tool", "function") + SYSTEM_ROLES


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A `tool` role, an assistant message carrying `tool_calls`, or one holding a Mistral `thinking` chunk
    (its `thinking` a list of chunks: Anthropic's and pi-ai's thinking is text), which Mistral takes in
    this shape."""
    return any(
        isinstance(e, dict) and (e.get("role") == "tool" or (e.get("role") == "assistant" and (
            "tool_calls" in e or (isinstance(e.get("content"), list)
                                  and any(mistral_thinking(p) for p in e["content"])))))
        for e in entries
    )


def mistral_thinking(part: Any) -> bool:
    """Whether a content part is a Mistral thinking chunk (`{"type": "thinking", "thinking": [chunks]}`): a
    `thinking` part whose `thinking` is a list, which neither Anthropic's block nor pi-ai's part (text) is."""
    return isinstance(part, dict) and part.get("type") == "thinking" and isinstance(part.get("thinking"), list)


def fits(entry: Any) -> bool:
    """A message with a Chat role and string, null or part-list content, or an object a writer stored as the
    content (OpenAI refuses it, content_not_text, but the file is a Chat history all the same)."""
    if not isinstance(entry, dict) or entry.get("role") not in _ROLES or "type" in entry:
        return False
    content = entry.get("content")
    if isinstance(content, list):
        return all(isinstance(p, dict) and isinstance(p.get("type"), str) and p["type"] in _PART_TYPES for p in content)
    return content is None or isinstance(content, (str, dict))


_PART_TYPES = ("text", "image_url", "input_audio", "file", "refusal")


def _extra(entry: dict[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in known}


def _content_parts(content: Any, images: bool = False) -> tuple[list[dict[str, Any]], bool]:
    """Canonical parts of Chat content, and whether it was a list (to write it back as one).  images: an
    `image_url` part holding its bytes (a data URL) is read as an image part (_image_part); an assistant's content
    takes none, so there it stays the Chat part it was."""
    if content is None:
        return [], False
    if isinstance(content, str):
        return ([text_part(content)] if content else []), False
    if isinstance(content, dict):  # (an object OpenAI refuses: read as the JSON text the repaired view sends)
        return [text_part(object_arguments_text(content))], False
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                text = text_part(part["text"])
                if len(part) > 2:  # (a text part's own fields, say cache_control: written back with it, as read)
                    text[NATIVE] = {"extra": _extra(part, ("type", "text"))}
                parts.append(text)
            else:
                parts.append((images and _image_part(part)) or opaque_part(NAME, part))
        return parts, True
    raise EntryError(f"'content' must be a string, an array or null, got {describe(content)}")


def _image_part(part: Any) -> dict[str, Any] | None:
    """An `image_url` part whose URL is an image's data URL as an image part (common.image_of_data_url), the part as
    read kept to write it back (its `detail`, its fields' order); None for an image by address (kept opaque: no
    other format's writer can send it) and any other part."""
    url = part.get("image_url") if isinstance(part, dict) and part.get("type") == "image_url" else None
    if not isinstance(url, dict) or (image := image_of_data_url(url.get("url"))) is None:
        return None
    image[NATIVE] = {"format": NAME, "part": part}
    if isinstance(url.get("detail"), str):  # (the Responses writer sends it too: common.image_detail)
        image[NATIVE]["detail"] = url["detail"]
    return image


def _image_out(part: dict[str, Any]) -> dict[str, Any]:
    """The `image_url` part for an image part: as read where it came from a Chat file (wherever the view moved
    it), else a data URL of its bytes."""
    native = part.get(NATIVE)
    given = native.get("part") if isinstance(native, dict) and native.get("format") == NAME else None
    if isinstance(given, dict) and isinstance(given.get("image_url"), dict):
        return {**given, "image_url": {**given["image_url"], "url": data_url(part)}}
    detail = image_detail(part)
    return {"type": "image_url", "image_url": {"url": data_url(part), **({"detail": detail} if detail else {})}}


def _answered_without_content(entry: dict[str, Any]) -> bool:
    """An assistant message that completed its turn with no content: a legacy `function_call`, a
    refusal or an audio answer.  Read as empty, it would be taken for an interrupted frame and
    dropped from the view (a legacy call then lost while its `function` result stays)."""
    refusal = entry.get("refusal")
    return isinstance(entry.get("function_call"), dict) or isinstance(entry.get("audio"), dict) \
        or (isinstance(refusal, str) and refusal != "")


def read(entries: list[Any]) -> list[Segment]:
    """One canonical message per Chat message; tool names for results come from their calls."""
    book = NameBook()
    return per_entry(entries, lambda entry: [_read_one(require_object(entry), book)])


def _read_one(entry: dict[str, Any], book: NameBook) -> dict[str, Any]:
    role = entry.get("role")
    if role == "assistant":
        parts, as_list = _content_parts(entry.get("content"))
        raw_calls = entry.get("tool_calls")
        if raw_calls is not None and not isinstance(raw_calls, list):
            raise EntryError(f"'tool_calls' must be an array, got {describe(raw_calls)}")
        for raw in raw_calls or []:
            raw = require_object(raw, "tool call")
            function = require_object(raw.get("function"), "tool call 'function'")
            call_id = read_id(raw.get("id"), "a tool call's 'id'")
            name = require_string(function.get("name"), "a tool call's function 'name'")
            hints: dict[str, Any] = {"arguments": function.get("arguments")}
            if set(raw) - {"id", "type", "function"} or set(function) - {"name", "arguments"}:
                hints["call"] = raw
            parts.append(tool_call(call_id, name, parse_arguments(function.get("arguments")), hints))
        book.add_calls(parts)
        message = assistant(parts, "stop" if _answered_without_content(entry) else None)
        hints = {"format": NAME, "extra": _extra(entry, ("role", "content", "tool_calls")),
                 "content": "list" if as_list else ("null" if entry.get("content") is None else "string")}
        if "content" not in entry:
            hints["content"] = "absent"
        message[NATIVE] = hints
        return message
    if role == "tool":
        parts, as_list = _content_parts(entry.get("content"), images=True)
        result_id = entry.get("tool_call_id")
        has_id = "tool_call_id" in entry
        listed = entry.get("tool_call_ids")
        if not has_id and isinstance(listed, list) and listed:
            # SWE-agent names the call in a list (one id per observation; the first is what it sends)
            result_id, has_id = listed[0], True
        given_name = entry.get("name")
        name = given_name if isinstance(given_name, str) else book.name(result_id)
        message = tool_result(result_id, name, parts, False, has_id, flagless=True)
        message[NATIVE] = {"format": NAME, "extra": _extra(entry, ("role", "content", "tool_call_id")),
                           "content": "list" if as_list else "string"}
        if has_id and "tool_call_id" not in entry:
            message[NATIVE]["idsList"] = True
        return message
    if role == "user" or role in SYSTEM_ROLES:
        content = entry.get("content")
        if isinstance(content, list):
            content, _ = _content_parts(content, images=True)
        elif isinstance(content, dict):  # (as for a result: the JSON text the repaired view sends)
            content = object_arguments_text(content)
        message = {"role": role, "content": content}
        message[NATIVE] = {"format": NAME, "extra": _extra(entry, ("role", "content"))}
        return message
    if not isinstance(role, str):
        raise EntryError("the message has no 'role'" if role is None
                         else f"'role' must be a string, got {describe(role)}")
    return opaque_message(NAME, entry)


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """One Chat message per canonical message; other formats' opaque messages are left out."""
    return [[i] for i, m in enumerate(messages) if not (m.get("role") == OPAQUE and m.get("format") != NAME)]


def _content_out(parts: Any, as_list: bool, same: bool) -> Any:
    """Chat content for canonical parts: a list when the message had one, else a string when only texts are left.
    same: the message was read from a Chat file, so its text parts' own fields are written back with them."""
    if isinstance(parts, str):
        return parts
    out = []
    for part in parts if isinstance(parts, list) else []:
        if part.get("type") == "text":  # a text part without its text (malformed) is carried as it is
            native = part.get(NATIVE) if same else None
            extra = native.get("extra", {}) if isinstance(native, dict) else {}
            out.append({"type": "text", "text": part["text"], **extra} if "text" in part else {"type": "text"})
        elif part.get("type") == OPAQUE and (block := carried(part.get("format"), part.get("value"), NAME)) \
                is not None:  # (its own part, or another format's image by address)
            out.append(block)
        elif part.get("type") == "image" and isinstance(part.get("data"), str):  # (another format's image: a
            # screenshot a tool returned, an image a user pasted) sent, never dropped from the request judged
            out.append(_image_out(part))
    if as_list:
        return out
    if all(isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) and len(p) == 2
           for p in out):
        return "".join(p["text"] for p in out) if len(out) <= 1 else "\n".join(p["text"] for p in out)
    return out


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """The Chat message for one canonical message."""
    message = messages[0]
    role = message.get("role")
    same = is_from(message, NAME)
    hints = native_of(message) if same else {}
    extra = hints.get("extra", {}) if same else {}
    if role == OPAQUE:
        return [message["value"]]
    if role == "assistant":
        content = message.get("content") or []
        calls = [p for p in content if isinstance(p, dict) and p.get("type") == "toolCall"]
        other = [p for p in content if isinstance(p, dict) and p.get("type") in ("text", OPAQUE)]
        out: dict[str, Any] = {"role": "assistant"}
        shape = hints.get("content")
        if shape != "absent":
            value = _content_out(other, shape == "list", same)
            if value == "" and calls and shape != "string":
                value = None
            out["content"] = value
        if calls:  # never `tool_calls: []`, even where the file had it: OpenAI refuses an empty array
            out["tool_calls"] = [_call_out(p, same) for p in calls]
        out.update(extra)
        return [out]
    if role == "toolResult":
        out = {"role": "tool"}
        listed = hints.get("idsList")
        if "toolCallId" in message and not listed:
            out["tool_call_id"] = message["toolCallId"]
        out["content"] = _content_out(message.get("content"), hints.get("content") == "list", same)
        out.update(extra)
        if listed and "toolCallId" in message:
            given = extra.get("tool_call_ids")
            rest = given[1:] if isinstance(given, list) and given and given[0] == message["toolCallId"] else []
            out["tool_call_ids"] = [message["toolCallId"], *rest]
        return [out]
    content = message.get("content")
    out = {"role": role, "content": _content_out(content, True, same) if isinstance(content, list) else content}
    out.update(extra)
    return [out]


def _call_out(part: dict[str, Any], same: bool) -> dict[str, Any]:
    native = part.get(NATIVE) if same else None
    original = native.get("call") if isinstance(native, dict) else None
    call = {"id": part["id"], "type": "function",
            "function": {"name": part["name"], "arguments": arguments_text(part, same)}}
    if isinstance(original, dict):
        given = original.get("function")
        function = given if isinstance(given, dict) else {}
        call = {**original, "id": part["id"],
                "function": {**function, "name": part["name"], "arguments": call["function"]["arguments"]}}
    return call


def finish(native: list[Any], context: BuildContext) -> list[Any]:
    """The request as OpenAI takes it, where an entry kept verbatim from the file would carry into the repaired
    view what it refuses: no `tool_calls: []` (\"Invalid 'messages[1].tool_calls': empty array\"); a call
    without its `type` given `"function"`, the only one a call can have (\"Missing required parameter:
    'messages[2].tool_calls[0].type'.\"); and a call's `function.arguments` that a writer stored as the parsed
    object sent as its JSON text (\"Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a
    string, but got an object instead.\"); and a message's `content` a writer stored as an object sent as its
    JSON text (\"Invalid type for 'messages[1].content': expected one of a string or array of objects, but got an
    object instead.\"); a message's `content` that is missing or null where OpenAI needs one sent as an empty text
    (\"Invalid value for 'content': expected a string, got null.\"); and a part of a text alone without its `type`
    sent as a text part.  The same calls,
    arguments and content, so nothing is lost."""
    return list(map(finish_entry, native))


def finish_entry(entry: Any) -> Any:
    """One entry as `finish` sends it: the entry itself when OpenAI takes it as it is, else a copy."""
    return _finished(entry) if _needs_finish(entry) else entry


def _needs_finish(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    content = entry.get("content")
    if content is None and content_needed(entry):
        return True
    if isinstance(content, dict):
        return True
    if type(content) is list:  # (read inline: every entry of every view written comes through here)
        for part in content:
            if type(part) is dict and "type" not in part:
                return True  # (a part without type: `_finished` types it when it is a text alone)
    if entry.get("role") != "assistant":
        return False
    calls = entry.get("tool_calls")
    return calls == [] or (isinstance(calls, list) and any(map(_unfinished, calls)))


CONTENT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
"""The roles whose message OpenAI refuses without content (the `function` role's is not judged: the answers on
record refuse the role itself)."""


def content_needed(entry: dict[str, Any]) -> bool:
    """Whether OpenAI refuses this message without content, or of null content (\"Invalid value for 'content':
    expected a string, got null.\"): a message of CONTENT_ROLES, but an assistant message carrying what stands in for
    its content, present and not null (a call, a legacy function_call, a refusal, an audio answer: the assistant
    schema's own one-of; on any other role they are ordinary extra members).  `finish` sends such a message with an
    empty text, which says what the null said; providers.openai_chat judges it."""
    role = entry.get("role")
    if role == "assistant":
        return entry.get("tool_calls") is None and entry.get("function_call") is None \
            and entry.get("refusal") is None and entry.get("audio") is None
    return type(role) is str and role in CONTENT_ROLES


def _untyped_text(part: Any) -> bool:
    """A content part that holds a text alone and no `type` (\"Missing required parameter:
    'messages[1].content[0].type'.\"): sent as the text part it stands for."""
    return type(part) is dict and "type" not in part and len(part) == 1 and type(part.get("text")) is str


def _unfinished(call: Any) -> bool:
    """A call the API refuses as a writer left it: no `type`, or arguments stored as an object."""
    return isinstance(call, dict) and ("type" not in call or _object_arguments(call))


def _object_arguments(call: dict[str, Any]) -> bool:
    function = call.get("function")
    return isinstance(function, dict) and isinstance(function.get("arguments"), dict)


def _finished(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of the entry as OpenAI takes it (the file's entry is left as it is)."""
    if entry.get("content") is None and content_needed(entry):
        entry = {**entry, "content": ""}
    elif isinstance(entry.get("content"), dict):
        entry = {**entry, "content": object_arguments_text(entry["content"])}
    elif type(entry.get("content")) is list and any(map(_untyped_text, entry["content"])):
        entry = {**entry, "content": [{"type": "text", "text": part["text"]} if _untyped_text(part) else part
                                      for part in entry["content"]]}
    calls = entry.get("tool_calls") if entry.get("role") == "assistant" else None
    if calls == []:
        return {k: v for k, v in entry.items() if k != "tool_calls"}
    if not isinstance(calls, list) or not any(map(_unfinished, calls)):
        return entry
    return {**entry, "tool_calls": [_finished_call(call) if _unfinished(call) else call for call in calls]}


def _finished_call(call: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": call["id"], "type": "function"} if "id" in call else {"type": "function"}
    out.update(call)
    if _object_arguments(call):
        out["function"] = {**call["function"], "arguments": object_arguments_text(call["function"]["arguments"])}
    return out


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """A Chat request body: {"messages": [...]}."""
    return {"messages": native}


SPECS = (here(__name__, provider="openai-chat"),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
