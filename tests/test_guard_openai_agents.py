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
