"""The providers' verdicts judged on skeletons: each request written as the bones of its messages
(integrity.formats.skeleton), or, for a file the fast path read, from its light view and the bones of the few
messages around what may be broken (integrity.providers.sparse).  The verdicts and error texts are the full
requests' (tests/test_skeleton.py, tests/test_sparse.py).  views_by_plan, the one rule for which view each
provider is sent, is here too: the pipeline's full requests read it when a provider is asked.

The pipeline (integrity.pipeline.check_unit) loads this module only when a provider is asked: its imports are
the provider modules, about 30 ms, which `check` alone never reads.  They are imported here once, at the top,
not in each function: a function's own import costs about a microsecond each time it runs, some twenty per
file judged, about 4% of `check --provider gemini` over the 2,000 fleet files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from ._bulk import item_groups
from ._bulk.sparse_view import Durable, SparseView
from .formats.skeleton import SKELETONS, TOOL_NAME, read_long_strings, stands_for
from .providers import PROVIDER_FORMAT
from .providers.canonical import judge_history, judge_turns
from .providers.sparse import APART, SERVED, empty_frames_judged, ids_pass, judge_sparse, recorded_codes
from .providers.sparse_items import SERVED as BY_ITEMS
from .providers.sparse_items import Unplaced
from .providers.verdict import ProviderVerdict
from .providers.violation import Violation, sort_violations
from .providers.windowed import judge_windowed
from .repair.policies import PLANNERS
from .repair.strict import refuses_names
from .repair.views import BLANK_NONE

if TYPE_CHECKING:
    from .loaded import Loaded
    from .repair.plan import Plan
    from .repair.views import LightTranscript


_View = TypeVar("_View")


def views_by_plan(policy: str, light: LightTranscript, plan: Plan, made: dict[str | None, _View],
                  make: Callable[[str], _View]) -> Callable[[str], _View]:
    """view_for(provider): the view that provider is sent, made (make(provider)) once per distinct plan:
    views are kept by the provider they were planned for (made: plan.provider's view), never by object
    identity.  The one keying rule for the messages' views (integrity.pipeline's full requests) and for their
    bones (skeleton_verdicts, sparse_verdicts)."""
    def view_for(provider: str) -> _View:
        key = plan.provider
        if provider != key:  # (the plan's own provider is never re-planned: the analysis is not loaded for it)
            from .analysis import replans_for

            key = provider if replans_for(policy, light, plan, provider) else plan.provider
        found = made.get(key)
        if found is None:
            found = made[key] = make(provider)
        return found

    return view_for


def skeleton_verdicts(loaded: Loaded, light: LightTranscript, plan: Plan, names: Sequence[str], policy: str,
                      now: Callable[[], int], letters: str | None = None
                      ) -> tuple[dict[str, ProviderVerdict], list[int]] | None:
    """provider_verdicts judged on the requests' skeletons (integrity.formats.skeleton), with the timestamps the
    view's synthesized messages got; None when a skeleton cannot stand for a request (a provider of the
    file's own format judges its recorded entries; a message carries hints of a provider's format), and the
    caller judges the full requests.  letters: the transcript's letters when sparse_letters spelled them
    (judged from the light view first; plan may then hold stretches).

    No message is decoded into a dict (only those the view rewrites), and no text is copied: the verdicts
    and error texts are the full requests' (tests/test_skeleton.py), at a fraction of the time and memory."""
    formats = {PROVIDER_FORMAT[name] for name in names}
    if loaded.format in formats or not formats <= SKELETONS.keys():
        return None
    if letters is not None:
        sparse = sparse_verdicts(loaded, light, plan, names, policy, now, letters)
        if sparse is not None:
            return sparse
        if plan.order is not None and range in set(map(type, plan.order)):
            plan = PLANNERS[policy](light, plan.provider)  # the views below list every message
    bones, hinted = loaded.bones()
    if loaded.transcript is not None:  # (the fast path's read marks a message long enough: fast_read)
        read_long_strings(loaded.transcript.messages, hinted, formats)
    if not stands_for(hinted, formats):
        return None
    named = TOOL_NAME in hinted  # (a name a provider refuses: no proof reads names)
    stamps: list[int] = []

    def stamp() -> int:
        value = now()
        stamps.append(value)
        return value

    view_for = views_by_plan(policy, light, plan, {plan.provider: loaded.view_bones(bones, plan, stamp, hinted)},
                             lambda name: loaded.view_bones(bones, PLANNERS[policy](light, name), now, hinted))
    written: dict[tuple[str, int], Any] = {}
    shared = {format for format in formats if sum(PROVIDER_FORMAT[name] == format for name in names) > 1}

    def judge(format: str, listed: list[Any], name: str) -> list[Any]:
        windowed = judge_windowed(listed, name, judge_history, named)  # only around the turns not plainly legal
        if windowed is not None:
            return windowed
        found = written.get((format, id(listed)))  # every list judged is kept alive by bones or view_for
        if found is None:
            found = SKELETONS[format](listed)
            if format in shared:  # kept for the next provider of the format; else freed once judged (memory)
                written[(format, id(listed))] = found
        return judge_history(found, name)

    said: dict[str, ProviderVerdict] = {}
    for name in names:
        view = view_for(name)
        if not stands_for(hinted, formats):  # a message the view rewrote carries hints after all
            return None
        before = judge(PROVIDER_FORMAT[name], bones, name)
        after = before if view is bones else judge(PROVIDER_FORMAT[name], view, name)
        said[name] = ProviderVerdict(name, before, after)
    return said, stamps


def sparse_letters(loaded: Loaded, light: LightTranscript, names: Sequence[str]) -> str | None:
    """The letters of a transcript whose provider verdicts can be judged from its light view (sparse_verdicts):
    a file the fast path read without bones (read_bones: "hints"), no native hints, clean turns classified,
    every provider served, and ids every one of them takes (but for the rules judged on every id apart: APART);
    else None (judged on every message's bones)."""
    fast = loaded.fast
    if fast is None or fast.hinted is None or fast.bones is not None or light.clean is None or not names:
        return None
    served = SERVED | BY_ITEMS if fast.items is not None else SERVED
    if not set(names) <= served or not stands_for(fast.hinted, {PROVIDER_FORMAT[name] for name in names}) \
            or (TOOL_NAME in fast.hinted and any(refuses_names(light, name) for name in names)):
        return None  # (the light view holds no rule on names: a name one of them refuses is judged on the bones)
    codes = recorded_codes(light.roles, light.frames)
    if codes is None:
        return None
    if set(names) <= APART.keys():  # (their ids are judged apart: the lists of every id would go unread)
        return codes
    first_frame = light.clean[1]
    calls = list(first_frame) if first_frame is not None else \
        list({call.id: None for calls in light.frames.values() for call in calls})
    results = list(light.result_keys.values())
    return codes if all(name in APART or ids_pass(name, calls, results) for name in names) else None


def _empty_frames(found: Sequence[Violation], codes: str, frames: set[int], provider: str) -> Sequence[Violation]:
    """Anthropic's sparse verdict as recorded with its empty_message_content judged on the whole request
    (providers.sparse.empty_frames_judged), not by the regions: they number it by turns and take a frame that
    closes one for the request's last.  (The strict view drops every such frame: nothing to judge after it.)"""
    if not frames and all(violation.rule != "empty_message_content" for violation in found):
        return found
    return sort_violations([violation for violation in found if violation.rule != "empty_message_content"] +
                           empty_frames_judged(codes, frames, provider))


_EMPTY_SEEDS = frozenset({"bedrock", "gemini", "gemini-2"})
"""The providers served by the sparse judgment that refuse a message written with no block and number it by
native entries, as the regions are moved (Anthropic's is judged on the whole request: _empty_frames)."""


def _with_empty(loose: Sequence[int], light: LightTranscript, name: str) -> Sequence[int]:
    """The loose messages and those written with no block: the interrupted frames without parts, and for Gemini
    every user or assistant message without content (light.blank_texts' BLANK_NONE; a blank text is a part)."""
    empty: set[int] = set(light.empty_frames)
    if PROVIDER_FORMAT[name] == "gemini" and light.blank_texts:
        empty.update(index for index, held in light.blank_texts.items() if held == BLANK_NONE)
    return sorted(empty.union(loose)) if empty else loose


_FIRST_IDS = 1024
"""The call ids sparse_verdicts' durable_pass checks first (the rest are listed only when these pass)."""


def sparse_verdicts(loaded: Loaded, light: LightTranscript, plan: Plan, names: Sequence[str], policy: str,
                    now: Callable[[], int], codes: str) -> tuple[dict[str, ProviderVerdict], list[int]] | None:
    """skeleton_verdicts judged from the light view and the bones of the few messages around what may be
    broken (integrity.providers.sparse), for a transcript sparse_letters spelled as `codes`; None when a
    view's made messages carry native hints or ids a provider refuses after all (the caller judges every
    message's bones).  plan may hold stretches (ranges): the views are read without listing each message."""
    assert loaded.fast is not None and light.clean is not None
    places: item_groups.Places | None = None
    apart = APART.keys() & set(names)

    def durable_pass(name: str) -> bool:
        """Whether the durable ids pass the provider's id rules (an id rule judged apart may have let them by).
        The lists of every id are made here and let go (held through the verdicts, Mistral's peaked 3 MB higher
        at a million messages), and only when the first calls' ids pass (a transcript Mistral refuses refuses
        them all, as a rule: its lists of every id raised the peak by 6 MB); DeepSeek's check reads the result
        ids only."""
        calls: list[Any] = []
        if name != "deepseek":
            every = (call.id for calls in light.frames.values() for call in calls)
            calls = list(islice(every, _FIRST_IDS))
            if not ids_pass(name, calls, []):
                return False
            calls += every
        return ids_pass(name, calls, list(light.result_keys.values()))

    loose = light.clean[2]
    durable = Durable(loaded.fast.raws, loaded._durable(), loaded.fast.structs)
    stamps: list[int] = []

    def stamp() -> int:
        value = now()
        stamps.append(value)
        return value

    hinted: set[str] = set()
    ids = (light.frames, light.result_keys)
    views = views_by_plan(policy, light, plan,
                          {plan.provider: SparseView.of(plan, codes, loose, durable, stamp, hinted, ids)},
                          lambda name: SparseView.of(PLANNERS[policy](light, name), codes, loose, durable, now, hinted,
                                                     ids))
    said: dict[str, ProviderVerdict] = {}
    for name in names:
        view = views(name)
        if not stands_for(hinted, {PROVIDER_FORMAT[other] for other in names}):
            return None  # a message the view made carries hints after all
        recorded_ids = None if name not in apart or durable_pass(name) else light.frames  # (then they count too)
        if view.made is not None and not view.ids_pass(name, light.result_keys, recorded_ids):
            return None
        if name in BY_ITEMS:  # a Responses request: its calls and outputs, placed by the items of each message
            try:
                if places is None:
                    places = item_groups.Places(loaded.fast.items, light.frames, light.result_keys, light.clean)
                # (each walk of the request reads its items afresh: none is held; the second walk keeps the
                # groups holding a suspect id, the clean turns left out by the first among them)
                recorded = partial(item_groups.recorded, places)
                before: Sequence[Any] = item_groups.judge(name, recorded, recorded)
                viewed = partial(item_groups.of_view, places, view)
                after = before if view.made is None else item_groups.judge(name, viewed, viewed)
            except Unplaced:
                return None
            said[name] = ProviderVerdict(name, before, after)
            continue
        regions = None if view.made is None else view.regions_kept(name)  # (their bones kept from the next pass)
        # An interrupted frame written with no block is no loose message, yet Bedrock refuses it: it is a seed
        # there, so that its stretch is judged (Bedrock numbers it by entries, as the regions are moved, and
        # spares no last message; Anthropic's is judged on the whole request: _empty_frames); Gemini refuses
        # any message written without parts (parts_empty), a user's too: each is a seed
        seeds = loose if name not in _EMPTY_SEEDS else _with_empty(loose, light, name)
        before = judge_sparse(codes, seeds, name, durable.bones, judge_turns,  # (the ids were checked whole)
                              frames=light.frames, results=light.result_keys)
        if name == "anthropic":
            before = _empty_frames(before, codes, light.empty_frames, name)
        after = before if view.made is None else \
            judge_sparse(view.codes, view.seeds, name, view.bones, judge_turns, plain=True, regions=regions)
        durable.keep(())
        said[name] = ProviderVerdict(name, before, after)
    return said, stamps
