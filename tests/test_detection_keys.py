"""Detection's key test says what reading every entry says.

Detection asks every format that refines another (SWE-agent, the JavaScript Agents SDK, LangGraph, ...) for its
evidence on every file, and each read every entry: two thirds of detecting a Chat file.  `formats.common.entry_keys`
gathers the keys of all entries in one C loop, and a refinement whose evidence needs a key no entry holds says
"none" from it.  It may only answer sooner: on random entry lists (objects holding any mix of the keys these
formats look at, with values of the right and wrong types, and entries that are no object), each format's evidence
is what reading every entry one by one gives."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from integrity.formats import langchain, langgraph, openai_agents, swe_agent
from integrity.formats.common import entry_keys

KEYS = ["role", "content", "type", "callId", "agent", "message_type", "tool_call_ids", "is_demo", "thinking_blocks",
        "data", "uuid", "tool_calls", "id"]
VALUES = st.sampled_from(["user", "human", "ai", "tool", "function_call", "function_call_result", "message", "x",
                          "", 1, None, [], {}])
ENTRIES = st.lists(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5) | st.sampled_from(["text", 3, None]),
                   max_size=8)


def swe_read(entries: list[Any]) -> bool:
    return any(isinstance(e, dict) and "role" in e and (any(k in e for k in swe_agent._SWE_FIELDS)
                                                        or isinstance(e.get("agent"), str)) for e in entries)


def agents_read(entries: list[Any]) -> bool:
    return any(openai_agents._js_item(e) or (isinstance(e, dict) and e.get("type") == "function_call_result")
               for e in entries)


def langgraph_read(entries: list[Any]) -> bool:
    return any(isinstance(e, dict) and langchain.flat_kind(e) is not None for e in entries)


@settings(max_examples=3000, deadline=None)
@given(ENTRIES)
def test_each_refinements_evidence_is_what_reading_every_entry_gives(entries: list[Any]) -> None:
    assert swe_agent._swe_evidence(entries, {}) == swe_read(entries)
    assert openai_agents.evidence(entries, {}) == agents_read(entries)
    assert langgraph.evidence(entries, {}) == langgraph_read(entries)


def test_the_keys_are_every_entrys_or_none() -> None:
    assert entry_keys([{"role": "user"}, {"type": "x", "role": "tool"}]) == {"role", "type"}
    assert entry_keys([{"role": "user"}, "text"]) is None
    assert entry_keys([]) == frozenset()
