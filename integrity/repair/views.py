"""The light per-message view that the repair algorithm reads.

The algorithm never looks at a message's text, arguments or result content, so
every reader (plain dicts, the CLI's msgspec fast path, format adapters) only has
to produce these few facts per message.  Keeping them in one small class means the
algorithm is written once and runs on 1,000,000 messages without decoding them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from itertools import chain
from operator import attrgetter
from typing import Any

# Characters that JavaScript's String.prototype.trim() removes.  Python's
# str.strip() differs (it strips \x1c-\x1f and \x85, keeps \ufeff), and the
# reference decides "non-blank errorMessage" with trim(), so we mirror JS exactly.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)

INTERRUPTED_STOP_REASONS = frozenset({"aborted", "length", "error"})


class _NonStringId:
    """Stands for a toolResult's toolCallId that is not a string.

    The reference puts such ids into a frame's contiguous run, where they can
    never equal a call id; one shared sentinel reproduces that exactly.
    """

    __slots__ = ()

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "<non-string toolCallId>"


NON_STRING_ID: Any = _NonStringId()


def numeric_id(value: Any) -> str | None:
    """The text a numeric call id stands for ("1" for 1 and 1.0), else None.

    A JSON number is not a valid id (every provider wants a string) but a writer
    that numbers its calls still means the same call by the same number.  The
    strict policy reads such ids by this text, so a result pairs with its call
    (never dropped as a stray), and sends them as these strings; the reference
    policy, like the reference, does not count them as ids at all.
    """
    if type(value) is int:
        return str(value)
    if type(value) is float and value == value and value not in (float("inf"), float("-inf")):
        return str(int(value)) if value.is_integer() else repr(value)
    return None


def is_call_part(part: Any, numeric_ids: bool = False) -> bool:
    """A content part the engine counts as a tool call: typed toolCall with a string name and a
    string id (or, numeric_ids, the strict reading: a numeric one, or none at all: null or missing, read as an
    empty id, as a result naming no call is).  Call positions count these parts only."""
    if not isinstance(part, dict) or part.get("type") != "toolCall" or not isinstance(part.get("name"), str):
        return False
    call_id = part.get("id")
    return isinstance(call_id, str) or (numeric_ids and (call_id is None or numeric_id(call_id) is not None))


class Call:
    """One tool call of an assistant frame: id and tool name (both strings)."""

    __slots__ = ("id", "name")

    def __init__(self, id: str, name: str) -> None:
        self.id = id
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Call) and other.id == self.id and other.name == self.name

    def __hash__(self) -> int:
        return hash((self.id, self.name))

    def __repr__(self) -> str:
        return f"Call({self.id!r}, {self.name!r})"


Clean = tuple[list[int], "dict[str, int] | None", list[int]]
"""(the frames of clean turns, the first frame of every call id (None: not gathered), the frames and
results outside the clean turns, in order)."""


class LightTranscript:
    """The light view of a whole transcript, in columns.

    size: number of durable messages.
    roles: each message's role when it is a string, else None (for reports).
    frames: index -> calls, for assistant frames with at least one call, in order.
    result_keys: index -> toolCallId for every toolResult, in order; a non-string
        id is NON_STRING_ID (it can sit in a frame's run but never match a call).
    interrupted_frames: indices of assistant frames without calls that stopped
        abnormally (aborted, length, error, or a non-blank errorMessage).
    receipts: indices of results that are the runtime's interrupted placeholder.
    result_names: index -> toolName of each result (pairing calls without ids); a reader that classified
        the clean turns may leave out their results (LightBuilder's sparse_names), which the strict
        planner never pairs by name.
    empty_frames: interrupted frames with no content at all (nothing to keep).
    blank_frames: interrupted frames whose parts are all texts holding nothing but whitespace (blank_text):
        nothing to keep either, and a provider may refuse the blank text (Anthropic's empty-content rules).
    frame_stops: why each interrupted frame counts as interrupted (for reports).
    numeric_calls: (frame index, call position) of calls whose id is a JSON number, read by
        its text (strict policy only; see numeric_id), or null or missing, read as "" (sent with a new id).
    numeric_results: indices of results whose toolCallId is a JSON number, read by its text.
    bad_arguments: (frame index, call position) -> the arguments as recorded (cut to 200 characters), for
        calls whose arguments are not a JSON object (strict policy only; see invalid_arguments): the strict
        view sends {} instead and answers such a call with a "not executed" error when it has no result.
    late_frames: frames with a part that is no call after a call (part_after_call): a provider that answers only
        the calls closing a turn (ProviderSpec.calls_close_turn: Anthropic, DeepSeek Responses) refuses such a
        frame as recorded, so the strict view planned for it sends their calls after their other parts.
    blank_texts: user and assistant messages holding a blank text, or no content (blank_content): index -> what
        they hold (BLANK_ALONE, BLANK_EMPTY, BLANK_SPACE).  A provider with empty-content rules
        (ProviderSpec.blank_text: Anthropic, Bedrock) refuses some of them, so the strict view planned for it
        sends them without their blank texts, or leaves them out.  None: not read (the fast reader leaves it to
        pipeline.Loaded, which reads it only when such a provider is asked).
    error_contents: results marked as errors (isError) whose content is empty or holds a part that is not text
        (error_content_refused).  A provider that takes text alone in an error result (ProviderSpec.error_text_only:
        Anthropic, Bedrock) refuses them, so the strict view planned for it sends them with their texts alone.  None:
        not read (the fast reader leaves it to pipeline.Loaded, as blank_texts).
    unsigned_frames: the frames after the last user message (current_turn_start: the current turn) whose first call
        carries no thought signature (first_call_unsigned).  A provider that refuses such a call (ProviderSpec.
        signs_calls: Gemini 3) is sent it with the signature it documents for calls it did not make.  None: not
        read (the fast reader leaves it to pipeline.Loaded, as blank_texts).
    long_texts: user, assistant and result messages whose texts, joined as a writer joins them (texts_length), are
        longer than the most characters a provider takes in one string (providers.strings.LIMIT).  A provider with
        that limit (ProviderSpec.string_limit: OpenAI's) refuses the request, so the strict view planned for it sends
        them cut to fit.  None: not read (the fast reader leaves it to pipeline.Loaded, as blank_texts).
    reasoning: assistant messages holding a thinking part written as a reasoning item with an id (reasoning_items:
        read from an OpenAI Responses request or the Agents SDK's input list): index -> (content position, item id)
        of each.  A provider that refuses an item id twice in one request (ProviderSpec.reasoning_once: OpenAI
        Responses' "Duplicate item found with id rs_…") is sent a repeated one once (repeated_reasoning).  Read when
        first asked (reasoning_of: light_transcript leaves the reading to it); empty for a file read otherwise (the
        fast reader's pi-ai files hold none).
    sent_ids: by provider, the call id the transcript's runtime sends for a call id of it, where it is not
        the id itself (FormatSpec.sends_ids: a pi session's `call_…|fc_…` goes to OpenAI Responses as `call_…`):
        the strict view renames an id only when the provider refuses it as sent.  Empty unless the pipeline sets it.
    reshaped: the messages whose file entry their format's writer sends in another shape (formats.reshaping: a null
        content as "", a foreign item id left out), each the first message read from its entry -> what changes, by
        place.  Empty unless the pipeline sets it (a file of a provider's request format).
    joined: the part of `reshaped` that is the writer's joins of the messages as read (formats.reshaping.joins_said:
        "messages[3] sent in one message with messages[2]"), kept apart so a view that changes them is said
        without reading the file's entries again (integrity.written.written_light).
    images: the user, system and result messages holding an image (holds_image), in order.  OpenAI Chat refuses
        an image outside a user message (image_not_user), so the strict view planned for it sends a result's images
        in a user message after the turn's results; a skeleton writes no image (formats.skeleton.IMAGE).
    clean: what the builder learnt of clean turns while it read (see LightBuilder; None for a view
        built by hand, read for another policy or with numeric ids, whose strict planner then finds
        them itself): the frames of clean turns, the first frame of every call id, and every frame and
        result outside the clean turns, in order.

    Sparse dicts keep the planner's work proportional to frames and results and
    let the CLI build this straight from msgspec structs without a per-message object.
    """

    __slots__ = ("size", "roles", "frames", "result_keys", "interrupted_frames", "receipts",
                 "result_names", "empty_frames", "frame_stops", "numeric_calls", "numeric_results", "clean",
                 "bad_arguments", "late_frames", "blank_frames", "blank_texts", "error_contents",
                 "names_refused", "unsigned_frames", "long_texts", "sent_ids", "reasoning", "reshaped", "joined",
                 "images")

    def __init__(
        self,
        size: int,
        roles: list[Any],
        frames: dict[int, tuple[Call, ...]],
        result_keys: dict[int, Any],
        interrupted_frames: list[int],
        receipts: set[int],
        result_names: dict[int, Any] | None = None,
        empty_frames: set[int] | None = None,
        frame_stops: dict[int, str] | None = None,
        numeric_calls: set[tuple[int, int]] | None = None,
        numeric_results: set[int] | None = None,
        clean: Clean | None = None,
        bad_arguments: dict[tuple[int, int], str] | None = None,
        late_frames: set[int] | None = None,
        blank_frames: set[int] | None = None,
        blank_texts: dict[int, int] | None = None,
        error_contents: set[int] | None = None,
    ) -> None:
        self.size = size
        self.roles = roles
        self.frames = frames
        self.result_keys = result_keys
        self.interrupted_frames = interrupted_frames
        self.receipts = receipts
        self.result_names = result_names if result_names is not None else {}
        self.empty_frames = empty_frames if empty_frames is not None else set()
        self.frame_stops = frame_stops if frame_stops is not None else {}
        self.numeric_calls = numeric_calls if numeric_calls is not None else set()
        self.numeric_results = numeric_results if numeric_results is not None else set()
        self.clean = clean
        self.bad_arguments = bad_arguments if bad_arguments is not None else {}
        self.late_frames = late_frames if late_frames is not None else set()
        self.blank_frames = blank_frames if blank_frames is not None else set()
        self.blank_texts = blank_texts
        self.error_contents = error_contents
        self.names_refused: frozenset[str] | None = None  # refused_names' answer, once asked
        self.unsigned_frames: set[int] | None = None
        self.long_texts: set[int] | None = None
        self.sent_ids: Mapping[str, Callable[[str], str]] = {}
        self.reshaped: dict[int, tuple[str, ...]] = {}
        self.joined: dict[int, tuple[str, ...]] = {}
        self.images: list[int] = []
        self.reasoning: dict[int, tuple[tuple[int, str], ...]] | Callable[[], dict[int, tuple[tuple[int, str], ...]]] \
            = {}

    def reasoning_of(self) -> dict[int, tuple[tuple[int, str], ...]]:
        """`reasoning`, read from the messages the first time it is asked (a view planned for no provider that
        refuses an item id twice never reads it)."""
        found = self.reasoning
        if callable(found):
            found = self.reasoning = found()
        return found

    def result_id(self, index: int) -> str | None:
        """The string call id of a result message, else None."""
        key = self.result_keys.get(index)
        return key if isinstance(key, str) else None


def loose_results(light: LightTranscript) -> Iterable[int]:
    """The results no clean turn answers, in order (every result when the view does not know its clean
    turns).  A result whose id is no call's, empty or not a string is always among them: a clean turn's
    results carry its calls' ids.  At a million messages they are a few percent of the results, so
    the checks that look for unowned results visit only these."""
    if light.clean is None:
        return light.result_keys.keys()
    keys = light.result_keys
    return [index for index in light.clean[2] if index in keys]


def calls_in_content(content: Any, numeric_ids: bool = False) -> tuple[Call, ...]:
    """Tool calls in an assistant content list: parts typed toolCall with string id and name
    (numeric_ids: a numeric id counts too, read as its text, see numeric_id; and a null or missing one, read as
    "": a call without an id, which the strict view sends with a new one and pairs by its tool or by order, as a
    Chat writer that saved no id still means its next tool message to answer it)."""
    if not isinstance(content, list):
        return ()
    calls = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "toolCall":
            call_id = part.get("id")
            name = part.get("name")
            if isinstance(name, str):
                if isinstance(call_id, str):
                    calls.append(Call(call_id, name))
                elif numeric_ids:
                    text = "" if call_id is None else numeric_id(call_id)
                    if text is not None:
                        calls.append(Call(text, name))
    return tuple(calls)


def is_blank_js(text: str) -> bool:
    """True when JavaScript's trim() would leave the string empty."""
    return not text.strip(JS_WHITESPACE)


def frame_is_interrupted(stop_reason: Any, error_message: Any) -> bool:
    """An assistant frame (without calls) that did not complete a model turn."""
    if isinstance(stop_reason, str) and stop_reason in INTERRUPTED_STOP_REASONS:
        return True
    return isinstance(error_message, str) and not is_blank_js(error_message)


def details_mark_interrupted(details: Any) -> bool:
    """details is exactly {ok: false, error: "interrupted"} (no other keys)."""
    return (
        isinstance(details, dict)
        and len(details) == 2
        and details.get("ok") is False
        and details.get("error") == "interrupted"
        and isinstance(details.get("error"), str)
    )


def stop_description(stop_reason: Any, error_message: Any) -> str:
    """'stopReason "aborted"' or 'errorMessage "..."': what made a frame count as interrupted."""
    if isinstance(stop_reason, str) and stop_reason in INTERRUPTED_STOP_REASONS:
        return f"stopReason {stop_reason!r}"
    text = str(error_message)
    return f"errorMessage {text[:80]!r}"


class LightBuilder:
    """Fills the columns of a LightTranscript, one classified message at a time.

    Every reader (plain dicts here, msgspec structs in the CLI's fast path) walks
    its own representation but classifies through these three methods, so the
    rules (what makes a frame interrupted, what makes a result a receipt, how a
    non-string id is kept) are written once.

    The fast path (integrity._bulk.fast_read._feed) takes the two common steps itself, on this state, with no
    call per message: a frame with fresh call ids opening a turn when none is open, and the open turn's next
    result answering the call it waits for (each a Python step per message: measured cheaper than a method
    call, and than C-level maps over columns, whose every step costs as much as a few bytecodes).  The state
    it reads and writes, and hands back before calling frame() or result() for anything else: want_at (the
    index the open turn's next result must have; -1: no turn open), want (the id that result must answer),
    turn and turn_frame (the open turn's calls and frame), pending (with sparse names: (index, tool name)
    of each of the open turn's results so far), first_frame, loose_ids, clean_frames and loose.
    """

    __slots__ = ("frames", "result_keys", "names", "receipts", "interrupted", "empty", "stops", "numeric_calls",
                 "numeric_results", "classifying", "sparse", "pending", "first_frame", "loose_ids", "clean_frames",
                 "loose", "turn", "turn_frame", "want_at", "want", "bad_arguments", "late", "blank", "blank_texts",
                 "images")

    def __init__(self, clean: bool = True, sparse_names: bool = False) -> None:
        """clean: classify clean turns as they come (the strict planner's input; other policies skip it).
        sparse_names: leave the tool names of clean turns' results out of result_names (only loose results
        are ever paired by name; a million-message file saves ~20 MB); a reader whose ids are all strings
        may ask it, since numeric ids make the planner walk every result (build drops the classification)."""
        self.classifying = clean
        self.sparse = sparse_names and clean
        self.pending: list[tuple[int, Any]] = []  # (index, tool name) of the open turn's results so far
        self.images: list[int] = []  # LightTranscript.images (the readers append to it)
        self.frames: dict[int, tuple[Any, ...]] = {}
        self.result_keys: dict[int, Any] = {}
        self.names: dict[int, Any] = {}
        self.receipts: set[int] = set()
        self.interrupted: list[int] = []
        self.empty: set[int] = set()
        self.stops: dict[int, str] = {}
        self.numeric_calls: set[tuple[int, int]] = set()
        self.numeric_results: set[int] = set()
        self.bad_arguments: dict[tuple[int, int], str] = {}
        self.late: set[int] = set()  # LightTranscript.late_frames
        self.blank: set[int] = set()  # LightTranscript.blank_frames
        self.blank_texts: dict[int, int] | None = None  # LightTranscript.blank_texts (None: not read)
        # Clean turns, classified as the messages come (see LightTranscript.clean): the first frame of
        # every call id, the ids of loose results so far, the clean turns found, the frames and
        # results outside them (loose), and the open turn: its frame and calls, the index its next
        # result must have (-1: none open) and the id that result must answer.  An earlier result
        # with a call's id is loose or answered an earlier call with that id (in first_frame), so
        # the loose results' ids are the only result ids a frame needs to check.
        self.first_frame: dict[str, int] = {}
        self.loose_ids: set[Any] = set()
        self.clean_frames: list[int] = []
        self.loose: list[int] = []
        self.turn: tuple[Any, ...] = ()
        self.turn_frame = 0
        self.want_at = -1
        self.want: Any = None

    def frame(self, index: int, calls: tuple[Any, ...], late: bool = False) -> None:
        """An assistant message with at least one tool call (each has string .id and .name).

        It may open a clean turn: each call id used here for the first time (no earlier call or result
        has it, none is ''), and no other part after a call (late: part_after_call); the turn is clean once
        its results follow directly, in call order.  A late part leaves the turn unanswered for Anthropic
        (providers.anthropic's tool_use_not_last), so its frame is no clean turn: the judgments that read
        only what lies outside the clean turns (providers.sparse) judge it; the planner pairs it by its walk.
        """
        self.frames[index] = calls
        if late:
            self.late.add(index)
        if not self.classifying:
            return
        if self.want_at != -1:
            self._loosen_open_turn()  # a new frame: the open turn never got all its results
        first, results = self.first_frame, self.loose_ids
        if len(calls) == 1:  # the common frame, without the loop
            call_id = calls[0].id
            if call_id in first:
                fresh = False
            else:
                first[call_id] = index
                fresh = call_id not in results and call_id != ""
        else:
            fresh = fresh_calls(calls, index, first, results)
        if fresh and not late:
            self.turn, self.turn_frame, self.want_at, self.want = calls, index, index + 1, calls[0].id
        else:
            self.want_at = -1
            self.loose.append(index)

    def result(self, index: int, call_id: Any, tool_name: Any, receipt: bool, numeric_ids: bool = False) -> None:
        """A toolResult; receipt: it is the runtime's interrupted placeholder; numeric_ids: a numeric
        toolCallId is read as its text (see numeric_id), and a missing or null one as "" (the strict reading:
        a result naming no call pairs as one without an id does, by its tool, else by order, so a Chat tool
        message a writer saved without `tool_call_id` keeps answering the call before it)."""
        if call_id is None and numeric_ids:
            call_id = ""
        if type(call_id) is str:
            if index == self.want_at and call_id == self.want:
                call_id = self.want  # the call's own string: each id of a clean turn is held once
            self.result_keys[index] = call_id
        else:  # kept as NON_STRING_ID (an unhashable id too) or its numeric text, and matched as such
            text = numeric_id(call_id) if numeric_ids else None
            call_id = NON_STRING_ID if text is None else text
            self.result_keys[index] = call_id
            if text is not None:
                self.numeric_results.add(index)
        if self.sparse and index == self.want_at and call_id == self.want:
            self.pending.append((index, tool_name))  # kept only if its turn turns out not clean
        else:
            self.names[index] = tool_name
        if receipt:
            self.receipts.add(index)
        if not self.classifying:
            return
        if index == self.want_at:  # the open turn's next result: right after the last one
            # It must answer the next call (results in between are the turn's own, with other ids, so
            # each is the first result with its id); the last one closes a clean turn.
            if call_id != self.want:
                self.loose.extend(range(self.turn_frame, index + 1))
                self._keep_pending_names()
                self.loose_ids.add(call_id)
                self.want_at = -1
                return
            self._advance(index)
            return
        self._loosen_open_turn()  # another message came before this result
        self.loose.append(index)
        self.loose_ids.add(call_id)

    def _advance(self, index: int) -> None:
        """The open turn's next call was answered at `index`: the turn is clean once its last call is; else it
        waits for the next call's id right after."""
        turn = self.turn
        answered = index - self.turn_frame
        if answered == len(turn):
            self.clean_frames.append(self.turn_frame)
            self.want_at = -1
            self.pending.clear()
        else:
            self.want, self.want_at = turn[answered].id, index + 1

    def _loosen_open_turn(self) -> None:
        """The open turn (if any) will not be clean: its frame and the results it got so far are loose."""
        if self.want_at != -1:
            self.loose.extend(range(self.turn_frame, self.want_at))
            self.want_at = -1
            self._keep_pending_names()

    def _keep_pending_names(self) -> None:
        if self.pending:
            self.names.update(self.pending)
            self.pending.clear()

    def no_calls(self, index: int, stop_reason: Any, error_message: Any, empty: bool, blank: bool = False) -> None:
        """An assistant message without tool calls: recorded when it did not finish its turn (empty: it has no
        content; blank: its parts are all blank texts)."""
        if frame_is_interrupted(stop_reason, error_message):
            self.interrupted.append(index)
            self.stops[index] = stop_description(stop_reason, error_message)
            if empty:
                self.empty.add(index)
            elif blank:
                self.blank.add(index)

    def build(self, roles: list[Any]) -> LightTranscript:
        self._loosen_open_turn()  # the transcript ended before its last results
        clean: Clean | None = (self.clean_frames, self.first_frame, self.loose) if self.classifying else None
        if self.numeric_calls or self.numeric_results or self.bad_arguments:
            clean = None  # numeric ids and invalid arguments are written rewritten: no turn is clean
        light = LightTranscript(len(roles), roles, self.frames, self.result_keys, self.interrupted, self.receipts,
                                self.names, self.empty, self.stops, self.numeric_calls, self.numeric_results, clean,
                                self.bad_arguments, self.late, self.blank, self.blank_texts)
        light.images = self.images
        return light


def fresh_calls(calls: tuple[Any, ...], index: int, first: dict[str, int], loose_ids: set[Any]) -> bool:
    """Whether a frame of several calls at `index` may open a clean turn: each call id used here for the first
    time (no earlier call has it: `first`, call id -> its first frame, which this records; no loose result has it;
    none is '').  The one reading of LightBuilder.frame and of fast_read._feed's own frame step (each reads a
    frame of one call inline: the common frame)."""
    fresh = True
    for call in calls:
        call_id = call.id
        if call_id in first:
            fresh = False
        else:
            first[call_id] = index
            if call_id in loose_ids or call_id == "":
                fresh = False
    return fresh


def part_after_call(content: Any) -> bool:
    """Whether an assistant's content list holds a part that is no toolCall after a toolCall part (the fast
    reader reads the same inline: fast_read._feed).  Any part counts, one a writer may leave out too: a frame
    wrongly left out of the clean turns is only judged, one wrongly kept in would go unjudged."""
    if not isinstance(content, list):
        return False
    calling = False
    for part in content:
        if isinstance(part, dict) and part.get("type") == "toolCall":
            calling = True
        elif calling:
            return True
    return False


def blank_text(text: str) -> bool:
    """Whether a text holds no character but whitespace (the empty one included): what Anthropic refuses in a text
    block (providers.anthropic.content_rules), and what an interrupted frame of such texts alone carries."""
    return not text or text.isspace()


NAME_MARK_LIMIT = 64
"""The shortest limit a provider sets on a history call's tool name (ProviderSpec.tool_names: OpenAI Chat's and
Bedrock's 64, Anthropic's 200)."""
NAME_MARK_CHARS = "a-zA-Z0-9_-"
"""The fewest characters a provider takes in a history call's tool name (OpenAI Chat's and Bedrock's; Anthropic
takes any)."""

UNNAMED_TOOL = "unnamed_tool"
"""The name a view sends for a call recorded with an empty one, toward a provider that refuses it."""

_OUTSIDE: dict[str, re.Pattern[str]] = {}
"""A character class -> the pattern of one character outside it."""


def _outside(chars: str) -> re.Pattern[str]:
    found = _OUTSIDE.get(chars)
    if found is None:
        found = _OUTSIDE[chars] = re.compile(f"[^{chars}]")
    return found


def name_refused(name: str) -> bool:
    """Whether some provider may refuse a history call's tool name (its ProviderSpec.tool_names): empty, longer
    than the shortest limit, or holding a character outside the fewest taken; tests/test_tool_names.py holds every
    name a provider refuses refused here.  A file holding one is judged on its bones, and the turns holding such a
    name in windows (formats.skeleton.TOOL_NAME)."""
    return not name or len(name) > NAME_MARK_LIMIT or _outside(NAME_MARK_CHARS).search(name) is not None


_NAME = attrgetter("name")


def refused_names(light: LightTranscript) -> frozenset[str]:
    """The tool names of the light view's calls some provider refuses (name_refused), read by C-level passes over
    every call's name, once per light view (its frames are never changed): what the fast path marks
    (formats.skeleton.TOOL_NAME), and the only names the strict planner and the sparse judgment look at."""
    found = light.names_refused
    if found is None:
        found = light.names_refused = frozenset(filter(name_refused, set(map(_NAME, chain.from_iterable(
            light.frames.values())))))
    return found


def holds_refused_name(light: LightTranscript) -> bool:
    """Whether a call of the light view has a name some provider refuses (refused_names)."""
    return bool(refused_names(light))


def outside_count(name: str, chars: str | None) -> int:
    """How many characters of a tool name are outside the class `chars` (none when None)."""
    return 0 if chars is None else len(_outside(chars).findall(name))


def legal_tool_name(name: str, limit: int, chars: str | None = None) -> str | None:
    """The name a view sends for a call whose recorded name a provider refuses (at most `limit` characters, only
    those of the class `chars` when given: ProviderSpec.tool_names), else None: an empty name becomes UNNAMED_TOOL,
    every character outside the class "_", and a long name is cut to the limit (a model that named a tool by a
    whole shell command keeps the command's start, and its result, "No such tool available", still answers it)."""
    if not name:
        return UNNAMED_TOOL
    legal = _outside(chars).sub("_", name) if chars is not None else name
    legal = legal[:limit]
    return legal if legal != name else None


def error_content_refused(content: Any) -> bool:
    """Whether an error result's content (pi-ai parts, or a string) is one a provider that takes text alone in an
    error result refuses (ProviderSpec.error_text_only): none, or a part that is not text (an image the tool
    returned when it failed)."""
    if isinstance(content, str):
        return not content
    return not content or not isinstance(content, list) or holds_non_text(content)


def is_image(part: Any) -> bool:
    """An image a writer sends: a canonical image part with its data (pi-ai's, or read from any format that holds
    one: an image data URL, an Anthropic base64 block...), an OpenAI Chat `image_url` part read from a Chat file
    (opaque), or another format's image by address (image_address: the Chat, Responses and Anthropic writers send
    it, formats.common.carried)."""
    if type(part) is not dict:
        return False
    kind = part.get("type")
    if kind == "image":
        return type(part.get("data")) is str
    if kind != "opaque" or type(part.get("value")) is not dict:
        return False
    return (part.get("format") == "openai-chat" and part["value"].get("type") == "image_url") \
        or image_address(part.get("format"), part["value"]) is not None


def image_address(block_format: Any, value: Any) -> str | None:
    """The web address of an image sent by address, in an opaque block read from a format that sends one so (an
    OpenAI Chat `image_url` part, a Responses `input_image`, an Anthropic image of `source` type `url`); None for
    any other block (a file id, an S3 location, a data URL with parameters of its own)."""
    if type(value) is not dict:
        return None
    kind = value.get("type")
    if block_format == "openai-chat" and kind == "image_url":
        given = value.get("image_url")
        url = given.get("url") if isinstance(given, dict) else None
    elif block_format == "openai-responses" and kind == "input_image" and "file_id" not in value:
        url = value.get("image_url")
    elif block_format in ("anthropic", "claude-code") and kind == "image":
        source = value.get("source")
        url = source.get("url") if isinstance(source, dict) and source.get("type") == "url" else None
    else:
        return None
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else None


def holds_image(content: Any) -> bool:
    """Whether a message's content holds an image a writer sends (is_image)."""
    return type(content) is list and any(map(is_image, content))


def holds_non_text(parts: list[Any]) -> bool:
    """Whether a list of parts holds one that is not a text part: pi-ai parts and Anthropic blocks alike (both
    say `"type": "text"`), read by the light view, Anthropic's error_result_not_text and Claude Code's request."""
    return any(not isinstance(part, dict) or part.get("type") != "text" for part in parts)


def only_blank_text(content: Any) -> bool:
    """Whether a content list holds parts, each a text part whose text is blank (blank_text)."""
    return isinstance(content, list) and bool(content) and all(
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        and blank_text(part["text"]) for part in content)


BLANK_ALONE = 1
"""blank_content: the message holds an empty string or nothing but blank texts."""
BLANK_EMPTY = 2
"""blank_content: an empty text beside other parts (a whitespace text may be there too)."""
BLANK_SPACE = 3
"""blank_content: whitespace texts beside other parts, none of them empty."""
BLANK_NONE = 4
"""blank_content: the message's content is a list without any part (`[]`): no provider with empty-content rules
takes it (as BLANK_ALONE for Anthropic and Bedrock), and Gemini, whose rule reads no text, refuses only this one."""


def blank_content(content: Any) -> int:
    """What the empty-content rules of a provider (ProviderSpec.blank_text) read in a user or assistant message's
    content, and the strict view planned for it leaves out: BLANK_NONE, BLANK_ALONE, BLANK_EMPTY, BLANK_SPACE, or
    0 when it holds no blank text and some content.  Anthropic refuses the first three (a whitespace text beside
    another part is accepted), Bedrock all four, Gemini only the first (BlankRule.texts)."""
    if isinstance(content, str):
        return BLANK_ALONE if not content or content.isspace() else 0
    if not isinstance(content, list):
        return 0
    if not content:
        return BLANK_NONE
    empty = space = other = False
    for part in content:  # (one pass, without a list made)
        if type(part) is dict and part.get("type") == "text":
            text = part.get("text")
            if type(text) is str and (not text or text.isspace()):
                if text:
                    space = True
                else:
                    empty = True
                continue
        other = True
    if not other:
        return BLANK_ALONE  # nothing but blank texts
    return BLANK_EMPTY if empty else BLANK_SPACE if space else 0


def is_receipt(is_error: Any, details: Any) -> bool:
    """A toolResult is the runtime's interrupted receipt: isError true and the exact details marker."""
    return is_error is True and details_mark_interrupted(details)


def light_transcript(messages: Sequence[Any], numeric_ids: bool = False, clean: bool = True) -> LightTranscript:
    """Build the light view of pi-ai AgentMessages given as plain dicts.

    numeric_ids: read numeric call ids by their text (the strict policy's reading; the
    reference's, the default, does not count them as ids).  clean: classify clean turns
    (LightBuilder; a caller planning with another policy saves the work).
    """
    roles: list[Any] = []
    builder = LightBuilder(clean)
    blank_texts = builder.blank_texts = {}
    images = builder.images
    errors: set[int] = set()
    long: set[int] = set()
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            roles.append(None)
            continue
        role = message.get("role")
        roles.append(role if isinstance(role, str) else None)
        if role == "user":
            content = message.get("content")
            if holds_image(content):
                images.append(index)
            blank = blank_content(content)
            if blank:
                blank_texts[index] = blank
            if texts_length(content) > STRING_LIMIT:
                long.add(index)
        elif role == "assistant":
            content = message.get("content")
            if texts_length(content) > STRING_LIMIT:
                long.add(index)
            blank = blank_content(content)
            if blank:
                blank_texts[index] = blank
            calls = calls_in_content(content, numeric_ids)
            if calls:
                builder.frame(index, calls, part_after_call(content))
                if numeric_ids:
                    _numeric_slots(builder, index, content)
                    _argument_slots(builder, index, content)
            else:
                builder.no_calls(index, message.get("stopReason"), message.get("errorMessage"), not content,
                                 only_blank_text(content))
        elif role == "toolResult":
            is_error = message.get("isError")
            builder.result(index, message.get("toolCallId"), message.get("toolName"),
                           is_receipt(is_error, message.get("details")), numeric_ids)
            if is_error is True and error_content_refused(message.get("content")):
                errors.add(index)
            if texts_length(message.get("content")) > STRING_LIMIT:
                long.add(index)
            if holds_image(message.get("content")):
                images.append(index)
        elif role in ("system", "developer") and holds_image(message.get("content")):
            images.append(index)
    light = builder.build(roles)
    light.error_contents = errors
    light.long_texts = long
    light.reasoning = partial(_reasoning_in, messages, False)  # (read only for a provider that needs it: reasoning_of)
    light.unsigned_frames = unsigned_frames(light, messages.__getitem__)
    return light


def signed_reasoning(light: LightTranscript, messages: Sequence[Any]) -> None:
    """Have the light view read the reasoning items held as JSON in thinking signatures too (reasoning_items'
    `signed`), for a transcript whose runtime sends them as items (FormatSpec.sends_signed_reasoning)."""
    light.reasoning = partial(_reasoning_in, messages, True)


def _reasoning_in(messages: Sequence[Any], signed: bool) -> dict[int, tuple[tuple[int, str], ...]]:
    """LightTranscript.reasoning of these messages: each assistant message's reasoning_items, where it has any."""
    found = {}
    for index, message in enumerate(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            items = reasoning_items(message.get("content"), signed)
            if items:
                found[index] = items
    return found


def reasoning_items(content: Any, signed: bool = False) -> tuple[tuple[int, str], ...]:
    """(content position, item id) of each thinking part a message's content holds that is written as the reasoning
    item it was read from, with that item's id (an OpenAI Responses `reasoning` item, kept in the part's native hints
    by the Responses reader: a Responses request, the Agents SDK's input list; a Codex rollout stores none; or, signed,
    held as JSON in a pi-ai thinking part's `thinkingSignature`, which pi sends as the item, JSON.parse'd, to the
    model that wrote it: FormatSpec.sends_signed_reasoning).  The Responses writer, and pi, send such a part as that
    item, id and all, so a part read twice is an item sent twice."""
    if not isinstance(content, list):
        return ()
    found = []
    for position, part in enumerate(content):
        if isinstance(part, dict) and part.get("type") == "thinking":
            native = part.get("_native")
            item = native.get("reasoning") if isinstance(native, dict) else \
                _signed_item(part.get("thinkingSignature")) if signed else None
            if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
                found.append((position, item["id"]))
    return tuple(found)


def _signed_item(signature: Any) -> Any:
    """The Responses reasoning item a pi-ai thinking part's signature holds as JSON (None for any other signature:
    Anthropic's and Gemini's are opaque strings)."""
    if not isinstance(signature, str) or not signature.startswith("{") or '"reasoning"' not in signature:
        return None
    try:
        item = json.loads(signature)
    except ValueError:
        return None
    return item if isinstance(item, dict) and item.get("type") == "reasoning" else None


def repeated_reasoning(order: Iterable[int], items: Callable[[int], tuple[tuple[int, str], ...]]
                       ) -> dict[int, tuple[int, ...]]:
    """The thinking parts a request would send a second time as the same reasoning item: message -> the content
    positions of its parts whose item id a part before it holds (an earlier message of `order`, the assistant
    messages the view sends in view order, or earlier in the same message).  items(message) gives its parts'
    (position, id) (reasoning_items).  The first of each id is sent; the later ones are left out (the durable
    message keeps them), as a client that dedupes its replayed reasoning sends them: OpenAI Responses refuses the
    same item twice ("Duplicate item found with id rs_…": a turn stored twice, a reasoning item replayed with
    every message of an incomplete turn)."""
    seen: set[str] = set()
    found: dict[int, tuple[int, ...]] = {}
    for index in order:
        left_out = []
        for position, item_id in items(index):
            if item_id in seen:
                left_out.append(position)
            else:
                seen.add(item_id)
        if left_out:
            found[index] = tuple(left_out)
    return found


STRING_LIMIT = 10_485_760
"""The most characters OpenAI takes in one string (providers.strings: string_too_long; ProviderSpec.string_limit):
here, in the lowest layer, so the light view, the skeleton and the providers read one number."""


def texts_length(content: Any) -> int:
    """The characters of a message's texts as a writer that joins them sends them: a string content, or its text parts
    joined by newlines (the Chat and Responses writers' tool output, a Chat message written as one string).  An
    image's data, a thought and a call's arguments are not counted."""
    if type(content) is str:
        return len(content)
    if type(content) is not list:
        return 0
    total = -1
    for part in content:
        if type(part) is dict and part.get("type") == "text":
            text = part.get("text")
            if type(text) is str:
                total += len(text) + 1
    return max(total, 0)


SIGNATURE_KEYS = ("thoughtSignature", "thought_signature")
"""Where a call carries its model's thought signature: pi-ai's toolCall field, or the Gemini part's key a Gemini
reader kept in the call's native hints (camelCase, or the Python SDK's snake_case)."""


def first_call_unsigned(message: Any) -> bool:
    """Whether an assistant message read from a Gemini request has a first toolCall part without a thought signature
    (SIGNATURE_KEYS: the Gemini part's own, kept in its hints, or the one a view gave it).  A call of any other
    format is written for Gemini signed, as its runtime converts it (formats.gemini.build: pi-ai, Gemini CLI and the
    AI SDK send a call without one with the signature Google documents for calls its model did not make): only a
    Gemini request holds a call that reaches the model unsigned."""
    native = message.get("_native") if isinstance(message, dict) else None
    if not isinstance(native, dict) or native.get("format") != "gemini":
        return False
    content = message.get("content")
    for part in content if isinstance(content, list) else ():
        if isinstance(part, dict) and part.get("type") == "toolCall":
            native = part.get("_native")
            extra = native.get("extra") if isinstance(native, dict) else None
            return not any(isinstance(value, str) and value for value in (
                part.get("thoughtSignature"), *(extra.get(key) for key in SIGNATURE_KEYS if isinstance(extra, dict))))
    return False


def opens_turn(message: Any) -> bool:
    """Whether a user message opens a turn of its own as the Gemini writer sends it: it holds a part (a string, or a
    text, a thought, an image with its data, a Gemini part), so its content is not function responses alone."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return True
    return isinstance(content, list) and any(
        isinstance(part, dict) and (part.get("type") in ("text", "thinking")
                                    or (part.get("type") == "image" and isinstance(part.get("data"), str))
                                    or (part.get("type") == "opaque" and part.get("format") == "gemini"))
        for part in content)


def current_turn_start(roles: Sequence[Any], message_at: Callable[[int], Any]) -> int:
    """The index of the last user message that opens a turn (opens_turn; -1: none): the messages after it are the
    current turn, whose calls a provider that signs calls (ProviderSpec.signs_calls) validates.  Read from the end:
    only the current turn's messages are looked at."""
    for index in range(len(roles) - 1, -1, -1):
        if roles[index] == "user" and opens_turn(message_at(index)):
            return index
    return -1


def unsigned_frames(light: LightTranscript, message_at: Callable[[int], Any]) -> set[int]:
    """LightTranscript.unsigned_frames: the frames of the current turn (current_turn_start) whose first call carries
    no thought signature; message_at(index) gives a message (a dict)."""
    start = current_turn_start(light.roles, message_at)
    found = set()
    for index in reversed(light.frames):  # (in index order: the current turn's frames are the last ones)
        if index <= start:
            break
        if first_call_unsigned(message_at(index)):
            found.add(index)
    return found


def _numeric_slots(builder: LightBuilder, index: int, content: Any) -> None:
    """Record which call positions of a frame carry an id that is not a string: a numeric one (sent as its text),
    or none at all, null or missing (read as "", and sent with a new id for every provider: no writer can send
    a call without a string id, where an empty one is a provider's to refuse or take)."""
    position = 0
    for part in content:
        if is_call_part(part, True):
            if not isinstance(part.get("id"), str):
                builder.numeric_calls.add((index, position))
            position += 1


def invalid_arguments(part: dict[str, Any]) -> str | None:
    """The arguments of a call part as recorded when they are not a JSON object (None when they are, or
    are absent).  A reader of a format that sends arguments as JSON text keeps that text in the part's
    `_native.arguments` and reads invalid text as {}: the text decides there."""
    value = part.get("arguments")
    if value is None:
        return None
    if not isinstance(value, dict):
        return _shown(value)
    native = part.get("_native")
    raw = native.get("arguments") if isinstance(native, dict) and not value else None
    if not isinstance(raw, str) or raw.strip() in ("", "{}"):
        return None
    import json

    try:
        parsed = json.loads(raw, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return _shown(raw)
    return None if isinstance(parsed, dict) else _shown(raw)


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _shown(value: Any) -> str:
    """The arguments as recorded, for the report: text as it is, anything else as its repr; 200 characters."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 200 else text[:199] + "…"


def _argument_slots(builder: LightBuilder, index: int, content: Any) -> None:
    """Record which call positions of a frame carry arguments that are not a JSON object."""
    position = 0
    for part in content:
        if is_call_part(part, True):
            recorded = invalid_arguments(part)
            if recorded is not None:
                builder.bad_arguments[(index, position)] = recorded
            position += 1
