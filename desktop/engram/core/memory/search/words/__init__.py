"""The words side of search: text cut into terms by script (tokens.py), kept in a word index
per user with BM25 statistics of that user's own memories, and the BM25 matches of a query inside
a search scope. Each backend keeps words its own way behind the same calls (``WordIndex``):
SQLite in an FTS5 table per user (index.py, bm25.py, sqlite.py), PostgreSQL in a table of
hashed terms under a GIN index (postgres.py); ``for_database`` picks one by ``db.dialect``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engram.core.memory.scope import Scope
    from engram.core.memory.search.options import SearchOptions


class WordIndex(Protocol):
    """The calls the store, search and forgetting make on a backend's word index. ``conn`` is a
    connection inside the caller's transaction, ``db`` the database."""

    def index(self, conn: Any, rows: Iterable[tuple[int, str, str]]) -> None:
        """Index memories, as (memory id, user, text), already in ``memories``."""

    def unindex(self, conn: Any, user: str, memory_ids: Iterable[int]) -> None:
        """Take memories of ``user`` out of the index (before they are deleted or re-indexed)."""

    def ranked(self, db: Any, query: str, scope: "Scope", options: "SearchOptions") -> list[tuple[int, float]]:
        """(memory id, BM25 score: higher is better) of the best word matches inside the scope."""

    def holding(self, db: Any, user: str, terms: list[str], at_most: Callable[[int], int]) -> tuple[int, list[int]]:
        """The user's number of memories, and how many of them hold each term (query_terms' terms),
        counted no further than ``at_most(that number)``."""

    def purge(self, conn: Any, user: str) -> None:
        """Leave no trace of the user's deleted memories' words in the database's bytes (forgetting)."""

    def warm(self, db: Any, user: str) -> None:
        """Make ready now what the user's first search would otherwise wait for."""

    def left_to_reindex(self, db: Any) -> int:
        """How many memories are not indexed with the words of now (an older way made theirs, or
        none did)."""

    def reindex(self, db: Any, progress: Callable[[int, int], None] | None = None, batch: int = ...) -> int:
        """Index those again with the words of now, ``batch`` memories per transaction; returns how many."""


def for_database(db: Any) -> WordIndex:
    """The word index of ``db``'s backend."""
    from engram.core.memory.search.words import postgres, sqlite

    backends: dict[str, WordIndex] = {"sqlite": sqlite.WORDS, "postgresql": postgres.WORDS}
    return backends[db.dialect]
