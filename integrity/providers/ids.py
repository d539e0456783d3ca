"""Call-id rules: which ids each provider takes, by pattern and length.

A call id is copied from one provider's transcript into another's request when a
session changes model, and the providers disagree on what an id may be: Anthropic
takes `^[a-zA-Z0-9_-]+$` (an id such as `Bash:12` or `call_1|fc_1` is refused),
OpenAI Chat at most 40 characters, OpenAI Responses and Bedrock Converse at most 64,
Mistral exactly nine letters or digits.  Each rule here was seen refused with the text
its provider module quotes; a rule whose refusal has not been seen (or was contradicted
by a recorded 200, as Bedrock's documented pattern was) is not one.  A missing or
non-string id is left to the rules that read it as "" (Mistral reads a call without an
`id` as "null" and refuses it: providers.mistral).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from hashlib import sha1
from itertools import compress
from typing import Any

from .chat_shape import role_of
from .spec import IdRule

ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]+")
MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")


def chat_ids(messages: Sequence[Any]) -> Iterator[tuple[int, int | None, str]]:
    """(message index, call position, id) of every string id in a Chat request: an assistant's
    `tool_calls[k].id` (position k) and a tool message's `tool_call_id` (position None)."""
    for index, message in enumerate(messages):
        role = role_of(message)
        if role == "assistant":
            calls = message.get("tool_calls")
            for position, call in enumerate(calls if isinstance(calls, list) else []):
                value = call.get("id") if isinstance(call, dict) else None
                if isinstance(value, str):
                    yield index, position, value
        elif role == "tool":
            value = message.get("tool_call_id")
            if isinstance(value, str):
                yield index, None, value


def anthropic_ids(messages: Sequence[Any]) -> Iterator[tuple[int, int, str, str]]:
    """(message index, block index, field, id) of every string `tool_use.id` and
    `tool_result.tool_use_id`, in request order (the positions are the request's own)."""
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block_index, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_use":
                value = block.get("id")
                if isinstance(value, str):
                    yield index, block_index, "tool_use.id", value
            elif kind == "tool_result":
                value = block.get("tool_use_id")
                if isinstance(value, str):
                    yield index, block_index, "tool_result.tool_use_id", value


def is_anthropic_id(value: str) -> bool:
    return ANTHROPIC_ID.fullmatch(value) is not None


_ID_BYTES = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def only_letters(values: list[str], extra: bytes = b"") -> bool:
    """Whether every value is a non-empty run of ASCII letters, digits and `extra`: all joined by newlines (in
    no such value, so an id holding one changes their count) and the allowed bytes deleted at C speed, with
    no per-id step and no more memory than the joined ids (a regex over them kept a backtracking stack as
    large again: 98 MB for 700,000 ids)."""
    if not values:
        return True
    joined = "\n".join(values)
    return joined.isascii() and joined.count("\n") == len(values) - 1 and "" not in values and \
        not joined.encode("ascii").translate(None, _ID_BYTES + extra + b"\n")


def all_anthropic_ids(values: list[str]) -> bool:
    """Whether every value is_anthropic_id (letters, digits, _ and -), checked over them all at once: a
    request's ids at C speed, and one by one only when one is refused."""
    return only_letters(values, b"_-")


def is_mistral_id(value: str) -> bool:
    return MISTRAL_ID.fullmatch(value) is not None


def mistral_taken(values: Sequence[str]) -> set[int]:
    """The positions of the values is_mistral_id takes, read at C speed: the pattern is asked only of the values
    of nine characters (a transcript whose every id Mistral refuses has none)."""
    nine = compress(range(len(values)), map((9).__eq__, map(len, values)))
    return {at for at in nine if is_mistral_id(values[at])}


def refused_positions(rule: IdRule, values: list[str]) -> list[int]:
    """The positions of the values the rule refuses ("" is no id: never refused), in order.  Mistral's rule is
    read at C speed (a length first, the pattern only for ids of nine characters): a transcript whose every id
    it refuses has a quarter of a million of them at 200,000 messages."""
    if rule.accepts is is_mistral_id:
        size = len(values)
        if not {0, 9} & set(map(len, values)):  # (one pass: no id of nine characters, no "": every one refused)
            return list(range(size))
        taken = mistral_taken(values)
        taken.update(compress(range(size), map("".__eq__, values)))
        return [at for at in range(size) if at not in taken] if taken else list(range(size))
    accepts = rule.accepts
    return [at for at, value in enumerate(values) if value != "" and not accepts(value)]


def _suffixed(base: str, attempt: int, limit: int) -> str:
    suffix = f"_{attempt}" if attempt else ""
    return base[: limit - len(suffix)] + suffix


def anthropic_rule() -> IdRule:
    """Letters, digits, _ and - only: every other character becomes _."""
    def make(value: str, attempt: int) -> str:
        return _suffixed(re.sub(r"[^a-zA-Z0-9_-]", "_", value) or "call", attempt, 10_000)

    return IdRule(is_anthropic_id, make, "Anthropic takes call ids of letters, digits, _ and - only", all_anthropic_ids)


def length_rule(limit: int, provider: str) -> IdRule:
    """At most `limit` characters: a longer id is cut (and numbered when the cut one is taken)."""
    return IdRule(lambda value: len(value) <= limit, lambda value, attempt: _suffixed(value, attempt, limit),
                  f"{provider} takes call ids of at most {limit} characters",
                  lambda values: max(map(len, values), default=0) <= limit)


def _utf8(text: str) -> bytes:
    """The text's UTF-8 bytes, a lone surrogate (a JSON `\\udXXX` escape, read and kept as it is) written as
    its three bytes rather than refused: an id holding one is hashed like any other."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def mistral_make(value: str, attempt: int) -> str:
    """Mistral's rule.make: nine hex digits of a hash of the id and the attempt (repair.new_ids remakes them)."""
    return sha1(_utf8(f"{value}\0{attempt}")).hexdigest()[:9]


def mistral_first_bits(value: str) -> int:
    """mistral_make(value, 0) as the integer its nine hex digits spell (the same hash's first 36 bits), without
    the text: repair.new_ids sorts a transcript's first attempts as integers to find the ones that meet."""
    try:  # (value + "\0" "0" is the f-string mistral_make hashes, made without formatting: one step per id)
        return _FROM_BYTES(sha1((value + "\x000").encode()).digest()[:5], "big") >> 4
    except (TypeError, UnicodeEncodeError):
        return _FROM_BYTES(sha1(_utf8(f"{value}\0{0}")).digest()[:5], "big") >> 4


_FROM_BYTES = int.from_bytes


def mistral_takes_some(values: Callable[[], Iterable[str]]) -> bool:
    """Whether is_mistral_id takes some of the values (each call of `values` gives them afresh): mistral_taken's
    reading, the pattern asked only of values of nine characters, without a list of them or a step per value."""
    return any(map(is_mistral_id, compress(values(), map((9).__eq__, map(len, values())))))


def mistral_rule() -> IdRule:
    """Exactly nine letters or digits: made from a hash of the refused id (the same id, the same new id)."""
    return IdRule(is_mistral_id, mistral_make, "Mistral takes call ids of exactly nine letters or digits",
                  _all_mistral_ids)


def _all_mistral_ids(values: list[str]) -> bool:
    """Whether is_mistral_id takes every value: the lengths first (one C-level pass, and what refuses the ids of a
    transcript recorded for another provider), the letters (only_letters: a join and a translate) only then."""
    return set(map(len, values)) <= {9} and only_letters(values)


def first_attempts(rule: IdRule, values: list[str]) -> list[str]:
    """rule.make(value, 0) of each value: Mistral's hashes made in one loop, without a call per id (the strict
    view renames every call of a transcript whose ids it refuses)."""
    if rule.make is mistral_make:
        try:
            return [sha1(f"{value}\0{0}".encode()).hexdigest()[:9] for value in values]
        except UnicodeEncodeError:  # (an id holding a lone surrogate)
            return [sha1(_utf8(f"{value}\0{0}")).hexdigest()[:9] for value in values]
    make = rule.make
    return [make(value, 0) for value in values]
