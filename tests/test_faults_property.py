"""Property: whatever faults hit a session, every model view is legal and the log only grows.

"Legal" is both the tool-call invariants (tests/view_invariants.py) and every
provider rule set in integrity.providers, applied to each context a model was
actually sent.

Hypothesis draws a model script and a fault schedule (steps, cancel, shutdown,
crash, a stolen lease, lease expiry, a failing model turn, zombie workers
stepping after they lost the lease).  Workers share one real SQLite file and a
virtual clock, so each example is deterministic and fast.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from integrity.lab import (
    CallSpec,
    LeaseHeldError,
    Runtime,
    ScriptedModel,
    SQLiteSessionStore,
    Tool,
    Turn,
    VirtualClock,
    VirtualToolExecutor,
    user_message,
)
from tests.view_invariants import assert_legal_view

TTL = 1_000
TOOLS = {
    "fast": Tool("fast", 20),
    "slow": Tool("slow", 700),
    "stubborn": Tool("stubborn", 300, honors_cancel=False),
    "broken": Tool("broken", 50, fails=True),
}
ACTIONS = ["step", "step", "step", "cancel", "shutdown", "crash", "steal", "expire", "model_error", "zombie_step"]

scripts = st.lists(st.lists(st.sampled_from(sorted(TOOLS)), min_size=1, max_size=3), min_size=1, max_size=3)
schedules = st.lists(st.sampled_from(ACTIONS), max_size=30)


class Session:
    """The shared world of one example: a store file, a clock, the current worker and zombies."""

    def __init__(self, directory: str, script: list[list[str]]) -> None:
        self.clock = VirtualClock()
        self.path = Path(directory) / "prop.db"
        self.turns = [Turn(tuple(CallSpec(name) for name in names)) for names in script] + [Turn(text="done")]
        self.store = SQLiteSessionStore(self.path, clock=self.clock, synchronous="NORMAL")
        self.store.create_session("s", "property", [user_message("go", self.clock())])
        self.workers: list[Runtime] = []
        self.fence_reports: dict[str, int] = {}
        self.current = self.new_worker()
        self.zombies: list[Runtime] = []

    def new_worker(self, steal: bool = False) -> Runtime:
        owner = f"w{len(self.workers) + 1}"
        self.fence_reports[owner] = 0

        def lost(owner: str = owner) -> None:
            self.fence_reports[owner] += 1

        runtime = Runtime(self.store, "s", ScriptedModel(self.turns), TOOLS, owner=owner,
                          executor=VirtualToolExecutor(self.clock), clock=self.clock, lease_ttl_ms=TTL,
                          abort_grace_ms=400, steal=steal, on_fence_lost=lost)
        try:
            runtime.start()
        except LeaseHeldError:  # a crashed worker still holds the lease: wait it out
            self.clock.advance(TTL)
            runtime.start()
        self.workers.append(runtime)
        return runtime

    def live(self) -> Runtime:
        if self.current.stopped:
            self.current = self.new_worker()
        return self.current

    def apply(self, action: str) -> None:
        if action == "step":
            self.live().step()
        elif action == "cancel":
            self.live().cancel()
        elif action == "shutdown":
            self.live().shutdown()
        elif action == "crash":
            self.live().crash()
        elif action == "steal":
            self.zombies.append(self.live())
            self.current = self.new_worker(steal=True)
        elif action == "expire":
            self.clock.advance(TTL + 1)
        elif action == "model_error":
            self.live().model.fail_next_call()
        elif action == "zombie_step":
            for zombie in self.zombies:
                if not zombie.stopped:
                    zombie.step()
                    break

    def log(self) -> list[str]:
        return [json.dumps(message, sort_keys=True) for message in self.store.load_transcript("s")]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=scripts, schedule=schedules)
def test_every_model_view_is_legal_under_random_fault_schedules(script: list[list[str]], schedule: list[str]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        world = Session(directory, script)
        seen = world.log()
        for action in schedule:
            world.apply(action)
            now = world.log()
            assert now[: len(seen)] == seen, f"durable log rewritten by {action!r}"
            seen = now
        for zombie in world.zombies:
            zombie.run(max_steps=200)
        world.live().run(max_steps=200)
        final = world.new_worker()  # one more resume: its view must be legal too
        assert_legal_view(final.model_view(), "final resumed view")
        final.run(max_steps=200)

        for worker in world.workers:
            for number, context in enumerate(worker.model.contexts):
                assert_legal_view(context, f"{worker.owner}'s view #{number}", providers=True)
            assert not [e.text for e in worker.events if e.kind == "error"], "runtime error"
            assert world.fence_reports[worker.owner] <= 1
            if worker.final_status == "fenced":
                assert world.fence_reports[worker.owner] == 1
        entries = world.store.entries("s")
        attempts = world.store.attempts("s")
        # Fencing: once attempt k has claimed, no earlier attempt writes again.
        for claim in attempts:
            assert all(entry.attempt >= claim.attempt for entry in entries[claim.base_seq:])
        assert world.store.load_transcript("s")[: len(seen)] == [json.loads(line) for line in seen]
        world.store.close()
