"""What every format family's schema module shares: the issue record, the models' two validators, the errors.

A schema module declares small input models (extra fields allowed: only what the
engine or the format relies on is checked) and turns each validation error into
an `Issue`: a finding code from the kind registry, the entry, the path inside it
and one sentence.  Mapping an error to a code is the family's business (its
`classify`); dropping the noise unions produce and wording the sentence is done
here once.

Each model is declared once, as a msgspec struct (`Open`), and compiled once
into a checker (integrity.schema._compiled) that says "valid" without allocating
and lists every error of an invalid entry (where, and what kind: "missing",
"string_type", ...) with strict types and no coercion (pydantic strict mode's rules
and error types: the findings read as they did when pydantic listed them).  Most
entries are valid; for entries decoded from JSON text (`json_input`) msgspec says
"valid" in C, faster still.  msgspec is not trusted for Python objects: on them it
is more lenient (a tuple passes as a list, a mapping proxy as an object, a str
Enum member as a literal), so a hand-built transcript is judged by the checker.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Union

import msgspec

from ..kinds import FindingCode
from ..loading import describe_value
from ._compiled import Error as Error  # the families import the location and error types from here
from ._compiled import Loc as Loc
from ._compiled import model_checker


class Open(msgspec.Struct):
    """An input model: strict types for the fields it names, any other field allowed.

    A model whose required fields follow optional ones (by inheritance) adds
    `kw_only=True`; a content part told apart by its type is tagged
    (`tag_field="type", tag="text"`), and a union of tagged parts picks its
    member by the tag (an unknown or absent tag is one error at the part).
    """


_JSON_INPUT: ContextVar[bool] = ContextVar("json_input", default=False)


@contextmanager
def json_input(trusted: bool) -> Iterator[None]:
    """While open, entries are known to hold only JSON's types, so msgspec's verdict "valid" is final."""
    token = _JSON_INPUT.set(trusted)
    try:
        yield
    finally:
        _JSON_INPUT.reset(token)


def tagged(model: type[Open], tag_field: str, tag: str, types: dict[str, Any] | None = None) -> type:
    """`model` as a struct tagged `tag` on `tag_field` (a field of that name left out), its fields' types replaced
    where `types` names them: the model itself, as a member of a union one msgspec pass picks by tag (the schema
    checks' passes over a whole file: openai._all_plain_chat, pi_ai.all_plain), so they cannot drift from it."""
    spec: Any = msgspec.field  # (a field's default and factory copied as they are: NODEFAULT where unset)
    fields = [(field.name, (types or {}).get(field.name, field.type),
               spec(default=field.default, default_factory=field.default_factory, name=field.encode_name))
              for field in msgspec.structs.fields(model) if field.name != tag_field]
    return msgspec.defstruct(f"{model.__name__}_{tag}", fields, tag_field=tag_field, tag=tag, kw_only=True,
                             module=model.__module__)


def one_of(kinds: Iterable[Any]) -> Any:
    """The union of these types, made at run time (tagged structs: msgspec picks a member by its tag)."""
    return Union[tuple(kinds)]  # noqa: UP007 (a union of a tuple of classes)


def list_of(kinds: Iterable[Any]) -> Any:
    """A list of the union of these types (one_of), as msgspec converts a whole file's entries at once."""
    return list[one_of(kinds)]  # type: ignore[misc]


def all_converted(values: Any, kind: Any) -> Any:
    """`values` converted to `kind` by msgspec, strictly, in one pass; None when it refuses them or they were not
    decoded from JSON text (trusts_json: msgspec is more lenient with other Python objects), so that a caller
    proving a whole file well-formed at once checks it value by value instead."""
    if not _JSON_INPUT.get():
        return None
    try:
        return msgspec.convert(values, kind, strict=True)
    except (msgspec.ValidationError, ValueError, RecursionError):  # (ValueError: a lone surrogate: see accepts)
        return None


def accepts(model: type[Open], entry: Any) -> bool:
    """msgspec's verdict on a JSON value (decoded from JSON text): True only if `model_errors` finds nothing either.

    msgspec reads a tagged struct's tag only inside a union: on its own, a part
    without its tag would pass, so the tag is checked here (`model_errors` requires it).
    """
    tag_field = model.__struct_config__.tag_field
    if tag_field is not None and (not isinstance(entry, dict) or entry.get(tag_field) != model.__struct_config__.tag):
        return False
    try:
        msgspec.convert(entry, model, strict=True)
    except (msgspec.ValidationError, ValueError, RecursionError):
        # ValueError: a lone surrogate ("\ud800", legal JSON) in a string msgspec compares to a
        # literal cannot be encoded; `model_errors` then decides, as for any entry msgspec refuses.
        return False
    return True


def model_errors(model: type[Open], entry: Any) -> list[Error]:
    """Every error of an entry against an input model, in field order (the rules: integrity.schema._compiled)."""
    out: list[Error] = []
    model_checker(model).errors(entry, (), out)
    return out


@dataclass(frozen=True)
class Issue:
    """One malformed spot of one native entry.

    entry: the index of the native entry (its line is looked up by the caller).
    path: where inside the entry, as a JSON path relative to it ("content[0].id"; "" for the entry).
    """

    code: FindingCode
    entry: int
    path: str
    detail: str


Classify = Callable[[Loc, str], FindingCode]
"""(location, error type) -> the finding code for it."""
Expect = Callable[[Loc], "str | None"]
"""clean location -> what belongs there ("a string or an array of parts"), for the sentence."""


def json_path(loc: Iterable[Any]) -> str:
    """'content[0].id' for ('content', 0, 'id')."""
    text = ""
    for item in loc:
        if isinstance(item, int):
            text += f"[{item}]"
        else:
            text += f".{item}" if text else str(item)
    return text


def value_at(entry: Any, loc: Loc) -> tuple[bool, Any]:
    """(found, value) at a clean location inside an entry."""
    value = entry
    for item in loc:
        try:
            value = value[item]
        except (KeyError, IndexError, TypeError):
            return False, None
    return True, value


def _detail(code: FindingCode, loc: Loc, error_type: str, found: bool, value: Any, expected: str | None) -> str:
    where = json_path(loc) or "the entry"
    if error_type == "missing" or not found:
        return f"'{where}' is missing"
    if error_type == "union_tag_invalid" and isinstance(value, dict):
        return f"'{where}' has an unknown part type {_short(value.get('type'))}"
    if error_type == "union_tag_not_found":
        return f"'{where}' has no 'type'"
    if code is FindingCode.INVALID_ARGUMENTS:
        return f"'{where}' must be a JSON object, got {describe_value(value)}"
    if code in (FindingCode.NON_STRING_ID, FindingCode.CALL_WITHOUT_NAME):
        expected = "a string"
    got = describe_value(value)
    if value is not None and not isinstance(value, (dict, list)):
        got += f" ({_short(value)})"
    return f"'{where}' must be {expected}, got {got}" if expected else f"'{where}' is {got}, which is not valid here"


def _short(value: Any) -> str:
    """The value as JSON, cut to 40 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def issues_of(errors: list[Error], entry: Any, index: int, classify: Classify, prefix: Loc = (),
              expect: Expect | None = None) -> list[Issue]:
    """One issue per malformed spot of one entry (a union's alternatives are one spot)."""
    deeper = {loc[:depth] for loc, _ in errors for depth in range(len(loc))}
    seen: set[tuple[FindingCode, Loc]] = set()
    out: list[Issue] = []
    for loc, error_type in errors:
        if error_type.endswith("_type") and loc in deeper:
            continue  # "not a string" next to errors inside the list the value is: the list is what it is
        code = classify(loc, error_type)
        if (code, loc) in seen:
            continue
        seen.add((code, loc))
        found, value = value_at(entry, loc)
        full = prefix + loc
        expected = expect(loc) if expect is not None else None
        out.append(Issue(code, index, json_path(full), _detail(code, full, error_type, found, value, expected)))
    return out


def validate(model: type[Open], entry: Any, index: int, classify: Classify, prefix: Loc = (),
             expect: Expect | None = None) -> list[Issue]:
    """Validate one entry (or a part of it, at `prefix`) against an input model (see the module docstring)."""
    compiled = model_checker(model)
    if accepts(model, entry) if _JSON_INPUT.get() else compiled.valid(entry):
        return []
    errors: list[Error] = []
    compiled.errors(entry, (), errors)
    return issues_of(errors, entry, index, classify, prefix, expect) if errors else []


def role_issue(role: Any, known: Sequence[str], index: int, field: str = "role") -> Issue:
    """The unknown-role issue: missing, not a string, miscased (with the right spelling) or unknown."""
    if role is None:
        detail = f"the message has no '{field}'"
    elif not isinstance(role, str):
        detail = f"'{field}' must be a string, got {describe_value(role)}"
    else:
        match = next((name for name in known if name.lower() == role.lower()), None)
        if match is not None:
            detail = f"role {role!r} is miscased: the format's role is {match!r}"
        else:
            detail = f"role {_short(role)} is not one of this format's roles ({', '.join(known)})"
    return Issue(FindingCode.UNKNOWN_ROLE, index, field, detail)


def each_entry(entries: list[Any], check: Callable[[dict[str, Any], int], Iterable[Issue | None]],
               what: str = "message") -> list[Issue]:
    """`check(entry, index)` of every object entry, in entry order; any other entry is not a `what`."""
    issues: list[Issue] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            issues.append(not_a_message(entry, index, what))
            continue
        issues.extend(found for found in check(entry, index) if found is not None)
    return issues


def not_a_message(entry: Any, index: int, what: str = "message") -> Issue:
    return Issue(FindingCode.NOT_A_MESSAGE, index, "", f"expected a {what} object, got {describe_value(entry)}")


def arguments_issue(value: Any, index: int, path: str, text: bool) -> Issue | None:
    """Tool call arguments must be a JSON object; `text`: the format sends them as JSON text of one.

    Absent arguments, and the empty text some writers send for a call without arguments, are fine.
    """
    if value is None or (text and value == ""):
        return None
    if text and isinstance(value, str):
        from ..formats.container import loads  # NaN, overflow and deep nesting are ValueErrors, never a crash

        try:
            parsed = loads(value)
        except ValueError:
            return Issue(FindingCode.INVALID_ARGUMENTS, index, path,
                         f"'{path}' is not valid JSON text: {_short(value)}")
        if isinstance(parsed, dict):
            return None
        return Issue(FindingCode.INVALID_ARGUMENTS, index, path,
                     f"'{path}' must be the JSON text of an object, got the JSON text of {describe_value(parsed)}")
    if isinstance(value, dict):
        return None
    return Issue(FindingCode.INVALID_ARGUMENTS, index, path,
                 f"'{path}' must be a JSON object, got {describe_value(value)}")


def id_issue(container: Any, key: str, index: int, path: str, call: bool) -> Issue | None:
    """A call's id (call=True) or a result's call id at container[key]: present and a string."""
    if not isinstance(container, dict):
        return None
    value = container.get(key)
    if isinstance(value, str):
        return None
    if value is None and key not in container:
        code = FindingCode.CALL_WITHOUT_ID if call else FindingCode.RESULT_WITHOUT_CALL_ID
        return Issue(code, index, path, f"'{path}' is missing")
    shown = "" if value is None or isinstance(value, (dict, list)) else f" ({_short(value)})"
    return Issue(FindingCode.NON_STRING_ID, index, path,
                 f"'{path}' must be a string, got {describe_value(value)}{shown}")


def by_field(call_ids: Iterable[str] = (), result_ids: Iterable[str] = (), names: Iterable[str] = (),
             arguments: Iterable[str] = (), default: FindingCode = FindingCode.INVALID_CONTENT) -> Classify:
    """A classifier by the name of the field in error (the last name in its location).

    call_ids / result_ids: fields holding a call's id / a result's call id; names: a call's
    tool name; arguments: a call's arguments; anything else is `default`.
    """
    calls, results, named, args = set(call_ids), set(result_ids), set(names), set(arguments)

    def classify(loc: Loc, error_type: str) -> FindingCode:
        last = next((item for item in reversed(loc) if isinstance(item, str)), None)
        if last in calls:
            return FindingCode.CALL_WITHOUT_ID if error_type == "missing" else FindingCode.NON_STRING_ID
        if last in results:
            return FindingCode.RESULT_WITHOUT_CALL_ID if error_type == "missing" else FindingCode.NON_STRING_ID
        if last in named:
            return FindingCode.CALL_WITHOUT_NAME
        if last in args:
            return FindingCode.INVALID_ARGUMENTS
        return default

    return classify


def check_part(models: dict[Any, tuple[type[Open], Classify]], part: Any, index: int, path: Loc,
               key: str = "type", unknown: type[Open] | None = None) -> list[Issue]:
    """Validate one content part by the model its `key` (its type) names.

    A part that is not an object, or has no string type, is invalid content; a type
    the family does not model is validated by `unknown` (None: accepted as it is).
    """
    where = json_path(path)
    if not isinstance(part, dict):
        return [Issue(FindingCode.INVALID_CONTENT, index, where,
                      f"'{where}' must be a content part object, got {describe_value(part)}")]
    kind = part.get(key)
    if not isinstance(kind, str):
        return [Issue(FindingCode.INVALID_CONTENT, index, where,
                      f"'{where}' has no '{key}'" if kind is None else
                      f"'{where}.{key}' must be a string, got {describe_value(kind)}")]
    found = models.get(kind)
    if found is None:
        if unknown is None:
            return []
        found = (unknown, by_field())
    model, classify = found
    return validate(model, part, index, classify, path)
