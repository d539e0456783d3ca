"""The guards' direct repair of the common broken histories, on the runtime's own entries.

Almost every broken request a guard sees is broken in one of a few ways: a tool call left without its
result (a tool that raised after the call was stored, an interrupted run), a result whose call is not
in the request (a stray), or the same call answered twice.  For those, the strict policy's repair is
known: each call turn is followed by its results in call order, the first real result of each call
kept, the interrupted receipt for a call without one, strays and repeated results dropped; every other
entry stays as it is.  `native_repair` writes that answer straight from the runtime's entries (the
entries after the quick pass's cut: everything before it is plainly healthy), without reading the
request into the engine's form, planning, rating and writing it back: the few hundred microseconds of
fixed cost that made a guard's first repair slower than the runtimes' own sanitizers.

It answers only when every entry of the part it reads has a shape the quick pass knows
(`integrity.guards._fast`: plain ids, new in the request; arguments that are a JSON object; turns in
the order the quick pass accepts) and the defects are only the ones above, laid out simply (in formats
that group results in one message, Anthropic's and Gemini's, a results message is kept whole or
dropped whole, and a call turn is either answered by one message in call order or not at all).
Anything else answers None and the guard runs the one pipeline, which decides.  The guard takes this
path only when nothing asks for the engine's report (mode "repair", no on_report, its log line not
logged); `tests/test_guard_native.py` holds its answer equal to the full pipeline's on generated
histories, in every format and for every target the quick pass serves.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ..repair.messages import strict_placeholder_text
from ._fast import _IDLESS_TARGETS, _READERS, FAST_TARGETS, IDLESS, plain_id

_TEXT = strict_placeholder_text()
"""The strict receipt's text: the engine's own (one fact, one place)."""

Call = tuple[str, str]
"""(id, name) of one call; an id starting with IDLESS is a Gemini call without one (see _fast)."""


class _Bail(Exception):
    """A shape the direct repair does not answer: the full pipeline decides."""


def _refuse(name: str) -> Any:
    raise ValueError(name)


def _text_arguments(raw: Any) -> None:
    """Arguments sent as JSON text must be a JSON object (else the strict view rewrites the call)."""
    if not isinstance(raw, str):
        raise _Bail
    if raw.strip() in ("", "{}"):
        return
    try:
        parsed = json.loads(raw, parse_constant=_refuse)
    except (ValueError, RecursionError):
        raise _Bail from None
    if not isinstance(parsed, dict):
        raise _Bail


def _object_arguments(value: Any) -> None:
    if value is not None and not isinstance(value, dict):
        raise _Bail


def _name(value: Any) -> str:
    if not isinstance(value, str):
        raise _Bail
    return value


def _chat_calls(message: Any) -> list[str]:
    names = []
    for call in message["tool_calls"]:
        function = call["function"]
        _text_arguments(function.get("arguments"))
        names.append(_name(function.get("name")))
    return names


def _responses_calls(item: Any) -> list[str]:
    _text_arguments(item.get("arguments"))
    return [_name(item.get("name"))]


def _anthropic_calls(message: Any) -> list[str]:
    names = []
    for block in message["content"]:
        if block.get("type") == "tool_use":
            _object_arguments(block.get("input"))
            names.append(_name(block.get("name")))
    return names


def _gemini_calls(content: Any) -> list[str]:
    names = []
    for part in content["parts"]:
        call = part.get("functionCall")
        if call is not None:
            _object_arguments(call.get("args"))
            names.append(_name(call.get("name")))
    return names


def _langchain_dict_calls(entry: Any) -> list[str]:
    names = []
    for call in entry["data"]["tool_calls"]:
        _object_arguments(call.get("args"))
        names.append(_name(call.get("name")))
    return names


def _langchain_calls(message: Any) -> list[str]:
    names = []
    for call in message.tool_calls:
        _object_arguments(call.get("args"))
        names.append(_name(call.get("name")))
    return names


def _gemini_object_calls(content: Any) -> list[str]:
    names = []
    for part in content.parts:
        call = part.function_call
        if call is not None:
            _object_arguments(call.args)
            names.append(_name(call.name))
    return names


_CALLS: dict[str, Callable[[Any], list[str]]] = {
    "openai-chat": _chat_calls, "openai-responses": _responses_calls, "anthropic": _anthropic_calls,
    "gemini": _gemini_calls, "langchain": _langchain_dict_calls, "langchain-objects": _langchain_calls,
    "gemini-objects": _gemini_object_calls}
"""Format -> the names of an assistant entry's calls, in order (raising _Bail for arguments that are not a
JSON object, or a name that is not a string)."""


def _chat_receipt(call: Call) -> Any:
    return {"role": "tool", "tool_call_id": call[0], "content": _TEXT}


def _responses_receipt(call: Call) -> Any:
    return {"type": "function_call_output", "call_id": call[0], "output": _TEXT}


def _langchain_receipt(call: Call) -> Any:
    return {"type": "tool", "data": {"content": _TEXT, "additional_kwargs": {}, "response_metadata": {},
                                     "type": "tool", "name": call[1], "id": None, "tool_call_id": call[0],
                                     "artifact": None, "status": "error"}}


def _anthropic_receipts(calls: list[Call], turn: Any) -> Any:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": _TEXT,
                                         "is_error": True} for call_id, _ in calls]}


def _gemini_receipts(calls: list[Call], turn: Any) -> Any:
    return {"role": "user", "parts": [{"functionResponse": {"name": name, "response": {"error": _TEXT}}}
                                      if call_id[:1] == IDLESS else
                                      {"functionResponse": {"id": call_id, "name": name, "response": {"error": _TEXT}}}
                                      for call_id, name in calls]}


_ONE_RECEIPT: dict[str, Callable[[Call], Any]] = {
    "openai-chat": _chat_receipt, "openai-responses": _responses_receipt, "langchain": _langchain_receipt}
"""Formats with one entry per result: the receipt entry for one call, in the written format."""
_GROUPED_RECEIPTS: dict[str, Callable[[list[Call], Any], Any]] = {"anthropic": _anthropic_receipts,
                                                                   "gemini": _gemini_receipts}
"""Formats grouping a turn's results in one message: the receipts message for a turn's calls (and the
assistant entry that made them), in the written format."""
_ENTRIES: dict[str, Callable[[Any], Any]] = {}
"""Readers of one entry a guard module registers for objects the quick pass reads with a pass of its own
(integrity.guards.pydantic_ai), with `_CALLS` and `_GROUPED_RECEIPTS` entries beside them."""


class _Turn:
    """An assistant turn being read: its calls in order, the results kept for them (per-result formats:
    call id -> the entry; grouped: the one results message), and the ids answered so far."""

    __slots__ = ("answered", "at", "calls", "entry", "kept", "message")

    def __init__(self, entry: Any) -> None:
        self.entry = entry  # the assistant entry that made the calls
        self.calls: list[Call] = []
        self.kept: dict[str, Any] = {}
        self.message: Any = None
        self.answered: set[str] = set()
        self.at = 0  # the calls before this one are answered or passed over (their answers come in call order)


def native_repair(listed: Sequence[Any], cut: int, before: Sequence[str], objects_format: str, format: str,
                  target: str | None, build: Callable[[Any], Any] | None
                  ) -> tuple[list[Any], list[Any], frozenset[str]] | None:
    """(the whole request repaired, its part from the cut on, every call and result id of that part) for
    the request `listed` (entries in `objects_format`, plainly healthy before `cut`, whose call ids are
    `before`), when the direct repair answers it (see the module); None when the full pipeline must.
    New entries are written in `format` (the format the runtime's entries are read as) and made the
    runtime's objects by `build`, as the guard makes those the engine writes."""
    read, names = _READERS.get(objects_format) or _ENTRIES.get(objects_format), _CALLS.get(objects_format)
    one, grouped = _ONE_RECEIPT.get(format), _GROUPED_RECEIPTS.get(format)
    if read is None or names is None or (one is None and grouped is None) or target not in FAST_TARGETS:
        return None
    try:
        out, ids = _repair(listed[cut:], bool(cut), set(before), objects_format, target, read, names, one, grouped,
                           build, plain_id(target, format).match)
    except _Bail:
        return None
    except (AttributeError, KeyError, TypeError, IndexError):  # a shape the readers let through, read further
        return None
    whole = listed[:cut] if type(listed) is list else list(listed[:cut])
    whole += out
    return whole, out, ids


def _repair(window: Sequence[Any], after_cut: bool, before: set[str], objects_format: str, target: str | None,
            read: Callable[[Any], Any], names: Callable[[Any], list[str]], one: Callable[[Call], Any] | None,
            grouped: Callable[[list[Call], Any], Any] | None, build: Callable[[Any], Any] | None,
            plain: Callable[[str], Any]) -> tuple[list[Any], frozenset[str]]:
    """native_repair's work on the window; plain(id): whether the provider judging the request takes the id
    (`_fast.plain_id`: one it refuses, too long, is left to the pipeline, which renames it)."""
    rows = []
    called: set[str] = set()  # every call id of the window (with ids)
    ids: set[str] = set()
    idless = target in _IDLESS_TARGETS and objects_format in ("gemini", "gemini-objects")
    # what the request's calls carry: "id" ids, "name" none (Gemini toward Gemini), "?" not known (a prefix
    # without a call with an id may have calls without one: then a call with an id is left to the full check)
    kind = "id" if before else "?" if after_cut and idless else ""
    for entry in window:
        row = read(entry)
        if row is None:
            raise _Bail
        role, calls, results, _ = row
        if calls:
            called_names = names(entry)
            if len(called_names) != len(calls):
                raise _Bail
            for call_id in calls:
                if call_id[:1] == IDLESS:
                    if not idless or kind == "id":
                        raise _Bail
                    kind = "name"
                    continue
                if kind in ("name", "?") or not plain(call_id) or call_id in called or call_id in before:
                    raise _Bail
                kind = "id"
                called.add(call_id)
            ids.update(calls)
            rows.append((entry, role, list(zip(calls, called_names, strict=True)), results, row[3]))
        else:
            rows.append((entry, role, [], results, row[3]))
        if results:
            ids.update(results)
    out: list[Any] = []
    changed = False
    merge = objects_format == "openai-responses"  # a Responses turn is several items (reasoning, message, calls)
    turn: _Turn | None = None
    last = "results" if after_cut else "system"

    def new(native: Any) -> Any:
        return native if build is None else build(native)

    def close(turn: _Turn) -> bool:
        """The turn's results written out; whether that changed anything."""
        if grouped is not None:
            if turn.message is not None:
                out.append(turn.message)
                return False
            out.append(new(grouped(turn.calls, turn.entry)))
            return True
        assert one is not None
        made = False
        for call in turn.calls:
            found = turn.kept.get(call[0])
            if found is None:
                found, made = new(one(call)), True
            out.append(found)
        return made

    for entry, role, calls, results, empty in rows:
        if role == "results":
            if turn is None or last not in ("assistant", "results"):
                if all(_stray(result, called, before) for result in results):
                    changed = True
                    if last == "assistant":
                        last = "dropped"  # the turn's text ended here: only a user turn may follow
                    continue
                raise _Bail
            keep = []
            for result in results:
                if result in turn.answered or _stray(result, called, before):
                    if result[:1] == IDLESS:
                        raise _Bail  # a repeat paired by name: the pipeline may give it to an earlier call of
                        # that name left unanswered
                    keep.append(False)
                    continue
                position = turn.at
                while position < len(turn.calls) and turn.calls[position][0] != result:
                    position += 1
                if position == len(turn.calls):
                    raise _Bail  # an answer out of call order, or another turn's
                turn.at = position + 1
                turn.answered.add(result)
                keep.append(True)
            last = "results"  # (a Responses turn's items end at its first result, kept or not)
            if not any(keep):
                changed = True
                continue
            if grouped is not None:
                if not all(keep) or turn.message is not None:
                    raise _Bail  # a message kept in part, or a turn answered in two messages
                turn.message = entry
            else:
                turn.kept[results[0]] = entry
            continue
        if role == "assistant" and merge and last == "assistant":  # the same turn (no result read since it began)
            if empty:
                raise _Bail
            if calls:
                if turn is None:
                    turn = _Turn(entry)
                turn.calls.extend(calls)
            elif turn is not None:
                raise _Bail  # an item after the turn's calls (a text, a reasoning): the pipeline places it (toward
                # Anthropic, before the calls)
            out.append(entry)
            continue
        if turn is not None:
            if grouped is not None and turn.message is not None and len(turn.answered) != len(turn.calls):
                raise _Bail  # a results message missing some answers: the receipts join it
            changed = close(turn) or changed
            turn = None
            if last == "assistant":
                last = "results"
        if role == "system":
            if last != "system":
                raise _Bail
        elif role == "assistant":
            if last not in ("user", "results") or empty:
                raise _Bail
            if calls:
                turn = _Turn(entry)
                turn.calls.extend(calls)
            last = "assistant"
        elif role == "user":
            if last == "user" or empty:
                raise _Bail
            last = "user"
        else:
            raise _Bail
        out.append(entry)
    if turn is not None:
        if grouped is not None and turn.message is not None and len(turn.answered) != len(turn.calls):
            raise _Bail
        changed = close(turn) or changed
    if not changed:
        raise _Bail  # not plainly healthy for another reason: the full check decides
    return out, frozenset([found for found in ids if found[:1] != IDLESS])  # (a Gemini call without an id: none)


def _stray(result: str, called: set[str], before: set[str]) -> bool:
    """A result whose call is nowhere in the request (with an id: a call without one pairs by name)."""
    return result[:1] != IDLESS and result not in called and result not in before
