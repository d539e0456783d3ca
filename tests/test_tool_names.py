"""A history call's tool name, as the providers judge it: Anthropic at least 1 character and at most 200, OpenAI
Chat at most 64 of a-zA-Z0-9_-.

A model that emits a whole shell command as a tool name gets the call written to the session, answered "No such
tool available", and every later request refused: "messages.N.content.K.tool_use.name: String should have at most
200 characters" (anthropics/claude-code#94799, #7370, #15695, #23681); resuming replays it.  An empty name breaks
the lower bound.  A skeleton carries names, but the sparse judgment reads the light view, which holds no rule on
them: a file holding such a name is judged on its full request, by every path alike.  The view planned for
Anthropic sends the name cut to 200 characters (an empty one as "unnamed_tool"), the view planned for OpenAI Chat
its characters outside a-zA-Z0-9_- as "_" and cut to 64; each keeps the call and its answer, and the report names
the change (tool_name); the durable record keeps the recorded name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import repaired_with_report

from integrity import SPECS, Transcript, analyze, load_all, view_from_report
from integrity.cli import main
from integrity.pipeline import check
from integrity.repair.views import NAME_MARK_CHARS, NAME_MARK_LIMIT, UNNAMED_TOOL, legal_tool_name, name_refused

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
    assert "repaired: 1 tool name(s) made legal; rejected as recorded by anthropic" in out, out
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
    (COMMAND, COMMAND[:200], "the tool name of 201 characters sent cut to its first 200"),
    ("", UNNAMED_TOOL, "the empty tool name sent as 'unnamed_tool'"),
], ids=["too-long", "empty"])
def test_repair_sends_a_legal_name_and_keeps_the_call_and_its_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, sent: str, note: str) -> None:
    """`repair --provider anthropic` writes the view (exit 0); only the call's name differs from the durable
    messages; the report names the change and rebuilds the same view; the input file is untouched."""
    messages = _pi(name)
    view, written = repaired_with_report(tmp_path, messages, A)
    assert view[1]["content"][1]["name"] == sent
    view[1]["content"][1]["name"] = name
    assert view == messages
    assert written["summary"]["tool_names_fixed"] == 1
    action = written["actions"][1]
    assert (action["codes"], action["severity"]) == (["tool_name_fixed"], "rejected")
    assert action["reason"].startswith(note), action["reason"]
    analysis = analyze(Transcript(messages), provider=A)
    assert [a.shown_kind.value for a in analysis.report.actions if a.codes] == ["tool_name"]
    rebuilt = view_from_report(analysis.report, messages)
    assert rebuilt[1]["content"][1]["name"] == sent and rebuilt[2:] == messages[2:]
    assert main(["check", str(tmp_path / "view.json"), "--provider", A]) == 0  # the view is healthy for Anthropic
    capsys.readouterr()


def test_a_name_is_cut_only_for_a_provider_that_limits_it() -> None:
    """Only Anthropic, OpenAI Chat and Bedrock judge names here: the view planned for another sends the name as
    recorded."""
    messages = _pi(COMMAND)
    for provider in ("openai-responses", "gemini", "deepseek", "mistral"):
        result = check(Transcript(messages), provider=provider, depth="view")
        assert not any("tool_name_fixed" in [c.value for c in a.codes] for a in result.report.actions), provider
        assert result.report.summary.tool_names_fixed == 0


def test_two_names_in_one_frame_are_each_cut_and_the_rest_of_the_frame_is_kept() -> None:
    messages = _pi(COMMAND)
    messages[1]["content"].append({"type": "toolCall", "id": "toolu_02", "name": "", "arguments": {"a": 1}})
    messages.insert(3, {"role": "toolResult", "toolCallId": "toolu_02", "toolName": "", "isError": True,
                        "content": [{"type": "text", "text": "No such tool available: "}], "timestamp": 3})
    analysis = analyze(Transcript(messages), provider=A)
    view = view_from_report(analysis.report, messages)
    assert [part.get("name") for part in view[1]["content"]] == [None, COMMAND[:200], UNNAMED_TOOL]
    assert view[1]["content"][2]["arguments"] == {"a": 1} and view[2:] == messages[2:]
    assert analysis.report.summary.tool_names_fixed == 2
    assert check(Transcript(messages), provider=A).providers[A].after == []


NAMES = ["Bash", "", "x" * 64, "x" * 65, "x" * 200, "x" * 201, "files.read", "mcp:server/tool", "a b", "é",
         "mcp__playwright__browser_click", "é" * 201, COMMAND]


def test_the_mark_refuses_every_name_a_provider_refuses() -> None:
    """The fast path marks a file holding a name some provider refuses (repair.views.name_refused), which is then
    judged on its full request: no name a provider refuses may go unmarked (and so unjudged by the sparse path),
    and the mark's bounds are the providers' own."""
    rules = {name: spec.tool_names for name, spec in SPECS.items() if spec.tool_names is not None}
    assert set(rules) == {"anthropic", "openai-chat", "bedrock"}
    assert min(rule.limit for rule in rules.values()) == NAME_MARK_LIMIT
    assert {rule.chars for rule in rules.values()} <= {None, NAME_MARK_CHARS}
    for provider, rule in rules.items():
        for name in NAMES:
            legal = legal_tool_name(name, rule.limit, rule.chars)
            if legal is not None:
                assert name_refused(name), (provider, name)
                assert legal_tool_name(legal, rule.limit, rule.chars) is None, (provider, name)
    from integrity.formats.skeleton import MISSING, SKELETONS

    for name in rules:  # the skeleton the rules judge carries the name
        written, _ = SKELETONS[SPECS[name].native_format]([("assistant", (("c1", "files.read"),), MISSING, False)])
        assert "files.read" in json.dumps(written), name


def test_legal_tool_name() -> None:
    assert legal_tool_name("Bash", 200) is None and legal_tool_name("x" * 200, 200) is None
    assert legal_tool_name("x" * 201, 200) == "x" * 200 and legal_tool_name("", 200) == UNNAMED_TOOL
    assert legal_tool_name("é" * 201, 200) == "é" * 200  # characters, not bytes
    assert legal_tool_name("files.read", 200) is None  # Anthropic takes any character
    assert legal_tool_name("files.read", 64, NAME_MARK_CHARS) == "files_read"
    assert legal_tool_name("mcp:server/tool x", 64, NAME_MARK_CHARS) == "mcp_server_tool_x"
    assert legal_tool_name("é" * 65, 64, NAME_MARK_CHARS) == "_" * 64


CHAT_LONG = ("Invalid 'messages[1].tool_calls[0].function.name': string too long. Expected a string with maximum "
             "length 64, but got a string with length {} instead.")
CHAT_PATTERN = ("Invalid 'messages[1].tool_calls[0].function.name': string does not match pattern. Expected a string "
                "that matches the pattern '^[a-zA-Z0-9_-]+$'.")


def _chat(name: str) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "read the notes"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": name, "arguments": '{"path": "notes.md"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "buy milk"},
        {"role": "assistant", "content": "It says: buy milk."},
        {"role": "user", "content": "thanks"}]}


@pytest.mark.parametrize(("name", "rule", "error", "sent"), [
    ("files.read", "function_name_pattern", CHAT_PATTERN, "files_read"),
    ("", "function_name_pattern", CHAT_PATTERN, UNNAMED_TOOL),
    ("x" * 65, "function_name_too_long", CHAT_LONG.format(65), "x" * 64),
    (COMMAND, "function_name_too_long", CHAT_LONG.format(201), None),
], ids=["dotted", "empty", "too-long", "command"])
def test_openai_chat_refuses_a_name_of_other_characters_or_over_64(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, rule: str, error: str, sent: str | None) -> None:
    """A Chat request (its own format: OpenAI Chat is the provider it talks to) is refused as recorded at the call's
    position (mcp-use/mcp-use#90's text); `repair` writes the Chat request with the name made legal (exit 0), which
    `check` then accepts; the input is untouched."""
    path, out = tmp_path / "request.json", tmp_path / "view.json"
    path.write_text(json.dumps(_chat(name)), encoding="utf-8")
    before = path.read_bytes()
    assert main(["check", str(path)]) == 1
    said = capsys.readouterr().out
    assert f"openai-chat as recorded: {error}" in main_detail(path, capsys)  # (its text quotes its position: said once)
    assert "repaired: 1 tool name(s) made legal; rejected as recorded by openai-chat" in said, said
    transcript = load_all(before, str(path))[0]
    assert [(v.rule, v.error) for v in check(transcript).providers["openai-chat"].before] == [(rule, error)]
    assert main(["repair", str(path), "-o", str(out)]) == 0
    capsys.readouterr()
    view = json.loads(out.read_bytes())
    written = view["messages"][1]["tool_calls"][0]["function"]
    assert written["name"] == (sent if sent is not None else legal_tool_name(COMMAND, 64, NAME_MARK_CHARS))
    assert written["arguments"] == '{"path": "notes.md"}' and view["messages"][2:] == _chat(name)["messages"][2:]
    assert path.read_bytes() == before
    assert main(["check", str(out)]) == 0
    capsys.readouterr()


def main_detail(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """`check --provider all` on the file: every provider's verdict, one line each."""
    main(["check", str(path), "--provider", "all"])
    return capsys.readouterr().out


def test_a_name_of_64_legal_characters_is_accepted_by_openai_chat(tmp_path: Path) -> None:
    for name in ("x" * 64, "mcp__playwright__browser_click", "get-weather_2"):
        path = tmp_path / "request.json"
        path.write_text(json.dumps(_chat(name)), encoding="utf-8")
        assert main(["check", str(path)]) == 0, name


def test_a_claude_code_session_is_judged_as_it_resumes() -> None:
    """Claude Code replays the recorded name (on `--resume` too): the session is refused at the position of its
    own request, and the view cuts the name."""
    data = (Path(__file__).parent / "real" / "cc_tool_name_too_long.claude-code.jsonl").read_bytes()
    transcript = load_all(data, "session.jsonl")[0]
    assert transcript.format == "claude-code"
    result = check(transcript)
    assert [v.error for v in result.providers[A].before] == [TOO_LONG] and result.providers[A].after == []
    assert result.exit_code == 1


def _converse(name: str, use_id: str = "tooluse_1") -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"text": "read it"}]},
            {"role": "assistant", "content": [{"text": "reading"},
                                              {"toolUse": {"toolUseId": use_id, "name": name, "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": use_id, "content": [{"text": "ok"}]}}]}]


CLAUSE = "Value at 'messages.2.member.content.2.member.toolUse.name' failed to satisfy constraint: Member must "


@pytest.mark.parametrize(("name", "rule", "clauses"), [
    ("$READFILE", "tool_use_name_pattern", ["satisfy regular expression pattern: [a-zA-Z0-9_-]+"]),
    ("n" * 65, "tool_use_name_too_long", ["have length less than or equal to 64"]),
    ("files.read " * 7, "tool_use_name_too_long",
     ["have length less than or equal to 64", "satisfy regular expression pattern: [a-zA-Z0-9_-]+"]),
    ("", "tool_use_name_pattern",  # (named by its first clause)
     ["satisfy regular expression pattern: [a-zA-Z0-9_-]+", "have length greater than or equal to 1"]),
], ids=["pattern", "too-long", "both", "empty"])
def test_bedrock_answers_every_refused_name_in_one_validation_message(name: str, rule: str,
                                                                       clauses: list[str]) -> None:
    """AWS's one message ("N validation errors detected: ..."; openclaw/openclaw#12892 quotes the two clauses of a
    long dotted name), its positions counting from 1, named by the first clause's rule."""
    from integrity.providers import validate_native

    said = [v for v in validate_native(_converse(name), "bedrock", ids=True) if v.rule.startswith("tool_use_name")]
    count = len(clauses)
    assert [(v.rule, v.position, v.error) for v in said] == [(
        rule, "messages.1.content.1.toolUse.name",
        f"{count} validation {'error' if count == 1 else 'errors'} detected: "
        + "; ".join(CLAUSE + clause for clause in clauses))]


def test_bedrock_lists_a_long_id_and_a_refused_name_in_the_same_message() -> None:
    from integrity.providers import validate_native

    said = [v for v in validate_native(_converse("a.b", "t" * 65), "bedrock", ids=True)
            if v.error.startswith("3 validation")]
    assert len(said) == 1 and said[0].rule == "tool_use_id_too_long", said
    assert said[0].error.count("toolUse.name") == 1 and said[0].error.count("toolUseId") == 2


def test_a_bedrock_session_with_a_hallucinated_name_is_repaired(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """vercel/ai#17781: a `$READFILE` call in history; the view sends "_READFILE", Bedrock then accepts it."""
    path, out = tmp_path / "converse.json", tmp_path / "view.json"
    path.write_text(json.dumps({"modelId": "anthropic.claude-sonnet-4-5", "messages": _converse("$READFILE")}),
                    encoding="utf-8")
    assert main(["check", str(path)]) == 1
    assert "repaired: 1 tool name(s) made legal; rejected as recorded by bedrock" in capsys.readouterr().out
    assert main(["repair", str(path), "-o", str(out)]) == 0
    capsys.readouterr()
    view = json.loads(out.read_bytes())
    assert view["messages"][1]["content"][1]["toolUse"]["name"] == "_READFILE"
    assert main(["check", str(out)]) == 0
    capsys.readouterr()
