"""Numbered schema migrations. Append only: a released migration is never edited or renumbered.

Kinds and actors are stored as text; their spellings are part of the file format (never reuse
a retired spelling for something else).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from engram.core.errors import DatabaseError


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def pending(migrations: list[Migration], done: set[int], hint: str) -> list[Migration]:
    """The migrations a database whose applied versions are ``done`` still needs, in order; a
    database written by a newer Engram (a version this one does not know) is refused."""
    newest = max((m.version for m in migrations), default=0)
    if done and max(done) > newest:
        raise DatabaseError(f"the database was written by a newer Engram (schema {max(done)} > {newest})", hint=hint)
    return [m for m in migrations if m.version not in done]


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

-- Words: text prepared by engram.core.memory.search.words.tokens (CJK split into bigrams), rowid = memories.id.
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
    Migration(2, "conversations", """
-- A chat session. Its id may be chosen by the caller (CLI --session); folder names the session's
-- files under <data dir>/sessions/ and never changes, also when the title does.
CREATE TABLE sessions (
    id              TEXT PRIMARY KEY,
    user            TEXT NOT NULL,
    agent           TEXT NOT NULL DEFAULT '',
    title           TEXT NOT NULL DEFAULT '',
    title_is_custom INTEGER NOT NULL DEFAULT 0,
    folder          TEXT NOT NULL UNIQUE,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX sessions_by_user ON sessions(user, updated_at);

-- What was said. status: 'complete', 'stopped' (Stop pressed: the partial reply), 'error'.
CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
    content     TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'stopped', 'error')),
    created_at  TEXT NOT NULL
);
CREATE INDEX messages_by_session ON messages(session_id, id);

-- For every reply: exactly what the model saw, what was recalled, token counts, timings (JSON).
CREATE TABLE turns (
    id               INTEGER PRIMARY KEY,
    session_id       TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    user_message_id  INTEGER REFERENCES messages(id) ON DELETE CASCADE,
    reply_message_id INTEGER REFERENCES messages(id) ON DELETE CASCADE,
    messages         TEXT NOT NULL,
    recalled         TEXT NOT NULL DEFAULT '[]',
    tokens           TEXT NOT NULL DEFAULT '{}',
    timings          TEXT NOT NULL DEFAULT '{}',
    tool_calls       TEXT NOT NULL DEFAULT '[]',
    created_at       TEXT NOT NULL
);
CREATE INDEX turns_by_session ON turns(session_id, id);
CREATE INDEX turns_by_reply ON turns(reply_message_id);

-- Background work, written in the same transaction as what it is about, so a crash loses none.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    kind            TEXT NOT NULL,
    payload         TEXT NOT NULL DEFAULT '{}',
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error      TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX outbox_due ON outbox(state, next_attempt_at);

-- How a person likes replies (language, tone, detail, emoji), as JSON values.
CREATE TABLE preferences (
    user        TEXT NOT NULL,
    key         TEXT NOT NULL,
    value       TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (user, key)
);
"""),
    Migration(3, "session_files", """
-- Each file in a session folder (<data dir>/sessions/<folder>/<name>) and what indexing made of
-- it. status: 'indexed', or 'problem' (detail says why: binary, invalid UTF-8, too large, a link,
-- a name some systems refuse, ...). A file with a problem is listed, never fatal.
CREATE TABLE session_files (
    folder       TEXT NOT NULL,
    name         TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('indexed', 'problem')),
    detail       TEXT NOT NULL DEFAULT '',
    description  TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL DEFAULT '',   -- sha256 of the file's bytes when last read
    size         INTEGER NOT NULL DEFAULT 0,
    chunks       INTEGER NOT NULL DEFAULT 0,
    indexed_at   TEXT NOT NULL,
    PRIMARY KEY (folder, name)
);

-- The chunks of each file: which memory (kind 'file') holds each one. A memory is forgotten when
-- no chunk refers to it any more.
CREATE TABLE session_file_chunks (
    folder     TEXT NOT NULL,
    name       TEXT NOT NULL,
    position   INTEGER NOT NULL,
    line       INTEGER NOT NULL,             -- where the chunk starts in the file (1-based)
    memory_id  INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    PRIMARY KEY (folder, name, position)
);
CREATE INDEX session_file_chunks_by_memory ON session_file_chunks(memory_id);
"""),
    Migration(4, "vector_log", """
-- Every change to a vector in any model's vec0 table (added, replaced or removed), so that the
-- in-memory copies of a user's vectors (core/memory/search/vectors/mirror.py) follow changes made by this or
-- another process without reloading. Only the newest entries are kept; a copy older than the
-- oldest entry reloads.
CREATE TABLE vector_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    model_id   INTEGER NOT NULL,
    user       TEXT NOT NULL,
    memory_id  INTEGER NOT NULL
);
"""),
    Migration(5, "word_index_by_user", """
-- The word index gains an owner column holding one token per user (words.owner_token), so that a
-- search reads only its user's postings. BM25 weighs the owner column 0. Rebuilt from memories
-- with the functions Database registers (the same code that indexes new memories).
DROP TABLE memory_fts;
CREATE VIRTUAL TABLE memory_fts USING fts5(
    body, owner, tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);
INSERT INTO memory_fts(rowid, body, owner) SELECT id, engram_index_text(text), engram_owner_token(user) FROM memories;
"""),
    Migration(6, "word_index_per_user", """
-- One word index per user instead (core/memory/search/words/index.py): BM25 weighs terms by the user's own
-- memories and a search reads only their postings. Each user's table is made from their
-- memories the first time it is needed.
DROP TABLE memory_fts;
CREATE TABLE word_indexes (
    id    INTEGER PRIMARY KEY,
    user  TEXT NOT NULL UNIQUE
);
-- A message's neighbouring turns are the nearest ids of the same session, user, agent,
-- application and kind: one index probe each (by session alone, a session shared by many users,
-- such as the empty one, was walked row by row: up to 400 ms per search at a million memories).
DROP INDEX memories_by_session;
CREATE INDEX memories_by_session ON memories(session, user, agent, application, kind);
"""),
    Migration(7, "distilled", """
-- How far distillation (core/conversation/distill.py) has read each session: the id of the last message taken,
-- whether or not it gave a memory, so that no message is read twice and none is skipped.
CREATE TABLE distilled (
    session_id          TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    through_message_id  INTEGER NOT NULL,
    updated_at          TEXT NOT NULL
);
"""),
    Migration(8, "memories_by_user_time", """
-- The Memories tab lists a user's newest memories of every kind: by (user, kind, created_at) that
-- meant sorting all of them (3-4 s at a million); in this order it reads only the first page.
CREATE INDEX memories_by_user_time ON memories(user, created_at);
"""),
    Migration(9, "words_by_script", """
-- Words are cut by script (Latin, digits, Han, Kana, Hangul apart: "Bart在圣诞节" was one word)
-- and Traditional Chinese is indexed as Simplified (core/memory/search/words/tokens.py). Every word index that exists
-- is indexed again, in place, by an outbox job (word_index.reindex): memories of its user with an
-- id up to reindexed_through are done (NULL: all are, as in an index made from now on).
ALTER TABLE word_indexes ADD COLUMN reindexed_through INTEGER;
UPDATE word_indexes SET reindexed_through = 0;
INSERT INTO outbox(kind, next_attempt_at, created_at, updated_at)
    SELECT 'reindex_words', now, now, now FROM (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now)
    WHERE EXISTS (SELECT 1 FROM word_indexes);
"""),
    Migration(10, "history_owner", """
-- Whose memory each change was, so that a memory's history (kept after it is forgotten) is
-- shown to its owner only. Changes to memories forgotten before this know no owner and are
-- shown to no one.
ALTER TABLE memory_history ADD COLUMN user TEXT;
UPDATE memory_history SET user = (SELECT m.user FROM memories m WHERE m.id = memory_history.memory_id);
"""),
    Migration(11, "import_keys", """
-- A session imported from another assistant's export (core/porting/) keeps where it came from,
-- e.g. 'chatgpt:<conversation id>', so that importing the same export again adds nothing. Per
-- user: two people may import the same file. NULL for chats held in Engram.
ALTER TABLE sessions ADD COLUMN import_key TEXT;
CREATE UNIQUE INDEX sessions_by_import_key ON sessions(user, import_key) WHERE import_key IS NOT NULL;
"""),
    Migration(12, "turn_recall", """
-- Why long-term memory was searched before a reply, or not (recall_mode, the trigger words found).
ALTER TABLE turns ADD COLUMN recall TEXT NOT NULL DEFAULT '{}';
"""),
    Migration(13, "message_keys", """
-- A distilled note names the messages it came from (source_ids); search lets it find their
-- archived memories (kind message, source_ids the one message), one index probe each.
CREATE INDEX memories_by_message ON memories(user, source_ids) WHERE kind = 'message';
"""),
    Migration(14, "devices", """
-- Devices may share one database (a PostgreSQL server) while each keeps its own session folders
-- (core/files/device.py): a file's index rows name the device that has the file, and the devices
-- table their names, to show. Rows made before say '' until this data folder's device claims them.
CREATE TABLE devices (
    id       TEXT PRIMARY KEY,
    name     TEXT NOT NULL,
    seen_at  TEXT NOT NULL
);
CREATE TABLE session_files_by_device (
    device       TEXT NOT NULL DEFAULT '',
    folder       TEXT NOT NULL,
    name         TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('indexed', 'problem')),
    detail       TEXT NOT NULL DEFAULT '',
    description  TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL DEFAULT '',
    size         INTEGER NOT NULL DEFAULT 0,
    chunks       INTEGER NOT NULL DEFAULT 0,
    indexed_at   TEXT NOT NULL,
    PRIMARY KEY (device, folder, name)
);
INSERT INTO session_files_by_device SELECT '', * FROM session_files;
DROP TABLE session_files;
ALTER TABLE session_files_by_device RENAME TO session_files;
CREATE INDEX session_files_by_folder ON session_files(folder);
CREATE TABLE session_file_chunks_by_device (
    device     TEXT NOT NULL DEFAULT '',
    folder     TEXT NOT NULL,
    name       TEXT NOT NULL,
    position   INTEGER NOT NULL,
    line       INTEGER NOT NULL,
    memory_id  INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    PRIMARY KEY (device, folder, name, position)
);
INSERT INTO session_file_chunks_by_device SELECT '', * FROM session_file_chunks;
DROP TABLE session_file_chunks;
ALTER TABLE session_file_chunks_by_device RENAME TO session_file_chunks;
CREATE INDEX session_file_chunks_by_memory ON session_file_chunks(memory_id);
"""),
    Migration(15, "superseded_index", """
-- Deleting a memory clears superseded_by wherever it names it (ON DELETE SET NULL): without an
-- index that is a scan of every memory for each one deleted (minutes for 1,000 at a million).
-- Few memories are superseded, so only they are indexed.
CREATE INDEX memories_superseded_by ON memories(superseded_by) WHERE superseded_by IS NOT NULL;
"""),
    Migration(16, "ids_never_reused", """
-- Ids a person or a client sees (memories, messages, turns) are never handed out again: without
-- AUTOINCREMENT SQLite gave the largest id again once its row was deleted, so a client holding
-- "#1" could edit a new memory, and a forgotten memory's history showed under the new one. Each
-- table is rebuilt with AUTOINCREMENT, every id kept (foreign keys are off while migrating, see
-- Database._migrate), and its counter starts past every id ever given out that a row still names:
-- forgotten memories in memory_history, deleted messages in notes' provenance and distillation.
-- Other tables' ids are never shown, or their rows never deleted. About 18 s at a million
-- memories and messages on 2 busy cores (tests/bench/ids_migration_bench.py).
CREATE TABLE memories_autoincrement (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO memories_autoincrement SELECT * FROM memories;
DROP TABLE memories;
ALTER TABLE memories_autoincrement RENAME TO memories;
CREATE INDEX memories_by_user ON memories(user, kind, created_at);
CREATE INDEX memories_by_session ON memories(session, user, agent, application, kind);
CREATE INDEX memories_by_user_time ON memories(user, created_at);
CREATE INDEX memories_by_message ON memories(user, source_ids) WHERE kind = 'message';
CREATE INDEX memories_superseded_by ON memories(superseded_by) WHERE superseded_by IS NOT NULL;

CREATE TABLE messages_autoincrement (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
    content     TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'stopped', 'error')),
    created_at  TEXT NOT NULL
);
INSERT INTO messages_autoincrement SELECT * FROM messages;
DROP TABLE messages;
ALTER TABLE messages_autoincrement RENAME TO messages;
CREATE INDEX messages_by_session ON messages(session_id, id);

CREATE TABLE turns_autoincrement (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id       TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    user_message_id  INTEGER REFERENCES messages(id) ON DELETE CASCADE,
    reply_message_id INTEGER REFERENCES messages(id) ON DELETE CASCADE,
    messages         TEXT NOT NULL,
    recalled         TEXT NOT NULL DEFAULT '[]',
    tokens           TEXT NOT NULL DEFAULT '{}',
    timings          TEXT NOT NULL DEFAULT '{}',
    tool_calls       TEXT NOT NULL DEFAULT '[]',
    created_at       TEXT NOT NULL,
    recall           TEXT NOT NULL DEFAULT '{}'
);
INSERT INTO turns_autoincrement SELECT * FROM turns;
DROP TABLE turns;
ALTER TABLE turns_autoincrement RENAME TO turns;
CREATE INDEX turns_by_session ON turns(session_id, id);
CREATE INDEX turns_by_reply ON turns(reply_message_id);

INSERT INTO sqlite_sequence(name, seq) SELECT name, 0 FROM (SELECT 'memories' AS name UNION ALL
    SELECT 'messages' UNION ALL SELECT 'turns') WHERE name NOT IN (SELECT name FROM sqlite_sequence);
UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(memory_id), 0) FROM memory_history))
    WHERE name = 'memories';
UPDATE sqlite_sequence SET seq = max(seq,
        (SELECT coalesce(max(through_message_id), 0) FROM distilled),
        (SELECT coalesce(max(said.value), 0) FROM memories m, json_each(m.source_ids) said
            WHERE said.type = 'integer'))
    WHERE name = 'messages';

-- A memory whose id was given out before, to one since forgotten, shows that one's "delete" in its
-- history: that line moves to an id of its own, past all others (forgetting kept no other line).
CREATE TEMP TABLE forgotten_before AS
    SELECT h.id, row_number() OVER (ORDER BY h.id) AS n FROM memory_history h
    WHERE h.action = 'delete' AND h.memory_id IN (SELECT id FROM memories);
UPDATE memory_history
    SET memory_id = (SELECT seq FROM sqlite_sequence WHERE name = 'memories')
                    + (SELECT n FROM forgotten_before f WHERE f.id = memory_history.id)
    WHERE id IN (SELECT id FROM forgotten_before);
UPDATE sqlite_sequence SET seq = seq + (SELECT count(*) FROM forgotten_before) WHERE name = 'memories';
DROP TABLE forgotten_before;
"""),
    Migration(17, "chat_settings", """
-- What a person chose for one chat: memory off (nothing archived, distilled, summarised or
-- recalled), instructions of its own beside the global system prompt, a chat model of its own
-- (a GGUF path; empty: the setting's). A chat without a row has the defaults.
CREATE TABLE chat_settings (
    session_id   TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    memory       INTEGER NOT NULL DEFAULT 1,
    instructions TEXT NOT NULL DEFAULT '',
    model        TEXT NOT NULL DEFAULT ''
);
"""),
    Migration(18, "forks", """
-- The versions of a chat not shown now: an edited message's old continuation, a reply Retry
-- replaced. Each fork holds the messages after ``after_id`` (0: from the start) as they were, with
-- their turn records (JSON, the columns by name), so that showing it again puts them back with
-- their ids. The shown version lives in messages, as any chat does: the window, recall, summaries
-- and the archive see only it.
CREATE TABLE forks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    after_id    INTEGER NOT NULL,
    first_id    INTEGER NOT NULL,
    messages    TEXT NOT NULL,
    turns       TEXT NOT NULL DEFAULT '[]',
    created_at  TEXT NOT NULL
);
CREATE INDEX forks_by_session ON forks(session_id, after_id);
"""),
    Migration(19, "outbox_owner", """
-- The Engram process whose worker queued or took a job (host, process id, start time): while that
-- process runs, other processes leave the job to it; once it has ended, anyone takes the job up.
ALTER TABLE outbox ADD COLUMN owner TEXT;
"""),
]


def owner_token(user: str) -> str:
    """The one word migration 5's shared word index held for a user's memories (a hash, so it is a
    single token whatever the user's name); migration 6 replaced that index."""
    return "u" + hashlib.blake2b(user.encode("utf-8"), digest_size=8).hexdigest()
