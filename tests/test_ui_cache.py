"""What the inspector caches with st.cache_resource is shared by every session and thread: pages never change it.

Each test builds the cached objects through ui's cached functions, with the keys
the pages use (transcript, analysis per policy, the analysis with verdicts, the
rows and the rows with texts), pickles them, runs pages that use every one of
them (verdicts, compare mode, rows without texts filled for the screen and for a
search, a selected message, the report's downloads, a lesson), then checks that
the cache still holds the very same objects and that their pickle is unchanged.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from inspector import ui
from inspector.lessons import LESSONS
from integrity.analysis import POLICIES

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
TIMEOUT = 60


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    st.cache_resource.clear()
    st.cache_data.clear()
    # Treat every sample as huge: rows are cached without texts, so the pages must fill
    # the rows they show (and, for a search, all of them) without touching the cache.
    monkeypatch.setattr(ui, "PREVIEW_ALL_UP_TO", 2)


def cached(name: str, provider: str) -> dict[str, Any]:
    """Every object the pages cache for one sample, under every policy (built on the first call)."""
    data = ui.read_sample(name)
    assert data is not None
    digest = ui.digest_of(data)
    transcript = ui._load(digest, name, data)
    objects: dict[str, Any] = {"transcript": transcript}
    for policy in POLICIES:
        analysis = ui._analyze(digest, name, policy, provider, transcript)
        objects[f"{policy}: analysis"] = analysis
        objects[f"{policy}: analysis with verdicts"] = ui._with_verdicts(digest, name, policy, provider, analysis)
        objects[f"{policy}: rows"] = ui._rows(digest, name, policy, provider, analysis)
        objects[f"{policy}: rows with texts"] = ui._previewed_rows(digest, name, policy, provider, analysis)
    return objects


def assert_untouched(before: dict[str, Any], snapshot: bytes, name: str, provider: str) -> None:
    after = cached(name, provider)
    assert [key for key in before if after[key] is not before[key]] == [], "a cache entry was replaced"
    assert pickle.dumps(after) == snapshot, "a page run changed a cached object"


@pytest.mark.parametrize("name", ["abort_race.pi-ai.json", "abort_race.openai-responses.json"])
def test_inspector_and_report_pages_change_no_cached_object(name: str) -> None:
    provider = ui.provider_names()[0]
    objects = cached(name, provider)
    assert not objects["openmaic: analysis"].verdicts and objects["openmaic: analysis with verdicts"].verdicts
    assert not any(row.filled for row in objects["openmaic: rows"])
    snapshot = pickle.dumps(objects)

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in {"sample": name, "policy": "openmaic", "provider": provider, "view": "table"}.items():
        at.query_params[key] = value
    at.run()
    table = next(d.value for d in at.dataframe if "durable transcript" in getattr(d.value, "columns", []))
    assert table["durable transcript"].iloc[0].startswith("user: ")  # the page filled what it shows
    at.text_input(key="search").input("grep").run()  # a search reads every row's text
    at.text_input(key="goto").input("1").run()  # a selected message and its pairing
    at.toggle(key="compare").set_value(True).run()  # every policy, with verdicts and problem rows
    at.switch_page("pages/report.py").run()  # verdict panel, Markdown and the repaired-transcript download
    assert not at.exception, [e.value for e in at.exception]
    assert "⬇ Repaired transcript" in [b.label for b in at.get("download_button")]

    assert_untouched(objects, snapshot, name, provider)


def test_lessons_page_changes_no_cached_object() -> None:
    provider = ui.provider_names()[0]
    lesson = LESSONS[0]
    objects = cached(lesson.sample, provider)
    snapshot = pickle.dumps(objects)

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in {"lesson": lesson.key, "policy": "openmaic", "provider": provider}.items():
        at.query_params[key] = value
    at.switch_page("pages/lessons.py")
    at.run()
    if at.slider:
        at.slider[0].set_value(at.slider[0].max).run()
    assert not at.exception, [e.value for e in at.exception]

    assert_untouched(objects, snapshot, lesson.sample, provider)
