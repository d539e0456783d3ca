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
looks one up (integrity.providers.registry).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from .spec import ProviderSpec, RoleRules
from .violation import Violation

if TYPE_CHECKING:
    from .canonical import validate, validate_recorded, with_canonical_indices
    from .registry import PROVIDER_FORMAT, PROVIDERS, SPECS, validate_native

_LAZY = {"validate": ".canonical", "validate_recorded": ".canonical", "with_canonical_indices": ".canonical",
         "PROVIDER_FORMAT": ".registry", "PROVIDERS": ".registry", "SPECS": ".registry", "validate_native": ".registry"}
"""The names that load every provider's module (the registry) on first use: `check` with no provider asked reads
only a verdict's types (providers.verdict), and never loads a rule set."""


__getattr__ = lazy_names(__name__, _LAZY)


def spec(name: str) -> ProviderSpec:
    """The spec of one provider (registry.spec); ValueError naming the known providers for any other name.  (The
    package's `spec` is this function, never the module `providers.spec`, which is loaded above first.)"""
    from .registry import spec as registered

    return registered(name)


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
