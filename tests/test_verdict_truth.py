"""The target provider decides the verdict; a provider that decides and refuses never leaves it healthy.

The provider-turn-rules lesson's example (a user message right after a tool result) is accepted by OpenAI
Chat and Anthropic and refused by Bedrock and Mistral.  Every call is answered, so no repair changes anything.
Which provider decides (integrity.pipeline.target_provider): the one named, else the one the file's format
implies (a Bedrock request: Bedrock; a Claude Code session: Anthropic), else none, and then the universal
invariants decide: a pi-ai file with this shape is healthy (exit 0), and what Bedrock and Mistral say is
information (`--provider all`), which never turns exit 0 into 1.  The report JSON, `check`'s exit code and
text, and the headline (report.verdict) say the same.
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
from integrity.pipeline import check, target_provider
from integrity.providers import PROVIDERS
from integrity.report import fails_only_as_recorded
from tests.test_strict_properties import broken_transcripts

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"


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
def test_the_lesson_example_is_healthy_with_no_target_and_rejected_for_bedrock(policy: str) -> None:
    transcript = load(_turns_example(), "provider.json")
    assert target_provider(transcript.format) is None  # pi-ai: no single provider reads it
    result = check(transcript, also="all", policy=policy)
    assert {name for name, said in result.providers.items() if said.before} == {"bedrock", "mistral"}
    assert result.healthy and result.exit_code == 0 and result.verdict.startswith("healthy: 5 messages, 1 call,")
    assert result.report.as_recorded is None and "rejected" not in result.verdict  # information, not the verdict
    for refusing in ("bedrock", "mistral"):
        chosen = check(transcript, provider=refusing, policy=policy)
        assert not chosen.healthy and chosen.severity == Severity.REJECTED and chosen.exit_code == 1
        assert f"rejected as recorded by {refusing}" in chosen.verdict


@pytest.mark.parametrize("policy", ["openmaic", "strict"])
def test_verdicts_one_provider_at_a_time_rate_it_as_judged_by_providers_does(policy: str) -> None:
    for provider in (None, "bedrock"):
        analysis = analyze(load(_turns_example(), "provider.json"), policy, provider=provider)
        whole = judged_by_providers(analysis, PROVIDERS).report
        stepwise = with_verdicts(analysis, {name: provider_verdict(analysis, name) for name in PROVIDERS}).report
        assert (stepwise.healthy, stepwise.severity, stepwise.verdict) == \
            (whole.healthy, whole.severity, whole.verdict)
        result = check(analysis.transcript, provider=provider, policy=policy, depth="view")
        assert (result.healthy, result.severity, result.verdict) == (whole.healthy, whole.severity, whole.verdict)
        assert stepwise.healthy == (provider is None)


def test_only_providers_that_accept_it_leave_it_healthy() -> None:
    report = analyze(load(_turns_example(), "provider.json"), "strict", verdicts=["openai-chat", "anthropic"]).report
    assert report.healthy and report.verdict.startswith("healthy: ")


def test_check_text_and_json_say_the_same_and_other_providers_never_change_the_exit(tmp_path: Path) -> None:
    path = tmp_path / "turns.json"
    path.write_bytes(_turns_example())
    text, as_json = run("check", path), run("check", "--json", path)
    report = json.loads(as_json.stdout)
    assert text.code == as_json.code == 0
    assert report["healthy"] is True and text.stdout.decode().splitlines()[0] == f"{path}: {report['verdict']}"
    every = run("check", "--provider", "all", path)
    assert every.code == 0 and every.stdout.decode().splitlines()[0] == f"{path}: {report['verdict']}"
    assert "  bedrock as recorded: " in every.stdout.decode() and "  mistral as recorded: " in every.stdout.decode()
    for_bedrock, as_json = run("check", "--provider", "bedrock", path), run("check", "--json", "--provider",
                                                                           "bedrock", path)
    report = json.loads(as_json.stdout)
    assert for_bedrock.code == as_json.code == 1 and report["severity"] == "rejected"
    assert for_bedrock.stdout.decode().splitlines()[0] == f"{path}: {report['verdict']}"


def test_a_native_request_is_repaired_for_the_provider_its_format_implies(tmp_path: Path) -> None:
    """A Bedrock request (Bedrock decides) whose results are out of call order and followed by a user turn
    Bedrock refuses: with no provider named, the view is planned for Bedrock (the provider the verdict is
    for), so it is repaired, not "would be rejected", and the answer is the one `--provider bedrock` gives."""
    transcript = read_bytes(json.dumps(_user_after_results()).encode(), "in.json")
    bedrock = read_bytes(write_bytes(transcript, transcript.messages, "bedrock"), "in.bedrock.json")
    assert target_provider(bedrock.format) == "bedrock"
    implied, named = check(bedrock), check(bedrock, provider="bedrock")
    assert (implied.verdict, implied.status, implied.exit_code) == (named.verdict, named.status, named.exit_code)
    assert implied.report.provider == "bedrock" and str(implied.status) == "repaired"
    assert implied.verdict.startswith("repaired: 2 result(s) put in call order, 1 turn(s) synthesized")
    assert implied.providers["bedrock"].accepted_after_repair and not implied.providers["bedrock"].accepted_as_recorded
    orphaned = _user_after_results()
    del orphaned[2]  # b unanswered: the view's receipt is needed, the failure is not only the shape
    report = analyze(Transcript(orphaned, "<test>"), "strict", verdicts=True).report
    assert report.verdict.startswith("repaired: 1 receipt(s) synthesized") and not fails_only_as_recorded(report)


def test_a_view_that_only_normalizes_is_not_called_repaired_when_its_provider_still_rejects_it() -> None:
    """Under openmaic (which plans no provider's role order) the same Bedrock request's view leaves Bedrock's
    refusal in place: the verdict says it would be rejected, never "repaired"."""
    transcript = read_bytes(json.dumps(_user_after_results()).encode(), "in.json")
    bedrock = read_bytes(write_bytes(transcript, transcript.messages, "bedrock"), "in.bedrock.json")
    result = check(bedrock, policy="openmaic")
    assert not result.healthy and result.severity == Severity.REJECTED and "repaired" not in result.verdict
    assert "would be rejected" in result.verdict and "rejected as recorded by bedrock" in result.verdict
    assert fails_only_as_recorded(result.report) and str(result.status) == "rejected as recorded"


def test_a_claude_code_session_is_judged_by_anthropic_not_by_bedrocks_turn_rules(tmp_path: Path) -> None:
    """Claude Code sends its history to Anthropic: a user turn after results is fine there (exit 0)."""
    source = tmp_path / "in.claude-code"
    transcript = read_bytes(json.dumps(_user_after_results()).encode(), "in.json")
    source.write_bytes(write_bytes(transcript, transcript.messages, "claude-code"))
    checked = run("check", source)
    assert checked.code == 0 and "accepted as recorded by anthropic" in checked.stdout.decode()
    assert run("check", "--provider", "all", source).code == 0  # Bedrock's refusal is information
    assert run("check", "--provider", "bedrock", source).code == 1  # the user can still ask for Bedrock's view


@pytest.mark.parametrize("format", ["langchain"])
def test_repair_writes_a_view_only_a_chosen_providers_order_of_turns_could_fix(format: str, tmp_path: Path) -> None:
    """The shape is the user's: repair writes the normalized view (exit 0), check on it passes (no provider
    decides a LangChain file) and `--provider bedrock` says Bedrock refuses it; repair --provider bedrock
    plans a view Bedrock takes."""
    source = tmp_path / f"in.{format}"
    transcript = read_bytes(json.dumps(_user_after_results()).encode(), "in.json")
    source.write_bytes(write_bytes(transcript, transcript.messages, format))
    out = tmp_path / f"out.{format}"
    assert run("repair", source, "-o", out).code == 0
    assert run("check", out).code == 0
    refused = run("check", "--provider", "bedrock", out)
    assert refused.code == 1 and "rejected as recorded by bedrock" in refused.stdout.decode()
    for_bedrock = tmp_path / f"bedrock.{format}"
    assert run("repair", "--provider", "bedrock", source, "-o", for_bedrock).code == 0
    assert run("check", "--provider", "bedrock", for_bedrock).code == 0


def test_a_files_own_provider_decides_and_the_others_are_information() -> None:
    plain = run("check", SAMPLES / "healthy.anthropic.json")
    line = plain.stdout.decode().splitlines()[0]
    assert plain.code == 0 and line.endswith("; accepted as recorded by anthropic")
    every = run("check", "--provider", "all", SAMPLES / "healthy.anthropic.json")
    assert every.code == 0 and every.stdout.decode().splitlines()[0] == line
    assert "  bedrock as recorded: " in every.stdout.decode()


def _assert_truthful(report: Any, transcript: Transcript, provider: str | None = None) -> None:
    """healthy never stands next to a refusal by the target; no other provider's refusal changes it."""
    target = target_provider(transcript.format, provider)
    rejected = {name for name, said in (report.as_recorded or {}).items() if said == "rejected"}
    assert report.healthy == (not fails(report.severity))
    if target is not None and target in rejected:
        assert not report.healthy
    assert not report.verdict.startswith("healthy for")  # rated by the target alone: never a qualified healthy


def test_every_sample_is_truthful_about_the_providers_as_recorded() -> None:
    paths = sorted(SAMPLES.glob("*.*json*"))
    assert len(paths) > 20
    for path in paths:
        for transcript in load_all(path.read_bytes(), path.name):
            for policy in ("openmaic", "strict"):
                _assert_truthful(analyze(transcript, policy, verdicts=True).report, transcript)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=broken_transcripts())
def test_no_transcript_is_called_healthy_while_its_target_rejects_it(messages: list[dict[str, Any]]) -> None:
    transcript = Transcript(messages, "<test>")
    for policy in ("openmaic", "strict"):
        _assert_truthful(analyze(transcript, policy, verdicts=True).report, transcript)
        for provider in ("openai-chat", "bedrock"):
            result = check(transcript, provider=provider, policy=policy)
            _assert_truthful(result.report, transcript, provider)
            assert result.healthy or result.exit_code == 1
            if not result.providers[provider].accepted_as_recorded:
                assert not result.healthy
