"""Wrap a context transform so the integrity repair always runs last.

A transform that re-materializes the durable tree every turn would otherwise
bring back orphans that an earlier repair hid, because synthesized receipts are
never persisted.  Running the repair on the transform's output makes it the last
boundary before the model sees the context.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from .reference import repair_orphaned_tool_calls, time_ms


def with_tool_call_integrity_repair(
    transform: Callable[..., Any], now: Callable[[], int] = time_ms
) -> Callable[..., Any]:
    """Return a transform with the same calling style (sync or async) that repairs its output.

    A plain function whose result is awaitable is treated as async: the wrapper
    then returns an awaitable too, so the repair still runs after the real output.
    """

    if inspect.iscoroutinefunction(transform):

        @functools.wraps(transform)
        async def async_wrapper(messages: list[Any], *args: Any, **kwargs: Any) -> list[Any]:
            output = await transform(messages, *args, **kwargs)
            return repair_orphaned_tool_calls(output, now).messages

        return async_wrapper

    @functools.wraps(transform)
    def wrapper(messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        output = transform(messages, *args, **kwargs)
        if inspect.isawaitable(output):
            return _repair_when_ready(output, now)
        return repair_orphaned_tool_calls(output, now).messages

    return wrapper


async def _repair_when_ready(pending: Any, now: Callable[[], int]) -> list[Any]:
    return repair_orphaned_tool_calls(await pending, now).messages
