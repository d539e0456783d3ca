"""Whether every surface says what the provider answered, over a folder of recorded exchanges (run by hand).

    python3 tests/recorded/agree.py [DIR]      # DIR: tests/recorded (default), or a `build.py --all DIR` folder

Each exchange's request body is read as a file and checked toward the provider that answered (`check --provider
P`, the whole pipeline): answered 200, it must be accepted as recorded and after repair, and healthy (exit 0);
answered 400, the recorded text must be among what check says as recorded.  Then the guards get each request a
runtime could hand them: the LiteLLM guard (chat completions, `/v1/messages`, Responses), the Agents SDK's filter
(Responses) and ADK's plugin (Gemini contents as google-genai Contents): answered 200, passed untouched and
unreported; answered 400, reported.  Prints the counts and every disagreement; exits 1 when there is one.
An exchange KNOWN names is a divergence docs/providers.md states and explains: printed apart, and a disagreement
only when check says something else of it than what KNOWN records.

tests/test_recorded.py and tests/test_guard_recorded.py hold the same over the committed exchanges; this runs it
over the whole set the cassettes give (`build.py --all`), which is too large to commit.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network fetch of the model price map
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project's engine, run from anywhere

from integrity import load  # noqa: E402
from integrity.pipeline import check  # noqa: E402

CALL_TYPES = {"openai-chat": "completion", "mistral": "completion", "deepseek": "completion",
              "anthropic": "anthropic_messages", "openai-responses": "responses", "deepseek-responses": "responses"}

KNOWN = {
    ("traceloop/openllmetry",
     "packages/opentelemetry-instrumentation-bedrock/tests/traces/cassettes/test_guardrails/test_guardrail_converse.yaml",
     0): "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
         "between user and assistant roles and try again.",
}
"""(repository, cassette, interaction) -> what check says of it instead of the provider's answer, as
docs/providers.md states: Bedrock's `roles_not_alternating` over two user messages in a row, which Titan Text
Express accepted (200) and every reported Claude behind Converse refused; the verdict names no model."""


def known(record: dict[str, Any]) -> str | None:
    """What check is documented to say of this exchange instead of its recorded answer, or None."""
    return KNOWN.get((record["source"], record["path"], record["interaction"]))


def model_of(record: dict[str, Any]) -> str | None:
    """The model an exchange's endpoint names (Gemini's URL does: `.../models/gemini-2.5-flash:generateContent`), or
    None (the others name it in the body)."""
    found = re.search(r"/models/([^/:]+):", record.get("endpoint", ""))
    return found.group(1) if found else None


def answered_by(record: dict[str, Any]) -> str:
    """The rules the exchange was answered by: its provider's, or the variant its endpoint's model means
    (providers.models.sent_to: Gemini 2.5 takes a call without a thought signature, Gemini 3 does not)."""
    from integrity.providers.models import sent_to

    model = model_of(record)
    return sent_to(record["provider"], model) if model is not None else record["provider"]


def decodable(value: Any) -> Any:
    """Shortened bytes fields made valid base64 again (build.py cuts long strings; no rule reads them)."""
    if isinstance(value, dict):
        return {key: "QUFBQQ==" if key in ("thoughtSignature", "thought_signature", "data") and isinstance(item, str)
                else decodable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decodable(item) for item in value]
    return value


def _check(record: dict[str, Any]) -> str:
    """'' when check says what the provider answered, else what it says instead."""
    provider = answered_by(record)
    result = check(load(json.dumps(record["request"]).encode(), "request.json"), provider=provider)
    said = result.providers[provider]
    before, after = [v.error for v in said.before], [v.error for v in said.after]
    if record["status"] == 200:
        return "" if not before and not after and result.exit_code == 0 else f"{result.verdict} {before or after}"
    return "" if record["error"] in before else f"check says {before}"


def _guards(record: dict[str, Any]) -> dict[str, str]:
    """Each guard that could be handed this request -> '' when it says what the provider answered."""
    provider, request, answered = record["provider"], record["request"], record["status"] == 200
    out: dict[str, str] = {}
    if provider in CALL_TYPES:
        from integrity.guards.litellm import ToolCallIntegrityGuard

        reports: list[Any] = []
        guard = ToolCallIntegrityGuard(provider=provider, mode="report", on_report=reports.append)
        guard.repaired(request, CALL_TYPES[provider])
        out["litellm"] = "" if bool(reports) != answered else f"reports {[str(r.status) for r in reports]}"
    if provider in ("openai-responses", "deepseek-responses"):
        from agents import Agent
        from agents.run_config import CallModelData, ModelInputData

        from integrity.guards.openai_agents import ToolCallIntegrityFilter

        reports = []
        items = request["input"]
        sent = ToolCallIntegrityFilter(mode="report", on_report=reports.append, provider=provider)(CallModelData(
            model_data=ModelInputData(input=items, instructions=None), agent=Agent(name="a", model="gpt-4.1"),
            context=None))
        out["openai-agents"] = "" if sent.input is items and bool(reports) != answered else "changed or misreported"
    if provider == "gemini":
        from google.genai import types

        from integrity.guards.adk import ToolCallIntegrityPlugin

        contents = [types.Content.model_validate(decodable(content)) for content in request["contents"]]
        reports = []
        sent = ToolCallIntegrityPlugin(mode="report", on_report=reports.append).repaired_contents(
            contents, model_of(record) or "gemini-3-flash-preview")
        out["adk"] = "" if sent is None and bool(reports) != answered else "changed or misreported"
    return out


def main(folder: Path) -> int:
    logging.disable(logging.WARNING)  # the guards log each request they judge; the runtimes warn
    counts: Counter[str] = Counter()
    wrong: list[str] = []
    documented: list[str] = []
    for path in sorted(folder.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            record = json.loads(line)
            where = f"{path.name}:{number} ({record['path']} #{record['interaction']}, {record['status']})"
            counts[f"{record['provider']} {record['status']}"] += 1
            for surface, said in {"check": _check(record), **_guards(record)}.items():
                counts[f"judged by {surface}"] += 1
                expected = known(record) if surface == "check" else None
                if expected is not None and said and expected in said:
                    documented.append(f"{where}: {surface}: {said}")
                elif said:
                    wrong.append(f"{where}: {surface}: {said}")
    for name, count in sorted(counts.items()):
        print(f"{name}: {count}")
    print(f"{len(documented)} documented divergence(s) (KNOWN, docs/providers.md)")
    for line in documented:
        print(line)
    print(f"{len(wrong)} disagreement(s)")
    for line in wrong:
        print(line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent))
