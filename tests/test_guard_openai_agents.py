"""The OpenAI Agents SDK guard against the real SDK (agents.testing.ScriptedModel, no network).

Each broken history is run twice through `Runner.run`: once as the SDK sends it on its own, once with
`RunConfig(call_model_input_filter=ToolCallIntegrityFilter())`; the input the model received is judged
by the engine's rule sets for the target provider (`request_verdict`).
"""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, set_tracing_disabled  # noqa: E402
from agents.run_config import CallModelData, ModelInputData  # noqa: E402
from agents.testing import ScriptedModel  # noqa: E402

from integrity.guards import GuardReport, ToolCallIntegrityError, request_verdict  # noqa: E402
from integrity.guards.openai_agents import ToolCallIntegrityFilter  # noqa: E402

set_tracing_disabled(True)
FORMAT = "openai-responses"


def reply(text: str) -> list[Any]:
    # imported here, not at module level: pytest's tier scan (tests/conftest.py on main) walks the classes a
    # test module holds, and these pydantic classes change their own __dict__ while it is read
    from openai.types.responses import ResponseOutputMessage, ResponseOutputText

    return [ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed",
                                  content=[ResponseOutputText(type="output_text", text=text, annotations=[])])]


def call(call_id: str, name: str = "lookup", arguments: str = '{"q": "x"}') -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments, "id": f"fc_{call_id}",
            "status": "completed"}


def output(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


USER = {"role": "user", "content": "what is x?"}
AGAIN = {"role": "user", "content": "and now?"}

# The reported failures, as the input list a run resumes from.
HISTORIES: dict[str, list[dict[str, Any]]] = {
    # a tool raised after its call was recorded: the call has no output, the user goes on
    "dangling call": [USER, call("c1"), AGAIN],
    # #4827: an approval resume leaves an output whose call is not in the input
    "approval resume orphan output": [USER, output("c_gone", "approved: done"), AGAIN],
    # the same output recorded twice (a retry after a crash)
    "duplicate result": [USER, call("c1"), output("c1", "first"), output("c1", "second"), AGAIN],
    # an interrupted run: two parallel calls, one answered, then the user
    "interrupted run": [USER, call("c1"), call("c2", "fetch"), output("c1", "x is 1"), AGAIN],
}


def run(history: list[dict[str, Any]], run_config: RunConfig | None, model: str | None = None) -> list[Any]:
    """The input the model received for one turn resumed from `history` (the history itself untouched)."""
    scripted = ScriptedModel([reply("done")])
    agent = Agent(name="assistant", model=scripted)
    asyncio.run(Runner.run(agent, input=history, run_config=run_config or RunConfig()))
    return list(scripted.calls[0].input)


def first_results(history: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """The first real result of each call (what must reach the model; a later duplicate may be dropped)."""
    calls = {item["call_id"] for item in history if item.get("type") == "function_call"}
    first: dict[str, str] = {}
    for item in history:
        if item.get("type") == "function_call_output" and item["call_id"] in calls:
            first.setdefault(item["call_id"], item["output"])
    return set(first.items())


# What the SDK sends on its own (measured here; the table in docs/guards.md): legal or not for
# openai-responses, and which real results it keeps.
ALONE_LEGAL = {"dangling call": False, "approval resume orphan output": False, "duplicate result": True,
               "interrupted run": False}


@pytest.mark.parametrize("name", list(HISTORIES))
def test_the_guarded_request_is_legal_and_keeps_every_real_result(name: str) -> None:
    history = HISTORIES[name]
    before = copy.deepcopy(history)
    alone = request_verdict(run(history, None), FORMAT, "openai-responses")
    guard = ToolCallIntegrityFilter(provider="openai-responses")
    guarded = request_verdict(run(history, RunConfig(call_model_input_filter=guard)), FORMAT, "openai-responses")
    assert alone.legal is ALONE_LEGAL[name], (name, alone)
    assert guarded.legal, (name, guarded.violations)
    assert first_results(history) <= set(guarded.results)
    assert history == before  # the caller's list and items are never changed


def test_on_a_duplicate_the_sdk_keeps_the_latest_and_the_guard_the_first() -> None:
    history = HISTORIES["duplicate result"]
    alone = request_verdict(run(history, None), FORMAT, "openai-responses")
    guarded = request_verdict(run(history, RunConfig(call_model_input_filter=ToolCallIntegrityFilter())), FORMAT,
                              "openai-responses")
    assert alone.results == [("c1", "second")]
    assert guarded.results == [("c1", "first")]


def test_dangling_call_is_answered_with_the_interrupted_receipt_not_dropped() -> None:
    sent = run(HISTORIES["dangling call"], RunConfig(call_model_input_filter=ToolCallIntegrityFilter()))
    verdict = request_verdict(sent, FORMAT, None)
    assert any(item.get("type") == "function_call" and item["call_id"] == "c1" for item in sent)
    assert verdict.receipts == 1 and verdict.healthy


def test_the_sdk_alone_sends_the_stray_output_from_a_session_and_the_guard_drops_it() -> None:
    async def scenario(guarded: bool) -> tuple[list[Any], list[Any]]:
        session = SQLiteSession("thread")
        await session.add_items([USER, call("c1"), output("c_gone", "approved")])
        scripted = ScriptedModel([reply("done")])
        config = RunConfig(call_model_input_filter=ToolCallIntegrityFilter()) if guarded else RunConfig()
        await Runner.run(Agent(name="assistant", model=scripted), input="go on", session=session, run_config=config)
        return list(scripted.calls[0].input), await session.get_items()

    alone, _ = asyncio.run(scenario(False))
    sent, stored = asyncio.run(scenario(True))
    assert any(item.get("call_id") == "c_gone" for item in alone)
    assert not any(item.get("call_id") == "c_gone" for item in sent)
    assert request_verdict(sent, FORMAT, "openai-responses").legal
    # the session keeps what it stored: the guard repaired only the request
    assert [item.get("call_id") for item in stored[:3]] == [None, "c1", "c_gone"]


def test_healthy_input_passes_through_as_the_very_same_objects() -> None:
    items = [USER, call("c1"), output("c1", "x is 1"), AGAIN]
    data = ModelInputData(input=list(items), instructions="be brief")
    payload = CallModelData(model_data=data, agent=Agent(name="a", model="gpt-4.1"), context=None)
    assert ToolCallIntegrityFilter()(payload) is data
    assert asyncio.run(ToolCallIntegrityFilter().async_filter(payload)) is data
    assert all(a is b for a, b in zip(data.input, items, strict=True))


def test_repaired_input_reuses_the_unchanged_items_and_keeps_instructions() -> None:
    items = list(HISTORIES["interrupted run"])
    data = ModelInputData(input=list(items), instructions="be brief")
    agent = Agent(name="a", model="gpt-4.1")
    out = ToolCallIntegrityFilter()(CallModelData(model_data=data, agent=agent, context=None))
    assert out is not data and out.instructions == "be brief"
    for item in items:
        assert any(sent is item for sent in out.input)
    assert data.input == items  # the SDK's own copy is not edited either


def test_async_filter_in_the_runner_and_the_sync_runner() -> None:
    guard = ToolCallIntegrityFilter()
    scripted = ScriptedModel([reply("done")])
    asyncio.run(Runner.run(Agent(name="a", model=scripted), input=HISTORIES["dangling call"],
                           run_config=RunConfig(call_model_input_filter=guard.async_filter)))
    assert request_verdict(scripted.calls[0].input, FORMAT, "openai-responses").legal
    scripted = ScriptedModel([reply("done")])
    Runner.run_sync(Agent(name="a", model=scripted), input=HISTORIES["approval resume orphan output"],
                    run_config=RunConfig(call_model_input_filter=guard))
    assert request_verdict(scripted.calls[0].input, FORMAT, "openai-responses").legal


def test_target_provider_from_the_agents_model() -> None:
    reports: list[GuardReport] = []
    guard = ToolCallIntegrityFilter(on_report=reports.append)
    data = ModelInputData(input=list(HISTORIES["dangling call"]), instructions=None)
    guard(CallModelData(model_data=data, agent=Agent(name="a", model="gpt-4.1"), context=None))
    guard(CallModelData(model_data=data, agent=Agent(name="a", model="litellm/anthropic/claude-sonnet-4-5"),
                        context=None))
    guard(CallModelData(model_data=data, agent=Agent(name="a"), context=None))  # the SDK's default model
    assert [report.target for report in reports] == ["openai-responses", "anthropic", "openai-responses"]


def test_modes_report_and_raise_and_the_log_line(caplog: pytest.LogCaptureFixture) -> None:
    reports: list[GuardReport] = []
    data = ModelInputData(input=list(HISTORIES["interrupted run"]), instructions=None)
    payload = CallModelData(model_data=data, agent=Agent(name="a", model="gpt-4.1"), context=None)
    with caplog.at_level(logging.INFO, logger="integrity.guards"):
        assert ToolCallIntegrityFilter(mode="report", on_report=reports.append)(payload) is data
    assert reports and not reports[0].applied and reports[0].counts["synthesized"] == 1
    assert len(caplog.records) == 1 and "synthesized=1" in caplog.records[0].getMessage()
    with pytest.raises(ToolCallIntegrityError, match="openai-agents"):
        ToolCallIntegrityFilter(mode="raise")(payload)
    with pytest.raises(ValueError, match="unknown guard mode"):
        ToolCallIntegrityFilter(mode="fix")  # type: ignore[arg-type]


def test_with_its_session_the_filter_restores_the_call_the_sdk_dropped() -> None:
    async def scenario() -> tuple[list[Any], list[Any]]:
        session = SQLiteSession("thread")
        await session.add_items([USER, call("c1"), output("c_gone", "approved")])
        scripted = ScriptedModel([reply("done")])
        guard = ToolCallIntegrityFilter(session=session)
        await Runner.run(Agent(name="assistant", model=scripted), input="go on", session=session,
                         run_config=RunConfig(call_model_input_filter=guard.async_filter))
        return list(scripted.calls[0].input), await session.get_items()

    sent, stored = asyncio.run(scenario())
    verdict = request_verdict(sent, FORMAT, "openai-responses")
    assert any(item.get("type") == "function_call" and item["call_id"] == "c1" for item in sent)
    assert verdict.legal and verdict.receipts == 1, verdict.violations
    assert not any(item.get("call_id") == "c_gone" for item in sent)
    assert [item.get("call_id") for item in stored[:3]] == [None, "c1", "c_gone"]
    assert not any("interrupted" in str(item.get("output", "")) for item in stored)


def test_pydantic_items_passed_back_are_read_and_kept() -> None:
    """`result.to_input_list()` callers sometimes pass the SDK's output objects back as input."""
    from openai.types.responses import ResponseFunctionToolCall

    tool_call = ResponseFunctionToolCall(type="function_call", call_id="c7", name="lookup", arguments="{}",
                                         id="fc_7", status="completed")
    message = reply("checking")[0]
    items = [USER, message, tool_call, AGAIN]
    data = ModelInputData(input=list(items), instructions=None)
    out = ToolCallIntegrityFilter()(CallModelData(model_data=data, agent=Agent(name="a", model="gpt-4.1"),
                                                  context=None))
    assert out.input[1] is message and out.input[2] is tool_call
    dumped = [i if isinstance(i, dict) else i.model_dump(exclude_unset=True, mode="json") for i in out.input]
    verdict = request_verdict(dumped, FORMAT, "openai-responses")
    assert verdict.legal and verdict.receipts == 1, verdict.violations


def test_a_run_of_several_model_calls_reads_only_the_new_items() -> None:
    """The SDK builds each model call's input anew (equal dicts): the guard's memo matches them by value
    and reads only the new items."""
    from agents import function_tool
    from openai.types.responses import ResponseFunctionToolCall

    @function_tool
    def lookup(q: str) -> str:
        """Look something up."""
        return f"found {q}"

    def tool_call(call_id: str) -> list[Any]:
        return [ResponseFunctionToolCall(type="function_call", call_id=call_id, name="lookup", arguments='{"q":"x"}',
                                         id=f"fc_{call_id}", status="completed")]

    guard = ToolCallIntegrityFilter()
    scripted = ScriptedModel([tool_call("c1"), tool_call("c2"), tool_call("c3"), reply("done")])
    asyncio.run(Runner.run(Agent(name="a", model=scripted, tools=[lookup]), input="hi",
                           run_config=RunConfig(call_model_input_filter=guard)))
    assert len(scripted.calls) == 4 and guard.memo.resumed == 3
    assert all(request_verdict(list(c.input), FORMAT, "openai-responses").legal for c in scripted.calls)


# --- server-managed conversation state (previous_response_id / conversation_id) -----------------------------

SERVER_STATE = {"auto_previous_response_id": {"auto_previous_response_id": True},
                "previous_response_id": {"previous_response_id": "resp_0"},
                "conversation_id": {"conversation_id": "conv_1"}}


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("state", list(SERVER_STATE))
def test_a_server_managed_run_keeps_the_output_of_the_call_the_server_stores(state: str, kind: str) -> None:
    """The SDK's second model call sends only the new items (the output of a call held by the stored
    response): the guard must keep that output, never drop it as a stray."""
    from agents import function_tool
    from agents.testing import ModelStep
    from openai.types.responses import ResponseFunctionToolCall

    @function_tool
    def lookup(q: str) -> str:
        """Look something up."""
        return f"found {q}"

    first = [ResponseFunctionToolCall(type="function_call", call_id="c1", name="lookup", arguments='{"q":"x"}',
                                      id="fc_c1", status="completed")]
    reports: list[GuardReport] = []
    guard = ToolCallIntegrityFilter(on_report=reports.append)
    scripted = ScriptedModel([ModelStep(output=first, response_id="resp_1"),
                              ModelStep(output=reply("done"), response_id="resp_2")])
    config = RunConfig(call_model_input_filter=guard if kind == "sync" else guard.async_filter)
    asyncio.run(Runner.run(Agent(name="a", model=scripted, tools=[lookup]), input="hi", run_config=config,
                           **SERVER_STATE[state]))
    second = scripted.calls[1]
    sent = list(second.input)
    assert [(item.get("type"), item.get("call_id"), item.get("output")) for item in sent] == \
        [("function_call_output", "c1", "found x")]
    envelope = {"conversation": second.conversation_id} if second.conversation_id else \
        {"previous_response_id": second.previous_response_id}
    assert request_verdict(sent, FORMAT, "openai-responses", envelope).legal
    assert reports == []  # nothing needed repair


def test_an_approval_resumed_from_run_state_with_server_state_keeps_both_outputs() -> None:
    """A run paused for approval, serialized and resumed (auto_previous_response_id, streamed): the resumed
    model call sends only the two outputs, of calls the stored response holds; the guard keeps both."""
    from agents import RunState, function_tool
    from agents.testing import ModelStep
    from openai.types.responses import ResponseFunctionToolCall

    @function_tool(needs_approval=True)
    def delete(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    @function_tool
    def lookup(q: str) -> str:
        """Look something up."""
        return f"found {q}"

    calls = [ResponseFunctionToolCall(type="function_call", call_id="c1", name="delete", arguments='{"path":"/a"}',
                                      id="fc_c1", status="completed"),
             ResponseFunctionToolCall(type="function_call", call_id="c2", name="lookup", arguments='{"q":"x"}',
                                      id="fc_c2", status="completed")]
    scripted = ScriptedModel([ModelStep(output=calls, response_id="resp_1"),
                              ModelStep(output=reply("done"), response_id="resp_2")])
    agent = Agent(name="a", model=scripted, tools=[delete, lookup])
    config = RunConfig(call_model_input_filter=ToolCallIntegrityFilter().async_filter)

    async def scenario() -> None:
        paused = await Runner.run(agent, "go", run_config=config, auto_previous_response_id=True)
        state = await RunState.from_string(agent, paused.to_state().to_string())
        for interruption in state.get_interruptions():
            state.approve(interruption)
        resumed = Runner.run_streamed(agent, state, run_config=config, auto_previous_response_id=True)
        async for _ in resumed.stream_events():
            pass

    asyncio.run(scenario())
    last = scripted.calls[-1]
    sent = list(last.input)
    assert last.previous_response_id == "resp_1"
    assert sorted((item["call_id"], item["output"]) for item in sent) == [("c1", "deleted /a"), ("c2", "found x")]
    assert request_verdict(sent, FORMAT, "openai-responses", {"previous_response_id": "resp_1"}).legal


def test_a_stray_in_a_run_without_server_state_is_still_dropped_and_server_state_option() -> None:
    """The run's own state decides: a run without stored state drops a stray; `server_state=True` keeps it
    (the request continues a stored response the filter cannot see), `server_state=False` drops it."""
    history = HISTORIES["approval resume orphan output"]
    sent = run(history, RunConfig(call_model_input_filter=ToolCallIntegrityFilter()))
    assert not any(item.get("call_id") == "c_gone" for item in sent)
    kept = run(history, RunConfig(call_model_input_filter=ToolCallIntegrityFilter(server_state=True)))
    assert [item.get("call_id") for item in kept] == [None, "c_gone", None]
    dropped = run(history, RunConfig(call_model_input_filter=ToolCallIntegrityFilter(server_state=False)))
    assert not any(item.get("call_id") == "c_gone" for item in dropped)
    with pytest.raises(TypeError):
        ToolCallIntegrityFilter(server_state="yes")  # type: ignore[arg-type]


def test_outside_a_run_an_output_without_its_call_is_kept_and_the_doubt_logged_once(
        caplog: pytest.LogCaptureFixture) -> None:
    """Called with no SDK run to read (by hand, or by an SDK whose run loop changed), the filter cannot tell
    a stray from the output of a call the server stores: a request that opens with such an output (the
    shape of a continued response) keeps it (dropping a real one breaks a working run and loses the result;
    keeping a stray only fails to repair) and says so once; after the first message it is a stray."""
    items = [output("c_stored", "the result"), AGAIN, call("c9")]
    guard = ToolCallIntegrityFilter()
    data = ModelInputData(input=list(items), instructions=None)
    payload = CallModelData(model_data=data, agent=Agent(name="a", model="gpt-4.1"), context=None)
    with caplog.at_level(logging.WARNING, logger="integrity.guards"):
        out = guard(payload)
        guard(payload)
    assert out.input[0] is items[0] and any(item.get("call_id") == "c9" for item in out.input[1:])
    assert request_verdict(out.input, FORMAT, None).receipts == 1  # the dangling call is still answered
    assert len([r for r in caplog.records if "server" in r.getMessage()]) == 1
    plain = ToolCallIntegrityFilter(server_state=False)(payload)
    assert not any(item.get("call_id") == "c_stored" for item in plain.input)
    later = ModelInputData(input=[USER, output("c_gone", "x"), AGAIN], instructions=None)
    sent = guard(CallModelData(model_data=later, agent=Agent(name="a", model="gpt-4.1"), context=None))
    assert not any(item.get("call_id") == "c_gone" for item in sent.input)
    # only the Responses API stores responses: a model called through Chat Completions never continues one
    chat = ToolCallIntegrityFilter(server_state=True)(CallModelData(
        model_data=data, agent=Agent(name="a", model="litellm/openai/gpt-4o"), context=None))
    assert not any(item.get("call_id") == "c_stored" for item in chat.input)


# --- the target: the API the SDK really calls, and RunConfig(model=...) -------------------------------------

def test_litellm_names_target_the_chat_provider_litellm_calls() -> None:
    """`litellm/...` names go through LiteLLM's Chat Completions (acompletion), not the Responses API."""
    guard = ToolCallIntegrityFilter()
    targets = {name: guard.target(Agent(name="a", model=name))
               for name in ("litellm/openai/gpt-4o", "litellm/gpt-4o", "litellm/deepseek/deepseek-chat",
                            "litellm/anthropic/claude-sonnet-4-5", "gpt-4o", "openai/gpt-4o")}
    assert targets == {"litellm/openai/gpt-4o": "openai-chat", "litellm/gpt-4o": "openai-chat",
                       "litellm/deepseek/deepseek-chat": "deepseek", "litellm/anthropic/claude-sonnet-4-5": "anthropic",
                       "gpt-4o": "openai-responses", "openai/gpt-4o": "openai-responses"}
    # a 50-character call id is legal for Responses (64) and not for Chat Completions (40)
    long_id = "call_" + "x" * 45
    items = [USER, call("c9"), AGAIN, call(long_id), output(long_id, "r"), AGAIN]
    data = ModelInputData(input=list(items), instructions=None)
    out = guard(CallModelData(model_data=data, agent=Agent(name="a", model="litellm/openai/gpt-4o"), context=None))
    assert request_verdict(out.input, FORMAT, "openai-chat").legal


def test_the_sdks_chat_completions_switch_makes_a_model_name_target_openai_chat() -> None:
    from agents import set_default_openai_api
    from agents.models.multi_provider import MultiProvider

    agent = Agent(name="a", model="gpt-4o")
    set_default_openai_api("chat_completions")
    try:
        assert ToolCallIntegrityFilter().target(agent) == "openai-chat"
        assert ToolCallIntegrityFilter().target(Agent(name="a")) == "openai-chat"  # the SDK's default model
        assert ToolCallIntegrityFilter().target(agent, RunConfig()) == "openai-chat"
    finally:
        set_default_openai_api("responses")
    assert ToolCallIntegrityFilter().target(agent) == "openai-responses"
    # a RunConfig's own provider decides for its run, whatever the global switch says
    chat = RunConfig(model_provider=MultiProvider(openai_use_responses=False))
    assert ToolCallIntegrityFilter().target(agent, chat) == "openai-chat"


def test_run_config_model_overrides_the_agents_model_for_the_target() -> None:
    """RunConfig(model=...) is the model the SDK calls for every agent of the run."""

    class Named(ScriptedModel):
        def __init__(self, name: str, steps: list[Any]) -> None:
            super().__init__(steps)
            self.model = name

    items = [USER, call("functions.lookup:0"), output("functions.lookup:0", "r"), AGAIN, call("c9")]
    reports: list[GuardReport] = []
    model = Named("claude-sonnet-4-5", [reply("done")])
    guard = ToolCallIntegrityFilter(on_report=reports.append)
    asyncio.run(Runner.run(Agent(name="a", model="gpt-4.1"), input=items,
                           run_config=RunConfig(model=model, call_model_input_filter=guard)))
    assert [report.target for report in reports] == ["anthropic"]
    assert request_verdict(list(model.calls[0].input), FORMAT, "anthropic").legal
    assert guard.target(Agent(name="a", model="gpt-4.1"), RunConfig(model="litellm/anthropic/claude-sonnet-4-5")) \
        == "anthropic"


# --- restoring the calls the SDK dropped from a session -------------------------------------------------------

def _session_run(stored: list[Any], name: str, settings: Any = None) -> list[Any]:
    async def scenario() -> list[Any]:
        session = SQLiteSession(name)
        await session.add_items(stored)
        scripted = ScriptedModel([reply("done")])
        guard = ToolCallIntegrityFilter(session=session)
        config = RunConfig(call_model_input_filter=guard.async_filter, session_settings=settings)
        await Runner.run(Agent(name="assistant", model=scripted), input="go on", session=session, run_config=config)
        return list(scripted.calls[0].input)

    return asyncio.run(scenario())


def test_a_dropped_call_after_a_reasoning_item_is_restored_with_it() -> None:
    """The SDK drops the reasoning item before a call it drops (the API refuses a reasoning item without its
    following item): both go back, in their order, and the call is answered."""
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"}
    sent = _session_run([USER, reasoning, call("c1")], "reasoning")
    assert [(item.get("type") or item.get("role"), item.get("call_id")) for item in sent] == \
        [("user", None), ("reasoning", None), ("function_call", "c1"), ("function_call_output", "c1"), ("user", None)]
    verdict = request_verdict(sent, FORMAT, "openai-responses")
    assert verdict.legal and verdict.receipts == 1, verdict.violations


def test_with_a_session_limit_no_old_call_is_put_into_the_window() -> None:
    """RunConfig(session_settings=SessionSettings(limit=2)) sends the last two items; an older dropped call is
    not one of them and must not be inserted among them (matched by an equal, earlier message)."""
    from agents.memory import SessionSettings

    ok = {"role": "user", "content": "ok"}
    stored = [ok, call("c_old"), {"role": "assistant", "content": "fine"}, ok,
              {"role": "assistant", "content": "great"}]
    sent = _session_run(stored, "limited", SessionSettings(limit=2))
    assert not any(item.get("call_id") == "c_old" for item in sent)
    assert [item.get("content") for item in sent] == ["ok", "great", "go on"]
    # without the limit the same call is restored where the session holds it, after the first "ok"
    whole = _session_run(stored, "whole")
    assert [item.get("call_id") or item.get("content") for item in whole[:2]] == ["ok", "c_old"]
    verdict = request_verdict(whole, FORMAT, "openai-responses")
    assert verdict.legal and verdict.receipts == 1, verdict.violations


def test_a_local_shell_output_in_the_openai_types_shape_answers_its_call() -> None:
    """openai's LocalShellCallOutput names the call by `id` (no `call_id`): it answers the call, and the
    healthy request passes through untouched."""
    shell = {"type": "local_shell_call", "id": "ls_1", "call_id": "k1", "status": "completed",
             "action": {"type": "exec", "command": ["ls"], "env": {}}}
    answer = {"type": "local_shell_call_output", "id": "k1", "output": "files: a b"}
    data = ModelInputData(input=[USER, shell, answer, AGAIN], instructions=None)
    payload = CallModelData(model_data=data, agent=Agent(name="a", model="gpt-4.1"), context=None)
    assert ToolCallIntegrityFilter()(payload) is data
    assert ToolCallIntegrityFilter(on_report=[].append)(payload) is data


def test_restore_puts_a_call_back_only_where_the_window_it_came_from_is_certain() -> None:
    """Without knowing where the SDK's window of the session starts, a call is restored only when every
    window that fits the input agrees; knowing the SDK read the whole session, the window starts there."""
    from integrity.guards.openai_agents import restore_dropped_calls

    go = {"role": "user", "content": "go on"}
    items = [USER, go]
    assert restore_dropped_calls(items, [USER, call("c1"), go]) == [USER, call("c1"), go]
    # the session opens with the call: read whole, it goes first; a window from USER on fits too, without it
    assert restore_dropped_calls(items, [call("c0"), USER, go]) is None
    assert restore_dropped_calls(items, [call("c0"), USER, go], whole=True) == [call("c0"), USER, go]
    # items that are not the session's, in its order, restore nothing
    assert restore_dropped_calls([go, USER], [USER, call("c1"), go]) is None
    # a call answered in the session or the input is not the SDK's to drop
    assert restore_dropped_calls(items, [USER, call("c1"), output("c1", "r"), go]) is None


def test_a_turn_stored_twice_stays_legal_with_the_guard() -> None:
    """A retry re-appended the model's call and its output (same item id fc_c1, same call_id): the SDK's own
    de-duplication by call_id sends a legal request; the guard renames the copy and sends it without the
    repeated item id, so its request is legal too (it had turned it into 'Duplicate item found with id
    fc_c1': found by an adversarial review)."""
    history = [USER, call("c1"), output("c1", "one"), call("c1"), output("c1", "one"), AGAIN]
    alone = run(history, None)
    assert request_verdict(alone, FORMAT, FORMAT).legal
    guarded = run(history, RunConfig(call_model_input_filter=ToolCallIntegrityFilter(provider=FORMAT)))
    verdict = request_verdict(guarded, FORMAT, FORMAT)
    assert verdict.legal, verdict.violations
    ids = [item.get("id") for item in guarded if item.get("type") == "function_call"]
    assert ids.count("fc_c1") == 1


def test_a_tool_output_above_openais_string_limit_is_sent_cut() -> None:
    """A tool that read a large file returned 10,485,761 characters: OpenAI refuses every later request of the
    session ("string too long"), and `check` calls the history rejected.  The filter passed it as healthy (its quick
    pass read no text); now it sends the output cut to the limit, and the request is legal for the model's provider,
    sync and async, the SDK's own list unchanged."""
    from integrity.repair.views import STRING_LIMIT

    items = [USER, call("c1"), output("c1", "x" * (STRING_LIMIT + 1)), AGAIN]
    data = ModelInputData(input=list(items), instructions=None)
    payload = CallModelData(model_data=data, agent=Agent(name="a", model="gpt-4.1"), context=None)
    assert not request_verdict(items, FORMAT, "openai-responses").legal
    for out in (ToolCallIntegrityFilter()(payload), asyncio.run(ToolCallIntegrityFilter().async_filter(payload))):
        assert out is not data
        verdict = request_verdict(out.input, FORMAT, "openai-responses")
        assert verdict.legal, verdict.violations
        [sent] = [item for item in out.input if isinstance(item, dict) and item.get("type") == "function_call_output"]
        assert len(sent["output"]) <= STRING_LIMIT and sent["output"].startswith("x" * 1000)
    assert data.input == items and len(items[2]["output"]) == STRING_LIMIT + 1


def test_a_session_a_gateway_served_is_sent_without_the_gateways_item_ids() -> None:
    """A session served by a Responses-compatible gateway holds the item ids it minted (`item_…`); resumed on an
    OpenAI model, the SDK sends them as they are ("Invalid 'input[1].id': 'item_66935b8a'. Expected an ID that
    begins with 'fc'."), every later turn; the guard sends the call without its id, and the output with it."""
    history = [USER, {**call("c1"), "id": "item_66935b8a"}, output("c1", "x is 1"), AGAIN]
    before = copy.deepcopy(history)
    alone = request_verdict(run(history, None), FORMAT, "openai-responses")
    assert [v.rule for v in alone.violations] == ["item_id_prefix"]
    sent = run(history, RunConfig(call_model_input_filter=ToolCallIntegrityFilter(provider="openai-responses")))
    guarded = request_verdict(sent, FORMAT, "openai-responses")
    assert guarded.legal, guarded.violations
    [sent_call] = [item for item in sent if isinstance(item, dict) and item.get("type") == "function_call"]
    assert "id" not in sent_call and sent_call["call_id"] == "c1"
    assert first_results(history) <= set(guarded.results)
    assert history == before
