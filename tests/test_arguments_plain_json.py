"""The fast "plain JSON" walk of hand-built messages (integrity._arguments._plain_json) says True exactly when
every value is of a JSON type exactly (a finite float) and no container is met twice (shared or cyclic).

Anything it answers False for is judged again by the C encoder, so a False for plain messages would only be
slow, but a True for anything else would let a set, NaN or a cycle through as healthy: the verdict is held to
the definition, written plainly here, on random messages with every kind of value Python code hands in.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from integrity._arguments import _plain_json


class Text(str):
    pass


class Mapping(dict[Any, Any]):
    pass


def _plain(messages: list[Any]) -> bool:
    """The definition: exact JSON types, finite floats, every container met once (the top list counts)."""
    met: set[int] = set()

    def walk(value: Any) -> bool:
        kind = type(value)
        if value is None or kind in (str, int, bool):
            return True
        if kind is float:
            return math.isfinite(value)
        if kind not in (dict, list) or id(value) in met:
            return False
        met.add(id(value))
        return all(walk(item) for item in (value.values() if kind is dict else value))

    return walk(messages)


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=2),
                    st.sampled_from([Text("a"), b"x", (1,), frozenset(), 1j, object()]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=2), inner, max_size=3),
    st.dictionaries(st.text(max_size=2), inner, max_size=2).map(Mapping)), max_leaves=10)


@settings(max_examples=400, deadline=None)
@given(contents=st.lists(VALUES, min_size=1, max_size=4), data=st.data())
def test_plain_json_is_the_definition(contents: list[Any], data: st.DataObject) -> None:
    messages: list[Any] = [{"role": "user", "content": content} for content in contents]
    tie = data.draw(st.sampled_from(["none", "shared", "cycle", "top", "repeated"]))
    if tie == "shared":
        messages[0]["again"] = messages[-1]["content"]
    elif tie == "cycle":
        messages[0]["self"] = messages[0]
    elif tie == "top":
        messages[-1]["all"] = messages
    elif tie == "repeated":
        messages.append(messages[0])
    assert _plain_json(messages) is _plain(messages)
