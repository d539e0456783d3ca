"""The compiled schema checkers (integrity.schema._compiled) give the interpretive walker's errors exactly.

The walker that read each model's declaration on every value is kept as the oracle
(tests/_schema_walker.py, verbatim).  For every model every family declares, and
every type declared inside one (a field's, a list item's, a union member's), random
values are built: mostly of the declared shape, nested parts included, then
disguised here and there as what Python code hands in and JSON text never holds (a
tuple, set or frozenset for a list; a dict subclass, OrderedDict or mapping proxy
for an object; a str subclass or str Enum member for a literal; an IntEnum for an
int; a bool for an int; non-string keys; bytes; a msgspec struct instance), with
wrong types, missing fields, unknown tags and lone surrogates.  Held:

- the compiled `errors` lists the walker's errors, same locations, same types, same order;
- `valid` is True exactly when there is no error (validate trusts it to skip the listing);
- `model_errors` and `validate` (the public faces) agree with the walker too.
"""

from __future__ import annotations

import collections
import enum
import types
import typing
from typing import Any

import msgspec
import pytest
from _schema_walker import model_errors as walker_model_errors
from _schema_walker import type_errors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_schema_validators import MODELS

from integrity.kinds import FindingCode
from integrity.schema._compiled import Error, checker
from integrity.schema.base import Open, model_errors, validate


def _inner(kind: Any) -> list[Any]:
    """kind and every type declared inside it (a model's fields, a list's item, a union's members)."""
    if isinstance(kind, type) and issubclass(kind, Open):
        found = [kind]
        for info in msgspec.structs.fields(kind):
            found.extend(_inner(info.type))
        return found
    return [kind, *(found for arg in typing.get_args(kind) if typing.get_origin(kind) is not typing.Literal
                    for found in _inner(arg))]


def _kinds() -> list[Any]:
    seen: list[Any] = []
    for model in MODELS:
        for kind in _inner(model):
            if not any(kind == other and repr(kind) == repr(other) for other in seen):  # int | float is not float | int
                seen.append(kind)
    return seen


KINDS = _kinds()


class Word(str, enum.Enum):
    """Equal to declared literals and tags, but not of their exact type."""

    USER = "user"
    TEXT = "text"
    TOOL_CALL = "toolCall"
    FUNCTION = "function"


class Number(enum.IntEnum):
    ONE = 1


class Text(str):
    pass


class Mapping(dict[Any, Any]):
    pass


class Array(list[Any]):
    pass


class Point(msgspec.Struct):
    text: str = "x"


# Text includes lone surrogates: JSON's "\ud800" decodes to one, and no declared literal can equal one.
TEXT = st.text(st.characters(blacklist_categories=()), max_size=4)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), TEXT,
                     st.sampled_from(["user", "text", "toolCall", "function", "assistant", "completed", "success"]))
JSON = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                    max_leaves=8)


def _value(kind: Any) -> st.SearchStrategy[Any]:
    """Mostly a value of the declared type (so deep errors are reached), sometimes any JSON value."""
    return st.one_of(_typed(kind), _typed(kind), JSON) if kind is not Any else JSON


def _typed(kind: Any) -> st.SearchStrategy[Any]:
    if isinstance(kind, type) and issubclass(kind, Open):
        return _entry(kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Literal:
        return st.one_of(st.sampled_from(args), st.sampled_from(args).map(lambda value: value + "\ud800"))
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(_typed(arg) for arg in args))
    if origin is list:
        return st.lists(_value(args[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(st.one_of(st.text(max_size=3), st.integers(0, 2)), _value(args[1]), max_size=3)
    simple = {str: TEXT, int: st.integers(-(2**70), 2**70), float: st.floats(),
              bool: st.booleans(), type(None): st.none()}
    return simple.get(kind, JSON)


def _entry(model: type[Open]) -> st.SearchStrategy[dict[str, Any]]:
    """A dict for `model`: each field present (typed or any value) or absent, its tag usually right
    (else another part's tag, or any value), an extra key."""
    fields = msgspec.structs.fields(model)
    config = model.__struct_config__

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if config.tag_field is not None and draw(st.integers(0, 9)):
            roll = draw(st.integers(0, 7))
            out[config.tag_field] = (config.tag if roll > 2 else
                                     draw(st.sampled_from(["text", "image", "toolCall", "thinking", "opaque", "x"]))
                                     if roll > 0 else draw(JSON))
        for info in fields:
            if draw(st.integers(0, 4)):
                out[info.name] = draw(_value(info.type))
        if draw(st.booleans()):
            out["extra"] = draw(JSON)
        return out

    return build()


def _disguise(value: Any, draw: st.DrawFn) -> Any:
    """value with some of its nodes (at any depth) swapped for what only Python code hands in."""
    if isinstance(value, dict):
        value = {key: _disguise(item, draw) for key, item in value.items()}
    elif isinstance(value, list):
        value = [_disguise(item, draw) for item in value]
    if draw(st.integers(0, 5)):
        return value
    if isinstance(value, dict):
        return draw(st.sampled_from([Mapping, collections.OrderedDict, types.MappingProxyType,
                                     lambda found: {**found, 7: "non-string key"}]))(value)
    if isinstance(value, list):
        options: list[Any] = [tuple, Array, lambda found: iter(found)]
        try:
            options.extend([set(value) and set, frozenset(value) and frozenset])
        except TypeError:  # an item that cannot be hashed: no set of it
            pass
        return draw(st.sampled_from([option for option in options if option]))(value)
    if isinstance(value, str):
        word = next((member for member in Word if member.value == value), None)
        return draw(st.sampled_from([Text(value), value.encode("utf-8", "surrogatepass"),
                                     *([word] if word is not None else [])]))
    if isinstance(value, bool):
        return draw(st.sampled_from([int(value), float(value)]))
    if isinstance(value, int):
        return draw(st.sampled_from([Number.ONE, value == 1, float(value) if abs(value) < 2**53 else value]))
    return draw(st.sampled_from([object(), Point(), float("nan"), Word.TEXT, b"", (), Text("user")]))


def _tricky() -> st.SearchStrategy[Any]:
    """The values each rule is about, drawn often (a random draw meets a bool among numbers too rarely)."""
    return st.sampled_from([True, False, 0, 1, -1, 2**70, 1.0, float("nan"), "", "user", "user\ud800", Text("user"),
                            Word.USER, Number.ONE, None, b"", (), ("a",), [], {}, {"type": "text"}, {1: 1}, object()])


def _hostile(kind: Any) -> st.SearchStrategy[Any]:
    @st.composite
    def build(draw: st.DrawFn) -> Any:
        value = draw(st.one_of(_value(kind), _value(kind), JSON, _tricky()))
        return _disguise(value, draw) if draw(st.booleans()) else value

    return build()


def _compiled_errors(kind: Any, value: Any) -> list[Error]:
    out: list[Error] = []
    checker(kind).errors(value, (), out)
    return out


@pytest.mark.parametrize("kind", [kind for kind in KINDS if not isinstance(kind, type) or not issubclass(kind, Open)],
                         ids=repr)  # the models: in the next test
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_compiled_checker_lists_the_walkers_errors(kind: Any, data: st.DataObject) -> None:
    value = data.draw(_hostile(kind))
    expected = type_errors(kind, value)
    assert _compiled_errors(kind, value) == expected, repr(value)
    assert checker(kind).valid(value) is (not expected), repr(value)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m.__module__.rsplit('.', 1)[-1]}.{m.__name__}")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_models_errors_and_issues_are_the_walkers(model: type[Open], data: st.DataObject) -> None:
    entry = data.draw(_hostile(model))
    expected = walker_model_errors(model, entry)
    assert model_errors(model, entry) == expected, repr(entry)
    assert checker(model).valid(entry) is (not expected), repr(entry)
    issues = validate(model, entry, 3, lambda loc, error_type: FindingCode.INVALID_CONTENT)
    assert bool(issues) is bool(expected), repr(entry)


def test_every_declared_kind_is_exercised() -> None:
    """The models declare each rule the checker has: a new kind of declaration gets its own test here."""
    origins = {typing.get_origin(kind) for kind in KINDS}
    assert {typing.Literal, list, dict, types.UnionType} <= origins
    assert {str, int, float, bool, Any} <= set(KINDS)
    assert any(isinstance(kind, type) and issubclass(kind, Open) and kind.__struct_config__.tag_field
               for kind in KINDS)


@pytest.mark.parametrize(("kind", "value", "errors"), [
    (list[Any], ("a",), [((), "list_type")]),
    (list[Any], {"a"}, [((), "list_type")]),
    (dict[str, Any], types.MappingProxyType({"a": 1}), [((), "dict_type")]),
    (dict[str, Any], {1: 1}, [((1,), "string_type")]),
    (int, True, [((), "int_type")]),
    (int, Number.ONE, []),
    (float, 1, []),
    (str, Text("x"), []),
    (typing.Literal["user"], Text("user"), [((), "literal_error")]),
    (typing.Literal["user"], Word.USER, [((), "literal_error")]),
    (typing.Literal["user"], "user\ud800", [((), "string_unicode")]),
    (int | float, "1", [((), "int_type"), ((), "float_type")]),
    (int | float, True, [((), "int_type"), ((), "float_type")]),
    (bool | int, True, []),
])
def test_what_only_python_code_hands_in_is_judged_strictly(kind: Any, value: Any, errors: list[Error]) -> None:
    """The leniencies msgspec has on Python objects (why its C verdict is not used for them): refused here."""
    assert _compiled_errors(kind, value) == errors == type_errors(kind, value)
    assert checker(kind).valid(value) is (not errors)


def test_a_tagged_union_picks_the_part_by_its_tag() -> None:
    from integrity.schema import pi_ai

    part = checker(pi_ai.AssistantPart)
    assert part.valid({"type": "toolCall", "id": "a", "name": "b"})
    out: list[Error] = []
    part.errors({"type": "toolCall", "id": 1, "name": "b"}, ("content", 0), out)
    assert out == [(("content", 0, "id"), "string_type")]
    for value, error in [({"type": "video"}, "union_tag_invalid"), ({"id": "a"}, "union_tag_not_found"),
                         (["toolCall"], "model_attributes_type"), ({"type": 3}, "union_tag_invalid")]:
        out = []
        part.errors(value, (), out)
        assert out == [((), error)] and not part.valid(value)
    out = []
    part.errors(Mapping(type=Word.TOOL_CALL, id="a", name="b"), (), out)  # picked by the tag, refused by its type
    assert out == [(("type",), "literal_error")]


def test_a_unions_errors_come_in_its_declared_order_whatever_was_compiled_before() -> None:
    """typing takes int | float and float | int for one type: the checkers are cached by the declared order."""
    assert _compiled_errors(float | int, "1") == [((), "float_type"), ((), "int_type")] == type_errors(float | int, "1")
    assert _compiled_errors(int | float, "1") == [((), "int_type"), ((), "float_type")]
    assert _compiled_errors(list[str | int], [None]) == [((0,), "string_type"), ((0,), "int_type")]
    assert _compiled_errors(list[int | str], [None]) == [((0,), "int_type"), ((0,), "string_type")]


def test_a_type_the_checker_has_no_rule_for_is_refused_when_compiled() -> None:
    with pytest.raises(TypeError, match="cannot declare"):
        checker(tuple[str, ...])
