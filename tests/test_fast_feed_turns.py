"""The fast reader's own steps of LightBuilder (integrity._bulk.fast_read._feed: the frame that opens a turn and
the results that answer it, taken with no call per message) against the builder driven one message at a time
(light_transcript, the dict reader), on generated transcripts with every defect kind the strict policy handles
(the strict property tests' generators), cut into blocks anywhere: a turn open at the end of a block is handed
over to the next.  The view, its clean turns, its loose messages and the keys counted must all be the same."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from integrity._bulk import fast_read
from integrity.formats.duplicates import count_keys
from integrity.repair.views import LightBuilder, LightTranscript, light_transcript
from tests.test_strict_properties import aborted, broken_transcripts, frame, receipt, result, tangled_transcripts, user

_IDS = st.sampled_from(["a", "b", "c", ""])


@st.composite
def knotted_transcripts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Up to 30 steps over three string ids and '': frames of one to three calls, results and receipts in
    any order, users and aborted turns between them: every way a turn (across a block's end too) stays open,
    closes, or is found not clean."""
    out: list[dict[str, Any]] = []
    for stamp in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(["turn", "turn", "frame", "result", "result", "receipt", "user", "aborted"]))
        if kind == "turn":  # a frame (its ids mostly fresh) and the results of its first calls, in order
            ids = [draw(st.one_of(st.just(f"t{stamp}.{n}"), _IDS)) for n in range(draw(st.integers(1, 3)))]
            out.append(frame([(i, "search") for i in ids], stamp))
            out += [result(i, "read", "r", stamp) for i in ids[:draw(st.integers(0, len(ids)))]]
        elif kind == "frame":
            out.append(frame([(i, "search") for i in draw(st.lists(_IDS, min_size=1, max_size=3))], stamp))
        elif kind == "result":
            out.append(result(draw(_IDS), draw(st.sampled_from(["search", "read"])), "r", stamp))
        elif kind == "receipt":
            out.append(receipt(draw(_IDS), "search", stamp))
        elif kind == "user":
            out.append(user("go", stamp))
        else:
            out.append(aborted(stamp, draw(st.booleans())))
    return out


def fed_in_blocks(messages: list[Any], cuts: list[int], clean: bool) -> tuple[LightTranscript, int]:
    """The view _feed builds from the decoded messages fed as blocks cut at `cuts`, and the keys it counted
    (the free values' included), as fast_read._blocks feeds them."""
    builder = LightBuilder(clean, sparse_names=True)
    names: dict[str, str] = {}
    roles: list[Any] = []
    keys = 0
    bounds = [0, *sorted(set(cuts)), len(messages)]
    for low, high in zip(bounds, bounds[1:], strict=False):
        block = messages[low:high]
        roles.extend(map(fast_read._ROLE_OF.__getitem__, map(type, block)))
        free: list[Any] = []
        fed = fast_read._feed(block, low, builder, names, free)
        keys += fed[1] + fast_read._inner_keys(free)[0]
    return builder.build(roles), keys


def facts(light: LightTranscript) -> tuple[Any, ...]:
    frames = {index: [(call.id, call.name) for call in calls] for index, calls in light.frames.items()}
    return (light.size, light.roles, frames, list(light.result_keys.items()), light.interrupted_frames,
            list(light.receipts), light.empty_frames, light.frame_stops, light.clean)


@settings(max_examples=600, deadline=None)
@given(messages=st.one_of(broken_transcripts(), tangled_transcripts(), knotted_transcripts()), clean=st.booleans(),
       data=st.data())
def test_feed_builds_the_view_the_builder_builds_one_message_at_a_time(messages: list[dict[str, Any]],
                                                                       clean: bool, data: st.DataObject) -> None:
    text = json.dumps(messages).encode()
    try:
        decoded = fast_read._MESSAGES.decode(text)
    except msgspec.ValidationError:  # an id or name that is not a string: the general reader's
        assert fast_read.read_fast(text, "t.json") is None
        return
    cuts = data.draw(st.lists(st.integers(0, len(messages)), max_size=6))
    light, keys = fed_in_blocks(decoded, cuts, clean)
    each = light_transcript(messages, clean=clean)
    assert facts(light) == facts(each)
    loose = set(each.clean[2]) if each.clean is not None else set(each.result_keys)
    assert light.result_names == {index: name for index, name in each.result_names.items() if index in loose}
    assert keys == count_keys([json.loads(text)])
    whole = fast_read.read_fast(text, "t.json", clean)
    if whole is not None:
        assert facts(whole.light) == facts(light)


def test_a_turn_open_at_the_end_of_a_block_is_named_when_the_next_block_loosens_it() -> None:
    """A frame's first result ends one block; the next block answers its second call out of order: the turn
    is loose, and both of its results keep their tool names (the fast path's only names)."""
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": "a", "name": "read", "arguments": {}},
            {"type": "toolCall", "id": "b", "name": "grep", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": "a", "toolName": "read", "content": [], "isError": False},
        {"role": "user", "content": "wait"},
        {"role": "toolResult", "toolCallId": "b", "toolName": "grep", "content": [], "isError": False},
    ]
    decoded = fast_read._MESSAGES.decode(json.dumps(messages).encode())
    light, _ = fed_in_blocks(decoded, [3], True)
    assert light.clean == ([], {"a": 1, "b": 1}, [1, 2, 4])
    assert light.result_names == {2: "read", 4: "grep"}
    whole, _ = fed_in_blocks(decoded, [], True)
    assert facts(whole) == facts(light) and whole.result_names == light.result_names
