"""The pi-ai messages the engine itself writes: receipts, synthesized turns, rewritten and merged copies.

Kept in one module so the reference API, the materializer, the runtime and the
fenced store all write byte-identical receipts, and every copy the view makes
is a deep copy: a view message that differs from its durable message never
shares a mutable object with it (changing the view cannot change the record).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .views import blank_text, is_call_part, is_image, texts_length

INTERRUPTED_MESSAGE = "This tool call was interrupted before a result was recorded."
# Compact JSON with the reference's key order: what JSON.stringify produces.
INTERRUPTED_TEXT = json.dumps(
    {"ok": False, "error": "interrupted", "message": INTERRUPTED_MESSAGE}, separators=(",", ":")
)

STRICT_MESSAGE = (
    "The outcome of this tool call is unknown: it was interrupted before a result was recorded. "
    "If the tool has side effects, check the current state before retrying it."
)

NOT_EXECUTED_MESSAGE = (
    "This tool call was not executed: its arguments were not a valid JSON object, so no tool ran. "
    "If the call is still needed, make it again with valid arguments."
)
NOT_EXECUTED_TEXT = json.dumps({"ok": False, "error": "invalid_arguments", "message": NOT_EXECUTED_MESSAGE},
                               separators=(",", ":"))
"""The error result the strict view answers a call with when its arguments were invalid and it has no result:
not an interrupted receipt (no tool ran, so nothing is unknown), so its details say `invalid_arguments`."""

USER_START_TEXT = "[The start of this conversation is not available; it continues from here.]"
NO_REPLY_TEXT = "[No assistant reply was recorded after these tool results; the conversation continued below.]"


def strict_placeholder_text(message: str = STRICT_MESSAGE) -> str:
    """The strict receipt text, in the reference's JSON shape so tools that parse it keep working."""
    return json.dumps({"ok": False, "error": "interrupted", "message": message}, separators=(",", ":"))


def receipt_texts() -> frozenset[str]:
    """Every receipt text the engine writes (the reference's and the strict policy's), exactly.

    A format that cannot carry pi-ai's `details` marker keeps only the text; its reader
    recognizes a receipt by one of these texts, never by a look-alike.
    """
    return frozenset({INTERRUPTED_TEXT, strict_placeholder_text()})


def receipt_message(call_id: str, tool_name: str, timestamp: int, text: str | None = None) -> dict[str, Any]:
    """The interrupted receipt for one call; text None means the reference's text.

    `details == {"ok": false, "error": "interrupted"}` with `isError: true` is what
    marks a result as a receipt (see views.details_mark_interrupted), not its text.
    """
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": tool_name,
        "content": [{"type": "text", "text": INTERRUPTED_TEXT if text is None else text}],
        "details": {"ok": False, "error": "interrupted"},
        "isError": True,
        "timestamp": timestamp,
    }


def not_executed_message(call_id: str, tool_name: str, timestamp: int) -> dict[str, Any]:
    """The error result for a call the view sends with {} because its arguments were invalid: it says the
    call was not executed.  Not a receipt: its details are `invalid_arguments`, not `interrupted`."""
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": tool_name,
        "content": [{"type": "text", "text": NOT_EXECUTED_TEXT}],
        "details": {"ok": False, "error": "invalid_arguments"},
        "isError": True,
        "timestamp": timestamp,
    }


def turn_message(role: str, text: str, timestamp: int) -> dict[str, Any]:
    """The pi-ai message a synthesized user or assistant turn stands for."""
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}]}
    if role == "assistant":
        message["stopReason"] = "stop"
    message["timestamp"] = timestamp
    return message


NO_TEXT_CONTENT = "(no text content)"
"""The text an error result is sent with when it holds no text (rewrite_message's text_only): a provider that
takes text alone in an error result refuses one with no content too."""


SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The thought signature Google documents for a call its model did not make (another model's, or one whose
signature was lost): Gemini 3 takes it in place of the model's own (rewrite_message's signed; vercel/ai#15560: a
replay refused 400 without a signature answered 200 with it)."""


CUT_NOTE = "\n[{count:,} characters cut here: the provider takes at most {limit:,} in one string; the durable " \
    "transcript keeps them]"
"""What ends a text the view cut (cut_texts): how much is gone, why, and where it still is."""


def cut_texts(content: Any, limit: int) -> Any:
    """A message's content with its texts cut so that, joined as a writer joins them (views.texts_length), they are
    at most `limit` characters: the texts up to the limit are kept, the text the limit falls in is cut there and
    ends with CUT_NOTE, the texts after it are left out; other parts (images, calls, thoughts) stay in place.  The
    head is what is kept: what a tool printed first, a document's beginning."""
    total = texts_length(content)
    if total <= limit:
        return content
    room = limit - len(CUT_NOTE.format(count=total, limit=limit))  # (the note said for fewer is no longer)
    if isinstance(content, str):
        return content[:room] + CUT_NOTE.format(count=len(content) - room, limit=limit)
    out: list[Any] = []
    at = -1  # the joined texts' length so far (the first text has no newline before it)
    cut = None
    gone = 0
    for part in content:
        text = part.get("text") if isinstance(part, dict) and part.get("type") == "text" else None
        if not isinstance(text, str):
            out.append(part)
            continue
        if cut is not None:  # after the cut: left out, and counted
            gone += len(text)
            continue
        start = at + 1
        if start + len(text) <= room:
            out.append(part)
            at = start + len(text)
            continue
        kept = max(0, room - start)
        gone += len(text) - kept
        cut = len(out)
        out.append({**part, "text": text[:kept]})
    if cut is not None:
        out[cut] = {**out[cut], "text": out[cut]["text"] + CUT_NOTE.format(count=gone, limit=limit)}
    return out


IMAGES_AFTER = "({count} image(s) sent in the user message after the tool results)"
"""What a result the view sends without its images says in their place (rewrite_message's images_out)."""

IMAGES_GONE = "({count} image(s) left out: the provider takes no image)"
"""What a message the view sends without its images to a provider that takes none says in their place."""

IMAGES_CARRIED = "Image(s) returned by the tool call(s) above ({calls}):"
"""The text of the user message the view sends a turn's result images in (entries.SynthesizedTurn.images)."""


def image_type(part: Any) -> str | None:
    """The media type of an image part (views.is_image): a canonical image's `mimeType`, a Chat image's from its
    data URL ("" for an image sent by address); None for any other part.  What a screen shows in the image's place:
    its data (a screenshot is a megabyte of base64) is never shown."""
    if not is_image(part):
        return None
    if part["type"] == "image":
        kind = part.get("mimeType")
        return kind if isinstance(kind, str) else ""
    url = part["value"].get("image_url")
    url = url.get("url") if isinstance(url, dict) else url
    if isinstance(url, str) and url.startswith("data:") and ";" in url:
        return url[5:url.index(";")]
    return ""


def images_of(message: Any) -> list[Any]:
    """The images a message holds (views.is_image), in order."""
    content = message.get("content") if type(message) is dict else None
    return [part for part in content if is_image(part)] if type(content) is list else []


def rewrite_message(message: dict[str, Any], ids: Mapping[int, str],
                    arguments: frozenset[int] = frozenset(), calls_last: bool = False, blank: bool = False,
                    text_only: bool = False, names: Mapping[int, str] | None = None, signed: bool = False,
                    cut: int = 0, left_out: tuple[int, ...] = (), images_out: bool = False,
                    images_gone: bool = False) -> dict[str, Any]:
    """A deep copy of a frame with some call ids replaced, or of a result with a new toolCallId.

    arguments: call positions whose invalid arguments the view sends as {} (the recorded text is left out
    of the copy's native fields, so no writer sends it again; the report keeps it).
    calls_last: the frame's toolCall parts go after its other parts, each run in its order (a provider that
    answers only the calls closing a turn refuses a call followed by text: Anthropic's tool_use_not_last).
    blank: its blank text parts are left out (views.blank_text: empty, or whitespace only).  A provider with
    empty-content rules refuses an empty one beside other parts, Bedrock a whitespace one too (views.blank_content);
    a message rewritten for one is sent without all of them, which carry nothing (a message of blank texts alone
    is left out whole, never rewritten).
    text_only: an error result sent with its text parts alone, or with NO_TEXT_CONTENT when it has none (a
    provider that takes text alone in an error result, and refuses one with no content: Anthropic); the parts
    left out are the durable message's still, and the report names them.
    names: call position -> the tool name sent for a recorded one the provider refuses (repair.views.legal_tool_name;
    the copy's native hints lose the recorded name, so no writer sends it again).
    signed: the frame's first call is sent with SKIP_SIGNATURE as its thought signature (pi-ai's toolCall field,
    which the Gemini writer sends): it has none, and a provider that signs calls refuses it unsigned in the current
    turn (Gemini 3's thought_signature_missing).
    cut: the limit its texts are cut to (cut_texts; 0: none): a provider with a limit on one string
    (ProviderSpec.string_limit) refuses them longer.  Only the kept head is copied, never the whole text first.
    left_out: content positions of the durable message's parts it is sent without (thinking parts, each a reasoning
    item sent already earlier in the request: views.repeated_reasoning), left out before anything else reads the
    content.
    images_out: a result sent without its images (views.is_image), IMAGES_AFTER in their place after its other parts: a
    provider that takes images from a user message alone (OpenAI Chat) is sent them in a user message after the
    turn's results (entries.SynthesizedTurn.images).  Left out before the copy: an image's data is never copied.
    images_gone: a message sent without its images, IMAGES_GONE in their place (a provider that takes no image).
    """
    if images_out or images_gone:
        content = message.get("content")
        if type(content) is list:
            kept = [part for part in content if not is_image(part)]
            if len(kept) < len(content):
                said = IMAGES_AFTER if images_out else IMAGES_GONE
                note = {"type": "text", "text": said.format(count=len(content) - len(kept))}
                message = {**message, "content": [*kept, note]}
    if left_out:
        gone = set(left_out)
        message = {**message, "content": [part for at, part in enumerate(message.get("content") or [])
                                          if at not in gone]}
    if cut:
        message = {**message, "content": cut_texts(message.get("content"), cut)}
    copied = copy.deepcopy(message)
    if text_only:
        content = copied.get("content")
        texts = [part for part in content if isinstance(part, dict) and part.get("type") == "text"] \
            if isinstance(content, list) else []
        copied["content"] = texts or [{"type": "text", "text": NO_TEXT_CONTENT}]
    if -1 in ids:
        copied["toolCallId"] = ids[-1]
        return copied
    content = copied.get("content")
    if not isinstance(content, list):
        return copied
    if signed:
        first = next((part for part in content if isinstance(part, dict) and part.get("type") == "toolCall"), None)
        if first is not None:
            first["thoughtSignature"] = SKIP_SIGNATURE
    position = 0
    for part in content:
        # positions count what the strict light view counts: calls with a string or a numeric id
        if is_call_part(part, numeric_ids=True):
            if position in ids:
                part["id"] = ids[position]
            if names and position in names:
                part["name"] = names[position]
                native = part.get("_native")
                if isinstance(native, dict):
                    native.pop("name", None)
            if position in arguments:
                part["arguments"] = {}
                native = part.get("_native")
                if isinstance(native, dict):
                    native.pop("arguments", None)
            position += 1
    if blank:
        content = copied["content"] = [part for part in content if not _blank_text_part(part)]
    if calls_last:
        copied["content"] = [part for part in content if not _is_call(part)] + \
            [part for part in content if _is_call(part)]
    return copied


def _blank_text_part(part: Any) -> bool:
    """A text part whose text is blank (views.blank_content reads the same)."""
    return isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str) \
        and blank_text(part["text"])


def _is_call(part: Any) -> bool:
    """A toolCall part, as part_after_call (the light view's late_frames) sees one: any part typed toolCall."""
    return isinstance(part, dict) and part.get("type") == "toolCall"


def merge_messages(members: Sequence[Any]) -> dict[str, Any]:
    """One message carrying every member's content in order; every other field from the last member.

    Members may be durable messages: everything taken from them is deep-copied.
    """
    content: list[Any] = []
    for message in members:
        parts = message.get("content") if isinstance(message, dict) else None
        if isinstance(parts, str):
            if parts:
                content.append({"type": "text", "text": parts})
        elif isinstance(parts, list):
            content.extend(copy.deepcopy(parts))
    last = members[-1]
    if not isinstance(last, dict):
        return {"content": content}
    merged = {key: copy.deepcopy(value) for key, value in last.items() if key != "content"}
    merged["content"] = content
    # keep the last member's key order, content where it was
    return {key: merged[key] for key in last} | ({} if "content" in last else {"content": content})
