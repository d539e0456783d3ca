"""Report: the repair report of the current transcript, or of an uploaded report JSON, for a reviewer.

Per action: the message it is about, a link to its row in the Inspector (samples
have an address; any transcript opens from the picker at the bottom), the
kinds' names from the registry, ISO times and one "—" for every empty value
(inspector.report_view builds the rows).  The Markdown for a review is shown
rendered: it is our own Markdown, with every piece of transcript text in code
spans (inspector.markdown), so nothing in a transcript can become a link, an
image or HTML.  Downloads: the report as JSON and Markdown, and the repaired
transcript in its source format.  A report that cannot be read is one error line.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import streamlit as st

from inspector import report_view as rv
from inspector import ui, verdict_ui, whole_file
from inspector.entry import through_app
from inspector.glossary import link
from inspector.markdown import report_markdown
from inspector.safe_text import neutralize
from inspector.theme import summary_metrics
from integrity import Analysis, Mark, RepairKind, RepairReport, Transcript, facts
from integrity._records import invalid_where, json_text
from integrity.analysis import export_view, provider_view
from integrity.download import Download
from integrity.file_verdict import FileVerdict
from integrity.formats.container import json_bytes
from integrity.report import read_report

through_app()  # a page URL opened first on a fresh server still runs through app.py

st.title("Repair report")
st.caption("Words in this report: " + " · ".join(  # our own markdown: glossary links, no transcript text
    link(term, term) for term in ("durable transcript", "view", "frame", "receipt", "policy", "finding",
                                  "verdict", "renamed ids")))
origin: str | None = st.radio("Report from", ["Current transcript", "Uploaded report JSON"], horizontal=True,
                              key="report_origin")

report: RepairReport | None = None
analysis: Analysis | None = None
source: ui.Source | None = None
transcript: Transcript | None = None
provider: str | None = None
whole: FileVerdict | None = None


def _entry_label(number: int, item: Any) -> str:
    """An entry of `check --json`'s array in the picker: its file, its transcript when it names one, and whether
    check judged it (an abandoned branch or a compacted-away part is listed, never judged)."""
    if not isinstance(item, dict):
        return f"{number}: ?"
    thread = item.get("thread")
    label = f"{number}: {item.get('source')}" + (f"#{thread}" if thread and thread != "main" else "")
    return label + (f" ({item.get('status')}, not judged)" if item.get("checked") is False else "")


def _read_uploaded() -> tuple[str, RepairReport]:
    """The uploaded report (one of `check --json`'s, when it holds several); stops the page on bad input."""
    uploaded = st.file_uploader("Report JSON (from this page or the CLI's --report)", type=["json"],
                                key="report_upload", help=ui.upload_limit_text())
    ui.upload_limit_note()
    ui.uploaded_names(uploaded)
    if uploaded is None:
        st.info("Upload a report JSON to read it here.")
        st.stop()
    name = uploaded.name
    try:
        payload = json.loads(uploaded.getvalue().decode("utf-8"))
        if isinstance(payload, list):  # `check --json` with several files: pick one
            if len(payload) > 1:
                labels = [_entry_label(n, item) for n, item in enumerate(payload)]
                picked: str | None = st.selectbox("Report", labels, key="report_pick")
                assert picked is not None  # the options are never empty here, so one is always picked
                payload = payload[labels.index(picked)]
            else:
                payload = payload[0] if payload else {}
        if isinstance(payload, dict) and "report" in payload and "actions" not in payload:
            payload = payload["report"]
        return name, read_report(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        ui.show_error(f"{name}: not JSON ({error})")
    except ValueError as error:  # msgspec.ValidationError: the first field that does not fit, by its path
        where, what = invalid_where(error)
        if where == "checked":  # check --json's entry for a transcript it lists and never judges: read_report's words
            st.info("This entry of check's output is no report.")
            st.code(neutralize(f"{name}: {what}"), language=None, wrap_lines=True)  # (the file's text: never markdown)
        else:
            ui.show_error(f"{name}: {where}: {what} (is this a repair report?)")
    except RecursionError as error:
        ui.show_error(f"{name}: nested too deeply to read ({type(error).__name__})")
    except Exception as error:  # noqa: BLE001 - huge numbers, odd shapes: one line, never a traceback
        ui.show_failure(f"{name}: not a readable report", error,
                        headline="Could not read this report. The app keeps working; upload another.")
    st.stop()
    raise AssertionError("not reached: st.stop() raises")


if origin == "Current transcript":
    source = ui.input_picker()
    policy = ui.policy_picker()
    if source is None:
        st.info("Pick a sample, upload a transcript or paste one in the sidebar.")
        st.stop()
    transcript = ui.load_source(source, policy)
    if transcript is None:
        st.stop()
    provider = ui.provider_picker(transcript=transcript)  # follows the file, as in the Inspector
    analysis = ui.with_verdicts(source, ui.analysis_for(source, transcript, policy, provider), provider)
    report = analysis.report
    name = source.name
    whole = whole_file.current(source.digest, policy, provider)  # the file's verdict, when it holds several
else:
    name, report = _read_uploaded()

assert report is not None
s = report.summary
st.text(neutralize(f"report of {report.source or name} · policy {report.policy} · version {report.report_version}"))
said = ("✔ " if report.healthy else "⚒ " if report.changed else "⚠ ") + report.verdict
if whole is not None and transcript is not None:  # one transcript of several: the file's verdict first
    said = f"{whole_file.file_line(whole)}\n{whole_file.thread_prefix(transcript, whole)}{said}"
st.code(neutralize(said), language=None, wrap_lines=True)
# the Inspector's counts (every one the verdict names), with the view's size and the findings beside them
shown = summary_metrics(s, first=[("messages", "messages"), ("view_messages", "view")], last=[("findings", "findings")])
counts = st.container(horizontal=True, gap="medium")  # as wide as their names, wrapping when narrow
for title, value in shown:
    counts.metric(title, f"{value:,}", width="content")

def _report_json(report: RepairReport) -> bytes:
    """The report as JSON bytes, as the CLI writes it; a lone surrogate (in an id) is written as its escape."""
    return json_bytes(json_text(report, indent=2))


def _utf8(text: str) -> bytes:
    """Download bytes; a lone surrogate (not encodable) is written as its escape, never an error."""
    return text.encode("utf-8", errors="backslashreplace")


def _offer(where: Any, analysis: Analysis, judge: str | None, found: Download | str | None, label: str,
           file_name: str, key: str, data: bytes) -> None:
    """A download button for the view planned for `judge`: its checked bytes, or (a large transcript) bytes
    written only when the button is clicked (the file's own `data` where `repair` gives them back); a line saying
    why when the view cannot be written."""
    if isinstance(found, str):
        where.caption(neutralize(f"{label[2:]}: {found}"))
    elif found is None:
        where.download_button(label, partial(export_view, analysis, judge, data), file_name,
                              mime="application/octet-stream", key=key, on_click="ignore")
    else:
        where.download_button(label, found.data, file_name, mime="application/octet-stream", key=key)


def _errors_of(analysis: Analysis, provider: str | None) -> None:
    """The chosen provider's errors, as recorded and about the view planned for it, word for word."""
    from inspector.rows import violation_rows

    if not provider or provider not in analysis.verdicts:
        return
    said = analysis.verdicts[provider]
    for title, violations in (("as recorded", said.before), ("about the view planned for it", said.after)):
        found = violation_rows(violations)
        with st.expander(f"{provider} {title}: " + (f"{len(found)} error(s)" if found else "accepted"),
                         expanded=bool(found) and violations is said.after):
            if found:
                st.dataframe(ui.safe_frame(found, columns=["rule", "position", "durable entries", "call ids",
                                                           "provider error"]),
                             hide_index=True, width="stretch",
                             column_config={"provider error": st.column_config.TextColumn(width="large")})
            else:
                st.caption("No rule of this provider is broken.")


markdown = report_markdown(report, analysis.verdicts if analysis is not None else None, analysis=analysis,
                           whole=whole)
downloads = st.container(horizontal=True)  # buttons as wide as their labels, wrapping when narrow

downloads.download_button("⬇ Report JSON", _report_json(report), ui.download_name(name, "report.json"),
                   mime="application/json", key="dl_json")
downloads.download_button("⬇ Report Markdown", _utf8(markdown), ui.download_name(name, "report.md"),
                   mime="text/markdown", key="dl_md")
if analysis is None:
    downloads.caption("The repaired transcript needs the transcript itself: open it under 'Current transcript'.")
else:
    assert source is not None and transcript is not None
    cache = ui.cache_name(source, transcript)
    size = len(transcript.messages)
    mine = verdict_ui.offered_download(analysis, provider, source.digest, cache, data=source.data)
    _offer(downloads, analysis, provider, mine, "⬇ Repaired transcript", ui.download_name(name, "repaired"),
           "dl_view", source.data)
    planned = f"planned for {provider}" if provider else "planned with no target provider (the universal invariants)"
    holds = whole_file.holds_words(transcript, mine)
    st.text(neutralize(f"⬇ Repaired transcript: the view {planned}: {rv.download_words(mine, size)}"
                       + (f" ({holds})" if holds else "")))
    if analysis.verdicts:
        st.subheader("Provider verdicts")
        st.caption("Each provider is sent the view planned for it (strict re-plans the view for a provider whose "
                   "rules differ: ids it refuses, its role order). 'after repair' is that provider's answer about "
                   "that very view, which its button below downloads; 'safe to send' only where `check "
                   "--provider` passes the downloaded bytes.")
        flag = f"_recheck_{source.digest}_{cache}_{analysis.policy}_{provider}"
        every = size <= verdict_ui.AUTO_VERDICT_MESSAGES or st.session_state.get(flag)
        if not every:
            took = mine.seconds if isinstance(mine, Download) else 0.0  # measured on this page's own download
            estimate = f"about {max(1, round(took * (len(analysis.verdicts) - 1)))} s" if took else "some time"
            st.button(f"Re-check every provider's download ({size:,} messages: {estimate}, as this page's own "
                      "took)", key="recheck_btn", on_click=st.session_state.__setitem__, args=(flag, True))
        written: dict[Any, Any] = {}  # the providers sent the same view share its bytes and their reading
        offered = {judge: verdict_ui.offered_download(analysis, judge, source.digest, cache, written, source.data)
                   if every or judge == provider else None for judge in analysis.verdicts}
        st.dataframe(ui.safe_frame(rv.provider_rows(analysis, offered), columns=rv.PROVIDER_COLUMNS),
                     hide_index=True, width="stretch",
                     column_config={"after repair (that view)": st.column_config.TextColumn(width="large")})
        buttons = st.container(horizontal=True)
        for judge, found in offered.items():
            _offer(buttons, analysis, judge, found, f"⬇ view for {judge}",
                   ui.download_name(name, f"repaired-for-{judge}"), f"dl_view_{judge}", source.data)
        sent_to: str | None = st.selectbox("Show the view sent to", list(analysis.verdicts), key="report_view_of",
                                          index=list(analysis.verdicts).index(provider)
                                          if provider in analysis.verdicts else 0)
        if sent_to is not None:
            sent_rows = rv.provider_view_rows(analysis, sent_to)
            total = len(provider_view(analysis, sent_to))
            answer = "accepted" if analysis.verdicts[sent_to].accepted_after_repair else "REJECTED"
            cut = f", the first {len(sent_rows):,} shown (its download has them all)" if total > len(sent_rows) else ""
            st.caption(f"The view planned for {sent_to}: {total:,} message(s){cut}; {sent_to} after repair: {answer}.")
            st.dataframe(ui.safe_frame(sent_rows, columns=["view #", "message"]), hide_index=True, width="stretch",
                         column_config={"message": st.column_config.TextColumn(width="large")})
        _errors_of(analysis, provider)


def _link_target() -> rv.LinkTarget | None:
    """The sample the links open (with this policy and provider), or None; says on the page why not."""
    if source is None or transcript is None or report is None:
        st.caption("Message excerpts and links to the Inspector need the transcript: open it under "
                   "'Current transcript'.")
        return None
    if source.kind != "sample":
        st.caption(f"Links: an {'upload' if source.kind == 'upload' else 'pasted transcript'} has no address "
                   "another tab could open (samples do). Open a message with 'Open in the Inspector' at the "
                   "bottom of this page.")
        return None
    if transcript.siblings and transcript.name != "main":
        st.caption("Links open a file's main transcript; this is another one of the file's transcripts. "
                   "Open a message with 'Open in the Inspector' at the bottom of this page.")
        return None
    return rv.LinkTarget(source.name, report.policy, provider)


LINK = st.column_config.LinkColumn("open", display_text="inspect ↗", width="small",
                                   help="this message's row in the Inspector (same policy and provider)")
WIDE = st.column_config.TextColumn(width="large")


def _table(rows: list[dict[str, Any]], columns: list[str], link: rv.LinkTarget | None,
           wide: tuple[str, ...] = ()) -> None:
    """A table of report rows: transcript text neutralized, the 'open' column only when there are links."""
    shown = columns if link is not None else [c for c in columns if c != "open"]
    config = {"open": LINK, **{column: WIDE for column in wide}}
    st.dataframe(ui.safe_frame(rows, columns=shown), hide_index=True, width="stretch", column_config=config)


link_target = _link_target()  # (not `link`: that is the glossary's link maker)
changed_only = st.toggle("Changed messages only", value=True, key="changed_only")
action_rows = rv.action_rows(report, analysis, link_target, changed_only=changed_only)
view_only = rv.view_only_rows(report, analysis, link_target)
st.subheader(f"Actions ({len(action_rows):,} shown of {len(report.actions):,})")
if not action_rows:
    st.caption("No durable message was moved, dropped, merged or renamed"
               + (" (the repair only adds messages to the view: see below)." if view_only else "."))
else:
    _table(action_rows, rv.ACTION_COLUMNS, link_target, ("message", "why"))

st.subheader(f"Messages written for the view ({len(view_only)})")
if view_only:
    _table(view_only, rv.VIEW_ONLY_COLUMNS, link_target, ("message",))
else:
    st.caption(f"No {facts(RepairKind.SYNTHESIZED).name}, {facts(RepairKind.SYNTHESIZED_TURN).name} or "
               f"{facts(RepairKind.MERGED).name} message: every message of the view is a durable one.")

st.subheader(f"Findings ({len(report.findings)})")
if report.findings:
    _table(rv.finding_rows(report, analysis, link_target), rv.FINDING_COLUMNS, link_target, ("message", "finding"))
else:
    st.caption(f"No {facts(Mark.FINDING).name}s: the policy left no defect in the view.")

st.subheader(f"Pairings ({len(report.pairings):,} call(s))")
if report.pairings:
    _table(rv.pairing_rows(report, link_target), rv.pairing_columns(report), link_target)
else:
    st.caption("No tool calls in this transcript.")


def _open_in_inspector() -> None:
    """Any changed message of the current transcript, in the Inspector, in this tab (uploads too)."""
    if source is None or transcript is None or report is None:
        return
    targets = rv.jump_targets(report, changed_only=False) if not changed_only else rv.jump_targets(report)
    if not targets:
        return
    st.subheader("Open in the Inspector")
    picked: str | None = st.selectbox("Message", list(targets), key="report_jump")
    if st.button("Open in the Inspector ▶", key="report_open"):
        assert picked is not None  # the options are never empty here, so one is always picked
        params = {"policy": report.policy, "msg": targets[picked]}
        if provider:
            params["provider"] = provider
        if source.kind == "sample":
            params["sample"] = source.name
        # an upload or a paste is already this session's current transcript (the sidebar picker keeps it)
        if transcript.siblings:
            st.session_state[f"thread_{source.digest}"] = transcript.name
        st.session_state.pop("_url_msg", None)  # the same message twice in a row still selects it
        st.query_params.clear()
        st.switch_page("pages/inspector_page.py", query_params=params)


_open_in_inspector()

st.subheader("Markdown for a review")
st.caption("What '⬇ Report Markdown' downloads, rendered as it will read when pasted into a review. "
           "Transcript text in it is always in code spans, so it cannot become a link, an image or HTML.")
if st.toggle("Show the Markdown source", key="md_source"):
    st.code(neutralize(markdown), language="markdown")
else:
    with st.container(border=True):
        st.markdown(neutralize(markdown))
