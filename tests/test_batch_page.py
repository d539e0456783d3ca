"""Batch says whether a file is safe to send, per provider (issue 11, item 10): a provider picker (by default
each file's own provider), what that provider says as recorded and after repair, plain wording for all
providers, never "healthy" next to its provider's refusal, and every file (uploads too) opens in the Inspector."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from inspector.batch import REJECTED_STATUS, UNIVERSAL, summarize_all
from integrity import POLICIES, PROVIDERS, load, own_provider
from integrity.pipeline import ProviderVerdict, check

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
SAMPLES = ROOT / "sample_transcripts"


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    st.cache_resource.clear()
    st.cache_data.clear()


def batch_page(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["policy"] = "strict"
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page("pages/batch.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def table(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "status" in getattr(d.value, "columns", [])).set_index("file")


def verdicts_of(sample: str, provider: str | None = None, policy: str = "strict") -> dict[str, ProviderVerdict]:
    transcript = load((SAMPLES / sample).read_bytes(), sample)
    return dict(check(transcript, provider=provider, also="all", policy=policy).providers)


def upload(at: AppTest, *files: tuple[str, bytes]) -> None:
    at.file_uploader(key="batch_Upload files").set_value([(n, d, "application/json") for n, d in files]).run()
    assert not at.exception, [e.value for e in at.exception]


def test_by_default_each_file_is_judged_by_its_own_provider() -> None:
    at = batch_page()
    at.radio(key="batch_mode").set_value("All samples").run()
    rows = table(at)
    for sample, row in rows.iterrows():
        format = load((SAMPLES / str(sample)).read_bytes(), str(sample)).format
        assert row["safe to send to"] == (own_provider(format) or UNIVERSAL), sample
    # the case of the issue: healthy, and two providers refuse it as recorded; its own accepts it
    row = rows.loc["healthy.anthropic.json"]
    verdicts = verdicts_of("healthy.anthropic.json")
    refusing = sum(1 for result in verdicts.values() if result.before)
    assert refusing >= 1 and not verdicts["anthropic"].before
    assert (row["status"], row["accepted as recorded"], row["accepted after repair"]) == \
        ("healthy", "✔ accepted", "✔ accepted")
    assert row["all providers"] == (f"information, not the verdict (judged by anthropic): {refusing} of "
                                    f"{len(PROVIDERS)} providers reject it as recorded, 0 reject the view planned "
                                    "for them")


def test_a_file_refused_by_its_own_provider_quotes_its_error() -> None:
    rows = {row["file"]: row for row in summarize_all(
        "crash_duplicate.anthropic.json", (SAMPLES / "crash_duplicate.anthropic.json").read_bytes(), "strict")}
    row = rows["crash_duplicate.anthropic.json"]
    error = verdicts_of("crash_duplicate.anthropic.json")["anthropic"].before[0].error
    assert row["accepted as recorded"] == f"✖ rejected: {error}"
    assert row["accepted after repair"] == "✔ accepted" and row["status"] != "healthy"


def test_a_picked_provider_judges_every_file_and_goes_in_the_link() -> None:
    at = batch_page()
    at.radio(key="batch_mode").set_value("All samples").run()
    at.selectbox(key="batch_provider").set_value("bedrock").run()
    assert not at.exception
    assert at.query_params["provider"] in (["bedrock"], "bedrock")
    rows = table(at)
    assert set(rows["safe to send to"]) == {"bedrock"}
    row = rows.loc["healthy.anthropic.json"]
    error = verdicts_of("healthy.anthropic.json", "bedrock")["bedrock"].before[0].error
    assert row["accepted as recorded"] == f"✖ rejected: {error}"
    assert row["status"] != "healthy"  # as `check --provider bedrock` says (exit 1)
    assert row["open"].endswith("policy=strict&provider=bedrock")


def test_a_provider_in_the_url_is_the_pick() -> None:
    at = batch_page(provider="mistral")
    assert at.selectbox(key="batch_provider").value == "mistral"


@pytest.mark.parametrize("policy", list(POLICIES))
def test_healthy_never_stands_next_to_a_refusal_by_the_provider_it_is_judged_by(policy: str) -> None:
    for path in sorted(SAMPLES.glob("*.json*")):
        for provider in (None, *PROVIDERS):
            for row in summarize_all(path.name, path.read_bytes(), policy, provider=provider):
                if row["status"] == "healthy":
                    assert row["accepted as recorded"].startswith(("✔", "no target provider")), (path.name, row)
                if row["status"] == REJECTED_STATUS:
                    assert row["accepted as recorded"].startswith("✖"), (path.name, provider, row)


def test_no_provider_is_the_judge_of_a_format_no_single_provider_reads() -> None:
    """A pi-ai file has no target provider: the universal invariants decide its status (as `check` does);
    what every provider says is information, in its own column, and never changes the status."""
    [row] = summarize_all("orphaned_call.pi-ai.json", (SAMPLES / "orphaned_call.pi-ai.json").read_bytes(), "strict")
    verdicts = verdicts_of("orphaned_call.pi-ai.json")
    refusing = [name for name, result in verdicts.items() if result.before]
    assert row["safe to send to"] == UNIVERSAL and row["status"] == "repaired"  # an unanswered call
    assert row["accepted as recorded"].startswith("no target provider")
    assert row["all providers"] == (f"information, not the verdict (judged by {UNIVERSAL}): {len(refusing)} of "
                                    f"{len(verdicts)} providers reject it as recorded, 0 reject the view planned "
                                    "for them")
    [healthy] = summarize_all("healthy.pi-ai.json", (SAMPLES / "healthy.pi-ai.json").read_bytes(), "strict")
    assert healthy["status"] == "healthy"


def test_an_upload_has_no_link_but_opens_in_the_inspector_from_the_picker() -> None:
    at = batch_page()
    first = (SAMPLES / "healthy.pi-ai.json").read_bytes()
    second = (SAMPLES / "crash_duplicate.pi-ai.json").read_bytes()
    upload(at, ("first.json", first), ("second.json", second))
    rows = table(at)
    assert rows["open"].isna().all()  # an upload has no address
    picker = at.selectbox(key="batch_pick")
    assert picker.options == ["first.json", "second.json"]
    picker.set_value(1).run()
    at.button(key="batch_open").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(t.value == "Inspector" for t in at.title)
    assert at.session_state["_current"].name == "second.json"


def test_a_sample_opens_in_the_inspector_with_the_picked_provider() -> None:
    at = batch_page()
    at.radio(key="batch_mode").set_value("All samples").run()
    at.selectbox(key="batch_provider").set_value("gemini").run()
    names = at.selectbox(key="batch_pick").options
    at.selectbox(key="batch_pick").set_value(names.index("abort_race.pi-ai.json")).run()
    at.button(key="batch_open").click().run()
    assert any(t.value == "Inspector" for t in at.title)
    assert at.query_params["sample"] in (["abort_race.pi-ai.json"], "abort_race.pi-ai.json")
    assert at.query_params["provider"] in (["gemini"], "gemini")


# (split_results.anthropic.json is accepted as recorded: Anthropic combines consecutive user messages)
@pytest.mark.parametrize("sample", ["split_results.bedrock.json"])
def test_a_file_only_its_provider_refuses_for_its_shape_is_repaired_by_its_writer_not_findings(sample: str) -> None:
    """Nothing the plan changes and no finding, but its own provider refuses the results split over two messages,
    which the file's writer sends as one: the status says the file is repaired, and the count says how (it said
    "findings" beside a findings count of 0, then "rejected as recorded" while `repair` wrote the joined file)."""
    [row] = summarize_all(sample, (SAMPLES / sample).read_bytes(), "strict")
    assert row["findings"] == 0 and row["reshaped"] == 1
    assert row["status"] == "repaired", row
    assert row["accepted as recorded"].startswith("✖") and row["accepted after repair"].startswith("✔")


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_findings_status_always_has_findings(policy: str) -> None:
    for path in sorted(SAMPLES.glob("*.json*")):
        for row in summarize_all(path.name, path.read_bytes(), policy):
            if row["status"] == "findings":
                assert row["findings"] > 0, (path.name, row)


def test_the_page_says_what_check_says_of_a_runtimes_own_results_and_only_then() -> None:
    """An uploaded pi session whose call its runtime answers with "No result provided": the row says `check`'s
    third line (integrity.naming.runtime_results_said) beside "accepted as recorded", which it explains; a batch
    of files whose runtimes add nothing has no such column."""
    from inspector.batch import RUNTIME_SENDS
    from integrity.naming import runtime_results_said

    real = ROOT / "tests" / "real" / "pi_codex_unanswered_call.pi-session.jsonl"
    at = batch_page()
    upload(at, (real.name, real.read_bytes()), ("healthy.anthropic.json",
                                                (SAMPLES / "healthy.anthropic.json").read_bytes()))
    rows = table(at)
    said = runtime_results_said(check(load(real.read_bytes(), real.name)).report)
    assert said and "No result provided" in said
    columns = list(rows.columns)  # beside the cell it explains (the file's name is the index)
    assert columns[columns.index("accepted as recorded") + 1] == RUNTIME_SENDS
    assert rows.loc[real.name, RUNTIME_SENDS] == said and rows.loc["healthy.anthropic.json", RUNTIME_SENDS] == ""
    at = batch_page()
    upload(at, ("healthy.anthropic.json", (SAMPLES / "healthy.anthropic.json").read_bytes()))
    assert RUNTIME_SENDS not in table(at).columns
