"""Typed records for the report and the verdict: msgspec structs with the pydantic names we use.

`check` builds a diagnosis and every provider's violations for each file, and
`check --json` a report of about two entries per message.  As pydantic models,
importing pydantic and building their schemas was most of `check`'s start-up
(0.17-0.21 s against 0.07 s for `repair`), and validating and serializing a
200,000-message report took about 1.2 s of `check --json`'s 3.95 s (2.75 s as
structs; same bytes).  As msgspec structs (msgspec already
reads the files) they are typed, validated from JSON data, encoded in C and small
in memory (no per-object dict).  They keep the pydantic method names the pages,
the tests and API users call (`model_copy`, `model_dump`, `model_dump_json`,
`model_validate`, `model_validate_json`, `model_fields`).

Serialization rules are declarative: a record class with `omit_defaults=True` leaves
out fields equal to their default (the optional fields older reports lacked), and
fields that must always appear have no default (a `_before` hook fills them in for
older input).  So the C encoder alone writes a report, byte for byte as before.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar, TypeVar

import msgspec

R = TypeVar("R", bound="_Methods")


class _FieldNames:
    """`Model.model_fields`: the field names in declaration order (pydantic's mapping, keys only used)."""

    def __get__(self, obj: object, owner: type) -> dict[str, None]:
        return dict.fromkeys(owner.__struct_fields__)  # type: ignore[attr-defined]


def _python(value: Any, json: bool) -> Any:
    """A value as plain data by walking it in Python (enums kept unless json): the path for lone
    surrogates, which msgspec refuses to encode, and for python-mode dumps."""
    if isinstance(value, _Methods):
        return value._fields_dict(json)
    if isinstance(value, list):
        return [_python(item, json) for item in value]
    if isinstance(value, dict):
        return {(str(key) if json else key): _python(item, json) for key, item in value.items()}
    if json and isinstance(value, Enum):
        return value.value
    return value


class _Methods:
    """The pydantic-named methods every record has (a mixin: records are frozen or not)."""

    __slots__ = ()
    __struct_fields__: ClassVar[tuple[str, ...]]
    model_fields: ClassVar[Any] = _FieldNames()

    @classmethod
    def _before(cls, data: Any) -> Any:
        """Reshape input before validation (older stored shapes); identity unless a record needs it."""
        return data

    @classmethod
    def model_validate(cls: type[R], data: Any) -> R:
        """The record from JSON data, types checked (msgspec.ValidationError, a ValueError, names the path)."""
        if isinstance(data, cls):
            return data
        return msgspec.convert(cls._before(data), cls, strict=False)

    @classmethod
    def model_validate_json(cls: type[R], text: str | bytes) -> R:
        return cls.model_validate(msgspec.json.decode(text))

    def model_copy(self: R, update: dict[str, Any] | None = None) -> R:
        """A copy with some fields replaced (not validated, as in pydantic), extra attributes kept."""
        copy = msgspec.structs.replace(self, **(update or {}))  # type: ignore[type-var]
        extra = getattr(self, "__dict__", None)
        if extra:
            copy.__dict__.update(extra)
        return copy

    def _fields_dict(self, json: bool) -> dict[str, Any]:
        config = self.__struct_config__  # type: ignore[attr-defined]
        out = {}
        for field in msgspec.structs.fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if config.omit_defaults and field.default is not msgspec.NODEFAULT and value == field.default:
                continue
            if config.omit_defaults and field.default_factory is not msgspec.NODEFAULT and \
                    value == field.default_factory():
                continue
            out[field.encode_name] = _python(value, json)
        if config.tag_field is not None:
            out = {config.tag_field: config.tag, **out}
        return out

    def model_dump(self, mode: str = "python", exclude: set[str] | None = None) -> dict[str, Any]:
        """The record as a dict, with what the JSON has (in JSON mode: enums as values, string keys)."""
        json = mode == "json"
        data: dict[str, Any]
        if json:
            try:
                data = msgspec.to_builtins(self, str_keys=True)
            except UnicodeEncodeError:  # a lone surrogate: msgspec refuses it, json.dumps escapes it
                data = self._fields_dict(True)
        else:
            data = self._fields_dict(False)
        for name in exclude or ():
            data.pop(name, None)
        return data

    def model_dump_json(self, indent: int | None = None) -> str:
        """The record as JSON text, compact or indented; UnicodeEncodeError for a lone surrogate."""
        encoded = msgspec.json.encode(self)
        return (msgspec.json.format(encoded, indent=indent) if indent else encoded).decode()


def invalid_where(error: ValueError) -> tuple[str, str]:
    """(where, what) of a validation error: msgspec writes "Expected `int`, got `str` - at `$.summary.messages`";
    this gives ("summary.messages", "Expected `int`, got `str`"), or ("top level", ...) without a path."""
    text = str(error)
    what, separator, where = text.rpartition(" - at `$")
    if not separator or not where.endswith("`"):
        return "top level", text
    return where[:-1].lstrip(".") or "top level", what


class Record(msgspec.Struct, _Methods, kw_only=True):
    """A typed record (mutable: a report fills in what an older one lacks after validation)."""


class FrozenRecord(msgspec.Struct, _Methods, frozen=True, kw_only=True):
    """A typed, frozen record."""
