"""When this process may fork a copy of itself: on a platform with fork, and while it runs no other thread.

A fork copies only the calling thread.  Whatever another thread held at that moment (a lock of the
standard streams' buffers, a module half imported, a lock of a library's own) stays held in the copy, by
a thread that no longer exists, and the copy waits for it forever when it needs it; its parent, waiting
for the copy's answer, waits with it.  The command line runs no other thread when it forks (its pool of
workers, triage's head start and its local cluster's workers), and gains the start-up
of a fresh interpreter each time.  A host that runs threads (a test runner with a Dask cluster of its own,
the inspector's server, an application calling the engine) gets the same answers without a fork: the work
is done in this process, or Dask starts its workers its default way (spawn).

One child is forked beside threads too: fast_read's _Beside, which only scans bytes the parent already
holds and writes its answer to a pipe it was handed (no import, no lock, no stream of the parent's; the
allocators are made safe across a fork by glibc and by Python itself), so the inspector keeps it.
"""

from __future__ import annotations

import os
import threading


def fork_is_safe() -> bool:
    """Whether a fork here gives a copy that can run anything this process can (see the module docstring)."""
    return hasattr(os, "fork") and threading.active_count() == 1
