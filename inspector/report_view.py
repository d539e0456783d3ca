"""The Report page's tables as plain rows: what a reviewer reads about each action, receipt and finding.

A reviewer reads a repair report to decide whether to trust it, so every row
names things the way the rest of the app does (kinds by the registry's names,
never the report's field names such as `frame_index`), gives times as ISO 8601
(the report stores epoch milliseconds), says "—" for every empty value (the one
spelling of "none" on the Report page and in its Markdown), shows the message
it is about and links to that message's row in the Inspector.

No Streamlit here: the page only draws these rows, and tests read them directly.
Every string taken from a transcript is neutralized (inspector.safe_text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlencode

from inspector.rows import preview
from inspector.safe_text import neutralize
from integrity import Analysis, ProviderVerdict, ReceiptView, RepairKind, RepairReport, TurnView, facts
from integrity.analysis import provider_view
from integrity.download import RECHECK_UP_TO, Download

NONE = "—"
"""The one way the Report page and its Markdown say that there is no value."""

FIELD_NAMES: dict[str, str] = {
    "durable_index": "durable #",
    "view_index": "view #",
    "also_view_indices": "also at view #",
    "kept_instead": "kept instead (durable #)",
    "call_id": "call id",
    "tool_name": "tool",
    "frame_index": "frame (durable #)",
    "call_position": "call no. in its frame",
    "result_indices": "results (durable #)",
    "answered_by": "answered by (durable #)",
    "new_ids": "new ids",
    "timestamp": "written at",
    "reason": "why",
    "outcome": "outcome",
    "severity": "severity",
    "durable_indices": "durable #",
    "role": "role",
    "kind": "kind",
    "message": "message",
}
"""The report's field names as the Report page and the Markdown show them."""


def human(field: str) -> str:
    """A report field's name for people ('frame_index' -> 'frame (durable #)')."""
    return FIELD_NAMES.get(field, field.replace("_", " "))


def iso_time(epoch_ms: Any) -> str:
    """Epoch milliseconds as ISO 8601 in UTC ('2026-12-01T09:16:22.027Z'); '—' when there is none.

    A value no calendar holds (a hostile report's 10**30) is shown as the number it is, never an error.
    """
    if epoch_ms is None or isinstance(epoch_ms, bool):
        return NONE
    try:
        moment = datetime.fromtimestamp(int(epoch_ms) / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError, TypeError):
        return f"{epoch_ms} ms since 1970 (not a valid date)"
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def or_none(value: Any) -> str:
    """A cell's text: '—' for None, an empty string or an empty list."""
    if value is None or value == "" or value == [] or value == {}:
        return NONE
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return neutralize(str(value))


# ----------------------------------------------------------------------------- links


@dataclass(frozen=True)
class LinkTarget:
    """Where the Inspector can open the transcript a report is about: a sample, under a policy and provider.

    Only samples have an address: an upload or a paste lives in one browser session.
    """

    sample: str
    policy: str
    provider: str | None = None

    def url(self, message: str) -> str:
        """'/?sample=...&policy=...&provider=...&msg=3' (msg: a durable index, or 'v4' for a view position)."""
        params = {"sample": self.sample, "policy": self.policy}
        if self.provider:
            params["provider"] = self.provider
        params["msg"] = message
        return "/?" + urlencode(params)


def message_ref(durable: int | None, view: int | None) -> str | None:
    """The Inspector's `msg` value for a row: its durable index, else 'v' + its view position."""
    if durable is not None:
        return str(durable)
    if view is not None:
        return f"v{view}"
    return None


# ----------------------------------------------------------------------------- excerpts


def _excerpt(messages: Sequence[Any] | None, index: int | None) -> str:
    if messages is None or index is None or not 0 <= index < len(messages):
        return NONE
    return preview(messages[index]) or NONE


def durable_excerpt(analysis: Analysis | None, index: int | None) -> str:
    """One line of the durable message (role, calls or answered id, start of its text), or '—'."""
    return _excerpt(analysis.transcript.messages if analysis is not None else None, index)


def view_excerpt(analysis: Analysis | None, position: int | None) -> str:
    """One line of the message the model receives at a view position, or '—'."""
    return _excerpt(analysis.view if analysis is not None else None, position)


# ----------------------------------------------------------------------------- tables


def changed(action: Any) -> bool:
    """Whether an action changes anything: a message kept in place with nothing renamed or repeated does not, unless
    it has a reason (its blank text left out, an error result sent as text, a call signed, its entry reshaped...:
    every code a kept message carries is something the view or the written file changes, and the row's kind,
    Action.shown_kind, says which)."""
    return action.kind != RepairKind.KEPT or bool(action.also_view_indices) or bool(action.new_ids) \
        or bool(action.codes)


ACTION_COLUMNS = ["durable #", "open", "action", "message", "why", "view #", "sent as", "kept instead (durable #)",
                  "call id", "new ids", "role", "severity"]


def action_rows(report: RepairReport, analysis: Analysis | None, link: LinkTarget | None,
                changed_only: bool = True, limit: int = 20_000) -> list[dict[str, Any]]:
    """One row per action: what happened to a durable message, the message itself, and its Inspector link.

    'sent as' is the view's message when it differs from the durable one (renamed ids, merged), else '—'.
    """
    rows: list[dict[str, Any]] = []
    for action in report.actions:
        if changed_only and not changed(action):
            continue
        if len(rows) >= limit:
            break
        view_positions = [] if action.view_index is None else [action.view_index, *action.also_view_indices]
        durable_text = durable_excerpt(analysis, action.durable_index)
        sent = view_excerpt(analysis, action.view_index) if action.view_index is not None else NONE
        rows.append({
            "durable #": action.durable_index,
            "role": or_none(action.role),
            "action": facts(action.shown_kind).name,  # (as the Inspector's row names it: a kept message's change)
            "message": durable_text,
            "view #": or_none(view_positions),
            "sent as": NONE if sent == durable_text else sent,
            "kept instead (durable #)": or_none(action.kept_instead),
            "call id": or_none(action.call_id),
            "new ids": or_none([f"{old} → {new}" for old, new in action.new_ids.items()]),
            "severity": action.severity.value,
            "why": or_none(action.reason),
            "open": link.url(str(action.durable_index)) if link is not None else None,
        })
    return rows


VIEW_ONLY_COLUMNS = ["view #", "open", "kind", "message", "for call", "tool", "frame (durable #)", "written at",
                     "why"]


def view_only_rows(report: RepairReport, analysis: Analysis | None, link: LinkTarget | None,
                   limit: int = 20_000) -> list[dict[str, Any]]:
    """One row per message that exists only in the view (synthesized receipts and turns) or merges several."""
    rows: list[dict[str, Any]] = []
    for position, entry in enumerate(report.view):
        if len(rows) >= limit:
            break
        if isinstance(entry, ReceiptView):
            kind = RepairKind.REPAIRED_ARGUMENTS if entry.not_executed else RepairKind.SYNTHESIZED
            call, tool, frame = entry.call_id, entry.tool_name, entry.frame_index
            why = f"call no. {entry.call_position} of frame #{entry.frame_index} has no result" + (
                " and its arguments were invalid: it was not executed" if entry.not_executed else "")
            written = entry.timestamp
            text = view_excerpt(analysis, position)
            if text == NONE and entry.text:
                text = preview({"role": "toolResult", "toolName": entry.tool_name, "toolCallId": entry.call_id,
                                "content": entry.text})
        elif isinstance(entry, TurnView):
            kind, call, tool, frame, why, written = RepairKind.SYNTHESIZED_TURN, None, None, None, entry.reason, \
                entry.timestamp
            text = view_excerpt(analysis, position)
            if text == NONE:
                text = preview({"role": entry.role, "content": entry.text})
        elif entry.kind is RepairKind.MERGED:
            kind, call, tool, frame, written = RepairKind.MERGED, None, None, None, None
            why = "durable " + " + ".join(f"#{member}" for member in entry.members) + " sent as one message"
            text = view_excerpt(analysis, position)
        else:
            continue
        rows.append({
            "view #": position, "kind": facts(kind).name, "message": text, "for call": or_none(call),
            "tool": or_none(tool), "frame (durable #)": or_none(frame), "written at": iso_time(written),
            "why": or_none(why), "open": link.url(f"v{position}") if link is not None else None,
        })
    return rows


FINDING_COLUMNS = ["durable #", "open", "severity", "kind", "finding", "message", "call id"]


def finding_rows(report: RepairReport, analysis: Analysis | None, link: LinkTarget | None) -> list[dict[str, Any]]:
    """One row per finding: its kind's name, the first message it is about (excerpt and link)."""
    rows = []
    for finding in report.findings:
        first = finding.durable_indices[0] if finding.durable_indices else None
        rows.append({
            "severity": finding.severity.value, "kind": facts(finding.kind).name,
            "durable #": or_none(finding.durable_indices[:20]),
            "message": durable_excerpt(analysis, first), "call id": or_none(finding.call_id),
            "finding": or_none(finding.message),
            "open": link.url(str(first)) if link is not None and first is not None else None,
        })
    return rows


PAIRING_COLUMNS = ["call id", "open", "tool", "frame (durable #)", "call no. in its frame", "results (durable #)",
                   "answered by (durable #)", "view #", "outcome"]
RUNTIME_SENDS = "its runtime sends"
"""The pairing table's column for the result a call's runtime sends of its own (RepairReport.runtime_results),
shown only for a report that has one."""


def pairing_columns(report: RepairReport) -> list[str]:
    """The pairing table's columns for this report: RUNTIME_SENDS after the outcome when its runtime answers a call
    as it sends the session, which is why a provider may take a call with no result of its own."""
    return [*PAIRING_COLUMNS, RUNTIME_SENDS] if report.runtime_results else PAIRING_COLUMNS


def pairing_rows(report: RepairReport, link: LinkTarget | None, limit: int = 20_000) -> list[dict[str, Any]]:
    """One row per call: its frame, its results, which one answers it in the view, and where (and the result its
    runtime sends of its own, when the report names one)."""
    added = report.runtime_results or {}
    return [{
        "call id": or_none(p.call_id), "tool": or_none(p.tool_name), "frame (durable #)": p.frame_index,
        "call no. in its frame": p.call_position, "results (durable #)": or_none(p.result_indices),
        "answered by (durable #)": or_none(p.answered_by), "view #": or_none(p.view_index), "outcome": p.outcome,
        "open": link.url(str(p.frame_index)) if link is not None else None,
        **({RUNTIME_SENDS: or_none(added.get(p.call_id or ""))} if added else {}),
    } for p in report.pairings[:limit]]


def jump_targets(report: RepairReport, changed_only: bool = True) -> dict[str, str]:
    """label -> the Inspector's `msg` value, for every changed action and view-only message (the 'open' picker)."""
    targets: dict[str, str] = {}
    for action in report.actions:
        if not changed_only or changed(action):
            targets[f"durable #{action.durable_index}: {facts(action.kind).name}"] = str(action.durable_index)
    for position, entry in enumerate(report.view):
        kind = entry.kind
        if kind is not None:
            targets[f"view #{position}: {facts(kind).name}"] = f"v{position}"
    for finding in report.findings:
        if finding.durable_indices:
            first = finding.durable_indices[0]
            targets.setdefault(f"durable #{first}: {facts(finding.kind).name}", str(first))
    return targets


def violation_text(violation: Any) -> tuple[str, str]:
    """(where, error) of a provider violation (an object or a dict), exactly as the provider words it."""
    if isinstance(violation, Mapping):
        return str(violation.get("position") or ""), str(violation.get("error") or "")
    return str(getattr(violation, "position", "") or ""), str(getattr(violation, "error", "") or "")


# ----------------------------------------------------------------------------- what each provider is sent


def download_words(offered: Download | str | None, size: int) -> str:
    """What `check` says of the bytes offered for download: 'safe to send' only when it passes them (read back,
    the provider they were planned for as the target); otherwise what it still flags, in `repair`'s words."""
    if isinstance(offered, str):
        return offered
    if offered is None or offered.recheck is None and not offered.left:
        why = f" (above {RECHECK_UP_TO:,} messages; this one has {size:,})" if size > RECHECK_UP_TO else ""
        return f"not re-checked{why}: run `check` on the download"
    if offered.left:
        return f"the download is not safe to send: `check` still flags it: {offered.left}"
    return "safe to send (`check` passes the download)"


def after_repair_words(result: ProviderVerdict, offered: Download | str | None, size: int) -> str:
    """What a page says of the view planned for a provider: 'safe to send' only when that provider accepts it
    and `check --provider` passes the very bytes offered for download (download_words)."""
    if not result.accepted_after_repair:
        return f"REJECTED with {len(result.after)} error(s)"
    if isinstance(offered, str):
        return f"accepted, but {offered}"
    words = download_words(offered, size)
    return f"accepted: {words}" if offered is not None and offered.safe_to_send else f"accepted, {words}"


PROVIDER_COLUMNS = ["provider", "as recorded", "the view planned for it", "after repair (that view)"]


def provider_rows(analysis: Analysis, offered: Mapping[str, Download | str | None]) -> list[dict[str, str]]:
    """Per provider: its answer as recorded, which view it is sent (the page's, or one re-planned for it) and
    its answer about that very view, with what `check` says of the bytes offered for it (offered[provider])."""
    size = len(analysis.transcript.messages)
    rows = []
    for name, result in analysis.verdicts.items():
        own = provider_view(analysis, name) is not analysis.view
        rows.append({
            "provider": name,
            "as recorded": "accepted" if result.accepted_as_recorded else f"REJECTED ({len(result.before)})",
            "the view planned for it": f"re-planned for {name}" if own else "this page's view",
            "after repair (that view)": after_repair_words(result, offered.get(name), size),
        })
    return rows


VIEW_ROWS_SHOWN = 2_000
"""The Report page lists this many messages of a provider's view; the download has them all."""


def provider_view_rows(analysis: Analysis, provider: str, limit: int = VIEW_ROWS_SHOWN) -> list[dict[str, Any]]:
    """The view `provider` is sent, one row per message (its position and one line of it): what its download
    holds and what its 'after repair' verdict is about."""
    view = provider_view(analysis, provider)
    return [{"view #": position, "message": preview(message) or NONE}
            for position, message in enumerate(view[:limit])]
