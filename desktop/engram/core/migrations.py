"""Numbered schema migrations. Append only: a released migration is never edited or renumbered.

Kinds and actors are stored as text; their spellings are part of the file format (never reuse
a retired spelling for something else).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


MIGRATIONS: list[Migration] = [
    Migration(1, "memories", """
CREATE TABLE memories (
    id              INTEGER PRIMARY KEY,
    application     TEXT NOT NULL DEFAULT '',
    agent           TEXT NOT NULL DEFAULT '',
    user            TEXT NOT NULL DEFAULT '',
    session         TEXT NOT NULL DEFAULT '',
    kind            TEXT NOT NULL CHECK (kind IN
                        ('message', 'fact', 'preference', 'task', 'summary', 'experience', 'file')),
    text            TEXT NOT NULL,
    importance      REAL NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    valid_from      TEXT,
    valid_to        TEXT,
    superseded_by   INTEGER REFERENCES memories(id) ON DELETE SET NULL,
    access_count    INTEGER NOT NULL DEFAULT 0,
    last_accessed_at TEXT,
    source_ids      TEXT NOT NULL DEFAULT '[]',   -- JSON list of message ids (provenance)
    source          TEXT NOT NULL DEFAULT '{}',   -- JSON: role, file path, heading path, ...
    content_hash    TEXT NOT NULL,
    pinned          INTEGER NOT NULL DEFAULT 0,
    UNIQUE (application, agent, user, session, kind, content_hash)
);
CREATE INDEX memories_by_user ON memories(user, kind, created_at);
CREATE INDEX memories_by_session ON memories(session);

-- Words: text prepared by engram.core.words (CJK split into bigrams), rowid = memories.id.
CREATE VIRTUAL TABLE memory_fts USING fts5(
    body, tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);

-- Every change to a memory, and who made it. Forgetting a memory erases its old texts here too.
CREATE TABLE memory_history (
    id          INTEGER PRIMARY KEY,
    memory_id   INTEGER NOT NULL,
    action      TEXT NOT NULL CHECK (action IN ('add', 'update', 'delete')),
    actor       TEXT NOT NULL CHECK (actor IN ('user', 'model', 'system')),
    old_text    TEXT,
    new_text    TEXT,
    at          TEXT NOT NULL
);
CREATE INDEX memory_history_by_memory ON memory_history(memory_id, id);

-- Each embedding model gets its own vector table, so vector spaces never mix.
CREATE TABLE embedding_models (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    fingerprint TEXT NOT NULL UNIQUE,
    dimensions  INTEGER NOT NULL,
    created_at  TEXT NOT NULL
);
"""),
]
