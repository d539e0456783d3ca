"""goose sessions: read as goose sends them, judged on the request goose sends after its own pass.

goose (aaif-goose/goose) keeps each message as `{id, role, created, content, metadata}` with typed items
(toolRequest / toolResponse holding a `{"status", "value" | "error"}` outcome), in a legacy session file (a metadata
line, then one message per line) or a `goose session export --format json` (the Session, its messages under
`conversation`).  Before each request goose runs fix_conversation: it leaves out a tool request no response answers
and a response whose request is not pending, and merges consecutive messages of one role; a response that comes
after another message is sent as it is, and Anthropic refuses it (goose#3249, #6336, #7444: "tool_use ids were found
without tool_result blocks immediately after").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run
from goose_store import goose_store

from integrity import analyze, check, load
from integrity.formats.goose import EMPTY_RESULT, UNPARSEABLE
from integrity.guards.stores import read_store
from integrity.loading import TranscriptError
from integrity.providers.canonical import judged_request

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_transcripts"
META = {"working_dir": "/home/dev/shop", "description": "Deploy", "schedule_id": None, "message_count": 0,
        "total_tokens": 0, "input_tokens": 0, "output_tokens": 0}
SEEN = {"userVisible": True, "agentVisible": True}


def _message(role: str, *content: dict[str, Any], visible: bool = True) -> dict[str, Any]:
    return {"id": None, "role": role, "created": 1767610800, "content": list(content),
            "metadata": SEEN if visible else {"userVisible": True, "agentVisible": False}}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _request(call_id: str, name: str = "developer__shell", arguments: Any = None) -> dict[str, Any]:
    return {"type": "toolRequest", "id": call_id,
            "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments or {"command": "ls"}}}}


def _response(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {"type": "toolResponse", "id": call_id,
            "toolResult": {"status": "success", "value": {"content": [_text(text)], "isError": False}}}


def _session(tmp_path: Path, *messages: dict[str, Any], name: str = "s.goose.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(entry) + "\n" for entry in (META, *messages)))
    return path


def _anthropic(path: Path) -> list[Any]:
    transcript = load(path.read_bytes(), path.name)
    return judged_request(transcript.messages, "anthropic", transcript, as_recorded=True)[0]


def _verdict(path: Path, provider: str = "anthropic") -> Any:
    return check(load(path.read_bytes(), path.name), provider=provider).providers[provider]


def test_the_samples_are_goose_and_say_what_goose_sends() -> None:
    healthy = load((SAMPLES / "healthy.goose.jsonl").read_bytes(), "healthy.goose.jsonl")
    assert healthy.format == "goose" and analyze(healthy).report.healthy
    assert [m["role"] for m in healthy.messages] == ["user", "assistant", "toolResult", "assistant", "toolResult",
                                                     "toolResult", "assistant"]
    typed = SAMPLES / "typed_while_tool_ran.goose.jsonl"
    said = run("check", typed, "--provider", "anthropic")
    assert said.code == 1
    assert said.stdout.decode().splitlines()[0] == f"{typed}: repaired: 1 moved; rejected as recorded by anthropic"
    [refusal] = _verdict(typed).before
    assert refusal.position == "messages.1" and refusal.error.startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Bd8eW4qR2tY7.")
    assert _verdict(typed).after == []


def test_each_item_is_sent_as_goose_sends_it(tmp_path: Path) -> None:
    """A tool request as a tool_use, a response as a tool_result (an error as an error result of its text, an
    empty one as goose's "(empty result)"), a request goose could not parse under goose's placeholder name; a blank
    text, unsigned thinking and the items goose only shows the user are not sent; the metadata line is no message."""
    failed = {"type": "toolRequest", "id": "toolu_bad", "toolCall": {"status": "error", "error": "-32602: bad JSON"}}
    path = _session(
        tmp_path,
        _message("user", _text("Go."), {"type": "systemNotification", "notificationType": "inlineMessage",
                                         "msg": "hi"}),
        _message("assistant", _text("  "), {"type": "thinking", "thinking": "hmm", "signature": ""}, _request("t1"),
                 failed),
        _message("user", {"type": "toolResponse", "id": "t1", "toolResult": {"status": "error", "error": "-32603: no"}},
                 {"type": "toolResponse", "id": "toolu_bad",
                  "toolResult": {"status": "success", "value": {"content": [], "isError": True}}}),
        _message("assistant", _text("Done.")))
    request = _anthropic(path)
    assert request[0] == {"role": "user", "content": [{"type": "text", "text": "Go."}]}
    assert [block["type"] for block in request[1]["content"]] == ["tool_use", "tool_use"]
    assert request[1]["content"][1]["name"] == UNPARSEABLE
    results = request[2]["content"]
    assert results[0]["is_error"] is True and "-32603: no" in json.dumps(results[0]["content"])
    assert "is_error" not in results[1] and EMPTY_RESULT in json.dumps(results[1]["content"])
    assert _verdict(path).before == []


def test_a_call_cut_off_is_not_sent_and_is_still_reported(tmp_path: Path) -> None:
    """Ctrl-C while the tool ran: goose sends the session without the request (accepted), and the durable record
    still holds a call without a result, which the view answers with the interrupted receipt."""
    path = _session(tmp_path, _message("user", _text("Build it.")), _message("assistant", _request("t1")),
                    _message("user", _text("never mind, stop")), _message("assistant", _text("Stopped.")))
    assert _verdict(path).before == []
    assert all(block["type"] != "tool_use" for message in _anthropic(path) for block in message["content"])
    analysis = analyze(load(path.read_bytes(), path.name), provider="anthropic")
    assert (analysis.report.summary.orphaned_calls, analysis.report.summary.synthesized) == (1, 1)


def test_a_stray_and_a_second_response_are_not_sent(tmp_path: Path) -> None:
    path = _session(tmp_path, _message("user", _text("Go.")), _message("assistant", _request("t1")),
                    _message("user", _response("t1"), _response("ghost")), _message("user", _response("t1", "again")),
                    _message("assistant", _text("Done.")))
    request = _anthropic(path)
    sent = [block["tool_use_id"] for message in request for block in message["content"]
            if block["type"] == "tool_result"]
    assert sent == ["t1"] and _verdict(path).before == []
    report = analyze(load(path.read_bytes(), path.name), provider="anthropic").report
    assert (report.summary.strays, report.summary.duplicates_dropped) == (1, 1)  # (the durable record's defects)


def test_consecutive_answers_are_merged_as_goose_merges_them(tmp_path: Path) -> None:
    """Two answers in a row are one assistant message in goose's request: its result follows it at once."""
    path = _session(tmp_path, _message("user", _text("Go.")), _message("assistant", _text("First I look.")),
                    _message("assistant", _request("t1")), _message("user", _response("t1")),
                    _message("assistant", _text("Done.")))
    request = _anthropic(path)
    assert [m["role"] for m in request] == ["user", "assistant", "user", "assistant"]
    assert [b["type"] for b in request[1]["content"]] == ["text", "tool_use"]


def test_a_message_the_agent_does_not_see_is_kept_and_never_judged(tmp_path: Path) -> None:
    """The messages a compaction replaced stay in the file for the user (agentVisible false): never sent."""
    path = _session(tmp_path, _message("assistant", _request("old"), visible=False),
                    _message("user", _text("Summary of the earlier work."), visible=True),
                    _message("assistant", _text("Go on.")))
    transcript = load(path.read_bytes(), path.name)
    assert [m["role"] for m in transcript.messages] == ["user", "assistant"]
    assert analyze(transcript).report.healthy


def test_a_goose_json_export_is_read_from_its_conversation(tmp_path: Path) -> None:
    session = {"id": "20260105_3", "working_dir": "/home/dev/shop", "name": "Deploy", "extension_data": {},
               "conversation": [_message("user", _text("Go.")), _message("assistant", _request("t1")),
                                _message("user", _text("wait")), _message("user", _response("t1")),
                                _message("assistant", _text("Done."))],
               "message_count": 5, "provider_name": "anthropic",
               "model_config": {"model_name": "claude-sonnet-4-5"}}
    path = tmp_path / "20260105_3.json"
    path.write_text(json.dumps(session, indent=2))
    transcript = load(path.read_bytes(), path.name)
    assert transcript.format == "goose" and transcript.key == "conversation"
    assert transcript.model == "anthropic:claude-sonnet-4-5"  # (the session's model decides: no --provider)
    said = run("check", path)
    assert said.code == 1 and said.stdout.decode().splitlines()[0].endswith("rejected as recorded by anthropic")
    legacy = _session(tmp_path, *session["conversation"])  # (a session file names no model: the invariants)
    assert run("check", legacy).stdout.decode().splitlines()[0] == f"{legacy}: repaired: 1 moved"
    [refusal] = _verdict(path).before
    assert refusal.position == "messages.1" and "ids were found without `tool_result` blocks immediately after: t1." \
        in refusal.error


def test_a_malformed_item_is_one_line_naming_its_line(tmp_path: Path) -> None:
    path = _session(tmp_path, _message("user", _text("Go.")),
                    _message("assistant", {"type": "toolRequest", "id": "t1", "toolCall": {"value": {}}}))
    with pytest.raises(TranscriptError) as raised:
        load(path.read_bytes(), path.name, format="goose")
    said = str(raised.value)
    assert "\n" not in said and "line 3" in said and "toolCall" in said and "status" in said


def _sample(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (SAMPLES / name).read_text().splitlines()[1:]]


def test_goose_session_database_is_read_as_goose_reads_it_back(tmp_path: Path) -> None:
    """Each session's rows in goose's order (created_timestamp, then id: a row saved late with an earlier time goes
    before), a row without metadata visible (before schema 3), a row of another role skipped, a session with a
    row that is not JSON that session's error; the database left as it was."""
    typed = _sample("typed_while_tool_ran.goose.jsonl")
    late = {**typed[0], "created": typed[0]["created"] - 60, "metadata": None}  # saved last, dated first
    healthy = _sample("healthy.goose.jsonl")
    path = goose_store(tmp_path / "sessions.db", {
        "20260105_1": [*typed[1:], late],
        "20260105_2": [*healthy[:3], {"role": "system", "created": healthy[2]["created"], "content": "[]"},
                       *healthy[3:]],
        "20260105_3": [{"role": "user", "created": 1, "content": "{not json", "metadata": None}]},
        models={"20260105_1": "claude-sonnet-4-5", "20260105_2": "claude-sonnet-4-5"})
    before = path.read_bytes()
    url = f"goose+sqlite://{path}"
    said = run("check", url)  # (each session names its model: Anthropic's, whose verdict decides)
    lines = [line for line in said.stdout.decode().splitlines() if not line.startswith(" ")]
    assert lines == [f"{url}#session:20260105_1: repaired: 1 moved; rejected as recorded by anthropic",
                     f"{url}#session:20260105_2: healthy: 7 messages, 3 calls, every call answered once, right after "
                     "its frame; accepted as recorded by anthropic"]
    assert "session:20260105_3" in said.stderr and "goose cannot load the session" in said.stderr, said.stderr
    [one] = read_store(f"{url}?session=20260105_1")
    assert one.format == "goose" and one.messages[0]["content"][0]["text"] == "Deploy the staging build."
    assert one.model == "anthropic:claude-sonnet-4-5"
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["sessions.db"]


def test_a_session_is_written_back_as_goose_messages(tmp_path: Path) -> None:
    """An unchanged session file is written back byte for byte; a repaired one keeps every message it does not
    change as its line, the moved response as the item it was read from, the metadata line first, and its
    messages dated in the order written (goose reads a session back by time)."""
    healthy = SAMPLES / "healthy.goose.jsonl"
    out = tmp_path / "healthy.out.jsonl"
    assert run("repair", "--now", "0", healthy, "-o", out).code == 0 and out.read_bytes() == healthy.read_bytes()
    typed = SAMPLES / "typed_while_tool_ran.goose.jsonl"
    out = tmp_path / "typed.out.jsonl"
    assert run("repair", "--now", "0", typed, "-o", out).code == 0
    read = typed.read_text().splitlines()
    written = out.read_text().splitlines()
    assert written[0] == read[0] and written[1:3] == read[1:3] and written[5:] == read[5:]
    moved, typed_text = json.loads(written[3]), json.loads(written[4])
    assert moved["content"] == json.loads(read[4])["content"] and typed_text == json.loads(read[3])
    assert moved["created"] == typed_text["created"] and moved["id"] == json.loads(read[4])["id"]
    times = [json.loads(line)["created"] for line in written[1:]]
    assert times == sorted(times)
    again = run("check", out, "--provider", "anthropic")
    assert again.code == 0 and "healthy" in again.stdout.decode() and "accepted as recorded by anthropic" in \
        again.stdout.decode()


def test_the_receipt_is_an_error_response_and_hidden_messages_stay(tmp_path: Path) -> None:
    """A call cut off is answered by the interrupted receipt, written as an error toolResponse (goose sends it as an
    error result); a message the agent does not see keeps its place; an export stays a Session with its keys."""
    hidden = _message("user", _text("(what a compaction replaced)"), visible=False)
    messages = [_message("user", _text("Build it.")), _message("assistant", _request("t1")), hidden,
                _message("user", _text("never mind")), _message("assistant", _text("Stopped."))]
    session = {"id": "20260105_4", "working_dir": "/home/dev", "conversation": messages, "message_count": 5}
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(session))
    out = tmp_path / "cut.out.json"
    assert run("repair", "--now", "0", path, "-o", out).code == 0
    written = json.loads(out.read_text())
    assert [k for k in written if k != "conversation"] == [k for k in session if k != "conversation"]
    conversation = written["conversation"]
    receipt = conversation[2]["content"][0]
    assert receipt["type"] == "toolResponse" and receipt["id"] == "t1" and receipt["toolResult"]["status"] == "error"
    assert "interrupted" in receipt["toolResult"]["error"]
    assert hidden in conversation and conversation.index(hidden) == 3
    assert analyze(load(out.read_bytes(), out.name)).report.healthy
    assert json.loads(path.read_text()) == session  # (the file read is never changed)
