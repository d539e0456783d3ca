"""The LiteLLM guard against the real LiteLLM: `mock_response` calls (no network) and direct proxy-hook calls.

What LiteLLM sends is captured by a second callback listed after the guard (its deployment hook sees
the kwargs as they leave the hook chain).  Each broken history is judged by the engine's rule sets for
the provider the model name points to, as LiteLLM sends it alone, after LiteLLM's own sanitizer
(`sanitize_messages_for_tool_calling`, which runs only with `modify_params=True`), and with the guard.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network fetch of the model price map
import litellm  # noqa: E402 - never skipped: requirements-dev.txt installs it
from litellm.integrations.custom_logger import CustomLogger  # noqa: E402
from litellm.litellm_core_utils.prompt_templates.factory import sanitize_messages_for_tool_calling  # noqa: E402

from integrity.guards import GuardReport, ToolCallIntegrityError, request_verdict  # noqa: E402
from integrity.guards.litellm import ToolCallIntegrityGuard  # noqa: E402

CLAUDE = "anthropic/claude-sonnet-4-5"


class Capture(CustomLogger):
    """Records the request of every call at the deployment hook (listed after the guard)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[dict[str, Any]] = []

    async def async_pre_call_deployment_hook(self, kwargs: dict[str, Any], call_type: Any) -> None:
        self.seen.append(dict(kwargs))
        return None


def call(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": i, "type": "function", "function": {"name": "lookup", "arguments": '{"q":"x"}'}}
                           for i in ids]}


def result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


USER = {"role": "user", "content": "what is x?"}
AGAIN = {"role": "user", "content": "and now?"}

CHAT: dict[str, list[dict[str, Any]]] = {
    "dangling call": [USER, call("c1"), AGAIN],
    "orphan result": [USER, result("c_gone", "done"), AGAIN],
    "duplicate result": [USER, call("c1"), result("c1", "first"), result("c1", "second"), AGAIN],
    "interrupted run": [USER, call("c1", "c2"), result("c1", "x is 1"), AGAIN],
}

# Measured here, the table in docs/guards.md: is the request legal for Anthropic as LiteLLM sends it
# alone, and after its own sanitizer (modify_params=True)?
ALONE_LEGAL = {"dangling call": False, "orphan result": False, "duplicate result": False, "interrupted run": False}
SANITIZER_LEGAL = {"dangling call": True, "orphan result": True, "duplicate result": True, "interrupted run": True}


def first_results(messages: list[dict[str, Any]]) -> set[tuple[str, str]]:
    called = {c["id"] for m in messages for c in (m.get("tool_calls") or [])}
    first: dict[str, str] = {}
    for m in messages:
        if m.get("role") == "tool" and m["tool_call_id"] in called:
            first.setdefault(m["tool_call_id"], m["content"])
    return set(first.items())


@pytest.fixture
def capture() -> Any:
    saved = list(litellm.callbacks)
    found = Capture()
    yield found
    litellm.callbacks = saved


def sent_by_acompletion(messages: list[dict[str, Any]], callbacks: list[Any], capture: Capture) -> list[Any]:
    litellm.callbacks = [*callbacks, capture]
    response = asyncio.run(litellm.acompletion(model=CLAUDE, messages=messages, mock_response="fine"))
    assert response.choices[0].message.content == "fine"
    return list(capture.seen[-1]["messages"])


@pytest.mark.parametrize("name", list(CHAT))
def test_chat_completions_toward_anthropic(name: str, capture: Capture) -> None:
    history = CHAT[name]
    snapshot = copy.deepcopy(history)
    alone = request_verdict(sent_by_acompletion(history, [], capture), "openai-chat", "anthropic")
    guarded_sent = sent_by_acompletion(history, [ToolCallIntegrityGuard()], capture)
    guarded = request_verdict(guarded_sent, "openai-chat", "anthropic")
    saved = litellm.modify_params
    litellm.modify_params = True
    try:
        sanitized = request_verdict(sanitize_messages_for_tool_calling(copy.deepcopy(history)), "openai-chat",
                                    "anthropic")
    finally:
        litellm.modify_params = saved
    assert alone.legal is ALONE_LEGAL[name], (name, alone)
    assert sanitized.legal is SANITIZER_LEGAL[name], (name, sanitized)
    assert guarded.legal, (name, guarded.violations)
    assert first_results(history) <= set(guarded.results)
    assert history == snapshot


def test_on_a_duplicate_litellms_sanitizer_keeps_the_latest_and_the_guard_the_first(capture: Capture) -> None:
    history = CHAT["duplicate result"]
    saved = litellm.modify_params
    litellm.modify_params = True
    try:
        sanitized = request_verdict(sanitize_messages_for_tool_calling(copy.deepcopy(history)), "openai-chat", None)
    finally:
        litellm.modify_params = saved
    guarded = request_verdict(sent_by_acompletion(history, [ToolCallIntegrityGuard()], capture), "openai-chat", None)
    assert sanitized.results == [("c1", "second")]
    assert guarded.results == [("c1", "first")]


ANTHROPIC_DANGLING = [
    {"role": "user", "content": "what is x?"},
    {"role": "assistant", "content": [{"type": "text", "text": "looking"},
                                      {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x"}}]},
    {"role": "user", "content": [{"type": "text", "text": "and now?"}]},
]


def test_v1_messages_is_repaired_where_litellm_skips_it(capture: Capture) -> None:
    """#22946: the /v1/messages path gets no sanitizing; the guard repairs it in the Anthropic shape."""
    snapshot = copy.deepcopy(ANTHROPIC_DANGLING)
    sent: dict[str, list[Any]] = {}
    for label, callbacks in (("alone", []), ("guarded", [ToolCallIntegrityGuard()])):
        litellm.callbacks = [*callbacks, capture]
        asyncio.run(litellm.anthropic.messages.acreate(model=CLAUDE, messages=ANTHROPIC_DANGLING, max_tokens=64,
                                                       mock_response="fine"))
        sent[label] = list(capture.seen[-1]["messages"])
    assert not request_verdict(sent["alone"], "anthropic", "anthropic").legal
    guarded = request_verdict(sent["guarded"], "anthropic", "anthropic")
    assert guarded.legal and guarded.receipts == 1, guarded.violations
    assert ANTHROPIC_DANGLING == snapshot


RESPONSES_INPUT = [
    {"role": "user", "content": "what is x?"},
    {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "c_gone", "output": "approved"},
]


def test_responses_input_is_repaired(capture: Capture) -> None:
    sent: dict[str, list[Any]] = {}
    for label, callbacks in (("alone", []), ("guarded", [ToolCallIntegrityGuard()])):
        litellm.callbacks = [*callbacks, capture]
        asyncio.run(litellm.aresponses(model="openai/gpt-4.1", input=RESPONSES_INPUT, mock_response="fine"))
        sent[label] = list(capture.seen[-1]["input"])
    alone = request_verdict(sent["alone"], "openai-responses", "openai-responses")
    guarded = request_verdict(sent["guarded"], "openai-responses", "openai-responses")
    assert {v.rule for v in alone.violations} >= {"function_call_output_without_call"}
    assert guarded.legal and guarded.receipts == 1, guarded.violations


@pytest.mark.parametrize(("call_type", "key", "entries", "format", "model"), [
    ("completion", "messages", CHAT["interrupted run"], "openai-chat", CLAUDE),
    ("anthropic_messages", "messages", ANTHROPIC_DANGLING, "anthropic", "claude-sonnet-4-5"),
    ("aresponses", "input", RESPONSES_INPUT, "openai-responses", "gpt-4.1"),
])
def test_the_proxy_hook_repairs_each_shape_on_a_copy(call_type: str, key: str, entries: list[Any], format: str,
                                                     model: str) -> None:
    data = {"model": model, key: entries, "metadata": {"user": "u1"}}
    snapshot = copy.deepcopy(data)
    reports: list[GuardReport] = []
    out = asyncio.run(ToolCallIntegrityGuard(on_report=reports.append).async_pre_call_hook(None, None, data,
                                                                                           call_type))
    assert out is not data and data == snapshot
    assert out["metadata"] is data["metadata"] and out["model"] == model
    assert out[key][0] is entries[0]  # unchanged messages are the caller's objects
    target = reports[0].target
    assert target in ("anthropic", "openai-responses")
    assert request_verdict(out[key], format, target).legal


def test_a_healthy_request_is_the_same_dict() -> None:
    data = {"model": CLAUDE, "messages": [USER, call("c1"), result("c1", "x is 1")]}
    guard = ToolCallIntegrityGuard()
    assert asyncio.run(guard.async_pre_call_hook(None, None, data, "completion")) is data
    assert asyncio.run(guard.async_pre_call_deployment_hook(data, None)) is None  # None: LiteLLM keeps its kwargs
    embedding = {"model": "text-embedding-3-small", "input": ["x"]}
    assert asyncio.run(guard.async_pre_call_hook(None, None, embedding, "aembedding")) is embedding


def test_modes_report_and_raise_and_the_log_line(caplog: pytest.LogCaptureFixture) -> None:
    data = {"model": CLAUDE, "messages": CHAT["dangling call"]}
    reports: list[GuardReport] = []
    with caplog.at_level(logging.INFO, logger="integrity.guards"):
        out = asyncio.run(ToolCallIntegrityGuard(mode="report", on_report=reports.append).async_pre_call_hook(
            None, None, data, "completion"))
    assert out is data and reports[0].target == "anthropic" and not reports[0].applied
    assert [r.getMessage() for r in caplog.records if r.name == "integrity.guards"][0].startswith(
        "integrity guard [litellm] target=anthropic")
    with pytest.raises(ToolCallIntegrityError):
        asyncio.run(ToolCallIntegrityGuard(mode="raise").async_pre_call_hook(None, None, data, "completion"))


def test_a_response_message_object_in_the_history_is_read_and_kept(capture: Capture) -> None:
    """Callers append LiteLLM's own Message objects (a previous response) to the history."""
    litellm.callbacks = [capture]
    tools_reply = litellm.completion(model=CLAUDE, messages=[USER], mock_response="fine")
    message = tools_reply.choices[0].message
    message.tool_calls = [litellm.utils.ChatCompletionMessageToolCall(
        id="c9", type="function", function=litellm.utils.Function(name="lookup", arguments="{}"))]
    history = [USER, message, AGAIN]
    data = {"model": CLAUDE, "messages": history}
    out = asyncio.run(ToolCallIntegrityGuard().async_pre_call_hook(None, None, data, "acompletion"))
    assert out["messages"][1] is message  # the object itself, not its dump
    dumped = [m if isinstance(m, dict) else m.model_dump(exclude_none=True) for m in out["messages"]]
    verdict = request_verdict(dumped, "openai-chat", "anthropic")
    assert verdict.legal and verdict.receipts == 1, verdict.violations


class SyncCapture(CustomLogger):
    """Records what a sync call hands LiteLLM's pre-API-call log (the request about to be sent)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    def log_pre_api_call(self, model: Any, messages: Any, kwargs: Any) -> None:
        self.seen.append(messages)


@pytest.fixture
def sync_capture() -> Any:
    saved_callbacks, saved = list(litellm.callbacks), (litellm.completion, litellm.responses)
    found = SyncCapture()
    litellm.callbacks = [found]
    yield found
    litellm.callbacks = saved_callbacks
    litellm.completion, litellm.responses = saved


def sent_by_completion(messages: list[dict[str, Any]], capture: SyncCapture, positional: bool = False) -> list[Any]:
    response = (litellm.completion(CLAUDE, messages, mock_response="fine") if positional else
                litellm.completion(model=CLAUDE, messages=messages, mock_response="fine"))
    assert response.choices[0].message.content == "fine"
    return list(capture.seen[-1])


@pytest.mark.parametrize("name", list(CHAT))
def test_sync_completion_is_guarded_once_wrapped(name: str, sync_capture: SyncCapture) -> None:
    """`litellm.completion` runs no hook that may change the request: alone it sends the broken history;
    after `guard_sync_calls()` the request is legal for Anthropic and keeps every real result."""
    history = CHAT[name]
    snapshot = copy.deepcopy(history)
    reports: list[GuardReport] = []
    guard = ToolCallIntegrityGuard(on_report=reports.append)
    litellm.callbacks = [guard, sync_capture]  # in the callbacks too, as for async calls: not enough alone
    alone = request_verdict(sent_by_completion(history, sync_capture), "openai-chat", "anthropic")
    assert alone.legal is ALONE_LEGAL[name] and not reports
    undo = guard.guard_sync_calls()
    for positional in (False, True):
        guarded = request_verdict(sent_by_completion(history, sync_capture, positional), "openai-chat", "anthropic")
        assert guarded.legal, (name, guarded.violations)
        assert first_results(history) <= set(guarded.results)
    assert len(reports) == 2 and reports[0].target == "anthropic"
    assert history == snapshot  # the caller's list is never changed
    undo()
    assert not request_verdict(sent_by_completion(history, sync_capture), "openai-chat", "anthropic").legal


def test_sync_wrapping_passes_a_healthy_history_on_and_never_stacks(sync_capture: SyncCapture) -> None:
    healthy = [USER, call("c1"), result("c1", "x is 1")]
    first, second = ToolCallIntegrityGuard(), ToolCallIntegrityGuard(mode="raise")
    original = litellm.completion
    first.guard_sync_calls()
    undo = second.guard_sync_calls()  # replaces the first wrapping
    assert litellm.completion.__wrapped__ is original  # type: ignore[attr-defined]
    handed: list[Any] = []
    passed_on = ToolCallIntegrityGuard().sync(lambda *args, **kwargs: handed.append(kwargs["messages"]), "completion")
    passed_on(model=CLAUDE, messages=healthy)
    assert handed[0] is healthy  # healthy: the very list, nothing copied
    assert litellm.completion(model=CLAUDE, messages=healthy, mock_response="fine").choices[0].message.content
    with pytest.raises(ToolCallIntegrityError):
        litellm.completion(model=CLAUDE, messages=CHAT["dangling call"], mock_response="fine")
    undo()
    assert litellm.completion is original


def test_sync_responses_is_guarded(sync_capture: SyncCapture) -> None:
    sent: list[Any] = []

    def recording(*args: Any, **kwargs: Any) -> Any:  # what the wrapped function is handed
        sent.append(kwargs.get("input", args[0] if args else None))
        return "sent"

    guarded = ToolCallIntegrityGuard().sync(recording, "responses")
    assert guarded(model="gpt-4.1", input=RESPONSES_INPUT) == "sent"
    assert guarded(RESPONSES_INPUT, "gpt-4.1") == "sent"
    for request in sent:
        verdict = request_verdict(request, "openai-responses", "openai-responses")
        assert verdict.legal and verdict.receipts == 1, verdict.violations
    inner: list[Any] = []
    real = litellm.responses
    litellm.responses = lambda *args, **kwargs: inner.append(kwargs["input"]) or real(*args, **kwargs)
    undo = ToolCallIntegrityGuard().guard_sync_calls()  # wraps what litellm.responses is now
    response = litellm.responses(model="openai/gpt-4.1", input=RESPONSES_INPUT, mock_response="fine")
    assert "fine" in str(response)  # the real call ran, with the repaired input
    assert request_verdict(inner[0], "openai-responses", "openai-responses").legal
    undo()
    with pytest.raises(ValueError, match="cannot guard 'embedding'"):
        ToolCallIntegrityGuard().sync(litellm.embedding)
