"""Type checks at the public entry points that take messages: fail loudly, never "healthy".

A caller who passes a string, an envelope dict or a list with a non-message in it
would otherwise get a confident verdict about something that is not a transcript
(`repair_with_report("hello")` was "healthy: 5 messages").  These checks raise
TypeError naming the first bad element instead; a dict holding a `messages` list
gets a hint to pass that list.  One isinstance per message: cheap next to the
repair itself.
"""

from __future__ import annotations

from typing import Any


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def require_messages(messages: Any, function: str) -> None:
    """Raise TypeError unless `messages` is a list of message dicts (see the module docstring)."""
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


def require_transcript(transcript: Any, function: str) -> None:
    """Raise TypeError unless `transcript` is a Transcript whose messages are a list of message dicts."""
    from .loading import Transcript

    if not isinstance(transcript, Transcript):
        hint = " (wrap a list of messages as integrity.Transcript(messages))" if isinstance(transcript, list) else ""
        raise TypeError(f"{function}() takes a Transcript, got {type(transcript).__name__}{hint}; "
                        "integrity.load(data, name) reads one from bytes")
    require_messages(transcript.messages, function)
