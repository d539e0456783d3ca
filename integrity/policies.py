"""The repair policies by name (kept free of pydantic so the CLI starts fast)."""

from __future__ import annotations

from typing import Callable

from .plan import Plan, plan_openmaic
from .views import LightTranscript

PLANNERS: dict[str, Callable[[LightTranscript], Plan]] = {"openmaic": plan_openmaic}
POLICIES: tuple[str, ...] = tuple(PLANNERS)
DEFAULT_POLICY = "openmaic"
