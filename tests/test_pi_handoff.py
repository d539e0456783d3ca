"""A pi session whose user switched models is judged by the model it talks to now, as pi sends it the answers the
other model wrote (integrity.formats.pi_requests.model_of, pi_foreign, pi_responses).

pi (pi-ai's transformMessages) sends an answer that is not the current model's own (another provider, API or model
id) without what only its own model may read: its thinking as text, a redacted thinking left out, its calls under
the ids the target's builder makes.  Until this was modelled a session with answers of two writers named no model,
so a handoff from GPT to Claude was judged by the universal invariants: its verdict never said what Anthropic says.

The expected messages below are what pi's own transformMessages (badlogic/pi-mono at 83378aad,
packages/ai/src/providers/transform-messages.ts, transpiled with TypeScript and run on Node 20 with anthropic.ts's
normalizeToolCallId) gave for SESSION's messages toward claude-sonnet-4-5: GPT's reasoning "plan" and an older
Claude's signed thinking as text blocks, GPT's redacted thinking gone (its answer of nothing else left empty, which
the builder leaves out), the call and its result under "call_1_fc_1", and the current model's signed thinking kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_pi_session_model import CLAUDE, CONVERSE, answer, as_bytes, change, session, user

from integrity import check, load_all
from integrity.cli import main
from integrity.formats.pi_requests import model_of
from integrity.providers.canonical import judged_request

GPT = ("openai", "openai-responses", "gpt-5")
OPUS = ("anthropic", "anthropic-messages", "claude-opus-4-1")
REASONING = json.dumps({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "xx"})


def result(call_id: str, text: str = "r") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "f", "content": [{"type": "text", "text": text}],
            "isError": False, "timestamp": 3}


def handoff(to: tuple[str, str, str], *extra: dict[str, Any]) -> list[dict[str, Any]]:
    """GPT calls a tool (with reasoning and a redacted thinking), answers with a redacted thinking alone, an older
    Claude answers with signed thinking, then the user switches to `to`, which answers with thinking of its own."""
    provider, _, model = to
    return [user("hi"),
            answer([{"type": "thinking", "thinking": "plan", "thinkingSignature": REASONING},
                    {"type": "thinking", "thinking": "", "thinkingSignature": "opaque", "redacted": True},
                    {"type": "toolCall", "id": "call_1|fc_1", "name": "f", "arguments": {}}], GPT, "toolUse"),
            result("call_1|fc_1"), *extra,
            answer([{"type": "thinking", "thinking": "", "thinkingSignature": "opaque2", "redacted": True}], GPT),
            answer([{"type": "thinking", "thinking": "older claude", "thinkingSignature": "sigA"},
                     {"type": "text", "text": "done"}], OPUS),
            change(provider, model), user("go on"),
            answer([{"type": "thinking", "thinking": "mine", "thinkingSignature": "sig"},
                    {"type": "text", "text": "ok"}], to)]


def loaded(entries: list[dict[str, Any]]) -> Any:
    [transcript] = load_all(as_bytes(entries), "s.pi-session.jsonl")
    return transcript


def test_a_handoff_to_claude_is_judged_by_anthropic_on_what_pi_sends() -> None:
    transcript = loaded(session(*handoff(CLAUDE)))
    assert transcript.model == "anthropic:claude-sonnet-4-5"
    native, _, _ = judged_request(transcript.messages, "anthropic", transcript, as_recorded=True)
    assistant = [entry["content"] for entry in native if entry["role"] == "assistant"]
    assert assistant == [  # pi's transformMessages on Node, then its builder (blocks as our writer writes them)
        [{"type": "text", "text": "plan"}, {"type": "tool_use", "id": "call_1_fc_1", "name": "f", "input": {}}],
        [{"type": "text", "text": "older claude"}, {"type": "text", "text": "done"}],
        [{"type": "thinking", "thinking": "mine", "signature": "sig"}, {"type": "text", "text": "ok"}]]
    [results] = [entry["content"] for entry in native if entry["role"] == "user" and entry["content"][0].get(
        "type") == "tool_result"]
    assert [block["tool_use_id"] for block in results] == ["call_1_fc_1"]
    said = check(transcript)
    assert said.target == "anthropic" and said.report.as_recorded == {"anthropic": "accepted"}
    assert said.report.healthy


def test_a_handoff_to_claude_on_bedrock_sends_the_other_models_thinking_as_text() -> None:
    transcript = loaded(session(*handoff(CONVERSE)))
    native, _, _ = judged_request(transcript.messages, "bedrock", transcript, as_recorded=True)
    assistant = [entry["content"] for entry in native if entry["role"] == "assistant"]
    assert assistant == [
        [{"text": "plan"}, {"toolUse": {"toolUseId": "call_1_fc_1", "name": "f", "input": {}}}],
        [{"text": "older claude"}, {"text": "done"}],
        [{"reasoningContent": {"reasoningText": {"text": "mine", "signature": "sig"}}}, {"text": "ok"}]]
    assert check(transcript).target == "bedrock" and check(transcript).report.healthy


def test_a_handoff_to_gpt_is_judged_by_openai_responses() -> None:
    claude_first = [user("hi"),
                    answer([{"type": "thinking", "thinking": "look", "thinkingSignature": "sigC"},
                            {"type": "toolCall", "id": "toolu_01A", "name": "f", "arguments": {}}], CLAUDE, "toolUse"),
                    result("toolu_01A"), answer([{"type": "text", "text": "done"}], CLAUDE),
                    change("openai", "gpt-5"), user("go on")]
    transcript = loaded(session(*claude_first))
    assert transcript.model == "openai-responses:gpt-5"
    native, _, _ = judged_request(transcript.messages, "openai-responses", transcript, as_recorded=True)
    kinds = [(item.get("type"), item.get("call_id")) for item in native]
    assert kinds == [(None, None), ("message", None), ("function_call", "toolu_01A"),
                     ("function_call_output", "toolu_01A"), ("message", None), (None, None)]
    assert native[1]["content"][0]["text"] == "look" and "id" not in native[2]  # Claude's thinking as text
    said = check(transcript)
    assert said.target == "openai-responses" and said.report.healthy


def test_a_stray_result_after_a_handoff_is_refused_by_the_new_model_and_repaired(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """pi renames only the results of the calls it renames: a result whose call is gone keeps its `|` id, which
    Anthropic refuses twice (no call before it, and its pattern); the repair leaves it out."""
    path = tmp_path / "handoff.pi-session.jsonl"
    path.write_bytes(as_bytes(session(*handoff(CLAUDE, result("call_9|fc_9")))))
    before = path.read_bytes()
    assert main(["check", str(path)]) == 1
    assert "rejected as recorded by anthropic" in capsys.readouterr().out
    assert main(["check", "--provider", "anthropic", str(path)]) == 1
    out = capsys.readouterr().out
    assert "unexpected `tool_use_id` found in `tool_result` blocks: call_9|fc_9" in out
    fixed = tmp_path / "fixed.pi-session.jsonl"
    assert main(["repair", str(path), "-o", str(fixed)]) == 0
    assert path.read_bytes() == before
    assert main(["check", str(fixed)]) == 0
    assert "accepted as recorded by anthropic" in capsys.readouterr().out


@pytest.mark.parametrize(("to", "route"), [(CLAUDE, "anthropic"), (CONVERSE, "bedrock"),
                                           (GPT, "openai-responses")])
def test_the_current_model_names_the_session_whoever_wrote_before(to: tuple[str, str, str], route: str) -> None:
    entries = session(*handoff(to))
    assert model_of(entries) == f"{route}:{to[2]}"
