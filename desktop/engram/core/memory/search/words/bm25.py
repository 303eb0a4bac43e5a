"""The words side of search: the best BM25 matches of a query inside a search scope (FTS5).

A search reads its user's own word index (core/memory/search/words/index.py), and the rest of the scope is in
the SQL. Only a query's rarer terms pick the memories to rank (see words.match_queries).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from engram.core.memory.search.words import index as word_index
from engram.core.memory.scope import Scope
from engram.core.memory.search.words.tokens import match_queries

if TYPE_CHECKING:
    from engram.core.memory.search.options import SearchOptions
    from engram.core.storage.database import Database


def filters(scope: Scope, options: "SearchOptions") -> tuple[str, list]:
    """The scope, kinds and validity of a search as a WHERE fragment on ``memories m`` (both
    backends' word searches put it in their SQL)."""
    clause, params = scope.sql()
    if options.kinds:
        clause += f" AND m.kind IN ({','.join('?' * len(options.kinds))})"
        params += list(options.kinds)
    if not options.include_superseded:
        clause += " AND m.superseded_by IS NULL AND (m.valid_to IS NULL OR m.valid_to > ?)"
        params.append(options.moment)
    return clause, params


def documents_with(db: "Database", table: str, phrase: str, at_most: int) -> int:
    """How many memories of the index hold ``phrase``, counting no further than ``at_most`` (-1: all)."""
    return db.query_one(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
                              (phrase, at_most))[0]


# Each database's latest counts: ((change stamp, index), {(phrase, at_most): count}).
_counted: WeakKeyDictionary["Database", tuple[tuple, dict[tuple[str, int], int]]] = WeakKeyDictionary()
_counting = threading.Lock()
_KEPT_COUNTS = 4096


def counter(db: "Database", table: str) -> Callable[[str, int], int]:
    """``documents_with`` on ``table``, each count kept until the next write this Engram makes or
    hears of (the change stamp says whether one came): a search counts its query's terms once, to
    choose the terms it matches and for coverage's ideal score (counted again, they took 2 ms of a
    12–14 ms search at 100k memories, mostly waiting for the one connection). Not kept inside a
    transaction, whose writes may never commit."""
    if db.in_transaction_here():
        return lambda phrase, at_most: documents_with(db, table, phrase, at_most)
    stamp = (db.change_stamp(), table)
    with _counting:
        kept = _counted.get(db)
        if kept is None or kept[0] != stamp or len(kept[1]) > _KEPT_COUNTS:
            kept = _counted[db] = (stamp, {})
    counts = kept[1]

    def count(phrase: str, at_most: int) -> int:
        if (phrase, at_most) not in counts:
            counts[phrase, at_most] = documents_with(db, table, phrase, at_most)
        return counts[phrase, at_most]
    return count


def _best_of_few(db: "Database", table: str, expression: str, clause: str, params: list,
                 k: int) -> list[tuple[int, float]] | None:
    """The ``k`` best matches of ``expression`` inside the scope ``clause`` (BM25, higher is better),
    when the ``2k`` best of all matches hold them; None when they do not.

    Scoring every match and keeping the best few (ORDER BY ... LIMIT) costs half what ORDER BY rank
    does (FTS5 scores each match twice to sort them), and joining every match to its memory costs
    more than scoring it; so only the best few are joined.
    """
    few = 2 * k
    # CROSS JOIN keeps the few as the outer loop (SQLite could otherwise walk every memory in the scope).
    rows = db.query(
        f"WITH best AS (SELECT rowid, -bm25({table}) AS score FROM {table} WHERE {table} MATCH ?"
        " ORDER BY score DESC LIMIT ?)"
        " SELECT best.rowid, best.score, (SELECT count(*) FROM best) FROM best"
        f" CROSS JOIN memories m ON m.id = best.rowid WHERE {clause} ORDER BY best.score DESC",
        (expression, few, *params))
    if len(rows) >= k or (rows and rows[0][2] < few):
        return [(memory_id, score) for memory_id, score, _ in rows[:k]]
    return None


def _best_of_all(db: "Database", table: str, expression: str, clause: str, params: list,
                 k: int) -> list[tuple[int, float]]:
    """The ``k`` best matches of ``expression`` inside the scope ``clause``: every match is joined to
    its memory, and only those inside are scored."""
    # CROSS JOIN keeps FTS5 outside: scanning the scope's memories instead would query FTS5 once each.
    return db.query(
        f"SELECT {table}.rowid, -bm25({table}) AS score FROM {table} CROSS JOIN memories m ON m.id = {table}.rowid"
        f" WHERE {table} MATCH ? AND {clause} ORDER BY score DESC LIMIT ?", (expression, *params, k))


def words_ranked(db: "Database", query: str, scope: Scope, options: "SearchOptions") -> list[tuple[int, float]]:
    """(memory id, BM25 score: higher is better) of the best word matches inside the scope, from
    the scope's user's word index.

    A memory found by both of ``match_queries``'s expressions keeps the higher score. When the
    best matches of the first lie mostly outside the scope (e.g. other sessions'), so do the second's.
    """
    table = word_index.searched(db, scope.user)
    if table is None:
        return []
    expressions = match_queries(query, counter(db, table), word_index.documents(db, table))
    clause, params = filters(scope, options)
    best: dict[int, float] = {}
    few_suffice = True
    for expression in expressions:
        matches = _best_of_few(db, table, expression, clause, params, options.candidates) if few_suffice else None
        if matches is None:
            few_suffice = False
            matches = _best_of_all(db, table, expression, clause, params, options.candidates)
        for memory_id, score in matches:
            best[memory_id] = max(score, best.get(memory_id, score))
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:options.candidates]
