"""Telling formats apart, and saying so plainly when we cannot.

Detection first looks for evidence: something only one format writes (a pi-ai
`toolResult` role, Chat's `tool_calls`, Responses' `function_call` items, a Codex
rollout's `response_item` lines...).  A format that refines another (SWE-agent and
Inspect messages are Chat messages with fields of their own) wins over the one it
refines.  When no format shows evidence, the entries carry no tool call in any
reading: a plain text chat.  Every format that fits it reads the same messages and
reaches the same verdict, so one is picked (pi-ai, else openai-chat, anthropic,
openai-responses, in that order) and the choice is said, never refused.  More than
one candidate with evidence is ambiguous: guessing would silently mis-pair tool
calls, so we ask the user to name the format instead.

A pasted request body is looked at before its entries (integrity.formats.envelope):
its envelope names the provider formats it can be, and the entries only decide among
those; pi-ai, which reads almost any message list, cannot take a provider request.

When nothing fits, or what was read holds no message, the error names the formats
that came closest and why they failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..loading import TranscriptError, describe_value
from .envelope import implied

_TEXT_ONLY_ORDER = ("pi-ai", "openai-chat", "anthropic", "openai-responses")


def _refined(adapters: Sequence[Any], found: list[str]) -> list[str]:
    """Drop a format when a more specific one that refines it is also a candidate."""
    by_name = {a.NAME: a for a in adapters}
    general = {getattr(by_name[name], "REFINES", None) for name in found}
    return [name for name in found if name not in general]


def candidates(adapters: Sequence[Any], entries: list[Any], envelope: dict[str, Any]) -> tuple[list[str], str]:
    """The formats that could have written these entries, and how we know ('evidence' or 'fit')."""
    evident = [a.NAME for a in adapters if _fits_with_evidence(a, entries, envelope)]
    if evident:
        return _refined(adapters, evident), "evidence"
    loose = [a.NAME for a in adapters if a.evidence(entries, envelope)]
    if loose:
        return _refined(adapters, loose), "evidence"
    fitting = [a.NAME for a in adapters if entries and _all_fit(a, entries)]
    # Without evidence a refinement (SWE-agent, Inspect) is only its general format read again.
    by_name = {a.NAME: a for a in adapters}
    return [n for n in fitting if getattr(by_name[n], "REFINES", None) not in fitting], "fit"


def _fits_with_evidence(adapter: Any, entries: list[Any], envelope: dict[str, Any]) -> bool:
    """Whether every entry fits the format and something only it writes is there.

    Fit first: a format that does not fit stops at its first foreign entry, while looking for
    evidence in a format that has none reads every entry (the same answer, a tenth of the time).
    A refinement (a Cline SDK session of Anthropic messages, a JS Agents SDK history of Responses
    items) fits every file of the format it refines, so its evidence, rarely there, is looked for first.
    """
    if getattr(adapter, "REFINES", None):
        return bool(adapter.evidence(entries, envelope)) and _all_fit(adapter, entries)
    return _all_fit(adapter, entries) and bool(adapter.evidence(entries, envelope))


def _all_fit(adapter: Any, entries: list[Any]) -> bool:
    return all(adapter.fits(entry) for entry in entries)


def by_envelope(adapters: Sequence[Any], entries: list[Any], envelope: dict[str, Any],
                key: str) -> tuple[list[str], str, str]:
    """The formats a request envelope allows that fit every entry: (formats, how, what the envelope holds).

    how is 'evidence' when some of them show it (only those are returned), 'fit' when none
    does (most likely first).  ([], "", "") when the envelope is no request or no format it
    allows fits the entries: ordinary detection decides then.

    As in `candidates`, evidence outweighs fit: when no allowed format both fits and shows
    evidence, one that shows evidence (without fitting every entry) is taken before one that only
    fits.  A Mistral request's assistant message holds Chat's `tool_calls` and a `thinking` chunk
    Chat's part types do not list; Anthropic's blocks fit it, but read as Anthropic its chunk list
    was malformed and Mistral's request judged as Anthropic's (recorded 200, pydantic-ai
    `test_mistral_model_thinking_part`).
    """
    allowed, said = implied(envelope, key)
    if not allowed or not entries:
        return [], "", ""
    rank = {name: position for position, name in enumerate(allowed)}
    mine = [a for a in adapters if a.NAME in rank or getattr(a, "REFINES", None) in rank]
    evident = _refined(adapters, [a.NAME for a in mine if _fits_with_evidence(a, entries, envelope)])
    if evident:
        return evident, "evidence", said
    # a format's own evidence, where some entry does not fit it (a refinement must fit: see _fits_with_evidence)
    shown = [a.NAME for a in mine if a.NAME in rank and a.evidence(entries, envelope)]
    if shown:
        return sorted(shown, key=rank.__getitem__), "evidence", said
    # a refinement without evidence is only its general format read again
    plain = [a.NAME for a in mine if a.NAME in rank and _all_fit(a, entries)]
    return sorted(plain, key=rank.__getitem__), "fit", said if plain else ""


def choose_with_note(adapters: Sequence[Any], entries: list[Any], envelope: dict[str, Any], source: str,
                     names: Sequence[str], lines: Sequence[int] = (), key: str = "") -> tuple[str, str]:
    """The format, and a sentence when it was picked among equals (a text-only chat) or by its request
    envelope alone; else an error."""
    hint = f"name it with --format (one of: {', '.join(names)})"
    allowed, how, said = by_envelope(adapters, entries, envelope, key)
    if len(allowed) > 1 and how == "evidence":
        raise TranscriptError(source, "top level", f"ambiguous transcript format: its request envelope ({said}) "
                                                   f"and messages show signs of {', '.join(allowed)}; {hint}")
    if allowed:
        # With evidence the envelope and the messages agree; without, the envelope alone names it.
        return allowed[0], "" if how == "evidence" else (f"no tool calls, read as {allowed[0]}: its request "
                                                         f"envelope ({said}) says so")
    found, how = candidates(adapters, entries, envelope)
    if len(found) == 1:
        return found[0], ""
    if how == "fit" and found:
        # No format shows evidence, so there are no tool calls to mis-pair: every reading
        # gives the same messages and the same verdict.
        pick = next((name for name in _TEXT_ONLY_ORDER if name in found), found[0])
        return pick, (f"text-only chat, read as {pick}: it has no tool calls, so {', '.join(found)} "
                      "all read it the same way")
    if not found:
        if not entries:
            raise TranscriptError(source, "top level",
                                  f"the transcript has no messages, so its format is unknown; {hint}")
        raise TranscriptError(source, "top level", "unknown transcript format: no known format fits these "
                                                   f"entries ({closest(adapters, entries, lines)}); {hint}")
    problem = f"ambiguous transcript format: it shows signs of {', '.join(found)}"
    raise TranscriptError(source, "top level", f"{problem}; {hint}")


def _keys(entry: Any) -> str:
    if isinstance(entry, dict):
        keys = ", ".join(list(entry)[:6]) + (", ..." if len(entry) > 6 else "")
        return f"an object with keys {keys}" if entry else "an empty object"
    return describe_value(entry)


def closest(adapters: Sequence[Any], entries: list[Any], lines: Sequence[int] = (), limit: int = 2) -> str:
    """The formats that came closest (most entries fit) and why each failed, in one clause."""
    scored = []
    for adapter in adapters:
        misfits = [index for index, entry in enumerate(entries) if not adapter.fits(entry)]
        scored.append((len(entries) - len(misfits), adapter.NAME, misfits))
    scored.sort(key=lambda item: -item[0])
    said = []
    for fit, name, misfits in scored[:limit]:
        if fit == 0:
            continue
        if not misfits:
            said.append(f"{name}: every entry fits but none is a conversation message")
            continue
        first = misfits[0]
        where = f"entry {first}" + (f" (line {lines[first]})" if first < len(lines) and lines[first] else "")
        said.append(f"{name}: {fit} of {len(entries)} entries fit, {where} does not: {_keys(entries[first])}")
    return "closest: " + "; ".join(said) if said else "no format fits even one entry"
