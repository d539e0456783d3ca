"""DeepSeek's repeated result ids read a part of the ids at a time (deepseek.repeated_in, unique_ids) are the ones
read over every id at once (repeated_results, and a set of every id): the same violations in the same order, on
random results with ids met once, twice or more, ids that are not strings (read as "") and indices not in a row."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from integrity.providers import deepseek

_ID = st.one_of(st.sampled_from(["a", "b", "c", "d", "e", "", "call_1", "call_2"]), st.none(), st.integers(0, 2))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), _ID), max_size=30))
def test_parts_read_as_every_id(drawn: list[tuple[int, object]]) -> None:
    results: dict[int, object] = {}
    index = 0
    for step, value in drawn:
        index += step
        results[index] = value
    read = [(at, value if type(value) is str else "") for at, value in results.items()]
    assert deepseek.repeated_in(results, "deepseek") == deepseek.repeated_results(read, "deepseek")
    ids = [value for _, value in read]
    assert deepseek.unique_ids(list(results.values())) == (len(set(ids)) == len(ids))


def test_repeated_ids_in_message_order() -> None:
    """Ids in different parts come back in message order, each repeat naming the first message with its id."""
    results = {2: "x", 4: "y", 5: "x", 7: "y", 9: "z", 11: "x"}
    found = deepseek.repeated_in(results)
    assert [violation.native_indices for violation in found] == [[2, 5], [4, 7], [2, 11]]
    assert not deepseek.unique_ids(list(results.values()))
    assert deepseek.unique_ids(["x", "y", "z"])
