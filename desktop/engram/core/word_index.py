"""One FTS5 word index per user, named in the ``word_indexes`` table.

BM25 weighs a term by how many documents of its table hold it. In one table shared by
everybody, FTS5 reads every user's postings of each query term to know that (4–11 ms per
search at a million memories over 100 people), and one person's ranking depends on what others
wrote. With a table per user, a search reads only its user's postings and weighs terms by that
user's own memories, exactly as if they were alone in the database.

A user's table is made from their memories the first time it is needed: for a new user at their
first memory; after an upgrade from the shared index (migration 6), at their first search or
change, or when the window loads their vectors at start (``MemoryStore.warm``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import apsw

if TYPE_CHECKING:
    from engram.core.db import Database

TOKENIZER = "porter unicode61 remove_diacritics 2"
_FIND = "SELECT 'memory_fts_' || id FROM word_indexes WHERE user = ?"


def made(conn: apsw.Connection, user: str) -> str:
    """The name of the user's word index, made and filled from their memories if it does not exist
    yet. Call it inside the transaction, before adding their memories (else they are indexed twice)."""
    row = conn.execute(_FIND, (user,)).fetchone()
    if row:
        return row[0]
    conn.execute("INSERT INTO word_indexes(user) VALUES (?)", (user,))
    name = f"memory_fts_{conn.last_insert_rowid()}"
    conn.execute(f"CREATE VIRTUAL TABLE {name} USING fts5(body, tokenize = '{TOKENIZER}',"
                 " content = '', contentless_delete = 1)")
    conn.execute(f"INSERT INTO {name}(rowid, body) SELECT id, engram_index_text(text) FROM memories WHERE user = ?",
                 (user,))
    return name


def searched(db: "Database", user: str) -> str | None:
    """The name of the user's word index for a search: made now when they have memories but no
    index yet (after an upgrade); None when they have neither."""
    row = db.query_one(_FIND, (user,))
    if row:
        return row[0]
    if db.query_one("SELECT 1 FROM memories WHERE user = ? LIMIT 1", (user,)) is None:
        return None
    with db.transaction() as conn:
        return made(conn, user)


def documents(db: "Database", name: str) -> int:
    """How many memories the index holds (its length table has a row each: 0.6 ms at a million)."""
    return db.query_one(f"SELECT count(*) FROM {name}_docsize")[0]


def purge(conn: apsw.Connection, user: str) -> None:
    """Merge the user's index into one segment, so that deleted memories' terms leave its bytes:
    FTS5 keeps them in the old segments (findable no more, but readable in the file) until then.
    Rewrites the whole index (forget_memory takes 0.6 s at 100k memories, tests/bench/forget_bench.py);
    for forgetting only."""
    row = conn.execute(_FIND, (user,)).fetchone()
    if row:
        conn.execute(f"INSERT INTO {row[0]}({row[0]}) VALUES ('optimize')")
