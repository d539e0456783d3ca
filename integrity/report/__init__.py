"""The structured repair report: building it (build), its records (records), its long sections made a
chunk at a time (sections), writing it as JSON whatever its size (text), and reading version-1 reports (v1).

The package's face is the report API it always had (`integrity.report.build_report`, `RepairReport`, ...),
defined in `build`.
"""

from .build import (
    REPORT_VERSION,
    Action,
    Diagnosis,
    DurableView,
    Finding,
    MergedView,
    Outcome,
    Pairing,
    ReceiptView,
    RepairReport,
    Summary,
    TurnView,
    ViewItem,
    build_report,
    diagnose,
    fails_only_as_recorded,
    moved_results,
    moves,
    own_provider,
    read_report,
    report_shell,
    sections_of,
    summarize,
    view_from_report,
    with_recorded,
)

__all__ = [
    "Action", "Diagnosis", "DurableView", "Finding", "MergedView", "Outcome", "Pairing", "REPORT_VERSION",
    "ReceiptView", "RepairReport", "Summary", "TurnView", "ViewItem", "build_report", "diagnose",
    "fails_only_as_recorded", "moved_results", "moves", "own_provider", "read_report", "report_shell", "sections_of",
    "summarize", "view_from_report", "with_recorded",
]
