"""Hybrid recall: BM25 over words and KNN over meaning, fused, then given context.

Word candidates come from SQL that carries the whole search scope; meaning candidates from
the in-memory copy of the user's vectors (loaded by SQL with the user in it), filtered there by
the rest of the scope; the hits are then fetched by SQL with the whole scope again. So no other
user's memory ever reaches this module. The two sides run side by side (words on a worker
thread: SQLite and numpy both release the GIL).

Fusion "scores" (the default) adds the BM25 score, divided by the best one, to the cosine
similarity (a negative one counts 0), each weighted; on LoCoMo it beats
reciprocal-rank fusion ("rrf") by far, because RRF throws away how much better the best match
is. A candidate that one side did not return counts 0 on that side; the meaning side returns
more candidates (``meaning_candidates``) because that costs it almost nothing (the scan
reads every vector anyway) and exact similarities for word matches would cost a lookup each.
The threshold applies to the cosine similarity of meaning candidates.

Context: a conversation turn rarely says everything by itself ("yes, last Sunday!" answers the
turn before it), so a message also earns a share of its neighbouring turns' scores, and every
memory a share of the best score in its session (neighbours are looked up for the best
``context_candidates`` only: LoCoMo recall@10 is the same, and the lookups cost half). Weights
were tuned with tests/bench/retrieval.py on LoCoMo; set them to 0 for plain fusion.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from engram.core import bm25
from engram.core.errors import InvalidInput
from engram.core.records import Memory, now_iso, parse_kind
from engram.core.scope import Scope
from engram.core.words import any_of, match_queries, owner_token, phrase, rare_and_common

if TYPE_CHECKING:
    from engram.core.store import MemoryStore

_WORDS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="engram-words")

Mode = Literal["hybrid", "words", "meaning"]
MODES: tuple[str, ...] = ("hybrid", "words", "meaning")
Fusion = Literal["scores", "rrf"]
FUSIONS: tuple[str, ...] = ("scores", "rrf")


@dataclass(frozen=True)
class SearchOptions:
    mode: Mode = "hybrid"
    k: int = 3                       # results returned (MAF default 3)
    threshold: float = 0.0           # minimum cosine similarity for a meaning candidate (and, when
                                     # above 0, no neighbouring turn joins without its own match)
    fusion: Fusion = "scores"
    words_weight: float = 1.0
    meaning_weight: float = 1.0
    rrf_k: int = 60                  # only for fusion "rrf"
    candidates: int = 50             # best word matches taken before fusion
    meaning_candidates: int = 200    # nearest vectors taken before fusion
    kinds: tuple[str, ...] = ()      # empty: every kind
    include_superseded: bool = False
    neighbour_weight: float = 0.3    # share of the previous and next message's score a message earns
    session_weight: float = 0.3      # share of the best score in its session a memory earns
    context_candidates: int = 100    # best fused candidates whose neighbouring turns share their score

    def __post_init__(self):
        if self.mode not in MODES:
            raise InvalidInput(f"unknown search mode {self.mode!r}", hint="use hybrid, words or meaning")
        if self.fusion not in FUSIONS:
            raise InvalidInput(f"unknown fusion {self.fusion!r}", hint="use scores or rrf")
        if self.k < 1:
            raise InvalidInput("k must be at least 1")
        object.__setattr__(self, "kinds", tuple(parse_kind(kind).value for kind in self.kinds))


@dataclass(frozen=True)
class SearchHit:
    memory: Memory
    score: float                      # fused, 1.0 = first on every side that ran
    similarity: float | None = None   # cosine similarity, when the meaning side found it
    words_rank: int | None = None
    meaning_rank: int | None = None


@dataclass
class SearchResult:
    hits: list[SearchHit]
    embed_ms: float = 0.0
    search_ms: float = 0.0
    notes: list[str] = field(default_factory=list)   # e.g. why meaning was not used


def _validity(alias: str = "m") -> tuple[str, list[str]]:
    return f"{alias}.superseded_by IS NULL AND ({alias}.valid_to IS NULL OR {alias}.valid_to > ?)", [now_iso()]


def _filters(scope: Scope, options: SearchOptions) -> tuple[str, list]:
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
        owned = store.db.query_one("SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?)",
                                   (f'owner : "{owner_token(user)}"', documents // 2 + 1))[0]
        known = store.owner_shares[user] = (documents, owned if owned <= documents // 2 else None)
    return known[1]


def words_ranked(store: "MemoryStore", query: str, scope: Scope, options: SearchOptions) -> list[tuple[int, float]]:
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


def hybrid_search(store: "MemoryStore", query: str, scope: Scope, options: SearchOptions) -> SearchResult:
    started = time.perf_counter()
    result = SearchResult(hits=[])
    if not query or not query.strip():
        raise InvalidInput("the search query is empty")
    use_words = options.mode in ("hybrid", "words")
    use_meaning = options.mode in ("hybrid", "meaning")
    if use_meaning and store.vectors is None:
        result.notes.append("no embedding model: searched by words only")
        use_meaning, use_words = False, True
    elif use_meaning and (pending := store.pending_embeddings()):
        result.notes.append(f"{pending} memories are not embedded yet; they are found by words only")
        use_words = True

    similarity: dict[int, float] = {}
    meaning_ids: list[int] = []
    vector = None
    if use_meaning:
        embedding = time.perf_counter()
        vector = store.embedder.embed([query])[0]
        result.embed_ms = (time.perf_counter() - embedding) * 1000
    # Words (SQLite) and meaning (numpy) both release the GIL: on two cores they run side by side.
    side_by_side = use_words and use_meaning and not store.db.in_transaction_here()
    words_future = _WORDS.submit(words_ranked, store, query, scope, options) if side_by_side else None
    if use_meaning:
        for memory_id, distance in store.vectors.nearest(vector, scope, options.kinds, options.meaning_candidates):
            if 1.0 - distance >= options.threshold:
                similarity[memory_id] = 1.0 - distance
                meaning_ids.append(memory_id)
    words = words_future.result() if words_future else words_ranked(store, query, scope, options) if use_words else []
    words_ids = [memory_id for memory_id, _ in words]
    bm25 = dict(words)

    if options.fusion == "rrf":
        fused, best_possible = _rank_fusion(options, (use_words, words_ids), (use_meaning, meaning_ids))
    else:
        fused = _score_fusion(options, bm25 if use_words else {}, similarity if use_meaning else {},
                              words_ids + meaning_ids)
        best_possible = options.words_weight * use_words + options.meaning_weight * use_meaning or 1.0
    if fused and (options.neighbour_weight or options.session_weight):
        fused = with_context(store, fused, scope, options)
        best_possible *= 1 + 2 * options.neighbour_weight + options.session_weight
    ranked = sorted(fused, key=lambda i: (-fused[i], i))

    words_rank = {i: r for r, i in enumerate(words_ids, start=1)}
    meaning_rank = {i: r for r, i in enumerate(meaning_ids, start=1)}
    # Fetch with the scope again and drop superseded ones the vector side could not filter.
    wanted = ranked[: options.k * 2 + 10]
    memories = {m.id: m for m in store.get_many(wanted, scope)}
    for memory_id in wanted:
        memory = memories.get(memory_id)
        if memory is None or (not options.include_superseded and not _is_valid(memory)):
            continue
        result.hits.append(SearchHit(memory, min(1.0, fused[memory_id] / best_possible), similarity.get(memory_id),
                                     words_rank.get(memory_id), meaning_rank.get(memory_id)))
        if len(result.hits) == options.k:
            break
    result.search_ms = (time.perf_counter() - started) * 1000 - result.embed_ms
    return result


def _rank_fusion(options: SearchOptions, *sides: tuple[bool, list[int]]) -> tuple[dict[int, float], float]:
    """Reciprocal-rank fusion of (side ran, ranked ids) pairs, words first; and its best possible score."""
    fused: dict[int, float] = {}
    weights = (options.words_weight, options.meaning_weight)
    for weight, (_, ids) in zip(weights, sides):
        for rank, memory_id in enumerate(ids, start=1):
            fused[memory_id] = fused.get(memory_id, 0.0) + weight / (options.rrf_k + rank)
    return fused, sum(w for w, (ran, _) in zip(weights, sides) if ran) / (options.rrf_k + 1)


def _score_fusion(options: SearchOptions, bm25: dict[int, float], similarity: dict[int, float],
                  candidates: list[int]) -> dict[int, float]:
    """Weighted sum of BM25 over the best BM25 and cosine similarity (a negative one counts 0)."""
    top = max(bm25.values(), default=0.0)
    return {memory_id: options.words_weight * (bm25.get(memory_id, 0.0) / top if top > 0 else 0.0)
            + options.meaning_weight * max(0.0, similarity.get(memory_id, 0.0)) for memory_id in candidates}


def with_context(store: "MemoryStore", fused: dict[int, float], scope: Scope,
                 options: SearchOptions) -> dict[int, float]:
    """Scores after each message takes a share of its neighbouring messages' scores and every
    memory a share of the best score in its session. Neighbours are the previous and next
    message of the same session inside the scope; they may join the candidates, unless a
    similarity threshold is set: then only memories that words or meaning found are returned."""
    ids = sorted(fused, key=lambda i: -fused[i])
    clause, params = scope.sql("n")
    # Neighbours are looked up (two index probes each) for the best candidates only: a weak
    # candidate's share would not lift anything into the results.
    rows = store.db.query(
        "WITH pool(id, rank) AS (SELECT value, key FROM json_each(?))"
        " SELECT m.id, m.application, m.agent, m.user, m.session, m.kind = 'message' AND pool.rank < ?,"
        "  CASE WHEN m.kind = 'message' AND pool.rank < ? THEN"
        "  (SELECT max(n.id) FROM memories n WHERE n.session = m.session AND n.user = m.user"
        f"    AND n.agent = m.agent AND n.application = m.application AND n.kind = 'message' AND n.id < m.id AND {clause})"
        "  END,"
        "  CASE WHEN m.kind = 'message' AND pool.rank < ? THEN"
        "  (SELECT min(n.id) FROM memories n WHERE n.session = m.session AND n.user = m.user"
        f"    AND n.agent = m.agent AND n.application = m.application AND n.kind = 'message' AND n.id > m.id AND {clause})"
        "  END"
        " FROM pool CROSS JOIN memories m ON m.id = pool.id",
        (json.dumps(ids), options.context_candidates, options.context_candidates, *params,
         options.context_candidates, *params))
    session_best: dict[tuple, float] = {}
    for memory_id, *where, _, _, _ in rows:
        if where[3]:
            session_best[tuple(where)] = max(session_best.get(tuple(where), 0.0), fused[memory_id])
    scores = dict(fused)
    for memory_id, *where, is_message, before, after in rows:
        if where[3]:
            scores[memory_id] += options.session_weight * session_best[tuple(where)]
        if is_message and options.neighbour_weight:
            for neighbour in (before, after):
                if neighbour is not None and (neighbour in scores or options.threshold <= 0):
                    scores[neighbour] = scores.get(neighbour, 0.0) + options.neighbour_weight * fused[memory_id]
    return scores


def _is_valid(memory: Memory) -> bool:
    return memory.superseded_by is None and (memory.valid_to is None or memory.valid_to > now_iso())
