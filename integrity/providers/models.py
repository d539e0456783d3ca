"""Which provider a model name means: the one reading of each provider's `model_prefixes`.

A guard knows its request's target from the model the runtime calls; a request file knows it from its envelope's
`model` (integrity._diagnosis.implied_provider).  Both ask provider_for_model, so a name means one provider
everywhere.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Literal


@functools.cache
def _model_table() -> tuple[dict[str, list[Any]], list[tuple[re.Pattern[str], Any]]]:
    """Routing prefix -> the provider records it names, and (name pattern, record) in registry order, the variants'
    first (ProviderSpec.variant_of: "gemini-2.5-flash" is `gemini-2`'s before it is `gemini`'s): read from each
    provider's `model_prefixes` (integrity.providers.spec), the one place that knows them."""
    from . import SPECS

    routes: dict[str, list[Any]] = {}
    names: list[tuple[re.Pattern[str], Any]] = []
    for spec in sorted(SPECS.values(), key=lambda spec: spec.variant_of is None):
        for prefix in spec.model_prefixes:
            if prefix.endswith("/"):
                routes.setdefault(prefix[:-1], []).append(spec)
            else:
                names.append((re.compile(prefix), spec))
    return routes, names


def _for_api(specs: list[Any], api: Literal["chat", "responses"]) -> str:
    """Of the records a name points to (OpenAI's Chat and Responses records share their names), the one
    of the API the runtime calls; the first when none is of it."""
    responses = api == "responses"
    return str(next((spec.name for spec in specs if (spec.native_format == "openai-responses") == responses),
                    specs[0].name))


def provider_for_model(model: Any, api: Literal["chat", "responses"] = "chat") -> str | None:
    """The provider whose rules a request for `model` must satisfy, from the model's name and each provider's
    `model_prefixes`; None when the name says nothing (then the universal invariants decide).

    "claude-..." and "anthropic/..." -> anthropic; "gemini-...", "gemini/...", "vertex_ai/gemini-..." ->
    gemini; "gpt-...", "o3", "openai/..." -> openai-chat, or openai-responses when the runtime calls the
    Responses API (api="responses"); "gemini-2.5-flash", "gemma-3-27b-it" -> gemini-2 (the models that take
    calls without thought signatures: ProviderSpec.variant_of); "bedrock/..." -> bedrock; "mistral..." ->
    mistral; "deepseek..." -> deepseek.  A routing prefix decides, except one of a provider that `hosts_others`
    (OpenAI-compatible endpoints, Azure, Vertex AI), where the model's own name decides first ("vertex_ai/claude-..." ->
    anthropic, "openrouter/anthropic/claude-..." -> anthropic).  A non-string model (an object) is read
    by its `model`/`model_name` attribute.  pydantic-ai's "provider:model" names are read too
    ("anthropic:claude-...", "google-gla:gemini-...", "openai-chat:gpt-..."; "openai:" follows `api`).
    """
    if not isinstance(model, str):
        model = next((value for attr in ("model", "model_name") if isinstance(value := getattr(model, attr, None),
                                                                              str)), None)
        if model is None:
            return None
    return _provider_for_name(model, api)


_COLON_ROUTES: dict[str, tuple[str, Literal["chat", "responses"] | None]] = {
    "openai-chat": ("openai", "chat"), "openai-responses": ("openai", "responses"),
    "azure-responses": ("azure", "responses"), "google-gla": ("gemini", None), "google-vertex": ("vertex_ai", None),
    "google-cloud": ("vertex_ai", None)}
"""pydantic-ai's "provider:model" names whose provider is not a routing prefix: the prefix it stands for, and
the API it calls when the name says it ("openai-chat:" Chat, "openai-responses:" Responses)."""
_COLON_PREFIX = re.compile(r"[a-z][a-z0-9-]*\Z")


@functools.lru_cache(maxsize=256)
def _provider_for_name(model: str, api: Literal["chat", "responses"]) -> str | None:
    """provider_for_model for a name (remembered: a guard asks it before every model call).

    pydantic-ai's "provider:model" ("anthropic:claude-...", "google-gla:gemini-...", "bedrock:anthropic.claude-...",
    "gateway/openai:gpt-...") is read as the routing prefix it names; when that says nothing, the name as
    it is (Ollama's "deepseek-r1:14b" is a model and its tag)."""
    routes, names = _model_table()
    name = model.strip().lower()
    if name.startswith("models/"):
        name = name[len("models/"):]
    if name.startswith("gateway/"):
        name = name[len("gateway/"):]
    prefix, colon, rest = name.partition(":")
    if colon and rest and _COLON_PREFIX.match(prefix):
        route, forced = _COLON_ROUTES.get(prefix, (prefix, None))
        found = _provider_for_name(f"{route}/{rest}", forced or api)
        if found is not None:
            return found
    routed: list[Any] = []
    if "/" in name:
        prefix, _, rest = name.partition("/")
        routed = routes.get(prefix, [])
        weak = not routed or any(spec.hosts_others for spec in routed)
        if weak and "/" in rest:  # openrouter/anthropic/claude..., vertex_ai/x/y
            inner = _provider_for_name(rest, api)
            if inner is not None:
                return inner
        if not weak:
            return _for_api(routed, api)
        name = rest
    matched = [spec for pattern, spec in names if pattern.match(name)]
    if matched:
        first = matched[0].model_prefixes
        return _for_api([spec for spec in matched if spec.model_prefixes == first], api)
    return _for_api(routed, api) if routed else None


def sent_to(own: str, model: str) -> str | None:
    """The provider a request in the format of provider `own` is sent to when it names `model`: the one the name
    means (provider_for_model) when that provider reads the same request format (a DeepSeek or Mistral model in
    a Chat Completions request; DeepSeek's in a Responses request; Gemini 2.5 in a Gemini history), else `own` (a
    Claude model named in a Chat Completions request goes through a proxy that translates it: what reaches
    Anthropic is not this file).  None for a Gemini history naming a model that is not Gemini's (an ADK session
    on `LiteLlm("anthropic/…")` stores the answering model's `model_version`, `claude-sonnet-4-5-…`): ADK converts
    it for LiteLLM, which sends that provider a request of its own, not modelled here; Gemini's rules (a thought
    signature on each call of the current turn, Gemini 3's) would refuse what that model is never sent, so the
    universal invariants judge it."""
    from . import SPECS

    format = SPECS[own].native_format
    named = provider_for_model(model, "responses" if format == "openai-responses" else "chat")
    if named is not None and SPECS[named].native_format == format:
        return named
    return None if format == "gemini" else own
