"""A Responses call the strict view renames is written without its item `id`.

The API rejects an input holding one item id twice ("Duplicate item found with id fc_..."). A turn stored
twice (a retry that appended the same model output again) holds the same call under the same item id; the
strict view renames the second call's call_id, and writing it back with the recorded item id made a request
the API refuses, which the engine's own rule set flagged (found by an adversarial review).  A renamed call is
no longer the item the API stored under that id, so its id is left out (an input item's id is optional); a
call kept as it was keeps its id.
"""

from __future__ import annotations

from typing import Any

from integrity import check
from integrity.formats import read_document, to_native
from integrity.formats.container import Document
from integrity.guards import request_verdict

FORMAT = "openai-responses"
USER = {"role": "user", "content": "look it up"}
AGAIN = {"role": "user", "content": "again?"}


def call(call_id: str, item_id: str) -> dict[str, Any]:
    return {"type": "function_call", "id": item_id, "call_id": call_id, "name": "lookup", "arguments": "{}",
            "status": "completed"}


def output(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def view_of(entries: list[Any]) -> list[Any]:
    transcript = read_document(Document(entries, [0] * len(entries), "array"), "<test>", FORMAT)
    result = check(transcript, provider=FORMAT, policy="strict", depth="view")
    assert result.view is not None
    return to_native(result.view, FORMAT, transcript).messages


def test_a_turn_stored_twice_is_written_without_the_repeated_item_id() -> None:
    entries = [USER, call("c1", "fc_c1"), output("c1", "one"), call("c1", "fc_c1"), output("c1", "one"), AGAIN]
    assert not request_verdict(entries, FORMAT, FORMAT).legal  # as recorded: duplicate item id (and call id)
    written = view_of(entries)
    calls = [item for item in written if item.get("type") == "function_call"]
    assert [item["call_id"] for item in calls] == ["c1", "c1_2"]
    assert calls[0] is entries[1]  # the first call is kept as it was, its id with it
    assert "id" not in calls[1] and calls[1]["status"] == "completed"  # its other fields kept
    verdict = request_verdict(written, FORMAT, FORMAT)
    assert verdict.legal, verdict.violations
    assert [text for _, text in verdict.results] == ["one", "one"]


def test_a_call_renamed_for_its_length_loses_its_item_id_and_one_kept_keeps_it() -> None:
    long_id = "call_" + "x" * 70  # longer than the 64 characters Responses takes
    entries = [USER, call(long_id, "fc_1"), output(long_id, "r"), call("c2", "fc_2"), output("c2", "s"), AGAIN]
    written = view_of(entries)
    calls = [item for item in written if item.get("type") == "function_call"]
    assert calls[0]["call_id"] != long_id and "id" not in calls[0]
    assert calls[1] is entries[3]
    assert request_verdict(written, FORMAT, FORMAT).legal
