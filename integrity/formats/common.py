"""Canonical (pi-ai) building blocks shared by the format adapters.

Every adapter turns native entries into pi-ai AgentMessage dicts, because that is
the one shape the repair engine reads (integrity.repair.views.view_of).  What pi-ai has no
field for is kept under the namespaced key NATIVE ("_native") of the canonical
message or part, so writing back to the same format loses nothing; that key is
never written to any output.  Native content a canonical part cannot express is
kept as an opaque part {"type": "opaque", "format": F, "value": block}, and a native
entry that is not a conversation message as an opaque message {"role": "opaque", ...}:
both are re-emitted only in their own format and left out of every other.
"""

from __future__ import annotations

import json
import mimetypes
import re
from collections.abc import Callable
from typing import Any

from ..loading import describe_value
from ..repair.messages import receipt_texts
from ..repair.views import image_address

NATIVE = "_native"
OPAQUE = "opaque"
CANONICAL_ROLES = ("user", "assistant", "toolResult")
SYSTEM_ROLES = ("system", "developer")


class EntryError(Exception):
    """An entry an adapter cannot read; the reader adds file and line to make a TranscriptError."""

    def __init__(self, problem: str, index: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.index = index


def describe(value: Any) -> str:
    """'a string', 'an array'... for error messages (one wording for every reader)."""
    return describe_value(value)


def require_object(entry: Any, what: str = "message") -> dict[str, Any]:
    """The entry as a dict, or an EntryError saying what it was instead."""
    if not isinstance(entry, dict):
        raise EntryError(f"expected a {what} object, got {describe(entry)}")
    return entry


def require_string(value: Any, what: str) -> str:
    """A string field every provider requires (tool call ids and names)."""
    if not isinstance(value, str):
        raise EntryError(f"{what} must be a string, got {describe(value)}")
    return value


def read_id(value: Any, what: str) -> Any:
    """A call id as recorded: a string, or a number or null read on as it is (the schema check reports it as
    malformed, and the strict policy pairs and renames a numeric id, as it does in pi-ai's own messages:
    docs/report.md); an object, an array or a boolean is no id any writer slipped into (an EntryError)."""
    if isinstance(value, str) or value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    raise EntryError(f"{what} must be a string, got {describe(value)}")


def text_part(text: str) -> dict[str, Any]:
    """A pi-ai TextContent part."""
    return {"type": "text", "text": text}


def data_url(part: dict[str, Any]) -> str:
    """A canonical image part (its base64 `data` and `mimeType`) as the data URL OpenAI's APIs take an image by
    (Chat's `image_url.url`, Responses' `input_image.image_url`); a part without a type is sent as a PNG, as the
    Anthropic and Gemini writers send it."""
    return f"data:{part.get('mimeType') or 'image/png'};base64,{part['data']}"


_DATA_URL = re.compile(r"data:(image/[^;,]+);base64,(.*)", re.DOTALL)


def image_of_data_url(url: Any) -> dict[str, Any] | None:
    """The canonical image part (pi-ai's ImageContent: base64 `data`, `mimeType`) of an image data URL, the way
    OpenAI's APIs carry an image's bytes (Chat's `image_url.url`, Responses' `input_image.image_url`); None for an
    image by address or file id, or a data URL with other parameters.  The data is taken as it stands, as the
    converters that send such an image to Anthropic do (LiteLLM splits the URL at its comma): whether it decodes is
    not what a history's shape is judged on.  Exact both ways: data_url(part) gives back the very string read, so a
    file written back in its own format keeps its bytes, and a screenshot read from a Chat or Responses history
    reaches the Anthropic, Gemini and Bedrock requests judged (it was an opaque part those writers left out, and a
    user message of the image alone was judged empty)."""
    found = _DATA_URL.fullmatch(url) if isinstance(url, str) else None
    return {"type": "image", "data": found[2], "mimeType": found[1]} if found else None


def image_detail(part: dict[str, Any]) -> str | None:
    """The `detail` (low, high, auto) an image read from an OpenAI Chat or Responses file was sent with, which the
    other of the two sends it with too (both take it; no other format has a place for it)."""
    native = part.get(NATIVE)
    detail = native.get("detail") if isinstance(native, dict) else None
    return detail if isinstance(detail, str) else None


def opaque_part(format: str, value: Any) -> dict[str, Any]:
    """A native block with no canonical equivalent, carried for its own format only (and the formats whose
    blocks are the same: `carries_block`)."""
    return {"type": OPAQUE, "format": format, "value": value}


_BLOCKS_OF = {"claude-code": "anthropic"}
"""A format whose content blocks are another's as they stand -> that format: a Claude Code entry's `message`
is an Anthropic message, and Claude Code sends its blocks to Anthropic unchanged."""


def carries_block(block_format: Any, format: str) -> bool:
    """Whether an opaque block read from `block_format` is written as it is in `format`: its own, or one whose
    blocks are the same (a Claude Code session's pasted image is sent to Anthropic: the request written for the
    verdict keeps it, where a message of the image alone was once judged empty).  The writers and the skeleton
    the provider rules judge both ask this, so they write the same blocks."""
    return bool(block_format == format or _BLOCKS_OF.get(block_format, block_format) == _BLOCKS_OF.get(format, format))


def carried(block_format: Any, value: Any, format: str) -> Any:
    """The block a writer of `format` writes for an opaque block read from `block_format`, or None when it writes
    none: the block as it is where the formats' blocks are the same (carries_block), else an image by address in
    the shape `format` takes one by (OpenAI Chat, Responses, Anthropic, Gemini's `fileData`; Bedrock takes images
    by their bytes alone).  A Chat user's image by address judged toward Anthropic was left out, and a message of
    the image alone judged empty, of a request every converter sends with the image.  The writers and the
    skeleton the provider rules judge both ask this, so they write the same blocks."""
    if carries_block(block_format, format):
        return value
    url = image_address(block_format, value)
    if url is None:
        return None
    detail = value.get("detail") if block_format == "openai-responses" else value["image_url"].get("detail") \
        if block_format == "openai-chat" else None  # (both OpenAI APIs take it: it goes along between them)
    if format == "openai-chat":
        return {"type": "image_url", "image_url": {"url": url, **({"detail": detail} if isinstance(detail, str)
                                                                  else {})}}
    if format == "openai-responses":
        return {"type": "input_image", "image_url": url, "detail": detail if isinstance(detail, str) else "auto"}
    if _BLOCKS_OF.get(format, format) == "anthropic":
        return {"type": "image", "source": {"type": "url", "url": url}}
    if format == "gemini":  # (the API fetches a public or signed address itself; its type when the name says it)
        kind = mimetypes.guess_type(url.partition("?")[0])[0]
        return {"fileData": {**({"mimeType": kind} if kind and kind.startswith("image/") else {}), "fileUri": url}}
    return None


def entry_keys(entries: list[Any]) -> frozenset[Any] | None:
    """Every key of every entry, when each is an object (None when one is not), gathered by a C loop: a refinement
    whose evidence is a key no entry holds (SWE-agent's fields, a JavaScript Agents SDK item's or a LangGraph
    message's `type`) is told it has none without reading the file's entries one by one, which detection does
    for every such format on every file (two thirds of it on a Chat file)."""
    if not set(map(type, entries)) <= _OBJECT:
        return None
    return frozenset().union(*entries)


_OBJECT = frozenset({dict})


def opaque_message(format: str, value: Any) -> dict[str, Any]:
    """A native entry that is not a conversation message (the engine sees an 'other' role)."""
    return {"role": OPAQUE, "format": format, "value": value}


def tool_call(call_id: str, name: str, arguments: Any, native: dict[str, Any] | None = None) -> dict[str, Any]:
    """A pi-ai ToolCall part; `native` keeps what only the source format needs."""
    part: dict[str, Any] = {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}
    if native:
        part[NATIVE] = native
    return part


def call_parts(message: Any) -> list[dict[str, Any]]:
    """The toolCall parts with a string id of an assistant message: the calls a runtime that answers a call left
    without its result as it sends looks for (pi_requests.sent_messages, codex_requests.sent_messages)."""
    content = message.get("content") if isinstance(message, dict) and message.get("role") == "assistant" else None
    if not isinstance(content, list):
        return []
    return [part for part in content if isinstance(part, dict) and part.get("type") == "toolCall"
            and isinstance(part.get("id"), str)]


def assistant(parts: list[dict[str, Any]], stop_reason: str | None = None) -> dict[str, Any]:
    """A pi-ai AssistantMessage; stopReason is derived when the format does not record one.

    Formats without a stop reason still show an interrupted turn one way: an
    assistant message with nothing in it (no provider completes a turn with no
    content, and Anthropic rejects one).  Reading it as "aborted" lets the engine
    treat it as the interrupted frame it is; the value is never written back.
    """
    if stop_reason is None:
        if any(p.get("type") == "toolCall" for p in parts):
            stop_reason = "toolUse"
        elif all(p.get("type") == "text" and not p.get("text") for p in parts):
            stop_reason = "aborted"
        else:
            stop_reason = "stop"
    return {"role": "assistant", "content": parts, "stopReason": stop_reason}


_RECEIPT_TEXTS = receipt_texts()


def tool_result(call_id: Any, name: Any, content: list[dict[str, Any]], is_error: bool,
                has_id: bool = True, flagless: bool = False) -> dict[str, Any]:
    """A pi-ai ToolResultMessage; a result without an id keeps no toolCallId (the engine flags it).

    A result whose whole content is one of the engine's receipt texts (and that
    is marked as an error, where the format can mark one: `flagless` formats cannot)
    gets the receipt's isError/details back, so a receipt survives any conversion
    and the engine still tells it from a real result.
    """
    message: dict[str, Any] = {"role": "toolResult"}
    if has_id:
        message["toolCallId"] = call_id
    message["toolName"] = name if isinstance(name, str) else ""
    message["content"] = content
    message["isError"] = is_error
    if (is_error or flagless) and len(content) == 1 and content[0].get("type") == "text" \
            and content[0].get("text") in _RECEIPT_TEXTS:
        message["isError"] = True
        message["details"] = {"ok": False, "error": "interrupted"}
    return message


def parse_arguments(raw: Any) -> Any:
    """OpenAI-style JSON-string arguments as a value ({} when not valid JSON)."""
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    from .container import loads  # the container's rules: no NaN, no nesting past MAX_DEPTH, no RecursionError

    try:
        return loads(raw)
    except ValueError:
        return {}


def arguments_text(part: dict[str, Any], same_format: bool) -> str:
    """JSON-string arguments for a toolCall part: the original text when it still says the same."""
    native = part.get(NATIVE) if same_format else None
    written = native.get("arguments") if isinstance(native, dict) else None
    if isinstance(written, str) and parse_arguments(written) == part.get("arguments"):
        return written
    return _ARGUMENTS.encode(part.get("arguments", {}))


def object_arguments_text(value: Any) -> str:
    """Arguments a writer stored as the parsed object, as the JSON text OpenAI's APIs take (compact, text as it is):
    the same arguments, so a view that sends them so loses nothing."""
    return _ARGUMENTS.encode(value)


_ARGUMENTS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""json.dumps(value, ensure_ascii=False, separators=(",", ":")) made once: dumps with options builds
an encoder per call, which cost a third of the time of encoding a call's arguments."""


def texts(parts: Any) -> list[str]:
    """The texts of the text parts of canonical content (a string counts as one text)."""
    if isinstance(parts, str):
        return [parts]
    if not isinstance(parts, list):
        return []
    return [p["text"] for p in parts
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)]


def joined_text(parts: Any) -> str:
    """All text of canonical content, joined by newlines (for formats that want one string)."""
    return "\n".join(texts(parts))


def native_of(message: Any) -> dict[str, Any]:
    """The message's NATIVE record ({} when it has none)."""
    if isinstance(message, dict):
        native = message.get(NATIVE)
        if isinstance(native, dict):
            return native
    return {}


def is_from(message: Any, format: str) -> bool:
    """True when the canonical message was read from `format` (so its hints apply)."""
    native = message.get(NATIVE) if isinstance(message, dict) else None
    return isinstance(native, dict) and native.get("format") == format


def strip_native(message: Any) -> Any:
    """The message without NATIVE keys (its own and its content parts'); untouched when it has none.

    Only the two levels where adapters put NATIVE are cleaned, so user data that
    happens to contain the key (tool arguments, details) is never altered.
    """
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    in_parts = isinstance(content, list) and any(isinstance(p, dict) and NATIVE in p for p in content)
    if NATIVE not in message and not in_parts:
        return message
    out = {k: v for k, v in message.items() if k != NATIVE}
    if in_parts and isinstance(content, list):
        out["content"] = [
            {k: v for k, v in p.items() if k != NATIVE} if isinstance(p, dict) and NATIVE in p else p
            for p in content
        ]
    return out


class NameBook:
    """Tool names by call id, for formats whose results do not repeat the tool name."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def add_calls(self, parts: list[dict[str, Any]]) -> None:
        """Record one assistant message's calls; an id its calls share with different names
        (several id-less calls) names no tool: a guess would make results pair with the wrong call."""
        names: dict[str, set[str]] = {}
        for part in parts:
            if part.get("type") == "toolCall":
                names.setdefault(part["id"], set()).add(part["name"])
        for call_id, found in names.items():
            self._names[call_id] = next(iter(found)) if len(found) == 1 else ""

    def name(self, call_id: Any) -> str:
        return self._names.get(call_id, "") if isinstance(call_id, str) else ""


# Keyed by a part's "type", looked up with whatever JSON value the part holds there.
_PART_CHECKS: dict[Any, Callable[[dict[str, Any]], bool]] = {
    "text": lambda p: isinstance(p.get("text"), str),
    "thinking": lambda p: isinstance(p.get("thinking"), str),
    "toolCall": lambda p: isinstance(p.get("id"), str) and isinstance(p.get("name"), str),
    "image": lambda p: isinstance(p.get("data"), str),
    OPAQUE: lambda p: "value" in p and isinstance(p.get("format"), str),
}


def writable(message: Any) -> dict[str, Any]:
    """The message as writers may assume it: a dict whose content parts are well-formed.

    Canonical messages can come from anywhere (a pi-ai file, a caller's own list),
    and a malformed one must not crash a writer.  What no format can express (a
    non-object message, a toolCall part without string id and name, which the
    engine does not count as a call either) is left out; a well-formed message is
    returned as is, so comparisons with the transcript still recognise it.
    """
    if not isinstance(message, dict):
        return {"role": OPAQUE, "format": "", "value": message}
    role = message.get("role")
    if role == OPAQUE and not ("value" in message and isinstance(message.get("format"), str)):
        return {"role": OPAQUE, "format": "", "value": message}
    if not isinstance(role, str) or role not in _WRITABLE_ROLES:  # a list or object role is unhashable
        return message if role == OPAQUE else {"role": OPAQUE, "format": "", "value": message}
    content = message.get("content")
    if isinstance(content, str) and role != "assistant" and role != "toolResult":
        return message
    if isinstance(content, str):
        return {**message, "content": [text_part(content)]}
    if not isinstance(content, list):
        return {**message, "content": []}
    if all(map(_writable_part, content)):  # the usual case: every part well-formed, the message as is
        return message
    return {**message, "content": [p for p in content if _writable_part(p)]}


_WRITABLE_ROLES = frozenset(("user", "assistant", "toolResult") + SYSTEM_ROLES)


def _writable_part(part: Any) -> bool:
    """A content part every writer can express: an object whose "type" is a string with a check it passes."""
    if not isinstance(part, dict):
        return False
    kind = part.get("type")
    check = _PART_CHECKS.get(kind) if isinstance(kind, str) else None
    return check is not None and check(part)
