"""Helpers shared by the table-driven provider rule-set tests."""

from __future__ import annotations

from typing import Any

import msgspec

from integrity.providers import Violation, validate_native


def found(request: list[dict[str, Any]], provider: str) -> list[dict[str, Any]]:
    """The violations a provider finds in a native request, as plain dicts (without canonical indices)."""
    return [without_canonical(v) for v in validate_native(request, provider)]


def without_canonical(violation: Violation) -> dict[str, Any]:
    """A violation's fields as a dict, without its canonical indices (validate_native sets none)."""
    fields = msgspec.structs.asdict(violation)
    del fields["canonical_indices"]
    return fields


def v(provider: str, rule: str, position: str, indices: list[int], ids: list[str], error: str) -> dict[str, Any]:
    """The violation a test expects, in the same shape as `found` returns."""
    return {"provider": provider, "rule": rule, "position": position, "native_indices": indices,
            "call_ids": ids, "error": error}
