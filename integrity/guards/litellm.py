"""The LiteLLM guard: a `CustomLogger` that repairs a request's tool-call history before it is sent.

    from integrity.guards.litellm import ToolCallIntegrityGuard
    guard = ToolCallIntegrityGuard()
    litellm.callbacks = [guard]      # SDK async calls: litellm.acompletion / aresponses / anthropic.messages.acreate
    guard.guard_sync_calls()         # SDK sync calls: litellm.completion / litellm.responses
    # proxy config.yaml:  litellm_settings: {callbacks: my_module.guard_instance}

LiteLLM's own sanitizer (`sanitize_messages_for_tool_calling`) runs only with `modify_params=True`, only
toward Anthropic, keeps the last of duplicate results and skips the `/v1/messages` pass-through.  The
guard runs on every request whatever the provider: chat completions (`messages`, OpenAI Chat shape),
`/v1/messages` (`messages`, Anthropic shape) and Responses (`input`), with the strict policy of the
provider the model name points to ("anthropic/claude-...", "gemini/...", "gpt-..." ...).

Hooks: `async_pre_call_hook` (the proxy, before routing) and `async_pre_call_deployment_hook` (the
SDK's async calls and the router, once the deployment is chosen).  Both leave the caller's dict
alone: a request needing repair continues as a shallow copy with a new message list; a healthy one
continues as the very dict (the proxy hook returns it; the deployment hook returns None, "no change").

LiteLLM 1.110's sync calls mostly run no hook that may change the request: sync `completion` (and
`text_completion`) calls neither hook itself, nor does sync `responses` with `mock_response` or toward a provider
it bridges to `litellm.completion` (Anthropic's, for one).  Only LiteLLM's sync handler of the Responses
API runs the deployment hook (`_run_sync_responses_pre_call_deployment_hook`): sync `responses` sent to a
Responses API, and sync `completion` that LiteLLM sends there (`o1-pro`, `openai/responses/...`).  So
`guard_sync_calls()` wraps `litellm.completion` and `litellm.responses` (the module attributes every
caller that writes `litellm.completion(...)` uses): the history is repaired the same way before LiteLLM
sees it, and `undo()` puts the originals back.  A request the wrapper judged is judged once: the wrapper
marks it by its `litellm_call_id` (the caller's, else a new one it passes on, as LiteLLM would make one),
and this guard's hook and wrappers pass a marked request on unread (the sync handler's hook, the Responses
bridge's `litellm.completion`).  Code that imported the function itself (`from litellm import
completion`) before the call keeps the unwrapped one; pass it through `guard.sync(completion)` instead.

A Responses request that continues a stored response or conversation (`previous_response_id`,
`conversation`) is judged with them: the output of a call the stored response holds is kept.  In mode
"raise" the guard raises `GuardRefusal`, a ToolCallIntegrityError that is also LiteLLM's
`GuardrailRaisedException`: LiteLLM passes it on as it is (sync `responses` maps any other error to an
APIConnectionError), the proxy answers it with status 400, and the router neither retries it nor falls back.
"""

from __future__ import annotations

import copy
import functools
import itertools
import logging
import operator
import threading
import uuid
from collections.abc import Callable
from typing import Any, Literal

from litellm.exceptions import GuardrailRaisedException
from litellm.integrations.custom_logger import CustomLogger

from ._core import GuardMode, GuardReport, RequestGuard, ToolCallIntegrityError
from ._fast import HealthyMemo

# call type -> (native format, the request's key holding the messages, API family for the target)
_SHAPES: dict[str, tuple[str, str, Literal["chat", "responses"]]] = {
    "completion": ("openai-chat", "messages", "chat"),
    "acompletion": ("openai-chat", "messages", "chat"),
    "anthropic_messages": ("anthropic", "messages", "chat"),
    "aanthropic_messages": ("anthropic", "messages", "chat"),
    "responses": ("openai-responses", "input", "responses"),
    "aresponses": ("openai-responses", "input", "responses"),
}


def shape_of(data: dict[str, Any], call_type: Any) -> tuple[str, str, Literal["chat", "responses"]] | None:
    """The request's native format, message key and API family, from LiteLLM's call type (an enum or its
    value); an unknown or absent call type is read from the request's keys (`input` -> Responses)."""
    value = getattr(call_type, "value", call_type)
    if isinstance(value, str) and value in _SHAPES:
        return _SHAPES[value]
    if value is not None:
        return None  # embeddings, images, files...: no tool-call history
    if isinstance(data.get("input"), list) and "messages" not in data:
        return _SHAPES["responses"]
    return _SHAPES["completion"] if isinstance(data.get("messages"), list) else None


class GuardRefusal(ToolCallIntegrityError, GuardrailRaisedException):
    """The guard's refusal (mode "raise"), raised inside LiteLLM by its hooks and its sync wrappers (which the
    router's sync calls run): a ToolCallIntegrityError (its `report`) that LiteLLM also takes for a
    guardrail's refusal.  Sync `responses` maps any other error its hook raises to an APIConnectionError,
    and the router retries any other error on every deployment (one report each); a guardrail's refusal
    is passed on as it is, and the proxy answers it with status 400."""

    def __init__(self, error: ToolCallIntegrityError) -> None:
        ToolCallIntegrityError.__init__(self, error.report)
        self.guardrail_name = "tool-call integrity"
        self.status_code = 400
        self.blocked_content = True  # the guard judged the request (not a guard that failed to answer)
        self.message = str(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (ToolCallIntegrityError(self.report),), self.__dict__


class ToolCallIntegrityGuard(CustomLogger):
    """Repair chat, `/v1/messages` and Responses requests before they reach the provider.

    mode: "repair" | "report" | "raise"; on_report: called with a GuardReport per request needing repair;
    provider: the target provider for every request (default: from each request's model name).
    """

    def __init__(self, *, mode: GuardMode = "repair", on_report: Callable[[GuardReport], Any] | None = None,
                 provider: str | None = None, logger: logging.Logger | None = None) -> None:
        super().__init__()
        self.guard = RequestGuard("litellm", mode=mode, on_report=on_report, provider=provider, logger=logger)
        self.memo = HealthyMemo()  # the last healthy request: the next one is read from where it ends
        # (litellm_call_id, thread) of every sync call the wrapper judged, while it runs: another request
        # carrying the same id (a caller's fixed id, LiteLLM's batch fan-out) runs in another thread
        self._judging: set[tuple[str, int]] = set()
        self._made: tuple[tuple[int, Any], ...] = ()  # the entries the last repair made, and where (see _own)

    def repaired(self, data: dict[str, Any], call_type: Any) -> dict[str, Any] | None:
        """None when the request may go as it is; else a shallow copy with a repaired message list."""
        shape = shape_of(data, call_type)
        if shape is None:
            return None
        format, key, api = shape
        entries = data.get(key)
        if not isinstance(entries, list):
            return None  # a Responses `input` given as one string: no history
        target = self.guard.target(data.get("model"), api)
        envelope = _stored_envelope(data) if api == "responses" else None
        # a continued request goes to the full check whole, with its envelope (the quick pass reads entries alone)
        scanned = None if envelope else self.memo.first(entries, format, target)
        if scanned is not None and scanned[0]:
            return None
        try:
            repaired = self.guard.guard_objects(entries, format, _dicts, format, target, scanned,
                                                memo=self.memo, envelope=envelope)
        except ToolCallIntegrityError as error:  # mode "raise"
            raise GuardRefusal(error) from None
        if repaired is None:
            return None
        copied = dict(data)
        copied[key] = self._own(repaired, entries)
        return copied

    def _own(self, repaired: list[Any], entries: list[Any]) -> list[Any]:
        """The repaired list with the entries the guard made (receipts, regrouped turns) copied for this request.
        The guard hands a session's next request the repair it remembered (HealthyMemo.repeat: the same
        entries, where they were), so a receipt a callback or LiteLLM changed in place in one request would
        otherwise travel into every later one.  Where the made entries are is found once per repair (the
        caller's own entries are known by identity) and checked, by identity, on every repeat of it."""
        made = self._made
        if not made or not all(at < len(repaired) and repaired[at] is entry for at, entry in made):
            # the repair keeps the caller's entries up to its first change: only what follows is read
            start = next(itertools.compress(itertools.count(), map(operator.is_not, repaired, entries)),
                         min(len(repaired), len(entries)))
            own = set(map(id, entries[start:]))
            made = self._made = tuple((at, entry) for at, entry in enumerate(repaired[start:], start)
                                      if id(entry) not in own)
        out = list(repaired)
        for at, entry in made:
            out[at] = _copied(entry)
        return out

    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: dict[str, Any],
                                  call_type: Any) -> dict[str, Any]:
        """The proxy's hook: the request to route (the same dict when healthy)."""
        found = self.repaired(data, call_type)
        return data if found is None else found

    async def async_pre_call_deployment_hook(self, kwargs: dict[str, Any], call_type: Any) -> dict[str, Any] | None:
        """The SDK's and router's hook: the repaired kwargs, or None (LiteLLM keeps its own) when healthy or
        when this guard's sync wrapper judged the request already (sync `responses` runs this hook too)."""
        if self._judged(kwargs.get("litellm_call_id")):
            return None
        return self.repaired(kwargs, call_type)

    def _judged(self, call_id: Any) -> bool:
        """Whether the request with this litellm_call_id is inside a sync call this guard's wrapper judged, in
        this thread: a sync call runs its hook and LiteLLM's Responses bridge in its own thread, while another
        request given the same id (a caller's fixed id, LiteLLM's batch_completion fan-out, an async call) runs
        in another and is judged on its own (found by a second adversarial review: it was passed on unread).
        Where LiteLLM runs the sync hook in another thread (an event loop already running), the request is
        judged twice: reported twice, never sent unjudged."""
        return isinstance(call_id, str) and (call_id, threading.get_ident()) in self._judging

    def sync(self, function: Callable[..., Any], call_type: str | None = None) -> Callable[..., Any]:
        """`function` (litellm.completion or litellm.responses, or what a caller imported of them) with the
        history it is given repaired first; the caller's list is never changed, a healthy one is passed on."""
        call_type = call_type or getattr(function, "__name__", "completion")
        if call_type not in _SYNC:
            raise ValueError(f"cannot guard {call_type!r}: only {', '.join(_SYNC)} carry a tool-call history")
        model_at, key, history_at = _SYNC[call_type]

        @functools.wraps(function)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            call_id = kwargs.get("litellm_call_id")
            if self._judged(call_id):  # LiteLLM's own call inside one judged here (its Responses bridge)
                return function(*args, **kwargs)
            positional = len(args) > history_at
            model = args[model_at] if len(args) > model_at else kwargs.get("model")
            history = args[history_at] if positional else kwargs.get(key)
            request = {"model": model, key: history}
            request.update((name, kwargs[name]) for name in (*_ENVELOPE, "extra_body") if name in kwargs)
            found = self.repaired(request, call_type)
            if found is not None:
                if positional:
                    args = (*args[:history_at], found[key], *args[history_at + 1:])
                else:
                    kwargs[key] = found[key]
            if not isinstance(call_id, str):  # LiteLLM makes one when none is given: a mark it keeps to the hook
                call_id = kwargs["litellm_call_id"] = str(uuid.uuid4())
            mark = (call_id, threading.get_ident())
            self._judging.add(mark)
            try:
                return function(*args, **kwargs)
            finally:
                self._judging.discard(mark)

        guarded.__integrity_guard__ = self  # type: ignore[attr-defined]
        return guarded

    def guard_sync_calls(self) -> Callable[[], None]:
        """Wrap `litellm.completion` and `litellm.responses` (see the module docstring); returns `undo`.
        Calling it again (this guard or another) replaces the earlier wrapping, never stacks a second."""
        import litellm

        originals = {}
        for name in _SYNC:
            current = getattr(litellm, name)
            while getattr(current, "__integrity_guard__", None) is not None:
                current = current.__wrapped__
            originals[name] = current
            setattr(litellm, name, self.sync(current, name))

        def undo() -> None:
            for name, original in originals.items():
                setattr(litellm, name, original)

        return undo


# sync call -> (position of the model, the history's keyword, its position): completion(model, messages, ...),
# responses(input, model, ...)
_SYNC: dict[str, tuple[int, str, int]] = {"completion": (0, "messages", 1), "responses": (1, "input", 0)}


# a Responses request's fields that make it draw on stored items (the engine's `continued_from`)
_ENVELOPE = ("previous_response_id", "conversation")


def _stored_envelope(data: dict[str, Any]) -> dict[str, Any] | None:
    """The fields of a Responses request (the SDK's kwargs, the proxy's body) telling that it continues a
    stored response or conversation, for the engine to judge it with; None when it has none.  Read in
    `extra_body` too, which LiteLLM sends over the request's own fields: LiteLLM 1.110's SDK sends a
    `conversation` only from there (a `conversation=` keyword is dropped)."""
    extra = data.get("extra_body")
    found = {name: value for source in (data, extra if isinstance(extra, dict) else {}) for name in _ENVELOPE
             if (value := source.get(name)) is not None}
    return found or None


def _copied(entry: Any) -> Any:
    """A deep copy of an entry the guard made (plain JSON dicts), or the entry itself when it cannot be copied."""
    try:
        return copy.deepcopy(entry)
    except Exception:  # noqa: BLE001 - an entry that cannot be copied is sent as it is, never stops the call
        return entry


def _dicts(entries: list[Any]) -> list[Any]:
    """The entries as the dicts they are sent as (guard_objects dumps only the part it repairs)."""
    return [entry if isinstance(entry, dict) else _dump(entry) for entry in entries]


def _dump(entry: Any) -> Any:
    """A LiteLLM Message object (passed back from a response) as the dict it is sent as."""
    dump = getattr(entry, "model_dump", None)
    return dump(exclude_none=True) if dump is not None else entry
