"""Provider role rules for the strict view: after pairing, make the turn order legal.

Pairing (integrity.repair.strict) puts every result right after its call.  Some
providers also constrain the order of turns around them:

- Bedrock Converse: the conversation starts with a user turn, user and assistant
  turns alternate, and (for several models) text may not share a turn with tool
  results.
- Gemini: a function call turn comes right after a user turn or a function
  response turn (never first, never after another model turn).
- Mistral: no user message right after tool messages.

The strict planner calls `legalize` on the order it built, for the provider the
view is for.  Every change is a plan entry the report explains:

- consecutive assistant turns (Bedrock; Gemini when the last one calls tools):
  an interrupted frame that another assistant turn supersedes is dropped, the
  rest are carried as one message (`Merged`, the last one's fields, every
  member's content in order);
- consecutive user turns (Bedrock): carried as one user message (`Merged`);
- tool results followed by a user turn (Bedrock, Mistral): a short assistant turn
  that says no reply was recorded is inserted (`SynthesizedTurn`); merging the
  user text into the results turn is what Bedrock rejects for several models;
- a history that does not start with a user turn (Bedrock), or starts with a
  function call turn (Gemini): a user turn saying the start is not available is
  inserted first.

System messages are hoisted out of the message list by the Bedrock and Gemini
writers, so they do not separate turns there; in the Chat shape (Mistral) they
stay in place.  Messages of other roles (opaque native entries, an app's custom
roles) are not considered by these rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import repeat
from typing import TYPE_CHECKING, Any

from ..notes import Note, NoteCode
from .entries import Merged, Synthesized, SynthesizedTurn, ViewEntry, entry_index, member_index
from .messages import NO_REPLY_TEXT, USER_START_TEXT

if TYPE_CHECKING:
    from ..providers.spec import RoleRules
    from .plan import Plan
    from .views import LightTranscript

# The kinds of message the role rules tell apart, numbered in the order of
# integrity.providers.spec.MESSAGE_KINDS (a provider's RoleRules names them).
USER, ASSISTANT, FRAME, RESULT, SYSTEM, CUSTOM, OPAQUE = range(7)
SYSTEM_ROLES = ("system", "developer")


@cache
def _role_rules(provider: str | None) -> RoleRules | None:
    """The provider's rules on the order of turns (its spec's `role_rules`); None for none or an unknown name.

    The providers package is imported here rather than at the top: the CLI's fast path
    (no provider, no role rules) never needs its rule sets.  Kept per name: a plan asks for every file.
    """
    if not provider:
        return None
    from ..providers import SPECS

    found = SPECS.get(provider)
    return found.role_rules if found is not None else None


def has_role_rules(provider: str | None) -> bool:
    """Whether the strict view applies role rules for this provider (today Bedrock, Gemini, Mistral)."""
    return _role_rules(provider) is not None


@cache
def _transparent(rules: RoleRules) -> frozenset[int]:
    from ..providers.spec import MESSAGE_KINDS

    return frozenset(MESSAGE_KINDS.index(name) for name in rules.transparent)


def _kind(light: LightTranscript, entry: ViewEntry) -> int:
    if type(entry) is int:  # most of a view: a durable message as it is
        index = entry
    elif isinstance(entry, Synthesized):
        return RESULT
    elif isinstance(entry, SynthesizedTurn):
        return USER if entry.role == "user" else ASSISTANT
    elif isinstance(entry, Merged):
        return _kind(light, entry.entries[-1])
    else:
        index = member_index(entry)
    if index in light.result_keys:
        return RESULT
    if index in light.frames:
        return FRAME
    role = light.roles[index]
    if role == "user":
        return USER
    if role == "assistant":
        return ASSISTANT
    if role in SYSTEM_ROLES:
        return SYSTEM
    if role == "opaque":
        return OPAQUE
    return CUSTOM


_ROLE_KINDS = {"user": USER, "assistant": ASSISTANT, "system": SYSTEM, "developer": SYSTEM, "opaque": OPAQUE}


def _durable_kinds(light: LightTranscript) -> bytearray:
    """Every durable message's kind (what _kind says of its index), made once by C-level maps: a view of a
    million messages asks for every one's kind in each pass."""
    kinds = bytearray(map(_ROLE_KINDS.get, light.roles, repeat(CUSTOM)))
    for index in light.frames:
        kinds[index] = FRAME
    for index in light.result_keys:
        kinds[index] = RESULT
    return kinds


def _kinds(light: LightTranscript, order: Sequence[Any], durable: bytearray, ranged: bool = False) -> bytes:
    """The kind of each message of the view, one byte each (the durable ones read from `durable`): an order
    that lists every message has one per entry; a stretch (a `range` entry: plan_strict with stretches, when
    `ranged`) gives its messages' kinds at once (a view of a million messages is a few thousand entries then)."""
    if not ranged:
        return bytes([durable[entry] if type(entry) is int else _kind(light, entry) for entry in order])
    return b"".join([durable[entry.start:entry.stop] if type(entry) is range
                     else bytes((durable[entry] if type(entry) is int else _kind(light, entry),)) for entry in order])


def _cut(order: list[Any], wanted: list[int]) -> tuple[list[Any], list[int]]:
    """The order with its stretches (ranges) cut so that each message at a view position in `wanted` (sorted,
    each once) is an entry of its own; and the entry position of each of them, in the same order."""
    out: list[Any] = []
    where: list[int] = []
    position = taken = 0
    count = len(wanted)
    for entry in order:
        if type(entry) is not range:
            if taken < count and wanted[taken] == position:
                where.append(len(out))
                taken += 1
            out.append(entry)
            position += 1
            continue
        end = position + len(entry)
        if taken == count or wanted[taken] >= end:
            out.append(entry)
            position = end
            continue
        cursor = entry.start
        while taken < count and wanted[taken] < end:
            at = entry.start + wanted[taken] - position
            if at > cursor:
                out.append(range(cursor, at))
            where.append(len(out))
            out.append(at)
            cursor = at + 1
            taken += 1
        if cursor < entry.stop:
            out.append(range(cursor, entry.stop))
        position = end
    return out, where


Found = list[tuple[list[int], bytes]]
"""The matches of a pattern over a view's kinds (_matches): each one's entry positions (one message each) and
those messages' kinds."""


def _matches(light: LightTranscript, order: list[Any], durable: bytearray, pattern: re.Pattern[bytes],
             first: bool = False) -> tuple[list[Any], Found]:
    """Every match of `pattern` over the kinds of the view's messages (only the first: `first`), found by a
    regex over one byte per message; and the order, its stretches cut where a match falls (_cut), so that
    each matched message is an entry of its own that the rules may merge or insert a turn after."""
    ranged = range in set(map(type, order))
    codes = _kinds(light, order, durable, ranged)
    if first:
        one = pattern.search(codes)
        spans = [] if one is None else [one.span()]
    else:
        spans = [found.span() for found in pattern.finditer(codes)]
    if not spans:
        return order, []
    if not ranged:  # one entry per message: positions are entries
        return order, [(list(range(start, end)), codes[start:end]) for start, end in spans]
    wanted = [position for start, end in spans for position in range(start, end)]
    order, where = _cut(order, wanted)
    out: Found = []
    taken = 0
    for start, end in spans:
        out.append((where[taken:taken + end - start], codes[start:end]))
        taken += end - start
    return order, out


def _label(entry: ViewEntry) -> str:
    if isinstance(entry, Merged):
        return "+".join(f"#{member_index(e)}" for e in entry.entries)
    if isinstance(entry, SynthesizedTurn):
        return f"a synthesized {entry.role} turn"
    index = entry_index(entry)
    return f"#{index}" if index is not None else "a synthesized receipt"


def legalize(light: LightTranscript, order: list[Any], provider: str | None,
             plan: Plan) -> list[Any] | None:
    """The order with the provider's role rules applied, or None when it already complies.

    Drops (superseded interrupted frames), merges and notes are recorded on the plan.  The order may hold
    stretches (`range` entries): one is cut only where a rule changes something (_matches).
    """
    rules = _role_rules(provider)
    if rules is None:
        return None
    transparent = _transparent(rules)
    durable = _durable_kinds(light)
    changed = False
    if rules.merge_assistants:
        order, merged = _merge_runs(light, order, plan, transparent, (ASSISTANT, FRAME), provider or "", durable,
                                    only_before_calls=rules.merge_assistants == "before_calls")
        changed |= merged
    if rules.results_then_user:
        order, inserted = _answer_results(light, order, transparent, provider or "", durable)
        changed |= inserted
    if rules.merge_users:
        order, merged = _merge_runs(light, order, plan, transparent, (USER,), provider or "", durable)
        changed |= merged
    if rules.start:
        order, found = _matches(light, order, durable, _anything_but(transparent), first=True)
        if found:
            (first,), (kind,) = found[0]
            if (rules.start == "user" and kind != USER) or (rules.start == "no_calls" and kind == FRAME):
                code = NoteCode.START_WITH_USER if rules.start == "user" else NoteCode.START_NOT_WITH_CALL
                reason = Note.of(code, provider=provider, first=_label(order[first]))
                order.insert(first, SynthesizedTurn("user", USER_START_TEXT, reason))
                changed = True
    return order if changed else None


def _runs(light: LightTranscript, order: list[Any], transparent: frozenset[int],
          kinds: tuple[int, ...], durable: bytearray) -> tuple[list[Any], list[list[int]]]:
    """Runs (lists of entry positions) of consecutive messages of the given kinds, transparent ones skipped:
    found by a regex over the messages' kinds (one byte each), so only the runs' own entries take a Python
    step; and the order, cut so that each message of a run is an entry of its own (_matches)."""
    wanted = [kind for kind in kinds if kind not in transparent]
    order, found = _matches(light, order, durable, _run_of(tuple(wanted), transparent))
    return order, [[position for position, kind in zip(positions, codes, strict=True) if kind in wanted]
                   for positions, codes in found]


@cache  # (a handful of providers' rules: made once each, not once per transcript of a fleet)
def _run_of(wanted: tuple[int, ...], transparent: frozenset[int]) -> re.Pattern[bytes]:
    """Two or more messages of the wanted kinds, only transparent ones between them."""
    one, skipped = _class(wanted), _class(transparent)
    return re.compile(one + b"(?:" + skipped + b"*" + one + b")+")


@cache
def _anything_but(transparent: frozenset[int]) -> re.Pattern[bytes]:
    """Any one message that is not transparent."""
    skipped = sorted(transparent)
    return re.compile(b"[^" + b"".join(re.escape(bytes([kind])) for kind in skipped) + b"]" if skipped
                      else b"(?s:.)")


def _class(kinds: Iterable[int]) -> bytes:
    """A regex class of these kinds (as _kinds writes them); one matching nothing when there are none."""
    listed = sorted(kinds)
    return b"[" + b"".join(re.escape(bytes([kind])) for kind in listed) + b"]" if listed else b"(?!)"


def _merge_runs(light: LightTranscript, order: list[Any], plan: Plan, transparent: frozenset[int],
                kinds: tuple[int, ...], provider: str, known: bytearray, only_before_calls: bool = False
                ) -> tuple[list[Any], bool]:
    """The order with the runs of one role merged, and whether any changed.  known: every durable message's
    kind (_durable_kinds)."""
    changed = False
    interrupted = set(light.interrupted_frames)
    order, runs = _runs(light, order, transparent, kinds, known)
    for run in runs:
        if only_before_calls and _kind(light, order[run[-1]]) != FRAME:
            continue
        role = "user" if kinds == (USER,) else "assistant"
        keep = []
        for position in run:
            entry = order[position]
            durable = type(entry) is int
            if position != run[-1] and durable and entry in interrupted and entry not in light.frames:
                following = order[run[run.index(position) + 1]]
                plan.dropped_frames.append(entry)
                plan.notes[entry] = Note.of(NoteCode.FRAME_SUPERSEDED, following=_label(following),
                                            provider=provider)
                order[position] = None
                changed = True
            else:
                keep.append(position)
        if len(keep) < 2:
            continue
        members = [order[position] for position in keep]
        indices = [member_index(m) for m in members]  # one list for every note of the run (a run may be long)
        carrier = indices[-1]
        for position, index in zip(keep[:-1], indices[:-1], strict=True):
            plan.merged[index] = carrier
            plan.notes[index] = Note.of(NoteCode.MERGED_INTO, provider=provider, role=role,
                                        members=indices, carrier=carrier)
            order[position] = None
        plan.notes.setdefault(carrier, Note.of(NoteCode.CARRIES_MERGED, provider=provider, members=indices[:-1]))
        order[keep[-1]] = Merged(tuple(members))
        changed = True
    return ([entry for entry in order if entry is not None] if changed else order), changed


def _answer_results(light: LightTranscript, order: list[Any], transparent: frozenset[int], provider: str,
                    durable: bytearray) -> tuple[list[Any], bool]:
    """Insert an assistant turn after each run of results that a user turn follows (found by a regex over the
    messages' kinds: the last result of such a run, then any transparent entries, then a user turn)."""
    skipped = _class(transparent - {USER})
    order, found = _matches(light, order, durable, re.compile(
        _class([RESULT]) + b"(" + skipped + b"*)" + _class([USER] if USER not in transparent else [])))
    if not found:
        return order, False
    out: list[Any] = []
    taken = 0
    for positions, _ in found:
        position = positions[0]
        following = positions[-1]
        out.extend(order[taken:position + 1])
        reason = Note.of(NoteCode.REPLY_AFTER_RESULTS, provider=provider, user=_label(order[following]))
        out.append(SynthesizedTurn("assistant", NO_REPLY_TEXT, reason))
        taken = position + 1
    out.extend(order[taken:])
    return out, True
