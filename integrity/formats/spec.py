"""One record per format: everything the engine knows about it, declared by the format's own module.

Each format module ends with `SPECS = (FormatSpec(...),)` (two records for a module that reads two
formats, such as pi sessions and openclaw's), and `integrity.formats` builds its registry, the
adapters by name, the read-only formats and the detection order from those records.  So a new format
is its module plus one line in the registry (integrity/formats/registry.py); nothing else lists formats
(tests/test_registry_places.py, tests/test_extension_points.py).

What a record says, and who reads it:
  name: the format's name, as `--format` takes it (the adapter's NAME);
  adapter: the module or object that implements the adapter contract (integrity.formats.base):
      detection (`evidence`, `fits`), the reader (`read`) and the writer (`groups`, `build`, `body`);
  provider: the provider a file in this format is sent to when its module is not that provider's own
      request format (a Claude Code session is sent as Anthropic Messages requests), None when no single
      provider reads it; integrity._diagnosis.own_provider and target_provider read it;
  suffixes: the file suffixes the format is found under (".jsonl", ".af", ".traj"), longest first;
  skips_bad_lines: the runtime that writes the format and leaves out a JSONL line that is not JSON when it
      resumes a session ("" when none is known to): such a file is read as that runtime reads it, each line
      left out reported (integrity.formats.registry.read_all), instead of refused;
  sends_as: for a session format whose runtime builds each request from the session itself, by provider format,
      the function that turns the request written for that provider (native entries and their sources) into the
      one the runtime sends (empty: sent as written).  Claude Code merges
      each run of user entries into one message, results first, and leaves out assistant messages of whitespace
      text only (claude_code.sent_request); pi leaves out the answers that ended in an error or were aborted and
      blank texts (pi_requests), sends an OpenAI answer's joined `call_…|fc_…` id as its two parts
      (pi_responses), and another model's call ids as each provider takes them (pi_foreign).  The request every
      verdict judges is written so (integrity.formats.registry.to_native), from the written entries, the messages,
      the model the session names and the provider the request goes to (SendsAs: OpenAI, Mistral and DeepSeek
      share the Chat format, and pi gives each its own ids), and no skeleton stands for it (skeleton.stands_for);
  model_decides: for a session format no single provider reads whose entries name the model the runtime talks to
      (a pi session's `model_change` entries and answers), the provider formats whose requests the runtime is
      modelled for well enough to judge by default: such a file is judged by its model's provider when that
      provider's format is one of them, else by the universal invariants (integrity._diagnosis.own_provider).
      A format of `sends_as` left out of it is judged so only when a provider of it is asked (pi toward OpenAI
      Chat or Gemini, whose builders' switches per model are not all modelled);
  sends_messages: for a session format of `sends_as`, the pass its runtime makes over the session's messages before
      it writes a request for any provider (SendsMessages: pi answers a call left without its result with an error
      result "No result provided" when a message follows it, pi_requests.sent_messages); to_native writes the
      request from what it returns, each entry's sources the messages of the session it stands for;
  sends_signed_reasoning: the runtime sends a thinking block whose `thinkingSignature` holds an OpenAI Responses
      reasoning item as JSON as that item, id and all (pi: pi_responses), so a block held twice is an item sent
      twice, which the view planned for OpenAI Responses sends once (integrity.repair.views.reasoning_items);
  sends_ids: by provider, given a session's messages and the model it names (SentIds), the call id the runtime
      sends for a call id of that session (a pi session's `call_…|fc_…` goes to OpenAI Responses as `call_…`, to
      Anthropic with `|` made `_` where another model wrote it), where it differs: the strict view renames only
      the ids the provider refuses as sent (integrity.repair.strict.id_rule, LightTranscript.sent_ids);
  container: how a view converted into this format is written ("jsonl", "array", "object", "" for the
      shape its body takes), hence its native positions: `line n` in JSON lines, `<key>[n]` in an
      object (the key of the request's message list), `[n]` in a bare array;
  writes_as: for a read-only format, the format its views are written in ("" for a format written in
      its own shape); refines: the more general format its entries also look like (detection prefers
      this one).  These two and `container` are the adapter's own attributes (READ_ONLY / WRITES_AS,
      REFINES, CONTAINER), read from it so they are never declared twice.

This module imports nothing else from the engine.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SendsAs = Callable[[list[Any], list[list[int]], Sequence[Any], "str | None", str],
                   tuple[list[Any], list[list[int]]]]
"""A runtime's request builder (FormatSpec.sends_as): (the native entries written for a provider format, each one's
messages, the messages, the model the session names, the provider the request goes to) -> the entries the runtime
sends and their messages."""


SendsMessages = Callable[[Sequence[Any]], "tuple[list[Any], list[int]] | None"]
"""A runtime's pass over a session's messages before it writes any provider's request (FormatSpec.sends_messages):
(the messages) -> the messages it sends and, for each, the index of the message it stands for; None when it sends
them as they are."""


SentIds = Callable[[Sequence[Any], "str | None"], Callable[[str], str]]
"""A runtime's call ids toward one provider (FormatSpec.sends_ids): (a session's messages, the model it names) -> the
id sent for each call id of it."""


def from_entries(sends: Callable[[list[Any], list[list[int]]], tuple[list[Any], list[list[int]]]]) -> SendsAs:
    """A SendsAs of a builder that reads the written entries alone (neither the messages nor the model)."""
    def built(native: list[Any], sources: list[list[int]], messages: Sequence[Any], model: str | None,
              provider: str) -> tuple[list[Any], list[list[int]]]:
        return sends(native, sources)

    return built


_CONTRACT = ("evidence", "fits", "read", "groups", "build", "body")
_CONTAINERS = ("", "jsonl", "array", "object")


@dataclass(frozen=True)
class FormatSpec:
    """Everything the engine knows about one format (see the module's docstring)."""

    name: str
    adapter: Any = field(repr=False)
    provider: str | None = None
    suffixes: tuple[str, ...] = (".json", ".jsonl")
    container: str = ""
    skips_bad_lines: str = ""
    sends_as: Mapping[str, SendsAs] = field(default_factory=dict, repr=False)
    model_decides: frozenset[str] = frozenset()
    sends_ids: Mapping[str, SentIds] = field(default_factory=dict, repr=False)
    sends_messages: SendsMessages | None = field(default=None, repr=False)
    sends_signed_reasoning: bool = False

    def __post_init__(self) -> None:
        missing = [name for name in _CONTRACT if not callable(getattr(self.adapter, name, None))]
        if missing:
            raise ValueError(f"format {self.name!r}: its adapter lacks {', '.join(missing)} (integrity.formats.base)")
        if getattr(self.adapter, "NAME", None) != self.name:
            raise ValueError(f"format {self.name!r}: its adapter is named {getattr(self.adapter, 'NAME', None)!r}")
        declared = str(getattr(self.adapter, "CONTAINER", None) or "")
        if self.container and declared and self.container != declared:
            raise ValueError(f"format {self.name!r}: container {self.container!r}, its adapter says {declared!r}")
        if not self.container:
            object.__setattr__(self, "container", declared)
        if self.container not in _CONTAINERS:
            raise ValueError(f"format {self.name!r}: unknown container {self.container!r}; expected one of "
                             f"{', '.join(repr(c) for c in _CONTAINERS)}")
        if self.read_only and not self.writes_as:
            raise ValueError(f"format {self.name!r} is read-only and names no format to write its views in "
                             "(WRITES_AS)")
        if not self.suffixes or any(not suffix.startswith(".") for suffix in self.suffixes):
            raise ValueError(f"format {self.name!r}: suffixes must be file suffixes ('.json'), got {self.suffixes}")

    @property
    def read_only(self) -> bool:
        """Read but never written in its own shape: its views are written as `writes_as`."""
        return bool(getattr(self.adapter, "READ_ONLY", False))

    @property
    def writes_as(self) -> str:
        """The format a view read from this one is written in: its own, or WRITES_AS for a read-only one."""
        return str(getattr(self.adapter, "WRITES_AS", "")) if self.read_only else self.name

    @property
    def refines(self) -> str | None:
        """The more general format these entries also look like (detection prefers this one), if any."""
        found = getattr(self.adapter, "REFINES", None)
        return str(found) if found else None

    @property
    def detection(self) -> tuple[Callable[..., bool], Callable[[Any], bool]]:
        """(evidence(entries, envelope), fits(entry)): what only this format writes, and what it could hold."""
        return self.adapter.evidence, self.adapter.fits

    @property
    def reader(self) -> Callable[[list[Any]], list[Any]]:
        """read(entries) -> segments of canonical messages."""
        return self.adapter.read  # type: ignore[no-any-return]

    @property
    def writer(self) -> Callable[..., list[Any]] | None:
        """build(messages, context) -> native entries for one group; None for a read-only format."""
        return None if self.read_only else self.adapter.build

    def suffix_of(self, filename: str) -> str | None:
        """The suffix of this format `filename` ends in (the longest), or None."""
        lowered = filename.lower()
        return next((suffix for suffix in sorted(self.suffixes, key=len, reverse=True) if lowered.endswith(suffix)),
                    None)


def here(module: str, **facts: Any) -> FormatSpec:
    """The spec of a format whose adapter is the calling module itself (`SPECS = (here(__name__, ...),)`):
    the module is in sys.modules while it runs, so its functions are the adapter."""
    adapter = sys.modules[module]
    return FormatSpec(adapter.NAME, adapter, **facts)
