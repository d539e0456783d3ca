"""Reference parity: every OpenMAIC repair vector, matched exactly.

The vectors hold the reference's own output for 404 transcripts with the clock
fixed at 0.  Each case is checked four ways: the public API's output, the
object-level guarantees (input untouched, kept messages are the input objects),
the repair report's view, and the CLI's msgspec fast path against the dict path.
"""

from __future__ import annotations

import copy
import gzip
import io
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from integrity import (
    is_interrupted_tool_result,
    orphaned_tool_calls,
    repair_orphaned_tool_calls,
    repair_with_report,
    view_from_report,
)
from integrity._bulk.fast_read import read_fast, write_fast
from integrity.repair.plan import Synthesized, plan_openmaic
from integrity.repair.views import light_transcript
from integrity.report import read_report

VECTORS = Path(__file__).resolve().parent / "data" / "openmaic_repair_vectors.json.gz"
EXPECTED_CASES = 404


def _load() -> list[dict[str, Any]] | None:
    if not VECTORS.is_file():
        return None
    with gzip.open(VECTORS, "rt", encoding="utf-8") as handle:
        return json.load(handle)["cases"]


CASES = _load()
# A missing file must fail, never skip: without it every parametrized test below
# still runs (one per expected case) and fails with the path in the message.
INDICES = range(len(CASES)) if CASES is not None else range(EXPECTED_CASES)


def case(index: int) -> dict[str, Any]:
    if CASES is None:
        pytest.fail(f"conformance vectors not found at {VECTORS}")
    return CASES[index]


def clock_zero() -> int:
    return 0


def assert_exact(actual: Any, expected: Any) -> None:
    """Equal as JSON values, including types (True is not 1, 1.0 is not 1) and key order."""
    assert actual == expected
    assert json.dumps(actual) == json.dumps(expected)


def ids(index: int) -> str:
    return f"case{index:03d}"


parametrize_cases = pytest.mark.parametrize("index", INDICES, ids=ids)


def test_vector_file_is_complete() -> None:
    cases = case(0) and CASES
    assert cases is not None
    assert len(cases) == EXPECTED_CASES
    assert sum(1 for c in cases if c["expected"]["unchanged"]) > 0
    assert sum(1 for c in cases if not c["expected"]["unchanged"]) > 0


@parametrize_cases
def test_vector(index: int) -> None:
    """One test per case (pytest's per-test overhead dominates otherwise); each check names its aspect."""
    vector = case(index)
    check_reference_output(vector)
    check_input_untouched_and_identity(vector)
    check_report_view(vector)
    check_fast_path(vector, index)


def check_reference_output(vector: dict[str, Any]) -> None:
    messages, expected = vector["input"], vector["expected"]

    orphaned = [{"id": call.id, "name": call.name} for call in orphaned_tool_calls(messages)]
    assert_exact(orphaned, expected["orphaned"])

    result = repair_orphaned_tool_calls(messages, now=clock_zero)
    assert (result.messages is messages) is expected["unchanged"]
    assert_exact(result.repaired_tool_calls, expected["repairedToolCalls"])
    assert_exact(result.messages, expected["messages"])


def check_input_untouched_and_identity(vector: dict[str, Any]) -> None:
    messages = vector["input"]
    snapshot = copy.deepcopy(messages)
    result = repair_orphaned_tool_calls(messages, now=clock_zero)
    assert_exact(messages, snapshot)

    originals = {id(message) for message in messages}
    synthesized = [message for message in result.messages if id(message) not in originals]
    for message in synthesized:
        # Anything that is not an input object must be a fresh interrupted receipt
        # for a call the repair reports as having had no result.
        assert is_interrupted_tool_result(message)
        assert message["timestamp"] == 0
        assert message["toolCallId"] in result.repaired_tool_calls
    assert len(synthesized) == len(result.repaired_tool_calls)


def check_report_view(vector: dict[str, Any]) -> None:
    messages = vector["input"]
    result, report = repair_with_report(messages, now=clock_zero, policy="openmaic")
    assert_exact(result.messages, vector["expected"]["messages"])
    assert result.repaired_tool_calls == vector["expected"]["repairedToolCalls"]
    assert report.changed is (not vector["expected"]["unchanged"])
    assert report.repaired_tool_calls == vector["expected"]["repairedToolCalls"]
    view = view_from_report(report, messages)
    assert_exact(view, result.messages)
    # The durable entries of the view are the input objects themselves.
    for entry, message in zip(report.view, view, strict=False):
        if entry.source == "durable":
            assert message is messages[entry.index]
    # The report survives a JSON round trip and still rebuilds the same view.
    again = read_report(json.loads(msgspec.json.encode(report)))
    assert_exact(view_from_report(again, messages), result.messages)


def _plan_shape(plan: Any) -> Any:
    order = None
    if plan.order is not None:
        order = [
            ("durable", entry)
            if type(entry) is int
            else ("synthesized", entry.call_id, entry.tool_name, entry.frame_index, entry.call_position)
            for entry in plan.order
        ]
        assert all(type(entry) is int or isinstance(entry, Synthesized) for entry in plan.order)
    return plan.changed, order, list(plan.repaired_tool_calls)


def check_fast_path(vector: dict[str, Any], index: int) -> None:
    messages = vector["input"]
    fast = read_fast(json.dumps(messages).encode("utf-8"), f"case{index}")
    if fast is None:  # the fast path declines files it is unsure about; the dict path takes over
        return
    dict_plan = plan_openmaic(light_transcript(messages))
    fast_plan = plan_openmaic(fast.light)
    assert _plan_shape(fast_plan) == _plan_shape(dict_plan)

    out = io.BytesIO()
    write_fast(fast, fast_plan, clock_zero, out)
    assert_exact(json.loads(out.getvalue()), vector["expected"]["messages"])


def test_fast_path_takes_most_vectors() -> None:
    """Guard against the fast path silently declining everything (the test above would pass vacuously)."""
    cases = case(0) and CASES
    assert cases is not None
    taken = sum(1 for c in cases if read_fast(json.dumps(c["input"]).encode("utf-8"), "x") is not None)
    assert taken >= len(cases) * 0.9
