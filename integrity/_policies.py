"""The repair policies by name (kept free of pydantic so the CLI starts fast)."""

from __future__ import annotations

from collections.abc import Callable

from ._plan import Plan, plan_openmaic
from ._strict import plan_strict
from ._views import LightTranscript


def _openmaic(light: LightTranscript, provider: str | None = None) -> Plan:
    """The reference behaviour, unchanged, whatever the provider."""
    return plan_openmaic(light)


PLANNERS: dict[str, Callable[[LightTranscript, str | None], Plan]] = {
    "strict": plan_strict,
    "openmaic": _openmaic,
}
POLICIES: tuple[str, ...] = tuple(PLANNERS)
DEFAULT_POLICY = "strict"
