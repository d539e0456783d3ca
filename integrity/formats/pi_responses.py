"""The OpenAI Responses request pi builds from one of its sessions: what `check` judges a pi session on an OpenAI,
Codex or Azure Responses model by.

pi (badlogic/pi-mono, now earendil-works/pi; pi-ai's convertResponsesMessages, shared by its openai-responses,
openai-codex-responses and azure-openai-responses providers) keeps an OpenAI answer's two ids in one: a tool call
of `call_…|fc_…` is the call's `call_id` and its item `id`, joined.  It sends the call as a `function_call` with
the two apart again, and its result as a `function_call_output` of the `call_id` alone: our Responses writer,
sending the joined id as the `call_id`, wrote an id of 80-odd characters the API refuses ("string too long"),
which pi never sends.  The text of an answer goes as one `message` item per text block, with the id OpenAI gave
it (its `textSignature`), and its reasoning as the reasoning item OpenAI gave (its `thinkingSignature`, a JSON
object with its `rs_…` id), so the API's own checks on ids (no id twice in one input) read what pi sends.

An answer of another model (the same provider and API, another model id: pi's transformMessages) is sent without
what only its own model may read: its thinking as text (blank thinking left out, redacted thinking dropped), its
texts without their ids, and its calls with their ids made safe (normalizeToolCallId: `[^a-zA-Z0-9_-]` as `_`,
each part cut to 64 characters, trailing `_` cut) and no item id of `fc_…`; their results name the new id.

Where pi had a bug, the pi that fixed it is modelled: pi up to 0.75 gave a text without an id of its own
`msg_<index of the message>`, which repeated an id OpenAI gave another text ("Duplicate item found with id
msg_4", earendil-works/pi#5147) or the other text block of its own answer (a model's thinking sent as text,
earendil-works/pi#5151); since 0.76 no two items share one, and here such a text has an id no other item has.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .pi_js import made_safe, short_hash

_ROUTES = frozenset({"openai-responses", "azure-responses"})
"""The routes (pi_requests.model_of's prefixes) of the models pi sends Responses requests to."""


def sent_call_id(call_id: str) -> str:
    """The `call_id` pi sends for a call id of its session: the part before `|` (the whole id when it has none)."""
    return call_id.split("|", 1)[0]


def _normalized(call_id: str) -> str:
    """normalizeToolCallId: the id pi gives another model's call when it sends it to an OpenAI Responses model."""
    if "|" not in call_id:
        return call_id
    call, item = call_id.split("|", 1)
    item = item.split("|", 1)[0]
    call, item = made_safe(call), made_safe(item)
    if not item.startswith("fc"):
        item = "fc_" + item
    return call[:64].rstrip("_") + "|" + item[:64].rstrip("_")


def _text_id(signature: Any) -> str | None:
    """The item id a text's `textSignature` holds (parseTextSignature: a JSON `{"v": 1, "id": ...}`, or the id)."""
    if not isinstance(signature, str) or not signature:
        return None
    if signature.startswith("{"):
        try:
            parsed = json.loads(signature)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
            return str(parsed["id"])
    return signature


class _Ids:
    """The ids given to texts that carry none: `msg_<n>`, never one another item of the request has."""

    def __init__(self, messages: Sequence[Any]) -> None:
        self.taken = {text_id for message in messages if isinstance(message, dict)
                      and message.get("role") == "assistant" and isinstance(message.get("content"), list)
                      for block in message["content"] if isinstance(block, dict)
                      and (text_id := _text_id(block.get("textSignature"))) is not None}
        self.next = 0

    def new(self) -> str:
        while f"msg_{self.next}" in self.taken:
            self.next += 1
        self.taken.add(made := f"msg_{self.next}")
        return made


def _same_model(message: dict[str, Any], model: str | None) -> bool:
    """Whether pi sends this answer to the session's model as that model's own (transformMessages' isSameModel):
    its model is that model.  model: the session's, as model_of names it; a route that is not a Responses one (or
    none) means the request is one pi would send after a switch to an OpenAI model, to which no answer is its own."""
    route, _, model_id = (model or "").partition(":")
    return route in _ROUTES and message.get("model") == model_id


def _answer_items(message: dict[str, Any], same: bool, ids: _Ids, renamed: dict[str, str]) -> list[Any]:
    """The input items pi sends for one answer (convertResponsesMessages), in its block order."""
    items: list[Any] = []
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "thinking":
            thinking = block.get("thinking")
            if same and block.get("thinkingSignature"):
                items.append(_reasoning(block["thinkingSignature"]))
            elif not same and not block.get("redacted") and isinstance(thinking, str) and thinking.strip():
                items.append(_message(thinking, ids.new()))
        elif kind == "text":
            text_id = _text_id(block.get("textSignature")) if same else None
            if text_id is not None and len(text_id) > 64:
                text_id = "msg_" + short_hash(text_id)
            items.append(_message(block.get("text"), text_id if text_id is not None else ids.new()))
        elif kind == "toolCall":
            call: Any = block.get("id")
            item_id = ""
            if isinstance(call, str):
                if not same:
                    renamed[call] = call = _normalized(call)
                call, _, item_id = call.partition("|")
            item: dict[str, Any] = {"type": "function_call", "call_id": call, "name": block.get("name"),
                                    "arguments": _stringified(block.get("arguments"))}
            if item_id and (same or not item_id.startswith("fc_")):  # (another model's fc_ id: left out)
                item["id"] = item_id.split("|", 1)[0]
            items.append(item)
    return items


def _stringified(arguments: Any) -> str:
    """JSON.stringify of a call's arguments, as pi sends them."""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def _message(text: Any, item_id: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "status": "completed", "id": item_id,
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _reasoning(signature: Any) -> Any:
    """The reasoning item a thinking block's signature holds (pi sends JSON.parse(signature) as it is)."""
    try:
        return json.loads(signature) if isinstance(signature, str) else signature
    except ValueError:  # pi's JSON.parse throws: it sends nothing; an item without an id stands for the gap
        return {"type": "reasoning", "summary": []}


def responses_request(native: list[Any], sources: list[list[int]], messages: Sequence[Any], model: str | None,
                      provider: str = "openai-responses") -> tuple[list[Any], list[list[int]]]:
    """The Responses input pi sends for the messages written from a session (FormatSpec.sends_as): each answer's
    items and each result's `call_id` as pi writes them; an answer or a user message left with nothing to send
    (an answer pi drops, read empty: pi_requests.as_pi_sends) is left out, as pi's builder leaves it out.  Other
    entries (a user's text, the app's own roles) are sent as written."""
    ids = _Ids(messages)
    renamed: dict[str, str] = {}
    out: list[Any] = []
    out_sources: list[list[int]] = []
    index = 0
    while index < len(native):
        source = sources[index]
        end = index + 1
        while end < len(native) and sources[end] == source:
            end += 1
        message = messages[source[0]] if len(source) == 1 and 0 <= source[0] < len(messages) else None
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant":
            assert isinstance(message, dict)
            written = _answer_items(message, _same_model(message, model), ids, renamed)
        elif role == "toolResult":
            written = [_result_item(entry, renamed) for entry in native[index:end]]
        elif role == "user" and isinstance(message, dict) and message.get("content") == []:
            written = []
        else:
            written = native[index:end]
        out.extend(written)
        out_sources.extend([source] * len(written))
        index = end
    return out, out_sources


def _result_item(entry: Any, renamed: dict[str, str]) -> Any:
    """A result's item with the `call_id` pi sends: its call's, as pi renamed it, before the `|`."""
    written = entry.get("call_id") if isinstance(entry, dict) else None
    if not isinstance(written, str):
        return entry
    sent = sent_call_id(renamed.get(written, written))
    return entry if sent == written else {**entry, "call_id": sent}
