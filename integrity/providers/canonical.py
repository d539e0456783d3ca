"""Carrying violations from native request indices back to canonical transcript indices.

The rule sets work on the native request, but a user reads the canonical
transcript (and its durable entries).  A format writer knows which canonical
messages became each native entry; given that grouping, this module fills in
`canonical_indices` so every violation also points at the messages to fix.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import msgspec

from .registry import PROVIDER_FORMAT, PROVIDERS, validate_native
from .violation import Violation

if TYPE_CHECKING:
    from ..formats.registry import NativeRequest
    from ..loading import Transcript


def with_canonical_indices(violations: Sequence[Violation], groups: Sequence[Sequence[int]]) -> list[Violation]:
    """Copies of the violations with `canonical_indices` set.

    groups[i] lists the canonical message indices written as native entry i (for example
    several toolResult messages merged into one Anthropic user message).  Native indices
    with no group (past the end of the request) contribute nothing.
    """
    mapped = []
    known: dict[tuple[int, ...], list[int]] = {}  # violations about the same entries share one list
    for violation in violations:
        key = tuple(violation.native_indices)
        canonical = known.get(key)
        if canonical is None:
            canonical = known[key] = sorted({c for n in key if 0 <= n < len(groups) for c in groups[n]})
        mapped.append(msgspec.structs.replace(violation, canonical_indices=canonical))
    return mapped


def validate(
    messages: list[dict[str, Any]], provider: str, transcript: Transcript | None = None,
    history: bool = False, as_recorded: bool = False, requests: dict[Any, Any] | None = None, ids: bool = True,
) -> list[Violation]:
    """Check canonical pi-ai messages against a provider, as the request that provider would receive.

    The messages are written in the provider's native format (`integrity.formats.to_native`;
    pass the transcript they were read from to reuse its native entries) and validated there,
    so positions and error texts are the provider's own; `canonical_indices` says which
    canonical messages each violation involves.  history=True validates a stored
    transcript's history rather than an outgoing request (see `validate_native`).
    as_recorded=True (with the transcript's own messages) judges the file's entries exactly
    as written when its format is the provider's; otherwise the request is written afresh
    (what a repair sends).  requests: a dict the caller keeps for one round of checks over
    the same messages (every provider): providers sharing a native format (Mistral and
    DeepSeek read OpenAI Chat) then share one written request instead of building it again.
    ids: apply the provider's id rules too (pattern and length: ProviderSpec.validate_ids); the strict
    view planned for a provider renames the ids it refuses.
    """
    from .._arguments import require_messages

    checked = ("checked", id(messages))  # a round over every provider checks each message list once
    if requests is None or requests.get(checked, (None,))[0] is not messages:
        # a transcript's own messages decoded from JSON text hold JSON's types by construction
        require_messages(messages, "validate", json_typed=transcript is not None and transcript.json_typed
                         and messages is transcript.messages)
        if requests is not None:
            requests[checked] = (messages,)  # the list itself is kept, so its id cannot be reused
    return judge(messages, provider, transcript, history, as_recorded, requests, ids, trusted=False)


def judge(
    messages: list[dict[str, Any]], provider: str, transcript: Transcript | None = None,
    history: bool = False, as_recorded: bool = False, requests: dict[Any, Any] | None = None, ids: bool = True,
    trusted: bool = True,
) -> list[Violation]:
    """`validate` for messages the engine already holds to JSON's types (a transcript it read, a view it
    planned): the same verdict without walking every value again (require_messages, about a quarter of
    `check --provider` on a large file), nor reading the transcript's file again to recognise its messages
    (trusted: see judged_request; `validate`, which a caller's edited messages reach, does not trust)."""
    if provider not in PROVIDER_FORMAT:
        return validate_native([], provider)  # raises the registry's unknown-provider error
    format = PROVIDER_FORMAT[provider]
    if transcript is None or transcript.format != format:  # the request is written afresh: its skeleton will do
        round_ = requests if requests is not None else {}  # the bones read once, whichever way it is judged
        windowed = _windowed(messages, provider, format, history, ids, round_)
        if windowed is not None:
            return in_context(windowed, transcript)
        written = skeleton_once(messages, format, round_)
        if written is not None:
            return in_context(judge_written(written, provider, history, ids), transcript)
    native, sources, _ = judged_request(messages, provider, transcript, as_recorded, requests, trusted=trusted)
    return with_canonical_indices(in_context(_validated(native, provider, history, ids, requests), transcript), sources)


def _validated(native: list[Any], provider: str, history: bool, ids: bool, requests: dict[Any, Any] | None
               ) -> list[Violation]:
    """validate_native of a request, once per round of checks (`requests`) for the same entries: the request written
    for a view that changes nothing holds the very entries of the file, which the verdict as recorded judged already
    (the rule sets read the entries alone, so the same entries get the same violations)."""
    if requests is None:
        return validate_native(native, provider, history, ids=ids)
    key = ("validated", provider, history, ids)
    kept = requests.get(key)
    if kept is not None and len(kept[0]) == len(native) and all(map(operator.is_, kept[0], native)):
        return cast("list[Violation]", kept[1])
    found = validate_native(native, provider, history, ids=ids)
    requests[key] = (list(native), found)
    return found


def judge_written(written: tuple[list[Any], list[list[int]]], provider: str, history: bool = True,
                  ids: bool = True) -> list[Violation]:
    """`judge` of a request already written: its native entries and, per entry, its canonical messages (a
    skeleton: integrity.formats.skeleton)."""
    native, sources = written
    return with_canonical_indices(validate_native(native, provider, history, ids=ids), sources)


def judge_history(written: tuple[list[Any], list[list[int]]], provider: str) -> list[Violation]:
    """`judge_written` of a stored history with the id rules: what a window of one is judged by
    (providers.windowed takes it as an argument: windowed is imported from here)."""
    return judge_written(written, provider, True, True)


def judge_turns(written: tuple[list[Any], list[list[int]]], provider: str) -> list[Violation]:
    """`judge_written` of a stored history without the id rules: for a stretch of a request whose ids were
    all checked at once first (providers.sparse.ids_pass), which no id rule can then fire on."""
    return judge_written(written, provider, True, False)


def _windowed(messages: list[Any], provider: str, format: str, history: bool, ids: bool,
              requests: dict[Any, Any] | None) -> list[Violation] | None:
    """The skeleton's verdict judged in windows (providers.windowed), or None (no proof serves the provider,
    it does not apply, or no skeleton stands for the request).  Only for a stored history, with the id
    rules: a request being sent is also judged on how it ends, which no window sees."""
    from ..formats.skeleton import SKELETONS, TOOL_NAME, read_long_strings, stands_for
    from .windowed import PROOFS, judge_windowed

    if not (history and ids) or provider not in PROOFS or format not in SKELETONS:
        return None
    bones, hinted = _bones_once(messages, requests)
    read_long_strings(messages, hinted, format)
    if not stands_for(hinted, format):
        return None
    return judge_windowed(bones, provider, judge_history, TOOL_NAME in hinted)


def _bones_once(messages: list[Any], requests: dict[Any, Any] | None) -> tuple[list[Any], set[str]]:
    """all_bones of the messages, read once per list in a round of checks (`requests`)."""
    from ..formats.skeleton import all_bones

    if requests is None:
        return all_bones(messages)
    read = requests.get(("bones", id(messages)))
    if read is None or read[0] is not messages:  # the list itself is kept, so its id cannot be reused
        read = requests[("bones", id(messages))] = (messages, _bones_reusing(messages, requests))
    return cast("tuple[list[Any], set[str]]", read[1])


def skeleton_once(messages: list[Any], format: str, requests: dict[Any, Any] | None
                  ) -> tuple[list[Any], list[list[int]]] | None:
    """The skeleton of the request `format` is written for these messages (None: only the full writer can
    write it, see formats.skeleton), made once per list and format in a round of checks (`requests`): the
    bones once for every format, each skeleton once for the providers that read it."""
    from ..formats.skeleton import SKELETONS, all_bones, read_long_strings, stands_for

    writer = SKELETONS.get(format)
    if writer is None:  # a format with no skeleton writer: its requests are judged in full
        return None
    if requests is None:
        bones, hinted = all_bones(messages)
        read_long_strings(messages, hinted, format)
        return writer(bones) if stands_for(hinted, format) else None
    key = ("skeleton", id(messages), format)
    kept = requests.get(key)
    if kept is None or kept[0] is not messages:  # the list itself is kept, so its id cannot be reused
        bones, hinted = _bones_once(messages, requests)
        read_long_strings(messages, hinted, format)
        written = writer(bones) if stands_for(hinted, format) else None
        kept = requests[key] = (messages, written)
    return cast("tuple[list[Any], list[list[int]]] | None", kept[1])


def _bones_reusing(messages: list[Any], requests: dict[Any, Any]) -> tuple[list[Any], set[str]]:
    """all_bones of a list, reading again only the messages the round's first boned list (the transcript's
    own, kept in `requests`) does not hold: a view shares most of its message objects with the transcript,
    so each provider's view costs its changed messages only."""
    from ..formats.skeleton import all_bones, bones_of

    first = requests.get("first bones")
    if first is None:
        found = all_bones(messages)
        requests["first bones"] = (messages, {id(message): at for at, message in enumerate(messages)}, found)
        return found
    base, where, (known, hinted) = first
    hinted = set(hinted)  # over the transcript's messages: at worst a skeleton refused, never a wrong one
    bones = []
    for message in messages:
        at = where.get(id(message))
        bones.append(known[at] if at is not None and base[at] is message else bones_of(message, hinted))
    return bones, hinted


def in_context(violations: list[Violation], transcript: Transcript | None) -> list[Violation]:
    """The violations that stand for a request sent as its file says: a Responses request that draws on
    stored items (it continues a stored response or conversation, or refers to items by
    `item_reference`) may send outputs for calls the file does not hold, which the API adds, so an
    output without a call in the file is no error there.  A request sent with `"store": false` carries
    its reasoning items whole (their encrypted content), and the API does not look for the item that
    followed each in a stored response: a reasoning item before a message without an id is taken
    (tidyverse/ellmer's recorded 200s, gpt-5 and gpt-5-nano, 2025-10; the recorded refusal's request
    sets no `store`)."""
    if transcript is None or transcript.format != "openai-responses":
        return violations
    from ..formats.openai_responses import draws_on_storage
    from .openai_responses import WITHOUT_CALL

    if transcript.envelope.get("store") is False:
        violations = [violation for violation in violations
                      if violation.rule != "reasoning_without_following_item"]
    if not draws_on_storage(transcript.envelope, transcript.native):
        return violations
    stored = {rule for rule, _ in WITHOUT_CALL.values()}  # an output without its call, of any kind
    return [violation for violation in violations if violation.rule not in stored]


def judged_request(
    messages: list[dict[str, Any]], provider: str, transcript: Transcript | None = None, as_recorded: bool = False,
    requests: dict[Any, Any] | None = None, written: Callable[[], list[Any]] | None = None, trusted: bool = False,
) -> tuple[list[Any], list[list[int]], Any]:
    """The native messages `validate` judges for these arguments, their canonical sources, and the request body.

    One place decides what a provider is shown, so a screen that quotes the failing
    part of a request quotes exactly what was judged (the file's own entries when
    judged as recorded, else the request written afresh).  written: gives the messages already made
    writable (`formats.common.writable`), when a round of checks shares that list among formats.  trusted: the
    transcript's messages were never changed in place since it read them (the engine's own verdicts, and the
    screens quoting them): a request written in its own format recognises them without reading the file again
    (formats.registry._Originals).
    """
    from ..formats import to_native

    format = PROVIDER_FORMAT[provider]
    if requests is not None:  # one written request per (messages, format) in this round of checks
        key = (id(messages), id(transcript), _request_of(transcript, provider), as_recorded)
        kept = requests.get(key)
        if kept is not None and kept[0] is messages:  # the list itself is kept, so its id cannot be reused
            return cast("tuple[list[Any], list[list[int]], Any]", kept[1])
        found = judged_request(messages, provider, transcript, as_recorded,
                               written=lambda: _writable_once(messages, requests), trusted=trusted)
        requests[key] = (messages, found)
        return found
    literal = recorded_entries(transcript, format) if as_recorded and transcript is not None \
        and messages is transcript.messages else None
    if literal is not None:
        from ..formats.container import put_path

        assert transcript is not None
        body = put_path(transcript.envelope, transcript.key, literal[0]) if transcript.container == "object" \
            else literal[0]
        return literal[0], literal[1], body
    native = to_native(written(), format, transcript, prepared=True, provider=provider, trusted=trusted) \
        if written is not None else to_native(messages, format, transcript, provider=provider, trusted=trusted)
    return native.messages, native.sources, native.body


def written_request(requests: dict[Any, Any], messages: list[Any], transcript: Transcript, provider: str
                    ) -> NativeRequest | None:
    """The request `judged_request` wrote in a round of checks (`requests`) for these messages, as judged by
    `provider` (not as recorded), when it is what the transcript's own writer writes for them (formats.write_bytes):
    the provider reads the transcript's own format.  None when it was not written (the verdict was judged on a
    skeleton, or as recorded alone).  Its `sources` are left empty (the writer reads none; they cost 15 MB a
    200,000 messages)."""
    from ..formats.registry import NativeRequest as Written

    if PROVIDER_FORMAT.get(provider) != transcript.format:
        return None
    kept = requests.get((id(messages), id(transcript), _request_of(transcript, provider), False))
    if kept is None or kept[0] is not messages:
        return None
    native, _, body = kept[1]
    return Written(body, [], native)


def _request_of(transcript: Transcript | None, provider: str) -> str:
    """What the request written for `provider` is shared by: its format, or the provider itself where the
    transcript's runtime sends that format's providers requests of their own (FormatSpec.sends_as: pi gives
    OpenAI's, Mistral's and DeepSeek's Chat requests each its own call ids)."""
    format = PROVIDER_FORMAT[provider]
    if transcript is None:
        return format
    from ..formats import FORMAT_SPECS

    found = FORMAT_SPECS.get(transcript.format)
    return provider if found is not None and format in found.sends_as else format


def _writable_once(messages: list[Any], requests: dict[Any, Any]) -> list[Any]:
    """The messages as every writer takes them (formats.common.writable), made once per list in a round of
    checks: each native format's writer would otherwise make the same list again (five times for a pi-ai
    transcript judged by every provider)."""
    from ..formats.common import writable

    key = ("writable", id(messages))
    kept = requests.get(key)
    if kept is None or kept[0] is not messages:  # the list itself is kept, so its id cannot be reused
        kept = requests[key] = (messages, [writable(message) for message in messages])
    return kept[1]


def recorded_entries(transcript: Transcript, format: str) -> tuple[list[Any], list[list[int]]] | None:
    """The file's own native entries, exactly as recorded, when they are `format`'s request messages.

    A transcript judged "as recorded" by the provider of its own format is judged on
    the entries in the file, not on a rewrite: a rewrite regroups (results split over
    two Bedrock user messages come out as one) and would call a rejected file accepted.
    Returns the entries and, per entry, the canonical messages read from it: an entry no message opens (the second
    item of a Responses turn, whose message opens at its first) is the message's before it, as a request written
    from the messages maps each of its items (so a refusal of a turn's second call names the turn's row).
    """
    if transcript.format != format or not transcript.native or len(transcript.entries) != len(transcript.messages):
        return None
    groups: list[list[int]] = [[] for _ in transcript.native]
    for canonical, entry in enumerate(transcript.entries):
        if 0 <= entry < len(groups):
            groups[entry].append(canonical)
    last: list[int] | None = None
    for entry, group in enumerate(groups):
        if group:
            last = group[-1:]
        elif last is not None:
            groups[entry] = list(last)
    return list(transcript.native), groups


def validate_recorded(transcript: Transcript, providers: Sequence[str] | None = None) -> dict[str, list[Violation]]:
    """What each provider says about a transcript's history as recorded (every provider by default).

    The native request is built once per native format (Mistral and DeepSeek share
    OpenAI's Chat shape), from the transcript's own native entries where the format
    is its own, so positions and texts are the provider's.
    """
    from ..formats import to_native
    from ..formats.common import writable
    from .chat_shape import sharing

    natives: dict[str, Any] = {}
    prepared: list[Any] | None = None  # writable() of each message, made once for every native format
    found: dict[str, list[Violation]] = {}
    with sharing():  # OpenAI, Mistral and DeepSeek read the one Chat request's shape once
        for provider in providers if providers is not None else PROVIDERS:
            format = PROVIDER_FORMAT[provider]
            shared = _request_of(transcript, provider)
            native = natives.get(shared)
            if native is None:
                literal = recorded_entries(transcript, format)
                if literal is None:
                    if prepared is None:
                        prepared = [writable(message) for message in transcript.messages]
                    built = to_native(prepared, format, transcript, prepared=True, provider=provider)
                    literal = (built.messages, built.sources)
                native = natives[shared] = literal
            judged = in_context(validate_native(native[0], provider, history=True, ids=True), transcript)
            found[provider] = with_canonical_indices(judged, native[1])
    return found
