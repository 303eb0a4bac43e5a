"""The searcher: a search is handed what it reads, the database and one embedding space.

An embedding space is a model and the index of its vectors. The store hands over the one it
has when a search begins, so a switch of model meanwhile (``MemoryStore.use_embedder``) cannot
give a search one model's query and another model's vectors. Words are ranked on the searcher's
worker threads while meaning is scanned: SQLite and numpy both release the GIL, so on two cores
the two sides run side by side.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from engram.core.errors import InvalidInput
from engram.core.memory.records import Memory
from engram.core.memory.scope import Scope
from engram.core.memory.search.coverage import ideal_bm25
from engram.core.memory.search.fusion import rank, rank_fusion, score_fusion, with_context, with_keys
from engram.core.memory.search.neighbourhood import similarities
from engram.core.memory.search.options import SearchHit, SearchOptions, SearchResult
from engram.core.memory.search.reranking import reranked
from engram.core.memory.search.timeframe import in_timeframe
from engram.core.memory.search.words import for_database
from engram.core.memory.search.vectors.index import VectorIndex
from engram.core.models.embeddings import Embedder
from engram.core.models.reranker import Reranker
from engram.core.storage.database import Database


@dataclass(frozen=True)
class EmbeddingSpace:
    """A model and its vectors, searched together; ``pending`` counts the memories it lacks."""
    embedder: Embedder
    vectors: VectorIndex
    pending: Callable[[], int]


class Searcher:
    """Hybrid search over one database and its word index; ``fetch`` reads memories by id inside a scope."""

    def __init__(self, db: Database, fetch: Callable[[Sequence[int], Scope], list[Memory]]):
        self.db = db
        self.words = for_database(db)
        self.fetch = fetch
        self.words_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="engram-words")

    def search(self, query: str, scope: Scope, options: SearchOptions, space: EmbeddingSpace | None,
               reranker: Reranker | None = None) -> SearchResult:
        """``space`` None: by words only; ``reranker``: the best candidates reordered by it."""
        return hybrid_search(self, space, query, scope, options, reranker)


def hybrid_search(searcher: "Searcher", space: "EmbeddingSpace | None", query: str, scope: Scope,
                  options: SearchOptions, reranker: "Reranker | None" = None) -> SearchResult:
    started = time.perf_counter()
    result = SearchResult(hits=[])
    if not query or not query.strip():
        raise InvalidInput("the search query is empty")
    use_words = options.mode in ("hybrid", "words")
    use_meaning = options.mode in ("hybrid", "meaning")
    if use_meaning and space is None:
        result.notes.append("no embedding model: searched by words only")
        use_meaning, use_words = False, True
    elif use_meaning and (pending := space.pending()):
        result.notes.append(f"{pending} memories are not embedded yet; they are found by words only")
        use_words = True

    similarity: dict[int, float] = {}
    meaning_ids: list[int] = []
    vector = None
    if use_meaning:
        embedding = time.perf_counter()
        vector = space.embedder.embed_query(query)
        result.embed_ms = (time.perf_counter() - embedding) * 1000
    # Words (SQLite) and meaning (numpy) both release the GIL: on two cores they run side by side.
    side_by_side = use_words and use_meaning and not searcher.db.in_transaction_here()
    words_future = (searcher.words_pool.submit(searcher.words.ranked, searcher.db, query, scope, options)
                    if side_by_side else None)
    if use_meaning:
        ids, vectors = space.vectors.neighbourhood(vector, scope, options.kinds, options.meaning_candidates)
        similar = similarities(vectors, vector, space.embedder.unrelated_similarity, options.centre_meaning)
        for at in np.argsort(-similar, kind="stable"):
            if similar[at] >= options.threshold:
                similarity[int(ids[at])] = float(similar[at])
                meaning_ids.append(int(ids[at]))
    words = (words_future.result() if words_future
             else searcher.words.ranked(searcher.db, query, scope, options) if use_words else [])
    # Only the balance of the two sides needs the query's ideal word score: from the term counts
    # the words side read (each backend keeps them until the next write; on SQLite, counting them
    # again beside the words side waited for the one connection).
    covering = use_words and use_meaning and options.fusion == "scores" and options.coverage_weight > 0
    ideal = ideal_bm25(searcher.words, searcher.db, query, scope.user, options.absent_weight) if covering else 0.0
    words_ids = [memory_id for memory_id, _ in words]
    bm25 = dict(words)

    crowd = 0.0   # the score every candidate has (in the fused scores' unit)
    if options.fusion == "rrf":
        fused, best_possible = rank_fusion(options, (use_words, words_ids), (use_meaning, meaning_ids))
    else:
        if use_meaning and similarity:
            crowd = options.meaning_weight * max(0.0, statistics.median(similarity.values()))
        fused = score_fusion(options, bm25 if use_words else {}, similarity if use_meaning else {},
                              words_ids + meaning_ids, options.coverage_weight * ideal)
        best_possible = options.words_weight * use_words + options.meaning_weight * use_meaning or 1.0
    if fused and options.key_weight:
        fused = with_keys(searcher.db, fused, options)
    if fused and (options.neighbour_weight or options.answer_weight or options.session_weight):
        fused = with_context(searcher.db, fused, scope, options, crowd)
        best_possible *= 1 + 2 * options.neighbour_weight + options.session_weight   # an answer stays below
    if fused:
        fused = in_timeframe(searcher.db, rank(searcher.db, fused, options), query, options)
    ranked = sorted(fused, key=lambda i: (-fused[i], i))

    words_rank = {i: r for r, i in enumerate(words_ids, start=1)}
    meaning_rank = {i: r for r, i in enumerate(meaning_ids, start=1)}
    # Fetch with the scope again (rank already left out what history alone may show).
    reading = max(options.rerank_candidates, options.k) if reranker is not None and options.rerank_candidates else 0
    wanted = ranked[: max(options.k * 2 + 10, reading)]
    memories = {m.id: m for m in searcher.fetch(wanted, scope)}
    found = [memories[memory_id] for memory_id in wanted if memory_id in memories]
    rerank_score: dict[int, float] = {}
    if reading and found and reranker is not None:
        reranking = time.perf_counter()
        found, rerank_score = reranked(reranker, query, found, reading)
        result.reranker, result.rerank_ms = reranker.name, (time.perf_counter() - reranking) * 1000
    for memory in found[: options.k]:
        memory_id = memory.id
        score = rerank_score.get(memory_id, min(1.0, fused[memory_id] / best_possible))
        result.hits.append(SearchHit(memory, score, similarity.get(memory_id), words_rank.get(memory_id),
                                     meaning_rank.get(memory_id), rerank_score.get(memory_id)))
    result.search_ms = (time.perf_counter() - started) * 1000 - result.embed_ms - result.rerank_ms
    return result
