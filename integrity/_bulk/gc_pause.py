"""Pausing Python's cyclic garbage collector around one engine call.

The engine creates no reference cycles, but a caller's transcript is millions of
parsed dicts: every collection the engine's allocations trigger rescans all of
them, which costs more than the repair itself at a million messages.  The pause
covers one call and restores exactly the state the caller had (a caller who
turned the collector off keeps it off; nested pauses are harmless).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic GC is off inside the block and back to the caller's state after it, even on error."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def without_gc(function: Callable[P, R]) -> Callable[P, R]:
    """Decorator form of gc_paused for the public entry points."""

    @wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return function(*args, **kwargs)

    return paused
