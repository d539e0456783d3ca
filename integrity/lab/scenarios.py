"""The fault lab's scenario catalogue: each fault, reproduced on demand, one step at a time.

Why it exists: the integrity mechanisms are easiest to understand by watching
them work.  A scenario is a short script of actions (a worker claims, the model
calls tools, a tool finishes, the user presses stop, the worker dies, another
worker takes over ...) run against a real SQLite store on a virtual clock, so
every run is identical.  After each action the lab takes a `Snapshot` of the
three things that matter: the durable log (what is really stored, and by which
attempt), the in-flight map of each worker, and the repaired model view the
next turn would send, with the repair report that explains it.

Nothing here imports a UI; the inspector's lab page renders snapshots.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..reference import is_interrupted_tool_result, time_ms
from ..repairing import repair_with_report
from .runtime import (
    CallSpec,
    Event,
    Runtime,
    ScriptedModel,
    Tool,
    Turn,
    VirtualClock,
    VirtualToolExecutor,
    user_message,
)
from .store import AttemptInfo, Entry, SessionInfo, SQLiteSessionStore

if TYPE_CHECKING:
    from ..report import RepairReport

SESSION_ID = "lab"
LEASE_TTL_MS = 1_000
PROMPT = "Find the release notes and summarize them."


@dataclass(frozen=True)
class Action:
    """One lab step: what happens (label), why it matters (explain), and doing it."""

    label: str
    explain: str
    run: Callable[[], list[Event]]


@dataclass(frozen=True)
class Scenario:
    """A named fault with its script and the lesson a newcomer should take from it."""

    key: str
    title: str
    fault: str
    summary: str
    lesson: str
    build: Callable[[LabRun], list[Action]]


@dataclass(frozen=True)
class WorkerState:
    """What one worker looks like right now (for the in-flight pane)."""

    name: str
    attempt: int
    phase: str
    status: str | None
    fence_lost: bool
    in_flight: dict[str, str]


@dataclass(frozen=True)
class Snapshot:
    """Everything the three panes show after a step."""

    step: int
    total: int
    label: str
    explain: str
    events: list[Event]
    durable: list[Entry]
    new_entries: int
    attempts: list[AttemptInfo]
    session: SessionInfo | None
    workers: list[WorkerState]
    view: list[Any]
    report: RepairReport
    done: bool
    lesson: str = ""

    @property
    def in_flight(self) -> dict[str, dict[str, str]]:
        """Calls each worker believes are running (frame durable, result not yet)."""
        return {worker.name: worker.in_flight for worker in self.workers}


class LabRun:
    """One scenario being played: a store file, a virtual clock, its workers and its script."""

    def __init__(
        self,
        scenario: Scenario,
        directory: str | None = None,
        store_path: str | None = None,
        session_id: str = SESSION_ID,
        clock: VirtualClock | None = None,
    ) -> None:
        """directory: where the lab's own store file goes (a fresh temp dir by default).

        store_path/session_id: play the scenario into an existing store instead
        (the session must not exist yet); used to build demo stores.
        """
        self.scenario = scenario
        self.session_id = session_id
        self._owned_dir = directory is None and store_path is None
        self.clock = clock or VirtualClock()
        if store_path is not None:
            self.directory = Path(store_path).parent
            self.path = Path(store_path)
        else:
            self.directory = Path(directory) if directory is not None else Path(tempfile.mkdtemp(prefix="lab-"))
            self.directory.mkdir(parents=True, exist_ok=True)
            self.path = self.directory / f"{scenario.key}.db"
            if self._owned_dir:
                # A UI session may simply be dropped: remove its temp dir when the run is collected.
                weakref.finalize(self, shutil.rmtree, str(self.directory), True)
            if self.path.exists():
                raise FileExistsError(f"{self.path} already holds a lab run; use a fresh directory")
        self.store = SQLiteSessionStore(self.path, clock=self.clock, synchronous="NORMAL")
        if not self.store.create_session(session_id, scenario.title, [user_message(PROMPT, self.clock())]):
            self.store.close()
            raise FileExistsError(f"session {session_id!r} already exists in {self.path}")
        self.workers: dict[str, Runtime] = {}
        self.position = 0
        self.actions = scenario.build(self)
        self.last: Snapshot | None = None

    def worker(self, name: str, turns: list[Turn], tools: dict[str, Tool], **options: Any) -> Runtime:
        """A worker on its own connection to the same store file (like a separate process)."""
        store = SQLiteSessionStore(self.path, clock=self.clock, synchronous="NORMAL")
        runtime = Runtime(store, self.session_id, ScriptedModel(turns), tools, owner=name,
                          executor=VirtualToolExecutor(self.clock), clock=self.clock,
                          lease_ttl_ms=options.pop("lease_ttl_ms", LEASE_TTL_MS), **options)
        self.workers[name] = runtime
        return runtime

    @property
    def done(self) -> bool:
        return self.position >= len(self.actions)

    def step(self) -> Snapshot:
        """Do the next action and return the snapshot after it (the last one again when done)."""
        if self.done:
            return self.last or self.snapshot()
        action = self.actions[self.position]
        before = self.store.get_session(self.session_id)
        events = action.run()
        self.position += 1
        return self.snapshot(action, events, before.entries if before else 0)

    def snapshot(self, action: Action | None = None, events: list[Event] | None = None,
                 entries_before: int | None = None) -> Snapshot:
        """The three panes as they are now."""
        entries = self.store.entries(self.session_id)
        messages = [entry.message for entry in entries]
        # The reference policy: the one with_tool_call_integrity_repair applies in the runtime.
        repair, report = repair_with_report(messages, now=self.clock, source=f"{self.scenario.key} (durable log)",
                                            policy="openmaic")
        label = action.label if action else "Ready"
        explain = action.explain if action else self.scenario.summary
        snap = Snapshot(
            step=self.position,
            total=len(self.actions),
            label=label,
            explain=explain,
            events=list(events or []),
            durable=entries,
            new_entries=len(entries) - entries_before if entries_before is not None else 0,
            attempts=self.store.attempts(self.session_id),
            session=self.store.get_session(self.session_id),
            workers=[
                WorkerState(name, runtime.lease.attempt if runtime.lease else 0, runtime.phase,
                            runtime.final_status, runtime.fence_lost,
                            {call.id: call.name for call in runtime.in_flight.values()})
                for name, runtime in self.workers.items()
            ],
            view=repair.messages,
            report=report,
            done=self.done,
            lesson=self.scenario.lesson if self.done else "",
        )
        self.last = snap
        return snap

    def close(self) -> None:
        """Close every connection; delete the store file if the lab made its own directory."""
        for runtime in self.workers.values():
            close = getattr(runtime.store, "close", None)
            if close is not None:
                close()
        self.store.close()
        if self._owned_dir:
            shutil.rmtree(self.directory, ignore_errors=True)


# -- building blocks ----------------------------------------------------------


def _tools(fetch_ms: int = 2_000, fetch_honors_cancel: bool = True) -> dict[str, Tool]:
    return {
        "search": Tool("search", 100),
        "fetch": Tool("fetch", fetch_ms, honors_cancel=fetch_honors_cancel),
        "summarize": Tool("summarize", 150),
    }


TURNS = [
    Turn((CallSpec("search", {"query": "release notes"}), CallSpec("fetch", {"url": "https://example.org/notes"}))),
    Turn((CallSpec("summarize", {"style": "short"}),)),
    Turn(text="Here is the summary."),
]


def _claim(worker: Runtime) -> Callable[[], list[Event]]:
    return worker.start


def _step(worker: Runtime) -> Callable[[], list[Event]]:
    return worker.step


def _until_stopped(worker: Runtime) -> Callable[[], list[Event]]:
    def run() -> list[Event]:
        events: list[Event] = []
        for _ in range(1_000):
            if worker.stopped:
                break
            events.extend(worker.step())
        return events

    return run


def _cancel(worker: Runtime, reason: str) -> Callable[[], list[Event]]:
    def run() -> list[Event]:
        worker.cancel(reason)
        return worker.step()

    return run


def _advance(run: LabRun, ms: int) -> Callable[[], list[Event]]:
    def go() -> list[Event]:
        run.clock.advance(ms)
        return []

    return go


# -- the catalogue --------------------------------------------------------------


def _healthy(run: LabRun) -> list[Action]:
    w1 = run.worker("worker 1", TURNS, _tools(fetch_ms=300))
    return [
        Action("Worker 1 claims the session", "Attempt 1 begins: the attempt number is the fencing token "
               "every write will carry.", _claim(w1)),
        Action("Model turn: two parallel tool calls", "The frame is durable before the tools start, so both "
               "calls enter the in-flight map.", _step(w1)),
        Action("search finishes", "Its result is appended and leaves the in-flight map.", _step(w1)),
        Action("fetch finishes", "Every call answered right after its frame: nothing to repair.", _step(w1)),
        Action("Run to the end", "The next turns go the same way; the worker releases the session as done.",
               _until_stopped(w1)),
    ]


def _abort_mid_tools(run: LabRun) -> list[Action]:
    w1 = run.worker("worker 1", TURNS, _tools())
    w2 = run.worker("worker 2", TURNS, _tools())
    return [
        Action("Worker 1 claims the session", "Attempt 1 begins.", _claim(w1)),
        Action("Model turn: search and fetch in parallel", "Both calls are in flight.", _step(w1)),
        Action("search finishes", "fetch is still running.", _step(w1)),
        Action("The user presses stop", "The runtime records an aborted assistant frame and gives running "
               "tools a short grace period.", _cancel(w1, "the user pressed stop")),
        Action("Worker 1 winds down", "fetch stops without a result, so the runtime writes an interrupted "
               "receipt for it through the fence, then releases the session.", _until_stopped(w1)),
        Action("Worker 2 resumes the session", "Attempt 2 loads the durable log; the repaired view (right pane) "
               "moves the receipt next to its frame and drops the unfinished abort frame.", _claim(w2)),
        Action("Run to the end", "The model continues from a legal history.", _until_stopped(w2)),
    ]


def _crash(run: LabRun) -> list[Action]:
    w1 = run.worker("worker 1", TURNS, _tools(fetch_ms=5_000))
    w2 = run.worker("worker 2", TURNS, _tools())
    return [
        Action("Worker 1 claims the session", "Attempt 1 begins.", _claim(w1)),
        Action("Model turn: search and fetch in parallel", "Both calls are in flight.", _step(w1)),
        Action("search finishes", "fetch is still running.", _step(w1)),
        Action("Worker 1 is killed (SIGKILL)", "No wind-down runs: nothing writes a result or a receipt for fetch to "
               "the log, and the lease stays until it expires.", w1.crash),
        Action("Time passes: the lease expires", f"{LEASE_TTL_MS} ms later nobody holds the session.",
               _advance(run, LEASE_TTL_MS)),
        Action("Worker 2 claims the session", "Attempt 2 loads the log; fetch's call is an orphan, so the view "
               "gets a synthesized interrupted receipt that is never written to the log.", _claim(w2)),
        Action("Model turn with the repaired view", "The model sees fetch as interrupted and carries on.",
               _step(w2)),
        Action("Run to the end", "The durable log still shows exactly what happened to worker 1.",
               _until_stopped(w2)),
    ]


def _lease_stolen(run: LabRun) -> list[Action]:
    # Worker 1 is a zombie that has not heartbeated since the takeover, so the
    # first thing to hit the fence is its tool result (fetch ends inside its TTL).
    w1 = run.worker("worker 1", TURNS, _tools(fetch_ms=600), heartbeat_ms=None)
    w2 = run.worker("worker 2", TURNS, _tools(), steal=True)
    return [
        Action("Worker 1 claims the session", "Attempt 1 begins.", _claim(w1)),
        Action("Model turn: search and fetch in parallel", "Both calls are in flight.", _step(w1)),
        Action("search finishes", "fetch is still running.", _step(w1)),
        Action("Worker 2 takes the session over", "A scheduler thought worker 1 was stuck: attempt 2 now owns "
               "the session, and worker 1 does not know yet.", _claim(w2)),
        Action("Worker 1: fetch finishes", "Worker 1 tries to record the result with token 1: the store refuses "
               "it; its interrupted receipts are refused too, and on_fence_lost reports the loss instead of "
               "failing.", _until_stopped(w1)),
        Action("Worker 2: model turn", "Worker 2's view answers fetch with a synthesized receipt.", _step(w2)),
        Action("Run to the end", "Only attempt 2's writes land after its claim.", _until_stopped(w2)),
    ]


def _slow_tool(run: LabRun) -> list[Action]:
    w1 = run.worker("worker 1", TURNS, _tools(fetch_ms=3_000), heartbeat_ms=None)
    w2 = run.worker("worker 2", TURNS, _tools())
    return [
        Action("Worker 1 claims the session", f"Attempt 1 holds a {LEASE_TTL_MS} ms lease; this worker is "
               "stalled and will not heartbeat.", _claim(w1)),
        Action("Model turn: search and a slow fetch", "fetch takes 3 s, three times the lease.", _step(w1)),
        Action("search finishes", "Still inside the lease.", _step(w1)),
        Action("fetch finally finishes", "The lease expired while fetch ran: the result is refused, and "
               "on_fence_lost fires.", _until_stopped(w1)),
        Action("Worker 2 claims the session", "No steal needed: the lease had expired.", _claim(w2)),
        Action("Run to the end", "The view answered fetch with a synthesized receipt.", _until_stopped(w2)),
    ]


def _late_parallel(run: LabRun) -> list[Action]:
    tools = _tools(fetch_ms=600, fetch_honors_cancel=False)
    w1 = run.worker("worker 1", TURNS, tools, abort_grace_ms=1_000)
    w2 = run.worker("worker 2", TURNS, tools)
    return [
        Action("Worker 1 claims the session", "Attempt 1 begins.", _claim(w1)),
        Action("Model turn: search and fetch in parallel", "Both calls are in flight.", _step(w1)),
        Action("search finishes", "fetch is still running, and it will not stop when asked.", _step(w1)),
        Action("The user presses stop", "The aborted assistant frame is recorded while fetch keeps running.",
               _cancel(w1, "the user pressed stop")),
        Action("fetch finishes anyway", "Its result lands after the abort frame: assistant(search, fetch), "
               "result(search), assistant(aborted), result(fetch). Most providers reject this order (the lesson "
               "\"Results come right after their frame\" runs each rule set on it).",
               _step(w1)),
        Action("Worker 1 winds down", "Nothing is in flight any more, so no receipt is needed.",
               _until_stopped(w1)),
        Action("Worker 2 resumes", "The view moves result(fetch) back next to its frame and drops the "
               "aborted frame; nothing is synthesized because every result exists.", _claim(w2)),
        Action("Run to the end", "The model continues from a legal history.", _until_stopped(w2)),
    ]


SCENARIOS: dict[str, Scenario] = {
    scenario.key: scenario
    for scenario in (
        Scenario("healthy", "Healthy run", "none",
                 "Two parallel tools, no fault: the baseline to compare against.",
                 "With no fault, every call is answered right after its frame and the repair returns the "
                 "durable log unchanged.", _healthy),
        Scenario("abort_mid_tools", "Abort mid-tools", "abort mid-tools",
                 "The user stops the run while a tool is still running.",
                 "The abort left fetch without a result, so the runtime wrote an interrupted receipt for it "
                 "through the fence. The abort frame sits between the call and that receipt, an order most "
                 "providers reject; the repaired view moves the receipt next to its frame and drops the "
                 "unfinished abort frame. The durable log is never changed.", _abort_mid_tools),
        Scenario("crash", "Worker crash (SIGKILL)", "crash",
                 "The worker dies with a tool in flight; another worker resumes.",
                 "A killed worker writes nothing, so fetch's call stays unanswered in the log forever. Every "
                 "later model view answers it with a synthesized interrupted receipt (read-time only), so the "
                 "resumed model sees a legal history while the log shows exactly what happened.", _crash),
        Scenario("lease_stolen", "Lease stolen", "lease stolen",
                 "Another worker takes the session over while the first is still running a tool.",
                 "Each claim increments the attempt number, and every write carries its attempt. Worker 1's "
                 "late result and receipts carried an old attempt and were refused; on_fence_lost told it to "
                 "stop quietly. No write of the old attempt landed after the takeover.", _lease_stolen),
        Scenario("slow_tool", "Slow tool outlives the lease", "slow tool",
                 "A stalled worker misses its heartbeats while a slow tool runs; its lease expires.",
                 "An expired lease fences writes even before anyone else claims the session: the slow "
                 "result was refused. The next worker needed no takeover, and its view answered the orphaned "
                 "call with a synthesized receipt. Heartbeats exist to prevent exactly this.", _slow_tool),
        Scenario("late_parallel", "Parallel tool finishes after an abort", "abort race",
                 "The race in the reference's own comment: a tool result lands after the abort frame.",
                 "The durable order assistant(search, fetch), result(search), assistant(aborted), "
                 "result(fetch) splits fetch's result from its frame. The repair moves the late result back "
                 "(in call order) and drops the unfinished abort frame; no receipt is invented because every "
                 "call has a real result.", _late_parallel),
    )
}


def start_scenario(key: str, directory: str | None = None) -> LabRun:
    """Set up a scenario (store file, workers, script) without running any step."""
    if key not in SCENARIOS:
        raise KeyError(f"unknown scenario {key!r}; choose one of {', '.join(SCENARIOS)}")
    return LabRun(SCENARIOS[key], directory)


def run_step(run: LabRun) -> Snapshot:
    """Run the next step of a scenario and return the snapshot of the three panes."""
    return run.step()


def run_all(key: str, directory: str | None = None) -> list[Snapshot]:
    """Every snapshot of a scenario, start to end (for tests and the 'run all' button)."""
    run = start_scenario(key, directory)
    try:
        snapshots = [run.snapshot()]
        while not run.done:
            snapshots.append(run.step())
        return snapshots
    finally:
        run.close()


def write_demo_store(path: str, stop_crash_early: bool = True) -> list[str]:
    """Fill a store file with one session per scenario, for the sessions page to show.

    Every scenario is played to its end, except (with stop_crash_early) a copy
    of the crash scenario stopped right after the kill, so the list also shows
    a session whose worker died holding the lease.  Returns the session ids.
    """
    clock = VirtualClock(time_ms() - 3_600_000)  # an hour ago: real-looking dates, leases long expired
    made = []
    for key, scenario in SCENARIOS.items():
        run = LabRun(scenario, store_path=path, session_id=key, clock=clock)
        try:
            while not run.done:
                run.step()
        finally:
            run.close()
        made.append(key)
    if stop_crash_early:
        run = LabRun(SCENARIOS["crash"], store_path=path, session_id="crash-unrecovered", clock=clock)
        try:
            while not run.done and not run.actions[run.position].label.startswith("Time passes"):
                run.step()
        finally:
            run.close()
        made.append("crash-unrecovered")
    return made


class DemoStore:
    """A demo store (write_demo_store) in a temporary directory of its own, removed when no longer needed.

    The directory goes on close(), when the object is garbage-collected (a UI
    session that is simply dropped) or at interpreter exit, whichever comes
    first; nothing is left behind in the temp folder.
    """

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="sessions-demo-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self.directory), True)
        self.path = self.directory / "demo.db"
        try:
            self.sessions = write_demo_store(str(self.path))
        except BaseException:
            self.close()
            raise

    @property
    def closed(self) -> bool:
        return not self._cleanup.alive

    def close(self) -> None:
        """Remove the directory and the store in it (again is a no-op)."""
        self._cleanup()


def describe(message: Any) -> str:
    """One plain-text line for a message: role, calls or result id, stop reason (never its full text)."""
    if not isinstance(message, dict):
        return f"<{type(message).__name__}>"
    role = message.get("role")
    if role == "assistant":
        given = message.get("content")
        content = given if isinstance(given, list) else []
        calls = [f"{part.get('id')} {part.get('name')}" for part in content
                 if isinstance(part, dict) and part.get("type") == "toolCall"]
        if calls:
            return "assistant  calls " + ", ".join(calls)
        stop = message.get("stopReason")
        error = message.get("errorMessage")
        return f"assistant  {stop}" + (f": {error}" if error else "")
    if role == "toolResult":
        kind = "INTERRUPTED receipt" if is_interrupted_tool_result(message) else (
            "error result" if message.get("isError") else "result")
        return f"toolResult {message.get('toolCallId')} ({message.get('toolName')}) {kind}"
    if role == "user":
        given = message.get("content")
        text = given if isinstance(given, str) else "[content]"
        return f"user       {text[:80]}"
    return f"{role}"
