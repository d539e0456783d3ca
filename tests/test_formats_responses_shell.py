"""A Responses `local_shell_call_output` in the shape of openai's own type answers its local_shell_call.

openai's `LocalShellCallOutput` (openai.types.responses.response_input_item_param) names the call it
answers by `id` (the call's call_id) and has no `call_id`; the Agents SDK writes `call_id`.  Both are read
as the call's result, and either is written back as it came (a rebuilt one keeps the shape it was read in).
"""

from __future__ import annotations

import json
from typing import Any

from integrity import check
from integrity.formats import read_document, to_native
from integrity.formats.container import Document
from integrity.guards import request_verdict

FORMAT = "openai-responses"
USER = {"role": "user", "content": "list the files"}
AGAIN = {"role": "user", "content": "and now?"}


def shell(call_id: str, item_id: str = "ls_1") -> dict[str, Any]:
    return {"type": "local_shell_call", "id": item_id, "call_id": call_id, "status": "completed",
            "action": {"type": "exec", "command": ["ls"], "env": {}}}


def typed_output(call_id: str, text: str) -> dict[str, Any]:
    """The shape of openai's LocalShellCallOutput param: `id` is the call's call_id."""
    return {"type": "local_shell_call_output", "id": call_id, "output": text}


def read(entries: list[Any]) -> Any:
    return read_document(Document(entries, [0] * len(entries), "array"), "<test>", FORMAT)


def test_the_typed_shape_answers_its_call_and_is_written_back_byte_identical() -> None:
    entries = [USER, shell("k1"), typed_output("k1", "files: a b"), AGAIN]
    before = json.dumps(entries)
    transcript = read(entries)
    result = check(transcript, provider=FORMAT, policy="strict", depth="view")
    assert result.healthy, result.status
    native = to_native(transcript.messages, FORMAT, transcript).messages
    assert all(a is b for a, b in zip(native, entries, strict=True))
    assert json.dumps(native) == before
    verdict = request_verdict(entries, FORMAT, FORMAT)
    assert verdict.legal and verdict.results == [("k1", "files: a b")] and verdict.receipts == 0


def test_the_sdks_own_shape_still_answers_its_call() -> None:
    entries = [USER, shell("k1"), {"type": "local_shell_call_output", "call_id": "k1", "output": "a b"}, AGAIN]
    assert request_verdict(entries, FORMAT, FORMAT).results == [("k1", "a b")]


def test_a_typed_output_without_its_call_is_still_a_stray() -> None:
    verdict = request_verdict([USER, typed_output("k_gone", "x"), AGAIN], FORMAT, FORMAT)
    assert not verdict.healthy


def test_a_rebuilt_typed_output_keeps_the_id_shape() -> None:
    """The same call id used twice: the strict repair renames the second call and its output; the
    output written anew names its call by `id`, as it was read, with no `call_id` added."""
    entries = [USER, shell("k1"), typed_output("k1", "one"), AGAIN, shell("k1", "ls_2"), typed_output("k1", "two"),
               AGAIN]
    transcript = read(entries)
    result = check(transcript, provider=FORMAT, policy="strict", depth="view")
    assert not result.healthy and result.view is not None
    native = to_native(result.view, FORMAT, transcript).messages
    outputs = [entry for entry in native if entry.get("type") == "local_shell_call_output"]
    calls = [entry for entry in native if entry.get("type") == "local_shell_call"]
    assert outputs[0] is entries[2]
    assert "call_id" not in outputs[1] and outputs[1]["id"] == calls[1]["call_id"] != "k1"
    assert outputs[1]["output"] == "two"
    assert request_verdict(native, FORMAT, FORMAT).results == [("k1", "one"), (calls[1]["call_id"], "two")]


SHELL_CALL = {"type": "shell_call", "id": "sh_1", "call_id": "call_sh1", "status": "completed",
              "action": {"commands": ["ls -la"], "timeout_ms": 120000, "max_output_length": 4096}}
SHELL_OUTPUT = {"type": "shell_call_output", "call_id": "call_sh1", "max_output_length": 4096,
                "output": [{"stdout": "a.txt\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]}
PATCH_CALL = {"type": "apply_patch_call", "id": "apc_1", "call_id": "call_ap1", "status": "completed",
              "operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n"}}
PATCH_OUTPUT = {"type": "apply_patch_call_output", "call_id": "call_ap1", "status": "completed", "output": "Done"}




def test_the_shell_and_apply_patch_tools_calls_pair_with_their_outputs_and_are_written_back_whole() -> None:
    """GPT-5.1's shell and apply_patch tools: their calls were kept opaque, so a dangling one was "healthy"."""
    entries = [USER, SHELL_CALL, SHELL_OUTPUT, PATCH_CALL, PATCH_OUTPUT, AGAIN]
    before = json.dumps(entries)
    transcript = read(entries)
    calls = [part for message in transcript.messages if message["role"] == "assistant"
             for part in message["content"] if part["type"] == "toolCall"]
    assert [(call["name"], call["id"], call["arguments"]) for call in calls] == [
        ("shell", "call_sh1", SHELL_CALL["action"]), ("apply_patch", "call_ap1", PATCH_CALL["operation"])]
    assert [message.get("toolCallId") for message in transcript.messages if message["role"] == "toolResult"] \
        == ["call_sh1", "call_ap1"]
    verdict = check(transcript, provider=FORMAT)
    assert verdict.healthy and not verdict.providers[FORMAT].before
    assert json.dumps(to_native(transcript.messages, FORMAT, transcript).messages) == before


def test_a_dangling_shell_call_is_refused_with_the_apis_text_and_answered() -> None:
    transcript = read([USER, SHELL_CALL, AGAIN])
    verdict = check(transcript, provider=FORMAT)
    assert [(v.rule, v.position, v.error) for v in verdict.providers[FORMAT].before] == [
        ("shell_call_unanswered", "input[1]", "No tool output found for shell call call_sh1.")]
    assert not verdict.providers[FORMAT].after and verdict.report.summary.orphaned_calls == 1
    patch = read([USER, PATCH_CALL, AGAIN])
    said = check(patch, provider=FORMAT).providers[FORMAT].before
    assert [(v.rule, v.error) for v in said] == [
        ("apply_patch_call_unanswered", "No tool output found for apply patch call call_ap1.")]


def test_an_apply_patch_output_after_a_user_turn_is_moved_back_to_its_call() -> None:
    """Not refused as recorded (the API pairs by call_id across the input), but the view puts it after its call."""
    transcript = read([USER, PATCH_CALL, AGAIN, PATCH_OUTPUT])
    verdict = check(transcript, provider=FORMAT, depth="view")
    assert not verdict.providers[FORMAT].before and not verdict.providers[FORMAT].after
    assert verdict.view is not None
    assert to_native(verdict.view, FORMAT, transcript).messages == [USER, PATCH_CALL, PATCH_OUTPUT, AGAIN]
