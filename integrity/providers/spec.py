"""One record per provider: everything the engine knows about it, in one place.

Each provider module ends with `SPEC = ProviderSpec(...)`: its name, the native
format its requests use, its rule set, whether every tool call needs an id, its
rules on the order of turns (read by `integrity.repair.legalize` for the strict view)
and every error text its rule set can return, keyed by the violation's `rule`.
The registry (`integrity.providers.SPECS`), the strict planner, the lessons and
the docs read these records instead of keeping their own copies.

This module imports nothing else from the engine, so importing it makes no cycle.
Importing it does load the providers package (every rule set): engine code on
the CLI's fast path (integrity.repair.legalize) reads specs inside functions, only when
a provider is named.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .violation import Violation

# The kinds of message `integrity.repair.legalize` tells apart when it orders turns, by name:
# a plain user message, a plain assistant message, an assistant frame with tool calls,
# a tool result, a system/developer message, a message of an app's custom role, and an
# opaque native entry.  Role rules name the kinds their provider's writer takes out of
# the message list (`RoleRules.transparent`).
USER, ASSISTANT, FRAME, RESULT, SYSTEM, CUSTOM, OPAQUE = (
    "user", "assistant", "frame", "result", "system", "custom", "opaque")
MESSAGE_KINDS: tuple[str, ...] = (USER, ASSISTANT, FRAME, RESULT, SYSTEM, CUSTOM, OPAQUE)

RuleSet = Callable[[Sequence[Any], str], "list[Violation]"]


@dataclass(frozen=True)
class RoleRules:
    """A provider's rules on the order of turns, as the strict view applies them (integrity.repair.legalize).

    transparent: message kinds (MESSAGE_KINDS names) the provider's writer takes out of
        the message list, so they do not separate turns.
    merge_assistants: "all" (consecutive assistant turns become one), "before_calls"
        (only when the last of them calls tools) or None.
    results_then_user: tool results followed by a user turn get an assistant turn inserted.
    merge_users: consecutive user turns become one.
    start: "user" (the history must start with a user turn), "no_calls" (it must not
        start with a call turn) or None.
    why: the rule in one clause, for the report ("Bedrock Converse requires ...").
    start_why / results_why: the clause for the start rule / the inserted assistant
        turn when it differs from `why` (None: `why`).
    """

    transparent: frozenset[str]
    merge_assistants: Literal["all", "before_calls"] | None
    results_then_user: bool
    merge_users: bool
    start: Literal["user", "no_calls"] | None
    why: str
    start_why: str | None = None
    results_why: str | None = None

    def __post_init__(self) -> None:
        unknown = set(self.transparent) - set(MESSAGE_KINDS)
        if unknown:
            raise ValueError(f"unknown message kinds {sorted(unknown)}; expected some of {MESSAGE_KINDS}")


@dataclass(frozen=True)
class IdRule:
    """Which call ids a provider takes, and how the strict view makes one it takes (integrity.repair.strict).

    accepts(id): whether the provider takes this id (its pattern and length).
    make(id, attempt): an id the provider takes, made from one it refuses; attempt 0, 1, ... until it is
        one no other call uses.
    why: the rule in one clause, for the report ("Anthropic takes ids of letters, digits, _ and - only").
    accepts_all(ids): whether it takes every one of a list of ids (none empty), at C speed where it can: a
        transcript's ids are checked at once (a million calls), and one by one only when one is refused.
    """

    accepts: Callable[[str], bool]
    make: Callable[[str, int], str]
    why: str
    accepts_all: Callable[[list[str]], bool] | None = None


@dataclass(frozen=True)
class Endpoint:
    """Where and how a request to the provider is sent: what "Copy as curl" writes (keys stay variables).

    url: the endpoint, with `$VARIABLES` for what the user fills in (model, region).
    headers: the headers besides content-type, keys as `$VARIABLES`, never values.
    fields: body fields a request needs besides the history (a model, max_tokens), as placeholders.
    docs: the provider's API reference for the endpoint.
    signing: curl's `--aws-sigv4` provider string when requests are signed (Bedrock), else "".
    """

    url: str
    headers: tuple[str, ...] = ()
    fields: Mapping[str, Any] = field(default_factory=dict, hash=False)
    docs: str = ""
    signing: str = ""


@dataclass(frozen=True)
class BlankRule:
    """How a provider's empty-content rules read blank text (repair.views.blank_text: a text of whitespace only, the
    empty one included), which decides what the strict view planned for it leaves out.

    whitespace_beside: the roles whose messages have a whitespace text beside other parts refused too (Bedrock
        Converse: an assistant's, "is blank"), not only an empty one (Anthropic takes it beside a tool_use, and
        Bedrock in a user message: recorded 200).
    spares_final_assistant: the request's last message, when it is an assistant's without calls, is left alone
        (Anthropic's text names that exception: the optional final assistant message).
    texts: whether blank texts count at all; False for a provider that refuses only a message with no content
        (Gemini: "contents.parts must not be empty"; a text part, blank or not, is a part), whose strict view
        leaves out only such messages (repair.views.BLANK_NONE) and sends every text as it is.
    """

    whitespace_beside: frozenset[str]
    spares_final_assistant: bool
    texts: bool = True


@dataclass(frozen=True)
class NameRule:
    """What a provider takes as a history call's tool name: not empty, at most `limit` characters, and (chars) only
    the characters of this regular-expression class, or any (None).  The strict view planned for it sends a refused
    name made legal (repair.views.legal_tool_name)."""

    limit: int
    chars: str | None = None


@dataclass(frozen=True)
class RoleSet:
    """The roles a provider takes on a request's entries and how it refuses another (rule `role_invalid`): an entry
    whose `role` is a string outside `taken` is refused with `error` (placeholders: {role}, {index}: the entry's
    index, counted from 1 where `from_one`, as AWS counts) at `position` ({index}, from 0).  Entries without a role
    (a Responses item of another type) are not judged.  folded: a role is compared case aside (Gemini's current
    models).  The readers read an entry of another role as an opaque one (a malformed finding) that the view sends as
    it is: this rule is why such a file is not "accepted" (Gemini's `function` and `tool` turns are read as results,
    and its writer sends them as `user` turns)."""

    taken: frozenset[str]
    error: str
    position: str
    from_one: bool = False
    folded: bool = False


@dataclass(frozen=True)
class ProviderSpec:
    """Everything the engine knows about one provider.

    name: the provider's id ("anthropic"), as `--provider` takes it.
    title: its human name ("Anthropic Messages").
    native_format: the `integrity.formats` format its requests use (Mistral and DeepSeek: "openai-chat").
    validate: its rule set on a native request, `validate(request, provider)`.
    validate_history: the rule set for a stored transcript's history, when that differs
        (Mistral skips its request-only rule); None: `validate` applies to both.
    needs_call_ids: whether every tool call must carry a non-empty id (False only for Gemini,
        which pairs by order).
    validate_ids: its rules on the ids themselves (pattern, length), `validate_ids(request,
        provider)`, or None when none is known.  Kept apart from `validate` until the strict
        view renames the ids a provider refuses: `validate_native(..., ids=True)` applies them.
    role_rules: its rules on the order of turns, or None when it has none we apply.
    errors: every error text the rule set can return, keyed by the violation's `rule`; a
        template whose `{placeholders}` the rule set fills in.
    endpoint: where and how its requests are sent (the inspector's "Copy as curl" and links).
    id_rule: which call ids it takes and how the strict view renames one it refuses (None: any string).
    model_prefixes: the model names that mean this provider, read by the guards (integrity.guards) to
        know whose rules a runtime's request must satisfy: an entry ending in "/" is a routing prefix
        (LiteLLM's `anthropic/`, `bedrock/`, `vertex_ai/`), any other a regular expression matched at
        the start of the model's own name (`claude`, `gpt-`, `o\\d`).  Empty: no name implies it.
    hosts_others: its routing prefixes also serve other providers' models (OpenAI-compatible
        endpoints, Azure, Vertex AI), so the model's own name decides before the prefix does.
    calls_close_turn: it answers only the calls that close an assistant turn and refuses a call followed by
        another part of its turn (Anthropic's tool_use_not_last; DeepSeek Responses' function_call_unanswered for
        a call followed by a reasoning or message item), so the strict view planned for it sends a frame's calls
        after its other parts (LightTranscript.late_frames).
    blank_text: its empty-content rules (BlankRule), or None: they refuse a user or assistant message with no
        content, or a blank text (Anthropic's content_rules, Bedrock's), so the strict view planned for it sends
        such messages without their blank texts, or leaves them out (LightTranscript.blank_texts).  Only a
        provider of a request format formats.skeleton.BLANK_FORMATS names (a skeleton writes no text;
        tests/test_blank_text_repair.py holds it).
    error_text_only: it refuses an error result (isError) whose content is empty or holds a part that is not text
        (Anthropic's error_result_empty, error_result_not_text; Bedrock's), so the strict view planned for it sends
        such a result with its texts alone (LightTranscript.error_contents).  Only a provider of a request format
        formats.skeleton.ERROR_CONTENT_FORMATS names (a skeleton carries no result content).
    tool_names: what it takes as a history call's tool name (NameRule), or None: it refuses an empty one, a longer
        one (Anthropic: 200 characters; OpenAI Chat, Bedrock: 64) and one of other characters (OpenAI Chat,
        Bedrock), so the strict
        view planned for it sends such a call's name made legal (repair.views.legal_tool_name).  Its format's
        skeleton writes every call's name, and repair.views.name_refused refuses every name it refuses (the mark
        that has the turns holding one judged: formats.skeleton.TOOL_NAME; tests/test_tool_names.py).
    signs_calls: it refuses a call of the current turn that comes without its model's thought signature (Gemini 3's
        thought_signature_missing), so the strict view planned for it sends such a call with the signature its
        provider documents for calls it did not make (LightTranscript.unsigned_frames).
    string_limit: the most characters it takes in one string of a request (OpenAI's 10,485,760: string_too_long), or
        None: none is on record.  The strict view planned for it sends a message whose texts, joined as a writer
        joins them, are longer cut to fit (LightTranscript.long_texts).
    reasoning_once: it refuses two input items with one id (OpenAI Responses' duplicate_item_id), so the strict view
        planned for it sends a reasoning item a turn stored twice repeats once (LightTranscript.reasoning).
    images_from_user_only: it refuses an image outside a user message (OpenAI Chat's image_not_user), so the strict
        view planned for it sends a tool result's images in a user message after the turn's results
        (LightTranscript.images).  Only a provider of a request format formats.skeleton.IMAGE_FORMATS names (a
        skeleton writes no image).
    takes_images: False when it refuses any image (DeepSeek's content_part_not_text: its models read text alone), so
        the strict view planned for it sends each message holding one with a text in place of its images (pi sends
        such a model none either).  Only a provider of a request format formats.skeleton.IMAGE_FORMATS names.
    roles: the roles it takes on a request's entries (RoleSet), or None: its rule set judges roles itself (Gemini's
        depend on the model) or its refusal's text is not on record (Mistral, DeepSeek).
    variant_of: the provider whose rules these are for some of its models (Gemini 2.x: `gemini-2`), chosen by the
        model a request names (providers.models); None for one of PROVIDERS, which every surface lists.  A variant
        is asked by name or by model, never by "all".
    """

    name: str
    title: str
    native_format: str
    validate: RuleSet
    validate_history: RuleSet | None
    needs_call_ids: bool
    role_rules: RoleRules | None
    errors: Mapping[str, str] = field(hash=False)
    endpoint: Endpoint = field(default_factory=lambda: Endpoint(""), hash=False)
    validate_ids: RuleSet | None = None
    id_rule: IdRule | None = None
    model_prefixes: tuple[str, ...] = ()
    hosts_others: bool = False
    calls_close_turn: bool = False
    blank_text: BlankRule | None = None
    error_text_only: bool = False
    tool_names: NameRule | None = None
    signs_calls: bool = False
    string_limit: int | None = None
    reasoning_once: bool = False
    images_from_user_only: bool = False
    takes_images: bool = True
    variant_of: str | None = None
    roles: RoleSet | None = None

    @property
    def refuses_blank_text(self) -> bool:
        """Whether its empty-content rules refuse blank text (blank_text)."""
        return self.blank_text is not None

    def __post_init__(self) -> None:
        object.__setattr__(self, "errors", MappingProxyType(dict(self.errors)))
        if not self.endpoint.url:
            raise ValueError(f"provider {self.name!r} names no endpoint (ProviderSpec.endpoint)")
