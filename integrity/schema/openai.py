"""OpenAI Chat Completions messages and Responses input items.

Input models for each message role and item type.  The readers raise for what
they cannot read at all (a call without a string id or name); here is what they
read on past: a role the API does not have (read as an opaque entry), arguments
that are not the JSON text of an object (read as {}), a tool output that names no
call, content parts of the wrong shape (kept as opaque parts), and fields of the
wrong type (a status the API does not have, a name that is not a string).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import msgspec

from ..formats.openai_chat import finish_entry
from ..formats.openai_responses import finish_item
from ..kinds import FindingCode
from ..loading import describe_value
from .base import (
    Classify,
    Issue,
    Loc,
    Open,
    all_converted,
    arguments_issue,
    by_field,
    check_part,
    each_entry,
    json_path,
    list_of,
    one_of,
    role_issue,
    tagged,
    validate,
)

CHAT_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
RESPONSES_ROLES = ("system", "developer", "user", "assistant")
CONTENT = by_field()
FIELDS = by_field(default=FindingCode.INVALID_FIELD)
Status = Literal["in_progress", "completed", "incomplete"]


class Text(Open):
    text: str


class Refusal(Open):
    refusal: str


class ImageUrl(Open):
    image_url: dict[str, Any]


class Audio(Open):
    input_audio: dict[str, Any]


class File(Open):
    file: dict[str, Any]


CHAT_PARTS: dict[Any, tuple[type[Open], Classify]] = {
    "text": (Text, CONTENT), "refusal": (Refusal, CONTENT), "image_url": (ImageUrl, CONTENT),
    "input_audio": (Audio, CONTENT), "file": (File, CONTENT),
}


class ChatMessage(Open):
    content: str | list[Any]
    name: str = ""


class ChatAssistant(Open):
    content: str | list[Any] | None = None
    name: str = ""
    refusal: str | None = None
    tool_calls: list[Any] | None = None


class ChatTool(Open):
    tool_call_id: str
    content: str | list[Any]


class Function(Open):
    name: str
    arguments: str | dict[str, Any]


class ChatToolCall(Open, kw_only=True):
    id: str
    type: Literal["function"] = "function"
    function: Function


_CHAT: dict[str, tuple[type[Open], Classify]] = {
    "assistant": (ChatAssistant, CONTENT), "tool": (ChatTool, by_field(result_ids=("tool_call_id",))),
}
_CALL = by_field(call_ids=("id",), names=("name",), arguments=("arguments",))


class SweTool(Open):
    """A SWE-agent history tool message: it names its call in `tool_call_ids` (a list; SWE-agent
    sends the first as `tool_call_id`), or, like Chat, in `tool_call_id`."""

    content: str | list[Any]
    tool_call_id: str = ""
    tool_call_ids: list[str] = []


_SWE_IDS = by_field(result_ids=("tool_call_id", "tool_call_ids"))


def _swe_tool(loc: Loc, error_type: str) -> FindingCode:
    """tool_call_ids that is not a list names no call (the reader reads no id from it); an entry of
    the list that is not a string is a non-string id, like tool_call_id."""
    if tuple(loc) == ("tool_call_ids",):
        return FindingCode.RESULT_WITHOUT_CALL_ID
    return _SWE_IDS(loc, error_type)


def check_entries(format: str, entries: list[Any], envelope: dict[str, Any]) -> list[Issue]:
    """Chat messages (openai-chat, and the histories of SWE-agent and mini-swe-agent, which are Chat
    messages with fields of their own), or Responses input items (openai-responses).  What the format's writer
    sends in the shape the provider takes (its finish step: a null content given an empty text, a part of a text
    alone typed) is no malformed entry left in place: the provider's rule says it, in the provider's words, and
    `repair` writes it fixed (`_left_by_finish`)."""
    check = _responses if format == "openai-responses" else _swe if format == "swe-agent" else _chat
    if check is _chat and _all_plain_chat(entries):
        return []
    issues = each_entry(entries, check)
    finish = _FINISHED.get(format)
    return _left_by_finish(issues, entries, check, finish) if issues and finish is not None else issues


def _left_by_finish(issues: list[Issue], entries: list[Any], check: Any, finish: Any) -> list[Issue]:
    """The issues an entry still has once the writer's finish step has sent it (the file is left as it is)."""
    by_entry: dict[int, list[Issue]] = {}
    for issue in issues:
        by_entry.setdefault(issue.entry, []).append(issue)
    left: list[Issue] = []
    for entry, own in sorted(by_entry.items()):
        native = entries[entry] if entry < len(entries) else None
        finished = finish(native) if native is not None else native
        if finished is native:
            left += own
            continue
        still = {(issue.path, issue.code) for issue in each_entry([finished], check)}
        left += [issue for issue in own if (issue.path, issue.code) in still]
    return left


def _parts(parts: Any, index: int, models: dict[Any, tuple[type[Open], Classify]], prefix: Loc = ()) -> list[Issue]:
    out: list[Issue] = []
    for position, part in enumerate(parts if isinstance(parts, list) else []):
        out.extend(check_part(models, part, index, (*prefix, "content", position)))
    return out


def _swe(entry: dict[str, Any], index: int) -> list[Issue | None]:
    """A SWE-agent history item: a Chat message, whose tool message may name its call in a list."""
    if entry.get("role") != "tool":
        return _chat(entry, index)
    out: list[Issue | None] = [*validate(SweTool, entry, index, _swe_tool),
                               *_parts(entry.get("content"), index, CHAT_PARTS)]
    listed = entry.get("tool_call_ids")
    if "tool_call_id" not in entry and "tool_call_ids" not in entry:
        out.append(Issue(FindingCode.RESULT_WITHOUT_CALL_ID, index, "tool_call_ids",
                         "'tool_call_ids' is missing: the tool message names no call"))
    elif "tool_call_id" not in entry and isinstance(listed, list) and not listed:
        out.append(Issue(FindingCode.RESULT_WITHOUT_CALL_ID, index, "tool_call_ids",
                         "'tool_call_ids' is empty: the tool message names no call"))
    return out


def _chat(entry: dict[str, Any], index: int) -> list[Issue | None]:
    role = entry.get("role")
    if role not in CHAT_ROLES:
        return [role_issue(role, CHAT_ROLES, index)]
    model, classify = _CHAT.get(role, (ChatMessage, CONTENT))
    out: list[Issue | None] = [*validate(model, entry, index, classify),
                               *_parts(entry.get("content"), index, CHAT_PARTS)]
    if isinstance(entry.get("content"), dict):  # an object is read as its JSON text: OpenAI refuses it
        out = [issue for issue in out if issue is None or issue.path != "content"]  # (content_not_text)
    calls = entry.get("tool_calls") if role == "assistant" else None
    for position, call in enumerate(calls if isinstance(calls, list) else []):
        path: Loc = ("tool_calls", position)
        out.extend(validate(ChatToolCall, call, index, _CALL, path))
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("arguments"), str):
            out.append(arguments_issue(function["arguments"], index,
                                       f"tool_calls[{position}].function.arguments", text=True))
    return out


def _typed(kind: Any, element: Any) -> Any:
    """A model field's type with its `list[Any]` typed `list[element]` (the parts a message holds, its calls)."""
    return one_of(list_of([element]) if arg == list[Any] else arg for arg in get_args(kind))


def _message(model: type[Open], role: str, parts: Any) -> type:
    """The model a Chat message of this role is validated with, tagged by its role, its parts and calls typed."""
    types = {field.name: _typed(field.type, ChatToolCall if field.name == "tool_calls" else parts)
             for field in msgspec.structs.fields(model) if field.name in ("content", "tool_calls")}
    return tagged(model, "role", role, types)


_PARTS = one_of(tagged(model, "type", kind) for kind, (model, _) in CHAT_PARTS.items())
_PLAIN_CHAT = list_of(_message(_CHAT.get(role, (ChatMessage, CONTENT))[0], role, _PARTS) for role in CHAT_ROLES)


def _all_plain_chat(entries: list[Any]) -> bool:
    """Whether every entry is a Chat message _chat finds nothing in, proved by one msgspec pass over them all
    (a Python step per entry and per call was about a seventh of `check` of a Chat file): the union is the models
    _chat validates with (ChatMessage, ChatAssistant, ChatTool, ChatToolCall and CHAT_PARTS' parts, base.tagged),
    as strict, with a part of another type, an object content and anything else they do not take refused, so
    False only sends the entries to _chat, which says what is wrong.  Each call's JSON-text arguments are still
    read (arguments_issue).  tests/test_schema_batch.py holds the two equal."""
    messages = all_converted(entries, _PLAIN_CHAT)
    if messages is None:
        return False
    for message in messages:
        for call in getattr(message, "tool_calls", None) or ():
            arguments = call.function.arguments
            if type(arguments) is str and arguments_issue(arguments, 0, "", text=True) is not None:
                return False
    return True


class InputText(Open):
    text: str
    annotations: list[Any] = []


class Summary(Open):
    text: str


RESPONSES_PARTS: dict[Any, tuple[type[Open], Classify]] = {
    "input_text": (InputText, CONTENT), "output_text": (InputText, CONTENT), "text": (InputText, CONTENT),
    "summary_text": (Summary, CONTENT), "reasoning_text": (Summary, CONTENT), "refusal": (Refusal, CONTENT),
}


class ResponsesMessage(Open):
    content: str | list[Any]
    id: str = ""
    status: Status = "completed"


class FunctionCall(Open):
    call_id: str
    name: str
    arguments: str
    id: str = ""
    status: Status | None = None  # null as pydantic-ai sends it (recorded, HTTP 200)


class FunctionCallOutput(Open):
    call_id: str
    output: str | list[Any]
    id: str = ""
    status: Status = "completed"


class Reasoning(Open):
    summary: list[Any] = []
    content: list[Any] | None = None  # null in the API's own model, and as Codex writes it
    id: str = ""
    encrypted_content: str | None = None
    status: Status | None = None


_ITEMS: dict[str, tuple[type[Open], Classify]] = {
    "function_call": (FunctionCall, by_field(call_ids=("call_id", "id"), names=("name",), arguments=("arguments",))),
    "function_call_output": (FunctionCallOutput, by_field(result_ids=("call_id",))),
    "reasoning": (Reasoning, FIELDS),
}


def _responses(entry: dict[str, Any], index: int, prefix: Loc = ()) -> list[Issue | None]:
    """One Responses input item; prefix: where the item sits in its entry (a Codex line's `payload`)."""
    kind = entry.get("type")
    if kind in ("message", None):
        role = entry.get("role")
        if role not in RESPONSES_ROLES:
            return [role_issue(role, RESPONSES_ROLES, index, json_path((*prefix, "role")))]
        return [*validate(ResponsesMessage, entry, index, CONTENT, prefix),
                *_parts(entry.get("content"), index, RESPONSES_PARTS, prefix)]
    found = _ITEMS.get(kind) if isinstance(kind, str) else None
    if found is None:
        where = json_path((*prefix, "type"))
        return [] if isinstance(kind, str) else [Issue(FindingCode.INVALID_CONTENT, index, where,
                                                       f"'{where}' must be a string naming the item's type")]
    out: list[Issue | None] = list(validate(found[0], entry, index, found[1], prefix))
    if kind == "function_call" and isinstance(entry.get("arguments"), str):
        out.append(arguments_issue(entry["arguments"], index, json_path((*prefix, "arguments")), text=True))
    elif kind == "function_call" and isinstance(entry.get("arguments"), dict):
        # arguments stored as the parsed object are read as they are, as Chat's are: the API refuses them
        # (providers.openai_responses, arguments_not_text) and the repaired view sends their text
        where = json_path((*prefix, "arguments"))
        out = [issue for issue in out if issue is None or issue.path != where]
    elif kind == "function_call_output" and isinstance(entry.get("output"), dict):
        # an output stored as an object is read as its JSON text: the API refuses it (providers.openai_responses,
        # output_not_text) and the repaired view sends its text
        where = json_path((*prefix, "output"))
        out = [issue for issue in out if issue is None or issue.path != where]
    if kind == "reasoning":
        for key in ("summary", "content"):
            parts = entry.get(key)
            for position, part in enumerate(parts if isinstance(parts, list) else []):
                out.extend(check_part(RESPONSES_PARTS, part, index, (*prefix, key, position)))
    return out


def check_item(entry: Any, index: int, prefix: Loc) -> list[Issue]:
    """One Responses input item inside a native entry of another format, at `prefix` (Codex rollouts)."""
    if not isinstance(entry, dict):
        where = json_path(prefix)
        return [Issue(FindingCode.INVALID_CONTENT, index, where,
                      f"'{where}' must be an input item object, got {describe_value(entry)}")]
    return [found for found in _responses(entry, index, prefix) if found is not None]


_FINISHED = {"openai-chat": finish_entry, "openai-responses": finish_item}
"""Each format's finish step for one entry (formats.<format>.finish, which sends every entry so)."""
