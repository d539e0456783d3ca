"""Guards for the agent runtimes people use: repair the request right before each model call.

One module per runtime, each importing its runtime only inside itself, so `import integrity.guards`
(and the engine) never needs LangChain, the OpenAI Agents SDK, LiteLLM, Google ADK or pydantic-ai:

    integrity.guards.langchain.ToolCallIntegrityMiddleware   create_agent(middleware=[...])
    integrity.guards.openai_agents.ToolCallIntegrityFilter   RunConfig(call_model_input_filter=...)
    integrity.guards.litellm.ToolCallIntegrityGuard          litellm.callbacks / the proxy's callbacks
    integrity.guards.adk.ToolCallIntegrityPlugin             App(plugins=[...]) / Runner(plugins=[...])
    integrity.guards.pydantic_ai.ToolCallIntegrityProcessor  Agent(capabilities=[...]) / ProcessHistory(...)

Every guard works on a copy of the request it is about to send, never on the stored thread,
session or checkpoint, and passes a healthy request through as the very same objects.  The
shared part (read the runtime's messages in the engine's format, check, repair with the strict
policy for the provider that receives the request, write back) is in `integrity.guards._core`.
"""

from __future__ import annotations

from ._core import (
    GuardMode,
    GuardReport,
    RequestGuard,
    RequestVerdict,
    ToolCallIntegrityError,
    provider_for_model,
    request_verdict,
)

__all__ = ["GuardMode", "GuardReport", "RequestGuard", "RequestVerdict", "ToolCallIntegrityError", "provider_for_model",
           "request_verdict"]
