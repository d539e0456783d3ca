"""A goose session database as goose writes it: its schema (session_manager.rs create_schema, schema version 17),
WAL mode, one row per message (content_json: the item list; metadata_json: the visibility), for the store tests."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT, parent_session_id TEXT);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE INDEX idx_messages_session_created ON messages(session_id, created_timestamp, id);
INSERT INTO schema_version (version) VALUES (17);
"""


def goose_store(path: Path, sessions: dict[str, list[dict[str, Any]]], models: dict[str, str] | None = None) -> Path:
    """The database at `path` holding these sessions' messages (goose Message dicts, in insertion order); models:
    the model_name a session's model_config names (its provider_name is "anthropic")."""
    connection = sqlite3.connect(str(path))
    with connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.executescript(SCHEMA)
        for session, messages in sessions.items():
            model = (models or {}).get(session)
            connection.execute("INSERT INTO sessions (id, working_dir, provider_name, model_config_json) VALUES "
                               "(?, '/home/dev', 'anthropic', ?)",
                               (session, None if model is None else json.dumps({"model_name": model})))
            for message in messages:
                metadata = message.get("metadata")
                connection.execute(
                    "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, "
                    "metadata_json) VALUES (?, ?, ?, ?, ?, ?)",
                    (message.get("id"), session, message["role"], message["content"] if isinstance(
                        message["content"], str) else json.dumps(message["content"]), message["created"],
                     None if metadata is None else json.dumps(metadata)))
    connection.close()
    return path
