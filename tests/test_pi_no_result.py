"""A pi session's call left without its result is judged as pi sends it (pi_requests.sent_messages).

Before every request pi's transformMessages (pi-mono packages/ai/src/providers/transform-messages.ts) answers each
call that no result answers by the time the next answer or user message comes with an error result "No result
provided".  Judged as the file lists it, such a session (the user typed on after a call, or the answer after it was
aborted) was "rejected as recorded" by the model it talks to: a request pi never sends.  It is accepted as pi sends
it; the call still has no result of its own (lossy: `check` exits 1), and the repair answers it with the receipt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_pi_responses import CODEX, FIRST, SECOND, call, result, sent
from test_pi_session_model import CLAUDE, answer, session, user

from integrity import check, load_all
from integrity.cli import main
from integrity.formats.pi_requests import NO_RESULT, sent_messages
from integrity.kinds import Severity
from integrity.providers.canonical import judged_request

REAL = Path(__file__).resolve().parent / "real"
CODEX_MODEL = {"provider": "openai-codex", "modelId": "gpt-5.6-luna"}


def outputs(native: list[Any]) -> list[tuple[str, str]]:
    return [(item["call_id"], item["output"] if isinstance(item["output"], str) else json.dumps(item["output"]))
            for item in native if isinstance(item, dict) and item.get("type") == "function_call_output"]


def test_the_real_session_is_accepted_as_pi_sends_it_and_still_needs_its_result(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = REAL / "pi_codex_unanswered_call.pi-session.jsonl"
    before = path.read_bytes()
    assert main(["check", str(path)]) == 1  # the call has no result of its own
    out = capsys.readouterr().out
    assert "accepted as recorded by openai-responses" in out and "rejected" not in out, out
    [transcript] = load_all(before, path.name)
    native, sources, _ = judged_request(transcript.messages, "openai-responses", transcript, as_recorded=True)
    kinds = [item.get("type") or item.get("role") for item in native]
    assert kinds == ["user", "function_call", "function_call_output", "user"], native
    # pi's error result, under the id it sends (the call_… part), right after the call and before the prompt
    assert native[2]["call_id"] == "call_Qm3b1vT7yXk2LpN9aR4sWd8E" and NO_RESULT in json.dumps(native[2]["output"])
    assert sources[2] == sources[1] == [1]  # it stands for the answer whose call it answers
    report = check(transcript).report
    assert report.severity is Severity.LOSSY and not report.healthy
    fixed = tmp_path / "fixed.jsonl"
    assert main(["repair", str(path), "-o", str(fixed)]) == 0
    assert path.read_bytes() == before
    assert main(["check", str(fixed)]) == 0
    receipts = [json.loads(line)["message"] for line in fixed.read_text().splitlines() if '"toolResult"' in line]
    assert [r["toolCallId"] for r in receipts] == [FIRST_OF_REAL]
    assert NO_RESULT not in json.dumps(receipts)  # the repair's receipt says the call was interrupted


FIRST_OF_REAL = "call_Qm3b1vT7yXk2LpN9aR4sWd8E|fc_07c1e2d3f4a5b6c7d8e9f00112233445566778899aabbccdd1"


@pytest.mark.parametrize("after", ["user", "aborted answer"])
def test_a_call_left_alone_is_answered_when_the_next_message_comes(after: str) -> None:
    follow = user("Are you still there?") if after == "user" else answer([], CODEX, "aborted")
    entries = session(CODEX_MODEL, user("Read notes.txt."), answer([call(FIRST), call(SECOND)], CODEX, "toolUse"),
                      result(SECOND), follow)
    native = sent(entries)
    # SECOND's own result is sent where it is; FIRST gets pi's error result after it, as transformMessages adds them
    assert outputs(native) == [(SECOND.split("|")[0], "alpha\n"), (FIRST.split("|")[0], NO_RESULT)], native
    [transcript] = load_all(b"".join(json.dumps(e).encode() + b"\n" for e in entries), "s.jsonl")
    verdict = check(transcript).providers["openai-responses"]
    assert verdict.accepted_as_recorded, [v.error for v in verdict.before]


def test_a_call_at_the_end_is_not_answered_so_and_is_refused() -> None:
    """pi answers a call left alone only when a message follows it: a session ending with it is sent so (the
    runtime is still running it), and refused for the result it lacks."""
    entries = session(CODEX_MODEL, user("Read notes.txt."), answer([call(FIRST)], CODEX, "toolUse"))
    assert outputs(sent(entries)) == []
    [transcript] = load_all(b"".join(json.dumps(e).encode() + b"\n" for e in entries), "s.jsonl")
    errors = [v.error for v in check(transcript).providers["openai-responses"].before]
    assert errors == ["No tool output found for function call call_Fwnbxpxoce0GylWNeF4nv8go."]


def test_a_result_after_the_next_message_is_sent_after_pis_own() -> None:
    """A result recorded after the prompt that followed its call: pi answers the call first, at the prompt, and
    sends the late result where it is (both go to the model)."""
    entries = session(CODEX_MODEL, user("Read notes.txt."), answer([call(FIRST)], CODEX, "toolUse"),
                      user("again"), result(FIRST))
    native = sent(entries)
    assert [item.get("type") or item.get("role") for item in native] == \
        ["user", "function_call", "function_call_output", "user", "function_call_output"]
    assert outputs(native) == [(FIRST.split("|")[0], NO_RESULT), (FIRST.split("|")[0], "alpha\n")]


def test_toward_anthropic_the_error_result_is_a_tool_result_in_the_next_user_turn() -> None:
    entries = session({"provider": "anthropic", "modelId": "claude-sonnet-4-5"}, user("go"),
                      answer([{"type": "toolCall", "id": "toolu_01A", "name": "read", "arguments": {}}], CLAUDE,
                             "toolUse"), user("stop that"))
    [transcript] = load_all(b"".join(json.dumps(e).encode() + b"\n" for e in entries), "s.jsonl")
    native, _, _ = judged_request(transcript.messages, "anthropic", transcript, as_recorded=True)
    results = [block for entry in native if entry["role"] == "user" for block in entry["content"]
               if isinstance(block, dict) and block.get("type") == "tool_result"]
    assert [(r["tool_use_id"], r.get("is_error")) for r in results] == [("toolu_01A", True)]
    assert check(transcript).providers["anthropic"].accepted_as_recorded


def test_messages_pi_sends_as_they_are_are_not_copied() -> None:
    healthy = [user("go"), answer([call(FIRST)], CODEX, "toolUse"), result(FIRST), answer([], CODEX)]
    assert sent_messages([entry["message"] for entry in session(*healthy)[1:]]) is None
    assert sent_messages([]) is None


@pytest.mark.parametrize(("name", "call_id", "text"), [
    ("pi_codex_unanswered_call.pi-session.jsonl", FIRST_OF_REAL, NO_RESULT),
    ("codex_turn_aborted.codex.jsonl", "call_Lk1Zx2Cv3Bn4Mm5Qw6Er7Ty8U", "aborted")])
def test_every_edge_says_why_the_provider_takes_a_call_without_its_result(
        name: str, call_id: str, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    """"Accepted as recorded" next to an orphaned call is explained by the result the runtime sends of its own
    (formats.answered_as_sent, the same pass that writes the request judged), carried once by the report
    (`runtime_results`) and said alike by `check`'s text, its JSON, the API and the Inspector's row."""
    from inspector.rows import aligned_rows
    from integrity import analyze
    from integrity.formats import answered_as_sent

    [transcript] = [t for t in load_all((REAL / name).read_bytes(), name) if t.checked]
    assert answered_as_sent(transcript) == {call_id: text}
    assert check(transcript).report.runtime_results == {call_id: text}
    analysis = analyze(transcript)
    assert analysis.report.runtime_results == {call_id: text}
    [row] = [row for row in aligned_rows(analysis) if row.kind == "orphaned_call"]
    assert f"sends it a result of its own as it sends the session, {json.dumps(text)}" in row.note, row.note
    assert main(["check", str(REAL / name)]) == 1
    said = f"its runtime ({transcript.format}) sends 1 call(s) a result of its own as it sends the session " \
           f"({json.dumps(text)}): the request judged holds it"
    assert said in capsys.readouterr().out.splitlines()[2]
    assert main(["check", "--json", str(REAL / name)]) == 1
    stored = json.loads(capsys.readouterr().out)
    assert stored["runtime_results"] == {call_id: text}
    from inspector.report_view import RUNTIME_SENDS, pairing_columns, pairing_rows
    from integrity import read_report

    reviewed = read_report(stored)  # the report page, reviewing the stored report
    assert RUNTIME_SENDS in pairing_columns(reviewed)
    assert [row[RUNTIME_SENDS] for row in pairing_rows(reviewed, None) if row["call id"] == call_id] == [text]
    from inspector.markdown import report_markdown

    review = report_markdown(reviewed).splitlines()  # the Markdown a reviewer pastes: the same column
    header = next(line for line in review if line.startswith("| call id"))
    assert header.endswith(f"| {RUNTIME_SENDS} |")
    assert review[review.index(header) + 2].endswith(f"| `{text}` |"), review
    from inspector.batch import RUNTIME_SENDS as BATCH_SENDS
    from inspector.batch import summarize_all
    from integrity.triage import triage_batch

    [batch] = [row for row in summarize_all(name, (REAL / name).read_bytes()) if row["status"] != "abandoned branch"]
    assert batch[BATCH_SENDS] == said  # the Batch page's row: `check`'s third line, word for word
    [table_row], findings, _ = triage_batch([str(REAL / name)], (), "strict", {})  # the fleet's table
    assert table_row["runtime_results"] == 1 and table_row["verdict"] == stored["verdict"]
    assert [(f["call_id"], f["message"]) for f in findings if f["source"] == "runtime"] == [(call_id, text)]
    healthy_path = REAL / "pi_healthy.pi-session.jsonl"
    [table_row], findings, _ = triage_batch([str(healthy_path)], (), "strict", {})
    assert table_row["runtime_results"] == 0 and not [f for f in findings if f["source"] == "runtime"]
    assert summarize_all(healthy_path.name, healthy_path.read_bytes())[0][BATCH_SENDS] == ""
    healthy = load_all(healthy_path.read_bytes(), healthy_path.name)
    assert answered_as_sent(healthy[0]) == {}
    assert check(healthy[0]).report.runtime_results is None
    assert main(["check", "--json", str(healthy_path)]) == 0
    stored = json.loads(capsys.readouterr().out)
    assert "runtime_results" not in stored
    assert RUNTIME_SENDS not in pairing_columns(read_report(stored))
    assert main(["check", str(healthy_path)]) == 0
    assert "its runtime" not in capsys.readouterr().out


def test_a_session_no_provider_judges_names_the_results_without_a_request_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A pi session naming no model is judged by the universal invariants: no request is judged, so `check` says
    what pi sends without saying a provider took it."""
    lines = [json.loads(line) for line in (REAL / "pi_codex_unanswered_call.pi-session.jsonl").read_text().splitlines()]
    for entry in lines:
        for key in ("api", "provider", "model"):
            entry.get("message", {}).pop(key, None)
    lines = [entry for entry in lines if entry["type"] != "model_change"]
    for parent, entry in zip([None, *(entry["id"] for entry in lines[1:])], lines[1:], strict=False):
        entry["parentId"] = parent  # the chain again, without the model's entry
    path = tmp_path / "nameless.pi-session.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in lines))
    assert main(["check", "--json", str(path)]) == 1
    stored = json.loads(capsys.readouterr().out)
    assert stored["runtime_results"] == {FIRST_OF_REAL: NO_RESULT} and "as_recorded" not in stored
    assert main(["check", str(path)]) == 1
    said = capsys.readouterr().out.splitlines()
    assert said[2].endswith(f"sends the session ({json.dumps(NO_RESULT)})"), said
