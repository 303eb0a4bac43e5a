"""Hybrid recall: BM25 over words and KNN over meaning, fused, then given context.

Word candidates come from SQL that carries the whole search scope; meaning candidates from
the in-memory copy of the user's vectors (loaded by SQL with the user in it), filtered there by
the rest of the scope; the hits are then fetched by SQL with the whole scope again. So no other
user's memory ever reaches this module. The two sides run side by side (words on a worker
thread: SQLite and numpy both release the GIL).

Fusion "scores" (the default) adds the BM25 score, divided by the best one or by the query's
ideal score where that is larger (coverage.py: a match counts by how much of the query it
holds), to the cosine similarity (a negative one counts 0), each weighted; on LoCoMo it beats
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
``context_candidates`` only: LoCoMo recall@10 is the same, and the lookups cost half). A question
is answered by the other party's next message ("What's your favourite dish?" · "Coconut milk ice
cream"): the question matches what is asked, the answer holds what is wanted, so that answer rises
to ``answer_weight`` (0.9) of the question's score and comes right after it (LoCoMo recall@5 / @10
0.699 / 0.787 → 0.718 / 0.805; rising to the whole, 0.719 / 0.805, a tie that recency broke for
the newer reply; adding the whole, 0.727 / 0.805, put the assistant's reply above the person's
question that held the fact). The other party, not merely the next message: a person's second
message after their own question does not answer it. Weights
were tuned with tests/bench/retrieval.py on LoCoMo; set them to 0 for plain fusion. The shares
are of the score above the crowd (the meaning candidates' median similarity): a multilingual
model finds every message of a language somewhat similar (e5: ~0.45 for any two Chinese chat
lines), and full shares of that made a long session of unrelated chat outrank the one message
that answers the question when it was said in a session of its own (dev zero-overlap cases in
the top 3: 8 of 24 as by meaning alone, were 3 with the Chinese function words; LoCoMo -0.003).

Keys that carry facts (the LongMemEval paper's fact-augmented keys): a distilled note is a key
of the messages it was taken from, so a message earns ``key_weight`` of its notes' scores (and
joins the candidates): a question worded like the note finds the person's own words too.

Standing (``rank``): what a memory's record says beside its text, each feature from 0 to 1 with
a weight: importance (0.5, the default, is neutral), pinning, recency (halving every
``recency_half_life_days`` before ``now``) and heat (recalled often and lately). They multiply
the relevance (by 1 + the weighted sum), so they order memories that match alike and cannot
lift one that does not match at all. A superseded or expired memory is left out unless history is
asked for (``include_superseded``); then it counts ``history_weight`` of its score, so the
current one comes first.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Literal

import numpy as np

from engram.core.errors import InvalidInput
from engram.core.memory.records import DISTILLED_KINDS, Memory, moment_of, now_iso, parse_kind
from engram.core.memory.scope import Scope
from engram.core.memory.search.coverage import ideal_bm25
from engram.core.memory.search.neighbourhood import similarities
from engram.core.memory.search.reranking import reranked
from engram.core.memory.search.timeframe import in_timeframe
from engram.core.storage import dialect

if TYPE_CHECKING:
    from engram.core.memory.search.searcher import EmbeddingSpace, Searcher
    from engram.core.models.reranker import Reranker
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
    centre_meaning: bool = True      # similarity measured from the candidates' mean (neighbourhood.py)
    kinds: tuple[str, ...] = ()      # empty: every kind
    include_superseded: bool = False
    neighbour_weight: float = 0.3    # share of the previous and next message's score a message earns
    answer_weight: float = 0.9       # share of a question's score the other party's next message rises to
    session_weight: float = 0.3      # share of the best score in its session a memory earns
    context_candidates: int = 100    # best fused candidates whose neighbouring turns share their score
    key_weight: float = 1.0          # share of a distilled note's score the messages it came from earn
    coverage_weight: float = 1.0     # BM25 is divided by the larger of the best score and this share of the
                                     # query's ideal score (coverage.py); 0: by the best score alone
    absent_weight: float = 1.0       # in the ideal, a query term no memory holds counts this share of the
                                     # IDF of a term one memory holds (coverage.py); 0: left out
    # Standing (see rank): what each feature adds to 1 at its fullest, the relevance's multiplier.
    # No benchmark holds importance, pins or recalls, so those weights are a judgement: enough to
    # order near-equal matches. Recency was measured: 0.1 halving every 30 days cost LoCoMo 0.005
    # recall@5 (with notes; its questions ask about every session alike) and lost one of the 24
    # Chinese zero-overlap cases; 0.05 over 90 days loses neither and still puts the newer of two
    # like messages first (where no distilled note marks the older one as out of date).
    importance_weight: float = 0.2   # importance 1 adds it, 0 takes it away, 0.5 (the default) neither
    pinned_weight: float = 0.3
    recency_weight: float = 0.05
    recency_half_life_days: float = 90.0   # Settings.recency_half_life_days; also how fast heat cools
    heat_weight: float = 0.1
    timeframe_weight: float = 2.0    # more relevance for a memory said in a time the query names (timeframe.py)
    history_weight: float = 0.5      # share of its score a superseded or expired memory keeps (history only)
    rerank_candidates: int = 20      # best fused candidates a reranker reorders, when one is installed
                                     # (reranking.py; at least k); 0: none, even with a reranker
    now: str | None = None           # the moment recency and validity are measured at (ISO; None: now)

    def __post_init__(self):
        if self.rerank_candidates < 0:
            raise InvalidInput("rerank_candidates must be 0 or more")
        if self.mode not in MODES:
            raise InvalidInput(f"unknown search mode {self.mode!r}", hint="use hybrid, words or meaning")
        if self.fusion not in FUSIONS:
            raise InvalidInput(f"unknown fusion {self.fusion!r}", hint="use scores or rrf")
        if self.k < 1:
            raise InvalidInput("k must be at least 1")
        if self.recency_half_life_days <= 0:
            raise InvalidInput("the recency half-life must be more than 0 days")
        if self.now is not None:
            try:   # one spelling, so that it compares with the stored times as text
                object.__setattr__(self, "now", _iso(moment_of(self.now)))
            except (TypeError, ValueError):
                raise InvalidInput(f"{self.now!r} is not a moment",
                                   hint="write it as ISO 8601, e.g. 2024-05-01T12:00:00Z") from None
        object.__setattr__(self, "kinds", tuple(parse_kind(kind).value for kind in self.kinds))

    @property
    def moment(self) -> str:
        """The moment recency and validity are measured at."""
        return self.now or now_iso()


@dataclass(frozen=True)
class SearchHit:
    memory: Memory
    score: float                      # what the hits are ordered by: the reranker's when it read this hit,
                                      # else fused (1.0 = first on every side that ran)
    similarity: float | None = None   # when the meaning side found it: cosine similarity measured from
                                      # its neighbourhood's middle (neighbourhood.py)
    words_rank: int | None = None
    meaning_rank: int | None = None
    rerank_score: float | None = None  # the reranker's, 0 to 1, when it read this one (then also ``score``)


@dataclass
class SearchResult:
    hits: list[SearchHit]
    embed_ms: float = 0.0
    search_ms: float = 0.0
    notes: list[str] = field(default_factory=list)   # e.g. why meaning was not used
    reranker: str = ""                # the reranker that reordered the best candidates; empty: none did
    rerank_ms: float = 0.0


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
        fused, best_possible = _rank_fusion(options, (use_words, words_ids), (use_meaning, meaning_ids))
    else:
        if use_meaning and similarity:
            crowd = options.meaning_weight * max(0.0, statistics.median(similarity.values()))
        fused = _score_fusion(options, bm25 if use_words else {}, similarity if use_meaning else {},
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


def _rank_fusion(options: SearchOptions, *sides: tuple[bool, list[int]]) -> tuple[dict[int, float], float]:
    """Reciprocal-rank fusion of (side ran, ranked ids) pairs, words first; and its best possible score."""
    fused: dict[int, float] = {}
    weights = (options.words_weight, options.meaning_weight)
    for weight, (_, ids) in zip(weights, sides):
        for rank, memory_id in enumerate(ids, start=1):
            fused[memory_id] = fused.get(memory_id, 0.0) + weight / (options.rrf_k + rank)
    return fused, sum(w for w, (ran, _) in zip(weights, sides) if ran) / (options.rrf_k + 1)


def _score_fusion(options: SearchOptions, bm25: dict[int, float], similarity: dict[int, float],
                  candidates: list[int], ideal: float = 0.0) -> dict[int, float]:
    """Weighted sum of BM25 over the larger of the best BM25 and ``ideal`` (coverage.py) and cosine
    similarity (a negative one counts 0)."""
    top = max(max(bm25.values(), default=0.0), ideal)
    return {memory_id: options.words_weight * (bm25.get(memory_id, 0.0) / top if top > 0 else 0.0)
            + options.meaning_weight * max(0.0, similarity.get(memory_id, 0.0)) for memory_id in candidates}


def with_context(db: "Database", fused: dict[int, float], scope: Scope,
                 options: SearchOptions, crowd: float = 0.0) -> dict[int, float]:
    """Scores after each message takes a share of its neighbouring messages' scores (an answer
    also rises to ``answer_weight`` of its question's) and every memory a share of the best score
    in its session: shares of the part of a score above ``crowd``. Neighbours are the previous and
    next message of the same session inside the scope; they may join the candidates, unless a
    similarity threshold is set: then only memories that words or meaning found are returned, and
    the answers to those of them that ask, as relevant as their question (LoCoMo at recall's
    threshold 0.1: .714/.793 at @5/@10; .707/.777 if answers could not join)."""
    ids = sorted(fused, key=lambda i: -fused[i])
    clause, params = scope.sql("n")
    # Neighbours are looked up (two index probes each) for the best candidates only: a weak
    # candidate's share would not lift anything into the results.
    def neighbour(nearest: str, side: str) -> str:
        return (f" CASE WHEN m.kind = 'message' AND pool.rank < ? THEN (SELECT {nearest}(n.id) FROM memories n"
                " WHERE n.session = m.session AND n.user = m.user AND n.agent = m.agent"
                f" AND n.application = m.application AND n.kind = 'message' AND n.id {side} m.id AND {clause}) END")

    sql = dialect.of(db)
    role = sql.json_text("{m}.source", "role")
    rows = db.query(
        f"WITH pool(id, rank) AS (SELECT value, key FROM {sql.ints('?', 'found')}),"
        " near AS (SELECT m.id, m.application, m.agent, m.user, m.session, m.kind = 'message' AS message,"
        f"{neighbour('max', '<')} AS before, {neighbour('min', '>')} AS after,"
        f" (m.text LIKE ? OR m.text LIKE ?) AS asks, {role.format(m='m')} AS role"
        " FROM pool CROSS JOIN memories m WHERE m.id = pool.id)"
        # The next message answers this one when this one asks and the other party says the next.
        " SELECT id, application, agent, user, session, message, before, after, CASE WHEN asks"
        f" THEN (SELECT {role.format(m='a')} FROM memories a WHERE a.id = near.after) != role END FROM near",
        (json.dumps(ids), options.context_candidates, *params, options.context_candidates, *params, "%?%", "%？%"))
    evidence = {memory_id: max(0.0, score - crowd) for memory_id, score in fused.items()}
    session_best: dict[tuple, float] = {}
    for memory_id, *where, _, _, _, _ in rows:
        if where[3]:
            session_best[tuple(where)] = max(session_best.get(tuple(where), 0.0), evidence[memory_id])
    scores = dict(fused)
    for memory_id, *where, is_message, before, after, answered in rows:
        if where[3]:
            scores[memory_id] += options.session_weight * session_best[tuple(where)]
        if is_message and options.neighbour_weight:
            for neighbour in (before, after):
                if neighbour is not None and (neighbour in scores or options.threshold <= 0):
                    scores[neighbour] = scores.get(neighbour, 0.0) + options.neighbour_weight * evidence[memory_id]
        if answered:
            # The answer rises to its share of the question's own score: right after it, not above it.
            shared = options.neighbour_weight * evidence[memory_id]
            lift = options.answer_weight * fused[memory_id] - fused.get(after, 0.0) - shared
            if lift > 0:
                scores[after] = scores.get(after, 0.0) + lift
    return scores


def with_keys(db: "Database", fused: dict[int, float], options: SearchOptions) -> dict[int, float]:
    """Scores after each archived message earns ``key_weight`` of the best score among the current
    notes distilled from it (a message no side found joins). Only when messages may be returned."""
    if options.kinds and "message" not in options.kinds:
        return fused
    # The notes' source_ids are message ids; the message's archived memory holds just that one.
    # The kinds are written out, as in the index of notes (PostgreSQL's migration 9), so that the
    # candidates are looked up there: most are no note, and their rows need not be read.
    sql = dialect.of(db)
    rows = db.query(
        f"SELECT n.id, m.id FROM {sql.ints('?', 'pool')} CROSS JOIN memories n"
        f" CROSS JOIN {sql.ints('n.source_ids', 'said')} CROSS JOIN memories m{sql.indexed_by('memories_by_message')}"
        " WHERE n.id = pool.value AND m.user = n.user AND m.kind = 'message'"
        " AND m.source_ids = '[' || said.value || ']'"
        f" AND n.kind IN {NOTE_KINDS} AND n.source_ids != '[]' AND {_CURRENT.format(m='n')}",
        (json.dumps(list(fused)), options.moment, options.moment))
    scores = dict(fused)
    for note, message in rows:
        scores[message] = max(scores.get(message, 0.0), options.key_weight * fused[note])
    return scores


NOTE_KINDS = "(" + ", ".join(f"'{kind.value}'" for kind in DISTILLED_KINDS) + ")"   # SQL: the kinds of notes

# A memory is current at a moment (the two parameters) when nothing superseded it and its validity
# window holds the moment.
_CURRENT = ("{m}.superseded_by IS NULL AND ({m}.valid_to IS NULL OR {m}.valid_to > ?)"
            " AND ({m}.valid_from IS NULL OR {m}.valid_from <= ?)")


def rank(db: "Database", fused: dict[int, float], options: SearchOptions) -> dict[int, float]:
    """The final scores: each candidate's relevance (fused, with its context) composed with its
    standing. Candidates that are not current are left out, or, when history is asked for, keep
    ``history_weight`` of their score."""
    moment = options.moment
    rows = db.query(
        "SELECT m.id, m.importance, m.pinned, m.created_at, m.access_count, m.last_accessed_at,"
        f" {_CURRENT.format(m='m')} FROM {dialect.of(db).ints('?', 'pool')} CROSS JOIN memories m WHERE m.id = pool.value",
        (moment, moment, json.dumps(list(fused))))
    weights = {"importance": options.importance_weight, "pinned": options.pinned_weight,
               "recency": options.recency_weight, "heat": options.heat_weight}
    scores: dict[int, float] = {}
    for memory_id, importance, pinned, created_at, access_count, last_accessed_at, current in rows:
        if not current and not options.include_superseded:
            continue
        features = standing(importance, pinned, created_at, access_count, last_accessed_at, moment,
                            options.recency_half_life_days)
        score = fused[memory_id] * (1 + sum(weights[name] * value for name, value in features.items()))
        scores[memory_id] = score if current else score * options.history_weight
    return scores


def standing(importance: float, pinned: bool, created_at: str, access_count: int, last_accessed_at: str | None,
             moment: str, half_life_days: float) -> dict[str, float]:
    """A memory's ranking features at ``moment``, named as SearchOptions' weights: importance
    from -1 (0) to 1 (1), the others from 0 to 1. Heat is how often it was recalled (1 - 2^-count)
    cooling by the half-life since the last time."""
    return {"importance": 2 * importance - 1, "pinned": float(bool(pinned)),
            "recency": halved(days_between(created_at, moment), half_life_days),
            "heat": (1 - 0.5 ** access_count) * halved(days_between(last_accessed_at, moment), half_life_days)
            if last_accessed_at else 0.0}


def halved(days: float, half_life_days: float) -> float:
    return 0.5 ** (max(0.0, days) / half_life_days)


def days_between(earlier: str, later: str) -> float:
    return (moment_of(later) - moment_of(earlier)).total_seconds() / 86400


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
