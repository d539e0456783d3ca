"""A Chat message without content, or of null content, is refused by OpenAI in its words, and the repaired view sends
it with an empty text.

A tool that returned nothing, a turn interrupted before its text, a writer that wrote `content: null` for an
assistant turn without calls: OpenAI answers "Invalid value for 'content': expected a string, got null." (param
`messages.[i].content`), and a `developer` message in its own schema's words.  The reader called such a message
malformed and the verdict said "accepted as recorded by openai-chat" beside it.  What stands in for the content is
the assistant schema's alone: a call, a legacy function_call, a refusal or an audio answer, present and not null.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import check, load_all
from integrity.cli import main
from integrity.guards._core import RequestGuard
from integrity.guards._fast import scan
from integrity.providers import validate_native

NULL = "Invalid value for 'content': expected a string, got null."
USER = {"role": "user", "content": "a"}
CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def rules(request: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(v.rule, v.position, v.error) for v in validate_native(request, "openai-chat")]


@pytest.mark.parametrize("role", ["system", "user", "assistant", "tool"])
@pytest.mark.parametrize("absent", [True, False], ids=["absent", "null"])
def test_a_message_without_content_is_refused_whatever_its_role(role: str, absent: bool) -> None:
    message: dict[str, Any] = {"role": role} if absent else {"role": role, "content": None}
    if role == "tool":
        request = [USER, {"role": "assistant", "tool_calls": [CALL]}, {**message, "tool_call_id": "c1"}]
    else:
        request = [USER, {"role": "assistant", "content": "x"}, message]
    assert rules(request) == [("content_missing", "messages.[2].content", NULL)]


@pytest.mark.parametrize(("field", "value"), [
    ("tool_calls", [CALL]), ("function_call", {"name": "f", "arguments": "{}"}), ("refusal", "no"),
    ("audio", {"id": "a1"})])
def test_what_stands_in_for_an_assistants_content_and_for_no_other_role(field: str, value: Any) -> None:
    assistant = {"role": "assistant", field: value}
    tool = [{"role": "tool", "tool_call_id": "c1", "content": "ok"}] if field == "tool_calls" else []
    assert not any(rule == "content_missing" for rule, _, _ in rules([USER, assistant, *tool]))
    assert ("content_missing", "messages.[1].content", NULL) in rules([USER, {"role": "user", field: value}])
    assert rules([USER, {"role": "assistant", field: None}]) == [("content_missing", "messages.[1].content", NULL)]


@pytest.mark.parametrize("content", ["", []], ids=["empty-text", "empty-array"])
def test_an_empty_text_or_array_is_content(content: Any) -> None:
    assert rules([{"role": "user", "content": content}, {"role": "assistant", "content": content}]) == []


def test_a_developer_message_answers_in_its_own_words_and_the_function_role_is_not_judged() -> None:
    assert rules([{"role": "developer"}, USER]) == [
        ("developer_content_missing", "messages[0].content", "Missing required parameter: 'messages[0].content'.")]
    assert rules([{"role": "developer", "content": None}, USER]) == [
        ("developer_content_null", "messages[0].content", "Invalid type for 'messages[0].content': expected one of a "
         "string or array of objects, but got null instead.")]
    assert rules([USER, {"role": "assistant", "content": "x"}, {"role": "function", "name": "f", "content": None}]) \
        == []


def test_a_tool_result_of_none_is_refused_and_sent_as_an_empty_text(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messages = [{"role": "user", "content": "Remember that I like tea."},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "remember", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": None},
                {"role": "assistant", "content": "Noted."}]
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"model": "gpt-4o", "messages": messages}))
    before = path.read_bytes()
    [transcript] = load_all(before, path.name, format="openai-chat")
    said = check(transcript).providers["openai-chat"]
    assert [(v.position, v.error) for v in said.before] == [("messages.[2].content", NULL)]
    assert said.accepted_after_repair
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines()[0].endswith("rejected as recorded by openai-chat")
    fixed = tmp_path / "fixed.json"
    assert main(["repair", str(path), "-o", str(fixed)]) == 0
    assert 'messages[2].content: null → ""' in capsys.readouterr().err
    assert path.read_bytes() == before
    sent = json.loads(fixed.read_text())["messages"]
    assert sent[2] == {"role": "tool", "tool_call_id": "call_1", "content": ""}
    assert sent[1]["content"] is None  # an assistant turn of calls keeps its null: its calls stand in for it
    assert main(["check", str(fixed)]) == 0


def test_an_assistant_turn_of_null_content_and_no_calls_is_refused_as_recorded_and_left_out_of_the_view() -> None:
    """What vercel/ai#13744 wrote for an assistant of no text and no calls: the view leaves the empty frame out."""
    body = {"model": "gpt-4o", "messages": [USER, {"role": "assistant", "content": None},
                                            {"role": "user", "content": "hello?"}]}
    [transcript] = load_all(json.dumps(body).encode(), "s.json", format="openai-chat")
    said = check(transcript).providers["openai-chat"]
    assert [v.error for v in said.before] == [NULL] and said.accepted_after_repair


def test_the_guards_quick_pass_never_takes_a_system_message_without_content() -> None:
    """The quick pass took a system message of null content as healthy, so a guard sent it as it was; the full
    check's view sends it with an empty text, the caller's request left as it is."""
    request = [{"role": "system", "content": None}, {"role": "user", "content": "hi"}]
    assert scan(request, "openai-chat", "openai-chat")[0] is False
    sent = RequestGuard("test").guard(request, "openai-chat", "openai-chat")
    assert sent is not None and sent[0]["content"] in ("", [])
    assert validate_native(sent, "openai-chat") == []
    assert request[0] == {"role": "system", "content": None}


def test_the_verdict_says_what_repair_writes_not_a_malformed_entry_left_in_place(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The reader called the null content malformed and the verdict said the policy leaves it in place, while
    `repair` wrote it fixed: the provider's rule says it, in its words, and the line says what repair writes (the
    message written in the shape their format's provider takes: integrity.formats.reshaping)."""
    sample = Path(__file__).resolve().parent.parent / "sample_transcripts" / "null_tool_result.openai-chat.json"
    assert main(["check", str(sample)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("repaired: 1 message(s) written in the shape their format's provider takes; "
                                        "rejected as recorded by openai-chat")
    assert "malformed" not in out
    body = json.loads(sample.read_text())
    body["messages"][3]["content"] = [{"temperature": 20}]  # a part the writer cannot type: still malformed
    [transcript] = load_all(json.dumps(body).encode(), "s.json", format="openai-chat")
    assert [finding.kind for finding in check(transcript).findings] == ["invalid_content"]


def test_the_inspector_says_where_as_check_does(capsys: pytest.CaptureFixture[str]) -> None:
    """OpenAI's text names no index: the Inspector's first error line carried the text alone, so it did not say
    which message; it now says it with its position, in the words `check --provider` prints."""
    from inspector.verdict_ui import provider_lines
    from integrity import analyze

    sample = Path(__file__).resolve().parent.parent / "sample_transcripts" / "null_tool_result.openai-chat.json"
    [transcript] = load_all(sample.read_bytes(), sample.name)
    analysis = analyze(transcript, verdicts=["openai-chat"])
    lines = provider_lines(analysis.verdicts["openai-chat"], None, len(transcript.messages))
    assert lines[1] == f"  messages.[3].content: {NULL}"
    assert main(["check", "--provider", "openai-chat", str(sample)]) == 1
    assert f"openai-chat as recorded: messages.[3].content: {NULL}" in capsys.readouterr().out


def test_deepseek_refuses_a_null_content_as_it_reads_the_body() -> None:
    """DeepSeek's serde answer (BigPizzaV3/CodexPlusPlus#1731, quoted whole): the verdict said "healthy" for it once
    the malformed finding was the provider's to say; the repaired view sends the empty text."""
    sample = Path(__file__).resolve().parent.parent / "sample_transcripts" / "null_tool_result.openai-chat.json"
    [transcript] = load_all(sample.read_bytes(), sample.name)
    verdict = check(transcript, provider="deepseek").providers["deepseek"]
    assert [v.error for v in verdict.before] == [
        "Failed to deserialize the JSON body into the target type: messages[3]: content should be a string or a list"]
    assert verdict.accepted_after_repair
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    later = [{"role": "user", "content": [{"type": "text", "text": "look"}, image]}, {"role": "user", "content": None}]
    assert [v.rule for v in validate_native(later, "deepseek")] == ["content_part_not_text"]  # the first read
