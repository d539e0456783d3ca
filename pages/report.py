"""Report: the repair report of the current transcript, or of an uploaded report JSON.

Downloads: the report as JSON and as Markdown (integrity.markdown), and the
repaired transcript in its source format (integrity.analysis.export_view).
Text from the report (ids, names, reasons) is neutralized for display; a report
that cannot be read is one error line.
"""

from __future__ import annotations

import json

import streamlit as st
from pydantic import ValidationError

from inspector import ui
from inspector.entry import through_app
from inspector.markdown import report_markdown
from inspector.safe_text import neutralize
from integrity import Analysis, Mark, RepairKind, RepairReport, export_view, facts

through_app()  # a page URL opened first on a fresh server still runs through app.py

st.title("Repair report")
origin = st.radio("Report from", ["Current transcript", "Uploaded report JSON"], horizontal=True, key="report_origin")

report: RepairReport | None = None
analysis: Analysis | None = None
source = ui.input_picker() if origin == "Current transcript" else None
policy = ui.policy_picker() if origin == "Current transcript" else None
provider = ui.provider_picker() if origin == "Current transcript" else None

if origin == "Current transcript":
    if source is None:
        st.info("Pick a sample, upload a transcript or paste one in the sidebar.")
        st.stop()
    transcript = ui.load_source(source)
    if transcript is None:
        st.stop()
    analysis = ui.with_verdicts(source, ui.analysis_for(source, transcript, policy, provider), provider)
    report = analysis.report
    name = source.name
else:
    uploaded = st.file_uploader("Report JSON (from this page or the CLI's --report)", type=["json"],
                                key="report_upload", help=ui.upload_limit_text())
    ui.upload_limit_note()
    if uploaded is None:
        st.info("Upload a report JSON to read it here.")
        st.stop()
    name = uploaded.name
    try:
        payload = json.loads(uploaded.getvalue().decode("utf-8"))
        if isinstance(payload, list):  # `check --json` with several files: pick one
            if len(payload) > 1:
                labels = [f"{n}: {item.get('source') if isinstance(item, dict) else '?'}"
                          for n, item in enumerate(payload)]
                payload = payload[labels.index(st.selectbox("Report", labels, key="report_pick"))]
            else:
                payload = payload[0] if payload else {}
        if isinstance(payload, dict) and "report" in payload and "actions" not in payload:
            payload = payload["report"]
        report = RepairReport.model_validate(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        ui.show_error(f"{name}: not JSON ({error})")
        st.stop()
    except ValidationError as error:
        first = error.errors()[0] if error.errors() else {"loc": (), "msg": str(error)}
        where = ".".join(str(part) for part in first.get("loc", ()))
        ui.show_error(f"{name}: {where or 'top level'}: {first.get('msg')} "
                      f"({error.error_count()} problem(s); is this a repair report?)")
        st.stop()
    except RecursionError as error:
        ui.show_error(f"{name}: nested too deeply to read ({type(error).__name__})")
        st.stop()
    except Exception as error:  # noqa: BLE001 - huge numbers, odd shapes: one line, never a traceback
        ui.show_failure(f"{name}: not a readable report", error,
                        headline="Could not read this report. The app keeps working; upload another.")
        st.stop()

assert report is not None
s = report.summary
st.text(neutralize(f"report of {report.source or name} · policy {report.policy} · version {report.report_version}"))
st.code(neutralize(("✔ " if report.healthy else "⚒ " if report.changed else "⚠ ") + report.verdict), language=None,
        wrap_lines=True)
shown = [("messages", s.messages), ("view", s.view_messages), ("calls", s.calls),
         (facts(Mark.ORPHANED_CALL).name, s.orphaned_calls), (facts(RepairKind.DROPPED_DUPLICATE).name,
                                                             s.duplicates_dropped),
         (facts(RepairKind.MOVED).name, s.moved), (facts(RepairKind.SYNTHESIZED).name, s.synthesized),
         ("findings", s.findings)]
for column, (title, value) in zip(st.columns(len(shown)), shown, strict=True):
    column.metric(title, f"{value:,}")

def _report_json(report: RepairReport) -> str:
    """The report as JSON; text that is not valid UTF-8 (a lone surrogate in an id) is written escaped."""
    try:
        return report.model_dump_json(indent=2)
    except ValueError:  # pydantic cannot encode a lone surrogate: escape non-ASCII instead (the same JSON)
        return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=True)


def _utf8(text: str) -> bytes:
    """Download bytes; a lone surrogate (not encodable) is written as its escape, never an error."""
    return text.encode("utf-8", errors="backslashreplace")


markdown = report_markdown(report, analysis.verdicts if analysis is not None else None)
d1, d2, d3 = st.columns(3)
d1.download_button("⬇ Report JSON", _report_json(report).encode("utf-8"), ui.download_name(name, "report.json"),
                   mime="application/json", width="stretch", key="dl_json")
d2.download_button("⬇ Report Markdown", _utf8(markdown), ui.download_name(name, "report.md"),
                   mime="text/markdown", width="stretch", key="dl_md")
if analysis is not None:
    try:
        repaired = export_view(analysis)
    except Exception as error:  # noqa: BLE001 - the page goes on without this download
        d3.caption(ui.failure_line("the repaired transcript could not be written", error))
    else:
        d3.download_button("⬇ Repaired transcript", repaired, ui.download_name(name, "repaired"),
                           mime="application/octet-stream", width="stretch", key="dl_view")
else:
    d3.caption("The repaired transcript needs the transcript itself: open it under 'Current transcript'.")

if analysis is not None:
    st.subheader("Provider verdicts")
    ui.verdict_panel(analysis, provider)

changed_only = st.toggle("Changed messages only", value=True, key="changed_only")
actions = [a for a in report.actions
           if not changed_only or a.kind != "kept" or a.also_view_indices or a.new_ids]
st.subheader(f"Actions ({len(actions):,} shown of {len(report.actions):,})")
if not actions:
    st.caption("No durable message was moved or dropped" + (" (the repair only adds synthesized receipts)."
                                                            if report.synthesized else "."))
else:
    st.dataframe(ui.safe_frame([{
        "durable #": a.durable_index, "role": a.role or "?", "action": facts(a.kind).name,
        "view #": a.view_index, "also at": ", ".join(map(str, a.also_view_indices)),
        "kept instead": a.kept_instead, "call id": a.call_id or "",
        "new ids": ", ".join(f"{old} → {new}" for old, new in a.new_ids.items()),
        "why": a.reason,
    } for a in actions[:20_000]], columns=["durable #", "role", "action", "view #", "also at", "kept instead",
                                            "call id", "new ids", "why"]),
        hide_index=True, width="stretch", column_config={"why": st.column_config.TextColumn(width="large")})

st.subheader(f"Synthesized receipts ({len(report.synthesized)})")
if report.synthesized:
    st.dataframe(ui.safe_frame([r.model_dump() for r in report.synthesized]), hide_index=True, width="stretch")
else:
    st.caption("None.")

st.subheader(f"Findings ({len(report.findings)})")
if report.findings:
    st.dataframe(ui.safe_frame([{"severity": f.severity.value, "kind": facts(f.kind).name,
                                 "durable #": ", ".join(map(str, f.durable_indices)),
                                 "call id": f.call_id or "", "message": f.message} for f in report.findings]),
                 hide_index=True, width="stretch",
                 column_config={"message": st.column_config.TextColumn(width="large")})
else:
    st.caption("None.")

st.subheader(f"Pairings ({len(report.pairings):,} call(s))")
st.dataframe(ui.safe_frame([{
    "call id": p.call_id, "tool": p.tool_name, "frame #": p.frame_index, "position": p.call_position,
    "results": ", ".join(map(str, p.result_indices)) or "none", "answered by": p.answered_by,
    "view #": p.view_index, "outcome": p.outcome,
} for p in report.pairings[:20_000]], columns=["call id", "tool", "frame #", "position", "results", "answered by",
                                               "view #", "outcome"]),
    hide_index=True, width="stretch")

with st.expander("Markdown preview (as it will paste into a review)"):
    st.code(neutralize(markdown), language="markdown")
