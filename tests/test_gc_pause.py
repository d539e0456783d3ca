"""The public repair calls pause the cyclic GC while they run and give the caller back its own setting."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from integrity import repair_orphaned_tool_calls, repair_with_report

ORPHAN = [{"role": "user", "content": "go"},
          {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "t", "arguments": {}}]}]


@pytest.fixture
def gc_state() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.enable() if was else gc.disable()


def spy() -> tuple[Callable[[], int], list[bool]]:
    """A clock that records whether the GC was on each time a receipt was stamped (that is, mid-call)."""
    seen: list[bool] = []

    def now() -> int:
        seen.append(gc.isenabled())
        return 0

    return now, seen


@pytest.mark.parametrize("call", [repair_orphaned_tool_calls,
                                  lambda messages, now: repair_with_report(messages, now=now)])
@pytest.mark.parametrize("enabled", [True, False])
def test_gc_is_off_during_the_call_and_as_the_caller_left_it_after(call: Any, enabled: bool, gc_state: None) -> None:
    gc.enable() if enabled else gc.disable()
    now, seen = spy()
    call(ORPHAN, now)
    assert seen == [False]
    assert gc.isenabled() is enabled


def test_the_gc_comes_back_on_when_the_call_raises(gc_state: None) -> None:
    gc.enable()

    def broken_clock() -> int:
        raise RuntimeError("clock failed")

    with pytest.raises(RuntimeError):
        repair_orphaned_tool_calls(ORPHAN, broken_clock)
    assert gc.isenabled()
