"""The OpenAI Agents SDK's histories: JavaScript run items and RunState dumps.

Python's `result.to_input_list()` is a list of Responses input items and reads as
openai-responses.  The JavaScript SDK (openai/openai-agents-js, agents-core
`types/protocol.ts`) keeps its own item protocol in `result.history`, in sessions
and in a RunState: `function_call` with `callId`, `function_call_result` with
`callId` and an `output` that is a string, a `{type: "text", text}` part or a list
of input parts, `hosted_tool_call` (a provider-side tool such as web search, never
answered by the client), and messages as Responses has them.  Each item is read as
the Responses item it stands for.

A RunState (`RunState.toString()` / `to_json()`: `$schemaVersion`, `originalInput`,
`generatedItems` of run items `{type, rawItem, agent}`, `currentStep`...) holds the
history as its original input followed by the raw items of the generated run items;
a `tool_approval_item` repeats the call it asks approval for, so it is left out (the
call stays unanswered until it is approved and run).  Read-only: a repaired view is
written as Responses input items.
"""

from __future__ import annotations

from typing import Any

from . import openai_responses
from .base import BuildContext
from .common import entry_keys
from .spec import FormatSpec
from .wrapped import Wrapped

NAME = "openai-agents"
_JS_ITEMS = ("function_call", "function_call_result", "hosted_tool_call", "computer_call", "computer_call_result",
             "shell_call", "shell_call_output", "apply_patch_call", "apply_patch_call_output", "reasoning",
             "message", "unknown")


def _output_text(output: Any) -> str:
    """A function_call_result's output as the text sent to the model."""
    if isinstance(output, str):
        return output
    parts = output if isinstance(output, list) else [output]
    texts = [p.get("text") for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "\n".join(t for t in texts if t is not None)


def _unwrap(item: Any) -> Any:
    """The Responses item a JavaScript protocol item stands for (None: not sent as a call or message)."""
    if not isinstance(item, dict):
        return item
    kind = item.get("type")
    if kind in ("hosted_tool_call", "reasoning", "unknown"):
        return None  # provider-side tools answer themselves; JS reasoning items carry no encrypted content
    out = {k: v for k, v in item.items() if k not in ("callId", "providerData")}
    if "callId" in item:
        out["call_id"] = item["callId"]
    if kind == "function_call_result":
        out = {"type": "function_call_output", "call_id": out.get("call_id"),
               "output": _output_text(item.get("output"))}
    return out


def _wrap(item: Any, template: Any, context: BuildContext) -> Any:
    raise NotImplementedError("openai-agents is read-only")


def _js_item(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") in _JS_ITEMS and "callId" in entry


def evidence(entries: list[Any], envelope: dict[str, Any]) -> bool:
    """An item with the JavaScript SDK's `callId`, or a `function_call_result`."""
    keys = entry_keys(entries)
    if keys is not None and "type" not in keys:  # (both are typed items: a Chat file's messages have none)
        return False
    return any(_js_item(e) or (isinstance(e, dict) and e.get("type") == "function_call_result") for e in entries)


def fits(entry: Any) -> bool:
    """A JavaScript protocol item, or anything a Responses input list holds."""
    return (isinstance(entry, dict) and entry.get("type") in _JS_ITEMS) or openai_responses.fits(entry)


class _ReadOnly(Wrapped):
    """Read, never written: a view is written as Responses input items."""

    READ_ONLY = True
    WRITES_AS = "openai-responses"


ADAPTER = _ReadOnly(NAME, openai_responses, _unwrap, _wrap, evidence, fits, container="array",
                    refines="openai-responses")


def _key(whole: dict[str, Any], camel: str, snake: str) -> str:
    """The spelling a dump uses: the JavaScript SDK's camelCase, or snake_case."""
    return camel if camel in whole else snake


def is_run_state(whole: Any) -> bool:
    """A RunState dump: a schema version, the original input and the generated run items."""
    return isinstance(whole, dict) and "$schemaVersion" in whole \
        and _key(whole, "originalInput", "original_input") in whole \
        and isinstance(whole.get(_key(whole, "generatedItems", "generated_items")), list)


def run_state_items(whole: dict[str, Any]) -> list[Any]:
    """The history a RunState holds: its original input, then each generated run item's raw item."""
    original = whole[_key(whole, "originalInput", "original_input")]
    items: list[Any] = list(original) if isinstance(original, list) else [{"role": "user", "content": original}]
    for run_item in whole[_key(whole, "generatedItems", "generated_items")]:
        if not isinstance(run_item, dict):
            items.append(run_item)
            continue
        if run_item.get("type") == "tool_approval_item":
            continue  # repeats the call it asks approval for
        raw = _key(run_item, "rawItem", "raw_item")
        items.append(run_item[raw] if raw in run_item else run_item)
    return items


SPECS = (FormatSpec(NAME, ADAPTER, provider="openai-responses", suffixes=(".json",)),)
"""This module's format, as the registry (integrity.formats) lists it: the Agents SDK sends its items to the OpenAI
Responses API, so a file in this format is judged by it when no provider is named (integrity.target_provider)."""
