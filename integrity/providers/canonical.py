"""Carrying violations from native request indices back to canonical transcript indices.

The rule sets work on the native request, but a user reads the canonical
transcript (and its durable entries).  A format writer knows which canonical
messages became each native entry; given that grouping, this module fills in
`canonical_indices` so every violation also points at the messages to fix.
"""

from __future__ import annotations

from typing import Sequence

from .violation import Violation


def with_canonical_indices(violations: Sequence[Violation], groups: Sequence[Sequence[int]]) -> list[Violation]:
    """Copies of the violations with `canonical_indices` set.

    groups[i] lists the canonical message indices written as native entry i (for example
    several toolResult messages merged into one Anthropic user message).  Native indices
    with no group (past the end of the request) contribute nothing.
    """
    mapped = []
    for violation in violations:
        canonical = sorted({c for n in violation.native_indices if 0 <= n < len(groups) for c in groups[n]})
        mapped.append(violation.model_copy(update={"canonical_indices": canonical}))
    return mapped
