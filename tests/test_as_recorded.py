"""A file is judged by its own provider on its entries exactly as recorded, and repair fixes the shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run

from integrity import load, validate
from integrity.providers import validate_recorded
from integrity.written import rejected_by_own_provider

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"


@pytest.mark.parametrize("name,provider", [("split_results.bedrock.json", "bedrock")])
def test_results_split_over_two_user_messages_are_rejected_as_recorded_by_the_files_own_provider(
        name: str, provider: str) -> None:
    transcript = load((SAMPLES / name).read_bytes(), name)
    said = validate_recorded(transcript, [provider])[provider]
    assert said and said[0].position.startswith(("messages.1", "messages.2"))
    assert validate(transcript.messages, provider, transcript, as_recorded=True) == said  # one judgement
    assert validate(transcript.messages, provider, transcript) == []  # written afresh (as repair would): accepted
    assert rejected_by_own_provider(transcript)


def test_anthropic_combines_results_split_over_two_user_messages_as_recorded() -> None:
    """Anthropic combines consecutive user messages into one turn (its API reference), so the split
    results answer their calls there: accepted as recorded, and `check` exits 0."""
    name = "split_results.anthropic.json"
    transcript = load((SAMPLES / name).read_bytes(), name)
    assert validate_recorded(transcript, ["anthropic"])["anthropic"] == []
    assert not rejected_by_own_provider(transcript)
    assert run("check", SAMPLES / name).code == 0


@pytest.mark.parametrize("name", ["split_results.bedrock.json"])
def test_check_exits_1_and_repair_writes_the_providers_grouping(name: str, tmp_path: Path) -> None:
    checked = run("check", SAMPLES / name)
    assert checked.code == 1 and "rejected as recorded by" in checked.stdout.decode()
    out = tmp_path / name
    repaired = run("repair", SAMPLES / name, "-o", out)
    assert repaired.code == 0 and "written in the shape the provider takes" in repaired.stderr
    assert run("check", out).code == 0


def test_a_file_its_provider_accepts_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    source = SAMPLES / "healthy.bedrock.json"
    out = tmp_path / "out.json"
    assert run("repair", source, "-o", out).code == 0
    assert out.read_bytes() == source.read_bytes()
    assert not rejected_by_own_provider(load(source.read_bytes(), source.name))


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.*json*")))
def test_the_inspector_states_the_verdict_check_states(name: str) -> None:
    """One source of truth: the page's headline is check's verdict line, word for word, for every sample (its
    provider follows the file as check's target does: none for pi-ai, so no provider's clause is added)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_resource.clear()
    st.cache_data.clear()
    at = AppTest.from_file(str(SAMPLES.parent / "app.py"), default_timeout=60)
    at.query_params["sample"] = name
    at.query_params["policy"] = "strict"
    at.run()
    assert not at.exception
    checked = run("check", SAMPLES / name).stdout.decode().splitlines()[0]
    verdict = checked.split(": ", 1)[1]
    headline = at.code[0].value.splitlines()[0]
    assert headline.split(" ", 1)[1] == verdict, (verdict, headline)


def test_a_repaired_anthropic_request_without_tool_blocks_reads_back_as_anthropic(tmp_path: Path) -> None:
    """Found by the fuzz tests: a block whose type was blanked leaves two strays; once they are dropped the
    written request has no tool blocks, and must still be read as the Anthropic request it is."""
    import json

    data = json.loads((SAMPLES / "crash_duplicate.anthropic.json").read_text())
    data["messages"][1]["content"][0]["type"] = ""
    source, out = tmp_path / "in.json", tmp_path / "out.json"
    source.write_text(json.dumps(data))
    assert run("repair", source, "-o", out).code == 0
    assert load(out.read_bytes(), "out.json").format == "anthropic"
    assert run("check", out).code == 0


def test_a_rejection_the_providers_grouping_does_not_fix_is_written_and_said(tmp_path: Path) -> None:
    """Found by test_fuzz: a Gemini request whose first turn has no role.  The reader takes it for a user
    turn, Gemini's rules do not (a function call must follow a user turn), and writing the provider's own
    grouping keeps the turn as it is: repair used to write it, say it had fixed the grouping and exit 0,
    and `check` then failed on what it wrote.  Now it writes its best view and says on one line (exit 1)
    what `check` still flags."""
    contents = json.loads((SAMPLES / "no_ids.gemini.json").read_bytes())
    del contents["contents"][0]["role"]
    source = tmp_path / "roleless.gemini.json"
    source.write_text(json.dumps(contents), encoding="utf-8")
    assert run("check", source).code == 1
    out = tmp_path / "out.json"
    repaired = run("repair", source, "-o", out)
    assert repaired.code == 1 and out.exists() and not repaired.error_lines
    (line,) = [line for line in repaired.stderr.splitlines() if "still flags it" in line]
    assert "gemini would still reject it: contents[1]" in line
    assert run("check", out).code == 1
    assert "written in the shape the provider takes" not in repaired.stderr


def test_an_empty_tool_calls_array_is_rejected_as_recorded_and_repair_leaves_it_out(tmp_path: Path) -> None:
    """OpenAI refuses `tool_calls: []` (openai-python's parse helper wrote it into many histories)."""
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello", "tool_calls": []},
               {"role": "user", "content": "again"}]
    source = tmp_path / "chat.openai-chat.json"
    source.write_text(json.dumps(history))
    checked = run("check", source)
    assert checked.code == 1 and checked.stdout.decode().splitlines()[0].endswith("rejected as recorded by openai-chat")
    asked = run("check", "--provider", "openai-chat", source).stdout.decode()
    assert "openai-chat as recorded: Invalid 'messages[1].tool_calls': empty array. " \
           "Expected an array with minimum length 1, but got an empty array instead." in asked
    assert "openai-chat after repair: accepted" in asked
    out = tmp_path / "repaired.openai-chat.json"
    repaired = run("repair", source, "-o", out)
    assert repaired.code == 0 and "messages[1].tool_calls left out" in repaired.stderr
    written = json.loads(out.read_bytes())
    assert [message.get("content") for message in written] == ["hi", "hello", "again"]  # the same messages
    assert all("tool_calls" not in message for message in written)
    assert run("check", out).code == 0


def _continued(**envelope: Any) -> bytes:
    return json.dumps({"model": "gpt-4.1", **envelope, "input": [
        {"type": "function_call_output", "call_id": "call_1", "output": "42"}]}).encode()


@pytest.mark.parametrize("envelope", [{"previous_response_id": "resp_123"}, {"conversation": "conv_1"},
                                      {"conversation": {"id": "conv_1"}}])
def test_a_responses_request_continuing_a_stored_response_may_answer_its_calls(envelope: dict[str, Any],
                                                                               tmp_path: Path) -> None:
    """Sending a function's output with previous_response_id is how the API is used: the call is in the
    stored response, not in the file.  It was 'No tool call found' as recorded, and repair dropped the
    output as a stray."""
    source = tmp_path / "continue.json"
    source.write_bytes(_continued(**envelope))
    transcript = load(source.read_bytes(), source.name)
    assert validate_recorded(transcript)["openai-responses"] == []
    checked = run("check", "--provider", "openai-responses", source)
    assert checked.code == 0 and "openai-responses after repair: accepted" in checked.stdout.decode()
    out = tmp_path / "out.json"
    assert run("repair", source, "-o", out).code == 0 and out.read_bytes() == source.read_bytes()


def test_without_a_stored_response_an_output_without_its_call_is_still_a_stray() -> None:
    transcript = load(_continued(), "alone.json")
    [violation] = validate_recorded(transcript)["openai-responses"]
    assert violation.rule == "function_call_output_without_call"


def test_a_continued_request_still_has_its_own_calls_judged() -> None:
    body = json.loads(_continued(previous_response_id="resp_123"))
    body["input"] += [{"role": "user", "content": "and the other"},
                      {"type": "function_call", "call_id": "call_2", "name": "f", "arguments": "{}"},
                      {"role": "user", "content": "hello?"}]
    transcript = load(json.dumps(body).encode(), "mixed.json")
    said = validate_recorded(transcript)["openai-responses"]
    assert [(v.rule, v.call_ids) for v in said] == [("function_call_unanswered", ["call_2"])]


def test_an_output_for_a_call_given_by_item_reference_is_no_stray(tmp_path: Path) -> None:
    """An item_reference stands for a stored item, here the function call the output answers."""
    body = {"model": "gpt-4.1", "input": [{"role": "user", "content": "weather?"},
                                          {"type": "item_reference", "id": "fc_1"},
                                          {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}]}
    transcript = load(json.dumps(body).encode(), "ref.json")
    assert validate_recorded(transcript)["openai-responses"] == []
    from integrity import analyze

    report = analyze(transcript, "strict", provider="openai-responses").report
    assert report.healthy and report.summary.strays == 0
