"""What the quick pass holds a request to besides its shape: the target's limit on one string and its rule on tool
names.  A request that may break either is not plainly healthy, and the full check decides it.

OpenAI refuses a request holding one string above 10,485,760 characters (providers.strings: string_too_long), and
the full check cuts such a text in the view it sends (a `text_cut` repair).  OpenAI Chat refuses a history call's
tool name of characters outside a-zA-Z0-9_- or longer than 64, Anthropic one longer than 200, both an empty one
(ProviderSpec.tool_names), and the full check sends such a name made legal (`tool_name`).  The quick pass
(integrity.guards._fast) reads ids and roles, not text or names, so before these bounds it let such requests through
as healthy: the guard sent what `check` calls rejected, and the provider answered 400 on every later call of the
session (a Gemini tool `web.search` in a history an ADK agent then sends to GPT through LiteLLM).  So were two more
the quick pass did not read: toward Anthropic (and Bedrock) an error result holding no text (a tool that failed
with a screenshot: "all content must be type `text` if `is_error` is true"), and a Chat or Responses call whose
arguments are JSON text that is no object (Anthropic's `input` must be one).

The string bound is on what the full check could write, whatever the runtime's shape: every string of an entry
(keys too), every scalar and every container, walked through dicts, lists, tuples and objects' fields (a LangChain
message, a google.genai Content, a pydantic-ai part).  A writer may join an entry's texts into one string or write
a structured value as JSON, whose escapes make a character at most 12 (an astral character with ASCII escapes:
\\ud83d\\ude00); so an entry whose measure, times 12, stays within the limit cannot hold a string the target
refuses, and any other entry (about 870,000 characters and more) is left to the full check, which decides exactly.
The names are read where each format the quick pass reads keeps a call's: a Chat call's function, a Responses
function_call item, an Anthropic tool_use block, a Gemini functionCall part, a LangChain call, a google.genai
FunctionCall, a pydantic-ai ToolCallPart.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

WIDEST = 12
"""The most characters JSON writes for one character of a string (an astral character as two \\u escapes)."""
SCALAR = 32
"""What a number, a boolean or null may take written (a float's repr is at most 24 characters)."""
MOST_NODES = 100_000
"""Values read in one entry before it is left to the full check (an object graph no message has)."""


Bound = Callable[[Sequence[Any]], bool]
"""A request's entries -> whether one of them may break a bound of the target (then the full check decides)."""
OBJECT_INPUT = frozenset({"anthropic", "bedrock"})
"""The native formats whose calls carry their arguments as an object (`input`): a call recorded with arguments of
JSON text that is no object (`[1, 2]`) is refused there, and the strict view sends {} (views.invalid_arguments)."""


@functools.cache
def bound_for(target: str | None, format: str) -> Bound | None:
    """What the quick pass holds a request to for `target` (its ProviderSpec.tool_names, error_text_only and
    string_limit, and the object its native format's calls carry), or with no target for the provider the
    request's format implies, as the full check judges it (plain_id's rule); None when none applies, so a target
    without them pays nothing."""
    from ..providers import SPECS

    spec = SPECS.get(target if target is not None else format)
    if spec is None:
        return None
    rule = spec.tool_names
    legal = None
    if rule is not None:
        chars = f"[{rule.chars}]" if rule.chars is not None else "."
        legal = re.compile(rf"{chars}{{1,{rule.limit}}}\Z", re.DOTALL).match
    objects = spec.native_format in OBJECT_INPUT and format in ("openai-chat", "openai-responses")
    checks: list[Callable[[Any], bool]] = []
    if legal is not None or objects:
        checks.append(functools.partial(refused_call, legal=legal, objects=objects))
    if spec.error_text_only:
        checks.append(refused_error)
    if spec.string_limit is not None:
        checks.append(functools.partial(oversized, budget=spec.string_limit // WIDEST))
    if not checks:
        return None
    if len(checks) == 1:
        [check] = checks
        return lambda entries: any(map(check, entries))
    return lambda entries: any(check(entry) for entry in entries for check in checks)


def refused_call(entry: Any, legal: Callable[[str], Any] | None, objects: bool) -> bool:
    """Whether a call of the entry has a tool name `legal` does not match (or no name), or (objects) arguments of
    text that does not start an object."""
    for name, arguments in calls_of(entry):
        if legal is not None and (type(name) is not str or legal(name) is None):
            return True
        if objects and type(arguments) is str and not arguments.lstrip().startswith("{"):
            return True
    return False


def refused_error(entry: Any) -> bool:
    """Whether the entry holds an error result whose content a provider taking text alone there refuses (none, or a
    part that is not text: views.error_content_refused): an Anthropic tool_result with is_error, a LangChain
    ToolMessage whose status is "error"."""
    if type(entry) is dict:
        data = entry.get("data")
        if type(data) is dict and entry.get("type") == "tool":  # a LangChain message as messages_to_dict writes it
            return data.get("status") == "error" and _not_text(data.get("content"))
        content = entry.get("content")
        return type(content) is list and any(
            type(block) is dict and block.get("type") == "tool_result" and block.get("is_error") is True
            and _not_text(block.get("content")) for block in content)
    return getattr(entry, "type", None) == "tool" and getattr(entry, "status", None) == "error" \
        and _not_text(getattr(entry, "content", None))


def _not_text(content: Any) -> bool:
    """Content that is no text, or none (a list of anything but text blocks, or an empty one)."""
    if type(content) is str:
        return not content
    return type(content) is not list or not content or any(
        type(part) is not dict or part.get("type") != "text" for part in content)


def calls_of(entry: Any) -> Iterator[tuple[Any, Any]]:
    """(tool name, arguments) of each call an entry holds, in any format the quick pass reads (see the module)."""
    if type(entry) is dict:
        data = entry.get("data")
        if type(data) is dict and entry.get("type") == "ai":  # a LangChain message as messages_to_dict writes it
            entry = data
        calls = entry.get("tool_calls")
        if type(calls) is list:
            for call in calls:
                if type(call) is dict:
                    function = call.get("function")
                    if type(function) is dict:
                        yield function.get("name"), function.get("arguments")
                    else:
                        yield call.get("name"), call.get("args")
        if entry.get("type") == "function_call":
            yield entry.get("name"), entry.get("arguments")
        content = entry.get("content")
        if type(content) is list:
            for block in content:
                if type(block) is dict and block.get("type") == "tool_use":
                    yield block.get("name"), block.get("input")
        parts = entry.get("parts")
        if type(parts) is list:
            for part in parts:
                call = part.get("functionCall") if type(part) is dict else None
                if type(call) is dict:
                    yield call.get("name"), call.get("args")
        return
    parts = getattr(entry, "parts", None)  # a google.genai Content, a pydantic-ai ModelResponse
    if parts is None:
        for call in getattr(entry, "tool_calls", None) or ():  # a LangChain AIMessage: its calls are dicts
            if isinstance(call, dict):
                yield call.get("name"), call.get("args")
            else:
                yield getattr(call, "name", None), getattr(call, "args", None)
    else:
        for part in parts:
            call = getattr(part, "function_call", None)
            if call is not None:
                yield getattr(call, "name", None), getattr(call, "args", None)
            elif getattr(part, "part_kind", None) == "tool-call":
                yield getattr(part, "tool_name", None), getattr(part, "args", None)


def oversized(entry: Any, budget: int) -> bool:
    """Whether the entry's measure (its strings' characters, with SCALAR per other value and two per container
    and string) passes `budget`; it stops reading as soon as it does."""
    total = 0
    nodes = 0
    stack = [entry]
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
        elif isinstance(value, str):  # a str Enum (a role), a str subclass
            total += len(value) + 2
        elif isinstance(value, (bytes, bytearray)):  # inline data, written as base64 (4 characters for 3 bytes)
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
