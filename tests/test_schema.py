"""Schema findings: garbage is never called healthy, and each malformed spot is named where it is.

Every case of the issue's list ("Garbage called healthy") is here, through the
CLI (`check` exits 1, never 0, and names the finding) and through the API
(the finding's code, severity and native position).  Numeric ids: the strict
policy pairs a result with its call by the same value and sends the id as a
string; the reference policy keeps the reference's behaviour and only reports.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cli_inprocess import run as run_in_process

from integrity import Transcript, analyze, load, repair_orphaned_tool_calls, repair_with_report
from integrity._bulk.fast_read import read_fast
from integrity.kinds import FINDINGS, FindingCode, Severity
from integrity.schema import schema_findings

REPO = Path(__file__).resolve().parents[1]


def user(text: str = "go") -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 1}


def call(call_id: Any = "A", name: Any = "grep", **extra: Any) -> dict[str, Any]:
    part = {"type": "toolCall", "id": call_id, "name": name, "arguments": {"q": 1}, **extra}
    return {k: v for k, v in part.items() if v is not _MISSING}


def frame(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(parts), "stopReason": "toolUse", "timestamp": 2}


def result(call_id: Any = "A", name: str = "grep") -> dict[str, Any]:
    message = {"role": "toolResult", "toolCallId": call_id, "toolName": name,
               "content": [{"type": "text", "text": "ok"}], "isError": False, "timestamp": 3}
    return {k: v for k, v in message.items() if v is not _MISSING}


def say(text: str = "done") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop", "timestamp": 4}


_MISSING: Any = object()
HEALTHY = [user(), frame(call()), result(), say()]


def mutated(index: int, **fields: Any) -> list[Any]:
    """HEALTHY with some fields of one message replaced (_MISSING deletes a field)."""
    messages = json.loads(json.dumps(HEALTHY))
    for key, value in fields.items():
        if value is _MISSING:
            del messages[index][key]
        else:
            messages[index][key] = value
    return messages


# (file text, the finding code check must report) for every shape the issue lists
PI_AI_GARBAGE: dict[str, tuple[str, FindingCode]] = {
    "banana-role": (json.dumps([{"role": "banana"}]), FindingCode.UNKNOWN_ROLE),
    "miscased-role": (json.dumps(mutated(3, role="Assistant")), FindingCode.UNKNOWN_ROLE),
    "no-role": (json.dumps(mutated(0, role=_MISSING)), FindingCode.UNKNOWN_ROLE),
    "call-without-id": (json.dumps([user(), frame(call(_MISSING)), say()]), FindingCode.CALL_WITHOUT_ID),
    "call-without-name": (json.dumps([user(), frame(call(name=_MISSING)), result()]), FindingCode.CALL_WITHOUT_NAME),
    "orphan-loses-its-name": (json.dumps([user(), frame(call(name=_MISSING))]), FindingCode.CALL_WITHOUT_NAME),
    "null-call-id": (json.dumps([user(), frame(call(None)), result()]), FindingCode.NON_STRING_ID),
    "integer-call-id": (json.dumps([user(), frame(call(7)), say()]), FindingCode.NON_STRING_ID),
    "integer-result-id": (json.dumps(mutated(2, toolCallId=1)), FindingCode.NON_STRING_ID),
    "result-without-call-id": (json.dumps(mutated(2, toolCallId=_MISSING)), FindingCode.RESULT_WITHOUT_CALL_ID),
    "content-object-user": (json.dumps(mutated(0, content={"text": "go"})), FindingCode.INVALID_CONTENT),
    "content-object-assistant": (json.dumps(mutated(3, content={"a": 1})), FindingCode.INVALID_CONTENT),
    "content-missing-result": (json.dumps(mutated(2, content=_MISSING)), FindingCode.INVALID_CONTENT),
    "text-not-a-string": (json.dumps(mutated(3, content=[{"type": "text", "text": 5}])), FindingCode.INVALID_CONTENT),
    "unknown-part-type": (json.dumps(mutated(3, content=[{"type": "banana"}])), FindingCode.INVALID_CONTENT),
    "arguments-array": (json.dumps([user(), frame(call(arguments=[1, 2])), result()]), FindingCode.INVALID_ARGUMENTS),
    "arguments-string": (json.dumps([user(), frame(call(arguments="{}")), result()]), FindingCode.INVALID_ARGUMENTS),
    "timestamp-string": (json.dumps(mutated(0, timestamp="yesterday")), FindingCode.INVALID_FIELD),
    "stop-reason-unknown": (json.dumps(mutated(3, stopReason="done")), FindingCode.INVALID_FIELD),
    "is-error-string": (json.dumps(mutated(2, isError="no")), FindingCode.INVALID_FIELD),
    "tool-name-number": (json.dumps(mutated(2, toolName=3)), FindingCode.INVALID_FIELD),
    "usage-number": (json.dumps(mutated(1, usage=5)), FindingCode.INVALID_FIELD),
}


def check(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "integrity", "check", *args, str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", sorted(PI_AI_GARBAGE))
def test_check_never_calls_garbage_healthy(tmp_path: Path, name: str) -> None:
    text, code = PI_AI_GARBAGE[name]
    path = tmp_path / "garbage.json"
    path.write_text(text, encoding="utf-8")
    run = check(path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "healthy" not in run.stdout.splitlines()[0]
    report = json.loads(run_in_process("check", "--json", path).stdout)  # the report's content: no process needed
    assert report["healthy"] is False
    assert "traceback" not in (run.stdout + run.stderr).lower()
    if code is FindingCode.INVALID_ARGUMENTS:  # the strict view repairs them (issue 26): sent as {}, not a finding
        assert "repaired: 1 call(s) with invalid arguments repaired" in run.stdout
        assert any("arguments_replaced" in action["codes"] for action in report["actions"])
        assert code.value not in {finding["kind"] for finding in report["findings"]}
        return
    assert f"malformed: {_position_word(code)}" in run.stdout
    assert code.value in {finding["kind"] for finding in report["findings"]}


def _position_word(code: FindingCode) -> str:
    return "message "


@pytest.mark.parametrize("name", sorted(PI_AI_GARBAGE))
def test_every_garbage_case_is_a_malformed_finding_of_the_api(name: str) -> None:
    text, code = PI_AI_GARBAGE[name]
    for policy in ("strict", "openmaic"):
        report = analyze(load(text.encode(), "g.json"), policy).report
        if code is FindingCode.INVALID_ARGUMENTS and policy == "strict":  # repaired by the view, not left in place
            assert report.summary.arguments_repaired == 1 and not report.healthy
            assert not [finding for finding in report.findings if finding.kind == code]
            continue
        found = [finding for finding in report.findings if finding.kind == code]
        assert found and all(finding.severity == Severity.MALFORMED for finding in found)
        assert not report.healthy and report.verdict.split(":")[0] != "healthy"


@pytest.mark.parametrize("name", sorted(PI_AI_GARBAGE))
def test_the_fast_path_declines_what_the_schema_reports(name: str) -> None:
    """The fast reader (integrity._bulk.fast_read) validates the same rules: it never reads a file that has
    a schema finding."""
    assert read_fast(PI_AI_GARBAGE[name][0].encode(), "g.json") is None


def test_the_fast_path_still_reads_well_formed_files() -> None:
    assert read_fast(json.dumps(HEALTHY).encode(), "ok.json") is not None
    assert schema_findings(load(json.dumps(HEALTHY).encode(), "ok.json")) == []


def test_schema_codes_are_registered_as_malformed() -> None:
    for code in (FindingCode.NOT_A_MESSAGE, FindingCode.UNKNOWN_ROLE, FindingCode.INVALID_CONTENT,
                 FindingCode.CALL_WITHOUT_ID, FindingCode.CALL_WITHOUT_NAME, FindingCode.NON_STRING_ID,
                 FindingCode.RESULT_WITHOUT_CALL_ID, FindingCode.INVALID_ARGUMENTS, FindingCode.LONE_MESSAGE,
                 FindingCode.INVALID_FIELD):
        assert FINDINGS[code].severity is Severity.MALFORMED


def test_content_as_an_object_in_a_file_with_nothing_else_is_refused_not_healthy(tmp_path: Path) -> None:
    """Only OpenAI Chat's shape takes an object where the content goes (read as its JSON text), and OpenAI refuses
    it (content_not_text, tests/test_content_object.py): rejected, exit 1, never healthy."""
    path = tmp_path / "one.json"
    path.write_text(json.dumps([{"role": "user", "content": {"x": 1}}]), encoding="utf-8")
    run = check(path)
    assert run.returncode == 1 and run.stdout.splitlines()[0].endswith("rejected as recorded by openai-chat")


def test_absent_bookkeeping_fields_and_null_stop_fields_are_fine() -> None:
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": [{"type": "text", "text": "x"}],
                                                  "stopReason": None, "errorMessage": None}]
    assert schema_findings(Transcript(messages)) == []
    assert read_fast(json.dumps([*messages, *HEALTHY]).encode(), "f.json") is not None


def test_the_pi_agent_extension_roles_are_not_findings() -> None:
    messages = [{"role": "compactionSummary", "summary": "s"}, {"role": "bashExecution", "command": "ls"},
                *HEALTHY, {"role": "system", "content": "rules"}]
    report = analyze(Transcript(messages)).report
    assert report.findings == [] and report.healthy


def test_miscased_role_names_the_right_spelling() -> None:
    [finding] = schema_findings(load(json.dumps(mutated(3, role="Assistant")).encode(), "m.json"))
    assert finding.message.endswith("role 'Assistant' is miscased: the format's role is 'assistant'")


# ---- positions: entry, line and JSON path in the file -------------------------------------------


def test_positions_in_a_json_array_name_the_line_and_path() -> None:
    text = json.dumps([user(), frame(call(None)), result()], indent=1)
    [finding] = schema_findings(load(text.encode(), "a.json"))
    line = next(number for number, content in enumerate(text.splitlines(), 1) if '"role": "assistant"' in content)
    assert (finding.entry, finding.path) == (1, "[1].content[0].id")
    assert finding.line == line - 1  # the entry's opening brace is the line before its first member
    assert finding.message.startswith(f"message 1 (line {finding.line}): 'content[0].id' must be a string, got null")
    assert finding.durable_indices == [1]


def test_positions_in_jsonl_name_the_line() -> None:
    lines = [json.dumps(m) for m in [user(), frame(call()), result(), say()]]
    lines[2] = json.dumps(mutated(2, toolCallId=_MISSING)[2])
    [finding] = schema_findings(load(("\n".join(lines) + "\n").encode(), "s.jsonl"))
    assert (finding.entry, finding.line, finding.path) == (2, 3, "toolCallId")
    assert finding.message == "entry 2 (line 3): 'toolCallId' is missing"


def test_positions_in_an_envelope_use_its_key() -> None:
    text = json.dumps({"model": "m", "messages": [user(), frame(call(arguments=[1])), result()]})
    [finding] = schema_findings(load(text.encode(), "e.json"))
    assert finding.path == "messages[1].content[0].arguments"


def test_schema_findings_come_first_and_serialize_their_positions() -> None:
    report = analyze(load(json.dumps(mutated(2, toolCallId=None)).encode(), "x.json")).report
    first = msgspec.to_builtins(report.findings[0])
    assert first["kind"] == "non_string_id" and first["path"] == "[2].toolCallId" and first["line"] == 1
    # engine findings carry no position fields (reports stay as they were)
    assert all("path" not in msgspec.to_builtins(f) for f in report.findings if f.severity != "malformed")


# ---- other formats: what their readers read on past ----------------------------------------------


def chat_call(arguments: Any = "{}") -> dict[str, Any]:
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": arguments}}]}


NATIVE_GARBAGE: dict[str, tuple[Any, FindingCode, str]] = {
    "chat-role": ([{"role": "user", "content": "hi"}, chat_call(),
                   {"role": "tool", "tool_call_id": "a", "content": "ok"}, {"role": "banana", "content": "x"}],
                  FindingCode.UNKNOWN_ROLE, "[3].role"),
    "chat-arguments": ([{"role": "user", "content": "hi"}, chat_call("[1"),
                        {"role": "tool", "tool_call_id": "a", "content": "ok"}],
                       FindingCode.INVALID_ARGUMENTS, "[1].tool_calls[0].function.arguments"),
    "chat-arguments-not-object": ([{"role": "user", "content": "hi"}, chat_call("[1]"),
                                   {"role": "tool", "tool_call_id": "a", "content": "ok"}],
                                  FindingCode.INVALID_ARGUMENTS, "[1].tool_calls[0].function.arguments"),
    "chat-tool-without-id": ([{"role": "user", "content": "hi"}, chat_call(), {"role": "tool", "content": "ok"}],
                             FindingCode.RESULT_WITHOUT_CALL_ID, "[2].tool_call_id"),
    # (a Chat content that is an object is read as its JSON text and refused by OpenAI Chat's content_not_text, no
    # finding: tests/test_content_object.py)
    "chat-part-text-number": ([{"role": "user", "content": [{"type": "text", "text": 5}]}, chat_call(),
                               {"role": "tool", "tool_call_id": "a", "content": "ok"}],
                              FindingCode.INVALID_CONTENT, "[0].content[0].text"),
    "chat-call-type": ([{"role": "user", "content": "hi"},
                        {"role": "assistant", "content": None, "tool_calls": [
                            {"id": "a", "type": 7, "function": {"name": "f", "arguments": "{}"}}]},
                        {"role": "tool", "tool_call_id": "a", "content": "ok"}],
                       FindingCode.INVALID_CONTENT, "[1].tool_calls[0].type"),
    "responses-status": ({"input": [{"role": "user", "content": "hi"},
                                    {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}",
                                     "status": "done"},
                                    {"type": "function_call_output", "call_id": "a", "output": "ok"}]},
                         FindingCode.INVALID_CONTENT, "input[1].status"),
    "anthropic-text-number": ([{"role": "user", "content": [{"type": "text", "text": 5}]},
                               {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f",
                                                                  "input": {}}]},
                               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a",
                                                             "content": "ok"}]}],
                              FindingCode.INVALID_CONTENT, "[0].content[0].text"),
    "bedrock-result-status": ({"messages": [{"role": "user", "content": [{"text": "hi"}]},
                                            {"role": "assistant", "content": [{"toolUse": {
                                                "toolUseId": "a", "name": "f", "input": {}}}]},
                                            {"role": "user", "content": [{"toolResult": {
                                                "toolUseId": "a", "content": [{"text": "ok"}], "status": 1}}]}]},
                              FindingCode.INVALID_CONTENT, "messages[2].content[0].toolResult.status"),
    "gemini-empty-part": ({"contents": [{"role": "user", "parts": [{"text": "hi"}]},
                                        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                                        {"role": "user", "parts": [{"functionResponse": {"name": "f",
                                                                                         "response": {}}},
                                                                   {"nothing": 1}]}]},
                          FindingCode.INVALID_CONTENT, "contents[2].parts[1]"),
    "anthropic-role": ([{"role": "user", "content": "hi"},
                        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
                        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"}]},
                        {"role": "Assistant", "content": "x"}], FindingCode.UNKNOWN_ROLE, "[3].role"),
    "anthropic-input": ([{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": [1]}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"}]}],
                        FindingCode.INVALID_ARGUMENTS, "[1].content[0].input"),
    "gemini-args": ({"contents": [{"role": "user", "parts": [{"text": "hi"}]},
                                  {"role": "model", "parts": [{"functionCall": {"name": "f", "args": "x"}}]},
                                  {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]},
                    FindingCode.INVALID_ARGUMENTS, "contents[1].parts[0].functionCall.args"),
    "responses-role": ({"input": [{"role": "banana", "content": "hi"},
                                  {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
                                  {"type": "function_call_output", "call_id": "a", "output": "ok"}]},
                       FindingCode.UNKNOWN_ROLE, "input[0].role"),
    "bedrock-role": ({"messages": [{"role": "user", "content": [{"text": "hi"}]},
                                   {"role": "assistant", "content": [{"toolUse": {"toolUseId": "a", "name": "f",
                                                                                  "input": {}}}]},
                                   {"role": "user", "content": [{"toolResult": {"toolUseId": "a",
                                                                                "content": [{"text": "ok"}]}}]},
                                   {"role": "banana", "content": [{"text": "x"}]}]},
                     FindingCode.UNKNOWN_ROLE, "messages[3].role"),
    "langchain-call-id": ([{"type": "human", "data": {"content": "hi"}},
                           {"type": "ai", "data": {"content": "",
                                                   "tool_calls": [{"name": "f", "args": {}, "id": None}]}},
                           {"type": "tool", "data": {"content": "ok", "tool_call_id": "a"}}],
                          FindingCode.NON_STRING_ID, "[1].data.tool_calls[0].id"),
    "langchain-status": ([{"type": "human", "data": {"content": "hi"}},
                          {"type": "ai", "data": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "a"}]}},
                          {"type": "tool", "data": {"content": "ok", "tool_call_id": "a", "status": "fine"}}],
                         FindingCode.INVALID_FIELD, "[2].data.status"),
}


def assert_reported(transcript: Transcript, code: FindingCode, path: str) -> None:
    """The transcript's first finding of `code` is malformed, at `path`, and keeps it from being healthy by the
    universal invariants (a provider that takes what the view repairs may rate it lower: tests/test_kinds.py)."""
    found = [finding for finding in schema_findings(transcript) if finding.kind == code]
    assert found and found[0].path == path and found[0].severity == Severity.MALFORMED
    assert not analyze(transcript, target=False).report.healthy


@pytest.mark.parametrize("name", sorted(NATIVE_GARBAGE))
def test_other_formats_report_what_their_readers_read_on_past(name: str) -> None:
    document, code, path = NATIVE_GARBAGE[name]
    transcript = load(json.dumps(document).encode(), f"{name}.json")
    assert_reported(transcript, code, path)


def test_claude_code_message_entries_are_checked_as_anthropic_messages() -> None:
    entries = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "u2", "parentUuid": "u1",
         "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": 3}]}},
        {"type": "user", "uuid": "u3", "parentUuid": "u2",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}},
    ]
    transcript = load("".join(json.dumps(e) + "\n" for e in entries).encode(), "s.jsonl")
    [finding] = schema_findings(transcript)
    assert (finding.kind, finding.line, finding.path) == ("invalid_arguments", 2, "message.content[0].input")


def test_a_one_entry_claude_code_session_is_not_a_lone_message() -> None:
    entry = {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "hi"}}
    assert schema_findings(load((json.dumps(entry) + "\n").encode(), "s.jsonl")) == []


# ---- numeric ids ----------------------------------------------------------------------------------


NUMERIC = [user(), frame(call(1)), result(1), say()]


def test_strict_pairs_a_numeric_id_with_its_result_and_sends_strings() -> None:
    repair, report = repair_with_report(json.loads(json.dumps(NUMERIC)), now=lambda: 7)
    view = repair.messages
    assert [m["role"] for m in view] == ["user", "assistant", "toolResult", "assistant"]
    assert view[1]["content"][0]["id"] == "1" and view[2]["toolCallId"] == "1"
    assert view[2]["content"] == NUMERIC[2]["content"]  # the real result, never a receipt
    assert repair.repaired_tool_calls == [] and report.summary.strays_dropped == 0
    [pairing] = report.pairings
    assert (pairing.answered_by, pairing.outcome) == (2, "answered")
    assert {f.kind for f in report.findings} == {FindingCode.NON_STRING_ID} and len(report.findings) == 2
    assert not report.healthy
    assert [a.codes for a in report.actions if a.new_ids] == [["numeric_ids_as_text"]] * 2


def test_strict_pairs_numbers_and_their_text_by_value() -> None:
    for call_id, result_id in ((1, "1"), ("1", 1), (2, 2.0)):
        repair, report = repair_with_report([user(), frame(call(call_id)), result(result_id), say()], now=lambda: 7)
        assert len(repair.messages) == 4 and report.summary.synthesized == 0 and report.summary.strays_dropped == 0
        assert repair.messages[1]["content"][0]["id"] == repair.messages[2]["toolCallId"]


def test_an_unanswered_numeric_call_gets_a_receipt_with_the_same_string_id() -> None:
    repair, report = repair_with_report([user(), frame(call(5)), user("later")], now=lambda: 7)
    assert repair.messages[1]["content"][0]["id"] == "5" and repair.messages[2]["toolCallId"] == "5"
    assert repair.repaired_tool_calls == ["5"]


def test_the_reference_policy_keeps_the_reference_behaviour_and_only_reports() -> None:
    messages = json.loads(json.dumps(NUMERIC))
    reference = repair_orphaned_tool_calls(messages, now=lambda: 0)
    repair, report = repair_with_report(messages, now=lambda: 0, policy="openmaic")
    assert repair.messages == reference.messages
    assert FindingCode.NON_STRING_ID in {f.kind for f in report.findings} and not report.healthy


def test_repairing_numeric_ids_gives_a_file_our_check_calls_healthy(tmp_path: Path) -> None:
    source, out = tmp_path / "n.json", tmp_path / "out.json"
    source.write_text(json.dumps(NUMERIC), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "integrity", "repair", str(source), "-o", str(out), "--now", "1"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert check(source).returncode == 1
    assert check(out).returncode == 0


SWE_REAL = sorted(path for path in (REPO / "tests" / "real").iterdir()
                  if path.name.startswith(("swe_", "mini_")))


@pytest.mark.parametrize("path", SWE_REAL, ids=lambda path: path.name)
def test_real_swe_agent_histories_have_no_schema_findings(path: Path) -> None:
    """SWE-agent names a tool message's call in `tool_call_ids`: checked as Chat messages, that is no finding."""
    from integrity.analysis import load_all

    for transcript in load_all(path.read_bytes(), path.name):
        assert transcript.format in ("swe-agent", "mini-swe-agent")
        assert schema_findings(transcript) == []


def _swe_history(tool: dict[str, Any]) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": "find_file", "arguments": '{"f": "a.py"}'}}
    return {"trajectory": [], "info": {}, "history": [
        {"role": "system", "content": "You are a programmer.", "agent": "main", "message_type": "system_prompt"},
        {"role": "user", "content": "Fix the bug.", "agent": "main", "message_type": "observation"},
        {"role": "assistant", "content": "Look.", "agent": "main", "tool_calls": [call], "message_type": "action"},
        {"role": "tool", "content": "found", "agent": "main", "message_type": "observation", **tool}]}


SWE_GARBAGE: dict[str, tuple[dict[str, Any], FindingCode, str]] = {
    "content-strings": ({**_swe_history({"tool_call_ids": ["c1"]})}, FindingCode.INVALID_CONTENT,
                        "history[1].content[0]"),
    "no-call-named": (_swe_history({}), FindingCode.RESULT_WITHOUT_CALL_ID, "history[3].tool_call_ids"),
    "empty-list": (_swe_history({"tool_call_ids": []}), FindingCode.RESULT_WITHOUT_CALL_ID,
                   "history[3].tool_call_ids"),
    "not-a-list": (_swe_history({"tool_call_ids": "c1"}), FindingCode.RESULT_WITHOUT_CALL_ID,
                   "history[3].tool_call_ids"),
    "number-id": (_swe_history({"tool_call_ids": [5]}), FindingCode.NON_STRING_ID, "history[3].tool_call_ids[0]"),
}


@pytest.mark.parametrize("name", sorted(SWE_GARBAGE))
def test_swe_agent_histories_report_what_the_reader_read_on_past(name: str) -> None:
    document, code, path = SWE_GARBAGE[name]
    if name == "content-strings":
        document["history"][1]["content"] = ["Fix the bug."]  # a list of strings, not of content parts
    transcript = load(json.dumps(document).encode(), f"{name}.traj")
    assert transcript.format == "swe-agent"
    assert_reported(transcript, code, path)


def test_a_swe_agent_tool_message_naming_its_call_either_way_is_fine() -> None:
    for tool in ({"tool_call_ids": ["c1"]}, {"tool_call_id": "c1"}, {"tool_call_id": "c1", "tool_call_ids": ["c1"]}):
        transcript = load(json.dumps(_swe_history(tool)).encode(), "ok.traj")
        assert schema_findings(transcript) == [] and analyze(transcript).report.healthy


def test_a_mini_swe_agent_message_with_strings_for_content_is_malformed() -> None:
    document = {"info": {}, "trajectory_format": "mini-swe-agent-1.1", "messages": [
        {"role": "system", "content": "You are a programmer."}, {"role": "user", "content": ["Fix the bug."]},
        {"role": "assistant", "content": "THOUGHT: look\n```bash\nls\n```"}]}
    transcript = load(json.dumps(document).encode(), "run.traj.json")
    assert transcript.format == "mini-swe-agent"
    [finding] = schema_findings(transcript)
    assert (finding.kind, finding.path) == (FindingCode.INVALID_CONTENT, "messages[1].content[0]")


INSPECT_REAL = sorted(path for path in (REPO / "tests" / "real").iterdir()
                      if path.name.startswith("inspect_") and "header_only" not in path.name)


@pytest.mark.parametrize("path", INSPECT_REAL, ids=lambda path: path.name)
def test_real_inspect_messages_have_no_schema_findings(path: Path) -> None:
    from integrity.analysis import load_all

    for transcript in load_all(path.read_bytes(), path.name):
        assert transcript.format == "inspect"
        assert schema_findings(transcript) == []


def _inspect(**changes: Any) -> list[dict[str, Any]]:
    """An Inspect message list (a call answered); changes: position -> fields to set."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a CTF player.", "source": "input"},
        {"role": "user", "content": "Find the flag.", "source": "input"},
        {"role": "assistant", "content": "", "source": "generate", "model": "gpt-4o",
         "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "ls"}, "type": "function"}]},
        {"role": "tool", "content": "flag.txt", "tool_call_id": "c1", "function": "bash", "error": None},
        {"role": "assistant", "content": "The flag is in flag.txt.", "source": "generate"},
    ]
    for position, fields in changes.items():
        messages[int(position[1:])].update(fields)
    return messages


INSPECT_GARBAGE: dict[str, tuple[list[dict[str, Any]], FindingCode, str]] = {
    "content-strings": (_inspect(m1={"content": ["Find the flag."]}), FindingCode.INVALID_CONTENT, "[1].content[0]"),
    "text-number": (_inspect(m1={"content": [{"type": "text", "text": 5}]}), FindingCode.INVALID_CONTENT,
                    "[1].content[0].text"),
    "arguments-text": (_inspect(m2={"tool_calls": [{"id": "c1", "function": "bash", "arguments": "ls"}]}),
                       FindingCode.INVALID_ARGUMENTS, "[2].tool_calls[0].arguments"),
    "error-text": (_inspect(m3={"error": "boom"}), FindingCode.INVALID_CONTENT, "[3].error"),
    "role": (_inspect(m4={"role": "banana"}), FindingCode.UNKNOWN_ROLE, "[4].role"),
}


@pytest.mark.parametrize("name", sorted(INSPECT_GARBAGE))
def test_inspect_messages_report_what_the_reader_read_on_past(name: str) -> None:
    document, code, path = INSPECT_GARBAGE[name]
    transcript = load(json.dumps(document).encode(), f"{name}.json")
    assert transcript.format == "inspect"
    assert_reported(transcript, code, path)


def test_a_well_formed_inspect_list_is_healthy() -> None:
    transcript = load(json.dumps(_inspect()).encode(), "ok.json")
    assert transcript.format == "inspect"
    assert schema_findings(transcript) == [] and analyze(transcript).report.healthy


CODEX_REAL = sorted(path for path in (REPO / "tests" / "real").iterdir() if path.name.startswith("codex_"))


@pytest.mark.parametrize("path", CODEX_REAL, ids=lambda path: path.name)
def test_real_codex_rollouts_have_no_schema_findings(path: Path) -> None:
    """Their reasoning items carry `content: null`, as the Responses API's own model allows."""
    transcript = load(path.read_bytes(), path.name)
    assert transcript.format == "codex"
    assert schema_findings(transcript) == []


def _rollout(changes: dict[int, dict[str, Any]]) -> bytes:
    """A Codex rollout (session line, a call answered); changes: line -> payload fields to set."""
    items: list[dict[str, Any]] = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the test"}]},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "look"}], "content": None,
         "encrypted_content": "gAAA"},
        {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"]}', "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    ]
    lines: list[dict[str, Any]] = [{"timestamp": "2025-10-29T00:59:00Z", "type": "session_meta",
                                    "payload": {"id": "s1", "cwd": "/repo"}}]
    for position, item in enumerate(items, start=1):
        lines.append({"timestamp": "2025-10-29T00:59:01Z", "type": "response_item",
                      "payload": {**item, **changes.get(position, {})}})
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


CODEX_GARBAGE: dict[str, tuple[bytes, FindingCode, str]] = {
    "role": (_rollout({1: {"role": "banana"}}), FindingCode.UNKNOWN_ROLE, "payload.role"),
    "content-strings": (_rollout({1: {"content": ["fix the test"]}}), FindingCode.INVALID_CONTENT,
                        "payload.content[0]"),
    "reasoning-strings": (_rollout({2: {"content": ["x"]}}), FindingCode.INVALID_CONTENT, "payload.content[0]"),
    "arguments": (_rollout({3: {"arguments": "[1"}}), FindingCode.INVALID_ARGUMENTS, "payload.arguments"),
    "output-call-id": (_rollout({4: {"call_id": 5}}), FindingCode.NON_STRING_ID, "payload.call_id"),
}


@pytest.mark.parametrize("name", sorted(CODEX_GARBAGE))
def test_codex_rollouts_report_what_the_reader_read_on_past(name: str) -> None:
    data, code, path = CODEX_GARBAGE[name]
    transcript = load(data, f"{name}.jsonl")
    assert transcript.format == "codex"
    assert_reported(transcript, code, path)


def test_a_well_formed_rollout_is_healthy() -> None:
    transcript = load(_rollout({}), "ok.jsonl")
    assert schema_findings(transcript) == [] and analyze(transcript).report.healthy


def _session_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (REPO / "tests" / "real" / "pi_healthy.pi-session.jsonl").read_text()
            .splitlines() if line.strip()]


def _as_jsonl(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_a_pi_session_message_without_a_string_role_is_read_and_reported_never_dropped() -> None:
    lines = _session_lines()
    at = next(i for i, line in enumerate(lines) if line.get("type") == "message")
    whole = len(load(_as_jsonl(lines), "s.jsonl").messages)
    for broken in (5, None):
        lines[at]["message"]["role"] = broken
        transcript = load(_as_jsonl(lines), "s.jsonl")
        assert len(transcript.messages) == whole  # the message is still there
        [finding] = [f for f in schema_findings(transcript) if f.kind == FindingCode.UNKNOWN_ROLE]
        assert finding.line == at + 1 and not analyze(transcript).report.healthy


@pytest.mark.parametrize("message", [5, None, "missing"])
def test_a_pi_session_message_entry_without_a_message_object_is_an_error_at_its_line(message: Any) -> None:
    from integrity.loading import TranscriptError

    lines = _session_lines()
    at = next(i for i, line in enumerate(lines) if line.get("type") == "message")
    if message == "missing":
        del lines[at]["message"]
    else:
        lines[at]["message"] = message
    with pytest.raises(TranscriptError) as raised:
        load(_as_jsonl(lines), "s.jsonl")
    assert f"line {at + 1}" in str(raised.value) and "'message'" in str(raised.value)


def _real_lines(name: str) -> list[Any]:
    return [json.loads(line) for line in (REPO / "tests" / "real" / name).read_text().splitlines() if line.strip()]


def _first(lines: list[Any], test: Any) -> int:
    return next(index for index, line in enumerate(lines) if test(line))


UNTYPED: dict[str, tuple[str, Any, str, str]] = {
    # case: (real file, which line, the key to break, what to put there ("DEL": remove it))
    "claude-code-type-number": ("cc_healthy_parallel.claude-code.jsonl", lambda line: line.get("type") == "user",
                                "type", 5),
    "claude-code-type-missing": ("cc_sidechain.claude-code.jsonl", lambda line: line.get("type") == "user",
                                 "type", "DEL"),
    "pi-session-type-null": ("pi_healthy.pi-session.jsonl", lambda line: line.get("type") == "message",
                             "type", None),
    "codex-type-missing": ("codex_rollout.codex.jsonl", lambda line: line.get("type") == "response_item",
                           "type", "DEL"),
    "codex-payload-missing": ("codex_rollout.codex.jsonl", lambda line: line.get("type") == "response_item",
                              "payload", "DEL"),
    "openhands-action-number": ("openhands_events_stopped.openhands.jsonl", lambda line: "action" in line,
                                "action", 5),
}


@pytest.mark.parametrize("case", sorted(UNTYPED))
def test_a_line_holding_a_message_without_a_string_kind_is_a_finding_never_a_silent_drop(case: str) -> None:
    """The reader (like the runtime) reads such a line as bookkeeping; the message is then missing from the
    transcript, so a finding must say so at the line, and the transcript is never called healthy."""
    name, which, key, value = UNTYPED[case]
    lines = _real_lines(name)
    at = _first(lines, which)
    whole = sum(len(t.messages) for t in _load_all(_as_jsonl(lines), name))
    if value == "DEL":
        del lines[at][key]
    else:
        lines[at][key] = value
    transcripts = _load_all(_as_jsonl(lines), name)
    assert sum(len(t.messages) for t in transcripts) < whole  # the line is not read as a message...
    found = [f for f in schema_findings(transcripts[0]) if f.kind == FindingCode.NOT_A_MESSAGE]
    assert found and found[0].line == at + 1  # ...and a finding says so, at its line
    assert not analyze(transcripts[0]).report.healthy


def _load_all(data: bytes, name: str) -> list[Transcript]:
    from integrity.analysis import load_all

    return load_all(data, name)


def test_a_line_of_an_unknown_string_kind_is_left_alone() -> None:
    """Runtimes add bookkeeping kinds all the time: an unknown string kind is not a finding."""
    lines = _real_lines("cc_healthy_parallel.claude-code.jsonl")
    lines.append({"type": "queue-operation", "message": {"role": "user", "content": "later"}, "uuid": "q1"})
    transcript = load(_as_jsonl(lines), "s.jsonl")
    assert [f for f in schema_findings(transcript) if f.kind == FindingCode.NOT_A_MESSAGE] == []


def test_a_gemini_content_without_parts_is_the_providers_verdict_not_a_finding() -> None:
    """Gemini's rule parts_empty refuses it (tests/test_gemini_parts_empty.py); the file is not malformed."""
    document = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": []},
                             {"role": "user", "parts": [{"text": "again"}]}]}
    transcript = load(json.dumps(document).encode(), "g.gemini.json")
    assert schema_findings(transcript) == []
    from integrity.pipeline import check as judged

    verdict = judged(transcript)  # (the format's provider, Gemini, decides)
    assert not verdict.healthy and verdict.verdict.endswith("rejected as recorded by gemini")


def test_gemini_snake_case_parts_are_judged_as_their_camel_case_spelling() -> None:
    """The Python SDK's model_dump() (ADK's stored events) spells parts snake_case; the reader reads them,
    so a healthy turn so spelled has no finding, and a bad one the same finding as camelCase."""
    healthy = {"contents": [{"role": "user", "parts": [{"text": "hi"}, {"inline_data": {"mime_type": "image/png",
                                                                                         "data": "AA=="}}]},
                            {"role": "model", "parts": [{"text": "hm", "thought_signature": "c2ln"},
                                                        {"function_call": {"id": "c1", "name": "f", "args": {}}}]},
                            {"role": "user", "parts": [{"function_response": {"id": "c1", "name": "f",
                                                                              "response": {"result": None}}}]}]}
    transcript = load(json.dumps(healthy).encode(), "g.gemini.json")
    assert schema_findings(transcript) == [] and analyze(transcript, target=False).report.healthy
    for part, code, where in (({"function_call": {"id": "c1", "name": "f", "args": "x"}},
                               FindingCode.INVALID_ARGUMENTS, "contents[1].parts[1].function_call.args"),
                              ({"function_call": {"id": "c1", "name": "f", "args": {}}, "inline_data": 5},
                               FindingCode.INVALID_CONTENT, "contents[1].parts[1].inline_data")):
        document = json.loads(json.dumps(healthy))
        document["contents"][1]["parts"][1] = part
        found = schema_findings(load(json.dumps(document).encode(), "g.gemini.json"))
        assert [(f.kind, f.path) for f in found] == [(code, where)]
