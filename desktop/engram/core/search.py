"""Hybrid recall: BM25 over words and KNN over meaning, fused by reciprocal rank.

Both candidate lists are produced by SQL that already carries the search scope, so no row
outside the scope ever reaches this module. Fusion (RRF) needs no score calibration between
BM25 and cosine distances; the threshold applies to cosine similarity of meaning candidates.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from engram.core.errors import InvalidInput
from engram.core.records import Memory, now_iso, parse_kind
from engram.core.scope import Scope
from engram.core.words import match_query

if TYPE_CHECKING:
    from engram.core.store import MemoryStore

Mode = Literal["hybrid", "words", "meaning"]
MODES: tuple[str, ...] = ("hybrid", "words", "meaning")


@dataclass(frozen=True)
class SearchOptions:
    mode: Mode = "hybrid"
    k: int = 3                       # results returned (MAF default 3)
    threshold: float = 0.0           # minimum cosine similarity for a meaning candidate
    words_weight: float = 1.0
    meaning_weight: float = 1.0
    rrf_k: int = 60
    candidates: int = 50             # taken from each side before fusion
    kinds: tuple[str, ...] = ()      # empty: every kind
    include_superseded: bool = False

    def __post_init__(self):
        if self.mode not in MODES:
            raise InvalidInput(f"unknown search mode {self.mode!r}", hint="use hybrid, words or meaning")
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


def words_candidates(store: "MemoryStore", query: str, scope: Scope, options: SearchOptions) -> list[int]:
    expression = match_query(query)
    if expression is None:
        return []
    clause, params = scope.sql()
    if options.kinds:
        clause += f" AND m.kind IN ({','.join('?' * len(options.kinds))})"
        params += list(options.kinds)
    if not options.include_superseded:
        valid, valid_params = _validity()
        clause += f" AND {valid}"
        params += valid_params
    rows = store.db.query(
        "SELECT memory_fts.rowid FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid"
        f" WHERE memory_fts MATCH ? AND {clause} ORDER BY bm25(memory_fts) LIMIT ?",
        (expression, *params, options.candidates))
    return [r[0] for r in rows]


def hybrid_search(store: "MemoryStore", query: str, scope: Scope, options: SearchOptions) -> SearchResult:
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
    if use_meaning:
        started = time.perf_counter()
        vector = store.embedder.embed([query])[0]
        result.embed_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    if use_meaning:
        for memory_id, distance in store.vectors.nearest(vector, scope, options.kinds, options.candidates):
            if 1.0 - distance >= options.threshold:
                similarity[memory_id] = 1.0 - distance
                meaning_ids.append(memory_id)
    words_ids = words_candidates(store, query, scope, options) if use_words else []

    fused: dict[int, float] = {}
    for weight, ids in ((options.words_weight, words_ids), (options.meaning_weight, meaning_ids)):
        for rank, memory_id in enumerate(ids, start=1):
            fused[memory_id] = fused.get(memory_id, 0.0) + weight / (options.rrf_k + rank)
    best_possible = sum(w for w, on in ((options.words_weight, use_words), (options.meaning_weight, use_meaning))
                        if on) / (options.rrf_k + 1)
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
        result.hits.append(SearchHit(memory, fused[memory_id] / best_possible, similarity.get(memory_id),
                                     words_rank.get(memory_id), meaning_rank.get(memory_id)))
        if len(result.hits) == options.k:
            break
    result.search_ms = (time.perf_counter() - started) * 1000
    return result


def _is_valid(memory: Memory) -> bool:
    return memory.superseded_by is None and (memory.valid_to is None or memory.valid_to > now_iso())
