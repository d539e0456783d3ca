"""An error result's content, as Anthropic judges it (and Bedrock, for the Claude models behind it): text alone,
and never empty.

Anthropic refuses a `tool_result` marked `is_error` that holds a block that is not text ("all content must be
type `text` if `is_error` is true": a tool that failed and returned a screenshot) or holds nothing ("content cannot
be empty if `is_error` is true").  A pi session that replays such a result is refused on every later request; a
skeleton carries no result content, so such a file is judged on its full request, by every path alike.  Claude
Code strips the blocks before it sends (sanitizeErrorToolResultContent); Inspect sends a failed call's error
message in place of its content.  Each runtime's session is judged on the request it sends.  The view planned for
Anthropic sends such a result with its texts alone ("(no text content)" when it has none): the durable message
keeps its parts, and the report names the change (error_as_text).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import repaired_with_report

from integrity import Transcript, load_all
from integrity.cli import main
from integrity.pipeline import check

A = "anthropic"
IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
NOT_TEXT = "messages.2.content.0.tool_result: all content must be type `text` if `is_error` is true"
EMPTY = "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true"


def _pi(content: list[dict[str, Any]], is_error: bool = True) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "screenshot the login page"}], "timestamp": 1},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "toolu_01", "name": "browser",
                                               "arguments": {"url": "https://example.test/login"}}],
             "stopReason": "toolUse", "timestamp": 2},
            {"role": "toolResult", "toolCallId": "toolu_01", "toolName": "browser", "content": content,
             "isError": is_error, "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": "The page timed out."}], "stopReason": "stop",
             "timestamp": 4}]


@pytest.mark.parametrize(("content", "error"), [
    ([{"type": "text", "text": "Error: timeout"}, IMAGE], NOT_TEXT),
    ([IMAGE], NOT_TEXT),
    ([], EMPTY),
])
def test_a_pi_session_with_such_a_result_is_refused_on_every_path(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  content: list[dict[str, Any]], error: str) -> None:
    """The fast path (a skeleton would say accepted), the general reader, and the CLI say the same."""
    path = tmp_path / "session.json"
    path.write_text(json.dumps(_pi(content)), encoding="utf-8")
    assert main(["check", str(path), "--provider", A]) == 1
    out = capsys.readouterr().out
    assert f"anthropic as recorded: {error}" in out and "rejected as recorded by anthropic" in out, out
    assert "repaired: 1 error result(s) sent as text" in out and "anthropic after repair: accepted" in out, out
    result = check(load_all(path.read_bytes(), str(path))[0], provider=A)
    assert [v.error for v in result.providers[A].before] == [error] and result.providers[A].after == []
    assert result.exit_code == 1 and result.severity.value == "rejected"
    assert main(["check", str(path)]) == 0  # no provider asked: the universal invariants hold
    capsys.readouterr()


@pytest.mark.parametrize(("content", "sent"), [
    ([{"type": "text", "text": "Error: timeout"}, IMAGE, {"type": "text", "text": "at 30 s"}],
     [{"type": "text", "text": "Error: timeout"}, {"type": "text", "text": "at 30 s"}]),
    ([IMAGE], [{"type": "text", "text": "(no text content)"}]),
    ([], [{"type": "text", "text": "(no text content)"}]),
])
def test_repair_sends_the_result_with_its_texts_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      content: list[dict[str, Any]], sent: list[Any]) -> None:
    """`repair --provider anthropic` writes the view (exit 0), the report says what changed and rebuilds the same
    view from the durable messages; the input file is untouched."""
    from integrity import analyze, view_from_report

    messages = _pi(content)
    view, written = repaired_with_report(tmp_path, messages, A)
    assert view[2]["content"] == sent and view[2]["isError"] is True and view[:2] + view[3:] == messages[:2] + \
        messages[3:]
    assert written["summary"]["errors_as_text"] == 1
    action = written["actions"][2]
    assert (action["kind"], action["codes"], action["severity"]) == ("kept", ["error_sent_as_text"], "rejected")
    analysis = analyze(Transcript(messages), provider=A)
    assert view_from_report(analysis.report, messages) == view
    assert main(["check", str(tmp_path / "view.json"), "--provider", A]) == 0  # the view is healthy for Anthropic
    capsys.readouterr()


def test_a_result_split_from_its_frame_is_moved_and_sent_as_text_at_once() -> None:
    """Two repairs on one result: moved back after its frame (a universal invariant) and sent with its text alone
    (Anthropic's rule); the report names both, and Anthropic accepts the view."""
    messages = _pi([{"type": "text", "text": "Error: timeout"}, IMAGE])
    messages.insert(2, {"role": "user", "content": [{"type": "text", "text": "hurry"}], "timestamp": 2})
    result = check(Transcript(messages), provider=A, depth="view")
    assert result.providers[A].after == [] and result.exit_code == 1
    kinds = {(a.durable_index, a.kind.value, tuple(c.value for c in a.codes)) for a in result.report.actions
             if a.codes}
    assert (3, "moved", ("moved", "error_sent_as_text")) in kinds, kinds


def test_the_same_result_is_accepted_when_it_is_no_error_or_holds_text_alone(tmp_path: Path) -> None:
    for messages in (_pi([{"type": "text", "text": "ok"}, IMAGE], is_error=False),
                     _pi([{"type": "text", "text": "Error: timeout"}, {"type": "text", "text": "exit 1"}])):
        path = tmp_path / "session.json"
        path.write_text(json.dumps(messages), encoding="utf-8")
        assert main(["check", str(path), "--provider", A]) == 0


def _claude_code(content: list[dict[str, Any]]) -> bytes:
    base = {"isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": "s-1", "version": "2.0.14"}
    entries = [
        {**base, "parentUuid": None, "type": "user", "uuid": "u1", "timestamp": "2026-03-01T10:00:00.000Z",
         "message": {"role": "user", "content": "screenshot the login page"}},
        {**base, "parentUuid": "u1", "type": "assistant", "uuid": "a1", "timestamp": "2026-03-01T10:00:01.000Z",
         "message": {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "tool_use", "id": "toolu_01Shot", "name": "mcp__browser__screenshot",
                                  "input": {}}], "stop_reason": "tool_use"}},
        {**base, "parentUuid": "a1", "type": "user", "uuid": "u2", "timestamp": "2026-03-01T10:00:02.000Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01Shot",
                                                  "is_error": True, "content": content}]}},
        {**base, "parentUuid": "u2", "type": "assistant", "uuid": "a2", "timestamp": "2026-03-01T10:00:03.000Z",
         "message": {"id": "msg_02", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "The page timed out."}], "stop_reason": "end_turn"}},
    ]
    return "".join(json.dumps(entry) + "\n" for entry in entries).encode()


PNG = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}


def test_claude_code_sends_an_error_result_with_its_texts_alone() -> None:
    """Its sanitizeErrorToolResultContent: the texts joined by a blank line into one block; the file untouched."""
    from integrity.providers.canonical import judged_request

    data = _claude_code([{"type": "text", "text": "Error: timeout"}, PNG, {"type": "text", "text": "at 30 s"}])
    transcript = load_all(data, "session.jsonl")[0]
    assert transcript.format == "claude-code"
    native, _, _ = judged_request(transcript.messages, A, transcript, as_recorded=True)
    assert native[2]["content"][0]["content"] == [{"type": "text", "text": "Error: timeout\n\nat 30 s"}]
    result = check(transcript)
    assert result.exit_code == 0 and result.providers[A].before == []
    assert json.loads(data.splitlines()[2])["message"]["content"][0]["content"][1] == PNG


def test_claude_code_sends_an_error_result_of_an_image_alone_empty_and_is_refused() -> None:
    """With no text left, Claude Code sends the block with no content, which Anthropic refuses in turn; the view
    sends it with "(no text content)", which Anthropic takes."""
    transcript = load_all(_claude_code([PNG]), "session.jsonl")[0]
    result = check(transcript)
    assert [v.error for v in result.providers[A].before] == [EMPTY] and result.exit_code == 1
    assert result.providers[A].after == []


def test_an_inspect_tool_error_is_judged_as_inspect_sends_it() -> None:
    """Inspect sends a failed call's error message, not its (empty) content; the file is written back as read."""
    from integrity.formats import write_bytes

    messages = [{"role": "user", "content": "list /root"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_1", "function": "bash", "arguments": {"cmd": "ls /root"}, "type": "function"}]},
                {"role": "tool", "content": "", "tool_call_id": "call_1", "function": "bash",
                 "error": {"type": "permission", "message": "Permission denied"}},
                {"role": "assistant", "content": "I cannot read /root."}]
    data = json.dumps(messages).encode()
    transcript = load_all(data, "sample.inspect.json")[0]
    assert transcript.format == "inspect"
    assert transcript.messages[2]["content"] == [{"type": "text", "text": "Permission denied"}]
    assert check(transcript, provider=A).providers[A].before == []
    assert json.loads(write_bytes(transcript, list(transcript.messages))) == messages


def test_each_result_sent_as_text_is_counted_once_and_says_only_that() -> None:
    """A dropped duplicate is not sent, so not counted; a result in a view that renames another turn's ids keeps
    its own id and says only that it is sent as text (no rename, no numeric id)."""
    failed = [{"type": "text", "text": "Error: timeout"}, IMAGE]
    messages = _pi(failed)
    messages.insert(3, {**messages[2], "timestamp": 3})  # the same error result recorded twice
    messages += [{"role": "user", "content": [{"type": "text", "text": "again"}], "timestamp": 5},
                 {"role": "assistant", "content": [{"type": "toolCall", "id": "call.2", "name": "browser",
                                                    "arguments": {}}], "stopReason": "toolUse", "timestamp": 6},
                 {"role": "toolResult", "toolCallId": "call.2", "toolName": "browser",
                  "content": [{"type": "text", "text": "ok"}], "isError": False, "timestamp": 7}]
    result = check(Transcript(messages), provider=A, depth="view")
    assert result.providers[A].after == []
    summary = result.report.summary
    assert (summary.errors_as_text, summary.duplicates_dropped, summary.renamed) == (1, 1, 2)
    codes = {a.durable_index: [c.value for c in a.codes] for a in result.report.actions}
    assert codes[2] == ["error_sent_as_text"] and codes[3] == ["second_result"], codes
    assert codes[6] == ["renamed"] and codes[7] == ["renamed"], codes


BEDROCK_EMPTY = "The content field at messages.2.content.0.toolResult cannot be empty when status value is error."


@pytest.mark.parametrize(("content", "error", "sent"), [
    ([], BEDROCK_EMPTY, [{"type": "text", "text": "(no text content)"}]),
    ([IMAGE], NOT_TEXT, [{"type": "text", "text": "(no text content)"}]),
    ([{"type": "text", "text": "Error: timeout"}, IMAGE], NOT_TEXT, [{"type": "text", "text": "Error: timeout"}]),
])
def test_bedrock_refuses_such_a_result_as_claude_behind_it_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: list[dict[str, Any]], error: str,
        sent: list[Any]) -> None:
    """Bedrock Converse refuses an error toolResult with no content in its own words (aws-samples/...#15), and one
    holding an image in Claude's, relayed (can1357/oh-my-pi#12809), on every path (the fast path of a pi session,
    the general reader of a Bedrock request); the view planned for Bedrock sends such a result with its texts
    alone, as for Anthropic, and the report rebuilds it."""
    from integrity import analyze, view_from_report

    path = tmp_path / "session.json"
    messages = _pi(content)
    path.write_text(json.dumps(messages), encoding="utf-8")
    assert main(["check", str(path), "--provider", "bedrock"]) == 1
    out = capsys.readouterr().out
    assert f"bedrock as recorded: {error}" in out and "bedrock after repair: accepted" in out, out
    result = check(load_all(path.read_bytes(), str(path))[0], provider="bedrock", depth="view")
    assert result.providers["bedrock"].after == [] and result.report.summary.errors_as_text == 1
    view, written = repaired_with_report(tmp_path, messages, "bedrock")
    assert view[2]["content"] == sent and view[2]["isError"], view[2]
    assert written["actions"][2]["codes"] == ["error_sent_as_text"], written["actions"][2]
    assert view_from_report(analyze(Transcript(messages), provider="bedrock").report, messages) == view
    request = [{"role": "user", "content": [{"text": "screenshot the login page"}]},
               {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "browser", "input": {}}}]},
               {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "status": "error", "content": [
                   {"text": part["text"]} if part["type"] == "text" else
                   {"image": {"format": "png", "source": {"bytes": part["data"]}}} for part in content]}}]}]
    native = tmp_path / "request.bedrock.json"
    native.write_text(json.dumps(request), encoding="utf-8")
    said = check(load_all(native.read_bytes(), str(native))[0], provider="bedrock")
    assert [v.error for v in said.providers["bedrock"].before] == [error]
    capsys.readouterr()
