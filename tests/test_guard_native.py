"""The guards' direct repair sends exactly what the one pipeline sends.

`integrity.guards._native.native_repair` answers the common broken histories (a dangling call, a stray
result, a repeated result) straight from the runtime's entries when nothing asks for the engine's report.
It may only make the guard faster: on generated histories in every native format (and as LangChain
message objects and google.genai Contents, as the LangChain and ADK guards hand them), for every target
the quick pass serves, a quiet guard (the direct repair where it answers) must send what a guard with
on_report (always the full pipeline) sends, the same objects where nothing changed, and equal new ones.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from integrity.guards._core import RequestGuard
from integrity.guards._fast import FAST_TARGETS, scan
from integrity.guards._native import native_repair

QUIET = logging.getLogger("integrity.guards.tests.native")
QUIET.disabled = True
TARGETS = sorted(FAST_TARGETS, key=str)
FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini", "langchain")

# An abstract history: ("user", text) | ("assistant", text, [(id, name)]) | ("results", [id]) | ("answer", text)
Item = tuple[Any, ...]


@st.composite
def histories(draw: Any) -> list[Item]:
    """Agent loops broken the ways runtimes break them: a call left without a result (the whole turn or
    some calls), a result repeated, a stray result (in the turn's results, as a message of its own after
    them or after a later turn), results out of call order or split over two messages; now and then an
    odd id, a reused id or an empty text (shapes the direct repair leaves to the pipeline)."""
    out: list[Item] = []
    for turn in range(draw(st.integers(1, 5))):
        out.append(("user", draw(st.sampled_from(["question"] * 7 + [""]))))
        count = draw(st.integers(0, 3))
        calls = [(f"call_{turn}_{n}", draw(st.sampled_from(["lookup", "fetch"]))) for n in range(count)]
        if calls and draw(st.integers(0, 9)) == 0:
            calls[0] = (draw(st.sampled_from(["call_0_0", "bad id!", ""])), calls[0][1])
        text = draw(st.sampled_from(["", "", "let me look"])) if calls else "just text"
        out.append(("assistant", text, calls))
        results = [call_id for call_id, _ in calls]
        mutation = draw(st.integers(0, 9))
        if results and mutation == 1:
            results = []  # the whole turn dangling (a tool that raised after its call was stored)
        elif results and mutation == 2:
            del results[draw(st.integers(0, len(results) - 1))]  # one call without its result
        elif results and mutation == 3:
            results.append(results[0])  # a repeated result
        elif mutation == 4:
            results.append("stray")
        elif len(results) > 1 and mutation == 5:
            results.reverse()
        split = len(results) > 1 and mutation == 6
        if split:
            out += [("results", results[:1]), ("results", results[1:])]
        elif results:
            out.append(("results", results))
        if mutation == 7:
            out.append(("results", [f"stray_{turn}"]))  # an orphan result as a message of its own
        if draw(st.booleans()) or (calls and not results and draw(st.booleans())):
            out.append(("answer", draw(st.sampled_from(["x is 1", "x is 1", ""]))))
        if mutation == 8 and turn:
            out.append(("results", ["call_0_0"]))  # an earlier turn's result, late
    if draw(st.booleans()):
        out.append(("user", "go on"))
    return out


def render(history: list[Item], format: str, system: bool, idless: bool = False) -> list[dict[str, Any]]:
    """The abstract history in `format` (idless, Gemini only: calls and responses without ids, as ADK sends
    them to Gemini, paired by name)."""
    out: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    if system and format in ("openai-chat", "openai-responses", "langchain"):
        out.append({"role": "system", "content": "be brief"})
    for item in history:
        kind = item[0]
        if kind in ("user", "answer"):
            role = "user" if kind == "user" else "assistant"
            if format == "gemini":
                out.append({"role": "model" if kind == "answer" else "user", "parts": [{"text": item[1]}]})
            elif format == "openai-responses" and kind == "answer":
                out.append({"type": "message", "role": "assistant",
                            "content": [{"type": "output_text", "text": item[1], "annotations": []}]})
            else:
                out.append({"role": role, "content": item[1]})
        elif kind == "assistant":
            _, text, calls = item
            names.update(calls)
            if format == "gemini":
                parts: list[Any] = [{"text": text}] if text else []
                parts += [{"functionCall": {"name": name, "args": {"q": 1}} if idless else
                           {"id": call_id, "name": name, "args": {"q": 1}}} for call_id, name in calls]
                out.append({"role": "model", "parts": parts})
            elif format == "anthropic":
                blocks: list[Any] = [{"type": "text", "text": text}] if text else []
                blocks += [{"type": "tool_use", "id": call_id, "name": name, "input": {"q": 1}}
                           for call_id, name in calls]
                out.append({"role": "assistant", "content": blocks})
            elif format == "openai-responses":
                if text:
                    out.append({"type": "message", "role": "assistant",
                                "content": [{"type": "output_text", "text": text, "annotations": []}]})
                out += [{"type": "function_call", "call_id": call_id, "name": name, "arguments": '{"q": 1}'}
                        for call_id, name in calls]
            else:
                message: dict[str, Any] = {"role": "assistant", "content": text or None}
                if calls:
                    message["tool_calls"] = [{"id": call_id, "type": "function", "function": {
                        "name": name, "arguments": '{"q": 1}'}} for call_id, name in calls]
                out.append(message)
        else:
            results = item[1]
            if format == "gemini":
                out.append({"role": "user", "parts": [
                    {"functionResponse": {"name": names.get(r, "lookup"), "response": {"result": "ok"}} if idless
                     else {"id": r, "name": names.get(r, "lookup"), "response": {"result": "ok"}}} for r in results]})
            elif format == "anthropic":
                out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": r, "content": "ok"}
                                                        for r in results]})
            elif format == "openai-responses":
                out += [{"type": "function_call_output", "call_id": r, "output": "ok"} for r in results]
            else:
                out += [{"role": "tool", "tool_call_id": r, "content": "ok"} for r in results]
    if format == "langchain":
        return [_as_langchain(message, names) for message in out]
    return out


def _as_langchain(message: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """An OpenAI Chat message as LangChain's `messages_to_dict` writes the matching message."""
    role = message["role"]
    if role == "assistant":
        calls = [{"name": c["function"]["name"], "args": {"q": 1}, "id": c["id"], "type": "tool_call"}
                 for c in message.get("tool_calls", [])]
        return {"type": "ai", "data": {"content": message["content"] or "", "type": "ai", "tool_calls": calls,
                                       "invalid_tool_calls": []}}
    if role == "tool":
        return {"type": "tool", "data": {"content": message["content"], "type": "tool", "name":
                                         names.get(message["tool_call_id"]), "tool_call_id": message["tool_call_id"]}}
    kind = "human" if role == "user" else "system"
    return {"type": kind, "data": {"content": message["content"], "type": kind}}


def both(entries: list[Any], objects_format: str, dump: Any, format: str, target: str | None,
         build: Any = None) -> tuple[Any, Any, list[Any]]:
    """(what a quiet guard sends, what the pipeline sends: a guard with on_report, the reports it got)."""
    reports: list[Any] = []
    quiet = RequestGuard("test", logger=QUIET).guard_objects(entries, objects_format, dump, format, target,
                                                             build=build)
    full = RequestGuard("test", logger=QUIET, on_report=reports.append).guard_objects(
        entries, objects_format, dump, format, target, build=build)
    return quiet, full, reports


def same_objects(out: list[Any] | None, entries: list[Any]) -> set[int]:
    """The positions in `out` holding one of `entries` itself."""
    ids = {id(entry) for entry in entries}
    return {at for at, entry in enumerate(out or []) if id(entry) in ids}


@settings(max_examples=300, deadline=None)
@given(history=histories(), format=st.sampled_from((*FORMATS, "gemini idless")), system=st.booleans())
def test_the_direct_repair_sends_what_the_pipeline_sends(history: list[Item], format: str, system: bool) -> None:
    idless = format == "gemini idless"
    format = "gemini" if idless else format
    entries = render(history, format, system, idless)
    before = copy.deepcopy(entries)
    for target in TARGETS:
        quiet, full, _ = both(entries, format, lambda part: list(part), format, target)
        assert quiet == full, (target, entries)
        assert same_objects(quiet, entries) == same_objects(full, entries)
    assert entries == before  # the request itself is never changed


@settings(max_examples=80, deadline=None)
@given(history=histories(), target=st.sampled_from(TARGETS), system=st.booleans())
def test_langchain_messages_repaired_directly_are_the_pipelines(history: list[Item], target: str | None,
                                                               system: bool) -> None:
    from langchain_core.messages import messages_from_dict, messages_to_dict

    from integrity.guards.langchain import _message

    messages = list(messages_from_dict(render(history, "langchain", system)))
    quiet, full, _ = both(messages, "langchain-objects", messages_to_dict, "langchain", target, _message)
    assert quiet == full
    assert same_objects(quiet, messages) == same_objects(full, messages)


@settings(max_examples=80, deadline=None)
@given(history=histories(), target=st.sampled_from(TARGETS), idless=st.booleans())
def test_gemini_contents_repaired_directly_are_the_pipelines(history: list[Item], target: str | None,
                                                            idless: bool) -> None:
    from google.genai import types

    from integrity.guards.adk import _dumps

    contents = [types.Content.model_validate(entry) for entry in render(history, "gemini", False, idless)]
    quiet, full, _ = both(contents, "gemini-objects", _dumps, "gemini", target, types.Content.model_validate)
    assert quiet == full
    assert same_objects(quiet, contents) == same_objects(full, contents)


BENCH_SHAPE = [("user", "q"), ("assistant", "", [("call_1", "lookup")]), ("results", ["call_1"]),
               ("answer", "x is 1"), ("user", "q"), ("assistant", "", [("dangling", "lookup")]),
               ("results", ["stray"]), ("answer", "done"), ("user", "go on")]
"""A dangling call and a stray result near the end (bench/bench_guards.py's broken history)."""


@pytest.mark.parametrize("format", (*FORMATS, "gemini idless"))
@pytest.mark.parametrize("target", TARGETS)
def test_the_common_defects_take_the_direct_repair(format: str, target: str | None) -> None:
    idless = format == "gemini idless"
    format = "gemini" if idless else format
    if idless and target not in (None, "gemini"):
        return  # calls without ids go to Gemini only (the quick pass's rule)
    # without ids a response pairs by name: ADK drops the stray before the guard sees it (bench: adk-gemini)
    entries = render([item for item in BENCH_SHAPE if item != ("results", ["stray"])] if idless else BENCH_SHAPE,
                     format, True, idless)
    healthy, cut, before = scan(entries, format, target)
    assert not healthy and cut > 0
    assert native_repair(entries, cut, before, format, format, target, None) is not None
    quiet, full, reports = both(entries, format, lambda part: list(part), format, target)
    assert quiet == full and reports and reports[0].counts


def test_a_report_asked_later_is_the_pipelines(caplog: Any) -> None:
    """A quiet guard remembers its direct repair without the engine's report; when a later request answered
    from that memory must be reported (on_report set since), the report is the pipeline's."""
    from integrity.guards._fast import HealthyMemo

    entries = render(BENCH_SHAPE, "openai-chat", True)
    grown = [*entries, {"role": "assistant", "content": "fine"}]
    guard, memo = RequestGuard("test", logger=QUIET), HealthyMemo()
    assert guard.guard_objects(entries, "openai-chat", list, "openai-chat", "anthropic", memo=memo) is not None
    reports: list[Any] = []
    guard.on_report = reports.append
    again = guard.guard_objects(grown, "openai-chat", list, "openai-chat", "anthropic", memo=memo)
    assert memo.repeated == 1
    expected: list[Any] = []
    assert again == RequestGuard("test", logger=QUIET, on_report=expected.append).guard_objects(
        grown, "openai-chat", list, "openai-chat", "anthropic")
    assert reports[0].counts == expected[0].counts and reports[0].status == expected[0].status
    assert reports[0].line() == expected[0].line()


def test_a_logged_repair_takes_the_pipeline(caplog: Any) -> None:
    """With the guard's log line logged, the report is built by the pipeline, and the line is the same."""
    entries = render(BENCH_SHAPE, "openai-responses", True)
    with caplog.at_level(logging.INFO, logger="integrity.guards"):
        out = RequestGuard("test").guard_objects(entries, "openai-responses", list, "openai-responses", None)
    assert out == RequestGuard("test", logger=QUIET).guard_objects(entries, "openai-responses", list,
                                                                    "openai-responses", None)
    assert "receipts_synthesized=1" in caplog.text or "synthesized" in caplog.text


def pydantic_ai_messages(history: list[Item], system: bool) -> list[Any]:
    """The abstract history as a pydantic-ai agent records it (ModelRequests and ModelResponses)."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    out: list[Any] = []
    names: dict[str, str] = {}
    for item in history:
        if item[0] == "user":
            first = [SystemPromptPart(content="be brief")] if system and not out else []
            out.append(ModelRequest(parts=[*first, UserPromptPart(content=item[1])]))
        elif item[0] == "answer":
            out.append(ModelResponse(parts=[TextPart(content=item[1])]))
        elif item[0] == "assistant":
            names.update(item[2])
            out.append(ModelResponse(parts=[*([TextPart(content=item[1])] if item[1] else []), *(
                ToolCallPart(tool_name=name, args='{"q": 1}', tool_call_id=call_id) for call_id, name in item[2])]))
        else:
            out.append(ModelRequest(parts=[ToolReturnPart(tool_name=names.get(r, "lookup"), content="ok",
                                                          tool_call_id=r) for r in item[1]]))
    return out


@settings(max_examples=120, deadline=None)
@given(history=histories(), target=st.sampled_from(TARGETS), system=st.booleans())
def test_pydantic_ai_messages_repaired_directly_are_the_pipelines(history: list[Item], target: str | None,
                                                                 system: bool) -> None:
    from integrity.guards.pydantic_ai import ToolCallIntegrityProcessor

    messages = pydantic_ai_messages(history, system)
    reports: list[Any] = []
    quiet = ToolCallIntegrityProcessor(provider=target, logger=QUIET).repaired_messages(messages)
    full = ToolCallIntegrityProcessor(provider=target, logger=QUIET, on_report=reports.append).repaired_messages(
        messages)
    assert quiet == full
    assert same_objects(quiet, messages) == same_objects(full, messages)


def test_pydantic_ais_common_defects_take_the_direct_repair() -> None:
    from integrity.guards._fast import HealthyMemo
    from integrity.guards.pydantic_ai import OBJECTS, ToolCallIntegrityProcessor

    messages = pydantic_ai_messages(BENCH_SHAPE, True)
    healthy, cut, before = HealthyMemo().scan(messages, OBJECTS, "anthropic")
    assert not healthy and native_repair(messages, cut, before, OBJECTS, "pydantic-ai", "anthropic", None)
    quiet = ToolCallIntegrityProcessor(provider="anthropic", logger=QUIET).repaired_messages(messages)
    assert quiet == ToolCallIntegrityProcessor(provider="anthropic", logger=QUIET, on_report=print).repaired_messages(
        messages)


def test_an_adk_and_a_pydantic_ai_report_asked_later_are_the_pipelines() -> None:
    """As test_a_report_asked_later_is_the_pipelines, through the ADK and pydantic-ai guards (their repairs are
    remembered as the runtime's objects; the report, asked at the next call, is the pipeline's)."""
    from google.genai import types

    from integrity.guards.adk import ToolCallIntegrityPlugin
    from integrity.guards.pydantic_ai import ToolCallIntegrityProcessor

    contents = [types.Content.model_validate(entry) for entry in render(BENCH_SHAPE, "gemini", False)]
    messages = pydantic_ai_messages(BENCH_SHAPE, True)
    cases = [(ToolCallIntegrityPlugin, lambda guard, request: guard.repaired_contents(request, "gemini-2.5-flash"),
              contents, contents + [types.Content(role="model", parts=[types.Part(text="fine")])]),
             (lambda **options: ToolCallIntegrityProcessor(provider="anthropic", **options),
              lambda guard, request: guard.repaired_messages(request), messages,
              messages + pydantic_ai_messages([("answer", "fine")], False))]
    for make, send, request, grown in cases:
        guard = make(logger=QUIET)
        assert send(guard, request) is not None
        reports: list[Any] = []
        guard.guard.on_report = reports.append
        again = send(guard, grown)
        assert guard.memo.repeated == 1
        expected: list[Any] = []
        assert again == send(make(logger=QUIET, on_report=expected.append), grown)
        assert reports[0].line() == expected[0].line() and reports[0].counts == expected[0].counts


SHAPES = {
    "a stray between a turn's results": [("user", "q"), ("assistant", "", [("a", "f"), ("b", "g")]), ("results", ["a"]),
                                         ("results", ["stray"]), ("results", ["b"]), ("user", "go")],
    "a stray before a turn's results": [("user", "q"), ("assistant", "", [("a", "f"), ("b", "g")]),
                                        ("results", ["stray"]), ("results", ["a", "b"]), ("user", "go")],
    "a repeat between a turn's results": [("user", "q"), ("assistant", "", [("a", "f"), ("b", "g")]),
                                          ("results", ["a"]), ("results", ["a"]), ("results", ["b"]), ("user", "go")],
    "a stray after the answer": [("user", "q"), ("assistant", "", [("a", "f")]), ("results", ["a"]),
                                 ("answer", "x"), ("results", ["stray"]), ("user", "go")],
    "a stray after a user turn": [("user", "q"), ("results", ["stray"]), ("assistant", "", [("a", "f")]),
                                  ("results", ["a"]), ("user", "go")],
    "a dangling call before the user's next turn": [
        ("user", "q"), ("assistant", "", [("a", "f")]), ("user", "go"), ("assistant", "", [("b", "f")]),
        ("results", ["b"]), ("answer", "k"), ("user", "go2")],
    "the first of two calls answered, after a healthy exchange": [
        ("user", "q"), ("assistant", "", [("a", "f")]), ("results", ["a"]), ("answer", "x"), ("user", "q2"),
        ("assistant", "", [("b", "f"), ("c", "g")]), ("results", ["c"]), ("answer", "y"), ("user", "go")],
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("format", (*FORMATS, "gemini idless"))
def test_hand_made_broken_shapes_are_sent_as_the_pipeline_sends_them(shape: str, format: str) -> None:
    idless = format == "gemini idless"
    format = "gemini" if idless else format
    entries = render(SHAPES[shape], format, True, idless)
    for target in TARGETS:
        quiet, full, _ = both(entries, format, lambda part: list(part), format, target)
        assert quiet == full, (target, entries)
        assert same_objects(quiet, entries) == same_objects(full, entries)
