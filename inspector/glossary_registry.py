"""Glossary entries generated from the engine's registries: statuses, severities, providers, reasons, exit codes.

Why: a word the engine defines in a registry (a provider's rule set, a note code, an exit code, a status)
must read the same on the Glossary as on every screen, and a new registry row must get an entry without
anyone remembering to write one.  Each function returns (name, text, example, aliases) tuples; the hand-written
part of a definition sits beside the registry key it explains, and tests/test_glossary.py fails when a
registry row has none.
"""

from __future__ import annotations

import re
from typing import Any

from integrity.kinds import NOTE_SEVERITIES, SEVERITY_WORDS, UNIVERSAL_NOTES, Severity
from integrity.notes import Note, NoteCode, render
from integrity.pipeline import Status

Entry = tuple[str, str, str, tuple[str, ...]]
"""(name, text, example, aliases) of one generated entry."""

STATUS_TEXT: dict[Status, tuple[str, str]] = {
    Status.HEALTHY: ("Nothing fails for the provider that judges the transcript (the target provider, else the "
                     "universal invariants): `check` exits 0. The verdict is rated by the target alone: it reads "
                     "the same whoever else is asked.", "healthy: 5 messages, 2 calls, "
                     "every call answered once, right after its frame"),
    Status.REPAIRED: ("Something fails, and the view changes it: `repair` writes the view; `check` exits 1 on "
                      "the file as recorded.", "repaired: 1 moved, 1 interrupted frame(s) dropped"),
    Status.FINDINGS: ("Something fails that the policy leaves in place (a malformed entry, a stray the reference "
                      "keeps): `check` exits 1 and the view does not fix it.",
                      "unchanged (malformed): 1 finding(s) the policy leaves in place"),
    Status.REJECTED_AS_RECORDED: ("The judging provider refuses the file's shape as recorded for nothing the view "
                                  "changes (a user message right after tool results, which Bedrock refuses, under "
                                  "a policy that plans no provider's order of turns): `check` exits 1.",
                                  "would be rejected: ...; rejected as recorded by bedrock"),
    Status.UNREADABLE: ("The file cannot be read as a transcript: one error line naming file, position and "
                        "problem; `check` exits 2.", "session.jsonl: line 3: not JSON"),
    Status.ABANDONED: ("A branch a rewind left in a session tree: it is never sent to the model again, so it "
                       "is listed and not judged.", "session.jsonl#branch:2 · abandoned branch"),
    Status.COMPACTED: ("The part of a session a compaction replaced by its summary (a Codex rollout's items "
                       "before a `compacted` line, a pi session's messages before the first entry its last "
                       "compaction keeps): the runtime never sends it to the model again, so it is listed and "
                       "not judged.", "rollout.jsonl#compacted:1 · compacted away"),
}
"""What each status word means (the Status enum is the registry; tests fail for a status without text)."""

NOTE_EXAMPLES: dict[NoteCode, dict[str, Any]] = {
    NoteCode.ID_SHARED_IN_TURN: {"ids": ["call_0"]},
    NoteCode.RESULT_WITHOUT_STRING_ID: {},
    NoteCode.RESULT_BEFORE_CALL: {},
    NoteCode.RESULT_WITHOUT_CALL: {"call_id": "call_gone"},
    NoteCode.RESULT_PAIRED_BY_NAME: {"call_id": "", "frame": 1, "tool": "search", "result_id": ""},
    NoteCode.RESULT_PAIRED_BY_ORDER: {"call_id": "call_a", "frame": 1},
    NoteCode.RECEIPT_REPLACED_BY_REAL: {"call_id": "call_a", "real": 3},
    NoteCode.SECOND_RESULT: {"call_id": "call_a", "kept": 2},
    NoteCode.FRAME_SPLITS_RESULTS: {"frame": 1},
    NoteCode.FRAME_EMPTY: {},
    NoteCode.FRAME_DROPPED_BY_REFERENCE: {"stop": "stopReason 'aborted'"},
    NoteCode.FRAME_SUPERSEDED: {"following": "#4 assistant", "provider": "bedrock"},
    NoteCode.REAL_RESULT_AFTER_RECEIPT: {"call_id": "call_a", "kept": 2},
    NoteCode.LATER_DUPLICATE: {"call_id": "call_a", "kept": 2},
    NoteCode.STRAY: {"call_id": "call_gone"},
    NoteCode.MOVED: {"index": 3, "view_index": 2},
    NoteCode.REORDERED: {"index": 3, "view_index": 2},
    NoteCode.RENAMED: {"ids": {"call_0": "call_0_2"}},
    NoteCode.NUMERIC_IDS_AS_TEXT: {"ids": ["7"]},
    NoteCode.ARGUMENTS_REPLACED: {"recorded": ['{"path": "sr']},
    NoteCode.CALLS_PUT_LAST: {"provider": "anthropic"},
    NoteCode.BLANK_TEXT_LEFT_OUT: {"provider": "anthropic"},
    NoteCode.BLANK_MESSAGE_LEFT_OUT: {"provider": "anthropic"},
    NoteCode.ERROR_SENT_AS_TEXT: {"provider": "anthropic"},
    NoteCode.TOOL_NAME_FIXED: {"provider": "openai-chat", "limit": 64, "chars": "a-zA-Z0-9_-", "names": [[201, 38]]},
    NoteCode.CALL_SIGNED: {"provider": "gemini", "signature": "skip_thought_signature_validator"},
    NoteCode.TEXT_CUT: {"provider": "openai-chat", "limit": 10_485_760},
    NoteCode.REASONING_SENT_ONCE: {"provider": "openai-responses", "ids": ["rs_68a1f0c2"]},
    NoteCode.IMAGES_MOVED: {"provider": "openai-chat"},
    NoteCode.IMAGES_LEFT_OUT: {"provider": "deepseek"},
    NoteCode.RESHAPED: {"changes": ['messages[3].content: null → ""']},
    NoteCode.MERGED: {"carrier": 4},
    NoteCode.MERGED_INTO: {"provider": "bedrock", "role": "user", "members": [3, 4], "carrier": 4},
    NoteCode.CARRIES_MERGED: {"provider": "bedrock", "members": [3]},
    NoteCode.START_WITH_USER: {"provider": "bedrock", "first": "#0 toolResult"},
    NoteCode.START_NOT_WITH_CALL: {"provider": "gemini", "first": "#0 assistant"},
    NoteCode.REPLY_AFTER_RESULTS: {"provider": "bedrock", "user": "#3"},
    NoteCode.IMAGES_CARRIED: {"provider": "openai-chat", "results": [2, 3]},
}
"""Example values for each reason's sentence; a reason without any (one added to integrity.notes since) is
shown with its placeholders (`<call_id>`), so a new reason has its entry without an edit here."""


class _Placeholders(dict[str, Any]):
    """Params that name every value a template asks for: `<call_id>`."""

    def __missing__(self, key: str) -> str:
        return f"<{key}>"


def reason_example(code: NoteCode) -> str:
    """The sentence the report shows for a reason, with example values (or its placeholders)."""
    if code in NOTE_EXAMPLES:
        return render(Note(code, NOTE_EXAMPLES[code]))
    try:
        return render(Note(code, _Placeholders()))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):  # a template that computes on a value
        return f"(the sentence for {code.value})"


def status_entries() -> list[Entry]:
    """'status: healthy', read also as 'healthy' ('findings' is the plural of the kind 'finding': not an alias)."""
    return [(f"status: {status.value}", *STATUS_TEXT[status], () if status == Status.FINDINGS else (status.value,))
            for status in Status]


def severity_entries() -> list[Entry]:
    return [(severity.value, *SEVERITY_WORDS[severity], ()) for severity in Severity]


def reason_name(code: NoteCode) -> str:
    """'frame_splits_results' -> 'reason: frame splits results' (a reason's glossary name)."""
    return "reason: " + code.value.replace("_", " ")


def reason_entries() -> list[Entry]:
    """One entry per note code: the sentence the report shows (with example values) and how bad it is."""
    entries: list[Entry] = []
    for code in NoteCode:
        rejected, otherwise = NOTE_SEVERITIES[code]
        rated = (f"Severity {rejected.value}" if rejected == otherwise else
                 f"Severity {rejected.value} when the judging provider refuses the transcript as recorded "
                 f"(with no target, when a universal invariant demands it), {otherwise.value} when it accepts "
                 f"it" + ("" if code in UNIVERSAL_NOTES else f" (and with no target: {otherwise.value})"))
        entries.append((reason_name(code), f"A reason the report gives for what happened to one message. {rated}.",
                        reason_example(code), ()))
    return entries


def provider_entries() -> list[Entry]:
    """One entry per provider of the registry: its API, the shape it reads, its rules on turns and ids, its
    endpoint and the link to its API reference (all from its ProviderSpec)."""
    from integrity.providers import SPECS

    entries: list[Entry] = []
    for name, spec in SPECS.items():
        parts = [f"{spec.title}: reads requests in the {spec.native_format} shape."]
        if spec.variant_of is not None:
            parts.append(f"A variant of {spec.variant_of}: its rules for the models named "
                         + ", ".join(f"`{pattern}`" for pattern in spec.model_prefixes)
                         + " (chosen by the model a request names, or asked by name; `all` does not ask it).")
        if spec.role_rules is not None:
            parts.append(f"Turn rule: {spec.role_rules.why}.")
        if spec.id_rule is not None:
            parts.append(f"Id rule: {spec.id_rule.why}.")
        if not spec.needs_call_ids:
            parts.append("Calls need no ids: it pairs results by order.")
        parts.append("Its rule set's errors: " + ", ".join(f"`{rule}`" for rule in spec.errors) + ".")
        parts.append(f"Requests go to {spec.endpoint.url}; API reference: {spec.endpoint.docs}.")
        rule, template = next(iter(spec.errors.items()))
        entries.append((name, " ".join(parts), f"{rule}: {template}", (spec.title,)))
    return entries


def exit_code_entries() -> list[Entry]:
    """One entry per exit code, parsed from the CLI's own EXIT_CODES text (what `--help` prints)."""
    from integrity.cli import EXIT_CODES

    found: list[tuple[str, str]] = []
    for line in EXIT_CODES.splitlines()[1:]:
        head = re.match(r"\s{2}(\d+)\s+(.*)", line)
        if head:
            found.append((head.group(1), head.group(2).strip()))
        elif found:
            found[-1] = (found[-1][0], f"{found[-1][1]} {line.strip()}")
    entries: list[Entry] = []
    for code, text in found:
        more = re.match(r"(.*?),\s*(\d+)\s+(.*)$", text)  # "130 interrupted (SIGINT), 143 terminated (SIGTERM)..."
        if more and code == "130":
            entries.append((f"exit code {code}", more.group(1) + ": " + text.split(": ", 1)[-1],
                            f"python3 -m integrity check big.jsonl  (Ctrl+C)  ->  exit {code}", ()))
            entries.append((f"exit code {more.group(2)}", more.group(3),
                            f"kill <pid>  ->  exit {more.group(2)}", ()))
            continue
        entries.append((f"exit code {code}", text[0].upper() + text[1:], f"python3 -m integrity check a.json; "
                        f"echo $?  ->  {code}", ()))
    return entries
