"""The repair policies by name (kept free of pydantic so the CLI starts fast)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._plan import Plan, plan_openmaic
from ._strict import plan_strict
from ._views import LightTranscript, light_transcript


def _openmaic(light: LightTranscript, provider: str | None = None, stretches: bool = False) -> Plan:
    """The reference behaviour, unchanged, whatever the provider (its view is always one int per message)."""
    return plan_openmaic(light)


def _strict(light: LightTranscript, provider: str | None = None, stretches: bool = False) -> Plan:
    return plan_strict(light, provider, stretches=stretches)


PLANNERS: dict[str, Callable[..., Plan]] = {
    "strict": _strict,
    "openmaic": _openmaic,
}
POLICIES: tuple[str, ...] = tuple(PLANNERS)
DEFAULT_POLICY = "strict"


def reads_closely(policy: str) -> bool:
    """Whether the policy's light view reads numeric call ids by their text and classifies clean turns
    while it is read (the strict policy; the reference needs neither, and skips the work)."""
    return policy == "strict"


def light_view(messages: Sequence[Any], policy: str) -> LightTranscript:
    """The light view of parsed messages that `policy` plans on (see reads_closely)."""
    closely = reads_closely(policy)
    return light_transcript(messages, numeric_ids=closely, clean=closely)
