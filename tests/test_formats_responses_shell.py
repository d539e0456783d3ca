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
