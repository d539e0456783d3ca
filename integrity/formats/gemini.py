"""Google Gemini `contents`: turns of `parts`, with `functionCall` / `functionResponse` parts.

Call and response ids are optional in Gemini (older models and many stored
transcripts have none; pairing is then by order and name).  A missing id is read
as the empty string with NATIVE {"idMissing": true}, and an empty id is never
written to Gemini, so a transcript without ids comes back without ids.  A response
`{"output": text}` / `{"error": text}` becomes that text (error sets isError); any
other response object becomes its JSON text and is kept exactly in NATIVE.
Writing puts one functionResponse part per call part in a single turn.  The Python
SDK's snake_case dumps (`function_call`, `function_response`) are read too and
rebuilt in the spelling they were read in.
"""

from __future__ import annotations

import json
from typing import Any

from ..repair.messages import SKIP_SIGNATURE
from ..repair.views import SIGNATURE_KEYS
from .anthropic import result_groups, system_text
from .base import BuildContext, Segment, per_entry
from .common import (
    NATIVE,
    OPAQUE,
    EntryError,
    assistant,
    carried,
    describe,
    is_from,
    native_of,
    opaque_message,
    opaque_part,
    require_object,
    require_string,
    text_part,
    tool_call,
    tool_result,
)
from .spec import here

NAME = "gemini"
# A call of another format written for Gemini is sent with its own signature (pi-ai's `thoughtSignature`), else its
# message's first call with SKIP_SIGNATURE, the one Google documents for a call its model did not make, as the
# runtimes that convert a history for Gemini send it (pi-ai's google-shared convertMessages, Gemini CLI's active
# loop, the AI SDK since vercel/ai#15560): Gemini 3 refuses an unsigned call of the current turn, so only a Gemini
# request's own calls reach it unsigned (providers.gemini.unsigned_calls judges them, and the view signs them).


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """Turns with `parts`, a `model` role or function parts."""
    if "systemInstruction" in envelope or "generationConfig" in envelope:
        return True
    return any(isinstance(e, dict) and ("parts" in e or e.get("role") == "model") and "kind" not in e
               and not (isinstance(e.get("parts"), list) and any(isinstance(p, dict) and "type" in p
                                                                 for p in e["parts"]))
               for e in entries)


def fits(entry: Any) -> bool:
    """A turn with a list of parts (a pydantic-ai request or response, with its `kind`, is not one, nor an
    AI SDK UI message, whose parts are typed: Gemini's parts are told apart by their keys)."""
    if not isinstance(entry, dict) or "content" in entry or "kind" in entry:
        return False
    parts = entry.get("parts")
    return isinstance(parts, list) and not any(isinstance(p, dict) and "type" in p for p in parts)


def _key(part: Any, camel: str, snake: str) -> str | None:
    """Which spelling of a part key is used: REST/JS write camelCase, Python SDK dumps snake_case."""
    if not isinstance(part, dict):
        return None
    return camel if camel in part else (snake if snake in part else None)


def _response_content(response: Any) -> tuple[list[dict[str, Any]], bool, dict[str, Any]]:
    if isinstance(response, dict) and len(response) == 1 and isinstance(response.get("output"), str):
        return [text_part(response["output"])], False, {}
    if isinstance(response, dict) and len(response) == 1 and isinstance(response.get("error"), str):
        return [text_part(response["error"])], True, {}
    text = json.dumps(response, ensure_ascii=False)
    return [text_part(text)], False, {"response": response}


def _model_part(part: Any) -> dict[str, Any]:
    """One part of a model turn: a function call, text, a thought, or an opaque part."""
    call_key = _key(part, "functionCall", "function_call")
    call = part.get(call_key) if call_key else None
    if isinstance(call, dict):
        name = require_string(call.get("name"), "a functionCall's 'name'")
        hints: dict[str, Any] = {}
        if "id" in call:
            call_id = require_string(call.get("id"), "a functionCall's 'id'")
        else:
            call_id, hints["idMissing"] = "", True
        part_extra = {k: v for k, v in part.items() if k != call_key}
        if call_key == "function_call":
            hints["snake"] = True
        call_extra = {k: v for k, v in call.items() if k not in ("id", "name", "args")}
        if part_extra:
            hints["extra"] = part_extra
        if call_extra:
            hints["callExtra"] = call_extra
        if "args" not in call:
            hints["noArgs"] = True
        return tool_call(call_id, name, call.get("args", {}), hints or None)
    if isinstance(part, dict) and set(part) == {"text"} and isinstance(part["text"], str):
        return text_part(part["text"])
    if isinstance(part, dict) and part.get("thought") is True and isinstance(part.get("text"), str) \
            and set(part) <= {"thought", "text", "thoughtSignature"}:
        thinking = {"type": "thinking", "thinking": part["text"]}
        if "thoughtSignature" in part:
            thinking["thinkingSignature"] = part["thoughtSignature"]
        return thinking
    return _image_part(part) or opaque_part(NAME, part)


def _inline(part: dict[str, Any]) -> dict[str, Any]:
    """An image part (its data) as Gemini's inline data, in a turn's parts and a function response's alike."""
    return {"inlineData": {"mimeType": part.get("mimeType", "image/png"), "data": part["data"]}}


def _image_part(part: Any) -> dict[str, Any] | None:
    """A part of an inline image alone (`{"inlineData": {"mimeType": "image/...", "data"}}`) as an image part, which
    every format writes in its own shape (an opaque Gemini part was left out of the request written for Anthropic
    or Bedrock, and a turn of the image alone judged empty); None for any other part (a PDF, audio, a file
    reference, a part with other fields: kept opaque)."""
    if not isinstance(part, dict) or set(part) != {"inlineData"}:
        return None
    inline = part["inlineData"]
    return _inline_image(inline) if isinstance(inline, dict) and set(inline) == {"mimeType", "data"} else None


def _inline_image(inline: dict[str, Any]) -> dict[str, Any] | None:
    """Inline data of an `image/*` type (`mimeType`, or the SDK's `mime_type`) as an image part; None otherwise."""
    kind, data = inline.get("mimeType", inline.get("mime_type")), inline.get("data")
    if len(inline) != 2 or not isinstance(data, str) or not isinstance(kind, str) or not kind.startswith("image/"):
        return None
    return {"type": "image", "data": data, "mimeType": kind}


def _user_parts(parts: list[Any], role: Any, extra: dict[str, Any]) -> list[dict[str, Any]]:
    """A user or function turn: one tool result per function response, the other parts as one user message."""
    results: list[dict[str, Any]] = []
    rest: list[Any] = []
    for position, part in enumerate(parts):
        response_key = _key(part, "functionResponse", "function_response")
        response = part.get(response_key) if response_key else None
        if isinstance(response, dict):
            content, is_error, hints = _response_content(response.get("response"))
            content = content + _response_images(response)
            others = {k: v for k, v in response.items() if k not in ("id", "name", "response")}
            if others:  # (its `parts`, `willContinue`...: written back as read)
                hints["responseExtra"] = others
            has_id = "id" in response
            result = tool_result(response.get("id") if has_id else "", response.get("name"), content, is_error)
            hints = {"format": NAME, "part": position, **hints}
            if not has_id:
                hints["idMissing"] = True
            if response_key == "function_response":
                hints["snake"] = True
            result[NATIVE] = hints
            results.append(result)
        else:
            rest.append(part)
    if rest or not results:
        canonical_rest = [text_part(p["text"])
                          if isinstance(p, dict) and set(p) == {"text"} and isinstance(p["text"], str)
                          else _image_part(p) or opaque_part(NAME, p) for p in rest]
        results.append({"role": "user", "content": canonical_rest, NATIVE: {"format": NAME}})
    for message in results:
        message[NATIVE]["role"] = role
        message[NATIVE]["extra"] = extra
    return results


def _response_images(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The images a function response holds in its own `parts` (Gemini 3's multimodal function response: a
    screenshot the tool returned, `inlineData` or the SDK's `inline_data`) as image parts of the result, which
    every writer sends (an Anthropic tool_result's image block, a Chat user message after the results)."""
    parts = response.get("parts")
    images = []
    for part in parts if isinstance(parts, list) else []:
        inline = part.get("inlineData", part.get("inline_data")) if isinstance(part, dict) and len(part) == 1 \
            else None
        image = _inline_image(inline) if isinstance(inline, dict) else None
        if image is not None:
            images.append(image)
    return images


def _response_key(part: Any) -> str | None:
    key = _key(part, "functionResponse", "function_response")
    return key if key is not None and isinstance(part.get(key), dict) else None


def _model_turn(parts: list[Any], extra: dict[str, Any]) -> list[dict[str, Any]]:
    """A model turn: its frame, then one result per functionResponse part it holds.

    Recorded requests sometimes carry the real functionResponse inside the model turn
    that made the call (Gemini accepts it).  Read as an opaque part it would leave the
    call unanswered and a repair would replace a real result with a synthetic one; read
    as a result right after the frame, it pairs.  The turn itself is re-emitted as it
    was whenever it is unchanged.
    """
    calls = [_model_part(part) for part in parts if _response_key(part) is None]
    message = assistant(calls)
    message[NATIVE] = {"format": NAME, "extra": extra}
    out = [message]
    for position, part in enumerate(parts):
        if _response_key(part) is not None:
            result = _user_parts([part], "user", {})[0]
            result[NATIVE].update(part=position, inModel=True)
            out.append(result)
    return out


def _read_one(entry: dict[str, Any]) -> list[dict[str, Any]]:
    role = entry.get("role", None)
    parts = entry.get("parts")
    if not isinstance(parts, list):
        raise EntryError(f"'parts' must be an array, got {describe(parts)}")
    extra = {k: v for k, v in entry.items() if k not in ("role", "parts")}
    if role == "model":
        return _model_turn(parts, extra)
    if role in ("user", None) or role in RESPONSE_ROLES:
        return _user_parts(parts, role, extra)
    if not isinstance(role, str):
        raise EntryError(f"'role' must be a string, got {describe(role)}")
    return [opaque_message(NAME, entry)]


def read(entries: list[Any]) -> list[Segment]:
    """Canonical messages per turn (a user turn may yield several)."""
    return per_entry(entries, lambda entry: _read_one(require_object(entry, "turn")))


JOINS_RESULTS = True
"""`groups` sends results the file holds in consecutive entries as one (formats.reshaping.joined)."""


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """One response turn per run of results (Gemini counts response parts against call parts).

    Results read from inside a model turn stay with that turn's frame, so an
    unchanged turn is written back as it was.
    """
    out: list[list[int]] = []
    for group in result_groups(messages, NAME):
        first = messages[group[0]]
        if out and _in_model_turn(first, messages[out[-1][0]]):
            out[-1].extend(group)
        else:
            out.append(group)
    return out


def _in_model_turn(message: dict[str, Any], frame: dict[str, Any]) -> bool:
    hints, turn = native_of(message), native_of(frame)
    return bool(hints.get("inModel")) and frame.get("role") == "assistant" and is_from(frame, NAME) \
        and (hints.get("start"), hints.get("end")) == (turn.get("start"), turn.get("end"))


def _parts_out(parts: Any) -> list[Any]:
    if isinstance(parts, str):
        return [{"text": parts}]
    out = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            out.append({"text": part["text"]})
        elif part.get("type") == "thinking":
            thought = {"thought": True, "text": part.get("thinking", "")}
            if "thinkingSignature" in part:
                thought["thoughtSignature"] = part["thinkingSignature"]
            out.append(thought)
        elif part.get("type") == "image" and isinstance(part.get("data"), str):
            # (an image another format carried: Gemini's inline data, as the Anthropic and Bedrock writers send it
            # in their blocks; left out, a turn of an image alone was written without parts, which Gemini refuses)
            out.append(_inline(part))
        elif part.get("type") == OPAQUE and (block := carried(part.get("format"), part.get("value"), NAME)) \
                is not None:  # (its own part, or another format's image by address)
            out.append(block)
    return out


def _response_out(message: dict[str, Any], context: BuildContext) -> Any:
    original = context.reuse(message)
    if original is not None:
        return original
    hints = native_of(message) if is_from(message, NAME) else {}
    text = "\n".join(p["text"] for p in message.get("content") or [] if isinstance(p, dict) and p.get("type") == "text")
    if "response" in hints and json.dumps(hints["response"], ensure_ascii=False) == text:
        response = hints["response"]
    else:
        response = {"error": text} if message.get("isError") is True else {"output": text}
    out: dict[str, Any] = {}
    call_id = message.get("toolCallId")
    if isinstance(call_id, str) and call_id:
        out["id"] = call_id
    out["name"] = message.get("toolName", "")
    out["response"] = response
    given = hints.get("responseExtra")
    if isinstance(given, dict):
        out.update(given)
    else:
        images = [p for p in message.get("content") or [] if isinstance(p, dict) and p.get("type") == "image"
                  and isinstance(p.get("data"), str)]
        if images:  # (another format's result images: nested in the response, as Gemini 3 takes them and pi
            # sends them; left out, a screenshot the tool returned never reached the request judged)
            out["parts"] = [_inline(p) for p in images]
    return {"function_response" if hints.get("snake") else "functionResponse": out}


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """The Gemini turn for one group."""
    first = messages[0]
    role = first.get("role")
    same = is_from(first, NAME)
    extra = native_of(first).get("extra", {}) if same else {}
    if role == OPAQUE:
        return [first["value"]]
    if role == "assistant" and len(messages) > 1:
        # a frame with the results its model turn held, rebuilt: the frame, then a turn of responses
        return build(messages[:1], context) + build(messages[1:], context)
    if role == "assistant":
        parts: list[Any] = []
        unsigned = not same  # (another format's call: its first is sent signed, below)
        for part in first.get("content") or []:
            if isinstance(part, dict) and part.get("type") == "toolCall":
                native = part.get(NATIVE)
                hints = native if same and isinstance(native, dict) else {}
                call: dict[str, Any] = {}
                if isinstance(part.get("id"), str) and part["id"]:
                    call["id"] = part["id"]
                call["name"] = part.get("name")
                if not hints.get("noArgs"):
                    call["args"] = part.get("arguments", {})
                call.update(hints.get("callExtra", {}))
                key = "function_call" if hints.get("snake") else "functionCall"
                written = {key: call, **hints.get("extra", {})}
                signature = part.get("thoughtSignature")
                if not (isinstance(signature, str) and signature) and unsigned:
                    signature = SKIP_SIGNATURE
                if isinstance(signature, str) and signature and not any(k in written for k in SIGNATURE_KEYS):
                    # (pi-ai's field, or the one the view gives a call without: SKIP_SIGNATURE)
                    written["thought_signature" if hints.get("snake") else "thoughtSignature"] = signature
                unsigned = False
                parts.append(written)
            else:
                parts.extend(_parts_out([part]))
        return [{"role": "model", "parts": parts, **extra}]
    parts = [_response_out(m, context) for m in messages if m.get("role") == "toolResult"]
    for user in messages:
        if user.get("role") == "user":
            parts.extend(_parts_out(user.get("content")))
    turn: dict[str, Any] = {}
    native_role = native_of(first).get("role", "user") if same else "user"
    if native_role is not None:
        turn["role"] = native_role
    turn["parts"] = parts
    turn.update(extra)
    return [turn]


def finish(native: list[Any], context: BuildContext) -> list[Any]:
    """The contents as Gemini takes them, where an entry kept verbatim from the file (or a response written back
    as it was read) would carry into the repaired view what it refuses: a function response whose `response` is
    not a JSON object (a tool's text or list stored as it came: \"Invalid value at
    'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), ...\") is
    sent as `{"output": value}`, the key Gemini's documentation gives a function's output: the same value, so
    nothing is lost; and a turn of the role `function` or `tool` (RESPONSE_ROLES) is sent with the role `user`,
    which every model takes and the current ones require ("Role 'function' is not supported. ...":
    providers.gemini.ROLES)."""
    return list(map(finish_entry, native))


def finish_entry(entry: Any) -> Any:
    """One content as `finish` sends it: the content itself when Gemini takes it as it is, else a copy (what
    formats.reshaping reports of a file's entries)."""
    return _finished(entry) if _loose_response(entry) or _response_role(entry) else entry


RESPONSE_ROLES = ("function", "tool")
"""The roles a writer gives a turn of function responses other than `user`: `function` (the Gemini docs' example
of 2024 and the code that followed it), `tool` (Genkit).  Read as a user turn; written as one (finish)."""


def _response_role(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("role") in RESPONSE_ROLES


def _loose_response(entry: Any) -> bool:
    parts = entry.get("parts") if isinstance(entry, dict) else None
    return isinstance(parts, list) and any(map(_loose_part, parts))


def _loose_part(part: Any) -> bool:
    key = _response_key(part)
    response = part[key] if key is not None else None
    return isinstance(response, dict) and "response" in response and not isinstance(response["response"], dict)


def _finished(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of the content with each such response wrapped and the role `user` for a role of RESPONSE_ROLES (the
    file's entry is left as it is)."""
    parts = []
    for part in entry["parts"] if isinstance(entry.get("parts"), list) else ():
        if _loose_part(part):
            key = _response_key(part)
            assert key is not None
            part = {**part, key: {**part[key], "response": {"output": part[key]["response"]}}}
        parts.append(part)
    out = {**entry, "parts": parts} if isinstance(entry.get("parts"), list) else dict(entry)
    if _response_role(entry):
        out["role"] = "user"
    return out


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """A generateContent request: {"contents": [...]} plus systemInstruction when there was one."""
    out: dict[str, Any] = {}
    if hoisted:
        out["systemInstruction"] = {"parts": [{"text": system_text(hoisted)}]}
    out["contents"] = native
    return out


def reusable_block(native_entry: Any, part: int) -> Any:
    """The part at `part` of a turn (for BuildContext.reuse)."""
    parts = native_entry.get("parts") if isinstance(native_entry, dict) else None
    return parts[part] if isinstance(parts, list) and 0 <= part < len(parts) else None


SPECS = (here(__name__, provider="gemini"),)
"""This module's format(s), as the registry (integrity.formats) lists them."""
