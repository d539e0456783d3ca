"""Provider rules on the call ids themselves (pattern, length), applied with `validate_native(..., ids=True)`.

Each illegal case breaks exactly one id rule; we assert the whole violation and the exact provider text.
The ids of issue 30 (`Bash:12`, `call_1|fc_1`, `""`, `" "`, `"a\\u0000"`) are Anthropic's refusals.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from integrity.providers import PROVIDERS, spec, validate_native
from tests.provider_cases import v, without_canonical


def found(request: list[dict[str, Any]], provider: str) -> list[dict[str, Any]]:
    return [without_canonical(x) for x in validate_native(request, provider, ids=True)]


def anthropic(use_id: str, result_id: str | None = None) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": use_id, "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use_id if result_id is None
                                          else result_id, "content": "ok"}]}]


def chat(call_id: str, result_id: str | None = None) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": call_id if result_id is None else result_id, "content": "ok"}]


def responses(call_id: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "hi"},
            {"type": "function_call", "call_id": call_id, "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": call_id, "output": "ok"}]


def bedrock(use_id: str, result_id: str | None = None) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"text": "hi"}]},
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": use_id, "name": "f", "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": use_id if result_id is None else result_id,
                                                          "content": []}}]}]


def bedrock_named(name: str) -> list[dict[str, Any]]:
    request = bedrock("t1")
    request[1]["content"][0]["toolUse"]["name"] = name
    return request


BEDROCK_NAME = "Value at 'messages.2.member.content.1.member.toolUse.name' failed to satisfy constraint: Member must "
PATTERN = "String should match pattern '^[a-zA-Z0-9_-]+$'"
BEDROCK_LONG = ("1 validation error detected: "
                "Value at 'messages.{index}.member.content.1.member.{field}.toolUseId' failed to satisfy constraint: "
                "Member must have length less than or equal to 64")
LONG_41 = "c" * 41
LONG_65 = "r" * 65

ID_LEGAL = [
    ("anthropic", anthropic("toolu_01A-b_c")),
    ("openai-chat", chat("c" * 40)),
    ("openai-chat", chat("Bash:12")),  # OpenAI Chat sets no pattern, only a length
    ("openai-responses", responses("r" * 64)),
    ("mistral", chat("a1B2c3D4e")),
    # Bedrock's documented pattern was contradicted by a recorded 200: only its length is checked
    ("bedrock", bedrock("functions.f:0")),
    ("bedrock", bedrock("t" * 64)),
    ("deepseek", chat("call_0|x:" + "y" * 60)),  # no id rule is known for DeepSeek
]

ID_ILLEGAL = [
    pytest.param("anthropic", anthropic("Bash:12", "ok"),
                 v("anthropic", "invalid_tool_use_id", "messages.1.content.0.tool_use.id", [1], ["Bash:12"],
                   f"messages.1.content.0.tool_use.id: {PATTERN}"), id="anthropic-colon"),
    pytest.param("anthropic", anthropic("ok", "call_1|fc_1"),
                 v("anthropic", "invalid_tool_result_id", "messages.2.content.0.tool_result.tool_use_id", [2],
                   ["call_1|fc_1"], f"messages.2.content.0.tool_result.tool_use_id: {PATTERN}"), id="anthropic-pipe"),
    pytest.param("openai-chat", chat(LONG_41, "ok"),
                 v("openai-chat", "call_id_too_long", "messages[1].tool_calls[0].id", [1], [LONG_41],
                   "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, "
                   "but got a string with length 41 instead."), id="openai-chat-call"),
    pytest.param("openai-chat", chat("ok", LONG_41),
                 v("openai-chat", "result_id_too_long", "messages[2].tool_call_id", [2], [LONG_41],
                   "Invalid 'messages[2].tool_call_id': string too long. Expected a string with maximum length 40, "
                   "but got a string with length 41 instead."), id="openai-chat-result"),
    pytest.param("openai-responses", responses(LONG_65)[:2],
                 v("openai-responses", "call_id_too_long", "input[1].call_id", [1], [LONG_65],
                   "Invalid 'input[1].call_id': string too long. Expected a string with maximum length 64, "
                   "but got a string with length 65 instead."), id="openai-responses"),
    pytest.param("mistral", chat("call_0", "a1B2c3D4e"),
                 v("mistral", "invalid_tool_call_id", "messages[1]", [1], ["call_0"],
                   "Tool call id was call_0 but must be a-z, A-Z, 0-9, with a length of 9."), id="mistral"),
    pytest.param("mistral", [chat("ok")[0], {"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "null",
                                                                              "content": "ok"}],
                 v("mistral", "undefined_call_id", "messages[1]", [1], [],
                   "Tool call id has to be defined in serving mode."), id="mistral-call-without-id"),
    pytest.param("mistral", [*chat("a1B2c3D4e")[:2], {"role": "tool", "content": "ok"}],
                 v("mistral", "undefined_result_id", "messages[2]", [2], [], "Tool call id has to be defined."),
                 id="mistral-result-without-id"),
    pytest.param("bedrock", bedrock(LONG_65, "ok"),
                 v("bedrock", "tool_use_id_too_long", "messages.1.content.0", [1], [LONG_65],
                   BEDROCK_LONG.format(index=2, field="toolUse")), id="bedrock-call"),
    pytest.param("bedrock", bedrock("ok", LONG_65),
                 v("bedrock", "tool_result_id_too_long", "messages.2.content.0", [2], [LONG_65],
                   BEDROCK_LONG.format(index=3, field="toolResult")), id="bedrock-result"),
    # seen: openclaw/openclaw#12892 (a long dotted name: both clauses), vercel/ai#17781 (`$READFILE` replayed)
    pytest.param("bedrock", bedrock_named("$READFILE"),
                 v("bedrock", "tool_use_name_pattern", "messages.1.content.0.toolUse.name", [1], ["t1"],
                   "1 validation error detected: " + BEDROCK_NAME + "satisfy regular expression pattern: "
                   "[a-zA-Z0-9_-]+"), id="bedrock-name-pattern"),
    pytest.param("bedrock", bedrock_named("n" * 65),
                 v("bedrock", "tool_use_name_too_long", "messages.1.content.0.toolUse.name", [1], ["t1"],
                   "1 validation error detected: " + BEDROCK_NAME + "have length less than or equal to 64"),
                 id="bedrock-name-too-long"),
]


@pytest.mark.parametrize("provider,request_", ID_LEGAL)
def test_ids_a_provider_takes_pass(provider: str, request_: list[dict[str, Any]]) -> None:
    assert found(request_, provider) == []


@pytest.mark.parametrize("provider,request_,expected", ID_ILLEGAL)
def test_an_id_a_provider_refuses_yields_exactly_that_violation(
        provider: str, request_: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    # the pairing rules do not mind the ids (the call and its result disagree only in a valid id)
    violations = [x for x in found(request_, provider) if x["rule"] == expected["rule"]]
    assert violations == [expected]


def test_responses_call_ids_over_64_characters_are_refused_on_every_item() -> None:
    assert [(x["rule"], x["position"], x["error"]) for x in found(responses(LONG_65), "openai-responses")] == [
        ("call_id_too_long", f"input[{i}].call_id", f"Invalid 'input[{i}].call_id': string too long. Expected a "
         "string with maximum length 64, but got a string with length 65 instead.") for i in (1, 2)]


@pytest.mark.parametrize("bad", ["Bash:12", "call_1|fc_1", "", " ", "a\u0000"])
def test_the_ids_of_issue_30_are_refused_by_anthropic(bad: str) -> None:
    rules = [x["rule"] for x in found(anthropic(bad), "anthropic")]
    assert rules == ["invalid_tool_use_id", "invalid_tool_result_id"]
    assert validate_native(anthropic(bad), "anthropic") == []  # off unless asked: the pairing is fine


def test_id_rules_are_off_by_default_and_only_where_known() -> None:
    assert validate_native(chat(LONG_41), "openai-chat") == []
    with_id_rules = [name for name in PROVIDERS if spec(name).validate_ids is not None]
    assert with_id_rules == ["openai-chat", "openai-responses", "anthropic", "bedrock", "mistral"]


def test_all_anthropic_ids_says_what_checking_each_id_says() -> None:
    """The one-match check over a request's ids (a newline joins them) agrees with checking each id, ids
    holding a newline, a space, a colon, a non-ASCII letter or nothing at all among them."""
    import random

    from integrity.providers.ids import all_anthropic_ids, is_anthropic_id

    rng = random.Random(11)
    cases = [["a\nb"], ["a", "\nb"], ["a\n"], [""], [], ["x" * 5000], ["ok", "Bash:12"]]
    cases += [["".join(rng.choice("ab_-\n :é") for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 4))]
              for _ in range(5000)]
    for values in cases:
        assert all_anthropic_ids(values) == all(is_anthropic_id(value) for value in values), values


def test_mistral_ids_checked_at_once_say_what_checking_each_id_says() -> None:
    """The windowed proof's check of Mistral's ids over a request (one C-level pass) agrees with checking each
    id (a call's "null" refused too): nine letters or digits, not eight or ten, no newline, space or _."""
    import random

    from integrity.providers.ids import is_mistral_id
    from integrity.providers.windowed import _ids_pass

    rng = random.Random(12)
    cases = [(["abcdefghi"], []), (["abcdefgh\n"], []), ([], ["abcdefghi", "abcdefgh"]), (["null"], []),
             ([], ["null"]), ([""], [])]
    cases += [([("".join(rng.choice("aZ9_ \né") for _ in range(rng.choice([8, 9, 9, 10]))))
                for _ in range(rng.randint(0, 3))], ["".join(rng.choice("aZ9") for _ in range(rng.choice([9, 10])))
                                                     for _ in range(rng.randint(0, 2))]) for _ in range(5000)]
    for calls, results in cases:
        expected = all(is_mistral_id(value) for value in calls + results)
        assert _ids_pass("mistral", calls, results) == expected, (calls, results)


@pytest.mark.parametrize("provider", ["anthropic", "bedrock", "mistral", "openai-chat", "openai-responses"])
def test_an_id_rule_checking_every_id_at_once_says_what_checking_each_says(provider: str) -> None:
    """IdRule.accepts_all (what the strict planner asks first: does the provider refuse some id?) agrees with
    IdRule.accepts on each id, for ids of every length around the rules' limits and every kind of character."""
    import random

    rule = spec(provider).id_rule
    assert rule is not None and rule.accepts_all is not None
    rng = random.Random(13)
    cases = [["a"], ["abcdefghi"], ["x" * 40, "y" * 41], ["x" * 64], ["x" * 65], ["a\nb"], ["Bash:1"], ["é" * 9], []]
    cases += [["".join(rng.choice("aZ9_- :\né") for _ in range(rng.choice([1, 2, 8, 9, 10, 40, 41, 64, 65])))
               for _ in range(rng.randint(0, 3))] for _ in range(4000)]
    for values in cases:
        assert rule.accepts_all(values) == all(map(rule.accepts, values)), values


@pytest.mark.parametrize("provider", ["anthropic", "bedrock", "mistral", "openai-chat", "openai-responses"])
def test_the_ids_a_rule_refuses_found_at_once_are_those_it_refuses_one_by_one(provider: str) -> None:
    """ids.refused_positions (what the strict planner renames, Mistral's read at C speed) names exactly the ids
    IdRule.accepts refuses, "" (no id) never, for ids of every length around the limits and every character."""
    import random

    from integrity.providers.ids import refused_positions

    rule = spec(provider).id_rule
    assert rule is not None
    rng = random.Random(14)
    cases = [[], [""], ["abcdefghi", "é" * 9, "abcdefgh\n", "null", "call_00000001", "ABCDEFGH9"]]
    cases += [["".join(rng.choice("aZ9_- :\né") for _ in range(rng.choice([0, 1, 8, 9, 9, 10, 40, 41, 64, 65])))
               for _ in range(rng.randint(0, 6))] for _ in range(3000)]
    for values in cases:
        assert refused_positions(rule, values) == [at for at, value in enumerate(values)
                                                   if value != "" and not rule.accepts(value)], values


def test_mistral_refused_ids_judged_a_kind_at_a_time_are_the_request_s() -> None:
    """refused.refused_columns (the light view's judgment of every id at once, as columns) reads as refused_ids'
    violations, field for field, with each one's canonical message (the Chat shape: one native entry per message)
    set, for ids among which no call's is "null" (refused with another text: judged by refused_ids itself); a
    result's "null" is a refused id like any other."""
    import random
    from array import array

    import msgspec

    from integrity.providers.mistral import refused_ids
    from integrity.providers.refused import refused_columns

    rng = random.Random(15)
    for _ in range(300):
        values = ["".join(rng.choice("aZ9_{}é") for _ in range(rng.choice([0, 4, 9, 9, 10]))) or "null"
                  for _ in range(rng.randint(0, 8))]
        indices = sorted(rng.sample(range(50), len(values)))
        for calls in (True, False):
            if calls and "null" in values:
                continue
            expected = refused_ids([(index, 0 if calls else None, value) for index, value in zip(indices, values,
                                                                                                  strict=True)])
            expected = [msgspec.structs.replace(violation, canonical_indices=violation.native_indices)
                        for violation in expected]
            assert list(refused_columns(array("q", indices), values, "mistral")) == expected, values


def _walk(rule: Any, values: list[str], used: set[str]) -> dict[str, str]:
    """The new ids made the plain way, one refused value at a time: its attempts in order until one is neither in
    use (`used`, which each new id joins) nor refused; {} when a value needs more than 50 attempts (no case)."""
    made = {}
    for value in values:
        attempt = 0
        new = rule.make(value, attempt)
        while new in used or not rule.accepts(new):
            attempt += 1
            new = rule.make(value, attempt)
            if attempt > 50:
                return {}
        used.add(new)
        made[value] = new
    return made


def test_new_ids_made_at_once_are_those_the_walk_gives_when_first_attempts_collide() -> None:
    """repair.strict._made gives every refused id its first attempt at once, and walks the attempts only past
    one that is taken, refused or another's: the same new ids as the walk, in order, whatever collides."""
    from integrity.providers.spec import IdRule
    from integrity.repair.strict import _made

    def make(value: str, attempt: int) -> str:
        return f"{value[:1]}{attempt}" if attempt != 2 else "x"  # (attempt 2 names an id in use: "x")

    rule = IdRule(lambda value: len(value) <= 2, make, "at most two characters",
                  lambda values: all(len(value) <= 2 for value in values))
    refused = ["abc", "axe", "bcd", "aaa", "b00", "ccc"]
    taken = {"c0", "x", "abc", "axe", "bcd", "aaa", "b00", "ccc"}

    expected_taken = set(taken)
    expected = _walk(rule, refused, expected_taken)
    assert expected == {"abc": "a0", "axe": "a1", "bcd": "b0", "aaa": "a3", "b00": "b1", "ccc": "c1"}
    before = set(taken)
    assert _made(rule, refused, taken) == expected and taken == before  # (the ids in use: left as they are)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.text("abcd", min_size=3, max_size=4), unique=True, max_size=30),
       used=st.sets(st.text("abcdx0123", min_size=1, max_size=2), max_size=8), spread=st.integers(1, 6))
def test_new_ids_made_with_clashes_are_those_the_walk_gives(values: list[str], used: set[str], spread: int) -> None:
    """_made (its first attempts taken at once when none is taken or another's) gives the walk's new ids, whatever
    the attempts meet: another's first attempt, an id in use, one the rule refuses."""
    from integrity.providers.spec import IdRule
    from integrity.repair.strict import _made

    def make(value: str, attempt: int) -> str:  # a few values per first letter: clashes, and attempts that meet
        return value[:1] + str((len(value) + attempt * 3) % spread) if attempt != 4 else "x"

    rule = IdRule(lambda value: len(value) <= 2 and value != "a1", make, "at most two characters, not a1",
                  lambda values: all(len(value) <= 2 and value != "a1" for value in values))

    expected_taken = set(used)
    expected = _walk(rule, values, expected_taken)
    assume(expected or not values)  # (a walk that never ends is no case)
    taken = frozenset(used)  # (the ids in use: left as they are, any set)
    assert _made(rule, values, taken) == expected
