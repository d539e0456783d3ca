"""One provider's verdict on a transcript: what it says as recorded and about the view planned for it.

The type `check` (integrity.pipeline), the inspector's analysis and every page share; it sits with the
providers' violations so that the analysis, below the pipeline, can build it without importing upward.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .violation import Violation

__all__ = ["ProviderVerdict"]


@dataclass(frozen=True, slots=True)
class ProviderVerdict:
    """What one provider says about the transcript as recorded and about the view planned for it."""

    provider: str
    before: Sequence[Violation]
    after: Sequence[Violation]

    @property
    def accepted_as_recorded(self) -> bool:
        return not self.before

    @property
    def accepted_after_repair(self) -> bool:
        return not self.after
