"""The one record every provider rule set returns.

A reviewer has to see a failing request the way the provider reports it: which
rule broke, where the provider points (its own position syntax), which native
messages and call ids are involved, and the error text the provider sends back.
Keeping one frozen record for all providers lets the CLI, the report and the
tests treat every rule set alike and serialize the result as JSON.  It is a light
record (integrity._records), not a pydantic model: `check` builds these for every
provider on every small file, and pydantic's import alone would double its start-up.
"""

from __future__ import annotations

import re

import msgspec

from .._records import FrozenRecord


class Violation(FrozenRecord, frozen=True, kw_only=True):
    """One reason a provider would reject the request, with the provider's own words."""

    provider: str
    rule: str
    """short stable id, e.g. tool_calls_unanswered"""
    position: str
    """where the provider points, in its own syntax (messages.3, input[5])"""
    native_indices: list[int] = msgspec.field(default_factory=list)
    """native request indices involved"""
    call_ids: list[str] = msgspec.field(default_factory=list)
    error: str
    """the error text the provider returns, filled in"""
    canonical_indices: list[int] | None = None
    """canonical (pi-ai) message indices, set only by validate() on canonical input"""


def sort_violations(violations: list[Violation]) -> list[Violation]:
    """Order by first native index, then rule id, so output is stable and reads top-down."""
    return sorted(violations, key=lambda v: (v.native_indices[0] if v.native_indices else -1, v.rule))


def said(violation: Violation) -> str:
    """A provider's error with its position, as `check` and `repair` say it; many texts name the position already
    (open with it, or quote it: "Invalid 'messages[2]'. Image URLs are only allowed ..."): never say it twice.  A
    position is named only as itself ("messages.1" is not named by "messages.12.content")."""
    error, position = violation.error, violation.position
    named = re.search(re.escape(position) + r"(?![0-9])", error) is not None if position else True
    return error if named else f"{position}: {error}"
