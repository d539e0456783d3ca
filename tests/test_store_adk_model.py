"""An ADK session is judged by the model it talks to, as the store says it: ADK keeps each model answer's
`model_version` in the event, and Gemini 3 refuses a current turn's call without its thought signature where
Gemini 2.5 takes it (providers.models: the `gemini-2` variant).  Before, every stored session was judged by the
current models, so a Gemini 2.5 session ADK sends every day was called refused.

The store is written by ADK's own Runner and session services; the verdict must be one answer: `check URL`,
triage's row, the inspector's list, and `check` of the file the inspector downloads for the session."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from integrity.guards.stores import read_store, read_threads, thread_bytes

MODELS = [("gemini-2.5-flash", "gemini-2", 0), ("gemini-3-flash-preview", "gemini", 1)]
ELSEWHERE = [("claude-sonnet-4-5-20250929", None, 0), ("ollama_chat/llama3.1", None, 0)]
"""Models an ADK agent reaches through LiteLlm (the `model_version` LiteLLM's answer names): ADK converts the
session for LiteLLM, which is not modelled, so the universal invariants judge it; judged by Gemini 3's rules, the
unsigned call was "rejected as recorded by gemini", exit 1, for a session no Gemini model is ever sent."""


def _store(path: Path, kind: str, model: str) -> None:
    """A session whose model (answering as `model`) made one call, unsigned, answered, then a text: what a
    Gemini 2.5 model without thinking writes."""
    from google.adk.agents import LlmAgent
    from google.adk.apps import App
    from google.adk.models import BaseLlm, LlmRequest, LlmResponse
    from google.adk.runners import Runner
    from google.adk.sessions import DatabaseSessionService
    from google.adk.sessions.sqlite_session_service import SqliteSessionService
    from google.genai import types

    steps = [LlmResponse(model_version=model, content=types.Content(role="model", parts=[types.Part(
                 function_call=types.FunctionCall(id="c1", name="lookup", args={"q": "x"}))])),
             LlmResponse(model_version=model, content=types.Content(role="model", parts=[types.Part(text="found")]))]

    class Scripted(BaseLlm):
        async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> Any:
            yield steps.pop(0)

    def lookup(q: str) -> str:
        """Finds."""
        return f"found {q}"

    async def write() -> None:
        service: Any = SqliteSessionService(str(path)) if kind == "sqlite" else \
            DatabaseSessionService(f"sqlite+aiosqlite:///{path}")
        await service.create_session(app_name="app", user_id="u", session_id="s")
        agent = LlmAgent(name="a", model=Scripted(model="scripted"), tools=[lookup])
        runner = Runner(app=App(name="app", root_agent=agent), session_service=service)
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=types.Content(
                role="user", parts=[types.Part(text="find x")])):
            pass
        await service.close() if hasattr(service, "close") else None

    asyncio.run(write())


@pytest.mark.parametrize("kind", ["database", "sqlite"])
@pytest.mark.parametrize(("model", "provider", "code"), MODELS + ELSEWHERE)
def test_a_session_is_judged_by_the_model_it_talks_to(kind: str, model: str, provider: str | None, code: int,
                                                       tmp_path: Path) -> None:
    from cli_inprocess import run

    from integrity import check
    from integrity.formats import write_bytes
    from integrity.triage import triage_threads

    path = tmp_path / "adk.db"
    _store(path, kind, model)
    url = f"adk+sqlite://{path}"
    [thread] = read_threads(url, ["s"])
    assert thread.model == model
    assert not any("thought_signature" in part for content in thread.entries for part in content["parts"])
    [transcript] = read_store(url)
    result = check(transcript)
    assert result.target == provider
    assert result.healthy == (code == 0)

    checked = run("check", url)
    assert checked.code == code, checked.stdout.decode()
    said = checked.stdout.decode()
    if code:
        assert "1 call(s) sent with a thought signature" in said and "rejected as recorded by gemini" in said
    else:
        assert ": healthy" in said

    [row], _, _ = triage_threads(url, [url + "?session=s"], [], "strict", {})
    assert row["target"] == provider and row["healthy"] == (code == 0) and row["verdict"] == result.report.verdict

    downloaded = tmp_path / "session.gemini.json"  # the inspector's "Download the transcript" of this session
    downloaded.write_bytes(thread_bytes(thread))
    again = run("check", str(downloaded))
    assert again.code == code
    assert said.split(": ", 1)[1] == again.stdout.decode().split(": ", 1)[1]  # the same verdict line

    view = tmp_path / "view.gemini.json"  # the store's view as the inspector's download writes it: naming the model
    view.write_bytes(write_bytes(transcript, check(transcript, depth="view").view))
    assert json.loads(view.read_bytes())["model"] == model
    assert run("check", str(view)).code == 0  # (an array would be judged by the current models: gemini-2.5 refused)


def test_a_legacy_store_names_no_model_and_the_current_models_judge_it(tmp_path: Path) -> None:
    """ADK's schema v0 has no model column: the session is judged as a Gemini request naming no model is."""
    from google.adk.sessions.schemas import v0
    from sqlalchemy import create_engine

    from integrity import check

    path = tmp_path / "legacy.db"
    engine = create_engine(f"sqlite:///{path}")
    v0.Base.metadata.create_all(engine)
    engine.dispose()
    _store(path, "database", "gemini-2.5-flash")
    [thread] = read_threads(f"adk+sqlite://{path}", ["s"])
    assert thread.model is None
    [transcript] = read_store(f"adk+sqlite://{path}")
    assert check(transcript).target == "gemini" and not check(transcript).healthy


def test_the_inspector_lists_the_session_with_its_models_verdict(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from streamlit.testing.v1 import AppTest

    from integrity import check

    for model, _, _ in MODELS:
        _store(tmp_path / f"{model}.db", "sqlite", model)
    monkeypatch.setenv("INTEGRITY_STORE_ROOT", str(tmp_path))
    monkeypatch.setitem(sys.modules, "__main__", sys.modules["__main__"])
    page = Path(__file__).resolve().parent.parent / "pages" / "inspector_page.py"
    for model, _, code in MODELS:
        app = AppTest.from_file(str(page), default_timeout=120)
        app.session_state["store_url"] = f"adk+sqlite://{tmp_path / f'{model}.db'}"
        app.run()
        assert not app.exception and not app.error
        [verdict] = app.dataframe[0].value["verdict"].tolist()
        [transcript] = read_store(f"adk+sqlite://{tmp_path / f'{model}.db'}")
        assert verdict == check(transcript).report.verdict
        assert verdict.startswith("healthy") == (code == 0), verdict
