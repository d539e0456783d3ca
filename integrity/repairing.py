"""Repairing a runner's message list in one call: the repaired view and the report that explains it.

Why a module of its own: this is the one-call API a runtime embeds (messages in,
`ToolCallRepair` and `RepairReport` out), a thin adapter over `analysis.analyze`.
It used to live in `report`, which made the report (a lower layer: what the
analysis builds) import the analysis that builds it, hidden in a function-local
import.  Here it sits above both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._arguments import require_messages
from ._bulk.gc_pause import without_gc
from .analysis import analyze
from .loading import Transcript
from .reference import ToolCallRepair, time_ms
from .repair.policies import DEFAULT_POLICY

if TYPE_CHECKING:
    from .report import RepairReport

__all__ = ["repair_with_report"]


@without_gc
def repair_with_report(
    messages: list[Any],
    now: Callable[[], int] | None = None,
    source: str | None = None,
    policy: str = DEFAULT_POLICY,
) -> tuple[ToolCallRepair, RepairReport]:
    """One pass: the repair result (ToolCallRepair) and the report that explains it (strict by default).

    The cyclic GC is paused for the call (see integrity._bulk.gc_pause) and restored after it.
    Raises TypeError unless `messages` is a list of message dicts (naming the first
    element that is not; a {"messages": [...]} envelope gets a hint to pass that list).

    What the view shares with the input: a message the view carries unchanged
    (report.view entry `durable` without `ids`) is the input dict itself; every
    message the view changes (renamed ids, merged turns) is a deep copy, and
    receipts and turns are new, so mutating any of those (their `arguments`,
    `content`, `details`) never changes the input.
    """
    require_messages(messages, "repair_with_report")
    analysis = analyze(Transcript(messages, source or "<input>"), policy, now or time_ms)
    return ToolCallRepair(analysis.view, list(analysis.plan.repaired_tool_calls)), analysis.report
