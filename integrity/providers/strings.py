"""OpenAI's limit on one string of a request: 10,485,760 characters (10 MiB), whatever the field.

A tool that read a large file, a pasted log or an image sent as base64 text puts one string above it in the
history, and the API refuses every later request of the session with 400 `string_above_max_length`:
"Invalid 'messages[5].content': string too long. Expected a string with maximum length 10485760, but got a string
with length 11818940 instead." (Chat Completions; the Responses API names `input[4].output`,
`input[0].content[1].text`: quoted in openai/codex reports and in the tests of several clients that cap tool
output below it).  Judged on the strings the history is written with: a message's text content and text parts,
a call's arguments, a tool output and its text parts.  Length is counted in characters, as Python counts them
(code points; whether the API counts UTF-16 units is not on record: only the two differ for text outside the
Basic Multilingual Plane).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain, compress, repeat
from operator import is_
from typing import Any

from ..repair.views import STRING_LIMIT
from .violation import Violation

LIMIT = STRING_LIMIT
"""The longest string the API takes in a request (characters): the light view's (repair.views.STRING_LIMIT), which
the layers below the providers read too."""

TOO_LONG = (
    "Invalid '{param}': string too long. Expected a string with maximum length 10485760, "
    "but got a string with length {length} instead."
)


def _parts(parts: Any, where: str) -> Iterator[tuple[str, int]]:
    if isinstance(parts, str):
        if len(parts) > LIMIT:
            yield where, len(parts)
    elif isinstance(parts, list):
        for position, part in enumerate(parts):
            text = part.get("text") if isinstance(part, dict) else None
            if isinstance(text, str) and len(text) > LIMIT:
                yield f"{where}[{position}].text", len(text)


def _chat(message: dict[str, Any], index: int) -> Iterator[tuple[str, int]]:
    yield from _parts(message.get("content"), f"messages[{index}].content")
    calls = message.get("tool_calls")
    for position, call in enumerate(calls if isinstance(calls, list) else ()):
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if isinstance(arguments, str) and len(arguments) > LIMIT:
            yield f"messages[{index}].tool_calls[{position}].function.arguments", len(arguments)


def _responses(item: dict[str, Any], index: int) -> Iterator[tuple[str, int]]:
    yield from _parts(item.get("content"), f"input[{index}].content")
    yield from _parts(item.get("output"), f"input[{index}].output")
    arguments = item.get("arguments")
    if isinstance(arguments, str) and len(arguments) > LIMIT:
        yield f"input[{index}].arguments", len(arguments)


def long_strings(messages: Sequence[Any], provider: str, key: str) -> list[Violation]:
    """Every string of the request above LIMIT, at the param the API names (key: "messages" for Chat
    Completions, "input" for Responses).  The fields that hold text are read by C-level passes first (longest):
    a message is walked in Python only when one of them is that long, as almost no request has."""
    if longest(messages, key) <= LIMIT:
        return []
    read = _chat if key == "messages" else _responses
    found: list[Violation] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        for param, length in read(message, index):
            found.append(Violation(provider=provider, rule="string_too_long", position=param,
                                   native_indices=[index], error=TOO_LONG.format(param=param, length=length)))
    return found


_GET = dict.get


def _dicts(values: list[Any]) -> bool:
    return not set(map(type, values)) - {dict}


def _of(values: list[Any], kind: type) -> list[Any]:
    return list(compress(values, map(is_, map(type, values), repeat(kind))))


def _strings_and_parts(values: list[Any]) -> tuple[int, list[Any]]:
    """The longest string among these values, and the parts of those that are lists."""
    top = max(map(len, _of(values, str)), default=0)
    return top, list(chain.from_iterable(_of(values, list)))


def longest(messages: Sequence[Any], key: str) -> int:
    """The length of the longest text-holding string of the request (LIMIT + 1 when a field is not of the shape
    these passes read: the caller then walks every message)."""
    messages = list(messages)
    if not _dicts(messages):
        return LIMIT + 1
    top, parts = _strings_and_parts(list(map(_GET, messages, repeat("content"))))
    if key == "messages":
        calls = list(chain.from_iterable(_of(list(map(_GET, messages, repeat("tool_calls"))), list)))
        if not _dicts(calls):
            return LIMIT + 1
        functions = _of(list(map(_GET, calls, repeat("function"))), dict)
        arguments = list(map(_GET, functions, repeat("arguments")))
    else:
        outputs, more = _strings_and_parts(list(map(_GET, messages, repeat("output"))))
        top, parts = max(top, outputs), parts + more
        arguments = list(map(_GET, messages, repeat("arguments")))
    if not _dicts(parts):
        return LIMIT + 1
    texts = list(map(_GET, parts, repeat("text")))
    return max(top, max(map(len, _of(texts, str)), default=0), max(map(len, _of(arguments, str)), default=0))
