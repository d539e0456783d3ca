"""Every receipt the engine writes is still a receipt after a round trip through any format it writes.

pi-ai marks a receipt with `details == {"ok": false, "error": "interrupted"}`; other
formats keep only its text (and an error flag where they have one), so their readers
recognize a receipt by the engine's exact receipt texts: the reference's and the
strict policy's.  When the real result lands after a receipt, the strict policy keeps
the real one in the receipt's place; the reference treats the pair as it treats a
receipt and a real result in pi-ai.  A user's text that merely
looks like a receipt is a real result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from integrity import analyze, load
from integrity.formats import FORMATS, read_bytes, write_bytes
from integrity.loading import Transcript
from integrity.notes import NoteCode
from integrity.repair.messages import STRICT_MESSAGE, receipt_texts
from integrity.repair.views import light_transcript

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
ORPHAN = "orphaned_call.pi-ai.json"  # call_readme has no result: the view gets a receipt for it
LATE_TEXT = "# Project\nThe real README, finished late."


def _view_with_receipt(policy: str) -> tuple[Transcript, list[dict[str, Any]], str]:
    transcript = load((SAMPLES / ORPHAN).read_bytes(), ORPHAN)
    analysis = analyze(transcript, policy, now=lambda: 1_763_000_000_100)
    [receipt] = analysis.report.synthesized
    return transcript, analysis.view, receipt.call_id


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [part.get("text", "") for part in content or [] if isinstance(part, dict)]


def _read_back(transcript: Transcript, view: list[dict[str, Any]], format: str) -> list[dict[str, Any]]:
    data = write_bytes(transcript, view, format)
    return list(read_bytes(data, f"view.{format}", format).messages)


def _late_result(messages: list[dict[str, Any]], call_id: str) -> dict[str, Any]:
    """The real result, as the runtime records it when the tool finishes after the receipt was written
    (its call id as the read-back transcript names the call: formats without ids give it one)."""
    receipt = next(m for m in messages if m.get("role") == "toolResult" and m.get("toolName") == "read_file")
    return {"role": "toolResult", "toolCallId": receipt.get("toolCallId", call_id), "toolName": "read_file",
            "content": [{"type": "text", "text": LATE_TEXT}], "isError": False, "timestamp": 1_763_000_000_200}


def _outcome(messages: list[dict[str, Any]], policy: str) -> tuple[list[str], set[str], set[str]]:
    """The view's texts of read_file results, and the note codes and finding kinds of the report."""
    analysis = analyze(Transcript(messages, "<read back>"), policy, now=lambda: 1_763_000_000_300)
    texts = [text for message in analysis.view if message.get("role") == "toolResult"
             and message.get("toolName") == "read_file" for text in _texts(message)]
    codes = {code for action in analysis.report.actions for code in action.codes}
    kinds = {finding.kind.value for finding in analysis.report.findings}
    return texts, codes, kinds


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("policy", ["openmaic", "strict"])
def test_a_receipt_read_back_is_a_receipt_and_a_late_real_result_is_handled_as_the_policy_says(
        policy: str, format: str) -> None:
    transcript, view, call_id = _view_with_receipt(policy)
    messages = _read_back(transcript, view, format)
    receipts = light_transcript(messages).receipts
    assert len(receipts) == 1, (format, [m for m in messages if m.get("role") == "toolResult"])
    [receipt_text] = _texts(messages[next(iter(receipts))])
    assert receipt_text in receipt_texts()
    messages.append(_late_result(messages, call_id))
    outcome = _outcome(messages, policy)
    texts, codes, _ = outcome
    # as the policy treats the receipt in the view it wrote (pi-ai, where the details marker is kept)
    assert outcome == _outcome([*view, _late_result(view, call_id)], policy), format
    if policy == "strict":  # a real result beats a synthetic one: the real result, in the receipt's place
        assert texts == [LATE_TEXT] and NoteCode.RECEIPT_REPLACED_BY_REAL.value in codes, (format, texts, codes)


LOOK_ALIKES = [
    json.dumps({"ok": False, "error": "interrupted", "message": STRICT_MESSAGE}),  # spaced: not our bytes
    STRICT_MESSAGE,  # the message alone, not the receipt's JSON
    json.dumps({"ok": False, "error": "interrupted", "message": STRICT_MESSAGE[:-1]}, separators=(",", ":")),
]


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("text", LOOK_ALIKES, ids=["spaced-json", "bare-message", "one-char-short"])
def test_a_user_written_look_alike_is_a_real_result(format: str, text: str) -> None:
    """An error result whose text resembles a receipt but is not exactly the engine's is a real result: the
    late second result is then a duplicate of it, never its replacement."""
    transcript, view, call_id = _view_with_receipt("strict")
    assert text not in receipt_texts()
    for message in view:
        if message.get("role") == "toolResult" and message.get("details"):
            message.pop("details")  # what a user's tool writes: an error result, no engine marker
            message["content"] = [{"type": "text", "text": text}]
    messages = _read_back(transcript, view, format)
    assert not light_transcript(messages).receipts, format
    messages.append(_late_result(messages, call_id))
    texts, codes, _ = _outcome(messages, "strict")
    assert texts == [text] and NoteCode.RECEIPT_REPLACED_BY_REAL.value not in codes, (format, texts, codes)
