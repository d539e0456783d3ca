"""OpenAI Responses API `input` items.

A model turn is a run of items: `reasoning`, assistant `message`, `function_call`
(and built-in tool items such as `web_search_call`).  The engine needs all calls of
a turn in one assistant message, so such a run is read as one canonical assistant
message whose parts keep, in NATIVE, the item each came from; `function_call_output`
items are results (matched by `call_id`); user/system/developer messages (typed or
the short `{"role", "content"}` form) are canonical messages of those roles.
Writing a canonical assistant message emits one item per reasoning part, one
message item per run of text parts and one function_call per call.
"""

from __future__ import annotations

import json
from typing import Any

from ..repair.views import frame_is_interrupted
from .base import BuildContext, Segment
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
    native_of,
    object_arguments_text,
    opaque_message,
    opaque_part,
    parse_arguments,
    read_id,
    require_object,
    require_string,
    text_part,
    tool_result,
)
from .spec import here

NAME = "openai-responses"
_TURN_ITEMS = ("reasoning", "function_call", "web_search_call", "file_search_call", "computer_call",
               "code_interpreter_call", "image_generation_call", "local_shell_call", "mcp_call", "mcp_list_tools",
               "mcp_approval_request", "custom_tool_call", "tool_search_call", "shell_call", "apply_patch_call")
_ITEM_TYPES = _TURN_ITEMS + ("message", "function_call_output", "item_reference", "computer_call_output",
                             "local_shell_call_output", "mcp_approval_response", "custom_tool_call_output",
                             "tool_search_output", "additional_tools", "compaction", "shell_call_output",
                             "apply_patch_call_output")


def continued_from(envelope: dict[str, Any]) -> str | None:
    """The stored response or conversation a request continues (`previous_response_id`, `conversation`).

    The API then prepends that response's items, so an output here may answer a call that is
    not in the file: the common way to send a function's output back."""
    previous = envelope.get("previous_response_id")
    if isinstance(previous, str) and previous:
        return previous
    conversation = envelope.get("conversation")
    if isinstance(conversation, dict):
        conversation = conversation.get("id")
    return conversation if isinstance(conversation, str) and conversation else None


def draws_on_storage(envelope: dict[str, Any], entries: list[Any]) -> bool:
    """Whether the API adds stored items to this request: it continues a stored response or
    conversation (continued_from), or an `item_reference` stands for a stored item (a call, say).
    An output here may then answer a call that is not in the file."""
    return continued_from(envelope) is not None or any(
        isinstance(entry, dict) and entry.get("type") == "item_reference" for entry in entries)


def outside_outputs(messages: list[dict[str, Any]]) -> list[int]:
    """The results whose call is not in these messages (in a continued request, the stored response's)."""
    called = {part.get("id") for message in messages if message.get("role") == "assistant"
              for part in message.get("content") or [] if isinstance(part, dict) and part.get("type") == "toolCall"}
    return [index for index, message in enumerate(messages)
            if message.get("role") == "toolResult" and message.get("toolCallId") not in called]


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """Typed Responses items, or input_text/output_text content parts."""
    if "instructions" in envelope or "previous_response_id" in envelope:
        return True
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if _is_item(entry):
            return True
        content = entry.get("content")
        if isinstance(content, list) and any(
                isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "input_image") for p in content):
            return True
    return False


def fits(entry: Any) -> bool:
    """A typed item, or a short message with string or input/output part content."""
    if not isinstance(entry, dict):
        return False
    if "type" in entry:
        return _is_item(entry)
    if entry.get("role") not in ("user", "assistant") + SYSTEM_ROLES:
        return False
    content = entry.get("content")
    return isinstance(content, str) or (isinstance(content, list) and all(
        isinstance(p, dict) and str(p.get("type", "")).startswith(("input_", "output_")) for p in content))


def _is_item(entry: dict[str, Any]) -> bool:
    """A typed Responses item; a `message` item has a role (a session entry of type message does not)
    and Responses content: text, or input_*/output_*/refusal parts (an Anthropic response message, also
    of type message, holds text and tool_use blocks)."""
    kind = entry.get("type")
    if kind != "message":
        return kind in _ITEM_TYPES
    content = entry.get("content")
    return "role" in entry and (not isinstance(content, list) or all(
        isinstance(p, dict) and (str(p.get("type", "")).startswith(("input_", "output_"))
                                 or p.get("type") == "refusal") for p in content))


# Items that call a tool and need an output item with the same call_id, besides function_call:
# freeform custom tools (Codex's apply_patch), the local shell tool, and the shell and apply_patch tools (GPT-5.1).
_CUSTOM, _SHELL = "custom_tool_call", "local_shell_call"
TOOL_ITEMS: dict[str, tuple[str, str]] = {_SHELL: ("local_shell", "action"), "shell_call": ("shell", "action"),
                                          "apply_patch_call": ("apply_patch", "operation")}
"""The call items read whole as a tool call of a built-in tool: kind -> (the tool's name, the field holding what
it is asked to do, read as the call's arguments).  The item is written back as it was read unless the view
renamed the call or changed its arguments."""
OUTPUT_KINDS = frozenset(("function_call_output", "custom_tool_call_output", "local_shell_call_output",
                          "shell_call_output", "apply_patch_call_output"))
"""The output items that answer a call item by its `call_id` (any call item: the kinds need not match); the rule
set (providers.openai_responses) pairs by the same set."""

OWN_HINTS = frozenset((NAME, "codex"))
"""The formats whose messages carry this module's hints: its own, and a Codex rollout's (each line's payload is
a Responses item this module read), so a Codex rollout sent as a Responses request keeps its items' kinds (a
`custom_tool_call` stays one: the API names the kind in its refusal).  formats.skeleton writes no skeleton
for such messages."""


def is_call_item(kind: Any) -> bool:
    """An item that makes a call an output can answer by its `call_id`: `function_call`, `custom_tool_call`,
    `tool_search_call`...  The one test of it: the rule set pairs by it, and the reader keeps an output
    answering a call it does not read as a tool call (recorded, HTTP 200: a `function_call_output` answering a
    client-run `tool_search_call`)."""
    return isinstance(kind, str) and kind.endswith("_call")


def _own(message: Any) -> bool:
    """Whether a canonical message carries this module's hints (OWN_HINTS), so they apply."""
    native = message.get(NATIVE) if isinstance(message, dict) else None
    return isinstance(native, dict) and native.get("format") in OWN_HINTS


def _other_call(item: dict[str, Any], index: int) -> dict[str, Any]:
    """A custom tool call (free-text input, kept as {"input": text}) or a local shell call (its action)."""
    call_id = require_string(item.get("call_id"), f"a {item.get('type')}'s 'call_id'")
    if item.get("type") == _CUSTOM:
        name = require_string(item.get("name"), "a custom_tool_call's 'name'")
        extra = {k: v for k, v in item.items() if k not in ("type", "call_id", "name", "input")}
        return {"type": "toolCall", "id": call_id, "name": name, "arguments": {"input": item.get("input")},
                NATIVE: {"item": index, "custom": True, "extra": extra, "call_id": call_id}}
    name, field = TOOL_ITEMS[item["type"]]
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": item.get(field, {}),
            NATIVE: {"item": index, "shell": item}}


def _answers_by_id(entry: dict[str, Any]) -> bool:
    """A local_shell_call_output in the shape of openai's own type (`LocalShellCallOutput`): it names its
    call by `id` (the call's call_id) and has no `call_id`; the Agents SDK writes `call_id` instead."""
    return entry.get("type") == "local_shell_call_output" and "call_id" not in entry \
        and isinstance(entry.get("id"), str) and bool(entry["id"])


def answered_call_id(entry: dict[str, Any]) -> Any:
    """The call an output item names: its `call_id`, or its `id` in openai's own local-shell shape
    (_answers_by_id).  The reader pairs by it, and so does the rule set (providers.openai_responses)."""
    return entry["id"] if _answers_by_id(entry) else entry.get("call_id")


def _is_turn_item(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    kind = entry.get("type")
    if kind in _TURN_ITEMS:
        return True
    return entry.get("role") == "assistant" and kind in ("message", None)


def _message_parts(content: Any, head: dict[str, Any], item: int) -> list[dict[str, Any]]:
    """Canonical parts of a message item's content; each part remembers its item and extras."""
    if isinstance(content, str):
        part = text_part(content)
        part[NATIVE] = {"item": item, "head": head, "string": True}
        return [part]
    if not isinstance(content, list):
        raise EntryError(f"a message's 'content' must be a string or an array, got {describe(content)}")
    parts = []
    for position, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") in ("input_text", "output_text") \
                and isinstance(block.get("text"), str):
            part = text_part(block["text"])
            hints = {"item": item, "kind": block["type"]}
            extra = {k: v for k, v in block.items() if k not in ("type", "text")}
            if extra:
                hints["extra"] = extra
        elif (image := _image_part(block)) is not None:
            part, hints = image, {"item": item, "image": block}
            if isinstance(block.get("detail"), str):  # (the Chat writer sends it too: common.image_detail)
                hints["detail"] = block["detail"]
        else:
            part = opaque_part(NAME, block)
            hints = {"item": item}
        if position == 0:
            hints["head"] = head
        part[NATIVE] = hints
        parts.append(part)
    if not parts:
        parts.append({"type": "text", "text": "", NATIVE: {"item": item, "head": head, "empty": True}})
    return parts


def _read_turn(items: list[dict[str, Any]], first: int, book: NameBook, others: set[str]) -> dict[str, Any]:
    """One model turn as an assistant message.  others: gets the call_id of every call item read as an opaque
    part (is_call_item, not a tool call the engine pairs), which an output may answer."""
    parts: list[dict[str, Any]] = []
    for offset, item in enumerate(items):
        index = first + offset
        kind = item.get("type")
        if kind == "function_call":
            call_id = read_id(item.get("call_id"), "a function_call's 'call_id'")
            name = require_string(item.get("name"), "a function_call's 'name'")
            extra = {k: v for k, v in item.items() if k not in ("type", "call_id", "name", "arguments")}
            parts.append({"type": "toolCall", "id": call_id, "name": name,
                          "arguments": parse_arguments(item.get("arguments")),
                          NATIVE: {"item": index, "arguments": item.get("arguments"), "extra": extra,
                                   "call_id": call_id}})
        elif (kind == _CUSTOM or kind in TOOL_ITEMS) and isinstance(item.get("call_id"), str):
            parts.append(_other_call(item, index))
        elif kind == "reasoning":
            parts.append({"type": "thinking", "thinking": _summary_text(item),
                          NATIVE: {"item": index, "reasoning": item}})
        elif kind in ("message", None):
            head = {k: v for k, v in item.items() if k != "content"}
            parts.extend(_message_parts(item.get("content"), head, index))
        else:
            part = opaque_part(NAME, item)
            part[NATIVE] = {"item": index}
            parts.append(part)
            if is_call_item(kind) and isinstance(item.get("call_id"), str) and item["call_id"]:
                others.add(item["call_id"])
    book.add_calls(parts)
    message = assistant(parts)
    if any(item.get("status") == "incomplete" for item in items):
        message["stopReason"] = "aborted"  # the turn was cut off (max tokens, cancel) mid-stream
    return message


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages; a run of model-turn items is one assistant message (one segment)."""
    book = NameBook()
    others: set[str] = set()  # call_ids of the call items read as opaque parts (_read_turn)
    segments: list[Segment] = []
    index = 0
    total = len(entries)
    while index < total:
        try:
            entry = entries[index]
            if isinstance(entry, str) and total == 1:
                entry = {"role": "user", "content": entry}
            entry = require_object(entry, "input item")
            if _is_turn_item(entry):
                end = index
                while end < total and _is_turn_item(entries[end]):
                    end += 1
                message = _read_turn(entries[index:end], index, book, others)
                message[NATIVE] = {"format": NAME}
                segments.append(Segment(index, end, [message]))
                index = end
                continue
            kind = entry.get("type")
            named = entry.get("call_id")
            answers = isinstance(kind, str) and kind in OUTPUT_KINDS  # (a type that is no string: no output)
            if answers and isinstance(named, str) and named in others and not book.name(named):
                # An output answering a call item kept opaque (a client-run tool_search_call): kept as it is, in
                # place, never taken for a stray (the API pairs them: recorded, HTTP 200).
                message = opaque_message(NAME, entry)
            elif answers:
                call_id = entry.get("call_id")
                by_id = _answers_by_id(entry)
                if by_id:
                    call_id = entry["id"]
                output = entry.get("output")
                if isinstance(output, str):
                    content, shape = [text_part(output)], "string"
                elif isinstance(output, list):
                    content, shape = _message_parts(output, {}, index), "list"
                elif isinstance(output, dict) and kind == "function_call_output":
                    # (an object the API refuses, output_not_text: read as the JSON text the repaired view sends)
                    content, shape = [text_part(object_arguments_text(output))], "string"
                else:
                    raise EntryError("a function_call_output's 'output' must be a string or an array, "
                                     f"got {describe(output)}")
                message = tool_result(call_id, book.name(call_id), content, False, "call_id" in entry or by_id,
                                      flagless=True)
                named = ("type", "id", "output") if by_id else ("type", "call_id", "output")
                message[NATIVE] = {"format": NAME, "output": shape,
                                   "extra": {k: v for k, v in entry.items() if k not in named}}
                if kind != "function_call_output":
                    message[NATIVE]["kind"] = kind
                if by_id:
                    message[NATIVE]["by_id"] = True
            elif kind in ("message", None) and entry.get("role") in ("user",) + SYSTEM_ROLES:
                head = {k: v for k, v in entry.items() if k != "content"}
                given = entry.get("content")
                parts = given if isinstance(given, str) else _message_parts(given, head, index)
                message = {"role": entry["role"], "content": parts, NATIVE: {"format": NAME, "head": head}}
            elif kind is None and not isinstance(entry.get("role"), str):
                raise EntryError("an input item needs a 'type' or a 'role'")
            else:
                message = opaque_message(NAME, entry)
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, [message]))
        index += 1
    return segments


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """One group per canonical message (an assistant message expands to several items)."""
    return [[i] for i, m in enumerate(messages) if not (m.get("role") == OPAQUE and m.get("format") != NAME)]


def _content_out(parts: list[dict[str, Any]], default_kind: str, same: bool) -> list[Any]:
    out = []
    for part in parts:
        hints = part.get(NATIVE, {}) if same and isinstance(part.get(NATIVE), dict) else {}
        if part.get("type") == "text":
            if hints.get("empty"):
                continue
            out.append({"type": hints.get("kind", default_kind), "text": part["text"], **hints.get("extra", {})})
        elif part.get("type") == OPAQUE and (block := carried(part.get("format"), part.get("value"), NAME)) \
                is not None:  # (its own part, or another format's image by address)
            out.append(block)
        elif part.get("type") == "image" and isinstance(part.get("data"), str):
            out.append(_image(part))
    return out


def _image(part: dict[str, Any]) -> dict[str, Any]:
    """An image part as an input_image, which a message's content and a function_call_output's list take alike:
    as read where it came from a Responses file (its `detail`, its fields' order), else another format's image (a
    screenshot a tool returned, an image a user pasted) sent, never dropped from the request."""
    native = part.get(NATIVE)
    given = native.get("image") if isinstance(native, dict) else None
    if isinstance(given, dict) and given.get("type") == "input_image":
        return {**given, "image_url": data_url(part)}
    return {"type": "input_image", "image_url": data_url(part), "detail": image_detail(part) or "auto"}


def _image_of(part: dict[str, Any]) -> dict[str, Any] | None:
    """The input_image for an image part (_image), or for another format's image by address (common.carried);
    None for any other part: what a Responses item sends of another format's user message or result besides
    its texts."""
    if part.get("type") == "image" and isinstance(part.get("data"), str):
        return _image(part)
    block = carried(part.get("format"), part.get("value"), NAME) \
        if part.get("type") == OPAQUE and part.get("format") != NAME else None
    return block if isinstance(block, dict) else None


def _image_part(block: Any) -> dict[str, Any] | None:
    """An input_image holding its bytes (its `image_url` an image's data URL: common.image_of_data_url) as an image
    part, which every format writes in its own shape (an Anthropic image block, Gemini's inline data); None for an
    image by address or file id (kept opaque) and any other block."""
    if not isinstance(block, dict) or block.get("type") != "input_image" or "file_id" in block:
        return None
    return image_of_data_url(block.get("image_url"))


def _hints(part: dict[str, Any], same: bool) -> dict[str, Any]:
    native = part.get(NATIVE) if same else None
    return native if isinstance(native, dict) else {}


def _runs(parts: list[Any], same: bool) -> list[tuple[str, list[dict[str, Any]]]]:
    """Split an assistant message's parts into message items (runs of text) and single items.

    A part read from a message item remembers that item; a new item starts where the
    original one did ("head"), so a message written back keeps its item boundaries.
    Text from other formats simply joins the open message item.
    """
    runs: list[tuple[str, list[dict[str, Any]], Any]] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        hints = _hints(part, same)
        open_run = runs[-1] if runs and runs[-1][0] == "message" else None
        in_open = open_run is not None and "head" not in hints and hints.get("item") == open_run[2]
        if part.get("type") == "text" \
                or (part.get("type") == OPAQUE and ("head" in hints or (in_open and "item" in hints))):
            if in_open and open_run is not None:
                open_run[1].append(part)
            else:
                runs.append(("message", [part], hints.get("item")))
        else:
            runs.append(("item", [part], None))
    return [(kind, members) for kind, members, _ in runs]


def _message_item(parts: list[dict[str, Any]], same: bool) -> dict[str, Any]:
    first = _hints(parts[0], same)
    head = first.get("head") or {"type": "message", "role": "assistant"}
    if first.get("string") and len(parts) == 1:
        return {**head, "content": parts[0]["text"]}
    if not same:
        return {**head, "content": [{"type": "output_text", "text": p["text"], "annotations": []} for p in parts]}
    return {**head, "content": _content_out(parts, "output_text", same)}


def _single_item(part: dict[str, Any], same: bool) -> Any:
    hints = _hints(part, same)
    kind = part.get("type")
    if kind == "toolCall" and hints.get("custom"):
        arguments = part.get("arguments")
        text = arguments.get("input") if isinstance(arguments, dict) else None
        return {"type": _CUSTOM, "call_id": part.get("id"), "name": part.get("name"),
                "input": text if isinstance(text, str) else json.dumps(arguments, ensure_ascii=False),
                **_kept_fields(hints.get("extra", {}), part, hints.get("call_id"))}
    if kind == "toolCall" and isinstance(hints.get("shell"), dict):
        original = hints["shell"]
        field = TOOL_ITEMS.get(original.get("type"), ("", "action"))[1]
        if part.get("arguments") == original.get(field, {}) and part.get("id") == original.get("call_id"):
            return original
        return {**_kept_fields(original, part, original.get("call_id")), "call_id": part.get("id"),
                field: part.get("arguments")}
    if kind == "toolCall":
        item = {"type": "function_call", "call_id": part.get("id"), "name": part.get("name"),
                "arguments": arguments_text(part, same)}
        return {**item, **_kept_fields(hints.get("extra", {}), part, hints.get("call_id"))}
    if kind == "thinking":
        original = hints.get("reasoning")
        if isinstance(original, dict) and _summary_text(original) == part.get("thinking"):
            return original  # encrypted content and ids intact
        return {"type": "reasoning", "summary": [{"type": "summary_text", "text": part.get("thinking", "")}]}
    if kind == OPAQUE and part.get("format") == NAME:
        return part["value"]
    return None


def _kept_fields(fields: dict[str, Any], part: dict[str, Any], read_as: Any) -> dict[str, Any]:
    """A call item's other fields as read, less its item `id` when the view renamed the call (its call_id is
    not the one it was read with): the renamed call is no longer the item the API stored under that id, and
    a turn stored twice would send that id twice ("Duplicate item found with id ...").  An input item's id
    is optional."""
    if "id" not in fields or read_as is None or part.get("id") == read_as:
        return fields
    return {key: value for key, value in fields.items() if key != "id"}


def _summary_text(item: dict[str, Any]) -> str:
    summary = item.get("summary")
    texts = [s["text"] for s in summary if isinstance(s, dict) and isinstance(s.get("text"), str)] \
        if isinstance(summary, list) else []
    return "\n\n".join(texts)


def _assistant_items(message: dict[str, Any], same: bool) -> list[Any]:
    """The input items of one canonical assistant message, in content order."""
    items: list[Any] = []
    for kind, members in _runs(message.get("content") or [], same):
        item = _message_item(members, same) if kind == "message" else _single_item(members[0], same)
        if item is not None:
            items.append(item)
    if not items and frame_is_interrupted(message.get("stopReason"), message.get("errorMessage")):
        # An interrupted turn with nothing in it still happened: keep it visible as Responses
        # marks a cut-off output item, so a round trip does not silently drop the frame.
        items.append({"type": "message", "role": "assistant", "status": "incomplete", "content": []})
    return items


def _custom_calls(context: BuildContext) -> set[Any]:
    """Call ids of custom tool calls: those built so far, and those of the native items (kept verbatim)."""
    if "native_custom_calls" not in context.state:
        found = set()
        for entry in context.state.get("native") or []:
            item = entry.get("payload") if isinstance(entry, dict) and isinstance(entry.get("payload"), dict) else entry
            if isinstance(item, dict) and item.get("type") == _CUSTOM and isinstance(item.get("call_id"), str):
                found.add(item["call_id"])
        context.state["native_custom_calls"] = found
    native: set[Any] = context.state["native_custom_calls"]
    built: set[Any] = context.state.get("custom_calls", set())
    return native | built


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """The input items for one canonical message."""
    message = messages[0]
    role = message.get("role")
    same = _own(message)
    hints = native_of(message) if same else {}
    if role == OPAQUE:
        return [message["value"]]
    if role == "assistant":
        custom = context.state.setdefault("custom_calls", set())
        custom.update(p["id"] for p in message.get("content") or []
                      if isinstance(p, dict) and p.get("type") == "toolCall" and isinstance(p.get("id"), str)
                      and _hints(p, same).get("custom"))
        return _assistant_items(message, same)
    if role == "toolResult":
        call_id = message.get("toolCallId")
        custom = isinstance(call_id, str) and call_id in _custom_calls(context)
        kind = hints.get("kind") or ("custom_tool_call_output" if custom else "function_call_output")
        item: dict[str, Any] = {"type": kind}
        if "toolCallId" in message:
            item["id" if hints.get("by_id") else "call_id"] = message["toolCallId"]
        content = message.get("content") or []
        joined = "\n".join(p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text")
        if hints.get("output") == "list":
            item["output"] = _content_out(content, "input_text", same)
        elif images := [b for p in content if isinstance(p, dict) and (b := _image_of(p)) is not None]:  # (its
            # texts joined, as a string output sends them, then its images: an output list takes input_image items)
            item["output"] = [*([{"type": "input_text", "text": joined}] if joined else []), *images]
        else:
            item["output"] = joined
        item.update(hints.get("extra", {}))
        return [item]
    content = message.get("content")
    head = hints.get("head") or {"role": role}
    if isinstance(content, str):
        return [{**head, "content": content}]
    if not same:
        sent = ({"type": "input_text", "text": p["text"]} if p.get("type") == "text" else _image_of(p)
                for p in content or [] if isinstance(p, dict))
        return [{**head, "content": [block for block in sent if block is not None]}]
    return [{**head, "content": _content_out(content or [], "input_text", same)}]


ITEM_ID_PREFIXES = {"reasoning": "rs", "message": "msg", "function_call": "fc", "function_call_output": "fc",
                    "web_search_call": "ws", "custom_tool_call": "ctc", "custom_tool_call_output": "ctco"}
"""What the `id` of an input item of each type begins with: the API refuses another (\"Invalid 'input[3].id':
'call_70eac2a1'. Expected an ID that begins with 'fc'.\", code invalid_value), an id another server or writer minted
for the item (a gateway's `item_…`, Codex's UUIDs for its hook messages, a custom_tool_call carrying a function
call's `fc_…` after a compaction, a model switch replaying another provider's `toolu_…`).  Measured per type
against a Responses endpoint (a gateway's notes, 2026-09), each text quoted in reports; other types are not
judged."""

AGENTS_PLACEHOLDER_ID = "__fake_id__"
"""The OpenAI Agents SDK's id for the items of a model that gives none (a Chat Completions or LiteLLM model): the
SDK's Responses model deletes it before sending (`_clean_item_for_openai`), so a session holding it is judged as
the SDK sends it."""


def foreign_item_id(item: dict[str, Any]) -> str | None:
    """The prefix this item's `id` should begin with when it is a string that begins otherwise (ITEM_ID_PREFIXES;
    an item with a role and no type is a message), else None."""
    item_id = item.get("id")
    if type(item_id) is not str or not item_id:
        return None
    kind = item.get("type")
    if kind is None and "role" in item:
        kind = "message"
    prefix = ITEM_ID_PREFIXES.get(kind) if type(kind) is str else None
    return prefix if prefix is not None and not item_id.startswith(prefix) and item_id != AGENTS_PLACEHOLDER_ID \
        else None


def finish(native: list[Any], context: BuildContext) -> list[Any]:
    """The input as the API takes it, where an item kept verbatim from the file would carry into the repaired view
    what it refuses: a `function_call`'s `arguments` that a writer stored as the parsed object is sent as its JSON
    text (\"Invalid type for 'input[1].arguments': expected a string, but got an object instead.\"), and so is a
    `function_call_output`'s `output` stored as an object (\"Invalid type for 'input[0].output': expected one of a
    string or array of objects, but got an object instead.\"); the same arguments and output, so nothing is lost.
    An item whose `id` another server minted (foreign_item_id) is sent without it, and a reasoning item without
    its `encrypted_content` too (bound to the id: a foreign blob \"could not be decrypted\"): the id is the
    server's reference, the model reads the item's body and pairs calls by `call_id` (the same gateway measured
    every such type answered once its id was dropped)."""
    return list(map(finish_item, native))


def finish_item(item: Any) -> Any:
    """One item as `finish` sends it: the item itself when the API takes it as it is, else a copy (what
    formats.reshaping reports of a file's entries, as `finish_entry`)."""
    return _finished(item) if type(item) is dict and ("id" in item or "arguments" in item or "output" in item) \
        else item


def _finished(item: dict[str, Any]) -> dict[str, Any]:
    if object_arguments(item):
        item = {**item, "arguments": object_arguments_text(item["arguments"])}
    elif object_output(item):
        item = {**item, "output": object_arguments_text(item["output"])}
    if foreign_item_id(item) is not None:
        left = ("id", "encrypted_content") if item.get("type") == "reasoning" else ("id",)
        item = {key: value for key, value in item.items() if key not in left}
    return item


finish_entry = finish_item
"""The one-entry finish step, by the name every format's is found by (formats.reshaping)."""


def object_output(item: Any) -> bool:
    """A `function_call_output` item whose output is a JSON object (the API takes a string or an array of parts)."""
    return isinstance(item, dict) and item.get("type") == "function_call_output" and isinstance(item.get("output"),
                                                                                                  dict)


def object_arguments(item: Any) -> bool:
    """A `function_call` item whose arguments are a JSON object (the API takes only their text)."""
    return isinstance(item, dict) and item.get("type") == "function_call" and isinstance(item.get("arguments"), dict)


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """A Responses request body: {"input": [...]}."""
    return {"input": native}


SPECS = (here(__name__, provider="openai-responses"),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
