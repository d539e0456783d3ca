"""Provider role rules for the strict view: after pairing, make the turn order legal.

Pairing (integrity.strict) puts every result right after its call.  Some
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

from typing import Any, Optional, Sequence

from .plan import Merged, Plan, Synthesized, SynthesizedTurn, ViewEntry
from .views import LightTranscript

USER_START_TEXT = "[The start of this conversation is not available; it continues from here.]"
NO_REPLY_TEXT = "[No assistant reply was recorded after these tool results; the conversation continued below.]"

USER, ASSISTANT, FRAME, RESULT, SYSTEM, CUSTOM, OPAQUE = range(7)
SYSTEM_ROLES = ("system", "developer")

# provider -> which rules apply.  transparent: kinds the provider's writer takes out
# of the message list (they do not separate turns); merge_assistants: "all" or
# "before_calls"; results_then_user: insert an assistant turn; merge_users;
# start: "user" (must start with a user turn) or "no_calls" (must not start with a call turn).
ROLE_RULES: dict[str, dict[str, Any]] = {
    "bedrock": {"transparent": {SYSTEM, CUSTOM, OPAQUE}, "merge_assistants": "all", "results_then_user": True,
                "merge_users": True, "start": "user"},
    "gemini": {"transparent": {SYSTEM, CUSTOM, OPAQUE}, "merge_assistants": "before_calls",
               "results_then_user": None, "merge_users": False, "start": "no_calls"},
    "mistral": {"transparent": {OPAQUE}, "merge_assistants": None, "results_then_user": True,
                "merge_users": False, "start": None},
}

_WHY = {
    "bedrock": "Bedrock Converse requires user and assistant turns to alternate",
    "gemini": "Gemini requires a function call turn to come right after a user turn or a function response turn",
    "mistral": "Mistral rejects a user message right after tool messages (Unexpected role 'user' after role 'tool')",
}


def member_index(entry: Any) -> int:
    """The durable index of a durable view entry (an index, or a Rewritten message)."""
    return entry if type(entry) is int else entry.index


def _kind(light: LightTranscript, entry: ViewEntry) -> int:
    if isinstance(entry, Synthesized):
        return RESULT
    if isinstance(entry, SynthesizedTurn):
        return USER if entry.role == "user" else ASSISTANT
    if isinstance(entry, Merged):
        return _kind(light, entry.entries[-1])
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


def _label(entry: ViewEntry) -> str:
    if isinstance(entry, Merged):
        return "+".join(f"#{member_index(e)}" for e in entry.entries)
    if isinstance(entry, SynthesizedTurn):
        return f"a synthesized {entry.role} turn"
    return f"#{member_index(entry)}"


def legalize(light: LightTranscript, order: list[ViewEntry], provider: Optional[str],
             plan: Plan) -> Optional[list[ViewEntry]]:
    """The order with the provider's role rules applied, or None when it already complies.

    Drops (superseded interrupted frames), merges and notes are recorded on the plan.
    """
    rules = ROLE_RULES.get(provider or "")
    if rules is None:
        return None
    transparent = rules["transparent"]
    changed = False
    if rules["merge_assistants"]:
        changed |= _merge_runs(light, order, plan, transparent, (ASSISTANT, FRAME), provider or "",
                               only_before_calls=rules["merge_assistants"] == "before_calls")
        order = [entry for entry in order if entry is not None]
    if rules["results_then_user"]:
        order, inserted = _answer_results(light, order, transparent, provider or "")
        changed |= inserted
    if rules["merge_users"]:
        changed |= _merge_runs(light, order, plan, transparent, (USER,), provider or "")
        order = [entry for entry in order if entry is not None]
    if rules["start"]:
        first = next((p for p, entry in enumerate(order) if _kind(light, entry) not in transparent), None)
        if first is not None:
            kind = _kind(light, order[first])
            if (rules["start"] == "user" and kind != USER) or (rules["start"] == "no_calls" and kind == FRAME):
                if provider == "bedrock":
                    reason = ("Bedrock Converse requires a conversation to start with a user message; this history "
                              f"starts with {_label(order[first])} (its beginning was compacted or lost), so the "
                              "view opens with a user turn saying so")
                else:
                    reason = (f"{_WHY.get(provider or '', provider)}; this history starts with the call turn "
                              f"{_label(order[first])}, so the view opens with a user turn saying so")
                order.insert(first, SynthesizedTurn("user", USER_START_TEXT, reason))
                changed = True
    return order if changed else None


def _runs(light: LightTranscript, order: Sequence[Any], transparent: set[int], kinds: tuple[int, ...]):
    """Runs (lists of positions) of consecutive entries of the given kinds, transparent ones skipped."""
    run: list[int] = []
    for position, entry in enumerate(order):
        kind = _kind(light, entry)
        if kind in transparent:
            continue
        if kind in kinds:
            run.append(position)
            continue
        if len(run) > 1:
            yield run
        run = []
    if len(run) > 1:
        yield run


def _merge_runs(light: LightTranscript, order: list[Any], plan: Plan, transparent: set[int],
                kinds: tuple[int, ...], provider: str, only_before_calls: bool = False) -> bool:
    """Merge runs of one role in place (merged-away positions become None); True when any changed."""
    changed = False
    interrupted = set(light.interrupted_frames)
    for run in list(_runs(light, order, transparent, kinds)):
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
                plan.notes[entry] = (f"interrupted frame directly followed by another assistant turn "
                                     f"({_label(following)}); {_WHY[provider]}, and the unfinished turn was "
                                     "superseded, so it is dropped")
                order[position] = None
                changed = True
            else:
                keep.append(position)
        if len(keep) < 2:
            continue
        members = [order[position] for position in keep]
        carrier = member_index(members[-1])
        for position, entry in zip(keep[:-1], members[:-1], strict=True):
            index = member_index(entry)
            plan.merged[index] = carrier
            plan.notes[index] = (f"{_WHY[provider]}; consecutive {role} messages "
                                 f"{', '.join('#' + str(member_index(m)) for m in members)} are sent as one "
                                 f"{role} message (carried by #{carrier}), content in order")
            order[position] = None
        plan.notes.setdefault(carrier, (f"carries the content of "
                                        f"{', '.join('#' + str(member_index(m)) for m in members[:-1])} "
                                        f"before its own: {_WHY[provider]}"))
        order[keep[-1]] = Merged(members)
        changed = True
    return changed


def _answer_results(light: LightTranscript, order: list[Any], transparent: set[int], provider: str) -> tuple[list[Any], bool]:
    """Insert an assistant turn after each run of results that a user turn follows."""
    out: list[Any] = []
    inserted = False
    total = len(order)
    for position, entry in enumerate(order):
        out.append(entry)
        if _kind(light, entry) != RESULT:
            continue
        following = position + 1
        while following < total and _kind(light, order[following]) in transparent:
            following += 1
        if following < total and _kind(light, order[following]) == USER:
            if provider == "bedrock":
                reason = ("Bedrock Converse requires user and assistant turns to alternate, and rejects text "
                          "in the same turn as tool results; no assistant reply was recorded between these "
                          f"results and the user message {_label(order[following])}, so the view inserts an "
                          "assistant turn saying so")
            else:
                reason = (f"{_WHY[provider]}; no assistant reply was recorded between these results and the "
                          f"user message {_label(order[following])}, so the view inserts an assistant turn "
                          "saying so")
            out.append(SynthesizedTurn("assistant", NO_REPLY_TEXT, reason))
            inserted = True
    return out, inserted


def turn_message(entry: SynthesizedTurn, stamp: int) -> dict[str, Any]:
    """The pi-ai message a synthesized turn stands for."""
    message: dict[str, Any] = {"role": entry.role, "content": [{"type": "text", "text": entry.text}]}
    if entry.role == "assistant":
        message["stopReason"] = "stop"
    message["timestamp"] = stamp
    return message


def merge_messages(members: Sequence[Any]) -> dict[str, Any]:
    """One message carrying every member's content in order; every other field from the last member."""
    content: list[Any] = []
    for message in members:
        parts = message.get("content") if isinstance(message, dict) else None
        if isinstance(parts, str):
            if parts:
                content.append({"type": "text", "text": parts})
        elif isinstance(parts, list):
            content.extend(parts)
    last = members[-1]
    return {**last, "content": content} if isinstance(last, dict) else {"content": content}
