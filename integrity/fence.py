"""Appending interrupted receipts through attempt-fenced storage.

When a worker winds down with calls still in flight it records an interrupted
receipt for each.  If its lease was taken over meanwhile, the store refuses the
write; that is not a failure of this worker's shutdown, so it is reported through
on_fence_lost() (once) instead of raising, exactly like the reference.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from .reference import PendingToolCall, interrupted_tool_result, time_ms


class LeaseLostError(Exception):
    """The session's lease expired or a newer attempt holds it; this write was fenced off."""


def is_lease_lost(error: BaseException | None) -> bool:
    """True when the error, or anything in its cause/context chain, is a LeaseLostError."""
    seen: set[int] = set()
    stack = [error]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, LeaseLostError):
            return True
        # Push context first so __cause__ is examined first.
        stack.append(current.__context__)
        stack.append(current.__cause__)
    return False


def append_interrupted_tool_call_results(
    calls: Iterable[PendingToolCall],
    append: Callable[[dict[str, Any]], Any],
    on_fence_lost: Callable[[], Any],
    now: Callable[[], int] = time_ms,
) -> Awaitable[None] | None:
    """Append one interrupted receipt per pending call; stop quietly when the fence is lost.

    With a plain `append` this runs to completion and returns None.  If `append`
    returns an awaitable (an async function), the rest runs in the returned
    coroutine, which the caller awaits.
    """
    pending = list(calls)
    if inspect.iscoroutinefunction(append):
        return _finish_async(None, pending, append, on_fence_lost, now)
    for position, call in enumerate(pending):
        try:
            outcome = append(interrupted_tool_result(call, now()))
        except Exception as error:  # noqa: BLE001 - re-raised unless it is a fence loss
            if is_lease_lost(error):
                on_fence_lost()
                return None
            raise
        if inspect.isawaitable(outcome):
            return _finish_async(outcome, pending[position + 1 :], append, on_fence_lost, now)
    return None


async def _finish_async(
    first: Awaitable[Any] | None,
    rest: list[PendingToolCall],
    append: Callable[[dict[str, Any]], Any],
    on_fence_lost: Callable[[], Any],
    now: Callable[[], int],
) -> None:
    try:
        if first is not None:
            await first
    except Exception as error:  # noqa: BLE001
        if is_lease_lost(error):
            on_fence_lost()
            return
        raise
    for call in rest:
        try:
            outcome = append(interrupted_tool_result(call, now()))
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as error:  # noqa: BLE001
            if is_lease_lost(error):
                on_fence_lost()
                return
            raise
