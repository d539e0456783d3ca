"""The one record every provider rule set returns.

A reviewer has to see a failing request the way the provider reports it: which
rule broke, where the provider points (its own position syntax), which native
messages and call ids are involved, and the error text the provider sends back.
Keeping one frozen pydantic model for all providers lets the CLI, the report and
the tests treat every rule set alike and serialize the result as JSON.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Violation(BaseModel):
    """One reason a provider would reject the request, with the provider's own words."""

    model_config = ConfigDict(frozen=True)

    provider: str
    rule: str = Field(description="short stable id, e.g. tool_calls_unanswered")
    position: str = Field(description="where the provider points, in its own syntax (messages.3, input[5])")
    native_indices: list[int] = Field(default_factory=list, description="native request indices involved")
    call_ids: list[str] = Field(default_factory=list)
    error: str = Field(description="the error text the provider returns, filled in")
    canonical_indices: list[int] | None = Field(
        None, description="canonical (pi-ai) message indices, set only by validate() on canonical input"
    )


def sort_violations(violations: list[Violation]) -> list[Violation]:
    """Order by first native index, then rule id, so output is stable and reads top-down."""
    return sorted(violations, key=lambda v: (v.native_indices[0] if v.native_indices else -1, v.rule))
