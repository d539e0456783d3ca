"""The repair algorithm, written once over the light transcript view.

A plan says which durable messages the model view keeps, in which order, and
where interrupted receipts must be synthesized.  The dict API, the CLI's fast
path and the format adapters all build a LightTranscript, call a planner, then
materialize the plan their own way (dict objects, or raw JSON bytes), so there
is exactly one algorithm to trust.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from itertools import compress, repeat
from operator import ne
from typing import TYPE_CHECKING, Any

from ..notes import Note
from .entries import RenamedAlike, Synthesized, ViewEntry

if TYPE_CHECKING:
    from ..notes import NoteCode
    from .views import LightTranscript


class Plan:
    """The outcome of planning one transcript.

    changed: False means the view is the durable transcript itself (identity).
    order: the view, as view entries (integrity.repair.entries; None when unchanged).
    repaired_tool_calls: ids that had no result anywhere, in frame order.
    first_result: call id -> durable index of its first result.
    more_results: call id -> indices of its later results (only ids with several).
    dropped_frames: durable indices of interrupted assistant frames left out.
    dropped_duplicates: durable index of a dropped receipt -> the receipt kept instead.
    dropped_strays: durable indices of results dropped because no call owns them.
    notes: durable index -> why the policy treated it as it did (a code; the report renders it).  Those noted
        in bulk (note_all) are made when the notes are first read.
    merged: durable index -> the durable index whose view message carries its content
        (strict policy, provider role rules).
    provider: the provider the view was planned for (None: no provider's role rules).
    settled: frames of clean turns the strict view keeps exactly as recorded, each followed directly
        by its results (none moved, renamed or replaced): a cheap diagnosis need not look at them.  Left
        empty for a view shaped for a provider, whose role rules may regroup turns: the diagnosis reads
        every frame there, so the set (8 MB at a million messages) is not kept.
    renamed_alike: the clean turns an order with stretches keeps in them though it renames their ids
        (entries.RenamedAlike); None when it has none (an order listing every message never has).
    calls_last: frames the view sends with their calls after their other parts (strict.calls_put_last).
    dropped_blank: user and assistant messages left out because they hold nothing but blank text, or no content
        (strict.blank_left_out: a provider with empty-content rules refuses them).
    without_blank: messages the view sends without their blank texts (strict.blank_left_out).
    text_only: error results the view sends with their texts alone (strict.errors_as_text).
    tool_names: frame -> call position -> the tool name the view sends for a name the provider refuses
        (strict.tool_names_fixed).
    signed: frames whose first call the view sends with a thought signature (strict.calls_signed).
    cut_texts: message -> the limit the view cuts its texts to (strict.texts_cut).
    reasoning_once: message -> the content positions of the thinking parts the view leaves out, each a reasoning
        item sent already earlier in the request (strict.reasoning_sent_once).
    images_sent_after: results whose images the view sends in a user message after their turn's results
        (strict.images_moved).
    images_gone: messages the view sends without their images (strict.images_left_out).
    own_rules: whether this plan may differ from one planned for another provider (analysis.plan_depends_on of its
        own provider, asked once by analysis.replans_for for every other provider); None: not asked yet.
    """

    __slots__ = (
        "policy",
        "changed",
        "order",
        "repaired_tool_calls",
        "_first_result",
        "_more_results",
        "_unindexed",
        "dropped_frames",
        "dropped_duplicates",
        "dropped_strays",
        "_notes",
        "_unmade",
        "placeholder",
        "merged",
        "provider",
        "settled",
        "renamed_alike",
        "calls_last",
        "dropped_blank",
        "without_blank",
        "text_only",
        "tool_names",
        "signed",
        "cut_texts",
        "reasoning_once",
        "images_sent_after",
        "images_gone",
        "own_rules",
    )

    def __init__(self, policy: str) -> None:
        self.policy = policy
        self.changed = False
        self.order: list[ViewEntry] | None = None
        self.repaired_tool_calls: list[str] = []
        self._first_result: dict[str, int] = {}
        self._more_results: dict[str, list[int]] = {}
        self._unindexed: LightTranscript | None = None
        self.dropped_frames: list[int] = []
        self.dropped_duplicates: dict[int, int] = {}
        self.dropped_strays: list[int] = []
        self._notes: dict[int, Note] = {}
        self._unmade: list[tuple[NoteCode, Iterable[int], tuple[str, ...], Iterable[Sequence[Any]] | None]] = []
        self.placeholder: str | None = None  # receipt text; None means the reference text
        self.merged: dict[int, int] = {}
        self.provider: str | None = None
        self.settled: set[int] = set()
        self.renamed_alike: RenamedAlike | None = None
        self.calls_last: set[int] = set()
        self.dropped_blank: list[int] = []
        self.without_blank: set[int] = set()
        self.text_only: set[int] = set()
        self.tool_names: dict[int, dict[int, str]] = {}
        self.signed: set[int] = set()
        self.cut_texts: dict[int, int] = {}
        self.reasoning_once: dict[int, tuple[int, ...]] = {}
        self.images_sent_after: set[int] = set()
        self.images_gone: set[int] = set()
        self.own_rules: bool | None = None

    @property
    def notes(self) -> dict[int, Note]:
        if self._unmade:
            self._make_notes()
        return self._notes

    def note_all(self, code: NoteCode, indices: Iterable[int], keys: tuple[str, ...] = (),
                 rows: Iterable[Sequence[Any]] | None = None) -> None:
        """Note each of `indices` with `code` and the params `keys` -> the values of its row (rows: one per index;
        None: no params), as `notes[index] = Note(code, dict(zip(keys, row)))` in this order would, but made only
        when the notes are first read: a repair that writes its view never reads them, and a defect-dense
        transcript has tens of thousands (a microsecond each).  Every later read or write of `notes` makes them
        first, so the notes and their order are what noting each at once gives."""
        self._unmade.append((code, indices, keys, rows))

    def note_codes(self) -> set[NoteCode]:
        """The codes of every note, without making those noted in bulk."""
        codes = {note.code for note in self._notes.values()}
        codes.update(code for code, _, _, _ in self._unmade)
        return codes

    def _make_notes(self) -> None:
        unmade, self._unmade = self._unmade, []
        notes = self._notes
        for code, indices, keys, rows in unmade:
            if rows is None:
                notes.update(zip(indices, map(Note, repeat(code), map(dict, repeat(()))), strict=False))
            else:
                notes.update(zip(indices, map(Note, repeat(code), map(dict, map(zip, repeat(keys), rows))),
                                 strict=True))

    @property
    def first_result(self) -> dict[str, int]:
        if self._unindexed is not None:
            self._index()
        return self._first_result

    @first_result.setter
    def first_result(self, value: dict[str, int]) -> None:
        self._first_result = value

    @property
    def more_results(self) -> dict[str, list[int]]:
        if self._unindexed is not None:
            self._index()
        return self._more_results

    @more_results.setter
    def more_results(self, value: dict[str, list[int]]) -> None:
        self._more_results = value

    def index_later(self, light: LightTranscript) -> None:
        """Index the results (index_results) only when first_result or more_results is read.

        A repair that writes the view never reads them (reports and diagnoses do): at a million
        messages the index is 0.3 s of a 3.5 s repair.
        """
        self._unindexed = light

    def _index(self) -> None:
        light, self._unindexed = self._unindexed, None
        assert light is not None
        index_results(light, self)

    def results_for(self, call_id: str) -> list[int]:
        """Every durable result index recorded for a call id, in order."""
        if self._unindexed is not None:
            self._index()
        first = self._first_result.get(call_id)  # (the fields themselves: a report asks once per call)
        if first is None:
            return []
        more = self._more_results.get(call_id)
        return [first] if more is None else [first, *more]


def index_results(light: LightTranscript, plan: Plan) -> None:
    """Fill plan.first_result and plan.more_results from the string result ids.

    Built by C-level passes: setdefault over every result leaves each id with its first index (in
    order of first use); only the later results of an id are visited one by one.
    """
    keys = light.result_keys
    first: dict[Any, int] = {}
    deque(map(first.setdefault, keys.values(), keys.keys()), maxlen=0)
    if set(map(type, first)) - {str}:  # NON_STRING_ID (or anything else) is no id
        first = {key: index for key, index in first.items() if type(key) is str}
    more: dict[str, list[int]] = {}
    if len(first) != len(keys):
        for index in compress(keys, map(ne, keys, map(first.get, keys.values()))):
            key = keys[index]
            if type(key) is str:
                extra = more.get(key)
                if extra is None:
                    more[key] = [index]
                else:
                    extra.append(index)
    plan.first_result = first
    plan.more_results = more


def run_matches_frame(light: LightTranscript, frame_index: int) -> bool:
    """The results right after a frame are exactly its call ids (order not checked).

    Mirrors the reference: the run is every consecutive toolResult, the expected
    ids form a set (so a frame repeating an id expects it once), and both sides
    must contain each other with the run as long as the set.
    """
    calls = light.frames[frame_index]
    keys = light.result_keys
    expected = {call.id for call in calls}
    run = []
    cursor = frame_index + 1
    while cursor in keys:
        run.append(keys[cursor])
        cursor += 1
    if len(run) != len(expected):
        return False
    present = set(run)  # membership in the run's list was a scan per call id: quadratic in a wide turn
    return all(key in expected for key in run) and all(call_id in present for call_id in expected)


def emit_order(light: LightTranscript, plan: Plan, skip: set[int]) -> list[ViewEntry]:
    """Rebuild the view: every index not skipped, in order, each frame followed by its answers.

    Only skipped indices and frames are visited one by one; the stretches between
    them are copied as ranges, which keeps a million-message repair fast.
    """
    frames = light.frames
    first = plan.first_result
    order: list[ViewEntry] = []
    extend = order.extend
    append = order.append
    previous = 0
    for index in sorted(skip.union(frames)):
        if previous < index:
            extend(range(previous, index))
        previous = index + 1
        calls = frames.get(index)
        if calls is None or index in skip:
            continue
        append(index)
        for position, call in enumerate(calls):
            found = first.get(call.id)
            append(found if found is not None else Synthesized(call.id, call.name, index, position))
    if previous < light.size:
        extend(range(previous, light.size))
    return order


def plan_openmaic(light: LightTranscript) -> Plan:
    """The reference repair (OpenMAIC repairOrphanedToolCalls), quirks included."""
    plan = Plan("openmaic")
    index_results(light, plan)
    frames = light.frames
    first = plan.first_result

    needs_repair = False
    for frame_index in frames:
        if not run_matches_frame(light, frame_index):
            needs_repair = True
            break
    plan.repaired_tool_calls = [
        call.id for calls in frames.values() for call in calls if call.id not in first
    ]
    if not needs_repair and not plan.repaired_tool_calls:
        return plan

    plan.changed = True
    known_ids = {call.id for calls in frames.values() for call in calls}
    owned = {index for index, key in light.result_keys.items() if key in known_ids}
    for call_id, extra in plan.more_results.items():
        if call_id in known_ids:
            for duplicate in extra:
                plan.dropped_duplicates[duplicate] = first[call_id]
    plan.dropped_frames = list(light.interrupted_frames)
    plan.order = emit_order(light, plan, owned.union(plan.dropped_frames))
    return plan
