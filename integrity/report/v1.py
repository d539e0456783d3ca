"""Reading version 1 reports: receipts, turns and merges were side tables the view indexed into.

Reports written by earlier releases (`--report`, `check --json`) stay readable:
this turns their view into version 2's typed entries.  Only the shape changes;
reasons and counts are taken as they were written.
"""

from __future__ import annotations

from typing import Any


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
