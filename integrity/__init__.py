"""Tool-call integrity for LLM agent transcripts: detect, repair and explain.

The public API is what `__all__` lists; everything else is internal and may
change.  The reference names (`repair_orphaned_tool_calls`, ...) mirror the
reference runtime (OpenMAIC's tool-call-integrity.ts) so other tools can rely
on them.  Names backed by the report, the schema checks (pydantic) or the format and
provider tables load on first use (PEP 562), so `import integrity` and the CLI
stay fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._bulk.gc_pause import gc_paused
from .fence import LeaseLostError, append_interrupted_tool_call_results
from .kinds import FINDINGS, MARKS, REPAIR_KINDS, FindingCode, KindFacts, Mark, RepairKind, Severity, facts
from .reference import (
    PendingToolCall,
    ToolCallRepair,
    interrupted_tool_result,
    is_interrupted_tool_result,
    orphaned_tool_calls,
    repair_orphaned_tool_calls,
    track_tool_call_message,
)
from .repair.policies import DEFAULT_POLICY, POLICIES
from .transform import with_tool_call_integrity_repair

_LAZY: dict[str, str] = {
    # the one check pipeline: what every surface says about a transcript
    "check": "pipeline", "CheckResult": "pipeline", "ProviderVerdict": "pipeline", "Status": "pipeline",
    "target_provider": "pipeline", "status_of": "pipeline",
    # analysis: one call from a loaded file to everything a front end shows
    "Analysis": "analysis", "analyze": "analysis", "load": "analysis", "load_all": "analysis",
    "export_view": "analysis", "repair_with_report": "repairing",
    "provider_verdict": "analysis", "judged_by_providers": "analysis", "with_verdicts": "analysis",
    # reading and writing transcripts
    "Transcript": "loading", "TranscriptError": "loading", "read_source": "loading",
    "FORMATS": "formats", "read_bytes": "formats", "read_all": "formats", "write_bytes": "formats",
    # provider rule sets
    "PROVIDERS": "providers", "ProviderSpec": "providers", "SPECS": "providers", "Violation": "providers",
    "spec": "providers", "validate": "providers", "validate_native": "providers",
    # the report
    "Action": "report", "DurableView": "report",
    "MergedView": "report", "Pairing": "report", "ReceiptView": "report", "RepairReport": "report",
    "TurnView": "report", "build_report": "report", "read_report": "report", "view_from_report": "report",
    # the diagnosis (what check prints; integrity._diagnosis)
    "Diagnosis": "_diagnosis", "Finding": "_findings", "Summary": "_diagnosis", "diagnose": "_diagnosis",
    "own_provider": "_diagnosis",
    # durable <-> view mapping (what every "moved to", "not in the view" statement reads)
    "Placement": "repair.placement", "view_placement": "repair.placement",
    "Note": "notes", "NoteCode": "notes", "render_note": "notes",
}
_RENAMED = {"render_note": "render"}

if TYPE_CHECKING:
    from ._diagnosis import Diagnosis, Summary, diagnose, own_provider
    from ._findings import Finding
    from .analysis import (
        Analysis,
        analyze,
        export_view,
        judged_by_providers,
        load,
        load_all,
        provider_verdict,
        with_verdicts,
    )
    from .formats import FORMATS, read_all, read_bytes, write_bytes
    from .loading import Transcript, TranscriptError, read_source
    from .notes import Note, NoteCode
    from .notes import render as render_note
    from .pipeline import CheckResult, ProviderVerdict, Status, check, status_of, target_provider
    from .providers import PROVIDERS, SPECS, ProviderSpec, Violation, spec, validate, validate_native
    from .repair.placement import Placement, view_placement
    from .repairing import repair_with_report
    from .report import (
        Action,
        DurableView,
        MergedView,
        Pairing,
        ReceiptView,
        RepairReport,
        TurnView,
        build_report,
        read_report,
        view_from_report,
    )


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'integrity' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), _RENAMED.get(name, name))
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_POLICY", "FINDINGS", "FORMATS", "MARKS", "POLICIES", "PROVIDERS", "REPAIR_KINDS", "SPECS", "Action",
    "Analysis", "CheckResult", "Diagnosis", "DurableView", "Finding", "FindingCode", "KindFacts", "LeaseLostError",
    "Mark", "MergedView", "Note", "NoteCode", "Pairing", "PendingToolCall", "Placement", "ProviderSpec",
    "ProviderVerdict", "ReceiptView", "RepairKind", "RepairReport", "Severity", "Status", "Summary",
    "ToolCallRepair", "Transcript", "TranscriptError", "TurnView", "Violation", "analyze",
    "append_interrupted_tool_call_results", "build_report", "check", "diagnose", "export_view", "facts",
    "gc_paused", "interrupted_tool_result", "is_interrupted_tool_result", "judged_by_providers", "load", "load_all",
    "orphaned_tool_calls", "own_provider", "provider_verdict", "read_all", "read_bytes", "read_report", "read_source",
    "render_note", "repair_orphaned_tool_calls", "repair_with_report", "spec", "status_of", "target_provider",
    "track_tool_call_message", "validate", "validate_native", "view_from_report", "view_placement",
    "with_tool_call_integrity_repair", "with_verdicts", "write_bytes",
]
