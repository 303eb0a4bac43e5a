"""One FTS5 word index per user, named in the ``word_indexes`` table.

BM25 weighs a term by how many documents of its table hold it. In one table shared by
everybody, FTS5 reads every user's postings of each query term to know that (4–11 ms per
search at a million memories over 100 people), and one person's ranking depends on what others
wrote. With a table per user, a search reads only its user's postings and weighs terms by that
user's own memories, exactly as if they were alone in the database.

A user's table is made from their memories the first time it is needed: for a new user at their
first memory; after an upgrade from the shared index (migration 6), at their first search or
change, or when the window loads their vectors at start (``MemoryStore.warm``).

When the way text becomes words changes (migration 9: words split by script, Traditional
Chinese as Simplified), the indexes that exist are re-indexed in place by ``reindex``, an outbox
job, in batches that each commit: searches go on meanwhile (a memory not re-indexed yet is still
found by the words the old way gave it), and after a crash only what is left is re-indexed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import apsw

from engram.core.memory.search.words.tokens import index_terms

if TYPE_CHECKING:
    from engram.core.storage.database import Database

TOKENIZER = "porter unicode61 remove_diacritics 2"
_FIND = "SELECT 'memory_fts_' || id FROM word_indexes WHERE user = ?"
REINDEX_JOB = "reindex_words"   # the outbox job migration 9 queues (a stored spelling: never reuse)
REINDEX_BATCH = 500             # memories re-indexed per transaction (about 0.1 s)
_STALE = "SELECT user, 'memory_fts_' || id FROM word_indexes WHERE reindexed_through IS NOT NULL"

log = logging.getLogger(__name__)


def made(conn: apsw.Connection, user: str) -> str:
    """The name of the user's word index, made and filled from their memories if it does not exist
    yet. Call it inside the transaction, before adding their memories (else they are indexed twice)."""
    if (name := found(conn, user)) is not None:
        return name
    conn.execute("INSERT INTO word_indexes(user) VALUES (?)", (user,))
    name = f"memory_fts_{conn.last_insert_rowid()}"
    conn.execute(f"CREATE VIRTUAL TABLE {name} USING fts5(body, tokenize = '{TOKENIZER}',"
                 " content = '', contentless_delete = 1)")
    conn.execute(f"INSERT INTO {name}(rowid, body) SELECT id, engram_index_text(text) FROM memories WHERE user = ?",
                 (user,))
    return name


def found(conn: apsw.Connection, user: str) -> str | None:
    """The name of the user's word index, or None when it is not made yet."""
    row = conn.execute(_FIND, (user,)).fetchone()
    return row[0] if row else None


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
    if (name := found(conn, user)) is not None:
        conn.execute(f"INSERT INTO {name}({name}) VALUES ('optimize')")


def left_to_reindex(db: "Database") -> int:
    """How many memories are still indexed by an older way of making words (0: none)."""
    return db.query_one("SELECT count(*) FROM memories WHERE id > (SELECT min(reindexed_through) FROM word_indexes)"
                        " AND user IN (SELECT user FROM word_indexes WHERE reindexed_through IS NOT NULL)")[0]


def reindex(db: "Database", progress: Callable[[int, int], None] | None = None, batch: int = REINDEX_BATCH) -> int:
    """Index again, with the words of now, every memory that an older way indexed; returns how many.

    Memories are read in id order (the table's own order, so every batch is one range read) and
    each batch commits with how far it came (``word_indexes.reindexed_through``): an interrupted
    run goes on from there. A memory changed meanwhile was indexed anew by its change, and doing
    it once more changes nothing. ``progress(done, total)`` is told after every batch.
    """
    total, done = left_to_reindex(db), 0
    if total:
        log.info("re-indexing the words of %s memories", total)
    while True:
        with db.transaction() as conn:
            tables = dict(conn.execute(_STALE).fetchall())
            if not tables:
                break
            through = conn.execute("SELECT min(reindexed_through) FROM word_indexes").fetchone()[0]
            rows = conn.execute("SELECT id, user, text FROM memories WHERE id > ? ORDER BY id LIMIT ?",
                                (through, batch)).fetchall()
            for memory_id, user, text in rows:
                if (table := tables.get(user)) is not None:
                    conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (memory_id,))
                    conn.execute(f"INSERT INTO {table}(rowid, body) VALUES (?, ?)", (memory_id, index_terms(text)))
                    done += 1
            if rows:
                conn.execute("UPDATE word_indexes SET reindexed_through = ? WHERE reindexed_through IS NOT NULL",
                             (rows[-1][0],))
        if progress and rows:
            progress(done, max(total, done))
        if len(rows) < batch:
            for table in tables.values():
                _compact(db, table)
            db.execute("UPDATE word_indexes SET reindexed_through = NULL WHERE reindexed_through IS NOT NULL")
    if done:
        log.info("re-indexed the words of %s memories", done)
    return done


def _compact(db: "Database", table: str, pages: int = 1000) -> None:
    """Merge the index's segments into one, ``pages`` pages per transaction. Re-indexing leaves
    many segments and deleted entries behind, and every query term pays to open each of them
    (50k memories: 0.4 ms per term, 0.04 ms once merged)."""
    step = -pages   # negative: start merging every segment into one; positive: go on with that
    while True:
        with db.transaction() as conn:
            before = conn.total_changes()
            conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('merge', ?)", (step,))
            if conn.total_changes() - before < 2:   # FTS5's sign that nothing was left to merge
                return
        step = pages
