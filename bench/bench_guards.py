"""The runtime guards' cost per model call, next to the runtimes' own request building and sanitizers.

Usage: python bench/bench_guards.py [--sizes 100,1000,10000] [--runs 5] [--pairs N]
                                   [--runtimes langchain,openai-agents,litellm,adk,adk-gemini,adk-gemini3,pydantic-ai]

For each runtime and history size (messages: user turn, assistant turn with one tool call, its result,
repeated), the best of `runs` timings of:
  building      the runtime's own cost of building the provider request from the history:
                LangChain `convert_to_openai_messages`, the Agents SDK's Chat Completions
                `Converter.items_to_messages`, LiteLLM's `anthropic_messages_pt` (its Anthropic
                translation), ADK's `_get_contents` (contents from the session events; private API),
                pydantic-ai's `OpenAIChatModel._map_messages` (private API);
  first sight   one guard call on the healthy history, the guard's memo empty: a whole pass;
  next call     one guard call on the healthy history when the two previous model calls sent it minus
                its last two turns, then minus its last turn (what every call of a running agent pays):
                the guard's memo reads only the new turn.  The request is what the runtime hands the
                guard: LangChain the same message objects, the Agents SDK new equal dicts (it rebuilds
                its input for every call), LiteLLM the caller's list (the same dicts), ADK new Content
                and Part objects (its own `_get_contents` output: shallow copies around the session's
                calls, responses and texts), pydantic-ai a new list of the history's own messages;
                adk-gemini: the same toward a Gemini model (gemini-2.5-flash), where ADK strips its own "adk-"
                call ids from every request (new call and response objects, without ids); adk-gemini3: toward
                gemini-3-flash-preview, each step's first call signed as Gemini 3 signs it (the guard reads the
                current turn's signatures too);
  share         guard / building, for both (the target is at most 5%);
  repair        the guard on the same history broken near the end (a dangling call and a stray result),
                nothing remembered (the first model call on it); the guards run as by default (mode
                "repair", no on_report, their INFO log line not logged), so the direct repair answers it
                (integrity/guards/_native.py) and the engine's report is not built;
  sanitizer     the runtime's own tool-history sanitizer on that broken history and on the healthy one,
                where it has one: the Agents SDK's `drop_orphan_function_calls` then
                `deduplicate_input_items_preferring_latest`, LiteLLM's
                `sanitize_messages_for_tool_calling` (modify_params=True), ADK's
                `drop_orphaned_function_calls` (on events), pydantic-ai's `repair_messages` (what it
                runs on the history before every request; pydantic-ai's history is its own: a question,
                the call, its return and the answer per exchange, and pydantic-ai is timed only when
                pydantic-ai-slim is installed, else one line says so); LangChain has none.
Prints one table row per (runtime, size).  Nothing is written; no network (LiteLLM reads its local
price map).
"""

from __future__ import annotations

import argparse
import copy
import gc
import importlib.util
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def best(call: Callable[[], Any], runs: int, setup: Callable[[], Any] | None = None) -> float:
    """The best of `runs` timings of call(), each after an untimed setup()."""
    gc.collect()
    found = float("inf")
    for _ in range(runs):
        if setup is not None:
            setup()
        start = time.perf_counter()
        call()
        found = min(found, time.perf_counter() - start)
    return found


def guard_timings(call: Callable[[Any], Any], memo_of: Any, healthy: Any, before: list[Any], next_request: Any,
                  broken: Any, runs: int, grown: Any = None) -> dict[str, float]:
    """first sight, next call and repair of one guard: call(request) runs it; memo_of is the object whose
    `memo` is reset before each run (next call: then primed with the requests of the model calls `before`,
    as a running agent's earlier calls left it).  Checks that a healthy request is passed on and that the
    next call took the memo.  grown: the broken request with one more exchange (the agent's next model
    call after the one that repaired `broken`): "repair next" times it after call(broken), and checks that
    the guard took the repair it remembered."""
    from integrity.guards._fast import HealthyMemo

    fresh = {"memo": HealthyMemo, "events_memo": type(getattr(memo_of, "events_memo", None))}

    def reset() -> None:  # the guard as new: every memo it has (ADK's plugin also remembers session events)
        for name, kind in fresh.items():
            if hasattr(memo_of, name):
                setattr(memo_of, name, kind())

    def primed() -> None:
        reset()
        for request in before:
            call(request)

    reset()
    assert call(healthy) in (None, healthy) or call(healthy) is getattr(healthy, "model_data", None)
    timings = {"first": best(lambda: call(healthy), runs, reset),
               "next": best(lambda: call(next_request), runs, primed),
               "repair": best(lambda: call(broken), runs, reset)}
    primed()
    resumed = memo_of.memo.resumed
    call(next_request)
    timings["memo"] = float(memo_of.memo.resumed - resumed)  # 1.0: the next call read only the new turn
    timings["repair next"] = float("nan")
    if grown is not None:
        def after_repair() -> None:
            reset()
            call(broken)

        assert call(grown) is not None  # the grown request still needs the repair
        timings["repair next"] = best(lambda: call(grown), runs, after_repair)
        after_repair()
        repeated = memo_of.memo.repeated
        call(grown)
        timings["memo"] *= float(memo_of.memo.repeated - repeated)  # and the repair was taken from the memo
    return timings


PAIRS = [0]
"""--pairs: how many (first repair, sanitizer) pairs `interleaved` times (0: none)."""


def interleaved(repair: Callable[[], Any], sanitizer: Callable[[], Any], memo_of: Any, pairs: int
                ) -> dict[str, float]:
    """The fastest of `pairs` first repairs (every memo of the guard reset before each, untimed) and of as many
    sanitizer calls, timed in turn, call after call: on a shared machine whose speed moves from one second to
    the next, a slow moment hits both alike (the best of N repairs, then the best of N sanitizer calls, put a
    slow second on one of them; docs/guards.md, the fifth round)."""
    from integrity.guards._fast import HealthyMemo

    events_memo = type(getattr(memo_of, "events_memo", None))
    fastest = [float("inf"), float("inf")]
    gc.collect()
    for _ in range(pairs):
        memo_of.memo = HealthyMemo()
        if hasattr(memo_of, "events_memo"):
            memo_of.events_memo = events_memo()
        start = time.perf_counter()
        repair()
        middle = time.perf_counter()
        sanitizer()
        end = time.perf_counter()
        fastest = [min(fastest[0], middle - start), min(fastest[1], end - middle)]
    return {"repair (pairs)": fastest[0], "sanitizer (pairs)": fastest[1]}


def chat_history(size: int, broken: bool, grown: bool = False) -> list[dict[str, Any]]:
    """OpenAI Chat messages: a system message, then (user, assistant calling a tool, its result) repeated
    up to `size`; broken: then a dangling call, a stray result and a user turn; grown: then one more
    exchange (the agent's next model call on the broken history)."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "be brief"}]
    index = 0
    while len(out) < size:
        call_id = f"call_{index}"
        out += [{"role": "user", "content": f"question {index}"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": call_id, "type": "function", "function": {"name": "lookup", "arguments": '{"q": 1}'}}]},
                {"role": "tool", "tool_call_id": call_id, "content": f"answer {index}"}]
        index += 1
    out = out[:size]
    if out[-1].get("role") == "assistant":
        out.pop()
    if broken:
        out[-1:] = [out[-1], {"role": "assistant", "content": None, "tool_calls": [
            {"id": "dangling", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "stray", "content": "x"}, {"role": "user", "content": "go on"}]
        if grown:
            out += [{"role": "assistant", "content": None, "tool_calls": [
                {"id": "after", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "after", "content": "y"}]
    return out


def responses_history(size: int, broken: bool, grown: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in chat_history(size, broken, grown):
        if message["role"] == "assistant":
            out += [{"type": "function_call", "call_id": c["id"], "name": c["function"]["name"],
                     "arguments": c["function"]["arguments"]} for c in message["tool_calls"]]
        elif message["role"] == "tool":
            out.append({"type": "function_call_output", "call_id": message["tool_call_id"],
                        "output": message["content"]})
        elif message["role"] == "user":
            out.append({"role": "user", "content": message["content"]})
    return out


def bench_openai_agents(size: int, runs: int) -> dict[str, float]:
    from agents import Agent, RunConfig
    from agents.models.chatcmpl_converter import Converter
    from agents.run_config import CallModelData, ModelInputData
    from agents.run_internal.items import deduplicate_input_items_preferring_latest, drop_orphan_function_calls

    from integrity.guards.openai_agents import ToolCallIntegrityFilter

    guard = ToolCallIntegrityFilter()
    agent = Agent(name="a", model="gpt-4.1")
    config = RunConfig(call_model_input_filter=guard)

    def data(items: list[Any]) -> Any:
        return CallModelData(model_data=ModelInputData(input=items, instructions=None), agent=agent, context=None)

    # The filter is called as the SDK's run calls it: the filter reads the run's RunConfig and conversation
    # state from its callers' locals (integrity.guards.openai_agents._find_run), so two frames stand for the
    # SDK's, with the locals it reads (0.24: maybe_filter_model_input holds run_config; the run loop's model
    # call holds run_config and server_conversation_tracker, None without server-managed state).  Called bare,
    # the filter would walk its whole search depth on every call, which no run does.
    def filtered(given: Any, run_config: Any) -> Any:  # as maybe_filter_model_input calls it
        return run_config.call_model_input_filter(given)

    def call(given: Any) -> Any:  # as the run loop's model call reaches it
        run_config, server_conversation_tracker = config, None  # noqa: F841 - read by the filter on the stack
        return filtered(given, run_config)

    items, broken = responses_history(size, False), responses_history(size, True)
    timings = guard_timings(call, guard, data(items), [data(copy.deepcopy(items[:-6])), data(copy.deepcopy(
        items[:-3]))], data(copy.deepcopy(items)), data(broken), runs,
                            data(responses_history(size, True, grown=True)))  # the SDK builds each call's input
    # anew: equal dicts, not the same ones

    def sanitize(history: list[Any]) -> Any:
        return deduplicate_input_items_preferring_latest(drop_orphan_function_calls(history))

    timings["sanitizer broken"] = best(lambda: sanitize(broken), runs)
    timings["sanitizer"] = best(lambda: sanitize(items), runs)
    timings["building"] = best(lambda: Converter.items_to_messages(items), runs)
    return timings


def bench_langchain(size: int, runs: int) -> dict[str, float]:
    from langchain.agents.middleware import ModelRequest
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage, convert_to_openai_messages, messages_from_dict

    from integrity.formats import read_document, to_native
    from integrity.formats.container import Document
    from integrity.guards.langchain import ToolCallIntegrityMiddleware

    guard = ToolCallIntegrityMiddleware(provider="anthropic")
    model = FakeMessagesListChatModel(responses=[AIMessage("x")])

    def messages_of(broken: bool, grown: bool = False) -> list[Any]:
        chat = chat_history(size, broken, grown)[1:]
        canonical = read_document(Document(chat, [0] * len(chat), "array"), "<bench>", "openai-chat").messages
        return list(messages_from_dict(to_native(canonical, "langchain").messages))

    def request(messages: list[Any]) -> Any:
        return ModelRequest(model=model, messages=messages, system_message=None, tool_choice=None, tools=[],
                            response_format=None, state={"messages": messages}, runtime=None)

    messages, broken = messages_of(False), messages_of(True)
    full = request(messages)  # LangGraph hands every model call of a run the same message objects
    grown = broken + messages_of(True, grown=True)[len(broken):]
    timings = guard_timings(guard.repaired_request, guard, full, [request(messages[:-6]), request(messages[:-3])],
                            full, request(broken), runs, request(grown))
    timings["building"] = best(lambda: convert_to_openai_messages(messages), runs)
    timings["sanitizer"] = timings["sanitizer broken"] = float("nan")
    return timings


def bench_litellm(size: int, runs: int) -> dict[str, float]:
    import litellm
    from litellm.litellm_core_utils.prompt_templates.factory import (
        anthropic_messages_pt,
        sanitize_messages_for_tool_calling,
    )

    from integrity.guards.litellm import ToolCallIntegrityGuard

    guard = ToolCallIntegrityGuard()
    model = "anthropic/claude-sonnet-4-5"
    messages, broken = chat_history(size, False), chat_history(size, True)

    def hook(data: dict[str, Any]) -> Any:
        return guard.repaired(data, "acompletion")  # what async_pre_call_deployment_hook returns

    timings = guard_timings(hook, guard, {"model": model, "messages": messages},
                            [{"model": model, "messages": messages[:-6]}, {"model": model, "messages": messages[:-3]}],
                            {"model": model, "messages": messages},
                            {"model": model, "messages": broken}, runs,  # the caller's list: the same dicts
                            {"model": model, "messages": broken + chat_history(size, True, grown=True)[len(broken):]})
    litellm.modify_params = True
    try:
        for label, history in (("sanitizer broken", broken), ("sanitizer", messages)):
            work: list[Any] = []
            timings[label] = best(lambda w=work: sanitize_messages_for_tool_calling(w[0]), runs,
                                  lambda w=work, h=history: w[:1].clear() or w.append(copy.deepcopy(h)))
    finally:
        litellm.modify_params = False
    timings["building"] = best(lambda: anthropic_messages_pt(messages, "claude-sonnet-4-5", "anthropic"), runs)
    return timings


def bench_adk(size: int, runs: int, gemini: bool = False, model: str = "gemini-2.5-flash") -> dict[str, float]:
    """ADK with call ids kept (toward Anthropic / LiteLLM models); gemini: toward a Gemini model, where ADK
    strips its own "adk-" ids from each request (bench_adk_gemini); model: the one the plugin is told (a Gemini 3
    model: each step's first call carries a thought signature, as Gemini 3 gives it)."""
    from google.adk.events import Event
    from google.adk.flows.llm_flows.context._contents import _get_contents
    from google.adk.flows.llm_flows.tools._rearranger import drop_orphaned_function_calls
    from google.genai import types

    from integrity.guards.adk import ToolCallIntegrityPlugin

    plugin = ToolCallIntegrityPlugin()

    mark = "adk-" if gemini else ""  # ADK's own ids (it makes them when the model gives none, as Gemini's do)
    signature = b"\x0a\x22\x01" * 12 if model.startswith("gemini-3") else None

    def contents_of(broken: bool, grown: bool = False) -> list[Any]:
        contents: list[Any] = []
        for message in chat_history(size, broken, grown)[1:]:
            if message["role"] == "user":
                contents.append(types.Content(role="user", parts=[types.Part(text=message["content"])]))
            elif message["role"] == "assistant":
                contents.append(types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
                    id=mark + c["id"], name="lookup", args={"q": 1}), thought_signature=signature if not at else None)
                    for at, c in enumerate(message["tool_calls"])]))
            else:
                contents.append(types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                    id=mark + message["tool_call_id"], name="lookup", response={"result": message["content"]}))]))
        return contents

    def events_of(contents: list[Any]) -> list[Any]:  # the session's events: the plugin looks there for calls
        return [Event(author="user" if c.role == "user" else "assistant", invocation_id="i", content=c)
                for c in contents]  # ADK dropped

    contents, broken = contents_of(False), contents_of(True)
    events, broken_events = events_of(contents), events_of(broken)
    grown = broken + contents_of(True, grown=True)[len(broken):]  # the next model call: one more exchange
    grown_events = broken_events + events_of(grown[len(broken):])
    # what ADK hands the plugin on each call: new Content and Part objects (shallow copies) built from the
    # session's events; the ids kept (ADK keeps them for Anthropic / LiteLLM models), or toward Gemini its
    # "adk-" ids stripped (new call and response objects without ids), and then ADK's own request is what
    # the guard sees first too, and what it repairs (ADK has dropped the dangling call and the stray)
    keep = not gemini
    copies = _get_contents(None, events, "assistant", preserve_function_call_ids=keep)
    prefix = _get_contents(None, events[:-3], "assistant", preserve_function_call_ids=keep)
    earlier = _get_contents(None, events[:-6], "assistant", preserve_function_call_ids=keep)
    if gemini:
        contents = _get_contents(None, events, "assistant", preserve_function_call_ids=keep)
        broken = _get_contents(None, broken_events, "assistant", preserve_function_call_ids=keep)
        grown = _get_contents(None, grown_events, "assistant", preserve_function_call_ids=keep)
    requests = {id(contents): events, id(copies): events, id(broken): broken_events, id(grown): grown_events,
                id(prefix): events[:-3],
                id(earlier): events[:-6]}

    def call(request: list[Any]) -> Any:
        return plugin.repaired_contents(request, model, requests[id(request)], "assistant")

    timings = guard_timings(call, plugin, contents, [earlier, prefix], copies, broken, runs, grown)
    if PAIRS[0]:  # the first repair and ADK's sanitizer on the same broken history, timed call after call
        timings.update(interleaved(lambda: call(broken), lambda: drop_orphaned_function_calls(broken_events),
                                   plugin, PAIRS[0]))
    timings["sanitizer broken"] = best(lambda: drop_orphaned_function_calls(broken_events), runs)
    timings["sanitizer"] = best(lambda: drop_orphaned_function_calls(events), runs)
    timings["building"] = best(lambda: _get_contents(None, events, "assistant"), runs)
    return timings


def pydantic_ai_history(size: int, broken: bool, grown: bool = False) -> list[Any]:
    """A pydantic-ai agent's history as it records it (ModelMessages): the first request holds the system
    prompt and the question, then each exchange is the tool call, its return, the answer, and the next
    question (`size` messages).  broken: then a call left dangling, a return whose call is unknown, an
    answer and a question (as chat_history breaks its history); grown: then one more exchange (the agent's
    next model call on the broken history)."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    out: list[Any] = [ModelRequest(parts=[SystemPromptPart(content="be brief"), UserPromptPart(content="question 0")])]
    index = 0
    while len(out) < size:
        call_id = f"call_{index}"
        out += [ModelResponse(parts=[ToolCallPart(tool_name="lookup", args='{"q": 1}', tool_call_id=call_id)]),
                ModelRequest(parts=[ToolReturnPart(tool_name="lookup", content=f"answer {index}",
                                                   tool_call_id=call_id)]),
                ModelResponse(parts=[TextPart(content=f"it is {index}")]),
                ModelRequest(parts=[UserPromptPart(content=f"question {index + 1}")])]
        index += 1
    out = out[:size]
    while not (isinstance(out[-1], ModelRequest) and out[-1].parts[0].part_kind == "user-prompt"):
        out.pop()
    if broken:
        out += [ModelResponse(parts=[ToolCallPart(tool_name="lookup", args="{}", tool_call_id="dangling")]),
                ModelRequest(parts=[ToolReturnPart(tool_name="lookup", content="x", tool_call_id="stray")]),
                ModelResponse(parts=[TextPart(content="done")]), ModelRequest(parts=[UserPromptPart(content="go on")])]
    if grown:
        out += [ModelResponse(parts=[ToolCallPart(tool_name="lookup", args="{}", tool_call_id="later")]),
                ModelRequest(parts=[ToolReturnPart(tool_name="lookup", content="y", tool_call_id="later")]),
                ModelResponse(parts=[TextPart(content="y")]), ModelRequest(parts=[UserPromptPart(content="more")])]
    return out


def bench_pydantic_ai(size: int, runs: int) -> dict[str, float]:
    """The pydantic-ai guard (`ToolCallIntegrityProcessor.repaired_messages`, what its prepare_model_request hook
    runs) for an Anthropic model, next to pydantic-ai's own `repair_messages` on the same histories.
    building: `OpenAIChatModel._map_messages` (its Chat Completions request from the history; openai is the
    SDK installed here; Anthropic's would need the anthropic package)."""
    import asyncio

    from pydantic_ai.messages import repair_messages
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from integrity.guards.pydantic_ai import ToolCallIntegrityProcessor

    guard = ToolCallIntegrityProcessor()
    model = "anthropic:claude-sonnet-4-5"
    messages, broken = pydantic_ai_history(size, False), pydantic_ai_history(size, True)

    def call(history: list[Any]) -> Any:
        sent = guard.repaired_messages(history, model)
        return None if sent is history else sent

    repaired = call(broken)
    assert repaired is not broken and any(part.part_kind == "tool-return" and part.tool_call_id == "dangling"
                                          for message in repaired for part in message.parts)
    # pydantic-ai hands each model call a new list of the history's own message objects
    grown = pydantic_ai_history(size, True, grown=True)
    grown[:len(broken)] = broken  # the next model call: the same message objects, and the new exchange
    timings = guard_timings(call, guard, messages, [messages[:-8], messages[:-4]], list(messages), broken, runs,
                            grown)
    timings["sanitizer broken"] = best(lambda: repair_messages(broken), runs)
    timings["sanitizer"] = best(lambda: repair_messages(messages), runs)
    openai = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key="unused"))
    loop = asyncio.new_event_loop()
    try:
        parameters = ModelRequestParameters()
        timings["building"] = best(lambda: loop.run_until_complete(openai._map_messages(messages, parameters)), runs)
    finally:
        loop.close()
    return timings


def bench_adk_gemini(size: int, runs: int) -> dict[str, float]:
    return bench_adk(size, runs, gemini=True)


def bench_adk_gemini3(size: int, runs: int) -> dict[str, float]:
    return bench_adk(size, runs, gemini=True, model="gemini-3-flash-preview")


BENCHES: dict[str, Callable[[int, int], dict[str, float]]] = {
    "langchain": bench_langchain, "openai-agents": bench_openai_agents, "litellm": bench_litellm, "adk": bench_adk,
    "adk-gemini": bench_adk_gemini, "adk-gemini3": bench_adk_gemini3, "pydantic-ai": bench_pydantic_ai,
}
OPTIONAL = {"pydantic-ai": "pydantic_ai"}
"""Runtimes timed only when installed (requirements-dev.txt installs them; the bench says when one is absent)."""


def _said_at_most(measured: float, bound: float | None) -> str:
    """'   target <= 100%: met' beside a ratio ('' without a target: ADK's is at 100 contents)."""
    return "" if bound is None else f"   target <= {bound:.0%}: {'met' if measured <= bound else 'NOT met'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--runtimes", default=",".join(BENCHES))
    parser.add_argument("--pairs", type=int, default=0,
                        help="ADK: also time N first repairs and N sanitizer calls in turn (the target's comparison)")
    args = parser.parse_args()
    PAIRS[0] = args.pairs
    logging.disable(logging.WARNING)  # ADK's sanitizer logs each call it drops; the guards log each repair
    print(f"{'runtime':<14} {'messages':>8} {'building':>11} {'first sight':>11} {'share':>6} {'next call':>10} "
          f"{'share':>6} {'repair':>10} {'repair next':>11} {'sanitizer broken':>16} {'sanitizer':>10}")

    def share(part: float, whole: float) -> str:
        return "—" if part != part else f"{part / whole:.1%}"

    def ms(seconds: float) -> str:
        return "—" if seconds != seconds else f"{seconds * 1e3:.3f} ms" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"

    for runtime in args.runtimes.split(","):
        if runtime in OPTIONAL and importlib.util.find_spec(OPTIONAL[runtime]) is None:
            print(f"{runtime:<14} not installed: not timed (pip install -r requirements-dev.txt)", flush=True)
            continue
        for size in (int(s) for s in args.sizes.split(",")):
            t = BENCHES[runtime](size, args.runs)
            hit = "" if t["memo"] else " (memo not taken)"
            print(f"{runtime:<14} {size:>8} {ms(t['building']):>11} {ms(t['first']):>11} "
                  f"{share(t['first'], t['building']):>6} {ms(t['next']):>10} {share(t['next'], t['building']):>6} "
                  f"{ms(t['repair']):>10} {ms(t['repair next']):>11} {ms(t['sanitizer broken']):>16} "
                  f"{ms(t['sanitizer']):>10}{hit}", flush=True)
            if "repair (pairs)" in t:
                ratio = t["repair (pairs)"] / t["sanitizer (pairs)"]
                print(f"{'':<14} {size:>8} in turn, fastest of {args.pairs:,} each: first repair "
                      f"{t['repair (pairs)'] * 1e6:.1f} µs, sanitizer {t['sanitizer (pairs)'] * 1e6:.1f} µs: "
                      f"{ratio:.0%} of it{_said_at_most(ratio, 1.0 if size == 100 else None)}", flush=True)


if __name__ == "__main__":
    main()
