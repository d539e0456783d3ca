"""The Google ADK guard against the real ADK Runner with a `BaseLlm` subclass as the model (no network).

Sessions hold the broken histories as ADK's own events (a tool that raised after its call was recorded
is run for real); each is resumed once as ADK builds the request alone and once with
`App(plugins=[ToolCallIntegrityPlugin()])`.  The contents the model received are judged by the engine's
rule sets for the model's provider (`request_verdict` on the Gemini-shaped contents).
"""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import google.adk  # noqa: E402,F401 - never skipped: requirements-dev.txt installs it
import pytest
from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.apps import App  # noqa: E402
from google.adk.events import Event  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_request import LlmRequest  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.runners import Runner  # noqa: E402
from google.adk.sessions import InMemorySessionService  # noqa: E402
from google.genai import types  # noqa: E402
from hypothesis import given, settings
from hypothesis import strategies as st

from integrity.guards import GuardReport, ToolCallIntegrityError, request_verdict  # noqa: E402
from integrity.guards.adk import ToolCallIntegrityPlugin  # noqa: E402

AGENT = "assistant"


class ScriptedLlm(BaseLlm):
    """A model that answers from a script and records the contents of every request."""

    model: str = "gemini-2.5-flash"
    script: list[Any] = []
    seen: list[list[Any]] = []

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> Any:
        self.seen.append(list(llm_request.contents))
        yield self.script.pop(0)


def say(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


def call_part(call_id: str, name: str = "lookup") -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=call_id, name=name, args={"q": call_id}))


def response_part(call_id: str, text: str, name: str = "lookup") -> types.Part:
    return types.Part(function_response=types.FunctionResponse(id=call_id, name=name, response={"result": text}))


def explode(q: str) -> str:
    """A tool that fails after its call was recorded."""
    raise RuntimeError("disk full")


def lookup(q: str) -> str:
    """Look something up."""
    return f"found {q}"


def dumped(contents: list[Any]) -> list[dict[str, Any]]:
    return [c.model_dump(mode="json", exclude_none=True, by_alias=True) for c in contents]


def calls_in(contents: list[Any]) -> set[str]:
    return {p.function_call.id for c in contents for p in (c.parts or []) if p.function_call}


async def resume(events: list[tuple[str, list[types.Part]]], plugins: list[Any], model: str = "gemini-2.5-flash"
                 ) -> tuple[list[Any], list[Any]]:
    """A session holding `events` (author, parts) resumed by a new user message: the contents the model
    received, and the session's events afterwards."""
    llm = ScriptedLlm(model=model, script=[say("done")], seen=[])
    app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm, tools=[lookup, explode]), plugins=plugins)
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    for author, parts in events:
        role = "user" if author == "user" or any(p.function_response for p in parts) else "model"
        await service.append_event(session, Event(author=author, invocation_id="old",
                                                  content=types.Content(role=role, parts=parts)))
    async for _ in runner.run_async(user_id="u", session_id=session.id,
                                    new_message=types.Content(role="user", parts=[types.Part(text="and now?")])):
        pass
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    return llm.seen[-1], stored.events


HISTORIES: dict[str, list[tuple[str, list[types.Part]]]] = {
    "approval resume orphan response": [("user", [types.Part(text="q")]), (AGENT, [response_part("c_gone", "ok")])],
    "duplicate result": [("user", [types.Part(text="q")]), (AGENT, [call_part("c1")]),
                         (AGENT, [response_part("c1", "first")]), (AGENT, [response_part("c1", "second")])],
    "interrupted run": [("user", [types.Part(text="q")]), (AGENT, [call_part("c1"), call_part("c2")]),
                        (AGENT, [response_part("c1", "x is 1")])],
    "dangling call": [("user", [types.Part(text="q")]), (AGENT, [types.Part(text="let me look"), call_part("c1")])],
}
# Measured here (the table in docs/guards.md): whether ADK alone keeps every call the model made, in a
# request legal for gemini.
ALONE_KEEPS_CALLS = {"approval resume orphan response": True, "duplicate result": True, "interrupted run": False,
                     "dangling call": False}


def history_calls(events: list[tuple[str, list[types.Part]]]) -> set[str]:
    return {p.function_call.id for _, parts in events for p in parts if p.function_call}


@pytest.mark.parametrize("name", list(HISTORIES))
def test_resumed_sessions_keep_every_call_answered_and_legal(name: str) -> None:
    events = HISTORIES[name]
    alone, _ = asyncio.run(resume(events, []))
    guarded, stored = asyncio.run(resume(events, [ToolCallIntegrityPlugin()]))
    alone_verdict = request_verdict(dumped(alone), "gemini", "gemini")
    verdict = request_verdict(dumped(guarded), "gemini", "gemini")
    keeps = history_calls(events) <= calls_in(alone) and alone_verdict.legal
    assert keeps is ALONE_KEEPS_CALLS[name], (name, alone_verdict, calls_in(alone))
    assert verdict.legal, (name, verdict.violations)
    assert history_calls(events) <= calls_in(guarded)
    firsts: dict[str, str] = {}
    for _, parts in events:
        for p in parts:
            if p.function_response and p.function_response.id in history_calls(events):
                firsts.setdefault(p.function_response.id, p.function_response.response["result"])
    assert set(firsts) <= {call_id for call_id, _ in verdict.results}
    # the session's events are ADK's as recorded: no receipt was written into them
    assert not any(p.function_response and "interrupted" in str(p.function_response.response)
                   for e in stored if e.content for p in (e.content.parts or []))


def test_a_tool_that_raised_is_remembered_and_answered() -> None:
    async def scenario(plugins: list[Any]) -> list[Any]:
        llm = ScriptedLlm(script=[LlmResponse(content=types.Content(role="model", parts=[call_part("call_1",
                                                                                                     "explode")])),
                                  say("sorry")], seen=[])
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm, tools=[explode]), plugins=plugins)
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")
        with pytest.raises(RuntimeError, match="disk full"):
            async for _ in runner.run_async(user_id="u", session_id=session.id,
                                            new_message=types.Content(role="user", parts=[types.Part(text="hi")])):
                pass
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=types.Content(role="user", parts=[types.Part(text="again")])):
            pass
        return llm.seen[-1]

    alone = asyncio.run(scenario([]))
    guarded = asyncio.run(scenario([ToolCallIntegrityPlugin()]))
    assert "call_1" not in calls_in(alone)  # ADK dropped the call: the model forgets it tried
    verdict = request_verdict(dumped(guarded), "gemini", "gemini")
    assert "call_1" in calls_in(guarded) and verdict.receipts == 1 and verdict.legal, verdict.violations


def test_anthropic_target_from_a_litellm_model_name_keeps_turns_legal() -> None:
    events = HISTORIES["interrupted run"]
    reports: list[GuardReport] = []
    guarded, _ = asyncio.run(resume(events, [ToolCallIntegrityPlugin(on_report=reports.append)],
                                    model="anthropic/claude-sonnet-4-5"))
    assert reports and reports[0].target == "anthropic"
    assert request_verdict(dumped(guarded), "gemini", "anthropic").legal


def context(events: list[Any]) -> Any:
    return SimpleNamespace(session=SimpleNamespace(events=events), agent_name=AGENT)


def test_a_healthy_request_keeps_its_very_contents_list() -> None:
    contents = [types.Content(role="user", parts=[types.Part(text="q")]),
                types.Content(role="model", parts=[call_part("c1")]),
                types.Content(role="user", parts=[response_part("c1", "found")])]
    request = LlmRequest(model="gemini-2.5-flash", contents=contents)
    kept = request.contents
    events = [Event(author=AGENT, content=c) for c in contents]
    assert asyncio.run(ToolCallIntegrityPlugin().before_model_callback(callback_context=context(events),
                                                                       llm_request=request)) is None
    assert request.contents is kept and all(a is b for a, b in zip(request.contents, contents, strict=True))


def test_a_gemini_tool_name_sent_to_gpt_is_made_legal() -> None:
    """Gemini takes a tool named `web.search`; OpenAI Chat refuses it in a history an ADK agent on
    `LiteLlm("openai/gpt-4o")` sends.  The request is otherwise healthy: the plugin's quick pass took it as it was
    (it read no name) while `check` called it rejected; now the plugin sends the name made legal, the session's
    events unchanged."""
    contents = [types.Content(role="user", parts=[types.Part(text="q")]),
                types.Content(role="model", parts=[call_part("c1", "web.search")]),
                types.Content(role="user", parts=[response_part("c1", "found", "web.search")]),
                types.Content(role="model", parts=[types.Part(text="x is 1")]),
                types.Content(role="user", parts=[types.Part(text="and now?")])]
    assert not request_verdict(dumped(contents), "gemini", "openai-chat").legal
    request = LlmRequest(model="openai/gpt-4o", contents=list(contents))
    events = [Event(author=AGENT, content=c) for c in contents]
    reports: list[GuardReport] = []
    asyncio.run(ToolCallIntegrityPlugin(on_report=reports.append).before_model_callback(
        callback_context=context(events), llm_request=request))
    assert reports and reports[0].target == "openai-chat"
    verdict = request_verdict(dumped(request.contents), "gemini", "openai-chat")
    assert verdict.legal, verdict.violations
    assert events[1].content.parts[0].function_call.name == "web.search"


def test_modes_report_and_raise_and_the_log_line(caplog: pytest.LogCaptureFixture) -> None:
    contents = [types.Content(role="user", parts=[types.Part(text="q")]),
                types.Content(role="model", parts=[call_part("c1"), call_part("c2")]),
                types.Content(role="user", parts=[response_part("c1", "found")])]
    request = LlmRequest(model="gemini-2.5-flash", contents=list(contents))
    kept = request.contents
    reports: list[GuardReport] = []
    with caplog.at_level(logging.INFO, logger="integrity.guards"):
        asyncio.run(ToolCallIntegrityPlugin(mode="report", on_report=reports.append).before_model_callback(
            callback_context=context([]), llm_request=request))
    assert request.contents is kept and reports[0].counts["synthesized"] == 1
    assert "[adk] target=gemini" in caplog.records[0].getMessage()
    with pytest.raises(ToolCallIntegrityError):
        asyncio.run(ToolCallIntegrityPlugin(mode="raise").before_model_callback(callback_context=context([]),
                                                                                llm_request=request))
    asyncio.run(ToolCallIntegrityPlugin().before_model_callback(callback_context=context([]), llm_request=request))
    assert request.contents is not kept and request.contents[1] is contents[1]
    assert kept == contents  # the list ADK built is not edited in place


def test_the_session_events_are_read_once_across_model_calls() -> None:
    """The plugin remembers the calls made and answered in the events it read (by identity): as the session
    grows, what it restores is what a reading of every event restores."""
    from integrity.guards.adk import _EventMemo, restore_dropped_calls

    events = [Event(author=author, invocation_id="i", content=types.Content(
        role="user" if author == "user" or any(p.function_response for p in parts) else "model", parts=parts))
        for name in HISTORIES for author, parts in HISTORIES[name]]
    memo = _EventMemo()
    for end in range(len(events) + 1):
        shown = [event.content for event in events[:end] if not any(p.function_call for p in event.content.parts)]
        assert restore_dropped_calls(shown, events[:end], AGENT, memo) == restore_dropped_calls(
            shown, events[:end], AGENT), end
    assert memo.last is not None and len(memo.last[1]) == len(events)
    other = [Event(author=AGENT, invocation_id="j", content=types.Content(role="model", parts=[call_part("z9")]))]
    assert restore_dropped_calls([], other, AGENT, memo) == restore_dropped_calls([], other, AGENT)  # other events


def test_a_gemini_run_without_ids_takes_the_quick_path_on_every_call() -> None:
    """Toward a Gemini model ADK removes its own "adk-" call ids from each request: the calls and responses
    the model sees carry none.  Such a healthy run is recognised by the quick test (paired by order and
    name) on every model call, each read from where the previous one ended, and sent untouched."""
    async def scenario(plugin: ToolCallIntegrityPlugin) -> list[list[Any]]:
        ask = types.Part(function_call=types.FunctionCall(name="lookup", args={"q": "x"}),  # the model gives no id,
                         thought_signature=b"sig")  # and signs its step's first call
        llm = ScriptedLlm(script=[LlmResponse(content=types.Content(role="model", parts=[ask])), say("found"),
                                  LlmResponse(content=types.Content(role="model", parts=[ask])), say("again")],
                          seen=[])
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm, tools=[lookup]), plugins=[plugin])
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")
        for text in ("hi", "and again"):
            async for _ in runner.run_async(user_id="u", session_id=session.id,
                                            new_message=types.Content(role="user", parts=[types.Part(text=text)])):
                pass
        return llm.seen

    reports: list[GuardReport] = []
    plugin = ToolCallIntegrityPlugin(on_report=reports.append)
    seen = asyncio.run(scenario(plugin))
    assert len(seen) == 4 and not reports
    sent = seen[-1]
    assert [p.function_call.id for c in sent for p in c.parts if p.function_call] == [None, None]
    assert request_verdict(dumped(sent), "gemini", "gemini").legal
    assert len(plugin.sessions) == 1 and plugin.memo.resumed == 0  # the session's own memo, not the plugin's
    session_memo = next(iter(plugin.sessions._memos.values()))[0]
    assert session_memo.resumed == 3  # every call after the first read only what was new


def test_toward_gemini_a_raised_call_is_restored_in_its_turn_among_calls_without_ids() -> None:
    """Toward a Gemini model ADK strips its "adk-" ids from the request, so the request's contents no longer
    equal the session's.  The call of a tool that raised is still put back right after the user turn that
    led to it (matched by what ADK's copies keep: texts, names, shared arguments), not at the start."""
    async def scenario(plugins: list[Any]) -> list[Any]:
        def ask(name: str) -> LlmResponse:  # the model gives no id: ADK makes an "adk-" one
            return LlmResponse(content=types.Content(role="model", parts=[types.Part(
                function_call=types.FunctionCall(name=name, args={"q": name}))]))

        llm = ScriptedLlm(script=[ask("lookup"), say("found"), ask("lookup"), say("found again"), ask("explode"),
                                  say("sorry")], seen=[])
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm, tools=[lookup, explode]), plugins=plugins)
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")

        async def say_to(text: str) -> None:
            async for _ in runner.run_async(user_id="u", session_id=session.id,
                                            new_message=types.Content(role="user", parts=[types.Part(text=text)])):
                pass

        await say_to("first")
        await say_to("second")
        with pytest.raises(RuntimeError, match="disk full"):
            await say_to("third")
        await say_to("fourth")
        return llm.seen[-1]

    alone = asyncio.run(scenario([]))
    guarded = asyncio.run(scenario([ToolCallIntegrityPlugin()]))
    texts = [p.text for c in guarded for p in c.parts if p.text]
    assert texts[:4] == ["first", "found", "second", "found again"] and texts[-1] == "fourth"
    calls = [(i, p.function_call) for i, c in enumerate(guarded) for p in c.parts if p.function_call]
    assert [call.id for _, call in calls[:2]] == [None, None]  # ADK's own, stripped
    restored = calls[-1]
    assert restored[1].name == "explode" and restored[1].id is None  # stripped too, as ADK strips its own ids
    assert not any(part.function_response.id for c in guarded for part in c.parts if part.function_response)
    third = next(i for i, c in enumerate(guarded) if any(p.text == "third" for p in c.parts))
    assert restored[0] == third + 1  # in its turn, right after the user turn that led to it
    assert "explode" not in {p.function_call.name for c in alone for p in c.parts if p.function_call}
    verdict = request_verdict(dumped(guarded), "gemini", "gemini")
    assert verdict.legal and verdict.receipts == 1, verdict.violations


@settings(max_examples=60, deadline=None)
@given(turns=st.lists(st.tuples(st.booleans(), st.lists(st.booleans(), max_size=3), st.booleans()), min_size=1,
                      max_size=6), strip=st.booleans())
def test_each_dropped_call_goes_back_into_its_own_turn(turns: list[tuple[bool, list[bool], bool]],
                                                       strip: bool) -> None:
    """Sessions of turns (a user message; the model's text and calls, each answered or not; an answer):
    ADK's request holds copies of the contents with the unanswered calls dropped (and, toward Gemini, its
    "adk-" ids stripped).  Each dropped call comes back as its event's own content (toward Gemini a copy
    without its "adk-" ids, as ADK sends the others): in place of the turn ADK kept without it, or right
    after the user message that led to it."""
    from integrity.guards.adk import restore_dropped_calls

    events: list[Any] = []
    contents: list[Any] = []
    expected: list[Any] = []

    def copy(content: Any) -> Any:  # ADK's copy for the request (`_copy_content_for_request`)
        def part_copy(part: Any) -> Any:
            new = part.model_copy()
            for field in ("function_call", "function_response"):
                value = getattr(part, field)
                if strip and value is not None:
                    setattr(new, field, value.model_copy(update={"id": None}))
            return new
        return content.model_copy(update={"parts": [part_copy(p) for p in content.parts]})

    def add(author: str, role: str, parts: list[Any], shown: list[Any] | None = None) -> None:
        content = types.Content(role=role, parts=parts)
        events.append(Event(author=author, invocation_id="i", content=content))
        if shown is None:
            shown = parts
        if shown:
            request = copy(types.Content(role=role, parts=shown))
            contents.append(request)
            expected.append(content if shown is not parts else request)

    for turn, (text, answered, answer) in enumerate(turns):
        add("user", "user", [types.Part(text=f"question {turn}")])
        calls = [types.Part(function_call=types.FunctionCall(id=f"adk-{turn}-{n}", name="lookup", args={"n": n}))
                 for n in range(len(answered))]
        parts = ([types.Part(text=f"thinking {turn}")] if text else []) + calls
        if not parts:
            continue
        kept = [p for p in parts if p.function_call is None or answered[calls.index(p)]]
        add(AGENT, "model", parts, kept if len(kept) < len(parts) else None)
        if len(kept) < len(parts) and not kept:
            expected.append(events[-1].content)  # nothing of the turn is left: the call comes back after the user
        for n, done in enumerate(answered):
            if done:
                add(AGENT, "user", [types.Part(function_response=types.FunctionResponse(
                    id=f"adk-{turn}-{n}", name="lookup", response={"result": n}))])
        if answer:
            add(AGENT, "model", [types.Part(text=f"answer {turn}")])
    restored = restore_dropped_calls(contents, events, AGENT)
    if all(all(answered) for _, answered, _ in turns):
        assert restored is None
        return
    assert restored is not None and len(restored) == len(expected)
    own = {id(event.content) for event in events}
    # the request says ADK stripped its ids when a call or response in it has none (else it cannot tell)
    stripped = strip and any(p.function_call or p.function_response for c in contents for p in c.parts)
    for got, want in zip(restored, expected, strict=True):
        if id(want) not in own:
            assert got is want  # ADK's request copy, as ADK built it
            continue
        # a restored turn is a copy of the event's Content and Parts (ADK's `_copy_content_for_request`), so
        # a model class that edits its request's parts never edits the session
        assert got is not want and not {id(p) for p in got.parts} & {id(p) for p in want.parts}
        if stripped:  # the restored turn goes without its ids, as the others do
            assert got.model_dump(exclude_none=True) == without_adk_ids(want)
            assert any(p.function_call and p.function_call.id for p in want.parts)  # the event's own: untouched
        else:
            assert got == want


def without_adk_ids(content: Any) -> dict[str, Any]:
    """A content's dump with its calls' and responses' "adk-" ids left out."""
    dumped: dict[str, Any] = content.model_dump(exclude_none=True)
    for part in dumped["parts"]:
        for field in ("function_call", "function_response"):
            if str(part.get(field, {}).get("id", "")).startswith("adk-"):
                del part[field]["id"]
    return dumped


def test_a_copied_plugin_starts_with_empty_memos() -> None:
    """ADK or an app may copy its plugins: the memos (their locks) allow it, and the copy remembers nothing."""
    import copy

    plugin = ToolCallIntegrityPlugin()
    contents = [types.Content(role="user", parts=[types.Part(text="q")])]
    events = [Event(author="user", content=contents[0])]
    assert plugin.repaired_contents(contents, "gemini-2.5-flash", events, AGENT) is None
    other = copy.deepcopy(plugin)
    assert other.events_memo.last is None and other.memo.resumed == 0
    assert other.repaired_contents(contents, "gemini-2.5-flash", events, AGENT) is None


def reference_calls(events: list[Any], author: str | None) -> tuple[set[str], set[str], set[str]]:
    """What every event says, read part by part: (this agent's calls with an id, pending long-running ones
    excepted, that no event answers; the calls answered; every call id), a part's response with an id read
    instead of its call."""
    made, answered, called = set(), set(), set()
    for event in events:
        for part in (event.content.parts or []) if event.content is not None else []:
            if part.function_response is not None and part.function_response.id:
                answered.add(part.function_response.id)
            elif part.function_call is not None and part.function_call.id:
                called.add(part.function_call.id)
                if (author is None or event.author == author) and part.function_call.id not in (
                        event.long_running_tool_ids or ()):
                    made.add(part.function_call.id)
    return made - answered, answered, called


@settings(max_examples=150, deadline=None)
@given(events=st.lists(st.tuples(
    st.sampled_from([AGENT, "user", "other"]),
    st.lists(st.tuples(st.sampled_from(["call", "response", "both", "text"]),
                       st.sampled_from(["c1", "c2", "c3", "", None])), max_size=3),
    st.lists(st.sampled_from(["c1", "c2"]), max_size=1), st.booleans()), max_size=12),
    author=st.sampled_from([AGENT, None]), split=st.integers(0, 12))
def test_the_events_calls_are_read_as_each_part_says(events: list[Any], author: str | None, split: int) -> None:
    """The plugin's reading of the session's events (what it restores from) finds, read whole or in two
    steps as a session grows, what a part-by-part reading finds: the calls made and never answered (with
    several calls of one id, other agents' calls, pending long-running calls, responses without an id
    whose part also holds a call), the calls answered and every call id."""
    from integrity.guards.adk import _EventMemo

    built = []
    for event_author, parts, long_running, empty in events:
        made = []
        for kind, call_id in parts:
            call = types.FunctionCall(id=call_id, name="f", args={}) if kind in ("call", "both") else None
            response = types.FunctionResponse(id=call_id, name="f", response={}) if kind in ("response", "both") \
                else None
            made.append(types.Part(function_call=call, function_response=response, text="t" if kind == "text"
                                   else None))
        content = None if empty and not parts else types.Content(role="model", parts=made)
        built.append(Event(author=event_author, invocation_id="i", content=content,
                           long_running_tool_ids=set(long_running) or None))
    memo = _EventMemo()
    memo.calls(built[:split], author)
    made, answered, called = memo.calls(built, author)
    assert (made - answered, answered, called) == reference_calls(built, author)


@settings(max_examples=80, deadline=None)
@given(responses=st.lists(st.tuples(st.one_of(st.none(), st.text(max_size=4)), st.text(max_size=4),
                                    st.dictionaries(st.text(max_size=3), st.one_of(st.text(max_size=3), st.integers()),
                                                    max_size=2)), min_size=1, max_size=3),
       role=st.sampled_from(["user", "model"]))
def test_receipts_and_copies_are_built_as_the_library_builds_them(responses: list[Any], role: str) -> None:
    """The plugin builds a results turn it wrote (the receipt) and the id-less copy of a restored call
    without pydantic's Python loops: the same objects, field for field and in what was set, as
    `model_validate` and `model_copy` make (and the installed libraries take that path)."""
    from integrity.guards.adk import _COPIES_MADE, _RECEIPTS_MADE, _content, _same_model, _stripped

    assert _RECEIPTS_MADE and _COPIES_MADE
    native = {"role": role, "parts": [{"functionResponse": {**({} if call_id is None else {"id": call_id}),
                                                            "name": name, "response": response}}
                                      for call_id, name, response in responses]}
    assert _same_model(_content(native), types.Content.model_validate(native))
    content = types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
        id="adk-" + (call_id or ""), name=name or "f", args=response)) for call_id, name, response in responses])
    expected = content.model_copy(update={"parts": [part.model_copy(update={
        "function_call": part.function_call.model_copy(update={"id": None})}) for part in content.parts]})
    assert _same_model(_stripped(content), expected)
    assert all(part.function_call.id.startswith("adk-") for part in content.parts)  # the event's own: untouched


def test_one_plugin_never_sends_one_sessions_calls_in_anothers_request() -> None:
    """One plugin serves every session of an App.  Two users ask the same question and the model calls the same
    tool with their own account; toward a model ADK strips its "adk-" ids for (a BaseLlm named for Claude),
    every request needs its calls renamed, so the plugin remembers its repair.  Bob's request must carry
    Bob's call and result, never Alice's: the remembered repair is taken only by a request whose calls carry
    the same arguments and results (found by an adversarial review: the memo compared texts, names and ids)."""
    account: dict[str, str] = {}

    class PolicyLlm(BaseLlm):
        model: str = "claude-sonnet-4-5"
        seen: list[list[Any]] = []

        async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> Any:
            self.seen.append(list(llm_request.contents))
            answered = any(p.function_response for p in llm_request.contents[-1].parts or [])
            yield say("here you go") if answered else LlmResponse(content=types.Content(role="model", parts=[
                types.Part(function_call=types.FunctionCall(name="lookup", args={"q": account["q"]}))]))

    async def scenario() -> list[list[Any]]:
        plugin = ToolCallIntegrityPlugin()
        llm = PolicyLlm(seen=[])
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm, tools=[lookup]), plugins=[plugin])
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        sent = []
        for user, number in (("alice", "ALICE-ACCT-123"), ("bob", "BOB-ACCT-9")):
            session = await service.create_session(app_name="app", user_id=user)
            account["q"] = number
            async for _ in runner.run_async(user_id=user, session_id=session.id, new_message=types.Content(
                    role="user", parts=[types.Part(text="what's my balance?")])):
                pass
            sent.append(llm.seen[-1])
        return sent

    alice, bob = asyncio.run(scenario())
    assert "ALICE-ACCT-123" in str(dumped(alice))
    assert "ALICE-ACCT-123" not in str(dumped(bob)) and "found BOB-ACCT-9" in str(dumped(bob))
    assert request_verdict(dumped(bob), "gemini", "anthropic").legal


class PolicyLlm(BaseLlm):
    """A model answering by a policy of the request (the request's contents recorded)."""

    model: str = "gemini-2.5-flash"
    policy: Any = None
    seen: list[list[Any]] = []

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> Any:
        self.seen.append(list(llm_request.contents))
        yield self.policy(llm_request)


def last_user_text(request: Any) -> str | None:
    return next((p.text for c in reversed(request.contents) if c.role == "user" for p in c.parts or [] if p.text),
                None)


def asks(name: str, args: dict[str, Any], call_id: str | None = None) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(
        function_call=types.FunctionCall(id=call_id, name=name, args=args))]))


def transfer_money(amount: int) -> str:
    """Transfers money (fails after its call was recorded)."""
    raise RuntimeError("gateway timeout")


async def say_to(runner: Runner, session_id: str, text: str, raises: bool = False) -> None:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    if raises:
        with pytest.raises(RuntimeError):
            async for _ in runner.run_async(user_id="u", session_id=session_id, new_message=message):
                pass
        return
    async for _ in runner.run_async(user_id="u", session_id=session_id, new_message=message):
        pass


def test_a_call_the_user_rewound_is_not_brought_back() -> None:
    """The user rewinds the session to before the invocation whose tool raised (`Runner.rewind_async`): ADK
    never shows the rewound events again, and the plugin restores only from the events ADK built the
    request from, so the transfer stays undone (found by an adversarial review: it came back, answered)."""
    async def scenario(plugins: list[Any]) -> list[Any]:
        llm = PolicyLlm(policy=lambda request: asks("transfer_money", {"amount": 5000}, "call_1")
                        if last_user_text(request) == "send 5000" else say("ok"), seen=[])
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm, tools=[transfer_money]), plugins=plugins)
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")
        await say_to(runner, session.id, "hello")
        await say_to(runner, session.id, "send 5000", raises=True)
        stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
        assert stored is not None
        await runner.rewind_async(user_id="u", session_id=session.id,
                                  rewind_before_invocation_id=stored.events[-1].invocation_id)
        await say_to(runner, session.id, "never mind")
        await say_to(runner, session.id, "send 5000", raises=True)  # the same again, not rewound: restored
        await say_to(runner, session.id, "and now?")
        return llm.seen

    alone, guarded = asyncio.run(scenario([])), asyncio.run(scenario([ToolCallIntegrityPlugin()]))
    after_rewind = next(i for i, sent in enumerate(guarded) if any(p.text == "never mind" for c in sent
                                                                   for p in c.parts))
    assert [dumped(sent) for sent in guarded[:after_rewind + 1]] == [dumped(sent) for sent in alone[:after_rewind + 1]]
    assert "transfer_money" not in str(dumped(guarded[after_rewind]))
    last = guarded[-1]  # the call not rewound is restored, once, right after the message that led to it
    assert calls_in(last) == {"call_1"} and "call_1" not in calls_in(alone[-1])
    texts = [p.text for c in last for p in c.parts if p.text]
    assert texts == ["hello", "ok", "never mind", "ok", "send 5000", "and now?"]
    verdict = request_verdict(dumped(last), "gemini", "gemini")
    assert verdict.legal and verdict.receipts == 1, verdict.violations


def explode_once(q: str) -> str:
    """Fails."""
    raise RuntimeError("disk full")


def test_a_call_outside_the_current_turn_stays_out_under_include_contents_none() -> None:
    """An agent with include_contents='none' gets the current turn only: a call whose tool raised two turns
    ago is not in the events ADK used, and is not pulled into the request (found by an adversarial review)."""
    async def scenario(plugins: list[Any]) -> list[Any]:
        llm = PolicyLlm(policy=lambda request: asks("explode_once", {"q": "old"}, "call_old")
                        if last_user_text(request) == "turn one" else say("ok"), seen=[])
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm, tools=[explode_once],
                                                  include_contents="none"), plugins=plugins)
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")
        await say_to(runner, session.id, "turn one", raises=True)
        await say_to(runner, session.id, "turn two")
        return llm.seen

    alone, guarded = asyncio.run(scenario([])), asyncio.run(scenario([ToolCallIntegrityPlugin()]))
    assert dumped(guarded[-1]) == dumped(alone[-1]) == [{"role": "user", "parts": [{"text": "turn two"}]}]


def test_a_compacted_call_is_not_put_back_beside_its_summary() -> None:
    """A compaction event stands for the early events (among them a call whose tool raised): ADK sends its
    summary instead of them, and the plugin leaves the summarised call out (found by an adversarial review)."""
    from google.adk.events.event_actions import EventActions, EventCompaction

    history = [("user", [types.Part(text="book a flight")]), (AGENT, [call_part("call_b", "book_flight")]),
               ("user", [types.Part(text="hello?")]), (AGENT, [types.Part(text="sorry, something failed")])]
    summary = types.Content(role="model", parts=[types.Part(text="Summary: the booking failed.")])

    async def scenario(plugins: list[Any]) -> list[Any]:
        llm = ScriptedLlm(script=[say("done")], seen=[])
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm), plugins=plugins)
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")
        for stamp, (author, parts) in enumerate(history, start=1):
            await service.append_event(session, Event(author=author, invocation_id="old", timestamp=float(stamp),
                                                      content=types.Content(role="user" if author == "user" else
                                                                            "model", parts=parts)))
        compaction = EventCompaction(start_timestamp=1.0, end_timestamp=4.0, compacted_content=summary)
        await service.append_event(session, Event(author="user", invocation_id="old", timestamp=5.0,
                                                  actions=EventActions(compaction=compaction)))
        await say_to(runner, session.id, "what now?")
        return llm.seen[-1]

    alone, guarded = asyncio.run(scenario([])), asyncio.run(scenario([ToolCallIntegrityPlugin()]))
    assert "Summary" in str(dumped(alone)) and dumped(guarded) == dumped(alone)


def charge_card(amount: int) -> str:
    """Charges a card."""
    raise RuntimeError("card declined")


def test_a_single_turn_sub_agent_never_sees_its_earlier_runs_call() -> None:
    """A mode='single_turn' sub-agent runs on a branch of its own for each task: ADK shows each run only its
    own branch, so its tool that raised in the first run is not brought into the second run's request
    (found by an adversarial review)."""
    async def scenario(plugins: list[Any]) -> tuple[list[Any], list[Any]]:
        def root(request: Any) -> LlmResponse:
            if any(p.function_response for p in request.contents[-1].parts or []):
                return say("done")
            text = last_user_text(request)
            return asks("helper", {"request": text}) if text in ("task one", "task two") else say("ok")

        def helper(request: Any) -> LlmResponse:
            if any(p.function_response for p in request.contents[-1].parts or []):
                return say("helper done")
            text = " ".join(p.text or "" for c in request.contents for p in c.parts or [])
            return asks("charge_card", {"amount": 999}) if "task one" in text else say("helper says hi")

        helper_llm = PolicyLlm(policy=helper, seen=[])
        sub = LlmAgent(name="helper", model=helper_llm, tools=[charge_card], mode="single_turn", description="helper")
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=PolicyLlm(policy=root, seen=[]), sub_agents=[sub]),
                  plugins=plugins)
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")
        for text in ("task one", "task two"):
            try:
                await say_to(runner, session.id, text)
            except RuntimeError:
                pass
        stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
        assert stored is not None
        return helper_llm.seen, stored.events

    (alone, _), (guarded, events) = asyncio.run(scenario([])), asyncio.run(scenario([ToolCallIntegrityPlugin()]))
    assert any(p.function_call and p.function_call.name == "charge_card" and e.author == "helper"
               for e in events if e.content for p in e.content.parts or [])  # the first run called it, unanswered
    assert len(guarded) == 2 and [dumped(sent) for sent in guarded] == [dumped(sent) for sent in alone]
    assert "charge_card" not in str(dumped(guarded[-1]))


def test_without_adks_note_of_the_request_nothing_is_restored() -> None:
    """The plugin restores only from the events ADK noted building this request: a callback run with no
    such note (outside ADK's flow, another ADK release) sends ADK's request as it is, however the session
    reads (when unsure, restore nothing: ADK's own request is legal)."""
    import contextvars

    contents = [types.Content(role="user", parts=[types.Part(text="q")])]
    events = [Event(author="user", content=contents[0]), Event(author=AGENT, content=types.Content(
        role="model", parts=[call_part("c1")])), Event(author="user", content=types.Content(
            role="user", parts=[types.Part(text="again")]))]
    contents.append(events[2].content)
    request = LlmRequest(model="gemini-2.5-flash", contents=list(contents))
    kept = request.contents
    contextvars.Context().run(asyncio.run, ToolCallIntegrityPlugin().before_model_callback(
        callback_context=context(events), llm_request=request))  # (a context of its own: no note in it)
    assert request.contents is kept
    # the same events as ADK's note: the call comes back, right after the message that led to it
    from integrity.guards.adk import _BUILT

    def noted() -> None:
        _BUILT.set(events)
        asyncio.run(ToolCallIntegrityPlugin().before_model_callback(callback_context=context(events),
                                                                    llm_request=request))

    contextvars.Context().run(noted)
    assert calls_in(request.contents) == {"c1"} and request.contents[1].parts[0].function_call.id == "c1"


def test_a_dropped_turn_whose_neighbour_is_not_in_the_request_is_not_restored() -> None:
    """A turn ADK dropped whole goes back only after the content of the event before it: when that event is
    not in the request (ADK left it out, another plugin trimmed it), the plugin cannot tell the turn was
    meant to be there, and restores nothing."""
    from integrity.guards.adk import restore_dropped_calls

    events = [Event(author="user", content=types.Content(role="user", parts=[types.Part(text="old question")])),
              Event(author=AGENT, content=types.Content(role="model", parts=[call_part("c1")])),
              Event(author="user", content=types.Content(role="user", parts=[types.Part(text="new question")]))]
    assert restore_dropped_calls([events[2].content], events, AGENT) is None
    restored = restore_dropped_calls([events[0].content, events[2].content], events, AGENT)
    assert restored is not None and [calls_in([c]) for c in restored] == [set(), {"c1"}, set()]


def test_toward_a_model_adk_strips_ids_for_a_restored_call_never_carries_an_adk_id() -> None:
    """ADK strips its own "adk-" ids toward every model type that does not pair calls by id (a Gemini model, a
    BaseLlm of any name): the plugin asks the agent's model as ADK does, so the call of a tool that raised
    goes without its "adk-" id on every later request, even when nothing else in the request shows ADK
    stripped ids (found by an adversarial review: the first turn's call went with its "adk-" id)."""
    from integrity.guards.adk import _keeps_ids

    async def scenario(model: str) -> list[list[Any]]:
        llm = PolicyLlm(model=model, policy=lambda request: asks("explode_once", {"q": "x"})
                        if last_user_text(request) == "hi" else say("ok"), seen=[])
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm, tools=[explode_once]),
                  plugins=[ToolCallIntegrityPlugin()])
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")
        await say_to(runner, session.id, "hi", raises=True)
        await say_to(runner, session.id, "again")
        await say_to(runner, session.id, "and again")
        return llm.seen[1:]

    for model, target in (("gemini-2.5-flash", "gemini"), ("anthropic/claude-sonnet-4-5", "anthropic")):
        later = asyncio.run(scenario(model))
        assert len(later) == 2
        sent_ids = []
        for sent in later:
            ids = [(p.function_call or p.function_response).id for c in sent for p in c.parts
                   if p.function_call or p.function_response]
            assert len(ids) == 2 and not any(str(i).startswith("adk-") for i in ids), (model, ids)
            assert request_verdict(dumped(sent), "gemini", target).legal
            sent_ids.append(ids)
        # toward Gemini the call and its receipt go without ids, as ADK sends its own; toward Anthropic the
        # guard names them (its turn rules want ids): the same on every request
        assert sent_ids[0] == sent_ids[1] and (target != "gemini" or sent_ids[0] == [None, None]), sent_ids
    assert _keeps_ids(SimpleNamespace()) is None  # no agent to ask: the request decides

    from google.adk.models.google_llm import Gemini

    def asked(model: Any) -> bool | None:
        return _keeps_ids(SimpleNamespace(_invocation_context=SimpleNamespace(agent=LlmAgent(name="a", model=model))))

    assert asked(Gemini(model="gemini-2.5-flash")) is False
    assert asked(Gemini(model="gemini-2.5-flash", use_interactions_api=True)) is True  # ADK keeps them there


def test_a_model_that_edits_its_request_never_edits_the_session() -> None:
    """ADK hands the model copies of the session's contents (`_copy_content_for_request`): a model class may set
    a part's fields (the real Gemini class replaces inline data without its display name).  A restored turn
    is a copy too, so the session's event is never changed (found by an adversarial review: the event's own
    Content was sent, and lost its display name)."""
    from google.adk.models.google_llm import Gemini

    class Models:
        def __init__(self) -> None:
            self.seen: list[list[Any]] = []

        async def generate_content(self, model: str, contents: list[Any], config: Any) -> Any:
            self.seen.append(list(contents))
            return types.GenerateContentResponse(candidates=[types.Candidate(content=types.Content(
                role="model", parts=[types.Part(text="done")]), finish_reason="STOP")])

    from google.adk.plugins.base_plugin import BasePlugin

    class Peek(BasePlugin):
        """Before the guard: keeps the session's events as the runner holds them during the model call."""

        events: list[Any] = []

        async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
            Peek.events = callback_context.session.events

    async def scenario() -> tuple[list[Any], list[Any]]:
        models = Models()
        model = Gemini(model="gemini-2.5-flash")
        model.client = SimpleNamespace(vertexai=False, aio=SimpleNamespace(models=models))  # no network
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=model), plugins=[Peek(name="peek"),
                                                                                      ToolCallIntegrityPlugin()])
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")
        image = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG", display_name="chart.png"))
        for author, role, parts in (("user", "user", [types.Part(text="draw and save")]),
                                    (AGENT, "model", [image, call_part("call_9", "save_chart")])):
            await service.append_event(session, Event(author=author, invocation_id="i1",
                                                      content=types.Content(role=role, parts=parts)))
        await say_to(runner, session.id, "did it save?")
        return models.seen[-1], Peek.events

    sent, events = asyncio.run(scenario())
    assert "call_9" in calls_in(sent)
    assert events[1].content.parts[0].inline_data.display_name == "chart.png"
    owned = {id(e.content) for e in events} | {id(p) for e in events if e.content for p in e.content.parts or []}
    assert not owned & ({id(c) for c in sent} | {id(p) for c in sent for p in c.parts})


def test_a_plugin_run_again_on_its_own_request_changes_nothing() -> None:
    """Toward Gemini ADK strips its "adk-" ids, so the restored call goes without one: a plugin run again on that
    request, with the same events, finds the call there (a copy sharing the event's arguments) and sends the
    request as it is (found by an adversarial review: a second copy of the restored turn was added)."""
    import contextvars

    from google.adk.flows.llm_flows.context._contents import _get_contents

    from integrity.guards.adk import _BUILT

    events = [Event(author="user", content=types.Content(role="user", parts=[types.Part(text="u1")])),
              Event(author=AGENT, content=types.Content(role="model", parts=[
                  types.Part(text="t1"), call_part("adk-1", "f1"), call_part("adk-2", "f2")])),
              Event(author=AGENT, content=types.Content(role="user", parts=[response_part("adk-1", "r1", "f1")])),
              Event(author="user", content=types.Content(role="user", parts=[types.Part(text="now")]))]

    def twice() -> tuple[list[Any], list[Any], list[GuardReport]]:
        request = LlmRequest(model="gemini-2.5-flash", contents=_get_contents(None, events, AGENT))  # notes the events
        reports: list[GuardReport] = []
        asyncio.run(ToolCallIntegrityPlugin(on_report=reports.append).before_model_callback(
            callback_context=context(events), llm_request=request))
        first = request.contents
        reports.clear()
        again = LlmRequest(model="gemini-2.5-flash")
        again.contents = first  # (as ADK sets it: the very list)
        _BUILT.set(list(events))  # ADK's note of the same events, as a new request would carry
        asyncio.run(ToolCallIntegrityPlugin(on_report=reports.append).before_model_callback(
            callback_context=context(events), llm_request=again))
        return first, again.contents, reports

    first, second, reports = contextvars.Context().run(twice)
    assert sorted(c.name for c in (p.function_call for c in first for p in c.parts) if c) == ["f1", "f2"]
    assert second is first and not reports


def test_each_session_is_remembered_on_its_own() -> None:
    """One plugin serves every session of an App.  What it remembers (the last healthy request, the calls read
    from the events) is kept per session (and agent): two sessions talking in turns each resume from their
    own last request, never another's, and a copy of the plugin remembers nothing."""
    import copy

    from integrity.guards.adk import _SessionMemos

    async def scenario(plugin: ToolCallIntegrityPlugin) -> list[str]:
        llm = PolicyLlm(policy=lambda request: say("found") if any(
            p.function_response for p in request.contents[-1].parts or []) else asks(
                "lookup", {"q": last_user_text(request)}), seen=[])
        app = App(name="app", root_agent=LlmAgent(name=AGENT, model=llm, tools=[lookup]), plugins=[plugin])
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        sessions = [(await service.create_session(app_name="app", user_id=user)).id for user in ("u", "u")]
        for turn in range(3):
            for number, session_id in enumerate(sessions):
                await say_to(runner, session_id, f"question {turn} of {number}")
        return sessions

    plugin = ToolCallIntegrityPlugin()
    sessions = asyncio.run(scenario(plugin))
    assert len(plugin.sessions) == 2 and plugin.memo.resumed == 0 and plugin.events_memo.last is None
    for number, session_id in enumerate(sessions):
        memo, events_memo = plugin.sessions.get(("app", "u", session_id, AGENT))
        assert memo.resumed == 5  # six model calls each: every one after the first read only what was new
        assert events_memo.last is not None  # the events it read are this session's only
        texts = {p.text for e in events_memo.last[1] if e.content for p in e.content.parts or [] if p.text}
        assert {text for text in texts if text.startswith("question")} == {f"question {turn} of {number}"
                                                                           for turn in range(3)}
    assert len(copy.deepcopy(plugin).sessions) == 0
    bounded = _SessionMemos(size=2)
    first = bounded.get("a")
    bounded.get("b")
    assert bounded.get("a") is first
    bounded.get("c")  # "b" was used least lately: forgotten
    assert len(bounded) == 2 and bounded.get("a") is first and "b" not in bounded._memos


def test_a_turn_adk_kept_in_part_but_changed_since_is_not_put_back_whole() -> None:
    """PlanReActPlanner's request processor clears the thought flag of the request's parts after ADK built the
    contents, so the model turn ADK kept without its raised call ([plan, lookup]) no longer matches its event.
    Put back whole, the turn sent lookup twice, the second answered "interrupted" beside its real result (found
    by a second adversarial review).  Unsure where the turn is, the plugin restores nothing of it: lookup is
    sent once with its real result, and the request is ADK's own, legal."""
    from google.adk.planners import PlanReActPlanner

    def run_once(text: str) -> Any:
        return types.Content(role="user", parts=[types.Part(text=text)])

    async def scenario() -> list[Any]:
        plan = types.Part(text="/*PLANNING*/ 1. look up 2. explode")
        calls = [types.Part(function_call=types.FunctionCall(name="lookup", args={"q": "L"})),
                 types.Part(function_call=types.FunctionCall(name="explode", args={"q": "E"}))]
        llm = ScriptedLlm(script=[LlmResponse(content=types.Content(role="model", parts=[plan, *calls])),
                                  say("/*FINAL_ANSWER*/ ok")], seen=[])
        agent = LlmAgent(name=AGENT, model=llm, tools=[lookup, explode], planner=PlanReActPlanner())
        app = App(name="app", root_agent=agent, plugins=[ToolCallIntegrityPlugin()])
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        session = await service.create_session(app_name="app", user_id="u")
        with pytest.raises(RuntimeError):
            async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=run_once("do it")):
                pass
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=run_once("again")):
            pass
        return llm.seen[-1]

    sent = asyncio.run(scenario())
    names = [p.function_call.name for c in sent for p in c.parts or [] if p.function_call]
    assert names.count("lookup") == 1
    verdict = request_verdict(dumped(sent), "gemini", "gemini")
    assert verdict.legal and verdict.receipts == 0 and len(verdict.results) == 1
