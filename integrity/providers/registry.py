"""The provider registry: every provider's spec by name, and checking a native request against one.

Why a module of its own: the package's `__init__` is its face (it re-exports this and
`canonical`), and `canonical` needs the registry too; with the registry in `__init__`,
`canonical` imported its own package's face back (a cycle hidden in function-local
imports).  Here both the face and `canonical` import it, and it imports neither.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from . import anthropic, bedrock, deepseek, deepseek_responses, gemini, mistral, openai_chat, openai_responses
from .spec import ProviderSpec, RoleSet
from .violation import Violation, sort_violations

_MODULES = (openai_chat, openai_responses, anthropic, gemini, bedrock, mistral, deepseek, deepseek_responses)
"""THE REGISTRY: every provider module (each ends with its `SPEC`), in the order the CLI and the reports list
them.  A new provider is its module plus its name here (and in the import above); every surface (the CLI's
--provider, the pickers, the lessons, the glossary, "Copy as curl", triage's columns) iterates SPECS."""

SPECS: dict[str, ProviderSpec] = {
    **{module.SPEC.name: module.SPEC for module in _MODULES}, gemini.OLDER: gemini.OLDER_SPEC}
"""Every supported provider's spec, by name, in the order the CLI and the reports list them; the variants
(ProviderSpec.variant_of: some models' rules of one of them) last."""

PROVIDERS: tuple[str, ...] = tuple(name for name, found in SPECS.items() if found.variant_of is None)
"""The providers every surface lists and "all" asks."""

VARIANTS: tuple[str, ...] = tuple(name for name, found in SPECS.items() if found.variant_of is not None)
"""The variants: asked by name (`--provider gemini-2`) or chosen by a model's name (providers.models)."""

PROVIDER_FORMAT: dict[str, str] = {name: provider.native_format for name, provider in SPECS.items()}


def spec(name: str) -> ProviderSpec:
    """The spec of one provider; ValueError naming the known providers for any other name."""
    found = SPECS.get(name)
    if found is None:
        raise ValueError(f"unknown provider {name!r}; expected one of: {', '.join(PROVIDERS + VARIANTS)}")
    return found


def validate_native(request: list[dict[str, Any]], provider: str, history: bool = False,
                    ids: bool = False) -> list[Violation]:
    """Check a native message list (OpenAI `messages`, Responses `input`, Anthropic `messages`
    without the top-level system, Gemini `contents`, Bedrock `messages`) against one provider.

    Returns every violation found, ordered by position; an empty list means the provider's
    tool-history rules we know of accept the request.  Malformed entries never raise: they
    simply match no rule.

    history=True checks the request as a stored transcript's history: rules about
    the request being sent (Mistral's `last_role_assistant`: a request may not end
    on an assistant message) are skipped, since the next request appends a turn.
    ids=True also applies the provider's id rules (pattern and length: `ProviderSpec.validate_ids`).
    """
    rules = spec(provider)
    if not isinstance(request, list):
        raise TypeError(f"request must be a list of native messages, got {type(request).__name__}")
    validate = rules.validate_history if history and rules.validate_history is not None else rules.validate
    found = validate(request, provider)
    if rules.roles is not None:
        found = roles_refused(request, provider, rules.roles) + found
    if ids and rules.validate_ids is not None:
        found = found + rules.validate_ids(request, provider)
    return sort_violations(found)


def roles_refused(request: list[Any], provider: str, roles: RoleSet) -> list[Violation]:
    """A `role_invalid` violation per entry whose role the provider does not take (ProviderSpec.roles).  The roles are
    gathered by C-level maps first (a million entries in some 30 ms, against 170 ms read one by one): a request of
    taken roles, nearly every one, is never walked in Python."""
    taken, folded = roles.taken, roles.folded
    try:
        seen = set(map(dict.get, request, repeat("role")))
    except TypeError:  # an entry that is no dict (a rule set reads it as malformed): read one by one
        seen = None
    if seen is not None and all(role in taken or not isinstance(role, str) or (folded and role.lower() in taken)
                                for role in seen):
        return []
    found: list[Violation] = []
    for index, entry in enumerate(request):
        role = entry.get("role") if isinstance(entry, dict) else None
        if isinstance(role, str) and role not in taken and not (folded and role.lower() in taken):
            found.append(Violation(provider=provider, rule="role_invalid", position=roles.position.format(index=index),
                                   native_indices=[index],
                                   error=roles.error.format(role=role, index=index + roles.from_one)))
    return found
