"""Properties over generated conversations, rendered into every native shape.

A conversation built legal by construction (every call answered, results in the
next turn, roles alternating, ending on a user turn) must pass every provider;
the same conversation with one result removed must fail every provider.  This
ties the seven rule sets to one shared notion of a well-formed tool history.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from integrity.providers import PROVIDER_FORMAT, PROVIDERS, validate_native

# A round is either ("calls", ids in call order, ids in result order) or ("text",).
Round = tuple[Any, ...]


@st.composite
def conversations(draw: st.DrawFn) -> list[Round]:
    rounds: list[Round] = []
    counter = 0
    for kind in draw(st.lists(st.sampled_from(["calls", "text"]), min_size=1, max_size=5)):
        if kind == "text":
            rounds.append(("text",))
            continue
        size = draw(st.integers(min_value=1, max_value=3))
        ids = [f"call_{counter + i}" for i in range(size)]
        counter += size
        rounds.append(("calls", ids, draw(st.permutations(ids))))
    rounds.append(("text",))
    return rounds


def render(rounds: list[Round], native: str) -> list[dict[str, Any]]:
    """The conversation as `native` request; a calls round with no results left writes no result turn."""
    out: list[dict[str, Any]] = [user(native, "start")]
    for round_ in rounds:
        if round_[0] == "text":
            out += [assistant_text(native), user(native, "next")]
            continue
        _, ids, results = round_
        if native == "openai-chat":
            out.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids]})
            out += [{"role": "tool", "tool_call_id": i, "content": "ok"} for i in results]
        elif native == "openai-responses":
            out += [{"type": "function_call", "call_id": i, "name": "f", "arguments": "{}"} for i in ids]
            out += [{"type": "function_call_output", "call_id": i, "output": "ok"} for i in results]
        elif native == "anthropic":
            out.append({"role": "assistant", "content": [{"type": "tool_use", "id": i, "name": "f", "input": {}}
                                                         for i in ids]})
            if results:
                out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "ok"}
                                                        for i in results]})
        elif native == "gemini":
            out.append({"role": "model", "parts": [{"functionCall": {"name": i, "args": {}}} for i in ids]})
            if results:
                out.append({"role": "user", "parts": [{"functionResponse": {"name": i, "response": {}}}
                                                      for i in results]})
        elif native == "bedrock":
            out.append({"role": "assistant", "content": [{"toolUse": {"toolUseId": i, "name": "f", "input": {}}}
                                                         for i in ids]})
            if results:
                out.append({"role": "user", "content": [{"toolResult": {"toolUseId": i, "content": [{"text": "ok"}]}}
                                                        for i in results]})
    return out


def user(native: str, text: str) -> dict[str, Any]:
    if native == "gemini":
        return {"role": "user", "parts": [{"text": text}]}
    if native == "bedrock":
        return {"role": "user", "content": [{"text": text}]}
    return {"role": "user", "content": text}


def assistant_text(native: str) -> dict[str, Any]:
    if native == "gemini":
        return {"role": "model", "parts": [{"text": "ok"}]}
    if native == "bedrock":
        return {"role": "assistant", "content": [{"text": "ok"}]}
    return {"role": "assistant", "content": "ok"}


@settings(max_examples=60, deadline=None)
@given(conversations())
def test_a_well_formed_conversation_passes_every_provider(rounds: list[Round]) -> None:
    for provider in PROVIDERS:
        assert validate_native(render(rounds, PROVIDER_FORMAT[provider]), provider) == [], provider


@settings(max_examples=60, deadline=None)
@given(conversations(), st.data())
def test_removing_one_result_is_caught_by_every_provider(rounds: list[Round], data: st.DataObject) -> None:
    call_rounds = [i for i, r in enumerate(rounds) if r[0] == "calls"]
    if not call_rounds:
        rounds.insert(0, ("calls", ["call_x"], ["call_x"]))
        call_rounds = [0]
    at = data.draw(st.sampled_from(call_rounds))
    _, ids, results = rounds[at]
    dropped = data.draw(st.sampled_from(results))
    rounds[at] = ("calls", ids, [r for r in results if r != dropped])
    for provider in PROVIDERS:
        violations = validate_native(render(rounds, PROVIDER_FORMAT[provider]), provider)
        assert violations, provider
        if provider in ("openai-chat", "openai-responses", "anthropic", "bedrock", "deepseek"):
            assert any(dropped in v.call_ids for v in violations), (provider, violations)
