"""Gemini takes a function response's `response` only as a JSON object (a protobuf Struct): a writer that stored the
tool's text or list as it came left a history it refuses ("Invalid value at
'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), "..."", quoted
whole in several reports).  The reader called it malformed, said "accepted as recorded by gemini", and repair wrote
it back unchanged.  Now the rule refuses it with the API's text, every surface says so, and the repaired view sends
`{"output": value}` (the key Gemini's documentation gives a function's output): the same value, nothing lost.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run
from provider_case_files import body_file
from test_provider_cases_verdict import refused_on_every_surface

STRUCT = "(type.googleapis.com/google.protobuf.Struct)"


def _request(response: Any, key: str = "functionResponse") -> dict[str, Any]:
    return {"contents": [
        {"role": "user", "parts": [{"text": "convert 10 EUR"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "convert_currency", "args": {"amount": 10}},
                                     "thoughtSignature": "c2ln"}]},  # (signed, as Gemini 3 writes a step's first call)
        {"role": "user", "parts": [{key: {"name": "convert_currency", "response": response}}]},
        {"role": "model", "parts": [{"text": "About 11 USD."}]}]}


@pytest.mark.parametrize(("response", "shown"), [("11.02 USD", '"11.02 USD"'), ([{"rate": 1.1}], '[{"rate": 1.1}]')])
def test_a_response_that_is_no_object_is_refused_and_sent_under_output(tmp_path: Path, response: Any,
                                                                       shown: str) -> None:
    request = _request(response)
    source = body_file(tmp_path, request, "loose.gemini.json")
    recorded = source.read_bytes()
    asked = run("check", "--provider", "gemini", source)
    said = asked.stdout.decode()
    assert asked.code == 1 and "malformed" not in said  # it was "must be a JSON object", left in place
    assert "gemini as recorded: Invalid value at " \
           f"'contents[2].parts[0].function_response.response' {STRUCT}, {shown}" in said
    assert "gemini after repair: accepted" in said
    out = tmp_path / "wrapped.gemini.json"
    repaired = run("repair", source, "-o", out)
    assert repaired.code == 0 and 'contents[2].parts[0].functionResponse.response: ' in repaired.stderr \
        and '→ {"output": …}' in repaired.stderr
    assert source.read_bytes() == recorded
    expected = copy.deepcopy(request)
    expected["contents"][2]["parts"][0]["functionResponse"]["response"] = {"output": response}
    assert json.loads(out.read_bytes()) == expected
    assert run("check", "--provider", "gemini", out).code == 0
    refused_on_every_surface(source, "gemini")


def test_the_python_sdks_snake_case_is_wrapped_too(tmp_path: Path) -> None:
    source = body_file(tmp_path, _request("11.02 USD", "function_response"), "snake.gemini.json")
    out = tmp_path / "out.gemini.json"
    assert run("repair", source, "-o", out).code == 0
    part = json.loads(out.read_bytes())["contents"][2]["parts"][0]
    assert part == {"function_response": {"name": "convert_currency", "response": {"output": "11.02 USD"}}}


def test_an_object_response_is_taken_as_it_is(tmp_path: Path) -> None:
    source = body_file(tmp_path, _request({"result": "11.02 USD"}), "fine.gemini.json")
    assert run("check", "--provider", "gemini", source).code == 0
