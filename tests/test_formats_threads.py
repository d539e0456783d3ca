"""Files that hold several transcripts, and files a crash cut short.

Claude Code sidechains and subagent streams are their own threads; a rewind leaves
an abandoned branch that is listed, never mixed in; parallel results that point at
their own tool_use entry are not a rewind.  An eval log's samples and a retried
SWE-agent run's attempts are transcripts of their own.  A repaired thread is written
back into the whole file with every other entry in place.  A torn last line is read
up to, reported and left out of a repair; a bad line in the middle is an error unless
the user asks to skip bad lines.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from integrity import analyze, export_view, load_all, read_bytes
from integrity.cli import main
from integrity.formats import to_native, write_bytes
from integrity.loading import TranscriptError

NOW = 1764000000000
TEXT = [{"type": "text", "text": "done"}]


def jsonl(entries: list[Any], tail: str = "") -> bytes:
    return ("".join(json.dumps(e) + "\n" for e in entries) + tail).encode()


def lines_of(data: bytes) -> list[Any]:
    return [json.loads(line) for line in data.decode().splitlines() if line.strip()]


# ---------------------------------------------------------------- Claude Code


def cc(kind: str, uid: str, parent: str | None, content: Any, msg_id: str | None = None,
       **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if msg_id:
        message["id"] = msg_id
    return {"parentUuid": parent, "isSidechain": False, "sessionId": "s-1", "type": kind, "message": message,
            "uuid": uid, "timestamp": "2025-11-20T09:00:00.000Z", **extra}


def use(call_id: str, name: str = "Bash") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {"command": "ls"}}


def result(call_id: str, text: str = "ok") -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": call_id, "content": text}]


def test_parallel_results_linked_to_their_own_tool_use_are_not_a_rewind() -> None:
    entries = [cc("user", "u1", None, "go"),
               cc("assistant", "a1", "u1", [use("t1")], "m1"), cc("assistant", "a2", "a1", [use("t2")], "m1"),
               cc("user", "r1", "a1", result("t1")), cc("user", "r2", "a2", result("t2")),
               cc("assistant", "a3", "r2", TEXT, "m2")]
    transcripts = load_all(jsonl(entries), "par.jsonl")
    assert [t.name for t in transcripts] == ["main"]
    assert analyze(transcripts[0]).report.healthy


def test_a_rewind_leaves_an_abandoned_branch_listed_apart() -> None:
    entries = [cc("user", "u1", None, "first"), cc("assistant", "a1", "u1", TEXT, "m1"),
               cc("user", "u2", "a1", "drop the table"), cc("assistant", "a2", "u2", [use("t9")], "m2"),
               cc("user", "u3", "a1", "rename it instead"), cc("assistant", "a3", "u3", [use("t1")], "m3"),
               cc("user", "r1", "a3", result("t1")), cc("assistant", "a4", "r1", TEXT, "m4")]
    main_thread, branch = load_all(jsonl(entries), "rw.jsonl")
    assert (main_thread.name, branch.name, branch.checked) == ("main", "branch:u2", False)
    assert [m["role"] for m in main_thread.messages] == ["user", "assistant", "user", "assistant", "toolResult",
                                                         "assistant"]
    assert analyze(main_thread).report.healthy
    assert analyze(branch).report.summary.orphaned_calls == 1  # the abandoned call, never mixed into main


def test_a_long_abandoned_branch_is_one_branch_of_every_entry_it_holds() -> None:
    """A rewind that leaves a long conversation behind: every entry of it is found under the one root where it
    forks (each walk up to the fork is shared, so the branch costs one walk, not one per entry)."""
    entries = [cc("user", "u1", None, "first"), cc("assistant", "a1", "u1", TEXT, "m1"),
               cc("user", "b0", "a1", "the long way")]
    for n in range(1, 1500):
        kind = "assistant" if n % 2 else "user"
        entries.append(cc(kind, f"b{n}", f"b{n - 1}", TEXT if kind == "assistant" else "more", f"mb{n}"))
    entries += [cc("user", "u2", "a1", "the short way"), cc("assistant", "a2", "u2", TEXT, "m2")]
    main_thread, branch = load_all(jsonl(entries), "long.jsonl")
    assert (main_thread.name, branch.name) == ("main", "branch:b0")
    assert len(main_thread.messages) == 4 and len(branch.messages) == 2 + 1500


def test_entries_whose_parents_form_a_cycle_off_the_chain_are_read() -> None:
    """Parent ids that loop (a hand-edited or corrupt file) end each walk where it meets itself: the file is read,
    nothing loops forever, and the cycle, which forks from no entry of the chain, is no rewind: its entries stay
    in the main thread in file order, as any entry off the chain that no rewind left."""
    entries = [cc("user", "u1", None, "first"), cc("assistant", "a1", "u1", TEXT, "m1"),
               cc("user", "c1", "c3", "one"), cc("assistant", "c2", "c1", TEXT, "mc2"),
               cc("user", "c3", "c2", "three"),
               cc("user", "u2", "a1", "go on"), cc("assistant", "a2", "u2", TEXT, "m2")]
    transcripts = load_all(jsonl(entries), "cycle.jsonl")
    assert transcripts[0].name == "main"
    assert [t.name for t in transcripts] == ["main"]
    assert [m["content"][0]["text"] if isinstance(m["content"], list) else m["content"]
            for m in transcripts[0].messages] == ["first", "done", "one", "done", "three", "go on", "done"]


def test_sidechains_and_subagent_streams_are_threads_of_their_own() -> None:
    side = dict(isSidechain=True, agentId="ag1")
    entries = [cc("user", "u1", None, "audit"), cc("assistant", "a1", "u1", [use("task", "Task")], "m1"),
               {**cc("user", "s1", None, "scan"), **side},
               {**cc("assistant", "s2", "s1", [use("g1", "Grep")], "m9"), **side},
               {**cc("user", "s3", "s2", result("g1")), **side},
               cc("user", "r1", "a1", result("task")), cc("assistant", "a2", "r1", TEXT, "m2")]
    main_thread, sidechain = load_all(jsonl(entries), "side.jsonl")
    assert (main_thread.name, sidechain.name, sidechain.kind) == ("main", "sidechain:ag1", "sidechain")
    assert analyze(main_thread).report.healthy and analyze(sidechain).report.healthy
    sdk = [{"type": "assistant", "message": {"role": "assistant", "content": [use("t1")]}, "parent_tool_use_id": None,
            "session_id": "x"},
           {"type": "assistant", "message": {"role": "assistant", "content": [use("s1")]}, "parent_tool_use_id": "t1",
            "session_id": "x"},
           {"type": "user", "message": {"role": "user", "content": result("s1")}, "parent_tool_use_id": "t1",
            "session_id": "x"},
           {"type": "user", "message": {"role": "user", "content": result("t1")}, "parent_tool_use_id": None,
            "session_id": "x"}]
    names = [t.name for t in load_all(jsonl(sdk), "sdk.jsonl")]
    assert names == ["main", "subagent:t1"]


def test_a_repaired_thread_is_written_back_into_the_whole_file() -> None:
    side = dict(isSidechain=True, agentId="ag1")
    entries = [cc("user", "u1", None, "audit"), cc("assistant", "a1", "u1", [use("task", "Task")], "m1"),
               {**cc("user", "s1", None, "scan"), **side},
               {**cc("assistant", "s2", "s1", [use("g1", "Grep")], "m9"), **side},
               cc("user", "r1", "a1", result("task")), {"type": "summary", "summary": "x", "leafUuid": "zz"},
               cc("assistant", "a2", "r1", TEXT, "m2")]
    data = jsonl(entries)
    sidechain = load_all(data, "side.jsonl")[1]
    analysis = analyze(sidechain, now=lambda: NOW)
    assert analysis.report.summary.synthesized == 1
    written = lines_of(export_view(analysis))
    # every other entry is where it was; the receipt follows the sidechain's frame
    assert [e.get("uuid") for e in written][:4] == ["u1", "a1", "s1", "s2"]
    assert written[5:] == [json.loads(json.dumps(e)) for e in entries[4:]]
    receipt = written[4]
    assert receipt["isSidechain"] is True and receipt["agentId"] == "ag1" and receipt["parentUuid"] == "s2"
    again = load_all(export_view(analysis), "side.jsonl")
    assert [t.name for t in again] == ["main", "sidechain:ag1"] and all(analyze(t).report.healthy for t in again)


# ---------------------------------------------------------------- pi sessions


def pi(kind: str, ident: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": ident, "parentId": parent, "timestamp": "2025-12-03T14:00:00.000Z", **fields}


def pmsg(ident: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return pi("message", ident, parent, message=message)


CALL = {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}],
        "stopReason": "toolUse"}
RESULT = {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": [{"type": "text", "text": "ok"}],
          "isError": False}


def test_a_pi_session_is_its_active_branch_and_its_other_leaves_are_listed() -> None:
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2025-12-03T14:00:00.000Z", "cwd": "/p"}
    entries = [header, pmsg("a", None, {"role": "user", "content": "hi"}), pmsg("b", "a", CALL),
               pmsg("c", "a", {"role": "user", "content": "no, do this"}),
               pmsg("d", "c", {"role": "user", "content": "x"})]
    main_thread, branch = load_all(jsonl(entries), "pi.jsonl")
    assert main_thread.format == "pi-session"
    assert [m["content"] for m in main_thread.messages] == ["hi", "no, do this", "x"]
    assert (branch.name, branch.checked) == ("branch:b", False)
    assert analyze(branch).report.summary.orphaned_calls == 1
    linear = [{"type": "session", "timestamp": "t", "cwd": "/p"}, {"type": "message", "message": CALL},
              {"type": "message", "message": RESULT}]
    assert [t.name for t in load_all(jsonl(linear), "v1.jsonl")] == ["main"]


def test_pi_session_entries_are_not_taken_for_responses_items() -> None:
    entries = [pmsg("a", None, {"role": "user", "content": "hi"}), pmsg("b", "a", CALL), pmsg("c", "b", RESULT)]
    transcript = read_bytes(jsonl(entries), "pi.jsonl")
    assert transcript.format == "pi-session" and analyze(transcript).report.summary.calls == 1


# ---------------------------------------------------------------- torn and bad lines


def test_a_torn_last_line_is_read_up_to_reported_and_left_out_of_a_repair(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    entries = [pmsg("a", None, {"role": "user", "content": "hi"}), pmsg("b", "a", CALL), pmsg("c", "b", RESULT)]
    data = jsonl(entries, tail=json.dumps(pmsg("d", "c", CALL))[:40])
    transcript = read_bytes(data, "torn.jsonl")
    assert [(n.code, n.line) for n in transcript.notes] == [("torn_last_line", 4)]
    report = analyze(transcript).report
    assert not report.healthy and report.findings[0].kind.value == "torn_last_line"
    path = tmp_path / "torn.jsonl"
    path.write_bytes(data)
    out = tmp_path / "out.jsonl"
    assert main(["repair", str(path), "-o", str(out)]) == 0
    assert lines_of(out.read_bytes()) == entries
    assert main(["check", str(out)]) == 0


@pytest.mark.parametrize("tail", ["\0" * 4096, json.dumps(pmsg("d", "c", CALL))[:40] + "\0" * 512 + "\n",
                                  "\0" * 100 + "\n\n"], ids=["nul-bytes", "cut-then-nul-bytes", "nul-line"])
def test_a_last_line_of_nul_bytes_is_a_torn_line(tmp_path: Path, tail: str) -> None:
    """A crash can leave a file's length written before its data (many file systems): the tail reads as NUL
    bytes, alone or after a record cut mid-write.  Read up to it and left out, as any torn last line; NUL bytes
    before the last line are still an error."""
    entries = [pmsg("a", None, {"role": "user", "content": "hi"}), pmsg("b", "a", CALL), pmsg("c", "b", RESULT)]
    data = jsonl(entries, tail=tail)
    transcript = read_bytes(data, "crashed.jsonl")
    assert [(n.code, n.line) for n in transcript.notes] == [("torn_last_line", 4)]
    path = tmp_path / "crashed.jsonl"
    path.write_bytes(data)
    out = tmp_path / "out.jsonl"
    assert main(["repair", str(path), "-o", str(out)]) == 0
    assert lines_of(out.read_bytes()) == entries and path.read_bytes() == data
    with pytest.raises(TranscriptError, match="line 2"):
        read_bytes(jsonl(entries[:1], tail="\0" * 64 + "\n") + jsonl(entries[1:]), "nul-inside.jsonl")


def test_a_bad_line_in_the_middle_is_an_error_unless_skipped() -> None:
    good = [pmsg("a", None, {"role": "user", "content": "hi"}), pmsg("b", "a", CALL), pmsg("c", "b", RESULT)]
    text = jsonl(good[:1]) + b'{"type": "mess\n' + jsonl(good[1:])
    with pytest.raises(TranscriptError, match="line 2"):
        read_bytes(text, "bad.jsonl")
    transcript = load_all(text, "bad.jsonl", skip_bad_lines=True)[0]
    assert [(n.code, n.line) for n in transcript.notes] == [("skipped_line", 2)]
    assert len(transcript.messages) == 3 and not analyze(transcript).report.healthy


def test_a_file_with_no_message_is_never_healthy() -> None:
    with pytest.raises(TranscriptError, match="no conversation messages.*closest"):
        load_all(jsonl([{"type": "summary", "summary": "x", "leafUuid": "u"}]), "empty.jsonl")
    rollout = [{"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}},
               {"timestamp": "t", "type": "event_msg", "payload": {"type": "token_count"}}]
    with pytest.raises(TranscriptError, match="read as codex"):
        load_all(jsonl(rollout), "meta-only.jsonl")


# ---------------------------------------------------------------- several documents in one file


def inspect_sample(ident: Any, epoch: int, answered: bool) -> dict[str, Any]:
    messages: list[Any] = [{"role": "user", "content": "go", "source": "input"},
                           {"role": "assistant", "content": "", "tool_calls": [
                               {"id": f"c{ident}{epoch}", "function": "bash", "arguments": {"cmd": "ls"},
                                "type": "function"}]}]
    if answered:
        messages.append({"role": "tool", "content": "ok", "tool_call_id": f"c{ident}{epoch}", "function": "bash",
                         "error": None})
    return {"id": ident, "epoch": epoch, "input": "go", "target": "", "messages": messages}


def test_an_eval_log_is_one_transcript_per_sample_in_json_and_in_the_zip() -> None:
    samples = [inspect_sample(1, 1, True), inspect_sample(1, 2, False), inspect_sample("b", 1, True)]
    log = {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": samples}
    found = load_all(json.dumps(log).encode(), "log.json")
    assert [t.name for t in found] == ["sample:1", "sample:1@2", "sample:b"]
    assert [analyze(t).report.healthy for t in found] == [True, False, True]
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        for sample in reversed(samples):
            z.writestr(f"samples/{sample['id']}_epoch_{sample['epoch']}.json", json.dumps(sample))
    assert [t.name for t in load_all(archive.getvalue(), "log.eval")] == ["sample:1", "sample:1@2", "sample:b"]
    with pytest.raises(TranscriptError, match="holds 3 transcripts .*--thread"):
        read_bytes(json.dumps(log).encode(), "log.json")


def test_repair_of_a_file_of_several_transcripts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def log(*samples: dict[str, Any]) -> Path:
        path = tmp_path / f"log{len(list(tmp_path.iterdir()))}.json"
        path.write_text(json.dumps({"version": 2, "eval": {}, "samples": list(samples)}))
        return path

    healthy = log(inspect_sample(1, 1, True), inspect_sample(2, 1, True))
    out = tmp_path / "out.json"
    assert main(["repair", str(healthy), "-o", str(out)]) == 0
    assert out.read_bytes() == healthy.read_bytes()  # nothing to repair: the file as it is
    one = log(inspect_sample(1, 1, True), inspect_sample(2, 1, False))
    capsys.readouterr()
    assert main(["repair", str(one), "-o", str(out), "--now", str(NOW)]) == 0
    note = capsys.readouterr().err
    assert f"repairing {one}#sample:2, the one transcript of 2 in the file that needs repair" in note
    written = json.loads(out.read_bytes())
    assert [m["role"] for m in written] == ["user", "assistant", "tool"]  # the broken sample, repaired
    two = log(inspect_sample(1, 1, False), inspect_sample(2, 1, False))
    capsys.readouterr()
    assert main(["repair", str(two), "-o", str(out)]) == 2
    error = capsys.readouterr().err
    assert "sample:1, sample:2" in error and "--thread" in error
    assert main(["repair", str(two), "--thread", "sample:2", "-o", str(out), "--now", str(NOW)]) == 0
    assert json.loads(out.read_bytes())[-1]["tool_call_id"] == "c21"


# ---------------------------------------------------------------- what readers must not lose


def test_swe_agent_tool_call_ids_pair_and_are_written_back() -> None:
    history = [{"role": "user", "content": "fix it", "agent": "main", "message_type": "observation"},
               {"role": "assistant", "content": "look", "agent": "main", "message_type": "action",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}},
                               {"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
               {"role": "tool", "content": "two", "agent": "main", "message_type": "observation",
                "tool_call_ids": ["c2"]},
               {"role": "tool", "content": "one", "agent": "main", "message_type": "observation",
                "tool_call_ids": ["c1"]}]
    transcript = read_bytes(json.dumps({"trajectory": [], "history": history, "info": {}}).encode(), "x.traj")
    assert transcript.format == "swe-agent"
    analysis = analyze(transcript, now=lambda: NOW)
    assert analysis.report.summary.strays == 0 and analysis.report.summary.synthesized == 0
    written = json.loads(export_view(analysis))["history"]
    assert [m.get("tool_call_ids") for m in written[2:]] == [["c1"], ["c2"]] and "tool_call_id" not in written[2]
    assert [m["content"] for m in written[2:]] == ["one", "two"]  # real results kept, put in call order


def test_a_gemini_function_response_inside_the_model_turn_pairs() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "status?"}]},
                         {"role": "model", "parts": [{"functionCall": {"name": "get", "args": {}}},
                                                     {"functionResponse": {"name": "get", "response": {"ok": 1}}}]},
                         {"role": "model", "parts": [{"text": "shipped"}]}]}
    transcript = read_bytes(json.dumps(body).encode(), "g.json")
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "toolResult", "assistant"]
    analysis = analyze(transcript, provider="gemini")
    report = analysis.report
    assert report.summary.synthesized == 0 and report.summary.strays == 0  # the response answers the call
    # (as recorded, Gemini 3 refuses the call for its missing thought signature; the view signs it and is taken)
    assert analysis.verdicts["gemini"].before and analysis.verdicts["gemini"].after == []
    assert json.loads(write_bytes(transcript, list(transcript.messages))) == body


def test_a_codex_custom_tool_call_is_a_call_and_its_receipt_is_a_custom_output() -> None:
    lines = [{"timestamp": "t1", "type": "session_meta", "payload": {"id": "x"}},
             {"timestamp": "t2", "type": "response_item",
              "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}},
             {"timestamp": "t3", "type": "response_item", "payload": {"type": "custom_tool_call", "status": "completed",
                                                                      "call_id": "p1", "name": "apply_patch",
                                                                      "input": "*** Begin Patch"}},
             {"timestamp": "t4", "type": "event_msg", "payload": {"type": "turn_aborted"}}]
    transcript = read_bytes(jsonl(lines), "rollout.jsonl")
    assert transcript.format == "codex"
    analysis = analyze(transcript, now=lambda: NOW)
    assert analysis.report.summary.orphaned_calls == 1
    written = lines_of(export_view(analysis))
    assert written[:3] == lines[:3]
    receipt = next(e for e in written if e["type"] == "response_item" and e["payload"]["type"].endswith("_output"))
    assert receipt["payload"]["type"] == "custom_tool_call_output" and receipt["payload"]["call_id"] == "p1"


@pytest.mark.parametrize("name", ["codex_turn_aborted.codex.jsonl"])
def test_a_codex_receipt_line_takes_the_time_of_the_line_written_before_it(name: str) -> None:
    """An aborted turn's call answered by a receipt: the new line goes right after the call's line and takes its
    timestamp (the module's promise), so the rollout's lines stay in time order; it took the file's last line's."""
    path = Path(__file__).parent / "real" / name
    transcript = read_bytes(path.read_bytes(), name)
    written = lines_of(export_view(analyze(transcript, now=lambda: NOW)))
    [at] = [n for n, line in enumerate(written) if line.get("payload", {}).get("type") == "function_call_output"
            and "interrupted" in line["payload"]["output"]]
    assert written[at - 1]["payload"]["type"] == "function_call"
    assert written[at]["timestamp"] == written[at - 1]["timestamp"]
    stamps = [line["timestamp"] for line in written]
    assert stamps == sorted(stamps)


def test_openhands_is_read_only_and_its_view_is_written_as_chat() -> None:
    meta = {"function_name": "execute_bash", "tool_call_id": "t1", "total_calls_in_response": 1,
            "model_response": {"id": "r1", "choices": [{"message": {"role": "assistant", "content": "", "tool_calls": [
                {"id": "t1", "type": "function", "function": {"name": "execute_bash", "arguments": "{}"}}]}}]}}
    events = [{"id": 0, "source": "user", "action": "message", "args": {"content": "hi"}},
              {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"}, "tool_call_metadata": meta}]
    transcript = read_bytes(json.dumps(events).encode(), "oh.json")
    assert (transcript.format, transcript.writes_as) == ("openhands", "openai-chat")
    analysis = analyze(transcript, now=lambda: NOW)
    written = json.loads(export_view(analysis))
    assert [m["role"] for m in written["messages"]] == ["user", "assistant", "tool"]
    with pytest.raises(TranscriptError, match="read-only"):
        to_native(transcript.messages, "openhands")


def _session() -> list[dict[str, Any]]:
    return [cc("user", "u1", None, "list the files"),
            cc("assistant", "a1", "u1", [use("t1")], "m1"),
            cc("user", "u2", "a1", result("t1")),
            cc("assistant", "a2", "u2", TEXT, "m2")]


@pytest.mark.parametrize("replayed", [
    pytest.param(lambda s: s + s, id="the whole history written again (a compaction replay)"),
    pytest.param(lambda s: s[:3] + [s[2]] + s[3:], id="a tool result line written twice"),
    pytest.param(lambda s: s[:1] + [s[0]] + s[1:], id="a prompt line written twice"),
])
def test_an_entry_written_again_with_its_uuid_is_one_message(replayed: Any) -> None:
    """Claude Code re-writes history into the file, uuids and all, and loads a session by uuid: a copy is
    the same message, never a reused id, a duplicate result or an abandoned branch."""
    data = jsonl(replayed(_session()))
    [transcript] = load_all(data, "s.jsonl")
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "toolResult", "assistant"]
    report = analyze(transcript).report
    assert report.healthy and not report.changed and report.findings == []
    written = write_bytes(transcript, list(transcript.messages))
    assert lines_of(written) == lines_of(data)  # written back as recorded, copies and all


def test_a_uuid_reused_with_another_message_is_still_read() -> None:
    """Only an exact copy is a replay: the same uuid on a different message is read (and judged)."""
    entries = _session()
    entries.append(cc("user", "u2", "a2", result("t1", "again")))  # same uuid, another result
    [transcript] = load_all(jsonl(entries), "s.jsonl")
    assert [m["role"] for m in transcript.messages].count("toolResult") == 2


def test_repair_picks_the_transcript_check_flags_even_when_only_its_provider_refuses_it(tmp_path: Path,
                                                                                       capsys: Any) -> None:
    """`check` judges each transcript by its target provider (a fine-tuning line: OpenAI Chat, which refuses a
    call id over 40 characters); `repair` chose the transcript to write by the universal invariants alone,
    found none needing repair and wrote the file back as it was, exit 0, while `check` exits 1 on it."""
    long = "call_" + "x" * 50
    lines = [{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]},
             {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [
                 {"id": long, "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": long, "content": "r"}, {"role": "assistant", "content": "done"}]}]
    path, out = tmp_path / "tune.openai-chat.jsonl", tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["check", str(path)]) == 1
    capsys.readouterr()
    assert main(["repair", str(path), "-o", str(out)]) == 0
    said = capsys.readouterr().err
    assert "note: repairing" in said and "#line:2" in said
    assert main(["check", str(out)]) == 0
    assert out.read_bytes() != path.read_bytes()
