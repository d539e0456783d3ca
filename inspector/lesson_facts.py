"""The facts a lesson's sentences state about its example, computed from the engine for that example.

Why: a newcomer reads "neither result is a receipt" or "every provider accepts its view" beside the
rows that show it; a sentence written by hand drifts from the rows the moment the engine or the
example changes.  A lesson's text is a template (`{name}` fields); `example_facts` fills every field
from the engine's analyses of the example (the same `analyze` the page shows, rated as `check` rates
it) and `integrity.check` (the status and the provider that judges it).  tests/test_lessons.py checks
that every field a lesson uses is one computed here.
"""

from __future__ import annotations

from typing import Any

from integrity import RepairKind, is_interrupted_tool_result
from integrity.kinds import facts
from integrity.notes import NoteCode


def _numbers(indices: list[int] | set[int]) -> str:
    """'#2', '#2 and #3', '#2, #3 and #5'."""
    tags = [f"#{index}" for index in sorted(indices)]
    return tags[0] if len(tags) == 1 else ", ".join(tags[:-1]) + " and " + tags[-1] if tags else "none"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else "none"


def _actions(analysis: Any, kind: RepairKind) -> list[Any]:
    return [action for action in analysis.report.actions if action.kind == kind]


def judged_by(target: str | None) -> str:
    """Whom `check` lets decide: the target provider, else the universal invariants."""
    return target if target is not None else "the universal invariants (no provider of its own)"


def shown_view_refusals(analysis: Any) -> dict[str, list[str]]:
    """provider -> the rule ids its rule set refuses *the view shown* with (the view planned for the lesson's
    provider, or for none), validated as a stored history as `check` validates views.  Not what a provider
    says about the view planned for it (`still_rejecting`): that view can differ (turns, ids)."""
    from integrity.providers import PROVIDERS, validate

    refused: dict[str, list[str]] = {}
    for name in PROVIDERS:
        rules = sorted({v.rule for v in validate(analysis.view, name, analysis.transcript, history=True)})
        if rules:
            refused[name] = rules
    return refused


def example_facts(analyses: dict[str, Any], check_result: Any) -> dict[str, str]:
    """Every field a lesson template may use, from the engine's answers for its example.

    analyses: policy -> the page's analysis (with every provider's verdict); check_result: `check` on the
    example (strict, the lesson's provider), whose status and target the page states.
    """
    reference, strict = analyses["openmaic"], analyses["strict"]
    messages = strict.transcript.messages
    verdicts = reference.verdicts
    rejecting = [name for name, said in verdicts.items() if said.before]
    accepting = [name for name in verdicts if name not in rejecting]
    found: dict[str, str] = {
        "rejecting": _names(rejecting), "accepting": _names(accepting),
        "status": str(check_result.status), "judge": judged_by(check_result.target),
        "healthy_or_not": "healthy" if check_result.healthy else "not healthy",
    }
    other = {name: sorted({v.rule for v in verdicts[name].before}) for name in rejecting}
    found["refusals"] = "; ".join(f"{name} ({', '.join(rules)})" for name, rules in other.items()) or "none"
    for prefix, analysis in (("ref", reference), ("strict", strict)):
        duplicates = _actions(analysis, RepairKind.DROPPED_DUPLICATE)
        found[f"{prefix}_kept"] = _numbers({a.kept_instead for a in duplicates if a.kept_instead is not None})
        found[f"{prefix}_dropped"] = _numbers({a.durable_index for a in duplicates})
        found[f"{prefix}_moved"] = _numbers({a.durable_index for a in _actions(analysis, RepairKind.MOVED)})
        found[f"{prefix}_frames_dropped"] = _numbers(
            {a.durable_index for a in _actions(analysis, RepairKind.DROPPED_INTERRUPTED_FRAME)})
        found[f"{prefix}_strays_dropped"] = _numbers(
            {a.durable_index for a in _actions(analysis, RepairKind.DROPPED_STRAY)})
        found[f"{prefix}_shared"] = _numbers({a.durable_index for a in analysis.report.actions if a.also_view_indices})
        found[f"{prefix}_renamed"] = _names([f"{old} as {new}" for a in analysis.report.actions
                                             for old, new in a.new_ids.items()])
        found[f"{prefix}_receipts_for"] = _names([entry.call_id for entry in analysis.report.synthesized])
    involved = {a.durable_index for a in _actions(reference, RepairKind.DROPPED_DUPLICATE)} | {
        a.kept_instead for a in _actions(reference, RepairKind.DROPPED_DUPLICATE) if a.kept_instead is not None}
    receipts = sorted(index for index in involved if is_interrupted_tool_result(messages[index]))
    for prefix, analysis in (("ref", reference), ("strict", strict)):
        for field in ("kept", "dropped"):
            indices = {a.kept_instead if field == "kept" else a.durable_index
                       for a in _actions(analysis, RepairKind.DROPPED_DUPLICATE)} - {None}
            kinds = {"a receipt" if is_interrupted_tool_result(messages[i]) else "a real result" for i in indices}
            found[f"{prefix}_{field}_is"] = " and ".join(sorted(kinds)) or "none"
    found["duplicate_receipts"] = (
        "neither of them is a receipt" if involved and not receipts else
        f"{_numbers(receipts)} {'is a receipt' if len(receipts) == 1 else 'are receipts'}" if receipts else "none")
    strays = [f for f in reference.report.findings if f.kind == "stray_result"]
    found["stray_ids"] = _names(sorted({f.call_id for f in strays if f.call_id}))
    reused = [a for a in strict.report.actions if a.new_ids]
    found["reused_frame"] = _numbers({a.durable_index for a in reused})
    orphaned = [p for p in strict.report.pairings if not p.result_indices and p.answered_by is None]
    found["unanswered"] = _names([f"the {p.call_id} of #{p.frame_index}" for p in orphaned])
    found["kind_reordered"] = facts(RepairKind.REORDERED).name
    found["strict_calls_last"] = _numbers({a.durable_index for a in strict.report.actions
                                           if a.shown_kind is RepairKind.CALLS_LAST})
    found["kind_calls_last"] = facts(RepairKind.CALLS_LAST).name
    found["strict_blank_text"] = _numbers({a.durable_index for a in strict.report.actions
                                           if NoteCode.BLANK_TEXT_LEFT_OUT in a.codes})
    found["kind_blank_text"] = facts(RepairKind.BLANK_TEXT).name
    found["kind_dropped_blank"] = facts(RepairKind.DROPPED_BLANK).name
    from integrity.providers import SPECS

    for name, spec in SPECS.items():  # each provider's turn rule in its spec's own words
        if spec.role_rules is not None:
            found["turn_rule_" + name.replace("-", "_")] = spec.role_rules.why
        if spec.id_rule is not None:
            found["id_rule_" + name.replace("-", "_")] = spec.id_rule.why
    return found


def view_sentence(analysis: Any) -> str:
    """What the providers say about the view the page shows, then about the view each is sent.

    The page shows one view (planned for the lesson's provider, or for none); a provider with its own
    turn or id rules is sent a view planned for it (`integrity.analysis.view_for_provider`), which may
    differ.  Both are said, each of its own view, so "accepted" never stands beside a view that is refused.
    """
    refused = shown_view_refusals(analysis)
    total = len(analysis.verdicts)
    planned_for = analysis.plan.provider  # the reference plans for no provider, whatever the page picked
    planned = f"planned for {planned_for}" if planned_for else "planned for no provider: the universal invariants"
    if not refused:
        first = f"This view ({planned}) is accepted by every provider rule set ({total})."
    else:
        who = "; ".join(f"{name} ({', '.join(rules)})" for name, rules in refused.items())
        others = f"accepted by the other {total - len(refused)}" if total > len(refused) else "accepted by none"
        first = f"This view ({planned}) is refused by {who}; {others}."
    from integrity.analysis import replans_for

    own = {name for name in refused if replans_for(analysis.policy, analysis.light, analysis.plan, name)}
    same = [name for name in refused if name not in own]
    still = {name for name, verdict in analysis.verdicts.items() if verdict.after}
    said: list[str] = []
    if same:
        said.append(f"{_names(same)} {'is' if len(same) == 1 else 'are'} sent this same view")
    accepting_own = [name for name in own if name not in still]
    refusing_own = [name for name in own if name in still]
    if accepting_own:
        said.append(f"{_names(accepting_own)} {'is' if len(accepting_own) == 1 else 'are'} sent a view planned "
                    f"for {'its' if len(accepting_own) == 1 else 'their'} own rules, which "
                    f"{'it accepts' if len(accepting_own) == 1 else 'they accept'}")
    if refusing_own:
        said.append(f"{_names(refusing_own)} still refuse{'s' if len(refusing_own) == 1 else ''} the view planned "
                    "for it")
    if not said:
        return first
    verdict = " So every provider accepts the view it is sent." if not still else ""
    return f"{first} Of these, {'; '.join(said)}.{verdict}"
