"""The OpenAI Agents SDK guard: a `RunConfig(call_model_input_filter=...)` that repairs each model input.

    from integrity.guards.openai_agents import ToolCallIntegrityFilter
    result = await Runner.run(agent, input, run_config=RunConfig(call_model_input_filter=ToolCallIntegrityFilter()))

The SDK calls the filter right before every model call with a `CallModelData` whose `model_data.input`
is a copy of the list it is about to send (Responses input items).  Left alone, the SDK sends a stray
`function_call_output` as it is (the API answers "No tool call found for function call output with
call_id ..."), keeps only the latest of duplicate outputs, and (for session history) drops a dangling
call, so the model loses the record that it tried.  The filter answers a dangling call with the
interrupted receipt, drops strays, keeps the first real result of a duplicate, and orders outputs
after their calls, by the strict policy of the provider the run's model goes to.

The SDK hands the filter neither its RunConfig nor its server-managed conversation state, and both
decide: RunConfig(model=...) overrides the agent's model, and a run that continues a response the
server stores (`previous_response_id`, `conversation_id`, `auto_previous_response_id`) sends only the
new items, e.g. the output of a call the server holds.  The filter reads them from the run that calls
it, on the call stack (`_find_run`); see ToolCallIntegrityFilter for what it does when it cannot.

The filter is usable sync (`filter(data)`) and async (`await filter.async_filter(data)`); the SDK
accepts either.  The SDK removes a dangling call from a Session's history before the filter runs; give
the filter that session (`ToolCallIntegrityFilter(session=session).async_filter`) and it puts each
call the SDK dropped back, read from the session's items (never written), so it is answered too.
"""

from __future__ import annotations

import itertools
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any, Literal

from ._core import GuardMode, GuardReport, RequestGuard
from ._fast import HealthyMemo

FORMAT = "openai-responses"
_DEPTH = 6
"""How many frames above the filter the SDK's run is looked for.  In 0.24: the filter (and async_filter),
then `maybe_filter_model_input` (holds `run_config`), then the model call of the run loop (holds the same
`run_config` and `server_conversation_tracker`)."""
_UNSEEN = "(a stored response the filter cannot see)"
"""The envelope's previous_response_id when the request is taken to continue a response whose id the
filter does not know (server_state=True, or the run could not be read)."""
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output", "computer_call_output")
_RESTORED = ("function_call", "custom_tool_call")  # the dropped calls put back (the engine answers both)


_RUN_CONFIG: list[type] = []  # the SDK's RunConfig class, imported once
_NOT_FOUND: tuple[Any, Any] = (None, None)


def _find_run() -> tuple[Any, Any]:
    """The run calling the filter, read from the call stack (the SDK hands the filter neither its RunConfig
    nor its server conversation state): (its RunConfig, the frame holding it), from the nearest frame above
    the filter's caller that holds a `RunConfig` named `run_config` (in 0.24, `maybe_filter_model_input`);
    (None, None) when none is.  The config is read for every call (it decides the target); the frame only
    for a request that is not plainly healthy (`_run_state`), and the caller lets it go when it returns.
    Version-tolerant by design: no function is looked for by name, and whatever is not found, or any error,
    reads as not known (ToolCallIntegrityFilter says what the filter then does)."""
    try:
        if not _RUN_CONFIG:
            from agents.run_config import RunConfig

            _RUN_CONFIG.append(RunConfig)
        kind = _RUN_CONFIG[0]
        frame: Any = sys._getframe(2)
        depth = _DEPTH
        while frame is not None and depth:
            if "run_config" in frame.f_code.co_varnames:
                found = frame.f_locals.get("run_config")
                if isinstance(found, kind):
                    return found, frame
            frame = frame.f_back
            depth -= 1
    except Exception:  # noqa: BLE001 - reading the stack must never be why a model call fails
        pass
    return _NOT_FOUND


def _run_state(frame: Any, config: Any) -> tuple[bool, dict[str, str]]:
    """(whether the run's server conversation state was read, the stored response or conversation this model
    call continues: {} when none), from the frame where `_find_run` found the config up."""
    if frame is None:
        return False, {}
    try:
        return _state_above(frame, config)
    except Exception:  # noqa: BLE001 - reading the stack must never be why a model call fails
        return False, {}


def _state_above(frame: Any, config: Any) -> tuple[bool, dict[str, str]]:
    """The run's server conversation state: from `frame` up, the first frame holding the same `run_config`
    and a `server_conversation_tracker` (in 0.24 the run loop's model call; None there: no server state)."""
    for _ in range(_DEPTH):
        if frame is None:
            break
        code = frame.f_code
        if "server_conversation_tracker" in code.co_varnames or "server_conversation_tracker" in code.co_cellvars:
            local = frame.f_locals
            if local.get("run_config") is config:
                envelope = _continued(local.get("server_conversation_tracker"))
                return envelope is not None, envelope or {}
        frame = frame.f_back
    return False, {}


def _continued(tracker: Any) -> dict[str, str] | None:
    """The envelope of the stored state the SDK's tracker continues ({} for none, None when the tracker is
    not one this guard knows how to read)."""
    if tracker is None:
        return {}
    if not (hasattr(tracker, "previous_response_id") or hasattr(tracker, "conversation_id")):
        return None
    envelope: dict[str, str] = {}
    previous = getattr(tracker, "previous_response_id", None)
    conversation = getattr(tracker, "conversation_id", None)
    if isinstance(previous, str) and previous:
        envelope["previous_response_id"] = previous
    if isinstance(conversation, str) and conversation:
        envelope["conversation"] = conversation
    return envelope


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _output_id(item: Any) -> Any:
    """The call an output answers: its call_id (openai's LocalShellCallOutput names it by `id`)."""
    call_id = _field(item, "call_id")
    if call_id is None and _field(item, "type") == "local_shell_call_output":
        return _field(item, "id")
    return call_id


def _answers_unseen_call(items: Sequence[Any], leading: bool = False) -> bool:
    """Whether an output in the input answers a call the input does not hold (a stray, or the output of
    a call a stored response holds).  leading: only the outputs the input opens with count (the shape of a
    model call that continues a stored response: the outputs of its calls come first)."""
    if leading:
        opening = [_output_id(item) for item in itertools.takewhile(lambda item: _field(item, "type") in _OUTPUTS,
                                                                    items)]
        if not opening:
            return False  # the common case: a request that opens with a message, read no further
    else:
        opening = [_output_id(item) for item in items if _field(item, "type") in _OUTPUTS]
    calls = {_field(item, "call_id") for item in items if str(_field(item, "type") or "").endswith("_call")}
    return any(call_id not in calls for call_id in opening)


def _called_model(agent: Any, config: Any) -> Any:
    """The model the SDK calls for `agent` (the order of its turn_preparation.get_model): the run's
    RunConfig.model, else the agent's, else None (the provider's default model)."""
    override = getattr(config, "model", None) if config is not None else None
    return override if override is not None else getattr(agent, "model", None)


def _uses_responses(config: Any) -> bool:
    """Whether a plain model name goes to OpenAI's Responses API: the run's OpenAI provider decides (its
    MultiProvider's `openai_use_responses`, fixed when the provider was made), else the SDK's default
    (`set_default_openai_api`)."""
    if config is not None:
        provider = getattr(config, "model_provider", None)
        flag = getattr(getattr(provider, "openai_provider", provider), "_use_responses", None)
        if isinstance(flag, bool):
            return flag
    if not _DEFAULT_API:
        try:
            from agents.models._openai_shared import get_use_responses_by_default

            _DEFAULT_API.append(get_use_responses_by_default)
        except Exception:  # noqa: BLE001 - a later SDK may move it: the SDK's documented default then
            _DEFAULT_API.append(lambda: True)
    return bool(_DEFAULT_API[0]())


_DEFAULT_API: list[Callable[[], bool]] = []  # the SDK's getter of its default OpenAI API, imported once


def _route(model: Any, config: Any) -> tuple[Any, Literal["chat", "responses"]]:
    """(the model name or object whose name says the provider, the API the SDK calls it with).

    A name goes through the SDK's MultiProvider: "litellm/..." to LiteLLM's Chat Completions
    (`litellm.acompletion`), "any-llm/..." to any-llm (Responses where its provider has it), anything else
    to OpenAI, by Responses or Chat Completions as the run's provider says.  A model object says it by its
    class (OpenAIChatCompletionsModel, LitellmModel: Chat) or its `api` (AnyLLMModel)."""
    if model is None or isinstance(model, str):
        if not model:
            from agents.models import get_default_model

            model = get_default_model()
        prefix, _, rest = model.partition("/")
        if rest and prefix == "litellm":
            return rest, "chat"
        if rest and prefix == "any-llm":
            return rest, "responses"
        return model, "responses" if _uses_responses(config) else "chat"
    name = type(model).__name__
    chat = "Chat" in name or "Litellm" in name or getattr(model, "api", None) == "chat_completions"
    return model, "chat" if chat else "responses"


class ToolCallIntegrityFilter:
    """A `call_model_input_filter` that sends a repaired copy of the input when it needs one.

    mode: "repair" | "report" | "raise"; on_report: called with a GuardReport per request needing repair;
    provider: the target provider when the model does not name one (e.g. a custom Model or ModelProvider).
    A healthy input comes back as the very ModelInputData passed in (same input list, same items).

    server_state: whether the model call continues a response or conversation the server stores, where
    an output may answer a call the input does not hold (kept, never dropped as a stray); only a model
    called through the Responses API can (Chat Completions, LiteLLM's too, stores nothing).  None (the
    default): read from the run (the SDK's conversation tracker: previous_response_id, conversation_id,
    auto_previous_response_id).  When the run cannot be read (the filter called outside a run, or an SDK
    whose run loop this guard does not know), a request that opens with outputs whose calls it does not
    hold (the shape of a model call continuing a stored response: the new outputs come first) is taken to
    continue one, they are kept, and a warning is logged once: dropping the output of a stored call breaks
    a run that works and loses the result, where keeping a stray only leaves the request as the SDK made
    it.  An output without its call after the request's first message is a stray there too.  True: always
    taken to continue stored state; False: never (an output without its call is a stray).
    """

    def __init__(self, *, mode: GuardMode = "repair", on_report: Callable[[GuardReport], Any] | None = None,
                 provider: str | None = None, session: Any = None, server_state: bool | None = None,
                 logger: logging.Logger | None = None) -> None:
        if server_state is not None and not isinstance(server_state, bool):
            raise TypeError(f"server_state must be True, False or None, not {server_state!r}")
        self.guard = RequestGuard("openai-agents", mode=mode, on_report=on_report, provider=provider, logger=logger)
        self.memo = HealthyMemo()  # the last healthy request: the next one is read from where it ends
        self.session = session
        self.server_state = server_state
        self._doubted = False  # whether the unread-run warning was logged
        self._targets: tuple[tuple[Any, ...], tuple[str | None, Literal["chat", "responses"]]] | None = None
        # the last (what decides the target, (the target, the API))

    def target(self, agent: Any, config: Any = None) -> str | None:
        """The provider the agent's model call goes to in a run with `config` (its RunConfig, when known)."""
        return self._route(agent, config)[0]

    def _route(self, agent: Any, config: Any) -> tuple[str | None, Literal["chat", "responses"]]:
        """(the target, the API the SDK calls), remembered for the last agent, model, run and default API
        seen (the filter runs before every model call of a run, with the same ones)."""
        override = None if config is None else getattr(config, "model", None)  # _called_model, inline
        model = override if override is not None else getattr(agent, "model", None)
        flag = None
        if model is None or isinstance(model, str):  # `_uses_responses`, inline for the run's provider's flag
            provider = None if config is None else getattr(config, "model_provider", None)
            flag = getattr(getattr(provider, "openai_provider", provider), "_use_responses", None)
            if not isinstance(flag, bool):
                flag = _uses_responses(config)
        known = self._targets
        if known is not None:
            seen = known[0]
            if seen[0] is agent and seen[1] is model and seen[2] is config and seen[3] is flag:
                return known[1]
        name: Any = None
        api: Literal["chat", "responses"] = "responses"
        if model is not None or agent is not None:
            name, api = _route(model, config)
        route = (self.guard.target(name, api), api)
        self._targets = ((agent, model, config, flag), route)
        return route

    def __call__(self, data: Any, run: tuple[Any, Any] | None = None) -> Any:
        """The filter: CallModelData -> ModelInputData (the SDK awaits nothing when this is used sync).  run: the
        (RunConfig, frame) pair async_filter found before its awaits; else found here.  The healthy request's
        path is this method's own (every model call's: a call fewer than handing it on)."""
        config, frame = _find_run() if run is None else run
        model_data = data.model_data
        items = model_data.input
        target, api = self._route(getattr(data, "agent", None), config)
        scanned = self.memo.first(items, FORMAT, target)
        if scanned is not None and scanned[0]:
            return model_data
        return self._unhealthy(model_data, items, target, api, scanned, config, frame)

    def _unhealthy(self, model_data: Any, items: Any, target: str | None, api: Literal["chat", "responses"],
                   scanned: tuple[bool, int, list[str]] | None, config: Any, frame: Any) -> Any:
        """The filter for a request the quick pass did not find plainly healthy (scanned: its answer, None while
        a repair is remembered): the repaired input, or `model_data` as it is."""
        envelope = self._envelope(items, config, frame) if api == "responses" else None
        repaired = self.guard.guard_objects(items, FORMAT, _dicts, FORMAT, target, scanned, memo=self.memo,
                                            envelope=envelope)
        if repaired is None:
            return model_data
        from agents.run_config import ModelInputData

        return ModelInputData(input=repaired, instructions=model_data.instructions)

    def _envelope(self, items: Sequence[Any], config: Any, frame: Any) -> dict[str, str] | None:
        """The stored state a Responses request that is not plainly healthy continues, told to the engine so
        an output of a stored call is kept (see server_state); None when it continues none."""
        if self.server_state is False:
            return None
        known, envelope = _run_state(frame, config)
        if envelope:
            return envelope
        if self.server_state is None and known:
            return None
        if not _answers_unseen_call(items, leading=self.server_state is None):
            return None  # nothing to keep: the request is repaired as usual
        if self.server_state is None and not self._doubted:
            self._doubted = True
            self.guard.logger.warning(
                "integrity guard [openai-agents]: the SDK run calling the filter could not be read, so whether "
                "the request continues a response the server stores is not known; the outputs it opens with, "
                "whose calls are not in it, are kept (ToolCallIntegrityFilter(server_state=False) drops them)")
        return {"previous_response_id": _UNSEEN}

    async def async_filter(self, data: Any) -> Any:
        """The filter as a coroutine function; with a session, the calls the SDK dropped from it are restored
        first (read with `session.get_items()`) and then answered like any dangling call."""
        config, frame = _find_run()  # before any await: the run's frames are above this one now
        try:
            if self.session is not None and self.guard.mode == "repair":
                stored = list(await self.session.get_items())
                known, limit = _session_read(self.session, config)
                restored = restore_dropped_calls(list(data.model_data.input), stored,
                                                 whole=known and limit is None, limit=limit)
                if restored is not None:
                    from agents.run_config import CallModelData, ModelInputData

                    data = CallModelData(model_data=ModelInputData(input=restored,
                                                                   instructions=data.model_data.instructions),
                                         agent=data.agent, context=data.context)
            return self(data, (config, frame))
        finally:
            del frame  # the caller's frames are not kept by this coroutine's frame


def _session_read(session: Any, config: Any) -> tuple[bool, int | None]:
    """(whether it is known how the SDK read the session into the input, the item limit it read with: None
    for the whole session).  Known only from the run's RunConfig (its `session_settings` overlay the
    session's own), and not when a `session_input_callback` reshapes the history."""
    if config is None or getattr(config, "session_input_callback", None) is not None:
        return False, None
    limit = getattr(getattr(session, "session_settings", None), "limit", None)
    override = getattr(config, "session_settings", None)
    override_limit = override.get("limit") if isinstance(override, dict) else getattr(override, "limit", None)
    limit = override_limit if override_limit is not None else limit
    return True, limit if isinstance(limit, int) else None


def restore_dropped_calls(items: list[Any], stored: list[Any], whole: bool = False, limit: int | None = None
                          ) -> list[Any] | None:
    """`items` with the calls the SDK dropped from the session put back (None when none is).

    A call is restored when the session stored it, nothing answers it (in the session or the input) and
    it is missing from `items`; the reasoning items just before it, which the SDK drops with it, go back
    with it.  Only calls from the part of the session the SDK put into this input are restored, each
    between the items that surround it in the session: the session's items from some point on (the
    window) must be `items`' own, in order, but for what the SDK leaves out (the dropped calls and their
    reasoning; with a session limit, outputs of calls before the window, and earlier duplicates of an
    output).  whole: the SDK read the whole session (the window starts at its first item); else the
    window is not known, and calls are restored only when every window that fits agrees on them.
    limit: the SDK read at most that many items (the window then starts no earlier than that many, and
    the items stored since, which are in `items`, before the end).
    """
    answered = {_output_id(item) for item in (*stored, *items) if _field(item, "type") in _OUTPUTS}
    present = {_field(item, "call_id") for item in items if str(_field(item, "type") or "").endswith("_call")}

    def dropped(item: Any) -> bool:
        return isinstance(item, dict) and str(item.get("type") or "").endswith("_call") and \
            isinstance(item.get("call_id"), str) and item["call_id"] not in answered and item["call_id"] not in present

    if not any(dropped(item) for item in stored):
        return None
    first = 0 if limit is None else max(0, len(stored) - limit - len(items))
    plans = [plan for start in ([0] if whole else range(first, len(stored)))
             if (plan := _aligned(stored, start, items, dropped)) is not None]
    if not plans or any(plan != plans[0] for plan in plans[1:]) or not plans[0]:
        return None
    out: list[Any] = []
    at = 0
    for position, restored in plans[0]:
        out.extend(items[at:position])
        out.extend(restored)
        at = position
    out.extend(items[at:])
    return out


def _aligned(stored: list[Any], start: int, items: list[Any], dropped: Callable[[Any], bool]
             ) -> list[tuple[int, list[Any]]] | None:
    """The calls to restore if stored[start:] (the window) is the part of the session the SDK put at the
    start of `items`: (where in `items`, the reasoning and call that go there), in order; None when it is not."""
    end_of = len(stored)
    if start >= end_of:
        return None
    called: set[Any] | None = None  # the window's call ids, gathered when an output is not in `items`
    plan: list[tuple[int, list[Any]]] = []
    at = 0
    index = start
    while index < end_of:
        item = stored[index]
        if at < len(items) and items[at] == item:
            at += 1
            index += 1
            continue
        end = index
        while end < end_of and _field(stored[end], "type") == "reasoning":
            end += 1  # reasoning items go with the call after them (the SDK drops them together)
        if end < end_of and dropped(stored[end]):
            if stored[end].get("type") in _RESTORED:
                plan.append((at, stored[index:end + 1]))
            index = end + 1
            continue
        if end == index and _field(item, "type") in _OUTPUTS:
            if called is None:
                called = {_field(entry, "call_id") for entry in itertools.islice(stored, start, None)
                          if str(_field(entry, "type") or "").endswith("_call")}
            if _left_out(item, stored, index, called):
                index += 1
                continue
        return None
    return plan


def _left_out(item: Any, stored: list[Any], index: int, called: set[Any]) -> bool:
    """An output the SDK may leave out of the input: its call is not in the window (a session limit cut it
    off), or a later output answers the same call (the SDK keeps the latest)."""
    call_id = _output_id(item)
    kind = _field(item, "type")
    return call_id not in called or any(_field(later, "type") == kind and _output_id(later) == call_id
                                        for later in itertools.islice(stored, index + 1, None))


def _dicts(entries: list[Any]) -> list[Any]:
    """The entries as the dicts they are sent as (guard_objects dumps only the part it repairs)."""
    return [entry if isinstance(entry, dict) else _dump(entry) for entry in entries]


def _dump(item: Any) -> Any:
    """A pydantic input item (a ResponseOutputMessage the caller passed back) as the dict the API gets."""
    dump = getattr(item, "model_dump", None)
    return dump(exclude_unset=True, mode="json") if dump is not None else item
