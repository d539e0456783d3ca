"""The guards' quick health test never lets through a request the full check would repair.

`plainly_healthy` (integrity.guards._fast) lets a guard skip the pipeline for the common healthy
request.  On generated histories in every native format it reads, and for every provider it is used
for: when it says healthy, `integrity.check` (strict policy, that provider) must find the request
healthy too.  And it must actually say healthy for an ordinary agent loop, or it saves nothing.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from integrity import check
from integrity.formats import read_document
from integrity.formats.container import Document
from integrity.guards._fast import FAST_TARGETS, HealthyMemo, _walk_general, plainly_healthy, scan
from integrity.guards._signatures import signs, unsigned_tail

FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini", "langchain")

# A turn: (user text, assistant text, call ids, result ids in the order recorded, the answer after them)
Turn = tuple[str, str, list[str], list[str], str]


@st.composite
def turns(draw: Any) -> list[Turn]:
    count = draw(st.integers(1, 4))
    out: list[Turn] = []
    for index in range(count):
        user = draw(st.sampled_from(["question", "", "  "])) if draw(st.integers(0, 9)) == 0 else "question"
        text = draw(st.sampled_from(["", "let me look", ""]))
        calls = [f"call_{index}_{n}" for n in range(draw(st.integers(0, 2)))]
        if calls and draw(st.integers(0, 6)) == 0:
            # reused, odd or empty, or longer than OpenAI Chat (40) or Responses (64) takes
            calls[0] = draw(st.sampled_from(["call_0_0", "bad id!", "", "call_" + "a" * 40, "b" * 70]))
        results = list(calls)
        mutation = draw(st.integers(0, 7))
        if results and mutation == 1:
            results.pop()  # a dangling call
        elif results and mutation == 2:
            results.append(results[0])  # a duplicate
        elif mutation == 3:
            results.append("stray")
        elif len(results) > 1 and mutation == 4:
            results.reverse()
        answer = draw(st.sampled_from(["", "x is 1", "x is 1"])) if results else ""
        if not calls and draw(st.integers(0, 5)):
            text = "just text"  # mostly a turn with content (an empty one is drawn now and then)
        out.append((user, text, calls, results, answer))
    return out


def render(history: list[Turn], format: str, system: bool, trailing_user: bool, idless: bool = False,
           signed: bool = True) -> list[dict[str, Any]]:
    """The history in `format`; idless (Gemini only): calls and responses without ids, named after the id
    they would have had (so a stray or a swapped answer shows in the names), as ADK sends them to Gemini; signed
    (Gemini only): each step's first call carries a thought signature, as Gemini 3 writes it."""
    out: list[dict[str, Any]] = []

    def gemini(kind: str, key: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {kind: {"name": f"t_{key}", **payload} if idless else {"id": key, "name": "lookup", **payload}}

    if system and format in ("openai-chat", "openai-responses", "langchain"):
        out.append({"role": "system", "content": "be brief"})
    for user, text, calls, results, answer in history:
        if format == "gemini":
            out.append({"role": "user", "parts": [{"text": user}]})
            parts: list[Any] = [{"text": text}] if text else []
            parts += [gemini("functionCall", c, {"args": {}}) for c in calls]
            if signed and calls:
                parts[-len(calls)]["thoughtSignature"] = "c2ln"
            out.append({"role": "model", "parts": parts})
            if results:
                out.append({"role": "user", "parts": [gemini("functionResponse", r, {"response": {"result": "ok"}})
                                                      for r in results]})
            if answer:
                out.append({"role": "model", "parts": [{"text": answer}]})
        elif format == "anthropic":
            out.append({"role": "user", "content": user})
            blocks: list[Any] = [{"type": "text", "text": text}] if text else []
            blocks += [{"type": "tool_use", "id": c, "name": "lookup", "input": {}} for c in calls]
            out.append({"role": "assistant", "content": blocks})
            if results:
                out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": r, "content": "ok"}
                                                        for r in results]})
            if answer:
                out.append({"role": "assistant", "content": answer})
        elif format in ("openai-chat", "langchain"):
            out.append({"role": "user", "content": user})
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = [{"id": c, "type": "function", "function": {"name": "lookup",
                                                                                   "arguments": "{}"}}
                                         for c in calls]
            out.append(message)
            out += [{"role": "tool", "tool_call_id": r, "content": "ok"} for r in results]
            if answer:
                out.append({"role": "assistant", "content": answer})
        else:
            out.append({"role": "user", "content": user})
            if text:
                out.append({"type": "message", "role": "assistant",
                            "content": [{"type": "output_text", "text": text, "annotations": []}]})
            out += [{"type": "function_call", "call_id": c, "name": "lookup", "arguments": "{}"} for c in calls]
            out += [{"type": "function_call_output", "call_id": r, "output": "ok"} for r in results]
            if answer:
                out.append({"type": "message", "role": "assistant",
                            "content": [{"type": "output_text", "text": answer, "annotations": []}]})
    if trailing_user:
        out.append({"role": "user", "parts": [{"text": "go on"}]} if format == "gemini"
                   else {"role": "user", "content": "go on"})
    return [_as_langchain(m) for m in out] if format == "langchain" else out


def _as_langchain(message: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI Chat message as LangChain's `messages_to_dict` writes the matching message."""
    role = message["role"]
    if role == "assistant":
        calls = [{"name": c["function"]["name"], "args": {}, "id": c["id"], "type": "tool_call"}
                 for c in message.get("tool_calls", [])]
        data: dict[str, Any] = {"content": message["content"] or "", "type": "ai", "tool_calls": calls,
                                "invalid_tool_calls": []}
        return {"type": "ai", "data": data}
    if role == "tool":
        return {"type": "tool", "data": {"content": message["content"], "type": "tool",
                                         "tool_call_id": message["tool_call_id"]}}
    kind = "human" if role == "user" else "system"
    return {"type": kind, "data": {"content": message["content"], "type": kind}}


def fully_healthy(entries: list[dict[str, Any]], format: str, target: str | None) -> bool:
    transcript = read_document(Document(entries, [0] * len(entries), "array"), "<test>", format)
    return check(transcript, provider=target, policy="strict", depth="diagnosis").healthy


def sent_as_it_is(entries: list[dict[str, Any]], format: str, target: str | None) -> bool:
    """What a guard sends untouched: plainly healthy, and no call of the current turn without the thought signature
    its target refuses it without (the quick pass reads no signature)."""
    return plainly_healthy(entries, format, target) and not (signs(target, format) and unsigned_tail(entries, format))


@settings(max_examples=120, deadline=None)
@given(history=turns(), format=st.sampled_from(FORMATS), system=st.booleans(), trailing=st.booleans(),
       idless=st.booleans(), signed=st.booleans())
def test_quick_healthy_implies_the_full_check_healthy(history: list[Turn], format: str, system: bool,
                                                      trailing: bool, idless: bool, signed: bool) -> None:
    entries = render(history, format, system, trailing, idless and format == "gemini", signed)
    for target in FAST_TARGETS:
        if sent_as_it_is(entries, format, target):
            assert fully_healthy(entries, format, target), (format, target, entries)


def loop(turns_count: int) -> list[Turn]:
    return [("question", "", [f"call_{i}"], [f"call_{i}"], "x is 1") for i in range(turns_count)]


def test_an_ordinary_agent_loop_takes_the_quick_path_in_every_format() -> None:
    for format in FORMATS:
        entries = render(loop(5), format, system=True, trailing_user=False)
        for target in FAST_TARGETS:
            assert plainly_healthy(entries, format, target), (format, target)
            assert fully_healthy(entries, format, target)


def test_gemini_calls_without_ids_take_the_quick_path_toward_gemini_only() -> None:
    """ADK removes its own ids before a request to a Gemini model: such a loop is healthy for Gemini (and
    the universal invariants), paired by order and name; other providers need ids (the full check decides)."""
    entries = render(loop(5), "gemini", system=False, trailing_user=True, idless=True)
    for target in FAST_TARGETS:
        assert plainly_healthy(entries, "gemini", target) is (target in (None, "gemini", "gemini-2")), target
        assert fully_healthy(entries, "gemini", target) or target not in (None, "gemini", "gemini-2")
    swapped = render([("q", "", ["a", "b"], ["b", "a"], "ok")], "gemini", False, True, idless=True)
    mixed = render(loop(2), "gemini", False, True, idless=True) + render(loop(1), "gemini", False, True)
    for broken in (swapped, mixed):
        assert not plainly_healthy(broken, "gemini", "gemini")


def test_broken_requests_never_take_the_quick_path() -> None:
    for format in FORMATS:
        for broken in ([("q", "", ["c1"], [], "")], [("q", "", ["c1"], ["c1", "c1"], "")],
                       [("q", "", [], ["stray"], "")], [("q", "", [], [], "")]):
            entries = render(broken, format, system=False, trailing_user=True)
            assert not plainly_healthy(entries, format, None), (format, broken)


def test_unknown_targets_and_formats_take_the_full_check() -> None:
    entries = render(loop(2), "openai-chat", system=False, trailing_user=False)
    assert not plainly_healthy(entries, "openai-chat", "mistral")
    assert not plainly_healthy(entries, "pi-ai", None)


def test_langchain_message_objects_are_read_by_the_quick_test() -> None:
    from types import SimpleNamespace as NS

    messages = [NS(type="human", content="q"), NS(type="ai", content="", tool_calls=[{"id": "c1", "name": "lookup"}],
                                                 invalid_tool_calls=[]), NS(type="tool", tool_call_id="c1")]
    assert plainly_healthy(messages, "langchain-objects", "anthropic")
    assert not plainly_healthy([*messages, NS(type="remove")], "langchain-objects", None)
    assert not plainly_healthy(messages[:2], "langchain-objects", None)  # the call left open


def test_importing_the_guards_package_imports_no_runtime() -> None:
    import subprocess
    import sys

    code = ("import sys, integrity, integrity.guards; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'agents', 'langchain', 'langchain_core', "
            "'langgraph', 'litellm', 'google'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parent.parent))
    assert out.stdout.strip() == "[]"


def test_a_request_the_engine_cannot_read_is_sent_as_it_is(caplog: Any) -> None:
    import logging

    from integrity.guards import RequestGuard

    odd = [{"role": "user", "content": "q"}, {"role": 7}]
    with caplog.at_level(logging.WARNING, logger="integrity.guards"):
        assert RequestGuard("test").guard(odd, "openai-chat", None) is None
    assert "request not checked" in caplog.records[0].getMessage()


@settings(max_examples=80, deadline=None)
@given(history=turns(), format=st.sampled_from(FORMATS), system=st.booleans(), trailing=st.booleans(),
       edit=st.integers(min_value=0, max_value=40))
def test_the_memo_answers_what_the_whole_pass_answers_as_a_conversation_grows(
        history: list[Turn], format: str, system: bool, trailing: bool, edit: int) -> None:
    """Requests sharing their first entries (the same objects), as a runtime sends them call after call
    (some not healthy: the memo then puts its state back for the next), and one whose entry was replaced
    by another object: the memo's answer (and the cut it hands the repair) is the whole pass's."""
    entries = render(history, format, system, trailing)
    memo = HealthyMemo()
    for target in (None, "anthropic"):
        for end in range(len(entries) + 1):
            request = entries[:end]
            assert memo.scan(request, format, target) == scan(request, format, target), (end, request)
        if entries:
            replaced = list(entries)
            replaced[edit % len(entries)] = {"role": "tool", "tool_call_id": "stray"}  # a new object in place
            assert memo.scan(replaced, format, target) == scan(replaced, format, target)


def test_the_memo_reads_only_the_new_entries_of_a_grown_request() -> None:
    entries = render(loop(50), "openai-chat", system=True, trailing_user=False)
    memo = HealthyMemo()
    assert memo.healthy(entries[:100], "openai-chat", "anthropic")
    copied = copy.deepcopy(entries)  # new dicts of the same value, as an SDK builds them for each call
    assert memo.healthy(copied, "openai-chat", "anthropic") and memo.resumed == 1
    assert not memo.healthy(list(reversed(entries)), "openai-chat", "anthropic")  # other entries: read whole
    assert memo.resumed == 1
    changed = copy.deepcopy(entries)
    changed[2]["tool_calls"] = "broken"  # a new object of another value is read as what it is
    fresh = HealthyMemo()
    assert fresh.healthy(entries[:100], "openai-chat", "anthropic")
    assert not fresh.healthy(changed, "openai-chat", "anthropic") and fresh.resumed == 0
    # The one assumption (HealthyMemo's docstring): an object already sent is not changed in place.
    trusting = HealthyMemo()
    assert trusting.healthy(entries[:100], "openai-chat", "anthropic")
    entries[2]["tool_calls"] = "broken"
    assert trusting.healthy(entries, "openai-chat", "anthropic") and not plainly_healthy(entries, "openai-chat",
                                                                                          "anthropic")


@settings(max_examples=80, deadline=None)
@given(history=turns(), system=st.booleans(), trailing=st.booleans(), idless=st.booleans())
def test_adk_content_objects_read_as_their_gemini_dicts(history: list[Turn], system: bool, trailing: bool,
                                                        idless: bool) -> None:
    from google.genai import types

    entries = render(history, "gemini", system, trailing, idless)
    contents = [types.Content.model_validate(entry) for entry in entries]
    for target in (None, "gemini"):
        assert plainly_healthy(contents, "gemini-objects", target) == plainly_healthy(entries, "gemini", target)


def adk_copy(content: Any, calls_too: bool = False) -> Any:
    """A Content as ADK copies it into each request (`_copy_content_for_request`): a new Content and new
    Parts, shallow copies sharing the session's calls, responses and texts; calls_too: the calls and
    responses copied as well (as ADK does when it strips its "adk-" ids)."""
    def part_copy(part: Any) -> Any:
        if not calls_too:
            return part.model_copy()
        return part.model_copy(update={field: getattr(part, field).model_copy() for field in (
            "function_call", "function_response") if getattr(part, field) is not None})

    return content.model_copy(update={"parts": [part_copy(part) for part in content.parts or []]})


@settings(max_examples=80, deadline=None)
@given(history=turns(), system=st.booleans(), trailing=st.booleans(), idless=st.booleans(),
       edit=st.integers(min_value=0, max_value=40), change=st.sampled_from(["thought", "text", "call", "role"]),
       calls_too=st.booleans())
def test_the_memo_answers_the_whole_pass_on_adk_copies(history: list[Turn], system: bool, trailing: bool,
                                                       idless: bool, edit: int, change: str, calls_too: bool) -> None:
    """ADK hands the plugin new copies of the session's contents on every call: the memo matches them by
    what they share, and a copy whose part was changed (marked as a thought, another text, another call,
    another role) is read as what it is."""
    from google.genai import types

    contents = [types.Content.model_validate(e) for e in render(history, "gemini", system, trailing, idless)]
    memo = HealthyMemo()
    for target in (None, "gemini"):
        for end in range(len(contents) + 1):
            request = [adk_copy(content, calls_too) for content in contents[:end]]
            assert memo.healthy(request, "gemini-objects", target) == plainly_healthy(request, "gemini-objects",
                                                                                      target), end
        request = [adk_copy(content, calls_too) for content in contents]
        changed = request[edit % len(request)] if request else None
        if changed is not None and changed.parts:
            part = changed.parts[0]
            if change == "role":
                changed.role = "model" if changed.role == "user" else "user"
            elif change == "thought":
                part.thought = True
            elif change == "text":
                part.text = " "
            else:
                part.function_call = types.FunctionCall(id="other", name="lookup", args={})
            assert memo.healthy(request, "gemini-objects", target) == plainly_healthy(request, "gemini-objects",
                                                                                      target)
    if len(contents) > 3 and all(plainly_healthy(c, "gemini-objects", "gemini") for c in (contents, contents[:-1])):
        grown = HealthyMemo()
        assert grown.healthy([adk_copy(c) for c in contents[:-1]], "gemini-objects", "gemini")
        assert grown.healthy([adk_copy(c, calls_too) for c in contents], "gemini-objects", "gemini")
        assert grown.resumed == 1


def walked(entries: list[Any], format: str, target: str | None, walk: Any) -> tuple[Any, ...]:
    """A whole pass with `walk` (the written-out one, or the general one through the reader): its answer
    and the state it leaves (the cut, the call ids, the calls open, the last role)."""
    from integrity.guards._fast import _State

    state = _State(target, format)
    answer = walk(entries, 0, state) if walk is not None else _walk_general(entries, 0, format, state)
    kind = state.kind if format == "gemini-objects" else None  # whether calls carry ids: read for Gemini only
    return answer, state.cut, state.cut_ids, state.seen, state.known, state.open_calls, state.last, kind


def odd_entries() -> dict[str, list[Any]]:
    """Per written-out format, entries the quick pass refuses or reads in a special way."""
    from google.genai import types
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    call = {"id": "c9", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    return {
        "openai-responses": [{"type": "reasoning", "summary": []}, {"type": "web_search_call"}, "text",
                             {"role": "developer", "content": "x"}, {"type": "message", "role": "assistant",
                                                                     "content": ""},
                             {"type": "function_call", "call_id": 7}, {"type": "function_call_output"},
                             {"role": "user", "content": "again"}],
        "langchain-objects": [AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "bad id!"}]),
                              AIMessage("x", invalid_tool_calls=[{"name": "f", "args": "{", "id": "c9",
                                                                  "error": None, "type": "invalid_tool_call"}]),
                              HumanMessage(""), ToolMessage("x", tool_call_id="stray"), object(),
                              HumanMessage("again")],
        "openai-chat": [{"role": "developer", "content": "x"}, {"role": "assistant", "content": "x",
                                                                 "function_call": {"name": "f"}},
                        {"role": "assistant", "content": None, "tool_calls": [{**call, "function": "f"}]},
                        {"role": "assistant", "content": None, "tool_calls": [call, call]},
                        {"role": "tool"}, {"role": "user", "content": []}, 7, {"role": "user", "content": "again"}],
        "gemini-objects": [types.Content(role="model", parts=[types.Part(text="x", thought=True)]),
                           types.Content(role="user", parts=[types.Part(text="a"), types.Part(
                               function_response=types.FunctionResponse(id="c9", name="f", response={}))]),
                           types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
                               id="\0f", name="f"))]),
                           types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
                               name="f"))]),
                           types.Content(role="user", parts=[]), types.Content(role="system", parts=[
                               types.Part(text="x")]), "text",
                           types.Content(role="user", parts=[types.Part(text="again")]),
                           types.Content(role="user", parts=[types.Part(
                               function_response=types.FunctionResponse.model_construct(id=5, name="f"))])],
    }


@settings(max_examples=150, deadline=None)
@given(history=turns(), system=st.booleans(), trailing=st.booleans(), odd=st.integers(0, 12),
       where=st.integers(0, 40), idless=st.booleans())
def test_the_written_out_passes_answer_as_the_general_one(history: list[Turn], system: bool, trailing: bool,
                                                          odd: int, where: int, idless: bool) -> None:
    """The written-out passes (what the Agents SDK, LiteLLM, LangChain and ADK read) inline their reader:
    on the same requests, with an odd entry put in now and then, they answer and leave the state exactly as
    `_walk_general` through the reader does."""
    from google.genai import types
    from langchain_core.messages import messages_from_dict

    from integrity.guards._fast import _WALKERS

    requests = {"openai-responses": render(history, "openai-responses", system, trailing),
                "langchain-objects": list(messages_from_dict(render(history, "langchain", system, trailing))),
                "openai-chat": render(history, "openai-chat", system, trailing),
                "gemini-objects": [types.Content.model_validate(e) for e in render(history, "gemini", system,
                                                                                    trailing, idless)]}
    assert set(requests) == set(_WALKERS)
    for format, entries in requests.items():
        extra = odd_entries()[format]
        if odd < len(extra):
            entries.insert(where % (len(entries) + 1), extra[odd])
        for target in FAST_TARGETS:
            assert walked(entries, format, target, _WALKERS[format]) == walked(entries, format, target, None), \
                (format, target)


def test_a_request_that_fails_after_the_memo_leaves_it_ready_for_the_next() -> None:
    """The memo carries its state on in place: a grown request that fails (a new call, then a stray) puts
    it back, so the next request, which makes the same call and answers it, is read from the old end."""
    entries = render(loop(3), "openai-chat", system=True, trailing_user=True)
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c9", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}
    memo = HealthyMemo()
    assert memo.healthy(entries, "openai-chat", "anthropic")
    broken = [*entries, call, {"role": "tool", "tool_call_id": "stray", "content": "x"}]
    assert memo.scan(broken, "openai-chat", "anthropic") == scan(broken, "openai-chat", "anthropic")
    healed = [*entries, call, {"role": "tool", "tool_call_id": "c9", "content": "x"}]
    assert memo.healthy(healed, "openai-chat", "anthropic") and memo.resumed == 2


def test_threads_sharing_one_memo_get_the_whole_pass_answers() -> None:
    """A guard object may serve several threads (a LiteLLM proxy): each answer is the whole pass's."""
    from concurrent.futures import ThreadPoolExecutor

    entries = render(loop(40), "openai-chat", system=True, trailing_user=False)
    requests = [entries[:end] for end in range(1, len(entries) + 1)] * 3
    memo = HealthyMemo()
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda r: memo.scan(r, "openai-chat", "anthropic"), requests))
    assert answers == [scan(r, "openai-chat", "anthropic") for r in requests]


def test_a_guard_holding_a_memo_can_be_copied_and_pickled() -> None:
    """Runtimes may deep-copy or pickle their configuration, callbacks included: the memo (its lock) allows
    it, and the copy starts empty and answers as the whole pass does."""
    import pickle

    entries = render(loop(3), "openai-chat", system=True, trailing_user=False)
    memo = HealthyMemo()
    assert memo.healthy(entries, "openai-chat", "anthropic")
    for other in (copy.deepcopy(memo), copy.copy(memo), pickle.loads(pickle.dumps(memo))):
        assert other is not memo and other.resumed == 0
        assert other.healthy(entries, "openai-chat", "anthropic") and other.resumed == 0


@settings(max_examples=200, deadline=None)
@given(history=turns(), system=st.booleans(), trailing=st.booleans(), odd=st.integers(0, 16),
       where=st.integers(0, 40), idless=st.booleans(), mixed=st.booleans())
def test_contents_read_column_wise_answer_as_the_pass(history: list[Turn], system: bool, trailing: bool, odd: int,
                                                     where: int, idless: bool, mixed: bool) -> None:
    """`_contents.scan_contents` (ADK's requests read whole, from their key) answers what the written-out pass
    over the Contents answers, with the same cut and call ids before it, and when healthy leaves the same
    state; with an odd content put in now and then, and calls with ids after calls without (mixed)."""
    from google.genai import types

    from integrity.guards._contents import scan_contents
    from integrity.guards._fast import _content_key, _State, _walk_gemini_objects

    entries = render(history, "gemini", system, trailing, idless)
    if mixed:
        entries += render(history[:1], "gemini", False, False, not idless)
    contents = [types.Content.model_validate(e) for e in entries]
    extra = [e for e in odd_entries()["gemini-objects"] if isinstance(e, types.Content)] + [
        types.Content(role="model", parts=[types.Part(text="  ")]),
        types.Content(role="user", parts=[types.Part(text="x", inline_data=types.Blob(data=b"1", mime_type="a"))]),
        *(types.Content(role=role, parts=[types.Part(  # a part holding a call and a response: read as its call
            function_call=types.FunctionCall(id="both", name="f"),
            function_response=types.FunctionResponse(id="both", name="f", response={}))])
          for role in ("model", "user"))]
    if odd < len(extra):
        contents.insert(where % (len(contents) + 1), extra[odd])
    if not contents:
        return
    for target in FAST_TARGETS:
        fast, slow = _State(target, "gemini-objects"), _State(target, "gemini-objects")
        answer = scan_contents(tuple(_content_key(contents)), fast)
        walked_answer = _walk_gemini_objects(contents, 0, slow)
        if answer is None:
            assert fast.seen == [] and fast.cut == 0  # left as it was: the pass reads them
            continue
        assert (answer, fast.cut, fast.seen[:fast.cut_ids]) == (walked_answer, slow.cut, slow.seen[:slow.cut_ids])
        if answer:
            assert (fast.cut_ids, fast.seen, fast.known, fast.open_calls, fast.last, fast.kind) == (
                slow.cut_ids, slow.seen, slow.known, slow.open_calls, slow.last, slow.kind)


@settings(max_examples=200, deadline=None)
@given(history=turns(), system=st.booleans(), trailing=st.booleans(), odd=st.integers(0, 20),
       where=st.integers(0, 40), idless=st.booleans(), mixed=st.booleans())
def test_contents_read_whole_answer_as_the_pass(history: list[Turn], system: bool, trailing: bool, odd: int,
                                                where: int, idless: bool, mixed: bool) -> None:
    """`_contents.read_whole` (ADK's requests read whole: their key, and the pass answered from it or written
    out) answers what the written-out pass over the Contents answers, leaves the same cut and call ids
    before it (when healthy, the same state: every call id seen, the last role...), and gives the key
    `_content_key` gives; with an odd content put in now and then (one the pass stops at, one whose reading
    raises), and calls with ids after calls without (mixed)."""
    from google.genai import types

    from integrity.guards._contents import read_whole
    from integrity.guards._fast import _content_key, _State, _walk_gemini_objects

    entries = render(history, "gemini", system, trailing, idless)
    if mixed:
        entries += render(history[:1], "gemini", False, False, not idless)
    contents: list[Any] = [types.Content.model_validate(e) for e in entries]
    extra = [e for e in odd_entries()["gemini-objects"] if isinstance(e, types.Content)] + [
        types.Content(role="model", parts=[types.Part(text="  ")]),
        types.Content(role="user", parts=[types.Part(text="x", inline_data=types.Blob(data=b"1", mime_type="a"))]),
        types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(id="a b", name="f"))]),
        types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(name=""))]),
        *(types.Content(role=role, parts=[types.Part(  # a part holding a call and a response: read as its call
            function_call=types.FunctionCall(id="both", name="f"),
            function_response=types.FunctionResponse(id="both", name="f", response={}))])
          for role in ("model", "user")),
        types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(name="", response={}))]),
        "not a content"]
    if odd < len(extra):
        contents.insert(where % (len(contents) + 1), extra[odd])
    for target in FAST_TARGETS:
        whole, walked = _State(target, "gemini-objects"), _State(target, "gemini-objects")
        try:
            walked_answer = _walk_gemini_objects(contents, 0, walked)
        except TypeError:
            walked_answer = False  # (the written-out pass lets a TypeError through: read_whole stops there)
        answer, key = read_whole(contents, whole, None)
        assert answer == walked_answer
        assert (whole.cut, whole.seen[:whole.cut_ids]) == (walked.cut, walked.seen[:walked.cut_ids])
        if answer:
            assert (whole.cut_ids, whole.seen, whole.known, whole.open_calls, whole.last, whole.kind) == (
                walked.cut_ids, walked.seen, walked.known, walked.open_calls, walked.last, walked.kind)
        try:
            expected: Any = _content_key(contents)
        except (AttributeError, TypeError):
            expected = None
        assert (key is None) == (expected is None) and (key is None or key[:7] == expected[:7])


def test_an_id_longer_than_the_target_takes_never_takes_the_quick_path() -> None:
    """OpenAI Chat takes call ids of at most 40 characters, Responses 64: a longer plain id fails the quick
    pass toward them, and with no target in their formats (the full check judges by the provider the format
    implies, and renames it), and passes otherwise (found by an adversarial review: the pass took any length,
    so such a request was sent as it was)."""
    from integrity import target_provider
    from integrity.providers import SPECS

    for length in (40, 41, 64, 65):
        call_id = "c" * length
        for format in FORMATS:
            entries = render([("question", "", [call_id], [call_id], "x is 1")], format, False, True)
            for target in FAST_TARGETS:
                judge = target_provider(format, target)
                rule = SPECS[judge].id_rule if judge is not None else None
                takes = rule is None or rule.accepts(call_id)
                assert plainly_healthy(entries, format, target) is takes, (length, format, target)
                assert fully_healthy(entries, format, target) is takes, (length, format, target)


def test_a_direct_repair_renames_an_id_longer_than_the_target_takes() -> None:
    """A dangling call after a call whose id is too long for the target: the guard's direct repair (nothing asks
    for the report) leaves the request to the pipeline, which renames the long id and answers the dangling
    call; what is sent is legal for the target, and the long id's real result is kept under its new id."""
    from integrity.guards import RequestGuard, request_verdict

    long_id = "call_" + "a" * 72
    for format in FORMATS:
        if format == "langchain":
            continue  # (dicts here; the LangChain guard's objects are tested in test_guard_langchain)
        history = [("question", "", [long_id], [long_id], "x is 1"), ("question", "", ["c9"], [], "")]
        entries = render(history, format, False, True)
        for target in ("openai-chat", "openai-responses", None):  # (None: the provider the format implies)
            # guard_objects, as the runtimes call it: with nothing asking for the report it tries the direct
            # repair (integrity.guards._native) first
            sent = RequestGuard("test").guard_objects(entries, format, copy.deepcopy, format, target)
            assert sent is not None, (format, target)
            verdict = request_verdict(sent, format, target)
            assert verdict.legal, (format, target, verdict.violations)
            assert len(verdict.results) == 1 and "ok" in verdict.results[0][1], (format, target)


def _text(text: str, kind: str = "text") -> dict[str, Any]:
    return {"type": kind, "text": text}


EMPTY_TEXT_BESIDE = [  # (format, request): an empty text block beside another part, which Anthropic refuses
    ("openai-chat", [{"role": "user", "content": [_text(""), _text("hi")]}, {"role": "assistant", "content": "yo"},
                     {"role": "user", "content": "q"}]),
    ("openai-chat", [{"role": "user", "content": "q"},
                     {"role": "assistant", "content": [_text("")], "tool_calls": [
                         {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": "c1", "content": "ok"}, {"role": "user", "content": "next"}]),
    ("openai-responses", [{"role": "user", "content": [_text("", "input_text"), _text("hi", "input_text")]},
                          {"role": "assistant", "content": [_text("yo", "output_text")]},
                          {"role": "user", "content": "q"}]),
]


def test_an_empty_text_block_beside_other_parts_goes_to_the_full_check() -> None:
    """Found by review: the quick pass asked only whether a message was blank as a whole (and never of a calling
    turn), so [text "", text "hi"] or a calling turn's [text ""] passed as plainly healthy toward Anthropic while
    the full check, `request_verdict` and `check --provider anthropic` refuse it (empty_text_block): mode="raise"
    and the report stayed silent.  Such a message now goes to the full check, which leaves the empty text out."""
    from integrity.guards._core import RequestGuard, request_verdict

    for format, request in EMPTY_TEXT_BESIDE:
        assert not request_verdict(request, format, "anthropic").legal
        assert scan(request, format, "anthropic")[0] is False, (format, request)
        sent = RequestGuard("test").guard(request, format, "anthropic")
        assert sent is not None and request_verdict(sent, format, "anthropic").legal, (format, sent)


WHITESPACE_BESIDE = [  # (format, request): a whitespace text beside another part of an assistant message: Bedrock
    # refuses it (vercel/ai#6254)
    ("openai-chat", [{"role": "user", "content": "q"},
                     {"role": "assistant", "content": [_text("\n\n")], "tool_calls": [
                         {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": "c1", "content": "ok"}, {"role": "user", "content": "next"}]),
    ("openai-chat", [{"role": "user", "content": "q"}, {"role": "assistant", "content": [_text(" "), _text("yo")]},
                     {"role": "user", "content": "next"}]),
]


def test_a_whitespace_text_beside_other_parts_goes_to_the_full_check_toward_bedrock() -> None:
    """Bedrock refuses a text block of whitespace beside a tool call (Anthropic takes it): the quick pass sends
    such a message to the full check, which sends it to Bedrock without the blank text and to Anthropic as it is."""
    from integrity.guards._core import RequestGuard, request_verdict

    for format, request in WHITESPACE_BESIDE:
        assert not request_verdict(request, format, "bedrock").legal
        assert scan(request, format, "bedrock")[0] is False, (format, request)
        sent = RequestGuard("test").guard(request, format, "bedrock")
        assert sent is not None and request_verdict(sent, format, "bedrock").legal, (format, sent)
        assert request_verdict(request, format, "anthropic").legal
        assert RequestGuard("test").guard(request, format, "anthropic") is None  # nothing to change
    # in a user message Bedrock takes it (recorded 200: tests/provider_cases/bedrock_whitespace_text_beside_document)
    request = [{"role": "user", "content": [_text(" "), _text("hi")]}, {"role": "assistant", "content": "yo"},
               {"role": "user", "content": "q"}]
    assert request_verdict(request, "openai-chat", "bedrock").legal
    assert RequestGuard("test").guard(request, "openai-chat", "bedrock") is None


def test_a_string_above_the_targets_limit_never_takes_the_quick_path() -> None:
    """OpenAI refuses a request holding one string above 10,485,760 characters, and the full check cuts such a text
    (`text_cut`).  The quick pass read no text, so a guard sent such a request as healthy while `check` called it
    rejected: toward OpenAI Chat and Responses (and with no target in their formats) it fails the pass now, and the
    guard sends the request cut, legal for the target; toward a provider without the limit it passes as before.  A
    long text under the pass's bound (integrity.guards._limit: a twelfth of the limit) still takes it."""
    from integrity import target_provider
    from integrity.guards import RequestGuard, request_verdict
    from integrity.providers import SPECS
    from integrity.repair.views import STRING_LIMIT

    for length, judged in ((STRING_LIMIT + 1, True), (800_000, False)):
        for format in FORMATS:
            entries = render([("x" * length, "", ["c1"], ["c1"], "x is 1")], format, False, True)
            for target in FAST_TARGETS:
                judge = target_provider(format, target)
                limited = judge is not None and SPECS[judge].string_limit is not None
                refused = judged and limited
                assert plainly_healthy(entries, format, target) is not refused, (length, format, target)
                assert fully_healthy(entries, format, target) is not refused, (length, format, target)
                if not refused or format == "langchain":
                    continue  # (the LangChain guard's objects are sent by test_guard_langchain's guard)
                sent = RequestGuard("test").guard_objects(entries, format, copy.deepcopy, format, target)
                assert sent is not None, (format, target)
                verdict = request_verdict(sent, format, target)
                assert verdict.legal, (format, target, verdict.violations)


def test_a_tool_name_the_target_refuses_never_takes_the_quick_path() -> None:
    """OpenAI Chat refuses a history call's tool name with a character outside a-zA-Z0-9_- or longer than 64,
    Anthropic one longer than 200, both an empty one; the full check sends it made legal (`tool_name`).  The quick
    pass read no name, so a guard sent a Gemini tool `web.search` to GPT as it was: now the pass answers what the
    full check answers for every format and target, and the guard sends a request legal for the target."""
    import json

    from integrity.guards import RequestGuard, request_verdict

    for name in ("web.search", "a" * 64, "a" * 65, "b" * 201, "", "lookup_2"):
        for format in FORMATS:
            rendered = render([("question", "", ["c1"], ["c1"], "x is 1")], format, False, True)
            entries = json.loads(json.dumps(rendered).replace('"lookup"', json.dumps(name)))
            for target in FAST_TARGETS:
                full = fully_healthy(entries, format, target)
                assert plainly_healthy(entries, format, target) is full, (name, format, target)
                if full or format == "langchain":
                    continue
                sent = RequestGuard("test").guard_objects(entries, format, copy.deepcopy, format, target)
                assert sent is not None, (name, format, target)
                verdict = request_verdict(sent, format, target)
                assert verdict.legal, (name, format, target, verdict.violations)


def _chat_call(arguments: str) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": arguments}}]}


_IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
SHAPES_THE_PASS_READ_NOT = {  # (format, request): what the full check refuses for some target, the pass took
    "Chat arguments of JSON that is no object (Anthropic's input must be one)": (
        "openai-chat", [{"role": "user", "content": "q"}, _chat_call("[1, 2]"),
                        {"role": "tool", "tool_call_id": "call_1", "content": "ok"}, {"role": "user", "content": "n"}]),
    "a Chat tool message whose content is null": (
        "openai-chat", [{"role": "user", "content": "q"}, _chat_call("{}"),
                        {"role": "tool", "tool_call_id": "call_1", "content": None}, {"role": "user", "content": "n"}]),
    "a Responses call whose item id another server minted (OpenAI: item_id_prefix)": (
        "openai-responses", [{"role": "user", "content": "q"},
                             {"type": "function_call", "id": "call_70eac2a1", "call_id": "c1", "name": "f",
                              "arguments": "{}"},
                             {"type": "function_call_output", "call_id": "c1", "output": "ok"},
                             {"role": "user", "content": "n"}]),
    "a Chat system message whose content is null (OpenAI: content_missing)": (
        "openai-chat", [{"role": "system", "content": None}, {"role": "user", "content": "q"}]),
    "a Responses call whose arguments are null": (
        "openai-responses", [{"role": "user", "content": "q"},
                             {"type": "function_call", "call_id": "c1", "name": "f", "arguments": None},
                             {"type": "function_call_output", "call_id": "c1", "output": "ok"},
                             {"role": "user", "content": "n"}]),
    "a Gemini call whose args are null": (
        "gemini", [{"role": "user", "parts": [{"text": "q"}]},
                   {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f", "args": None}}]},
                   {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "f", "response": {"r": 1}}}]},
                   {"role": "model", "parts": [{"text": "x is 1"}]}, {"role": "user", "parts": [{"text": "n"}]}]),
    "an Anthropic error result holding a screenshot": (
        "anthropic", [{"role": "user", "content": [_text("q")]},
                      {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "shot",
                                                         "input": {}}]},
                      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
                                                    "content": [_IMAGE]}]},
                      {"role": "assistant", "content": "ok"}, {"role": "user", "content": [_text("n")]}]),
    "a Chat part of a text without its type (OpenAI: content_part_type_missing)": (
        "openai-chat", [{"role": "user", "content": [{"text": "q"}]}, _chat_call("{}"),
                        {"role": "tool", "tool_call_id": "call_1", "content": [{"text": "ok"}]},
                        {"role": "user", "content": "n"}]),
    "an Anthropic block of a text without its type (content_type_missing)": (
        "anthropic", [{"role": "user", "content": [{"text": "q"}]}, {"role": "assistant", "content": "ok"},
                      {"role": "user", "content": [_text("n")]}]),
}


@pytest.mark.parametrize("name", sorted(SHAPES_THE_PASS_READ_NOT))
def test_what_the_full_check_refuses_the_quick_pass_never_takes(name: str) -> None:
    """Found by probing the pass against the full check with shapes the generated histories never hold: for every
    target the pass takes such a request only when the full check finds it healthy; otherwise a guard reports it,
    and what it sends is legal for the target (a null tool content is a malformed entry no repair writes anew: it
    is reported and sent as it is, as `check` calls it malformed)."""
    from integrity.guards import GuardReport, RequestGuard, request_verdict

    format, entries = SHAPES_THE_PASS_READ_NOT[name]
    refused = 0
    for target in FAST_TARGETS:
        full = fully_healthy(entries, format, target)
        refused += not full
        assert full or not plainly_healthy(entries, format, target), (name, target)  # taken: healthy
        if not full:
            reports: list[GuardReport] = []
            guard = RequestGuard("test", on_report=reports.append)
            sent = guard.guard_objects(entries, format, copy.deepcopy, format, target)
            assert reports, (name, target)
            if sent is not None:
                assert request_verdict(sent, format, target).legal, (name, target)
    assert refused  # (the shape is one some target refuses)


def test_a_langchain_error_result_holding_an_image_goes_to_the_full_check() -> None:
    """A LangChain tool that failed with a screenshot (a ToolMessage of status "error" holding an image): Anthropic
    refuses it ("content cannot be empty if `is_error` is true", once the image is left out of the error), and OpenAI
    Chat an image in a tool message ("Image URLs are only allowed for messages with role 'user'"), so the pass leaves
    it to the full check toward both (it took it toward OpenAI Chat while the Chat writer dropped the image)."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    messages = [HumanMessage("q"), AIMessage(content="", tool_calls=[{"id": "toolu_1", "name": "shot", "args": {}}]),
                ToolMessage(tool_call_id="toolu_1", status="error", content=[
                    {"type": "image", "source_type": "base64", "data": "AAAA", "mime_type": "image/png"}]),
                AIMessage("ok"), HumanMessage("n")]
    assert not plainly_healthy(messages, "langchain-objects", "anthropic")
    assert not plainly_healthy(messages, "langchain-objects", "openai-chat")


def _item(kind: str, item_id: str, call: str = "") -> dict[str, Any]:
    if kind == "reasoning":
        return {"type": "reasoning", "id": item_id, "summary": [], "encrypted_content": "x"}
    if kind == "message":
        return {"type": "message", "role": "assistant", "id": item_id, "status": "completed",
                "content": [{"type": "output_text", "text": "a", "annotations": []}]}
    return {"type": "function_call", "id": item_id, "call_id": call, "name": "f", "arguments": "{}"}


def _turn(reasoning: str, call: str, item: str) -> list[dict[str, Any]]:
    return [_item("reasoning", reasoning), _item("function_call", item, call),
            {"type": "function_call_output", "call_id": call, "output": "ok"},
            _item("message", f"msg_{call}"), {"role": "user", "content": "go on"}]


@pytest.mark.parametrize("repeated", ["reasoning", "function_call", "message"])
def test_a_responses_item_id_used_twice_never_takes_the_quick_path(repeated: str) -> None:
    """The Responses API refuses an input holding one item id twice ("Duplicate item found with id rs_…": a turn
    stored twice), and the full check finds such a request broken; the quick pass read no item id.  It fails the
    pass now, whole and when the memo reads only the new turn, and the memo stays ready for a healthy next one."""
    first = [{"role": "user", "content": "q"}, *_turn("rs_1", "c1", "fc_1")]
    again = {"reasoning": _turn("rs_1", "c2", "fc_2"), "function_call": _turn("rs_2", "c2", "fc_1"),
             "message": [*_turn("rs_2", "c2", "fc_2")[:3], _item("message", "msg_c1"),
                         {"role": "user", "content": "go on"}]}[repeated]
    broken = [*first, *again]
    for target in (None, "openai-responses"):
        assert not fully_healthy(broken, "openai-responses", target)
        assert not plainly_healthy(broken, "openai-responses", target), target
        memo = HealthyMemo()
        assert memo.healthy(first, "openai-responses", target)
        assert not memo.healthy(broken, "openai-responses", target)  # read from the remembered state
        healthy = [*first, *_turn("rs_3", "c3", "fc_3")]
        assert memo.healthy(healthy, "openai-responses", target) and memo.resumed == 2  # (put back as it was)


def test_every_format_the_quick_pass_reads_has_a_reading_of_the_bounds() -> None:
    """bound_for answers None for a format it has no reading of, so a format the pass learns to read later would
    pass requests the bounds refuse, silently: each one the pass reads (its readers, and the passes the guard
    modules register) is read by integrity.guards._bounds too."""
    import integrity.guards.adk  # noqa: F401  (registers the column-wise pass over Contents)
    import integrity.guards.pydantic_ai  # noqa: F401  (registers its pass over ModelMessages)
    from integrity.guards._bounds import _READINGS
    from integrity.guards._fast import _PASSES, _READERS, _WHOLE

    assert {*_READERS, *_PASSES, *_WHOLE} <= set(_READINGS)
