"""The OpenAI Agents SDK guard: a `RunConfig(call_model_input_filter=...)` that repairs each model input.

    from integrity.guards.openai_agents import ToolCallIntegrityFilter
    result = await Runner.run(agent, input, run_config=RunConfig(call_model_input_filter=ToolCallIntegrityFilter()))

The SDK calls the filter right before every model call with a `CallModelData` whose `model_data.input`
is a copy of the list it is about to send (Responses input items).  Left alone, the SDK sends a stray
`function_call_output` as it is (the API answers "No tool call found for function call output with
call_id ..."), keeps only the latest of duplicate outputs, and (for session history) drops a dangling
call, so the model loses the record that it tried.  The filter answers a dangling call with the
interrupted receipt, drops strays, keeps the first real result of a duplicate, and orders outputs
after their calls, by the strict policy of the provider the agent's model goes to.

The filter is usable sync (`filter(data)`) and async (`await filter.async_filter(data)`); the SDK
accepts either.  The SDK removes a dangling call from a Session's history before the filter runs; give
the filter that session (`ToolCallIntegrityFilter(session=session).async_filter`) and it puts each
call the SDK dropped back, read from the session's items (never written), so it is answered too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ._core import GuardMode, GuardReport, RequestGuard
from ._fast import HealthyMemo

FORMAT = "openai-responses"


def _model_name(agent: Any) -> Any:
    """The agent's model as the SDK holds it: a name, or a Model object (whose `model` names it); an agent
    without one runs the SDK's default model (an OpenAI model name)."""
    model = getattr(agent, "model", None)
    if model is None:
        if agent is None:
            return None
        from agents.models import get_default_model

        return get_default_model()
    return model if isinstance(model, str) else (getattr(model, "model", None) or model)


def _api_of(agent: Any) -> str:
    """'chat' when the agent's model object speaks Chat Completions (OpenAIChatCompletionsModel, LiteLLM),
    else 'responses' (the SDK's default for a model name)."""
    model = getattr(agent, "model", None)
    name = type(model).__name__ if model is not None and not isinstance(model, str) else ""
    return "chat" if "Chat" in name or "Litellm" in name else "responses"


class ToolCallIntegrityFilter:
    """A `call_model_input_filter` that sends a repaired copy of the input when it needs one.

    mode: "repair" | "report" | "raise"; on_report: called with a GuardReport per request needing repair;
    provider: the target provider when the agent's model does not name one (e.g. a custom Model).
    A healthy input comes back as the very ModelInputData passed in (same input list, same items).
    """

    def __init__(self, *, mode: GuardMode = "repair", on_report: Callable[[GuardReport], Any] | None = None,
                 provider: str | None = None, session: Any = None, logger: logging.Logger | None = None) -> None:
        self.guard = RequestGuard("openai-agents", mode=mode, on_report=on_report, provider=provider, logger=logger)
        self.memo = HealthyMemo()  # the last healthy request: the next one is read from where it ends
        self.session = session
        self._targets: tuple[Any, Any, str | None] | None = None  # (agent, its model, the target) last seen

    def target(self, agent: Any) -> str | None:
        """The provider the agent's model call goes to (remembered for the last agent and model object:
        the filter runs before every model call of a run, with the same agent)."""
        model = getattr(agent, "model", None)
        known = self._targets
        if known is not None and known[0] is agent and known[1] is model and model is not None:
            return known[2]
        target = self.guard.target(_model_name(agent), "chat" if _api_of(agent) == "chat" else "responses")
        self._targets = (agent, model, target)
        return target

    def __call__(self, data: Any) -> Any:
        """The filter: CallModelData -> ModelInputData (the SDK awaits nothing when this is used sync)."""
        model_data = data.model_data
        items = model_data.input
        target = self.target(getattr(data, "agent", None))
        scanned = self.memo.first(items, FORMAT, target)
        if scanned is not None and scanned[0]:
            return model_data
        repaired = self.guard.guard_objects(items, FORMAT, _dicts, FORMAT, target, scanned,
                                            memo=self.memo)
        if repaired is None:
            return model_data
        from agents.run_config import ModelInputData

        return ModelInputData(input=repaired, instructions=model_data.instructions)

    async def async_filter(self, data: Any) -> Any:
        """The filter as a coroutine function; with a session, the calls the SDK dropped from it are restored
        first (read with `session.get_items()`) and then answered like any dangling call."""
        if self.session is not None and self.guard.mode == "repair":
            stored = list(await self.session.get_items())
            restored = restore_dropped_calls(list(data.model_data.input), stored)
            if restored is not None:
                from agents.run_config import CallModelData, ModelInputData

                data = CallModelData(model_data=ModelInputData(input=restored,
                                                               instructions=data.model_data.instructions),
                                     agent=data.agent, context=data.context)
        return self(data)


def restore_dropped_calls(items: list[Any], stored: list[Any]) -> list[Any] | None:
    """`items` with the function calls the SDK dropped from the session put back (None when none was).

    A call is restored when the session stored it, nothing answers it (in the session or the input),
    it is missing from `items`, and the stored item just before it is in `items` (so its place is
    known); it goes right after that item.  Items are matched in order by equality.
    """
    answered = {item.get("call_id") for item in (*stored, *items)
                if isinstance(item, dict) and item.get("type") == "function_call_output"}
    present = {item.get("call_id") for item in items if isinstance(item, dict) and item.get("type") == "function_call"}
    out = list(items)
    at = 0
    placed = True  # whether the previous stored item has a known place in `out`
    changed = False
    for item in stored:
        dropped = isinstance(item, dict) and item.get("type") == "function_call" and \
            item.get("call_id") not in answered and item.get("call_id") not in present
        if dropped:
            if placed:
                out.insert(at, item)
                at += 1
                changed = True
            continue
        found = next((index for index in range(at, len(out)) if out[index] == item), None)
        placed = found is not None
        if found is not None:
            at = found + 1
    return out if changed else None


def _dicts(entries: list[Any]) -> list[Any]:
    """The entries as the dicts they are sent as (guard_objects dumps only the part it repairs)."""
    return [entry if isinstance(entry, dict) else _dump(entry) for entry in entries]


def _dump(item: Any) -> Any:
    """A pydantic input item (a ResponseOutputMessage the caller passed back) as the dict the API gets."""
    dump = getattr(item, "model_dump", None)
    return dump(exclude_unset=True, mode="json") if dump is not None else item
