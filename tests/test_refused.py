"""providers.refused: Mistral's refused ids held as columns read as the list of Violations they stand for.

The oracle is the object form: mistral.refused_ids on each id (as ids.chat_ids reads a request's), each
violation's canonical message its own (the Chat shape: one native entry per message), merged with the other
violations by sort_violations.  Its plain lines are held equal to the ones written from each object.
"""

from __future__ import annotations

import pickle
import random
from array import array
from types import SimpleNamespace

import msgspec
import pytest

from integrity.providers import refused
from integrity.providers.mistral import refused_ids
from integrity.providers.refused import Refused, RowIds, refused_columns, said_lines
from integrity.providers.sparse import _refused
from integrity.providers.violation import Violation, said, sort_violations

VALID = ["abcDEF123", "ZZZZZZZZZ", "000000000"]
REFUSED = ["call_1", "toolu_01ABCDEFGHIJ", "abcdefgh_", "abc{}defg", "a" * 10, "", "null", "ünïcödé99"]


def _request(seed: int, size: int, only_refused: bool = False) -> tuple[dict[int, list[str]], dict[int, str]]:
    """Random frames (message index -> its call ids) and results (message index -> id), never one message both, no
    call's id "null" (refused with another text: not judged as columns); only_refused: every id one Mistral
    refuses (the columns then read ids from the light view: refused.RowIds)."""
    rng = random.Random(seed)
    choices = [value for value in (REFUSED if only_refused else VALID + REFUSED) if value != "null"]
    frames: dict[int, list[str]] = {}
    results: dict[int, str] = {}
    for index in range(size):
        kind = rng.random()
        if kind < 0.3:
            frames[index] = [rng.choice(choices) for _ in range(rng.randint(1, 3))]
        elif kind < 0.7:
            results[index] = rng.choice(choices + ["null"])
    return frames, results


def _objects(frames: dict[int, list[str]], results: dict[int, str]) -> list[Violation]:
    """The object form: refused_ids on each message's ids in order, with canonical messages."""
    ids = sorted([(index, position, value) for index, calls in frames.items() for position, value in enumerate(calls)]
                 + [(index, None, value) for index, value in results.items()],
                 key=lambda triple: triple[0])
    return [msgspec.structs.replace(violation, canonical_indices=list(violation.native_indices))
            for violation in refused_ids(ids)]


def _columns(frames: dict[int, list[str]], results: dict[int, str]) -> Refused:
    """The columns, as providers.sparse judges the light view's frames (each call with its id) and results."""
    refused = _refused({index: [SimpleNamespace(id=value) for value in calls] for index, calls in frames.items()},
                       results, "mistral")
    assert isinstance(refused, Refused)
    return refused


def _others(seed: int, size: int) -> list[Violation]:
    """A few violations of other rules, some at the same message as a refused id (rules sorting before and after
    invalid_tool_call_id), and one without native indices."""
    rng = random.Random(seed)
    found = [Violation(provider="mistral", rule=rng.choice(["call_response_count_mismatch", "unexpected_role_order"]),
                       position=f"messages[{index}]", native_indices=[index, index + 1], error="messages[x] broken")
             for index in rng.sample(range(size), min(size, 6))]
    found.append(Violation(provider="mistral", rule="last_role_assistant", position="messages[0]", error="last"))
    return sort_violations(found)


@pytest.mark.parametrize("only_refused", [False, True])
@pytest.mark.parametrize("seed", range(30))
def test_the_columns_read_as_the_objects(seed: int, only_refused: bool) -> None:
    frames, results = _request(seed, 1 + seed * 7, only_refused)
    objects = _objects(frames, results)
    columns = _columns(frames, results)
    assert isinstance(columns.ids, RowIds) or not only_refused
    assert list(columns.ids) == [violation.call_ids[0] for violation in objects]
    assert [columns.ids[row] for row in range(-len(objects), len(objects))] == [
        violation.call_ids[0] for violation in objects + objects]
    for start in range(len(objects)):  # a run opening inside a frame's rows
        assert columns.ids[start:start + 3] == [violation.call_ids[0] for violation in objects[start:start + 3]]
    assert columns == objects and objects == columns
    assert list(columns) == objects
    assert len(columns) == len(objects) and bool(columns) == bool(objects)
    assert [columns[at] for at in range(len(columns))] == objects
    assert columns[1:-1:2] == objects[1:-1:2]
    if objects:
        assert columns[-1] == objects[-1]
    with pytest.raises(IndexError):
        columns[len(objects)]
    assert pickle.loads(pickle.dumps(columns)) == objects  # (a verdict crosses processes: triage's workers)


@pytest.mark.parametrize("only_refused", [False, True])
@pytest.mark.parametrize("seed", range(30))
def test_other_violations_are_put_where_sorting_puts_them(seed: int, only_refused: bool) -> None:
    frames, results = _request(seed, 2 + seed * 5, only_refused)
    objects = _objects(frames, results)
    others = _others(seed, 2 + seed * 5)
    merged = _columns(frames, results).merged(others)
    expected = sort_violations(others + objects)
    assert list(merged) == expected
    assert [merged[at] for at in range(-len(expected), 0)] == expected
    assert merged == expected


@pytest.mark.parametrize("only_refused", [False, True])
@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("chunk", [7, 8192])
def test_the_plain_lines_are_those_of_each_violation(seed: int, chunk: int, only_refused: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refused, "_CHUNK", chunk)
    frames, results = _request(seed, 40 + seed * 300, only_refused)
    objects = _objects(frames, results)
    others = _others(seed, 40 + seed * 300)
    head = "  mistral as recorded: "
    merged = _columns(frames, results).merged(others)
    expected = [head + said(violation) for violation in sort_violations(others + objects)]
    assert "\n".join(said_lines(merged, head)) == "\n".join(expected)
    assert list(said_lines(list(merged), head)) == expected


def test_ids_mistral_takes_are_left_out_and_a_calls_null_is_refused_as_undefined() -> None:
    columns = refused_columns(array("q", [0, 2]), ["abcDEF123", "bad"], "mistral")
    assert [violation.call_ids for violation in columns] == [["bad"]]
    assert not refused_columns(array("q", [4]), ["abcDEF123"], "mistral")
    frames = {0: ["null", "bad"], 2: ["null"]}
    results = {1: "null", 3: "abcDEF123"}
    judged = _refused({index: [SimpleNamespace(id=value) for value in calls] for index, calls in frames.items()},
                      results, "mistral")
    assert not isinstance(judged, Refused)  # (judged by refused_ids itself: a call's "null" has its own text)
    assert list(judged) == _objects(frames, results)
    assert [(violation.rule, violation.native_indices, violation.call_ids) for violation in judged] == [
        ("undefined_call_id", [0], ["null"]), ("invalid_tool_call_id", [0], ["bad"]),
        ("invalid_tool_call_id", [1], ["null"]), ("undefined_call_id", [2], ["null"])]


def test_row_ids_pickle_as_the_list_they_read_as() -> None:
    frames, results = _request(3, 200, only_refused=True)
    columns = _columns(frames, results)
    assert isinstance(columns.ids, RowIds)
    copied = pickle.loads(pickle.dumps(columns))
    assert type(copied.ids) is list and copied.ids == list(columns.ids) and copied == columns


@pytest.mark.parametrize("seed", range(5))
def test_the_rows_are_in_message_order_whatever_order_the_light_view_holds(seed: int) -> None:
    frames, results = _request(seed, 300, only_refused=True)
    shuffled = random.Random(seed)
    frame_items, result_items = list(frames.items()), list(results.items())
    shuffled.shuffle(frame_items)
    shuffled.shuffle(result_items)
    columns = _columns(dict(frame_items), dict(result_items))
    assert list(columns.at) == sorted(columns.at) and columns == _objects(frames, results)


def test_rows_made_and_read_in_order_are_rowids_own() -> None:
    """sparse_rows: the rows merged a part at a time are heapq.merge's, and RowIdsInOrder reads every run as
    RowIds does, in turn (from the two streams) or out of turn (RowIds' own steps), mid-frame included."""
    import heapq
    from itertools import chain, repeat

    from integrity.providers.sparse_rows import RowIdsInOrder, merged_rows

    rng = random.Random(7)
    for size in (1, 5, 300, 9000):  # (more results than one part of 4,096)
        frames: dict[int, list[SimpleNamespace]] = {}
        results: dict[int, str] = {}
        for index in range(size):
            if rng.random() < 0.4:
                frames[index] = [SimpleNamespace(id=f"f{index}_{n}") for n in range(rng.randint(1, 3))]
            else:
                results[index] = f"r{index}"
        at = merged_rows(frames, results)
        rows = chain.from_iterable(map(repeat, frames, map(len, frames.values())))
        assert list(at) == list(heapq.merge(rows, results))
        plain, in_order = RowIds(at, frames, results), RowIdsInOrder(at, frames, results)
        assert list(in_order) == list(plain)  # in turn, from the first row
        cuts = sorted(rng.sample(range(len(at) + 1), min(6, len(at) + 1)))
        for start, stop in zip(cuts, cuts[1:], strict=False):  # out of turn, mid-frame, then in turn again
            assert in_order[start:stop] == plain[start:stop]
            assert in_order[stop:] == plain[stop:]
        assert in_order[::2] == plain[::2] and in_order[-1] == plain[-1]


def test_said_names_a_position_once_and_only_as_itself() -> None:
    def violation(position: str, error: str) -> Violation:
        return Violation(provider="openai-chat", rule="r", position=position, error=error)

    quoted = "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user'."
    assert said(violation("messages[2]", quoted)) == quoted  # quoted by the text: said once
    assert said(violation("messages.3.content", "messages.3.content: Field required")) == \
        "messages.3.content: Field required"
    assert said(violation("messages.1", "messages.12.content: Field required")) == \
        "messages.1: messages.12.content: Field required"  # another position is not this one
    assert said(violation("messages.[3].content", "Invalid value for 'content': expected a string, got null.")) == \
        "messages.[3].content: Invalid value for 'content': expected a string, got null."
