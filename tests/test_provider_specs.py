"""One spec per provider: the registry, the docs and the rule sets agree with the specs.

Every error text lives in its provider's `SPEC.errors`, keyed by rule id.  These
tests make a new error text (or a new rule) impossible to add without a spec
entry: every violation the rule sets return must match its rule's template, and
every text in docs/providers.md's tables must be the template it documents.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings

from integrity.formats import read_bytes, to_native
from integrity.providers import (
    PROVIDER_FORMAT,
    PROVIDERS,
    SPECS,
    ProviderSpec,
    Violation,
    anthropic,
    bedrock,
    deepseek,
    deepseek_responses,
    gemini,
    mistral,
    openai_chat,
    openai_responses,
    spec,
    validate,
    validate_native,
)
from integrity.providers.registry import VARIANTS
from integrity.providers.spec import MESSAGE_KINDS
from integrity.repair import legalize as legalize
from tests.test_providers_blocks import ANTHROPIC_ILLEGAL, BEDROCK_ILLEGAL
from tests.test_providers_chat import ILLEGAL as CHAT_ILLEGAL
from tests.test_providers_chat import A, T, U
from tests.test_providers_ids import ID_ILLEGAL
from tests.test_providers_turns import DEEPSEEK_RESPONSES_ILLEGAL, GEMINI_ILLEGAL, RESPONSES_ILLEGAL
from tests.test_strict_properties import broken_transcripts

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "providers.md"
MODULES = {
    "openai-chat": openai_chat, "openai-responses": openai_responses, "anthropic": anthropic,
    "gemini": gemini, "bedrock": bedrock, "mistral": mistral, "deepseek": deepseek,
    "deepseek-responses": deepseek_responses,
}


def literal_parts(template: str) -> list[str]:
    """The text of a template around its `{placeholders}` (n placeholders: n + 1 parts, as re.split gives)."""
    parsed = list(string.Formatter().parse(template))
    parts = [literal for literal, _field, _spec, _conversion in parsed]
    return parts + [""] if parsed and parsed[-1][1] is not None else parts


def template_regex(template: str) -> re.Pattern[str]:
    """A regex that a filled-in template matches in full: placeholders match any text."""
    pattern = "".join(re.escape(literal) + (".*" if field is not None else "")
                      for literal, field, _spec, _conversion in string.Formatter().parse(template))
    return re.compile(pattern, re.DOTALL)


def matches_spec(violation: Violation) -> bool:
    template = SPECS[violation.provider].errors.get(violation.rule)
    return template is not None and template_regex(template).fullmatch(violation.error) is not None


# --- the registry -------------------------------------------------------------------------------

def test_every_provider_has_a_spec_named_after_it_in_its_module() -> None:
    assert tuple(SPECS) == PROVIDERS + VARIANTS and PROVIDERS == tuple(MODULES)
    for name in VARIANTS:  # a variant: some models' rules of one provider, in its module, listed last
        variant = SPECS[name]
        assert variant.variant_of in PROVIDERS and spec(name) is variant and variant.model_prefixes
        assert variant.native_format == SPECS[variant.variant_of].native_format
        assert set(variant.errors) < set(SPECS[variant.variant_of].errors)
    for name, module in MODULES.items():
        assert isinstance(module.SPEC, ProviderSpec)
        assert module.SPEC.name == name == module.PROVIDER
        assert SPECS[name] is module.SPEC is spec(name)
        assert module.SPEC.validate is module.validate
        assert PROVIDER_FORMAT[name] == module.SPEC.native_format
        assert module.SPEC.title and module.SPEC.errors


def test_unknown_provider_is_refused_with_the_known_names() -> None:
    message = "unknown provider 'nope'; expected one of: " + ", ".join(PROVIDERS + VARIANTS)
    with pytest.raises(ValueError) as raised:
        spec("nope")
    assert str(raised.value) == message
    with pytest.raises(ValueError) as raised:
        validate_native([], "nope")
    assert str(raised.value) == message


def test_specs_are_read_only() -> None:
    with pytest.raises(AttributeError):
        spec("gemini").needs_call_ids = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec("gemini").errors["new_rule"] = "text"  # type: ignore[index]


def test_only_gemini_takes_calls_without_ids() -> None:
    assert [name for name in PROVIDERS if not spec(name).needs_call_ids] == ["gemini"]


def test_only_mistral_checks_a_history_differently_from_a_request() -> None:
    assert [name for name in PROVIDERS if spec(name).validate_history is not None] == ["mistral"]
    request = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "done"}]
    assert [v.rule for v in validate_native(request, "mistral")] == ["last_role_assistant"]
    assert validate_native(request, "mistral", history=True) == []


def test_role_rules_are_the_strict_views_providers_and_name_known_message_kinds() -> None:
    with_rules = [name for name in PROVIDERS if spec(name).role_rules is not None]
    assert with_rules == ["gemini", "bedrock", "mistral"]
    assert [name for name in PROVIDERS if legalize.has_role_rules(name)] == with_rules
    assert not legalize.has_role_rules(None) and not legalize.has_role_rules("nope")
    for name in with_rules:
        rules = spec(name).role_rules
        assert rules is not None and rules.why
        assert rules.transparent <= set(MESSAGE_KINDS)
    # legalize numbers the kinds in MESSAGE_KINDS order
    numbers = [legalize.USER, legalize.ASSISTANT, legalize.FRAME, legalize.RESULT, legalize.SYSTEM,
               legalize.CUSTOM, legalize.OPAQUE]
    assert numbers == list(range(len(MESSAGE_KINDS)))
    assert MESSAGE_KINDS == ("user", "assistant", "frame", "result", "system", "custom", "opaque")


# --- the docs -----------------------------------------------------------------------------------

def documented_errors() -> list[tuple[str, str, str]]:
    """(provider, rule, error cell) of every row of the rule tables in docs/providers.md."""
    rows = []
    provider = None
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        if line.startswith("## ") and provider is not None:
            break  # the rule tables end where the next top-level section starts
        heading = re.match(r"### .*\(`([a-z-]+)`", line)
        if heading:
            provider = heading.group(1)
            continue
        row = re.match(r"\| `([a-z_]+)` \|", line)
        if row and provider is not None:
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            rows.append((provider, row.group(1), cells[2]))
    return rows


def code_span(cell: str) -> str | None:
    """The error text a cell opens with (a `code` or ``code`` span), or None when it opens with prose."""
    for fence in ("``", "`"):
        if cell.startswith(fence):
            text = cell[len(fence):cell.index(fence, len(fence))]
            # (a space on both sides is stripped, as CommonMark does: a text opening with a backtick needs it)
            return text[1:-1] if len(text) > 2 and text.startswith(" ") and text.endswith(" ") else text
    return None


def test_docs_tables_list_exactly_the_specs_rules() -> None:
    documented = {(provider, rule) for provider, rule, _cell in documented_errors()}
    in_specs = {(name, rule) for name in PROVIDERS for rule in spec(name).errors}
    assert documented == in_specs


@pytest.mark.parametrize("provider,rule,cell", documented_errors(),
                         ids=[f"{p}-{r}" for p, r, _c in documented_errors()])
def test_every_documented_error_text_is_its_rules_spec_template(provider: str, rule: str, cell: str) -> None:
    template = spec(provider).errors[rule]
    text = code_span(cell)
    if text is None:
        # "same text as `other_rule`": the two rules share one template
        other = re.match(r"same text as `([a-z_]+)`", cell)
        assert other is not None, cell
        assert template == spec(provider).errors[other.group(1)]
        return
    documented = re.split(r"\{[^{}]*\}", text)  # the docs name placeholders for readers ({i+1}, {ids, ", "})
    assert documented[0] == literal_parts(template)[0]  # the text up to the first placeholder
    assert documented == literal_parts(template)


# --- the rule sets ------------------------------------------------------------------------------

def case_tables() -> list[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
    """(provider, request, expected violation) of every table-driven provider test case."""
    cases = []
    for param in CHAT_ILLEGAL:
        provider, request, expected = cast(tuple[str, list[dict[str, Any]], dict[str, Any]], param.values)
        cases.append((provider, request, expected))
    for table in (ANTHROPIC_ILLEGAL, BEDROCK_ILLEGAL, GEMINI_ILLEGAL, RESPONSES_ILLEGAL, DEEPSEEK_RESPONSES_ILLEGAL):
        for param in table:
            request, expected = cast(tuple[list[dict[str, Any]], dict[str, Any]], param.values)
            cases.append((expected["provider"], request, expected))
    return cases


# Requests the provider tests check outside their case tables.
OTHER_REQUESTS: list[tuple[str, list[dict[str, Any]]]] = [
    ("openai-chat", [U(), A("a"), T("a"), {"role": "tool", "content": "ok"}]),  # tool_call_id_missing
    ("openai-chat", [U(), A("a"), U("wait"), T("a")]),
]


def sample_violations() -> list[Violation]:
    """What every provider says about every sample transcript, as a request and as a history."""
    found = []
    for path in sorted((ROOT / "sample_transcripts").glob("*.json*")):
        transcript = read_bytes(path.read_bytes(), path.name)
        for provider in PROVIDERS:
            for history in (False, True):
                found.extend(validate(transcript.messages, provider, transcript, history=history))
    return found


def test_every_violation_of_the_provider_test_cases_matches_its_rules_template() -> None:
    produced = []
    for provider, request, expected in case_tables():
        assert matches_spec(Violation(**expected)), expected
        violations = validate_native(request, provider)
        assert violations and all(matches_spec(v) for v in violations), violations
        produced.extend(violations)
    for provider, request in OTHER_REQUESTS:
        produced.extend(validate_native(request, provider))
    for param in ID_ILLEGAL:  # the id rules apply when asked (ids=True)
        provider, request, expected = cast(tuple[str, list[dict[str, Any]], dict[str, Any]], param.values)
        assert matches_spec(Violation(**expected)), expected
        produced.extend(validate_native(request, provider, ids=True))
    produced.extend(sample_violations())
    assert all(matches_spec(v) for v in produced), [v for v in produced if not matches_spec(v)]
    # and every template is one a rule set returns: no dead or misspelled rule ids in a spec
    assert {(v.provider, v.rule) for v in produced} == {(n, r) for n in PROVIDERS for r in spec(n).errors}


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(broken_transcripts())
def test_every_violation_on_a_broken_transcript_matches_its_rules_template(messages: list[dict[str, Any]]) -> None:
    for provider in PROVIDERS:
        native = to_native(messages, PROVIDER_FORMAT[provider]).messages
        for history in (False, True):
            violations = validate_native(native, provider, history=history)
            assert all(matches_spec(v) for v in violations), violations
