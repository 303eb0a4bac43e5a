"""The word index of a PostgreSQL database: the terms SQLite's FTS5 indexes, kept as 64-bit keys
in one table under a GIN index, and ranked by FTS5's BM25 over each user's own statistics.

The same words as on SQLite: a text goes through ``tokens.index_terms`` (runs by script, CJK
bigrams, Traditional Chinese as Simplified), then through FTS5's own tokenizer (``index.TOKENIZER``:
Porter stemming, case and diacritics folded), run in a SQLite of apsw's in memory. PostgreSQL's
text search parser is not used: it keeps a run of Chinese as one word, depends on the server's
locale, and its snowball stemmer is Porter's second algorithm, not FTS5's first.

Per user, as SQLite's table per user (see index.py): a term is stored as a hash of (user, term)
(blake2b, 64 bits), so the one GIN index over everybody's memories holds each user's postings under
keys of their own, and a search reads only its user's. (A two-column GIN index (user, terms), as
btree_gin allows, keeps each column's keys apart and intersects them: it would read every user's
postings of each term, and every posting of the user.) BM25's statistics are kept in the same
transaction as the memories: ``word_counts`` holds how many memories hold each key (a term's
document frequency among its user's memories), ``word_users`` each user's number of memories and
of tokens. A memory's row holds its distinct keys (indexed), the keys it holds more than once as
often as they repeat, and its length: a search scores each memory a query key finds from that
key's own index lookup, reading only the length and the repeats of the row (twice as fast at the
95th percentile as counting the key in a full array). A lone Chinese, Japanese or Korean
character in a query (FTS5's prefix query "花"*) reads a key of its own, stored for every token
the character begins. Two terms of one user sharing a key (about one chance in 4 billion among 100k
distinct terms) would find each other.

Forgetting: this side holds no text, only keys, which tell a word only to someone who guesses the
word and the user. A deleted memory's row stays in its page, and its key in the GIN index's
posting lists, until VACUUM (autovacuum) removes them; VACUUM frees that space without overwriting
it (PostgreSQL has no secure_delete), GIN keeps keys whose posting lists became empty, and WAL
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
from itertools import groupby
from typing import TYPE_CHECKING, Any

import apsw

from engram.core.memory.search.words.bm25 import filters
from engram.core.memory.search.words.index import REINDEX_BATCH, TOKENIZER
from engram.core.memory.search.words.okapi import B, K1, idf
from engram.core.memory.search.words.tokens import CJK, index_terms, is_prefix, match_terms, query_terms

if TYPE_CHECKING:
    from engram.core.memory.scope import Scope
    from engram.core.memory.search.fusion import SearchOptions
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


# The memories holding any of the first keys (and any of the second, when given) by BM25 over the
# scored keys and their idf: for each scored key, the GIN index finds the memories that hold it
# among those, and its count in each is 1 and its repeats.
_SCORED = """
WITH q(key, idf) AS (SELECT * FROM unnest(?::bigint[], ?::float8[])),
scored AS (
    SELECT w.memory_id, sum(q.idf * w.tf * ({k1} + 1) / (w.tf + {k1} * (1 - {b} + {b} * w.length / ?))) AS score
    FROM q CROSS JOIN LATERAL (
        SELECT memory_id, length, 1 + coalesce(cardinality(array_positions(repeats, q.key)), 0) AS tf
        FROM memory_words WHERE keys @> ARRAY[q.key] AND keys && ?::bigint[] {also}) w
    GROUP BY w.memory_id)
"""


class PostgresWords:
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
        SQL, and so are the user's keys."""
        user = scope.user
        keys = {term: query_keys(user, term) for term in query_terms(query)}
        documents, tokens, held = self._statistics(db, user, keys)
        if not tokens:
            return []

        def documents_with(term: str, at_most: int) -> int:
            found = max((held.get(k, 0) for k in keys[term]), default=0)
            return found if at_most < 0 else min(found, at_most)

        clause, params = filters(scope, options)
        best: dict[int, float] = {}
        few_suffice = True
        for rare, others in match_terms(query, documents_with, documents):
            scored = sorted({k for term in rare + others for k in keys[term] if k in held})
            matching = [[k for term in side for k in keys[term]] for side in (rare, others) if side]
            sql = _SCORED.format(k1=K1, b=B, also="AND keys && ?::bigint[]" if others else "")
            arguments = [scored, [idf(documents, held[k]) for k in scored], tokens / documents, *matching]
            matches = self._best_of_few(db, sql, arguments, clause, params, options.candidates) if few_suffice else None
            if matches is None:
                few_suffice = False
                matches = db.query(f"{sql} SELECT s.memory_id, s.score FROM scored s JOIN memories m"
                                   f" ON m.id = s.memory_id WHERE {clause} ORDER BY s.score DESC, s.memory_id LIMIT ?",
                                   (*arguments, *params, options.candidates))
            for memory_id, score in matches:
                best[memory_id] = max(score, best.get(memory_id, score))
        return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:options.candidates]

    @staticmethod
    def _statistics(db: "PostgresDatabase", user: str, keys: dict[str, list[int]]) -> tuple[int, int, dict[int, int]]:
        """The user's memories and terms, and how many memories hold each key: one statement, so
        one moment (a count read after a commit the total missed could exceed it)."""
        rows = db.query("SELECT u.documents, u.tokens, c.key, c.documents FROM word_users u"
                        " LEFT JOIN word_counts c ON c.key = ANY(?::bigint[]) WHERE u.user = ?",
                        ([k for ks in keys.values() for k in ks], user))
        if not rows:
            return 0, 0, {}
        return rows[0][0], rows[0][1], {k: n for *_, k, n in rows if k is not None}

    def holding(self, db: "PostgresDatabase", user: str, terms: list[str],
                at_most: Callable[[int], int]) -> tuple[int, list[int]]:
        keys = {term: query_keys(user, term) for term in terms}
        documents, _, held = self._statistics(db, user, keys)
        limit = at_most(documents)
        return documents, [min(max((held.get(k, 0) for k in keys[t]), default=0), limit) for t in terms]

    @staticmethod
    def _best_of_few(db: "PostgresDatabase", sql: str, arguments: list, clause: str, params: list,
                     k: int) -> list[tuple[int, float]] | None:
        """The ``k`` best matches inside the scope when the ``2k`` best of all hold them, else None
        (as bm25.py's on SQLite): only those few are looked up in ``memories``."""
        few = 2 * k
        rows = db.query(f"{sql}, best AS (SELECT memory_id, score FROM scored ORDER BY score DESC LIMIT ?)"
                        " SELECT b.memory_id, b.score, (SELECT count(*) FROM best) FROM best b"
                        f" JOIN memories m ON m.id = b.memory_id WHERE {clause} ORDER BY b.score DESC",
                        (*arguments, few, *params))
        if len(rows) >= k or (rows and rows[0][2] < few):
            return [(memory_id, score) for memory_id, score, _ in rows[:k]]
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
                if done:   # the planner's statistics of what many rows changed (autovacuum would, in a minute)
                    db.execute("ANALYZE memory_words, word_counts, word_users")
                return done


_UNINDEXED = ("SELECT {columns} FROM memories m WHERE NOT EXISTS"
              " (SELECT 1 FROM memory_words w WHERE w.memory_id = m.id){rest}")

WORDS = PostgresWords()
