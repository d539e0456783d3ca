"""The schema models compiled: each declared type read once into a pair of closures.

Validating an entry used to interpret its model's declaration on every value
(typing.get_origin / get_args, hashing typing objects, dict dispatch on the
declared type): about a third of a whole check of a small transcript.  Here each
type is read once (`checker`, cached per type) into a `Checker`:

- `valid(value)`: True exactly when `errors` would list nothing, computed without
  allocating anything for a valid value (most entries are valid);
- `errors(value, loc, out)`: every error, appended to `out` in the walker's order
  (declared field order, a struct's tag first), run only for an invalid value.

The rules are the walker's (strict types, no coercion, pydantic strict mode's error
types): a list must be a list (not a tuple), an object a dict with string keys, a
bool is not an int, an int is a float; a union accepts what any alternative
accepts, else lists every alternative's errors (None is tried first for an optional
type); a union of tagged structs picks its member by the tag; a literal takes only
a value of an option's exact type, and a string with a lone surrogate is
"string_unicode" (it can equal no declared literal).

msgspec's own C validation is not used for Python objects: on them it accepts what
these rules refuse (a tuple, set or frozenset as a list; any Mapping, or a struct
instance, as an object; a str subclass or a str Enum member as a literal), and
proving a value free of those would walk it as `valid` does.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, NamedTuple, Union

import msgspec

Loc = tuple[Any, ...]
Error = tuple[Loc, str]
"""(location inside the entry, error type): ("content", 0, "text"), "string_type"."""

Valid = Callable[[Any], bool]
Errors = Callable[[Any, Loc, list[Error]], None]


class Checker(NamedTuple):
    """A declared type compiled: `valid` says whether `errors` would list anything (see the module docstring)."""

    valid: Valid
    errors: Errors


def _always(value: Any) -> bool:
    return True


def _nothing(value: Any, loc: Loc, out: list[Error]) -> None:
    return None


_ANY = Checker(_always, _nothing)


def _scalar(test: Valid, error_type: str) -> Checker:
    def errors(value: Any, loc: Loc, out: list[Error]) -> None:
        if not test(value):
            out.append((loc, error_type))

    return Checker(test, errors)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and value is not True and value is not False


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and value is not True and value is not False


def _is_bool(value: Any) -> bool:
    return value is True or value is False


def _is_none(value: Any) -> bool:
    return value is None


_SCALARS: dict[Any, Checker] = {
    str: _scalar(str.__instancecheck__, "string_type"),
    int: _scalar(_is_int, "int_type"),
    float: _scalar(_is_number, "float_type"),
    bool: _scalar(_is_bool, "bool_type"),
    type(None): _scalar(_is_none, "none_required"),
}
"""Strict types: no coercion (a bool is not an int, "1" is not a number); an int is a float."""
_SCALAR_TYPES: dict[Any, tuple[type, ...]] = {str: (str,), int: (int,), float: (int, float), bool: (bool,)}
"""What each scalar accepts by isinstance (a bool passes only where bool is declared)."""


def checker(kind: Any) -> Checker:
    """The compiled checker of a declared type (a model, a scalar, Any, a literal, a list, a dict or a union).

    Compiled once per type: a class (or Any) is cached as itself, any other type by its shape in
    declared order (typing's own equality takes `int | float` for `float | int`, whose errors come in
    the other order).
    """
    if typing.get_origin(kind) is None:
        return model_checker(kind)
    return _by_shape(_shape(kind), kind)


@functools.cache
def model_checker(model: Any) -> Checker:
    """The checker of a model (any class, or Any): classes compare by identity, so they are their own key."""
    return _compile(model)


def _shape(kind: Any) -> Any:
    """A key for a declared type that keeps the order of its arguments (and a literal option's type)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is None:
        return kind
    if origin is Literal:
        return Literal, tuple((type(option), option) for option in args)
    return origin, tuple(_shape(arg) for arg in args)


@functools.cache
def _by_shape(shape: Any, kind: Any) -> Checker:
    return _compile(kind)


def _compile(kind: Any) -> Checker:
    if kind is Any:
        return _ANY
    scalar = _SCALARS.get(kind)
    if scalar is not None:
        return scalar
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is None and isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        return _struct(kind)
    if origin is Literal:
        return _literal(args)
    if origin is list:
        return _list(checker(args[0]))
    if origin is dict:
        return _dict(checker(args[0]), checker(args[1]))
    if origin in (Union, types.UnionType):
        return _union(args)
    raise TypeError(f"schema models cannot declare {kind!r}")  # a new type needs its rule here


def _struct(model: type[msgspec.Struct]) -> Checker:
    """A struct's fields: its tag first (if tagged), then each present field checked and each absent
    required one missing, in declaration order; other keys are allowed.  A value that is not a dict
    is one "model_type" error."""
    config = model.__struct_config__
    tag_field = config.tag_field
    tag = checker(Literal[config.tag]) if tag_field is not None else None
    fields = tuple((info.name, info.required, checker(info.type)) for info in msgspec.structs.fields(model))
    tests = {name: found.valid for name, _, found in fields if found is not _ANY}
    required = tuple(name for name, needed, _ in fields if needed)
    width = len(fields)
    tag_valid = tag.valid if tag is not None else None
    text_tag = config.tag if type(config.tag) is str and _encodable(config.tag) else None  # str: checked inline

    def errors(value: Any, loc: Loc, out: list[Error]) -> None:
        if not isinstance(value, dict):
            out.append((loc, "model_type"))
            return
        if tag is not None:
            if tag_field not in value:
                out.append(((*loc, tag_field), "missing"))
            else:
                tag.errors(value[tag_field], (*loc, tag_field), out)
        for name, needed, field in fields:
            if name in value:
                item = value[name]
                if not field.valid(item):
                    field.errors(item, (*loc, name), out)
            elif needed:
                out.append(((*loc, name), "missing"))

    def valid(value: Any) -> bool:
        if type(value) is not dict:  # a dict subclass may answer `in` and `[]` its own way: ask `errors`
            if not isinstance(value, dict):
                return False
            found: list[Error] = []
            errors(value, (), found)
            return not found
        if text_tag is not None:
            found_tag = value.get(tag_field)  # absent: None, not the tag
            if type(found_tag) is not str or found_tag != text_tag:
                return False
        elif tag_valid is not None and (tag_field not in value or not tag_valid(value[tag_field])):
            return False
        for name in required:
            if name not in value:
                return False
        if len(value) <= width:  # few keys: each key's field (if the model has one), else each field's key
            for name, item in value.items():
                test = tests.get(name)
                if test is not None and not test(item):
                    return False
        else:
            for name, test in tests.items():
                if name in value and not test(value[name]):
                    return False
        return True

    return Checker(valid, errors)


def _literal(allowed: tuple[Any, ...]) -> Checker:
    def errors(value: Any, loc: Loc, out: list[Error]) -> None:
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate cannot equal a declared literal
                out.append((loc, "string_unicode"))
                return
        try:
            found = any(type(value) is type(option) and value == option for option in allowed)
        except TypeError:
            found = False
        if not found:
            out.append((loc, "literal_error"))

    if all(type(option) is str and _encodable(option) for option in allowed):
        options = frozenset(allowed)

        def valid(value: Any) -> bool:
            # an option's exact type is str; a string with a lone surrogate is none of the options
            return type(value) is str and value in options
    else:
        def valid(value: Any) -> bool:
            found: list[Error] = []
            errors(value, (), found)
            return not found

    return Checker(valid, errors)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _list(item: Checker) -> Checker:
    test = item.valid

    def errors(value: Any, loc: Loc, out: list[Error]) -> None:
        if not isinstance(value, list):
            out.append((loc, "list_type"))
            return
        for position, element in enumerate(value):
            if not test(element):
                item.errors(element, (*loc, position), out)

    if item is _ANY:
        def valid(value: Any) -> bool:
            return isinstance(value, list)
    else:
        def valid(value: Any) -> bool:
            if not isinstance(value, list):
                return False
            for element in value:  # a loop, not all(map()): no iterator objects for a short list
                if not test(element):
                    return False
            return True

    return Checker(valid, errors)


def _dict(key: Checker, item: Checker) -> Checker:
    """An object: each key, then its value, checked (both located at the key)."""
    def errors(value: Any, loc: Loc, out: list[Error]) -> None:
        if not isinstance(value, dict):
            out.append((loc, "dict_type"))
            return
        for name, element in value.items():
            if not key.valid(name):
                key.errors(name, (*loc, name), out)
            if not item.valid(element):
                item.errors(element, (*loc, name), out)

    key_test, item_test, any_item = key.valid, item.valid, item is _ANY

    def valid(value: Any) -> bool:
        if type(value) is not dict:  # a dict subclass may iterate its own way: ask `errors`
            if not isinstance(value, dict):
                return False
            found: list[Error] = []
            errors(value, (), found)
            return not found
        if any_item:
            for name in value:
                if not key_test(name):
                    return False
            return True
        for name, element in value.items():
            if not key_test(name) or not item_test(element):
                return False
        return True

    return Checker(valid, errors)


def _union(members: tuple[Any, ...]) -> Checker:
    """None is allowed by an optional type before anything else is tried; a union of tagged structs
    picks its member by the tag; any other union accepts what any member accepts, else every member's
    errors count (they are one spot to the caller)."""
    if type(None) in members:
        rest = tuple(member for member in members if member is not type(None))
        inner = checker(rest[0]) if len(rest) == 1 else _union(rest)
        inner_valid, inner_errors = inner

        def optional_valid(value: Any) -> bool:
            return value is None or inner_valid(value)

        def optional_errors(value: Any, loc: Loc, out: list[Error]) -> None:
            if value is not None:
                inner_errors(value, loc, out)

        return Checker(optional_valid, optional_errors)
    if all(_tagged(member) for member in members):
        return _tagged_union(members)
    compiled = tuple(checker(member) for member in members)
    tests = tuple(found.valid for found in compiled)

    if all(member in _SCALAR_TYPES for member in members):  # int | float: one isinstance
        kinds = tuple(kind for member in members for kind in _SCALAR_TYPES[member])
        if bool in members:
            def valid(value: Any) -> bool:
                return isinstance(value, kinds)
        else:
            def valid(value: Any) -> bool:
                return isinstance(value, kinds) and value is not True and value is not False
    elif len(tests) == 2:
        first, second = tests

        def valid(value: Any) -> bool:
            return first(value) or second(value)
    else:
        def valid(value: Any) -> bool:
            for test in tests:
                if test(value):
                    return True
            return False

    def errors(value: Any, loc: Loc, out: list[Error]) -> None:
        if valid(value):
            return
        for found in compiled:
            found.errors(value, loc, out)

    return Checker(valid, errors)


def _tagged(kind: Any) -> bool:
    return (typing.get_origin(kind) is None and isinstance(kind, type) and issubclass(kind, msgspec.Struct)
            and kind.__struct_config__.tag_field is not None)


def _tagged_union(members: tuple[Any, ...]) -> Checker:
    """Not a dict: "model_attributes_type"; no tag: "union_tag_not_found"; a tag no member has (or not a
    string): "union_tag_invalid"; else the errors of the first member with that tag."""
    tag_field = members[0].__struct_config__.tag_field
    tags = tuple((member.__struct_config__.tag, checker(member)) for member in members)
    by_tag: dict[Any, Checker] = {}
    for tag, found in tags:
        by_tag.setdefault(tag, found)
    valid_by_tag = {tag: found.valid for tag, found in by_tag.items()}

    def chosen(tag: Any) -> Checker | None:
        if type(tag) is str:
            return by_tag.get(tag)
        if not isinstance(tag, str):
            return None
        return next((found for option, found in tags if option == tag), None)  # a str subclass: compared as typed

    def valid(value: Any) -> bool:
        if not isinstance(value, dict) or tag_field not in value:
            return False
        tag = value[tag_field]
        if type(tag) is str:
            test = valid_by_tag.get(tag)
            return test is not None and test(value)
        found = chosen(tag)
        return found is not None and found.valid(value)

    def errors(value: Any, loc: Loc, out: list[Error]) -> None:
        if not isinstance(value, dict):
            out.append((loc, "model_attributes_type"))
            return
        if tag_field not in value:
            out.append((loc, "union_tag_not_found"))
            return
        found = chosen(value[tag_field])
        if found is None:
            out.append((loc, "union_tag_invalid"))
            return
        found.errors(value, loc, out)

    return Checker(valid, errors)
