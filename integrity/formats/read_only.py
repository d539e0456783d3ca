"""The writer half of a read-only format's adapter, written once.

A format the engine reads but never writes in its own shape (READ_ONLY = True) writes its views in
the format its module names as WRITES_AS, so its own writer functions are never called; the adapter
protocol still asks for them.  Each read-only module imports these three instead of repeating them.
"""

from __future__ import annotations

from typing import Any

from .base import BuildContext


def groups(messages: list[dict[str, Any]]) -> list[list[int]]:
    """Read-only: the view is written in WRITES_AS (never called for a read-only format)."""
    raise NotImplementedError("a read-only format is written in its WRITES_AS format")


def build(messages: list[dict[str, Any]], context: BuildContext) -> list[Any]:
    """Read-only: the view is written in WRITES_AS (never called for a read-only format)."""
    raise NotImplementedError("a read-only format is written in its WRITES_AS format")


def body(native: list[Any], hoisted: list[dict[str, Any]]) -> Any:
    """Read-only: the view is written in WRITES_AS; the entries are the body."""
    return native
