"""providers.gemini reads a content's calls and responses in one pass (the rule set's inner loop) exactly as
function_calls and function_responses read them one kind at a time: both spellings, in their order."""

from __future__ import annotations

import itertools
from typing import Any

from integrity.providers.gemini import _calls_and_responses, function_calls, function_responses

_VALUES: list[Any] = [None, "text", 3, [], {"name": "a"}, {"name": "b", "id": "x"}]
_KEYS = ("functionCall", "function_call", "functionResponse", "function_response", "text")


def _parts() -> list[Any]:
    """Every part of up to two of the keys, each with every kind of value; and parts that are no object."""
    parts: list[Any] = ["plain", None, 7]
    for size in (1, 2):
        for keys in itertools.combinations(_KEYS, size):
            for values in itertools.product(_VALUES, repeat=size):
                parts.append(dict(zip(keys, values, strict=True)))
    return parts


def test_one_pass_reads_as_each_kind_alone() -> None:
    parts = _parts()
    contents: list[Any] = [None, "model", {"role": "model"}, {"parts": "no list"}, {"parts": parts}]
    contents += [{"role": "user", "parts": [part]} for part in parts]
    contents += [{"parts": parts[at:at + 5]} for at in range(0, len(parts), 5)]
    for content in contents:
        calls, responses = _calls_and_responses(content)
        assert calls == function_calls(content)
        assert responses == function_responses(content)
        assert all(a is b for a, b in zip(calls, function_calls(content), strict=True))


def test_a_part_with_both_kinds_counts_for_each() -> None:
    call, response = {"name": "f"}, {"name": "f", "response": {}}
    calls, responses = _calls_and_responses({"parts": [{"function_call": call, "functionResponse": response}]})
    assert calls == [call] and responses == [response]
    calls, responses = _calls_and_responses({"parts": [{"functionCall": "not an object", "function_call": call}]})
    assert calls == [call] and responses == []
