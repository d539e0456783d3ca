"""Telling formats apart, and saying so plainly when we cannot.

Detection first looks for evidence: something only one format writes (a pi-ai
`toolResult` role, Chat's `tool_calls`, Responses' `function_call` items...).  When
no format shows evidence (a plain text chat), it falls back to the formats every
entry fits, preferring pi-ai (with no tool calls there is nothing to mis-pair).
More than one candidate with evidence is ambiguous: guessing would silently
mis-pair tool calls, so we ask the user to name the format instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..loading import TranscriptError


def candidates(adapters: Sequence[Any], entries: list[Any], envelope: dict[str, Any]) -> tuple[list[str], str]:
    """The formats that could have written these entries, and how we know ('evidence' or 'fit')."""
    evident = [a.NAME for a in adapters if a.evidence(entries, envelope) and _all_fit(a, entries)]
    if evident:
        return evident, "evidence"
    loose = [a.NAME for a in adapters if a.evidence(entries, envelope)]
    if loose:
        return loose, "evidence"
    return [a.NAME for a in adapters if entries and _all_fit(a, entries)], "fit"


def _all_fit(adapter: Any, entries: list[Any]) -> bool:
    return all(adapter.fits(entry) for entry in entries)


def choose(adapters: Sequence[Any], entries: list[Any], envelope: dict[str, Any], source: str,
           names: Sequence[str]) -> str:
    """Exactly one format, or a TranscriptError that tells the user to name it."""
    found, how = candidates(adapters, entries, envelope)
    hint = f"name it with --format (one of: {', '.join(names)})"
    if len(found) == 1:
        return found[0]
    if how == "fit" and "pi-ai" in found:
        # No format shows evidence, so there are no tool calls to mis-pair: any
        # reading gives the same verdict, and pi-ai is the engine's own form.
        return "pi-ai"
    if not found:
        if not entries:
            raise TranscriptError(source, "top level",
                                  f"the transcript has no messages, so its format is unknown; {hint}")
        raise TranscriptError(source, "top level",
                              f"unknown transcript format: no known format fits these entries; {hint}")
    if how == "evidence":
        problem = f"ambiguous transcript format: it shows signs of {', '.join(found)}"
    else:
        problem = f"ambiguous transcript format: it could be {', '.join(found)}"
    raise TranscriptError(source, "top level", f"{problem}; {hint}")
