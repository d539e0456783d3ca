"""The fault lab: a fenced session store, a scripted agent runtime, and scenarios that stage each fault.

Why it is a subpackage: none of it is needed to check or repair a transcript.  It
exists to show the integrity mechanisms at work (the Lab and Sessions pages) and
to test them against real processes and a real SQLite file (the fault tests).
It sits on top of the engine (it uses `fence`, `transform`, `reference` and the
report); nothing in the engine imports it.

Layers inside: `store` (sessions, leases, the append-only log) < `runtime` (the
run loop that writes through the store) < `scenarios` (scripted runs and the
snapshots the Lab page renders).  Names load on first use (PEP 562), so a fault
worker process that needs only the store and the runtime does not load the
report engine the scenarios use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

_LAZY: dict[str, str] = {
    # the fenced session store
    "APPLICATION_ID": "store", "Entry": "store", "LeaseHeldError": "store", "SQLiteSessionStore": "store",
    "SessionInfo": "store", "SessionStore": "store", "StoreError": "store", "StoreNotFoundError": "store",
    "StoreWriteError": "store", "open_store": "store",
    # the scripted runtime
    "CallSpec": "runtime", "Runtime": "runtime", "ScriptedModel": "runtime", "ThreadToolExecutor": "runtime",
    "Tool": "runtime", "Turn": "runtime", "VirtualClock": "runtime", "VirtualToolExecutor": "runtime",
    "user_message": "runtime", "without_interrupted_frames": "runtime",
    # the scenario catalogue
    "SCENARIOS": "scenarios", "DemoStore": "scenarios", "LabRun": "scenarios", "Snapshot": "scenarios",
    "describe": "scenarios", "run_all": "scenarios", "start_scenario": "scenarios",
    "write_demo_store": "scenarios",
}

if TYPE_CHECKING:
    from .runtime import (
        CallSpec,
        Runtime,
        ScriptedModel,
        ThreadToolExecutor,
        Tool,
        Turn,
        VirtualClock,
        VirtualToolExecutor,
        user_message,
        without_interrupted_frames,
    )
    from .scenarios import (
        SCENARIOS,
        DemoStore,
        LabRun,
        Snapshot,
        describe,
        run_all,
        start_scenario,
        write_demo_store,
    )
    from .store import (
        APPLICATION_ID,
        Entry,
        LeaseHeldError,
        SessionInfo,
        SessionStore,
        SQLiteSessionStore,
        StoreError,
        StoreNotFoundError,
        StoreWriteError,
        open_store,
    )


__getattr__ = lazy_names(__name__, {name: f".{module}" for name, module in _LAZY.items()})


__all__ = [
    "APPLICATION_ID", "CallSpec", "DemoStore", "Entry", "LabRun", "LeaseHeldError", "Runtime", "SCENARIOS",
    "SQLiteSessionStore", "ScriptedModel", "SessionInfo", "SessionStore", "Snapshot", "StoreError",
    "StoreNotFoundError", "StoreWriteError", "ThreadToolExecutor", "Tool", "Turn", "VirtualClock",
    "VirtualToolExecutor", "describe", "open_store", "run_all", "start_scenario", "user_message",
    "without_interrupted_frames", "write_demo_store",
]
