"""What pi sends a provider of the answers another model wrote: their call ids as that provider's builder makes
them, their thinking as text (toward Anthropic and Bedrock), and no answer it drops.  What a pi session is judged
on when asked about a provider it does not talk to (`check --provider anthropic` of a Codex session, the
Inspector's provider table), and what a session whose user switched models sends the model it talks to now.

pi (badlogic/pi-mono; pi-ai's transformMessages with each builder's normalizeToolCallId) gives a call of an answer
that is not the request's model's own a new id, and its results that id (a result only after its call):
  Anthropic and Bedrock: every character outside `[a-zA-Z0-9_-]` made `_`, cut to 64 (anthropic.ts,
      amazon-bedrock.ts);
  OpenAI Chat and DeepSeek (openai-completions.ts): a joined `call_…|fc_…` id is its first part made so and cut to
      40; another id toward OpenAI is cut to 40, toward DeepSeek sent as it is;
  Mistral (mistral.ts, its conversations API): the id's letters and digits when they are 9, else the first 9
      letters and digits of pi's shortHash of them (of `<them>:<n>` for the n-th clash in one request).
OpenAI Responses is pi_responses'.  Gemini is sent no id (google-shared.ts, but for the claude- and gpt-oss-
models Google serves); it pairs by turn and count, so the request judged keeps the ids, to name a call in a
finding, and no verdict changes.  Without the new ids a Codex session's 83-character
`call_…|fc_…` ids were judged refused by all five ("String should match pattern", "string too long", "must be a-z,
A-Z, 0-9, with a length of 9"), and repaired by renaming them, though pi sends ids each of them takes.

An answer is the request's model's own when the session talks to that provider and the answer is its model's
(the same rule as pi_responses: asked about a provider the session does not talk to, no answer is its own); its
ids are sent as they are, in the request judged and in the rule on ids the strict view renames by
(FormatSpec.sends_ids), so an id of its own that the provider refuses is still renamed.

Toward OpenAI Chat and Gemini, an answer pi drops (read empty: pi_requests.as_pi_sends) is left out, as their
builders leave out an answer with nothing in it; our writers wrote it as an empty message, which Gemini refuses
("contents.parts must not be empty") and pi never sends.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .pi_js import js_slice, made_safe, short_hash
from .spec import SentIds

_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")
MISTRAL_LENGTH = 9

PROVIDER_OF_ROUTE: dict[str, str] = {
    "anthropic": "anthropic", "bedrock": "bedrock", "openai-chat": "openai-chat", "mistral": "mistral",
    "deepseek": "deepseek", "google-gla": "gemini", "google-vertex": "gemini", "openai-responses": "openai-responses",
    "azure-responses": "openai-responses"}
"""The provider of each route pi_requests.model_of names a session's model by (held to integrity.providers.models
by the tests)."""


def safe_id(call_id: str) -> str:
    """The id pi's Anthropic and Bedrock builders give another model's call."""
    return made_safe(call_id)[:64]


def openai_chat_id(call_id: str) -> str:
    """The id pi's Chat Completions builder gives another model's call toward OpenAI."""
    if "|" in call_id:
        return made_safe(call_id.split("|", 1)[0])[:40]
    return js_slice(call_id, 40)


def deepseek_id(call_id: str) -> str:
    """The id pi's Chat Completions builder gives another model's call toward a provider other than OpenAI."""
    if "|" in call_id:
        return made_safe(call_id.split("|", 1)[0])[:40]
    return call_id


def mistral_id(call_id: str, attempt: int = 0) -> str:
    """pi's deriveMistralToolCallId: the id's letters and digits when they are 9, else 9 of a hash of them."""
    normalized = _NOT_ALNUM.sub("", call_id)
    if attempt == 0 and len(normalized) == MISTRAL_LENGTH:
        return normalized
    seed = normalized or call_id
    return _NOT_ALNUM.sub("", short_hash(seed if attempt == 0 else f"{seed}:{attempt}"))[:MISTRAL_LENGTH]


def _mistral_ids() -> Callable[[str], str]:
    """pi's createMistralToolCallIdNormalizer: one per request, so two ids never get one new id."""
    given: dict[str, str] = {}
    owners: dict[str, str] = {}

    def made(call_id: str) -> str:
        if call_id in given:
            return given[call_id]
        attempt = 0
        while True:
            candidate = mistral_id(call_id, attempt)
            if owners.get(candidate, call_id) == call_id:
                given[call_id], owners[candidate] = candidate, call_id
                return candidate
            attempt += 1

    return made


MADE: dict[str, Callable[[str], str]] = {
    "anthropic": safe_id, "bedrock": safe_id, "openai-chat": openai_chat_id, "deepseek": deepseek_id,
    "mistral": mistral_id}
"""By provider, the id pi sends for another model's call."""


def _sent_ids(provider: str) -> SentIds:
    """The ids pi sends `provider` for a session's calls (FormatSpec.sends_ids): those of its model's own answers as
    they are, every other one made anew (MADE)."""
    make = MADE[provider]

    def for_session(messages: Sequence[Any], model: str | None) -> Callable[[str], str]:
        own = frozenset(part["id"] for message in messages if _own(message, model, provider)
                        and isinstance(message.get("content"), list) for part in message["content"]
                        if isinstance(part, dict) and part.get("type") == "toolCall"
                        and isinstance(part.get("id"), str))
        return make if not own else (lambda call_id: call_id if call_id in own else make(call_id))

    return for_session


SENT_IDS: dict[str, SentIds] = {provider: _sent_ids(provider) for provider in MADE}
"""By provider, the ids pi sends for a session's calls (FormatSpec.sends_ids)."""


def _own(message: Any, model: str | None, provider: str) -> bool:
    """Whether pi sends this answer to `provider` as its model's own (transformMessages' isSameModel): the session
    talks to that provider and the answer is its model's."""
    route, _, model_id = (model or "").partition(":")
    return PROVIDER_OF_ROUTE.get(route) == provider and isinstance(message, dict) and message.get("model") == model_id


def _holders(entry: Any, format: str, calls: bool) -> list[dict[str, Any]]:
    """The objects of an entry that hold a call's id (calls: under _CALL_KEY[format], in an answer) or a result's
    (under _RESULT_KEY[format]): a Chat answer's tool_calls or a tool message, else the tool_use / tool_result
    blocks (Bedrock: the toolUse / toolResult objects) of an assistant / user message's content."""
    if not isinstance(entry, dict):
        return []
    role = entry.get("role")
    if format == "openai-chat":
        if not calls:
            return [entry] if role == "tool" else []
        found = entry.get("tool_calls") if role == "assistant" else None
        return [call for call in found if isinstance(call, dict)] if isinstance(found, list) else []
    content = entry.get("content") if role == ("assistant" if calls else "user") else None
    if not isinstance(content, list):
        return []
    if format == "bedrock":
        key = "toolUse" if calls else "toolResult"
        return [block[key] for block in content if isinstance(block, dict) and isinstance(block.get(key), dict)]
    kind = "tool_use" if calls else "tool_result"
    return [block for block in content if isinstance(block, dict) and block.get("type") == kind]


_CALL_KEY = {"anthropic": "id", "bedrock": "toolUseId", "openai-chat": "id"}
_RESULT_KEY = {"anthropic": "tool_use_id", "bedrock": "toolUseId", "openai-chat": "tool_call_id"}


def _renamed_objects(entry: Any, format: str, found: list[dict[str, Any]], key: str, new: dict[str, str]) -> Any:
    """The entry with each object of `found` whose `key` is in `new` given that id (copied: the written entry may be
    the file's own)."""
    changed = {id(part) for part in found
               if isinstance(part.get(key), str) and new.get(part[key], part[key]) != part[key]}
    if not changed:
        return entry

    def swap(part: Any) -> Any:
        return {**part, key: new[part[key]]} if id(part) in changed else part

    if format == "openai-chat" and entry.get("role") == "tool":
        return swap(entry)
    if format == "openai-chat":
        return {**entry, "tool_calls": [swap(call) for call in entry["tool_calls"]]}
    inner = "toolUse" if entry.get("role") == "assistant" else "toolResult"
    if format == "bedrock":
        return {**entry, "content": [{**block, inner: swap(block[inner])}
                                     if isinstance(block, dict) and id(block.get(inner)) in changed else block
                                     for block in entry["content"]]}
    return {**entry, "content": [swap(block) for block in entry["content"]]}


def with_sent_ids(native: list[Any], sources: list[list[int]], messages: Sequence[Any], model: str | None,
                  provider: str, format: str) -> tuple[list[Any], list[list[int]]]:
    """The request with the ids pi sends `provider` for the calls of answers that are not its model's own, and for
    the results after each such call (format: the request's, one of _CALL_KEY's)."""
    make = _mistral_ids() if provider == "mistral" else MADE.get(provider)
    if make is None:
        return native, sources
    new: dict[str, str] = {}
    out = []
    for entry, source in zip(native, sources, strict=True):
        calls = _holders(entry, format, True)
        if calls and _foreign(source, messages, model, provider):
            for call in calls:
                if isinstance(call.get(_CALL_KEY[format]), str):
                    new[call[_CALL_KEY[format]]] = make(call[_CALL_KEY[format]])
            entry = _renamed_objects(entry, format, calls, _CALL_KEY[format], new)
        elif new:
            results = _holders(entry, format, False)
            if results:
                entry = _renamed_objects(entry, format, results, _RESULT_KEY[format], new)
        out.append(entry)
    return out, sources


def _foreign(source: list[int], messages: Sequence[Any], model: str | None, provider: str) -> bool:
    """Whether a request entry stands for an answer that is not the request's model's own (_own)."""
    return any(0 <= index < len(messages) and isinstance(messages[index], dict)
               and messages[index].get("role") == "assistant" and not _own(messages[index], model, provider)
               for index in source)


def _thinking_as_text(block: Any, format: str) -> Any:
    """A thinking block of another model's answer as pi sends it (transformMessages: its thinking as a text; a
    redacted one left out: None); any other block as it is."""
    if not isinstance(block, dict):
        return block
    if format == "bedrock":
        reasoning = block.get("reasoningContent")
        if not isinstance(reasoning, dict):
            return block
        text = reasoning.get("reasoningText")
        if isinstance(text, dict) and isinstance(text.get("text"), str):
            return {"text": text["text"]}
        return None if "redactedContent" in reasoning else block
    if block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
        return {"type": "text", "text": block["thinking"]}
    return None if block.get("type") == "redacted_thinking" else block


def with_foreign_thinking_as_text(native: list[Any], sources: list[list[int]], messages: Sequence[Any],
                                  model: str | None, provider: str, format: str
                                  ) -> tuple[list[Any], list[list[int]]]:
    """The request with the thinking of each answer that is not its model's own sent as pi sends it: as text, a
    redacted one left out, an answer left with nothing left out (format: anthropic or bedrock).  pi's
    transformMessages does so before its builders run, so another model's signature (a Claude signature, or the
    JSON of an OpenAI reasoning item) never reaches the provider as a thinking block's; its blank thinking the
    builders leave out (pi_requests), so no text here is blank."""
    out: list[Any] = []
    out_sources: list[list[int]] = []
    for entry, source in zip(native, sources, strict=True):
        content = entry.get("content") if isinstance(entry, dict) and entry.get("role") == "assistant" else None
        if isinstance(content, list) and _foreign(source, messages, model, provider):
            blocks = [sent for sent in (_thinking_as_text(block, format) for block in content) if sent is not None]
            if not blocks:
                continue
            if len(blocks) != len(content) or any(new is not old for new, old in zip(blocks, content, strict=True)):
                entry = {**entry, "content": blocks}
        out.append(entry)
        out_sources.append(source)
    return out, out_sources


def _empty_answer(entry: Any, format: str) -> bool:
    """An answer with nothing in it, which pi's Chat and Gemini builders leave out."""
    if not isinstance(entry, dict):
        return False
    if format == "gemini":
        return entry.get("role") == "model" and not entry.get("parts")
    return entry.get("role") == "assistant" and not entry.get("content") and not entry.get("tool_calls")


def without_empty_answers(native: list[Any], sources: list[list[int]], format: str
                          ) -> tuple[list[Any], list[list[int]]]:
    """The request without the answers pi's builder leaves out for having nothing in them (format: openai-chat or
    gemini)."""
    kept = [at for at, entry in enumerate(native) if not _empty_answer(entry, format)]
    if len(kept) == len(native):
        return native, sources
    return [native[at] for at in kept], [sources[at] for at in kept]
