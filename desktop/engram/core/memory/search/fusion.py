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
from typing import TYPE_CHECKING

from engram.core.memory.records import DISTILLED_KINDS, moment_of
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.storage import dialect

if TYPE_CHECKING:
    from engram.core.storage.database import Database

def rank_fusion(options: SearchOptions, *sides: tuple[bool, list[int]]) -> tuple[dict[int, float], float]:
    """Reciprocal-rank fusion of (side ran, ranked ids) pairs, words first; and its best possible score."""
    fused: dict[int, float] = {}
    weights = (options.words_weight, options.meaning_weight)
    for weight, (_, ids) in zip(weights, sides):
        for rank, memory_id in enumerate(ids, start=1):
            fused[memory_id] = fused.get(memory_id, 0.0) + weight / (options.rrf_k + rank)
    return fused, sum(w for w, (ran, _) in zip(weights, sides) if ran) / (options.rrf_k + 1)


def score_fusion(options: SearchOptions, bm25: dict[int, float], similarity: dict[int, float],
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

