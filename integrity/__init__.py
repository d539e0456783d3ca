"""Tool-call integrity for LLM agent transcripts: detect, repair and explain.

The public names below mirror the reference runtime (OpenMAIC's
tool-call-integrity.ts) so other tools can rely on them.
"""

from .fence import LeaseLostError, append_interrupted_tool_call_results
from .reference import (
    PendingToolCall,
    ToolCallRepair,
    interrupted_tool_result,
    is_interrupted_tool_result,
    orphaned_tool_calls,
    repair_orphaned_tool_calls,
    track_tool_call_message,
)
from .transform import with_tool_call_integrity_repair

_LAZY = {"RepairReport", "build_report", "repair_with_report", "view_from_report"}


def __getattr__(name: str):  # PEP 562: the report (pydantic) loads only when used
    if name in _LAZY:
        from . import report

        return getattr(report, name)
    raise AttributeError(f"module 'integrity' has no attribute {name!r}")

__all__ = [
    "LeaseLostError",
    "PendingToolCall",
    "RepairReport",
    "ToolCallRepair",
    "append_interrupted_tool_call_results",
    "build_report",
    "interrupted_tool_result",
    "is_interrupted_tool_result",
    "orphaned_tool_calls",
    "repair_orphaned_tool_calls",
    "repair_with_report",
    "track_tool_call_message",
    "view_from_report",
    "with_tool_call_integrity_repair",
]
