"""Structured notes: why the policy treated a message as it did, as a code plus parameters.

Planners record a `Note` (never a sentence); the report renders the prose here,
in one table of templates.  Tests assert codes, the report shows sentences, and
a translation or a terser wording touches this module only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .repair.views import UNNAMED_TOOL


class NoteCode(str, Enum):
    """Every reason a planner or the report can give for what happened to one message."""

    # strict pairing
    RESULT_WITHOUT_STRING_ID = "result_without_string_id"
    RESULT_BEFORE_CALL = "result_before_call"
    RESULT_WITHOUT_CALL = "result_without_call"
    RESULT_PAIRED_BY_NAME = "result_paired_by_name"
    RESULT_PAIRED_BY_ORDER = "result_paired_by_order"
    RECEIPT_REPLACED_BY_REAL = "receipt_replaced_by_real"
    SECOND_RESULT = "second_result"
    # interrupted frames
    FRAME_SPLITS_RESULTS = "frame_splits_results"
    FRAME_EMPTY = "frame_empty"
    FRAME_DROPPED_BY_REFERENCE = "frame_dropped_by_reference"
    FRAME_SUPERSEDED = "frame_superseded"
    # reference defaults
    REAL_RESULT_AFTER_RECEIPT = "real_result_after_receipt"
    LATER_DUPLICATE = "later_duplicate"
    STRAY = "stray"
    # view changes
    MOVED = "moved"
    REORDERED = "reordered"
    RENAMED = "renamed"
    ID_SHARED_IN_TURN = "id_shared_in_turn"
    NUMERIC_IDS_AS_TEXT = "numeric_ids_as_text"
    ARGUMENTS_REPLACED = "arguments_replaced"
    CALLS_PUT_LAST = "calls_put_last"
    BLANK_TEXT_LEFT_OUT = "blank_text_left_out"
    BLANK_MESSAGE_LEFT_OUT = "blank_message_left_out"
    ERROR_SENT_AS_TEXT = "error_sent_as_text"
    TOOL_NAME_FIXED = "tool_name_fixed"
    CALL_SIGNED = "call_signed"
    TEXT_CUT = "text_cut"
    REASONING_SENT_ONCE = "reasoning_sent_once"
    IMAGES_MOVED = "images_moved"
    IMAGES_LEFT_OUT = "images_left_out"
    RESHAPED = "reshaped"
    MERGED = "merged"
    MERGED_INTO = "merged_into"
    CARRIES_MERGED = "carries_merged"
    # synthesized turns (provider role order)
    START_WITH_USER = "start_with_user"
    START_NOT_WITH_CALL = "start_not_with_call"
    REPLY_AFTER_RESULTS = "reply_after_results"
    IMAGES_CARRIED = "images_carried"


@dataclass(frozen=True, slots=True)
class Note:
    """One reason: a code and the values its sentence names (ids, indices, labels, a provider)."""

    code: NoteCode
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, code: NoteCode, **params: Any) -> Note:
        return cls(code, params)


def _call_label(params: Mapping[str, Any]) -> str:
    """How a sentence names a call: its id, or for an id-less call (Gemini) '' and the tool."""
    tool = params.get("tool")
    return f"'' ({tool})" if tool is not None else repr(params["call_id"])


NAMED_MEMBERS = 12
"""A merged run's sentence names up to this many messages; a longer run names its first ones and its last."""


def _numbers(members: Sequence[int]) -> str:
    """'#3, #4, #5', or for a long run '#3, #4, ... (9,990 more) ... #10002': every merged message's reason
    names the run, so listing thousands of them in each would make the report grow with the square of it."""
    if len(members) <= NAMED_MEMBERS:
        return ", ".join(f"#{m}" for m in members)
    head = ", ".join(f"#{m}" for m in members[:NAMED_MEMBERS - 2])
    return f"{head}, ... ({len(members) - NAMED_MEMBERS + 1:,} more) ... #{members[-1]}"


def _why(provider: str, clause: str = "why") -> str:
    """The provider's role rule in one clause, from its spec (clause: "start_why" or "results_why"
    for the wording of the start rule or the inserted reply, when the spec has one)."""
    from .providers import spec

    rules = spec(provider).role_rules
    if rules is None:
        return provider
    return str(getattr(rules, clause) or rules.why)


def _title(provider: str) -> str:
    """The provider's human name (its spec's title), or the name as given when no provider has it."""
    from .providers import SPECS

    found = SPECS.get(provider)
    return found.title if found is not None else provider


def _blank(provider: str) -> tuple[str, str]:
    """What the provider's empty-content rules refuse, in two clauses: (the text blocks, the empty message)."""
    from .providers import SPECS

    found = SPECS.get(provider)
    rule = found.blank_text if found is not None else None
    texts = "an empty text block, or one of only whitespace (in a user message: alone)" \
        if rule is not None and rule.whitespace_beside else "an empty text block"
    spared = ", but for a final assistant message" if rule is None or rule.spares_final_assistant else ""
    return texts, f"a message with empty content{spared}"


def _renamed(params: Mapping[str, Any]) -> str:
    pairs = ", ".join(f"{old!r} -> {new!r}" for old, new in params["ids"].items())
    return (f"ids renamed in the view ({pairs}), so that each call has an id no other call uses, in a form the "
            "provider takes: DeepSeek refuses an id a later turn uses again, a provider that needs ids refuses "
            "an empty one, and Anthropic, Mistral and OpenAI refuse ids outside their pattern or length")


def _shared_in_turn(params: Mapping[str, Any]) -> str:
    ids = params["ids"]
    named = ", ".join(map(repr, ids)) if isinstance(ids, (list, tuple)) else str(ids)
    return (f"id(s) {named} used by two calls of this frame: no result names one of them alone, so each call "
            "gets an id of its own")


def _name_fixed(length: int, outside: int, p: Mapping[str, Any]) -> str:
    """What the view did to one tool name (NoteCode.TOOL_NAME_FIXED): of `length` characters, `outside` of them
    not taken by the provider."""
    if not length:
        return f"the empty tool name sent as {UNNAMED_TOOL!r}"
    done = [f"with its {outside} character(s) outside [{p['chars']}] as '_'"] if outside else []
    if length > p["limit"]:
        done.append(f"cut to its first {p['limit']}")
    return f"the tool name of {length} characters sent " + " and ".join(done)


_TEMPLATES: dict[NoteCode, Any] = {
    NoteCode.RESULT_WITHOUT_STRING_ID: lambda p: "this result has no string call id, so no call can own it; dropped",
    NoteCode.RESULT_BEFORE_CALL: lambda p: "result recorded before its call; moved after it",
    NoteCode.RESULT_WITHOUT_CALL: lambda p: (
        (f"no call in this transcript has id {p['call_id']!r}" if p.get("tool") is None else
         f"a result without an id, and no call of tool {p['tool']!r} is left for it")
        + " (a compacted or lost frame?); providers reject a result without its call, so it is dropped"),
    NoteCode.RESULT_PAIRED_BY_NAME: lambda p: (
        f"answers call {p['call_id']!r} of frame #{p['frame']}, the nearest call of tool {p['tool']!r} without an "
        f"answer: {'this result has no id' if p['result_id'] == '' else 'that call has no id'}, so it pairs by "
        "tool name (as Gemini pairs by order); the view sends it with the call's id"),
    NoteCode.RESULT_PAIRED_BY_ORDER: lambda p: (
        f"answers call {p['call_id']!r} of frame #{p['frame']}, the first call of the frame before it without an "
        + ("answer: this result names neither a call id nor a tool (a Chat tool message names none), so it pairs by "
           "order (as Gemini does); the view sends it with the call's id" if not p.get("result_id") else
           f"answer and without an id: no call has this result's id {p['result_id']!r} and it names no tool (a Chat "
           "tool message names none), so it pairs by order; the view sends both with the call's new id")),
    NoteCode.RECEIPT_REPLACED_BY_REAL: lambda p: (
        f"interrupted receipt for call {_call_label(p)} replaced by the real result recorded later (#{p['real']})"),
    NoteCode.SECOND_RESULT: lambda p: f"a second result for call {_call_label(p)}; the first (#{p['kept']}) is kept",
    NoteCode.FRAME_SPLITS_RESULTS: lambda p: (
        f"interrupted frame between frame #{p['frame']} and its results; once they move "
        "next to their calls it is an unfinished turn, so it is dropped"),
    NoteCode.FRAME_EMPTY: lambda p: (
        "interrupted frame with no content (or blank text alone): it carries nothing, so the view leaves it out"),
    NoteCode.FRAME_DROPPED_BY_REFERENCE: lambda p: (
        f"assistant frame without tool calls that did not finish its turn ({p['stop']}); "
        "the reference drops such frames once it repairs anything"),
    NoteCode.FRAME_SUPERSEDED: lambda p: (
        f"interrupted frame directly followed by another assistant turn ({p['following']}); "
        f"{_why(p['provider'])}, and the unfinished turn was superseded, so it is dropped"),
    NoteCode.REAL_RESULT_AFTER_RECEIPT: lambda p: (
        f"the real result for call {p['call_id']!r}, dropped because the interrupted receipt #{p['kept']} "
        "was recorded first and the reference keeps the first receipt"),
    NoteCode.LATER_DUPLICATE: lambda p: (
        f"another result for call {p['call_id']!r} was recorded first (#{p['kept']}); only that one is kept"),
    NoteCode.STRAY: lambda p: (
        f"no call in this transcript has id {p['call_id']!r}; providers reject a result without its call"),
    NoteCode.MOVED: lambda p: (
        f"moved from #{p['index']} to view position {p['view_index']}, right after its frame, in call order"),
    NoteCode.REORDERED: lambda p: (
        f"put in call order: from #{p['index']} to view position {p['view_index']}, inside the run of results "
        "right after its frame where it was recorded (no provider needs this)"),
    NoteCode.RENAMED: _renamed,
    NoteCode.ID_SHARED_IN_TURN: _shared_in_turn,
    NoteCode.NUMERIC_IDS_AS_TEXT: lambda p: (
        "numeric id(s) " + ", ".join(p["ids"]) + " sent as strings: providers want string ids "
        "(the durable message keeps the numbers)"),
    NoteCode.ARGUMENTS_REPLACED: lambda p: (
        "arguments that are not a JSON object sent as {} (as recorded: "
        + "; ".join(repr(text) for text in p["recorded"]) + "); a call without a result is answered as not "
        "executed"),
    NoteCode.CALLS_PUT_LAST: lambda p: (
        "the parts recorded after this frame's first tool call (text, thinking) are sent before its calls: "
        f"{_title(p['provider'])} answers only the calls that close an assistant turn, and refuses a call followed "
        "by another part of its turn"),
    NoteCode.BLANK_TEXT_LEFT_OUT: lambda p: (
        "its blank text(s) are left out of the view: "
        f"{_title(p['provider'])} refuses {_blank(p['provider'])[0]}"),
    NoteCode.BLANK_MESSAGE_LEFT_OUT: lambda p: (
        "it holds nothing but blank text (or no content at all), so the view leaves it out: "
        f"{_title(p['provider'])} refuses {_blank(p['provider'])[1]}"),
    NoteCode.ERROR_SENT_AS_TEXT: lambda p: (
        "an error result sent with its text alone (a part that is not text, such as a screenshot, is left out of "
        "the view; with no text, it says \"(no text content)\"): "
        f"{_title(p['provider'])} takes text alone in an error result, and refuses one with no content"),
    NoteCode.TOOL_NAME_FIXED: lambda p: (
        "; ".join(_name_fixed(length, outside, p) for length, outside in p["names"])
        + f" (the durable message keeps it): {_title(p['provider'])} refuses a tool name in history that is empty, "
        f"longer than {p['limit']} characters" + (f" or holds a character outside [{p['chars']}]" if p["chars"]
                                                  else "")),
    NoteCode.CALL_SIGNED: lambda p: (
        f"its first call sent with the thought signature {p['signature']!r} (it has none; the durable message keeps it "
        f"so): {_title(p['provider'])} refuses a call of the current turn without its model's signature, and takes "
        "this one, documented for calls its model did not make"),
    NoteCode.TEXT_CUT: lambda p: (
        f"its texts sent cut to {p['limit']:,} characters, ending with a note of how many are gone (the durable "
        f"message keeps them whole): {_title(p['provider'])} refuses a longer string"),
    NoteCode.REASONING_SENT_ONCE: lambda p: (
        f"sent without its reasoning item(s) {', '.join(p['ids'])}, which an earlier message of the request sends (the "
        f"durable message keeps them): {_title(p['provider'])} refuses an item id twice"),
    NoteCode.IMAGES_MOVED: lambda p: (
        "its image(s) sent in a user message after the turn's results, a text saying so in their "
        f"place (the durable message keeps them): {_title(p['provider'])} takes an image from a user message alone"),
    NoteCode.IMAGES_LEFT_OUT: lambda p: (
        "sent without its image(s), a text saying so in their place (the durable message keeps them): "
        f"{_title(p['provider'])} takes no image"),
    NoteCode.RESHAPED: lambda p: (
        "its entry is written in the shape its provider takes, the message unchanged (the file's entry is left as "
        "it is): " + "; ".join(p["changes"])),
    NoteCode.MERGED: lambda p: f"sent as part of #{p['carrier']}'s message",
    NoteCode.MERGED_INTO: lambda p: (
        f"{_why(p['provider'])}; consecutive {p['role']} messages "
        f"{_numbers(p['members'])} are sent as one {p['role']} message "
        f"(carried by #{p['carrier']}), content in order"),
    NoteCode.CARRIES_MERGED: lambda p: (
        f"carries the content of {_numbers(p['members'])} before its own: "
        f"{_why(p['provider'])}"),
    NoteCode.IMAGES_CARRIED: lambda p: (
        f"{_title(p['provider'])} takes an image from a user message alone, so the view sends the images of "
        f"{_numbers(p['results'])} in a user message after the turn's results"),
    NoteCode.START_WITH_USER: lambda p: (
        f"{_why(p['provider'], 'start_why')}; this history starts with {p['first']} "
        "(its beginning was compacted or lost), so the view opens with a user turn saying so"),
    NoteCode.START_NOT_WITH_CALL: lambda p: (
        f"{_why(p['provider'], 'start_why')}; this history starts with the call turn {p['first']}, "
        "so the view opens with a user turn saying so"),
    NoteCode.REPLY_AFTER_RESULTS: lambda p: (
        f"{_why(p['provider'], 'results_why')}; no assistant reply was recorded between these results and the "
        f"user message {p['user']}, so the view inserts an assistant turn saying so"),
}


def render(note: Note) -> str:
    """The sentence a report shows for one note."""
    return str(_TEMPLATES[note.code](note.params))


def render_all(notes: list[Note]) -> str:
    """Several reasons for one message, joined the way the report has always joined them."""
    return "; ".join(render(note) for note in notes)
