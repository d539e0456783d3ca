"""A provider's verdict judged from the light view (integrity.providers.sparse) is the one judged on every
message's bones: the same violations, field for field, as recorded and as repaired, and the same report.

The sparse judgment reads a transcript the fast path read as one letter per message, cuts it at anchors where
no rule reads across, and judges only the stretches around messages outside the clean turns (or made or moved
by the view), on the bones of those messages alone.  That is sound only while every stretch it calls plain
is one the provider's proof calls plain, and the anchors cut where the proofs start afresh: these tests hold
`check_unit`'s answer equal with the sparse judgment and with the bones (windowed) one, for every provider it
serves as the target and all of them asked beside, on every pi-ai sample, the generated transcripts of every
defect kind and density, and random transcripts built to hit the edges (runs of user turns, system messages
between a call and its results, results after a user turn, calls answered twice or never, ids a provider
refuses, assistant turns in a row).
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity._bulk.fast_read import read_fast
from integrity.pipeline import Loaded, check_unit, read_bones
from integrity.providers.sparse import READ_LIGHT, SERVED
from integrity.providers.sparse_items import SERVED as BY_ITEMS
from integrity.repair.policies import DEFAULT_POLICY, POLICIES

JUDGED = SERVED | BY_ITEMS
"""Every provider judged from the light view: by stretches (providers.sparse) or by items (sparse_items)."""

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import generate  # noqa: E402  (bench/generate.py: every defect kind)

USED: list[bool] = []


def _both(data: bytes, name: str, provider: str | None, also: Any, depth: str,
          monkeypatch: pytest.MonkeyPatch, policy: str = DEFAULT_POLICY) -> tuple[Any, Any] | None:
    """check_unit's answer read for the sparse judgment (hints only) and with every message's bones."""
    import integrity.skeleton_verdicts as on_skeletons

    sparse_read = read_fast(data, name, bones="items")  # (hints, and the Responses items)
    bones_read = read_fast(data, name, bones=True)
    if sparse_read is None or bones_read is None:
        return None
    real = on_skeletons.sparse_verdicts

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        USED.append(found is not None)
        return found

    answers = []
    for fast in (sparse_read, bones_read):
        ticks = itertools.count(1_000)
        with monkeypatch.context() as patch:
            patch.setattr(on_skeletons, "sparse_verdicts", counted)
            answers.append(check_unit(Loaded(name, fast=fast), provider=provider, also=also, depth=depth,
                                      policy=policy, now=ticks.__next__))
    return answers[0], answers[1]


def _assert_same(data: bytes, name: str, monkeypatch: pytest.MonkeyPatch, depth: str = "diagnosis",
                 policy: str = DEFAULT_POLICY) -> int:
    judged = 0
    for provider, also in [*((name, ()) for name in sorted(JUDGED)), (None, sorted(JUDGED)), ("gemini", ["bedrock"]),
                           ("openai-responses", ["deepseek-responses", "anthropic"])]:
        both = _both(data, name, provider, also, depth, monkeypatch, policy)
        if both is None:
            return 0
        sparse, bones = both
        assert sparse.providers == bones.providers, (name, provider)
        assert sparse.report == bones.report, (name, provider)
        judged += 1
    return judged


def _files() -> Iterator[tuple[str, bytes]]:
    for path in sorted((ROOT / "sample_transcripts").glob("*.json*")) + sorted((ROOT / "tests" / "real").iterdir()):
        yield path.name, path.read_bytes()
    for seed, rate in itertools.product(range(4), (0.02, 0.08, 0.5, 1.0, generate.DENSE)):
        yield f"generated-{seed}-{rate}", json.dumps(list(generate.messages(600, seed=seed, defect_rate=rate))).encode()


@pytest.mark.parametrize("depth", ["diagnosis", "report"])
def test_sparse_verdicts_equal_the_bones_verdicts_on_the_corpus(monkeypatch: pytest.MonkeyPatch, depth: str) -> None:
    USED.clear()
    judged = sum(_assert_same(data, name, monkeypatch, depth) for name, data in _files())
    assert judged > 100 and USED.count(True) > 100, (judged, USED.count(True))


def test_sparse_judges_only_around_what_may_be_broken(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a long transcript with a few defects the sparse judgment makes the bones of a few messages only (of a
    file in memory, from the structs its reader kept)."""
    from integrity._bulk.sparse_view import Durable

    data = json.dumps(list(generate.messages(5_000, seed=3, defect_rate=0.02))).encode()
    decoded: list[int] = []
    real = Durable.bones

    def counting(self: Durable, indices: list[int]) -> Any:
        assert self.structs is not None  # (in memory: nothing decoded again)
        decoded.extend(indices)
        return real(self, indices)

    monkeypatch.setattr(Durable, "bones", counting)
    USED.clear()
    both = _both(data, "long", "anthropic", (), "diagnosis", monkeypatch)
    assert both is not None and both[0].providers == both[1].providers and USED[0]
    assert both[0].providers["anthropic"].before  # broken as recorded
    assert 0 < len(set(decoded)) < 5_000 // 4, len(set(decoded))


def _regions_by_every_anchor(codes: str, seeds: list[int], provider: str) -> list[list[int]]:
    """The regions as the module's docstring defines them, from every anchor of the request (the way
    judged_regions found them before it looked only around the marked messages)."""
    import re
    from bisect import bisect_right

    if not codes:
        return []
    cuts = [0, *(found.start() for found in re.finditer(r"(?<=[ur]a)u+(?=[ac]|$)", codes)), len(codes)]
    marked = {*seeds, 0, len(codes) - 1, *(at for at, letter in enumerate(codes) if letter == "s")}
    pairs = {"bedrock": ("ur", "ru", "uu", "aa", "ac", "ca", "cc"), "mistral": ("ru",)}.get(provider, ())
    marked.update(at + step for at in range(len(codes) - 1) if codes[at:at + 2] in pairs for step in (0, 1))
    regions: list[list[int]] = []
    for number in sorted({bisect_right(cuts, index) - 1 for index in marked if 0 <= index < len(codes)}):
        if regions and regions[-1][1] == cuts[number]:
            regions[-1][1] = cuts[number + 1]
        else:
            regions.append([cuts[number], cuts[number + 1]])
    return regions


@settings(max_examples=2_000, deadline=None)
@given(codes=st.text(alphabet="uacrs", max_size=60), seeds=st.lists(st.integers(-2, 62), max_size=6),
       provider=st.sampled_from(sorted(SERVED)))
def test_the_regions_are_the_stretches_between_anchors_around_every_marked_message(codes: str, seeds: list[int],
                                                                                   provider: str) -> None:
    """judged_regions looks for the anchors around each marked message only; it finds the regions every anchor
    cuts (seeds past either end included, as a caller may hand them)."""
    from integrity.providers.sparse import judged_regions

    assert judged_regions(codes, seeds, provider) == _regions_by_every_anchor(codes, seeds, provider)


@settings(max_examples=2_000, deadline=None)
@given(codes=st.text(alphabet="uacrs", max_size=40), bounds=st.tuples(st.integers(0, 40), st.integers(0, 40)))
def test_a_stretchs_entries_are_counted_in_place_as_on_its_own_letters(codes: str, bounds: tuple[int, int]) -> None:
    """_entries reads a stretch within the request's letters (translated once) and counts what the stretch's own
    letters, sliced out and translated, give: a message each, less the systems (hoisted) and the results, plus
    one per run of results."""
    from integrity.providers.sparse import _RESULTS, _entries

    low, high = sorted(min(bound, len(codes)) for bound in bounds)
    alone = codes[low:high]
    shapes = alone.translate(_RESULTS)
    expected = len(alone) - alone.count("s") - alone.count("r") + shapes.count("01") + shapes.startswith("1")
    assert _entries(codes, codes.translate(_RESULTS), low, high) == expected
    assert _entries(codes, None, low, high) == high - low  # (the Chat shape: one entry per message)


def test_the_regions_of_fleet_shaped_requests_are_the_stretches_between_anchors() -> None:
    """The same on the letters of generated transcripts (long runs of clean turns, a few defects), for each
    provider, seeded at every defect the generator made and at none."""
    from integrity.providers.sparse import CODE, judged_regions

    for seed in range(6):
        messages = list(generate.messages(600, seed=seed, defect_rate=0.03))
        codes = "".join("c" if message["role"] == "assistant" and any(part.get("type") == "toolCall"
                                                                     for part in message["content"])
                        else CODE[message["role"]] for message in messages)
        assert "ucra" in codes and "c" in codes
        seeds = [at for at in range(0, len(codes), 37)]
        for provider in sorted(SERVED):
            for chosen in ([], seeds):
                assert judged_regions(codes, chosen, provider) == _regions_by_every_anchor(codes, chosen, provider)


def test_the_fast_path_reads_bones_only_for_providers_the_light_view_does_not_serve() -> None:
    assert read_bones([]) is False
    assert read_bones(["anthropic", "gemini"]) == "hints"
    assert read_bones(["anthropic", "mistral"]) == "hints"  # Mistral's refused ids are judged apart (sparse.APART)
    assert read_bones(["deepseek"]) == "hints"  # and DeepSeek's result ids met twice
    assert read_bones(["openai-responses"]) == read_bones(["anthropic", "deepseek-responses"]) == "items"
    assert read_bones(["all"]) == "items"  # every provider is judged from the light view
    from integrity.providers.sparse import ids_pass

    assert ids_pass("openai-responses", ["x" * 64], ["y"]) and not ids_pass("openai-responses", [], ["x" * 65])
    assert READ_LIGHT <= SERVED
    data = json.dumps(list(generate.messages(50, seed=1))).encode()
    read = read_fast(data, "x", bones="hints")
    assert read is not None and read.bones is None and read.hinted == set()
    hinted = json.loads(data)
    hinted[0]["_native"] = {"format": "anthropic"}
    read = read_fast(json.dumps(hinted).encode(), "x", bones="hints")
    assert read is not None and read.hinted == {"anthropic"}


def test_a_result_id_met_twice_far_apart_is_judged_on_the_whole_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """DeepSeek refuses a result id met twice anywhere in the request: two plainly answered turns far apart
    reusing one id are no region's seeds, yet the sparse judgment names the second one, as the bones do."""
    messages = list(generate.messages(400, seed=5, defect_rate=0.0))
    reused = [index for index, message in enumerate(messages) if message["role"] == "toolResult"]
    first, last = reused[0], reused[-1]
    old = messages[last]["toolCallId"]
    messages[last] = {**messages[last], "toolCallId": messages[first]["toolCallId"]}
    for message in messages:  # the call it answers takes the reused id too: the turn stays plainly answered
        if message["role"] == "assistant":
            for part in message["content"]:
                if part.get("type") == "toolCall" and part["id"] == old:
                    part["id"] = messages[first]["toolCallId"]
    USED.clear()
    both = _both(json.dumps(messages).encode(), "reused", "deepseek", (), "diagnosis", monkeypatch)
    assert both is not None and USED[0], USED
    sparse, bones = both
    assert sparse.providers == bones.providers
    repeated = [violation for violation in sparse.providers["deepseek"].before
                if violation.rule == "duplicate_tool_call_id"]
    assert [(violation.native_indices, violation.canonical_indices) for violation in repeated] == \
        [([first, last], [first, last])]
    reused_id = messages[first]["toolCallId"]
    assert repeated[0].error == f"Duplicate value for 'tool_call_id' of {reused_id} in message[{last}]"


EXTRA_PARTS = [{"type": "text", "text": "t"}, {"type": "thinking", "thinking": "h"},
               {"type": "image", "data": "AA==", "mimeType": "image/png"}]
"""Parts beside an assistant's calls: text (runs of it are one Responses item), thinking (an item), an image (none)."""

IDS = ["call_1", "call_2", "call_3", "toolu_4", "Bash:5", "", "abcdefghi"]
"""Few ids, so they repeat; one Anthropic refuses (a colon), an empty one, one Mistral takes."""


@st.composite
def _turns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A plainly answered turn (the common case) or one odd message."""
    kind = draw(st.sampled_from(["turn", "turn", "turn", "user", "assistant", "call", "result", "system"]))
    if kind == "turn":
        calls = draw(st.lists(st.sampled_from(IDS[:4]), min_size=1, max_size=3, unique=True))
        out: list[dict[str, Any]] = []
        if draw(st.booleans()):
            out.append({"role": "user", "content": draw(st.sampled_from(["do it", [{"type": "text", "text": "x"}]]))})
        parts: list[dict[str, Any]] = [{"type": "toolCall", "id": call, "name": "f", "arguments": {}} for call in calls]
        for extra in draw(st.lists(st.sampled_from(EXTRA_PARTS), max_size=2)):  # parts a Responses item count reads
            parts.insert(draw(st.integers(0, len(parts))), extra)
        out.append({"role": "assistant", "content": parts, "stopReason": "toolUse"})
        out.extend({"role": "toolResult", "toolCallId": call, "toolName": "f", "content": [], "isError": False}
                   for call in calls)
        if draw(st.booleans()):
            out.append({"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop"})
        return out
    if kind == "user":
        return [{"role": "user", "content": "hi"}]
    if kind == "system":
        return [{"role": "system", "content": "be brief"}]
    if kind == "assistant":
        stop = draw(st.sampled_from(["stop", "aborted", "error"]))
        content = [] if stop != "stop" and draw(st.booleans()) else \
            draw(st.sampled_from([[{"type": "text", "text": "hm"}], [EXTRA_PARTS[2]], EXTRA_PARTS]))
        return [{"role": "assistant", "content": content, "stopReason": stop}]
    if kind == "call":
        calls = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=2))
        return [{"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "g", "arguments": {}}
                                                  for call in calls], "stopReason": "toolUse"}]
    call = draw(st.sampled_from(IDS))
    receipt = draw(st.booleans()) and draw(st.booleans())
    return [{"role": "toolResult", "toolCallId": call, "toolName": "g", "content": [{"type": "text", "text": "r"}],
             "isError": receipt, **({"details": {"ok": False, "error": "interrupted"}} if receipt else {})}]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(_turns(), min_size=1, max_size=40))
def test_sparse_verdicts_equal_the_bones_verdicts_on_random_transcripts(turns: list[list[dict[str, Any]]],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    messages = [message for turn in turns for message in turn]
    for policy in POLICIES:  # (a view another policy plans may keep ids a provider refuses: Mistral's)
        _assert_same(json.dumps(messages).encode(), "random", monkeypatch, policy=policy)


@pytest.mark.parametrize("jsonl", [False, True])
def test_a_file_read_a_block_at_a_time_is_judged_alike(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                       jsonl: bool) -> None:
    """A large file is read a block at a time and never held whole: the sparse judgment reads again only the
    blocks holding the messages it judges, and says what the bones say (tiny blocks: many of them)."""
    import integrity._bulk.blocks as blocks
    import integrity._bulk.fast_read as fast_read
    from integrity._bulk.blocks import FileSource
    from integrity.loading import open_source

    monkeypatch.setattr(blocks, "BLOCK", 2048)
    monkeypatch.setattr(fast_read, "STREAM_FROM", 0)
    messages = list(generate.messages(3_000, seed=5, defect_rate=0.05))  # (interrupted frames with no part too)
    assert any(message.get("role") == "assistant" and not message.get("content") for message in messages)
    path = tmp_path / ("t.jsonl" if jsonl else "t.json")
    path.write_bytes(b"\n".join(json.dumps(m).encode() for m in messages) if jsonl else json.dumps(messages).encode())
    import integrity.skeleton_verdicts as on_skeletons

    real = on_skeletons.sparse_verdicts

    def counted(*args: Any) -> Any:
        found = real(*args)
        USED.append(found is not None)
        return found

    USED.clear()
    for provider in sorted(READ_LIGHT | BY_ITEMS):
        answers = []
        for bones in ("items", True):
            fast = fast_read.read_fast_file(FileSource(str(path), *open_source(str(path))), True, False, bones)
            assert fast is not None and (fast.bones is None) == (bones == "items")
            with monkeypatch.context() as patch:
                patch.setattr(on_skeletons, "sparse_verdicts", counted)
                answers.append(check_unit(Loaded(str(path), fast=fast), provider=provider,
                                          now=itertools.count(1).__next__))
        assert answers[0].providers == answers[1].providers and answers[0].report == answers[1].report, provider
        assert answers[0].providers[provider].before, provider  # broken as recorded: judged, not waved through
    assert USED.count(True) == len(READ_LIGHT | BY_ITEMS)


def test_a_view_is_read_as_runs_of_durable_messages_and_the_messages_it_made() -> None:
    """SparseView's runs (what sparse_items places a view's items by): a made message is a run of its own, also
    right before durable message 0, and a plan with stretches (ranges) gives the same runs as one listing them."""
    from integrity._bulk.sparse_view import Durable, SparseView

    listed = SparseView(Durable(None, None))
    listed.codes, listed.order, listed.made = "a" * 7, [-1, 0, 1, 5, -1, 6, 7], {0: None, 4: None}
    runs = [(0, -1, -1), (1, 0, 2), (3, 5, 6), (4, -1, -1), (5, 6, 8)]
    assert list(listed._segments()) == runs
    stretched = SparseView(Durable(None, None))
    stretched.codes, stretched.made = "a" * 7, {0: None, 4: None}
    stretched.runs = ([0, 1, 3, 4, 5], [-1, 0, 5, -1, 6])
    assert list(stretched._segments()) == runs
    assert stretched._kept() == [0, 1, 5, 6, 7]  # the durable messages it keeps, in view order
    assert listed._kept() == listed.order


def test_a_view_with_stretches_that_keeps_a_refused_id_is_refused() -> None:
    """SparseView.ids_pass reads every id a view keeps as recorded when an id rule is judged apart (Mistral's): a
    view with stretches that keeps a refused id, its last message's, does not pass, and one whose ids all pass
    does."""
    from integrity._bulk.sparse_view import Durable, SparseView
    from integrity.repair.views import Call

    frames = {0: (Call("abcdefgh1", "f"),), 2: (Call("abcdefgh2", "f"),), 4: (Call("abcdefgh3", "f"),)}
    for last, passes in (("abcdefgh3", True), ("call_3", False)):
        results = {1: "abcdefgh1", 3: "abcdefgh2", 5: last}
        view = SparseView(Durable(None, None))
        view.codes, view.made, view.runs = "a" * 6, {}, ([0, 2, 3], [0, 2, 3])  # 0-1, 2, 3-5
        assert view.ids_pass("mistral", results, frames) is passes, last


def test_a_clean_turn_renamed_alike_is_read_as_plain_and_nothing_else_renamed_is() -> None:
    """_renamed_alike: a view's renamed messages need no judging only when they rename a clean turn kept whole,
    its results answering the new call ids in order (a view for Mistral renames most ids); a turn renamed apart,
    cut short, answered by a stretch, or outside the clean turns stays to be judged."""
    from integrity._bulk.sparse_view import _renamed_alike
    from integrity.repair.entries import Rewritten
    from integrity.repair.views import Call

    frames = {1: (Call("a", "f"), Call("b", "f")), 4: (Call("c", "f"),)}
    results = {2: "a", 3: "b", 5: "c"}
    frame = Rewritten(1, {0: "A", 1: "B"})
    alike = [0, frame, Rewritten(2, {-1: "A"}), Rewritten(3, {-1: "B"}), Rewritten(4, {0: "C"}),
             Rewritten(5, {-1: "C"})]
    assert _renamed_alike(alike, frames, results, set()) == {1, 2, 3, 4, 5}
    apart = [0, frame, Rewritten(2, {-1: "B"}), Rewritten(3, {-1: "A"}), 4, 5]
    assert _renamed_alike(apart, frames, results, set()) == set()  # the answers swapped
    assert _renamed_alike([0, frame, Rewritten(2, {-1: "A"})], frames, results, set()) == set()  # cut short
    assert _renamed_alike([0, frame, range(2, 4)], frames, results, set()) == set()  # a stretch: not read here
    assert _renamed_alike(alike, frames, results, {3}) == {4, 5}  # a result outside the clean turns
    kept = [0, Rewritten(1, {}), 2, 3]  # renamed to nothing new: its results answer it still
    assert _renamed_alike(kept, frames, results, set()) == {1}


def test_a_frame_its_shape_does_not_place_is_judged_on_the_bones(monkeypatch: pytest.MonkeyPatch) -> None:
    """Item shapes that do not place a frame's calls (never so when read with the light view from the same
    structs) send the Responses verdict to every message's bones (sparse_items.Unplaced), with the same answer."""
    data = json.dumps(list(generate.messages(300, seed=2, defect_rate=0.1))).encode()
    fast = read_fast(data, "unplaced", bones="items")
    assert fast is not None and fast.items is not None
    fast.items.table = [(count, ()) for count, _ in fast.items.table]  # no call placed anywhere
    USED.clear()
    import integrity.skeleton_verdicts as on_skeletons

    real = on_skeletons.sparse_verdicts

    def counted(*args: Any) -> Any:
        found = real(*args)
        USED.append(found is not None)
        return found

    monkeypatch.setattr(on_skeletons, "sparse_verdicts", counted)
    answer = check_unit(Loaded("unplaced", fast=fast), provider="openai-responses", now=itertools.count(1).__next__)
    bones = read_fast(data, "unplaced", bones=True)
    assert bones is not None
    expected = check_unit(Loaded("unplaced", fast=bones), provider="openai-responses", now=itertools.count(1).__next__)
    assert USED == [False] and answer.providers == expected.providers and answer.providers["openai-responses"].before
