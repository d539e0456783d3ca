"""The LiteLLM guard: a `CustomLogger` that repairs a request's tool-call history before it is sent.

    from integrity.guards.litellm import ToolCallIntegrityGuard
    litellm.callbacks = [ToolCallIntegrityGuard()]          # SDK: litellm.acompletion / aresponses / ...
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
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

from litellm.integrations.custom_logger import CustomLogger

from ._core import GuardMode, GuardReport, RequestGuard
from ._fast import plainly_healthy

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
        if plainly_healthy(entries, format, target):
            return None  # the common case: one pass over the messages, nothing copied
        dumped = [entry if isinstance(entry, dict) else _dump(entry) for entry in entries]
        repaired = self.guard.guard(dumped, format, target)
        if repaired is None:
            return None
        by_id = {id(entry): original for entry, original in zip(dumped, entries, strict=True)}
        copy = dict(data)
        copy[key] = [by_id.get(id(entry), entry) for entry in repaired]
        return copy

    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: dict[str, Any],
                                  call_type: Any) -> dict[str, Any]:
        """The proxy's hook: the request to route (the same dict when healthy)."""
        found = self.repaired(data, call_type)
        return data if found is None else found

    async def async_pre_call_deployment_hook(self, kwargs: dict[str, Any], call_type: Any) -> dict[str, Any] | None:
        """The SDK's and router's hook: the repaired kwargs, or None (LiteLLM keeps its own) when healthy."""
        return self.repaired(kwargs, call_type)


def _dump(entry: Any) -> Any:
    """A LiteLLM Message object (passed back from a response) as the dict it is sent as."""
    dump = getattr(entry, "model_dump", None)
    return dump(exclude_none=True) if dump is not None else entry
