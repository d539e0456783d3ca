"""Child processes this package forks to use the other core (the fast reader's checks): how one is
stopped when its work is no longer wanted."""

from __future__ import annotations

import os
import signal


def kill_and_reap(pid: int) -> None:
    """Stop a forked child at once (SIGKILL: it holds nothing that needs a clean end) and reap it, so
    no zombie outlives the work it was doing."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
