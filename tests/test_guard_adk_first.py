"""The ADK guard's first repair of a request: the direct repair written for one-part Contents
(`_contents.repair_window`) answers what the general direct repair (`_native.native_repair`, itself held
to the pipeline by tests/test_guard_native.py) answers, and a plugin sends what a guard without it sends."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.test_guard_native import TARGETS, Item, histories, render

ONE_PART = st.sampled_from(["user", "answer", "call", "response", "stray", "bad"])


def one_part(history: list[Item]) -> list[Item]:
    """The history with each turn split into one-part turns (ADK's requests: a text, a call or a response per
    content), so the direct repair for one-part Contents reads them."""
    out: list[Item] = []
    for item in history:
        if item[0] == "assistant":
            _, text, calls = item
            if text or not calls:
                out.append(("answer", text))
            out += [("assistant", "", [call]) for call in calls]
        elif item[0] == "results":
            out += [("results", [result]) for result in item[1]]
        else:
            out.append(item)
    return out


def contents_of(history: list[Item], idless: bool) -> list[Any]:
    from google.genai import types

    return [types.Content.model_validate(entry) for entry in render(history, "gemini", False, idless)]


def both(contents: list[Any], target: str | None, cut: int, before: list[str]) -> tuple[Any, Any]:
    from integrity.guards._contents import repair_window
    from integrity.guards._native import native_repair
    from integrity.guards.adk import _content, _receipt

    return (repair_window(contents, cut, before, target, _receipt),
            native_repair(contents, cut, before, "gemini-objects", "gemini", target, _content))


def assert_same(direct: Any, general: Any, contents: list[Any]) -> None:
    from integrity.guards.adk import _same_model

    out, rest, ids = direct
    expected_out, expected_rest, expected_ids = general
    assert ids == expected_ids
    assert len(out) == len(expected_out) and len(rest) == len(expected_rest)
    known = {id(content) for content in contents}
    for mine, theirs in zip(out, expected_out, strict=True):
        if id(theirs) in known:
            assert mine is theirs  # a content kept is the request's own object
        else:
            assert id(mine) not in known and _same_model(mine, theirs)  # a receipt, built as model_validate builds it
    assert all(a is b for a, b in zip(rest, out[len(out) - len(rest):], strict=True))


@settings(max_examples=400, deadline=None)
@given(history=histories(), idless=st.booleans(), split=st.booleans(), cuts=st.lists(st.integers(0, 40), max_size=3))
def test_the_one_part_repair_answers_what_the_direct_repair_answers(history: list[Item], idless: bool, split: bool,
                                                                      cuts: list[int]) -> None:
    from integrity.guards._fast import scan

    contents = contents_of(one_part(history) if split else history, idless)
    for target in TARGETS:
        healthy, cut, before = scan(contents, "gemini-objects", target)
        for start, ids in [(cut, before), *((at, []) for at in cuts if at <= len(contents))]:
            direct, general = both(contents, target, start, ids)
            if direct is not None:
                assert general is not None, (target, start, history)
                assert_same(direct, general, contents)
            elif split and general is not None and not idless and start == cut:
                # the general repair answered: the one-part repair must too, unless a content has two parts
                assert any(len(content.parts) != 1 for content in contents[start:]), (target, history)


def test_the_bench_shapes_take_the_one_part_repair() -> None:
    from integrity.guards._fast import scan

    exchange = [("user", "q"), ("assistant", "", [("call_1", "lookup")]), ("results", ["call_1"]), ("answer", "x")]
    broken = [*exchange, ("user", "q2"), ("assistant", "", [("dangling", "lookup")]), ("results", ["stray"]),
              ("user", "go on")]
    for idless, target in itertools.product((False, True), TARGETS):
        if idless and target not in (None, "gemini"):
            continue
        # (without ids a response pairs by name: the stray would answer the dangling call)
        contents = contents_of([item for item in broken if item != ("results", ["stray"])] if idless else broken,
                               idless)
        _, cut, before = scan(contents, "gemini-objects", target)
        direct, general = both(contents, target, cut, before)
        assert direct is not None and general is not None
        assert_same(direct, general, contents)


@settings(max_examples=60, deadline=None)
@given(history=histories(), idless=st.booleans(), target=st.sampled_from(TARGETS))
# found in a fresh clone's run: a dangling call toward no named provider (a Gemini request: Gemini 3's rules), whose
# direct repair answered it unsigned while the engine's view signs it
@example(history=[("user", "question"), ("assistant", "", [("call_0_0", "lookup")])], idless=False, target=None)
def test_a_plugin_sends_what_the_guard_sends_without_the_one_part_repair(history: list[Item], idless: bool,
                                                                          target: str | None) -> None:
    from integrity.guards.adk import ToolCallIntegrityPlugin, _same_model

    contents = contents_of(one_part(history), idless)
    model = {"gemini": "gemini-2.5-flash", "anthropic": "anthropic/claude-sonnet-4-5"}.get(str(target), "some-model")
    plugin, plain = ToolCallIntegrityPlugin(provider=target), ToolCallIntegrityPlugin(provider=target)
    plain._repaired_directly = lambda *args: None  # type: ignore[method-assign]
    for grown in (contents, [*contents, *contents_of([("user", "more")], idless)]):
        sent, expected = plugin.repaired_contents(grown, model), plain.repaired_contents(grown, model)
        assert (sent is None) == (expected is None)
        if sent is not None:
            assert _same_model(sent, expected)


def test_the_column_search_for_restored_calls_answers_what_reading_each_content_answers() -> None:
    """The ADK plugin looks in its request for a copy of each call it restores (so a repaired request is never
    repaired twice).  Toward Gemini (calls without ids) it answers from the request's Contents key
    (adk_columns.missing_in_key), and makes the restored request's key from the one it has (spliced): both
    must answer what reading every content answers, and what keying the new request makes, on random
    requests of every id shape (none, empty, ADK's own, shared arguments, parts holding a call and a
    response, replaced and inserted contents)."""
    import random

    from google.genai import types

    from integrity.guards import _fast, adk_columns

    rnd = random.Random(16)
    arguments = [{"q": number} for number in range(5)]

    def part() -> Any:
        draw = rnd.random()
        if draw < 0.35:
            return types.Part(function_call=types.FunctionCall(
                id=rnd.choice([None, "", "c1", "c2", "adk-c3", "c4"]), name=rnd.choice(["f", "g"]),
                args=rnd.choice([*arguments, None])))
        if draw < 0.7:
            return types.Part(function_response=types.FunctionResponse(
                id=rnd.choice([None, "", "c1", "adk-c3", "c5"]), name="f", response={"r": 1}))
        if draw < 0.8:
            return types.Part(function_call=types.FunctionCall(id="c2", name="f"),
                              function_response=types.FunctionResponse(id="c9", name="f"))
        return types.Part(text=rnd.choice(["a", " ", ""]), thought=rnd.choice([None, True]))

    def content() -> Any:
        parts = [part() for _ in range(rnd.choice([1, 1, 2, 3]))]
        return types.Content(role=rnd.choice(["user", "model"]), parts=parts)

    for _ in range(1500):
        contents = [content() for _ in range(rnd.randint(1, 14))]
        calls = {call_id: types.FunctionCall(id=call_id, name=rnd.choice(["f", "g"]),
                                             args=rnd.choice([*arguments, None]))
                 for call_id in rnd.sample(["c1", "c2", "adk-c3", "c4", "c7"], rnd.randint(1, 3))}
        shared = {id(call.args): (call_id, call.name) for call_id, call in calls.items() if call.args is not None}
        read = adk_columns._missing_read(contents, set(calls), shared)
        found = adk_columns.missing_in_key(_fast._content_key(contents), set(calls), shared)
        assert found is None or found == read
        assert adk_columns.missing(contents, calls)[:2] == read
        replaced = {at: content() for at in rnd.sample(range(len(contents)), rnd.randint(0, min(2, len(contents))))}
        inserted = {at: [content() for _ in range(rnd.randint(1, 2))]
                    for at in rnd.sample(range(len(contents) + 1), rnd.randint(0, 2))}
        after = list(contents)
        for at, made in replaced.items():
            after[at] = made
        for at in sorted(inserted, reverse=True):
            after[at:at] = inserted[at]
        made_key = adk_columns.spliced(_fast._content_key(contents), replaced, inserted)
        keyed = _fast._content_key(after)
        assert made_key is not None
        assert all(len(got) == len(want) and all(a is b for a, b in zip(got, want, strict=True))
                   for got, want in zip(made_key[:7], keyed[:7], strict=True))
