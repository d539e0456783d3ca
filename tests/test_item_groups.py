"""The Responses verdicts judged on the suspect groups of a request (integrity._bulk.item_groups) are the ones
judged on every call and output item of it (providers.sparse_items.judge_items on the whole columns): the same
violations, field for field, on random requests built to hit the edges (calls answered twice, never, or by an
output before them; outputs in a run after other outputs; runs parted by other items; ids made twice in one
run; empty ids).  tests/test_sparse.py holds the whole pipeline's verdicts equal to the bones' on samples,
generated and random transcripts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from integrity._bulk.item_groups import Item, judge, suspect_ids
from integrity.providers.sparse_items import CALL, OUTPUT, SERVED, Columns, judge_items

_ITEM = st.tuples(st.sampled_from([0, 0, 0, 1, 2]), st.booleans(), st.sampled_from(["a", "b", "c", ""]), st.booleans())


def _request(drawn: list[tuple[int, bool, str, bool]]) -> list[Item]:
    """Items from (items parting it from the last, whether a call, its id, whether it opens a new message)."""
    items: list[Item] = []
    native, message = -1, -1
    for gap, call, call_id, new in drawn:
        native += 1 + gap
        message += 1 if new or gap or not items or items[-1][2] != call else 0
        items.append((native, message, call, call_id))
    return items


def _whole(provider: str, items: list[Item]) -> list:
    columns = Columns()
    for native, message, call, call_id in items:
        columns.add(native, message, CALL if call else OUTPUT, call_id)
    return judge_items(provider, columns)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_ITEM, max_size=14), st.sampled_from(sorted(SERVED)))
def test_groups_judge_as_every_item(drawn: list[tuple[int, bool, str, bool]], provider: str) -> None:
    items = _request(drawn)
    assert judge(provider, lambda: iter(items)) == _whole(provider, items)


def test_sound_groups_are_left_out() -> None:
    """A call answered right after, and calls answered as a set in the run after them, are not suspect; an output
    alone, a call without its output and a run answering other ids are."""
    sound = [(0, 0, True, "a"), (1, 1, False, "a"), (3, 2, True, "b"), (4, 2, True, "c"), (5, 3, False, "c"),
             (6, 4, False, "b")]
    assert suspect_ids(iter(sound)) == set()
    broken = [*sound, (8, 5, False, "x"), (10, 6, True, "y"), (12, 7, True, "z"), (13, 8, False, "w"),
              (15, 9, True, "v"), (16, 10, False, "v"), (17, 11, False, "u")]
    assert suspect_ids(iter(broken)) == {"x", "y", "z", "w", "v", "u"}
    assert [violation.position for violation in judge("openai-responses", lambda: iter(broken))] == \
        ["input[8]", "input[10]", "input[12]", "input[13]", "input[17]"]
