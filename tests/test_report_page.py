"""The Report page reads for a reviewer (issue 11, item 9): message excerpts, links to rows, human names,
ISO times, one spelling of "none", provider error texts in the Markdown, and a rendered Markdown preview
that no transcript text can inject into."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import msgspec
import pandas as pd
import pytest
import streamlit as st
from markdown_spans import code_spans, outside_code_spans
from streamlit.testing.v1 import AppTest

from inspector import report_view as rv
from inspector.markdown import report_markdown
from integrity import PROVIDERS, Action, Finding, Pairing, ReceiptView, TurnView, analyze, judged_by_providers, load
from integrity.pipeline import ProviderVerdict

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
SAMPLES = ROOT / "sample_transcripts"
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
RAW_FIELDS = {name for model in (Action, Pairing, ReceiptView, TurnView, Finding)
              for name in model.__struct_fields__ if "_" in name or name == "timestamp"}


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    st.cache_resource.clear()
    st.cache_data.clear()


def report_page(sample: str | None = None, policy: str = "strict") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["policy"] = policy
    if sample:
        at.query_params["sample"] = sample
    at.switch_page("pages/report.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def tables(at: AppTest) -> list[pd.DataFrame]:
    return [d.value for d in at.dataframe if isinstance(d.value, pd.DataFrame)]


def table_with(at: AppTest, column: str) -> pd.DataFrame:
    return next(frame for frame in tables(at) if column in frame.columns)


def preview(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("### Tool-call repair report"))


def analysis_of(sample: str, policy: str = "strict") -> Any:
    return judged_by_providers(analyze(load((SAMPLES / sample).read_bytes(), sample), policy), PROVIDERS)


# ----------------------------------------------------------------------------- names, times, none


@pytest.mark.parametrize("sample", ["crash_duplicate.anthropic.json", "orphaned_call.pi-ai.json",
                                    "reused_id.openai-chat.json", "out_of_order.pi-ai.json"])
def test_no_raw_field_name_on_the_report_page(sample: str) -> None:
    at = report_page(sample)
    headers = {str(column) for frame in tables(at) for column in frame.columns}
    assert not headers & RAW_FIELDS, headers & RAW_FIELDS
    words = " ".join([*headers, *(c.value for c in at.caption), *(s.value for s in at.subheader),
                      outside_code_spans(preview(at))])
    assert not {w for w in re.findall(r"[a-z]+_[a-z_]+", words)} & RAW_FIELDS


def test_times_are_iso_8601_on_the_page_and_in_the_markdown() -> None:
    at = report_page("orphaned_call.pi-ai.json")
    written = list(table_with(at, "written at")["written at"])
    assert written and all(ISO.match(value) for value in written), written
    cells = " ".join(str(value) for frame in tables(at) for value in frame.to_numpy().ravel())
    assert not re.search(r"\b\d{12,14}\b", cells)  # no epoch milliseconds anywhere
    assert written[0] in preview(at)
    assert rv.iso_time(0) == "1970-01-01T00:00:00.000Z"
    assert rv.iso_time(1_796_042_182_027) == "2026-11-30T12:36:22.027Z"
    assert "not a valid date" in rv.iso_time(10**30) and rv.iso_time(None) == rv.NONE


@pytest.mark.parametrize("sample", ["crash_duplicate.anthropic.json", "orphaned_call.pi-ai.json",
                                    "abort_race.pi-ai.json"])
def test_one_spelling_of_none(sample: str) -> None:
    at = report_page(sample)
    at.toggle(key="changed_only").set_value(False).run()  # every action, the kept ones too
    for frame in tables(at):
        if "provider" in frame.columns:
            continue  # the verdict panel (the Inspector's) is not the report's
        for column in frame.columns:
            if column == "open":
                continue
            for value in frame[column]:
                assert value is not None and not (isinstance(value, float) and pd.isna(value)), column
                assert str(value).strip().lower() not in ("", "none", "nan", "null", "?"), (column, value)
    markdown = preview(at)
    assert not re.search(r"\bnone\b", outside_code_spans(markdown), re.IGNORECASE)
    assert "| — |" in markdown or "— |" in markdown


# ----------------------------------------------------------------------------- excerpts and links


def test_each_action_shows_its_message_and_links_to_its_row() -> None:
    sample = "crash_duplicate.anthropic.json"
    at = report_page(sample)
    actions = table_with(at, "action")
    analysis = analysis_of(sample)
    changed = [a for a in analysis.report.actions if rv.changed(a)]
    assert list(actions["durable #"]) == [a.durable_index for a in changed]
    for _, row in actions.iterrows():
        message = analysis.transcript.messages[row["durable #"]]
        assert message["toolCallId"] in row["message"]  # the excerpt is of this very message
        query = parse_qs(urlparse(row["open"]).query)
        assert urlparse(row["open"]).path == "/"
        assert query == {"sample": [sample], "policy": ["strict"], "provider": ["anthropic"],
                         "msg": [str(row["durable #"])]}


def test_a_message_kept_in_place_with_a_reason_is_a_changed_action() -> None:
    """A message the view keeps in place but writes otherwise (its entry reshaped: a null content sent as "") is
    what the verdict counts ("repaired: 1 message(s) written in the shape their format's provider takes"): the
    page's "Changed messages only" table lists it, with its reason, where it said "No durable message was moved,
    dropped, merged or renamed"."""
    sample = "null_tool_result.openai-chat.json"
    at = report_page(sample)
    actions = table_with(at, "action")
    assert list(actions["durable #"]) == [3]
    assert "reshaped" in actions["action"][0] and 'messages[3].content: null → ""' in actions["why"][0]
    assert [a.durable_index for a in analysis_of(sample).report.actions if rv.changed(a)] == [3]


def test_a_message_only_in_the_view_links_to_its_view_row() -> None:
    at = report_page("orphaned_call.pi-ai.json")
    receipts = table_with(at, "for call")
    assert list(receipts["kind"]) == ["synthesized receipt"]
    assert "call_readme" in receipts["message"][0]  # the synthesized message itself
    query = parse_qs(urlparse(receipts["open"][0]).query)
    assert query["msg"] == [f"v{receipts['view #'][0]}"] and query["sample"] == ["orphaned_call.pi-ai.json"]


@pytest.mark.parametrize("msg", ["3", "4"])
def test_the_links_select_that_row_in_the_inspector(msg: str) -> None:
    sample = "abort_race.pi-ai.json"  # a dropped frame (#3) and a moved result (#4)
    link = table_with(report_page(sample), "action").set_index("durable #").loc[int(msg), "open"]
    at = AppTest.from_file(APP, default_timeout=90)
    for key, values in parse_qs(urlparse(link).query).items():
        at.query_params[key] = values[0]
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["sel_row"] is not None  # the link named a row the Inspector has


def test_an_upload_has_no_link_and_says_how_to_open_it() -> None:
    at = report_page()
    at.radio(key="source_mode").set_value("Upload").run()
    data = (SAMPLES / "crash_duplicate.pi-ai.json").read_bytes()
    at.file_uploader(key="uploads").set_value(("mine.json", data, "application/json")).run()
    assert not at.exception
    assert "open" not in table_with(at, "action").columns
    assert any("an upload has no address" in c.value for c in at.caption)
    assert "durable #2: dropped duplicate" in at.selectbox(key="report_jump").options
    assert at.button(key="report_open")


def test_an_uploaded_report_json_says_excerpts_need_the_transcript() -> None:
    report = analysis_of("abort_race.pi-ai.json").report
    at = report_page()
    at.radio(key="report_origin").set_value("Uploaded report JSON").run()
    at.file_uploader(key="report_upload").set_value(
        ("r.json", msgspec.json.encode(report), "application/json")).run()
    assert not at.exception
    actions = table_with(at, "action")
    assert len(actions) == 2 and set(actions["message"]) == {rv.NONE} and "open" not in actions.columns
    assert any("need the transcript" in c.value for c in at.caption)


# ----------------------------------------------------------------------------- Markdown


def _unescaped(span: str) -> str:
    return span.replace("\\|", "|")


def test_the_markdown_quotes_every_provider_error_word_for_word() -> None:
    analysis = analysis_of("orphaned_call.pi-ai.json")
    markdown = report_markdown(analysis.report, analysis.verdicts, analysis=analysis)
    spans = {_unescaped(span) for span in code_spans(markdown)}
    errors = [v.error for result in analysis.verdicts.values() for v in [*result.before, *result.after]]
    assert len(errors) >= len(PROVIDERS)
    for error in errors:
        assert error in spans, error  # exact, each in its own code span
    assert "| `anthropic` | rejected (1) | accepted | as recorded, at `messages.1` |" in markdown


def test_a_provider_error_with_pipes_and_backticks_stays_one_exact_cell() -> None:
    error = "bad | worse `tool_use` || end"
    verdicts = {"p": ProviderVerdict("p", [{"position": "m[1]", "error": error}], [])}  # type: ignore[list-item]
    markdown = report_markdown(analysis_of("healthy.pi-ai.json").report, verdicts)
    row = next(line for line in markdown.splitlines() if line.startswith("| `p` |"))
    cells = re.split(r"(?<!\\)\|", row)[1:-1]  # a GFM table splits on unescaped pipes only
    assert len(cells) == 5
    assert [_unescaped(span) for span in code_spans(cells[4])] == [error]


HOSTILE = ["![x](http://evil.example/x.png)", "<script>alert(1)</script>", "[link](javascript:alert(1))",
           "<img src=x onerror=alert(1)>", "https://evil.example/auto", ":red[red] $x^2$"]


def hostile_transcript() -> bytes:
    text = " ".join(HOSTILE)
    return json.dumps([
        {"role": "user", "content": text},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": text},
            {"type": "toolCall", "id": f"id {text}", "name": f"t {text}", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": f"stray {text}", "toolName": text,
         "content": [{"type": "text", "text": text}]},
        {"role": "toolResult", "toolCallId": f"id {text}", "toolName": text,
         "content": [{"type": "text", "text": text}]},
    ]).encode()


def test_the_preview_is_rendered_and_hostile_text_only_ever_sits_in_code_spans() -> None:
    at = report_page()
    at.radio(key="source_mode").set_value("Upload").run()
    at.file_uploader(key="uploads").set_value(
        (f"{HOSTILE[0]}.json", hostile_transcript(), "application/json")).run()
    assert not at.exception
    markdown = preview(at)  # st.markdown: rendered, not shown as source
    assert not any(c.value.startswith("### Tool-call repair report") for c in at.code)
    spans = " ".join(code_spans(markdown))
    assert all(piece in spans for piece in HOSTILE[:4])  # shown, as literal text
    outside = outside_code_spans(markdown)
    for marker in ("evil", "<script", "<img", "javascript:", "](", ":red[", "$x"):
        assert marker not in outside, marker
    at.toggle(key="md_source").set_value(True).run()
    assert any(c.value == markdown for c in at.code)  # the source, on request
    assert not any(m.value.startswith("### Tool-call repair report") for m in at.markdown)


def test_the_report_offers_each_provider_the_view_planned_for_it() -> None:
    """abort_race (issue 29): Bedrock and Mistral accept the views re-planned for them; the page's table says so
    beside a download of that very view, and says 'safe to send' only of bytes `check --provider` passes."""
    from integrity.analysis import export_view
    from integrity.download import download

    at = report_page("abort_race.pi-ai.json")
    table = table_with(at, "after repair (that view)").set_index("provider")
    assert list(table.index) == list(PROVIDERS)
    analysis = analysis_of("abort_race.pi-ai.json")
    for provider in ("bedrock", "mistral"):
        assert table.loc[provider, "the view planned for it"] == f"re-planned for {provider}"
        assert table.loc[provider, "after repair (that view)"] == \
            "accepted: safe to send (`check` passes the download)"
        [button] = [b for b in at.get("download_button") if b.label == f"⬇ view for {provider}"]
        assert download(analysis, provider).safe_to_send and export_view(analysis, provider) != export_view(analysis)
    headline = next(t.value for t in at.text if t.value.startswith("⬇ Repaired transcript"))
    assert "planned with no target provider" in headline and "safe to send" in headline


def test_above_the_recheck_limit_nothing_is_called_safe_to_send(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large transcript's downloads are written when clicked and not read back: no 'safe to send' anywhere."""
    from inspector import verdict_ui

    monkeypatch.setattr(verdict_ui, "RECHECK_UP_TO", 3)  # the 6-message sample now counts as large
    at = report_page("abort_race.pi-ai.json")
    said = list(table_with(at, "after repair (that view)")["after repair (that view)"])
    assert said and all("safe to send" not in words and "not re-checked" in words for words in said), said
    assert not any("safe to send" in t.value for t in at.text)
    assert {f"⬇ view for {provider}" for provider in PROVIDERS} <= {b.label for b in at.get("download_button")}


def test_a_larger_transcript_rechecks_every_providers_download_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    from inspector import verdict_ui

    monkeypatch.setattr(verdict_ui, "AUTO_VERDICT_MESSAGES", 3)  # the 6-message sample: every download on a button
    at = report_page("abort_race.pi-ai.json")
    said = table_with(at, "after repair (that view)").set_index("provider")["after repair (that view)"]
    assert all(words == "accepted, not re-checked: run `check` on the download" for words in said), said
    button = next(b for b in at.button if b.label.startswith("Re-check every provider's download (6 messages: "))
    assert " s, as this page's own took)" in button.label  # an estimate from this run's own re-check
    button.click().run()
    said = table_with(at, "after repair (that view)").set_index("provider")["after repair (that view)"]
    assert all(words == "accepted: safe to send (`check` passes the download)" for words in said), said


def test_the_report_shows_the_view_each_provider_is_sent() -> None:
    from inspector.report_view import provider_view_rows

    at = report_page("abort_race.pi-ai.json")
    analysis = analysis_of("abort_race.pi-ai.json")
    at.selectbox(key="report_view_of").set_value("mistral").run()
    shown = next(frame for frame in tables(at) if list(frame.columns) == ["view #", "message"])
    expected = provider_view_rows(analysis, "mistral")
    assert list(shown["message"]) == [row["message"] for row in expected]
    assert expected != provider_view_rows(analysis, "openai-chat")  # Mistral's ids are its own: another view
    assert any(c.value.startswith("The view planned for mistral: ") and c.value.endswith("after repair: accepted.")
               for c in at.caption)


def test_an_entry_check_lists_and_never_judges_is_named_in_the_picker_and_read_as_no_report() -> None:
    """`check --json` on a file with an abandoned branch: the picker names each entry by its transcript, the
    branch as not judged; picked, the page says it has no report in read_report's words, never a traceback."""
    from cli_inprocess import run

    branched = ROOT / "tests" / "real" / "pi_tree_branch.pi-session.jsonl"
    output = run("check", "--json", branched).stdout
    at = report_page()
    at.radio(key="report_origin").set_value("Uploaded report JSON").run()
    at.file_uploader(key="report_upload").set_value(("check.json", output, "application/json")).run()
    assert not at.exception
    assert at.selectbox(key="report_pick").options == [
        f"0: {branched}", f"1: {branched}#branch:538453d7 (abandoned branch, not judged)"]
    at.selectbox(key="report_pick").set_value(f"1: {branched}#branch:538453d7 (abandoned branch, not judged)").run()
    assert not at.exception and not at.error
    assert any("never judges (abandoned branch)" in block.value for block in at.code)
