"""The registry of kinds: every change a repair can make and every defect it can report, with their facts.

One table per family, one row per kind.  The report, the CLI, the batch table,
the Markdown export and the inspector all read these tables (names, glossary
text, severity, which summary count a kind feeds and how the verdict words it),
and the inspector its look (icon, colour) and example, so adding a kind means
adding a row here, and `tests/test_kinds.py` fails for any consumer that does not
know it (tests/test_extension_points.py registers a fake kind and finds it everywhere).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from .notes import NoteCode


class Severity(str, Enum):
    """How bad a kind is for the transcript as recorded, from nothing wrong to worst (declaration order).

    info: nothing wrong (a message carried as it is).
    normalized: a change the provider that judges the transcript does not need (results put
        back in call order inside the run right after their frame, which no provider needs; ids
        renamed or turns merged that only other providers need): still healthy for that judge.
    lossy: a call or result is unanswered, duplicated, ambiguous, or would be lost, even
        where a provider accepts the request.
    rejected: the target provider returns HTTP 400 for it, as recorded (even when the view
        changes nothing) or for what the view must change: the chosen one, else the file's own
        provider when its format is one provider's request; with no target, it breaks a universal
        invariant (UNIVERSAL_NOTES, KindFacts.universal): a call unanswered, answered twice, used
        twice in one turn or away from its frame, a result without its call, a real result lost.
    malformed: the entry breaks its format's schema (a wrong type, a missing id, an unknown
        role); the engine reads on, but no check calls such a transcript healthy.

    `check` exits 1 for lossy, rejected and malformed (FAILING); info and normalized are healthy.
    """

    INFO = "info"
    NORMALIZED = "normalized"
    LOSSY = "lossy"
    REJECTED = "rejected"
    MALFORMED = "malformed"


SEVERITY_ORDER: tuple[Severity, ...] = tuple(Severity)
"""Every severity from nothing wrong to worst: `worst` picks the last one present."""

SEVERITY_WORDS: dict[Severity, tuple[str, str]] = {
    Severity.INFO: ("Nothing wrong: a message carried into the view as it is.", "kept"),
    Severity.NORMALIZED: (
        "A change the provider that judges the transcript (the target provider, else the universal invariants) "
        "does not need; the transcript is healthy for that judge. Results put in call order are needed by no "
        "provider; ids renamed or turns added for another provider are needed only by that provider.",
        "results put back in call order inside their run"),
    Severity.LOSSY: (
        "A call or result is unanswered, duplicated, ambiguous or lost, even where a provider accepts the "
        "request; `check` exits 1.", "an interrupted frame the reference drops"),
    Severity.REJECTED: (
        "The provider that judges the transcript (the target provider) returns HTTP 400 for it as recorded, or "
        "for what the view must change; with no target, it breaks a universal invariant (a call unanswered, "
        "answered twice, sharing its id with another call of its turn or not answered right after its frame, a "
        "result without its call), or the view repairs an entry that breaks its format's schema. `check` exits 1.",
        "a result split from its frame by a user message"),
    Severity.MALFORMED: ("An entry breaks its format's schema; never healthy; `check` exits 1.",
                         '{"role": "banana", "content": "hi"}'),
}
"""Each severity's definition for the glossary, and a tiny example (tests/test_kinds.py: one per severity)."""

FAILING: frozenset[Severity] = frozenset({Severity.LOSSY, Severity.REJECTED, Severity.MALFORMED})
"""The severities that make a transcript unhealthy (`check` exits 1)."""

LEGACY_SEVERITY: dict[str, Severity] = {"error": Severity.REJECTED, "warning": Severity.LOSSY}
"""Report versions 1 and 2 said error and warning; a kind's own severity replaces them when it is known."""


def worst(severities: Iterable[Severity]) -> Severity:
    """The worst of some severities (info for none)."""
    rank = SEVERITY_ORDER.index
    return max(severities, key=rank, default=Severity.INFO)


def fails(severity: Severity) -> bool:
    """Whether a transcript with this worst severity is unhealthy (`check` exits 1)."""
    return severity in FAILING


class RepairKind(str, Enum):
    """What the repaired view does with a message (the report's action kinds, plus view-only ones)."""

    KEPT = "kept"
    MOVED = "moved"
    REORDERED = "reordered"
    RENAMED = "renamed"
    SHARED = "shared"
    MERGED = "merged"
    DROPPED_DUPLICATE = "dropped_duplicate"
    DROPPED_INTERRUPTED_FRAME = "dropped_interrupted_frame"
    DROPPED_STRAY = "dropped_stray"
    SYNTHESIZED = "synthesized"
    SYNTHESIZED_TURN = "synthesized_turn"
    REPAIRED_ARGUMENTS = "repaired_arguments"
    CALLS_LAST = "calls_last"
    BLANK_TEXT = "blank_text"
    DROPPED_BLANK = "dropped_blank"
    ERROR_AS_TEXT = "error_as_text"
    TOOL_NAME = "tool_name"
    SIGNED = "call_signed"
    TEXT_CUT = "text_cut"
    REASONING_ONCE = "reasoning_once"
    IMAGES_MOVED = "images_moved"
    IMAGES_LEFT_OUT = "images_left_out"
    RESHAPED = "reshaped"


class FindingCode(str, Enum):
    """A defect the policy reports but leaves in the view."""

    STRAY_RESULT = "stray_result"
    MALFORMED_RESULT_ID = "malformed_result_id"
    REUSED_CALL_ID = "reused_call_id"
    RESULTS_OUT_OF_ORDER = "results_out_of_order"
    EMPTY_ID = "empty_id"
    DUPLICATE_RESULT = "duplicate_result"
    REAL_RESULT_HIDDEN = "real_result_hidden"
    # schema findings (integrity.schema): an entry that breaks its format's schema
    NOT_A_MESSAGE = "not_a_message"
    UNKNOWN_ROLE = "unknown_role"
    INVALID_CONTENT = "invalid_content"
    CALL_WITHOUT_ID = "call_without_id"
    CALL_WITHOUT_NAME = "call_without_name"
    NON_STRING_ID = "non_string_id"
    RESULT_WITHOUT_CALL_ID = "result_without_call_id"
    INVALID_ARGUMENTS = "invalid_arguments"
    LONE_MESSAGE = "lone_message"
    INVALID_FIELD = "invalid_field"
    # reader findings (integrity.formats.container): lines of a JSONL file that were not read, and an
    # object naming a key twice (integrity.formats.duplicates)
    TORN_LAST_LINE = "torn_last_line"
    SKIPPED_LINE = "skipped_line"
    DUPLICATE_KEY = "duplicate_key"


class Mark(str, Enum):
    """What a message kept as it is still deserves attention for (shown on its row, counted in the summary)."""

    ORPHANED_CALL = "orphaned_call"
    STRAY = "stray"
    FINDING = "finding"


@dataclass(frozen=True)
class KindFacts:
    """Facts about one kind.

    name: the one short name every screen, table and export uses.
    description: one or two sentences for the glossary.
    severity: see Severity; for a kind that a provider may or may not reject, its severity when
        the target provider rejects the transcript as recorded.
    if_accepted: its severity when the target provider accepts the transcript as recorded (the change
        was not needed: normalized; or something is still duplicated or lost: lossy); None: `severity`.
    universal: whether what the kind changes or reports breaks a universal invariant (a call unanswered
        or answered twice, a result without its call): with no target provider, such a kind keeps
        `severity`, and any other is rated as a target that accepts the transcript rates it
        (`if_accepted`): no universal invariant demands it, so only a provider could.
    summary_field: the report summary count this kind feeds (None: not counted).
    verdict: how the one-line verdict words a count of it (None: not in the verdict); for a finding, set
        only when a repair writes the file without it (what the reader found besides messages: a torn
        last line, a skipped line, a key named twice), so the verdict names it among the changes.
    action: whether the report's per-message actions use it as their kind.
    icon, colour: how a row of this kind looks (inspector.theme): an icon always (colour is never the only
        cue), a background colour or "" for none; every repair kind and mark needs an icon (a row kind).
    example: a tiny example, plain text (the glossary's entry, the legend's tooltip).
    aliases: other spellings a reader meets, leading to the kind's glossary entry (not other names).

    Everything a surface shows about a kind is here, so a new kind is one row of this file and every
    surface (CLI counts, report, triage columns, Batch chart, glossary, legend) iterates the tables.
    """

    name: str
    description: str
    severity: Severity
    summary_field: str | None = None
    verdict: str | None = None
    action: bool = False
    if_accepted: Severity | None = None
    icon: str = ""
    colour: str = ""
    example: str = ""
    aliases: tuple[str, ...] = ()
    universal: bool = True

    def rated(self, accepted: bool | None = None) -> Severity:
        """The severity given what the target provider says about the transcript as recorded (None: no target
        judges it, and the universal invariants decide: see `universal`)."""
        relaxed = accepted if accepted is not None else not self.universal
        return self.if_accepted if relaxed and self.if_accepted is not None else self.severity


REPAIR_KINDS: dict[RepairKind, KindFacts] = {
    RepairKind.KEPT: KindFacts(
        "kept", "The durable message is carried into the view as it is, at the same place.",
        Severity.INFO, action=True,
        icon='·', example="#0 user 'hi'  ->  view: #0 user 'hi'"),
    RepairKind.MOVED: KindFacts(
        "moved", "A result the view carries right after its frame, in call order, away from where it was recorded "
        "(another message split it from its frame, or it was recorded before its call).",
        Severity.REJECTED, "moved", "moved", action=True, if_accepted=Severity.NORMALIZED,
        icon='↪', colour='#dbeafe', example='#1 frame(call_a)  #2 user  #3 result(call_a)  ->  view: #1, #3, #2'),
    RepairKind.REORDERED: KindFacts(
        "reordered", "A result the view puts in call order inside the run of results right after its frame, "
        "where it was recorded: no provider needs this.",
        Severity.NORMALIZED, "reordered", "result(s) put in call order", action=True,
        icon='⇅', colour='#eff6ff',
        example='#1 frame(call_a, call_b)  #2 result(call_b)  #3 result(call_a)  ->  view: #1, #3, #2'),
    RepairKind.DROPPED_DUPLICATE: KindFacts(
        "dropped duplicate", "A result left out because its call has another result the view keeps: one result per "
        "call (the first recorded; strict keeps a real result over a receipt recorded before it).",
        Severity.REJECTED, "duplicates_dropped", "duplicate result(s) dropped", action=True,
        if_accepted=Severity.LOSSY,
        icon='⊘', colour='#fee2e2', example='#2 result(call_a)  #3 result(call_a)  ->  view keeps one of them',
        aliases=('duplicate', 'duplicates')),
    RepairKind.DROPPED_INTERRUPTED_FRAME: KindFacts(
        "dropped interrupted frame",
        "An assistant frame without tool calls that stopped abnormally (aborted, cut by length, errored), "
        "left out of the view.",
        Severity.LOSSY, "frames_dropped", "interrupted frame(s) dropped", action=True,
        icon='⊖', colour='#e5e7eb', example="#3 assistant [] stopReason 'aborted'  ->  not in the view"),
    RepairKind.DROPPED_STRAY: KindFacts(
        "dropped stray", "A result whose call id matches no call in the transcript, left out of the view.",
        Severity.REJECTED, "strays_dropped", "stray result(s) dropped", action=True, if_accepted=Severity.LOSSY,
        icon='✖', colour='#fecaca',
        example='#1 result(call_gone), no call_gone anywhere  ->  not in the view (strict)'),
    RepairKind.SYNTHESIZED: KindFacts(
        "synthesized receipt",
        "A result written by the engine for a call that has none: it tells the model the call was interrupted "
        "(strict's adds that the outcome is unknown). It exists only in the view.",
        Severity.REJECTED, "synthesized", "receipt(s) synthesized", if_accepted=Severity.LOSSY,
        icon='✚', colour='#dcfce7', example='#1 frame(call_a), no result  ->  view adds receipt(call_a) after #1',
        aliases=('synthesized receipts',)),
    RepairKind.RENAMED: KindFacts(
        "renamed ids", "A message the view sends with new call ids (an id used twice, an empty id, or a "
        "numeric id sent as a string); the durable message keeps its ids.",
        Severity.REJECTED, "renamed", "message(s) with renamed ids", if_accepted=Severity.NORMALIZED,
        icon='✎', colour='#e0e7ff', example='#3 frame(call_0) reuses call_0 of #1  ->  view sends it as call_0_2',
        aliases=('renamed', 'renamed id', 'rename'), universal=False),
    RepairKind.MERGED: KindFacts(
        "merged", "A message sent inside the next message of the same role, because the provider wants one "
        "message per turn.",
        Severity.REJECTED, "merged", "message(s) merged into the next of the same role", action=True,
        if_accepted=Severity.NORMALIZED,
        icon='⊕', colour='#cffafe',
        example='#2 user(result a)  #3 user(result b)  ->  view: one user message with both', universal=False),
    RepairKind.SYNTHESIZED_TURN: KindFacts(
        "synthesized turn", "A user or assistant turn that exists only in the view, because the provider's "
        "order of turns needs it.",
        Severity.REJECTED, "turns_synthesized", "turn(s) synthesized for the provider's role order",
        if_accepted=Severity.NORMALIZED,
        icon='✚', colour='#d1fae5', example='Bedrock: history starts with a result  ->  view adds a user turn first',
        universal=False),
    RepairKind.REPAIRED_ARGUMENTS: KindFacts(
        "repaired arguments", "A call whose arguments are not a JSON object (cut-off or invalid JSON text): the "
        "view sends {} instead (the report keeps the text as recorded) and, when the call has no result, "
        "answers it with an error saying it was not executed.",
        Severity.REJECTED, "arguments_repaired", "call(s) with invalid arguments repaired",
        if_accepted=Severity.NORMALIZED,
        icon='{}', colour='#fae8ff',
        example='#1 frame(call_a, arguments \'{"path": "src\')  ->  view sends {} and adds \'not executed\' after #1'),
    RepairKind.CALLS_LAST: KindFacts(
        "calls put last", "A frame the view sends with its tool calls after its other parts (text, thinking), "
        "because the provider answers only the calls that close an assistant turn (Anthropic, DeepSeek "
        "Responses); the durable "
        "message keeps its order.",
        Severity.REJECTED, "calls_put_last", "frame(s) with their calls put last", if_accepted=Severity.NORMALIZED,
        icon='⤓', colour='#fef9c3',
        example="#1 assistant [tool_use(call_a), text]  ->  view sends [text, tool_use(call_a)]",
        aliases=('calls last', 'tool_use not last'), universal=False),
    RepairKind.BLANK_TEXT: KindFacts(
        "blank text left out", "A message the view sends without its blank texts, because the provider refuses an "
        "empty text block (Anthropic), or one of whitespace only too (Bedrock); the durable message keeps them.",
        Severity.REJECTED, "blank_text_left_out", "message(s) sent without blank text",
        if_accepted=Severity.NORMALIZED,
        icon='␣', colour='#f3f4f6',
        example="#1 assistant [text '', tool_use(call_a)]  ->  view sends [tool_use(call_a)]",
        aliases=('blank text', 'empty text', 'text content blocks must be non-empty', 'text field is blank'),
        universal=False),
    RepairKind.ERROR_AS_TEXT: KindFacts(
        "error sent as text", "An error result (a tool that failed) the view sends with its text alone, because the "
        "provider takes text alone in an error result and refuses one with no content (Anthropic: \"all content "
        "must be type `text` if `is_error` is true\"); a part that is not text (a screenshot of the failure) is left "
        "out of the view, and a result with no text says \"(no text content)\". Bedrock refuses the same (Claude's "
        "text, relayed; its own for a result with no content). The durable message keeps its parts.",
        Severity.REJECTED, "errors_as_text", "error result(s) sent as text", if_accepted=Severity.NORMALIZED,
        icon='⚠', colour='#fee2e2',
        example="#2 toolResult(call_a, isError, [text 'timeout', image])  ->  view sends [text 'timeout']",
        aliases=('error result', 'is_error', 'all content must be type text', 'content cannot be empty',
                 'cannot be empty when status value is error'),
        universal=False),
    RepairKind.TOOL_NAME: KindFacts(
        "tool name made legal", "A call whose tool name the provider refuses in history, sent with a legal one: a "
        "name longer than the limit (Anthropic: 200 characters, \"tool_use.name: String should have at most 200 "
        "characters\"; OpenAI Chat and Bedrock: 64) cut to it, a character the provider does not take (OpenAI "
        "Chat and Bedrock take a-zA-Z0-9_-) sent as \"_\", an empty name sent as \"unnamed_tool\". A model that "
        "named a tool by a whole shell command was answered \"No such tool available\", and the view keeps the "
        "call and that answer. The durable message keeps the recorded name.",
        Severity.REJECTED, "tool_names_fixed", "tool name(s) made legal", if_accepted=Severity.NORMALIZED,
        icon='✂', colour='#fef3c7',
        example="#1 assistant [tool_use(call_a, 'find . -name … (201 characters)')]  ->  view sends its first 200",
        aliases=('tool name', 'tool_use.name', 'function.name', 'at most 200 characters', 'at least 1 character',
                 'name too long', 'string does not match pattern'),
        universal=False),
    RepairKind.SIGNED: KindFacts(
        "call signed", "A call of a Gemini request's current turn (after the last user text) the view sends with the "
        "thought signature Google documents for calls its model did not make, \"skip_thought_signature_validator\", "
        "because it has none and a Gemini 3 model refuses it (\"Function call is missing a thought_signature in "
        "functionCall parts\"): a history carried over from another model, or whose store dropped the signatures. "
        "Only the first call of a step needs one; Gemini 2.x takes it too; a history of another format is written "
        "for Gemini with its calls signed already, as the runtimes that convert one send it. The durable message "
        "keeps the call as recorded.",
        Severity.REJECTED, "calls_signed", "call(s) sent with a thought signature", if_accepted=Severity.NORMALIZED,
        icon='✍', colour='#e0e7ff',
        example="#3 model [functionCall(search)]  ->  view sends it with thoughtSignature "
                "'skip_thought_signature_validator'",
        aliases=('thought signature', 'thought_signature', 'thoughtSignature', 'missing a thought_signature',
                 'skip_thought_signature_validator'),
        universal=False),
    RepairKind.TEXT_CUT: KindFacts(
        "text cut", "A message whose texts, joined as they are sent, are longer than the provider takes in one "
        "string (OpenAI: 10,485,760 characters, \"string too long\"), which the view sends cut to fit: the texts up "
        "to the limit are kept, the rest left out, and the cut text ends with a note saying how many characters are "
        "gone. A tool output of a large file or log leaves such a message, and every later request of the session is "
        "refused without the cut. The durable message keeps the whole text.",
        Severity.REJECTED, "texts_cut", "message(s) with texts cut to the provider's limit",
        if_accepted=Severity.NORMALIZED, icon='✄', colour='#fde2e4',
        example="#2 toolResult [text: 12,000,000 characters]  ->  view sends its first 10,485,639 and a note",
        aliases=('string too long', 'string_above_max_length', 'maximum length 10485760', 'string_too_long'),
        universal=False),
    RepairKind.REASONING_ONCE: KindFacts(
        "reasoning sent once", "An answer whose reasoning item (rs_…) an earlier message of the request holds too, "
        "which the view sends without it: OpenAI Responses refuses an item id twice (\"Duplicate item found with id "
        "rs_…\"). A turn stored twice (a retried write, a resumed run replaying its items) leaves such a message, "
        "and every later request of the session is refused without the change. The first of the id is sent; the "
        "durable message keeps its copy.",
        Severity.REJECTED, "reasoning_once", "repeated reasoning item(s) sent once",
        if_accepted=Severity.NORMALIZED, icon='❐', colour='#ede9fe',
        example="#4 assistant [reasoning rs_1, function_call]  ->  view sends it without rs_1, sent with #1",
        aliases=('Duplicate item found with id', 'duplicate_item_id', 'duplicate reasoning item', 'rs_'),
        universal=False),
    RepairKind.IMAGES_MOVED: KindFacts(
        "images sent after the results", "A tool result holding an image (a screenshot, a rendered page, a chart) "
        "whose images the view sends in a user message after the turn's results, a text in their place saying so: "
        "OpenAI Chat takes an image from a user message alone (\"Image URLs are only allowed for messages with role "
        "'user', but this message with role 'tool' contains an image URL.\"), and refuses every later request of the "
        "session without the move. The model still sees every image, right after the results; the durable message "
        "keeps them in place.",
        Severity.REJECTED, "images_moved", "result(s) whose images are sent in a user message",
        if_accepted=Severity.NORMALIZED, icon='▣', colour='#e0f2fe',
        example="#2 tool(call_a, [text, image])  ->  view sends #2 [text, note], then user [text, image]",
        aliases=('Image URLs are only allowed for messages with role', 'image_url', 'image in a tool message',
                 'screenshot'),
        universal=False),
    RepairKind.IMAGES_LEFT_OUT: KindFacts(
        "images left out", "A message holding an image (a tool's screenshot, an image a user pasted) that the view "
        "sends with a text in place of its images, because the provider takes no image at all (DeepSeek: \"unknown "
        "variant `image_url`, expected `text`\"). The model does not see the image (pi sends such a model none "
        "either); the durable message keeps it.",
        Severity.REJECTED, "images_left_out", "message(s) sent without their images",
        if_accepted=Severity.NORMALIZED, icon='▢', colour='#f1f5f9',
        example="#2 tool(call_a, [text, image])  ->  view sends #2 [text, note]",
        aliases=('unknown variant `image_url`', 'expected `text`', 'image not supported', 'text-only model'),
        universal=False),
    RepairKind.RESHAPED: KindFacts(
        "reshaped", "A message of a provider's request file (OpenAI Chat or Responses, Anthropic, Gemini, Bedrock) "
        "whose entry the repair writes in the shape the provider takes, the message itself unchanged: a null "
        "`content` sent as \"\" (OpenAI: \"Invalid value for 'content': expected a string, got null.\"), an item id "
        "another server minted left out (\"Expected an ID that begins with 'fc'.\"), a call's arguments stored as an "
        "object sent as their JSON text, a block or part of a text alone given its type, a Gemini turn of function "
        "responses sent with the role user, a turn's results held in consecutive user messages sent as one (Bedrock "
        "refuses them split; Anthropic and Gemini combine them). The writer says what it changes, place by place; "
        "nothing the message holds is lost, and the file's entry is left as it is.",
        Severity.REJECTED, "reshaped", "message(s) written in the shape their format's provider takes",
        if_accepted=Severity.NORMALIZED, icon='◇', colour='#e0f2fe',
        example='#3 tool {"content": null}  ->  the repaired file sends messages[3].content ""',
        aliases=('expected a string, got null', 'Expected an ID that begins with', 'finish step',
                 "written in the shape their format's provider takes", 'sent in one message with'),
        universal=False),
    RepairKind.DROPPED_BLANK: KindFacts(
        "dropped blank message", "A user or assistant message holding nothing but blank text (or no content at "
        "all), left out of the view, because the provider refuses an empty message (Anthropic: but for the "
        "request's final assistant message; Bedrock). It carried nothing.",
        Severity.REJECTED, "blank_dropped", "blank message(s) dropped", action=True,
        if_accepted=Severity.NORMALIZED,
        icon='∅', colour='#f3f4f6',
        example="#2 assistant [text ' '] between two user turns  ->  not in the view (Anthropic)",
        aliases=('empty message', 'empty content', 'blank message'), universal=False),
    RepairKind.SHARED: KindFacts(
        "shared answer", "A reused call id answered again with the first result recorded for it "
        "(the reference's behaviour).",
        Severity.LOSSY,
        icon='⇉', colour='#ede9fe',
        example="call_0 used twice  ->  the reference sends #2 (call_0's first result) for both"),
}

FINDINGS: dict[FindingCode, KindFacts] = {
    FindingCode.STRAY_RESULT: KindFacts(
        "stray result", "A result whose call id matches no call; the policy left it in place.", Severity.REJECTED,
        if_accepted=Severity.LOSSY,
        example='#1 result(call_gone), and no call is call_gone', aliases=('stray', 'strays', 'stray results')),
    FindingCode.MALFORMED_RESULT_ID: KindFacts(
        "malformed result id", "A result without a string call id: no call can own it.", Severity.REJECTED,
        if_accepted=Severity.LOSSY,
        example='{"role": "toolResult", "toolCallId": null, ...}'),
    FindingCode.REUSED_CALL_ID: KindFacts(
        "reused call id", "One call id used by several calls; the reference answers every use with the first result.",
        Severity.REJECTED, if_accepted=Severity.LOSSY,
        example='#1 frame(call_0)  #3 frame(call_0)', aliases=('reused id', 'reused ids', 'reuse'), universal=False),
    FindingCode.RESULTS_OUT_OF_ORDER: KindFacts(
        "results out of order", "The results right after a frame, but not in the order of its calls; no provider "
        "needs them in order (the strict view puts them in order).", Severity.NORMALIZED,
        example='frame(call_a, call_b)  result(call_b)  result(call_a)'),
    FindingCode.EMPTY_ID: KindFacts(
        "empty id", "A call or result with an empty id: which result answers which call is ambiguous.",
        Severity.LOSSY,
        example='{"type": "toolCall", "id": "", "name": "search", ...}'),
    FindingCode.DUPLICATE_RESULT: KindFacts(
        "duplicate result", "A call with several results that the policy left in the view.", Severity.REJECTED,
        if_accepted=Severity.LOSSY,
        example="result(call_a) 'timeout'  result(call_a) 'ok'"),
    FindingCode.REAL_RESULT_HIDDEN: KindFacts(
        "real result hidden", "The real result was dropped because an interrupted receipt for the same call came "
        "first (the reference keeps the first).", Severity.LOSSY,
        example="receipt(call_a)  result(call_a) 'deployed'  ->  the reference keeps the receipt"),
    FindingCode.NOT_A_MESSAGE: KindFacts(
        "not a message", "An entry of the message list that is not a message object (a number, a string, "
        "an array, null).", Severity.MALFORMED,
        example='[{"role": "user", "content": "hi"}, 42]'),
    FindingCode.UNKNOWN_ROLE: KindFacts(
        "unknown role", "A message whose role is missing, not a string, miscased or not one its format "
        "knows.", Severity.MALFORMED,
        example='{"role": "Assistant", "content": "hi"}'),
    FindingCode.INVALID_CONTENT: KindFacts(
        "invalid content", "A message whose content is missing or of the wrong type (an object where text or "
        "a list of parts belongs, a part without its type or text).", Severity.MALFORMED,
        example='{"role": "user", "content": {"text": "hi"}}'),
    FindingCode.CALL_WITHOUT_ID: KindFacts(
        "call without id", "A tool call with no id: no result can name it.", Severity.MALFORMED,
        example='{"type": "toolCall", "name": "search", "arguments": {}}'),
    FindingCode.CALL_WITHOUT_NAME: KindFacts(
        "call without name", "A tool call with no string tool name.", Severity.MALFORMED,
        example='{"type": "toolCall", "id": "call_a", "arguments": {}}'),
    FindingCode.NON_STRING_ID: KindFacts(
        "non-string id", "A call id or a result's call id that is not a string (null, a number); "
        "providers require strings.", Severity.MALFORMED,
        example='{"type": "toolCall", "id": 7, "name": "search", ...}'),
    FindingCode.RESULT_WITHOUT_CALL_ID: KindFacts(
        "result without call id", "A tool result that names no call.", Severity.MALFORMED,
        example='{"role": "toolResult", "content": [...]}'),
    FindingCode.INVALID_ARGUMENTS: KindFacts(
        "invalid arguments", "Tool call arguments that are not a JSON object (or JSON text of one).",
        Severity.MALFORMED,
        example='{"type": "toolCall", "id": "call_a", "name": "search", "arguments": [1]}'),
    FindingCode.LONE_MESSAGE: KindFacts(
        "lone message", "A single message object where the format wants a list of messages.",
        Severity.MALFORMED,
        example='{"role": "user", "content": "hi"}   (a file of one message, not a list)'),
    FindingCode.INVALID_FIELD: KindFacts(
        "invalid field", "A field of the wrong type or value (a timestamp that is not a number, a stopReason "
        "or isError pi-ai does not have).", Severity.MALFORMED,
        example='{"role": "user", "content": "hi", "timestamp": "yesterday"}'),
    FindingCode.TORN_LAST_LINE: KindFacts(
        "torn last line", "The last line of a JSONL file is cut off, as a crash mid-write leaves it; the file is "
        "read up to the line before, and a repair writes it without the torn line.", Severity.MALFORMED,
        verdict="torn last line(s) left out",
        example='line 9: {"role": "assistant", "cont'),
    FindingCode.SKIPPED_LINE: KindFacts(
        "skipped line", "A line of a JSONL file that is not valid JSON, left out because --skip-bad-lines asked "
        "for it, or because the runtime that wrote the file leaves it out when it resumes the session (Claude "
        "Code, since 2.1.121).", Severity.MALFORMED, verdict="skipped line(s) left out",
        example='line 4: not json  (read with --skip-bad-lines)'),
    FindingCode.DUPLICATE_KEY: KindFacts(
        "duplicate key", "An object of the file names the same key twice. JSON readers disagree on which value "
        "counts (this one takes the last), so a provider may read another message than the one checked; a "
        "repair writes the last value only.", Severity.MALFORMED, verdict="key(s) named twice written once",
        example='{"role": "user", "role": "assistant", "content": "hi"}'),
}

MARKS: dict[Mark, KindFacts] = {
    Mark.ORPHANED_CALL: KindFacts(
        "orphaned call", "A call that no result in the transcript answers (with a reused id, the result of an "
        "earlier call with the same id does not answer a later one).", Severity.REJECTED, "orphaned_calls",
        if_accepted=Severity.LOSSY,
        icon='☐', colour='#fef3c7', example='#1 frame(call_a), and no result names call_a',
        aliases=('orphan', 'orphans', 'orphaned calls', 'orphaned')),
    Mark.STRAY: KindFacts(
        "stray result", "A result whose call id matches no call; the policy left it in place.", Severity.REJECTED,
        "strays", if_accepted=Severity.LOSSY,
        icon='⚠', colour='#ffedd5', example='#1 result(call_gone), and no call is call_gone'),
    Mark.FINDING: KindFacts(
        "finding", "A defect the policy reports but does not change.", Severity.LOSSY, "findings",
        icon='⚑', colour='#fef9c3', example='results out of order (the reference reports it and changes nothing)',
        aliases=('findings',)),
}

_R, _L, _N = Severity.REJECTED, Severity.LOSSY, Severity.NORMALIZED

NOTE_SEVERITIES: dict[NoteCode, tuple[Severity, Severity]] = {
    # strict pairing
    NoteCode.RESULT_WITHOUT_STRING_ID: (_R, _L),
    NoteCode.RESULT_BEFORE_CALL: (_R, _N),
    NoteCode.RESULT_WITHOUT_CALL: (_R, _L),
    NoteCode.RESULT_PAIRED_BY_NAME: (_R, _N),
    NoteCode.RESULT_PAIRED_BY_ORDER: (_R, _N),
    NoteCode.RECEIPT_REPLACED_BY_REAL: (_R, _L),
    NoteCode.SECOND_RESULT: (_R, _L),
    # interrupted frames: the ones that split a call from its results must go; the reference
    # drops the others only because it repairs something, and their content is lost
    NoteCode.FRAME_SPLITS_RESULTS: (_R, _L),
    NoteCode.FRAME_EMPTY: (_R, _N),
    NoteCode.FRAME_DROPPED_BY_REFERENCE: (_L, _L),
    NoteCode.FRAME_SUPERSEDED: (_R, _L),
    # reference defaults
    NoteCode.REAL_RESULT_AFTER_RECEIPT: (_R, _L),
    NoteCode.LATER_DUPLICATE: (_R, _L),
    NoteCode.STRAY: (_R, _L),
    # view changes: a result moved back next to its call is needed; a reorder inside the run is not
    NoteCode.MOVED: (_R, _N),
    NoteCode.REORDERED: (_N, _N),
    NoteCode.RENAMED: (_R, _N),
    NoteCode.ID_SHARED_IN_TURN: (_R, _N),
    NoteCode.NUMERIC_IDS_AS_TEXT: (_R, _N),
    NoteCode.ARGUMENTS_REPLACED: (_R, _N),
    NoteCode.CALLS_PUT_LAST: (_R, _N),
    NoteCode.BLANK_TEXT_LEFT_OUT: (_R, _N),
    NoteCode.BLANK_MESSAGE_LEFT_OUT: (_R, _N),
    NoteCode.ERROR_SENT_AS_TEXT: (_R, _N),
    NoteCode.TOOL_NAME_FIXED: (_R, _N),
    NoteCode.CALL_SIGNED: (_R, _N),
    NoteCode.TEXT_CUT: (_R, _N),
    NoteCode.REASONING_SENT_ONCE: (_R, _N),
    NoteCode.IMAGES_MOVED: (_R, _N),
    NoteCode.IMAGES_LEFT_OUT: (_R, _N),
    NoteCode.RESHAPED: (_R, _N),
    NoteCode.MERGED: (_R, _N),
    NoteCode.MERGED_INTO: (_R, _N),
    NoteCode.CARRIES_MERGED: (_R, _N),
    # synthesized turns (provider role order)
    NoteCode.START_WITH_USER: (_R, _N),
    NoteCode.START_NOT_WITH_CALL: (_R, _N),
    NoteCode.REPLY_AFTER_RESULTS: (_R, _N),
    NoteCode.IMAGES_CARRIED: (_R, _N),
}
"""How bad the reason behind a change is: (when the provider rejects the transcript as recorded, or
that is not known; when it accepts it).  A kind alone is not enough: an interrupted frame dropped
because it splits a call from its results is rejected, one the reference drops only because it
repairs something is lossy."""


UNIVERSAL_NOTES: frozenset[NoteCode] = frozenset({
    NoteCode.RESULT_WITHOUT_STRING_ID, NoteCode.RESULT_BEFORE_CALL, NoteCode.RESULT_WITHOUT_CALL,
    NoteCode.RESULT_PAIRED_BY_NAME, NoteCode.RESULT_PAIRED_BY_ORDER, NoteCode.RECEIPT_REPLACED_BY_REAL,
    NoteCode.SECOND_RESULT, NoteCode.FRAME_SPLITS_RESULTS, NoteCode.FRAME_DROPPED_BY_REFERENCE,
    NoteCode.REAL_RESULT_AFTER_RECEIPT, NoteCode.LATER_DUPLICATE, NoteCode.STRAY, NoteCode.MOVED,
    NoteCode.ID_SHARED_IN_TURN, NoteCode.ARGUMENTS_REPLACED, NoteCode.NUMERIC_IDS_AS_TEXT,
})
"""The reasons a universal invariant demands (a call answered twice, or not right after its frame, or by a result
that does not name it alone; a result without its call; a real result lost), and the repairs of an entry that
breaks its format's schema (arguments that are not an object, a numeric id: no check calls such garbage healthy):
with no target provider they keep their first severity.  Any other reason (an empty interrupted frame left out,
ids renamed for a later turn that reuses one, a provider's turn rules) is then rated as a target that accepts the
transcript rates it: only a provider could need it, and none judges."""


def note_severity(code: NoteCode | str, accepted: bool | None = None) -> Severity:
    """The severity of one reason (see NOTE_SEVERITIES); accepted: what the target provider says as recorded
    (None: no target judges it: the universal invariants decide, UNIVERSAL_NOTES)."""
    code = NoteCode(code)
    rejected, otherwise = NOTE_SEVERITIES[code]
    relaxed = accepted if accepted is not None else code not in UNIVERSAL_NOTES
    return otherwise if relaxed else rejected


def rate(kind: RepairKind | FindingCode | Mark | str, codes: Iterable[NoteCode | str] = (),
         accepted: bool | None = None) -> Severity:
    """The severity of one action, view entry or finding: the worst of its reasons, else its kind's.

    A message kept as it is, with no reason, is info.  accepted: whether the target provider accepts the
    transcript as recorded; None: no target judges it (the universal invariants decide).
    """
    codes = list(codes)
    if codes:
        return worst(note_severity(code, accepted) for code in codes)
    return facts(kind).rated(accepted)


ACTION_KINDS: tuple[RepairKind, ...] = tuple(kind for kind, facts in REPAIR_KINDS.items() if facts.action)
"""The kinds a report action can have, in registry order."""

VERDICT_ORDER: tuple[RepairKind, ...] = (
    RepairKind.MOVED, RepairKind.REORDERED, RepairKind.DROPPED_DUPLICATE, RepairKind.DROPPED_INTERRUPTED_FRAME,
    RepairKind.DROPPED_STRAY, RepairKind.SYNTHESIZED, RepairKind.REPAIRED_ARGUMENTS, RepairKind.RENAMED,
    RepairKind.DROPPED_BLANK, RepairKind.CALLS_LAST, RepairKind.BLANK_TEXT, RepairKind.ERROR_AS_TEXT,
    RepairKind.TOOL_NAME, RepairKind.SIGNED, RepairKind.TEXT_CUT, RepairKind.REASONING_ONCE,
    RepairKind.IMAGES_MOVED, RepairKind.IMAGES_LEFT_OUT, RepairKind.RESHAPED, RepairKind.MERGED,
    RepairKind.SYNTHESIZED_TURN,
)
"""The order in which the verdict lists the counts of what a repair changed."""


def summary_counts() -> tuple[tuple[str, str], ...]:
    """(summary field, the kind's one name) of every count a summary carries, in registry order: the one
    list the CLI's counts line, the Batch table's defect columns and its chart iterate (a new kind with a
    summary_field appears in all of them)."""
    counted = [(facts.summary_field, facts.name) for facts in (MARKS[Mark.ORPHANED_CALL], *REPAIR_KINDS.values(),
                                                               MARKS[Mark.STRAY], MARKS[Mark.FINDING])]
    return tuple((field, label) for field, label in counted if field)


def _facts_by_kind() -> dict[str, KindFacts]:
    """Every kind's facts by its value (a member is a str equal to its value, so it finds them too): the
    repair kinds first, then the findings, then the marks, as the first table naming a value wins."""
    found: dict[str, KindFacts] = {}
    for table in (REPAIR_KINDS, FINDINGS, MARKS):
        for member, kind_facts in table.items():
            found.setdefault(member.value, kind_facts)
    return found


_FACTS_BY_KIND = _facts_by_kind()


def facts(kind: RepairKind | FindingCode | Mark | str) -> KindFacts:
    """The facts of any kind, by enum member or by its string value (one dict lookup: a report rates
    each of its entries by its kind)."""
    try:
        return _FACTS_BY_KIND[kind]
    except (KeyError, TypeError):
        raise KeyError(f"unknown kind {kind!r}") from None


def name(kind: RepairKind | FindingCode | Mark | str) -> str:
    """The one short name of a kind (what every screen and export says)."""
    return facts(kind).name
