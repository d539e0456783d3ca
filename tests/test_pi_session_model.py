"""A pi session is judged by the model it talks to, as pi sends it.

pi sends a session to its current model (the last `model_change` entry or answer on the branch), so a session
on Claude through Bedrock is refused by Bedrock, whatever our universal invariants say: the session of
can1357/oh-my-pi#12809 (tests/real/pi_bedrock_error_screenshot.pi-session.jsonl) was "healthy", exit 0, while
Bedrock refused every request of it.  pi also leaves out of every request the answers that ended in an error or
were aborted, and its Anthropic and Bedrock builders the blank texts: judged as the file lists them, such sessions
would be refused for what pi never sends (integrity.formats.pi_requests).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import analyze, check, load_all, target_provider
from integrity._diagnosis import recorded_acceptance
from integrity.cli import main
from integrity.formats.pi_requests import model_of
from integrity.providers.canonical import judged_request

REAL = Path(__file__).resolve().parent / "real"
BEDROCK_SCREENSHOT = REAL / "pi_bedrock_error_screenshot.pi-session.jsonl"
REFUSAL = "messages.2.content.0.tool_result: all content must be type `text` if `is_error` is true"

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
CLAUDE = ("anthropic", "anthropic-messages", "claude-sonnet-4-5")
CONVERSE = ("amazon-bedrock", "bedrock-converse-stream", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")


def answer(content: list[Any], by: tuple[str, str, str] = CLAUDE, stop: str = "stop") -> dict[str, Any]:
    provider, api, model = by
    return {"role": "assistant", "content": content, "api": api, "provider": provider, "model": model,
            "usage": USAGE, "stopReason": stop, "timestamp": 2}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def session(*items: dict[str, Any]) -> list[dict[str, Any]]:
    """A version 3 pi session: its header, then each item (a message, or a `model_change` entry when it has a
    `modelId`) as an entry pointing at the one before it."""
    entries: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z",
                                      "cwd": "/w"}]
    parent = None
    for number, item in enumerate(items, 1):
        ident = f"{number:08x}"
        base = {"id": ident, "parentId": parent, "timestamp": "2026-01-01T00:00:00Z"}
        entries.append({"type": "model_change", **base, **item} if "modelId" in item
                       else {"type": "message", **base, "message": item})
        parent = ident
    return entries


def as_bytes(entries: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(entry) + "\n" for entry in entries).encode()


def change(provider: str, model: str) -> dict[str, Any]:
    return {"provider": provider, "modelId": model}


@pytest.mark.parametrize(("items", "model"), [
    ([change("anthropic", "claude-opus-4-5"), user("hi")], "anthropic:claude-opus-4-5"),
    ([user("hi"), answer([{"type": "text", "text": "ok"}], CONVERSE)],
     "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
    ([user("hi"), answer([{"type": "text", "text": "ok"}], ("openai", "openai-responses", "gpt-5"))],
     "openai-responses:gpt-5"),
    ([user("hi"), answer([{"type": "text", "text": "ok"}], ("openai", "openai-completions", "gpt-4o"))],
     "openai-chat:gpt-4o"),
    ([change("openai", "gpt-5"), user("hi")], "openai-responses:gpt-5"),  # (pi's registry: Responses)
    ([change("google", "gemini-2.5-flash"), user("hi")], "google-gla:gemini-2.5-flash"),
    # the last of the model changes and answers decides, as pi's buildSessionContext reads it
    ([change("openai", "gpt-5"), user("hi"), answer([{"type": "text", "text": "ok"}])], "anthropic:claude-sonnet-4-5"),
    # an aborted answer of another model is never sent again: it writes nothing pi would rewrite
    ([user("hi"), answer([], ("openai", "openai-responses", "gpt-5"), "aborted"), change("anthropic", "claude-x"),
      user("again"), answer([{"type": "text", "text": "ok"}])], "anthropic:claude-sonnet-4-5"),
    # a handoff: pi sends the other model's answers to the new one as it rewrites them (pi_foreign, pi_responses)
    ([user("hi"), answer([{"type": "text", "text": "ok"}]), change("openai", "gpt-5"), user("go on")],
     "openai-responses:gpt-5"),
    ([user("hi"), answer([{"type": "text", "text": "ok"}], ("openai", "openai-responses", "gpt-5")),
      user("go on"), answer([{"type": "text", "text": "ok"}])], "anthropic:claude-sonnet-4-5"),
    # a gateway or proxy, and a provider reached through another API, name no provider whose rules we know
    ([change("openrouter", "anthropic/claude-sonnet-4.5"), user("hi")], None),
    ([user("hi"), answer([{"type": "text", "text": "ok"}], ("anthropic", "openai-completions", "claude-x"))], None),
    ([user("hi")], None),
], ids=["model-change", "bedrock-answer", "openai-responses", "openai-completions", "openai-default-api", "google",
        "answer-after-change", "aborted-other-model", "handoff-change", "handoff-answers", "gateway", "odd-api",
        "none"])
def test_the_model_a_session_names(items: list[dict[str, Any]], model: str | None) -> None:
    assert model_of(session(*items)) == model
    [transcript] = load_all(as_bytes(session(*items)), "s.jsonl")
    assert transcript.format == "pi-session" and transcript.model == model


def test_openclaws_model_snapshot_names_the_model_and_its_api() -> None:
    entries = session(user("hi"))
    entries.insert(1, {"type": "custom", "id": "c0", "parentId": None, "timestamp": "2026-01-01T00:00:00Z",
                       "customType": "model-snapshot",
                       "data": {"provider": "amazon-bedrock", "modelApi": "bedrock-converse-stream", "modelId": "m"}})
    assert model_of(entries) == "bedrock:m"


@pytest.mark.parametrize(("by", "target"), [(CLAUDE, "anthropic"), (CONVERSE, "bedrock"),
                                            (("openai", "openai-responses", "gpt-5"), "openai-responses"),
                                            (("openai-codex", "openai-codex-responses", "gpt-5.2"), "openai-responses"),
                                            (("azure-openai-responses", "azure-openai-responses", "gpt-5"),
                                             "openai-responses"),
                                            (("google", "google-generative-ai", "gemini-3-pro-preview"), None),
                                            (("openai", "openai-completions", "gpt-4o"), None)])
def test_judged_by_the_models_provider_where_pi_is_modelled(by: tuple[str, str, str], target: str | None) -> None:
    """Anthropic, Bedrock and OpenAI Responses (OpenAI's, Codex's, Azure's), whose requests pi builds as
    integrity.formats.pi_requests and pi_responses model them; another provider's session keeps the universal
    invariants (what pi rewrites for it is not modelled)."""
    [transcript] = load_all(as_bytes(session(user("hi"), answer([{"type": "text", "text": "ok"}], by))), "s.jsonl")
    assert target_provider(transcript.format, None, transcript.model) == target
    assert check(transcript).target == target


def test_the_bedrock_session_is_refused_as_bedrock_refuses_it(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    data = BEDROCK_SCREENSHOT.read_bytes()
    assert main(["check", str(BEDROCK_SCREENSHOT)]) == 1
    out = capsys.readouterr().out
    assert "rejected as recorded by bedrock" in out and "error result(s) sent as text" in out
    assert main(["check", "--json", str(BEDROCK_SCREENSHOT)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["provider"] == "bedrock" and report["healthy"] is False
    [transcript] = load_all(data, BEDROCK_SCREENSHOT.name)
    [refusal] = check(transcript).providers["bedrock"].before
    assert (refusal.rule, refusal.error) == ("error_result_not_text", REFUSAL)
    analysis = analyze(transcript, verdicts=["bedrock"])  # the API rates it by the same provider
    assert recorded_acceptance(analysis.report) is False and not analysis.report.healthy
    # the repaired session sends the failed cell's text alone; the file asked about is left as it was
    out_path = tmp_path / "fixed.jsonl"
    assert main(["repair", str(BEDROCK_SCREENSHOT), "-o", str(out_path)]) == 0
    assert main(["check", str(out_path)]) == 0
    assert "accepted as recorded by bedrock" in capsys.readouterr().out
    assert BEDROCK_SCREENSHOT.read_bytes() == data


@pytest.mark.parametrize("stop", ["aborted", "error"])
def test_an_answer_pi_drops_is_not_judged(stop: str) -> None:
    """The user pressed Esc before Claude said anything (or the request failed): pi records an empty answer and
    never sends it again.  Judged as listed, Anthropic would refuse the empty message."""
    items = (user("hi"), answer([], stop=stop), user("go on"), answer([{"type": "text", "text": "ok"}]))
    [transcript] = load_all(as_bytes(session(*items)), "s.jsonl")
    result = check(transcript)
    assert result.target == "anthropic" and result.providers["anthropic"].before == [] and result.exit_code == 0
    native, sources, _ = judged_request(transcript.messages, "anthropic", transcript, as_recorded=True)
    assert [entry["role"] for entry in native] == ["user", "user", "assistant"] and [1] not in sources
    [pi_ai] = load_all(json.dumps(list(items)).encode(), "context.json")  # a bare pi-ai context: sent as written
    assert pi_ai.format == "pi-ai"
    assert check(pi_ai, provider="anthropic").providers["anthropic"].before[0].rule == "empty_message_content"


def test_blank_texts_as_pis_builders_send_them() -> None:
    """pi's Anthropic builder leaves out blank texts (a user's too) and the messages they leave empty, and sends a
    thinking block without its signature as text; its Bedrock builder leaves out an answer's blank texts, and
    sends a user's: Bedrock refuses that one, as it answers pi."""
    items = (user("hi"), answer([{"type": "text", "text": " \n"},
                                 {"type": "toolCall", "id": "t1", "name": "ls", "arguments": {}}]),
             {"role": "toolResult", "toolCallId": "t1", "toolName": "ls", "content": [{"type": "text", "text": "a"}],
              "isError": False, "timestamp": 3},
             answer([{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "done"}]), user("\u00a0"))
    [transcript] = load_all(as_bytes(session(*items)), "s.jsonl")
    assert check(transcript).providers["anthropic"].before == []
    native, _, _ = judged_request(transcript.messages, "anthropic", transcript, as_recorded=True)
    assert native[1]["content"] == [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]
    assert native[3]["content"] == [{"type": "text", "text": "hm"}, {"type": "text", "text": "done"}]
    assert len(native) == 4  # (the blank user message left out)
    on_bedrock = [{**item, "provider": CONVERSE[0], "api": CONVERSE[1], "model": CONVERSE[2]}
                  if item["role"] == "assistant" else item for item in items]
    [transcript] = load_all(as_bytes(session(*on_bedrock)), "s.jsonl")
    result = check(transcript)
    assert result.target == "bedrock"
    assert [v.rule for v in result.providers["bedrock"].before] == ["blank_text_block"]
    assert result.providers["bedrock"].before[0].position == "messages.4.content.0"


def test_a_call_in_an_answer_pi_drops_is_no_orphan() -> None:
    """Esc while a call streamed: pi records the answer, aborted, with the call, runs no tool and drops the answer
    before every request.  Read with its call, the repair answered it, and the session it wrote was refused
    when pi sent it (the answer dropped, its receipt left without its call).  Read as pi sends it, nothing is
    missing; on Bedrock the two prompts it leaves side by side are refused as recorded, and the view joins them."""
    partial = answer([{"type": "text", "text": "running"},
                      {"type": "toolCall", "id": "t9", "name": "bash", "arguments": {"command": "npm te"}}],
                     stop="aborted")
    items = (user("test it"), partial, user("just the unit tests"), answer([{"type": "text", "text": "ok"}]))
    [transcript] = load_all(as_bytes(session(*items)), "s.jsonl")
    assert transcript.messages[1]["content"] == []  # (the file keeps them: the entry is written back as it was)
    result = check(transcript)
    assert result.exit_code == 0 and result.report.summary.orphaned_calls == 0
    assert result.providers["anthropic"].before == [] and result.providers["anthropic"].after == []
    on_bedrock = [{**item, "provider": CONVERSE[0], "api": CONVERSE[1], "model": CONVERSE[2]}
                  if item["role"] == "assistant" else item for item in items]
    [transcript] = load_all(as_bytes(session(*on_bedrock)), "s.jsonl")
    result = check(transcript)
    assert [v.rule for v in result.providers["bedrock"].before] == ["roles_not_alternating"]
    assert result.providers["bedrock"].after == [] and result.exit_code == 1


def test_what_the_file_holds_of_an_answer_pi_never_sends() -> None:
    """integrity.formats.read_otherwise: the one fact every screen reads when the message it shows is read otherwise
    than the file holds it (an answer pi drops, read empty)."""
    from integrity.formats import read_otherwise

    held = [{"type": "text", "text": "half"}, {"type": "toolCall", "id": "t1", "name": "read", "arguments": {}}]
    entries = session(user("hi"), answer(held, stop="aborted"), user("again"), answer(held, stop="error"),
                      user("more"), answer([], stop="aborted"), answer([{"type": "text", "text": "ok"}]))
    [transcript] = load_all(as_bytes(entries), "s.jsonl")
    said = [read_otherwise(transcript, index) for index in range(len(transcript.messages))]
    assert [index for index, found in enumerate(said) if found] == [1, 3]
    assert said[1] is not None and said[1][0]["content"] == held and transcript.messages[1]["content"] == []
    assert said[1][1] == ("pi leaves an answer that was aborted out of every request, so it is read empty: the file "
                          "holds 2 block(s) that no model is ever sent")
    assert said[3] is not None and "an answer that ended in an error" in said[3][1]
    [other] = load_all(json.dumps([{"role": "user", "content": "hi"}]).encode(), "a.anthropic.json")
    assert read_otherwise(other, 0) is None
