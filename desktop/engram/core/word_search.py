"""The words side of search: the best BM25 matches of a query inside a search scope (FTS5).

The scope is always in the SQL. Only a query's rarer terms pick the memories to rank (see
words.match_queries); a user who holds under half of all memories is searched through the
index's owner column, with terms weighed by their own memories (core/bm25.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engram.core import bm25
from engram.core.records import now_iso
from engram.core.scope import Scope
from engram.core.words import any_of, match_queries, owner_token, phrase, rare_and_common

if TYPE_CHECKING:
    from engram.core.search import SearchOptions
    from engram.core.store import MemoryStore


def _validity(alias: str = "m") -> tuple[str, list[str]]:
    return f"{alias}.superseded_by IS NULL AND ({alias}.valid_to IS NULL OR {alias}.valid_to > ?)", [now_iso()]


def _filters(scope: Scope, options: "SearchOptions") -> tuple[str, list]:
    clause, params = scope.sql()
    if options.kinds:
        clause += f" AND m.kind IN ({','.join('?' * len(options.kinds))})"
        params += list(options.kinds)
    if not options.include_superseded:
        valid, valid_params = _validity()
        clause += f" AND {valid}"
        params += valid_params
    return clause, params


def _documents_with(store: "MemoryStore", phrase: str, at_most: int) -> int:
    """How many memories hold ``phrase``, counting no further than ``at_most`` (-1: all)."""
    return store.db.query_one("SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)",
                              (phrase, at_most))[0]


def _best_of_few(store: "MemoryStore", expression: str, scoring: tuple[str, list], clause: str, params: list,
                 k: int) -> list[tuple[int, float]] | None:
    """The ``k`` best matches of ``expression`` inside the scope ``clause`` (BM25, higher is better),
    when the ``2k`` best of all matches hold them; None when they do not.

    Scoring every match and keeping the best few (ORDER BY ... LIMIT) costs half what ORDER BY rank
    does (FTS5 scores each match twice to sort them), and joining every match to its memory costs
    more than scoring it; so only the best few are joined.
    """
    few = 2 * k
    # CROSS JOIN keeps the few as the outer loop (SQLite could otherwise walk every memory in the scope).
    rows = store.db.query(
        f"WITH best AS (SELECT rowid, {scoring[0]} AS score FROM memory_fts WHERE memory_fts MATCH ?"
        " ORDER BY score DESC LIMIT ?)"
        " SELECT best.rowid, best.score, (SELECT count(*) FROM best) FROM best"
        f" CROSS JOIN memories m ON m.id = best.rowid WHERE {clause} ORDER BY best.score DESC",
        (*scoring[1], expression, few, *params))
    if len(rows) >= k or (rows and rows[0][2] < few):
        return [(memory_id, score) for memory_id, score, _ in rows[:k]]
    return None


def _best_of_all(store: "MemoryStore", expression: str, scoring: tuple[str, list], clause: str, params: list,
                 k: int) -> list[tuple[int, float]]:
    """The ``k`` best matches of ``expression`` inside the scope ``clause``: every match is joined to
    its memory, and only those inside are scored."""
    # CROSS JOIN keeps FTS5 outside: scanning the scope's memories instead would query FTS5 once each.
    return store.db.query(
        f"SELECT memory_fts.rowid, {scoring[0]} AS score FROM memory_fts"
        " CROSS JOIN memories m ON m.id = memory_fts.rowid"
        f" WHERE memory_fts MATCH ? AND {clause} ORDER BY score DESC LIMIT ?", (*scoring[1], expression, *params, k))


def _users_share(store: "MemoryStore", user: str, documents: int) -> int | None:
    """How many memories the user holds when that is under half of all, else None. Under half,
    a search reads only the user's postings (at a million memories over 100 users, words p95
    110 → 19 ms) and counts how common a term is among them; for a user who holds nearly all
    (one person on a desktop) walking their postings costs more than it saves (+16 ms at 100k).
    Counted in the index (stopping at half) and remembered until the number of memories
    changes by a tenth."""
    known = store.owner_shares.get(user)
    if known is None or abs(documents - known[0]) > known[0] / 10:
        owned = _documents_with(store, f'owner : "{owner_token(user)}"', documents // 2 + 1)
        known = store.owner_shares[user] = (documents, owned if owned <= documents // 2 else None)
    return known[1]


def words_ranked(store: "MemoryStore", query: str, scope: Scope, options: "SearchOptions") -> list[tuple[int, float]]:
    """(memory id, BM25 score: higher is better) of the best word matches inside the scope.

    A memory found by both of ``match_queries``'s expressions keeps the higher score. When the
    best matches of the first lie mostly outside the scope (other users'), so do the second's.
    Searching a user who holds under half of all memories reads only their postings, and weighs
    terms by their memories (core/bm25.py) with one expression.
    """
    # Ids are handed out in order, so the largest tells how many memories there are (more after
    # deletions, which only makes fewer terms common), without counting them.
    documents = store.db.query_one("SELECT max(id) FROM memories")[0] or 0
    owned = _users_share(store, scope.user, documents) if scope.user else None
    owner = "" if owned is None else f'owner : "{owner_token(scope.user)}" AND '  # the clause still checks the scope
    own_counts: dict[str, int] = {}   # the user's, exact: they also weigh the terms

    def documents_with(term: str, at_most: int) -> int:
        if owned is None:
            return _documents_with(store, term, at_most)
        if term not in own_counts:
            own_counts[term] = _documents_with(store, owner + term, -1)
        return own_counts[term]

    if owned is None:
        expressions = match_queries(query, documents_with, documents)
        scoring = ("-bm25(memory_fts, 1.0, 0.0)", [])
    else:
        # One expression finds what the rare terms find, and names every term once more, so that
        # engram_bm25 scores it by all of them (the first naming of the rare ones weighs 0).
        rare, common = rare_and_common(query, documents_with, owned)
        expressions = [f"({any_of(rare)}) AND ({any_of(rare + common)})"] if rare else []
        weighed = [None] * (1 + len(rare)) + [documents_with(phrase(t), -1) for t in rare + common]
        scoring = (f"{bm25.FUNCTION}(memory_fts, ?)", [bm25.weights(weighed, owned)])
    clause, params = _filters(scope, options)
    best: dict[int, float] = {}
    few_suffice = True
    for expression in expressions:
        expression = f"{owner}body : ({expression})"
        matches = _best_of_few(store, expression, scoring, clause, params, options.candidates) if few_suffice else None
        if matches is None:
            few_suffice = False
            matches = _best_of_all(store, expression, scoring, clause, params, options.candidates)
        for memory_id, score in matches:
            best[memory_id] = max(score, best.get(memory_id, score))
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:options.candidates]
