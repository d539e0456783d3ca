"""How pi turns one of its sessions into the request it sends: the model it talks to, and what its request
builders leave out.

pi (badlogic/pi-mono) sends a session to the session's current model: the last `model_change` entry or answer on
the branch (its session-manager's buildSessionContext reads the model so; openclaw records the one it runs with in
a `model-snapshot` custom entry), through that model's API.  Before it builds a provider's request it drops every
answer that ended in an error or was aborted (pi-ai's transformMessages); the Anthropic and Bedrock builders then
leave out blank text and thinking blocks and the messages left empty (their convertMessages; the Anthropic one also
a user's blank texts, and it sends a thinking block without its signature as text).  A session judged as the file
lists it would be refused for those, which pi never sends: `sends_as` writes the request as pi sends it, and the
reader reads an answer pi drops as what pi sends of it, nothing (as_pi_sends), so no repair relies on it.

Toward OpenAI Responses (OpenAI's, Codex's and Azure's), pi's request is modelled in pi_responses: the joined
`call_…|fc_…` id of an OpenAI call sent apart, and the items OpenAI gave.  What pi does to the answers of another
model is modelled toward Anthropic, Bedrock and Responses: their call ids (pi_foreign: the ids each provider's
builder makes; pi_responses toward Responses), their thinking sent as text and a redacted one left out
(pi_foreign.with_foreign_thinking_as_text; pi_responses), and the answers it drops; so a session whose user switched
models is judged by the model it talks to now (model_of), as pi sends it the other models' answers.  A call left without
its result pi answers as it sends with an error result "No result provided" when a message follows it
(sent_messages): the request is judged with it, and the call is still reported as having no result of its own.
Toward OpenAI Chat, pi sends a tool result's images in a user message right after it, and a model that takes no
image (DeepSeek's) none (_images_after_results): OpenAI takes an image from a user message alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..repair.views import is_blank_js
from .common import call_parts, text_part, tool_result
from .pi_foreign import SENT_IDS, with_foreign_thinking_as_text, with_sent_ids, without_empty_answers
from .pi_responses import responses_request, sent_call_id
from .spec import SendsAs, SentIds, from_entries

_ROUTES: dict[tuple[str, str], str] = {
    ("anthropic", "anthropic-messages"): "anthropic",
    ("amazon-bedrock", "bedrock-converse-stream"): "bedrock",
    ("openai", "openai-responses"): "openai-responses",
    ("openai", "openai-completions"): "openai-chat",
    ("openai-codex", "openai-codex-responses"): "openai-responses",
    ("azure-openai-responses", "azure-openai-responses"): "azure-responses",
    ("google", "google-generative-ai"): "google-gla",
    ("google-vertex", "google-vertex"): "google-vertex",
    ("mistral", "openai-completions"): "mistral",
    ("deepseek", "openai-completions"): "deepseek",
}
"""(pi's provider, the API pi calls it through) -> the prefix naming such a model in integrity.providers.models'
words ("anthropic:claude-sonnet-4-5", "openai-responses:gpt-5").  A provider pi reaches through a proxy or a
gateway (OpenRouter, GitHub Copilot, Vercel's gateway, Gemini CLI's and Antigravity's endpoints), or an API pi was
told to use for a provider otherwise, names no provider whose rules we know."""

_DEFAULT_API = {"anthropic": "anthropic-messages", "amazon-bedrock": "bedrock-converse-stream",
                "openai": "openai-responses", "openai-codex": "openai-codex-responses",
                "azure-openai-responses": "azure-openai-responses", "google": "google-generative-ai",
                "google-vertex": "google-vertex", "mistral": "openai-completions", "deepseek": "openai-completions"}
"""The API pi's model registry gives each provider's models, for a `model_change` naming a model no answer of the
branch was written by (a model_change names no API)."""

LEFT_OUT = frozenset({"error", "aborted"})
"""The stop reasons of the answers pi's transformMessages drops before every request."""


def model_of(entries: Sequence[Any]) -> str | None:
    """The model pi sends a branch of a session to (the branch's entries), as "route:model", or None when the
    branch names none, or the model is reached through a provider whose rules we do not know.  Answers another
    model wrote (the user switched models) are sent to it as pi rewrites them (pi_foreign, pi_responses: their
    call ids, their thinking as text), so they name no other model.  A name that is not a string names nothing (pi
    writes strings; a damaged file must get a verdict, not a crash)."""
    current: tuple[str | None, str | None, str | None] | None = None
    writers: dict[str, str | None] = {}  # provider -> the API its last answer kept went through
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        if kind == "model_change":
            current = (_text(entry.get("provider")), _text(entry.get("modelId")), None)
        elif kind == "custom" and entry.get("customType") == "model-snapshot" and isinstance(entry.get("data"), dict):
            data = entry["data"]
            current = (_text(data.get("provider")), _text(data.get("modelId")), _text(data.get("modelApi")))
        elif kind == "message" and isinstance(message := entry.get("message"), dict) \
                and message.get("role") == "assistant" and (by := _text(message.get("provider"))) \
                and (model := _text(message.get("model"))):
            current = (by, model, _text(message.get("api")))
            if not left_out(message):
                writers[by] = current[2]
    if current is None:
        return None
    provider, model, api = current
    if api is None and provider is not None:
        api = writers.get(provider) or _DEFAULT_API.get(provider)
    route = _ROUTES.get((provider, api)) if provider is not None and api is not None else None
    return f"{route}:{model}" if route is not None and model is not None else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def left_out(message: dict[str, Any]) -> bool:
    """Whether pi's transformMessages drops this answer before every request (it ended in an error or was
    aborted); a stop reason that is not a string is no such reason."""
    return _text(message.get("stopReason")) in LEFT_OUT


NO_RESULT = "No result provided"
"""The text of the error result pi sends for a call left without its result (transformMessages)."""


def sent_messages(messages: Sequence[Any]) -> tuple[list[Any], list[int]] | None:
    """The messages pi sends of a session (FormatSpec.sends_messages), each with the index of the message it stands
    for; None when it sends them as they are.

    Before every request pi's transformMessages answers each call of an answer that no result after it answers by
    the time the next answer or user message comes: an error result "No result provided" right there (a result
    that comes later is sent too, after that message, as it stands).  A call at the end of the session is not
    answered so (its request ends with the call: the runtime is still running it).  An answer pi drops (read
    empty: as_pi_sends) still ends the calls before it and has none of its own.  A session whose call was left
    alone (the user typed on, or the answer after it was aborted) was judged refused, which pi never sends; its
    call is still reported as having no result of its own, which is what the view answers."""
    pending: list[dict[str, Any]] = []
    answered: set[str] = set()
    out: list[Any] | None = None
    origin: list[int] = []
    at = -1
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role in ("assistant", "user") and pending:
            missing = [call for call in pending if call["id"] not in answered]
            if missing:
                if out is None:
                    out, origin = list(messages[:index]), list(range(index))
                out.extend(_no_result(call, messages[at]) for call in missing)
                origin.extend([at] * len(missing))
            pending = []
        if role == "assistant" and not left_out(message):
            calls = call_parts(message)
            if calls:
                pending, answered, at = calls, set(), index
        elif role == "toolResult" and isinstance(message.get("toolCallId"), str):
            answered.add(message["toolCallId"])
        if out is not None:
            out.append(message)
            origin.append(index)
    return (out, origin) if out is not None else None


def _no_result(call: dict[str, Any], answer: Any) -> dict[str, Any]:
    made = tool_result(call["id"], call.get("name"), [text_part(NO_RESULT)], True)
    if isinstance(answer, dict) and isinstance(answer.get("timestamp"), (int, float)):
        made["timestamp"] = answer["timestamp"]
    return made


def as_pi_sends(message: dict[str, Any]) -> dict[str, Any]:
    """A message of a session as the engine reads it: an answer pi never sends again (it ended in an error or was
    aborted, perhaps while a call streamed) with nothing in it, which is what pi sends of it.  pi runs no tool of
    such an answer and drops it before every request, so a call in it is never answered and never needs to be, and
    its partial text never sits between two turns.  Read as they were, the repair answered such calls and kept such
    texts, and pi, dropping the answer, sent the answers without their calls ("unexpected `tool_use_id`") or two
    user turns in a row (Bedrock: "must alternate").  Read so, the answer is an interrupted frame, which the view
    leaves out as pi does.  The entry is written back as it was whenever the message is (the reader reads it the
    same way again); the durable file keeps what it holds."""
    if message.get("role") != "assistant" or not left_out(message) \
            or message.get("content") == []:
        return message
    return {**message, "content": []}


def held_otherwise(entry: Any) -> tuple[Any, str] | None:
    """(the message as the file holds it, why it is read otherwise) for a session entry whose answer pi leaves out
    of every request and the reader reads empty (as_pi_sends); None for every other entry.  A screen shows what the
    file holds with the reason, where the message read would show an empty answer."""
    message = entry.get("message") if isinstance(entry, dict) and entry.get("type") == "message" else None
    if not isinstance(message, dict) or as_pi_sends(message) is message:
        return None
    content = message.get("content")
    count = len(content) if isinstance(content, list) else 1
    how = "was aborted" if message.get("stopReason") == "aborted" else "ended in an error"
    return message, (f"pi leaves an answer that {how} out of every request, so it is read empty: the file holds "
                     f"{count} block(s) that no model is ever sent")


def _sent(native: list[Any], sources: list[list[int]], shaped: Callable[[Any], Any]) \
        -> tuple[list[Any], list[list[int]]]:
    """The entries pi sends of a request written for a session, each as `shaped` sends it (None: left out; the
    entry itself when it sends it as written).  An answer pi drops is read empty (as_pi_sends), so its entry, with
    no block, is left out here as pi's builders leave out every empty answer."""
    out: list[Any] = []
    out_sources: list[list[int]] = []
    for entry, source in zip(native, sources, strict=True):
        sent = shaped(entry)
        if sent is not None:
            out.append(sent)
            out_sources.append(source)
    return out, out_sources


def _kept(entry: dict[str, Any], dropped: Callable[[Any], bool], swapped: Callable[[Any], Any]) -> Any:
    """The entry with the blocks `dropped` picks left out and each other block as `swapped` sends it; None when
    no block is left, the entry itself when nothing changes."""
    content = entry.get("content")
    if isinstance(content, str):
        return None if is_blank_js(content) else entry
    if not isinstance(content, list):
        return entry
    blocks = [swapped(block) for block in content if not dropped(block)]
    if not blocks:
        return None
    same = len(blocks) == len(content) and all(new is old for new, old in zip(blocks, content, strict=True))
    return entry if same else {**entry, "content": blocks}


def _blank_anthropic(block: Any) -> bool:
    """A text or thinking block pi's Anthropic builder leaves out: its text of whitespace alone."""
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    text = block.get("text") if kind == "text" else block.get("thinking") if kind == "thinking" else None
    return isinstance(text, str) and is_blank_js(text)


def _unsigned_as_text(block: Any) -> Any:
    """A thinking block without a signature, as pi's Anthropic builder sends it: as text."""
    if isinstance(block, dict) and block.get("type") == "thinking" and isinstance(block.get("thinking"), str) \
            and not (isinstance(block.get("signature"), str) and not is_blank_js(block["signature"])):
        return {"type": "text", "text": block["thinking"]}
    return block


def _anthropic_entry(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return entry
    if entry.get("role") == "assistant":
        return _kept(entry, _blank_anthropic, _unsigned_as_text)
    if entry.get("role") == "user":
        return _kept(entry, lambda block: isinstance(block, dict) and block.get("type") == "text"
                     and _blank_anthropic(block), lambda block: block)
    return entry


def _blank_converse(block: Any) -> bool:
    """A text or reasoning block pi's Bedrock builder leaves out: its text of whitespace alone."""
    if not isinstance(block, dict):
        return False
    if isinstance(block.get("text"), str):
        return is_blank_js(block["text"])
    reasoning = block.get("reasoningContent")
    text = reasoning.get("reasoningText") if isinstance(reasoning, dict) else None
    return isinstance(text, dict) and isinstance(text.get("text"), str) and is_blank_js(text["text"])


def _bedrock_entry(entry: Any) -> Any:
    if isinstance(entry, dict) and entry.get("role") == "assistant":
        return _kept(entry, _blank_converse, lambda block: block)
    return entry


def anthropic_request(native: list[Any], sources: list[list[int]]) -> tuple[list[Any], list[list[int]]]:
    """The Anthropic Messages request pi sends for the messages written from a session (FormatSpec.sends_as)."""
    return _sent(native, sources, _anthropic_entry)


def bedrock_request(native: list[Any], sources: list[list[int]]) -> tuple[list[Any], list[list[int]]]:
    """The Bedrock Converse request pi sends for the messages written from a session (FormatSpec.sends_as)."""
    return _sent(native, sources, _bedrock_entry)


def _with_ids(shaped: Callable[[list[Any], list[list[int]]], tuple[list[Any], list[list[int]]]], format: str
              ) -> SendsAs:
    """The request pi sends a provider of `format`: `shaped`'s, with the ids pi gives another model's calls
    (pi_foreign.with_sent_ids)."""
    def sends(native: list[Any], sources: list[list[int]], messages: Sequence[Any], model: str | None,
              provider: str) -> tuple[list[Any], list[list[int]]]:
        native, sources = shaped(native, sources)
        if format in ("anthropic", "bedrock"):
            native, sources = with_foreign_thinking_as_text(native, sources, messages, model, provider, format)
        return with_sent_ids(native, sources, messages, model, provider, format)

    return sends


def _chat_request(native: list[Any], sources: list[list[int]]) -> tuple[list[Any], list[list[int]]]:
    return without_empty_answers(native, sources, "openai-chat")


def _chat_sends(native: list[Any], sources: list[list[int]], messages: Sequence[Any], model: str | None,
                provider: str) -> tuple[list[Any], list[list[int]]]:
    """The OpenAI Chat request pi sends: _chat_request's, its images sent as pi-ai's builder sends them to the
    provider (_images_after_results), with the ids pi gives another model's calls."""
    native, sources = _CHAT_IDS(native, sources, messages, model, provider)
    return _images_after_results(native, sources, provider not in TEXT_ONLY)


TEXT_ONLY = frozenset({"deepseek"})
"""The providers of OpenAI Chat requests whose models take no image (pi's model registry gives every DeepSeek model
`input: ["text"]`): pi sends them none."""


ATTACHED = "Attached image(s) from tool result:"
"""The text of the user message pi's OpenAI Chat builder sends a tool result's images in, right after it."""

SEE_ATTACHED = "(see attached image)"
"""The text pi sends a tool result of images alone with (pi-ai's getAttachmentPlaceholder)."""


OMITTED = "(image attachment omitted: not supported by model)"
"""The text pi sends a tool result of images alone with to a model that takes no image."""


def _images_after_results(native: list[Any], sources: list[list[int]], sends_images: bool
                          ) -> tuple[list[Any], list[list[int]]]:
    """pi's OpenAI Chat builder (pi-ai's openai-completions convertMessages) sends a tool result's texts joined in
    its `tool` message (SEE_ATTACHED when it has none) and its images in a user message right after it (ATTACHED,
    then the images): OpenAI takes images from a user message alone.  The user message stands for the result's
    own message.  To a model that takes no image (sends_images False) it sends none: a user message without its
    images (none at all when nothing is left), a result of images alone with OMITTED."""
    if not any(map(_images_of, native)):
        return native, sources
    out: list[Any] = []
    placed: list[list[int]] = []
    for entry, source in zip(native, sources, strict=True):
        images = _images_of(entry)
        if not images:
            out.append(entry)
            placed.append(source)
            continue
        kept = [part for part in entry["content"] if not (isinstance(part, dict) and part.get("type") == "image_url")]
        if entry.get("role") == "user":
            if sends_images:
                out.append(entry)
                placed.append(source)
            elif kept:
                out.append({**entry, "content": kept})
                placed.append(source)
            continue
        joined = "\n".join(part["text"] for part in kept if isinstance(part, dict) and part.get("type") == "text"
                           and isinstance(part.get("text"), str))
        out.append({**entry, "content": joined or (SEE_ATTACHED if sends_images else OMITTED)})
        placed.append(source)
        if sends_images:
            out.append({"role": "user", "content": [text_part(ATTACHED), *images]})
            placed.append(source)
    return out, placed


def _images_of(entry: Any) -> list[Any]:
    """The image parts of a Chat `tool` or user message written for a pi message (its writer's image_url parts)."""
    if not isinstance(entry, dict) or entry.get("role") not in ("tool", "user") \
            or not isinstance(entry.get("content"), list):
        return []
    return [part for part in entry["content"] if isinstance(part, dict) and part.get("type") == "image_url"]


def _gemini_request(native: list[Any], sources: list[list[int]]) -> tuple[list[Any], list[list[int]]]:
    return without_empty_answers(native, sources, "gemini")


_CHAT_IDS = _with_ids(_chat_request, "openai-chat")

SENDS_AS: dict[str, SendsAs] = {"anthropic": _with_ids(anthropic_request, "anthropic"),
                                 "bedrock": _with_ids(bedrock_request, "bedrock"),
                                 "openai-responses": responses_request,
                                 "openai-chat": _chat_sends,
                                 "gemini": from_entries(_gemini_request)}
"""The provider formats whose requests pi builds as modelled here (and in pi_responses, pi_foreign)."""
JUDGED = frozenset({"anthropic", "bedrock", "openai-responses"})
"""The provider formats a session on a model of theirs is judged toward by default (FormatSpec.model_decides): pi's
builders toward OpenAI Chat (its compat switches per model: a user turn after results, a result's name, thinking
as text) and Gemini (thought signatures per model) are not all modelled, so a session on such a model is judged
by the universal invariants unless that provider is asked."""
SENDS_IDS: dict[str, SentIds] = {"openai-responses": lambda messages, model: sent_call_id,
                                  "deepseek-responses": lambda messages, model: sent_call_id, **SENT_IDS}
"""By provider, the call ids pi sends where they are not its session's (FormatSpec.sends_ids)."""
