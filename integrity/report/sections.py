"""The report's three long sections, made a chunk at a time: one action per durable message, one
pairing per call, one entry per view message.

`build_report` lists them whole.  `check --json` encodes each chunk and writes it before the next
is made (integrity.report.text.report_chunks): a 1,000,000-message report is 307 MB of JSON
lines, and its records, held whole, were 900 MB.  Both go through these generators, so the
sections are written by one set of rules.

What every section needs is gathered once, in compact form: each durable message's first view
position in an array (the rare further ones in a dict), the view entries that are not plain
durable messages (receipts, turns, merges, rewritten ids: few), each frame's place in the view,
and what the view does to the messages it changes.  Severities are rated when a chunk is made,
given whether the providers that count accept the transcript as recorded (`accepted`), so a
report rated by `with_recorded` needs no second pass over its sections.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from .._diagnosis import Moves, _change, _renamed_ids, known_calls, moves, view_starts
from .._findings import Known
from ..kinds import RepairKind, Severity, rate
from ..notes import render, render_all
from ..repair.entries import Merged, Rewritten, Synthesized, SynthesizedTurn, entry_index, member_index
from ..repair.messages import NOT_EXECUTED_TEXT
from ..repair.plan import Plan
from ..repair.policies import POLICY
from ..repair.views import LightTranscript
from .records import Action, DurableView, MergedView, Outcome, Pairing, ReceiptView, TurnView, ViewItem

CHUNK = 16384
"""Records per chunk: large enough that encoding a chunk costs what encoding the list whole would,
small enough that a chunk's records are a few MB."""

_DROPPED = (RepairKind.DROPPED_INTERRUPTED_FRAME, RepairKind.DROPPED_DUPLICATE, RepairKind.DROPPED_STRAY,
            RepairKind.DROPPED_BLANK)


class Sections:
    """The long sections of one transcript's report, ready to be made chunk by chunk (see the module).

    The plan must list every view message (a plan made without stretches), as a report does.
    """

    __slots__ = ("light", "plan", "uses", "reused", "moved", "order", "first", "extra", "items", "renames", "frame_at",
                 "changes", "quiet")

    def __init__(self, light: LightTranscript, plan: Plan, stamps: Sequence[int] = ()) -> None:
        self.light = light
        self.plan = plan
        self.uses = known_calls(light, plan)  # every call id, once, for the moves, the counts and the pairings
        self.reused = _reused(light, self.uses)
        order = plan.order if plan.changed and plan.order is not None else None
        if order is not None and view_starts(order) is not None:
            raise ValueError("a report lists every view message: plan it without stretches")
        self.order = order
        self.first: array[int] | None = None  # None: the view is the transcript (each message at its own index)
        self.extra: dict[int, list[int]] = {}  # durable index -> its view positions after the first (rare)
        self.items: dict[int, ViewItem] = {}  # view position -> an entry that is not a plain durable message
        self.renames: dict[int, dict[str, str]] = {}
        self.frame_at: dict[int, int] = {}  # frame -> its view position (= its order index: a flat order)
        if order is not None:
            self._gather(order, stamps)
        places = sorted((position, position, frame) for frame, position in self.frame_at.items())
        self.moved: Moves = moves(light, plan, self.uses, places)
        dropped = (set(plan.dropped_frames), set(plan.dropped_strays))
        special = {*plan.notes, *dropped[0], *dropped[1], *plan.dropped_duplicates, *plan.merged, *self.moved[0],
                   *self.renames, *(frame for frame, _ in light.bad_arguments), *plan.calls_last,
                   *plan.dropped_blank, *plan.without_blank, *plan.text_only,
                   *plan.tool_names, *plan.signed, *plan.cut_texts, *plan.reasoning_once, *light.reshaped,
                   *plan.images_sent_after, *plan.images_gone}
        # what the view does to each message it changes, and why (the messages kept in place with nothing
        # to say are all alike: their action is made without asking _change each time)
        self.changes = {index: _change(light, plan, dropped, self.moved, self.renames, index)
                        for index in sorted(special)}
        self.quiet = light.size > len(self.changes)

    def _gather(self, order: Sequence[Any], stamps: Sequence[int]) -> None:
        """One walk over the view: first and further positions, and the entries that are not plain."""
        first = self.first = array("q", [-1]) * self.light.size
        extra, items, frames, frame_at = self.extra, self.items, self.light.frames, self.frame_at
        carriers = []  # (position, frame) of entries that are not plain but carry a frame
        given = iter(stamps)
        for position, entry in enumerate(order):
            if type(entry) is int:  # _place, written out: this runs for every view message
                if first[entry] < 0:
                    first[entry] = position
                else:
                    extra.setdefault(entry, []).append(position)
                if entry in frames:
                    frame_at[entry] = position
            else:
                items[position] = self._item(position, entry, given)
                carried = entry_index(entry)
                if carried is not None and carried in frames:
                    carriers.append((position, carried))
        for position, carried in carriers:  # such an entry places its frame, as frame_places has it
            frame_at[carried] = position

    def _place(self, index: int, position: int) -> None:
        first = self.first
        assert first is not None
        if first[index] < 0:
            first[index] = position
        else:
            self.extra.setdefault(index, []).append(position)

    def _item(self, position: int, entry: Any, given: Iterator[int]) -> ViewItem:
        """The report's entry for a view entry that is not a plain durable message (stamps in view order)."""
        if isinstance(entry, SynthesizedTurn):
            return TurnView(view_index=position, role=entry.role, text=entry.text, timestamp=next(given, 0),
                            code=entry.reason.code, reason=render(entry.reason),
                            severity=rate(RepairKind.SYNTHESIZED_TURN, [entry.reason.code]), images=list(entry.images))
        if isinstance(entry, Synthesized):
            if entry.not_executed:
                return ReceiptView(view_index=position, call_id=entry.call_id, tool_name=entry.tool_name,
                                   frame_index=entry.frame_index, call_position=entry.call_position,
                                   timestamp=next(given, 0), text=NOT_EXECUTED_TEXT,
                                   severity=rate(RepairKind.REPAIRED_ARGUMENTS))
            return ReceiptView(view_index=position, call_id=entry.call_id, tool_name=entry.tool_name,
                               frame_index=entry.frame_index, call_position=entry.call_position,
                               timestamp=next(given, 0), text=self.plan.placeholder,
                               severity=rate(RepairKind.SYNTHESIZED))
        members = entry.entries if isinstance(entry, Merged) else (entry,)
        for member in members:
            self._place(member_index(member), position)
        last = members[-1]
        ids = (dict(last.ids) or None) if isinstance(last, Rewritten) else None
        carrier = entry_index(last)
        assert carrier is not None
        if ids:
            self.renames[carrier] = _renamed_ids(self.light, carrier, ids)
        if isinstance(entry, Merged):
            return MergedView(view_index=position, members=[member_index(member) for member in members], ids=ids,
                              role=self.light.roles[carrier])
        return DurableView(index=carrier, ids=ids)

    def severities(self, accepted: bool | None = None) -> set[Severity]:
        """Every severity the actions and the view's receipts and turns have, rated given what the
        providers say (accepted; None: not known)."""
        found = {rate(kind, [note.code for note in notes], accepted) for kind, notes, _ in self.changes.values()}
        if self.quiet:
            found.add(rate(RepairKind.KEPT, (), accepted))
        found.update(severity for item in self.items.values()
                     if (severity := _entry_severity(item, accepted)) is not None)
        return found

    def positions(self, index: int) -> list[int]:
        """Every view position of a durable message, in view order."""
        first = index if self.first is None else self.first[index]
        if first < 0:
            return []
        return [first, *self.extra.get(index, ())]

    def actions(self, accepted: bool | None = None) -> Iterator[list[Action]]:
        """One action per durable message, in durable order, a chunk at a time."""
        size = self.light.size
        changed = sorted(self.changes)
        for start in range(0, size, CHUNK):
            stop = min(start + CHUNK, size)
            chunk: list[Action] = []
            cursor = start
            for index in changed[bisect.bisect_left(changed, start):bisect.bisect_left(changed, stop)]:
                self._quiet_actions(cursor, index, accepted, chunk)
                chunk.append(self._changed_action(index, accepted))
                cursor = index + 1
            self._quiet_actions(cursor, stop, accepted, chunk)
            yield chunk

    def _quiet_actions(self, start: int, stop: int, accepted: bool | None, chunk: list[Action]) -> None:
        """The actions of messages start..stop-1, each kept in place with nothing to say (most of them):
        _change's conclusion for them, made without asking it each time."""
        if start >= stop:
            return
        first_at, extra, keys, roles = self.first, self.extra, self.light.result_keys, self.light.roles
        kept, quiet, get, append = RepairKind.KEPT, rate(RepairKind.KEPT, (), accepted), keys.get, chunk.append
        at = range(start, stop) if first_at is None else first_at[start:stop]
        if not extra and min(at) >= 0:  # the common case: each of them in the view, once
            for index, first in zip(range(start, stop), at, strict=True):
                key = get(index)
                append(Action(durable_index=index, role=roles[index], kind=kept, view_index=first,
                              also_view_indices=[], new_ids={}, kept_instead=None,
                              call_id=key if type(key) is str else None, codes=[], reason="", severity=quiet))
            return
        for index in range(start, stop):
            first = index if first_at is None else first_at[index]
            key = get(index)
            append(Action(durable_index=index, role=roles[index], kind=kept, view_index=first if first >= 0 else None,
                          also_view_indices=list(extra.get(index, ())) if first >= 0 else [], new_ids={},
                          kept_instead=None, call_id=key if type(key) is str else None, codes=[], reason="",
                          severity=quiet))

    def _changed_action(self, index: int, accepted: bool | None) -> Action:
        """The action of a message the view changes (dropped, merged, moved, renamed, or with a note)."""
        kind, notes, fields = self.changes[index]
        codes = [note.code for note in notes]
        said = dict(durable_index=index, role=self.light.roles[index], kind=kind, codes=codes,
                    reason=render_all(notes), severity=rate(kind, codes, accepted))
        if kind in _DROPPED:
            return Action(**said, **fields)
        where = self.positions(index)
        if kind is RepairKind.MERGED:
            return Action(**said, view_index=where[0] if where else None, **fields)
        view_index = self.moved[0].get(index, where[0] if where else None)
        return Action(**said, view_index=view_index, also_view_indices=[p for p in where if p != view_index],
                      **fields)

    def view(self, accepted: bool | None = None) -> Iterator[list[ViewItem]]:
        """The view's entries, in view order, a chunk at a time."""
        order = self.order
        if order is None:
            for start in range(0, self.light.size, CHUNK):
                yield [DurableView(index=index) for index in range(start, min(start + CHUNK, self.light.size))]
            return
        items = self.items
        special = sorted(items)
        for start in range(0, len(order), CHUNK):
            stop = start + CHUNK
            if bisect.bisect_left(special, start) == bisect.bisect_left(special, stop):  # plain messages only
                yield [DurableView(index=entry) for entry in order[start:stop]]  # type: ignore[arg-type]
                continue
            yield [DurableView(index=entry) if type(entry) is int else _rerated(items[position], accepted)
                   for position, entry in enumerate(order[start:stop], start)]

    def pairings(self) -> Iterator[list[Pairing]]:
        """Every call with the result(s) recorded for it and the one the view uses, a chunk at a time.

        The answer comes from the call's slot in the view, never from its id: ids repeat across turns
        and id-less calls share ''.  A call is 'shared' when the reference answers it with a result an
        earlier call already uses (its id's first result), not merely because its id was used before: a
        transcript the reference leaves unchanged answers each use with its own.  result_indices are the
        results recorded under the call's id in the call's own turn, plus the one answering it (a result
        the reference shares, or one the strict policy paired by tool name).  An id used by several
        frames owns the results recorded from its frame to the next frame using it (its first use, those
        before it too): listing every use's results under each use made the report grow with the square
        of the turns (4,000 turns reusing one id: 16 million entries).
        """
        light, plan, reused = self.light, self.plan, self.reused
        moved_to, in_run = self.moved
        results_for = plan.results_for
        shares = POLICY[plan.policy].shares_answers  # only the reference answers two calls with one result
        used: set[int] = set()
        every: dict[str, list[int]] = {}  # a reused id's results, listed once: '' can have one per message
        chunk: list[Pairing] = []
        for index, calls in light.frames.items():
            answers = self._answers(index, len(calls))
            for call_position, call in enumerate(calls):
                call_id = call.id
                frames = reused.get(call_id)
                if frames is None:
                    results = results_for(call_id)
                else:
                    listed = every.get(call_id)
                    if listed is None:
                        listed = every[call_id] = results_for(call_id)
                    results = _own_turn(listed, frames, index)
                answered_by: int | None = None
                view_index: int | None = None
                outcome: Outcome = "synthesized"
                answer = answers[call_position] if answers is not None else None
                if answer is not None:
                    view_index, entry = answer
                    if type(entry) is int:
                        answered_by = entry
                        if shares and entry in used:
                            outcome = "shared"
                        elif entry in moved_to and moved_to[entry] == view_index and entry not in in_run:
                            outcome = "moved"
                        else:
                            outcome = "answered"
                        if shares:
                            used.add(entry)
                        if not (results and results[0] == entry) and entry not in results:
                            results = sorted([*results, entry])
                chunk.append(Pairing(call_id=call_id, tool_name=call.name, frame_index=index,
                                     call_position=call_position, result_indices=results, answered_by=answered_by,
                                     view_index=view_index, outcome=outcome))
            if len(chunk) >= CHUNK:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    def _answers(self, frame: int, calls: int) -> Sequence[tuple[int, Any] | None] | None:
        """(view position, the durable result or the entry in the slot) for each call of a frame, None for
        a call the view leaves unanswered; None when the view does not hold the frame."""
        order = self.order
        if order is None:
            return _unchanged_answers(self.light, self.plan, frame, calls)
        position = self.frame_at.get(frame)
        if position is None:
            return None
        answers: list[tuple[int, Any] | None] = []
        for call_position in range(1, calls + 1):
            answer = order[position + call_position]
            if type(answer) is not int:
                carried = entry_index(answer)
                if carried is not None:
                    answer = carried
            answers.append((position + call_position, answer))
        return answers


def _unchanged_answers(light: LightTranscript, plan: Plan, frame: int, calls: int) -> list[tuple[int, int] | None]:
    """_answers when the view is the transcript itself.

    The strict planner leaves a transcript unchanged only when it paired every call with the
    result recorded in its slot (the k-th message after its frame), so that is the pairing to
    report: by position, which gives each id-less call (Gemini) and each use of a repeated id its
    own result.  Matching by id would hand every id-less call of a frame the first id-less result.
    The reference pairs by id within the run of results after the frame (as run_matches_frame
    checks it): calls repeating an id there are all answered by its first result (shared).
    """
    keys = light.result_keys
    if not POLICY[plan.policy].shares_answers:
        return [(slot, slot) if slot in keys else None for slot in range(frame + 1, frame + 1 + calls)]
    by_id: dict[Any, int] = {}
    cursor = frame + 1
    while cursor in keys:
        by_id.setdefault(keys[cursor], cursor)
        cursor += 1
    answers: list[tuple[int, int] | None] = []
    for call in light.frames[frame]:
        found = by_id.get(call.id)
        answers.append((found, found) if found is not None else None)
    return answers


def _reused(light: LightTranscript, known: Known) -> dict[str, list[int]]:
    """call id -> the frames using it (ascending), for each id that more than one frame uses.

    known: known_calls(light, plan): every call's uses (call_uses), or, for the strict policy, the first
    frame of every call id, where only a frame outside the clean turns can use an id again (a clean
    turn's ids are used there first).
    """
    if light.clean is None or known is not light.clean[1]:
        found = {call_id: list(dict.fromkeys(frame for frame, _ in uses)) for call_id, uses in known.items()
                 if len(uses) > 1}
        return {call_id: frames for call_id, frames in found.items() if len(frames) > 1}
    first, frames = known, light.frames
    reused: dict[str, list[int]] = {}
    for index in light.clean[2]:  # the loose frames and results, in order
        for call in frames.get(index, ()):
            start = first[call.id]
            if start != index:
                using = reused.setdefault(call.id, [start])
                if using[-1] != index:
                    using.append(index)
    return reused


def _own_turn(results: list[int], frames: list[int], frame: int) -> list[int]:
    """The results (ascending durable indices) recorded from `frame` up to the next of `frames` (the frames
    using the same id, ascending); the first use also owns those recorded before it."""
    if len(frames) < 2:
        return results
    at = bisect.bisect_left(frames, frame)
    low = bisect.bisect_right(results, frame) if at > 0 else 0
    high = bisect.bisect_left(results, frames[at + 1]) if at + 1 < len(frames) else len(results)
    return results[low:high]


def _entry_severity(entry: Any, accepted: bool | None) -> Severity | None:
    if isinstance(entry, ReceiptView):
        return rate(RepairKind.SYNTHESIZED, (), accepted)
    if isinstance(entry, TurnView):
        return rate(RepairKind.SYNTHESIZED_TURN, [entry.code], accepted)
    return None


def _rerated(item: Any, accepted: bool | None) -> Any:
    """A view entry with the severity it has given what the providers say (itself when unchanged)."""
    return with_severity(item, _entry_severity(item, accepted))


def with_severity(item: Any, severity: Severity | None) -> Any:
    """A record (action or view entry) with this severity: itself when it has it already, or None is given."""
    if severity is None or getattr(item, "severity", None) == severity:
        return item
    return msgspec.structs.replace(item, severity=severity)
