"""ADK sessions are read as ADK reads them: a rewind annuls the invocations after it, and events of one timestamp
come in the order the service that wrote the store gives them.

Each store is written by ADK's own Runner and session services (DatabaseSessionService on its schema v1 and on
the legacy schema v0, SqliteSessionService); ADK's `get_session` and its rewind rule (`_apply_rewinds`, the one its
prompt building follows) are the oracle for what we read."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from integrity import check
from integrity.guards.stores import read_store, read_threads

SERVICES = ["database", "sqlite", "legacy"]


def _service(kind: str, path: Path) -> Any:
    from google.adk.sessions import DatabaseSessionService
    from google.adk.sessions.sqlite_session_service import SqliteSessionService

    if kind == "sqlite":
        return SqliteSessionService(str(path))
    if kind == "legacy":
        from google.adk.sessions.schemas import v0
        from sqlalchemy import create_engine

        engine = create_engine(f"sqlite:///{path}")
        v0.Base.metadata.create_all(engine)
        engine.dispose()
    return DatabaseSessionService(f"sqlite+aiosqlite:///{path}")


def _runner(service: Any, script: list[Any], summary: str | None = None) -> Any:
    """An ADK Runner whose model follows `script`; summary: with ADK's event compaction every 2 invocations,
    summarised by a model answering `summary`."""
    from google.adk.agents import LlmAgent
    from google.adk.apps import App
    from google.adk.apps._configs import EventsCompactionConfig
    from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
    from google.adk.models import BaseLlm, LlmRequest, LlmResponse
    from google.adk.runners import Runner
    from google.genai import types

    class Scripted(BaseLlm):
        model: str = "gemini-2.5-flash"
        steps: list[Any] = []

        async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> Any:
            yield self.steps.pop(0) if self.steps else LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text="done")]))

    def explode(q: str) -> str:
        """Fails."""
        raise RuntimeError("disk full")

    def lookup(q: str) -> str:
        """Finds."""
        return f"found {q}"

    class Summarizer(BaseLlm):
        model: str = "gemini-2.5-flash"

        async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> Any:
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=summary)]))

    agent = LlmAgent(name="a", model=Scripted(steps=script), tools=[explode, lookup])
    compaction = None if summary is None else EventsCompactionConfig(
        summarizer=LlmEventSummarizer(llm=Summarizer()), compaction_interval=2, overlap_size=0)
    return Runner(app=App(name="app", root_agent=agent, events_compaction_config=compaction), session_service=service)


def _call(call_id: str, name: str) -> Any:
    from google.adk.models import LlmResponse
    from google.genai import types

    return LlmResponse(content=types.Content(role="model", parts=[types.Part(
        function_call=types.FunctionCall(id=call_id, name=name, args={"q": "x"}),
        thought_signature=b"sig")]))  # (a Gemini model signs a step's first call: Gemini 3 refuses it unsigned)


async def _turn(runner: Any, text: str) -> None:
    from google.genai import types

    try:
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=types.Content(
                role="user", parts=[types.Part(text=text)])):
            pass
    except RuntimeError:
        pass  # the tool raised after its call was stored: the session keeps a dangling call


def _live_contents(session: Any) -> list[dict[str, Any]]:
    """ADK's own answer: the contents of the events its rewind rule keeps, as JSON."""
    from google.adk.events._rewind_events import _apply_rewinds

    return [event.content.model_dump(exclude_none=True, mode="json") for event in _apply_rewinds(session.events)
            if event.content is not None and event.content.parts]


@pytest.mark.parametrize("kind", SERVICES)
def test_a_rewound_broken_invocation_is_not_judged(kind: str, tmp_path: Path) -> None:
    """Invocation 1 is answered; invocation 2's tool raises (a dangling call); the user rewinds to before
    invocation 2. ADK's next request holds invocation 1 only: healthy. Read without the rewind, the dangling
    call was still there and the session was called broken."""
    path = tmp_path / "adk.db"

    async def write() -> list[dict[str, Any]]:
        service = _service(kind, path)
        await service.create_session(app_name="app", user_id="u", session_id="s")
        runner = _runner(service, [_call("c1", "lookup"), _call_text("found it"), _call("c2", "explode")])
        await _turn(runner, "find x")
        await _turn(runner, "now break")
        session = await service.get_session(app_name="app", user_id="u", session_id="s")
        invocations = list(dict.fromkeys(event.invocation_id for event in session.events))
        assert len(invocations) == 2
        await runner.rewind_async(user_id="u", session_id="s", rewind_before_invocation_id=invocations[1])
        session = await service.get_session(app_name="app", user_id="u", session_id="s")
        await service.close() if hasattr(service, "close") else None
        return _live_contents(session)

    live = asyncio.run(write())
    url = f"adk+sqlite://{path}"
    [(name, format, contents, _)] = read_threads(url, ["s"])
    assert (name, format) == ("session:s", "gemini")
    assert contents == live  # ADK's live events, in ADK's order
    assert [part.get("function_call", {}).get("id") for content in contents for part in content["parts"]
            if "function_call" in part] == ["c1"]  # the rewound call c2 is gone
    [thread] = read_store(url)
    assert check(thread, provider="gemini", policy="strict").healthy


def _call_text(text: str) -> Any:
    from google.adk.models import LlmResponse
    from google.genai import types

    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


@pytest.mark.parametrize("kind", SERVICES)
def test_events_of_one_timestamp_come_in_the_order_adk_gives_them(kind: str, tmp_path: Path) -> None:
    """DatabaseSessionService breaks a timestamp tie on the event id, SqliteSessionService on the row: a call
    and its answer stored at one timestamp, appended answer first under ids that sort the other way."""
    from google.adk.events import Event
    from google.genai import types

    path = tmp_path / "ties.db"

    async def write() -> list[dict[str, Any]]:
        service = _service(kind, path)
        session = await service.create_session(app_name="app", user_id="u", session_id="s")
        parts = [("user", "e1", 1.0, types.Part(text="hi")),
                 ("model", "e3", 2.0, types.Part(function_call=types.FunctionCall(id="c1", name="f", args={}))),
                 ("user", "e2", 2.0, types.Part(function_response=types.FunctionResponse(
                     id="c1", name="f", response={"ok": 1})))]
        for role, event_id, stamp, part in parts:
            await service.append_event(session, Event(id=event_id, author="user" if role == "user" else "a",
                                                      invocation_id="i1", timestamp=stamp,
                                                      content=types.Content(role=role, parts=[part])))
        got = await service.get_session(app_name="app", user_id="u", session_id="s")
        await service.close() if hasattr(service, "close") else None
        return _live_contents(got)

    given = asyncio.run(write())
    [(_, _, contents, _)] = read_threads(f"adk+sqlite://{path}", ["s"])
    assert contents == given
    roles = [content["role"] for content in contents]
    # the database service (by id: e2 before e3) gives the answer before its call; SqliteSessionService the call
    assert roles == (["user", "model", "user"] if kind == "sqlite" else ["user", "user", "model"])


@pytest.mark.parametrize("kind", SERVICES)
def test_events_a_compaction_summarised_are_read_as_its_summary(kind: str, tmp_path: Path) -> None:
    """ADK's event compaction replaces the events of a time range by a summary in what it sends next
    (_get_contents). The first turn's tool raised (a dangling call), then four turns were compacted: ADK sends the
    summaries only, so the session is healthy; reading every event judged the summarised dangling call. A legacy
    store's compactions are not applied: one line says so, never a verdict on events ADK no longer sends."""
    import warnings

    from google.adk.flows.llm_flows.context._contents import _get_contents

    path = tmp_path / "compacted.db"

    async def write() -> list[dict[str, Any]]:
        service = _service(kind, path)
        await service.create_session(app_name="app", user_id="u", session_id="s")
        runner = _runner(service, [_call("c1", "explode")], summary="SUMMARY: the tool failed; the user waved")
        for text in ("break it", "hello again", "and again", "once more"):
            await _turn(runner, text)
        session = await service.get_session(app_name="app", user_id="u", session_id="s")
        await service.close() if hasattr(service, "close") else None
        assert any(event.actions and event.actions.compaction for event in session.events)
        return [content.model_dump(exclude_none=True, mode="json")
                for content in _get_contents(None, session.events, "a")]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ADK marks EventsCompactionConfig experimental
        sent = asyncio.run(write())
    url = f"adk+sqlite://{path}"
    [(name, format, contents, _)] = read_threads(url, ["s"])
    if kind == "legacy":
        assert format == "unreadable" and "compaction" in contents[0] and "legacy schema" in contents[0]
        return
    assert format == "gemini" and contents == sent  # what ADK sends next: the summaries, not the dangling call
    assert all("function_call" not in part for content in contents for part in content["parts"])
    [thread] = read_store(url)
    assert check(thread, provider="gemini", policy="strict").healthy
