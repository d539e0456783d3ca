"""A Responses request sent with `"store": false` carries its reasoning items whole (their encrypted content): the
API does not look for the item that followed each in a stored response, so a reasoning item before a message
without an id is taken there.  tidyverse/ellmer's cassettes hold such requests answered 200 (gpt-5, gpt-5-nano);
pydantic-ai's recorded refusal of the shape ("Item 'rs_...' of type 'reasoning' was provided without its required
following item.") sets no `store`, so the stored items are read (tests/recorded/openai-responses.jsonl).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from cli_inprocess import run
from provider_case_files import body_file, case

CASES = ["openai-responses_reasoning_store_false_accepted", "openai-responses_reasoning_tool_store_false_accepted"]
REFUSED = "Item '{id}' of type 'reasoning' was provided without its required following item."


@pytest.mark.parametrize("name", CASES)
def test_the_recorded_stateless_request_is_accepted_and_left_as_it_is(name: str, tmp_path: Path) -> None:
    recorded = case(name)
    assert recorded["status"] == 200 and recorded["request"]["store"] is False
    source = body_file(tmp_path, recorded["request"])
    said = run("check", source)
    assert said.code == 0, said.stdout
    assert said.stdout.decode().splitlines()[0].endswith("accepted as recorded by openai-responses")
    out = tmp_path / "out.json"
    assert run("repair", source, "-o", out).code == 0
    assert out.read_bytes() == source.read_bytes()


@pytest.mark.parametrize("name", CASES)
def test_the_same_request_reading_stored_items_is_refused_as_recorded(name: str, tmp_path: Path) -> None:
    body = copy.deepcopy(case(name)["request"])
    del body["store"]  # the API's default: it reads the stored response's items
    items = body["input"]
    first = next(item["id"] for item, after in zip(items[:-1], items[1:], strict=True)  # (the one before a message)
                 if item.get("type") == "reasoning" and "role" in after and "id" not in after)
    said = run("check", "--provider", "openai-responses", body_file(tmp_path, body))
    assert said.code == 1
    lines = said.stdout.decode().splitlines()
    assert any(line.startswith("  openai-responses as recorded: input[") and line.endswith(REFUSED.format(id=first))
               for line in lines), lines
