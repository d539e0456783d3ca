"""The quick pass over google.genai Contents read whole, and their key, in one reading.

ADK hands its plugin new Content and Part objects on every model call, and a guard's first call reads
them all twice over: the quick pass (`_fast._walk_gemini_objects`) and, to remember the request, its key
(`_fast._content_key`: each content's role and part count, each part's call and response, and the text,
thought and inline data of the parts holding neither).  `walk_keyed` does both in one pass over the
objects: the pass's rules, written as `_walk_gemini_objects` writes them, with each field the key holds
appended as it is read (every attribute of a Content or Part is read once; reading a pydantic model's
attribute is the cost here, about as much as the pass's own work).  Where the pass stops, the contents left are
read into the key alone.  A whole pass this way costs about what the pass
alone costs, a quarter to a third less than making the key and then reading it column-wise (the column
pass this replaced) or walking the contents after making it.

It answers exactly what `_walk_gemini_objects` answers from a fresh state and leaves the state that pass
leaves, and the key is `_content_key`'s, column for column (None where that raises: not Contents with
parts); a request whose reading raises (an object that is not a Content, parts that are not a list) is
not plainly healthy (`tests/test_guard_fast.py` holds both on generated contents, healthy and broken).
Importing this module registers it with the quick pass (`_fast._KEYED`); the ADK guard does.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from typing import Any

from ._fast import _KEYED, IDLESS, _State, _walk_gemini_objects

_PLAIN_IDS = re.compile(r"[A-Za-z0-9_-]+(?:\n[A-Za-z0-9_-]+)*\Z")
"""Ids joined by newlines, each plain (`_fast._PLAIN_ID`: no id holds a newline)."""

Key = tuple[Any, ...]


def walk_keyed(entries: Sequence[Any], state: _State) -> tuple[bool, Key | None]:
    """(what the quick pass answers for `entries` from the fresh `state`, left as it leaves it; their
    `_content_key`, None when that cannot be made)."""
    columns: tuple[list[Any], ...] = ([], [], [], [], [], [], [])
    stop = _pass(entries, state, *columns)
    seen = state.seen
    known = set(seen)
    if len(known) == len(seen) and (not seen or _PLAIN_IDS.match("\n".join(seen))):
        state.known = known
        if stop < 0:
            return True, (*columns, {})
    else:  # an id not plain or used twice: the pass stops at the first, read again as the pass reads it
        _fresh(state)
        _walk_gemini_objects(entries, 0, state)
        if stop < 0:
            stop = len(entries)
    roles, counts, calls, responses, texts, thoughts, inlines = columns
    del roles[stop:], counts[stop:]  # what the contents before the one the pass stopped at gave
    read = sum(counts)
    del calls[read:], responses[read:]
    plain = list(map(operator.is_, calls, responses)).count(True)
    del texts[plain:], thoughts[plain:], inlines[plain:]
    try:
        _rest(entries, stop, *columns)
    except (AttributeError, TypeError):  # not Contents with parts: `_content_key` fails too
        return False, None
    return False, (*columns, {})


def _rest(entries: Sequence[Any], stop: int, roles: list[Any], counts: list[Any], calls: list[Any],
          responses: list[Any], texts: list[Any], thoughts: list[Any], inlines: list[Any]) -> None:
    """The key's columns of the contents from `stop` on appended, as `_content_key` reads them (a loop, not
    its C loops: the pass stops near the end of a request, at what broke it, and a few contents cost less
    read this way)."""
    for content in entries[stop:]:
        roles.append(content.role)
        parts = content.parts
        counts.append(len(parts))
        for part in parts:
            call, response = part.function_call, part.function_response
            calls.append(call)
            responses.append(response)
            if call is response:
                texts.append(part.text)
                thoughts.append(part.thought)
                inlines.append(part.inline_data)


def _fresh(state: _State) -> None:
    """`state` as a new one for the same target."""
    state.kind, state.seen, state.known, state.cut, state.cut_ids = "", [], set(), 0, 0
    state.open_calls, state.last = None, "system"


def _pass(entries: Sequence[Any], state: _State, roles: list[Any], counts: list[Any], calls: list[Any],
          responses: list[Any], texts: list[Any], thoughts: list[Any], inlines: list[Any]) -> int:
    """The pass with the key's columns appended as it reads: -1 when healthy, else the index of the content
    it stopped at (the columns may hold part of that content: the caller cuts them back)."""
    open_calls, last, kind = state.open_calls, state.last, state.kind
    seen, idless = state.seen, state.idless
    add_seen = seen.append
    add_role, add_count, add_call, add_response = roles.append, counts.append, calls.append, responses.append
    add_text, add_thought, add_inline = texts.append, thoughts.append, inlines.append
    index = 0
    try:
        for index, content in enumerate(entries):
            role = content.role
            parts = content.parts
            if not parts:
                return index
            add_role(role)
            add_count(len(parts))
            if role == "model":
                if open_calls or last not in ("user", "results"):
                    return index
                made: list[str] = []
                for part in parts:
                    call = part.function_call
                    response = part.function_response
                    add_call(call)
                    add_response(response)
                    if call is response:  # neither a call nor a response
                        text, thought, inline = part.text, part.thought, part.inline_data
                        add_text(text)
                        add_thought(thought)
                        add_inline(inline)
                        if isinstance(text, str) and text.strip() and not thought and inline is None:
                            continue
                        return index
                    if call is None:
                        return index  # a response in a model turn
                    call_id = call.id
                    if call_id is None:
                        name = call.name
                        if not isinstance(name, str) or not name or not idless or kind == "id":
                            return index
                        kind = "name"
                        made.append(IDLESS + name)
                        continue
                    if kind == "name" or not isinstance(call_id, str) or not call_id or call_id[0] == IDLESS:
                        return index  # (an id that reads as no id: the full check decides)
                    kind = "id"
                    add_seen(call_id)  # plain and new: checked for every id at once, at the end
                    made.append(call_id)
                open_calls = made or None
                last = "assistant"
                continue
            if role != "user":
                return index
            answered = other = False
            for part in parts:
                call = part.function_call
                response = part.function_response
                add_call(call)
                add_response(response)
                if call is response:
                    text, thought, inline = part.text, part.thought, part.inline_data
                    add_text(text)
                    add_thought(thought)
                    add_inline(inline)
                    if answered or not (isinstance(text, str) and text.strip() and not thought and inline is None):
                        return index
                    other = True
                    continue
                if call is not None:
                    return index
                response_id = response.id
                if response_id is None:
                    name = response.name
                    response_id = IDLESS + name if isinstance(name, str) and name else None
                elif isinstance(response_id, str) and response_id[:1] == IDLESS:
                    return index
                if other or not isinstance(response_id, str):
                    return index
                if not answered and (open_calls is None or last not in ("assistant", "results")):
                    return index
                if not open_calls or response_id != open_calls[0]:
                    return index  # a stray, a duplicate, out of call order, or an earlier turn's
                del open_calls[0]
                answered = True
            if answered:
                last = "results"
                if not open_calls:
                    open_calls = None
                continue
            if open_calls:
                return index
            if last in ("assistant", "results"):  # a user turn after an exchange: a place to cut
                state.cut, state.cut_ids = index, len(seen)
            if last == "user":
                return index
            last = "user"
        return len(entries) if open_calls else -1  # (calls left open: not healthy, every content read)
    except (AttributeError, TypeError):  # not a Content, or parts that are not a list of Parts
        return index
    finally:
        state.open_calls, state.last, state.kind = open_calls, last, kind


_KEYED["gemini-objects"] = walk_keyed
