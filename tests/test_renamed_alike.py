"""The clean turns a strict view renames alike (entries.RenamedAlike): a plan with stretches keeps them in its
stretches with one rename, and says everything the plan listing every message says.

A provider whose id rule refuses a transcript's ids (Mistral's nine characters refuse most files) renames every
call of every clean turn.  `check --provider P` plans with stretches; there the turns stay inside the `range`
entries and one map (old id -> new id) names their new ids, so no entry is made per message.  Spelled out
(`expand`), the order is the listed plan's entry for entry; the diagnosis read from it (counts, moves,
severity, verdict) is the listed plan's, field for field; and each message's ids are the listed plan's.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from integrity._bulk.fast_read import read_fast
from integrity._diagnosis import diagnose
from integrity.repair.entries import Merged, RenamedAlike, Rewritten
from integrity.repair.strict import plan_strict
from integrity.repair.views import Call

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import generate  # noqa: E402  (bench/generate.py: every defect kind)

REFUSING = {  # provider -> how to make the generated ids ones its id rule refuses (Mistral refuses them as they are)
    "mistral": lambda value: value,
    "anthropic": lambda value: value.replace("_", "."),
    "openai-chat": lambda value: value + "x" * 40,
    "openai-responses": lambda value: value + "x" * 60,
}


def _transcript(seed: int, rate: float, provider: str) -> list[dict[str, Any]]:
    text = json.dumps(list(generate.messages(400, seed=seed, defect_rate=rate)))
    rename = REFUSING[provider]
    return json.loads(re.sub(r'"(call_[0-9]+)"', lambda found: f'"{rename(found.group(1))}"', text))


def flat(order: list[Any]) -> list[Any]:
    return [index for entry in order for index in (entry if type(entry) is range else (entry,))]


@pytest.mark.parametrize("provider", sorted(REFUSING))
@pytest.mark.parametrize("rate", [0.0, 0.05, 0.3, generate.DENSE])
def test_a_plan_with_stretches_renames_clean_turns_alike_and_says_what_the_listed_plan_says(provider: str,
                                                                                            rate: float) -> None:
    for seed in range(3):
        fast = read_fast(json.dumps(_transcript(seed, rate, provider)).encode(), "t.json")
        assert fast is not None
        listed = plan_strict(fast.light, provider)
        stretched = plan_strict(fast.light, provider, stretches=True)
        alike = stretched.renamed_alike
        assert alike is not None and listed.renamed_alike is None
        if rate == 0.0:  # every turn clean: the view is its stretches, whatever it renames
            assert len(stretched.order or ()) < 10 < len(listed.order or ())
        assert not any(type(entry) is Rewritten and alike.turn_of(entry.index) is not None
                       for entry in stretched.order or ())
        assert flat(alike.expand(stretched.order or [])) == listed.order
        for field in ("changed", "dropped_frames", "dropped_duplicates", "dropped_strays", "notes", "merged",
                      "settled", "repaired_tool_calls"):
            assert getattr(stretched, field) == getattr(listed, field), field
        assert (msgspec.to_builtins(diagnose(fast.light, stretched, "t.json"))
                == msgspec.to_builtins(diagnose(fast.light, listed, "t.json")))
        members = alike.members()
        assert alike.renamed_count() == sum(1 for index in members if alike.ids_of(index) is not None)
        assert alike.members_in(0, fast.light.size) == [index for index in members if alike.ids_of(index)]


def test_a_plan_for_a_provider_that_takes_the_ids_renames_nothing_alike() -> None:
    fast = read_fast(json.dumps(list(generate.messages(400, seed=1, defect_rate=0.05))).encode(), "t.json")
    assert fast is not None
    assert plan_strict(fast.light, "anthropic", stretches=True).renamed_alike is None  # it takes call_...


def test_renamed_alike_answers_for_each_message_and_spells_out_stretches_cut_anywhere() -> None:
    """Two turns (frames 1 and 5), the second with one call its rule takes: each message's ids, and an order cut
    inside a turn (as a provider's role rules cut one) or merging a frame spelled out as the listed plan holds it."""
    calls = {1: (Call("a", "f"), Call("b", "f")), 5: (Call("c", "f"), Call("ok", "f"))}
    alike = RenamedAlike([1, 5], calls, {"a": "A", "b": "B", "c": "C"})
    assert [alike.ids_of(index) for index in range(9)] == [
        None, {0: "A", 1: "B"}, {-1: "A"}, {-1: "B"}, None, {0: "C"}, {-1: "C"}, None, None]
    assert alike.members() == [1, 2, 3, 5, 6, 7]
    assert alike.members_in(2, 7) == [2, 3, 5, 6]
    assert alike.renamed_count() == 5  # two frames and three results (the call "ok" keeps its id)
    assert alike.sent(["a", "zz", "c", "ok"]) == ["A", "zz", "C", "ok"]
    spelled = alike.expand([range(0, 2), 2, range(3, 6), "made", range(6, 9)])
    assert spelled == [range(0, 1), Rewritten(1, {0: "A", 1: "B"}), Rewritten(2, {-1: "A"}), Rewritten(3, {-1: "B"}),
                       range(4, 5), Rewritten(5, {0: "C"}), "made", Rewritten(6, {-1: "C"}), 7, range(8, 9)]
    assert alike.expand([Merged((0, 1)), range(2, 4)]) == [
        Merged((0, Rewritten(1, {0: "A", 1: "B"}))), Rewritten(2, {-1: "A"}), Rewritten(3, {-1: "B"})]


def test_the_renamed_count_of_a_merge_of_a_renamed_frame_is_the_listed_plans() -> None:
    """A merge counts once, by its carrier: a renamed frame carrying a merge is one renamed message, and a renamed
    frame merged into a later one is none (what summarize counts of the listed plan's entries)."""
    from integrity._diagnosis import _renamed_count
    from integrity.repair.entries import unplain
    from integrity.repair.plan import Plan

    calls = {1: (Call("a", "f"),), 3: (Call("b", "f"),)}
    for order in ([Merged((0, 1)), range(2, 5)], [0, 1, Merged((2, 3)), 4], [Merged((0, 1)), 2, Merged((3,)), 4]):
        plan = Plan("strict")
        plan.renamed_alike = alike = RenamedAlike([1, 3], calls, {"a": "A", "b": "B"})
        listed = Plan("strict")
        spelled = alike.expand(order)
        assert _renamed_count(plan, unplain(order)) == _renamed_count(listed, unplain(spelled)), order
