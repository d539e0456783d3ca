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

The SDK's sync calls run no hook that may change the request (LiteLLM 1.110: the sync `client` wrapper
calls neither deployment hook; `log_pre_api_call` only observes, and `get_chat_completion_prompt` runs
only for prompt management).  So `guard_sync_calls()` wraps `litellm.completion` and
`litellm.responses` (the module attributes every caller that writes `litellm.completion(...)` uses):
the history is repaired the same way before LiteLLM sees it, and `undo()` puts the originals back.
Code that imported the function itself (`from litellm import completion`) before the call keeps the
unwrapped one; pass it through `guard.sync(completion)` instead.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, Literal

from litellm.integrations.custom_logger import CustomLogger

from ._core import GuardMode, GuardReport, RequestGuard
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
        scanned = self.memo.first(entries, format, target)
        if scanned is not None and scanned[0]:
            return None
        repaired = self.guard.guard_objects(entries, format, _dicts, format, target, scanned,
                                            memo=self.memo)
        if repaired is None:
            return None
        copy = dict(data)
        copy[key] = repaired
        return copy

    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: dict[str, Any],
                                  call_type: Any) -> dict[str, Any]:
        """The proxy's hook: the request to route (the same dict when healthy)."""
        found = self.repaired(data, call_type)
        return data if found is None else found

    async def async_pre_call_deployment_hook(self, kwargs: dict[str, Any], call_type: Any) -> dict[str, Any] | None:
        """The SDK's and router's hook: the repaired kwargs, or None (LiteLLM keeps its own) when healthy."""
        return self.repaired(kwargs, call_type)


    def sync(self, function: Callable[..., Any], call_type: str | None = None) -> Callable[..., Any]:
        """`function` (litellm.completion or litellm.responses, or what a caller imported of them) with the
        history it is given repaired first; the caller's list is never changed, a healthy one is passed on."""
        call_type = call_type or getattr(function, "__name__", "completion")
        if call_type not in _SYNC:
            raise ValueError(f"cannot guard {call_type!r}: only {', '.join(_SYNC)} carry a tool-call history")
        model_at, key, history_at = _SYNC[call_type]

        @functools.wraps(function)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            positional = len(args) > history_at
            model = args[model_at] if len(args) > model_at else kwargs.get("model")
            history = args[history_at] if positional else kwargs.get(key)
            found = self.repaired({"model": model, key: history}, call_type)
            if found is not None:
                if positional:
                    args = (*args[:history_at], found[key], *args[history_at + 1:])
                else:
                    kwargs[key] = found[key]
            return function(*args, **kwargs)

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


def _dicts(entries: list[Any]) -> list[Any]:
    """The entries as the dicts they are sent as (guard_objects dumps only the part it repairs)."""
    return [entry if isinstance(entry, dict) else _dump(entry) for entry in entries]


def _dump(entry: Any) -> Any:
    """A LiteLLM Message object (passed back from a response) as the dict it is sent as."""
    dump = getattr(entry, "model_dump", None)
    return dump(exclude_none=True) if dump is not None else entry
