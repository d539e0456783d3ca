"""A history call's tool name, as Anthropic judges it: at least 1 character, at most 200.

A model that emits a whole shell command as a tool name gets the call written to the session, answered "No such
tool available", and every later request refused: "messages.N.content.K.tool_use.name: String should have at most
200 characters" (anthropics/claude-code#94799, #7370, #15695, #23681); resuming replays it.  An empty name breaks
the lower bound.  A skeleton carries names, but the sparse judgment reads the light view, which holds no rule on
them: a file holding such a name is judged on its full request, by every path alike.  The view planned for
Anthropic sends the name cut to 200 characters (an empty one as "unnamed_tool"), keeps the call and its answer,
and the report names the change (tool_name); the durable record keeps the recorded name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import SPECS, Transcript, analyze, load_all, view_from_report
from integrity.cli import main
from integrity.pipeline import check
from integrity.repair.views import NAME_MARK_LIMIT, UNNAMED_TOOL, legal_tool_name

A = "anthropic"
COMMAND = ("cd /srv/apps && grep -rn 'import requests' --include=*.py . | cut -d: -f1 | sort -u | xargs wc -l | "
           "sort -n | tail -20 && python -m pytest tests/test_http.py -k 'timeout or retry' 2>&1 | tail -n40 ; ls")
TOO_LONG = "messages.1.content.1.tool_use.name: String should have at most 200 characters"
EMPTY = "messages.1.content.1.tool_use.name: String should have at least 1 character"


def _pi(name: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "which modules use requests?"}], "timestamp": 1},
            {"role": "assistant", "content": [{"type": "text", "text": "Looking."},
                                              {"type": "toolCall", "id": "toolu_01", "name": name, "arguments": {}}],
             "stopReason": "toolUse", "timestamp": 2},
            {"role": "toolResult", "toolCallId": "toolu_01", "toolName": name, "isError": True,
             "content": [{"type": "text", "text": f"No such tool available: {name}"}], "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": "That was no tool."}], "stopReason": "stop",
             "timestamp": 4},
            {"role": "user", "content": [{"type": "text", "text": "continue"}], "timestamp": 5}]


def test_the_command_is_one_character_over() -> None:
    assert len(COMMAND) == 201


@pytest.mark.parametrize(("name", "error"), [(COMMAND, TOO_LONG), ("", EMPTY)], ids=["too-long", "empty"])
def test_a_refused_name_is_refused_on_every_path(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 name: str, error: str) -> None:
    """The CLI (the fast path's reader) and the dict API say the same: rejected as recorded, repaired, exit 1."""
    path = tmp_path / "session.json"
    path.write_text(json.dumps(_pi(name)), encoding="utf-8")
    assert main(["check", str(path), "--provider", A]) == 1
    out = capsys.readouterr().out
    assert f"anthropic as recorded: {error}" in out and "anthropic after repair: accepted" in out, out
    assert "repaired: 1 tool name(s) cut; rejected as recorded by anthropic" in out, out
    result = check(load_all(path.read_bytes(), str(path))[0], provider=A)
    assert [(v.rule, v.error) for v in result.providers[A].before] == [
        ("tool_use_name_too_long" if name else "tool_use_name_empty", error)]
    assert result.providers[A].after == [] and result.exit_code == 1
    assert main(["check", str(path)]) == 0  # no provider asked: the universal invariants hold
    capsys.readouterr()


@pytest.mark.parametrize("name", ["x" * 200, "Bash", "a"])
def test_a_name_within_the_limit_is_accepted(tmp_path: Path, name: str) -> None:
    path = tmp_path / "session.json"
    path.write_text(json.dumps(_pi(name)), encoding="utf-8")
    assert main(["check", str(path), "--provider", A]) == 0


@pytest.mark.parametrize(("name", "sent", "note"), [
    (COMMAND, COMMAND[:200], "the tool name of 201 characters sent as its first 200"),
    ("", UNNAMED_TOOL, "the empty tool name sent as 'unnamed_tool'"),
], ids=["too-long", "empty"])
def test_repair_sends_a_legal_name_and_keeps_the_call_and_its_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, sent: str, note: str) -> None:
    """`repair --provider anthropic` writes the view (exit 0); only the call's name differs from the durable
    messages; the report names the change and rebuilds the same view; the input file is untouched."""
    messages = _pi(name)
    path, out, report = tmp_path / "session.json", tmp_path / "view.json", tmp_path / "report.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    before = path.read_bytes()
    assert main(["repair", str(path), "--provider", A, "-o", str(out), "--report", str(report)]) == 0
    capsys.readouterr()
    view = json.loads(out.read_bytes())
    assert view[1]["content"][1]["name"] == sent
    view[1]["content"][1]["name"] = name
    assert view == messages
    assert path.read_bytes() == before
    written = json.loads(report.read_bytes())
    assert written["summary"]["tool_names_cut"] == 1
    action = written["actions"][1]
    assert (action["codes"], action["severity"]) == (["tool_name_fixed"], "rejected")
    assert action["reason"].startswith(note), action["reason"]
    analysis = analyze(Transcript(messages), provider=A)
    assert [a.shown_kind.value for a in analysis.report.actions if a.codes] == ["tool_name"]
    rebuilt = view_from_report(analysis.report, messages)
    assert rebuilt[1]["content"][1]["name"] == sent and rebuilt[2:] == messages[2:]
    assert main(["check", str(out), "--provider", A]) == 0  # the view itself is healthy for Anthropic
    capsys.readouterr()


def test_a_name_is_cut_only_for_a_provider_that_limits_it() -> None:
    """No provider but Anthropic sets a limit here: the view planned for another sends the name as recorded."""
    messages = _pi(COMMAND)
    for provider in ("openai-responses", "gemini", "bedrock"):
        result = check(Transcript(messages), provider=provider, depth="view")
        assert not any("tool_name_fixed" in [c.value for c in a.codes] for a in result.report.actions), provider
        assert result.report.summary.tool_names_cut == 0


def test_two_names_in_one_frame_are_each_cut_and_the_rest_of_the_frame_is_kept() -> None:
    messages = _pi(COMMAND)
    messages[1]["content"].append({"type": "toolCall", "id": "toolu_02", "name": "", "arguments": {"a": 1}})
    messages.insert(3, {"role": "toolResult", "toolCallId": "toolu_02", "toolName": "", "isError": True,
                        "content": [{"type": "text", "text": "No such tool available: "}], "timestamp": 3})
    analysis = analyze(Transcript(messages), provider=A)
    view = view_from_report(analysis.report, messages)
    assert [part.get("name") for part in view[1]["content"]] == [None, COMMAND[:200], UNNAMED_TOOL]
    assert view[1]["content"][2]["arguments"] == {"a": 1} and view[2:] == messages[2:]
    assert analysis.report.summary.tool_names_cut == 2
    assert check(Transcript(messages), provider=A).providers[A].after == []


def test_the_mark_limit_is_the_shortest_a_provider_sets() -> None:
    """The fast path marks a file holding a name some provider refuses (repair.views.name_refused): its limit is
    the providers' own, so no refused name goes unmarked (and so unjudged by the sparse path)."""
    limits = [spec.tool_name_limit for spec in SPECS.values() if spec.tool_name_limit is not None]
    assert limits and min(limits) == NAME_MARK_LIMIT
    from integrity.formats.skeleton import NAME_FORMATS

    assert {spec.native_format for spec in SPECS.values() if spec.tool_name_limit is not None} <= NAME_FORMATS


def test_legal_tool_name() -> None:
    assert legal_tool_name("Bash", 200) is None and legal_tool_name("x" * 200, 200) is None
    assert legal_tool_name("x" * 201, 200) == "x" * 200 and legal_tool_name("", 200) == UNNAMED_TOOL
    assert legal_tool_name("é" * 201, 200) == "é" * 200  # characters, not bytes


def test_a_claude_code_session_is_judged_as_it_resumes() -> None:
    """Claude Code replays the recorded name (on `--resume` too): the session is refused at the position of its
    own request, and the view cuts the name."""
    data = (Path(__file__).parent / "real" / "cc_tool_name_too_long.claude-code.jsonl").read_bytes()
    transcript = load_all(data, "session.jsonl")[0]
    assert transcript.format == "claude-code"
    result = check(transcript)
    assert [v.error for v in result.providers[A].before] == [TOO_LONG] and result.providers[A].after == []
    assert result.exit_code == 1
