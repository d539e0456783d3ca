"""The strict policy: a view every strict provider accepts, explained entry by entry.

The reference repair keeps results whose call id matches no call, answers a
reused id with the first result (losing the real one), and drops every
interrupted frame once it repairs anything.  Strict instead:

- pairs results by position: a result answers the nearest earlier unanswered call
  with its id; a call without an id (Gemini) is answered by order and tool name;
- prefers a real result over an interrupted receipt recorded for the same call;
- drops results no call owns, and duplicates, naming the receipt kept instead;
- renames later uses of a reused id (Anthropic and DeepSeek reject a repeated
  id anywhere in a request), and gives id-less calls ids for providers that
  require them;
- drops an interrupted frame only when it splits a frame from its results or
  has no content at all;
- synthesizes a receipt that tells the model the outcome is unknown;
- for a provider with rules on the order of turns (Bedrock, Gemini, Mistral),
  merges, drops or inserts turns so the view complies (integrity.repair.legalize);
- reads a numeric call id by its text (light_transcript(..., numeric_ids=True)):
  its result pairs with its call by the same value, and the view sends both ids
  as that string, as every provider wants (the schema finding stays in the report).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, KeysView, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import replace
from functools import cache, lru_cache
from itertools import chain, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from ..notes import Note, NoteCode
from .entries import RenamedAlike, Rewritten, Synthesized, SynthesizedTurn
from .legalize import has_role_rules, legalize
from .messages import IMAGES_CARRIED, STRICT_MESSAGE, strict_placeholder_text
from .pairing import CleanTurns, later_result, pair_unique
from .plan import Plan, index_results
from .views import (
    BLANK_ALONE,
    BLANK_EMPTY,
    BLANK_NONE,
    NON_STRING_ID,
    Clean,
    LightTranscript,
    legal_tool_name,
    refused_names,
    repeated_reasoning,
)

if TYPE_CHECKING:
    from ..providers.spec import IdRule, NameRule

__all__ = ["STRICT_MESSAGE", "plan_strict", "strict_placeholder_text"]


Slot = tuple[int, int]  # (frame index, call position)

_placeholder_text = lru_cache(maxsize=8)(strict_placeholder_text)
"""strict_placeholder_text, made once per placeholder (a JSON dump per file was ~5% of planning a small one)."""


def _clean_frames(light: LightTranscript, first_result: dict[str, int]) -> Clean:
    """The clean turns of a view whose reader did not classify them (built by hand, or read for another
    policy: LightBuilder(clean=False)); a classifying reader finds them as it reads.

    A clean turn is a frame followed directly by exactly its results, in call order, each call id used
    there for the first time (no earlier call or result has it, none is '').  Pairing such a turn needs
    no search: each call is answered by the result right after it, which is what _pair's in-order walk
    would find (no earlier message can be waiting for these ids).  Transcripts with numeric ids (read
    by their text, written rewritten) have none.  Returns the same facts as the builder's.
    """
    frames = light.frames
    if light.numeric_calls or light.numeric_results or light.bad_arguments:
        return [], None, sorted(frames.keys() | light.result_keys.keys())
    get = light.result_keys.get
    first = first_result.get
    seen: dict[str, int] = {}
    clean: list[int] = []
    for index in sorted(frames):
        at = index
        fresh = True
        for call in frames[index]:
            at += 1
            call_id = call.id
            if fresh and (get(at) != call_id or call_id in seen or first(call_id) != at or call_id == ""):
                fresh = False
            seen.setdefault(call_id, index)
        if fresh:
            clean.append(index)
    inside = {index + at for index in clean for at in range(len(frames[index]) + 1)}
    return clean, seen, sorted((frames.keys() | light.result_keys.keys()) - inside)


def _pair(light: LightTranscript, plan: Plan, turns: CleanTurns, loose: list[int]) -> dict[Slot, int]:
    """Assign each durable result to the call it answers; record drops and notes.

    turns: the clean turns, answered implicitly (CleanTurns); loose: every other frame and result, in
    order, which the in-order walk visits.  Returns the answers of every call but
    the clean ones, and of a clean call whose receipt a later real result replaced.
    """
    frames = light.frames
    keys = light.result_keys
    receipts = light.receipts
    open_calls: dict[str, list[Slot]] = {}  # id -> unanswered slots, in transcript order
    early: list[int] = []
    answers: dict[Slot, int] = {}
    last_use: dict[str, Slot] = {}  # id -> the latest call slot with it so far, but clean ones (turns.slot_of)
    last_idless: dict[Any, Slot] = {}  # tool name -> the latest call without an id of that tool so far
    for index in loose:
        calls = frames.get(index)
        if calls is not None:
            for position, call in enumerate(calls):
                call_id, slot = call.id, (index, position)
                waiting = open_calls.get(call_id)
                if waiting is None:
                    open_calls[call_id] = [slot]
                else:
                    waiting.append(slot)
                last_use[call_id] = slot
                if call_id == "":
                    last_idless[call.name] = slot
            continue
        key = keys[index]
        if key is NON_STRING_ID:
            plan.dropped_strays.append(index)
            plan.notes[index] = Note.of(NoteCode.RESULT_WITHOUT_STRING_ID)
            continue
        waiting = open_calls.get(key)
        if waiting and len(waiting) == 1 and key != "":  # the common case: one call waits for this id
            answers[waiting.pop()] = index
            continue
        if waiting:
            _pair_waiting(light, plan, answers, waiting, index, turns)
            continue
        if key == "":  # no id-less call waits: a second result for the latest id-less call of its tool
            name = light.result_names.get(index)  # (a call of another tool is not the one it answers)
            used = last_idless.get(name)
        else:
            used = last_use.get(key) or turns.slot_of(key)  # a reuse of a clean id always comes after it
        if used is not None and turns.answer(answers, used) is not None:
            naming: dict[str, Any] = {"call_id": "", "tool": name} if key == "" else {"call_id": key}
            later_result(plan, answers, receipts, used, index, naming, turns)
            continue
        early.append(index)
    _pair_early(light, plan, answers, open_calls, last_use, early, turns)
    return answers


def _pair_early(light: LightTranscript, plan: Plan, answers: dict[Slot, int], open_calls: dict[str, list[Slot]],
                last_use: dict[str, Slot], early: list[int], turns: CleanTurns) -> None:
    """Results no call was waiting for when they were recorded: never drop a real result a call can own.

    A result recorded before its call answers it; one whose call is answered already
    is a second result (the real one beats a receipt); a result without an id (or
    one answering a call without an id: Gemini's ids are optional) answers the
    nearest earlier unanswered call of its tool; only what is left is a stray.

    Linear in the transcript: what an id-less result looks for by its tool's name (the waiting
    calls, the first answered call, the unanswered calls) is indexed by name once, when the
    first such result comes, and kept as answers are given.
    """
    keys = light.result_keys
    unanswered: _Unanswered | None = None
    idless: _IdlessCalls | None = None
    for index in early:
        key = keys[index]
        if key == "" and idless is None:
            idless = _IdlessCalls(light, answers, open_calls.get("", []))
        if key == "":
            assert idless is not None
            slot = idless.waiting_for(light.result_names.get(index))
        else:
            waiting = open_calls.get(key)
            slot = waiting.pop(0) if waiting else None
        if slot is not None:
            answers[slot] = index
            plan.notes[index] = Note.of(NoteCode.RESULT_BEFORE_CALL)
            continue
        answered = _answered_use(light, answers, last_use, index, turns, idless)
        if answered is not None:
            naming = {"call_id": key} if key != "" else {"call_id": "", "tool": light.result_names.get(index)}
            later_result(plan, answers, light.receipts, answered, index, naming, turns)
            continue
        if key == "" or "" in last_use:
            if unanswered is None:
                unanswered = _Unanswered(light, answers, turns)
            named = unanswered.nearest(light, answers, index)
            by_order = named is None and not light.result_names.get(index)
            if by_order and key != "":  # an id no call has, and no tool name, after a frame whose call has no id
                named = unanswered.in_order(light, answers, index, idless=True)  # (a Chat writer lost the call's)
                by_order = named is not None
            elif by_order:  # no id and no tool name (a Chat tool message names none): the order is all there is
                named = unanswered.in_order(light, answers, index)
                answered = None if named is not None else unanswered.answered_in_order(light, answers, index)
                if answered is not None:  # every call of the frame before it is answered: a later result
                    later_result(plan, answers, light.receipts, answered, index,
                                 {"call_id": "", "tool": light.frames[answered[0]][answered[1]].name}, turns)
                    continue
            if named is not None:
                answers[named] = index
                if idless is not None:
                    idless.answered(light, named)
                call = light.frames[named[0]][named[1]]
                code = NoteCode.RESULT_PAIRED_BY_ORDER if by_order else NoteCode.RESULT_PAIRED_BY_NAME
                plan.notes[index] = Note.of(code, call_id=call.id, result_id=key, tool=call.name, frame=named[0])
                continue
        plan.dropped_strays.append(index)
        plan.notes[index] = Note.of(NoteCode.RESULT_WITHOUT_CALL, call_id=key) if key != "" else \
            Note.of(NoteCode.RESULT_WITHOUT_CALL, call_id="", tool=light.result_names.get(index))


class _IdlessCalls:
    """The calls without an id, by tool name: those still waiting for a result (in order), and the first
    answered one of each tool (a clean call never has an empty id, so `answers` holds every answer)."""

    def __init__(self, light: LightTranscript, answers: dict[Slot, int], waiting: list[Slot]) -> None:
        frames = light.frames
        self.answers = answers
        self.waiting: dict[Any, deque[Slot]] = {}
        for slot in waiting:
            self.waiting.setdefault(frames[slot[0]][slot[1]].name, deque()).append(slot)
        self.first: dict[Any, Slot] = {}
        for frame, calls in frames.items():
            for position, call in enumerate(calls):
                if call.id == "" and (frame, position) in answers:
                    self.first.setdefault(call.name, (frame, position))

    def waiting_for(self, name: Any) -> Slot | None:
        """The first waiting call of this tool, taken: it is answered now (as results after their call pair).
        A call answered by name since it was left waiting is passed over, once."""
        slots = self.waiting.get(name)
        while slots and slots[0] in self.answers:
            slots.popleft()
        if not slots:
            return None
        slot = slots.popleft()
        self.first[name] = min(self.first.get(name, slot), slot)
        return slot

    def answered(self, light: LightTranscript, slot: Slot) -> None:
        """A call was answered by name: it may be its tool's first answered call without an id."""
        call = light.frames[slot[0]][slot[1]]
        if call.id == "":
            self.first[call.name] = min(self.first.get(call.name, slot), slot)


def _answered_use(light: LightTranscript, answers: dict[Slot, int], last_use: dict[str, Slot],
                  index: int, turns: CleanTurns, idless: _IdlessCalls | None) -> Slot | None:
    """The answered call a result recorded before its call would be a second result for, if any:
    the latest use of its id, or for an id-less result the first answered id-less call of its tool
    (a clean call never has an empty id)."""
    key = light.result_keys[index]
    if key != "":
        slot = last_use.get(key) or turns.slot_of(key)
        return slot if slot is not None and turns.answer(answers, slot) is not None else None
    assert idless is not None
    return idless.first.get(light.result_names.get(index))


class _Unanswered:
    """Every call without an answer, by tool name, in transcript order (clean calls are answered), and
    those of them without an id: an id-less result may pair with any of its tool's calls, a result
    with an id only with one without.  A call answered since is dropped when a search meets it."""

    def __init__(self, light: LightTranscript, answers: dict[Slot, int], turns: CleanTurns) -> None:
        self.any: dict[Any, list[Slot]] = {}
        self.idless: dict[Any, list[Slot]] = {}
        self.open: set[Slot] = set()  # every call not answered when the search began (clean calls are)
        for index, calls in light.frames.items():
            if turns.has(index):
                continue
            for position, call in enumerate(calls):
                if (index, position) not in answers:
                    self.open.add((index, position))
                    self.any.setdefault(call.name, []).append((index, position))
                    if call.id == "":
                        self.idless.setdefault(call.name, []).append((index, position))

    def in_order(self, light: LightTranscript, answers: dict[Slot, int], index: int, idless: bool = False
                 ) -> Slot | None:
        """For a result with neither an id nor a tool name: the first unanswered call of the latest frame
        before it (as Gemini pairs by order), or None when that frame has none.  idless: only a call without an
        id (for a result whose id no call has: the call's was lost, not the result's)."""
        frame = max((at for at in light.frames if at < index), default=None)
        if frame is None:
            return None
        calls = light.frames[frame]
        return next(((frame, position) for position in range(len(calls))
                     if (frame, position) not in answers and (frame, position) in self.open
                     and (not idless or calls[position].id == "")), None)

    def answered_in_order(self, light: LightTranscript, answers: dict[Slot, int], index: int) -> Slot | None:
        """For a result with neither an id nor a tool name after every call of the latest frame before it is
        answered: that frame's first id-less call (the result is a later result for it), else None."""
        frame = max((at for at in light.frames if at < index), default=None)
        if frame is None:
            return None
        found = next(((frame, position) for position, call in enumerate(light.frames[frame])
                      if call.id == "" and (frame, position) in answers), None)
        if found is not None:
            return found
        # The latest frame's calls all have ids, and the result names none: a provider reads an empty id as
        # the earlier id-less call's, so it is a later result for one of those: the earliest answered only
        # by a receipt (a tool that finished after its receipt, a turn later), else the earliest answered.
        # Rare: only results with neither an id nor a tool name get here.
        idless = [(at, position) for at in sorted(light.frames) if at < index
                  for position, call in enumerate(light.frames[at]) if call.id == "" and (at, position) in answers]
        return next((slot for slot in idless if answers[slot] in light.receipts), idless[0] if idless else None)

    def nearest(self, light: LightTranscript, answers: dict[Slot, int], index: int) -> Slot | None:
        """The unanswered call of the result's tool nearest before it, where one side has no id."""
        by_name = self.any if light.result_keys[index] == "" else self.idless
        slots = by_name.get(light.result_names.get(index))
        if not slots:
            return None
        at = bisect_left(slots, (index, -1)) - 1
        while at >= 0:
            slot = slots[at]
            if slot not in answers:
                return slot
            del slots[at]  # answered since: never looked at again
            at -= 1
        return None


def _pair_waiting(light: LightTranscript, plan: Plan, answers: dict[Slot, int], waiting: list[Slot],
                  index: int, turns: CleanTurns) -> None:
    """Pair a result with one of several calls waiting for its id: the latest frame's, first in order.

    Id-less calls pair by order and name: the first waiting call with this tool
    name; a result naming a tool whose calls are all answered is a later result
    for the first of them; a name no call has pairs by order.  The latest frame's calls
    end `waiting` (transcript order), so only they are looked at: calls left unanswered
    long before never are.
    """
    frames = light.frames
    latest = waiting[-1][0]
    start = len(waiting) - 1
    while start > 0 and waiting[start - 1][0] == latest:
        start -= 1
    chosen = start  # the first of them
    if light.result_keys[index] == "":
        name = light.result_names.get(index)
        named = next((at for at in range(start, len(waiting)) if frames[latest][waiting[at][1]].name == name), None)
        if named is None:
            answered = next(((latest, position) for position, call in enumerate(frames[latest])
                             if call.id == "" and call.name == name and (latest, position) in answers), None)
            if answered is not None:
                later_result(plan, answers, light.receipts, answered, index, {"call_id": "", "tool": name}, turns)
                return
        else:
            chosen = named
    answers[waiting.pop(chosen)] = index


@cache
def _spec(provider: str | None) -> Any:
    """The provider's spec (None: no provider, or a name no spec has).  The providers package loads only when a
    provider is named: the CLI's fast path never needs it.  Kept per name: a plan asks for every file."""
    if provider is None:
        return None
    from ..providers import SPECS

    return SPECS.get(provider)


def _needs_call_ids(provider: str | None) -> bool:
    """Whether the view's provider wants every call to carry an id (its spec; unknown names do)."""
    found = _spec(provider)
    return provider is not None and (found is None or found.needs_call_ids)


def id_rule(provider: str | None, light: LightTranscript | None = None) -> IdRule | None:
    """The provider's rule on call ids (pattern and length), or None: any string.  With the light view of a
    transcript whose runtime sends its ids otherwise to that provider (LightTranscript.sent_ids), the rule on the
    ids as sent: a pi session's `call_…|fc_…` is long, but OpenAI Responses is sent `call_…`, which it takes."""
    found = _spec(provider)
    rule: IdRule | None = found.id_rule if found is not None else None
    if rule is None or light is None or not light.sent_ids or provider is None:
        return rule
    sent = light.sent_ids.get(provider)
    if sent is None:
        return rule
    return _as_sent(rule, sent)


@lru_cache(maxsize=16)  # (a file's own: a fleet of pi sessions must not keep one per file)
def _as_sent(rule: IdRule, sent: Callable[[str], str]) -> IdRule:
    """The rule on ids as a runtime sends them; an id it refuses is made anew as the rule makes it."""
    takes_all = rule.accepts_all
    return replace(rule, accepts=lambda call_id: rule.accepts(sent(call_id)),
                    accepts_all=None if takes_all is None else lambda ids: takes_all(list(map(sent, ids))))


def closes_turns_with_calls(provider: str | None) -> bool:
    """Whether the provider answers only the calls that close an assistant turn (ProviderSpec.calls_close_turn)."""
    found = _spec(provider)
    return found is not None and bool(found.calls_close_turn)


def calls_put_last(light: LightTranscript, provider: str | None) -> set[int]:
    """The frames the view planned for `provider` sends with their calls after their other parts: every frame
    with a part after a call (light.late_frames) when the provider refuses such a frame; else none.  The view
    says so itself rather than leave it to a writer: Anthropic's writes a frame of another format calls last,
    a Responses writer keeps the recorded order, and a runtime sending the view writes what it is given."""
    return light.late_frames if light.late_frames and closes_turns_with_calls(provider) else set()


def blank_left_out(light: LightTranscript, provider: str | None) -> tuple[list[int], set[int]]:
    """What the view planned for `provider` leaves out of the messages holding a blank text (light.blank_texts),
    when the provider refuses blank text: (the messages left out, holding nothing else; the messages sent
    without their blank texts: those with an empty one, and those with a whitespace one beside other parts where
    the provider refuses it (BlankRule.whitespace_beside: Bedrock's assistant messages)).  The request's last
    message is spared when it is an assistant's without calls and the rules spare the final assistant message
    (Anthropic's), as the view ends with it too.  A blank text carries nothing, so leaving it out loses nothing;
    a provider that combines consecutive messages of one role reads the messages on each side of one left out as
    one turn, as it would have (and Bedrock's view merges them: its role rules).  A provider whose rule reads no
    text (BlankRule.texts: Gemini's "contents.parts must not be empty") has only the messages without any content
    left out (BLANK_NONE), and every text sent as it is."""
    texts = light.blank_texts
    found = _spec(provider) if texts else None
    rule = found.blank_text if found is not None else None
    if rule is None or not texts:
        return [], set()
    last = light.size - 1 if rule.spares_final_assistant else -1
    whole: list[int] = []
    parts: set[int] = set()
    for index, held in sorted(texts.items()):
        if index == last and light.roles[index] == "assistant" and index not in light.frames:
            continue
        if held == BLANK_NONE or (held == BLANK_ALONE and rule.texts):
            whole.append(index)
        elif rule.texts and (held == BLANK_EMPTY or light.roles[index] in rule.whitespace_beside):
            parts.add(index)
    return whole, parts


def errors_as_text(light: LightTranscript, provider: str | None) -> set[int]:
    """The error results the view planned for `provider` sends with their texts alone (light.error_contents), when
    the provider takes text alone in an error result and refuses one with no content (ProviderSpec.error_text_only:
    Anthropic, Bedrock).  Claude Code sends such results so (its sanitizeErrorToolResultContent); a pi session
    replaying an error result that holds a screenshot is refused on every later request without it."""
    found = light.error_contents
    if not found:
        return set()
    spec = _spec(provider)
    return set(found) if spec is not None and spec.error_text_only else set()


def calls_signed(light: LightTranscript, provider: str | None) -> set[int]:
    """The frames whose first call the view planned for `provider` sends with the thought signature Google documents
    for calls its model did not make (repair.messages.SKIP_SIGNATURE): the current turn's frames whose first call
    has none (light.unsigned_frames), when the provider refuses them so (ProviderSpec.signs_calls: Gemini 3's
    thought_signature_missing).  A session carried over from another model, or whose store dropped the signatures,
    is refused on every later request of the turn without it; Gemini 2.x takes the signature too."""
    found = light.unsigned_frames
    if not found:
        return set()
    spec = _spec(provider)
    return set(found) if spec is not None and spec.signs_calls else set()


def texts_cut(light: LightTranscript, provider: str | None) -> dict[int, int]:
    """The messages whose texts the view planned for `provider` cuts, and the limit each is cut to: those whose
    texts joined are longer than the most characters the provider takes in one string (light.long_texts;
    ProviderSpec.string_limit: OpenAI's 10,485,760).  A tool that read a large file leaves such an output, and every
    later request of the session is refused without the cut."""
    found = light.long_texts
    if not found:
        return {}
    spec = _spec(provider)
    limit = spec.string_limit if spec is not None else None
    return dict.fromkeys(sorted(found), limit) if limit else {}


def reasoning_sent_once(light: LightTranscript, provider: str | None, left_out: Collection[int] = ()
                        ) -> dict[int, tuple[int, ...]]:
    """The thinking parts the view planned for `provider` leaves out, message -> content positions: each a reasoning
    item that an earlier part the view sends holds too (light.reasoning; views.repeated_reasoning), when the provider
    refuses an item id twice (ProviderSpec.reasoning_once: OpenAI Responses).  A turn stored twice (a retried write,
    a resumed run replaying its items) is refused on every later request without it.  left_out: the messages the
    view does not send (their reasoning is not sent before anything)."""
    spec = _spec(provider)
    if spec is None or not spec.reasoning_once:
        return {}
    found = light.reasoning_of()
    if not found:
        return {}
    return repeated_reasoning((index for index in sorted(found) if index not in left_out), found.__getitem__)


def images_moved(light: LightTranscript, provider: str | None) -> set[int]:
    """The results whose images the view planned for `provider` sends in a user message after their turn's results:
    those holding an image (light.images), when the provider takes images from a user message alone
    (ProviderSpec.images_from_user_only: OpenAI Chat's "Image URLs are only allowed for messages with role 'user'").
    A tool that returns a screenshot or a rendered page leaves such a result, and every later request of the session
    is refused without the move; pi's own OpenAI Chat builder sends a result's images so (formats.pi_requests)."""
    found = light.images
    if not found:
        return set()
    spec = _spec(provider)
    if spec is None or not spec.images_from_user_only:
        return set()
    roles = light.roles
    return {index for index in found if roles[index] == "toolResult"}


def images_left_out(light: LightTranscript, provider: str | None) -> set[int]:
    """The messages the view planned for `provider` sends without their images: every one holding an image
    (light.images), when the provider takes none (ProviderSpec.takes_images: DeepSeek's "unknown variant
    `image_url`, expected `text`").  A session with a screenshot or a pasted image is refused on every later request
    without it; pi sends such a model no image either (formats.pi_requests)."""
    found = light.images
    if not found:
        return set()
    spec = _spec(provider)
    return set(found) if spec is not None and not spec.takes_images else set()


def with_images_carried(light: LightTranscript, order: list[Any], provider: str | None) -> list[Any]:
    """The view order with, after each run of results holding a result whose images it moves (Rewritten.images_out),
    a user turn sending those images (SynthesizedTurn.images): results of one turn stay together, as every provider
    needs them, and the images follow them at once.  A stretch of results running on past the run's end is cut
    there."""
    keys = light.result_keys
    out: list[Any] = []
    pending: list[int] = []

    def carrier() -> SynthesizedTurn:
        calls = ", ".join(keys[index] if isinstance(keys[index], str) else f"#{index}" for index in pending)
        turn = SynthesizedTurn("user", IMAGES_CARRIED.format(calls=calls),
                               Note.of(NoteCode.IMAGES_CARRIED, provider=provider, results=list(pending)),
                               tuple(pending))
        pending.clear()
        return turn

    for entry in order:
        kind = type(entry)
        if kind is range and pending:
            end = entry.start
            while end < entry.stop and end in keys:
                end += 1
            if end == entry.stop:
                out.append(entry)
                continue
            if end > entry.start:
                out.append(range(entry.start, end))
            out.append(carrier())
            out.append(range(end, entry.stop))
            continue
        result = kind is Synthesized or (kind is int and entry in keys) or (kind is Rewritten and entry.index in keys)
        if pending and not result:
            out.append(carrier())
        out.append(entry)
        if kind is Rewritten and entry.images_out:
            pending.append(entry.index)
    if pending:
        out.append(carrier())
    return out


def with_cuts(order: list[Any], cuts: Mapping[int, int]) -> list[Any]:
    """The view order with each message of `cuts` sent cut (Rewritten.cut), wherever the order carries it."""
    return with_rewritten(order, cuts, "cut")


def with_rewritten(order: list[Any], changes: Mapping[int, Any], field: str) -> list[Any]:
    """The view order with each message of `changes` sent with its value as Rewritten's `field`, wherever the order
    carries it: kept as an index or in a stretch (split around it), or already rewritten."""
    out: list[Any] = []
    for entry in order:
        kind = type(entry)
        if kind is int:
            out.append(Rewritten(entry, {}, **{field: changes[entry]}) if entry in changes else entry)
        elif kind is range:
            start = entry.start
            for index in sorted(index for index in changes if entry.start <= index < entry.stop):
                if start < index:
                    out.append(range(start, index))
                out.append(Rewritten(index, {}, **{field: changes[index]}))
                start = index + 1
            if start < entry.stop:
                out.append(range(start, entry.stop) if start != entry.start else entry)
        elif kind is Rewritten and entry.index in changes:
            out.append(replace(entry, **{field: changes[entry.index]}))
        else:
            out.append(entry)
    return out


def tool_name_rule(provider: str | None) -> NameRule | None:
    """What the provider takes as a history call's tool name (ProviderSpec.tool_names), or None."""
    spec = _spec(provider)
    return spec.tool_names if spec is not None else None


def _legal_names(light: LightTranscript, provider: str | None) -> dict[str, str]:
    """Each tool name of the light view the provider refuses (ProviderSpec.tool_names) -> the name its view sends,
    made from the few names some provider refuses (views.refused_names: every name one refuses is among them)."""
    rule = tool_name_rule(provider)
    if rule is None:
        return {}
    return {name: legal for name in refused_names(light)
            if (legal := legal_tool_name(name, rule.limit, rule.chars)) is not None}


def refuses_names(light: LightTranscript, provider: str | None) -> bool:
    """Whether the provider refuses the tool name of some call of the light view (ProviderSpec.tool_names)."""
    return bool(_legal_names(light, provider))


def tool_names_fixed(light: LightTranscript, provider: str | None) -> dict[int, dict[int, str]]:
    """The tool names the view planned for `provider` sends in place of recorded ones it refuses (frame -> call
    position -> name), when it limits a history call's name (ProviderSpec.tool_names: Anthropic's 200 characters,
    OpenAI Chat's and Bedrock's 64 of a-zA-Z0-9_-; no empty one): a long name cut to the limit, a character it
    does not take sent as "_", an empty name UNNAMED_TOOL (views.legal_tool_name).  The call and its result stay:
    a model that named a tool by a whole shell command was answered "No such tool available", and the view keeps
    that record of its try (Claude Code replays the name on every later request, and on resume:
    anthropics/claude-code#94799)."""
    legal = _legal_names(light, provider)
    if not legal:
        return {}
    found: dict[int, dict[int, str]] = {}
    for index, calls in light.frames.items():
        for position, call in enumerate(calls):
            name = legal.get(call.name)
            if name is not None:
                found.setdefault(index, {})[position] = name
    return found


def refuses_some_id(light: LightTranscript, provider: str | None, every_id: Collection[str] | None = None) -> bool:
    """Whether the provider refuses some call id of the transcript (the view renames those for it)."""
    rule = id_rule(provider, light)
    if rule is None:
        return False
    ids = every_id if every_id is not None else {call.id for calls in light.frames.values() for call in calls}
    if rule.accepts_all is not None:  # (no "" among them, as usual: the ids copied at C speed)
        return not rule.accepts_all(list(ids) if "" not in ids else [call_id for call_id in ids if call_id != ""])
    return not all(rule.accepts(call_id) for call_id in ids if call_id != "")


Renamed = Mapping[int, dict[int, str]]
"""frame index -> call position -> the call's new id, positions in order (a frame's Rewritten ids)."""


def _renames(light: LightTranscript, provider: str | None, every_id: Collection[str] | None = None,
             asked: bool = False) -> tuple[Renamed, Mapping[str, str]]:
    """New ids for later uses of a reused id, for id-less calls when the provider needs ids, and for ids the
    provider refuses (its id rule: Anthropic's pattern, Mistral's nine characters, OpenAI's length); and each
    refused id -> its new id (_made: a call that is its id's first use and not renamed for another reason, as
    a clean turn's, is renamed by it alone).

    every_id: every call id (a set, or a dict keyed by them), when the caller has it already (the
    light view's: never changed).  asked: the plan reads few of the new ids (one with stretches: the
    diagnosis), so Mistral's may be made when asked instead of held (new_ids.MadeWhenAsked).
    """
    known: Collection[str]
    if every_id is None:
        ids = [call.id for calls in light.frames.values() for call in calls]
        known, uses_count = set(ids), len(ids)
    else:
        known, uses_count = every_id, sum(map(len, light.frames.values()))
    name_empty = _needs_call_ids(provider)
    numeric = light.numeric_calls
    rule = id_rule(provider, light)
    refused = rule is not None and refuses_some_id(light, provider, known)
    once = len(known) == uses_count and ("" not in known or not name_empty) and not numeric
    if once and not refused:
        return {}, {}  # every id used once, and no id-less call needs a name: nothing to rename
    # the ids in use, copied only to add the new names of reused ids: a copy of Mistral's million refused ids
    # (~64 MB once _made's names joined it) is left to _made's rare walk past a colliding name
    taken: AbstractSet[str]
    renamed: dict[Slot, str] = {}
    if not once:
        taken = used = set(known)
        renamed = _reused(light, name_empty, used)
    else:
        taken = known.keys() if isinstance(known, Mapping) else known if isinstance(known, AbstractSet) else set(known)
    if rule is not None and (refused or not all(map(rule.accepts, renamed.values()))):
        return _obey(light, rule, renamed, taken, asked)  # the ids it refuses, and names given above it would refuse
    by_frame: dict[int, dict[int, str]] = {}
    for (index, position), new in renamed.items():
        by_frame.setdefault(index, {})[position] = new
    return by_frame, {}


def _reused(light: LightTranscript, name_empty: bool, taken: set[str]) -> dict[Slot, str]:
    """New ids for later uses of a reused id, for id-less calls when the provider needs ids (name_empty), and
    numeric ids as their text, in transcript order; the new names are added to `taken`."""
    renamed: dict[Slot, str] = {}
    uses: dict[str, int] = {}
    numeric = light.numeric_calls
    heads: set[str] | None = None  # the first part of each joined id taken, read when a name is first made

    def free(candidate: str) -> bool:
        """Unused, and so is what pi sends of it: a joined id's first part alone is the call id of its Chat
        requests (pi_requests), so a new `call_1_2` and a renamed `call_1_2|fc_…_2` would be sent as one id."""
        nonlocal heads
        if candidate in taken:
            return False
        if heads is None:
            heads = {value.split("|", 1)[0] for value in taken if "|" in value}
        head = candidate.split("|", 1)[0]
        return head not in heads and ("|" not in candidate or head not in taken)

    def take(candidate: str) -> str:
        taken.add(candidate)
        if heads is not None and "|" in candidate:
            heads.add(candidate.split("|", 1)[0])
        return candidate

    for index, calls in light.frames.items():
        for position, call in enumerate(calls):
            if call.id == "":
                if name_empty or (index, position) in numeric:  # (an id that is null or missing: no writer sends it)
                    candidate = f"call_{index}_{position}"
                    while not free(candidate):
                        candidate += "_"
                    renamed[(index, position)] = take(candidate)
                continue
            count = uses.get(call.id, 0) + 1
            uses[call.id] = count
            if count > 1:  # (each part of a joined id, `call_…|fc_…`: pi sends the parts apart, pi_responses)
                extra = ""
                while True:
                    candidate = "|".join(f"{part}_{count}{extra}" for part in call.id.split("|")) \
                        if "|" in call.id else f"{call.id}_{count}{extra}"
                    if free(candidate):
                        break
                    extra += "_"
                renamed[(index, position)] = take(candidate)
            elif (index, position) in numeric:
                renamed[(index, position)] = call.id  # the number, sent as its text
    return renamed


def _obey(light: LightTranscript, rule: IdRule, renamed: dict[Slot, str], taken: AbstractSet[str],
          asked: bool = False) -> tuple[Renamed, Mapping[str, str]]:
    """Rename every id the provider's rule refuses (after the other renames: `renamed`) to one it takes, unused;
    returns every rename by frame, and each refused id -> its new id.

    Each refused id gets rule.make(id, 0), else the next attempt, the ids met in transcript order: when no
    first attempt is taken, refused, or another's, that is what the walk would give, and the first attempts
    are checked at once (the rule's accepts_all) instead of one by one.  A transcript whose every id Mistral
    refuses has its ids judged at C speed (ids.refused_positions), and (asked) its new ids made when asked:
    none of its ids is one Mistral takes, so no first attempt (one it takes) is among them."""
    from ..providers.ids import mistral_make, refused_positions  # (a rule is a provider's: providers are loaded)

    frames = light.frames
    current = list(map(_ID, chain.from_iterable(frames.values())))
    if renamed:
        slots = list(zip(*_slots(frames), strict=True))
        current = list(map(renamed.get, slots, current))
    refused = refused_positions(rule, current)
    if not renamed and len(refused) == len(current):  # every id refused (Mistral's of most transcripts): each
        del refused                                      # frame's new ids made when asked (few are)
        distinct = taken if isinstance(taken, KeysView) else dict.fromkeys(current).keys()  # (in transcript order)
        made: Mapping[str, str] | None = None
        if asked and rule.make is mistral_make:
            from .new_ids import mistral_made

            made = mistral_made(distinct)
        if made is None:
            made = _made(rule, list(distinct), taken)
        return _RenamedWhole(frames, made), made
    made = _made(rule, list(dict.fromkeys(map(current.__getitem__, refused))), taken)
    frame_of, position_of = _slots(frames)
    changed: Iterable[int] = refused
    if renamed:
        at = {slot: number for number, slot in enumerate(slots)}
        changed = sorted({*refused, *map(at.__getitem__, renamed)})
    by_frame: dict[int, dict[int, str]] = {}
    for number in changed:
        value = current[number]
        frame = frame_of[number]
        ids = by_frame.get(frame)
        if ids is None:
            ids = by_frame[frame] = {}
        ids[position_of[number]] = made.get(value, value)
    return by_frame, made


def _slots(frames: Mapping[int, Any]) -> tuple[list[int], list[int]]:
    """The frame and the call position of each call, in transcript order (C-level maps)."""
    sizes = list(map(len, frames.values()))
    return list(chain.from_iterable(map(repeat, frames, sizes))), list(chain.from_iterable(map(range, sizes)))


def _made(rule: IdRule, refused: list[str], taken: AbstractSet[str]) -> dict[str, str]:
    """refused id -> its new id, for distinct refused ids in transcript order (see _obey); `taken` (the ids in
    use) is left as it is: the walk past a colliding first attempt (a million sha1 prefixes of nine hex digits
    meet about once) keeps its own names apart instead of adding them to a copy of every id (~64 MB)."""
    from ..providers.ids import first_attempts

    first = first_attempts(rule, refused)
    accepted = rule.accepts_all is not None and rule.accepts_all(first)  # (then each is: none asked again)
    if accepted and taken.isdisjoint(first) and len(set(first)) == len(first):  # no first attempt taken, or
        return dict(zip(refused, first, strict=True))                          # another's: the loop's answer
    used: set[str] = set()  # the names made so far
    made: dict[str, str] = {}
    for value, new in zip(refused, first, strict=True):
        if new in used or new in taken or not (accepted or rule.accepts(new)):
            attempt = 1
            new = rule.make(value, attempt)
            while new in used or new in taken or not rule.accepts(new):
                attempt += 1
                new = rule.make(value, attempt)
        used.add(new)
        made[value] = new
    return made


_ID = attrgetter("id")


class _RenamedWhole(Mapping[int, dict[int, str]]):
    """Renamed for a transcript whose every call id the provider refuses (and none renamed for another reason):
    each frame's every call renamed by `made` (refused id -> new id), its ids made when asked.  A view with
    stretches asks only for the frames outside the clean turns (those are renamed alike: RenamedAlike)."""

    __slots__ = ("_frames", "_made")

    def __init__(self, frames: Mapping[int, Any], made: Mapping[str, str]) -> None:
        self._frames = frames
        self._made = made

    def __getitem__(self, frame: int) -> dict[int, str]:
        return dict(enumerate(map(self._made.__getitem__, map(_ID, self._frames[frame]))))

    def __iter__(self) -> Iterator[int]:
        return iter(self._frames)

    def __len__(self) -> int:
        return len(self._frames)

    def __contains__(self, frame: object) -> bool:
        return frame in self._frames


def _splitting_frames(light: LightTranscript, answers: dict[Slot, int]) -> list[tuple[int, int | None]]:
    """Each interrupted frame with the call frame whose results it splits (None if it splits none).

    One sweep in transcript order, keeping the open frame whose last answer lies
    furthest ahead, so a million-message transcript costs one pass, not frames x frames.
    """
    last_answer: dict[int, int] = {}
    for (frame, _), result in answers.items():
        if result > last_answer.get(frame, -1):
            last_answer[frame] = result
    out: list[tuple[int, int | None]] = []
    interrupted = sorted(light.interrupted_frames)
    starts = sorted(last_answer)
    reach, owner, cursor = -1, None, 0
    for frame in interrupted:
        while cursor < len(starts) and starts[cursor] < frame:
            start = starts[cursor]
            if last_answer[start] > reach:
                reach, owner = last_answer[start], start
            cursor += 1
        out.append((frame, owner if reach > frame else None))
    return out


def plan_strict(light: LightTranscript, provider: str | None = None,
                placeholder: str = STRICT_MESSAGE, stretches: bool = False) -> Plan:
    """Plan the strict view (see the module docstring); identity when nothing needs to change.

    stretches: the view's unchanged stretches are `range` entries instead of one int per message (the
    fast path's writer reads them: a million ints cost ~36 MB); a provider's role rules cut them where they
    change the order of turns (legalize).
    """
    plan = Plan("strict")
    plan.provider = provider
    plan.placeholder = _placeholder_text(placeholder)
    if light.clean is not None:  # the reader classified the clean turns (LightBuilder)
        plan.index_later(light)
        clean, first_frame, loose = light.clean
    else:
        index_results(light, plan)
        clean, first_frame, loose = _clean_frames(light, plan.first_result)
    frames = light.frames
    turns = CleanTurns(light, clean, first_frame)
    answers = pair_unique(light, plan, turns, loose)
    by_id = answers is not None  # every result answers the call with its own id (none paired by name or order)
    if answers is None:
        answers = _pair(light, plan, turns, loose)
    renamed, made = _renames(light, provider, first_frame, stretches)
    settled, others = _settled(light, plan, answers, clean)
    late = plan.calls_last = calls_put_last(light, provider)
    blank_out, without_blank = blank_left_out(light, provider)
    text_only = errors_as_text(light, provider)
    if text_only:  # (a result the view leaves out is not sent at all)
        text_only -= plan.dropped_duplicates.keys() | set(plan.dropped_strays)
    plan.text_only = text_only
    names = plan.tool_names = tool_names_fixed(light, provider)
    signed = plan.signed = calls_signed(light, provider)
    cuts = texts_cut(light, provider)
    if cuts:  # (a message the view leaves out is not sent at all)
        for left_out in chain(plan.dropped_duplicates, plan.dropped_strays):
            cuts.pop(left_out, None)
    plan.cut_texts = cuts
    moved = images_moved(light, provider)
    if moved:  # (a result the view leaves out is not sent at all)
        moved -= plan.dropped_duplicates.keys() | set(plan.dropped_strays)
    imageless = images_left_out(light, provider)
    if imageless:
        imageless -= plan.dropped_duplicates.keys() | set(plan.dropped_strays)
    once = reasoning_sent_once(light, provider)  # (found again once the messages left out are known)
    # a frame sent otherwise than recorded is no settled turn: a view built by hand may call a late frame clean,
    # and a clean turn's frame may hold a blank text or a name the provider refuses, or a clean turn a result sent
    # with its texts alone
    unsettled = late | without_blank if late or without_blank else set()
    if names:
        unsettled |= names.keys()
    if signed:
        unsettled |= signed
    if text_only and settled:
        unsettled |= _owners(clean, frames, text_only)
    if moved and settled:  # (a clean turn whose result's images move is written entry by entry)
        unsettled |= _owners(clean, frames, moved)
    if imageless and settled:
        unsettled |= _owners(clean, frames, imageless)
    if cuts and settled:  # a clean turn whose frame or result is cut is written entry by entry
        unsettled |= cuts.keys() & frames.keys() | _owners(clean, frames, cuts)
    if once and settled:  # (a frame sent without a repeated reasoning item is written by itself)
        unsettled |= once.keys() & frames.keys()
    for index in settled & unsettled if unsettled else ():
        settled.discard(index)
        for position in range(len(frames[index])):
            others.setdefault((index, position), index + 1 + position)
    alike: set[int] = set()
    if renamed and settled:  # a clean turn whose ids the provider refuses is sent renamed: not kept as recorded,
        if isinstance(renamed, _RenamedWhole):  # though answered as recorded (_emit answers it without `others`);
            alike, settled = settled, set()     # every frame renamed: all of them (no copy of 180,000 frames)
        else:
            alike = settled.intersection(renamed)
            settled -= alike
    # (only the diagnosis of a view shaped for no provider reads them: for a provider's the set, about 8 MB at a
    # million messages, would outlive the plan for nothing)
    plan.settled = settled if provider is None else set()

    # Interrupted frames: drop only those that split a frame from its results, or carry nothing (empty, or blank
    # text alone).
    for frame, splitting in _splitting_frames(light, others):
        if splitting is not None:
            plan.dropped_frames.append(frame)
            plan.note_all(NoteCode.FRAME_SPLITS_RESULTS, (frame,), ("frame",), ((splitting,),))
        elif frame in light.empty_frames or frame in light.blank_frames:
            plan.dropped_frames.append(frame)
            plan.note_all(NoteCode.FRAME_EMPTY, (frame,))
    if blank_out or without_blank:  # (an interrupted frame dropped above is not dropped again)
        gone = set(plan.dropped_frames)
        plan.dropped_blank = [index for index in blank_out if index not in gone]
        plan.without_blank = without_blank - gone

    by_name = not _BY_NAME.isdisjoint(plan.note_codes())
    # (every call answered where it is, so no call is repaired: plan.repaired_tool_calls stays empty)
    in_place = (not plan.dropped_strays and not plan.dropped_duplicates and not plan.dropped_frames
                and not plan.dropped_blank and not plan.without_blank and not late and not renamed and not text_only
                and not names and not signed and not cuts and not once and not moved and not imageless
                and not light.numeric_results and not by_name and not light.bad_arguments
                and all(others.get((index, position)) == index + 1 + position
                        for index, calls in frames.items() if index not in settled for position in range(len(calls)))
                )
    if in_place:
        if has_role_rules(provider):
            legal = legalize(light, [range(0, light.size)] if stretches else list(range(light.size)), provider, plan)
            if legal is not None:
                plan.changed = True
                plan.order = legal
        return plan

    plan.changed = True
    if stretches and alike and not light.bad_arguments and not light.numeric_results:
        # the turns renamed alike stay in the stretches, as the settled ones do: one rename says what the full
        # order would carry for each of their messages (entries.RenamedAlike), no entry per message
        ordered = clean if len(alike) == len(clean) else sorted(alike)  # (every clean turn: clean is sorted)
        plan.renamed_alike = RenamedAlike(ordered, frames, made, isinstance(renamed, _RenamedWhole))
        order = _emit(light, plan, others, renamed, settled | alike if settled else alike, stretches, by_id=by_id,
                      late=late)
    else:
        order = _emit(light, plan, others, renamed, settled, stretches, alike, by_id, late)
    if cuts:  # (an interrupted frame or a blank message the view leaves out is not sent either)
        dropped = set(plan.dropped_frames).union(plan.dropped_blank)
        plan.cut_texts = {index: limit for index, limit in cuts.items() if index not in dropped}
        order = with_cuts(order, plan.cut_texts)
    if once:  # (the first item of an id the view leaves out with its message is not sent: a later one is)
        plan.reasoning_once = reasoning_sent_once(light, provider, set(plan.dropped_frames).union(plan.dropped_blank))
        order = with_rewritten(order, plan.reasoning_once, "left_out")
    if imageless:
        plan.images_gone = imageless - set(plan.dropped_blank)
        order = with_rewritten(order, dict.fromkeys(plan.images_gone, True), "images_gone")
    if moved:
        plan.images_sent_after = moved
        order = with_images_carried(light, with_rewritten(order, dict.fromkeys(moved, True), "images_out"), provider)
    plan.order = legalize(light, order, provider, plan) or order
    return plan


def _owner(clean: list[int], frames: Mapping[int, Any], result: int) -> int | None:
    """The clean frame (of `clean`, sorted) whose turn holds this result, answered right after it; None: none."""
    at = bisect_right(clean, result - 1) - 1  # the clean frame before it, if it is one of its results
    return clean[at] if at >= 0 and result - clean[at] <= len(frames[clean[at]]) else None


def _owners(clean: list[int], frames: Mapping[int, Any], results: Iterable[int]) -> set[int]:
    """The clean frames whose turns hold these results (_owner)."""
    return {owner for owner in (_owner(clean, frames, result) for result in results) if owner is not None}


_BY_NAME = frozenset((NoteCode.RESULT_PAIRED_BY_NAME, NoteCode.RESULT_PAIRED_BY_ORDER))
_CODE = attrgetter("code")


def _settled(light: LightTranscript, plan: Plan, answers: dict[Slot, int], clean: list[int]
             ) -> tuple[set[int], dict[Slot, int]]:
    """The clean turns the view keeps exactly as recorded, and the answers of every other frame.

    A clean turn's answer changes only when a later real result replaces its receipt (the
    receipt is then a dropped duplicate); every other clean turn is settled.  `answers` (_pair's:
    every other frame's, and the replaced ones) is completed with the unsettled turns' own answers
    and returned.
    """
    frames = light.frames
    settled = set(clean)
    for result in plan.dropped_duplicates:
        owner = _owner(clean, frames, result)
        if owner is not None and owner in settled:
            settled.discard(owner)
            for position in range(len(frames[owner])):
                answers.setdefault((owner, position), owner + 1 + position)
    return settled, answers


def _emit(light: LightTranscript, plan: Plan, answers: dict[Slot, int], renamed: Renamed,
          settled: set[int], stretches: bool = False, alike: Collection[int] = (), by_id: bool = False,
          late: AbstractSet[int] = frozenset()) -> list[Any]:
    """The view order: every kept message in place, each frame followed by its answers in call order; and
    plan.repaired_tool_calls, the ids of the calls it answers with a receipt (none answered), in frame order.

    answers: those of every frame but the settled clean turns (_settled), which the view keeps
    exactly as recorded, and those it renames alike (`alike`: clean turns whose ids it renames, each
    answered by the results right after it).  Stretches without unsettled frames or skipped messages are
    copied as ranges, which keeps a million-message repair fast (as one `range` entry each with stretches).
    by_id: every answer carries its call's id (pair_unique paired them), so none is rewritten for its id.
    late: the frames sent with their calls after their other parts (calls_put_last).  The messages the plan sends
    without their blank texts (plan.without_blank) are rewritten, and those it leaves out for them skipped.
    """
    missing = plan.repaired_tool_calls
    frames = light.frames
    bad = light.bad_arguments
    blank = plan.without_blank
    text = plan.text_only
    names = plan.tool_names
    signed = plan.signed
    skip = set(answers.values()).union(plan.dropped_strays, plan.dropped_duplicates, plan.dropped_frames,
                                       plan.dropped_blank)
    order: list[Any] = []
    stretch = order.append if stretches else order.extend
    previous = 0
    keys = light.result_keys
    numeric = light.numeric_results
    plain = not renamed and not bad and not numeric  # no id or arguments changes: the usual view
    for index in sorted(skip.union(frames.keys() - settled if settled else frames, blank, text)):
        if previous < index:
            stretch(range(previous, index))
        previous = index + 1
        calls = frames.get(index)
        if calls is None or index in skip:
            if calls is None and index not in skip and (index in blank or index in text):
                order.append(Rewritten(index, {}, frozenset(), False, index in blank, index in text))
            continue
        if plain:  # what the loop below does when nothing is renamed, without its per-call lookups
            order.append(Rewritten(index, {}, frozenset(), index in late, index in blank, False, names.get(index),
                                   index in signed)
                         if index in late or index in blank or index in names or index in signed else index)
            for position, call in enumerate(calls):
                answer = answers.get((index, position))
                if answer is None:
                    order.append(Synthesized(call.id, call.name, index, position, False))
                    missing.append(call.id)
                elif answer in text:
                    order.append(_text_only(answer, None if by_id or keys[answer] == call.id else call.id))
                elif by_id or keys[answer] == call.id:
                    order.append(answer)
                else:
                    order.append(Rewritten(answer, {-1: call.id}))
            continue
        ids = renamed.get(index) or {}
        invalid = frozenset(position for position in range(len(calls)) if (index, position) in bad) if bad \
            else frozenset()
        last, cut, named, sign = index in late, index in blank, names.get(index), index in signed
        order.append(Rewritten(index, ids, invalid, last, cut, False, named, sign)
                     if ids or invalid or last or cut or named or sign else index)
        if index in alike:  # its results right after it, in call order
            previous = index + 1 + len(calls)
            for answer, call in enumerate(calls, index + 1):
                new_id = ids.get(answer - index - 1)
                if new_id is not None or keys[answer] != call.id or answer in numeric:
                    order.append(Rewritten(answer, {-1: new_id or call.id}, text_only=answer in text))
                else:
                    order.append(_text_only(answer, None) if answer in text else answer)
            continue
        for position, call in enumerate(calls):
            answer = answers.get((index, position))
            new_id = ids.get(position)
            if answer is None:
                order.append(Synthesized(new_id or call.id, call.name, index, position, position in invalid))
                missing.append(call.id)
            elif new_id is not None or keys[answer] != call.id or answer in numeric:
                order.append(Rewritten(answer, {-1: new_id or call.id}, text_only=answer in text))
            else:
                order.append(_text_only(answer, None) if answer in text else answer)
    if previous < light.size:
        stretch(range(previous, light.size))
    return order


def _text_only(result: int, call_id: str | None) -> Rewritten:
    """An error result sent with its texts alone (plan.text_only), with its call's id when given (None: its own)."""
    return Rewritten(result, {-1: call_id} if call_id is not None else {}, frozenset(), False, False, True)
