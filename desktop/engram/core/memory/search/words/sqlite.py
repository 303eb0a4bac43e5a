"""The word index of a SQLite database: one FTS5 table per user (index.py), ranked by FTS5's own
bm25() (bm25.py). FTS5 stems (Porter) and folds case and diacritics as it indexes
``tokens.index_terms``' text."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import groupby
from typing import TYPE_CHECKING

import apsw

from engram.core.memory.search.words import bm25, index
from engram.core.memory.search.words.index import REINDEX_BATCH
from engram.core.memory.search.words.tokens import index_terms, phrase

if TYPE_CHECKING:
    from engram.core.memory.scope import Scope
    from engram.core.memory.search.options import SearchOptions
    from engram.core.storage.database import Database


class SqliteWords:
    def index(self, conn: apsw.Connection, rows: Iterable[tuple[int, str, str]]) -> None:
        for user, group in groupby(sorted(rows, key=lambda row: row[1]), key=lambda row: row[1]):
            table = index.found(conn, user)
            if table is None:
                index.made(conn, user)    # made from their memories, these among them
                continue
            conn.executemany(f"INSERT INTO {table}(rowid, body) VALUES (?, ?)",
                             [(memory_id, index_terms(text)) for memory_id, _, text in group])

    def unindex(self, conn: apsw.Connection, user: str, memory_ids: Iterable[int]) -> None:
        if (table := index.found(conn, user)) is not None:   # none made yet: it will be made without them
            conn.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(memory_id,) for memory_id in memory_ids])

    def ranked(self, db: "Database", query: str, scope: "Scope", options: "SearchOptions") -> list[tuple[int, float]]:
        return bm25.words_ranked(db, query, scope, options)

    def holding(self, db: "Database", user: str, terms: list[str],
                at_most: Callable[[int], int]) -> tuple[int, list[int]]:
        table = index.searched(db, user)
        if table is None:
            return 0, [0] * len(terms)
        documents = index.documents(db, table)
        limit = at_most(documents)
        count = bm25.counter(db, table)   # the counts the search read already
        return documents, [count(phrase(term), limit) for term in terms]

    def purge(self, conn: apsw.Connection, user: str) -> None:
        index.purge(conn, user)

    def warm(self, db: "Database", user: str) -> None:
        index.searched(db, user)

    def left_to_reindex(self, db: "Database") -> int:
        return index.left_to_reindex(db)

    def reindex(self, db: "Database", progress: Callable[[int, int], None] | None = None,
                batch: int = REINDEX_BATCH) -> int:
        return index.reindex(db, progress, batch)


WORDS = SqliteWords()
