"""A minimal agent run loop, with a scripted model instead of an LLM.

Why it exists: the integrity mechanisms are promises about a runner's
behaviour (track calls as they become durable, repair the context before
every model call, settle in-flight calls with interrupted receipts through the
fenced store, report a lost lease instead of failing).  This loop keeps those
promises against a real `SessionStore`, so they can be tested with real
processes and shown step by step in the lab.

The loop is steppable: `start()` claims the session, every `step()` does one
observable thing (one model call, one tool result, one wind-down) and returns
the events it produced.  `run()` just steps until the worker stops.  Tools run
on an executor: real threads with real delays (`ThreadToolExecutor`), or a
deterministic virtual clock (`VirtualToolExecutor`) for the lab and property
tests.

Faults: `cancel()` (a user abort: an aborted assistant frame, a short grace for
late tool results, then receipts), `shutdown()` (receipts, then release so the
session can resume), `crash()` (stop dead, like SIGKILL: nothing written), a
failing model turn (an error frame, receipts, release as failed), and lease
loss (any refused write or heartbeat: receipts are attempted through the
fence, which refuses them, and `on_fence_lost` is called once).

Only calls this attempt made are tracked as in flight: calls a previous
attempt left unanswered are answered in the model view by synthesized receipts
(read-time repair), never by writes from a worker that did not make them.
"""

from __future__ import annotations

import heapq
import json
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..fence import append_interrupted_tool_call_results, is_lease_lost
from ..reference import (
    PendingToolCall,
    orphaned_tool_calls,
    repair_orphaned_tool_calls,
    time_ms,
    tool_calls,
    track_tool_call_message,
)
from ..repair.views import frame_is_interrupted
from ..transform import with_tool_call_integrity_repair
from .store import ABORTED, DONE, FAILED, IDLE, Lease, SessionStore

Message = dict[str, Any]

# Phases of a worker.
NEW, MODEL, TOOLS, DRAINING, STOPPED = "new", "model", "tools", "draining", "stopped"


class VirtualClock:
    """Milliseconds that only move when told to: makes lab runs and property tests deterministic."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.now = start_ms

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        """Move time forward (never backward)."""
        self.now += max(0, int(ms))


# -- messages ---------------------------------------------------------------


def user_message(text: str, timestamp: int) -> Message:
    """A pi-ai user message (the prompt that seeds a session)."""
    return {"role": "user", "content": text, "timestamp": timestamp}


def _assistant(content: list[dict[str, Any]], stop_reason: str, timestamp: int, error: str | None = None) -> Message:
    frame: Message = {
        "role": "assistant",
        "content": content,
        "api": "scripted",
        "provider": "scripted",
        "model": "scripted-1",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0},
        "stopReason": stop_reason,
        "timestamp": timestamp,
    }
    if error is not None:
        frame["errorMessage"] = error
    return frame


def aborted_frame(reason: str, timestamp: int) -> Message:
    """What a runner records when a model turn is aborted while it unwinds."""
    return _assistant([], "aborted", timestamp, reason)


def error_frame(reason: str, timestamp: int) -> Message:
    """What a runner records when a model call fails."""
    return _assistant([], "error", timestamp, reason)


def tool_result_message(call_id: str, name: str, text: str, is_error: bool, timestamp: int) -> Message:
    """A real (not interrupted) pi-ai toolResult."""
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "details": {"ok": not is_error},
        "isError": is_error,
        "timestamp": timestamp,
    }


def without_interrupted_frames(messages: list[Message]) -> list[Message]:
    """The context without assistant frames that did not finish a model turn.

    An aborted, errored or cut-off frame without tool calls, or one carrying an
    errorMessage (views.frame_is_interrupted: the test the repair itself uses),
    is not a turn the model completed.  The reference runner never sends one:
    its planResume pops such a suffix and its entry tree then branches past it.
    This log is linear, so the runtime's context transform leaves those frames
    out instead (they have no calls, so no call can lose its frame).  Otherwise
    a resumed worker would send two assistant messages in a row, which Bedrock
    and Gemini reject.  The durable log keeps them; the integrity repair still
    runs after this.
    """
    kept = [message for message in messages if not _interrupted_frame(message)]
    return messages if len(kept) == len(messages) else kept


def _interrupted_frame(message: Any) -> bool:
    return (isinstance(message, dict) and message.get("role") == "assistant" and not tool_calls(message)
            and frame_is_interrupted(message.get("stopReason"), message.get("errorMessage")))


def _final_answer(message: Any) -> bool:
    return (isinstance(message, dict) and message.get("role") == "assistant" and not tool_calls(message)
            and message.get("stopReason") == "stop")


# -- the scripted model -----------------------------------------------------


@dataclass(frozen=True)
class CallSpec:
    """One tool call a scripted turn makes; arguments may carry delay_ms / fail overrides."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Turn:
    """One scripted model turn: parallel tool calls, or (no calls) a final text answer."""

    calls: tuple[CallSpec, ...] = ()
    text: str = ""


class ModelError(RuntimeError):
    """The (scripted) model call failed; the runner records an error frame."""


def _completed_turn(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "assistant" and not _interrupted_frame(message)


class Model(Protocol):
    """What the run loop needs from a model: the next assistant frame for a context."""

    def respond(self, context: list[Message], attempt: int, timestamp: int) -> Message: ...


class ScriptedModel:
    """Emits pi-ai assistant frames from a script, keyed by how far the context has got.

    The turn to play is the number of completed assistant turns in the context
    it is handed (frames with tool calls, or that stopped normally; aborted and
    error frames do not count), so a resumed worker continues the script where
    the durable history left it.  Call ids carry the
    attempt and turn (a1t0c1) so the log shows which worker made which call.
    Every context is kept in `contexts` so tests can check what the model saw.
    """

    def __init__(self, turns: Sequence[Turn], fail_turns: Sequence[int] = ()) -> None:
        self.turns = list(turns)
        self.fail_turns = set(fail_turns)
        self.contexts: list[list[Message]] = []
        self._fail_next = False

    def fail_next_call(self) -> None:
        """Make the next call fail, whichever turn it is (fault injection)."""
        self._fail_next = True

    def respond(self, context: list[Message], attempt: int, timestamp: int) -> Message:
        """The next assistant frame for this context (raises ModelError on a scripted failure)."""
        self.contexts.append(list(context))
        index = sum(1 for message in context if _completed_turn(message))
        if index in self.fail_turns or self._fail_next:
            self.fail_turns.discard(index)
            self._fail_next = False
            raise ModelError(f"scripted model failure on turn {index}")
        if index >= len(self.turns):
            return _assistant([{"type": "text", "text": "All done."}], "stop", timestamp)
        turn = self.turns[index]
        if not turn.calls:
            return _assistant([{"type": "text", "text": turn.text or "All done."}], "stop", timestamp)
        parts = [
            {"type": "toolCall", "id": f"a{attempt}t{index}c{position}", "name": spec.name,
             "arguments": dict(spec.arguments)}
            for position, spec in enumerate(turn.calls)
        ]
        if turn.text:
            parts.insert(0, {"type": "text", "text": turn.text})
        return _assistant(parts, "toolUse", timestamp)


# -- tools and executors ----------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """A fake tool: takes delay_ms, may fail (a real error result), may ignore cancellation.

    honors_cancel=False models a tool that keeps running after an abort and
    delivers its result late: the race the reference's repair comment describes.
    """

    name: str
    delay_ms: int = 0
    fails: bool = False
    honors_cancel: bool = True

    def delay_for(self, arguments: Mapping[str, Any]) -> int:
        value = arguments.get("delay_ms", self.delay_ms)
        return int(value) if isinstance(value, (int, float)) else self.delay_ms

    def fails_for(self, arguments: Mapping[str, Any]) -> bool:
        return bool(arguments.get("fail", self.fails))

    def output(self, call_id: str, arguments: Mapping[str, Any]) -> tuple[bool, str]:
        """(ok, text) for a finished call; deterministic so runs can be compared."""
        if self.fails_for(arguments):
            return False, json.dumps({"ok": False, "error": f"{self.name} failed", "call": call_id})
        return True, json.dumps({"ok": True, "tool": self.name, "call": call_id})


@dataclass(frozen=True)
class ToolOutcome:
    """A call that stopped running: with a result (ok or error), or cancelled without one."""

    call_id: str
    name: str
    ok: bool
    text: str
    cancelled: bool = False


class ToolExecutor(Protocol):
    """Runs tool calls in parallel and hands back outcomes one at a time."""

    def submit(self, call_id: str, tool: Tool, arguments: Mapping[str, Any]) -> None: ...

    def next_done(self, timeout_ms: int | None) -> ToolOutcome | None: ...

    def cancel(self) -> None: ...

    def pending(self) -> int: ...


class ThreadToolExecutor:
    """Each call runs on its own daemon thread and really sleeps; a crash leaves them behind harmlessly."""

    def __init__(self) -> None:
        self._done: queue.Queue[ToolOutcome] = queue.Queue()
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._running = 0

    def submit(self, call_id: str, tool: Tool, arguments: Mapping[str, Any]) -> None:
        with self._lock:
            self._running += 1
        worker = threading.Thread(target=self._run, args=(call_id, tool, dict(arguments)), daemon=True)
        worker.start()

    def _run(self, call_id: str, tool: Tool, arguments: dict[str, Any]) -> None:
        delay = tool.delay_for(arguments) / 1000
        if tool.honors_cancel:
            interrupted = self._cancelled.wait(delay)
        else:
            time.sleep(delay)
            interrupted = False
        if interrupted:
            self._done.put(ToolOutcome(call_id, tool.name, False, "", cancelled=True))
            return
        ok, text = tool.output(call_id, arguments)
        self._done.put(ToolOutcome(call_id, tool.name, ok, text))

    def next_done(self, timeout_ms: int | None) -> ToolOutcome | None:
        try:
            outcome = self._done.get(timeout=None if timeout_ms is None else max(0, timeout_ms) / 1000)
        except queue.Empty:
            return None
        with self._lock:
            self._running -= 1
        return outcome

    def cancel(self) -> None:
        self._cancelled.set()

    def pending(self) -> int:
        with self._lock:
            return self._running


class VirtualToolExecutor:
    """Tools finish on a virtual clock, in delay order: the same run every time, instantly."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self._heap: list[tuple[int, int, str, Tool, dict[str, Any], bool]] = []
        self._counter = 0

    def submit(self, call_id: str, tool: Tool, arguments: Mapping[str, Any]) -> None:
        self._counter += 1
        finish = self.clock() + tool.delay_for(arguments)
        heapq.heappush(self._heap, (finish, self._counter, call_id, tool, dict(arguments), False))

    def next_done(self, timeout_ms: int | None) -> ToolOutcome | None:
        now = self.clock()
        if not self._heap or (timeout_ms is not None and self._heap[0][0] > now + timeout_ms):
            if timeout_ms is not None:
                self.clock.advance(timeout_ms)
            return None
        finish, _, call_id, tool, arguments, cancelled = heapq.heappop(self._heap)
        self.clock.advance(finish - now)
        if cancelled:
            return ToolOutcome(call_id, tool.name, False, "", cancelled=True)
        ok, text = tool.output(call_id, arguments)
        return ToolOutcome(call_id, tool.name, ok, text)

    def cancel(self) -> None:
        """Cancel-honouring tools stop now (without a result); the others keep their finish time."""
        now = self.clock()
        self._heap = [
            (now, order, call_id, tool, arguments, True) if tool.honors_cancel
            else (finish, order, call_id, tool, arguments, c)
            for finish, order, call_id, tool, arguments, c in self._heap
        ]
        heapq.heapify(self._heap)

    def pending(self) -> int:
        return len(self._heap)


# -- the run loop -----------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Something a worker did, in words (for people) and data (for tests and the lab)."""

    index: int
    at: int
    worker: str
    attempt: int
    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)


class Runtime:
    """One worker running one session through a fenced store, one step at a time."""

    def __init__(
        self,
        store: SessionStore,
        session_id: str,
        model: Model,
        tools: Mapping[str, Tool],
        owner: str,
        executor: ToolExecutor | None = None,
        clock: Callable[[], int] = time_ms,
        lease_ttl_ms: int = 30_000,
        heartbeat_ms: int | None = -1,
        abort_grace_ms: int = 200,
        poll_ms: int = 50,
        steal: bool = False,
        claim_wait_ms: int = 0,
        context_transform: Callable[[list[Message]], list[Message]] | None = None,
        on_fence_lost: Callable[[], Any] | None = None,
    ) -> None:
        """heartbeat_ms: -1 means a third of the lease; None means never (a stalled worker)."""
        self.store = store
        self.session_id = session_id
        self.model = model
        self.tools = dict(tools)
        self.owner = owner
        self.executor: ToolExecutor = executor if executor is not None else ThreadToolExecutor()
        self.clock = clock
        self.lease_ttl_ms = lease_ttl_ms
        self.heartbeat_ms = lease_ttl_ms // 3 if heartbeat_ms == -1 else heartbeat_ms
        self.abort_grace_ms = abort_grace_ms
        self.poll_ms = poll_ms
        self.steal = steal
        self.claim_wait_ms = claim_wait_ms
        # By default the context is re-materialized from the durable log every
        # turn: the transform the reference warns about, made safe by the wrapper.
        raw = context_transform if context_transform is not None else self._reload_durable
        self.context = with_tool_call_integrity_repair(raw, now=clock)
        self._on_fence_lost = on_fence_lost

        self.phase = NEW
        self.lease: Lease | None = None
        self.history: list[Message] = []
        self.in_flight: dict[str, PendingToolCall] = {}
        self._finished: dict[str, ToolOutcome] = {}
        self.events: list[Event] = []
        self.final_status: str | None = None
        self.fence_lost = False
        self.fence_lost_reported = False
        self.last_model_view: list[Message] | None = None
        self._last_heartbeat = 0
        self._drain_deadline = 0
        self._cancel_reason: str | None = None
        self._shutdown_reason: str | None = None
        self._new_events: list[Event] = []

    # -- requests (safe from other threads and signal handlers) ------------

    def cancel(self, reason: str = "cancelled by the user") -> None:
        """Ask for an abort: noticed at the next step or while waiting for tools."""
        self._cancel_reason = reason

    def shutdown(self, reason: str = "worker shutting down") -> None:
        """Ask for a clean stop: receipts for in-flight calls, then release (resumable)."""
        self._shutdown_reason = reason

    def crash(self) -> list[Event]:
        """Stop dead without writing anything, as SIGKILL would (the lease stays until it expires)."""
        self._new_events = []
        self.executor.cancel()
        calls = ", ".join(self.in_flight) or "none"
        self._emit("crashed", f"worker died: nothing more is written; calls in flight: {calls}",
                   in_flight=list(self.in_flight))
        self.phase = STOPPED
        self.final_status = "crashed"
        return self._new_events

    # -- the loop ----------------------------------------------------------

    @property
    def stopped(self) -> bool:
        return self.phase == STOPPED

    def start(self) -> list[Event]:
        """Claim the session (a new attempt) and load its durable history."""
        self._new_events = []
        if self.phase != NEW:
            raise RuntimeError("start() was already called")
        self.lease = self.store.claim(self.session_id, self.owner, self.lease_ttl_ms, self.steal, self.claim_wait_ms)
        self._last_heartbeat = self.clock()
        self.history = list(self.store.load_transcript(self.session_id))
        repaired = repair_orphaned_tool_calls(self.history, self.clock).messages is not self.history
        text = f"claimed {self.session_id} as attempt {self.lease.attempt}"
        if self.history:
            text += f"; {len(self.history)} durable entries loaded"
            text += "; the model will see a repaired view (the log is not changed)" if repaired else ""
        self._emit("claimed", text, entries=len(self.history), repaired=repaired)
        self.phase = MODEL
        return self._new_events

    def step(self) -> list[Event]:
        """Do one observable thing; return the events it produced."""
        self._new_events = []
        if self.phase == NEW:
            raise RuntimeError("call start() first")
        if self.phase == STOPPED:
            return []
        try:
            if self._shutdown_reason is not None:
                self._wind_down(IDLE, self._shutdown_reason)
            elif self._cancel_reason is not None and self.phase in (MODEL, TOOLS):
                self._begin_abort(self._cancel_reason)
            elif self.phase == MODEL:
                self._model_turn()
            elif self.phase == TOOLS:
                self._next_tool_result()
            elif self.phase == DRAINING:
                self._drain()
        except Exception as error:  # noqa: BLE001 - every failure ends in a wind-down
            self._handle_failure(error)
        return self._new_events

    def run(self, max_steps: int = 100_000) -> str:
        """Start if needed and step until stopped; return the final status."""
        if self.phase == NEW:
            self.start()
        for _ in range(max_steps):
            if self.stopped:
                break
            self.step()
        else:
            self.shutdown("step budget exhausted")
            self.step()
        return self.final_status or ""

    def model_view(self) -> list[Message]:
        """The repaired context the next model call would get (nothing is written)."""
        view: list[Message] = self.context(list(self.history))
        return view

    # -- phases ------------------------------------------------------------

    def _reload_durable(self, messages: list[Message]) -> list[Message]:
        return without_interrupted_frames(self.store.load_transcript(self.session_id))

    def _model_turn(self) -> None:
        self._heartbeat_if_due()
        view = self.context(list(self.history))
        if view and _final_answer(view[-1]):
            # A resumed session whose last turn already finished: nothing to ask the model.
            self._wind_down(DONE, "nothing to resume: the last model turn had finished")
            return
        self.last_model_view = view
        synthesized = len(orphaned_tool_calls(self.history))
        self._emit("model_call", f"model called with {len(view)} messages"
                   + (f" ({synthesized} synthesized for the view)" if synthesized else ""),
                   view_size=len(view), synthesized=synthesized)
        assert self.lease is not None
        try:
            frame = self.model.respond(view, self.lease.attempt, self.clock())
        except ModelError as error:
            self._append(error_frame(str(error), self.clock()), "model failed; error frame recorded")
            self._wind_down(FAILED, str(error))
            return
        calls = tool_calls(frame)
        if not calls:
            self._append(frame, "final answer recorded")
            self._wind_down(DONE, "the model finished")
            return
        self._append(frame, f"assistant frame with {len(calls)} tool call(s): " + ", ".join(c.id for c in calls))
        parts = {part["id"]: part for part in frame["content"] if part.get("type") == "toolCall"}
        for call in calls:
            tool = self.tools.get(call.name, Tool(call.name))
            self.executor.submit(call.id, tool, parts[call.id].get("arguments") or {})
            self._emit("tool_started", f"{call.name} ({call.id}) started", call_id=call.id)
        self.phase = TOOLS

    def _next_tool_result(self) -> None:
        while True:
            if self._cancel_reason is not None:
                self._begin_abort(self._cancel_reason)
                return
            if self._shutdown_reason is not None:
                self._wind_down(IDLE, self._shutdown_reason)
                return
            if not self.in_flight:
                self.phase = MODEL
                return
            if self.executor.pending() == 0:
                raise RuntimeError(f"calls in flight with no tool running: {sorted(self.in_flight)}")
            wait = self.poll_ms
            if self.heartbeat_ms is not None:
                wait = max(0, min(wait, self._last_heartbeat + self.heartbeat_ms - self.clock()))
            outcome = self.executor.next_done(wait)
            if outcome is None:
                self._heartbeat_if_due()
                continue
            self._receive(outcome, late=False)
            if not self.in_flight:
                self.phase = MODEL
            return

    def _receive(self, outcome: ToolOutcome, late: bool) -> None:
        """Take one finished call; record results strictly in call order.

        Parallel tools finish in any order, but providers want a frame's results
        in call order, and the reference repair does not reorder a run that is
        already contiguous; so a result that overtakes an earlier call waits
        (in memory) until that call is recorded.
        """
        if outcome.cancelled:
            self._emit("tool_cancelled", f"{outcome.name} ({outcome.call_id}) stopped without a result",
                       call_id=outcome.call_id)
            return
        self._finished[outcome.call_id] = outcome
        head = next(iter(self.in_flight), None)
        if head is not None and head != outcome.call_id:
            self._emit("tool_finished", f"{outcome.name} ({outcome.call_id}) finished; held until {head} "
                                        "is recorded (results go in call order)", call_id=outcome.call_id)
        while self.in_flight:
            ready = self._finished.pop(next(iter(self.in_flight)), None)
            if ready is None:
                return
            self._record_result(ready, late)

    def _record_result(self, outcome: ToolOutcome, late: bool) -> None:
        message = tool_result_message(outcome.call_id, outcome.name, outcome.text, not outcome.ok, self.clock())
        what = "result" if outcome.ok else "error result"
        when = " (late: after the abort frame)" if late else ""
        self._append(message, f"{outcome.name} ({outcome.call_id}) {what} recorded{when}")

    def _begin_abort(self, reason: str) -> None:
        self._cancel_reason = None
        self.executor.cancel()
        self._append(aborted_frame(reason, self.clock()), f"aborted: {reason}; aborted frame recorded")
        if self.in_flight:
            self._drain_deadline = self.clock() + self.abort_grace_ms
            self.phase = DRAINING
            self._emit("draining", f"waiting up to {self.abort_grace_ms} ms for {len(self.in_flight)} running tool(s)")
        else:
            self._wind_down(ABORTED, reason)

    def _drain(self) -> None:
        while self.in_flight and self.executor.pending() > 0:
            left = self._drain_deadline - self.clock()
            if left <= 0:
                break
            outcome = self.executor.next_done(min(left, self.poll_ms))
            if outcome is None:
                continue
            self._receive(outcome, late=True)
            return
        self._wind_down(ABORTED, "abort finished")

    def _wind_down(self, status: str, reason: str) -> None:
        """Settle in-flight calls through the fence, in call order, then release.

        A call that finished but was held behind an earlier one gets its real
        result; every other in-flight call gets an interrupted receipt via
        append_interrupted_tool_call_results, which reports a lost fence through
        on_fence_lost instead of raising.
        """
        self._shutdown_reason = None
        self.executor.cancel()
        pending = list(self.in_flight.values())
        if pending:
            self._emit("receipts", f"settling in-flight calls {', '.join(c.id for c in pending)}",
                       calls=[c.id for c in pending])
            batch: list[PendingToolCall] = []
            for call in pending:
                held = self._finished.pop(call.id, None)
                if held is None:
                    batch.append(call)
                    continue
                if not self._write_receipts(batch):
                    break
                batch = []
                try:
                    self._record_result(held, late=True)
                except Exception as error:
                    if not is_lease_lost(error):
                        raise
                    self._report_fence_lost()
                    break
            else:
                self._write_receipts(batch)
        if self.fence_lost:
            self._report_fence_lost()
            self._stop("fenced", f"stopped after losing the lease ({reason})")
            return
        assert self.lease is not None
        released = self.store.release(self.lease, status)
        if not released:
            self.fence_lost = True
            self._report_fence_lost()
            self._stop("fenced", f"lease was already lost at release ({reason})")
            return
        self._stop(status, f"released the session as {status} ({reason})")

    def _write_receipts(self, calls: list[PendingToolCall]) -> bool:
        """Interrupted receipts for calls; False once the fence is known lost."""
        if calls:
            append_interrupted_tool_call_results(
                calls, lambda message: self._append(message, "interrupted receipt recorded"),
                self._report_fence_lost, now=self.clock,
            )
        return not self.fence_lost

    # -- helpers -----------------------------------------------------------

    def _append(self, message: Message, text: str) -> int:
        assert self.lease is not None
        try:
            seq = self.store.append(self.lease, message)
        except Exception as error:
            if is_lease_lost(error):
                self.fence_lost = True
                self._emit("refused", f"write refused by the fence: {error}", role=message.get("role"))
            raise
        self.history.append(message)
        track_tool_call_message(self.in_flight, message)
        self._emit("appended", f"#{seq} {text}", seq=seq, role=message.get("role"))
        return seq

    def _heartbeat_if_due(self) -> None:
        if self.heartbeat_ms is None or self.lease is None:
            return
        now = self.clock()
        if now - self._last_heartbeat < self.heartbeat_ms:
            return
        try:
            self.lease = self.store.heartbeat(self.lease, self.lease_ttl_ms)
        except Exception as error:
            if is_lease_lost(error):
                self.fence_lost = True
                self._emit("refused", f"heartbeat refused by the fence: {error}")
            raise
        self._last_heartbeat = now
        self._emit("heartbeat", f"lease extended to +{self.lease_ttl_ms} ms")

    def _report_fence_lost(self) -> None:
        self.fence_lost = True
        if self.fence_lost_reported:
            return
        self.fence_lost_reported = True
        self._emit("fence_lost", "on_fence_lost: a newer attempt or an expired lease owns the session; "
                                 "this worker stops without failing")
        if self._on_fence_lost is not None:
            self._on_fence_lost()

    def _handle_failure(self, error: Exception) -> None:
        if self.phase == STOPPED:
            return
        if is_lease_lost(error):
            try:
                self._wind_down(ABORTED, "lease lost")
            except Exception as late:  # noqa: BLE001
                self._emit("error", f"wind-down failed: {late!r}")
                self._stop("fenced", "stopped after losing the lease")
            return
        self._emit("error", f"runtime error: {error!r}")
        try:
            self._wind_down(FAILED, f"error: {error}")
        except Exception as late:  # noqa: BLE001 - storage is failing; stop without more writes
            if is_lease_lost(late):
                self._report_fence_lost()
            self._emit("error", f"wind-down failed: {late!r}")
            self._stop(FAILED, "stopped after an error")

    def _stop(self, status: str, text: str) -> None:
        self.executor.cancel()
        self.phase = STOPPED
        self.final_status = status
        self._emit("stopped", text, status=status)

    def _emit(self, kind: str, text: str, **data: Any) -> None:
        event = Event(len(self.events), self.clock(), self.owner, self.lease.attempt if self.lease else 0,
                      kind, text, data)
        self.events.append(event)
        self._new_events.append(event)
