"""The repair policies: one record per policy, its planner and the behaviour that differs by policy.

Code that behaves differently by policy asks the policy's record (`POLICY[name].flag`), never
compares policy names.  Kept free of pydantic so the CLI starts fast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .plan import Plan, plan_openmaic
from .strict import plan_strict
from .views import LightTranscript, light_transcript


def _openmaic(light: LightTranscript, provider: str | None = None, stretches: bool = False) -> Plan:
    """The reference behaviour, unchanged, whatever the provider (its view is always one int per message)."""
    return plan_openmaic(light)


def _strict(light: LightTranscript, provider: str | None = None, stretches: bool = False) -> Plan:
    return plan_strict(light, provider, stretches=stretches)


@dataclass(frozen=True)
class Policy:
    """A repair policy: its planner and every behaviour flag that differs between policies."""

    name: str
    title: str
    planner: Callable[..., Plan]
    reads_closely: bool
    """reads numeric call ids by their text and classifies clean turns while reading (see light_view)."""
    plans_per_provider: bool
    """re-plans the view for each provider whose rules may change it (role rules, ids for id-less calls)."""
    shares_answers: bool
    """answers calls that repeat an id with that id's first result (the reference's pairing by id)."""
    reports_reused_ids: bool
    """reports duplicates, reused ids and empty ids as findings left in place (the reference keeps them)."""
    rechecks_written_view: bool
    """`repair` reads back what it is about to write, as `check` would, and refuses a view check fails."""


POLICY: dict[str, Policy] = {
    "strict": Policy("strict", "strict (the default)", _strict, reads_closely=True, plans_per_provider=True,
                     shares_answers=False, reports_reused_ids=False, rechecks_written_view=True),
    "openmaic": Policy("openmaic", "the reference (openmaic)", _openmaic, reads_closely=False,
                       plans_per_provider=False, shares_answers=True, reports_reused_ids=True,
                       rechecks_written_view=False),
}
"""Every policy by name, the default first."""

PLANNERS: dict[str, Callable[..., Plan]] = {name: policy.planner for name, policy in POLICY.items()}
POLICIES: tuple[str, ...] = tuple(POLICY)
DEFAULT_POLICY = POLICIES[0]


def reads_closely(policy: str) -> bool:
    """Whether the policy's light view reads numeric call ids by their text and classifies clean turns
    while it is read (the strict policy; the reference needs neither, and skips the work)."""
    return POLICY[policy].reads_closely


def light_view(messages: Sequence[Any], policy: str) -> LightTranscript:
    """The light view of parsed messages that `policy` plans on (see reads_closely)."""
    closely = reads_closely(policy)
    return light_transcript(messages, numeric_ids=closely, clean=closely)
