"""The runtime guards' cost per model call, on healthy and broken histories, next to the runtimes' own work.

Usage: python bench/bench_guards.py [--sizes 100,1000,10000] [--runs 5] [--runtimes langchain,openai-agents,litellm,adk]

For each runtime and history size (messages: user turn, assistant turn with one tool call, its result,
repeated), the best of `runs` timings of:
  guard healthy  one guard call on the healthy history (what every model call pays);
  guard broken   the same history with a dangling call and a stray result near the end (the rare repair);
  sanitizer      the runtime's own tool-history sanitizer on the same healthy history, where it has one:
                 the Agents SDK's `drop_orphan_function_calls`, LiteLLM's
                 `sanitize_messages_for_tool_calling` (modify_params=True), ADK's
                 `drop_orphaned_function_calls` (on events); LangChain has none;
  building       the runtime's own cost of building the provider request from the same history:
                 LangChain `convert_to_openai_messages`, the Agents SDK's Chat Completions
                 `Converter.items_to_messages`, LiteLLM's `anthropic_messages_pt` (its Anthropic
                 translation), ADK's `_get_contents` (contents from the session events; private API);
  share          guard healthy / building: the target is at most 5%.
Prints one table row per (runtime, size).  Nothing is written; no network (LiteLLM reads its local
price map).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def best(call: Callable[[], Any], runs: int) -> float:
    gc.collect()
    found = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        call()
        found = min(found, time.perf_counter() - start)
    return found


def chat_history(size: int, broken: bool) -> list[dict[str, Any]]:
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
    return out


def responses_history(size: int, broken: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in chat_history(size, broken):
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
    from agents import Agent
    from agents.run_config import CallModelData, ModelInputData
    from agents.run_internal.items import drop_orphan_function_calls

    from integrity.guards.openai_agents import ToolCallIntegrityFilter

    guard = ToolCallIntegrityFilter()
    agent = Agent(name="a", model="gpt-4.1")
    timings = {}
    for label, broken in (("healthy", False), ("broken", True)):
        items = responses_history(size, broken)
        data = CallModelData(model_data=ModelInputData(input=items, instructions=None), agent=agent, context=None)
        timings[label] = best(lambda d=data: guard(d), runs)
    from agents.models.chatcmpl_converter import Converter

    items = responses_history(size, False)
    timings["sanitizer"] = best(lambda: drop_orphan_function_calls(items), runs)
    timings["building"] = best(lambda: Converter.items_to_messages(items), runs)
    return timings


def bench_langchain(size: int, runs: int) -> dict[str, float]:
    from langchain.agents.middleware import ModelRequest
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage, convert_to_openai_messages, messages_from_dict

    from integrity.guards.langchain import ToolCallIntegrityMiddleware

    guard = ToolCallIntegrityMiddleware(provider="anthropic")
    model = FakeMessagesListChatModel(responses=[AIMessage("x")])
    timings = {}
    for label, broken in (("healthy", False), ("broken", True)):
        from integrity.formats import to_native

        chat = chat_history(size, broken)[1:]
        from integrity.formats import read_document
        from integrity.formats.container import Document

        canonical = read_document(Document(chat, [0] * len(chat), "array"), "<bench>", "openai-chat").messages
        messages = messages_from_dict(to_native(canonical, "langchain").messages)
        request = ModelRequest(model=model, messages=messages, system_message=None, tool_choice=None, tools=[],
                               response_format=None, state={"messages": messages}, runtime=None)
        timings[label] = best(lambda r=request: guard.repaired_request(r), runs)
        if not broken:
            timings["building"] = best(lambda m=messages: convert_to_openai_messages(m), runs)
    timings["sanitizer"] = float("nan")
    return timings


def bench_litellm(size: int, runs: int) -> dict[str, float]:
    import litellm
    from litellm.litellm_core_utils.prompt_templates.factory import (
        anthropic_messages_pt,
        sanitize_messages_for_tool_calling,
    )

    from integrity.guards.litellm import ToolCallIntegrityGuard

    guard = ToolCallIntegrityGuard()
    timings = {}
    for label, broken in (("healthy", False), ("broken", True)):
        data = {"model": "anthropic/claude-sonnet-4-5", "messages": chat_history(size, broken)}
        timings[label] = best(lambda d=data: asyncio.run(guard.async_pre_call_deployment_hook(d, "acompletion")),
                              runs)
    messages = chat_history(size, False)
    litellm.modify_params = True
    timings["sanitizer"] = best(lambda: sanitize_messages_for_tool_calling(messages), runs)
    litellm.modify_params = False
    timings["building"] = best(lambda: anthropic_messages_pt(messages, "claude-sonnet-4-5", "anthropic"), runs)
    return timings


def bench_adk(size: int, runs: int) -> dict[str, float]:
    from google.genai import types

    from integrity.guards.adk import ToolCallIntegrityPlugin

    plugin = ToolCallIntegrityPlugin()
    timings = {}
    for label, broken in (("healthy", False), ("broken", True)):
        contents: list[Any] = []
        for message in chat_history(size, broken)[1:]:
            if message["role"] == "user":
                contents.append(types.Content(role="user", parts=[types.Part(text=message["content"])]))
            elif message["role"] == "assistant":
                contents.append(types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
                    id=c["id"], name="lookup", args={"q": 1})) for c in message["tool_calls"]]))
            else:
                contents.append(types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                    id=message["tool_call_id"], name="lookup", response={"result": message["content"]}))]))
        from google.adk.events import Event

        events = [Event(author="user" if c.role == "user" else "assistant", invocation_id="i", content=c)
                  for c in contents]  # the session's events: the plugin looks there for calls ADK dropped
        timings[label] = best(lambda c=contents, e=events: plugin.repaired_contents(c, "gemini-2.5-flash", e,
                                                                                    "assistant"), runs)
        if not broken:
            from google.adk.flows.llm_flows.context._contents import _get_contents
            from google.adk.flows.llm_flows.tools._rearranger import drop_orphaned_function_calls

            timings["sanitizer"] = best(lambda e=events: drop_orphaned_function_calls(e), runs)
            timings["building"] = best(lambda e=events: _get_contents(None, e, "assistant"), runs)
    return timings


BENCHES: dict[str, Callable[[int, int], dict[str, float]]] = {
    "langchain": bench_langchain, "openai-agents": bench_openai_agents, "litellm": bench_litellm, "adk": bench_adk,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--runtimes", default=",".join(BENCHES))
    args = parser.parse_args()
    print(f"{'runtime':<14} {'messages':>8} {'guard healthy':>14} {'guard broken':>13} {'sanitizer':>12} "
          f"{'building':>12} {'share':>7}")
    for runtime in args.runtimes.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            t = BENCHES[runtime](size, args.runs)
            print(f"{runtime:<14} {size:>8} {t['healthy'] * 1e3:>11.2f} ms {t['broken'] * 1e3:>10.2f} ms "
                  f"{t['sanitizer'] * 1e3:>9.2f} ms {t['building'] * 1e3:>9.2f} ms "
                  f"{t['healthy'] / t['building']:>6.0%}", flush=True)


if __name__ == "__main__":
    main()
