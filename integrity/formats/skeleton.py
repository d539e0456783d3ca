"""The skeleton of a native request: what the provider rules read, written without the text.

The provider rule sets judge structure, never text: roles, how messages group into native
entries and turns, block and part kinds, call and result ids, positions.  Writing the full
native request (every text, argument and image copied into new dicts, twice: as recorded and
as repaired) was most of `check --provider` on a large file, and every message held as a dict
was most of its memory.  A *skeleton* request has the same entries, in the same order, with
the same roles, block kinds and ids, built from each canonical message's *bones* (its role,
its parts' kinds and call ids, its result id): the rule sets run on it unchanged, so there is
one implementation of each rule, and its verdicts and error texts are the full request's.
`tests/test_skeleton.py` holds that equality on every sample, every real and recorded file
and a generated corpus with every defect kind, for every provider.

A skeleton writer mirrors its format's writer (`integrity.formats.<format>.groups` and
`build`) for canonical messages that carry no native hints of that format: a message read
from the format itself may be written back from its recorded entries, which only the full
writer knows, so `bones_of` notes the format of every message's hints and no skeleton of that
format is written (`providers.canonical.skeleton_once`): the caller writes the full request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..repair.views import STRING_LIMIT as LIMIT
from ..repair.views import (
    blank_text,
    error_content_refused,
    frame_is_interrupted,
    holds_image,
    name_refused,
    texts_length,
)
from .anthropic import CONTENT_ROLES
from .common import NATIVE, OPAQUE, SYSTEM_ROLES, carried, writable
from .openai_chat import finish_entry
from .openai_responses import NAME as RESPONSES
from .openai_responses import OWN_HINTS as RESPONSES_HINTS
from .openai_responses import finish_item

STRING = "string"
"""A message whose content is one string (a user turn written as a plain string)."""


class _Missing:
    """The one MISSING value (a recorded null toolCallId is None, which the writers write)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A toolResult without a toolCallId key (the writers then write no id at all); None is a recorded null."""

Bone = tuple[str, Any, Any, bool]
"""(role, content, result id, interrupted): content is STRING, a tuple of parts (none for a result), or for
an opaque message (format, value); a part is "text", "thinking", "image", (call id, tool name) for a toolCall, or
(OPAQUE, format, value); the result id is a toolResult's toolCallId as recorded (any JSON value), or
MISSING; interrupted: an assistant turn that stopped abnormally (a Responses writer keeps an empty one
visible)."""


def bones_of(message: Any, hinted: set[str]) -> Bone:
    """A canonical message's bones, as every writer sees it (after `writable`).  hinted: gets the format of the
    message's native hints (`_native`; its parts' hints are read only with the message's): a writer of that
    format may use them, so a skeleton of that format cannot stand for its request."""
    message = writable(message)
    _hints(message, hinted)
    role = message["role"]
    if role == OPAQUE:
        return (OPAQUE, (message["format"], message["value"]), MISSING, False)
    content = message.get("content")
    if role in CONTENT_ROLES and _holds_blank_text(content):
        hinted.add(BLANK_TEXT)
    if role != "assistant" and holds_image(content):
        hinted.add(IMAGE)
    if role == "toolResult":
        parts: Any = ()  # no writer reads a result's parts into the skeleton
        if message.get("isError") is True and error_content_refused(content):
            hinted.add(ERROR_CONTENT)
    elif isinstance(content, str):
        parts = STRING
    else:
        found: list[Any] = []
        for part in content:  # a part's hints are read only by the writer of its message's format
            kind = part["type"]
            if kind == "toolCall":
                found.append((part["id"], part["name"]))
                if not isinstance(part.get("arguments", {}), dict):
                    hinted.add(ARGUMENTS_NOT_OBJECT)
                if name_refused(part["name"]):
                    hinted.add(TOOL_NAME)
            elif kind == OPAQUE:
                found.append((OPAQUE, part["format"], part["value"]))
            else:
                found.append(kind)
        parts = tuple(found)
    result = message.get("toolCallId", MISSING) if role == "toolResult" else MISSING
    stopped = role == "assistant" and frame_is_interrupted(message.get("stopReason"), message.get("errorMessage"))
    return (role, parts, result, stopped)


def _arguments_size(value: Any) -> int:
    """The length of `value` written as compact JSON (formats.common.object_arguments_text), or 0 when it cannot be
    above the limit: each string, key or number takes at most 6 characters per character (an escape) and 4 more
    (quotes, a colon, a comma), so the text is at most 10 per unit _strings_length counts, and encoded only past
    that bound."""
    if _strings_length(value) * 10 + 2 <= STRING_LIMIT:
        return 0
    from .common import object_arguments_text

    return len(object_arguments_text(value))


def _strings_length(value: Any) -> int:
    """The characters of every string (keys too) and number in a JSON value, plus one per element: at least half of
    its compact JSON text's length, at most all of it but escapes (_arguments_size)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(len(key) + 1 + _strings_length(item) for key, item in value.items())
    if isinstance(value, list):
        return sum(1 + _strings_length(item) for item in value)
    return len(str(value))


BLANK_TEXT = "blank text"
"""What `hinted` gets for a user or assistant message with a blank text (repair.views.blank_text: a string
content, or a text part): a skeleton writes no text, so none of the formats whose providers' empty-content rules
read it (BLANK_FORMATS) stands for the request (the full request is judged).  No format has this name."""

BLANK_FORMATS = frozenset({"anthropic", "bedrock"})
"""The request formats of the providers with empty-content rules (ProviderSpec.blank_text):
tests/test_blank_text_repair.py holds that every such provider's format is here."""


ARGUMENTS_NOT_OBJECT = "arguments not an object"
"""What `hinted` gets for a message with a call whose arguments are not a JSON object: a skeleton carries no
arguments, so none of the formats whose providers judge them (ARGUMENTS_FORMATS) stands for the request (the full
request is judged).  No format has this name."""

ARGUMENTS_FORMATS = frozenset({"anthropic"})
"""The request formats whose providers refuse a call's arguments that are not an object (Anthropic's
tool_use_input_not_object: its writer sends the arguments as they are)."""


ERROR_CONTENT = "error result content"
"""What `hinted` gets for an error result (isError) whose content is empty or holds a part that is not text: a
skeleton carries no result content, so none of the formats whose providers judge it (ERROR_CONTENT_FORMATS)
stands for the request (the full request is judged).  No format has this name."""

ERROR_CONTENT_FORMATS = frozenset({"anthropic", "bedrock"})
"""The request formats whose providers refuse an error result's content that is empty or not all text
(Anthropic's error_result_empty and error_result_not_text, and Bedrock's)."""


LONG_STRING = "string above a limit"
"""What `hinted` gets for a message whose content may be written with a string above a provider's limit
(providers.strings: OpenAI's 10,485,760 characters): a skeleton writes no text, so none of the formats whose
providers judge it (STRING_LIMIT_FORMATS) stands for the request (the full request is judged).  No format has
this name."""

LONG_READ = "strings read"
"""What `hinted` gets once read_long_strings has read its messages' texts (whether or not it found LONG_STRING).
No format has this name."""

STRING_LIMIT_FORMATS = frozenset({"openai-chat", "openai-responses"})
"""The request formats of the providers that refuse a string above a limit (providers.strings)."""

STRING_LIMIT = LIMIT
"""repair.views.STRING_LIMIT (providers.strings.LIMIT): the longest string a provider of STRING_LIMIT_FORMATS
takes."""


IMAGE = "image sent"
"""What `hinted` gets for a user, system or result message holding an image a writer sends (repair.views.
holds_image): a skeleton writes no image, so none of the formats whose providers judge images (IMAGE_FORMATS)
stands for the request (the full request is judged).  No format has this name."""

IMAGE_FORMATS = frozenset({"openai-chat"})
"""The request formats whose providers judge the images a message holds: OpenAI refuses one outside a user message
(image_not_user), DeepSeek any image part (content_part_not_text)."""


TOOL_NAME = "tool name refused"
"""What `hinted` gets for a message with a call whose name a provider refuses (repair.views.name_refused): a
skeleton carries every call's name (its writers write them where the providers' rules read them: Anthropic's and
Chat's), but the light view, which the sparse judgment reads, holds no rule on names, and the windowed proofs do
not read them: the request is judged on its bones, and the turns holding such a name in windows
(providers.windowed.judge_windowed's names).  No format has this name."""


def _holds_blank_text(content: Any) -> bool:
    """Whether a message's content is a blank string or holds a text part whose text is blank."""
    if isinstance(content, str):
        return blank_text(content)
    return isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        and blank_text(part["text"]) for part in content)


def _hints(item: dict[str, Any], hinted: set[str]) -> None:
    native = item.get(NATIVE)
    if native is not None:
        hinted.add(hint_format(native))
        if isinstance(native, dict) and native.get("in_order"):  # Anthropic's writer keeps its order: no
            hinted.add("anthropic")  # Anthropic skeleton (its calls last) stands for it


def hint_format(native: Any) -> str:
    """The format a message's native hints are for ("" when they name none: no skeleton stands for it)."""
    found = native.get("format") if isinstance(native, dict) else None
    return found if isinstance(found, str) else ""


def renamed(bone: Bone, ids: Mapping[int, str], calls_last: bool = False,
            names: Mapping[int, str] | None = None) -> Bone:
    """The bones of `repair.messages.rewrite_message` of a message whose call ids are all strings (the fast path
    holds no other): call position -> new id, or {-1: new toolCallId}; calls_last: its calls after its other
    parts; names: call position -> new tool name; arguments are no bones."""
    role, parts, result, stopped = bone
    if -1 in ids:
        return (role, parts, ids[-1], stopped)
    if parts is STRING:
        return bone
    out = []
    calls = []
    position = 0
    for part in parts:
        if type(part) is tuple and part[0] != OPAQUE:  # a call: (id, name)
            if position in ids:
                part = (ids[position], part[1])
            if names and position in names:
                part = (part[0], names[position])
            position += 1
            if calls_last:
                calls.append(part)
                continue
        out.append(part)
    return (role, tuple(out + calls), result, stopped)


_HINTS_OF: dict[str, str] = {hint: RESPONSES for hint in RESPONSES_HINTS if hint != RESPONSES}
"""Formats whose messages carry another format's hints (a Codex rollout's are the Responses reader's)."""


def _sent_by_runtime(hinted: set[str]) -> set[str]:
    """The provider formats whose requests a runtime builds for messages with hints of these formats
    (FormatSpec.sends_as: Claude Code's session toward Anthropic, a pi session's toward Anthropic, Bedrock and
    OpenAI Responses).
    The registry, which imports every format, is read only when a hint names a format that is no provider's
    request format (a session format's reader, which the registry ran): a pi-ai file judged on the fast path
    imports neither (tests/test_lazy_imports.py)."""
    global _RUNTIMES
    names = hinted.difference(SKELETONS, MARKS)
    if not names:
        return set()
    if _RUNTIMES is None:
        from .registry import FORMAT_SPECS

        _RUNTIMES = {name: frozenset(spec.sends_as) for name, spec in FORMAT_SPECS.items() if spec.sends_as}
    return {sent for name in names for sent in _RUNTIMES.get(name, ())}


_RUNTIMES: dict[str, frozenset[str]] | None = None
MARKS = (BLANK_TEXT, ARGUMENTS_NOT_OBJECT, ERROR_CONTENT, TOOL_NAME, LONG_STRING, LONG_READ, IMAGE)
"""The marks `hinted` may hold besides formats' names."""


def stands_for(hinted: set[str], formats: str | set[str]) -> bool:
    """Whether skeletons of these formats stand for the requests of messages whose hints are of `hinted`
    (all_bones): not when a message carries hints of one of them (or of a format that carries theirs:
    _HINTS_OF), or hints naming no format."""
    if "" in hinted:
        return False
    if BLANK_TEXT in hinted:
        hinted = hinted | BLANK_FORMATS
    if ARGUMENTS_NOT_OBJECT in hinted:
        hinted = hinted | ARGUMENTS_FORMATS
    if ERROR_CONTENT in hinted:
        hinted = hinted | ERROR_CONTENT_FORMATS
    if LONG_STRING in hinted:
        hinted = hinted | STRING_LIMIT_FORMATS
    if IMAGE in hinted:
        hinted = hinted | IMAGE_FORMATS
    if not hinted.isdisjoint(_HINTS_OF):
        hinted = hinted | {_HINTS_OF[hint] for hint in hinted if hint in _HINTS_OF}
    sent = _sent_by_runtime(hinted)  # (a runtime's session: only to_native writes the request it sends)
    if sent:
        hinted = hinted | sent
    return formats not in hinted if isinstance(formats, str) else not hinted & formats


def all_bones(messages: Sequence[Any]) -> tuple[list[Bone], set[str]]:
    """Every message's bones, and the formats whose hints they carry (see bones_of)."""
    hinted: set[str] = set()
    return [bones_of(message, hinted) for message in messages], hinted


def read_long_strings(messages: Sequence[Any], hinted: set[str], formats: str | set[str]) -> None:
    """hinted gets LONG_STRING when a message may be written with a string above a provider's limit
    (may_hold_long_string): asked only when one of `formats` is of such a provider (STRING_LIMIT_FORMATS), once
    per hinted set (LONG_READ), since reading every text costs some 20% of the bones' time."""
    wanted = {formats} if isinstance(formats, str) else formats
    if LONG_READ in hinted or wanted.isdisjoint(STRING_LIMIT_FORMATS):
        return
    hinted.add(LONG_READ)
    if may_hold_long_string(messages):
        hinted.add(LONG_STRING)


def may_hold_long_string(messages: Sequence[Any]) -> bool:
    """Whether a canonical message may be written with a string above a provider's limit (STRING_LIMIT), message
    by message (_may_be_long: C-level passes over every message's texts cost twice as much here)."""
    return any(isinstance(message, dict) and _may_be_long(message.get("content")) for message in messages)


def _may_be_long(content: Any) -> bool:
    """Whether one message's content may be written with a string above the limit: its texts as the joining writers
    send them (views.texts_length, what the view's cut measures too), or one call's arguments as the compact JSON
    its writers send (formats.common.object_arguments_text).  An image's data and a thought are no string the
    limit is judged on."""
    if texts_length(content) > STRING_LIMIT:
        return True
    for part in content if isinstance(content, list) else ():
        arguments = part.get("arguments") if isinstance(part, dict) else None
        if arguments and (len(arguments) if isinstance(arguments, str) else _arguments_size(arguments)) > STRING_LIMIT:
            return True
    return False


Written = tuple[list[Any], list[list[int]]]
"""(the skeleton's native entries, per entry the canonical messages written into it)."""

# Shared blocks: the rules only read them, and a skeleton of a million messages allocates none of these.
_TEXT = {"type": "text"}
_BEDROCK_TEXT = {"text": "text"}  # (not blank: Bedrock refuses a blank one, and a skeleton stands only without any)
_BEDROCK_THINKING: dict[str, Any] = {"reasoningContent": {}}
_BEDROCK_IMAGE: dict[str, Any] = {"image": {}}
_GEMINI_TEXT = {"text": ""}
_INPUT: dict[str, Any] = {}  # (a call's input: the writer always writes one, an object unless ARGUMENTS_NOT_OBJECT)
_GEMINI_THOUGHT = {"thought": True, "text": ""}
_GEMINI_IMAGE: dict[str, Any] = {"inlineData": {}}
_SIGNED = "signed"  # (a call's thought signature, as the Gemini writer gives one of another format)
_REASONING = {"type": "reasoning"}
_OUTPUT_MESSAGE = {"type": "message", "role": "assistant"}
_ROLE = {role: {"role": role} for role in ("user", "assistant", *SYSTEM_ROLES)}  # an entry without ids, shared
_INCOMPLETE = {"type": "message", "role": "assistant", "status": "incomplete", "content": []}


def _result_runs(bones: Sequence[Bone], format: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each group `result_groups` makes for messages without hints: a run of results is one
    group, every other message its own; system messages and other formats' opaque messages are left out."""
    index, total = 0, len(bones)
    while index < total:
        role, content = bones[index][0], bones[index][1]
        if role in SYSTEM_ROLES or (role == OPAQUE and content[0] != format):
            index += 1
            continue
        start = index
        index += 1
        if role == "toolResult":
            while index < total and bones[index][0] == "toolResult":
                index += 1
        yield start, index


class _Grouped:
    """How one of the formats that send a run of results as one user entry (Anthropic, Bedrock, Gemini) writes
    a skeleton: what each part kind becomes (None: left out), a call part, a run of results, and the entry
    around a message's blocks.  `write` is their one grouping (each format's `result_groups` and `build`)."""

    def __init__(self, format: str, kinds: Mapping[str, Any], call: Callable[[str, Any], Any],
                 results: Callable[[Sequence[Bone]], Any], entry: Callable[[str, Any], Any],
                 string: Callable[[str], Any], calls_last: bool = False) -> None:
        self.format, self.kinds, self.call, self.results, self.entry, self.string = \
            format, kinds, call, results, entry, string
        self.calls_last = calls_last  # the writer puts a message's calls after its other blocks (Anthropic's)

    def write(self, bones: Sequence[Bone]) -> Written:
        native: list[Any] = []
        sources: list[list[int]] = []
        shared: dict[Any, Any] = {}
        for start, end in _result_runs(bones, self.format):
            role, content = bones[start][0], bones[start][1]
            if role == "toolResult":
                native.append(self.results(bones[start:end]))
                sources.append(list(range(start, end)))
                continue
            native.append(content[1] if role == OPAQUE else _shared(shared, role, content, self.message))
            sources.append([start])
        return native, sources

    def message(self, role: str, content: Any) -> Any:
        """The entry of one message (not a result): a string content is one block of text."""
        if content is STRING:
            return self.string(role)
        blocks: list[Any] = []
        calls = [] if self.calls_last else blocks
        for part in content:
            if type(part) is str:
                block = self.kinds[part]
                if block is not None:
                    blocks.append(block)
            elif part[0] == OPAQUE:
                block = carried(part[1], part[2], self.format)
                if block is not None:
                    blocks.append(block)
            elif role == "assistant":  # a user's call part is not written
                calls.append(self.call(part[0], part[1]))
        return self.entry(role, blocks + calls if self.calls_last else blocks)


def _shared(shared: dict[Any, Any], role: str, content: Any, build: Callable[[str, Any], Any]) -> Any:
    """build(role, content), one entry for every message of the same role and part kinds when they hold no
    id (most of a transcript: user turns, answers): the rules only read it, and a million messages then
    allocate a few dozen entries instead of a million."""
    if content is not STRING and not all(type(part) is str for part in content):
        return build(role, content)
    key = (role, content)
    found = shared.get(key)
    if found is None:
        found = shared[key] = build(role, content)
    return found


def _gemini_id(call_id: Any) -> dict[str, Any]:
    """Gemini's writer names a call or response by id only when the id is a non-empty string."""
    return {"id": call_id} if type(call_id) is str and call_id else {}


_ANTHROPIC = _Grouped(  # integrity.formats.anthropic: text, thinking and images one block each (writable
    # kept images with data); results first in one user message, system hoisted
    "anthropic", {"text": _TEXT, "thinking": _TEXT, "image": _TEXT},
    lambda call_id, name: {"type": "tool_use", "id": call_id, "name": name, "input": _INPUT},
    lambda run: {"role": "user", "content": [{"type": "tool_result"} if bone[2] is MISSING else
                                             {"type": "tool_result", "tool_use_id": bone[2]} for bone in run]},
    lambda role, blocks: {"role": role, "content": blocks},
    lambda role: {"role": role, "content": [_TEXT]}, calls_last=True)  # (anthropic.assistant_out; a string
# content is one text block, of a text that is not blank: a blank one's request is not written as a skeleton)

_BEDROCK = _Grouped(  # integrity.formats.bedrock: Converse blocks, thinking as reasoningContent (images kept with
    # their data, as bones hold them)
    "bedrock", {"text": _BEDROCK_TEXT, "thinking": _BEDROCK_THINKING, "image": _BEDROCK_IMAGE},
    lambda call_id, name: {"toolUse": {"toolUseId": call_id, "name": name}},
    lambda run: {"role": "user", "content": [{"toolResult": {}} if bone[2] is MISSING else
                                             {"toolResult": {"toolUseId": bone[2]}} for bone in run]},
    lambda role, blocks: {"role": "assistant" if role == "assistant" else "user", "content": blocks},
    lambda role: {"role": "assistant" if role == "assistant" else "user", "content": [_BEDROCK_TEXT]})

_GEMINI = _Grouped(  # integrity.formats.gemini: a run of results is one user turn of responses
    "gemini", {"text": _GEMINI_TEXT, "thinking": _GEMINI_THOUGHT, "image": _GEMINI_IMAGE},
    lambda call_id, name: {"functionCall": _gemini_id(call_id), "thoughtSignature": _SIGNED},  # (a call of another
    # format is written signed: formats.gemini.build; a skeleton never stands for a Gemini request's own)
    lambda run: {"role": "user", "parts": [{"functionResponse": _gemini_id(bone[2])} for bone in run]},
    lambda role, parts: {"role": "model" if role == "assistant" else "user", "parts": parts},
    lambda role: {"role": "model" if role == "assistant" else "user", "parts": [_GEMINI_TEXT]})


def _chat(bones: Sequence[Bone]) -> Written:
    """integrity.formats.openai_chat's groups, build and finish: one Chat message per canonical message."""
    native: list[Any] = []
    sources: list[list[int]] = []
    for index, (role, content, result_id, _) in enumerate(bones):
        if role == OPAQUE:
            if content[0] != "openai-chat":
                continue
            native.append(finish_entry(content[1]))  # as the writer's finish sends it (never `tool_calls: []`)
        elif role == "assistant":
            calls = [{"id": part[0], "type": "function", "function": {"name": part[1]}} for part in content
                     if type(part) is tuple and part[0] != OPAQUE] if content is not STRING else []
            native.append({"role": role, "tool_calls": calls} if calls else _CHAT_ROLE.get(role)
                          or {"role": role, "content": ""})
        elif role == "toolResult":
            native.append({"role": "tool", "content": ""} if result_id is MISSING else
                          {"role": "tool", "tool_call_id": result_id, "content": ""})
        else:
            native.append(_CHAT_ROLE.get(role) or {"role": role, "content": ""})
        sources.append([index])
    return native, sources


_CHAT_ROLE = {role: {"role": role, "content": ""} for role in ("user", "assistant", *SYSTEM_ROLES)}
"""A Chat message without calls, shared: the writer always writes its content (a string, or parts), which the skeleton
writes as an empty text (OpenAI refuses a message without content: providers.openai_chat.CONTENT_NULL)."""


def _responses(bones: Sequence[Bone]) -> Written:
    """integrity.formats.openai_responses's groups and build: an assistant message is one item per run of
    text and one per other part; an interrupted empty turn is an incomplete message item."""
    native: list[Any] = []
    sources: list[list[int]] = []
    for index, (role, content, result_id, stopped) in enumerate(bones):
        if role == OPAQUE:
            if content[0] == "openai-responses":
                native.append(finish_item(content[1]))  # as the writer's finish sends it (no foreign item id)
                sources.append([index])
            continue
        if role == "toolResult":
            native.append({"type": "function_call_output"} if result_id is MISSING else
                          {"type": "function_call_output", "call_id": result_id})
            sources.append([index])
        elif role == "assistant":
            items: list[Any] = []
            in_text = False
            for part in content if content is not STRING else ("text",):
                if part == "text":
                    if not in_text:
                        items.append(_OUTPUT_MESSAGE)
                        in_text = True
                    continue
                in_text = False
                if part == "thinking":
                    items.append(_REASONING)
                elif type(part) is str:
                    continue  # an image: no Responses item
                elif part[0] == OPAQUE:
                    if part[1] == "openai-responses":
                        items.append(finish_item(part[2]))
                else:
                    items.append({"type": "function_call", "call_id": part[0]})
            if not items and stopped:
                items.append(_INCOMPLETE)
            for item in items:
                native.append(item)
                sources.append([index])
        else:
            native.append(_ROLE.get(role) or {"role": role})
            sources.append([index])
    return native, sources


def responses_items(bone: Bone) -> tuple[int, tuple[int, ...]]:
    """How many Responses items a message (without hints) is written as, and where its calls' items sit among
    them, in call order: a request's items are placed from these (providers.sparse_items) without writing it."""
    native, _ = _responses([bone])
    return len(native), tuple(at for at, item in enumerate(native) if item.get("type") == "function_call")


SKELETONS: dict[str, Callable[[Sequence[Bone]], Written]] = {
    "anthropic": _ANTHROPIC.write,
    "bedrock": _BEDROCK.write,
    "gemini": _GEMINI.write,
    "openai-chat": _chat,
    "openai-responses": _responses,
}
"""Each native format's skeleton writer (every provider's native format has one)."""
