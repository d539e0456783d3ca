"""Every inspector page under streamlit.testing.v1.AppTest: load, switch, bad input, deep links, lessons."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
import streamlit as st
from markdown_spans import outside_code_spans
from streamlit.testing.v1 import AppTest

from inspector import ui
from inspector.lessons import example_bytes, find_lesson
from integrity.analysis import POLICIES, analyze

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
TIMEOUT = 60


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    """AppTest shares the process with other tests: start every test with empty Streamlit caches."""
    st.cache_resource.clear()
    st.cache_data.clear()


def app(page: str | None = None, **params: str) -> AppTest:
    """Run the app (optionally on a page); the reference policy unless the test names another."""
    params.setdefault("policy", "openmaic")
    if page is None:
        params.setdefault("view", "table")  # the tests read the side-by-side table; the conversation has its own
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    if page:
        at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def codes(at: AppTest) -> list[str]:
    return [c.value for c in at.code]


def frames(at: AppTest) -> list[Any]:
    return [d.value for d in at.dataframe]


def detail_table(at: AppTest) -> Any:
    """The side-by-side table (small transcripts open in the conversation view: switch by link, as a user can)."""
    for attempt in range(2):
        for frame in frames(at):
            if hasattr(frame, "columns") and "durable transcript" in frame.columns:
                return frame
        if attempt == 0:
            at.query_params["view"] = "table"
            at.switch_page("pages/inspector_page.py").run()
    raise AssertionError("no side-by-side table on the page")


# ----------------------------------------------------------------------------- inspector


def test_inspector_loads_a_sample_from_the_url_and_shows_every_row_kind() -> None:
    at = app(sample="abort_race.pi-ai.json")
    assert any("repaired: 1 moved, 1 interrupted frame(s) dropped" in c for c in codes(at))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["messages"] == "6" and metrics["moved"] == "1" and metrics["dropped interrupted frame"] == "1"
    table = detail_table(at)
    kinds = list(table["kind"])
    assert kinds.count("↪ moved") == 2  # the moved result leaves on the left and arrives on the right
    assert "⊖ dropped interrupted frame" in kinds
    dropped = table[table["kind"] == "⊖ dropped interrupted frame"].iloc[0]
    assert dropped["view #"] == ""
    assert "did not finish its turn" in dropped["why"]


def test_inspector_orphan_synthesized_duplicate_and_stray_kinds() -> None:
    expectations = {
        "orphaned_call.pi-ai.json": ["☐ orphaned call", "✚ synthesized receipt"],
        "crash_duplicate.pi-ai.json": ["⊘ dropped duplicate"],
        "stray_result.pi-ai.json": ["⚠ stray result"],
        "out_of_order.pi-ai.json": ["⚑ finding"],
    }
    for sample, wanted in expectations.items():
        at = app(sample=sample)
        kinds = set(detail_table(at)["kind"])
        for kind in wanted:
            assert kind in kinds, (sample, kind, kinds)
    at = app(sample="crash_duplicate.pi-ai.json")
    struck = detail_table(at)
    text = struck[struck["kind"] == "⊘ dropped duplicate"].iloc[0]["durable transcript"]
    assert "\u0336" in text  # struck through, in plain text


def test_inspector_switches_policy_and_keeps_it_in_the_url() -> None:
    at = app(sample="abort_race.pi-ai.json")
    for policy in POLICIES:
        at.selectbox(key="policy").set_value(policy).run()
        assert not at.exception
        assert at.query_params["policy"] == [policy] or at.query_params["policy"] == policy
        assert any(f"policy {policy}" in t.value for t in at.text)


def test_inspector_switches_provider_and_shows_its_error_text() -> None:
    at = app(sample="abort_race.pi-ai.json", provider="anthropic")  # the engine's own verdicts
    verdicts = next(f for f in frames(at) if "provider" in getattr(f, "columns", []) and "before repair" in f.columns)
    row = verdicts[verdicts["provider"] == "anthropic"].iloc[0]
    assert row["before repair"].startswith("✖ rejected") and row["after repair"].startswith("✔")
    errors = [c for c in codes(at) if c.startswith("error[")]  # the compiler-style panel, no click needed
    assert errors and "tool_use` ids were found" in errors[0]
    assert "anthropic, the transcript as recorded: REJECTED" in codes(at)[0]  # the headline names the 400
    at.selectbox(key="provider").set_value("openai-chat").run()
    assert not at.exception
    errors = [c for c in codes(at) if c.startswith("error[")]
    assert errors and all("tool_use` ids" not in e for e in errors)
    assert any("'tool_calls' must be followed by tool messages" in e for e in errors)


def test_large_transcripts_check_providers_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    from inspector import verdict_ui

    monkeypatch.setattr(verdict_ui, "AUTO_VERDICT_MESSAGES", 3)  # the 6-message sample now counts as large
    at = app(sample="abort_race.pi-ai.json", provider="anthropic")
    button = next(b for b in at.button if b.label.startswith("Check what every provider says (6 messages"))
    verdicts = next(f for f in frames(at) if "before repair" in getattr(f, "columns", []))
    assert list(verdicts["provider"]) == ["anthropic"]  # the chosen one, for the headline, without a click
    assert "anthropic, the transcript as recorded: REJECTED" in codes(at)[0]
    button.click().run()
    verdicts = next(f for f in frames(at) if "before repair" in getattr(f, "columns", []))
    assert set(verdicts["provider"]) == set(ui.provider_names())
    assert not any(b.label.startswith("Check what every provider says") for b in at.button)


def test_inspector_bad_paste_shows_the_error_line_and_keeps_working() -> None:
    at = app()
    at.radio(key="source_mode").set_value("Paste").run()
    at.text_area(key="paste").input('[{"role": "user", "content": "hi"},\n {"role": ').run()
    assert not at.exception
    assert at.error, "an error box is expected"
    assert any("pasted.json: line 2" in c and "invalid JSON" in c for c in codes(at))
    at.radio(key="source_mode").set_value("Sample").run()
    at.selectbox(key="sample").set_value("healthy.pi-ai.json").run()
    assert not at.error and any(c.startswith("✔ healthy") for c in codes(at))


def test_a_bad_jsonl_line_can_be_skipped_as_the_cli_skips_it() -> None:
    """A JSONL line that is not JSON refuses the file (one line), as `check` does; the checkbox reads on past it as
    `check --skip-bad-lines` does, the line reported as a finding and the rest checked."""
    at = app()
    at.radio(key="source_mode").set_value("Upload").run()
    bad = (b'{"role": "user", "content": "hi", "timestamp": 1}\n{"role": "assistant", "content": [{"type": "text", '
           b'"text": "x"}], "timestamp": 2}{"oops": 1}\n{"role": "user", "content": "again", "timestamp": 3}\n')
    at.file_uploader(key="uploads").set_value([("spliced.jsonl", bad, "application/json")]).run()
    assert not at.exception and at.error
    assert any("spliced.jsonl: line 2" in c and "a record and the next on one line" in c for c in codes(at))
    box = next(c for c in at.checkbox if c.key.startswith("skip_bad_lines:"))
    box.check().run()
    assert not at.exception and not at.error
    assert any("line 2: not valid JSON (Extra data); skipped" in c for c in codes(at)), codes(at)[:3]


def test_inspector_upload_of_a_broken_and_a_good_file() -> None:
    at = app()
    at.radio(key="source_mode").set_value("Upload").run()
    at.file_uploader(key="uploads").set_value([
        ("bad.jsonl", b'{"role": "user"}\n{not json}\n', "application/json"),
        ("good.json", (ROOT / "sample_transcripts" / "orphaned_call.pi-ai.json").read_bytes(), "application/json"),
    ]).run()
    assert not at.exception
    assert at.selectbox(key="upload_pick").value == "good.json"  # the newest upload is shown
    at.selectbox(key="upload_pick").set_value("bad.jsonl").run()
    assert any(c.startswith("bad.jsonl: line 2") for c in codes(at))
    at.selectbox(key="upload_pick").set_value("good.json").run()
    assert not at.error
    assert "✚ synthesized receipt" in set(detail_table(at)["kind"])


def test_inspector_deep_link_opens_a_message_with_its_pairing() -> None:
    at = app(sample="abort_race.pi-ai.json", msg="4")
    assert any("moved to view #3" in c for c in codes(at))
    raw = next(c for c in codes(at) if '"toolCallId": "call_B"' in c)
    assert '"role": "toolResult"' in raw
    pairing = next(f for f in frames(at) if "outcome" in getattr(f, "columns", []))
    assert list(pairing["outcome"]) == ["moved"] and list(pairing["call"]) == ["grep#call_B"]
    table = detail_table(at)
    assert (table["sel"] == "▶ selected").sum() == 1 and (table["sel"] == "↔ paired").sum() >= 2


def test_inspector_open_message_by_number() -> None:
    at = app(sample="orphaned_call.pi-ai.json")
    at.text_input(key="goto").input("v3").run()
    # a message only the view has: the file has no position for it, so it says so (its numbers on demand)
    assert any(c.startswith("not in the file (view #3) · ✚ synthesized receipt") for c in codes(at))
    assert at.query_params["msg"] in (["v3"], "v3")
    at.text_input(key="goto").input("99").run()
    assert any(c.value == "no such message in this transcript" for c in at.caption)


def test_inspector_next_problem_filters_and_search() -> None:
    at = app(sample="abort_race.pi-ai.json")
    # pi-ai has no target provider (the universal invariants judge): the first press lands on the first repair,
    # the result moved up to its frame (a view-only row, v3)
    at.button(key="next_problem").click().run()
    assert at.query_params["msg"] in (["v3"], "v3")
    line = next(t.value for t in at.text if t.value.startswith("Problem "))
    assert " · not in the file (view #3) · repair: ↪ moved" in line
    at.button(key="next_problem").click().run()  # then on in the file's order: refusals of the dropped frame [3]
    assert at.query_params["msg"] in (["3"], "3")
    assert any(t.value.startswith("Problem ") and " · [3] · " in t.value for t in at.text)  # the file's own place
    at.button(key="prev_problem").click().run()  # and back
    assert at.query_params["msg"] in (["v3"], "v3")
    at.button(key="next_row").click().run()
    assert at.query_params["msg"] in (["3"], "3")
    at.checkbox(key="problems_only").check().run()
    kinds = list(detail_table(at)["kind"])
    assert "↪ moved" in kinds and len(kinds) < 7
    at.checkbox(key="problems_only").uncheck().run()
    at.multiselect(key="kinds").set_value(["dropped_interrupted_frame"]).run()
    assert list(detail_table(at)["kind"]) == ["⊖ dropped interrupted frame"]
    at.multiselect(key="kinds").set_value([]).run()
    at.text_input(key="search").input("TODO: retry").run()
    assert set(detail_table(at)["kind"]) == {"↪ moved"}


def test_huge_transcript_mode_fills_texts_for_the_page_and_for_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ui, "PREVIEW_ALL_UP_TO", 2)  # treat the 6-message sample as huge
    at = app(sample="abort_race.pi-ai.json")
    table = detail_table(at)
    assert table["durable transcript"].iloc[0] == "user: Read the config and grep for TODOs."
    at.text_input(key="search").input("TODO: retry").run()
    assert set(detail_table(at)["kind"]) == {"↪ moved"}


def test_inspector_compare_mode_shows_every_policy() -> None:
    at = app(sample="abort_race.pi-ai.json")
    at.toggle(key="compare").set_value(True).run()
    assert not at.exception
    assert any(s.value == "Compare policies" for s in at.subheader)
    shown = [m.value for m in at.markdown]
    for policy in POLICIES:
        assert f"**{policy}**" in shown
    compared = next(f for f in frames(at) if "" in getattr(f, "columns", []) and "messages" in list(f.iloc[:, 0]))
    assert list(compared.columns) == ["", *POLICIES]
    assert compared.set_index("").loc["messages"].tolist() == ["6"] * len(POLICIES)


def test_inspector_shows_the_overview_of_all_rows() -> None:
    at = app(sample="pause_between.pi-ai.json")
    overview = next(f for f in frames(at) if "message" in getattr(f, "columns", []) and "row" in f.columns)
    assert len(overview) == len(detail_table(at)) == 6


# ----------------------------------------------------------------------------- report


def test_report_page_renders_and_offers_the_report_and_each_providers_view() -> None:
    from integrity import PROVIDERS

    at = app("pages/report.py", sample="orphaned_call.pi-ai.json")
    assert any("repaired: 1 receipt(s) synthesized" in c for c in codes(at))
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["⬇ Report JSON", "⬇ Report Markdown", "⬇ Repaired transcript",
                      *(f"⬇ view for {provider}" for provider in PROVIDERS)]
    markdown = next(m.value for m in at.markdown if m.value.startswith("### Tool-call repair report"))
    assert "`call_readme`" in markdown and "synthesized" in markdown
    receipts = next(f for f in frames(at) if "for call" in getattr(f, "columns", []))
    assert list(receipts["for call"]) == ["call_readme"]


def test_report_page_switches_policy() -> None:
    at = app("pages/report.py", sample="abort_race.pi-ai.json")
    for policy in POLICIES:
        at.selectbox(key="policy").set_value(policy).run()
        assert not at.exception
        assert any(f"policy {policy}" in t.value for t in at.text)


def test_report_page_reads_an_uploaded_report_and_rejects_garbage() -> None:
    transcript = ui.load((ROOT / "sample_transcripts" / "crash_duplicate.pi-ai.json").read_bytes(), "crash.json")
    report_json = msgspec.json.encode(analyze(transcript, "openmaic").report)
    at = app("pages/report.py")
    at.radio(key="report_origin").set_value("Uploaded report JSON").run()
    at.file_uploader(key="report_upload").set_value(("crash.report.json", report_json, "application/json")).run()
    assert not at.exception and not at.error
    assert any("duplicate result(s) dropped" in c for c in codes(at))
    actions = next(f for f in frames(at) if "action" in getattr(f, "columns", []))
    assert list(actions["action"]) == ["dropped duplicate"]
    at.file_uploader(key="report_upload").set_value(
        ("x.json", json.dumps({"policy": 3}).encode(), "application/json")).run()
    assert at.error and any(c.startswith("x.json:") and "repair report" in c for c in codes(at))


# ----------------------------------------------------------------------------- lessons


def step_view(at: AppTest) -> Any:
    """The step-through's view table (the only one with a 'last step' column)."""
    return [f for f in frames(at) if "last step" in getattr(f, "columns", [])][-1]


def test_lessons_step_through_applies_one_action_at_a_time() -> None:
    at = app("pages/lessons.py", lesson="contiguous")
    assert any(s.value == "Results come right after their frame" for s in at.subheader)
    assert at.query_params["lesson"] in (["contiguous"], "contiguous")
    slider = at.slider[0]
    assert slider.max == 2 and slider.value == 0

    def view() -> list[tuple[str, str]]:
        table = step_view(at)
        return list(zip(table["from"], table["view #"], strict=True))

    assert view() == [("#0", "0"), ("#1", "1"), ("#2", "2"), ("#3", "3"), ("#4", "4"), ("#5", "5")]
    slider.set_value(1).run()  # the interrupted frame is dropped: it stays as a placeholder without a view #
    assert view() == [("#0", "0"), ("#1", "1"), ("#2", "2"), ("#3", ""), ("#4", "3"), ("#5", "4")]
    at.slider[0].set_value(2).run()  # the result travels back past it, next to its frame
    assert view() == [("#0", "0"), ("#1", "1"), ("#2", "2"), ("#4", "3"), ("#3", ""), ("#5", "4")]
    assert list(step_view(at)["last step"]) == ["", "", "", "◀ just changed", "", ""]
    steps = next(f for f in frames(at) if "status" in getattr(f, "columns", []))
    assert list(steps["status"]) == ["✔ applied", "✔ applied"]


def test_lessons_every_invariant_renders_under_every_policy() -> None:
    from inspector.lessons import LESSONS

    at = app("pages/lessons.py")
    assert [o for o in at.radio(key="lesson").options] == [
        f"{n + 1}. {lesson.title}" for n, lesson in enumerate(LESSONS)]
    for lesson in LESSONS:
        at.radio(key="lesson").set_value(lesson.key).run()
        assert not at.exception, lesson.key
        for policy in POLICIES:
            at.selectbox(key="policy").set_value(policy).run()
            assert not at.exception, (lesson.key, policy)
        table = next(f for f in frames(at) if "provider error" in getattr(f, "columns", []))
        for provider, error in lesson.provider_errors:  # the claimed errors, as the rule sets return them
            assert error in list(table[table["provider"] == provider]["provider error"])
        assert at.text_area(key="sandbox").value == example_bytes(lesson).decode()  # the sandbox follows


def test_lessons_show_both_policies_side_by_side_from_the_engine() -> None:
    from inspector.lessons import lesson_analyses

    at = app("pages/lessons.py", lesson="receipts")
    analyses = lesson_analyses(find_lesson("receipts"))
    verdicts = codes(at)
    for policy in POLICIES:
        assert analyses[policy].report.verdict in verdicts
    receipts = [json.loads(c) for c in verdicts if c.startswith("{") and "interrupted" in c]
    assert len(receipts) == 2 and all(r["details"] == {"ok": False, "error": "interrupted"} for r in receipts)
    assert any("/glossary?term=receipt" in m.value for m in at.markdown)


def test_lessons_say_so_for_an_unknown_lesson() -> None:
    at = app("pages/lessons.py", lesson="nope")
    assert at.warning and "nope" in at.warning[0].value


def test_lessons_synthesized_step_shows_the_receipt() -> None:
    at = app("pages/lessons.py", lesson="answered")
    at.slider[0].set_value(1).run()
    view = step_view(at)
    assert "✚ receipt" in list(view["from"])
    assert list(view["last step"]).count("◀ just changed") == 1


def test_lessons_sandbox_updates_as_you_edit_and_reports_bad_json() -> None:
    at = app("pages/lessons.py", lesson="contiguous")
    assert any(c.startswith("⚒ repaired: 1 moved, 1 interrupted frame(s) dropped") for c in codes(at))
    healthy = json.dumps([{"role": "user", "content": "hi"},
                          {"role": "assistant", "content": [], "stopReason": "stop"}])
    at.text_area(key="sandbox").input(healthy).run()
    assert any(c.startswith("✔ healthy") for c in codes(at))
    at.text_area(key="sandbox").input("[{").run()
    assert not at.exception
    assert any(c.startswith("sandbox.json: line 1") for c in codes(at))


# ----------------------------------------------------------------------------- batch


def test_batch_of_all_samples_then_open_one_in_the_inspector() -> None:
    at = app("pages/batch.py")
    at.radio(key="batch_mode").set_value("All samples").run()
    assert not at.exception
    table = next(f for f in frames(at) if "file" in getattr(f, "columns", []))
    assert set(table["file"]) == set(ui.sample_names())
    by_file = table.set_index("file")
    assert by_file.loc["healthy.pi-ai.json", "status"] == "healthy"
    assert by_file.loc["orphaned_call.pi-ai.json", "orphaned call"] == 1
    # verdicts of every provider, in words
    # Mistral refuses its ids as recorded (nine letters or digits only): information beside the status
    assert by_file.loc["healthy.pi-ai.json", "all providers"].startswith(
        "information, not the verdict (judged by the universal invariants): 1 of 8 providers reject it as recorded")
    assert by_file.loc["healthy.pi-ai.json", "mistral as recorded"].startswith("✖")
    assert by_file.loc["orphaned_call.pi-ai.json", "all providers"].startswith("information, not the verdict")
    assert by_file.loc["abort_race.pi-ai.json", "open"].startswith("/?sample=abort_race.pi-ai.json")
    names = at.selectbox(key="batch_pick").options
    at.selectbox(key="batch_pick").set_value(names.index("orphaned_call.pi-ai.json")).run()
    at.button(key="batch_open").click().run()
    assert not at.exception
    assert any(t.value == "Inspector" for t in at.title)
    assert "☐ orphaned call" in set(detail_table(at)["kind"])


def test_batch_upload_keeps_going_past_an_unreadable_file() -> None:
    at = app("pages/batch.py")
    good = (ROOT / "sample_transcripts" / "crash_duplicate.pi-ai.json").read_bytes()
    at.file_uploader(key="batch_Upload files").set_value([
        ("a.json", good, "application/json"), ("b.json", b"[1, 2", "application/json")]).run()
    assert not at.exception
    table = next(f for f in frames(at) if "file" in getattr(f, "columns", [])).set_index("file")
    assert table.loc["a.json", "dropped duplicate"] == 1
    assert table.loc["b.json", "status"] == "unreadable" and table.loc["b.json", "verdict"].startswith("b.json:")
    at.selectbox(key="batch_pick").set_value(0).run()  # a.json
    at.button(key="batch_open").click().run()
    assert any(t.value == "Inspector" for t in at.title)
    assert "⊘ dropped duplicate" in set(detail_table(at)["kind"])


# ----------------------------------------------------------------------------- hostile input

EVIL_NAME = "![n](https://evil.example/name.png) <script>alert(1)</script>.json"


def hostile_transcript() -> bytes:
    """Script tags, remote markdown images, links and a huge string, in every text field we display."""
    script = "<script>window.__pwned=1</script><img src=x onerror=alert(1)>"
    image = "![track](https://evil.example/pixel.png) [click](javascript:alert(1))"
    return json.dumps([
        {"role": "user", "content": f"{script} {image}"},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": image},
            {"type": "toolCall", "id": f"id {image}", "name": script, "arguments": {"q": script}}]},
        {"role": "toolResult", "toolCallId": f"stray {image}", "toolName": script,
         "content": [{"type": "text", "text": "A" * 3_000_000 + image}]},
    ]).encode()


def _markdown_texts(at: AppTest) -> list[str]:
    """Everything on the page that Streamlit renders as Markdown, but code spans (rendered literally)."""
    out = [outside_code_spans(m.value) for m in at.markdown] + [c.value for c in at.caption]
    out += [e.value for e in at.error]
    out += [i.value for i in at.info] + [w.value for w in at.warning] + [s.value for s in at.subheader]
    out += [t.value for t in at.title] + [r.label for r in at.radio] + [o for r in at.radio for o in r.options]
    return out


@pytest.mark.parametrize("page", ["pages/inspector_page.py", "pages/report.py"])
def test_hostile_transcript_is_only_ever_rendered_as_text(page: str) -> None:
    at = app(page)
    at.radio(key="source_mode").set_value("Upload").run()
    at.file_uploader(key="uploads").set_value((EVIL_NAME, hostile_transcript(), "application/json")).run()
    assert not at.exception
    if page.endswith("inspector_page.py"):
        at.text_input(key="goto").input("2").run()  # open the huge stray result in the detail panel
        assert not at.exception
    for text in _markdown_texts(at):
        assert "evil.example" not in text and "<script" not in text, text[:200]
    literal = "\n".join(codes(at)) + "\n".join(t.value for t in at.text)
    assert "evil.example" in literal  # it is shown, as literal text
    assert max(len(c) for c in codes(at)) < 50_000  # the 3 MB string is cut for display
    for frame in frames(at):
        for column in getattr(frame, "columns", []):
            longest = max((len(str(value)) for value in frame[column]), default=0)
            assert longest < 2_000, column  # cells stay short


def test_report_page_picks_one_report_from_check_json_output() -> None:
    reports = []
    for name in ("abort_race.pi-ai.json", "orphaned_call.pi-ai.json"):
        transcript = ui.load((ROOT / "sample_transcripts" / name).read_bytes(), name)
        reports.append(msgspec.to_builtins(analyze(transcript, "openmaic").report, str_keys=True))
    at = app("pages/report.py")
    at.radio(key="report_origin").set_value("Uploaded report JSON").run()
    at.file_uploader(key="report_upload").set_value(
        ("all.json", json.dumps(reports).encode(), "application/json")).run()
    assert any("1 interrupted frame(s) dropped" in c for c in codes(at))
    at.selectbox(key="report_pick").set_value("1: orphaned_call.pi-ai.json").run()
    assert any("1 receipt(s) synthesized" in c for c in codes(at))


def test_hostile_report_json_is_only_rendered_as_text() -> None:
    transcript = ui.load(hostile_transcript(), EVIL_NAME)
    payload = msgspec.json.encode(analyze(transcript).report)
    at = app("pages/report.py")
    at.radio(key="report_origin").set_value("Uploaded report JSON").run()
    at.file_uploader(key="report_upload").set_value(("r.json", payload, "application/json")).run()
    assert not at.exception
    for text in _markdown_texts(at):
        assert "evil.example" not in text and "<script" not in text, text[:200]


def test_a_providers_errors_past_the_first_few_go_in_one_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from inspector import verdict_ui

    monkeypatch.setattr(verdict_ui, "SHOWN_ERRORS", 1)
    at = app(sample="abort_race.pi-ai.json", provider="openai-chat")  # 2 errors as recorded
    printed = [c for c in codes(at) if c.startswith("error[")]
    assert len(printed) == 1 and printed[0].startswith("error[tool_calls_unanswered]")
    rest = next(f for f in frames(at) if "provider's text" in getattr(f, "columns", []))
    assert list(rest["error"]) == [2] and list(rest["rule"]) == ["tool_result_without_call"]
    assert rest["about"].iloc[0] == "[4]"


def test_the_provider_follows_each_file_until_the_user_picks_one() -> None:
    """The provider the app mirrors into the URL is not a pick: open the app, upload an Anthropic request and it
    is judged by Anthropic; a Gemini sample next, by Gemini; a pi-ai file (no provider's format) gets the default,
    not the previous file's provider; a provider the user picks stays."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()  # the landing page: the first sample, its provider mirrored into the URL
    landing = at.selectbox(key="provider").value
    at.radio(key="source_mode").set_value("Upload").run()
    data = (ROOT / "sample_transcripts" / "crash_duplicate.anthropic.json").read_bytes()
    at.file_uploader(key="uploads").set_value(("mine.json", data, "application/json")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert landing != "anthropic" and at.selectbox(key="provider").value == "anthropic"
    assert "anthropic, the transcript as recorded: REJECTED" in codes(at)[0]
    at.radio(key="source_mode").set_value("Sample").run()
    at.selectbox(key="sample").set_value("no_ids.gemini.json").run()
    assert at.selectbox(key="provider").value == "gemini"
    at.selectbox(key="sample").set_value("abort_race.pi-ai.json").run()  # no provider's format: none, as check
    assert at.selectbox(key="provider").value == ui.NO_PROVIDER
    assert "provider" not in at.query_params  # no target: the link names none
    verdict = codes(at)[0]
    assert verdict.split("\n")[0].endswith(" repaired: 1 moved, 1 interrupted frame(s) dropped")  # as check says it
    at.selectbox(key="provider").set_value("bedrock").run()  # the user's pick stays for the next file
    at.selectbox(key="sample").set_value("split_results.anthropic.json").run()
    assert at.selectbox(key="provider").value == "bedrock"


def test_a_link_that_names_a_provider_is_a_pick() -> None:
    at = app(sample="split_results.anthropic.json", provider="openai-chat")
    assert at.selectbox(key="provider").value == "openai-chat"


def test_a_finding_about_no_message_is_shown_under_the_verdict() -> None:
    """A line that holds a message but no string type is not read, so no row can carry its finding: the
    headline says it, as check does, instead of only counting it."""
    lines = [json.loads(line) for line in (ROOT / "tests" / "real" / "codex_rollout.codex.jsonl").read_text()
             .splitlines() if line.strip()]
    at_line = next(i for i, line in enumerate(lines) if line.get("type") == "response_item")
    del lines[at_line]["type"]
    at = app()
    at.radio(key="source_mode").set_value("Paste").run()
    at.text_area(key="paste").input("".join(json.dumps(line) + "\n" for line in lines)).run()
    assert not at.exception, [e.value for e in at.exception]
    [headline] = [c for c in codes(at) if "finding(s)" in c]
    assert f"malformed: entry {at_line} (line {at_line + 1}): the line holds a message in 'payload' but has no " \
           "'type'" in headline
