"""The LiteLLM guard on every recorded request it could be handed: it says what check and the provider say.

Each request body in tests/recorded/ for a format LiteLLM takes (chat completions, `/v1/messages`, Responses) goes
through `ToolCallIntegrityGuard.repaired` toward the provider that answered.  One answered 200 passes untouched and
unreported; one answered 400 is reported with check's status (mode "report") and refused (mode "raise").  The guard's
quick pass once called a stored reasoning item followed by a message without its id plainly healthy, so a request
the API refused (and check refused) went out unreported.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network fetch of the model price map
from test_recorded import RECORDS  # noqa: E402

from integrity import load  # noqa: E402
from integrity.guards import ToolCallIntegrityError  # noqa: E402
from integrity.guards.litellm import ToolCallIntegrityGuard  # noqa: E402
from integrity.pipeline import check  # noqa: E402

CALL_TYPES = {"openai-chat": "completion", "mistral": "completion", "deepseek": "completion",
              "anthropic": "anthropic_messages", "openai-responses": "responses", "deepseek-responses": "responses"}
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
