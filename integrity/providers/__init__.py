"""Provider rule sets: would this request be accepted, and if not, what would the provider say?

Each supported provider has one module that validates the message list exactly as
that provider's API receives it (its native request shape) and returns the
violations with the provider's own position syntax and error text.  Mistral and
DeepSeek take the OpenAI Chat shape but enforce their own rules, so a provider is
not the same thing as a format: `PROVIDER_FORMAT` says which native shape each
provider reads.  `validate` takes canonical pi-ai messages instead, writes them in
that shape and maps the violations back to canonical message indices.

Everything else known about a provider (native format, rule set, whether calls
need ids, rules on the order of turns, error texts) is its module's `SPEC`
(`integrity.providers.spec.ProviderSpec`); `SPECS` collects them and `spec(name)`
looks one up.
"""

from __future__ import annotations

from . import anthropic, bedrock, deepseek, deepseek_responses, gemini, mistral, openai_chat, openai_responses
from .canonical import validate, validate_recorded, with_canonical_indices
from .spec import ProviderSpec, RoleRules
from .violation import Violation, sort_violations

SPECS: dict[str, ProviderSpec] = {
    module.SPEC.name: module.SPEC
    for module in (openai_chat, openai_responses, anthropic, gemini, bedrock, mistral, deepseek, deepseek_responses)
}
"""Every supported provider's spec, by name, in the order the CLI and the reports list them."""

PROVIDERS: tuple[str, ...] = tuple(SPECS)

PROVIDER_FORMAT: dict[str, str] = {name: provider.native_format for name, provider in SPECS.items()}


def spec(name: str) -> ProviderSpec:
    """The spec of one provider; ValueError naming the known providers for any other name."""
    found = SPECS.get(name)
    if found is None:
        raise ValueError(f"unknown provider {name!r}; expected one of: {', '.join(PROVIDERS)}")
    return found


def validate_native(request: list[dict], provider: str, history: bool = False, ids: bool = False) -> list[Violation]:
    """Check a native message list (OpenAI `messages`, Responses `input`, Anthropic `messages`
    without the top-level system, Gemini `contents`, Bedrock `messages`) against one provider.

    Returns every violation found, ordered by position; an empty list means the provider's
    tool-history rules we know of accept the request.  Malformed entries never raise: they
    simply match no rule.

    history=True checks the request as a stored transcript's history: rules about
    the request being sent (Mistral's `last_role_assistant`: a request may not end
    on an assistant message) are skipped, since the next request appends a turn.
    """
    rules = spec(provider)
    if not isinstance(request, list):
        raise TypeError(f"request must be a list of native messages, got {type(request).__name__}")
    validate = rules.validate_history if history and rules.validate_history is not None else rules.validate
    found = validate(request, provider)
    if ids and rules.validate_ids is not None:
        found = found + rules.validate_ids(request, provider)
    return sort_violations(found)


__all__ = [
    "PROVIDERS",
    "PROVIDER_FORMAT",
    "SPECS",
    "ProviderSpec",
    "RoleRules",
    "Violation",
    "spec",
    "validate",
    "validate_native",
    "validate_recorded",
    "with_canonical_indices",
]
