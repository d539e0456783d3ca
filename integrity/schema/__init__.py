"""Schema findings: every entry that breaks its format's schema, at its native position.

The readers are forgiving on purpose: they read on past a malformed entry so the
rest of a transcript can still be checked and repaired.  This package says what
they forgave.  Each format family has a small module of input models (msgspec
structs, whose errors a small walker lists: integrity.schema.base)
that validates the native entries a Transcript keeps (`Transcript.native`), and
the canonical pi-ai messages every reader produces are checked too (`pi_ai`), so
what a reader normalized into something the engine cannot trust (a result that
names no call, say) is still reported, at the native entry it came from.

Every finding has severity `malformed` (integrity.kinds): a report with one is
never healthy.  Positions are native: the entry's index and line, and a JSON path
into the file (`[2].content[0].id`, `messages[2].role`; for JSONL, the line and the
path inside that line's entry).
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

from .._findings import Finding
from ..kinds import FINDINGS, FindingCode
from ..loading import describe_value
from . import anthropic, claude_code, codex, gemini, inspect_ai, langchain, openai, pi_ai
from .base import Issue, json_input

if TYPE_CHECKING:
    from ..loading import Transcript

__all__ = ["Issue", "family", "schema_findings", "schema_issues"]


def family(format: str) -> ModuleType | None:
    """The schema module of a format (None for a format without native checks: the canonical check still runs)."""
    families: dict[str, ModuleType] = {
        "pi-ai": pi_ai, "openai-chat": openai, "openai-responses": openai, "anthropic": anthropic,
        "bedrock": anthropic, "gemini": gemini, "langchain": langchain, "claude-code": claude_code,
        "swe-agent": openai, "mini-swe-agent": openai, "inspect": inspect_ai,
        "codex": codex,
    }
    return families.get(format)


def schema_issues(transcript: Transcript) -> list[Issue]:
    """Every malformed spot of a transcript, as issues on its native entries, in entry order."""
    native = transcript.native or transcript.messages
    issues: list[Issue] = []
    module = family(transcript.format)
    with json_input(transcript.json_typed):
        if module is not None:
            if module is pi_ai:
                issues.extend(pi_ai.check_messages(native))
            else:
                issues.extend(module.check_entries(transcript.format, native, transcript.envelope))
        if transcript.format != "pi-ai":
            issues.extend(_canonical_issues(transcript, issues))
    issues.extend(_untyped_messages(transcript.format, native))
    issues.sort(key=lambda issue: issue.entry)
    return issues


# Session formats whose lines say by their `type` whether they hold a message, and the key that holds it.
_TYPED_LINES = {"claude-code": "message", "pi-session": "message", "openclaw": "message", "codex": "payload"}


def _untyped_messages(format: str, entries: list[Any]) -> list[Issue]:
    """Lines that hold a message but no string kind: the reader (like the runtime) reads them as
    bookkeeping, so the message is not in the transcript; say so instead of dropping it unseen.

    A line holding a message object without a string `type`, or an OpenHands event whose `action`
    or `observation` is not a string.  A line of an unknown string kind is left alone: runtimes add
    new bookkeeping kinds all the time."""
    key = _TYPED_LINES.get(format)
    out = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        if key is not None and isinstance(entry.get(key), dict):
            field, holds = "type", f"holds a message in '{key}' but"
        elif format == "openhands" and "role" not in entry:
            field = next((name for name in ("action", "observation") if name in entry), "")
            holds = "is an event, but"
        else:
            continue
        kind = entry.get(field)
        if not field or isinstance(kind, str):
            continue
        said = f"has no '{field}'" if kind is None else f"its '{field}' is {describe_value(kind)}, not a string"
        out.append(Issue(FindingCode.NOT_A_MESSAGE, index, field,
                         f"the line {holds} {said}: it is not read as a message, so the transcript is "
                         "checked without it"))
    return out


def _canonical_issues(transcript: Transcript, found: list[Issue]) -> list[Issue]:
    """What the canonical messages of another format still get wrong, at their native entries.

    An entry already reported for the same code natively is not reported again.
    """
    entries = transcript.entries
    seen = {(issue.entry, issue.code) for issue in found}
    out: list[Issue] = []
    for issue in pi_ai.check_messages(transcript.messages, canonical=True):
        entry = entries[issue.entry] if issue.entry < len(entries) else issue.entry
        if (entry, issue.code) in seen:
            continue
        seen.add((entry, issue.code))
        out.append(Issue(issue.code, entry, "", f"read as pi-ai: {issue.detail}"))
    return out


def schema_findings(transcript: Transcript) -> list[Finding]:
    """The schema findings of a transcript (see the module docstring)."""
    issues = schema_issues(transcript)
    if not issues:
        return []
    canonical: dict[int, list[int]] = {}
    if transcript.entries:
        for index, entry in enumerate(transcript.entries):
            canonical.setdefault(entry, []).append(index)
    else:
        canonical = {index: [index] for index in range(len(transcript.messages))}
    return [_finding(issue, transcript, canonical.get(issue.entry, [])) for issue in issues]


def _finding(issue: Issue, transcript: Transcript, indices: list[int]) -> Finding:
    """One issue as a report finding; indices: the canonical messages read from its entry."""
    lines = transcript.native_lines if transcript.native else transcript.lines
    line = lines[issue.entry] if issue.entry < len(lines) and lines[issue.entry] else None
    container = transcript.container
    if container == "jsonl":
        path = issue.path or None
        where = f"entry {issue.entry}" + (f" (line {line})" if line else "")
    else:
        base = f"[{issue.entry}]" if container == "array" else f"{transcript.key}[{issue.entry}]"
        path = base + (f".{issue.path}" if issue.path else "")
        where = f"message {issue.entry}" + (f" (line {line})" if line else "")
    return Finding(kind=issue.code, severity=FINDINGS[issue.code].severity, durable_indices=indices,
                   call_id=None, message=f"{where}: {issue.detail}", entry=issue.entry, line=line, path=path)
