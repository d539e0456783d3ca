"""The quick pass's bound on string length: a request that may hold a string its target refuses is not plainly
healthy.

OpenAI refuses a request holding one string above 10,485,760 characters (providers.strings: string_too_long), and
the full check cuts such a text in the view it sends (a `text_cut` repair).  The quick pass (integrity.guards._fast)
reads ids and roles, not text, so before this bound it let such a request through as healthy: the guard sent what
`check` calls rejected, and the provider answered 400 on every later call of the session.

The bound is on what the full check could write, whatever the runtime's shape: every string of an entry (keys
too), every scalar and every container, walked through dicts, lists, tuples and objects' fields (a LangChain
message, a google.genai Content, a pydantic-ai part).  A writer may join an entry's texts into one string or write
a structured value as JSON, whose escapes make a character at most 12 (an astral character with ASCII escapes:
\\ud83d\\ude00); so an entry whose measure, times 12, stays within the limit cannot hold a string the target refuses,
and any other entry (about 870,000 characters and more) is left to the full check, which decides exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

WIDEST = 12
"""The most characters JSON writes for one character of a string (an astral character as two \\u escapes)."""
SCALAR = 32
"""What a number, a boolean or null may take written (a float's repr is at most 24 characters)."""
MOST_NODES = 100_000
"""Values read in one entry before it is left to the full check (an object graph no message has)."""


def limit_for(target: str | None, format: str) -> int | None:
    """The string limit the quick pass holds a request to: the target's (ProviderSpec.string_limit), or with no
    target that of the provider the request's format implies, as the full check judges it (plain_id's rule);
    None when there is none."""
    from ..providers import SPECS

    spec = SPECS.get(target if target is not None else format)
    return spec.string_limit if spec is not None else None


def any_oversized(entries: Iterable[Any], limit: int) -> bool:
    """Whether one of the entries may hold a string above `limit` as the full check writes it (see the module)."""
    budget = limit // WIDEST
    return any(oversized(entry, budget) for entry in entries)


def oversized(entry: Any, budget: int) -> bool:
    """Whether the entry's measure (its strings' characters, with SCALAR per other value and two per container
    and string) passes `budget`; it stops reading as soon as it does."""
    total = 0
    nodes = 0
    stack = [entry]
    pop, extend = stack.pop, stack.extend
    while stack:
        value = pop()
        nodes += 1
        kind = type(value)
        if kind is str:
            total += len(value) + 2
        elif kind is dict:
            total += 2 + sum(len(key) + 4 if type(key) is str else SCALAR for key in value)
            extend(value.values())
        elif kind is list or kind is tuple:
            total += 2 + len(value)
            extend(value)
        elif value is None or kind is bool or kind is int or kind is float:
            total += SCALAR
        elif isinstance(value, str):  # a str Enum (a role), a str subclass
            total += len(value) + 2
        elif isinstance(value, (bytes, bytearray)):  # inline data, written as base64 (4 characters for 3 bytes)
            total += 2 * len(value) + 2
        elif isinstance(value, (int, float)):
            total += SCALAR
        else:
            fields = getattr(value, "__dict__", None)  # a model's or a dataclass's fields (a class's is no dict)
            if type(fields) is dict:
                total += 2 + sum(len(key) + 4 for key in fields)
                extend(fields.values())
            else:
                slots = getattr(type(value), "__slots__", ())
                extend(getattr(value, name, None) for name in ((slots,) if isinstance(slots, str) else slots))
                total += SCALAR
        if total > budget or nodes > MOST_NODES:
            return True
    return False
