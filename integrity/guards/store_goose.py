"""goose's session database (`~/.local/share/goose/sessions/sessions.db`), read as goose reads it back.

goose (aaif-goose/goose, crates/goose/src/session/session_manager.rs) keeps one row per message in `messages`:
`session_id`, `role` ("user" / "assistant"), `content_json` (the message's item list), `created_timestamp`
(seconds), `metadata_json` (`{"userVisible", "agentVisible"}`, absent before schema 3: then both true) and
`message_id` (from schema 7).  Its get_conversation reads a session's rows `ORDER BY created_timestamp, id`, skips a
row of another role, and fails on a row whose content is not JSON.  Each session is read here so, as the goose
messages a session file holds (integrity.formats.goose), one Thread per session named "session:ID".
"""

from __future__ import annotations

import json
from typing import Any

from .store_db import UNREADABLE, Thread, among, columns_of, one_line, read_sqlite


def read_goose(base: str, threads: list[str] | None) -> list[Thread]:
    """The sessions (all, or the named ones) of the goose database at `base`."""
    return read_sqlite(base, lambda connection: goose_threads(connection, threads))


def goose_session_ids(base: str) -> list[str]:
    """Every session of the goose database at `base` that holds a message, in one read."""
    return read_sqlite(base, lambda connection: [str(row[0]) for row in connection.execute(
        "SELECT DISTINCT session_id FROM messages")])


def goose_threads(connection: Any, names: list[str] | None) -> list[Thread]:
    """Each session's messages in goose's order; a session with a row goose cannot read is UNREADABLE."""
    columns = columns_of(connection, "messages")
    metadata = "metadata_json" if "metadata_json" in columns else "NULL"
    message_id = "message_id" if "message_id" in columns else "NULL"
    where, parameters = among("session_id", names, "WHERE")
    rows = connection.execute(f"SELECT session_id, id, role, content_json, created_timestamp, {metadata}, "
                              f"{message_id} FROM messages{where} ORDER BY session_id, created_timestamp, id",
                              parameters)
    sessions: dict[str, list[Any]] = {}
    broken: dict[str, str] = {}
    for session, row_id, role, content, created, visibility, identifier in rows:
        key = str(session)
        messages = sessions.setdefault(key, [])
        if key in broken or role not in ("user", "assistant"):
            continue  # (get_conversation: a row of another role is skipped)
        try:
            items = json.loads(content)
            shown = json.loads(visibility) if visibility else {"userVisible": True, "agentVisible": True}
        except (ValueError, TypeError) as error:
            broken[key] = f"messages row {row_id} is not JSON ({one_line(error)}); goose cannot load the session"
            continue
        messages.append({"id": identifier, "role": role, "created": created, "content": items, "metadata": shown})
    models = _models(connection)
    return [Thread(f"session:{key}", UNREADABLE, [broken[key]]) if key in broken
            else Thread(f"session:{key}", "goose", messages, models.get(key))
            for key, messages in sorted(sessions.items())]


def _models(connection: Any) -> dict[str, str]:
    """The model each session names (formats.goose.model_name of its `provider_name` and `model_config_json`, from
    schema 6); none for a database older than that."""
    from ..formats.goose import model_name

    if not {"provider_name", "model_config_json"} <= columns_of(connection, "sessions"):
        return {}
    found = {}
    for session, provider, config in connection.execute("SELECT id, provider_name, model_config_json FROM sessions"):
        model = model_name(provider, config)
        if model is not None:
            found[str(session)] = model
    return found
