"""A transcript a provider that counts rejects as recorded is never called healthy.

The provider-turn-rules lesson's example (a user message right after a tool
result) is accepted by OpenAI Chat and Anthropic and rejected by Bedrock and
Mistral.  Every call is answered, so no repair changes anything; what rates it is
the providers' verdict as recorded.  With no provider chosen (a pi-ai file, which
any provider may get) every provider asked counts: it would be rejected, and the
report JSON, `check`'s exit code and text, and the headline (report.verdict) say
so alike.  A file that is one provider's request counts its own provider: healthy
for it, and the verdict names that provider.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run
from hypothesis import HealthCheck, given, settings

from integrity import analyze, load
from integrity.analysis import judged_by_providers, load_all, provider_verdict, with_verdicts
from integrity.formats import read_bytes, write_bytes
from integrity.kinds import Severity, fails
from integrity.loading import Transcript
from integrity.providers import PROVIDERS
from integrity.report import fails_only_as_recorded, own_provider
from tests.test_strict_properties import broken_transcripts

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
REJECTING = "rejected as recorded by bedrock, mistral; accepted by "


def _turns_example() -> bytes:
    from inspector.lessons import LESSONS, example_bytes

    data = example_bytes(next(lesson for lesson in LESSONS if lesson.key == "provider"))
    assert data is not None
    return data


def _user_after_results() -> list[dict[str, Any]]:
    """Two results recorded out of call order (the strict view puts them in order, which no provider needs),
    then a user message right after them."""
    def result(call_id: str) -> dict[str, Any]:
        return {"role": "toolResult", "toolCallId": call_id, "toolName": "read",
                "content": [{"type": "text", "text": call_id.upper()}], "isError": False}

    return [{"role": "user", "content": "read a and b"},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "read", "arguments": {}},
                                              {"type": "toolCall", "id": "b", "name": "read", "arguments": {}}],
             "stopReason": "toolUse"},
            result("b"), result("a"),
            {"role": "user", "content": "now compare them"},
            {"role": "assistant", "content": [{"type": "text", "text": "they differ"}], "stopReason": "stop"}]


@pytest.mark.parametrize("policy", ["openmaic", "strict"])
def test_the_lesson_example_would_be_rejected_with_no_provider_chosen(policy: str) -> None:
    transcript = load(_turns_example(), "provider.json")
    report = analyze(transcript, policy, verdicts=True).report
    assert report.as_recorded is not None
    assert {name for name, said in report.as_recorded.items() if said == "rejected"} == {"bedrock", "mistral"}
    assert not report.healthy and report.severity == Severity.REJECTED
    assert report.verdict.startswith("would be rejected: 5 messages, 1 calls")
    assert "healthy" not in report.verdict and REJECTING in report.verdict


@pytest.mark.parametrize("policy", ["openmaic", "strict"])
def test_verdicts_one_provider_at_a_time_rate_it_as_judged_by_providers_does(policy: str) -> None:
    analysis = analyze(load(_turns_example(), "provider.json"), policy)
    whole = judged_by_providers(analysis, PROVIDERS).report
    stepwise = with_verdicts(analysis, {name: provider_verdict(analysis, name) for name in PROVIDERS}).report
    assert (stepwise.healthy, stepwise.severity, stepwise.verdict) == (whole.healthy, whole.severity, whole.verdict)
    assert not stepwise.healthy


def test_only_providers_that_accept_it_leave_it_healthy() -> None:
    report = analyze(load(_turns_example(), "provider.json"), "strict", verdicts=["openai-chat", "anthropic"]).report
    assert report.healthy and report.verdict.startswith("healthy: ")


def test_check_exits_1_and_its_text_and_json_say_the_same(tmp_path: Path) -> None:
    path = tmp_path / "turns.json"
    path.write_bytes(_turns_example())
    text, as_json = run("check", path), run("check", "--json", path)
    report = json.loads(as_json.stdout)
    assert text.code == as_json.code == 1
    assert report["healthy"] is False and report["severity"] == "rejected"
    assert text.stdout.decode().splitlines()[0] == f"{path}: {report['verdict']}"
    assert report["verdict"].startswith("would be rejected: ") and REJECTING in report["verdict"]


def test_a_view_that_only_normalizes_is_not_called_repaired_when_providers_still_reject_it(tmp_path: Path) -> None:
    transcript = Transcript(_user_after_results(), "<test>")
    report = analyze(transcript, "strict", verdicts=True).report
    assert report.changed and not report.healthy and report.severity == Severity.REJECTED
    assert report.verdict.startswith("would be rejected: ") and "repaired" not in report.verdict
    assert "the view only normalizes: 2 result(s) put in call order" in report.verdict
    assert fails_only_as_recorded(report)
    orphaned = _user_after_results()
    del orphaned[2]  # b unanswered: the view's receipt is needed, the failure is not only the shape
    report = analyze(Transcript(orphaned, "<test>"), "strict", verdicts=True).report
    assert report.verdict.startswith("repaired: 1 receipt(s) synthesized") and not fails_only_as_recorded(report)


def test_a_claude_code_session_is_judged_by_anthropic_not_by_bedrocks_turn_rules(tmp_path: Path) -> None:
    """Claude Code sends its history to Anthropic: a user turn after results is fine there (exit 0)."""
    source = tmp_path / "in.claude-code"
    transcript = read_bytes(json.dumps(_user_after_results()).encode(), "in.json")
    source.write_bytes(write_bytes(transcript, transcript.messages, "claude-code"))
    checked = run("check", source)
    assert checked.code == 0 and ": healthy for anthropic: " in checked.stdout.decode()
    assert run("check", "--provider", "bedrock", source).code == 1  # the user can still ask for Bedrock's view


@pytest.mark.parametrize("format", ["langchain"])
def test_repair_writes_a_view_only_a_chosen_providers_order_of_turns_could_fix(format: str, tmp_path: Path) -> None:
    """The shape is the user's: repair still writes the normalized view (exit 0), and check on it says who
    rejects it (exit 1); --provider bedrock plans a view Bedrock takes."""
    source = tmp_path / f"in.{format}"
    transcript = read_bytes(json.dumps(_user_after_results()).encode(), "in.json")
    source.write_bytes(write_bytes(transcript, transcript.messages, format))
    out = tmp_path / f"out.{format}"
    assert run("repair", source, "-o", out).code == 0
    checked = run("check", out)
    assert checked.code == 1 and REJECTING in checked.stdout.decode()
    for_bedrock = tmp_path / f"bedrock.{format}"
    assert run("repair", "--provider", "bedrock", source, "-o", for_bedrock).code == 0
    assert run("check", "--provider", "bedrock", for_bedrock).code == 0


def test_a_files_own_provider_that_accepts_it_is_named_when_others_reject_it() -> None:
    code = run("check", SAMPLES / "healthy.anthropic.json")
    line = code.stdout.decode().splitlines()[0]
    assert code.code == 0 and ": healthy for anthropic: " in line and REJECTING in line


def _assert_truthful(report: Any) -> None:
    """healthy never stands next to a rejection by a provider that counts, nor unqualified next to any."""
    rejected = {name for name, said in (report.as_recorded or {}).items() if said == "rejected"}
    counting = report.provider or own_provider(report.format)
    assert report.healthy == (not fails(report.severity))
    if report.healthy and rejected:
        assert counting is not None and counting not in rejected
        assert report.verdict.startswith(f"healthy for {counting}: ")
    if rejected and counting is None:
        assert not report.healthy and not report.verdict.startswith("healthy")


def test_every_sample_is_truthful_about_the_providers_as_recorded() -> None:
    paths = sorted(SAMPLES.glob("*.*json*"))
    assert len(paths) > 20
    for path in paths:
        for transcript in load_all(path.read_bytes(), path.name):
            for policy in ("openmaic", "strict"):
                _assert_truthful(analyze(transcript, policy, verdicts=True).report)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=broken_transcripts())
def test_no_transcript_is_called_healthy_while_a_provider_that_counts_rejects_it(
        messages: list[dict[str, Any]]) -> None:
    transcript = Transcript(messages, "<test>")
    for policy in ("openmaic", "strict"):
        _assert_truthful(analyze(transcript, policy, verdicts=True).report)
    _assert_truthful(analyze(transcript, "strict", provider="openai-chat", verdicts=True).report)
