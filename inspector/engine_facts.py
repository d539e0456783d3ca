"""Facts the Lessons and the Glossary state about the engine as a whole, each computed by running the engine.

Why: "which provider refuses what", "what `repair` sends when no provider is named" and "when strict
drops an aborted frame" were sentences a newcomer checked against the rows and found wrong.  Here each
is a table the engine fills: the provider rule sets run on every lesson example, `check` on every sample,
and the strict planner on a few small cases, so the words cannot drift from what the engine does.
Evidence for a rule comes from docs/providers.md (the rule tables' "source" column, with the recorded
answers), read from the project tree.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROVIDER_DOC = ROOT / "docs" / "providers.md"


@lru_cache(maxsize=1)
def rule_evidence() -> dict[tuple[str, str], str]:
    """(provider, rule) -> the evidence docs/providers.md gives for it (its rule tables' last column)."""
    if not PROVIDER_DOC.is_file():
        return {}
    found: dict[tuple[str, str], str] = {}
    for section in re.split(r"^### ", PROVIDER_DOC.read_text(encoding="utf-8"), flags=re.M)[1:]:
        named = re.search(r"\(`([a-z-]+)`", section.splitlines()[0])
        if named is None:
            continue
        for line in section.splitlines():
            row = re.match(r"\| `([a-z_]+)` \|", line)
            if row:
                found[(named.group(1), row.group(1))] = line.strip().strip("|").split("|")[-1].strip()
    return found


@lru_cache(maxsize=1)
def refusals_by_example() -> dict[str, dict[str, list[str]]]:
    """lesson key -> provider -> the rule ids its rule set refuses the lesson's example with, as recorded."""
    from .lessons import LESSONS, verdicts_as_recorded

    return {lesson.key: {name: sorted({rule for rule, _ in said})
                         for name, said in verdicts_as_recorded(lesson).items()} for lesson in LESSONS}


def refusal_matrix() -> list[dict[str, str]]:
    """One row per lesson example, one column per provider: '✔' or the rule ids it refuses the example with."""
    from integrity.providers import PROVIDERS

    from .lessons import LESSONS

    table = refusals_by_example()
    rows = []
    for lesson in LESSONS:
        row = {"example (lesson)": f"{LESSONS.index(lesson) + 1}. {lesson.title}"}
        for name in PROVIDERS:
            rules = table[lesson.key].get(name, [])
            row[name] = "✔ accepts" if not rules else "✖ " + ", ".join(rules)
        rows.append(row)
    return rows


def rule_rows() -> list[dict[str, str]]:
    """One row per rule of every provider's rule set: its error text, which lesson examples it refuses, and its
    evidence (docs/providers.md); an id rule is checked only on a view planned for the provider."""
    from integrity.providers import SPECS

    from .lessons import LESSONS

    table = refusals_by_example()
    evidence = rule_evidence()
    titles = {lesson.key: str(LESSONS.index(lesson) + 1) for lesson in LESSONS}
    rows = []
    for name, spec in SPECS.items():
        for rule, template in spec.errors.items():
            refused = [titles[key] for key, said in table.items() if rule in said.get(name, [])]
            found = evidence.get((name, rule)) or evidence.get((spec.variant_of or name, rule), "not documented")
            rows.append({"provider": name, "rule": rule, "refuses these lesson examples": ", ".join(refused) or "—",
                         "error text": template, "evidence": found})  # (a variant's rules: its provider's evidence)
    return rows


# ----------------------------------------------------------------------------- receipts


def receipt_examples() -> list[dict[str, Any]]:
    """pi-ai results that look alike and what the engine reads them as: only `isError: true` with `details`
    exactly {ok: false, error: "interrupted"} makes a receipt; the text alone never does."""
    from integrity import is_interrupted_tool_result

    from .lessons import engine_receipts

    receipt = engine_receipts().get("strict")
    if receipt is None:
        return []
    without_details = {key: value for key, value in receipt.items() if key != "details"}
    not_error = {**receipt, "isError": False}
    other_text = {**receipt, "content": [{"type": "text", "text": "Tool call cancelled."}]}
    cases = [("the engine's receipt", receipt), ("the same, without `details`", without_details),
             ("the same, with `isError: false`", not_error), ("other text, same `isError` and `details`", other_text)]
    return [{"message": label, "read as": "a receipt" if is_interrupted_tool_result(message) else "a real result",
             "json": message} for label, message in cases]


# ----------------------------------------------------------------------------- repair without a provider


@lru_cache(maxsize=1)
def repair_defaults() -> list[dict[str, str]]:
    """Per format of the samples: whom `check` judges a file by and whom the view `repair` writes is planned for
    when no provider is named (the same call `repair` makes: check_unit with provider None, depth "view")."""
    from integrity import load
    from integrity.pipeline import check

    from .lesson_facts import judged_by

    seen: dict[str, dict[str, str]] = {}
    for path in sorted((ROOT / "sample_transcripts").glob("*.json*")):
        try:
            transcript = load(path.read_bytes(), path.name)
        except Exception:  # noqa: BLE001 - a sample that is not one transcript says nothing here
            continue
        if transcript.format in seen:
            continue
        result = check(transcript, depth="view")
        planned = result.plan.provider if result.plan is not None else None
        seen[transcript.format] = {
            "format": transcript.format, "judged by": judged_by(result.target),
            "the view repair writes is planned for": planned or "no provider (the universal invariants)",
            "sample": path.name}
    return list(seen.values())


def repair_sentence() -> str:
    """One sentence, from repair_defaults, on what `repair` sends when no provider is named."""
    rows = repair_defaults()
    own = [row for row in rows if not row["judged by"].startswith("the universal")]
    planned_own = {row["the view repair writes is planned for"] for row in own}
    if own and planned_own == {row["judged by"] for row in own}:
        first = "the view planned for the provider its format implies (Anthropic for an Anthropic request, ...)"
    elif own and all(p.startswith("no provider") for p in planned_own):
        first = ("the view planned for no provider (the universal invariants), even for a format with a provider "
                 "of its own, whose verdict still decides `check`: name it with --provider to get a view planned "
                 "for it")
    else:
        first = "the view planned as the table shows"
    return f"With no --provider, `repair` writes {first}; for a format without one, the view planned for the " \
           "universal invariants."


# ----------------------------------------------------------------------------- strict and aborted frames


def _frame_case(case: str) -> list[dict[str, Any]]:
    call: dict[str, Any] = {"role": "assistant", "stopReason": "toolUse",
            "content": [{"type": "toolCall", "id": "call_a", "name": "run", "arguments": {}}]}
    result: dict[str, Any] = {"role": "toolResult", "toolCallId": "call_a", "toolName": "run",
              "content": [{"type": "text", "text": "ok"}], "isError": False}
    aborted = {"role": "assistant", "stopReason": "aborted", "content": [{"type": "text", "text": "Stopp"}]}
    empty = {"role": "assistant", "stopReason": "aborted", "content": []}
    user = {"role": "user", "content": "go"}
    reply = {"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": "Done."}]}
    again = {**call, "content": [{"type": "toolCall", "id": "call_b", "name": "run", "arguments": {}}]}
    result_b = {**result, "toolCallId": "call_b"}
    cases: dict[str, list[dict[str, Any]]] = {
        "between a call and its result": [user, call, aborted, result, reply],
        "empty (no content), splitting nothing": [user, call, result, reply, user, empty, user],
        "with content, splitting nothing, before a user message": [user, call, result, reply, user, aborted, user],
        "with content, right before another assistant turn": [user, call, result, aborted, reply, user],
        "with content, right before an assistant turn that makes calls": [user, call, result, aborted, again,
                                                                          result_b, reply],
    }
    return cases[case]


FRAME_CASES: tuple[str, ...] = ("between a call and its result", "empty (no content), splitting nothing",
                                "with content, splitting nothing, before a user message",
                                "with content, right before another assistant turn",
                                "with content, right before an assistant turn that makes calls")


@lru_cache(maxsize=1)
def aborted_frame_table() -> list[dict[str, str]]:
    """For each case of an aborted frame (stopReason "aborted"): whether strict drops it, planned for no provider
    and for each provider, with the engine's reason.  The strict planner run on each case, nothing assumed."""
    from integrity import analyze
    from integrity.loading import Transcript
    from integrity.notes import NoteCode
    from integrity.providers import PROVIDERS

    rows = []
    for case in FRAME_CASES:
        messages = _frame_case(case)
        index = next(i for i, m in enumerate(messages) if m.get("stopReason") == "aborted")
        row = {"aborted frame": case}
        for provider in (None, *PROVIDERS):
            report = analyze(Transcript(messages, "case.json"), "strict", now=lambda: 0, provider=provider,
                             verdicts=False).report
            action = report.actions[index]
            dropped = action.kind == "dropped_interrupted_frame"
            codes = ", ".join(NoteCode(code).value for code in action.codes) if dropped else ""
            row[provider or "no provider"] = f"dropped ({codes})" if dropped and codes else \
                "dropped" if dropped else "kept"
        rows.append(row)
    return rows


def aborted_frame_sentence() -> str:
    """When strict drops an aborted frame, in words, from aborted_frame_table and the providers' turn rules."""
    table = {row["aborted frame"]: row for row in aborted_frame_table()}
    def dropping(case: str) -> list[str]:
        return [name for name, said in table[case].items() if name not in ("aborted frame", "no provider")
                and said.startswith("dropped") and not table[case]["no provider"].startswith("dropped")]

    parts = []
    if table[FRAME_CASES[0]]["no provider"].startswith("dropped"):
        parts.append("when it sits between a call and that call's result (it splits them)")
    if table[FRAME_CASES[1]]["no provider"].startswith("dropped"):
        parts.append("when it has no content at all")
    before_any, before_calls = dropping(FRAME_CASES[3]), dropping(FRAME_CASES[4])
    if before_any:
        parts.append("when the view is planned for " + ", ".join(before_any) + " and another assistant turn "
                     "follows it directly (that provider's turn rules merge consecutive assistant turns)")
    only_calls = [name for name in before_calls if name not in before_any]
    if only_calls:
        parts.append("when the view is planned for " + ", ".join(only_calls) + " and an assistant turn that "
                     "makes calls follows it directly")
    kept = "otherwise it keeps it" if table[FRAME_CASES[2]]["no provider"] == "kept" else "and in other cases too"
    return ("Strict drops an interrupted frame (an assistant message without calls whose stopReason is aborted, "
            "length or error, or with an errorMessage) only " + "; ".join(parts) + f"; {kept}. The reference "
            "drops every interrupted frame as soon as it repairs anything.")
