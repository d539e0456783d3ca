"""What the quick pass holds a request to besides its shape: the target's limit on one string, its rule on tool
names, the object its calls' arguments must be, and the text its error results must hold.  A request that may
break one is not plainly healthy, and the full check decides it.

OpenAI refuses a request holding one string above 10,485,760 characters (providers.strings: string_too_long), and
the full check cuts such a text in the view it sends (a `text_cut` repair).  OpenAI Chat refuses a history call's
tool name of characters outside a-zA-Z0-9_- or longer than 64, Anthropic one longer than 200, both an empty one
(ProviderSpec.tool_names), and the full check sends such a name made legal (`tool_name`).  Anthropic refuses an
error result holding no text (a tool that failed with a screenshot: ProviderSpec.error_text_only) and a call whose
`input` is no object (Chat or Responses arguments of JSON text such as `[1, 2]`).  The quick pass
(integrity.guards._fast) reads ids and roles, so before these bounds it let such requests through as healthy: the
guard sent what `check` calls rejected, and the provider answered 400 on every later call of the session (a Gemini
tool `web.search` in a history an ADK agent then sends to GPT through LiteLLM).

Each format the quick pass reads has its reading here, of the fields a writer sends as those strings: a message's
text content and text parts (joined, as a writer may join them), a call's name and arguments, a result's content.
A structured value a writer sends as JSON text (a Gemini call's args, an Anthropic `input`, a LangChain call's
args, a non-text tool return) is measured whole (its strings, keys, scalars and containers) times 12, JSON's widest
escape (an astral character as \\ud83d\\ude00): within the limit so, it cannot write a string the target refuses;
past it (about 870,000 characters) the full check decides exactly.  Images are not measured (the full check judges
no image data against the limit).  The reading runs once per pass, over the entries the pass reads, and not at all
toward a target with no such rule.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

WIDEST = 12
"""The most characters JSON writes for one character of a string (an astral character as two \\u escapes)."""
SCALAR = 32
"""What a number, a boolean or null may take written (a float's repr is at most 24 characters)."""
MOST_NODES = 100_000
"""Values read in one structured value before it is left to the full check (an object graph no message has)."""
OBJECT_INPUT = frozenset({"anthropic", "bedrock"})
"""The native formats whose calls carry their arguments as an object (`input`): a call recorded with arguments of
JSON text that is no object is refused there, and the strict view sends {} (views.invalid_arguments)."""

Bound = Callable[[Sequence[Any]], bool]
"""A request's entries -> whether one of them may break a bound of the target (then the full check decides)."""


class Rules(NamedTuple):
    """A target's bounds: `legal` matches a tool name it takes (None: any); `objects`: string arguments must start
    an object; `errors`: an error result must hold text; `limit`: the longest string (None: no limit); `images`: a
    tool result (or a system message) must hold no image (ProviderSpec.images_from_user_only: the full check sends
    its images in a user message after the results)."""

    legal: Callable[[str], Any] | None
    objects: bool
    errors: bool
    limit: int | None
    images: bool = False


_IMAGE_TYPES = ("image", "image_url", "input_image")
"""The `type` of an image part in the formats the quick pass reads (Anthropic's, LangChain's and pi's `image`,
Chat's `image_url`, Responses' `input_image`)."""


def _holds_image(content: Any) -> bool:
    """Whether a content list holds an image part (_IMAGE_TYPES)."""
    return type(content) is list and any(type(part) is dict and part.get("type") in _IMAGE_TYPES for part in content)


@functools.cache
def bound_for(target: str | None, format: str) -> Bound | None:
    """What the quick pass holds a request of `format` to for `target`, or with no target for the provider the
    request's format implies, as the full check judges it (plain_id's rule); None when no rule applies (so such a
    target pays nothing) or the format has no reading here."""
    from ..providers import SPECS

    spec = SPECS.get(target if target is not None else format)
    read = _READINGS.get(format)
    if spec is None or read is None:
        return None
    legal = None
    if spec.tool_names is not None:
        chars = f"[{spec.tool_names.chars}]" if spec.tool_names.chars is not None else "."
        legal = re.compile(rf"{chars}{{1,{spec.tool_names.limit}}}\Z", re.DOTALL).match
    rules = Rules(legal, spec.native_format in OBJECT_INPUT and format in ("openai-chat", "openai-responses"),
                  spec.error_text_only, spec.string_limit, spec.images_from_user_only)
    if rules.legal is None and not rules.objects and not rules.errors and rules.limit is None and not rules.images:
        return None
    return functools.partial(read, rules=rules)


def _call_refused(name: Any, arguments: Any, rules: Rules) -> bool:
    """Whether a call's tool name or arguments may break the target's rules (every reading's calls come here)."""
    legal = rules.legal
    if legal is not None and (type(name) is not str or legal(name) is None):
        return True
    return (rules.limit is not None or rules.objects) and _arguments_refused(arguments, rules)


def _arguments_refused(arguments: Any, rules: Rules) -> bool:
    """Arguments the target may refuse: text above the limit, or (objects) text that does not start an object; a
    structured value whose JSON may pass the limit."""
    if type(arguments) is str:
        if rules.limit is None and not rules.objects:
            return False
        return (rules.limit is not None and len(arguments) > rules.limit) or (
            rules.objects and not arguments.lstrip().startswith("{"))
    return rules.limit is not None and arguments is not None and oversized(arguments, rules.limit // WIDEST)


def _text_over(content: Any, limit: int | None) -> bool:
    """Whether a content's text may pass the limit as a writer sends it: a string, or its text parts joined (each
    part's `text`, or the part itself when a string); another value is measured as JSON."""
    if limit is None or content is None:
        return False
    if type(content) is str:
        return len(content) > limit
    if type(content) is list:
        total = len(content)
        for part in content:
            if type(part) is dict:
                text = part.get("text")
                if type(text) is str:
                    total += len(text)
            elif type(part) is str:
                total += len(part)
        return total > limit
    return oversized(content, limit // WIDEST)


def _error_without_text(content: Any) -> bool:
    """An error result's content a provider taking text alone there refuses (views.error_content_refused): none,
    an empty text, or a part that is not a text block."""
    if type(content) is str:
        return not content
    return type(content) is not list or not content or any(
        type(part) is not dict or part.get("type") != "text" for part in content)


def _chat(entries: Sequence[Any], rules: Rules) -> bool:
    limit = rules.limit
    for message in entries:
        if type(message) is not dict:
            continue  # (the pass refuses it)
        if rules.images and message.get("role") in ("tool", "system") and _holds_image(message.get("content")):
            return True
        if limit is not None:
            content = message.get("content")
            if (len(content) > limit) if type(content) is str else _text_over(content, limit):
                return True
        calls = message.get("tool_calls")
        if calls and type(calls) is list:
            for call in calls:
                function = call.get("function") if type(call) is dict else None
                if type(function) is dict and _call_refused(function.get("name"), function.get("arguments"), rules):
                    return True
    return False


def _responses(entries: Sequence[Any], rules: Rules) -> bool:
    limit = rules.limit
    for item in entries:
        if type(item) is not dict:
            continue
        kind = item.get("type")
        if kind == "function_call":
            if _call_refused(item.get("name"), item.get("arguments"), rules):
                return True
        elif rules.images and kind == "function_call_output" and _holds_image(item.get("output")):
            return True
        elif limit is not None:
            text = item.get("output") if kind == "function_call_output" else item.get("content")
            if (len(text) > limit) if type(text) is str else _text_over(text, limit):
                return True
    return False


def _anthropic(entries: Sequence[Any], rules: Rules) -> bool:
    limit = rules.limit
    for message in entries:
        content = message.get("content") if type(message) is dict else None
        if type(content) is str:
            if limit is not None and len(content) > limit:
                return True
            continue
        if type(content) is not list:
            continue
        total = len(content)
        for block in content:
            if type(block) is not dict:
                continue
            kind = block.get("type")
            if kind == "tool_use":
                if _call_refused(block.get("name"), block.get("input"), rules):
                    return True
            elif kind == "tool_result":
                result = block.get("content")
                if (rules.errors and block.get("is_error") is True and _error_without_text(result)) \
                        or _text_over(result, limit) or (rules.images and _holds_image(result)):
                    return True
            elif limit is not None:
                text = block.get("text") if kind == "text" else block.get("thinking") if kind == "thinking" else None
                if type(text) is str:
                    total += len(text)
        if limit is not None and total > limit:
            return True
    return False


def _langchain_dicts(entries: Sequence[Any], rules: Rules) -> bool:
    """LangChain messages as messages_to_dict writes them ({"type": ..., "data": {...}})."""
    limit = rules.limit
    for entry in entries:
        data = entry.get("data") if type(entry) is dict else None
        if type(data) is not dict:
            continue
        kind, content = entry.get("type"), data.get("content")
        if limit is not None and _text_over(content, limit):
            return True
        if kind == "ai" and _calls_refused(data.get("tool_calls"), rules):
            return True
        if kind == "tool" and ((rules.errors and data.get("status") == "error" and _error_without_text(content))
                               or (rules.images and _holds_image(content))):
            return True
    return False


def _langchain_objects(entries: Sequence[Any], rules: Rules) -> bool:
    """LangChain message objects, each read by the attributes its kind has and the rules need (an attribute of a
    pydantic model costs about 0.1 us, a missing one a pydantic error)."""
    limit = rules.limit
    calls = rules.legal is not None or rules.objects or limit is not None
    try:
        for message in entries:
            kind = message.type
            if limit is not None and _text_over(message.content, limit):
                return True
            if kind == "ai":
                if calls and _calls_refused(message.tool_calls, rules):
                    return True
            elif kind == "tool" and ((rules.errors and message.status == "error"
                                      and _error_without_text(message.content))
                                     or (rules.images and _holds_image(message.content))):
                return True
    except AttributeError:
        return False  # (not LangChain messages: the pass refuses them)
    return False


def _calls_refused(calls: Any, rules: Rules) -> bool:
    """Whether a LangChain call (a dict of name, args and id) has a name or arguments the target refuses."""
    for call in calls or ():
        if type(call) is dict and _call_refused(call.get("name"), call.get("args"), rules):
            return True
    return False


def _gemini_dict_parts(content: Any) -> Iterator[tuple[str, Any, Any]]:
    """A Gemini content's parts as dicts, each as ("call", name, args), ("response", payload, None) or ("text", text,
    None); nothing for what is not a content of parts (the pass refuses it)."""
    parts = content.get("parts") if type(content) is dict else None
    for part in parts if type(parts) is list else ():
        if type(part) is not dict:
            continue
        call, response = part.get("functionCall"), part.get("functionResponse")
        if type(call) is dict:
            yield "call", call.get("name"), call.get("args")
        elif type(response) is dict:
            yield "response", response.get("response"), None
        elif part.get("inlineData") is not None or part.get("inline_data") is not None:
            yield "image", None, None
        else:
            yield "text", part.get("text"), None


def _gemini_object_parts(content: Any) -> Iterator[tuple[str, Any, Any]]:
    """_gemini_dict_parts of a google.genai Content (ADK's requests), read by its parts' attributes."""
    for part in content.parts or ():
        call, response = part.function_call, part.function_response
        if call is not None:
            yield "call", call.name, call.args
        elif response is not None:
            yield "response", response.response, None
        elif part.inline_data is not None:
            yield "image", None, None
        else:
            yield "text", part.text, None


def _gemini_reading(parts_of: Callable[[Any], Iterator[tuple[str, Any, Any]]]) -> Callable[..., bool]:
    """The reading of Gemini contents whose parts `parts_of` lists: each call's name and args, each response's
    payload, and a content's texts joined."""
    def read(entries: Sequence[Any], rules: Rules) -> bool:
        limit = rules.limit
        try:
            for content in entries:
                total = 0
                answers = pictured = False
                for kind, value, args in parts_of(content):
                    total += 1
                    if kind == "call":
                        if _call_refused(value, args, rules):
                            return True
                    elif kind == "response":
                        answers = True
                        if limit is not None and oversized(value, limit // WIDEST):
                            return True
                    elif kind == "image":
                        pictured = True
                    elif type(value) is str:
                        total += len(value)
                if limit is not None and total > limit or (rules.images and answers and pictured):
                    return True
        except AttributeError:
            return False  # (not Contents: the pass refuses them)
        return False

    return read


def _pydantic_ai(entries: Sequence[Any], rules: Rules) -> bool:
    """pydantic-ai ModelMessages, read by their parts' kinds."""
    limit = rules.limit
    for message in entries:
        for part in getattr(message, "parts", None) or ():
            kind = getattr(part, "part_kind", None)
            if kind == "tool-call":
                if _call_refused(part.tool_name, part.args, rules):
                    return True
            elif limit is not None and _text_over(getattr(part, "content", None), limit):
                return True
    return False


_READINGS: dict[str, Callable[..., bool]] = {
    "openai-chat": _chat, "openai-responses": _responses, "anthropic": _anthropic,
    "gemini": _gemini_reading(_gemini_dict_parts), "gemini-objects": _gemini_reading(_gemini_object_parts),
    "langchain": _langchain_dicts, "langchain-objects": _langchain_objects,
    "pydantic-ai": _pydantic_ai, "pydantic-ai-objects": _pydantic_ai}
"""Each format the quick pass reads -> its reading of the bounds (bound_for)."""


def oversized(value: Any, budget: int) -> bool:
    """Whether a structured value's measure (its strings' characters, with SCALAR per other value and two per
    container and string) passes `budget`; it stops reading as soon as it does."""
    total = 0
    nodes = 0
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        value = pop()
        nodes += 1
        kind = type(value)
        if kind is str:
            total += len(value) + 2
        elif kind is dict:
            total += 2 + sum(len(key) + 4 if type(key) is str else SCALAR for key in value)
            extend(value.values())
        elif kind is list or kind is tuple:
            total += 2 + len(value)
            extend(value)
        elif value is None or kind is bool or kind is int or kind is float:
            total += SCALAR
        elif isinstance(value, str):  # a str Enum, a str subclass
            total += len(value) + 2
        elif isinstance(value, (bytes, bytearray)):  # written as base64 (4 characters for 3 bytes)
            total += 2 * len(value) + 2
        elif isinstance(value, (int, float)):
            total += SCALAR
        else:
            fields = getattr(value, "__dict__", None)  # a model's or a dataclass's fields (a class's is no dict)
            if type(fields) is dict:
                total += 2 + sum(len(key) + 4 for key in fields)
                extend(fields.values())
            else:
                slots = getattr(type(value), "__slots__", ())
                extend(getattr(value, name, None) for name in ((slots,) if isinstance(slots, str) else slots))
                total += SCALAR
        if total > budget or nodes > MOST_NODES:
            return True
    return False
