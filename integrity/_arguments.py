"""Type checks at the public entry points that take messages: fail loudly, never "healthy".

A caller who passes a string, an envelope dict or a list with a non-message in it
would otherwise get a confident verdict about something that is not a transcript
(`repair_with_report("hello")` was "healthy: 5 messages").  These checks raise
TypeError naming the first bad element instead; a dict holding a `messages` list
gets a hint to pass that list.  One isinstance per message: cheap next to the
repair itself.

Messages built by hand must also hold only what JSON can: a set, bytes, NaN or
infinity, any other object, or a message that contains itself (a cycle) would be
called healthy and then fail, or be sent as something else, when written.  A walk
over the containers passes plain JSON (about a fifth of a hand-built analyze);
anything it is unsure of goes to the C JSON encoder, and only when that refuses
is the value walked again, to name where.  A transcript read
from bytes (json_typed) holds JSON's types by construction and is not checked.
"""

from __future__ import annotations

import json
import math
from typing import Any

_ENCODER = json.JSONEncoder(allow_nan=False, check_circular=True)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def require_messages(messages: Any, function: str, json_typed: bool = False) -> None:
    """Raise TypeError unless `messages` is a list of message dicts holding JSON values (see the module
    docstring); json_typed: they were decoded from JSON text, so their values are not checked."""
    if not isinstance(messages, list):
        hint = ""
        if isinstance(messages, dict) and isinstance(messages.get("messages"), list):
            hint = "; it looks like a request envelope: pass its ['messages'] list"
        elif isinstance(messages, (str, bytes)):
            hint = "; to read a file's text or bytes use integrity.load(data, name)"
        raise TypeError(f"{function}() takes a list of message dicts, got {type(messages).__name__}{hint}")
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise TypeError(f"{function}() takes a list of message dicts; messages[{index}] is "
                            f"{type(message).__name__} {_shown(message)}, not a message dict")
    if not json_typed:
        require_json(messages, function)


def require_json(messages: list[Any], function: str) -> None:
    """Raise TypeError (a value JSON has no type for) or ValueError (NaN, infinity, a cycle), naming the
    first such value by its path, unless the messages hold only JSON values."""
    if _plain_json(messages):
        return
    try:
        _ENCODER.encode(messages)
    except RecursionError:
        return  # nested past Python's stack: the schema check reports it as a finding
    except (TypeError, ValueError):
        try:
            found = _first_non_json(messages, "messages", set())
        except RecursionError:
            found = None
        if found is None:
            raise ValueError(f"{function}() takes JSON values only; the messages hold a value JSON cannot hold "
                             "(nested too deeply to say where)") from None
        error, where, what = found
        raise error(f"{function}() takes JSON values only; {where} {what}") from None


def _plain_json(messages: list[Any]) -> bool:
    """True when every value is of a JSON type exactly (float finite) and no container is met twice.

    Walks containers, not characters, so it costs about half of encoding the messages; anything else
    (a subclass, a shared or cyclic container, a non-JSON value) is judged by the C encoder.  Only
    containers go on the stack: a scalar (most values) is judged where it is met.
    """
    stack: list[Any] = [messages]
    seen: set[int] = set()
    pop, push, add, finite = stack.pop, stack.append, seen.add, math.isfinite
    while stack:
        container = pop()
        if id(container) in seen:
            return False
        add(id(container))
        for value in container.values() if type(container) is dict else container:
            kind = type(value)
            if kind is str or kind is int or kind is bool or value is None:
                continue
            if kind is dict or kind is list:
                push(value)
            elif kind is not float or not finite(value):
                return False
    return True


def _first_non_json(value: Any, where: str, open_: set[int]) -> tuple[type[Exception], str, str] | None:
    """(error type, path, what is wrong) for the first non-JSON value under `value`; None when all are JSON.

    open_ holds the ids of the containers on the path from the top (a cycle comes back to one of them).
    """
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (ValueError, where, f"is {value!r}, which JSON cannot hold")
    if not isinstance(value, (dict, list, tuple)):
        return TypeError, where, f"is {type(value).__name__} {_shown(value)}, which JSON cannot hold"
    if id(value) in open_:
        return ValueError, where, "refers back to a value that contains it (a cycle)"
    open_.add(id(value))
    if isinstance(value, dict):
        items: Any = ((f"{where}[{key!r}]", item) for key, item in value.items())
    else:
        items = ((f"{where}[{index}]", item) for index, item in enumerate(value))
    for path, item in items:
        found = _first_non_json(item, path, open_)
        if found is not None:
            return found
    open_.discard(id(value))
    return None


def require_transcript(transcript: Any, function: str) -> None:
    """Raise TypeError unless `transcript` is a Transcript whose messages are a list of message dicts."""
    from .loading import Transcript

    if not isinstance(transcript, Transcript):
        hint = " (wrap a list of messages as integrity.Transcript(messages))" if isinstance(transcript, list) else ""
        raise TypeError(f"{function}() takes a Transcript, got {type(transcript).__name__}{hint}; "
                        "integrity.load(data, name) reads one from bytes")
    require_messages(transcript.messages, function, json_typed=transcript.json_typed)
