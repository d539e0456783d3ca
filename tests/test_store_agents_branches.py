"""An Agents SDK AdvancedSQLiteSession store holds every branch of a session; the SDK sends one.

`create_branch_from_turn` starts a branch that shares the turns before it and adds its own items to the same
`agent_messages` table; `get_items()` reads one branch in its sequence (`message_structure`).  Reading every row of
the session gave both branches interleaved: a history nothing sends, judged broken or healthy at random.  Each
branch is its own thread here, read as `get_items(branch_id=...)` gives it; the store is written by the SDK."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

import pytest

from integrity import check
from integrity.guards.stores import list_threads, read_store, read_threads, thread_url
from integrity.loading import TranscriptError


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _call(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "lookup", "arguments": "{}", "id": f"fc_{call_id}"}


def _output(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "found"}


def _say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "type": "message", "content": [{"type": "output_text", "text": text}]}


def _write(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Session "s/1": turn 1 answered, turn 2 a call whose tool never returned (main, broken); a branch from turn
    2 that asks again and is answered (healthy). Session "plain": one turn, no branch. Returns get_items() per
    branch, the SDK's own answer."""
    from agents.extensions.memory import AdvancedSQLiteSession

    async def write() -> dict[str, list[dict[str, Any]]]:
        session = AdvancedSQLiteSession(session_id="s/1", db_path=path, create_tables=True)
        await session.add_items([_user("find x"), _call("c1"), _output("c1"), _say("x is found")])
        await session.add_items([_user("find y"), _call("c2")])
        branch = await session.create_branch_from_turn(2, "retry")
        assert branch == "retry"
        await session.add_items([_user("find y, again"), _call("c3"), _output("c3"), _say("y is found")])
        seen = {"main": await session.get_items(branch_id="main"), "retry": await session.get_items()}
        plain = AdvancedSQLiteSession(session_id="plain", db_path=path)
        await plain.add_items([_user("hi"), _say("hello")])
        seen["plain"] = await plain.get_items()
        session.close()
        plain.close()
        return seen

    return asyncio.run(write())


def test_each_branch_is_read_as_get_items_gives_it(tmp_path: Path) -> None:
    path = tmp_path / "advanced.db"
    seen = _write(path)
    assert len(seen["main"]) == 6 and len(seen["retry"]) == 8  # retry shares turn 1, then its own turn
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    url = f"agents+sqlite://{path}"
    assert list_threads(url) == ["plain", "s%2F1", "s%2F1/retry"]
    stored = {name: (format, items) for name, format, items, _ in read_threads(url, list_threads(url))}
    assert stored == {"session:s%2F1": ("openai-responses", seen["main"]),
                      "session:s%2F1/retry": ("openai-responses", seen["retry"]),
                      "session:plain": ("openai-responses", seen["plain"])}
    verdicts = {t.name: check(t, provider="openai-responses", policy="strict") for t in read_store(url)}
    assert not verdicts["session:s%2F1"].healthy and verdicts["session:s%2F1"].summary.orphaned_calls == 1
    assert verdicts["session:s%2F1/retry"].healthy  # c2 is not on this branch: nothing dangles
    assert verdicts["session:plain"].healthy
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_a_branch_is_addressed_by_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from integrity.cli import main

    path = tmp_path / "advanced.db"
    _write(path)
    url = f"agents+sqlite://{path}"
    assert thread_url(url, "s%2F1/retry") == f"{url}?session=s%2F1&branch=retry"
    assert thread_url(url, "s%2F1") == f"{url}?session=s%2F1"
    assert [t.name for t in read_store(f"{url}?session=s%2F1&branch=retry")] == ["session:s%2F1/retry"]
    assert [t.name for t in read_store(f"{url}?session=s%2F1&branch=main")] == ["session:s%2F1"]
    assert [t.name for t in read_store(f"{url}?session=s%2F1")] == ["session:s%2F1"]
    with pytest.raises(TranscriptError, match="no thread or session"):
        read_store(f"{url}?session=s%2F1&branch=nope")
    with pytest.raises(TranscriptError, match=r"\?branch= names a branch"):
        read_store(f"{url}?branch=retry")
    assert main(["check", f"{url}?session=s%2F1&branch=retry", "--provider", "openai-responses"]) == 0
    assert main(["check", f"{url}?session=s%2F1", "--provider", "openai-responses"]) == 1
    assert "c2" in capsys.readouterr().out
