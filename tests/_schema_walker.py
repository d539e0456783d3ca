"""The schema models' interpretive walker, kept as the oracle of the compiled checkers.

This is integrity.schema.base's walker as it was before the models were compiled
(integrity.schema._compiled), verbatim: it reads each model's declaration on every
value (typing.get_origin / get_args).  It is slow, and obviously the rules; the
property test (tests/test_schema_compiled.py) holds the compiled checkers to it.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

import msgspec

from integrity.schema.base import Open

Loc = tuple[Any, ...]
Error = tuple[Loc, str]


def model_errors(model: type[Open], entry: Any) -> list[Error]:
    """Every error of an entry against an input model, in field order (see `_errors` for the rules)."""
    out: list[Error] = []
    _struct(model, entry, (), "model_type", out)
    return out


def _struct(model: type[Open], value: Any, loc: Loc, wrong: str, out: list[Error]) -> None:
    """A struct's fields: its tag first (if tagged), then each present field checked and each absent
    required one missing, in declaration order; other keys are allowed.  wrong: the error for a value
    that is not an object."""
    if not isinstance(value, dict):
        out.append((loc, wrong))
        return
    config = model.__struct_config__
    if config.tag_field is not None:
        if config.tag_field not in value:
            out.append(((*loc, config.tag_field), "missing"))
        else:
            _errors(Literal[config.tag], value[config.tag_field], (*loc, config.tag_field), out)
    for info in _fields(model):
        if info.name in value:
            _errors(info.type, value[info.name], (*loc, info.name), out)
        elif info.required:
            out.append(((*loc, info.name), "missing"))


@functools.cache
def _fields(model: type[Open]) -> tuple[msgspec.structs.FieldInfo, ...]:
    return msgspec.structs.fields(model)


_SCALARS: dict[Any, tuple[Callable[[Any], bool], str]] = {
    str: (lambda value: isinstance(value, str), "string_type"),
    int: (lambda value: isinstance(value, int) and not isinstance(value, bool), "int_type"),
    float: (lambda value: isinstance(value, (int, float)) and not isinstance(value, bool), "float_type"),
    bool: (lambda value: isinstance(value, bool), "bool_type"),
    type(None): (lambda value: value is None, "none_required"),
}
"""Strict types: no coercion (a bool is not an int, "1" is not a number); an int is a float."""


def _errors(kind: Any, value: Any, loc: Loc, out: list[Error]) -> None:
    """The errors of a value against a declared type, strictly (JSON's types only, no coercion).

    A list must be a list (not a tuple), an object a dict with string keys; a union
    accepts what any alternative accepts, else every alternative's errors count (they
    are one spot to the caller); None is allowed by an optional type before anything
    else is tried; a union of tagged structs picks its member by the tag.
    """
    if kind is Any:
        return
    scalar = _SCALARS.get(kind)
    if scalar is not None:
        if not scalar[0](value):
            out.append((loc, scalar[1]))
        return
    if isinstance(kind, type) and issubclass(kind, Open):
        _struct(kind, value, loc, "model_type", out)
        return
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is Literal:
        _literal(args, value, loc, out)
    elif origin is list:
        if not isinstance(value, list):
            out.append((loc, "list_type"))
            return
        for position, item in enumerate(value):
            _errors(args[0], item, (*loc, position), out)
    elif origin is dict:
        if not isinstance(value, dict):
            out.append((loc, "dict_type"))
            return
        for key, item in value.items():
            _errors(args[0], key, (*loc, key), out)
            _errors(args[1], item, (*loc, key), out)
    elif origin in (Union, types.UnionType):
        _union(args, value, loc, out)
    else:
        raise TypeError(f"schema models cannot declare {kind!r}")  # a new type needs its rule here


def _literal(allowed: tuple[Any, ...], value: Any, loc: Loc, out: list[Error]) -> None:
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


def _union(members: tuple[Any, ...], value: Any, loc: Loc, out: list[Error]) -> None:
    if type(None) in members:
        if value is None:
            return
        members = tuple(member for member in members if member is not type(None))
        if len(members) == 1:
            _errors(members[0], value, loc, out)
            return
    if all(_tagged(member) for member in members):
        _tagged_union(members, value, loc, out)
        return
    found: list[Error] = []
    for member in members:
        errors: list[Error] = []
        _errors(member, value, loc, errors)
        if not errors:
            return
        found.extend(errors)
    out.extend(found)


def _tagged_union(members: tuple[type[Open], ...], value: Any, loc: Loc, out: list[Error]) -> None:
    if not isinstance(value, dict):
        out.append((loc, "model_attributes_type"))
        return
    tag_field = members[0].__struct_config__.tag_field
    if tag_field not in value:
        out.append((loc, "union_tag_not_found"))
        return
    tag = value[tag_field]
    chosen = next((member for member in members if isinstance(tag, str) and member.__struct_config__.tag == tag), None)
    if chosen is None:
        out.append((loc, "union_tag_invalid"))
        return
    _struct(chosen, value, loc, "model_attributes_type", out)


def _tagged(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, Open) and kind.__struct_config__.tag_field is not None


def type_errors(kind: Any, value: Any) -> list[Error]:
    """Every error of a value against any declared type (a field's, a list item's, a union's)."""
    out: list[Error] = []
    _errors(kind, value, (), out)
    return out
