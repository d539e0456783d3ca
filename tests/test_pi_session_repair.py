"""`repair` of pi sessions writes back what pi reads: its own message roles, and every entry that names another.

Found by reviewing real pi-mono session files (packages/coding-agent/test/fixtures): a repaired file lost its
`bashExecution` and `custom` messages (the writer took their roles for another format's and left them out), a
version 1 file's compaction pointed at the wrong entry (`firstKeptEntryIndex` is a position in the file, and the
repair deletes and inserts lines), and an id a compaction names could be replaced by the rebuilt entry's new one
(pi then sends none of the kept turns: session-manager.ts buildSessionContext starts at that id).
"""

from __future__ import annotations

import json
from typing import Any

import integrity
from integrity import check
from integrity.formats import write_bytes

ASSISTANT = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-opus-4-5"}


def user(text: str, stamp: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": stamp}


def calling(call_id: str, stamp: int) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": "bash",
                                              "arguments": {"command": "ls"}}], **ASSISTANT,
            "stopReason": "toolUse", "timestamp": stamp}


def result(call_id: str, stamp: int) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
            "content": [{"type": "text", "text": "a b"}], "isError": False, "timestamp": stamp}


def aborted(stamp: int) -> dict[str, Any]:
    return {"role": "assistant", "content": [], **ASSISTANT, "stopReason": "aborted",
            "errorMessage": "Request was aborted.", "timestamp": stamp}


def session(messages: list[Any], version: int = 3, extra: dict[int, dict[str, Any]] | None = None) -> list[Any]:
    """A session file's entries: the header, then one entry per message (ids linked from version 2 on), with
    `extra` entries put before the message of that number."""
    entries: list[Any] = [{"type": "session", "version": version, "id": "s1",
                           "timestamp": "2025-12-09T00:00:00.000Z", "cwd": "/w"}]
    parent = None
    for number, message in enumerate(messages):
        for entry in [*([extra[number]] if extra and number in extra else []), {"type": "message", "message": message}]:
            entry = {**entry, "timestamp": f"2025-12-09T00:00:{number:02d}.000Z"}
            if version >= 2:
                entry = {"id": entry.get("id", f"e{len(entries)}"), "parentId": parent, **entry}
                parent = entry["id"]
            entries.append(entry)
    return entries


def repaired(entries: list[Any], thread: str | None = None) -> list[Any]:
    """The file written back after the strict repair of its transcript (the one `thread` names)."""
    data = "".join(json.dumps(entry) + "\n" for entry in entries).encode()
    transcript = integrity.load(data, "session.jsonl") if thread is None else \
        next(t for t in integrity.load_all(data, "session.jsonl") if t.name == thread)
    assert transcript.format == "pi-session"
    view = check(transcript, policy="strict", depth="view").view
    return [json.loads(line) for line in write_bytes(transcript, view).decode().splitlines()]


def roles(entries: list[Any]) -> list[str]:
    return [entry["message"]["role"] for entry in entries if entry.get("type") == "message"]


def test_pis_own_roles_are_written_back_when_the_session_is_repaired() -> None:
    bash = {"role": "bashExecution", "command": "ls", "output": "a\n", "exitCode": 0, "cancelled": False,
            "truncated": False, "timestamp": 3}
    custom = {"role": "custom", "customType": "note", "content": "remember", "display": True, "timestamp": 4}
    entries = session([user("hi", 1), aborted(2), bash, custom, user("what did I run?", 5)])
    out = repaired(entries)
    assert roles(out) == ["user", "bashExecution", "custom", "user"]  # only the empty aborted frame is dropped
    written = [e for e in out if e.get("type") == "message"]
    assert [e["message"] for e in written[1:3]] == [bash, custom]
    assert [e["id"] for e in written] == ["e1", "e3", "e4", "e5"]
    assert [e["parentId"] for e in written] == [None, "e1", "e3", "e4"]  # one branch: what pi sends


def test_a_version_1_compaction_still_starts_at_the_same_entry() -> None:
    """pi's v1 -> v2 migration reads `firstKeptEntryIndex` as a position in the file's entries: the receipt
    written for c1 moves every later entry down a line.  c1 is before the first kept entry, so pi never sends it
    again: it is in the compacted-away part, repaired only when that part is named (`--thread compacted:1`)."""
    messages = [user("one", 1), calling("c1", 2), user("two", 3), user("three", 4), calling("c2", 5),
                result("c2", 6), user("four", 7)]
    compaction = {"type": "compaction", "summary": "so far", "firstKeptEntryIndex": 4, "tokensBefore": 10}
    entries = session(messages, version=1, extra={6: compaction})
    assert entries[4]["message"] == user("three", 4)
    assert repaired(entries) == entries  # the part pi sends is healthy: nothing is written differently
    out = repaired(entries, "compacted:1")
    assert len(out) == len(entries) + 1 and out[3]["message"]["role"] == "toolResult"  # the receipt
    (written,) = [e for e in out if e.get("type") == "compaction"]
    assert written["firstKeptEntryIndex"] == 5 and out[5]["message"] == user("three", 4)
    assert compaction["firstKeptEntryIndex"] == 4  # the file's own entry is never changed


def test_a_label_naming_a_rebuilt_entry_names_it_still() -> None:
    """A call renamed by the repair (an id reused across turns) is a rebuilt entry: it keeps its entry id, so the
    label naming it still finds it.  (A compaction naming it cannot: pi never sends the turns before the entry a
    compaction keeps, so the first c1 would not be sent, and nothing would be renamed.)"""
    messages = [user("one", 1), calling("c1", 2), result("c1", 3), user("two", 4), calling("c1", 5),
                result("c1", 6), user("three", 7)]
    entries = session(messages, extra={6: {"type": "label", "id": "k1", "targetId": "e5", "label": "retry"}})
    assert entries[5]["id"] == "e5" and entries[5]["message"] == calling("c1", 5)
    out = repaired(entries)
    rebuilt = next(e for e in out if e.get("id") == "e5")
    assert rebuilt["message"]["content"][0]["id"] != "c1"  # renamed, in an entry rebuilt around it
    (written,) = [e for e in out if e.get("type") == "label"]
    assert written["targetId"] == "e5"
    assert len({e["id"] for e in out[1:]}) == len(out) - 1  # no id written twice


def test_a_compaction_naming_a_dropped_entry_names_the_next_one_written() -> None:
    messages = [user("one", 1), calling("c1", 2), result("c1", 3), user("two", 4), aborted(5), user("three", 6),
                calling("c2", 7), result("c2", 8), user("four", 9)]
    entries = session(messages, extra={8: {"type": "compaction", "id": "k1", "summary": "so far",
                                            "firstKeptEntryId": "e5", "tokensBefore": 10}})
    assert entries[5]["message"] == aborted(5)
    out = repaired(entries)
    assert "e5" not in {e.get("id") for e in out}  # the empty aborted frame is dropped
    (written,) = [e for e in out if e.get("type") == "compaction"]
    kept = next(e for e in out if e.get("id") == written["firstKeptEntryId"])
    assert kept["message"] == user("three", 6)
    assert next(e for e in entries if e.get("type") == "compaction")["firstKeptEntryId"] == "e5"  # never changed


def test_an_entry_id_that_is_no_string_does_not_stop_the_write_back() -> None:
    """An entry whose id is an array (a writer's slip) is read on; writing the repaired session back must not fail
    on it (the id sets are of string ids only)."""
    entries = session([user("hi", 1), calling("c1", 2), user("again", 3)])
    entries[1] = {**entries[1], "id": []}
    out = repaired(entries)
    assert roles(out) == ["user", "assistant", "toolResult", "user"]


def test_a_call_rebuilt_with_new_ids_keeps_the_entries_after_it_on_the_sent_branch(tmp_path: Any) -> None:
    """Found by review: repairing tests/real/openclaw_interrupted_call.openclaw.jsonl for Mistral renames the
    call's id (the call entry is rebuilt, keeping its entry id) and inserts a receipt and a turn after it; the
    entry that followed the call kept the call as its parent, so the receipt and the turn became an abandoned
    branch and the written file was refused again.  Every provider's repair of the real tree files is read back
    as a transcript its provider accepts, with no branch the file did not have."""
    from pathlib import Path

    from cli_inprocess import run

    real = Path(__file__).resolve().parent / "real"
    for name in ("openclaw_interrupted_call.openclaw.jsonl", *sorted(
            p.name for p in real.glob("*.pi-session.jsonl"))):
        for provider in ("mistral", "bedrock", "gemini", "anthropic", "openai-chat", "deepseek"):
            out = tmp_path / f"{provider}-{name}"
            repaired = run("repair", "--provider", provider, real / name, "-o", out)
            if "after repair: accepted" not in repaired.stderr:
                continue
            said = run("check", "--provider", provider, out)
            branches = run("check", "--provider", provider, real / name).stdout.decode().count("abandoned branch")
            assert said.code == 0, (name, provider, said.stdout)
            assert said.stdout.decode().count("abandoned branch") == branches, (name, provider, said.stdout)


def test_a_compaction_keeping_an_entry_not_on_the_path_keeps_none_before_it() -> None:
    """pi sends the entries before a compaction only from its first kept entry on (buildSessionContext); an id that
    names no entry on the path keeps none of them: the unanswered c1 before it is compacted away, not judged."""
    messages = [user("one", 1), calling("c1", 2), user("two", 3), user("three", 4), calling("c2", 5),
                result("c2", 6), user("four", 7)]
    entries = session(messages, extra={6: {"type": "compaction", "id": "k1", "summary": "so far",
                                            "firstKeptEntryId": "deadbeef", "tokensBefore": 10}})
    data = "".join(json.dumps(entry) + "\n" for entry in entries).encode()
    found = {t.name: t for t in integrity.load_all(data, "session.jsonl")}
    assert set(found) == {"main", "compacted:1"} and not found["compacted:1"].checked
    assert roles(found["compacted:1"].native) == ["user", "assistant", "user", "user", "assistant", "toolResult"]
    assert roles(found["main"].native) == ["user"]  # "four": pi sends the summary and what follows it
    assert check(found["main"], policy="strict").healthy


def _entries(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode().splitlines()]


def _session_file(*items: dict[str, Any]) -> bytes:
    """A version 3 session: its header, then each item as an entry after the one before it (a `model_change`
    when it has a `modelId`)."""
    lines = [{"type": "session", "version": 3, "id": "sess-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}]
    parent = None
    for number, item in enumerate(items, 1):
        base = {"id": f"e{number:07d}", "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}
        lines.append({"type": "model_change", **base, **item} if "modelId" in item
                     else {"type": "message", **base, "message": item})
        parent = base["id"]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_a_repair_keeps_the_header_when_it_rebuilds_the_first_message() -> None:
    """Two prompts in a row, sent to Bedrock: the view joins them into one message, and the header, read with the
    first of them, went with it: pi cannot open a session file without its header."""
    data = _session_file(user("look at the logs", 1), user("and the config", 2),
                         {**calling("c1", 3), **ASSISTANT}, result("c1", 4))
    [transcript] = integrity.load_all(data, "s.jsonl")
    analysis = integrity.analyze(transcript, "strict", provider="bedrock")
    assert analysis.report.summary.view_messages == 3
    written = _entries(write_bytes(transcript, analysis.view))
    assert written[0] == _entries(data)[0]  # the header, first and unchanged
    assert [entry["type"] for entry in written] == ["session", "message", "message", "message"]
    assert written[1]["parentId"] is None and written[2]["parentId"] == written[1]["id"]
    again = integrity.load_all(write_bytes(transcript, analysis.view), "s.jsonl")[0]
    assert [m["role"] for m in again.messages] == ["user", "assistant", "toolResult"]


def test_a_repair_keeps_a_model_change_before_an_answer_it_leaves_out() -> None:
    """The user switched models and pressed Esc before the new model answered: the view leaves the empty answer
    out, and the model change read with it went too, so the repaired session went on with the old model."""
    on_bedrock = {"api": "bedrock-converse-stream", "provider": "amazon-bedrock", "model": "us.anthropic.claude-opus"}
    data = _session_file(user("hi", 1), {"provider": "amazon-bedrock", "modelId": "us.anthropic.claude-opus"},
                         {**aborted(2), **on_bedrock}, user("again", 3))
    [transcript] = integrity.load_all(data, "s.jsonl")
    result_ = check(transcript, depth="view")  # (Bedrock's view: the two prompts joined, as pi sends them)
    assert result_.target == "bedrock" and result_.report.summary.view_messages == 1
    written = _entries(write_bytes(transcript, result_.view))
    assert [entry["type"] for entry in written] == ["session", "model_change", "message"]
    assert written[1]["parentId"] is None and written[2]["parentId"] == written[1]["id"]
    [again] = integrity.load_all(write_bytes(transcript, result_.view), "s.jsonl")
    assert again.model == transcript.model == "bedrock:us.anthropic.claude-opus"
