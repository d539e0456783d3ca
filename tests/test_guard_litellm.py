"""The LiteLLM guard against the real LiteLLM: `mock_response` calls (no network) and direct proxy-hook calls.

What LiteLLM sends is captured by a second callback listed after the guard (its deployment hook sees
the kwargs as they leave the hook chain).  Each broken history is judged by the engine's rule sets for
the provider the model name points to, as LiteLLM sends it alone, after LiteLLM's own sanitizer
(`sanitize_messages_for_tool_calling`, which runs only with `modify_params=True`), and with the guard.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import os
from pathlib import Path
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


class Wire:
    """A local HTTP server answering as OpenAI's Chat and Responses APIs and Anthropic's Messages API do, and
    recording every request body LiteLLM sends (what goes on the wire, past every hook and translation)."""

    ANSWERS: dict[str, dict[str, Any]] = {
        "responses": {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
                      "model": "gpt-4.1", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                      "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                                  "content": [{"type": "output_text", "text": "fine", "annotations": []}]}],
                      "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                                "input_tokens_details": {"cached_tokens": 0},
                                "output_tokens_details": {"reasoning_tokens": 0}}},
        "messages": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "fine"}], "stop_reason": "end_turn",
                     "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}},
        "chat": {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": "fine"},
                              "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
    }

    def __init__(self) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        bodies: list[tuple[str, dict[str, Any]]] = []
        answers = self.ANSWERS

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                bodies.append((self.path, body))
                kind = next((k for k in ("responses", "messages") if k in self.path), "chat")
                data = json.dumps(answers[kind]).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.bodies = bodies
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def last(self) -> dict[str, Any]:
        return self.bodies[-1][1]


@pytest.fixture
def wire() -> Any:
    saved_callbacks, saved = list(litellm.callbacks), (litellm.completion, litellm.responses)
    server = Wire()
    yield server
    server.server.shutdown()
    litellm.callbacks = saved_callbacks
    litellm.completion, litellm.responses = saved


OUTPUT_ONLY = [{"type": "function_call_output", "call_id": "call_abc", "output": "42"}]
# how a request continues a stored response or conversation (LiteLLM's SDK sends `conversation` from extra_body)
STORED = [{"previous_response_id": "resp_0"}, {"conversation": "conv_0"}, {"conversation": {"id": "conv_0"}},
          {"extra_body": {"conversation": "conv_0"}}]


@pytest.mark.parametrize("envelope", STORED)
@pytest.mark.parametrize("call_type", ["aresponses", "responses"])
def test_the_proxy_hook_keeps_the_output_of_a_continued_response(envelope: dict[str, Any], call_type: str) -> None:
    """The call a `function_call_output` answers lives in the stored response: the output is no stray."""
    reports: list[GuardReport] = []
    data = {"model": "openai/gpt-4.1", "input": OUTPUT_ONLY, **envelope}
    out = asyncio.run(ToolCallIntegrityGuard(on_report=reports.append).async_pre_call_hook(None, None, data,
                                                                                           call_type))
    assert out is data and not reports
    # the envelope does not excuse the request's own defects: a dangling call of its own is still answered
    dangling = {**data, "input": [*OUTPUT_ONLY, {"type": "function_call", "call_id": "c2", "name": "lookup",
                                                 "arguments": "{}"}, {"role": "user", "content": "and now?"}]}
    out = asyncio.run(ToolCallIntegrityGuard().async_pre_call_hook(None, None, dangling, call_type))
    verdict = request_verdict(out["input"], "openai-responses", "openai-responses",
                              envelope.get("extra_body", envelope))
    assert verdict.legal and verdict.receipts == 1, verdict
    assert out["input"][0] is OUTPUT_ONLY[0]  # the stored call's output, kept as the caller's object


@pytest.mark.parametrize("envelope", [STORED[0], *STORED[3:]])  # what LiteLLM's SDK sends
def test_a_continued_response_sends_its_output_on_every_path(envelope: dict[str, Any], wire: Wire) -> None:
    """aresponses (deployment hook), sync responses (its own deployment hook, and the wrapper), and a function
    passed through `guard.sync`: the output goes on the wire with the stored response's id."""
    sent = envelope.get("extra_body", envelope)
    guard = ToolCallIntegrityGuard()
    litellm.callbacks = [guard]
    asyncio.run(litellm.aresponses(model="openai/gpt-4.1", input=OUTPUT_ONLY, api_base=wire.base, api_key="k",
                                   **envelope))
    assert wire.last()["input"] == OUTPUT_ONLY
    if "extra_body" not in envelope:  # LiteLLM does not hand extra_body to sync responses' hook: see below
        litellm.responses(model="openai/gpt-4.1", input=OUTPUT_ONLY, api_base=wire.base, api_key="k", **envelope)
        assert wire.last()["input"] == OUTPUT_ONLY
    undo = guard.guard_sync_calls()  # the wrapper reads the call's own keywords; the hook then leaves it be
    litellm.responses(model="openai/gpt-4.1", input=OUTPUT_ONLY, api_base=wire.base, api_key="k", **envelope)
    assert wire.last()["input"] == OUTPUT_ONLY and all(wire.last().get(k) == v for k, v in sent.items())
    undo()
    handed: list[Any] = []
    guard.sync(lambda *args, **kwargs: handed.append(kwargs["input"]), "responses")(
        model="gpt-4.1", input=OUTPUT_ONLY, **envelope)
    assert handed == [OUTPUT_ONLY]


RESPONSES_DANGLING = [{"role": "user", "content": "what is x?"},
                      {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"}]


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def lines() -> Any:
    found = Lines()
    logger = logging.getLogger("integrity.guards")
    saved = logger.level
    logger.addHandler(found)
    logger.setLevel(logging.INFO)
    yield found
    logger.removeHandler(found)
    logger.setLevel(saved)


@pytest.mark.parametrize("wrapped", [False, True])
@pytest.mark.parametrize("model", ["openai/gpt-4.1", CLAUDE])  # CLAUDE: LiteLLM bridges it to litellm.completion
def test_one_sync_responses_request_is_reported_once(wrapped: bool, model: str, wire: Wire, lines: Lines) -> None:
    """Sync `litellm.responses` runs the deployment hook itself (for OpenAI's Responses API), and its bridge to
    other providers calls `litellm.completion`: with the guard in the callbacks and the sync calls wrapped too,
    one request still gives one report and one log line."""
    reports: list[GuardReport] = []
    guard = ToolCallIntegrityGuard(mode="report", on_report=reports.append)
    litellm.callbacks = [guard]
    undo = guard.guard_sync_calls() if wrapped else None
    litellm.responses(model=model, input=RESPONSES_DANGLING, api_base=wire.base, api_key="k", max_output_tokens=16)
    seen = 0 if model == CLAUDE and not wrapped else 1  # the bridge runs no hook: unwrapped, not seen at all
    assert len(reports) == seen and len(lines.lines) == seen, lines.lines
    assert not any(report.applied for report in reports)
    if undo is not None:
        undo()


@pytest.mark.parametrize("wrapped", [False, True])
def test_one_sync_completion_sent_to_the_responses_api_is_reported_once(wrapped: bool, wire: Wire,
                                                                         lines: Lines) -> None:
    """Sync `completion` runs no hook itself, but LiteLLM sends an `openai/responses/...` model through its sync
    Responses handler, which runs the deployment hook: wrapped or not, one report and one log line."""
    reports: list[GuardReport] = []
    guard = ToolCallIntegrityGuard(mode="report", on_report=reports.append)
    litellm.callbacks = [guard]
    undo = guard.guard_sync_calls() if wrapped else None
    litellm.completion(model="openai/responses/gpt-4.1", messages=CHAT["dangling call"], api_base=wire.base,
                       api_key="k")
    assert wire.bodies[-1][0].endswith("/responses")
    assert len(reports) == 1 and len(lines.lines) == 1, lines.lines
    if undo is not None:
        undo()


def test_sync_responses_refused_by_the_hook_raises_the_guards_error(wire: Wire) -> None:
    """Sync `litellm.responses` maps an error raised in its hook to its own APIConnectionError; the guard's
    refusal is a guardrail's, which LiteLLM lets through."""
    reports: list[GuardReport] = []
    litellm.callbacks = [ToolCallIntegrityGuard(mode="raise", on_report=reports.append)]
    with pytest.raises(ToolCallIntegrityError) as raised:
        litellm.responses(model="openai/gpt-4.1", input=RESPONSES_DANGLING, api_base=wire.base, api_key="k")
    assert raised.value.report is reports[0] and len(reports) == 1 and not wire.bodies


def test_a_refusal_raised_inside_litellm_survives_pickling(wire: Wire) -> None:
    """GuardRefusal (the refusal LiteLLM's hooks raise) pickles whole: still LiteLLM's guardrail refusal, status
    400, with the guard's report."""
    import pickle

    from integrity.guards.litellm import GuardRefusal

    litellm.callbacks = [ToolCallIntegrityGuard(mode="raise")]
    with pytest.raises(GuardRefusal) as raised:
        litellm.responses(model="openai/gpt-4.1", input=RESPONSES_DANGLING, api_base=wire.base, api_key="k")
    back = pickle.loads(pickle.dumps(raised.value))
    assert type(back) is GuardRefusal and str(back) == str(raised.value) and back.status_code == 400
    assert back.report.refused and back.report.counts == raised.value.report.counts


def test_a_refusal_is_not_retried_by_the_router(capture: Capture) -> None:
    """The router retries a failed deployment and falls back to others: a refused history is refused on each,
    so it is refused once (LiteLLM's router does not retry a guardrail's refusal)."""
    reports: list[GuardReport] = []
    litellm.callbacks = [ToolCallIntegrityGuard(mode="raise", on_report=reports.append)]
    router = litellm.Router(model_list=[
        {"model_name": "main", "litellm_params": {"model": CLAUDE, "mock_response": "fine"}},
        {"model_name": "other", "litellm_params": {"model": "openai/gpt-4o", "mock_response": "fine"}}],
        num_retries=2, fallbacks=[{"main": ["other"]}])
    with pytest.raises(ToolCallIntegrityError):
        asyncio.run(router.acompletion(model="main", messages=CHAT["dangling call"]))
    assert [report.target for report in reports] == ["anthropic"]


def test_each_request_gets_its_own_receipt() -> None:
    """The guard hands a growing session's next request the repair it remembered: the receipt it made is
    a new object for each request, so a change one request's callbacks make to it stays in that request."""
    guard = ToolCallIntegrityGuard(on_report=lambda report: None)
    history = [USER, call("c1", "c2"), result("c1", "x is 1"), AGAIN]
    first = asyncio.run(guard.async_pre_call_hook(None, None, {"model": CLAUDE, "messages": history}, "acompletion"))
    receipt = next(m for m in first["messages"] if m.get("tool_call_id") == "c2")
    receipt["cache_control"] = {"type": "ephemeral"}  # what a later callback may do to the request it is handed
    longer = [*history, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}]
    second = asyncio.run(guard.async_pre_call_hook(None, None, {"model": CLAUDE, "messages": longer}, "acompletion"))
    assert guard.memo.repeated == 1  # the remembered repair was taken
    again = next(m for m in second["messages"] if m.get("tool_call_id") == "c2")
    assert again is not receipt and "cache_control" not in again
    assert second["messages"][0] is USER  # the caller's own entries are still passed on as they are


def test_another_request_given_the_same_call_id_while_one_runs_is_judged() -> None:
    """The sync wrapper marks the request it judged by its litellm_call_id while the call runs, so the same
    request is not judged again by the hook or LiteLLM's Responses bridge.  Another request given the same id
    meanwhile (a caller's fixed id in two threads, LiteLLM's batch_completion fan-out) must still be judged:
    the mark was the id alone, and such a request went out unrepaired (found by a second adversarial review).
    Deterministic: the first call starts the second in another thread from inside the call and waits for it."""
    import threading

    guard = ToolCallIntegrityGuard()
    sent: list[tuple[str, list[Any]]] = []
    healthy = [{"role": "user", "content": "q"}]
    broken = [{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "user", "content": "go on"}]

    def completion(model: str, messages: list[Any], **kwargs: Any) -> None:  # stands for litellm.completion
        sent.append((kwargs["litellm_call_id"], messages))
        if messages is healthy:  # the first call, in flight: another thread sends with the same id
            other = threading.Thread(target=lambda: guarded(model="openai/gpt-4o", messages=broken,
                                                            litellm_call_id="fixed"))
            other.start()
            other.join()
        else:  # in the same thread as its own wrapper, the hook's check passes it on as judged
            assert guard._judged("fixed")

    guarded = guard.sync(completion, call_type="completion")
    guarded(model="openai/gpt-4o", messages=healthy, litellm_call_id="fixed")
    assert [call_id for call_id, _ in sent] == ["fixed", "fixed"]
    second = sent[1][1]
    assert second is not broken and [m["role"] for m in second] == ["user", "assistant", "tool", "user"]
    assert request_verdict(second, "openai-chat", "openai-chat").legal
    assert not guard._judging  # every mark let go


def _v1_messages_sent(capture: Capture, case_name: str, before: list[Any]
                      ) -> tuple[dict[str, Any], list[Any], dict[str, list[Any]]]:
    """A recorded Anthropic case's messages (after `before`) sent through LiteLLM's /v1/messages alone and with
    the guard: (the case, the messages, what reached the model each way); the caller's messages never change."""
    case = json.loads((Path(__file__).resolve().parent / "provider_cases" / f"{case_name}.json")
                      .read_text(encoding="utf-8"))
    messages = [*before, *case["request"]["messages"]]
    snapshot = copy.deepcopy(messages)
    sent: dict[str, list[Any]] = {}
    for label, callbacks in (("alone", []), ("guarded", [ToolCallIntegrityGuard()])):
        litellm.callbacks = [*callbacks, capture]
        asyncio.run(litellm.anthropic.messages.acreate(model=CLAUDE, messages=messages, max_tokens=64,
                                                       mock_response="fine"))
        sent[label] = list(capture.seen[-1]["messages"])
    assert messages == snapshot
    assert [v.error for v in request_verdict(sent["alone"], "anthropic", "anthropic").violations] == [case["error"]]
    guarded = request_verdict(sent["guarded"], "anthropic", "anthropic")
    assert guarded.legal, guarded.violations
    return case, messages, sent


def test_v1_messages_with_a_text_after_its_tool_use_is_sent_calls_last(capture: Capture) -> None:
    """The recorded refusal (tests/provider_cases/anthropic_text_after_tool_use.json, anomalyco/opencode): an
    assistant turn [tool_use, text] answered right after.  Every call is answered, so a quick pass that only
    pairs ids calls it healthy; Anthropic refuses it (tool_use_not_last; the turn is messages.1 here too).  The
    guard sends the text first."""
    _, messages, sent = _v1_messages_sent(capture, "anthropic_text_after_tool_use",
                                          [{"role": "user", "content": "What is the weather in Paris?"}])
    assert [block["type"] for block in sent["guarded"][1]["content"]] == ["text", "tool_use"]
    assert sent["guarded"][0] == messages[0] and sent["guarded"][2:] == messages[2:]


def test_v1_messages_resumed_with_an_empty_text_block_is_sent_without_it(capture: Capture) -> None:
    """The recorded refusal (tests/provider_cases/anthropic_empty_text_beside_tool_use.json, claude-code#62396):
    a tool turn saved as [text "", tool_use], answered right after.  Every call is answered; Anthropic refuses the
    empty block (empty_text_block).  The guard sends the turn without it, as experiential#683 did and got 200."""
    _, messages, sent = _v1_messages_sent(capture, "anthropic_empty_text_beside_tool_use", [])
    assert sent["guarded"][1]["content"] == messages[1]["content"][1:]
    assert sent["guarded"][0] == messages[0] and sent["guarded"][2:] == messages[2:]
