"""The LangChain v1 guard: an `AgentMiddleware` that repairs the messages of every model call.

    from integrity.guards.langchain import ToolCallIntegrityMiddleware
    agent = create_agent(model, tools, middleware=[ToolCallIntegrityMiddleware()])

`create_agent` (LangGraph underneath) sends the checkpointed history as it is: a tool that raised after
its call was checkpointed leaves a dangling call, a summarization can leave orphan results, and the
provider refuses every later turn.  The middleware's `wrap_model_call` / `awrap_model_call` read the
request's messages (LangChain messages, read as `messages_to_dict` dicts), repair a copy with the
strict policy of the provider the model goes to (ChatAnthropic/"claude-..." -> anthropic,
ChatOpenAI -> openai-chat or openai-responses, ChatGoogleGenerativeAI/"gemini-..." -> gemini), and
hand the model a request overriding only `messages`.  The graph state, and so the checkpoint, is
never changed: the next turn starts from the durable history again and is repaired again.
Calls LangChain could not parse (`invalid_tool_calls`) are calls here too, as the partner models send
them (integrity/formats/langchain.py says how they are read and written back).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import messages_from_dict, messages_to_dict

from ._core import GuardMode, GuardReport, RequestGuard, ToolCallIntegrityError, provider_for_model
from ._fast import HealthyMemo

FORMAT = "langchain"
_CLASSES = {"ChatAnthropic": "anthropic", "ChatAnthropicVertex": "anthropic", "ChatBedrock": "bedrock",
            "ChatBedrockConverse": "bedrock", "ChatGoogleGenerativeAI": "gemini", "ChatVertexAI": "gemini",
            "ChatMistralAI": "mistral", "ChatDeepSeek": "deepseek"}


def provider_for_chat_model(model: Any) -> str | None:
    """The provider a LangChain chat model sends to: from its class (ChatAnthropic...), else its model
    name; ChatOpenAI with the Responses API (use_responses_api / output_version "responses/v1") ->
    openai-responses.  A fake or unknown model gives None (the universal invariants)."""
    model = _unbound(model)  # a RunnableBinding from bind_tools
    kind = type(model).__name__
    if kind in _CLASSES:
        return _CLASSES[kind]
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    if kind in ("ChatOpenAI", "AzureChatOpenAI"):
        return "openai-responses" if _uses_responses(model) else "openai-chat"
    return provider_for_model(name) if isinstance(name, str) else None


def _unbound(model: Any) -> Any:
    """The chat model behind a RunnableBinding (bind_tools)."""
    bound = getattr(model, "bound", None)
    return bound if bound is not None and not hasattr(model, "model_name") and not hasattr(model, "model") else model


def _uses_responses(model: Any) -> bool:
    return bool(getattr(model, "use_responses_api", None)) or getattr(model, "output_version", "") == "responses/v1"


def drops_reused_calls(model: Any) -> bool:
    """Whether the chat model sends only the first of the request's calls that share an id: langchain-openai's
    Responses input (ChatOpenAI or AzureChatOpenAI on the Responses API) leaves out a tool call whose id any
    earlier item of the input already has, so a call id reused across turns loses the later call on the wire
    and its result reads as the first call's.  The guard then sends the view with the reused ids renamed."""
    model = _unbound(model)
    return type(model).__name__ in ("ChatOpenAI", "AzureChatOpenAI") and _uses_responses(model)


def _message(entry: dict[str, Any]) -> Any:
    """A LangChain message from the dict `messages_to_dict` writes (what the repair writes for a new one)."""
    return messages_from_dict([entry])[0]


class ToolCallIntegrityMiddleware(AgentMiddleware):
    """Repair the request's messages before every model call (sync and async); never the state.

    mode: "repair" | "report" | "raise"; on_report: called with a GuardReport per request needing repair;
    provider: the target provider when the model does not say it (a fake or custom chat model).
    A healthy request is handed to the model as the very same ModelRequest.
    """

    def __init__(self, *, mode: GuardMode = "repair", on_report: Callable[[GuardReport], Any] | None = None,
                 provider: str | None = None, logger: logging.Logger | None = None) -> None:
        super().__init__()
        self.guard = RequestGuard("langchain", mode=mode, on_report=on_report, provider=provider, logger=logger)
        self.memo = HealthyMemo()  # the last healthy request: the next one is read from where it ends

    def repaired_request(self, request: Any) -> Any:
        """The request to send: the same object when healthy, else one overriding `messages` with a copy.

        Fails open: an error in the guard (a repaired entry LangChain will not make a message of, say)
        sends the request as it is, logged with its traceback; only mode "raise" stops a request.
        """
        try:
            return self._repaired_request(request)
        except ToolCallIntegrityError:
            raise
        except Exception:  # noqa: BLE001 - the guard must not become the reason a model call fails
            self.guard.logger.exception("integrity guard [%s]: request sent as it is (an error in the guard)",
                                        self.guard.runtime)
            return request

    def _repaired_request(self, request: Any) -> Any:
        messages = request.messages
        target = self.guard.provider if self.guard.provider is not None else provider_for_chat_model(request.model)
        scanned = self.memo.first(messages, "langchain-objects", target)
        if scanned is not None and scanned[0]:
            return request
        repaired = self.guard.guard_objects(messages, "langchain-objects", messages_to_dict, FORMAT, target,
                                            scanned, memo=self.memo, build=_message,
                                            distinct_ids=drops_reused_calls(request.model))
        if repaired is None:
            return request
        return request.override(messages=repaired)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(self.repaired_request(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await handler(self.repaired_request(request))
