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
        ask = types.Part(function_call=types.FunctionCall(name="lookup", args={"q": "x"}))  # the model gives no id
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
    assert plugin.memo.resumed == 3  # every call after the first read only what was new


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
        if stripped and id(want) in own:  # the restored turn goes without its ids, as the others do
            assert got is not want and got.model_dump(exclude_none=True) == without_adk_ids(want)
            assert any(p.function_call and p.function_call.id for p in want.parts)  # the event's own: untouched
        else:
            assert got is want


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
