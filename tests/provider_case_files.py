"""The recorded provider cases of tests/provider_cases/ as the tests read them: one place for the folder, the
reading of a case, the request file a test writes from its body, and how a test states a verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CASES = Path(__file__).resolve().parent / "provider_cases"


def case(name: str) -> dict[str, Any]:
    """The case tests/provider_cases/<name>.json: provider, source, status, error, request."""
    return json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def body_file(tmp_path: Path, body: Any, name: str = "request.json") -> Path:
    """A request body written as a file the CLI reads (non-ASCII text kept as it is)."""
    path = tmp_path / name
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    return path


def pi_turn(number: int, parts: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One plain pi-ai turn (a question, a frame of one call after `parts`, its result "ok", an answer "done")."""
    call_id = f"call_{number}"
    frame = [*(parts or []), {"type": "toolCall", "id": call_id, "name": "f", "arguments": {}}]
    return [
        {"role": "user", "content": f"question {number}"},
        {"role": "assistant", "content": frame, "stopReason": "toolUse"},
        {"role": "toolResult", "toolCallId": call_id, "toolName": "f", "content": [{"type": "text", "text": "ok"}],
         "isError": False},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop"},
    ]


def pi_transcript(odd: dict[int, list[dict[str, Any]]], count: int = 200) -> bytes:
    """count plain turns (pi_turn; enough for the fast reader), turn n replaced by odd[n] when given."""
    return json.dumps([message for number in range(count) for message in odd.get(number, pi_turn(number))]).encode()


def said(found: Any) -> list[tuple[str, str, str]]:
    """Violations as (rule, position, error): what a test compares with a recorded answer."""
    return [(v.rule, v.position, v.error) for v in found]


def every_path_verdict(data: bytes, provider: str) -> dict[str, tuple[list[Any], list[Any]]]:
    """The provider's verdict on a pi-ai transcript (as recorded, after repair), said, by every path: the light
    view's (sparse), every message's bones (windowed), and the general reader's; a test holds them equal."""
    import itertools

    from integrity import load
    from integrity._bulk.fast_read import read_fast
    from integrity.pipeline import Loaded, check, check_unit

    name = "transcript.pi-ai.json"
    found: dict[str, tuple[list[Any], list[Any]]] = {}
    for label, bones in (("sparse", "items"), ("bones", True)):
        fast = read_fast(data, name, bones=bones)
        assert fast is not None
        verdict = check_unit(Loaded(name, fast=fast), provider=provider, now=itertools.count(1000).__next__)
        found[label] = (said(verdict.providers[provider].before), said(verdict.providers[provider].after))
    verdict = check(load(data, name), provider=provider)
    found["general"] = (said(verdict.providers[provider].before), said(verdict.providers[provider].after))
    return found
