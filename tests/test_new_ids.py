"""Mistral's new ids made when asked (repair.new_ids) are the ones strict._made holds, walks included.

A plan with stretches (the diagnosis `check --provider mistral` reads) no longer holds a dict of every new id of a
transcript whose every id Mistral refuses: each is remade from its hash when read.  Two ids whose first attempts
meet are the case that must still come out as _made's walk gives it (the first met keeps it, the later one walks
on); the pairs below meet (nine hex digits of sha1 of each, found by a search over call_NNNNNNNN, as the bench's
million-message file names its ids).
"""

from __future__ import annotations

import json
import pickle
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from integrity._bulk.fast_read import read_fast
from integrity.providers import ids
from integrity.providers.ids import mistral_first_bits as first_bits
from integrity.providers.ids import mistral_make, mistral_rule
from integrity.repair import new_ids
from integrity.repair.entries import Rewritten
from integrity.repair.new_ids import MadeWhenAsked, mistral_made
from integrity.repair.strict import _made, plan_strict

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import generate  # noqa: E402  (bench/generate.py: every defect kind)

MET = [("call_00015966", "call_00064127"), ("call_00070615", "call_00127539")]
"""Pairs of ids whose first attempts (mistral_make(id, 0)) are the same nine hex digits."""


def _held(order: list[str]) -> dict[str, str]:
    keys = dict.fromkeys(order).keys()
    return _made(mistral_rule(), list(keys), keys)


def test_the_pairs_meet_and_first_bits_is_the_first_attempt_as_an_integer() -> None:
    for one, other in MET:
        assert mistral_make(one, 0) == mistral_make(other, 0)
    for value in ["call_1", "toolu_01A", "", "é-ünïcödé", "x" * 300, *sum(MET, ())]:
        assert first_bits(value) == int(mistral_make(value, 0), 16)


@pytest.mark.parametrize("reverse", [False, True])
def test_made_when_asked_gives_each_id_the_name_the_held_walk_gives(reverse: bool) -> None:
    order = [f"call_{number:08d}" for number in range(200)] + [one for pair in MET for one in pair]
    order = order[::-1] if reverse else order
    keys = dict.fromkeys(order).keys()
    made = mistral_made(keys)
    held = _held(order)
    assert isinstance(made, MadeWhenAsked)
    assert {value: made[value] for value in order} == held
    later = {pair[0] if reverse else pair[1] for pair in MET}  # the one met second walks on
    assert made._walked.keys() == later
    assert all(made[value] != mistral_make(value, 0) for value in later)
    assert len(set(map(made.__getitem__, order))) == len(order)  # every new id its own
    assert "call_99999999" not in made and len(made) == len(order) and list(made) == order
    copied = pickle.loads(pickle.dumps(made))  # (a plan may cross processes: the dict it reads as)
    assert type(copied) is dict and copied == held
    with pytest.raises(KeyError):
        made["call_99999999"]


def test_a_walk_onto_another_ids_first_attempt_is_left_to_the_held_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    order = ["call_a", *MET[0], "call_b"]
    real = ids.mistral_make
    monkeypatch.setattr(ids, "mistral_make",  # every walk lands on call_b's first attempt (taken later in order)
                        lambda value, attempt: real("call_b", 0) if attempt == 1 else real(value, attempt))
    assert mistral_made(dict.fromkeys(order).keys()) is None
    assert new_ids._sorted_holds(sorted(map(first_bits, order)), first_bits("call_b"))


def _refused_transcript(seed: int, rate: float) -> list[dict[str, Any]]:
    """A generated transcript whose ids are call_NNNNNNNN as the bench's, with two of them the met pairs."""
    text = json.dumps(list(generate.messages(600, seed=seed, defect_rate=rate)))
    met = list(dict.fromkeys(re.findall(r'"(call_[0-9]+)"', text)))
    swap = dict(zip([met[2], met[40], met[6], met[41]], [*MET[0], *MET[1]], strict=True))
    return json.loads(re.sub(r'"(call_[0-9]+)"', lambda found: f'"{swap.get(found.group(1), found.group(1))}"', text))


@pytest.mark.parametrize("rate", [0.0, 0.05, generate.DENSE])
def test_a_plan_with_stretches_names_met_ids_as_the_listed_plan_does(rate: float) -> None:
    for seed in range(2):
        messages = _refused_transcript(seed, rate)
        assert all(pair[0] in json.dumps(messages) and pair[1] in json.dumps(messages) for pair in MET)
        fast = read_fast(json.dumps(messages).encode(), "t.json")
        assert fast is not None
        listed = plan_strict(fast.light, "mistral")
        stretched = plan_strict(fast.light, "mistral", stretches=True)
        alike = stretched.renamed_alike
        assert alike is not None and isinstance(alike.new, MadeWhenAsked)
        expanded = [entry for entry in alike.expand(stretched.order or []) if type(entry) is not range]
        listed_ids = [entry.ids for entry in listed.order or [] if type(entry) is Rewritten]
        assert [entry.ids for entry in expanded if type(entry) is Rewritten] == listed_ids
        every = [call.id for calls in fast.light.frames.values() for call in calls]
        assert {value: alike.new[value] for value in every} == _held(every)
        assert pickle.loads(pickle.dumps(stretched)).renamed_alike.new == _held(every)
