"""A provider's role rules (integrity.repair.legalize) applied to a plan with stretches give the plan that lists
every message: the same order once its stretches are spelled out, the same drops, merges and notes, and the
same diagnosis.

`check --provider P` plans with stretches (`range` entries for what the view keeps as recorded) so that a
million-message view is a few thousand entries; the role rules of Bedrock, Gemini and Mistral then cut a
stretch only where they merge turns or insert one.  A diagnosis read from either order must be the same one,
field for field (the moves, the counts, the verdict).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity._bulk.fast_read import read_fast
from integrity._diagnosis import diagnose
from integrity.repair.legalize import _cut, has_role_rules
from integrity.repair.strict import plan_strict
from tests.test_strict_properties import broken_transcripts, frame, result, say, user

ROLE_RULES = ("bedrock", "gemini", "mistral")


def flat(order: list[Any] | None) -> list[Any] | None:
    """An order with its stretches spelled out, one entry per message."""
    if order is None:
        return None
    return [index for entry in order for index in (entry if type(entry) is range else (entry,))]


def assert_same_plans(messages: list[dict[str, Any]], provider: str) -> bool:
    """The plan with stretches equals the listed one (and says so of its diagnosis); whether it held a stretch."""
    fast = read_fast(json.dumps(messages).encode(), "t.json")
    assert fast is not None
    listed = plan_strict(fast.light, provider)
    stretched = plan_strict(fast.light, provider, stretches=True)
    alike = stretched.renamed_alike  # the clean turns renamed alike, kept in the stretches: spelled out too
    assert flat(alike.expand(stretched.order) if alike is not None else stretched.order) == listed.order
    assert listed.renamed_alike is None
    for field in ("changed", "dropped_frames", "dropped_duplicates", "dropped_strays", "notes", "merged", "settled",
                  "repaired_tool_calls"):
        assert getattr(stretched, field) == getattr(listed, field), field
    assert (msgspec.to_builtins(diagnose(fast.light, stretched, "t.json"))
            == msgspec.to_builtins(diagnose(fast.light, listed, "t.json")))
    return any(type(entry) is range for entry in stretched.order or ())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=broken_transcripts(), provider=st.sampled_from(ROLE_RULES))
def test_role_rules_on_stretches_give_the_listed_plan(messages: list[dict[str, Any]], provider: str) -> None:
    assert has_role_rules(provider)
    assert_same_plans(messages, provider)


def test_role_rules_cut_stretches_where_they_change_turns() -> None:
    """Each rule at work inside a long stretch kept as recorded: a history starting with a frame (a user turn
    is put first), users in a row and assistants in a row (merged), a user right after results (a reply is put
    between): the stretch is cut there and nowhere else."""
    turn = [user("ask", 1), frame([("call_1", "f")], 1), result("call_1", "f", "out", 1), say("done", 1)]
    messages = [frame([("call_0", "f")], 1), result("call_0", "f", "out", 1), user("more", 1), *turn * 20,
                user("again", 1), *turn * 20, say("also", 1), *turn * 20]
    for provider in ROLE_RULES:
        assert assert_same_plans(messages, provider), provider


def test_cut_gives_each_wanted_message_an_entry_of_its_own() -> None:
    order = [range(0, 4), "made", 4, range(5, 9), range(9, 9), range(9, 11)]
    cut, where = _cut(order, [0, 2, 3, 4, 5, 8, 11])
    assert cut == [0, range(1, 2), 2, 3, "made", 4, range(5, 7), 7, range(8, 9), range(9, 9), range(9, 10), 10]
    assert where == [0, 2, 3, 4, 5, 7, 11]
    assert [cut[at] for at in where] == [0, 2, 3, "made", 4, 7, 10]
    assert flat([entry for entry in cut if entry != "made"]) == list(range(11))
