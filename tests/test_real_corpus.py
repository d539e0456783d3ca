"""The real-shape corpus (tests/real, see its SOURCES.md): every file read as its project writes it.

For every file: the format it is detected as, the transcripts it holds (threads,
samples, attempts, abandoned branches), calls and unanswered calls per transcript,
the worst severity, whether the providers that matter accept it as recorded, and the
exit code of `check`.  The expectations are what each file was written to show (see
SOURCES.md), not a recording of the tool's output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from integrity import analyze, load_all
from integrity.cli import main
from integrity.kinds import FAILING, Severity
from integrity.loading import TranscriptError
from integrity.pipeline import unjudged

REAL = Path(__file__).resolve().parent / "real"
FILES = sorted(p.name for p in REAL.iterdir() if p.name != "SOURCES.md")

OK, LOSSY, REJECTED, MALFORMED, NORMALIZED = (Severity.INFO, Severity.LOSSY, Severity.REJECTED, Severity.MALFORMED,
                                              Severity.NORMALIZED)
ACCEPT, REJECT = "accept", "reject"


@dataclass
class T:
    """One transcript of a file: its name, calls, unanswered calls, worst severity, provider verdicts."""

    name: str
    calls: int
    orphans: int = 0
    severity: Severity = OK
    providers: dict[str, str] = field(default_factory=dict)
    checked: bool = True


@dataclass
class File:
    format: str
    transcripts: list[T]
    exit: int


@dataclass
class Refused:
    needles: tuple[str, ...]
    exit: int = 2


def healthy(name: str, calls: int, *providers: str) -> T:
    return T(name, calls, 0, OK, dict.fromkeys(providers, ACCEPT))


def broken(name: str, calls: int, orphans: int, *providers: str) -> T:
    return T(name, calls, orphans, REJECTED, dict.fromkeys(providers, REJECT))


def answered_as_sent(name: str, calls: int, orphans: int, *providers: str) -> T:
    """A transcript whose unanswered call its runtime answers as it sends it: the providers accept the request it
    sends, and the call still has no result of its own (lossy)."""
    return T(name, calls, orphans, LOSSY, dict.fromkeys(providers, ACCEPT))


def branch(name: str, calls: int, orphans: int) -> T:
    return T(name, calls, orphans, REJECTED if orphans else OK, checked=False)


A, R, C, G = "anthropic", "openai-responses", "openai-chat", "gemini"

EXPECTED: dict[str, File | Refused] = {
    # Claude Code
    "cc_healthy_parallel.claude-code.jsonl": File("claude-code", [healthy("main", 3, A)], 0),
    "cc_sidechain.claude-code.jsonl": File(
        "claude-code", [healthy("main", 1, A), healthy("sidechain:a3f9c2d1", 2, A)], 0),
    "cc_sidechain_interrupted.claude-code.jsonl": File(
        "claude-code", [healthy("main", 1, A), broken("sidechain:a3f9c2d1", 2, 1, A)], 1),
    "agent-5e8d1b2c.claude-code.jsonl": File("claude-code", [healthy("sidechain:5e8d1b2c", 1, A)], 0),
    "cc_rewind.claude-code.jsonl": File(
        "claude-code", [healthy("main", 2, A), branch("branch:aaac19ec-70e5-5b15-9f95-24f7ca862d16", 2, 1)], 0),
    "cc_compacted.claude-code.jsonl": File("claude-code", [healthy("main", 1, A), branch("compacted:1", 1, 0)], 0),
    "cc_compacted_interrupted.claude-code.jsonl": File(
        "claude-code", [healthy("main", 1, A), branch("compacted:1", 1, 1)], 0),
    "cc_torn_last_line.claude-code.jsonl": File("claude-code", [T("main", 1, 0, MALFORMED, {A: ACCEPT})], 1),
    # a half-written line in the middle: Claude Code (since 2.1.121) leaves it out when it resumes, and so do we
    "cc_bad_middle_line.claude-code.jsonl": File("claude-code", [T("main", 1, 0, MALFORMED, {A: ACCEPT})], 1),
    "cc_spliced_line.claude-code.jsonl": File("claude-code", [T("main", 2, 0, MALFORMED, {A: ACCEPT})], 1),
    # a pasted screenshot alone in a user message: Claude Code sends it to Anthropic, so the message is not empty
    "cc_pasted_image.claude-code.jsonl": File("claude-code", [healthy("main", 1, A)], 0),
    # a prompt typed while parallel tools ran, recorded between their results: Claude Code merges the user entries,
    # results first, before each request (the model answered it)
    "cc_queued_prompt_parallel.claude-code.jsonl": File("claude-code", [T("main", 3, 0, NORMALIZED, {A: ACCEPT})], 0),
    # Esc after a response streamed "\n\n" and nothing else: Claude Code leaves such an answer out of every request
    # (the blank answer is no defect by the universal invariants; the view for Anthropic, the file's target, leaves it
    # out, as Claude Code: normalized)
    "cc_interrupted_blank_answer.claude-code.jsonl": File("claude-code", [T("main", 1, 0, NORMALIZED, {A: ACCEPT})], 0),
    "cc_error_screenshot.claude-code.jsonl": File("claude-code", [T("main", 1, 0, REJECTED, {A: REJECT})], 1),
    # a tool named by a whole shell command (201 characters), answered "No such tool available": Anthropic refuses
    # the name in every later request; the view cuts it to 200
    "cc_tool_name_too_long.claude-code.jsonl": File("claude-code", [T("main", 2, 0, REJECTED, {A: REJECT})], 1),
    "cc_summaries_only.claude-code.jsonl": Refused(("no conversation messages", "closest", "claude-code")),
    "cc_web_loglines.claude-code.json": File("claude-code", [healthy("main", 2, A)], 0),
    "cc_web_loglines_interrupted.claude-code.json": File("claude-code", [broken("main", 2, 1, A)], 1),
    "cc_sdk_stream_subagent.claude-code.jsonl": File(
        "claude-code", [healthy("main", 1, A), healthy("subagent:toolu_01SdkTask000000000000001", 1, A)], 0),
    # pi and openclaw sessions
    "pi_healthy.pi-session.jsonl": File("pi-session", [healthy("main", 3, A)], 0),
    # a call left alone (the answer after it was aborted, then the user typed on): pi answers it "No result
    # provided" as it sends the session (transformMessages), so Anthropic takes the request; exit 1 for the lost result
    "pi_aborted_call.pi-session.jsonl": File("pi-session", [answered_as_sent("main", 2, 1, A)], 1),
    "pi_tree_branch.pi-session.jsonl": File("pi-session", [healthy("main", 2, A), branch("branch:538453d7", 2, 1)], 0),
    "pi_v1_linear.pi-session.jsonl": File("pi-session", [healthy("main", 1, A)], 0),
    "pi_torn_last_line.pi-session.jsonl": File("pi-session", [T("main", 1, 0, MALFORMED, {A: ACCEPT})], 1),
    "pi_compaction.pi-session.jsonl": File("pi-session", [healthy("main", 1, A), branch("compacted:1", 1, 0)], 0),
    # a failed cell's error result holding its screenshot, on Bedrock: Claude behind Converse refuses it as Anthropic
    # does; the session names its model (amazon-bedrock, bedrock-converse-stream), so check alone judges it by
    # Bedrock's rules, as pi sends it: rejected as recorded, exit 1 (it was "healthy" while no provider was read)
    "pi_bedrock_error_screenshot.pi-session.jsonl": File(
        "pi-session", [T("main", 1, 0, REJECTED, {"bedrock": REJECT, A: REJECT, C: ACCEPT})], 1),
    # its ids ("call_oc1|fc_...") are OpenAI Responses' call|item pairs; its answers are openai-codex's, so OpenAI
    # Responses judges it, as pi sends it (the two ids apart: pi_responses).  Asked, Anthropic takes it as pi sends
    # it another model's calls, the "|" made "_" (pi_foreign); it was refused for the "|" our writer sent
    "openclaw_healthy.openclaw.jsonl": File("openclaw", [T("main", 2, 0, OK, {R: ACCEPT, A: ACCEPT})], 0),
    # real-length joined ids (83 characters): refused as "string too long" while our writer sent them joined, and
    # by Anthropic and OpenAI Chat while we sent them the ids pi makes anew for another model's calls
    "pi_codex_joined_ids.pi-session.jsonl": File(
        "pi-session", [T("main", 2, 0, NORMALIZED, {R: ACCEPT, A: ACCEPT, C: ACCEPT})], 0),
    "pi_codex_unanswered_call.pi-session.jsonl": File("pi-session", [answered_as_sent("main", 1, 1, R, A, C)], 1),
    "openclaw_interrupted_call.openclaw.jsonl": File("openclaw", [answered_as_sent("main", 1, 1, R, A)], 1),
    # Codex
    "codex_rollout.codex.jsonl": File("codex", [healthy("main", 3, R)], 0),
    # codex-rs answers a call without an output "aborted" before every request (normalize.rs): Responses takes it
    "codex_turn_aborted.codex.jsonl": File("codex", [answered_as_sent("main", 2, 1, R)], 1),
    "codex_compacted.codex.jsonl": File("codex", [healthy("main", 1, R), branch("compacted:1", 1, 1)], 0),
    "codex_rolled_back.codex.jsonl": File("codex", [healthy("main", 1, R), branch("branch:rollback-1", 1, 1)], 0),
    "codex_legacy_rollout.codex.jsonl": File("codex", [healthy("main", 1, R)], 0),
    "codex_parallel_out_of_order.codex.jsonl": File("codex", [T("main", 2, 0, NORMALIZED, {R: ACCEPT, C: ACCEPT})], 0),
    "codex_local_shell.codex.jsonl": File("codex", [healthy("main", 1, R)], 0),
    # LangGraph
    "langgraph_messages.langgraph.json": File("langgraph", [healthy("main", 2, C)], 0),
    "langgraph_thread_state_interrupted.langgraph.json": File("langgraph", [broken("main", 1, 1, C)], 1),
    # SWE-agent and mini-swe-agent
    "swe_function_calling.swe-agent.traj": File("swe-agent", [healthy("main", 4, C)], 0),
    "swe_history_list.swe-agent.json": File("swe-agent", [healthy("main", 2, C)], 0),
    "swe_retry_attempts.swe-agent.traj": File(
        "swe-agent", [healthy("main", 4, C), broken("attempt:1", 3, 1, C), healthy("attempt:2", 4, C)], 1),
    "swe_thought_action.swe-agent.traj": File("swe-agent", [healthy("main", 0, C)], 0),
    "mini_text.mini-swe-agent.traj.json": File("mini-swe-agent", [healthy("main", 0, C)], 0),
    "mini_toolcall_limits.mini-swe-agent.traj.json": File("mini-swe-agent", [broken("main", 2, 1, C)], 1),
    # Inspect AI
    "inspect_eval_log.inspect.json": File(
        "inspect", [healthy("sample:1", 1, C), healthy("sample:2", 1, C), healthy("sample:3", 1, C)], 0),
    "inspect_eval_log_epochs.inspect.json": File(
        "inspect", [healthy("sample:crypto-rsa", 1, C), broken("sample:crypto-rsa@2", 1, 1, C),
                    healthy("sample:web-sqli", 1, C), healthy("sample:web-sqli@2", 1, C)], 1),
    "inspect_eval_archive.inspect.eval": File("inspect", [healthy("sample:1", 1, C), healthy("sample:3", 1, C)], 0),
    "inspect_header_only.inspect.eval": Refused(("without samples",)),
    "inspect_messages.inspect.json": File("inspect", [healthy("main", 1, C)], 0),
    # OpenHands
    "openhands_trajectory.openhands.json": File("openhands", [healthy("main", 2, C)], 0),
    "openhands_events_stopped.openhands.jsonl": File("openhands", [broken("main", 2, 1, C)], 1),
    # an evaluation's output.jsonl: one transcript per instance, named by its id
    "openhands_eval_output.openhands.jsonl": File(
        "openhands", [healthy("instance:acme__parser-101", 2, C), broken("instance:acme__parser-102", 2, 1, C)], 1),
    # Gemini, a plain chat, not a transcript
    # Gemini answered a request of this shape with HTTP 200: the functionResponse inside the model turn pairs
    "gemini_response_in_model_turn.gemini.json": File("gemini", [healthy("main", 1, G)], 0),
    "plain_text_chat.openai-chat.json": File("openai-chat", [healthy("main", 0, C, A)], 0),
    "unknown_shape.json": Refused(("message 0", "role")),
    # Formats added in issue 26 (see SOURCES.md)
    "anthropic_server_tools.anthropic.json": File("anthropic", [healthy("main", 1, A)], 0),
    "openai_finetune.openai-chat.jsonl": File(
        "openai-chat", [healthy("line:1", 1, C), healthy("line:2", 0, C), healthy("line:3", 2, C)], 0),
    "lone_message.openai-chat.json": File("openai-chat", [broken("main", 1, 1, C)], 1),
    "cc_stream_subagent_roleless.claude-code.jsonl": File(
        "claude-code", [healthy("main", 1, A), healthy("subagent:toolu_01JERPk9VitoHXcysvhY4t26", 1, A)], 0),
    "gemini_cli_session.gemini-cli.json": File("gemini-cli", [healthy("main", 2, G)], 0),
    "gemini_cli_session_interrupted.gemini-cli.json": File("gemini-cli", [broken("main", 2, 1, G)], 1),
    "gemini_cli_session_log.gemini-cli.jsonl": File("gemini-cli", [healthy("main", 3, G)], 0),
    "gemini_cli_session_log_interrupted.gemini-cli.jsonl": File("gemini-cli", [broken("main", 2, 1, G)], 1),
    "gemini_cli_session_log_response_twice.gemini-cli.jsonl": File("gemini-cli", [broken("main", 1, 0, G)], 1),
    "pydantic_ai_history.pydantic-ai.json": File("pydantic-ai", [healthy("main", 2, C)], 0),
    "pydantic_ai_history_cut.pydantic-ai.json": File("pydantic-ai", [broken("main", 2, 1, C)], 1),
    "openai_agents_history.openai-agents.json": File("openai-agents", [healthy("main", 1, R)], 0),
    "openai_agents_run_state_awaiting_approval.openai-agents.json": File(
        "openai-agents", [broken("main", 2, 1, R)], 1),
    "openai_agents_to_input_list.openai-responses.json": File("openai-responses", [healthy("main", 1, R)], 0),
    # a turn stored twice: its reasoning item and call item repeated ("Duplicate item found with id rs_…")
    "responses_turn_stored_twice.openai-responses.json": File(
        "openai-responses", [T("main", 2, 0, REJECTED, {R: REJECT})], 1),
    # Letta's loop agent: system prompt, then the agent's send_message call and its return (no user turn).
    # No single provider reads Letta's files, so the universal invariants decide (healthy, exit 0); Gemini's
    # refusal (a user turn first) is information
    "letta_loop.letta.af": File("letta", [T("main", 1, 0, OK, {C: ACCEPT, G: REJECT})], 0),
    "letta_evie_two_agents.letta.af": File(
        "letta", [healthy("agent:Evie", 0, C), healthy("agent:companion-sleeptime_copy", 0, C)], 0),
    # AutoGen group chat: the critic's context holds two user turns in a row (the task, then the other
    # agent's answer); AutoGen talks to any provider, so the universal invariants decide (healthy, exit 0)
    # and Bedrock's refusal of the two user turns is information
    "autogen_team_state.autogen.json": File(
        "autogen", [healthy("agent:weather_agent", 1, C),
                    T("agent:critic", 0, 0, OK, {C: ACCEPT, "bedrock": REJECT})], 0),
    "autogen_agent_state_cut.autogen.json": File("autogen", [broken("main", 1, 1, C)], 1),
    "cline_sdk_session.cline-sdk.messages.json": File("cline-sdk", [healthy("main", 2, A)], 0),
    "ai_sdk_messages.ai-sdk.json": File("ai-sdk", [healthy("main", 2, C)], 0),
    "ai_sdk_ui_messages.ai-sdk-ui.json": File("ai-sdk-ui", [healthy("main", 3, C)], 0),
    "ai_sdk_ui_messages_stopped.ai-sdk-ui.json": File("ai-sdk-ui", [broken("main", 4, 1, C)], 1),
    "cline_api_conversation_history.anthropic.json": File("anthropic", [healthy("main", 3, A)], 0),
    "cline_ui_messages.json": Refused(("a Cline UI message log (ui_messages.json): no tool calls to check",
                                       "api_conversation_history.json")),
    "aider_chat_history.aider.md": Refused(("an Aider chat history (Markdown): no tool calls to check",)),
    "openhands_v1_events.openhands-v1.json": File("openhands-v1", [healthy("main", 2, C)], 0),
    "openhands_v1_duplicate_observation.openhands-v1.json": File(
        "openhands-v1", [T("main", 2, 0, REJECTED, {C: REJECT})], 1),
}


def test_every_corpus_file_has_expectations_and_a_source() -> None:
    assert len(FILES) >= 40
    assert set(FILES) == set(EXPECTED)
    sources = (REAL / "SOURCES.md").read_text(encoding="utf-8")
    assert [name for name in FILES if f"`{name}`" not in sources] == []
    assert all((REAL / name).stat().st_size < 1_000_000 for name in FILES)


def run_check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if isinstance(e, File)))
def test_file_is_read_and_judged_as_written(name: str) -> None:
    expected = EXPECTED[name]
    assert isinstance(expected, File)
    transcripts = load_all((REAL / name).read_bytes(), name)
    assert [t.name for t in transcripts] == [t.name for t in expected.transcripts]
    for transcript, want in zip(transcripts, expected.transcripts, strict=True):
        where = f"{name}#{transcript.name}"
        assert transcript.format == expected.format, where
        assert transcript.checked == want.checked, where
        analysis = analyze(transcript, verdicts=list(want.providers))
        summary = analysis.report.summary
        assert (summary.calls, summary.orphaned_calls) == (want.calls, want.orphans), where
        assert analysis.report.severity == want.severity, where
        assert analysis.report.healthy == (want.severity not in FAILING), where
        verdicts = {p: (REJECT if v.before else ACCEPT) for p, v in analysis.verdicts.items()}
        assert verdicts == want.providers, where


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_check_exit_code(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_check(capsys, str(REAL / name))
    assert code == EXPECTED[name].exit, out + err
    expected = EXPECTED[name]
    if isinstance(expected, Refused):
        assert out == "" and len(err.splitlines()) == 1
        assert all(needle in err for needle in expected.needles), err
        return
    checked = [t for t in expected.transcripts if t.checked]
    if len(expected.transcripts) > 1:
        for t in checked:
            assert f"{REAL / name}#{t.name}: " in out
        for t in expected.transcripts:
            if not t.checked:
                assert f"#{t.name}: {unjudged(t.name.partition(':')[0])[0]}, " in out
    assert "healthy: 0 messages" not in out


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if isinstance(e, File)))
def test_check_json_names_the_format_and_the_transcript(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    expected = EXPECTED[name]
    assert isinstance(expected, File)
    code, out, _ = run_check(capsys, "--json", str(REAL / name))
    payload = json.loads(out)
    reports = payload if isinstance(payload, list) else [payload]
    # the judged transcripts' reports, then an entry for each listed and never judged (checked: false)
    assert [(r["format"], r["thread"], r.get("checked", True)) for r in reports] == [
        (expected.format, t.name, True) for t in expected.transcripts if t.checked] + [
        (expected.format, t.name, False) for t in expected.transcripts if not t.checked]
    assert code == expected.exit


def test_an_abandoned_branch_is_checked_when_named(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(REAL / "cc_rewind.claude-code.jsonl")
    code, out, _ = run_check(capsys, "--thread", "branch:aaac19ec-70e5-5b15-9f95-24f7ca862d16", path)
    assert code == 1 and "receipt(s) synthesized" in out


def test_skip_bad_lines_reads_on_and_reports_each_skipped_line(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(REAL / "cc_bad_middle_line.claude-code.jsonl")
    code, out, _ = run_check(capsys, "--skip-bad-lines", path)
    assert code == 1
    assert "line 3: not valid JSON" in out and "skipped" in out
    transcripts = load_all((REAL / "cc_bad_middle_line.claude-code.jsonl").read_bytes(), "bad", skip_bad_lines=True)
    assert [(n.code, n.line) for n in transcripts[0].notes] == [("skipped_line", 3)]


def test_a_bad_middle_line_is_left_out_as_claude_code_leaves_it(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --skip-bad-lines: Claude Code leaves a line that is not JSON out when it resumes the session (since
    2.1.121), so its session is read the same way, the line reported as left out by it, not as asked."""
    for name, line in (("cc_bad_middle_line.claude-code.jsonl", 3), ("cc_spliced_line.claude-code.jsonl", 5)):
        code, out, _ = run_check(capsys, str(REAL / name))
        assert code == 1, name
        assert f"line {line}: not valid JSON" in out and "as Claude Code (since 2.1.121) leaves it out" in out, out
        notes = load_all((REAL / name).read_bytes(), name)[0].notes
        assert [(n.code, n.line, n.by) for n in notes] == [("skipped_line", line, "Claude Code (since 2.1.121)")]


@pytest.mark.parametrize(("token", "left_out"), [("NaN", True), ("-Infinity", True), ("1e999", False),
                                                 ("9" * 4400, False), ("[" * 300 + "]" * 300, False)],
                         ids=["nan", "minus-infinity", "overflow", "long-integer", "deep"])
def test_only_a_line_json_parse_refuses_is_left_out_as_claude_code_leaves_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, token: str, left_out: bool) -> None:
    """Claude Code skips a line its JSON.parse refuses: NaN and Infinity are no JSON there either, so the line is left
    out; a number that overflows, a 4,400-digit integer or nesting past 200 levels is JSON that JSON.parse reads and
    this reader does not read back faithfully: the file is refused (exit 2), as any other format's."""
    lines = (REAL / "cc_pasted_image.claude-code.jsonl").read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace('"usage":{', f'"odd":{token},"usage":{{', 1)
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run_check(capsys, str(path))
    if left_out:
        assert code == 1 and "line 4: not valid JSON" in out and "as Claude Code (since 2.1.121) leaves it out" in out
    else:
        assert code == 2 and "line 4, column" in err and "--skip-bad-lines" in err, err


def test_a_bad_middle_line_of_another_format_is_still_refused(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    """No runtime of a plain chat's format is known to leave such a line out: the file is refused, in one line
    that says what the line holds (two records without the newline between them) and how to read on."""
    path = tmp_path / "chat.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "x"}{"role": "user", '
                    '"content": "y"}\n{"role": "user", "content": "again"}\n', encoding="utf-8")
    code, _, err = run_check(capsys, str(path))
    assert code == 2 and err.count("\n") == 1
    assert "line 2, column 38: invalid JSON on this JSONL line: Extra data (a record and the next on one line" in err
    assert "--skip-bad-lines reads the other lines" in err
    with pytest.raises(TranscriptError, match="line 2"):
        load_all(path.read_bytes(), "chat.jsonl")
    assert load_all(path.read_bytes(), "chat.jsonl", skip_bad_lines=True)[0].notes[0].by == ""


def test_a_pasted_image_is_in_the_request_written_for_anthropic() -> None:
    """A Claude Code entry's message is an Anthropic message: its image block (read as an opaque block) is in the
    request the verdict judges and the Inspector shows, as recorded and repaired (it was left out, and the
    message of the image alone judged empty: a public session of entireio/cli's checkpoints showed it)."""
    from integrity.providers.canonical import judged_request

    transcript = load_all((REAL / "cc_pasted_image.claude-code.jsonl").read_bytes(), "image")[0]
    for as_recorded in (True, False):
        native = judged_request(transcript.messages, A, transcript, as_recorded=as_recorded)[0]
        assert [block["type"] for block in native[4]["content"]] == ["image"], native[4]
        assert native[4]["content"][0]["source"]["media_type"] == "image/png"


def test_a_pasted_image_is_sent_to_every_provider_in_its_own_shape() -> None:
    """Read as an image part (Anthropic's base64 block), the screenshot is written by each provider's writer in its
    shape: a Claude Code session judged toward Bedrock (Claude Code on Bedrock) or Gemini keeps it, and its message
    of the image alone is not judged empty (it was: "The content field ... is empty", "parts must not be empty")."""
    from integrity.pipeline import check
    from integrity.providers.canonical import judged_request

    transcript = load_all((REAL / "cc_pasted_image.claude-code.jsonl").read_bytes(), "image")[0]
    for provider, shape in (("bedrock", lambda m: m["content"][0]["image"]["format"] == "png"),
                            ("gemini", lambda m: m["parts"][0]["inlineData"]["mimeType"] == "image/png")):
        result = check(transcript, provider=provider)
        assert result.exit_code == 0 and result.providers[provider].before == [], provider
        native = judged_request(transcript.messages, provider, transcript, as_recorded=True)[0]
        assert shape(native[4]), (provider, native[4])


def test_claude_code_sends_consecutive_user_entries_as_one_message_results_first() -> None:
    """Claude Code merges each run of user entries into one message before every request, its tool_result blocks
    first (normalizeMessagesForAPI): the request judged for its session is written so, as recorded and repaired.
    The prompt queued between two parallel results then follows all three, and Anthropic accepts the history (it
    was judged "tool_use ids were found without tool_result blocks immediately after")."""
    from integrity.providers.canonical import judged_request

    transcript = load_all((REAL / "cc_queued_prompt_parallel.claude-code.jsonl").read_bytes(), "queued")[0]
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "toolResult", "toolResult", "user",
                                                        "toolResult", "assistant"]  # (read as the file lists it)
    for as_recorded in (True, False):
        native, sources, _ = judged_request(transcript.messages, A, transcript, as_recorded=as_recorded)
        assert [m["role"] for m in native] == ["user", "assistant", "user", "assistant"]
        assert [block["type"] for block in native[2]["content"]] == ["tool_result"] * 3 + ["text"]
        assert [block.get("tool_use_id") for block in native[2]["content"][:3]] == [
            "toolu_01QpA1aaaaaaaaaaaaaaaaaa", "toolu_01QpB2bbbbbbbbbbbbbbbbbb", "toolu_01QpC3cccccccccccccccccc"]
        assert sorted(sources[2]) == [2, 3, 4, 5]


def test_positions_in_a_claude_code_error_count_the_merged_messages(tmp_path: Path) -> None:
    """An error's `messages.N` is the position in the request Claude Code sends, where each run of user entries is
    one message: a call left unanswered after the queued prompt is at messages.5, not at the position it would have
    with the three results and the prompt sent as messages of their own."""
    from integrity.pipeline import check

    lines = (REAL / "cc_queued_prompt_parallel.claude-code.jsonl").read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])

    def entry(kind: str, uuid: str, parent: str, content: object) -> str:
        message = {"role": kind, "content": content} if kind == "user" else {**last["message"], "id": f"msg_{uuid}",
                                                                              "content": content}
        return json.dumps({**last, "type": kind, "uuid": uuid, "parentUuid": parent, "message": message})

    lines += [entry("user", "u-add-test", last["uuid"], "go ahead"),
              entry("assistant", "a-run-test", "u-add-test",
                    [{"type": "tool_use", "id": "toolu_01QpD4dddddddddddddddddd", "name": "Bash",
                      "input": {"command": "go test ./..."}}]),
              entry("user", "u-stop", "a-run-test", "stop, use make test")]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = check(load_all(path.read_bytes(), str(path))[0])
    errors = [v.error for v in result.providers[A].before]
    assert errors == ["messages.5: `tool_use` ids were found without `tool_result` blocks immediately after: "
                      "toolu_01QpD4dddddddddddddddddd. Each `tool_use` block must have a corresponding `tool_result` "
                      "block in the next message."], errors
    assert result.providers[A].after == [] and result.exit_code == 1


def test_an_anthropic_file_is_judged_as_its_messages_are_listed() -> None:
    """Only a runtime known to build its own requests (FormatSpec.sends_as: Claude Code, pi toward Anthropic,
    Bedrock, OpenAI Responses and, asked, OpenAI Chat and Gemini, Codex, and goose, whose own pass runs whichever
    provider it talks to) has them written as it sends them: an
    Anthropic Messages file is the request itself, so a prompt recorded between two results of one frame is refused
    there, as Anthropic refuses it."""
    from integrity.formats.registry import FORMAT_SPECS
    from integrity.pipeline import check

    pi = [A, "bedrock", "gemini", "openai-chat", "openai-responses"]
    assert {name: sorted(spec.sends_as) for name, spec in FORMAT_SPECS.items() if spec.sends_as} == {
        "claude-code": [A], "pi-session": pi, "openclaw": pi, "codex": [R], "goose": pi}
    assert {name for name, spec in FORMAT_SPECS.items() if spec.sends_messages} == {"pi-session", "openclaw", "codex",
                                                                                     "goose"}
    assert {name: sorted(spec.model_decides) for name, spec in FORMAT_SPECS.items() if spec.model_decides} == {
        "pi-session": [A, "bedrock", "openai-responses"], "openclaw": [A, "bedrock", "openai-responses"],
        "goose": [A]}
    calls = [{"type": "tool_use", "id": f"toolu_0{n}", "name": "Edit", "input": {}} for n in (1, 2)]
    messages = [{"role": "user", "content": "fix both"}, {"role": "assistant", "content": calls},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"},
                                             {"type": "text", "text": "and test it"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_02", "content": "ok"}]}]
    transcript = load_all(json.dumps(messages).encode(), "request.json")[0]
    assert transcript.format == A
    before = check(transcript).providers[A].before
    assert [v.rule for v in before] == ["tool_result_not_first"], before


def test_claude_code_leaves_an_answer_of_whitespace_alone_out_of_its_request() -> None:
    """Esc pressed after a response streamed "\\n\\n": Claude Code records that answer and leaves it out of every
    request after (filterWhitespaceOnlyAssistantMessages), merging the user entries it separated, so Anthropic never
    sees it ("text content blocks must contain non-whitespace text" was a false rejection). A blank text block in an
    answer that holds more is sent with it, and so is a blank answer with a call."""
    from integrity.formats.claude_code import sent_request
    from integrity.pipeline import check
    from integrity.providers.canonical import judged_request

    transcript = load_all((REAL / "cc_interrupted_blank_answer.claude-code.jsonl").read_bytes(), "blank")[0]
    native, sources, _ = judged_request(transcript.messages, A, transcript, as_recorded=True)
    assert [m["role"] for m in native] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert [block["text"] for block in native[4]["content"]] == [
        "Fetching entire/checkpoints/v1 from fork...\nNo matching commits found. Nothing to sync.",
        "[Request interrupted by user]", 'also: the trailer there is just "Checkpoint:", not "Entire-Checkpoint:"']
    assert sources[4] == [4, 6, 7] and all(5 not in group for group in sources)  # (5: the blank answer)
    assert [block["type"] for block in native[5]["content"]] == ["text", "text"]  # (its "\n\n" then the answer)
    result = check(transcript)  # (its target provider, Anthropic: the view leaves the blank answer out too)
    assert (result.exit_code, result.severity) == (0, NORMALIZED) and result.providers[A].before == []

    blank = {"role": "assistant", "content": [{"type": "text", "text": " \n\u00a0\ufeff"}]}
    with_call = {"role": "assistant", "content": [{"type": "text", "text": "\n"},
                                                  {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]}
    odd = {"role": "assistant", "content": [{"type": "text", "text": "\x1c"}]}  # (no whitespace to JavaScript's trim)
    user = {"role": "user", "content": "go"}
    kept, groups = sent_request([user, blank, user, with_call, odd], [[0], [1], [2], [3], [4]])
    assert kept[1:] == [with_call, odd] and groups == [[0, 2], [3], [4]]
    assert kept[0]["content"] == [{"type": "text", "text": "go"}, {"type": "text", "text": "go"}]


def test_a_text_only_chat_says_how_it_was_read(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_check(capsys, str(REAL / "plain_text_chat.openai-chat.json"))
    assert code == 0 and "format: text-only chat, read as openai-chat" in out


def test_no_corpus_file_is_ever_healthy_with_no_messages() -> None:
    for name in FILES:
        try:
            transcripts = load_all((REAL / name).read_bytes(), name)
        except TranscriptError:
            continue
        assert any(t.messages for t in transcripts), name
