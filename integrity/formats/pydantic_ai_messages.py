"""pydantic-ai message history JSON (`ModelMessagesTypeAdapter.dump_json(result.all_messages())`).

pydantic/pydantic-ai `pydantic_ai/messages.py`: a list of ModelRequest
(`"kind": "request"`) and ModelResponse (`"kind": "response"`) objects, each with
`parts` told apart by `part_kind`:

- request parts: `system-prompt` and `user-prompt` (`content`), `tool-return`
  (`tool_name`, `tool_call_id`, `content`: any JSON; one pydantic-ai synthesized
  for a call that never got a result, `metadata` marked
  `{"pydantic_ai_synthesized_tool_return": true}` and `outcome` "interrupted", is
  read as the interrupted receipt it is, so a real result that comes later wins),
  `retry-prompt` (the
  validation error sent back: with a `tool_call_id`/`tool_name` it answers that
  call, as pydantic-ai sends it to the model; without a tool it is a user turn),
  and `retry-feedback` (pydantic-ai 2's feedback on a response it could not use,
  bound to no call: every model class sends it as a prompt, fenced user text or
  for the `no_output` cause its own system text where the API takes one, so it
  is read as the user turn it stands in);
- response parts: `text`, `thinking`, `tool-call` (`tool_name`, `tool_call_id`,
  `args` as an object or JSON text), and `builtin-tool-call` /
  `builtin-tool-return` (provider-side tools such as web search, answered inside
  the response itself, never by the client: kept as they are, not calls).

A request reads as its parts in order (each its own canonical message, its place
in the request kept as the `part` of its native record, so a writer maps a copy
back to the part it was read from), a response as one assistant message.  A
request with no parts (what `capture_run_messages` holds when a tool raised before
any return was collected: `state="interrupted"`) is refused: in a file it is a
request whose parts were lost, which must not pass unseen (the pydantic-ai guard
reads the runtime's own empty request as no turn itself).
Read-only: a repaired view is written as OpenAI Chat.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Segment
from .common import (
    NATIVE,
    EntryError,
    assistant,
    describe,
    opaque_message,
    opaque_part,
    parse_arguments,
    text_part,
    tool_call,
    tool_result,
)
from .read_only import body, build, groups  # noqa: F401 - the adapter protocol
from .spec import here

NAME = "pydantic-ai"
READ_ONLY = True
WRITES_AS = "openai-chat"
_KINDS = ("request", "response")
SYNTHESIZED = "pydantic_ai_synthesized_tool_return"
"""pydantic_ai.messages.SYNTHESIZED_TOOL_RETURN_METADATA_KEY: the `metadata` key pydantic-ai sets to true on the
ToolReturnPart it synthesizes for a call that never got a result (its history repair, its UI adapters'
stream closeout; outcome "interrupted").  Spelled here: the engine never imports pydantic-ai."""
_RECEIPT_DETAILS = {"ok": False, "error": "interrupted"}


def _is_message(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("kind") in _KINDS and isinstance(entry.get("parts"), list) \
        and "role" not in entry


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """A request or response whose parts carry pydantic-ai's `part_kind`."""
    return any(_is_message(e) and any(isinstance(p, dict) and "part_kind" in p for p in e["parts"])
               for e in entries)


def fits(entry: Any) -> bool:
    """A ModelRequest or ModelResponse."""
    return _is_message(entry)


def _text(content: Any) -> str:
    """Prompt or return content as text: strings as they are, other JSON as JSON text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(item, str) for item in content):
        return "\n".join(content)
    return json.dumps(content, ensure_ascii=False)


def _user_text(content: Any) -> str:
    """A user prompt's text (a string, or the strings of a multi-modal list)."""
    if isinstance(content, list):
        return "\n".join(item for item in content if isinstance(item, str))
    return content if isinstance(content, str) else _text(content)


def _retry_text(content: Any) -> str:
    """A retry prompt as pydantic-ai words it: the error text, or the validation errors as JSON."""
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def _request(parts: list[Any]) -> list[dict[str, Any]]:
    """One canonical message per part, each marked with its place in the request."""
    if not parts:
        raise EntryError("a request holds no parts (a request pydantic-ai sends holds at least one)")
    out: list[dict[str, Any]] = []
    for position, part in enumerate(parts):
        out.append(_request_part(part))
        out[-1][NATIVE] = {"part": position}
    return out


def _request_part(part: Any) -> dict[str, Any]:
    """The canonical message one request part reads as."""
    kind = part.get("part_kind") if isinstance(part, dict) else None
    if kind == "system-prompt":
        return {"role": "system", "content": _text(part.get("content", ""))}
    if kind == "user-prompt":
        return {"role": "user", "content": _user_text(part.get("content", ""))}
    if kind == "tool-return" and is_synthesized(part):
        receipt = _result(part, _text(part.get("content")), True)
        receipt["details"] = dict(_RECEIPT_DETAILS)  # the engine's receipt, as common.tool_result marks it
        return receipt
    if kind == "tool-return":
        return _result(part, _text(part.get("content")), False)
    if kind == "retry-prompt" and part.get("tool_name") is not None:
        return _result(part, _retry_text(part.get("content")), True)
    if kind in ("retry-prompt", "retry-feedback"):
        return {"role": "user", "content": _retry_text(part.get("content"))}
    if isinstance(kind, str):
        return opaque_message(NAME, part)  # a part kind newer than this reader: kept, never a call
    raise EntryError(f"a request part needs a string 'part_kind', got {describe(kind)}")


def is_synthesized(part: dict[str, Any]) -> bool:
    """A tool-return pydantic-ai synthesized for a call without a result: its metadata marker set to true,
    its outcome "interrupted" (or not written, as before pydantic-ai wrote outcomes)."""
    metadata = part.get("metadata")
    return isinstance(metadata, dict) and metadata.get(SYNTHESIZED) is True and \
        part.get("outcome", "interrupted") == "interrupted"


def _result(part: dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    call_id = part.get("tool_call_id")
    if not isinstance(call_id, str):
        raise EntryError(f"a {part['part_kind']} part's 'tool_call_id' must be a string, got {describe(call_id)}")
    return tool_result(call_id, part.get("tool_name"), [text_part(text)] if text else [], is_error)


def _response(parts: list[Any]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for part in parts:
        kind = part.get("part_kind") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("content"), str):
            out.append(text_part(part["content"]))
        elif kind == "thinking" and isinstance(part.get("content"), str):
            out.append({"type": "thinking", "thinking": part["content"]})
        elif kind == "tool-call":
            call_id, name = part.get("tool_call_id"), part.get("tool_name")
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise EntryError("a tool-call part needs a string 'tool_call_id' and 'tool_name'")
            out.append(tool_call(call_id, name, parse_arguments(part.get("args"))))
        else:
            out.append(opaque_part(NAME, part))  # provider-side tools, files: answered in the response itself
    return assistant(out, "toolUse" if any(p.get("type") == "toolCall" for p in out) else "stop")


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages per ModelRequest (one per part) and ModelResponse (one assistant message)."""
    segments = []
    for index, entry in enumerate(entries):
        if not _is_message(entry):
            raise EntryError(f"expected a request or response with 'kind' and 'parts', got {describe(entry)}",
                             index)
        try:
            messages = _request(entry["parts"]) if entry["kind"] == "request" else [_response(entry["parts"])]
        except EntryError as error:
            raise EntryError(error.problem, index) from None
        segments.append(Segment(index, index + 1, messages))
    return segments


SPECS = (here(__name__, suffixes=(".json",)),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
