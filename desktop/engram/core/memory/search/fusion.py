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
The threshold applies to the similarity of meaning candidates. Similarity is cosine measured
from where the model puts unrelated texts (``Embedder.unrelated_similarity``: 0 for MiniLM, whose
cosines are then unchanged, 0.75 for e5), so thresholds and weights mean the same for every model.

Context: a conversation turn rarely says everything by itself ("yes, last Sunday!" answers the
turn before it), so a message also earns a share of its neighbouring turns' scores, and every
memory a share of the best score in its session (neighbours are looked up for the best
``context_candidates`` only: LoCoMo recall@10 is the same, and the lookups cost half). Weights
were tuned with tests/bench/retrieval.py on LoCoMo; set them to 0 for plain fusion. The shares
are of the score above the crowd (the meaning candidates' median similarity): a multilingual
model finds every message of a language somewhat similar (e5: ~0.45 for any two Chinese chat
lines), and full shares of that made a long session of unrelated chat outrank the one message
that answers the question when it was said in a session of its own (dev zero-overlap cases in
the top 3: 8 of 24 as by meaning alone, were 3 with the Chinese function words; LoCoMo -0.003).
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from engram.core.models.embeddings import relatedness
from engram.core.errors import InvalidInput
from engram.core.memory.records import Memory, now_iso, parse_kind
from engram.core.memory.scope import Scope
from engram.core.memory.search.words.bm25 import words_ranked

if TYPE_CHECKING:
    from engram.core.memory.search.searcher import EmbeddingSpace, Searcher
    from engram.core.storage.database import Database

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
    similarity: float | None = None   # when the meaning side found it: cosine similarity measured from
                                      # the model's unrelated point (embeddings.relatedness)
    words_rank: int | None = None
    meaning_rank: int | None = None


@dataclass
class SearchResult:
    hits: list[SearchHit]
    embed_ms: float = 0.0
    search_ms: float = 0.0
    notes: list[str] = field(default_factory=list)   # e.g. why meaning was not used


def hybrid_search(searcher: "Searcher", space: "EmbeddingSpace | None", query: str, scope: Scope,
                  options: SearchOptions) -> SearchResult:
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
    words_future = (searcher.words_pool.submit(words_ranked, searcher.db, query, scope, options)
                    if side_by_side else None)
    if use_meaning:
        unrelated = space.embedder.unrelated_similarity
        for memory_id, distance in space.vectors.nearest(vector, scope, options.kinds, options.meaning_candidates):
            if (similar := relatedness(1.0 - distance, unrelated)) >= options.threshold:
                similarity[memory_id] = similar
                meaning_ids.append(memory_id)
    words = (words_future.result() if words_future
             else words_ranked(searcher.db, query, scope, options) if use_words else [])
    words_ids = [memory_id for memory_id, _ in words]
    bm25 = dict(words)

    crowd = 0.0   # the score every candidate has (in the fused scores' unit)
    if options.fusion == "rrf":
        fused, best_possible = _rank_fusion(options, (use_words, words_ids), (use_meaning, meaning_ids))
    else:
        if use_meaning and similarity:
            crowd = options.meaning_weight * max(0.0, statistics.median(similarity.values()))
        fused = _score_fusion(options, bm25 if use_words else {}, similarity if use_meaning else {},
                              words_ids + meaning_ids)
        best_possible = options.words_weight * use_words + options.meaning_weight * use_meaning or 1.0
    if fused and (options.neighbour_weight or options.session_weight):
        fused = with_context(searcher.db, fused, scope, options, crowd)
        best_possible *= 1 + 2 * options.neighbour_weight + options.session_weight
    ranked = sorted(fused, key=lambda i: (-fused[i], i))

    words_rank = {i: r for r, i in enumerate(words_ids, start=1)}
    meaning_rank = {i: r for r, i in enumerate(meaning_ids, start=1)}
    # Fetch with the scope again and drop superseded ones the vector side could not filter.
    wanted = ranked[: options.k * 2 + 10]
    memories = {m.id: m for m in searcher.fetch(wanted, scope)}
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


def with_context(db: "Database", fused: dict[int, float], scope: Scope,
                 options: SearchOptions, crowd: float = 0.0) -> dict[int, float]:
    """Scores after each message takes a share of its neighbouring messages' scores and every
    memory a share of the best score in its session: shares of the part of a score above
    ``crowd``. Neighbours are the previous and next message of the same session inside the scope;
    they may join the candidates, unless a similarity threshold is set: then only memories that
    words or meaning found are returned."""
    ids = sorted(fused, key=lambda i: -fused[i])
    clause, params = scope.sql("n")
    # Neighbours are looked up (two index probes each) for the best candidates only: a weak
    # candidate's share would not lift anything into the results.
    def neighbour(nearest: str, side: str) -> str:
        return (f" CASE WHEN m.kind = 'message' AND pool.rank < ? THEN (SELECT {nearest}(n.id) FROM memories n"
                " WHERE n.session = m.session AND n.user = m.user AND n.agent = m.agent"
                f" AND n.application = m.application AND n.kind = 'message' AND n.id {side} m.id AND {clause}) END")

    rows = db.query(
        "WITH pool(id, rank) AS (SELECT value, key FROM json_each(?))"
        " SELECT m.id, m.application, m.agent, m.user, m.session, m.kind = 'message',"
        f"{neighbour('max', '<')}, {neighbour('min', '>')}"
        " FROM pool CROSS JOIN memories m ON m.id = pool.id",
        (json.dumps(ids), options.context_candidates, *params, options.context_candidates, *params))
    evidence = {memory_id: max(0.0, score - crowd) for memory_id, score in fused.items()}
    session_best: dict[tuple, float] = {}
    for memory_id, *where, _, _, _ in rows:
        if where[3]:
            session_best[tuple(where)] = max(session_best.get(tuple(where), 0.0), evidence[memory_id])
    scores = dict(fused)
    for memory_id, *where, is_message, before, after in rows:
        if where[3]:
            scores[memory_id] += options.session_weight * session_best[tuple(where)]
        if is_message and options.neighbour_weight:
            for neighbour in (before, after):
                if neighbour is not None and (neighbour in scores or options.threshold <= 0):
                    scores[neighbour] = scores.get(neighbour, 0.0) + options.neighbour_weight * evidence[memory_id]
    return scores


def _is_valid(memory: Memory) -> bool:
    return memory.superseded_by is None and (memory.valid_to is None or memory.valid_to > now_iso())
