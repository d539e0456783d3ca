"""Reading older reports: a stored report's JSON data in today's shape (integrity.report.read_report).

Reports written by earlier releases (`--report`, `check --json`) stay readable.
Version 1 kept receipts, turns and merges in side tables the view indexed into
(`upgrade` turns them into version 2's typed entries); versions 1 and 2 said
error/warning where version 3 rates severities; older summaries, findings and
actions lack fields that are always written now.  Only the shape changes;
reasons and counts are taken as they were written.
"""

from __future__ import annotations

from typing import Any

from ..kinds import FINDINGS, LEGACY_SEVERITY, FindingCode, rate


def current_shape(data: Any, version: int) -> Any:
    """A report's JSON data (any version) in the shape of report version `version`: version 1's side
    tables inlined, and what older reports lack filled in (a summary's `renamed` count, a finding's
    severity and call id, an action's severity).  Anything but a dict is left for validation to refuse."""
    if not isinstance(data, dict):
        return data
    if data.get("report_version") in (1, 2):
        if data["report_version"] == 1:
            data = upgrade(data)
        data = {**data, "report_version": version}
    data = {"report_version": version, "source": None, "severity": None, **data}
    summary = data.get("summary")
    if isinstance(summary, dict) and "renamed" not in summary:
        data["summary"] = {**summary, "renamed": 0}  # older summaries had no renamed count: none were
    if isinstance(data.get("findings"), list):
        data["findings"] = [_finding(finding) for finding in data["findings"]]
    actions = data.get("actions")
    if isinstance(actions, list) and not all(type(a) is dict and "severity" in a for a in actions):
        data["actions"] = [_action(action) for action in actions]
    return data


def _finding(data: Any) -> Any:
    """A finding before version 3 said error/warning: its kind gives its severity now.  A finding
    without a call id has None (as the report's first, pydantic, records defaulted it)."""
    if isinstance(data, dict) and data.get("severity") in LEGACY_SEVERITY:
        try:
            severity = FINDINGS[FindingCode(data.get("kind"))].severity
        except (ValueError, KeyError):
            severity = LEGACY_SEVERITY[data["severity"]]
        data = {**data, "severity": severity}
    if isinstance(data, dict) and "call_id" not in data:
        data = {**data, "call_id": None}
    return data


def _action(data: Any) -> Any:
    """An action of an older report has no severity: rate it from its kind and codes."""
    if isinstance(data, dict) and "severity" not in data and "kind" in data:
        data = {**data, "severity": rate(data["kind"], data.get("codes") or ())}
    return data


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """A version 1 report dict as a version 2 report dict."""
    out = {key: value for key, value in data.items() if key not in ("synthesized", "turns", "merges")}
    receipts = data.get("synthesized") or []
    turns = data.get("turns") or []
    merges = data.get("merges") or []
    view = []
    for position, entry in enumerate(data.get("view") or []):
        source = entry.get("source")
        if source == "synthesized":
            view.append({**receipts[entry["index"]], "source": "synthesized", "view_index": position})
        elif source == "turn":
            turn = turns[entry["index"]]
            view.append({**turn, "source": "turn", "view_index": position, "code": _turn_code(turn)})
        elif source == "merged":
            view.append({**merges[entry["index"]], "source": "merged", "view_index": position})
        else:
            view.append(entry)
    out["view"] = view
    out["actions"] = [{**action, "codes": action.get("codes", [])} for action in data.get("actions") or []]
    out["report_version"] = 2
    return out


def _turn_code(turn: dict[str, Any]) -> str:
    """Version 1 turns had only a reason sentence; the code follows from the turn's role and wording."""
    if turn.get("role") == "assistant":
        return "reply_after_results"
    return "start_with_user" if "start with a user message" in str(turn.get("reason")) else "start_not_with_call"
