"""Light records for what `check` builds on every file: verdicts, counts, findings, violations.

`check` on a small file asks every provider about it and prints a diagnosis; with
those records as pydantic models, importing pydantic and building their schemas
was most of its start-up (0.17-0.21 s against 0.07 s for `repair`).  These are
msgspec structs instead (msgspec is already loaded to read the file): typed,
compared and printed field by field, with the pydantic names the rest of the code,
the pages and API users call (`model_copy`, `model_dump`, `model_dump_json`,
`model_validate`, `model_fields`), and they nest inside the full report's pydantic
models, which serialize them through the same `model_dump`, so a report's bytes do
not depend on which kind of record a part is.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar, TypeVar

import msgspec

R = TypeVar("R", bound="Record")


class _FieldNames:
    """`Model.model_fields`: the field names in declaration order (pydantic's mapping, keys only used)."""

    def __get__(self, obj: object, owner: type) -> dict[str, None]:
        return dict.fromkeys(owner.__struct_fields__)  # type: ignore[attr-defined]


def _plain(value: Any, json: bool) -> Any:
    """A field's value as pydantic dumps it: records as their dicts, enums as values in JSON mode."""
    if isinstance(value, Record):
        return value.model_dump(mode="json" if json else "python")
    if isinstance(value, list):
        return [_plain(item, json) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item, json) for key, item in value.items()}
    if json and isinstance(value, Enum):
        return value.value
    return value


class Record(msgspec.Struct, frozen=True, kw_only=True):
    """A typed, frozen record with the pydantic methods this project uses, without pydantic.

    Subclasses name the fields left out of a dump when None (`_drop_none`) or when
    empty or zero (`_drop_empty`), as the pydantic serializers they replace did.
    """

    _drop_none: ClassVar[tuple[str, ...]] = ()
    _drop_empty: ClassVar[tuple[str, ...]] = ()
    model_fields: ClassVar[Any] = _FieldNames()

    @classmethod
    def _before(cls, data: Any) -> Any:
        """Reshape input before validation (older stored shapes); identity unless a record needs it."""
        return data

    @classmethod
    def model_validate(cls: type[R], data: Any) -> R:
        """The record from a dict (JSON data), types checked; ValueError (msgspec's) names the bad field."""
        if isinstance(data, cls):
            return data
        return msgspec.convert(cls._before(data), cls, strict=False)

    def model_copy(self: R, update: dict[str, Any] | None = None) -> R:
        """A copy with some fields replaced (not validated, as in pydantic), extra attributes kept."""
        copy = msgspec.structs.replace(self, **(update or {}))
        extra = getattr(self, "__dict__", None)
        if extra:
            copy.__dict__.update(extra)
        return copy

    def model_dump(self, mode: str = "python", exclude: set[str] | None = None) -> dict[str, Any]:
        """The record as a dict: nested records as dicts; in JSON mode, enums as their values."""
        json = mode == "json"
        data = {name: _plain(getattr(self, name), json) for name in self.__struct_fields__
                if not exclude or name not in exclude}
        for name in self._drop_none:
            if name in data and data[name] is None:
                del data[name]
        for name in self._drop_empty:
            if name in data and not data[name]:
                del data[name]
        return data

    def model_dump_json(self, indent: int | None = None) -> str:
        """The record as JSON text, compact or indented."""
        encoded = msgspec.json.encode(self.model_dump(mode="json"))
        return (msgspec.json.format(encoded, indent=indent) if indent else encoded).decode()

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """Nest in a pydantic model: validated by model_validate, serialized by model_dump."""
        from pydantic_core import core_schema

        def serialize(record: Record, info: Any) -> Any:
            return record.model_dump(mode="json" if info.mode_is_json() else "python")

        return core_schema.no_info_plain_validator_function(
            cls.model_validate,
            serialization=core_schema.plain_serializer_function_ser_schema(serialize, info_arg=True))
