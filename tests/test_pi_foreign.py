"""A pi session asked about a provider it does not talk to is judged as pi would send it there
(integrity.formats.pi_foreign): another model's call ids made anew as that provider's builder makes them, and the
answers pi drops left out.

Before, a Codex session (ids `call_…|fc_…`, 83 characters) asked about Anthropic, Bedrock, OpenAI Chat or Mistral
was refused for ids pi never sends them ("String should match pattern", "string too long", "must be a-z, A-Z, 0-9,
with a length of 9"), and about Gemini for an aborted answer pi never sends ("contents.parts must not be empty").
The expected ids below were computed by pi's own functions (badlogic/pi-mono at 83378aad: anthropic.ts's
normalizeToolCallId, openai-completions.ts's, mistral.ts's createMistralToolCallIdNormalizer), run on Node.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_pi_responses import CODEX, FIRST, SECOND, call, result, write
from test_pi_session_model import answer, as_bytes, session, user

from integrity import check, load_all
from integrity.cli import main
from integrity.formats.pi_foreign import (
    PROVIDER_OF_ROUTE,
    deepseek_id,
    openai_chat_id,
    safe_id,
    with_sent_ids,
)
from integrity.formats.pi_requests import _ROUTES
from integrity.providers.canonical import judged_request
from integrity.providers.models import provider_for_model

REAL = Path(__file__).parent / "real" / "pi_codex_joined_ids.pi-session.jsonl"
ASKED = ["anthropic", "bedrock", "openai-chat", "mistral", "deepseek", "gemini"]
CLAUDE = ("anthropic", "anthropic-messages", "claude-sonnet-4-5")

IDS = ["call_Qm3b1vT7yXk2LpN9aR4sWd8E|fc_07c1e2d3f4a5b6c7d8e9f00112233445566778899aabbccdd1",
       "toolu_01A09q90qw90lq917835lq9", "call_abc", "abcDEF123", "abc-DEF12-3", "x|y|z", "call_\U0001F600\u00e9|fc_1",
       "a" * 70 + "\U0001F600"]
ANTHROPIC = ["call_Qm3b1vT7yXk2LpN9aR4sWd8E_fc_07c1e2d3f4a5b6c7d8e9f0011223344", "toolu_01A09q90qw90lq917835lq9",
             "call_abc", "abcDEF123", "abc-DEF12-3", "x_y_z", "call_____fc_1", "a" * 64]
OPENAI_CHAT = ["call_Qm3b1vT7yXk2LpN9aR4sWd8E", "toolu_01A09q90qw90lq917835lq9", "call_abc", "abcDEF123",
               "abc-DEF12-3", "x", "call____", "a" * 40]
MISTRAL = ["19qfu7sly", "1q2i7qh1x", "18mdplhyx", "abcDEF123", "11syy0iwk", "olwipe1rp", "xhoklkax1", "rnrftp1mf"]
"""pi's ids for IDS, one Mistral normalizer taking them in order ("abc-DEF12-3" is "abcDEF123" once its dash is
gone, which "abcDEF123" took: it gets the hash of its second try)."""


def test_pi_makes_the_ids_pi_makes() -> None:
    assert [safe_id(i) for i in IDS] == ANTHROPIC
    assert [openai_chat_id(i) for i in IDS] == OPENAI_CHAT
    assert [deepseek_id(i) for i in IDS] == OPENAI_CHAT[:1] + IDS[1:5] + ["x", "call____", IDS[7]]
    native = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in IDS]}]
    sent, _ = with_sent_ids(native, [[0]], [answer([], CODEX)], None, "mistral", "openai-chat")
    assert [c["id"] for c in sent[0]["tool_calls"]] == MISTRAL
    assert native[0]["tool_calls"][0]["id"] == IDS[0]  # (the written entry is not changed: it may be the file's own)


def test_every_route_names_the_provider_the_models_table_names() -> None:
    assert set(PROVIDER_OF_ROUTE) == set(_ROUTES.values())
    for route, provider in PROVIDER_OF_ROUTE.items():
        assert provider_for_model(f"{route}:some-model") == provider, route


def test_a_codex_session_asked_about_other_providers_is_judged_as_pi_would_send_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    [transcript] = load_all(REAL.read_bytes(), str(REAL))
    result_ = check(transcript, also=ASKED)
    said = {name: (verdict.before, verdict.after) for name, verdict in result_.providers.items()}
    assert said == {name: ([], []) for name in ["openai-responses", *ASKED]}, said
    ids = {"anthropic": r"call_[A-Za-z0-9]{24}_fc_[0-9a-f]{31}", "mistral": r"[a-z0-9]{9}",
           "openai-chat": r"call_[A-Za-z0-9]{24}"}
    for provider, pattern in ids.items():
        native, _, _ = judged_request(transcript.messages, provider, transcript, as_recorded=True)
        sent = re.findall(r"'(?:id|tool_use_id|tool_call_id)': '([^']*)'", str(native))
        assert len(sent) == 4 and len(set(sent)) == 2 and all(re.fullmatch(pattern, i) for i in sent), (provider, sent)
    native, _, _ = judged_request(transcript.messages, "gemini", transcript, as_recorded=True)
    assert all(entry.get("parts") for entry in native), native  # (the aborted answer is not sent)
    out = tmp_path / "out.jsonl"
    for provider in ("anthropic", "mistral"):  # the repair renames nothing: pi sends ids they take
        assert main(["repair", str(REAL), "--provider", provider, "-o", str(out)]) == 0
        assert "renamed" not in capsys.readouterr().out
        assert out.read_text(encoding="utf-8").count("call_Qm3b1vT7yXk2LpN9aR4sWd8E|fc_") == 2


def test_an_unanswered_call_is_refused_under_the_id_pi_sends(tmp_path: Path) -> None:
    path = write(tmp_path, session({"provider": "openai-codex", "modelId": "gpt-5.6-luna"}, user("go"),
                                   answer([call(FIRST), call(SECOND, "bash")], CODEX, "toolUse"), result(FIRST)))
    # (the session ends there: a message after it would have pi answer SECOND "No result provided", test_pi_no_result)
    [transcript] = load_all(path.read_bytes(), str(path))
    errors = [v.error for v in check(transcript, provider="anthropic").providers["anthropic"].before]
    assert errors == ["messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
                      f"{safe_id(SECOND)}. Each `tool_use` block must have a corresponding `tool_result` block in the "
                      "next message."], errors


def _ids(native: list[Any]) -> list[str]:
    return [block.get("id") or block.get("tool_use_id") for entry in native for block in entry["content"]
            if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result")]


def test_the_models_own_answers_keep_their_ids_and_a_result_follows_its_call() -> None:
    own, other = "toolu_01Own|corrupt", "call_x|fc_y"
    native = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": other, "content": "early"}]},
              {"role": "assistant", "content": [{"type": "tool_use", "id": own, "name": "f", "input": {}}]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": own, "content": "ok"}]},
              {"role": "assistant", "content": [{"type": "tool_use", "id": other, "name": "f", "input": {}}]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": other, "content": "ok"}]}]
    messages = [user("x"), answer([], CLAUDE), user("x"), answer([], CODEX), user("x")]
    sent, _ = with_sent_ids(native, [[0], [1], [2], [3], [4]], messages, "anthropic:claude-sonnet-4-5", "anthropic",
                            "anthropic")
    # pi sends its model's own answer as it is, another model's with a new id, and a result before its call as it is
    assert _ids(sent) == [other, own, own, "call_x_fc_y", "call_x_fc_y"]
    asked_elsewhere, _ = with_sent_ids(native, [[0], [1], [2], [3], [4]], messages, "openai-responses:gpt-5",
                                       "anthropic", "anthropic")
    assert _ids(asked_elsewhere) == [other, "toolu_01Own_corrupt", "toolu_01Own_corrupt", "call_x_fc_y", "call_x_fc_y"]


def test_an_id_anthropic_refuses_in_its_own_answer_is_refused_and_renamed(tmp_path: Path) -> None:
    """pi sends a Claude session's own answers as they are: an id of one of them Anthropic refuses (written so by
    some other tool) is refused, and the repair renames it (the rule on ids reads it as pi sends it, not made safe)."""
    bad = "toolu_01Read|0000000000000001"
    path = write(tmp_path, session({"provider": "anthropic", "modelId": "claude-sonnet-4-5"}, user("go"),
                                   answer([{"type": "toolCall", "id": bad, "name": "read", "arguments": {}}], CLAUDE,
                                          "toolUse"), result(bad), answer([{"type": "text", "text": "done"}], CLAUDE)))
    assert main(["check", str(path)]) == 1
    out = tmp_path / "out.jsonl"
    assert main(["repair", str(path), "-o", str(out)]) == 0
    assert main(["check", str(out)]) == 0
    assert bad not in out.read_text(encoding="utf-8") and bad in path.read_text(encoding="utf-8")


def test_a_session_on_a_chat_or_gemini_model_is_still_judged_by_the_universal_invariants() -> None:
    """pi's Chat and Gemini builders are modelled for the ids and the answers left out only: a session on such a
    model names its model and is judged by the universal invariants unless the provider is asked."""
    for by, model in ((("openai", "openai-completions", "gpt-4o"), "openai-chat:gpt-4o"),
                      (("google", "google-generative-ai", "gemini-2.5-pro"), "google-gla:gemini-2.5-pro")):
        entries = session(user("hi"), answer([{"type": "text", "text": "ok"}], by))
        [transcript] = load_all(as_bytes(entries), "s.jsonl")
        assert transcript.model == model
        assert check(transcript).target is None
