"""A pi session on an OpenAI, Codex or Azure Responses model is judged as pi sends it (integrity.formats.pi_responses).

pi keeps an OpenAI call's two ids joined in one, `call_…|fc_…` (83 characters for the ids OpenAI gives, as a
capture of pi-coding-agent 0.84.2 spells them), and sends them apart.  Judged as our Responses writer wrote the
joined id, every such session was refused ("string too long") and its ids renamed by the repair, which pi never
needed; judged as pi sends it, a healthy one is healthy, and a broken one is refused in the words the API uses for
what pi sends (the `call_…` alone).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_pi_session_model import answer, as_bytes, session, user

from integrity import check, load_all
from integrity.cli import main
from integrity.formats.pi_js import short_hash
from integrity.formats.pi_responses import sent_call_id
from integrity.providers.canonical import judged_request

CODEX = ("openai-codex", "openai-codex-responses", "gpt-5.6-luna")
OLDER = ("openai-codex", "openai-codex-responses", "gpt-5.5")
FIRST = "call_Fwnbxpxoce0GylWNeF4nv8go|fc_0188afd38a9406af016aa8ae8029f487d1ba118c2df40e5073"
SECOND = "call_lpx28YDoQbtIZeceE5fq9oN1|fc_0188afd38a9406af016aa8ae81d48487d18f781afc7e7241ae"
REASONING = {"type": "reasoning", "id": "rs_0188afd38a9406af016aa8ae7f9c", "summary": [], "encrypted_content": "gAAA"}


def call(call_id: str, name: str = "read") -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {"path": "notes.txt"}}


def result(call_id: str, text: str = "alpha\n") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "read",
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 3}


def text(words: str, item_id: str | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": words}
    if item_id is not None:
        block["textSignature"] = json.dumps({"v": 1, "id": item_id, "phase": "final_answer"})
    return block


THINKING = {"type": "thinking", "thinking": "Read it first.", "thinkingSignature": json.dumps(REASONING)}


def healthy() -> list[dict[str, Any]]:
    return session({"provider": "openai-codex", "modelId": "gpt-5.6-luna"}, user("Read notes.txt, then echo done."),
                   answer([THINKING, call(FIRST)], CODEX, "toolUse"), result(FIRST),
                   answer([call(SECOND, "bash")], CODEX, "toolUse"), result(SECOND, "done\n"),
                   answer([text("done", "msg_0188afd38a9406af016aa8ae83a8f087d1b0d9cd897bab55f9")], CODEX),
                   user("exit"), answer([], CODEX, "aborted"))


def write(tmp_path: Path, entries: list[dict[str, Any]], name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(as_bytes(entries))
    return path


def sent(entries: list[dict[str, Any]]) -> list[Any]:
    [transcript] = load_all(as_bytes(entries), "s.jsonl")
    native, _, _ = judged_request(transcript.messages, "openai-responses", transcript, as_recorded=True)
    return native


def test_a_healthy_codex_session_is_healthy_for_the_model_it_talks_to(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, healthy())
    assert len(FIRST) == 83 and sent_call_id(FIRST) == "call_Fwnbxpxoce0GylWNeF4nv8go"
    for asked in ([], ["--provider", "openai-responses"]):
        assert main(["check", str(path), *asked]) == 0
        out = capsys.readouterr().out
        assert "healthy" in out and "accepted as recorded by openai-responses" in out and "renamed" not in out
    [transcript] = load_all(path.read_bytes(), str(path))
    result_ = check(transcript)
    assert result_.target == "openai-responses" and result_.exit_code == 0
    assert result_.report.healthy and result_.report.summary.renamed == 0  # the ids pi sends are ones OpenAI gave


def test_pi_sends_the_two_ids_apart_and_the_items_openai_gave() -> None:
    items = sent(healthy())
    assert items[0] == {"role": "user", "content": [{"type": "input_text", "text": "Read notes.txt, then echo done."}]}
    assert items[1] == REASONING  # the reasoning item of the thinking's signature, as it is
    assert items[2] == {"type": "function_call", "call_id": "call_Fwnbxpxoce0GylWNeF4nv8go", "name": "read",
                        "arguments": '{"path":"notes.txt"}',
                        "id": "fc_0188afd38a9406af016aa8ae8029f487d1ba118c2df40e5073"}
    assert items[3] == {"type": "function_call_output", "call_id": "call_Fwnbxpxoce0GylWNeF4nv8go",
                        "output": "alpha\n"}
    assert [item.get("call_id") for item in items[4:6]] == ["call_lpx28YDoQbtIZeceE5fq9oN1"] * 2
    assert items[6]["id"] == "msg_0188afd38a9406af016aa8ae83a8f087d1b0d9cd897bab55f9"
    assert items[6]["content"] == [{"type": "output_text", "text": "done", "annotations": []}]
    assert items[7] == {"role": "user", "content": [{"type": "input_text", "text": "exit"}]}
    assert len(items) == 8  # the aborted answer is not sent


def test_an_unanswered_call_is_refused_in_the_words_of_what_pi_sends(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # (the call ends the session: pi answers a call left alone only when a message follows it, test_pi_no_result)
    entries = session(user("Read notes.txt."), answer([call(FIRST)], CODEX, "toolUse"))
    path = write(tmp_path, entries)
    before = path.read_bytes()
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "rejected as recorded by openai-responses" in out
    assert main(["check", "--provider", "openai-responses", str(path)]) == 1
    assert "input[1]: No tool output found for function call call_Fwnbxpxoce0GylWNeF4nv8go." \
        in capsys.readouterr().out
    fixed = tmp_path / "fixed.jsonl"
    assert main(["repair", str(path), "-o", str(fixed)]) == 0
    assert path.read_bytes() == before
    assert main(["check", str(fixed)]) == 0
    receipt = next(json.loads(line)["message"] for line in fixed.read_text().splitlines()
                   if '"toolResult"' in line)
    assert receipt["toolCallId"] == FIRST  # pi pairs a result with its call by the whole id


def test_an_answer_written_twice_is_refused_for_its_item_id_and_renamed_apart(tmp_path: Path,
                                                                             capsys: pytest.CaptureFixture[str]
                                                                             ) -> None:
    entries = session(user("Read notes.txt."), answer([call(FIRST)], CODEX, "toolUse"),
                      answer([call(FIRST)], CODEX, "toolUse"), result(FIRST),
                      answer([text("done", "msg_01")], CODEX))
    path = write(tmp_path, entries)
    assert main(["check", "--provider", "openai-responses", str(path)]) == 1
    assert "Duplicate item found with id fc_0188afd38a9406af016aa8ae8029f487d1ba118c2df40e5073." \
        in capsys.readouterr().out
    fixed = tmp_path / "fixed.jsonl"
    assert main(["repair", str(path), "-o", str(fixed)]) == 0
    assert main(["check", str(fixed)]) == 0
    ids = [item.get("id") for item in sent([json.loads(line) for line in fixed.read_text().splitlines()])
           if item.get("type") == "function_call"]
    assert ids == ["fc_0188afd38a9406af016aa8ae8029f487d1ba118c2df40e5073",
                   "fc_0188afd38a9406af016aa8ae8029f487d1ba118c2df40e5073_2"]  # each part of the id renamed


def test_another_models_answer_is_sent_without_what_only_its_model_reads() -> None:
    unsafe = "call_a.b|item:1"
    entries = session(user("Read notes.txt."),
                      answer([THINKING, text("Reading it.", "msg_00"), call(FIRST), call(unsafe)], OLDER, "toolUse"),
                      result(FIRST), result(unsafe), answer([text("done", "msg_01")], CODEX))
    items = sent(entries)
    thought, said = items[1], items[2]
    assert thought["type"] == said["type"] == "message"
    assert thought["id"] != said["id"]  # unique ids: earendil-works/pi#5151
    assert thought["content"][0]["text"] == "Read it first." and said["content"][0]["text"] == "Reading it."
    calls = [item for item in items if item.get("type") == "function_call"]
    assert calls[0] == {"type": "function_call", "call_id": "call_Fwnbxpxoce0GylWNeF4nv8go", "name": "read",
                        "arguments": '{"path":"notes.txt"}'}  # no `fc_` item id of another model
    assert calls[1]["call_id"] == "call_a_b" and "id" not in calls[1]  # normalizeToolCallId: fc_item_1, left out
    outputs = [item["call_id"] for item in items if item.get("type") == "function_call_output"]
    assert outputs == ["call_Fwnbxpxoce0GylWNeF4nv8go", "call_a_b"]
    [transcript] = load_all(as_bytes(entries), "s.jsonl")
    assert check(transcript).exit_code == 0


def test_a_text_id_longer_than_openai_takes_is_sent_as_pi_shortens_it() -> None:
    long_id = "msg_0188afd38a9406af016aa8ae83a8f087d1b0d9cd897bab55f9" + "x" * 20
    entries = session(user("hi"), answer([text("hello", long_id)], CODEX))
    assert sent(entries)[1]["id"] == "msg_pgqbk1wr731w"


@pytest.mark.parametrize(("value", "digest"), [
    ("msg_0188afd38a9406af016aa8ae83a8f087d1b0d9cd897bab55f9" + "x" * 20, "pgqbk1wr731w"),
    ("", "k4n83c7h0j2b"), ("h\u00e9llo \U0001f600 w\u00f6rld", "zpm4hl1o2ak9i"), ("a" * 100, "1jlqf2piizwxq")])
def test_short_hash_is_pis(value: str, digest: str) -> None:
    """Vectors computed by pi's own shortHash (packages/ai/src/utils/hash.ts, run on Node 18)."""
    assert short_hash(value) == digest


def test_an_id_without_a_bar_is_sent_whole_and_renamed_when_too_long(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    long_id = "call_" + "x" * 70
    entries = session(user("hi"), answer([call(long_id)], CODEX, "toolUse"), result(long_id),
                      answer([text("ok", "msg_01")], CODEX))
    path = write(tmp_path, entries)
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "renamed ids 2" in out and "rejected as recorded by openai-responses" in out
