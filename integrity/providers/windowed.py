"""A provider's verdict on a skeleton request, judged only where it can be broken.

`check --provider P` judges two requests of a transcript (as recorded and as repaired), and a rule set
reads every entry of each: most of `check --provider` on a large file, though almost every turn of a
transcript is plainly legal (a call answered right after it, in order; a user turn; an answer).  Here one
pass over the request's bones (integrity.formats.skeleton: no entry is written) proves the plain turns,
and the provider's own rule set (one implementation of each rule) runs only on windows of the request
around the rest, each a stretch of whole turns that no rule reads across.  Positions and error texts are
then moved to where the window sits in the request.

The proof is a sound under-approximation: a turn it cannot prove plain is judged by the rule set, so the
verdict is the full skeleton's (tests/test_windowed.py holds the two equal on every sample, every real and
recorded file, a generated corpus, and random bones, for every provider this module serves).  A request
the proof does not apply to (an id the provider's id rule refuses, a native block of the provider's own
format as recorded, more than a quarter of its turns broken) is judged whole by the caller.

`PROOFS` has one for each provider.  Anthropic, Bedrock, Gemini and the three of OpenAI's Chat shape read a
turn with its neighbours only, so their requests are judged in windows; the two Responses providers pair
calls and outputs across the whole request, so their proof is whole or nothing (`WHOLE_OR_NOTHING`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from ..formats.common import OPAQUE, SYSTEM_ROLES, carries_block
from ..formats.skeleton import SKELETONS, STRING
from ..repair.views import name_refused
from .anthropic import first_number
from .bedrock import ID_LIMIT
from .ids import all_anthropic_ids, only_letters
from .registry import PROVIDER_FORMAT
from .violation import Violation, sort_violations

_USES, _RESULTS, _BAD = 1, 2, 4
"""A turn's flags: a rule reads it with the turn after it (it makes calls); a rule reads it with the turn
before it (it holds results); a rule may fire on it (the proof could not show it plainly legal)."""


class Turns:
    """The combined turns of a skeleton request, as the proof read them: per turn, the index of its first
    bone (`bone`), of its first native entry (`entry`), and its flags (_USES | _RESULTS | _BAD)."""

    __slots__ = ("bone", "entry", "flags")

    def __init__(self) -> None:
        self.bone: list[int] = []
        self.entry: list[int] = []
        self.flags: list[int] = []

    def cut_before(self, turn: int) -> bool:
        """Whether no rule reads across the boundary before `turn`: the turn before it makes no call and it
        holds no result (the proof serves no request with a `system` entry, which a rule reads first)."""
        return turn <= 0 or turn >= len(self.flags) or \
            not (self.flags[turn - 1] & _USES or self.flags[turn] & _RESULTS)


_NONE: list[Any] = []

GAP = 4
"""Windows closer than this many turns are judged as one."""
DENSE = 4
"""A request with more than one turn in DENSE the proof could not show legal is judged whole (0: never)."""


def _calls(kind: str, content: Any, own: str | None) -> list[Any] | None:
    """The call ids a writer writes for one message (an assistant's call parts; a user's are not written),
    `_NONE` when none; None when a part is the format's own native block as recorded (`own`: anything may
    be in it, so the request is judged whole; None for a writer that leaves such parts out)."""
    if content is STRING:
        return _NONE
    calls: list[Any] = _NONE
    for part in content:
        if type(part) is not str:
            if part[0] == OPAQUE:
                if own is not None and carries_block(part[1], own):
                    return None
            elif kind == "assistant":
                if calls is _NONE:
                    calls = []
                calls.append(part[0])
    return calls


def _block_after_call(content: Any, calling: bool) -> bool:
    """Whether an assistant message's writer writes a block that is no call after a call of its turn
    (calling: an earlier message of the turn made one; a string content is one text block)."""
    if content is STRING:
        return calling
    for part in content:
        if type(part) is str:
            if calling:
                return True
        elif part[0] != OPAQUE:
            calling = True
    return False


def _writes_nothing(kind: str, content: Any) -> bool:
    """Whether Anthropic's skeleton writes a user or assistant message with no block (content `[]`), which its
    empty-content rule refuses unless it ends the request as an assistant's: no text, thinking or image part,
    no Anthropic block as recorded, no call of an assistant's."""
    if content is STRING:
        return False
    for part in content:
        if type(part) is str or (part[1] == "anthropic" if part[0] == OPAQUE else kind == "assistant"):
            return False
    return True


def _answers(calls: list[Any], run: list[Any]) -> bool:
    """Whether a run of results answers these calls plainly: exactly their ids, in order, each a string once."""
    if run != calls:
        return False
    if len(calls) == 1:  # most turns make one call
        return type(calls[0]) is str
    return all(type(value) is str for value in calls) and len(set(calls)) == len(calls)


def anthropic_turns(bones: Sequence[Any]) -> Turns | None:
    """Anthropic's turns of the skeleton `formats.skeleton._ANTHROPIC` writes of `bones`, flagged bad unless
    plainly legal: an assistant turn whose calls a run of results opening the next turn answers (`_answers`),
    and that turn; any other user or assistant turn without calls or results.  None when an id is one
    Anthropic's id rule refuses, an entry or block is Anthropic's own as recorded (anything may be in it), or a
    message is written with no block but an assistant's ending the request (its rule numbers the request's
    messages, not its turns, and reads whether anything follows): the request is judged whole then."""
    turns = Turns()
    starts, entries, flags = turns.bone, turns.entry, turns.flags
    ids: list[Any] = []
    role: Any = None  # the last turn's role when it is one that combines (user, assistant), else None
    pending: list[Any] = _NONE  # the calls of the last turn (an assistant's), until a run of results answers
    run: list[Any] | None = None  # the ids of the run of results being read (None: the last bone is no result)
    opened = -1  # the turn that run opened (-1: it joined a user turn, so its results are not leading)
    entry = -1
    empty: tuple[int, str] | None = None  # (entry, role) of the last message written with no block
    for index, bone in enumerate(bones):
        kind = bone[0]
        if kind == "toolResult":  # a run of results is one user entry
            value = bone[2]
            ids.append(value)
            if run is not None:
                run.append(value)
                continue
            entry += 1
            if empty is not None:
                return None  # a message written with no block that is not the request's last
            run = [value]
            if role == "user":  # joins a user turn: its results do not open it
                flags[-1] |= _RESULTS | _BAD
                opened = -1
                continue
            opened = len(flags)
            starts.append(index)
            entries.append(entry)
            flags.append(_RESULTS)
            role = "user"
            continue
        if run is not None:  # the run ends: does it answer the calls of the turn before it?
            if opened >= 0:
                if not pending or not _answers(pending, run):
                    flags[opened] |= _BAD
                    if opened:
                        flags[opened - 1] |= _BAD
                pending = _NONE
            run = None
        if kind in SYSTEM_ROLES:
            continue  # hoisted by the writer: no entry
        content = bone[1]
        if kind == OPAQUE:
            if content[0] != "anthropic":
                continue  # another format's: left out
            return None
        calls = _calls(kind, content, "anthropic")
        if calls is None:
            return None
        entry += 1
        if empty is not None:
            return None  # a message written with no block that is not the request's last
        if kind in ("user", "assistant") and _writes_nothing(kind, content):
            empty = (entry, kind)
        # a block after a call in its assistant turn leaves that call unanswered (anthropic.py's rule)
        late = kind == "assistant" and _block_after_call(content, kind == role and bool(pending))
        if calls:
            if not ids and not all_anthropic_ids([value for value in calls if type(value) is str]):
                return None  # the first calls' ids are refused already (ids from another provider)
            ids.extend(calls)
        if kind == role:  # combined into the last turn (user or assistant)
            if calls:
                pending = pending + calls
                flags[-1] |= _USES
            if late:
                flags[-1] |= _BAD
            continue
        if pending:  # the last turn's calls are not answered by results right after it
            flags[-1] |= _BAD
        starts.append(index)
        entries.append(entry)
        flags.append((_USES if calls else 0) | (_BAD if late else 0))
        pending = calls
        if kind != "user" and kind != "assistant":
            return None  # a message of an app's own role, written with it (role_invalid reads it): judged whole
        role = kind
    if run is not None and opened >= 0:
        if not pending or not _answers(pending, run):
            flags[opened] |= _BAD
            if opened:
                flags[opened - 1] |= _BAD
    elif pending:
        flags[-1] |= _BAD
    if empty is not None and empty[1] != "assistant":
        return None  # a user message written with no block ends the request
    if not all_anthropic_ids([value for value in ids if type(value) is str]):
        return None
    return turns


_WRITTEN_ROLES = frozenset({"user", "assistant", *SYSTEM_ROLES})
"""The roles of the messages a Chat or Responses skeleton writes that the proofs read; another (an app's own role,
which the skeleton writes as it is and a provider's RoleSet refuses) has the request judged whole."""


def _chat(provider: str) -> Callable[[Sequence[Any]], Turns | None]:
    """The proof for a provider of OpenAI's Chat shape (`formats.skeleton._chat`: one message per canonical
    message, system messages kept): every message is a turn of its own, and one is bad unless plainly legal:
    an assistant message whose calls the tool messages right after it answer (`_answers`), and those; any
    other message that is no tool message (Mistral: no user message right after a tool message).  None when
    an id breaks the provider's id rule (OpenAI: over 40 characters; Mistral: not nine letters or digits), or
    (DeepSeek, which refuses a tool_call_id met twice anywhere) when two results share an id."""
    def proof(bones: Sequence[Any]) -> Turns | None:
        turns = Turns()
        starts, entries, flags = turns.bone, turns.entry, turns.flags
        calls_ids: list[Any] = []
        results: list[Any] = []
        pending: list[Any] = _NONE  # the calls of the message before the run of tool messages (if any)
        run: list[Any] | None = None
        opened = -1  # the first tool message of that run
        once: set[Any] | None = set() if provider == "deepseek" else None  # DeepSeek's ids, as it reads them
        for index, bone in enumerate(bones):
            kind = bone[0]
            if kind == OPAQUE:
                if bone[1][0] != "openai-chat":
                    continue  # another format's: left out
                return None  # a Chat message as recorded: anything may be in it
            turn = len(flags)
            starts.append(index)
            entries.append(turn)
            if kind == "toolResult":
                value = bone[2]
                results.append(value)
                if once is not None:  # an id met twice anywhere is refused: judged whole, known at once
                    read = value if type(value) is str else ""
                    if read in once:
                        return None
                    once.add(read)
                flags.append(_USES | _RESULTS)  # a tool message is read with the message after it
                if run is None:
                    run, opened = [value], turn
                else:
                    run.append(value)
                continue
            if run is not None:  # the run ends: does it answer the calls before it?
                if not pending or not _answers(pending, run):
                    for at in range(opened - (1 if pending else 0), turn):
                        flags[at] |= _BAD
                elif kind == "user" and provider == "mistral":  # Mistral: no user right after a tool message
                    flags[turn - 1] |= _BAD
                    flags.append(_BAD)
                    pending, run = _NONE, None
                    continue
                pending, run = _NONE, None
            elif pending:  # calls no tool message answers
                flags[turn - 1] |= _BAD
            if kind not in _WRITTEN_ROLES:
                return None  # a message of an app's own role, written with it (role_invalid reads it): judged whole
            calls = _calls(kind, bone[1], None) or _NONE  # (the Chat writer leaves Chat blocks out)
            if calls:
                if not calls_ids and not _ids_pass(provider, calls, []):
                    return None  # the first calls' ids are refused already (ids from another provider)
                calls_ids.extend(calls)
            flags.append(_USES if calls else 0)
            pending = calls
        if run is not None:
            if not pending or not _answers(pending, run):
                for at in range(opened - (1 if pending else 0), len(flags)):
                    flags[at] |= _BAD
        elif pending:
            flags[-1] |= _BAD
        if not _ids_pass(provider, calls_ids, results):
            return None
        return turns

    return proof


def _ids_pass(provider: str, calls: list[Any], results: list[Any]) -> bool:
    """Whether no id rule of the provider fires on these ids (only string ids are checked, as its rules do)."""
    if provider == "openai-chat":
        return all(len(value) <= 40 for value in calls + results if type(value) is str)
    if provider == "bedrock":
        return all(len(value) <= ID_LIMIT for value in calls + results if type(value) is str)
    if provider == "mistral":  # (an assistant's "null" is refused too: not nine characters)
        values = [value for value in calls + results if type(value) is str]
        return only_letters(values) and set(map(len, values)) <= {9}
    return True  # (DeepSeek's one rule on ids, a result id met twice, is read as the proof goes)


def bedrock_turns(bones: Sequence[Any]) -> Turns | None:
    """Bedrock's messages of the skeleton `formats.skeleton._BEDROCK` writes (a run of results one user message,
    system messages hoisted; every message read on its own, with its neighbours), flagged bad unless plainly
    legal: an assistant message whose calls the results right after it answer (`_answers`), and those; any
    other message without calls or results that is written with a block; two messages of one role in a row are
    not.  None for an empty
    request, a Bedrock entry or block as recorded, or an id its id rule refuses (judged whole)."""
    turns = Turns()
    ids: list[Any] = []  # every call's and result's id, for the id rule
    starts, entries, flags = turns.bone, turns.entry, turns.flags
    last: Any = None  # the role of the last message ("user" or "assistant")
    pending: list[Any] = _NONE
    run: list[Any] | None = None
    opened = -1
    for index, bone in enumerate(bones):
        kind = bone[0]
        if kind == "toolResult":
            value = bone[2]
            ids.append(value)
            if run is not None:
                run.append(value)
                continue
            turn = len(flags)
            starts.append(index)
            entries.append(turn)
            flags.append(_RESULTS)
            if last == "user":  # two user messages in a row
                flags[turn - 1] |= _USES | _BAD
                flags[turn] |= _BAD
            run, opened, last = [value], turn, "user"
            continue
        if run is not None:
            if not pending or not _answers(pending, run):
                flags[opened] |= _BAD
                if pending:
                    flags[opened - 1] |= _BAD
            pending, run = _NONE, None
        if kind in SYSTEM_ROLES:
            continue
        content = bone[1]
        if kind == OPAQUE:
            if content[0] != "bedrock":
                continue
            return None
        calls = _calls(kind, content, "bedrock")
        if calls is None:
            return None
        ids += calls
        role = "assistant" if kind == "assistant" else "user"
        turn = len(flags)
        starts.append(index)
        entries.append(turn)
        flag = _USES if calls else 0
        if not calls and content is not STRING and "text" not in content and "thinking" not in content \
                and "image" not in content:
            flag |= _BAD  # written with no block: Bedrock's empty_message_content
        if pending:  # calls no results answer right after them
            flags[turn - 1] |= _BAD
        if role == last:  # two messages of one role in a row
            flags[turn - 1] |= _USES | _BAD
            flag |= _RESULTS | _BAD
        flags.append(flag)
        pending, last = calls, role
    if run is not None:
        if not pending or not _answers(pending, run):
            flags[opened] |= _BAD
            if pending:
                flags[opened - 1] |= _BAD
    elif pending:
        flags[-1] |= _BAD
    return turns if flags and _ids_pass("bedrock", ids, []) else None


def gemini_turns(bones: Sequence[Any]) -> Turns | None:
    """Gemini's turns of the skeleton `formats.skeleton._GEMINI` writes (a run of results one user content,
    system messages hoisted; consecutive contents of one role, `model` or `user`, one turn: so the turns
    alternate), flagged bad unless plainly legal: a model turn with calls after a user turn and followed by a
    turn of as many responses, and that turn; any other turn without calls or responses.  Gemini pairs by
    count, so ids do not matter.  None for a Gemini entry or part as recorded (judged whole)."""
    turns = Turns()
    starts, entries, flags = turns.bone, turns.entry, turns.flags
    role: Any = None  # the role of the turn being read
    count = 0  # its calls (a model turn) or responses (a user turn)
    calls_before = 0  # the calls of the model turn before the user turn being read
    entry = -1
    in_run = False
    for index, bone in enumerate(bones):
        kind = bone[0]
        if kind == "toolResult":
            if not in_run:
                in_run = True
                entry += 1
                if role != "user":
                    calls_before = _close_model(flags, role, count)
                    starts.append(index)
                    entries.append(entry)
                    flags.append(0)
                    role, count = "user", 0
            count += 1
            continue
        in_run = False
        if kind in SYSTEM_ROLES:
            continue
        content = bone[1]
        if kind == OPAQUE:
            if content[0] != "gemini":
                continue
            return None
        made = _calls(kind, content, "gemini")
        if made is None:
            return None
        calls = len(made)
        entry += 1
        turn_role = "model" if kind == "assistant" else "user"
        if turn_role == role:
            count += calls
            if not calls and _gemini_writes_nothing(content):
                flags[-1] |= _BAD
            continue
        if role == "user":
            _close_user(flags, count, calls_before)
        elif role == "model":
            calls_before = _close_model(flags, role, count)
        starts.append(index)
        entries.append(entry)
        flags.append(_BAD if not calls and _gemini_writes_nothing(content) else 0)
        role, count = turn_role, calls
    if role == "user":
        _close_user(flags, count, calls_before)
    elif role == "model" and count:
        flags[-1] |= _USES | _RESULTS | _BAD  # calls the request ends on: no responses follow
    return turns


def _gemini_writes_nothing(content: Any) -> bool:
    """Whether Gemini's skeleton writes a message without calls with no part (content `[]`), which the rule
    parts_empty refuses: no text, thinking or image part (an opaque part of another format is left out; a Gemini
    one as recorded has the request judged whole)."""
    return content is not STRING and "text" not in content and "thinking" not in content and "image" not in content


def _close_model(flags: list[int], role: Any, calls: int) -> int:
    """A model turn ends (role: the turn's, None before the first); its calls, read with the turns around it
    (a model turn with calls opening the request is bad), are paired when the user turn after it ends."""
    if role == "model" and calls:
        flags[-1] |= _USES | _RESULTS | (_BAD if len(flags) == 1 else 0)
        return calls
    return 0


def _close_user(flags: list[int], responses: int, calls: int) -> None:
    """A user turn ends: as many responses as the model turn before it made calls is plain; responses after a
    turn without calls, or a count that differs, are not (the call turn is then bad; it reads this one)."""
    if calls:
        if responses != calls:
            flags[-2] |= _BAD
        if responses:
            flags[-1] |= _RESULTS
    elif responses:
        flags[-1] |= _RESULTS | _BAD


def _responses(provider: str) -> Callable[[Sequence[Any]], Turns | None]:
    """The proof for a Responses provider (`formats.skeleton._responses`: a message item per run of text, one
    item per other part, an output per result).  Its rules pair calls and outputs across the whole request
    (OpenAI: an output needs a call anywhere before it, a call an output anywhere after it), so no window
    stands alone: the proof is whole or nothing.  Plain when every call is answered by the outputs right after
    its message, exactly and in order, and (DeepSeek, whose outputs must follow the run of calls) the calls
    close their message's items; then no rule fires and the verdict is empty.  Else None: judged whole."""
    long = provider == "openai-responses"

    def proof(bones: Sequence[Any]) -> Turns | None:
        pending: list[Any] = _NONE
        run: list[Any] | None = None
        for bone in bones:
            kind = bone[0]
            if kind == "toolResult":
                if run is None:
                    if not pending:
                        return None  # an output no call right before it answers
                    run = []
                run.append(bone[2])
                continue
            if run is not None:
                if not _answers(pending, run) or (long and any(len(value) > 64 for value in run)):
                    return None  # (OpenAI refuses a call_id over 64 characters)
                pending, run = _NONE, None
            elif pending:
                return None  # calls no output answers right after them
            content = bone[1]
            if kind == OPAQUE:
                if content[0] != "openai-responses":
                    continue
                return None
            if kind not in _WRITTEN_ROLES:
                return None  # a message of an app's own role, written with it (role_invalid reads it)
            if kind != "assistant" or content is STRING:
                continue
            calls: list[Any] = _NONE
            for part in content:
                if type(part) is str:
                    if calls is not _NONE and part != "image":  # an item after the calls (an image writes none)
                        return None
                elif part[0] == OPAQUE:
                    if part[1] == "openai-responses":
                        return None
                else:
                    if calls is _NONE:
                        calls = []
                    calls.append(part[0])
            pending = calls
        if run is not None:
            if not _answers(pending, run) or (long and any(len(value) > 64 for value in run)):
                return None
        elif pending:
            return None
        return Turns()

    return proof


def _moved(violation: Violation, turn: int, entry: int, bone: int) -> Violation:
    """A violation found in a window, where the window sits: the window opens at turn `turn` (a position
    counts turns), at native entry `entry` and at message `bone`.  A position's number is the provider's
    syntax (`messages.N`, `messages.[N]`, `messages[N]`, `message[N]`); an error text that names an index
    says it where the rule puts it, never inside an id (`_ERRORS`)."""
    position, error = violation.position, violation.error
    native = [index + entry for index in violation.native_indices]
    if turn:
        found = _POSITION.match(position)
        if found is not None:
            at = f"{found.group(1)}{int(found.group(2)) + turn}"
            if error.startswith(found.group(0)):  # Anthropic's texts open with the position
                error = at + error[found.end():]
            position = at + position[found.end():]
        fix = _ERRORS.get((violation.provider, violation.rule))
        if fix is not None:
            error = fix(violation, native)
    canonical = violation.canonical_indices
    if canonical is not None:  # one list for both when they are the same messages (the Chat shape's, as a rule:
        # a list and its ints less for each of the 18,000 violations of Mistral's verdict at a million messages)
        canonical = native if bone == entry and canonical == violation.native_indices else \
            [index + bone for index in canonical]
    return msgspec.structs.replace(violation, position=position, error=error, native_indices=native,
                                   canonical_indices=canonical)


_BY_ENTRY = frozenset((("anthropic", "tool_use_name_too_long"), ("anthropic", "tool_use_name_empty"),
                       ("anthropic", "tool_use_input_not_object"), ("anthropic", "tool_use_input_missing"),
                       ("anthropic", "tool_result_content_not_text"), ("anthropic", "error_result_not_text"),
                       ("anthropic", "error_result_empty")))
"""Rules whose positions count a request's own entries though the provider's others count combined turns
(Anthropic's per-block schema rules, anthropic.block_schema_rules): moved by the window's first entry."""

_POSITION = re.compile(r"(messages\.\[|messages\[|message\[|messages\.|contents\[)(\d+)")


def _openai_duplicate(violation: Violation, native: list[int]) -> str:
    from .openai_chat import DUPLICATE

    return DUPLICATE.format(id=violation.call_ids[0], first=native[0], second=native[1])


def _openai_quoted(violation: Violation, native: list[int]) -> str:
    """An OpenAI text that quotes its param, "Invalid 'messages[N]...": the param's index moved (the text names no
    id or name that could hold the same characters)."""
    before = f"Invalid 'messages[{violation.native_indices[0]}]"
    return violation.error.replace(before, f"Invalid 'messages[{native[0]}]", 1)


def _bedrock_expected(violation: Violation, native: list[int]) -> str:
    from .bedrock import EXPECTED

    return EXPECTED.format(index=native[0] + 1, ids=", ".join(violation.call_ids))


def _bedrock_exceeds(violation: Violation, native: list[int]) -> str:
    from .bedrock import EXCEEDS

    return EXCEEDS.format(index=native[-1])


def _bedrock_empty(violation: Violation, native: list[int]) -> str:
    from .bedrock import EMPTY_CONTENT

    return EMPTY_CONTENT.format(index=native[0])


def _bedrock_blank(violation: Violation, native: list[int]) -> str:
    from .bedrock import BLANK_TEXT

    return BLANK_TEXT.format(index=native[0], block=violation.position.rsplit(".", 1)[1])


def _gemini_empty(violation: Violation, native: list[int]) -> str:
    from .gemini import PARTS_EMPTY

    return PARTS_EMPTY.format(index=native[0])


_ERRORS: dict[tuple[str, str], Callable[[Violation, list[int]], str]] = {
    ("openai-chat", "duplicate_tool_call_id"): _openai_duplicate,  # "... in messages[{first}] and messages[{second}]."
    ("openai-chat", "function_name_too_long"): _openai_quoted,  # "Invalid 'messages[{index}].tool_calls[{call}]..."
    ("openai-chat", "function_name_pattern"): _openai_quoted,
    ("bedrock", "tool_use_unanswered"): _bedrock_expected,  # "Expected toolResult blocks at messages.{index+1}..."
    ("bedrock", "too_many_tool_results"): _bedrock_exceeds,  # "... at messages.{index}.content exceeds ..."
    ("bedrock", "empty_message_content"): _bedrock_empty,  # "... in the Message object at messages.{index} is ..."
    ("bedrock", "blank_text_block"): _bedrock_blank,  # "... object at messages.{index}.content.{block} is blank"
    ("gemini", "parts_empty"): _gemini_empty,  # "* GenerateContentRequest.contents[{index}].parts: ..."
    ("gemini-2", "parts_empty"): _gemini_empty,
}
"""The error texts, of the rules a window can meet, that name an index after the position: written again."""

PROOFS: dict[str, tuple[Callable[[Sequence[Any]], Turns | None], bool]] = {
    "anthropic": (anthropic_turns, True),
    "openai-chat": (_chat("openai-chat"), False),
    "mistral": (_chat("mistral"), False),
    "deepseek": (_chat("deepseek"), False),
    "bedrock": (bedrock_turns, False),
    "gemini": (gemini_turns, False),  # (a skeleton stands only with every call of the current turn signed)
    "gemini-2": (gemini_turns, False),
    "openai-responses": (_responses("openai-responses"), False),
    "deepseek-responses": (_responses("deepseek-responses"), False),
}
"""Each provider's proof, and whether its positions count combined turns (Anthropic's `messages.N`) rather
than native entries.  Its skeleton is its native format's (registry.PROVIDER_FORMAT)."""

WHOLE_OR_NOTHING = frozenset({"openai-responses", "deepseek-responses"})
"""Providers whose proof shows a request plain whole or not at all (`_responses`): no window is judged."""


_NAMES_AT_ONCE = frozenset({"bedrock"})
"""Providers whose validation answers every refused name of a request in one message (bedrock.validate_ids, with
the ids too long): a request holding a name one may refuse is judged whole, as one with a refused id is."""


def _judge_refused_names(bones: Sequence[Any], turns: Turns) -> None:
    """Flag bad the turns holding a call whose name some provider refuses (repair.views.name_refused)."""
    starts, flags = turns.bone, turns.flags
    refused: dict[str, bool] = {}  # each distinct name read once (a transcript calls a few tools many times)

    def _refused(name: str) -> bool:
        found = refused.get(name)
        if found is None:
            found = refused[name] = name_refused(name)
        return found

    for index, bone in enumerate(bones):
        content = bone[1]
        if bone[0] == "assistant" and content is not STRING and any(
                type(part) is tuple and part[0] != OPAQUE and _refused(part[1]) for part in content):
            turn = bisect_right(starts, index) - 1
            if turn >= 0:
                flags[turn] |= _BAD


def judge_windowed(bones: Sequence[Any], provider: str, judge: Callable[[Any, str], list[Violation]],
                   names: bool = False) -> list[Violation] | None:
    """`judge(SKELETONS[format](bones), provider)`'s verdict (canonical indices set; judge: canonical's
    judge_history, passed in since canonical imports this module), judged only on the
    windows around the turns the provider's proof could not show legal; None when no proof serves the
    provider or it does not apply (the caller judges the whole request).  names: a call's name may be one a
    provider refuses (formats.skeleton.TOOL_NAME among the bones' hints), which no proof reads: the turns holding
    one are judged too."""
    served = PROOFS.get(provider)
    if served is None:
        return None
    proof, by_turn = served
    format = PROVIDER_FORMAT[provider]
    turns = proof(bones)
    if turns is None:
        return None
    if names:
        if provider in _NAMES_AT_ONCE:
            return None
        _judge_refused_names(bones, turns)
    write = SKELETONS[format]
    count = len(turns.bone)
    bad = [flag & _BAD for flag in turns.flags]
    if sum(map(bool, bad)) * DENSE > count:
        return None  # windows would cover most of it: judged whole, without their overhead
    found: list[Violation] = []
    turn = 0
    while turn < count:
        if not bad[turn]:
            turn += 1
            continue
        start = turn
        while not turns.cut_before(start):
            start -= 1
        end = turn + 1
        while True:  # to a boundary no rule reads across, past every bad turn met on the way (or soon after:
            # judging a few plain turns costs less than another window)
            while not turns.cut_before(end):
                end += 1
            ahead = next((at for at in range(end, min(end + GAP, count)) if bad[at]), None)
            if ahead is None:
                break
            end = ahead + 1
        first = turns.bone[start]
        last = turns.bone[end] if end < count else len(bones)
        offset = start if by_turn else turns.entry[start]
        if by_turn and start:  # the rule set numbers a request opening with an assistant turn from 1
            offset += first_number(bones[turns.bone[0]][0]) - first_number(bones[first][0])
        for violation in judge(write(bones[first:last]), provider):
            shift = turns.entry[start] if (provider, violation.rule) in _BY_ENTRY else offset
            found.append(_moved(violation, shift, turns.entry[start], first))
        turn = end
    return sort_violations(found)
