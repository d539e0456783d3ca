"""Provider rule sets: would this request be accepted, and if not, what would the provider say?

Each supported provider has one module that validates the message list exactly as
that provider's API receives it (its native request shape) and returns the
violations with the provider's own position syntax and error text.  Mistral and
DeepSeek take the OpenAI Chat shape but enforce their own rules, so a provider is
not the same thing as a format: `PROVIDER_FORMAT` says which native shape each
provider reads.  `validate` takes canonical pi-ai messages instead, writes them in
that shape and maps the violations back to canonical message indices.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from . import anthropic, bedrock, deepseek, gemini, mistral, openai_chat, openai_responses
from .canonical import validate, with_canonical_indices
from .violation import Violation, sort_violations

PROVIDERS: tuple[str, ...] = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "deepseek",
)

PROVIDER_FORMAT: dict[str, str] = {
    "openai-chat": "openai-chat",
    "openai-responses": "openai-responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "bedrock",
    "mistral": "openai-chat",
    "deepseek": "openai-chat",
}

_RULE_SETS: dict[str, Callable[[Sequence[Any], str], list[Violation]]] = {
    "openai-chat": openai_chat.validate,
    "openai-responses": openai_responses.validate,
    "anthropic": anthropic.validate,
    "gemini": gemini.validate,
    "bedrock": bedrock.validate,
    "mistral": mistral.validate,
    "deepseek": deepseek.validate,
}


# Rule sets that have rules about the outgoing request rather than the history in it.
_HISTORY_AWARE: dict[str, Callable[..., list[Violation]]] = {"mistral": mistral.validate}


def validate_native(request: list[dict], provider: str, history: bool = False) -> list[Violation]:
    """Check a native message list (OpenAI `messages`, Responses `input`, Anthropic `messages`
    without the top-level system, Gemini `contents`, Bedrock `messages`) against one provider.

    Returns every violation found, ordered by position; an empty list means the provider's
    tool-history rules we know of accept the request.  Malformed entries never raise: they
    simply match no rule.

    history=True checks the request as a stored transcript's history: rules about
    the request being sent (Mistral's `last_role_assistant`: a request may not end
    on an assistant message) are skipped, since the next request appends a turn.
    """
    if provider not in _RULE_SETS:
        raise ValueError(f"unknown provider {provider!r}; expected one of: {', '.join(PROVIDERS)}")
    if not isinstance(request, list):
        raise TypeError(f"request must be a list of native messages, got {type(request).__name__}")
    if history and provider in _HISTORY_AWARE:
        return sort_violations(_HISTORY_AWARE[provider](request, provider, history=True))
    return sort_violations(_RULE_SETS[provider](request, provider))


__all__ = ["PROVIDERS", "PROVIDER_FORMAT", "Violation", "validate", "validate_native", "with_canonical_indices"]
