"""Fault lab: reproduce a fault on demand and watch, step by step, what each mechanism does.

Scenarios, workers and snapshots come from integrity.lab (its scenarios); this page only
lays out the three panes (durable log, in-flight map, repaired model view).
Message-derived text goes only into dataframe cells, st.code and st.json.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pandas as pd
import streamlit as st

from inspector import ui
from inspector.entry import through_app
from inspector.glossary import link, link_terms
from integrity.lab import SCENARIOS, LabRun, Snapshot, describe, start_scenario

through_app()  # a page URL opened first on a fresh server still runs through app.py

NEW_ROW = "background-color: #fef9c3"
NARROW = st.column_config.NumberColumn(width="small")
MESSAGE = st.column_config.TextColumn(width="large")
SYNTH_ROW = "background-color: #ffedd5"
FLIGHT_ROW = "background-color: #e0f2fe"
IN_FLIGHT = "↻ in flight (no receipt)"

st.title("Fault lab")
st.markdown(
    "Pick a fault, then press **Next step**. Every step runs a real worker against a real SQLite "
    "session store (on a virtual clock, so every run is the same). Watch three things: the **durable log** "
    "(what is really stored, and which attempt wrote it), each worker's **in-flight map** (calls whose frame "
    "is durable but whose result is not), and the **repaired view** the next model call would be sent."
)
st.info(
    f"**Policy: {link('openmaic', 'openmaic')}, {link('the reference', 'the reference')}.** The runtime repairs "
    "every model view with `with_tool_call_integrity_repair`, which applies the reference's repair, so the "
    "repaired view here is what this runtime really sends. The [Lessons](/lessons) show the same faults under "
    f"{link('strict', 'strict')} as well. A call still running is {link('in flight', 'in flight')}, not "
    f"interrupted: it gets a {link('receipt', 'receipt')} only if the run winds down "
    f"({link('wind-down', 'wind-down')}) or the next model call needs the view before it finishes."
)

keys = list(SCENARIOS)
if "lab_scenario" not in st.session_state:  # first visit, or back from another page
    playing = st.session_state.get("lab_state")
    st.session_state["lab_scenario"] = playing["key"] if playing is not None else "late_parallel"
ui.from_url("lab_scenario", "scenario", keys, "late_parallel")  # a link's scenario; an unknown one is reported
key: str | None = st.selectbox("Scenario", keys, key="lab_scenario",
                               format_func=lambda k: f"{SCENARIOS[k].title}  ·  fault: {SCENARIOS[k].fault}")
assert key is not None  # the options are never empty, so one is always picked
ui.to_url("lab_scenario", "scenario", key)
scenario = SCENARIOS[key]
st.caption(scenario.summary)


def _reset() -> dict[str, Any]:
    old = st.session_state.get("lab_state")
    if old is not None:
        old["run"].close()
    chosen = st.session_state["lab_scenario"]
    run = start_scenario(chosen)
    state = {"key": chosen, "run": run, "snapshots": [run.snapshot()]}
    st.session_state["lab_state"] = state
    return state


def _restart() -> None:
    """The Restart button: a new run of the scenario (a widget callback returns nothing)."""
    _reset()


# Buttons act in callbacks, before the page is drawn, so what is drawn (the
# disabled state included) always reflects the step just taken.
def _next() -> None:
    state = st.session_state["lab_state"]
    if not state["run"].done:
        state["snapshots"].append(state["run"].step())


def _to_the_end() -> None:
    state = st.session_state["lab_state"]
    while not state["run"].done:
        state["snapshots"].append(state["run"].step())


state = st.session_state.get("lab_state")
if state is None or state["key"] != key:
    state = _reset()
run: LabRun = state["run"]

buttons = st.columns([1, 1, 1, 3])
buttons[0].button("Next step", type="primary", disabled=run.done, key="lab_next", on_click=_next)
buttons[1].button("Run to the end", disabled=run.done, key="lab_all", on_click=_to_the_end)
buttons[2].button("Restart", key="lab_restart", on_click=_restart)
state = st.session_state["lab_state"]

snapshots: list[Snapshot] = state["snapshots"]
shown = len(snapshots) - 1
if len(snapshots) > 1:
    shown = st.select_slider("Look back at a step", options=list(range(len(snapshots))), value=shown,
                             key=f"lab_look_{key}_{len(snapshots)}",
                             format_func=lambda i: "start" if i == 0 else f"step {i}")
snap = snapshots[shown]

st.progress(snap.step / max(snap.total, 1), text=f"Step {snap.step} of {snap.total}")
st.subheader(snap.label)
st.markdown(snap.explain)

t0 = snap.durable[0].created_at if snap.durable else 0


def durable_frame(snap: Snapshot) -> Any:
    first_new = len(snap.durable) - snap.new_entries
    frame = pd.DataFrame({
        "#": [entry.seq for entry in snap.durable],
        "attempt": [entry.attempt for entry in snap.durable],
        "new": ["● new" if entry.seq >= first_new else "" for entry in snap.durable],  # before the long message,
        "message": [describe(entry.message) for entry in snap.durable],               # so it is never scrolled off
    })
    return frame.style.apply(lambda row: [NEW_ROW if row["new"] else ""] * len(row), axis=1)


def running_calls(snap: Snapshot) -> dict[str, str]:
    """Calls still running for the worker that holds the session (call id -> tool).

    A worker that stopped (done, crashed, fenced) runs nothing any more, and a worker whose
    attempt is no longer the session's (taken over) does not decide what the next model call
    sees: the owner's view needs an answer for those calls, so they get receipts.  The owner's
    own running calls are not sent to a model until they finish or the run winds down.
    """
    current = snap.session.attempt if snap.session is not None else None
    running: dict[str, str] = {}
    for worker in snap.workers:
        if worker.status is None and worker.attempt and worker.attempt == current and not worker.fence_lost:
            running.update(worker.in_flight)
    return running


def view_frame(snap: Snapshot, running: dict[str, str]) -> Any:
    sources, messages = [], []
    for entry, message in zip(snap.report.view, snap.view, strict=True):
        if entry.source == "durable":
            sources.append(f"durable #{entry.index}")
            messages.append(describe(message))
        elif entry.source == "synthesized" and entry.call_id in running:
            sources.append(IN_FLIGHT)
            messages.append(f"{entry.call_id} ({running[entry.call_id]}) is still running: no result yet")
        else:
            sources.append("synthesized (view only)")
            messages.append(describe(message))
    frame = pd.DataFrame({"view #": list(range(len(snap.view))), "from": sources, "message": messages})
    return frame.style.apply(lambda row: [FLIGHT_ROW if row["from"] == IN_FLIGHT else
                                          SYNTH_ROW if row["from"].startswith("synth") else ""] * len(row), axis=1)


running = running_calls(snap)
st.markdown("#### In flight")
st.caption("Per worker: calls whose frame is durable but whose result is not (yet). "
           "At wind-down the runtime writes an interrupted receipt for each, through the fence: a worker "
           "whose attempt is no longer the session's has them refused.")
for column, worker in zip(st.columns(max(len(snap.workers), 1)), snap.workers, strict=False):
    with column:
        if worker.attempt == 0:
            st.text(f"{worker.name}\nnot started")
            continue
        badge = {"fenced": "fenced: on_fence_lost called", "crashed": "crashed: writes nothing more"}.get(
            worker.status or "", worker.status or worker.phase)
        calls = ", ".join(f"{call_id} ({tool})" for call_id, tool in worker.in_flight.items()) or "nothing"
        st.text(f"{worker.name} · attempt {worker.attempt} · {badge}\nin flight: {calls}")

left, right = st.columns(2)
with left:
    st.markdown("#### Durable log")
    st.caption("What the store holds, and which attempt wrote it. Append-only: never rewritten.")
    st.dataframe(durable_frame(snap), hide_index=True, width="stretch", key=f"lab_durable_{shown}",
                 column_config={"#": NARROW, "attempt": NARROW, "message": MESSAGE,
                                "new": st.column_config.TextColumn("new", width=64)})  # "● new" whole
with right:
    st.markdown("#### Repaired model view")
    st.markdown(link_terms("What the next model call would be sent: the view, repaired at read time with the "
                           "reference's policy, never written back.", only=("view",)))
    st.dataframe(view_frame(snap, running), hide_index=True, width="stretch", key=f"lab_view_{shown}",
                 column_config={"view #": NARROW, "from": st.column_config.TextColumn(width="medium"),
                                "message": MESSAGE})
    waiting = [entry.call_id for entry in snap.report.synthesized if entry.call_id in running]
    if waiting:
        st.code(f"{len(waiting)} call(s) in flight ({', '.join(waiting)}): nothing to repair yet. The next model "
                "call waits for them; a receipt is written only if the run winds down first.",
                language=None, wrap_lines=True)
        with st.expander("If the next model call needed the view now"):
            st.code(snap.report.verdict, language=None, wrap_lines=True)
    else:
        st.code(snap.report.verdict, language=None, wrap_lines=True)

if snap.events:
    st.markdown("#### What the workers did in this step")
    st.dataframe(pd.DataFrame({
        "t (ms)": [event.at - t0 for event in snap.events],
        "worker": [event.worker for event in snap.events],
        "attempt": [event.attempt for event in snap.events],
        "event": [event.kind for event in snap.events],
        "detail": [event.text for event in snap.events],
    }), hide_index=True, width="stretch", key=f"lab_events_{shown}")

if snap.lesson:
    st.success(snap.lesson)

with st.expander("Attempts (leases) and the full repair report"):
    st.dataframe(pd.DataFrame({
        "attempt": [a.attempt for a in snap.attempts],
        "owner": [a.owner for a in snap.attempts],
        "claimed (t ms)": [a.claimed_at - t0 for a in snap.attempts],
        "entries before": [a.base_seq for a in snap.attempts],
        "ended as": [a.outcome or "(holding)" for a in snap.attempts],
    }), hide_index=True, width="stretch", key=f"lab_attempts_{shown}")
    st.json(msgspec.to_builtins(snap.report, str_keys=True), expanded=False)
