"""The word index of a PostgreSQL database: the terms SQLite's FTS5 indexes, kept as 64-bit keys
in postings read from their index alone, and ranked by FTS5's BM25 over each user's own statistics.

The same words as on SQLite: a text goes through ``tokens.index_terms`` (runs by script, CJK
bigrams, Traditional Chinese as Simplified), then through FTS5's own tokenizer (``index.TOKENIZER``:
Porter stemming, case and diacritics folded), run in a SQLite of apsw's in memory. PostgreSQL's
text search parser is not used: it keeps a run of Chinese as one word, depends on the server's
locale, and its snowball stemmer is Porter's second algorithm, not FTS5's first.

Per user, as SQLite's table per user (see index.py): a term is stored as a hash of (user, term)
(blake2b, 64 bits), so the one index over everybody's postings holds each user's under keys of
their own, and a search reads only its user's. BM25's statistics are kept in the same transaction
as the memories: ``word_counts`` holds how many memories hold each key (a term's document
frequency among its user's memories), ``word_users`` each user's number of memories and of tokens.
A memory's row in ``memory_words`` holds its distinct keys, the keys it holds more than once as
often as they repeat, and its length; triggers (PostgreSQL's migration 10) keep a posting for each
of its keys in ``word_postings``, under a primary key (key, memory id) that carries the key's count
in the memory and the memory's length: a search reads a key's postings from that index alone,
without a memory's row (a GIN index of the rows' keys, which this replaced, cost a row read a
posting: twice the time at a million memories of one person). A lone Chinese, Japanese or Korean
character in a query (FTS5's prefix query "花"*) reads a key of its own, stored for every token
the character begins. Two terms of one user sharing a key (about one chance in 4 billion among 100k
distinct terms) would find each other.

Forgetting: this side holds no text, only keys, which tell a word only to someone who guesses the
word and the user. A deleted memory's rows stay in their pages, and their keys in the index's
pages, until VACUUM (autovacuum) removes them; VACUUM frees that space without overwriting
it (PostgreSQL has no secure_delete), and WAL
files, replicas and backups keep old rows until they are recycled. Nothing short of rewriting
the files (VACUUM FULL, REINDEX) and the disk under them erases a row on PostgreSQL, which is why
only keys are stored here.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING, Any, TypeVar
from weakref import WeakKeyDictionary

import apsw

from engram.core.memory.search.words import tokens
from engram.core.memory.search.words.bm25 import filters
from engram.core.memory.search.words.index import REINDEX_BATCH, TOKENIZER
from engram.core.memory.search.words.okapi import B, K1, idf_sql
from engram.core.memory.search.words.tokens import CJK, index_terms, is_prefix, match_terms, query_terms

if TYPE_CHECKING:
    from engram.core.memory.scope import Scope
    from engram.core.memory.search.options import SearchOptions
    from engram.core.storage.postgres import PostgresDatabase

_CJK_CHARACTER = re.compile(f"[{CJK}]")
_tokenizer: Any = None
_tokenizer_made = threading.Lock()


def fts5_tokens(text: str, mode: int = apsw.FTS5_TOKENIZE_DOCUMENT) -> list[str]:
    """The tokens SQLite's FTS5 makes of ``text`` with the word index's tokenizer."""
    global _tokenizer
    with _tokenizer_made:
        if _tokenizer is None:
            name, *arguments = TOKENIZER.split()
            _tokenizer = apsw.Connection(":memory:").fts5_tokenizer(name, arguments)
    return _tokenizer(text.encode("utf-8"), mode, None, include_offsets=False, include_colocated=False)


def key(user: str, token: str) -> int:
    """The user's key of a token (a signed 64-bit integer, as PostgreSQL's BIGINT)."""
    digest = hashlib.blake2b(f"{user}\x00{token}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def _prefix(token: str) -> str | None:
    """The prefix query's token that finds ``token`` (its first character followed by ``*``, a
    character no token holds), when it begins with a Chinese, Japanese or Korean character."""
    return token[0] + "*" if _CJK_CHARACTER.match(token) else None


def document(user: str, text: str) -> tuple[list[int], list[int] | None, int]:
    """What a memory's row holds: its distinct keys (its tokens', and a prefix key for each token
    that begins with a CJK character), the keys it holds more than once, each as many times as it
    repeats (None: none), and its length in tokens, as FTS5 counts it."""
    tokens = fts5_tokens(index_terms(text))
    prefixes = [p for t in tokens if (p := _prefix(t)) is not None]
    counts = Counter(key(user, t) for t in tokens + prefixes)
    repeats = [k for k, n in counts.items() for _ in range(n - 1)]
    return list(counts), repeats or None, len(tokens)


def query_keys(user: str, term: str) -> list[int]:
    """The keys a query term reads: a phrase of FTS5's, one key; a lone CJK character, its prefix
    key. A term FTS5 cuts in two (a letter its tables do not know) reads each part's key."""
    tokens = fts5_tokens(term, apsw.FTS5_TOKENIZE_QUERY)
    if is_prefix(term):
        return [key(user, p) for t in tokens if (p := _prefix(t)) is not None]
    return [key(user, t) for t in tokens]


# The user's statistics (u), the scored keys their memories hold with each one's count and idf (q),
# and the memories holding any of the rare keys (the third parameter) by BM25 over the scored keys:
# the rare keys' postings (held), then the other scored keys' postings of those memories alone
# (also: a common key's are many, and most are of memories no rare key found; the index is read at
# those memories' ids, which both lists keep in order), each with its count (tf) and the memory's
# length, from the postings' index alone, unless a key is held by more memories than the fourth
# parameter says (then nothing is scored: a first guess that every term is rare is wrong, and would
# cost). One statement, so one moment: the scores are of the statistics read beside them. (In double
# precision throughout: 30% less time than numeric constants.)
_SCORED = """
WITH u AS (SELECT documents, tokens FROM word_users WHERE user = ?),
q AS (SELECT c.key, c.documents, {idf} AS idf FROM u CROSS JOIN word_counts c WHERE c.key = ANY(?::bigint[])),
r AS (SELECT ?::bigint[] AS keys),
held AS (
    SELECT p.key, p.memory_id, p.tf, p.length FROM q JOIN word_postings p ON p.key = q.key CROSS JOIN r
    WHERE q.key = ANY(r.keys) AND (SELECT coalesce(max(documents), 0) FROM q) <= ?),
also AS (
    SELECT p.key, p.memory_id, p.tf, p.length FROM word_postings p
    WHERE p.key = ANY(ARRAY(SELECT q.key FROM q CROSS JOIN r WHERE q.key <> ALL(r.keys) ORDER BY 1))
    AND p.memory_id = ANY(ARRAY(SELECT DISTINCT memory_id FROM held ORDER BY 1))),
scored AS (
    SELECT h.memory_id, sum(q.idf * h.tf * ({k1}::float8 + 1) / (h.tf + {k1}::float8 * (1 - {b}::float8
        + {b}::float8 * h.length / (SELECT tokens::float8 / nullif(documents, 0) FROM u)))) AS score
    FROM (SELECT * FROM held UNION ALL SELECT * FROM also) h JOIN q ON q.key = h.key
    GROUP BY h.memory_id)
""".format(idf=idf_sql("u.documents", "c.documents"), k1=K1, b=B)
# The statistics (rows without a memory: the user's, and a scored key's count on each), then the
# ``2k`` best matches of all that lie inside the scope, each with how many the best held (as
# bm25.py's on SQLite: only those few are looked up in ``memories``). Of equal scores the first
# memory comes first, as SQLite's sort keeps FTS5's order.
_BEST_OF_FEW = _SCORED + """, best AS (SELECT memory_id, score FROM scored ORDER BY score DESC, memory_id LIMIT ?)
SELECT NULL::bigint, NULL::float8, (SELECT count(*) FROM best), u.documents, u.tokens, q.key, q.documents
FROM u LEFT JOIN q ON true
UNION ALL
SELECT b.memory_id, b.score, NULL, NULL, NULL, NULL, NULL FROM best b JOIN memories m ON m.id = b.memory_id
WHERE {clause} ORDER BY 2 DESC NULLS FIRST, 1"""
_BEST_OF_ALL = _SCORED + """SELECT s.memory_id, s.score FROM scored s JOIN memories m ON m.id = s.memory_id
WHERE {clause} ORDER BY s.score DESC, s.memory_id LIMIT ?"""
_STATISTICS = ("SELECT u.documents, u.tokens, c.key, c.documents FROM word_users u"
               " LEFT JOIN word_counts c ON c.key = ANY(?::bigint[]) WHERE u.user = ?")

_ANY_COUNT = 2**63 - 1   # the last parameter of _SCORED where every count may be scored
Statistics = tuple[int, int, dict[int, int]]   # a user's memories and tokens, and how many memories hold each key
T = TypeVar("T")


@dataclass(frozen=True)
class _Read:
    """The statistics of ``keys`` a search read (or is reading) of ``user`` at the change stamp ``stamp``."""
    stamp: tuple[int, int]
    user: str
    keys: frozenset[int]
    statistics: Future


class PostgresWords:
    def __init__(self) -> None:
        self._reads: WeakKeyDictionary[PostgresDatabase, _Read] = WeakKeyDictionary()   # each database's latest
        self._reading = threading.Lock()

    def index(self, conn: Any, rows: Iterable[tuple[int, str, str]]) -> None:
        """Each user's statistics row is written first (users in order): it holds every writer
        of that user in turn until commit, so their counts never wait on each other in a cycle."""
        for user, group in groupby(sorted(rows, key=lambda row: (row[1], row[0])), key=lambda row: row[1]):
            documents = [(memory_id, *document(user, text)) for memory_id, _, text in group]
            conn.execute("INSERT INTO word_users(user, documents, tokens) VALUES (?, ?, ?) ON CONFLICT (user)"
                         " DO UPDATE SET documents = word_users.documents + excluded.documents,"
                         " tokens = word_users.tokens + excluded.tokens",
                         (user, len(documents), sum(length for *_, length in documents)))
            conn.executemany("INSERT INTO memory_words(memory_id, keys, repeats, length) VALUES (?, ?, ?, ?)",
                             documents)
            self._count(conn, [k for _, keys, _, _ in documents for k in keys], +1)

    def unindex(self, conn: Any, user: str, memory_ids: Iterable[int]) -> None:
        gone = conn.execute("DELETE FROM memory_words WHERE memory_id = ANY(?::bigint[]) RETURNING keys, length",
                            (list(memory_ids),)).fetchall()
        if not gone:
            return
        conn.execute("UPDATE word_users SET documents = documents - ?, tokens = tokens - ? WHERE user = ?",
                     (len(gone), sum(length for _, length in gone), user))
        self._count(conn, [k for keys, _ in gone for k in keys], -1)

    @staticmethod
    def _count(conn: Any, keys: list[int], sign: int) -> None:
        """Add ``sign`` to the document count of each key, once per time it is listed (in key order:
        one order for every writer); a count that reaches 0 goes."""
        counts = sorted(Counter(keys).items())
        if not counts:
            return
        conn.execute("INSERT INTO word_counts(key, documents) SELECT * FROM unnest(?::bigint[], ?::integer[])"
                     " ON CONFLICT (key) DO UPDATE SET documents = word_counts.documents + excluded.documents",
                     ([k for k, _ in counts], [sign * n for _, n in counts]))
        if sign < 0:
            conn.execute("DELETE FROM word_counts WHERE key = ANY(?::bigint[]) AND documents <= 0",
                         ([k for k, _ in counts],))

    def ranked(self, db: "PostgresDatabase", query: str, scope: "Scope",
               options: "SearchOptions") -> list[tuple[int, float]]:
        """As bm25.words_ranked does on SQLite, with the same terms and scores; the scope is in the
        SQL, and so are the user's keys.

        ``match_terms``' pairs are one search here: the memories holding a rare term, each scored
        by every term kept (FTS5 scores only the terms of its MATCH expression, hence two there).
        A memory holding a common term too is the second pair's, with that score; one holding
        none is the first pair's, where the common terms' share is 0 alike. And since no score
        falls below the pair's, the best ``k`` of the one search are the best of the two.

        The first statement reads the statistics and, beside them, the matches as if every term
        the user's memories hold were rare and kept: the search itself whenever ``match_terms``
        agrees, which it does unless a term is common (held by more than 1,000 memories, which
        the statement sees and then scores nothing) or the query has many terms; else a second
        statement searches with ``match_terms``' terms.
        """
        user = scope.user
        keys = {term: query_keys(user, term) for term in query_terms(query)}
        every = sorted({k for ks in keys.values() for k in ks})
        clause, params = filters(scope, options)
        rare_at_most = tokens.COMMON_AT_LEAST if len(keys) <= tokens.MAX_QUERY_TERMS else -1
        (documents, lengths, held), (found, matches) = self._read(db, user, every, lambda: _apart(db.query(
            _BEST_OF_FEW.format(clause=clause), (user, every, every, rare_at_most, 2 * options.candidates, *params))))
        if not lengths:
            return []

        def documents_with(term: str, at_most: int) -> int:
            count = max((held.get(k, 0) for k in keys[term]), default=0)
            return count if at_most < 0 else min(count, at_most)

        pairs = match_terms(query, documents_with, documents)
        if not pairs:
            return []
        rare = {k for term in pairs[0][0] for k in keys[term]}
        kept = sorted(rare | {k for term in pairs[-1][1] for k in keys[term]})
        if not (held.keys() <= rare and max(held.values(), default=0) <= rare_at_most):   # not the first guess
            _, (found, matches) = _apart(db.query(_BEST_OF_FEW.format(clause=clause),
                                                  (user, kept, sorted(rare), _ANY_COUNT, 2 * options.candidates, *params)))
        if len(matches) < options.candidates and found >= 2 * options.candidates:   # the best lie outside the scope
            matches = db.query(_BEST_OF_ALL.format(clause=clause),
                               (user, kept, sorted(rare), _ANY_COUNT, *params, options.candidates))
        return sorted(matches, key=lambda item: (-item[1], item[0]))[:options.candidates]

    def holding(self, db: "PostgresDatabase", user: str, terms: list[str],
                at_most: Callable[[int], int]) -> tuple[int, list[int]]:
        """From the statistics the search read already when it can (see ``_read``)."""
        keys = {term: query_keys(user, term) for term in terms}
        every = sorted({k for ks in keys.values() for k in ks})
        documents, _, held = self._read_before(db, user, every) or self._read(
            db, user, every, lambda: (_statistics(db.query(_STATISTICS, (every, user))), None))[0]
        limit = at_most(documents)
        return documents, [min(max((held.get(k, 0) for k in keys[t]), default=0), limit) for t in terms]

    def _read(self, db: "PostgresDatabase", user: str, keys: list[int],
              statement: Callable[[], tuple[Statistics, T]]) -> tuple[Statistics, T]:
        """What ``statement`` read: the user's statistics of ``keys``, kept for what else the search
        asks (coverage's ``holding``, at the merge; another search of the same words may be reading
        them still) until the next write that this Engram makes or hears of: the change stamp, read
        before, says whether one came between. Not kept inside a transaction, whose writes may never
        commit."""
        if db.in_transaction_here():
            return statement()
        read = _Read(db.change_stamp(), user, frozenset(keys), Future())
        with self._reading:
            self._reads[db] = read
        try:
            statistics, rest = statement()
        except BaseException as e:
            read.statistics.set_exception(e)
            raise
        read.statistics.set_result(statistics)
        return statistics, rest

    def _read_before(self, db: "PostgresDatabase", user: str, keys: list[int]) -> Statistics | None:
        """The statistics of ``keys`` read since the last write (waiting for a read under way),
        or None."""
        with self._reading:
            read = self._reads.get(db)
        if read is None or read.user != user or not read.keys >= set(keys) or read.stamp != db.change_stamp():
            return None
        try:
            return read.statistics.result()
        except Exception:   # that search failed, and says why; this one reads for itself
            return None

    def purge(self, conn: Any, user: str) -> None:
        """Nothing to merge: a memory's keys go with its row (see the module's docstring for what
        PostgreSQL keeps of a deleted row, and why no text is stored here)."""

    def warm(self, db: "PostgresDatabase", user: str) -> None:
        """Nothing to make: every memory is indexed as it is stored."""

    def left_to_reindex(self, db: "PostgresDatabase") -> int:
        """How many memories have no words yet (rows copied into ``memories`` by other means than
        the store, e.g. moved from another database)."""
        return db.query(_UNINDEXED.format(columns="count(*)", rest=""))[0][0]

    def reindex(self, db: "PostgresDatabase", progress: Callable[[int, int], None] | None = None,
                batch: int = REINDEX_BATCH) -> int:
        """Index the memories that have no words yet, a batch per transaction (an interrupted run
        goes on with what is left); returns how many. ``progress(done, total)`` after each batch."""
        total, done = self.left_to_reindex(db), 0
        while True:
            with db.transaction() as conn:
                rows = conn.execute(_UNINDEXED.format(columns="m.id, m.user, m.text", rest=" ORDER BY m.id LIMIT ?"),
                                    (batch,)).fetchall()
                self.index(conn, rows)
            done += len(rows)
            if progress and rows:
                progress(done, max(total, done))
            if len(rows) < batch:
                if done:   # what autovacuum would do in a minute or more: the planner's statistics of
                    # what many rows changed, and the postings' pages marked all visible, which a
                    # search needs to read them from the index alone
                    with db.session() as raw:
                        raw.execute("VACUUM (ANALYZE) word_postings")
                    db.execute("ANALYZE memory_words, word_counts, word_users")
                return done


def _statistics(rows: list[tuple]) -> Statistics:
    """The statistics in rows of (the user's memories, their tokens, a key, its count)."""
    if not rows:
        return 0, 0, {}
    return rows[0][0], rows[0][1], {k: n for *_, k, n in rows if k is not None}


def _apart(rows: list[tuple]) -> tuple[Statistics, tuple[int, list[tuple[int, float]]]]:
    """What the rows of ``_BEST_OF_FEW`` hold: the statistics, how many matches the best of all
    held, and those inside the scope as (memory id, score), best first."""
    statistics = [row for row in rows if row[0] is None]
    return (_statistics([row[3:] for row in statistics]),
            (statistics[0][2] if statistics else 0, [row[:2] for row in rows if row[0] is not None]))


_UNINDEXED = ("SELECT {columns} FROM memories m WHERE NOT EXISTS"
              " (SELECT 1 FROM memory_words w WHERE w.memory_id = m.id){rest}")

WORDS = PostgresWords()
