"""The guards on every recorded request they could be handed: each says what check and the provider say.

Each request body in tests/recorded/ for a format LiteLLM takes (chat completions, `/v1/messages`, Responses) goes
through `ToolCallIntegrityGuard.repaired` toward the provider that answered.  One answered 200 passes untouched and
unreported; one answered 400 is reported with check's status (mode "report") and refused (mode "raise").  The guard's
quick pass once called a stored reasoning item followed by a message without its id plainly healthy, so a request
the API refused (and check refused) went out unreported.  The Agents SDK's filter gets each Responses request, and
ADK's plugin each Gemini request as google-genai Contents.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network fetch of the model price map
from recorded.agree import CALL_TYPES, decodable, model_of  # noqa: E402 - the hand-run script's own map and helpers
from test_recorded import RECORDS  # noqa: E402

from integrity import load  # noqa: E402
from integrity.guards import ToolCallIntegrityError  # noqa: E402
from integrity.guards.litellm import ToolCallIntegrityGuard  # noqa: E402
from integrity.pipeline import check  # noqa: E402

TAKEN = [record for record in RECORDS if record["provider"] in CALL_TYPES]


@pytest.fixture(autouse=True)
def quiet() -> Any:
    logging.disable(logging.WARNING)  # the guard logs each request it judges refused
    yield
    logging.disable(logging.NOTSET)


@pytest.mark.parametrize("record", TAKEN, ids=[record["_at"] for record in TAKEN])
def test_the_guard_says_what_check_and_the_provider_say(record: dict[str, Any]) -> None:
    import json

    provider, request = record["provider"], record["request"]
    reports: list[Any] = []
    guard = ToolCallIntegrityGuard(provider=provider, mode="report", on_report=reports.append)
    assert guard.repaired(request, CALL_TYPES[provider]) is None  # mode "report": never changes the request
    if record["status"] == 200:
        assert reports == [], f"{record['_at']}: answered 200, the guard reports {reports[0].status}"
        assert ToolCallIntegrityGuard(provider=provider).repaired(request, CALL_TYPES[provider]) is None
        return
    checked = check(load(json.dumps(request).encode(), "request.json"), provider=provider)
    assert [str(report.status) for report in reports] == [str(checked.status)], record["_at"]
    with pytest.raises(ToolCallIntegrityError):
        ToolCallIntegrityGuard(provider=provider, mode="raise").repaired(request, CALL_TYPES[provider])


def test_a_refusal_is_among_them() -> None:
    assert sum(record["status"] == 400 for record in TAKEN) >= 2


RESPONSES = [record for record in RECORDS if record["provider"] in ("openai-responses", "deepseek-responses")]


@pytest.mark.parametrize("record", RESPONSES, ids=[record["_at"] for record in RESPONSES])
def test_the_agents_sdk_filter_says_what_the_provider_says(record: dict[str, Any]) -> None:
    """The Agents SDK's model input, as its run loop hands it to the filter: answered 200, the same list goes on
    and nothing is reported; answered 400, a report."""
    from agents import Agent
    from agents.run_config import CallModelData, ModelInputData

    from integrity.guards.openai_agents import ToolCallIntegrityFilter

    items = record["request"]["input"]
    reports: list[Any] = []
    guard = ToolCallIntegrityFilter(mode="report", on_report=reports.append, provider=record["provider"])
    sent = guard(CallModelData(model_data=ModelInputData(input=items, instructions=None),
                               agent=Agent(name="a", model="gpt-4.1"), context=None))
    assert sent.input is items
    assert len(reports) == (0 if record["status"] == 200 else 1), record["_at"]


GEMINI = [record for record in RECORDS if record["provider"] == "gemini"]


@pytest.mark.parametrize("record", GEMINI, ids=[record["_at"] for record in GEMINI])
def test_the_adk_plugin_passes_every_request_gemini_took(record: dict[str, Any]) -> None:
    """ADK's request contents as google-genai Contents, toward a Gemini model: each request Gemini answered 200
    goes as it is, unreported."""
    from google.genai import types

    from integrity.guards.adk import ToolCallIntegrityPlugin

    assert record["status"] == 200  # (no Gemini refusal is recorded: the others' tests hold the refusals)
    contents = [types.Content.model_validate(decodable(content)) for content in record["request"]["contents"]]
    reports: list[Any] = []
    plugin = ToolCallIntegrityPlugin(mode="report", on_report=reports.append)
    assert plugin.repaired_contents(contents, model_of(record)) is None
    assert reports == []
