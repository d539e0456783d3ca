"""OpenAI refuses a request holding one string above 10,485,760 characters (`string_above_max_length`): a tool
that read a large file leaves such an output in the history, and every later request of the session is refused.

The verdict is the full request's on every path that stands for it: a pi-ai file read by the fast path (its read
marks a message that long: fast_read), a file of another format judged on skeletons (skeleton.read_long_strings),
and a request of the provider's own format judged as recorded; the three agree with the rule set on the written
request.  Anthropic has no such rule on record and takes the same file.  The view planned for OpenAI sends such a
message's texts cut to fit, ending with a note of what is gone (kind text_cut); a call's arguments are not cut."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import check
from integrity.formats import read_bytes, to_native
from integrity.formats.skeleton import LONG_STRING, all_bones, may_hold_long_string, read_long_strings
from integrity.providers import validate_native
from integrity.providers.strings import LIMIT, TOO_LONG

OPENAI = ["openai-chat", "openai-responses"]
POSITION = {"openai-chat": "messages[2].content", "openai-responses": "input[2].output"}


def _pi(path: Path, output: str, arguments: dict[str, Any] | None = None) -> Path:
    messages = [{"role": "user", "content": "read the log", "timestamp": 1},
                {"role": "assistant", "content": [{"type": "toolCall", "id": "call_1", "name": "read",
                                                   "arguments": arguments or {"path": "/var/log/big"}}],
                 "stopReason": "toolUse", "timestamp": 2},
                {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
                 "content": [{"type": "text", "text": output}], "isError": False, "timestamp": 3},
                {"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop",
                 "timestamp": 4}]
    path.write_text(json.dumps(messages))
    return path


def _said(result: Any, provider: str) -> list[str]:
    verdict = result.providers[provider]
    return [v.error for v in verdict.before] + ["|"] + [v.error for v in verdict.after]


@pytest.mark.parametrize("provider", OPENAI)
def test_a_tool_output_above_the_limit_is_refused_on_every_path(provider: str, tmp_path: Path) -> None:
    from cli_inprocess import run

    path = _pi(tmp_path / "session.json", "x" * (LIMIT + 1))
    said = run("check", str(path), "--provider", provider)
    assert said.code == 1, said.stdout.decode()
    error = TOO_LONG.format(param=POSITION[provider], length=LIMIT + 1)
    out = said.stdout.decode()
    assert out.count(error) == 1 and f"{provider} after repair: accepted" in out  # refused as recorded; cut, taken
    assert "repaired: 1 message(s) with texts cut to the provider's limit" in out
    transcript = read_bytes(path.read_bytes(), path.name)
    fast = check(transcript, provider=provider)  # the general reader's transcript, judged on skeletons
    full = check(transcript, provider=provider, depth="view")  # and on the full requests
    assert _said(fast, provider) == _said(full, provider) == [error, "|"]
    assert fast.report.verdict == full.report.verdict
    native = to_native(transcript.messages, provider).messages  # (each provider's format has its name)
    assert [v.error for v in validate_native(native, provider)] == [error]
    assert run("check", str(path), "--provider", "anthropic").code == 0


@pytest.mark.parametrize("provider", OPENAI)
def test_a_string_of_the_limit_is_taken(provider: str, tmp_path: Path) -> None:
    from cli_inprocess import run

    assert run("check", str(_pi(tmp_path / "s.json", "x" * LIMIT)), "--provider", provider).code == 0


def test_arguments_above_the_limit_once_escaped_are_found_by_every_path(tmp_path: Path) -> None:
    """A call's arguments are sent as compact JSON text: 1.8 million control characters are 10.8 million
    characters written (each escaped as \\u0001), above the limit though no string of the file is."""
    from cli_inprocess import run

    arguments = {"data": "\x01" * 1_800_000}
    path = _pi(tmp_path / "args.json", "ok", arguments)
    said = run("check", str(path), "--provider", "openai-chat")
    out = said.stdout.decode()
    assert said.code == 1 and out.count("'messages[1].tool_calls[0].function.arguments': string too long") == 2
    transcript = read_bytes(path.read_bytes(), path.name)  # (arguments are not cut: still refused after repair)
    assert may_hold_long_string(transcript.messages)
    assert _said(check(transcript, provider="openai-chat"), "openai-chat") == \
        _said(check(transcript, provider="openai-chat", depth="view"), "openai-chat")


def test_a_file_of_another_format_is_judged_on_its_full_request(tmp_path: Path) -> None:
    """An Anthropic request holding a huge tool_result, checked toward OpenAI Chat (its skeleton writes no text)."""
    from cli_inprocess import run

    request = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": "x" * (LIMIT + 5)}]}]}
    path = tmp_path / "request.anthropic.json"
    path.write_text(json.dumps(request))
    assert run("check", str(path)).code == 0  # toward Anthropic, its own provider
    said = run("check", str(path), "--provider", "openai-chat")
    assert said.code == 1 and "length 10485765" in said.stdout.decode()


def test_the_mark_is_read_only_for_a_provider_with_the_limit() -> None:
    small = [{"role": "user", "content": "hi"}]
    big = [{"role": "user", "content": "x" * (LIMIT + 1)}]
    for messages, long in ((small, False), (big, True)):
        _, hinted = all_bones(messages)
        read_long_strings(messages, hinted, "anthropic")
        assert LONG_STRING not in hinted
        read_long_strings(messages, hinted, {"openai-chat", "gemini"})
        assert (LONG_STRING in hinted) == long


def test_the_view_cuts_the_texts_keeps_the_head_and_says_what_is_gone(tmp_path: Path) -> None:
    """A result of two texts, each under the limit, joined above it (the writers join a tool output's texts with
    newlines): the first is kept whole, the second cut where the limit falls and ended with the note."""
    from cli_inprocess import run

    from integrity.kinds import RepairKind
    from integrity.notes import NoteCode
    from integrity.repair.messages import CUT_NOTE, IMAGES_AFTER
    from integrity.report import view_from_report

    first, second = "a" * 6_000_000, "b" * 6_000_000
    path = _pi(tmp_path / "two.json", "")
    messages = json.loads(path.read_text())
    messages[2]["content"] = [{"type": "text", "text": first}, {"type": "image", "data": "iVBORw0KGgo=",
                                                                  "mimeType": "image/png"},
                              {"type": "text", "text": second}, {"type": "text", "text": "tail"}]
    path.write_text(json.dumps(messages))
    before = path.read_bytes()
    for provider in OPENAI:
        transcript = read_bytes(before, path.name)
        result = check(transcript, provider=provider, depth="view")
        assert result.providers[provider].before and not result.providers[provider].after
        assert result.report.summary.texts_cut == 1
        [action] = [a for a in result.report.actions if NoteCode.TEXT_CUT in a.codes]
        assert action.durable_index == 2 and action.shown_kind is RepairKind.TEXT_CUT
        sent = result.view[2]["content"]
        if provider == "openai-chat":  # (its image is sent in a user message after the results: images_moved)
            assert result.view[3]["role"] == "user" and result.view[3]["content"][1] == messages[2]["content"][1]
            sent = [sent[0], messages[2]["content"][1], *sent[1:]]
        assert [part["type"] for part in sent] == ["text", "image", "text"]  # the image stays, "tail" is left out
        assert sent[0]["text"] == first and sent[2]["text"].startswith("b" * 1000)
        kept = len(sent[2]["text"]) - len(sent[2]["text"].lstrip("b"))
        assert sent[2]["text"] == "b" * kept + CUT_NOTE.format(count=len(second) - kept + len("tail") + (
            len(IMAGES_AFTER.format(count=1)) if provider == "openai-chat" else 0), limit=LIMIT)
        assert kept > 4_000_000
        assert len(first) + 1 + len(sent[2]["text"]) <= LIMIT
        assert view_from_report(result.report, transcript.messages) == result.view
        assert check(transcript, provider="anthropic", depth="view").view[2] is transcript.messages[2]
    out = tmp_path / "repaired.json"  # `repair` writes the view planned for the provider: OpenAI takes it
    assert run("repair", str(path), "-o", str(out), "--provider", "openai-responses").code == 0
    assert run("check", str(out), "--provider", "openai-responses").code == 0
    assert path.read_bytes() == before  # the durable record is never touched


def test_a_cut_text_is_at_most_the_limit_whatever_it_is() -> None:
    from integrity.repair.messages import cut_texts
    from integrity.repair.views import texts_length

    for content in ("x" * 400, [{"type": "text", "text": "a" * 30}, {"type": "text", "text": "b" * 300}],
                    [{"type": "text", "text": "a" * 159}, {"type": "text", "text": "b" * 5}],
                    [{"type": "toolCall", "id": "c"}, {"type": "text", "text": "c" * 161}]):
        cut = cut_texts(content, 160)
        assert texts_length(cut) <= 160 and cut != content
    assert cut_texts("x" * 160, 160) == "x" * 160


def test_the_light_view_and_the_provider_rule_use_one_limit() -> None:
    from integrity.formats.skeleton import STRING_LIMIT as SKELETON_LIMIT
    from integrity.providers import SPECS
    from integrity.repair.views import STRING_LIMIT as LIGHT_LIMIT

    limits = {spec.string_limit for spec in SPECS.values() if spec.string_limit}
    assert limits == {LIMIT} == {LIGHT_LIMIT} == {SKELETON_LIMIT}
