"""The diagnosis: a transcript's verdict, counts, findings and severity, without per-message detail.

`check` prints this for every file, so it is built from the plan alone, at a
fraction of the report's cost, and without pydantic (its records are light:
integrity._records).  The full report (integrity.report) takes its counts,
moves, findings and verdict from here: one rule for both.
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Container, Iterable, Sequence
from itertools import accumulate, chain, compress, filterfalse, islice, repeat
from operator import attrgetter
from typing import Any, Literal

import msgspec

from ._findings import Finding, Known, find_defects, paired
from ._records import FrozenRecord, replace
from .kinds import FINDINGS, REPAIR_KINDS, VERDICT_ORDER, FindingCode, RepairKind, Severity, fails, rate, worst
from .notes import Note, NoteCode
from .repair.entries import (
    Merged,
    Rewritten,
    Synthesized,
    SynthesizedTurn,
    ViewEntry,
    entry_index,
    renames_every_call,
    unplain,
)
from .repair.plan import Plan
from .repair.policies import POLICY
from .repair.views import LightTranscript, loose_results

AsRecorded = dict[str, Literal["accepted", "rejected"]]
"""provider -> what it says about the transcript as recorded (only the providers that were checked)."""


class Summary(FrozenRecord, frozen=True, kw_only=True, omit_defaults=True):
    """The counts of one transcript and of what its view changes (each count is a kind's: integrity.kinds).

    The counts with a default (0) are left out of its JSON when zero: older reports did not have them.
    """

    messages: int
    view_messages: int
    calls: int
    results: int
    orphaned_calls: int
    duplicates_dropped: int
    moved: int
    reordered: int = 0
    frames_dropped: int
    strays_dropped: int
    synthesized: int
    strays: int
    renamed: int  # always written: no default (omit_defaults)
    arguments_repaired: int = 0
    calls_put_last: int = 0
    blank_text_left_out: int = 0
    errors_as_text: int = 0
    tool_names_fixed: int = 0
    calls_signed: int = 0
    texts_cut: int = 0
    reasoning_once: int = 0
    images_moved: int = 0
    images_left_out: int = 0
    reshaped: int = 0
    blank_dropped: int = 0
    merged: int = 0
    turns_synthesized: int = 0
    findings: int


Reason = tuple[RepairKind, tuple[NoteCode, ...]]
"""What a change is and why (its kind and note codes): all a severity is rated from."""


class Diagnosis(FrozenRecord, frozen=True, kw_only=True, dict=True, omit_defaults=True):
    """What `check` prints: the verdict, counts and findings, without per-message detail.

    Its `_reasons` (set by diagnose, kept by _records.replace) are every distinct change, to rate it again.
    The last five fields are in its JSON only when set.
    """

    source: str | None
    policy: str
    changed: bool
    healthy: bool
    severity: Severity
    verdict: str
    summary: Summary
    findings: list[Finding]
    as_recorded: AsRecorded | None = None
    provider: str | None = None
    format: str | None = None
    thread: str | None = None
    runtime_results: dict[str, str] | None = None
    """as RepairReport.runtime_results: the results the file's runtime adds as it sends the session"""

    def _rerated_parts(self, accepted: bool | None) -> dict[str, Any]:
        """What with_recorded rates again besides the findings and the verdict: nothing, for a diagnosis."""
        return {}

    def _change_severities(self, accepted: bool | None) -> list[Severity]:
        """Every severity of what the view changes and of the findings, rated given what the providers say."""
        severities = [rate(kind, codes, accepted) for kind, codes in self.__dict__.get("_reasons", ())]
        severities.extend(finding.severity for finding in _rated_findings(self.findings, accepted))
        return severities


def frame_places(light: LightTranscript, order: Sequence[Any], skip: Container[int] = ()
                 ) -> list[tuple[int, int, int]]:
    """(view position, order index, frame index) of every frame with calls in a changed view, in view order.

    A frame listed twice is placed by its last entry, and an entry that carries a frame (rewritten or
    merged) places it whatever skip says.  An order with stretches (Plan.order planned with stretches:
    `range` entries) holds no frame inside a stretch but the settled clean turns, which the caller skips.
    skip: frames to leave out (plain entries only).
    """
    frames = light.frames
    where = {entry: at for at, entry in enumerate(order)
             if type(entry) is int and entry in frames and entry not in skip}
    for at, entry in [(a, e) for a, e in enumerate(order) if type(e) is not int]:
        index = entry_index(entry)  # rewritten or merged entries that carry a frame
        if index is not None and index in frames:
            where[index] = at
    starts = view_starts(order)
    return [(at if starts is None else starts[at], at, index)
            for index, at in sorted(where.items(), key=operator.itemgetter(1))]


def view_starts(order: Sequence[Any]) -> list[int] | None:
    """Each order entry's view position when the order holds stretches (range entries), else None (an
    entry's position is its index)."""
    # (C-level maps, no step per entry, and no list of every entry's type: a flat order of a million ints
    # would have made one of 8 MB to find no stretch)
    stretches = list(compress(range(len(order)), map(operator.is_, map(type, order), repeat(range))))
    if not stretches:  # a flat order (one int per message)
        return None
    sizes = [1] * len(order)  # each entry's size, a stretch's set where one is
    for at, size in zip(stretches, map(len, map(order.__getitem__, stretches)), strict=True):
        sizes[at] = size
    return [0, *accumulate(sizes)]


def view_size(order: Sequence[Any]) -> int:
    """How many messages a view order holds (a stretch counts its messages)."""
    starts = view_starts(order)
    return len(order) if starts is None else starts[-1]


Moves = tuple[dict[int, int], set[int]]
"""Every message the view moved (durable index -> view position), and which of them only changed
places inside the run of results right after their frame (put in call order: normalized)."""


def moved_results(light: LightTranscript, plan: Plan) -> dict[int, int]:
    """Durable index -> view position, for messages the view moved (results put in call order too)."""
    return moves(light, plan)[0]


def moves(light: LightTranscript, plan: Plan, known: Container[Any] | None = None,
          places: Sequence[tuple[int, int, int]] | None = None) -> Moves:
    """The messages the view moved, and the ones among them it only put in call order.

    A result is in place when it sits in the k-th slot after its frame and was
    the k-th message after that frame in the durable transcript too; anything
    else (split from its frame, reordered) is a move a reviewer should see.  A
    result recorded inside the contiguous run of results right after its frame
    (only its place in that run differs) is merely put in call order: every
    provider accepts such a run, so the move is a normalization.  A result whose
    place among the results of that run the view keeps is its slot did not move
    at all: only a dropped receipt or duplicate came before it.  A message
    outside the answer slots is moved when the view puts it before a message
    recorded earlier (the reference leaves strays in place while it moves
    results around them): one definition for the report and every screen.
    places: frame_places(light, plan.order), when the caller has them (the report does).
    """
    moved: dict[int, int] = {}
    in_run: set[int] = set()
    if not plan.changed or plan.order is None:
        return moved, in_run
    order = plan.order
    seen: set[int] = set()
    runs: dict[int, int] = {}
    ranks: dict[int, dict[int, int]] = {}  # frame -> _kept_rank's ranks
    dropped = set(plan.dropped_duplicates).union(plan.dropped_strays)  # the results the view leaves out
    # A settled clean turn (plan.settled) sits in the view as recorded, each result once, right after
    # its frame: nothing of it moved.  A provider's role rules may regroup turns, so then every frame counts.
    settled = plan.settled if plan.provider is None else ()
    if places is None:
        places = frame_places(light, order, settled)
    elif settled:  # as frame_places would have skipped them: the settled frames' plain entries
        places = [place for place in places if not (place[2] in settled and type(order[place[1]]) is int)]
    ranged = places and range in set(map(type, order))
    for frame_position, frame_at, frame in places:
        count = len(light.frames[frame])  # a frame's answers are the messages after it
        answers = _answers(order, frame_at, count) if ranged else order[frame_at + 1:frame_at + 1 + count]
        for call_position, answer in enumerate(answers):
            entry = entry_index(answer)
            if entry is None or entry in seen:
                continue
            seen.add(entry)
            view_position = frame_position + 1 + call_position
            if entry != frame + 1 + call_position:
                if not frame < entry <= frame + _run_length(light, frame, runs):
                    moved[entry] = view_position
                elif _kept_rank(frame, runs[frame], dropped, ranks).get(entry) != call_position:
                    moved[entry] = view_position
                    in_run.add(entry)
                # else: only results the view leaves out (a receipt, a duplicate) came before it in the
                # run: it keeps its place among the results the view sends, nothing moved
    if _has_unowned_results(light, known):
        moved.update(_reordered(order, moved))
    return moved, in_run


def _answers(order: Sequence[Any], at: int, count: int) -> list[Any]:
    """The `count` view entries after the one at `at` in an order with stretches, a stretch read as its messages
    (the legal order of turns may cut a frame out of a stretch and leave its results in one)."""
    found: list[Any] = []
    size = len(order)
    while len(found) < count and at + 1 < size:
        at += 1
        entry = order[at]
        if type(entry) is range:
            found.extend(entry[:count - len(found)])
        else:
            found.append(entry)
    return found


def _kept_rank(frame: int, length: int, dropped: Container[int], known: dict[int, dict[int, int]]
               ) -> dict[int, int]:
    """durable index -> rank among the results of a frame's recorded run (length) that the view keeps, the
    ones it drops left out (cached per frame)."""
    found = known.get(frame)
    if found is None:
        kept = [index for index in range(frame + 1, frame + 1 + length) if index not in dropped]
        found = known[frame] = {index: rank for rank, index in enumerate(kept)}
    return found


def _run_length(light: LightTranscript, frame: int, known: dict[int, int]) -> int:
    """How many results were recorded contiguously right after a frame (cached per frame)."""
    length = known.get(frame)
    if length is None:
        keys = light.result_keys
        cursor = frame + 1
        while cursor in keys:
            cursor += 1
        length = known[frame] = cursor - frame - 1
    return length


def _has_unowned_results(light: LightTranscript, known: Container[Any] | None = None) -> bool:
    """Whether some result's id is no call's (known: every call id, when the caller has them)."""
    if known is None:
        known = {call.id for calls in light.frames.values() for call in calls}
    return not all(map(known.__contains__, map(light.result_keys.__getitem__, loose_results(light))))


def _reordered(order: Sequence[ViewEntry | range], moved: dict[int, int]) -> dict[int, int]:
    """Messages not yet counted as moved that the view puts before a message recorded earlier.

    Scanning in durable order, a message whose view position is not after the
    previous one's has changed places: a reviewer must see it move.
    """
    if view_starts(order) is not None:
        if _in_durable_order(order, moved):
            return {}
        order = [index for entry in order for index in (entry if type(entry) is range else (entry,))]
    kept = [entry for entry in order if type(entry) is int and entry not in moved]
    if all(map(operator.lt, kept, islice(kept, 1, None))):
        return {}  # the common case, checked at C speed: every kept message in durable order, once
    first: dict[int, int] = {}
    for position, entry in enumerate(order):
        index = entry if type(entry) is int else (entry.index if isinstance(entry, Rewritten) else None)
        if index is not None and index not in moved and index not in first:
            first[index] = position
    reordered: dict[int, int] = {}
    last = -1
    for index in sorted(first):
        if first[index] > last:
            last = first[index]
        else:
            reordered[index] = first[index]
    return reordered


def _in_durable_order(order: Sequence[Any], moved: Container[int]) -> bool:
    """_reordered's common case for an order with stretches: every kept message (a stretch's in order)
    after the one before it, checked per entry, not per message."""
    last = -1
    for entry in order:
        if type(entry) is range:
            if entry.start <= last:
                return False
            last = entry.stop - 1
        elif type(entry) is int and entry not in moved:
            if entry <= last:
                return False
            last = entry
    return True


def known_calls(light: LightTranscript, plan: Plan) -> Known:
    """Every call id, for the findings and counts: the strict policy asks only whether a result's id
    is some call's, which the reader's first frame of each id answers (LightTranscript.clean) without
    listing 362,000 uses at a million messages; the other policies report reused ids (call_uses)."""
    if POLICY[plan.policy].reads_closely and light.clean is not None and light.clean[1] is not None:
        return light.clean[1]  # the builder's (a view it classified always has it)
    return call_uses(light)


def call_uses(light: LightTranscript) -> dict[str, list[tuple[int, int]]]:
    """Every call id -> the (frame index, call position) of each call that uses it."""
    uses: dict[str, list[tuple[int, int]]] = {}
    for index, calls in light.frames.items():
        for position, call in enumerate(calls):
            found = uses.get(call.id)
            if found is None:
                uses[call.id] = [(index, position)]
            else:
                found.append((index, position))
    return uses


def _recorded_clause(recorded: AsRecorded | None, provider: str | None = None) -> str:
    """What the providers say about the transcript as recorded, in words ("" when none was checked)."""
    if not recorded:
        return ""
    from .providers import PROVIDERS, SPECS

    accepted = [name for name in SPECS if recorded.get(name) == "accepted"]  # (a variant too: `gemini-2`)
    rejected = [name for name in SPECS if recorded.get(name) == "rejected"]
    every = len(recorded) == len(PROVIDERS) and set(recorded) == set(PROVIDERS) and provider is None
    if not rejected:
        return f"accepted as recorded by all {len(accepted)} providers" if every and len(accepted) > 1 \
            else "accepted as recorded by " + ", ".join(accepted)
    if not accepted:
        return f"rejected as recorded by all {len(rejected)} providers" if every and len(rejected) > 1 \
            else "rejected as recorded by " + ", ".join(rejected)
    return f"rejected as recorded by {', '.join(rejected)}; accepted by {', '.join(accepted)}"


_STATES = {Severity.MALFORMED: "malformed", Severity.REJECTED: "would be rejected", Severity.LOSSY: "lossy"}


def written_away(findings: Iterable[Finding]) -> dict[FindingCode, int]:
    """How many findings of each kind a repair writes the file without: what the reader found besides messages
    (a torn last line and a skipped line are left out, a key named twice is written once; their kinds have a
    `verdict`).  `repair` writes the file again whenever the reader found one, so they are changes the
    verdict names (and the report's `changed`), never findings it says are left in place."""
    found: dict[FindingCode, int] = {}
    for finding in findings:
        kind_facts = FINDINGS.get(finding.kind)
        if kind_facts is not None and kind_facts.verdict is not None:
            found[FindingCode(finding.kind)] = found.get(FindingCode(finding.kind), 0) + 1
    return found


def counted(count: int, noun: str) -> str:
    """"1 call", "2 calls": the verdict's counts in words, as the Inspector's rows say them ("1 call")."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _verdict(summary: Summary, changed: bool, severity: Severity, malformed: int = 0,
             recorded: AsRecorded | None = None, provider: str | None = None, counting: str | None = None,
             as_recorded_only: bool = False, written: dict[FindingCode, int] | None = None) -> str:
    """The one-line verdict; what a repair changed is worded by the kind registry.

    severity: the worst of the report; a transcript whose view only normalizes is
    healthy and says so (never "repaired").  malformed: how many findings are schema
    findings.  recorded / provider: what the checked providers say as recorded.
    counting: the provider the transcript is rated for (the chosen one, or the file's
    own), whose answer alone the verdict words: it reads the same whoever else is asked.
    as_recorded_only: it fails only because the provider(s)
    that count reject it as recorded, for nothing the view changes (the view only
    normalizes): "would be rejected", never "repaired".  written: written_away(findings): the findings a
    repair writes the file without, named among the changes and not counted as left.
    """
    every = "the provider takes" if counting is not None else "every provider takes"
    counts = f"{counted(summary.messages, 'message')}, {counted(summary.calls, 'call')}"
    healthy = "healthy"  # (never "healthy for": other providers' answers are information beside the verdict)
    written = written or {}
    left = summary.findings - sum(written.values())
    if not changed:
        if summary.findings == 0 and fails(severity):  # only the providers' own rules are broken
            text = f"would be rejected: {counts}, every call answered once, right after its frame, but not in a " \
                f"shape {every}"
        elif summary.findings == 0:
            text = f"{healthy}: {counts}, every call answered once, right after its frame"
        else:
            state = _STATES.get(severity, "accepted")
            text = f"unchanged ({state}): {summary.findings} finding(s) the policy leaves in place"
    else:
        parts = []
        for kind in VERDICT_ORDER:
            facts = REPAIR_KINDS[kind]
            count = getattr(summary, facts.summary_field or "")
            if count:
                parts.append(f"{count} {facts.verdict}")
        parts.extend(f"{count} {FINDINGS[code].verdict}" for code, count in written.items())
        normalizes = "the view only normalizes: " + (", ".join(parts) if parts else "nothing a provider needs")
        if fails(severity) and as_recorded_only:
            text = f"would be rejected: {counts}, every call answered once, but not in a shape {every}; {normalizes}"
        elif fails(severity):
            text = "repaired: " + (", ".join(parts) if parts else "view rebuilt")
        else:
            text = f"{healthy}: {counts}, every call answered once; {normalizes}"
        malformed -= sum(written.values())  # (every finding written away is malformed)
        if left > 0:
            text += f"; {left} finding(s) left" + (f" ({malformed} malformed)" if malformed > 0 else "")
    clause = _recorded_clause(recorded, provider)
    return f"{text}; {clause}" if clause else text



def summarize(light: LightTranscript, plan: Plan, findings: int = 0, moved: Moves | None = None,
              known: Container[Any] | None = None) -> Summary:
    """Counts for a plan without building per-message actions (cheap enough for huge files).

    known: every call id, when the caller has them (call_uses)."""
    if known is None:
        known = {call.id for calls in light.frames.values() for call in calls}
    keys = light.result_keys
    candidates = loose_results(light)  # a clean turn's results are owned
    unknown: Iterable[int] = compress(candidates, map(operator.not_, map(known.__contains__,
                                                                         map(keys.__getitem__, candidates))))
    if "" in known and not POLICY[plan.policy].shares_answers:
        # calls without ids (Gemini): the strict policy pairs a result without one by its tool's name, or by
        # order, so which of them are no call's is what it decided: the ones it dropped as strays (the
        # reference pairs them by the empty id: duplicates there)
        dropped = set(plan.dropped_strays)
        unknown = [index for index in candidates
                   if keys[index] not in known or (keys[index] == "" and index in dropped)]
    order = plan.order if plan.changed and plan.order is not None else None
    others = unplain(order) if order is not None else []
    moved_to, in_run = moved if moved is not None else moves(light, plan)
    return Summary(
        messages=light.size,
        view_messages=view_size(order) if order is not None else light.size,
        calls=sum(map(len, light.frames.values())),
        results=len(light.result_keys),
        orphaned_calls=len(plan.repaired_tool_calls),
        duplicates_dropped=len(plan.dropped_duplicates),
        moved=len(moved_to) - len(in_run),
        reordered=len(in_run),
        frames_dropped=len(plan.dropped_frames),
        strays_dropped=len(plan.dropped_strays),
        synthesized=sum(1 for entry in others if isinstance(entry, Synthesized) and not entry.not_executed),
        strays=sum(1 for index in unknown if not paired(plan, index)),
        renamed=_renamed_count(plan, others),
        arguments_repaired=len(light.bad_arguments) if order is not None else 0,
        calls_put_last=len(plan.calls_last) if order is not None else 0,
        blank_text_left_out=len(plan.without_blank) if order is not None else 0,
        errors_as_text=len(plan.text_only) if order is not None else 0,
        tool_names_fixed=sum(map(len, plan.tool_names.values())) if order is not None else 0,
        calls_signed=len(plan.signed) if order is not None else 0,
        texts_cut=len(plan.cut_texts) if order is not None else 0,
        reasoning_once=sum(map(len, plan.reasoning_once.values())) if order is not None else 0,
        images_moved=len(plan.images_sent_after) if order is not None else 0,
        images_left_out=len(plan.images_gone) if order is not None else 0,
        reshaped=len(written_reshaped(light, plan)),
        blank_dropped=len(plan.dropped_blank) if order is not None else 0,
        merged=len(plan.merged),
        turns_synthesized=sum(1 for entry in others if isinstance(entry, SynthesizedTurn) and not entry.images),
        findings=findings,
    )





def written_reshaped(light: LightTranscript, plan: Plan) -> list[int]:
    """The reshaped messages (LightTranscript.reshaped) whose entry the written view holds: a message the view leaves
    out, or sends as part of another's, is not written from its entry."""
    if not light.reshaped:
        return []
    gone = set(plan.dropped_frames).union(plan.dropped_duplicates, plan.dropped_strays, plan.dropped_blank or (),
                                          plan.merged)
    return [index for index in light.reshaped if index not in gone]


def _renamed_count(plan: Plan, others: list[Any]) -> int:
    """How many view messages carry renamed ids: each Rewritten entry with new ids, and each merge whose carrier
    is one; with the clean turns renamed alike (plan.renamed_alike) counted in bulk, less those merged into
    another message (a merge counts once, by its carrier)."""
    count = sum(1 for entry in others if (isinstance(entry, Rewritten) and entry.ids)
                or (isinstance(entry, Merged) and isinstance(entry.entries[-1], Rewritten) and entry.entries[-1].ids))
    alike = plan.renamed_alike
    if alike is None:
        return count
    merged_away = sum(1 for entry in others if isinstance(entry, Merged) for member in entry.entries[:-1]
                      if type(member) is int and alike.ids_of(member))
    return count + alike.renamed_count() - merged_away


def _malformed(findings: list[Finding]) -> int:
    return sum(1 for finding in findings if finding.severity == Severity.MALFORMED)


def own_provider(format: str | None, model: Any = None) -> str | None:
    """The provider a file in this format is sent to, or None for formats no single provider reads (pi-ai,
    LangChain, ...): what the format's spec declares (integrity.formats.spec.FormatSpec.provider): a
    provider's own request format (an Anthropic request: Anthropic), or the session log of an agent that
    talks to one API (a Claude Code session is sent as Anthropic Messages requests, a Codex CLI rollout as
    OpenAI Responses requests).  Judging those by another provider's turn rules would report errors their
    provider never returns.  model: the model the request names (Transcript.model): a provider of the same
    request format it means is the one (a Chat Completions request for `deepseek-chat` is DeepSeek's).  A session
    that names the model it talks to (FormatSpec.model_decides: a pi session's Transcript.session_model) is judged
    by that model's provider where how its runtime sends to it is modelled (formats.judged_by_model), else by the
    universal invariants: a runtime that rewrites its history for a provider in ways not modelled here would be
    judged refused for what it never sends."""
    if format in _NO_OWN_PROVIDER:
        return None
    from .formats import implied_provider

    implied = implied_provider(format)
    if not isinstance(model, str):
        return implied
    if implied is None:
        return _named_provider(format, model)
    from .providers.models import sent_to

    return sent_to(implied, model)


def _named_provider(format: str | None, model: str) -> str | None:
    """own_provider of a session format whose entries name its model: that model's provider, when it is one of
    the providers the runtime's requests are modelled for (formats.judged_by_model), else None."""
    from .formats import judged_by_model

    modelled = judged_by_model(format)
    if not modelled:
        return None
    from .providers import SPECS
    from .providers.models import provider_for_model

    named = provider_for_model(model)
    return named if named is not None and SPECS[named].native_format in modelled else None


_NO_OWN_PROVIDER = frozenset({"pi-ai"})
"""Formats whose spec names no provider, answered without loading the formats package: `check` of a pi-ai
file (the fast path) never loads it, about 70 ms of every process's start (a test holds these to the specs)."""


def target_provider(format: str | None, provider: str | None = None, model: Any = None) -> str | None:
    """The provider whose verdict decides: the one named, else the one the file implies (own_provider: its
    format, and the model its request names), else None (the universal invariants decide).  One rule for
    check, triage and every screen."""
    return provider if provider else own_provider(format, model)


def _accepted(recorded: AsRecorded | None, provider: str | None) -> bool | None:
    """Whether the target provider (integrity.pipeline.target_provider: the chosen one, else the one the
    file's format implies) accepts the transcript as recorded; None when there is none (the universal
    invariants decide, and what other providers say is information) or it was not asked."""
    if not recorded or provider is None:
        return None
    said = recorded.get(provider)
    return None if said is None else said == "accepted"


def _rated_findings(findings: Sequence[Finding], accepted: bool | None) -> list[Finding]:
    """The findings with the severity their kind has given what the providers say."""
    out = []
    for finding in findings:
        facts = FINDINGS.get(finding.kind)
        severity = facts.rated(accepted) if facts is not None else finding.severity
        out.append(finding if severity == finding.severity else msgspec.structs.replace(finding, severity=severity))
    return out


def _judged(light: LightTranscript, plan: Plan, schema: Sequence[Finding], moved: Moves,
            uses: Known | None = None) -> tuple[list[Finding], Summary]:
    """Findings (schema findings first) and summary: one rule for report and diagnosis.

    uses: known_calls(light, plan), when the caller has it."""
    if uses is None:
        uses = call_uses(light)
    if light.bad_arguments:  # invalid arguments the view repairs are its changes, not findings left in place
        repaired = {frame for frame, _ in light.bad_arguments}
        schema = [finding for finding in schema if not (finding.kind is FindingCode.INVALID_ARGUMENTS
                                                        and set(finding.durable_indices) <= repaired)]
    findings = _rated_findings([*schema, *find_defects(light, plan, uses)], None)
    return findings, summarize(light, plan, len(findings), moved, uses)


def diagnose(light: LightTranscript, plan: Plan, source: str | None = None,
             schema: Sequence[Finding] = ()) -> Diagnosis:
    """The report's verdict, summary, findings and severity at a fraction of its cost (for huge files).

    schema: the transcript's schema findings (integrity.schema), reported first.  The
    severity is rated from every distinct change the plan makes (the same rules as the
    report's actions), not per message.
    """
    uses = known_calls(light, plan)  # every call id, once, for every count below
    moved = moves(light, plan, uses)
    findings, summary = _judged(light, plan, schema, moved, uses)
    reasons = _plan_reasons(light, plan, moved)
    severity = worst([*(rate(kind, codes) for kind, codes in reasons), *(f.severity for f in findings)])
    written = written_away(findings)
    changed = plan.changed or bool(written) or summary.reshaped > 0
    diagnosis = Diagnosis(source=source, policy=plan.policy, changed=changed, healthy=not fails(severity),
                          verdict=_verdict(summary, changed, severity, _malformed(findings), written=written),
                          summary=summary, findings=findings, severity=severity, provider=plan.provider)
    diagnosis.__dict__["_reasons"] = reasons  # not a field: never serialized, kept by _records.replace
    return diagnosis


def _plan_reasons(light: LightTranscript, plan: Plan, moved: Moves) -> list[Reason]:
    """Every distinct (kind, note codes) the plan's changes have, visiting only the messages it changes."""
    if not plan.changed or plan.order is None:
        kept = written_reshaped(light, plan)  # (a plan that changes nothing keeps every message in place)
        return [(RepairKind.KEPT, (NoteCode.RESHAPED,))] if kept else []
    order = plan.order
    others = unplain(order)
    kinds = list(map(type, others))
    rewritten: dict[int, Any] = {}  # durable index -> the new ids of the (last) entry that rewrites it
    if Merged in kinds or not {Rewritten, Synthesized, SynthesizedTurn, range}.issuperset(kinds):
        for entry in others:
            last = entry.entries[-1] if isinstance(entry, Merged) else entry
            if isinstance(last, Rewritten):
                rewritten[last.index] = last.ids
    else:  # (most of a view for Mistral: read at C speed)
        renamed = list(compress(others, map(operator.is_, kinds, repeat(Rewritten))))
        rewritten = dict(zip(map(_INDEX, renamed), map(_IDS, renamed), strict=True))
    reasons: set[Reason] = set()
    for entry in compress(others, map(operator.is_not, kinds, repeat(Rewritten))):
        if isinstance(entry, Synthesized):
            reasons.add((RepairKind.REPAIRED_ARGUMENTS if entry.not_executed else RepairKind.SYNTHESIZED, ()))
        elif isinstance(entry, SynthesizedTurn):
            reasons.add((RepairKind.SYNTHESIZED_TURN, (entry.reason.code,)))
    changed = set(plan.dropped_frames).union(plan.dropped_duplicates, plan.dropped_strays, plan.merged,
                                             moved[0], plan.notes, (frame for frame, _ in light.bad_arguments),
                                             plan.calls_last, plan.dropped_blank, plan.without_blank, plan.text_only,
                                             plan.tool_names, plan.signed, plan.cut_texts, light.reshaped,
                                             plan.images_sent_after, plan.images_gone)
    dropped = (set(plan.dropped_frames), set(plan.dropped_strays))
    alike = plan.renamed_alike
    if alike is not None:  # the clean turns renamed alike: each changed message of them (unless merged into another)
        for index in changed:
            ids = None if index in plan.merged else alike.ids_of(index)
            if ids is not None:
                rewritten[index] = ids
        for frame in alike.frames:  # and one only renamed: they all have the same shape (_shaped: each id changes)
            if frame not in changed:
                rewritten[frame] = alike.ids_of(frame)
                break
    # A message the view only renames (every one, for a provider whose id rule refuses the file's ids) has
    # its reasons from what its renaming does alone: `_change` is asked for one message of each such shape
    # (whether some id changes, whether some keeps its text), read without making its renames (_shape).
    changed.update(_shaped(light, rewritten, changed).values())
    if rewritten:  # a frame whose calls share an id has a reason of its own (_change: ID_SHARED_IN_TURN)
        changed.update(_sharing_frames(light, rewritten))
    renames = {index: _renamed_ids(light, index, rewritten[index]) for index in changed if index in rewritten}
    for index in changed:
        kind, notes, _fields = _change(light, plan, dropped, moved, renames, index)
        if kind is not RepairKind.KEPT or notes:
            reasons.add((kind, tuple(note.code for note in notes)))
    return sorted(reasons)


def _sharing_frames(light: LightTranscript, rewritten: Collection[int]) -> list[int]:
    """The renamed frames two of whose calls share an id (read at C speed up to the frames of several calls; or,
    when fewer messages are renamed than there are frames (a view for Mistral renames a few thousand besides its
    clean turns), from the renamed ones)."""
    frames = light.frames
    if len(rewritten) < len(frames):
        several: Iterable[int] = filter(frames.__contains__, rewritten)
        return [index for index in several if len(frames[index]) > 1 and _shared_ids(frames[index])]
    several = compress(frames.keys(), map((1).__lt__, map(len, frames.values())))
    return [index for index in several if index in rewritten and _shared_ids(frames[index])]


def _shared_ids(calls: Sequence[Any], among: Iterable[str] | None = None) -> list[str]:
    """The ids (of `among`, default all) that two of a frame's calls use."""
    ids = [call.id for call in calls]
    if len(set(ids)) == len(ids):
        return []
    return sorted({old for old in (ids if among is None else among) if ids.count(old) > 1})


def _shaped(light: LightTranscript, rewritten: dict[int, Any], changed: set[int]) -> dict[tuple[bool, bool], int]:
    """A message of each shape (_shape) among those the view only renames (rewritten, not in changed): any one
    will do, as a message's reasons are then its shape's alone.

    When each frame's new ids are its every call's, in order, and none is the call's own (the strict view never
    gives an id in use, but a numeric id keeps its text), the shapes are read at C speed, pair by pair, without
    visiting each of the 113,000 messages a view for Mistral renames in a 200,000-message transcript: a result's
    one id is kept or changed, a frame's all changed (or none, when it is no frame).  Else each message's shape
    is read in turn."""
    if not rewritten:  # (nothing renamed: most files, toward most providers)
        return {}
    indices = list(filterfalse(changed.__contains__, rewritten))
    ids_of = list(map(rewritten.__getitem__, indices))
    if not set(map(type, ids_of)) <= {dict}:
        return _shaped_each(light, indices, ids_of)
    results = list(map(dict.__contains__, ids_of, repeat(-1)))
    framed = list(compress(indices, map(operator.not_, results)))
    framed_ids = list(compress(ids_of, map(operator.not_, results)))
    calls_of = list(map(light.frames.get, framed, repeat(())))
    if not renames_every_call(framed_ids, map(len, calls_of)) or \
            any(map(operator.eq, map(_ID, chain.from_iterable(calls_of)), chain.from_iterable(map(dict.values,
                                                                                                 framed_ids)))):
        return _shaped_each(light, indices, ids_of)  # (a frame not renamed whole, or some call keeping its id)
    answered = list(compress(indices, results))
    kept = list(map(operator.eq, map(str, map(light.result_keys.get, answered)),
                    map(operator.itemgetter(-1), compress(ids_of, results))))
    shaped: dict[tuple[bool, bool], int | None] = {
        (True, False): next(compress(framed, framed_ids), None),
        (False, False): next(compress(framed, map(operator.not_, framed_ids)), None)}
    if shaped[(True, False)] is None:
        shaped[(True, False)] = next(compress(answered, map(operator.not_, kept)), None)
    shaped[(False, True)] = next(compress(answered, kept), None)
    return {shape: index for shape, index in shaped.items() if index is not None}


_ID = attrgetter("id")
_INDEX = attrgetter("index")
_IDS = attrgetter("ids")


def _shaped_each(light: LightTranscript, indices: list[int], ids_of: list[Any]) -> dict[tuple[bool, bool], int]:
    """_shaped, each message's shape read in turn."""
    shaped: dict[tuple[bool, bool], int] = {}
    for index, ids in zip(indices, ids_of, strict=True):
        shape = _shape(light, index, ids)
        if shape not in shaped:
            shaped[shape] = index
    return shaped


def _shape(light: LightTranscript, index: int, ids: Any) -> tuple[bool, bool]:
    """Whether some id of _renamed_ids(light, index, ids) changes, and whether some keeps its text (a numeric
    one)."""
    pairs = _renamed_ids(light, index, ids)
    return any(old != new for old, new in pairs.items()), any(old == new for old, new in pairs.items())


def _renamed_ids(light: LightTranscript, index: int, ids: Any) -> dict[str, str]:
    """old id -> new id for one rewritten view entry (a frame's calls, or a result)."""
    if -1 in ids:
        return {str(light.result_keys.get(index)): ids[-1]}
    calls = light.frames.get(index, ())
    return {calls[position].id: new for position, new in ids.items() if position < len(calls)}



def _dropped(light: LightTranscript, plan: Plan, dropped: tuple[set[int], set[int]], index: int,
             note: Note | None) -> tuple[RepairKind, list[Note], dict[str, Any]] | None:
    """What the view does with a message it leaves out (kind, reasons, extra fields); None when it carries it.

    dropped: the plan's dropped frames and dropped strays, as sets.
    """
    frames, strays = dropped
    if index in frames:
        stop = light.frame_stops.get(index, "it stopped abnormally")
        return RepairKind.DROPPED_INTERRUPTED_FRAME, [note or Note.of(NoteCode.FRAME_DROPPED_BY_REFERENCE,
                                                                      stop=stop)], {}
    call_id = light.result_id(index)
    if index in plan.dropped_duplicates:
        kept = plan.dropped_duplicates[index]
        if note is None:
            real_lost = kept in light.receipts and index not in light.receipts
            code = NoteCode.REAL_RESULT_AFTER_RECEIPT if real_lost else NoteCode.LATER_DUPLICATE
            note = Note.of(code, call_id=call_id, kept=kept)
        return RepairKind.DROPPED_DUPLICATE, [note], dict(kept_instead=kept, call_id=call_id)
    if index in strays:
        return RepairKind.DROPPED_STRAY, [note or Note.of(NoteCode.STRAY, call_id=call_id)], dict(call_id=call_id)
    if plan.dropped_blank and index in plan.dropped_blank:
        return RepairKind.DROPPED_BLANK, [note or Note.of(NoteCode.BLANK_MESSAGE_LEFT_OUT, provider=plan.provider)], {}
    return None


def _change(light: LightTranscript, plan: Plan, dropped: tuple[set[int], set[int]], moved: Moves,
            renames: dict[int, dict[str, str]], index: int) -> tuple[RepairKind, list[Note], dict[str, Any]]:
    """What the view does with one durable message and why: its kind, its reasons and the action's
    extra fields.  One rule for the report's actions and the diagnosis's severity."""
    note = plan.notes.get(index)
    left_out = _dropped(light, plan, dropped, index, note)
    if left_out is not None:
        return left_out
    if index in plan.merged:
        carrier = plan.merged[index]
        notes = [note or Note.of(NoteCode.MERGED, carrier=carrier)]
        if index in plan.without_blank:  # (Bedrock merges a run of one role, and refuses blank text in it)
            notes.append(Note.of(NoteCode.BLANK_TEXT_LEFT_OUT, provider=plan.provider))
        return RepairKind.MERGED, notes, dict(kept_instead=carrier)
    moved_to, in_run = moved
    notes = [note] if note is not None else []
    kind = RepairKind.KEPT
    if index in moved_to:
        if index in in_run:
            kind = RepairKind.REORDERED
            notes = notes or [Note.of(NoteCode.REORDERED, index=index, view_index=moved_to[index])]
        else:
            kind = RepairKind.MOVED
            notes = notes or [Note.of(NoteCode.MOVED, index=index, view_index=moved_to[index])]
    new_ids = renames.get(index, {})
    renamed = {old: new for old, new in new_ids.items() if old != new}
    if renamed:
        notes.append(Note.of(NoteCode.RENAMED, ids=renamed))
        shared = _shared_ids(light.frames.get(index, ()), renamed)
        if shared:  # a universal invariant needs this one: no result names one of these calls alone
            notes.append(Note.of(NoteCode.ID_SHARED_IN_TURN, ids=shared))
    if len(renamed) < len(new_ids):  # a numeric id keeps its text: only its JSON type changes
        notes.append(Note.of(NoteCode.NUMERIC_IDS_AS_TEXT, ids=[old for old in new_ids if old not in renamed]))
    recorded = [text for (frame, _), text in sorted(light.bad_arguments.items()) if frame == index]
    if recorded:
        notes.append(Note.of(NoteCode.ARGUMENTS_REPLACED, recorded=recorded))
    if index in plan.calls_last:
        notes.append(Note.of(NoteCode.CALLS_PUT_LAST, provider=plan.provider))
    if index in plan.without_blank:
        notes.append(Note.of(NoteCode.BLANK_TEXT_LEFT_OUT, provider=plan.provider))
    if index in plan.text_only:
        notes.append(Note.of(NoteCode.ERROR_SENT_AS_TEXT, provider=plan.provider))
    if index in plan.signed:
        from .repair.messages import SKIP_SIGNATURE

        notes.append(Note.of(NoteCode.CALL_SIGNED, provider=plan.provider, signature=SKIP_SIGNATURE))
    limit = plan.cut_texts.get(index)
    if limit:
        notes.append(Note.of(NoteCode.TEXT_CUT, provider=plan.provider, limit=limit))
    repeated = plan.reasoning_once.get(index)
    if repeated:
        items = light.reasoning_of().get(index, ())
        notes.append(Note.of(NoteCode.REASONING_SENT_ONCE, provider=plan.provider,
                             ids=[item for position, item in items if position in repeated]))
    if index in plan.images_sent_after:
        notes.append(Note.of(NoteCode.IMAGES_MOVED, provider=plan.provider))
    if index in plan.images_gone:
        notes.append(Note.of(NoteCode.IMAGES_LEFT_OUT, provider=plan.provider))
    changes = light.reshaped.get(index)
    if changes:
        notes.append(Note.of(NoteCode.RESHAPED, changes=list(changes)))
    names = plan.tool_names.get(index)
    if names:
        from .repair.strict import tool_name_rule
        from .repair.views import outside_count

        rule = tool_name_rule(plan.provider)
        assert rule is not None  # (a plan fixes names only for a provider with a rule)
        recorded = [light.frames[index][position].name for position in sorted(names)]
        notes.append(Note.of(NoteCode.TOOL_NAME_FIXED, provider=plan.provider, limit=rule.limit, chars=rule.chars or "",
                             names=[[len(name), outside_count(name, rule.chars)] for name in recorded]))
    return kind, notes, dict(new_ids=new_ids, call_id=light.result_id(index))



def with_recorded(report: Any, recorded: dict[str, bool]) -> Any:
    """The report (or diagnosis) once some providers were asked about the transcript as recorded.

    recorded: provider -> whether it accepts the transcript as recorded.  Every
    severity is rated again: `rejected` needs the provider that counts to reject (_counting:
    the only one asked, as check, triage, the inspector and the API ask the target provider
    alone; else the view's provider when one was chosen, else the file's own provider when
    its format is one provider's request); when the one(s) that count accept,
    what the view changes is `normalized`, or `lossy` where something is still
    duplicated or lost.  The verdict then says which providers accept it.
    """
    said: AsRecorded = {name: "accepted" if ok else "rejected" for name, ok in recorded.items()}
    counting = _counting(report, said)
    accepted = _accepted(said, counting)
    update: dict[str, Any] = {"as_recorded": said or None, **report._rerated_parts(accepted)}  # none asked: None
    findings = _rated_findings(report.findings, accepted)
    own = _own_severity(report, accepted)
    # the provider(s) that count return 400 for it as recorded: the chosen one, the file's own, or (none
    # counting) any one asked, even when the view changes nothing or only normalizes
    severity = worst([own, Severity.REJECTED]) if accepted is False else own
    update.update(findings=findings, severity=severity, healthy=not fails(severity),
                  verdict=_verdict(report.summary, report.changed, severity, _malformed(findings), said,
                                   report.provider, counting, fails(severity) and not fails(own),
                                   written_away(findings)))
    return replace(report, **update)


def recorded_acceptance(report: Any) -> bool | None:
    """Whether the provider(s) that count accept the transcript as recorded, as the report (or diagnosis)
    was last rated by with_recorded (None: not known, or never asked)."""
    return _accepted(report.as_recorded, _counting(report, report.as_recorded))


def _counting(report: Any, said: AsRecorded | None) -> str | None:
    """The provider whose answer as recorded rates a report: the one answer it was rated by, when it was given one
    (check, triage, the inspector and the API each give with_recorded the target provider's answer alone:
    target_provider, which reads the model a file names as well as its format), else the provider its view was
    planned for, else the one its format implies."""
    if said and len(said) == 1:
        return next(iter(said))
    return report.provider or own_provider(report.format)


def _own_severity(report: Any, accepted: bool | None) -> Severity:
    """The worst severity of what the view changes and the findings, rated given what the providers say,
    without the providers' verdict on the transcript as recorded itself."""
    return worst(report._change_severities(accepted))


def fails_only_as_recorded(report: Any) -> bool:
    """Whether a report (or diagnosis) rated by `with_recorded` fails only because the provider(s) that count
    reject the transcript as recorded, for its shape, while nothing the view changes or leaves is needed for
    it (a user message right after a tool result, which Bedrock and Mistral refuse, and no provider was chosen
    to plan the order of turns for)."""
    if not report.as_recorded or not fails(report.severity):
        return False
    accepted = _accepted(report.as_recorded, _counting(report, report.as_recorded))
    return accepted is False and not fails(_own_severity(report, accepted))
