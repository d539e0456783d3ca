"""Thought signatures at the model-call boundary: whether a request's current turn holds a call without one.

Gemini 3 refuses a request whose current turn (after the last user text) holds a model step whose first call
carries no thought signature (providers.gemini.unsigned_calls).  The quick pass (guards._fast) reads turn order and
ids, not signatures, so a guard asks `unsigned_tail` too before it sends a request it found plainly healthy toward
a provider that signs calls, and the full check (whose view signs such calls: repair.strict.calls_signed) decides
when it answers True.  It reads from the end, the current turn's contents alone.

Only Gemini contents hold a call that reaches the model unsigned: a runtime that writes another format's history
for Gemini (LangChain's ChatGoogleGenerativeAI, LiteLLM, pi-ai) signs what it converts, and the engine's Gemini
writer does the same (formats.gemini.build), so a guard of any other format has nothing to judge here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

_GEMINI_FORMATS = frozenset({"gemini", "gemini-objects"})


def signs(target: str | None, format: str) -> bool:
    """Whether the full check judges this request's thought signatures: a Gemini request toward a provider that signs
    calls (ProviderSpec.signs_calls: Gemini 3), or with no target (the full check then judges it by the provider its
    format implies: Gemini)."""
    return format in _GEMINI_FORMATS and _signs_calls(target)


@functools.cache
def _signs_calls(target: str | None) -> bool:
    """ProviderSpec.signs_calls of the target (None: Gemini's, the provider a Gemini request implies)."""
    from ..providers import SPECS

    found = SPECS.get("gemini" if target is None else target)
    return found is not None and found.signs_calls


def unsigned_tail(entries: Sequence[Any], format: str) -> bool:
    """Whether a model content of the current turn has a first call without a thought signature: Gemini REST dicts
    by the rule itself (providers.gemini.unsigned_calls), google.genai Content objects read as it reads them, from
    the end until a content not the model's holding a part that is no function response."""
    if format != "gemini-objects":
        from ..providers.gemini import unsigned_calls

        return bool(unsigned_calls(entries))
    for index in range(len(entries) - 1, -1, -1):
        content = entries[index]
        parts = getattr(content, "parts", None)
        if not parts:
            continue
        if getattr(content, "role", None) != "model":
            if any(getattr(part, "function_response", None) is None for part in parts):
                return False
            continue
        for part in parts:
            if getattr(part, "function_call", None) is not None:
                if not getattr(part, "thought_signature", None):
                    return True
                break
    return False
